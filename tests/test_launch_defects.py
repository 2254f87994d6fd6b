"""Issue 31: the launch files' defects an infrastructure engineer hit running them — each checked against the framework's
own rule (megatron-core's schedule and config, accelerate's launch checks, DeepSpeed's config parser) or the priced model."""

from __future__ import annotations

import json
import warnings

import pytest
import yaml

from advisor.decision.advice import advise
from advisor.decision.deployment import deployment
from advisor.estimate.workload import workload_from
from advisor.inputs.answers import answers_from_mapping
from advisor.outputs.artifacts import artifacts_for, build_artifacts, launch_command

from .deepspeed_check import parsed_by_deepspeed
from .test_launch_plan import SCENARIOS, _flags, _rules

DENSE_70B_GQA = SCENARIOS["llama3-70b-gqa"]


def _megatron(answers: dict):
    advice = advise(answers_from_mapping(answers), _rules())
    advice.strategy = "megatron-3d"
    report = advice.report()
    files = {a.name: a.text for a in artifacts_for(report)}
    return report.deployment, files, _flags(files["launch.sh"].splitlines()[-1].split("pretrain_gpt.py", 1)[1])


def megatron_params(flags: dict[str, str | bool], active: bool = False) -> float:
    """The parameters of the model Megatron-LM builds from these flags (GPTModel with TransformerLayer: QKV and output
    projections, SwiGLU's three matrices or a GELU MLP's two, the router and experts, tied embedding)."""
    h, layers, heads = int(flags["--hidden-size"]), int(flags["--num-layers"]), int(flags["--num-attention-heads"])
    kv = int(flags.get("--num-query-groups", heads))
    head_dim = h // heads
    ffn = int(flags.get("--ffn-hidden-size", 4 * h))
    mats = 3 if "--swiglu" in flags else 2
    attention = 2 * h * heads * head_dim + 2 * h * kv * head_dim
    if "--num-experts" in flags:
        experts = int(flags["--num-experts"])
        moe_ffn = int(flags.get("--moe-ffn-hidden-size", ffn))
        routed = int(flags["--moe-router-topk"]) if active else experts
        mlp = experts * h + routed * mats * h * moe_ffn + mats * h * int(flags.get("--moe-shared-expert-intermediate-size", 0))
    else:
        mlp = mats * h * ffn
    vocab = int(flags.get("--vocab-size", 0))
    return float(layers * (attention + mlp + 2 * h) + vocab * h + h)


def test_tensor_or_context_parallel_megatron_plans_export_one_cuda_queue():
    """Megatron-LM's argument check refuses TP/CP without CUDA_DEVICE_MAX_CONNECTIONS=1."""
    d, files, flags = _megatron(DENSE_70B_GQA)
    assert d.tensor_parallel > 1
    for name in ("launch.sh", "job.sbatch"):
        lines = files[name].splitlines()
        launch = next(i for i, ln in enumerate(lines) if "pretrain_gpt.py" in ln)
        assert "export CUDA_DEVICE_MAX_CONNECTIONS=1" in lines[:launch], name


@pytest.mark.parametrize(("pp", "m", "group"), [(10, 19, 19), (10, 20, None), (4, 6, 6), (4, 9, 5), (8, 8, None), (2, 3, 3)])
def test_microbatch_group_meets_megatron_cores_interleaved_schedule(pp, m, group):
    """The issue's 19 micro-batches over 10 stages: the default group (PP) leaves 9, fewer than PP (schedules.py raises)."""
    from advisor.outputs.artifacts import microbatch_group

    assert microbatch_group(pp, m) == group
    g = group or pp
    assert pp <= g <= m and (m % g == 0 or m % g >= pp)


