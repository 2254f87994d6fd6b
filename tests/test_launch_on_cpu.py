"""Issue 31: the generated launch.sh starts the plan. Each plan's files are written as `advisor advise --artifacts` writes
them and launch.sh runs on CPU with gloo at 1 node x 2 processes, with the shipped template train.py, for a few steps.

Substituted, and nothing else: the counts (torchrun's --nnodes / --nproc-per-node; ds_config.json's train_batch_size
to the micro-batch x 2 ranks, one accumulation step, so CPU steps stay short; the plan's batch that launch.sh passes to
train.py, shrunk the way a user's quick try does, by arguments after it: 64 tokens, 2 accumulation steps, so the
no_sync path runs), the rendezvous port (a free one, so tests
running side by side do not meet), and the backend: the template picks gloo without CUDA, and DeepSpeed's optimizer
runs torch's AdamW (`torch_adam`, DeepSpeed's own switch) instead of its fused CUDA kernel, which CPUs lack.
Skipped only where torch is absent (CI installs it: see .ci/run)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.launch  # run apart: python -m pytest -m launch -n 0 (.ci/run)

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping
from advisor.outputs.artifacts import write_artifacts

from .test_launch_plan import _rules

PRETRAIN_7B = {"model": {"params": "7B"}, "training": {"tokens": "1T"}, "cluster": {"gpu": "a100-80gb", "gpus": 64},
               "budget": {"price_per_gpu_hour": 2}}
LORA_7B = {"model": {"params": "7B"}, "training": {"method": "lora", "lora_rank": 8, "lora_targets": "all-linear", "tokens": "50M"},
           "cluster": {"gpu": "a100-80gb", "gpus": 8}, "budget": {"price_per_gpu_hour": 2}}

# A 70B on GB200: FSDP keeps some layers' activations on the Grace CPU (train.py --offload-activations, save_on_cpu)
GB200_70B = {"model": {"params": "70B", "layers": 80, "hidden_size": 8192, "attention_heads": 64, "kv_heads": 8, "seq_len": 8192},
             "training": {"tokens": "100B", "global_batch_tokens": "2M", "current_strategy": "none", "deadline_days": 30},
             "cluster": {"gpu": "gb200", "gpus": 64, "gpus_per_node": 4}, "budget": {"price_per_gpu_hour": 6}}

PLANS = {
    # DDP and PEFT in one launch: the LoRA plan runs on DDP (its adapter from peft_lora_config.json).
    "ddp-lora": (LORA_7B, "ddp"),
    "fsdp": (PRETRAIN_7B, "fsdp"),
    "fsdp-offload": (GB200_70B, "fsdp"),
    "hsdp": (PRETRAIN_7B, "fsdp-hybrid"),
    # ZeRO-1 is not launched apart from ZeRO-2: the same launch line and the same DeepSpeed optimizer class
    # (runtime/zero/stage_1_and_2.py), ds_config.json differing in the stage alone (test_zero1_differs_from_zero2_in_the_stage_alone).
    "zero2": (PRETRAIN_7B, "deepspeed-zero2"),
    "zero3": (PRETRAIN_7B, "deepspeed-zero3"),
    # ZeRO++ is not launched here: its quantised collectives are CUDA kernels (DeepSpeed's CPU op builder raises 'This op
    # had not been implemented on CPU backend'); DeepSpeed's config parser checks its file (test_artifacts.py).
}

WALL_TIMES: dict[str, float] = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _on_two_cpu_processes(folder: Path) -> None:
    launch = folder / "launch.sh"
    text = launch.read_text()
    text = re.sub(r"--nnodes=\d+", "--nnodes=1", text)
    text = re.sub(r"--nproc-per-node=\d+", "--nproc-per-node=2", text)
    assert re.search(r'--seq-len \d+ "\$@"', text), "launch.sh passes the plan's sequence length, then the caller's arguments"
    text = text.replace('"$@"', '"$@" --seq-len 64' + ("" if "--deepspeed" in text else " --accumulation 2"))
    launch.write_text(text.replace(":29500", f":{_free_port()}"))
    ds = folder / "ds_config.json"
    if ds.exists():
        cfg = json.loads(ds.read_text())
        cfg["train_batch_size"] = cfg["train_micro_batch_size_per_gpu"] * 2
        cfg["optimizer"]["params"]["torch_adam"] = True
        ds.write_text(json.dumps(cfg))


def test_zero1_differs_from_zero2_in_the_stage_alone(tmp_path):
    files = {}
    for strategy in ("deepspeed-zero1", "deepspeed-zero2"):
        advice = advise(answers_from_mapping(PRETRAIN_7B), _rules())
        advice.strategy = strategy
        write_artifacts(advice, tmp_path / strategy, force=False)
        files[strategy] = {p.name: p.read_text() for p in (tmp_path / strategy).iterdir()}
    one, two = files["deepspeed-zero1"], files["deepspeed-zero2"]
    assert one["launch.sh"] == two["launch.sh"] and one["train.py"] == two["train.py"]
    cfg1, cfg2 = json.loads(one["ds_config.json"]), json.loads(two["ds_config.json"])
    assert cfg1["zero_optimization"].pop("stage") == 1 and cfg2["zero_optimization"].pop("stage") == 2
    assert cfg1 == cfg2


@pytest.mark.parametrize("plan", sorted(PLANS))
def test_launch_sh_runs_a_few_steps_on_cpu(tmp_path, plan):
    pytest.importorskip("torch", reason="torch is not installed (CI installs torch==2.13.0: see .ci/run)")
    answers, strategy = PLANS[plan]
    advice = advise(answers_from_mapping(answers), _rules())
    advice.strategy = strategy
    folder = tmp_path / "launch"
    write_artifacts(advice, folder, force=False)
    assert "TEMPLATE" in (folder / "train.py").read_text().splitlines()[0]
    _on_two_cpu_processes(folder)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "CUDA_VISIBLE_DEVICES": "",
           "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    started = time.monotonic()
    run = subprocess.run(["bash", "launch.sh"], cwd=folder, env=env, capture_output=True, text=True, timeout=240)
    WALL_TIMES[plan] = time.monotonic() - started
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "step 3 loss" in run.stdout, run.stdout[-2000:]
    if "lora" in plan:
        assert "--lora peft_lora_config.json" in (folder / "launch.sh").read_text()
    if "offload" in plan:
        assert "--offload-activations 0." in (folder / "launch.sh").read_text()


FULL_FT_7B = {"model": {"params": "7B", "seq_len": 2048}, "training": {"method": "finetune", "tokens": "200M"},
              "cluster": {"gpu": "h100-sxm", "gpus": 16}, "budget": {"price_per_gpu_hour": 2}}


def test_the_accelerate_line_runs_the_plans_fsdp_precision_and_batch_on_cpu(tmp_path):
    """User try 8: the README's `accelerate launch --config_file accelerate_finetune.yaml ... train.py` passed none of the
    plan's batch, and the template ignored accelerate's config: it ran plain DDP in fp32 with micro-batch 2 of 16 tokens.
    The line as the README gives it, at 1 machine x 2 CPU processes, now runs FSDP in bf16 at the plan's micro-batch."""
    pytest.importorskip("accelerate", reason="accelerate is not installed (CI installs it: see .ci/run)")
    advice = advise(answers_from_mapping(FULL_FT_7B), _rules())
    assert advice.strategy == "fsdp", advice.strategy
    folder = tmp_path / "launch"
    write_artifacts(advice, folder, force=False)
    readme = (folder / "README.md").read_text()
    line = re.search(r"`(accelerate launch --config_file accelerate_finetune\.yaml [^`]*)`", readme).group(1)
    assert "--micro-batch 4" in line and "--seq-len 2048" in line, line
    cfg = (folder / "accelerate_finetune.yaml").read_text()
    cfg = re.sub(r"num_machines: \d+", "num_machines: 1", cfg)
    cfg = re.sub(r"num_processes: \d+", "num_processes: 2", cfg)
    (folder / "accelerate_finetune.yaml").write_text(cfg.replace("main_process_port: 29500", f"main_process_port: {_free_port()}") + "use_cpu: true\n")
    train = (folder / "train.py").read_text()
    # say what the template ran: the printed layout is the assertion
    (folder / "train.py").write_text(train.replace("    model.to(device)\n", "    model.to(device)\n    print(f'ran fsdp={args.fsdp} "
                                                   "precision={args.precision} micro={args.micro_batch}', flush=True)\n", 1))
    line = line.replace('"${SLURM_NODEID:-0}"', "0").replace('"${MASTER_ADDR:-localhost}"', "localhost") + " --seq-len 64 --accumulation 2"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "CUDA_VISIBLE_DEVICES": "",
           "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    run = subprocess.run(["bash", "-c", line], cwd=folder, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "ran fsdp=FULL_SHARD precision=bf16 micro=4" in run.stdout and "step 3 loss" in run.stdout, run.stdout[-2000:]
