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
from msgspec import Struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from advisor.decision.advice import Advice
from advisor.decision.deployment import Deployment, layout_lines
from advisor.estimate.stages import stages_before
from advisor.estimate.workload import Workload, workload_from
from advisor.base.errors import OutputError
from advisor.base.i18n import _
from advisor.knowledge.vocabulary import offload_share, partial_share
from advisor.knowledge.strategies import POWERSGD_MIN_COMPRESSION_RATE, POWERSGD_WARMUP_SHARE, powersgd_start_iter, spec
from advisor.outputs.io import check_writable, shown, write_atomic
from advisor.outputs.train_template import TRAIN_PY

if TYPE_CHECKING:
    from advisor.decision.report import Report


class Artifact(Struct, frozen=True):
    name: str
    description: str
    text: str


def zeropp_switches(gpus_per_node: int, nodes: int, peft: bool = False) -> dict:
    """ZeRO++'s keys under zero_optimization (DeepSpeed ZeRO++ tutorial): qwZ and qgZ, and hpZ's secondary partition over
    one node's GPUs where the job spans nodes (partition size 1, DeepSpeed's default, turns hpZ off). A LoRA/QLoRA base
    is frozen: Mixed Precision ZeRO++ keeps it quantised (zero_quantized_nontrainable_weights, DeepSpeed MixZ++ tutorial)."""
    keys: dict = {"zero_quantized_nontrainable_weights" if peft else "zero_quantized_weights": True, "zero_quantized_gradients": True}
    if nodes > 1:
        keys["zero_hpz_partition_size"] = gpus_per_node
    return keys


ADAMW_PRETRAIN = {"betas": [0.9, 0.95], "eps": 1e-5, "weight_decay": 0.1}
"""Llama 2's pre-training AdamW (arXiv:2307.09288 Sec 2.2: beta1 0.9, beta2 0.95, eps 1e-5, weight decay 0.1, gradient
clipping 1.0); its fine-tunes keep the same optimizer (Sec 3.1)."""

PRETRAIN_LR_SMALL, PRETRAIN_LR_LARGE, PRETRAIN_LR_SPLIT = 3.0e-4, 1.5e-4, 20e9
"""Llama 2 Table 1: peak learning rate 3.0e-4 for 7B and 13B, 1.5e-4 for 34B and 70B (the split between them: 20B)."""

FINETUNE_LR: dict[str, float] = {"finetune": 2e-5, "lora": 2e-4, "qlora": 2e-4}
"""Full fine-tune: Llama 2-Chat's SFT learning rate 2e-5 (arXiv:2307.09288 Sec 3.1); LoRA / QLoRA: 2e-4, the QLoRA paper's
for 7B-13B (arXiv:2305.14314 Appendix B, Table 9)."""


def peak_learning_rate(method: str, params: float) -> float:
    """The optimizer block's learning rate: a published recipe's for the method and size (the team's schedule scales it)."""
    if method in FINETUNE_LR:
        return FINETUNE_LR[method]
    return PRETRAIN_LR_SMALL if params < PRETRAIN_LR_SPLIT else PRETRAIN_LR_LARGE


def deepspeed_config(d: Deployment, method: str = "pretrain", params: float = 0.0) -> dict:
    """ds_config.json for the plan. The batch is train_batch_size and the micro-batch only: DeepSpeed derives gradient
    accumulation as train_batch_size / (micro-batch x data-parallel ranks) (runtime/config.py
    _set_batch_related_parameters), so the same file runs the plan's batch at any GPU count that divides it (with all
    three it asserts their product, refusing every other count). The optimizer block is DeepSpeed's own (FusedAdam on
    GPUs, DeepSpeedCPUAdam under ZeRO-Offload): train.py passes model.parameters() and no optimizer of its own."""
    peft = method in ("lora", "qlora")
    zero: dict = {"stage": d.zero_stage, "overlap_comm": True, "contiguous_gradients": True}
    if d.zero_stage == 3 and method != "pretrain":
        zero["stage3_gather_16bit_weights_on_model_save"] = True
    if spec(d.strategy).zeropp:
        zero.update(zeropp_switches(d.gpus_per_node, d.nodes, peft=peft))
    if d.offload:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    cfg: dict = {
        "train_batch_size": d.train_batch_sequences,
        "train_micro_batch_size_per_gpu": d.micro_batch,
        "gradient_clipping": 1.0,
        "optimizer": {"type": "AdamW", "params": {"lr": peak_learning_rate(method, params), **ADAMW_PRETRAIN}},
        "zero_optimization": zero,
        "steps_per_print": 100 if method == "pretrain" else 10,
        "wall_clock_breakdown": False,
    }
    if d.precision in ("bf16", "fp8"):  # FP8 matmuls (Transformer Engine) run over bf16 weights
        cfg["bf16"] = {"enabled": True}
    elif d.precision == "fp16":
        cfg["fp16"] = {"enabled": True, "loss_scale": 0, "initial_scale_power": 16}
    if d.recompute != "none" and method == "pretrain":
        cfg["activation_checkpointing"] = {"partition_activations": False, "contiguous_memory_optimization": False}
    return cfg


