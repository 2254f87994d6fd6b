"""Fine-tuning terms: full fine-tunes, LoRA on a frozen bf16 base, QLoRA on a frozen 4-bit NF4 base.

Kept apart from the pre-training formulas (memory.py, communication.py, model.py call in here only where the method is
lora or qlora), so the efficiency model and the strategies can change without touching these terms. Every constant
names its source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from advisor.knowledge.strategies import spec

if TYPE_CHECKING:  # workload.py imports this module's constants; the Workload type is only annotated here
    from advisor.estimate.workload import Workload
    from advisor.knowledge.catalog import GpuSpec

METHODS: tuple[str, ...] = ("pretrain", "finetune", "lora", "qlora")
PEFT_METHODS: tuple[str, ...] = ("lora", "qlora")
FINETUNE_METHODS: tuple[str, ...] = ("finetune", *PEFT_METHODS)
"""Methods that adapt an existing model: the same data and batch, another way of training it."""

DEFAULT_RANK: dict[str, int] = {"lora": 8, "qlora": 64}
"""lora: PEFT's LoraConfig default r=8 (huggingface/peft src/peft/tuners/lora/config.py; LoraConfig().r == 8 in peft 0.x);
qlora: r=64, the QLoRA reference trainer's default (artidoro/qlora qlora.py: lora_r=64, lora_alpha=16)."""

DEFAULT_ALPHA: dict[str, int] = {"lora": 8, "qlora": 16}
"""lora_alpha: PEFT's default 8 (same file); the QLoRA trainer's 16 (artidoro/qlora qlora.py)."""

FINETUNE_BATCH_SEQUENCES: dict[str, int] = {"finetune": 64, "lora": 16, "qlora": 16}
"""Sequences per optimizer step by default. Full fine-tunes: 64, Llama 2-Chat's supervised fine-tuning batch (arXiv:2307.09288
Sec 3.1: 'a batch size of 64 and a sequence length of 4096 tokens'). LoRA and QLoRA: 16, the QLoRA reference trainer's
per_device_train_batch_size=1 x gradient_accumulation_steps=16 (artidoro/qlora qlora.py)."""

DEFAULT_TARGETS: dict[str, str] = {"lora": "qv", "qlora": "all-linear"}
"""lora: query and value projections, the LoRA paper's choice (arXiv:2106.09685 Sec 7.1) and PEFT's default target_modules
for LLaMA-family models (q_proj, v_proj); qlora: every linear layer of the block, which the QLoRA paper found necessary to
match full fine-tuning (arXiv:2305.14314 Sec 4, 'LoRA on all linear transformer block layers')."""

ADAPTER_PARAMS_PER_LAYER_PER_RANK: dict[str, float] = {"qv": 4.0, "attention": 8.0, "all-linear": 18.0}
"""Adapter parameters per layer, as multiples of r x hidden: a rank-r adapter on a d_in x d_out matrix has r(d_in + d_out)
parameters (A is r x d_in, B is d_out x r; arXiv:2106.09685 Sec 4.1). q and v (h x h each): 2 x 2rh; q, k, v, o: 4 x 2rh;
plus the MLP's h x 4h and 4h x h (the 12Lh^2 transformer advisor's shapes use): 2 x 5rh more."""

MATRICES_PER_TARGET: dict[str, int] = {"qv": 2, "attention": 4, "all-linear": 6}
"""Adapted matrices per layer for each target set (the rank-r intermediates they keep for the backward pass)."""

TARGET_MODULES: dict[str, tuple[str, ...]] = {
    "qv": ("q_proj", "v_proj"),
    "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "all-linear": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
}
"""PEFT target_modules names for LLaMA-family models (transformers' LlamaAttention / LlamaMLP module names)."""

ADAPTER_BYTES_PER_PARAM = 16.0
"""Trainable adapters carry the mixed-precision Adam states of any trained weight: 2 (16-bit weight) + 2 (gradient) + 12
(fp32 master, m, v) bytes (Transformer Math 101)."""

NF4_BITS_PER_PARAM = 4.0 + 0.127
"""4-bit NormalFloat weights plus double-quantised constants: 8/64 + 32/(64 x 256) = 0.127 bits per parameter with block
size 64 (QLoRA, arXiv:2305.14314 Sec 3 'Double Quantization')."""