def test_interleaving_is_dropped_where_a_step_has_fewer_micro_batches_than_stages():
    """An interleaved plan with fewer micro-batches than pipeline stages cannot run megatron-core's interleaved
    schedule at all: the deployment runs plain 1F1B, and says its bubble as such."""
    from .test_launch_plan import assert_interleaved_schedule_runs

    data = {"model": {"params": "0.125B", "seq_len": 1024}, "training": {"tokens": "100M", "current_strategy": "megatron-3d"},
            "cluster": {"gpu": "a100-80gb", "gpus": 96, "gpus_per_node": 8, "inter_node_gbps": 25}, "budget": {"price_per_gpu_hour": 1}}
    advice = advise(answers_from_mapping(data), _rules())
    e = advice.evaluation.estimates["megatron-3d"]
    d = deployment(advice.evaluation, "megatron-3d")
    if int(e.vpp[0]) > 1 and int(e.accumulation[0]) < int(e.pp[0]):
        assert d.virtual_stages == 1 and d.schedule == "1f1b"
    flags = _flags(launch_command(d).split("pretrain_gpt.py", 1)[1])
    assert_interleaved_schedule_runs(flags, d)


@pytest.mark.parametrize(("name", "answers", "tolerance", "active_tolerance"),
                         [("dense-70b-gqa", DENSE_70B_GQA, 0.02, 0.0), ("deepseek-v3-like", SCENARIOS["deepseek-v3-like"], 0.03, 0.05),
                          # Mixtral-like without kv_heads: multi-head attention on the shape solved from 12.9B active already
                          # exceeds the 1.6B dense share the totals imply, so the experts keep the total and active runs over.
                          ("mixtral-like", SCENARIOS["mixtral-like"], 0.03, 0.2),
                          ("405b-126-layers", SCENARIOS["405b-126-layers"], 0.02, 0.0)])
def test_megatron_flags_build_the_priced_model(name, answers, tolerance, active_tolerance):
    """The flags describe the model the estimate priced: its parameters (671B for DeepSeek-V3-like, not ~6T) and, for a
    mixture of experts, its active parameters; grouped-query attention, SwiGLU, RoPE and the vocabulary stated."""
    d, _, flags = _megatron(answers)
    w = workload_from(answers_from_mapping(answers))
    assert megatron_params(flags) == pytest.approx(w.params, rel=tolerance), name
    if w.is_moe:
        assert megatron_params(flags, active=True) == pytest.approx(w.active_params, rel=active_tolerance), name
        assert int(flags["--moe-ffn-hidden-size"]) % d.tensor_parallel == 0
    assert flags["--position-embedding-type"] == "rope" and "--swiglu" in flags and flags["--normalization"] == "RMSNorm"
    assert int(flags["--vocab-size"]) == w.vocab
    kv = answers["model"].get("kv_heads")
    if kv:
        assert "--group-query-attention" in flags and int(flags["--num-query-groups"]) == kv
    from advisor.outputs.artifacts import megatron_model

    m = megatron_model(d, w)
    assert m.padded_vocab % (128 * d.tensor_parallel) == 0 and m.padded_vocab - w.vocab < 128 * d.tensor_parallel


def _accelerate():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("accelerate.commands.launch", reason="accelerate is not installed (CI installs it: see .ci/run)")


FINETUNE_ZERO3 = {"model": {"params": "7B"}, "training": {"method": "finetune", "examples": "200k", "tokens_per_example": 512},
                  "cluster": {"gpu": "a100-80gb", "gpus": 16}, "budget": {"price_per_gpu_hour": 2}}