ACCELERATE_HOST_ARGS = '--machine_rank "${SLURM_NODEID:-0}" --main_process_ip "${MASTER_ADDR:-localhost}"'
"""What differs between hosts, filled at launch time (accelerate launch's own flags override its config file): each node's
rank and the first node's address, which job.sbatch exports. A config file would carry one host's values to all."""


def accelerate_machines(d: Deployment, precision: str, deepspeed: bool = False) -> dict[str, Any]:
    """The keys every accelerate config here shares: the plan's machines and processes (never today's) and precision.
    The host's rank and the rendezvous address are not in the file: launch.sh passes them (ACCELERATE_HOST_ARGS). With
    a DeepSpeed config file, precision is left to it: accelerate refuses mixed_precision beside deepspeed_config_file
    (accelerate commands/launch.py and DeepSpeedPlugin._deepspeed_config_checks)."""
    out: dict[str, Any] = {"compute_environment": "LOCAL_MACHINE"}
    if not deepspeed:
        out["mixed_precision"] = "no" if precision == "fp32" else precision
    out.update({
        "num_machines": d.nodes,
        "num_processes": d.gpus,
        "main_process_port": 29500,
        "rdzv_backend": "c10d",
        "same_network": True,
    })
    return out


def accelerate_launch(config_file: str, d: Deployment | None = None, extra: str = "") -> str:
    """The accelerate launch line for a config file: the host's values filled by the shell on each node, then the plan's
    batch and recomputation for train.py (user try 8: the line passed none, and the template ran its toy defaults), and
    what launch.sh passes beside them (``extra``: a LoRA plan's '--lora peft_lora_config.json', which this line dropped, so
    the accelerate route trained every weight; user try 14)."""
    tail = f" {extra}" if extra else ""
    return f"accelerate launch --config_file {config_file} {ACCELERATE_HOST_ARGS} train.py{plan_args(d) if d is not None else ''}{tail}"


def accelerate_fsdp_config(d: Deployment) -> dict:
    return {
        **accelerate_machines(d, d.precision),
        "distributed_type": "FSDP",
        "fsdp_config": {
            # HSDP: shard inside each node, replicate across nodes (accelerate FSDP plugin's HYBRID_SHARD).
            "fsdp_sharding_strategy": "HYBRID_SHARD" if spec(d.strategy).states == "hsdp" else "FULL_SHARD",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_backward_prefetch": "BACKWARD_PRE",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_offload_params": False,
            "fsdp_use_orig_params": True,
            # an offload plan recomputes nothing: train.py keeps the offloaded layers' activations on the CPU (--offload-activations)
            "fsdp_activation_checkpointing": accelerate_checkpointing(d.recompute),
        },
    }


MEGATRON_VOCAB_DIVISOR = 128
"""Megatron-LM pads the vocabulary to a multiple of --make-vocab-size-divisible-by (default 128) x TP
(megatron/training/tokenizer: _vocab_size_with_padding)."""

FFN_MULTIPLE = 128
"""Feed-forward widths are rounded to a multiple of 128 (and of TP, which megatron-core's column-parallel layers divide
them by): advisor's policy, as Llama's multiple_of rounding of its SwiGLU width."""


class MegatronModel(Struct, frozen=True):
    """The priced model in Megatron-LM's terms: a Llama-style decoder (RoPE, RMSNorm, SwiGLU, no linear biases, tied
    embeddings) whose widths are solved so its parameter count is the one the estimate priced (and, for a mixture of
    experts, its active count too): attention 2h^2 + 2h·kv·head_dim a layer, SwiGLU 3·h·ffn, router E·h, embedding V·h."""

    kv_heads: int
    ffn_hidden: int
    vocab: int
    padded_vocab: int
    moe_ffn_hidden: int | None = None
    shared_expert_ffn: int | None = None
    kv_channels: int | None = None
    """The head size where the answers set one apart from hidden / heads (Shape.head_dim): Megatron-LM's --kv-channels."""
    window: int | None = None
    """Sliding-window attention's window in tokens (Shape.sliding_window): Megatron-LM's --window-size W,0 (causal)."""
    window_skip_freq: int | None = None
    """One full-attention layer after every N - 1 window layers (Megatron-LM's --window-attn-skip-freq N; GPT-OSS 2,
    Gemma 3 6); None where every layer has the window."""

    def params(self, d: Deployment, active: bool = False) -> float:
        """Parameters this model has (the routed experts' share only its top-k when ``active``), embedding unpadded."""
        h, layers = d.hidden_size, d.layers
        head_dim = self.kv_channels or h // d.attention_heads
        attention = 2 * h * d.attention_heads * head_dim + 2 * h * self.kv_heads * head_dim
        per_layer = attention + 2 * h
        if d.experts is None:
            per_layer += 3 * h * self.ffn_hidden
        else:
            routed = (d.experts_per_token or 1) if active else d.experts
            per_layer += d.experts * h + routed * 3 * h * (self.moe_ffn_hidden or 0) + 3 * h * (self.shared_expert_ffn or 0)
        return float(layers * per_layer + self.vocab * h + h)


