"""Launch artifacts: a starter configuration the engineers can run, for the recommended strategy.

Field names and enums follow each tool's own documentation: DeepSpeed's config JSON
(train_batch_size = micro-batch x gradient accumulation x data-parallel size, which DeepSpeed
itself asserts), torchrun's and horovodrun's flags, Accelerate's FSDP config keys, Slurm's sbatch.
Nothing is written for a blocked recommendation; risky combinations are explained in README.md.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from .advice import Advice
from .errors import OutputError
from .io import check_writable, shown, write_atomic
from .strategies import spec


@dataclass(frozen=True)
class Artifact:
    name: str
    description: str
    text: str


def batch_layout(advice: Advice) -> dict[str, int]:
    """Micro-batch, accumulation and data-parallel size, consistent by construction (seed:K17)."""
    e = advice.estimate_dict(advice.strategy)
    micro, accum, dp = e["micro_batch_size"], e["gradient_accumulation_steps"], e["data_parallel"]
    return {"micro": micro, "accumulation": accum, "data_parallel": dp, "train_batch_size": micro * accum * dp,
            "tensor_parallel": e["tensor_parallel"], "pipeline_parallel": e["pipeline_parallel"],
            "virtual_stages": e["virtual_pipeline_stages"], "context_parallel": e["context_parallel"]}


def deepspeed_config(advice: Advice) -> dict:
    a, s = advice.answers, advice.strategy
    b = batch_layout(advice)
    sp = spec(s)
    zero: dict = {"stage": sp.deepspeed_stage, "overlap_comm": True, "contiguous_gradients": True}
    if sp.offload:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    cfg: dict = {
        "train_batch_size": b["train_batch_size"],
        "train_micro_batch_size_per_gpu": b["micro"],
        "gradient_accumulation_steps": b["accumulation"],
        "gradient_clipping": 1.0,
        "zero_optimization": zero,
        "steps_per_print": 100,
        "wall_clock_breakdown": False,
    }
    if a.training.precision in ("bf16", "fp8"):  # FP8 matmuls (Transformer Engine) run over bf16 weights
        cfg["bf16"] = {"enabled": True}
    elif a.training.precision == "fp16":
        cfg["fp16"] = {"enabled": True, "loss_scale": 0, "initial_scale_power": 16}
    if advice.estimate_dict(s)["activation_recompute"] != "none":
        cfg["activation_checkpointing"] = {"partition_activations": False, "contiguous_memory_optimization": False}
    return cfg


def accelerate_fsdp_config(advice: Advice) -> dict:
    a = advice.answers
    e = advice.estimate_dict(advice.strategy)
    return {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": "FSDP",
        "mixed_precision": "no" if a.training.precision == "fp32" else a.training.precision,
        "num_machines": a.cluster.nodes,
        "num_processes": a.cluster.gpus,
        "machine_rank": 0,
        "main_process_ip": "MASTER_ADDR",
        "main_process_port": 29500,
        "rdzv_backend": "c10d",
        "same_network": True,
        "fsdp_config": {
            "fsdp_sharding_strategy": "FULL_SHARD",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_backward_prefetch": "BACKWARD_PRE",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_offload_params": False,
            "fsdp_use_orig_params": True,
            "fsdp_activation_checkpointing": e["activation_recompute"] != "none",
        },
    }


def launch_command(advice: Advice) -> str:
    a, s = advice.answers, advice.strategy
    b = batch_layout(advice)
    per_node = min(a.cluster.gpus, a.cluster.gpus_per_node)
    launcher = spec(s).launcher
    if launcher == "horovodrun":
        return f"horovodrun -np {a.cluster.gpus} -H $HOROVOD_HOSTS python train.py"
    run = (f"torchrun --nnodes={a.cluster.nodes} --nproc-per-node={per_node} --rdzv-backend=c10d "
           "--rdzv-endpoint=$MASTER_ADDR:29500 --rdzv-id=$SLURM_JOB_ID")
    if launcher == "deepspeed":
        return f"{run} train.py --deepspeed --deepspeed_config ds_config.json"
    if launcher == "megatron":
        flags = [
            f"--tensor-model-parallel-size {b['tensor_parallel']}", f"--pipeline-model-parallel-size {b['pipeline_parallel']}",
            f"--micro-batch-size {b['micro']}", f"--global-batch-size {b['train_batch_size']}",
            f"--seq-length {a.model.seq_len}", "--use-distributed-optimizer",
        ]
        layers, pp = advice.evaluation.context["workload"].shape.layers, b["pipeline_parallel"]
        per_stage = -(-layers // pp)
        if b["virtual_stages"] > 1:
            flags.append(f"--num-layers-per-virtual-pipeline-stage {max(1, per_stage // b['virtual_stages'])}")
        if layers % pp:
            flags.append(f"--decoder-last-pipeline-num-layers {layers - (pp - 1) * per_stage}")
        if b["context_parallel"] > 1:
            flags.append(f"--context-parallel-size {b['context_parallel']}")
        if b["tensor_parallel"] > 1:
            flags.append("--sequence-parallel")
        flags.append("--bf16" if a.training.precision == "bf16" else ("--fp16" if a.training.precision == "fp16" else ""))
        if a.training.precision == "fp8":  # Megatron-LM arguments.py: --fp8-format {e4m3,hybrid} over --bf16
            flags.append("--bf16 --fp8-format hybrid")
        return f"{run} pretrain_gpt.py " + " ".join(f for f in flags if f)
    return f"{run} train.py  # {'wrap the model in FullyShardedDataParallel' if s == 'fsdp' else 'wrap the model in DistributedDataParallel'}"


def sbatch_script(advice: Advice, launch: str) -> str:
    a = advice.answers
    e = advice.estimate_dict(advice.strategy)
    per_node = min(a.cluster.gpus, a.cluster.gpus_per_node)
    hi = e["range"]["wall_clock_hours"][1]
    limit = math.ceil(hi * 1.1)  # the pessimistic estimate plus 10% headroom
    days, hours = divmod(limit, 24)
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name=advisor-{advice.strategy}",
        f"#SBATCH --nodes={a.cluster.nodes}",
        "#SBATCH --ntasks-per-node=1",
        f"#SBATCH --gpus-per-node={per_node}",
        f"#SBATCH --time={days}-{hours:02d}:00:00",
    ]
    if a.cluster.multi_tenant:
        lines.append("#SBATCH --exclusive   # shared cluster: whole nodes avoid contention (seed:K20)")
    lines += [
        "#SBATCH --output=%x-%j.out",
        "set -euo pipefail",
        "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)",
    ]
    if spec(advice.strategy).launcher == "horovodrun":
        lines.append(f"export HOROVOD_HOSTS=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed 's/$/:{per_node}/' | paste -sd,)")
        lines.append(launch)
    else:
        lines.append(f"srun {launch}")
    return "\n".join(lines) + "\n"


def build_artifacts(advice: Advice) -> list[Artifact]:
    """Every file for the recommended strategy, README.md last (it lists the others)."""
    if any(w["blocking"] for w in advice.warnings):
        first = next(w["text"] for w in advice.warnings if w["blocking"])
        raise OutputError(f"no launch artifacts for a blocked recommendation: {first}")
    s = advice.strategy
    out: list[Artifact] = []
    if spec(s).launcher == "deepspeed":
        out.append(Artifact("ds_config.json", f"DeepSpeed config: ZeRO stage, precision, batch layout for {s}",
                            json.dumps(deepspeed_config(advice), indent=2) + "\n"))
    if spec(s).states == "fsdp":
        out.append(Artifact("accelerate_fsdp.yaml", "Accelerate config for FSDP FULL_SHARD (accelerate launch --config_file ...)",
                            yaml.safe_dump(accelerate_fsdp_config(advice), sort_keys=False)))
    launch = launch_command(advice)
    out.append(Artifact("launch.sh", "the launch command (horovodrun for Horovod, torchrun otherwise)",
                        "#!/bin/bash\nset -euo pipefail\n" + launch + "\n"))
    out.append(Artifact("job.sbatch", f"Slurm job for {advice.answers.cluster.nodes} node(s) x {min(advice.answers.cluster.gpus, advice.answers.cluster.gpus_per_node)} GPUs",
                        sbatch_script(advice, launch)))
    out.append(Artifact("README.md", "what each file is and what to check first", _readme(advice, out)))
    return out


def _readme(advice: Advice, files: list[Artifact]) -> str:
    a, s = advice.answers, advice.strategy
    b = batch_layout(advice)
    seqs = b["train_batch_size"]
    lines = [
        f"# Launch artifacts: {s}",
        "",
        f"Generated by advisor for {a.cluster.gpus} x {a.cluster.spec.name}. Starting points, not finished scripts:",
        "`train.py` stands for your training entry point.",
        "",
        "| File | What it is |",
        "| --- | --- |",
    ]
    lines += [f"| `{f.name}` | {f.description} |" for f in files]
    lines += [
        "",
        "## Batch layout",
        "",
        f"train_batch_size {seqs} = micro-batch {b['micro']} x gradient accumulation {b['accumulation']} x data-parallel size {b['data_parallel']}"
        f" ({seqs * a.model.seq_len:,} tokens per step). Gradient accumulation makes up the batch where memory limits the micro-batch (seed:K17).",
        "",
    ]
    checks: list[str] = []
    if spec(s).offload and a.cluster.cpu_memory_gb_per_node is None:
        need = advice.estimate_dict(s)["cpu_memory_gb_per_node"]
        checks.append(f"**Host memory unknown.** CPU offload needs about {need:,.0f} GB of RAM per node (DeepSpeed's estimator, zero_init=1); "
                      "confirm it before launch or the job will be killed by the OOM killer.")
    checks += [c["text"] for c in advice.checklist]
    lines += ["## Check first", ""] + [f"- [ ] {c}" for c in checks] + [""]
    return "\n".join(lines)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_artifacts(advice: Advice, directory: str | Path, force: bool, artifacts: list[Artifact] | None = None) -> list[Path]:
    """Write every artifact into ``directory`` (created if missing); refuse to overwrite without force."""
    d = Path(directory)
    artifacts = build_artifacts(advice) if artifacts is None else artifacts
    try:
        if len(d.name.encode("utf-8", "surrogateescape")) > 255:
            raise OutputError(f"{shown(d)}: the directory name is longer than 255 bytes; use a shorter name")
        if d.exists() and not d.is_dir():
            raise OutputError(f"{shown(d)}: exists and is not a directory")
        if d.exists() and not force:
            clash = [f.name for f in artifacts if (d / f.name).exists()]
            if clash:
                raise OutputError(f"{shown(d)}: already holds {', '.join(clash)}; pass --force to overwrite")
        fresh = not d.exists()
        if fresh:
            d.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{d.name[:200]}.", suffix=".tmp", dir=d.parent))
    except OSError as exc:
        raise OutputError(f"{shown(d)}: cannot create the directory ({exc.strerror or exc})") from None
    if fresh:
        # A new directory appears whole: the set is written into a hidden sibling and renamed into place.
        try:
            for f in artifacts:
                write_atomic(staging / f.name, f.text)
                if f.name.endswith((".sh", ".sbatch")):
                    (staging / f.name).chmod((staging / f.name).stat().st_mode | 0o111)
            staging.chmod(0o777 & ~_umask())
            os.rename(staging, d)
        except OSError as exc:
            raise OutputError(f"{shown(d)}: cannot write the launch files ({exc.strerror or exc})") from None
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return [d / f.name for f in artifacts]
    return _place_into_existing(d, artifacts, force)


def _place_into_existing(d: Path, artifacts: list[Artifact], force: bool) -> list[Path]:
    """Into a directory that already exists: every file is written and fsynced into a hidden staging directory
    inside it first, so a full disk or a failed write leaves the old set untouched; only same-directory renames
    (or, without --force, exclusive links that roll back if a file appeared meanwhile) remain after that."""
    for f in artifacts:
        check_writable(d / f.name, force)
    try:
        staging = Path(tempfile.mkdtemp(prefix=".advisor-staging.", suffix=".tmp", dir=d))
    except OSError as exc:
        raise OutputError(f"{shown(d)}: cannot write the launch files ({exc.strerror or exc})") from None
    placed: list[Path] = []
    try:
        for f in artifacts:
            target = d / f.name
            staged = write_atomic(staging / f.name, f.text)
            mode = staged.stat().st_mode
            if force and target.is_file() and not target.is_symlink():
                mode = target.stat().st_mode  # --force replaces the content, not the permissions
            if f.name.endswith((".sh", ".sbatch")):
                mode |= 0o111
            staged.chmod(stat.S_IMODE(mode))
        for f in artifacts:
            target = d / f.name
            if force:
                os.replace(staging / f.name, target)
            else:
                os.link(staging / f.name, target)
            placed.append(target)
    except FileExistsError:
        for p in placed:
            p.unlink(missing_ok=True)
        raise OutputError(f"{shown(d)}: a launch file appeared while writing; pass --force to overwrite") from None
    except OSError as exc:
        if not force:
            for p in placed:
                p.unlink(missing_ok=True)
        raise OutputError(f"{shown(d)}: cannot write the launch files ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [d / f.name for f in artifacts]


def artifact_links(artifacts: list[Artifact], directory: str | Path) -> dict[str, str]:
    """path -> description, with paths as the memo should link them."""
    return {str(Path(directory) / f.name): f.description for f in artifacts}