NF4_BYTES_PER_PARAM = NF4_BITS_PER_PARAM / 8.0

FROZEN_BF16_BYTES_PER_PARAM = 2.0
"""The frozen base of a LoRA fine-tune is held in bf16: weights only, no gradients or optimizer states
(arXiv:2106.09685 Sec 4.2: no gradients or optimizer states for most parameters)."""

TRAINED_FLOPS_PER_PARAM = 6.0
"""A trained weight costs 6 FLOPs per token: 2 forward, 4 backward (Transformer Math 101's 6N). The one home of the 6 the
estimate and the memo's formula use."""

FROZEN_MATMUL_FLOPS_PER_PARAM = 4.0
"""A frozen weight costs 2 FLOPs per token forward and 2 backward (the gradient to its input); the 2 for its own weight
gradient are skipped (Transformer Math 101's 2 + 4 split of 6N; LoRA, arXiv:2106.09685 Sec 4.2: 'we do not need to
calculate the gradient for the vast majority of the parameters')."""

DEQUANT_SECONDS_PER_PARAM_A100 = 3.1e-11
"""Seconds per quantized parameter per micro-batch that QLoRA's 4-bit dequantisation adds on an A100 SXM 80GB: the
Q-LoRA minus LoRA step time at 256 tokens, divided by 8 micro-batches (batch 1, accumulation 8) and the parameters —
Qwen-7B (7.7B): (3.0 - 1.2) s / 8 / 7.7e9 = 2.9e-11; Qwen-14B (14.2B): (5.3 - 1.6) s / 8 / 14.2e9 = 3.3e-11 (QwenLM/Qwen
README.md 'Profiling of Memory and Speed') [obs: derived, the mean of the two]. Per micro-batch, not per token: the
weights are dequantised for every forward and backward however many tokens go through them, which is why the same table
shows Q-LoRA 35% slower than LoRA at 2,048 tokens and 5% at 8,192."""

DEQUANT_MEASURED_ON = "a100-80gb"
"""The GPU the dequantisation constant was measured on (its figures from the catalog, data/gpus.yaml). Dequantising is
memory-bound — bitsandbytes reads each 4-bit block and its scales and writes the bf16 weight back — so other GPUs scale it
by their memory bandwidth (GpuSpec.hbm_gbs), not by their tensor-core peak: an H100 SXM dequantises 1.64x as fast as the
A100 (3,350 against 2,039 GB/s), not 3.2x (989 against 312 TFLOP/s). A GPU with no published bandwidth falls back to the
peak ratio [obs: a proxy]."""


def dequant_speed(gpu: GpuSpec) -> float:
    """How many times as fast as the measuring A100 this GPU dequantises: memory bandwidth over memory bandwidth, or,
    where the catalog has no bandwidth for it, peak over peak (DEQUANT_MEASURED_ON)."""
    from advisor.knowledge.catalog import gpu_catalog

    ref = gpu_catalog()[DEQUANT_MEASURED_ON]
    if gpu.hbm_gbs and ref.hbm_gbs:
        return float(gpu.hbm_gbs) / float(ref.hbm_gbs)
    return float(gpu.peak_tflops) / float(ref.peak_tflops)


def mlp_width(w: Workload) -> float:
    """The gated MLP's intermediate size: the parameters a layer holds beyond attention (Q, O of h x h, K, V of h x
    h·kv_share), in three h x f matrices (LLaMA's gate, up and down projections); the embedding and the 13·h 1-D tensors
    per layer of the parameter count's convention (workload.infer_shape) are set aside. Llama 3 8B: 15.7k (14,336 in
    its config: the untied output matrix is counted in the layers)."""
    h, layers = float(w.shape.hidden), float(max(1, w.shape.layers))
    per_layer = (w.active_params - float(w.vocab) * h - 13.0 * layers * h - 2.0 * h) / layers
    attention = 2.0 * h * w.shape.attention_width + 2.0 * h * w.shape.kv_width  # q and o, k and v (head_dim where set)
    return max(h, (per_layer - attention) / (3.0 * h))