@pytest.mark.parametrize("strategy", ["deepspeed-zero3", "fsdp", "ddp"])
def test_accelerate_configs_leave_the_host_to_launch_time_and_pass_accelerates_launch_checks(tmp_path, strategy):
    """main_process_ip was the literal 'MASTER_ADDR' (a DNS lookup that hangs every multi-node run) and machine_rank 0 on
    every host; the DeepSpeed config set mixed_precision beside deepspeed_config_file, which accelerate refuses."""
    launch = _accelerate()
    from accelerate.utils.dataclasses import DeepSpeedPlugin

    advice = advise(answers_from_mapping(FINETUNE_ZERO3), _rules())
    advice.strategy = strategy
    files = {a.name: a for a in build_artifacts(advice)}
    cfg = yaml.safe_load(files["accelerate_finetune.yaml"].text)
    assert "MASTER_ADDR" not in json.dumps(cfg) and "main_process_ip" not in cfg and "machine_rank" not in cfg
    assert '--main_process_ip "${MASTER_ADDR:-localhost}"' in files["accelerate_finetune.yaml"].description
    assert '--machine_rank "${SLURM_NODEID:-0}"' in files["accelerate_finetune.yaml"].description
    path = tmp_path / "accelerate_finetune.yaml"
    path.write_text(files["accelerate_finetune.yaml"].text)
    args = launch.launch_command_parser().parse_args(["--config_file", str(path), "--machine_rank", "1", "--main_process_ip", "10.0.0.1", "train.py"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args, defaults, mp_from_config = launch._validate_launch_command(args)
    assert args.main_process_ip == "10.0.0.1" and args.machine_rank == 1 and args.num_processes == advice.report().deployment.gpus
    if strategy.startswith("deepspeed"):
        fields = [*defaults.deepspeed_config.keys(), *(["mixed_precision"] if mp_from_config else [])]
        import os

        saved = os.environ.get("ACCELERATE_CONFIG_DS_FIELDS")
        os.environ["ACCELERATE_CONFIG_DS_FIELDS"] = ",".join(fields)
        try:
            DeepSpeedPlugin._deepspeed_config_checks(None)  # type: ignore[arg-type]  # accelerate's own rule; reads only the environment
        finally:
            if saved is None:
                os.environ.pop("ACCELERATE_CONFIG_DS_FIELDS")
            else:
                os.environ["ACCELERATE_CONFIG_DS_FIELDS"] = saved


@pytest.mark.parametrize("strategy", ["deepspeed-zero1", "deepspeed-zero2", "deepspeed-zero3", "deepspeed-zeropp"])
def test_ds_config_runs_the_plans_batch_at_other_gpu_counts_with_an_optimizer(strategy):
    """All three batch numbers fixed the file to one GPU count; ZeRO without an optimizer block fails unless train.py
    passes one. Now DeepSpeed derives the accumulation at any data-parallel size that divides the batch."""
    advice = advise(answers_from_mapping({"model": {"params": "7B"}, "training": {"tokens": "1T"},
                                          "cluster": {"gpu": "a100-80gb", "gpus": 64}, "budget": {"price_per_gpu_hour": 2}}), _rules())
    advice.strategy = strategy
    d = advice.report().deployment
    cfg = json.loads({a.name: a.text for a in build_artifacts(advice)}["ds_config.json"])
    assert cfg["optimizer"]["type"] == "AdamW"
    assert parsed_by_deepspeed(cfg, d.data_parallel).gradient_accumulation_steps == d.accumulation
    other = d.data_parallel // 2
    assert cfg["train_batch_size"] % (cfg["train_micro_batch_size_per_gpu"] * other) == 0
    assert parsed_by_deepspeed(cfg, other).gradient_accumulation_steps == 2 * d.accumulation


def test_gb200_launches_four_gpus_per_host_and_states_the_nvl72_domain():
    """GB200 NVL72: 72 GPUs share an NVLink domain, but each compute tray's host has 4 (torchrun --nproc-per-node=72
    asked one host for 72 GPUs)."""
    advice = advise(answers_from_mapping({"model": {"params": "70B"}, "training": {"tokens": "1T"},
                                          "cluster": {"gpu": "gb200", "gpus": 144, "gpus_per_node": 72},
                                          "budget": {"price_per_gpu_hour": 6}}), _rules())
    files = {a.name: a.text for a in build_artifacts(advice)}
    d = advice.report().deployment
    assert d.gpus_per_node == 4 and d.nodes * 4 == d.gpus
    assert "--nproc-per-node=4 " in files["launch.sh"] and f"--nnodes={d.nodes} " in files["launch.sh"]
    assert "#SBATCH --gpus-per-node=4" in files["job.sbatch"] and f"#SBATCH --nodes={d.nodes}" in files["job.sbatch"]
    assert "72 GPUs share one NVLink domain" in files["README.md"]