def _width(value: float, tp: int) -> int:
    step = math.lcm(FFN_MULTIPLE, tp)
    return max(step, int(round(value / step)) * step)


def megatron_model(d: Deployment, w: Workload) -> MegatronModel:
    """The widths that give the priced parameters (w.params; for MoE w.dense_params + w.expert_params) on the plan's
    layers, hidden size, heads and key-value heads."""
    h, layers, tp = d.hidden_size, d.layers, d.tensor_parallel
    # Query heads share key-value heads in whole groups (megatron-core asserts heads % query groups == 0): answers whose
    # key-value heads do not divide the heads get the largest grouping that does.
    kv = math.gcd(d.attention_heads, w.shape.kv_heads or d.attention_heads)
    padded = -(-w.vocab // (MEGATRON_VOCAB_DIVISOR * tp)) * MEGATRON_VOCAB_DIVISOR * tp
    channels = w.shape.head_dim if w.shape.head_dim and w.shape.head_dim * d.attention_heads != h else None
    window = w.shape.sliding_window if w.shape.sliding_window and w.shape.window_share > 0 else None
    skip = window_skip_freq(w.shape.window_share) if window else None
    bare = MegatronModel(kv_heads=kv, ffn_hidden=0, vocab=w.vocab, padded_vocab=padded, kv_channels=channels, window=window,
                         window_skip_freq=skip)
    fixed = bare.params(d)  # attention, norms and embedding
    if d.experts is None:
        return MegatronModel(kv_heads=kv, ffn_hidden=_width((w.params - fixed) / (3 * h * layers), tp), vocab=w.vocab, padded_vocab=padded,
                             kv_channels=channels, window=window, window_skip_freq=skip)
    # Where attention, router and embedding already exceed the priced dense share (multi-head attention on a shape solved
    # from the active parameters), the experts take what the total leaves: the memory the plan priced.
    expert = _width((w.params - max(fixed, w.dense_params)) / (3 * h * layers * d.experts), tp)
    rest = (w.dense_params - fixed) / (3 * h * layers)  # the dense share beyond attention, router and embedding
    shared = _width(rest, tp) if rest >= FFN_MULTIPLE / 2 else None
    return MegatronModel(kv_heads=kv, ffn_hidden=expert, vocab=w.vocab, padded_vocab=padded, moe_ffn_hidden=expert, shared_expert_ffn=shared,
                         kv_channels=channels, window=window, window_skip_freq=skip)


def window_skip_freq(share: float) -> int | None:
    """Megatron-LM's --window-attn-skip-freq for a share of window layers: N where one layer in N attends fully (share
    1 - 1/N: GPT-OSS's alternation 0.5 is 2, Gemma 3's five in six is 6); None where every layer has the window."""
    if share >= 1.0 - 1e-9:
        return None
    return max(2, int(round(1.0 / (1.0 - share))))


def microbatch_group(pipeline: int, micro_batches: int) -> int | None:
    """--microbatch-group-size-per-virtual-pipeline-stage where megatron-core's default (PP) cannot run the interleaved
    schedule: it needs PP <= group <= micro-batches and micro-batches % group either 0 or at least PP
    (pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving). None where the default holds; the
    smallest group that does otherwise (micro-batches itself always does once there are PP of them)."""
    if micro_batches % pipeline == 0:
        return None
    for group in range(pipeline, micro_batches + 1):
        rest = micro_batches % group
        if rest == 0 or rest >= pipeline:
            return group
    raise ValueError(f"interleaved schedule needs at least {pipeline} micro-batches, the plan has {micro_batches}")


def megatron_args(d: Deployment, m: MegatronModel | None = None) -> list[str]:
    """Megatron-LM's flags for the layout (megatron/training/arguments.py), every number from the deployment, and the
    priced model's shape (``m``) where the caller has it."""
    flags = [
        f"--num-layers {d.layers}", f"--hidden-size {d.hidden_size}", f"--num-attention-heads {d.attention_heads}",
    ]
    if m is not None:
        if m.kv_heads < d.attention_heads:
            flags += ["--group-query-attention", f"--num-query-groups {m.kv_heads}"]
        if m.kv_channels:
            flags.append(f"--kv-channels {m.kv_channels}")  # heads x head size apart from the hidden size (Qwen3, GPT-OSS)
        if m.window:
            flags.append(f"--window-size {m.window},0")  # sliding-window attention, causal (GPT-OSS: 128,0)
            if m.window_skip_freq:
                flags.append(f"--window-attn-skip-freq {m.window_skip_freq}")
        flags += [f"--ffn-hidden-size {m.ffn_hidden}", "--swiglu", "--normalization RMSNorm", "--position-embedding-type rope",
                  f"--vocab-size {m.vocab}", f"--make-vocab-size-divisible-by {MEGATRON_VOCAB_DIVISOR}"]
        if d.experts is None:
            flags.append("--disable-bias-linear")
    flags += [
        f"--seq-length {d.seq_len}", f"--max-position-embeddings {d.seq_len}",
        f"--tensor-model-parallel-size {d.tensor_parallel}", f"--pipeline-model-parallel-size {d.pipeline_parallel}",
        f"--micro-batch-size {d.micro_batch}", f"--global-batch-size {d.train_batch_sequences}",
        "--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather",
    ]
    if d.virtual_stages > 1:
        group = microbatch_group(d.pipeline_parallel, d.accumulation)
        if group is not None:
            flags.append(f"--microbatch-group-size-per-virtual-pipeline-stage {group}")
    if d.pipeline_layout is not None:
        # Per-chunk placement; it implies the virtual stages, so --num-virtual-stages-per-pipeline-rank is left out.
        flags.append(f"--pipeline-model-parallel-layout '{d.pipeline_layout}'")
    else:
        if d.virtual_stages > 1:
            flags.append(f"--num-virtual-stages-per-pipeline-rank {d.virtual_stages}")
        if d.first_stage_layers is not None:
            flags.append(f"--decoder-first-pipeline-num-layers {d.first_stage_layers}")
        if d.last_stage_layers is not None:
            flags.append(f"--decoder-last-pipeline-num-layers {d.last_stage_layers}")
    if d.context_parallel > 1:
        flags.append(f"--context-parallel-size {d.context_parallel}")
    if d.tensor_parallel > 1:
        flags.append("--sequence-parallel")
    if d.experts is not None:
        # Megatron's MoE layers take no linear biases unless expert tensor parallelism is 1 (TransformerConfig asserts
        # it); its Mixtral and DeepSeek recipes pass --disable-bias-linear (examples/mixtral/train_mixtral_8x7b_distributed.sh).
        flags += [f"--num-experts {d.experts}", f"--moe-router-topk {d.experts_per_token}",
                  f"--expert-model-parallel-size {d.expert_parallel}", "--disable-bias-linear"]
        if m is not None:
            flags += [f"--moe-ffn-hidden-size {m.moe_ffn_hidden}", "--moe-token-dispatcher-type alltoall"]
            if m.shared_expert_ffn is not None:
                flags.append(f"--moe-shared-expert-intermediate-size {m.shared_expert_ffn}")
        if d.experts_per_token == 1:
            flags.append("--moe-router-pre-softmax")  # top-1 needs softmax before the top-k (TransformerConfig refuses it otherwise)
    if d.recompute == "full":
        flags += ["--recompute-granularity full", "--recompute-method uniform", "--recompute-num-layers 1"]
    elif d.recompute == "selective":
        flags.append("--recompute-granularity selective")
    elif (share := recompute_share(d.recompute)) is not None:
        block = max(1, round(d.fullest_stage_layers * share))
        flags += ["--recompute-granularity full", "--recompute-method block", f"--recompute-num-layers {block}"]
    if d.precision == "bf16":
        flags.append("--bf16")
    elif d.precision == "fp8":
        flags += ["--bf16", "--fp8-format hybrid"]  # FP8 matmuls (Transformer Engine) over bf16 weights
    elif d.precision == "fp16":
        flags.append("--fp16")
    return flags


def launch_env(d: Deployment) -> list[str]:
    """Environment the launcher needs before it starts. Megatron with tensor or context parallelism: one CUDA work queue,
    so its communication overlaps in issue order (Megatron-LM arguments.py refuses TP/CP without it;
    megatron/core/tensor_parallel/layers.py relies on it)."""
    if d.launcher == "megatron" and (d.tensor_parallel > 1 or d.context_parallel > 1):
        return ["export CUDA_DEVICE_MAX_CONNECTIONS=1"]
    return []


def batch_args(d: Deployment) -> str:
    """The plan's batch as train.py takes it: micro-batch, accumulation and sequence length (user try 2026-12-06: the
    template ran its toy defaults, micro-batch 2 of 16 tokens, whatever the plan said); DeepSpeed's engine reads the
    micro-batch and accumulation from ds_config.json, so it gets the sequence alone. Then "$@": a quick try shrinks them
    (bash launch.sh --seq-len 16 --accumulation 1), the last value argparse reads winning."""
    if d.launcher == "deepspeed":
        return f' --recompute {recompute_arg(d.recompute)} --seq-len {d.seq_len} "$@"'
    return f' --precision {d.precision}{plan_args(d)} "$@"'


def plan_args(d: Deployment) -> str:
    """The plan's recomputation and batch as train.py takes them: what launch.sh and the accelerate line both pass."""
    share = _fraction(offload_share(d.recompute))
    offload = f" --offload-activations {share:g}" if share is not None else ""
    return (f" --recompute {recompute_arg(d.recompute)}{offload} --micro-batch {d.micro_batch} --accumulation {d.accumulation}"
            f" --seq-len {d.seq_len}")


def _fraction(percent: str | None) -> float | None:
    """'25%' (as the vocabulary's share parsers give it) as 0.25; None stays None."""
    return float(percent.removesuffix("%")) / 100.0 if percent is not None else None


def recompute_share(recompute: str) -> float | None:
    """The share of layers recomputed whole under 'full on 25% of layers' (0.25), else None (vocabulary.partial_share)."""
    return _fraction(partial_share(recompute))


def recompute_arg(recompute: str) -> str:
    """The plan's recomputation as train.py takes it: none, selective, full, or the share of layers ('full on 25% of
    layers' -> 0.25; user try 8: the template ran no recomputation and no bf16 whatever the plan said)."""
    share = recompute_share(recompute)
    if share is not None:
        return f"{share:g}"
    return recompute if recompute in ("none", "selective", "full") else "none"


def accelerate_checkpointing(recompute: str) -> bool:
    """accelerate's fsdp_activation_checkpointing: on only where the plan recomputes every layer. The flag has no share:
    on, it recomputes all of them, where a plan recomputing 75% of its layers had been priced (user try 15); a share or
    selective recomputation is train.py's --recompute (recompute_arg), and the file's row says so (accelerate_note)."""
    return recompute == "full"


def accelerate_note(recompute: str) -> str:
    """What the accelerate config's row says where the plan's recomputation is one accelerate's flag cannot express
    (a share of the layers, or selective); '' otherwise."""
    arg = recompute_arg(recompute)
    if arg in ("none", "full"):  # nothing recomputed (an offload plan too), or every layer: the flag says it
        return ""
    share = recompute_share(recompute)
    what = (_("{pct} of its layers", pct=f"{share:.0%}") if share is not None
            else _("only the attention scores (selective recomputation)"))
    return _(" fsdp_activation_checkpointing is off: accelerate can only recompute every layer, where the plan recomputes {what} "
             "(train.py's --recompute {arg}); a script of your own must do the same, or switch it on and expect a slower run than "
             "estimated.", what=what, arg=arg)


def launch_command(d: Deployment, m: MegatronModel | None = None, train_args: str = "") -> str:
    """The launch line. ``train_args``: what the fine-tune files add to train.py's arguments (the adapter's config)."""
    extra = (f" {train_args}" if train_args else "") + (batch_args(d) if d.launcher in ("torchrun", "deepspeed") else "")
    if d.launcher == "horovodrun":
        return f"horovodrun -np {d.gpus} -H $HOROVOD_HOSTS python train.py{extra}"
    # Defaults for the variables Slurm sets, so launch.sh also runs by hand on one node (set -u refuses unset ones).
    run = (f"torchrun --nnodes={d.nodes} --nproc-per-node={d.gpus_per_node} --rdzv-backend=c10d "
           "--rdzv-endpoint=${MASTER_ADDR:-localhost}:29500 --rdzv-id=${SLURM_JOB_ID:-advisor}")
    if d.launcher == "deepspeed":
        moe = (f"  # DeepSpeed-MoE: deepspeed.moe.layer.MoE(num_experts={d.experts}, ep_size={d.expert_parallel}, k={d.experts_per_token}) "
               "in the model" if d.expert_parallel > 1 else
               # ZeRO-3 gathers per module as it is used: ranks routing to different experts wait on different gathers
               # (rules/framework.yaml zero3-moe-leaf-modules)
               "  # a mixture of experts under ZeRO-3: deepspeed.utils.set_z3_leaf_modules(model, [<its MoE block class>]) "
               "before deepspeed.initialize (DeepSpeed >= 0.13), or the first forward hangs" if d.experts and d.zero_stage == 3 else "")
        return f"{run} train.py --deepspeed --deepspeed_config ds_config.json{extra}{moe}"
    if d.launcher == "megatron":
        return f"{run} pretrain_gpt.py " + " ".join(megatron_args(d, m))
    if d.strategy == "fsdp" and d.expert_parallel > 1:
        return (f"{run} train.py --fsdp FULL_SHARD{extra}  # FSDP over all {d.gpus} GPUs with expert parallelism {d.expert_parallel}: "
                f"{d.experts // d.expert_parallel if d.experts else 0} of {d.experts} experts per GPU (e.g. torchtitan --parallelism.expert_parallel_degree {d.expert_parallel})")
    if spec(d.strategy).powersgd_rank:
        return (f"{run} train.py{extra}  # wrap the model in DistributedDataParallel, then register_powersgd(model) from powersgd_hook.py "
                "(PowerSGD gradient compression); accumulate micro-batches under model.no_sync()")
    if d.strategy == "fsdp-hybrid":
        return f"{run} train.py --fsdp HYBRID_SHARD{extra}  # FSDP's HYBRID_SHARD (HSDP): shard in a node, replicate across"
    if d.strategy == "fsdp":
        return f"{run} train.py --fsdp FULL_SHARD{extra}  # FullyShardedDataParallel over all ranks"
    return f"{run} train.py{extra}  # DistributedDataParallel"


def powersgd_module(rank: int, steps: float) -> str:
    """powersgd_hook.py: registers torch's PowerSGD hook on the team's DDP model with the plan's rank and warm-up
    (torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook; PyTorch 'DDP Communication Hooks')."""
    start = powersgd_start_iter(steps)
    return f'''"""PowerSGD gradient compression for the plan's DDP model (written by advisor).

After wrapping the model in DistributedDataParallel and before the first step:

    from powersgd_hook import register_powersgd
    state = register_powersgd(ddp_model)

The hook counts DDP all-reduces: accumulate micro-batches under ddp_model.no_sync() so it counts optimizer steps.
Save `state` with every checkpoint (it holds the error feedback; PowerSGDState.__getstate__) and register it again on resume.
"""

from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD

MATRIX_APPROXIMATION_RANK = {rank}
"""Rank of the low-rank factors: a convergence knob. PowerSGDState's docs: start from 1 and double until accuracy is
satisfactory; typically 1-4, up to 32 for some NLP tasks."""

START_POWERSGD_ITER = {start}
"""Plain all-reduce until this step: {POWERSGD_WARMUP_SHARE:.0%} of the plan's {steps:,.0f} optimizer steps (PowerSGDState's suggested
start; no fewer than the learning-rate warm-up's steps)."""


def register_powersgd(ddp_model, process_group=None):
    state = powerSGD.PowerSGDState(
        process_group=process_group,
        matrix_approximation_rank=MATRIX_APPROXIMATION_RANK,
        start_powerSGD_iter=START_POWERSGD_ITER,
        min_compression_rate={POWERSGD_MIN_COMPRESSION_RATE:g},
        use_error_feedback=True,
        warm_start=True,
    )
    ddp_model.register_comm_hook(state, powerSGD.powerSGD_hook)
    return state
'''


def sbatch_script(d: Deployment, launch: str) -> str:
    days, hours = divmod(d.time_limit_hours, 24)
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name=advisor-{d.strategy}",
        f"#SBATCH --nodes={d.nodes}",
        "#SBATCH --ntasks-per-node=1",
        f"#SBATCH --gpus-per-node={d.gpus_per_node}",
        f"#SBATCH --time={days}-{hours:02d}:00:00",
    ]
    if d.exclusive:
        lines.append("#SBATCH --exclusive   # shared cluster: whole nodes avoid contention (seed:K20)")
    lines += [
        "#SBATCH --output=%x-%j.out",
        "set -euo pipefail",
        "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)",
        *launch_env(d),
    ]
    if d.launcher == "horovodrun":
        lines.append(f"export HOROVOD_HOSTS=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed 's/$/:{d.gpus_per_node}/' | paste -sd,)")
        lines.append(launch)
    else:
        lines.append(f"srun {launch}")
    return "\n".join(lines) + "\n"