def adapted_matrices(w: Workload) -> list[tuple[float, float]]:
    """(d_in, d_out) of each matrix one layer adapts (TARGET_MODULES): q, k, v (h to h, h·kv_share, h·kv_share), o (h to
    h), gate and up (h to f), down (f to h)."""
    h, f, kv = float(w.shape.hidden), mlp_width(w), float(w.shape.kv_share)
    shapes = {"q_proj": (h, h), "k_proj": (h, h * kv), "v_proj": (h, h * kv), "o_proj": (h, h),
              "gate_proj": (h, f), "up_proj": (h, f), "down_proj": (f, h)}
    return [shapes[name] for name in TARGET_MODULES.get(w.lora_targets, TARGET_MODULES["all-linear"])]


ADAPTER_INPUT_BYTES = 2.0
"""Bytes per input element each adapted layer keeps for its adapter's backward, one copy per adapted layer: PEFT keeps
adapters in fp32 on a bf16 base (get_peft_model(autocast_adapter_dtype=True), the default) and each LoRA layer casts its
input to the adapter's dtype (peft tuners/lora/layer.py Linear.forward: ``x = self._cast_input_dtype(x,
lora_A.weight.dtype)``); under the bf16 autocast Hugging Face Trainer and accelerate run (bf16=True), autocast casts that
copy back to bf16 for lora_A's product, which saves it — so q, k and v keep three bf16 copies of one input, not one.
Measured on one H200 (bench/measured_runs.yaml, lora8b-mb4-autocast): an 8B LoRA on every linear layer at 4 x 2,048
tokens peaked at 86.3 GB (the issue's measurement); without autocast the fp32 copies themselves are kept (106.7 GB)."""


def is_peft(w: Workload) -> bool:
    return w.method in PEFT_METHODS


def adapter_params(layers: int, hidden: int, rank: int, targets: str) -> float:
    """Trainable LoRA parameters: r x (d_in + d_out) per adapted matrix, every layer (arXiv:2106.09685 Sec 4.1)."""
    return ADAPTER_PARAMS_PER_LAYER_PER_RANK[targets] * rank * hidden * layers


def quantized_params(w: Workload) -> float:
    """Parameters in the blocks' linear layers (12·L·h², the part bitsandbytes quantises); embeddings and norms stay bf16."""
    return float(min(w.params, 12.0 * w.shape.layers * w.shape.hidden ** 2))


def frozen_base_bytes(w: Workload) -> float:
    """The whole frozen base: bf16 for LoRA; NF4 + double quantisation on the linear layers and bf16 elsewhere for QLoRA."""
    if w.method == "qlora":
        q = quantized_params(w)
        return NF4_BYTES_PER_PARAM * q + FROZEN_BF16_BYTES_PER_PARAM * (w.params - q)
    return FROZEN_BF16_BYTES_PER_PARAM * w.params


def peft_breakdown(strategy: str, w: Workload, gpus: np.ndarray, tp: np.ndarray | float = 1.0,
                   pp: np.ndarray | float = 1.0, gpus_per_node: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frozen base, adapters with gradients and Adam states, layers in flight) per GPU, bytes. The base is replicated,
    or sharded where the strategy shards parameters — FSDP / ZeRO-3 + LoRA, and FSDP-QLoRA
    (answer.ai/posts/2024-03-06-fsdp-qlora); ZeRO-1/2 shard only the adapters' optimizer states (and ZeRO-2 gradients)."""
    n = np.asarray(gpus, dtype=float)
    ones = np.ones_like(n)
    base = frozen_base_bytes(w)
    a = w.adapter_params
    sp = spec(strategy)
    zeros = np.zeros_like(n)
    if sp.states == "replicated":
        return base * ones, ADAPTER_BYTES_PER_PARAM * a * ones, zeros
    if sp.states == "zero1" or sp.deepspeed_stage == 2:
        return base * ones, 4.0 * a + 12.0 * a / n, zeros
    if sp.states == "megatron":
        from advisor.estimate.layout import stage_factor

        share = stage_factor(w, pp) / (np.asarray(tp, dtype=float) * np.asarray(pp, dtype=float))
        return base * share * ones, ADAPTER_BYTES_PER_PARAM * a * share * ones, zeros
    in_flight = 4.0 * w.largest_layer * ones  # two unsharded layers in flight (DeepSpeed's 4 x largest layer)
    if sp.offload:  # ZeRO-3 with parameters offloaded: base and adapter states in host memory
        return zeros, zeros, in_flight
    # HSDP shards inside the node and replicates across nodes: its shard group is the node's GPUs, not all of them (one GPU
    # a node shards nothing: the base was divided over two workstations and the plan ran out of memory as launched;
    # user try 2026-12-07)
    group = np.minimum(n, gpus_per_node) if sp.states == "hsdp" and gpus_per_node else n
    return base / group, ADAPTER_BYTES_PER_PARAM * a / group, np.where(group > 1, in_flight, 0.0)  # a group of one gathers nothing