def build_artifacts(advice: Advice, report: Report | None = None) -> list[Artifact]:
    """Every file for the recommended plan, README.md last (it lists the others). Written from the report alone: its
    deployment (the plan's GPUs and layout), its checklist and its warnings. ``report``: the advice's, where the caller
    has built it already (it is validated in full, so once is enough)."""
    report = advice.report() if report is None else report
    blocking = [w for w in report.warnings if w.blocking]
    if blocking:
        raise OutputError(_("no launch artifacts for a blocked recommendation: {text}", text=blocking[0].text))
    from advisor.outputs.finetune_artifacts import finetune_files  # issue 18: PEFT / accelerate / DeepSpeed files for fine-tunes

    from advisor.outputs.trl_artifacts import trl_files  # issue 35: TRL DPOConfig / GRPOConfig for post-training

    files = finetune_files(advice) + trl_files(advice)
    return artifacts_for(report, [Artifact(name, what, text) for name, what, text in files])


def artifacts_for(report: Report, extra: list[Artifact] | None = None) -> list[Artifact]:
    """The launch files of a report; ``extra`` (the fine-tune files) replace a file of the same name, and a fine-tune's
    accelerate config replaces the pre-training one, so each run has one config of each kind."""
    d = report.deployment
    w = workload_from(report.typed_answers())
    by_name = {a.name: a for a in extra or ()}
    out: list[Artifact] = []
    if d.launcher == "deepspeed":
        # descriptions in the reader's language: the Chinese memo's launch section was English (user try 9)
        out.append(Artifact("ds_config.json", _("DeepSpeed config: ZeRO stage, precision, batch layout and AdamW for {strategy}", strategy=d.strategy),
                            json.dumps(deepspeed_config(d, w.method, w.params), indent=2) + "\n"))
    if spec(d.strategy).states in ("fsdp", "hsdp") and "accelerate_finetune.yaml" not in by_name:
        sharding = "HYBRID_SHARD" if spec(d.strategy).states == "hsdp" else "FULL_SHARD"
        out.append(Artifact("accelerate_fsdp.yaml", _("Accelerate config for FSDP {sharding}; on each node: `{command}`", sharding=sharding,
                                                      command=accelerate_launch('accelerate_fsdp.yaml', d)) + accelerate_note(d.recompute),
                            yaml.safe_dump(accelerate_fsdp_config(d), sort_keys=False)))
    if spec(d.strategy).powersgd_rank:
        out.append(Artifact("powersgd_hook.py", _("registers PyTorch's PowerSGD hook on the DDP model (rank {rank}, uncompressed for the first "
                                                  "{steps} steps)", rank=spec(d.strategy).powersgd_rank, steps=f"{powersgd_start_iter(report.estimate.steps):,}"),
                            powersgd_module(spec(d.strategy).powersgd_rank or 1, report.estimate.steps)))
    model = megatron_model(d, w) if d.launcher == "megatron" else None
    launch = launch_command(d, model, "--lora peft_lora_config.json" if "peft_lora_config.json" in by_name else "")
    if d.launcher in ("torchrun", "deepspeed"):
        out.append(Artifact("train.py", _("TEMPLATE, not your script: a toy model on random tokens, wrapped as launch.sh asks (DDP, FSDP/HSDP, "
                                          "DeepSpeed, LoRA), to try the files for a few steps before your train.py replaces it"), TRAIN_PY))
    out.append(Artifact("launch.sh", _("the launch command (horovodrun for Horovod, torchrun otherwise)"),
                        "\n".join(["#!/bin/bash", "set -euo pipefail", *launch_env(d), launch]) + "\n"))
    out.append(Artifact("job.sbatch", _("Slurm job for {nodes} node(s) x {per_node} GPUs", nodes=d.nodes, per_node=d.gpus_per_node),
                        sbatch_script(d, launch)))
    out = [by_name.pop(a.name, a) for a in out]  # an extra file takes the place of the one of its name
    out.extend(by_name.values())
    out.append(Artifact("README.md", _("what each file is and what to check first"), _readme(report, out)))
    return out