def peft_state_bytes(strategy: str, w: Workload, gpus: np.ndarray, tp: np.ndarray, pp: np.ndarray,
                     gpus_per_node: int | None = None) -> np.ndarray:
    """Per GPU: the frozen base plus the adapters with their gradients and Adam states (peft_breakdown, summed)."""
    base, adapters, in_flight = peft_breakdown(strategy, w, gpus, tp, pp, gpus_per_node)
    return base + adapters + in_flight


def peft_cpu_bytes_per_node(strategy: str, w: Workload, gpus: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """Host memory per node for ZeRO-3 offload of a frozen base: the node's share of base and adapter states."""
    n = gpus.astype(float)
    if not spec(strategy).offload:
        return np.zeros(n.shape)
    nodes = np.maximum(1.0, np.ceil(n / gpus_per_node))
    return (frozen_base_bytes(w) + ADAPTER_BYTES_PER_PARAM * w.adapter_params) / nodes


def lora_activation_bytes(w: Workload, tp: np.ndarray | float, micro_batch: np.ndarray | float) -> np.ndarray | float:
    """What adapters add to activations: each adapted matrix keeps its rank-r intermediate x·A (2 bytes each) for the
    backward pass — s·b·r per matrix per layer; the input x is the one the frozen matrix already saves. The frozen base
    still back-propagates to every layer's input, so the rest is the full Korthikanti et al. activation set."""
    if not is_peft(w):
        return 0.0
    per_layer = 2.0 * w.seq_len * np.asarray(micro_batch, dtype=float) * w.lora_rank * MATRICES_PER_TARGET[w.lora_targets]
    return per_layer * w.shape.layers / np.asarray(tp, dtype=float) * w.act_scale


def peft_flops_per_token(w: Workload) -> float:
    """Frozen weights 4 FLOPs per parameter per token, adapters the full 6 (arXiv:2106.09685 Sec 4.2)."""
    return FROZEN_MATMUL_FLOPS_PER_PARAM * w.active_params + TRAINED_FLOPS_PER_PARAM * w.adapter_params + w.attention_flops_per_token


def dequant_seconds(w: Workload, gpu: GpuSpec, micro_batches: np.ndarray, tp: np.ndarray | float = 1.0,
                    pp: np.ndarray | float = 1.0) -> np.ndarray:
    """QLoRA only: seconds a step spends dequantising the 4-bit base (per micro-batch, on this GPU's share of the layers)."""
    if w.method != "qlora":
        return np.zeros(np.shape(micro_batches))
    per_mb = DEQUANT_SECONDS_PER_PARAM_A100 * quantized_params(w) / dequant_speed(gpu)
    return per_mb * np.asarray(micro_batches, dtype=float) / (np.asarray(tp, dtype=float) * np.asarray(pp, dtype=float))


def finetune_facts(w: Workload) -> dict[str, object]:
    """The fine-tuning facts rules may test (advisor.knowledge.vocabulary): the method, and for LoRA/QLoRA the adapters and the base."""
    peft = is_peft(w)
    return {
        "method": w.method,
        "is_finetune": w.method != "pretrain",
        "is_peft": peft,
        "lora_rank": float(w.lora_rank) if peft else None,
        "adapter_params_m": w.adapter_params / 1e6 if peft else None,
        "adapter_params": w.adapter_params if peft else None,
        "frozen_base_gb": frozen_base_bytes(w) / 1e9 if peft else None,
        # a fine-tune given in examples: shorter ones are packed, their attention kept apart (Workload.attention_tokens);
        # longer ones are cut at the sequence by default (TRL's SFTConfig max_length)
        "example_tokens": float(w.example_tokens) if w.example_tokens else None,
        "examples_per_sequence": w.seq_len / w.example_tokens if w.example_tokens else None,
    }