def _readme(report: Report, files: list[Artifact]) -> str:
    d = report.deployment
    entry = "`pretrain_gpt.py` is Megatron-LM's GPT entry point (run from a Megatron-LM checkout; add your data and tokenizer flags)." \
        if d.launcher == "megatron" else ("`train.py` stands for your training entry point; the one here is a template that runs the files "
                                          "for a few steps (toy model, random tokens): replace it with yours, keeping the arguments launch.sh passes.")
    lines = [
        f"# Launch artifacts: {d.strategy}",
        "",
        f"Generated by advisor for the recommended plan: {d.gpus} x {d.gpu}. Starting points, not finished scripts: {entry}",
        "",
        "| File | What it is |",
        "| --- | --- |",
    ]
    lines += [f"| `{f.name}` | {f.description} |" for f in files]
    lines += ["", "## Layout", ""] + [f"- {line}" for line in layout_lines(d)] + [""]
    if d.launcher == "megatron":
        m = megatron_model(d, workload_from(report.typed_answers()))
        moe = f", {m.params(d, active=True) / 1e9:,.3g}B active" if d.experts is not None else ""
        lines += [f"The flags build the priced model: {m.params(d) / 1e9:,.4g}B parameters{moe} (feed-forward and expert widths solved "
                  "from the priced parameter count on its layers, hidden size and key-value heads). Megatron-LM pads the "
                  f"{m.vocab:,}-token vocabulary to {m.padded_vocab:,} (a multiple of 128 x TP): give the tokenizer flags that "
                  "produce this vocabulary.", ""]
    gpu = report.typed_answers().cluster.spec
    if gpu.gpus_per_host is not None and gpu.nvlink_domain is not None:
        lines += [f"{gpu.name}: each host (compute tray) drives {gpu.gpus_per_host} GPUs, so torchrun and Slurm count {d.nodes} host(s) x "
                  f"{d.gpus_per_node}; {gpu.nvlink_domain} GPUs share one NVLink domain across hosts: ask the scheduler for whole "
                  f"domains (Slurm's topology/block plugin, `--segment`) so tensor and expert parallel groups stay on NVLink.", ""]
    lines.append("Gradient accumulation makes up the batch where memory limits the micro-batch (seed:K17).")
    lines.append("")
    priced = stages_before(report.typed_answers(), d.strategy, d.gpus)
    if priced:
        # The plan's time is the pipeline's; these files run its last stage (user try 8: nothing said the others were not here),
        # each earlier stage with its own framework where the plan's cannot run it on these GPUs (a 34B pre-training under DDP).
        names = ", ".join(f"{p.name} ({p.method}, with {p.strategy})" for p in priced)
        lines += ["## The stages before this one", "",
                  f"The plan's time and cost cover the whole pipeline; these files run its last stage ({report.typed_answers().training.method}). "
                  f"Run the stages before it first, on the same {d.gpus} GPUs: {names}. Each is the same job with its own data and method: "
                  "write its own files with `advisor advise` on answers that give that stage as the training section.", ""]
    checks: list[str] = []
    e = report.estimate
    if d.offload and report.typed_answers().cluster.cpu_memory_gb_per_node is None:
        checks.append(f"**Host memory unknown.** CPU offload needs about {e.cpu_memory_gb_per_node or 0:,.0f} GB of RAM per node (DeepSpeed's estimator, "
                      "zero_init=1); confirm it before launch or the job will be killed by the OOM killer.")
    checks += [c.text for c in report.checklist]
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
            raise OutputError(_("{path}: the directory name is longer than 255 bytes; use a shorter name", path=shown(d)))
        if d.exists() and not d.is_dir():
            raise OutputError(_("{path}: exists and is not a directory", path=shown(d)))
        if d.exists() and not force:
            clash = [f.name for f in artifacts if (d / f.name).exists()]
            if clash:
                raise OutputError(_("{path}: already holds {names}; pass --force to overwrite", path=shown(d), names=', '.join(clash)))
        fresh = not d.exists()
        made: list[Path] = []  # parent directories this call creates, removed again if it fails
        if fresh:
            for parent in reversed(d.parents):
                if not parent.exists():
                    parent.mkdir()
                    made.append(parent)
            staging = Path(tempfile.mkdtemp(prefix=f".{d.name[:200]}.", suffix=".tmp", dir=d.parent))
    except OSError as exc:
        raise OutputError(_("{path}: cannot create the directory ({reason})", path=shown(d), reason=exc.strerror or exc)) from None
    if fresh:
        # A new directory appears whole: the set is written into a hidden sibling and renamed into place.
        try:
            for f in artifacts:
                try:
                    write_atomic(staging / f.name, f.text)
                except OutputError as exc:  # it names the hidden staging file: name the user's directory instead
                    raise OutputError(_("{path}: cannot write the launch files ({reason})", path=shown(d), reason=exc.reason or _("write failed"))) from None
                if f.name.endswith((".sh", ".sbatch")):
                    (staging / f.name).chmod((staging / f.name).stat().st_mode | 0o111)
            staging.chmod(0o777 & ~_umask())
            os.rename(staging, d)
        except OSError as exc:
            raise OutputError(_("{path}: cannot write the launch files ({reason})", path=shown(d), reason=exc.strerror or exc)) from None
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
                for parent in reversed(made):
                    try:
                        parent.rmdir()
                    except OSError:
                        pass
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
        raise OutputError(_("{path}: cannot write the launch files ({reason})", path=shown(d), reason=exc.strerror or exc)) from None
    placed: list[Path] = []
    try:
        for f in artifacts:
            target = d / f.name
            try:
                staged = write_atomic(staging / f.name, f.text)
            except OutputError as exc:  # it names the hidden staging file: name the user's directory instead
                raise OutputError(_("{path}: cannot write the launch files ({reason})", path=shown(d), reason=exc.reason or _("write failed"))) from None
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
        raise OutputError(_("{path}: a launch file appeared while writing; pass --force to overwrite", path=shown(d))) from None
    except OSError as exc:
        if not force:
            for p in placed:
                p.unlink(missing_ok=True)
        raise OutputError(_("{path}: cannot write the launch files ({reason})", path=shown(d), reason=exc.strerror or exc)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [d / f.name for f in artifacts]


def artifact_links(artifacts: list[Artifact], directory: str | Path) -> dict[str, str]:
    """path -> description, with paths as the memo should link them."""
    return {str(Path(directory) / f.name): f.description for f in artifacts}
