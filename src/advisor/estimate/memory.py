"""Memory per GPU: model states by each framework's published formula, DeepSpeed's own estimators, host memory for offload."""

from __future__ import annotations

import numpy as np

from advisor.estimate import dsmem
from advisor.estimate.communication import powersgd_volume
from advisor.knowledge.strategies import spec
from advisor.estimate.finetune import (ADAPTER_INPUT_BYTES, adapted_matrices, is_peft, mlp_width, peft_cpu_bytes_per_node,
                                       peft_state_bytes)
from advisor.estimate.layout import expert_degree, stage_factor
from advisor.estimate.workload import EAGER_LOGITS_BYTES_PER_VOCAB, Hardware, Workload, fp8_recipe_of


# ------------------------------------------------------------------------------ memory


def activation_bytes(
    w: Workload, mode: str, tp: np.ndarray | float = 1.0, seq_parallel: bool = False, micro_batch: np.ndarray | float = 1.0
) -> np.ndarray | float:
    """Activation memory per GPU for one micro-batch through all layers (Korthikanti et al. 2022 Table 2).

    A fused attention kernel is assumed, as every current stack runs one (FlashAttention: PyTorch SDPA, Megatron-LM,
    torchtitan, llm-foundry): it never stores the s x s attention scores, so no checkpointing ("none") keeps what
    Korthikanti et al.'s selective recomputation keeps, 34sbh per layer, without the 5as/h score term (Dao et al. 2022,
    arXiv:2205.14135 Sec 3.1: memory linear in sequence length). An eager Hugging Face stack keeps what its modules save
    (eager_layer_bytes_per_token); under LoRA/QLoRA a frozen linear layer saves no input (frozen_input_saving)."""
    s, b, h, L = w.seq_len, np.asarray(micro_batch, dtype=float), w.shape.hidden, w.shape.layers
    sbh = s * b * h
    tp = np.asarray(tp, dtype=float)
    if mode == "full":
        per_layer = 2.0 * sbh / (tp if seq_parallel else 1.0)
    elif w.stack == "eager":
        per_layer = s * b * eager_layer_bytes_per_token(w) / tp
    else:  # none or selective: the same with a fused attention kernel
        replicated, split = frozen_input_saving(w)
        fp8_replicated, fp8_split = te_fp8_input_saving(w, seq_parallel)
        replicated, split = replicated + fp8_replicated, split + fp8_split
        per_layer = sbh * ((34.0 - replicated - split) / tp) if seq_parallel else sbh * (10.0 - replicated + (24.0 - split) / tp)
    return per_layer * L * w.act_scale


TRAINED_LINEAR_INPUTS: dict[str, tuple[bool, bool, bool, bool]] = {
    "qv": (True, False, False, False),
    "attention": (True, True, False, False),
    "all-linear": (True, True, True, True),
}
"""Which linear inputs a LoRA target set needs saved for its adapters' gradients: (q/k/v input, o_proj input, gate/up
input, down_proj input). An adapter B·A·x needs x for A's gradient (arXiv:2106.09685 Sec 4.1); a frozen linear layer
needs its input for no gradient of its own, and autograd saves a matmul operand only where the other one requires a
gradient (torch/csrc/autograd derivatives: mm saves self for mat2's gradient), so a frozen layer's input is freed unless
another op keeps it."""


def _trained_inputs(w: Workload) -> tuple[bool, bool, bool, bool]:
    if not is_peft(w):
        return (True, True, True, True)
    return TRAINED_LINEAR_INPUTS.get(w.lora_targets, (True, True, True, True))


def frozen_input_saving(w: Workload) -> tuple[float, float]:
    """(replicated, TP-split) sbh per layer a fused stack does not keep under LoRA/QLoRA: Korthikanti et al. 2022 Sec 4.1's
    34sbh holds the QKV input (the layer norm's output, 2sbh) and the first MLP matrix's input (2sbh) in the part tensor
    parallelism does not split, and the second MLP matrix's input (the GeLU output, 8sbh) in the part it splits; a frozen
    one that no adapter reads is freed (TRAINED_LINEAR_INPUTS). The attention output (o_proj's input) stays: the fused
    attention kernel keeps it for its own backward."""
    qkv, _o, fc1, fc2 = _trained_inputs(w)
    return (0.0 if qkv else 2.0) + (0.0 if fc1 else 2.0), 0.0 if fc2 else 8.0


def te_fp8_input_saving(w: Workload, megatron: bool) -> tuple[float, float]:
    """(replicated, TP-split) sbh per layer TransformerEngine's FP8 saves: its Linear and LayerNormLinear keep the
    quantized input (1 byte) for the weight-gradient GEMM where bf16 kept 2 (TransformerEngine pytorch/module/linear.py:
    'saved_inputmat = inputmat', the FP8 tensor, under fp8; inputmat_no_fp8 otherwise). Of Korthikanti's 34sbh that halves
    the QKV input (2 -> 1) and the first MLP matrix's input (2 -> 1), both layer-norm outputs TE casts in the fused norm,
    and the second MLP matrix's input (8 -> 4); the attention output the fused kernel keeps in bf16 for its own backward
    gains an FP8 copy for o_proj's (+1). Only under TE's recipes (workload.fp8_recipe_of 'te': Megatron-LM, Megatron-FSDP,
    NeMo): torchao's Float8Linear saves its high-precision inputs and casts again in the backward."""
    if not w.fp8 or fp8_recipe_of(w, megatron) != "te":
        return 0.0, 0.0
    qkv, o, fc1, fc2 = _trained_inputs(w)
    return (1.0 if qkv else 0.0) + (1.0 if fc1 else 0.0), (4.0 if fc2 else 0.0) - (1.0 if o else 0.0)


RMSNORM_FP32_BYTES = 4.0
"""Bytes per element Hugging Face's LlamaRMSNorm keeps: it upcasts its input (``hidden_states.to(torch.float32)``) and
saves the fp32 tensor for the backward of pow and mul (transformers models/llama/modeling_llama.py)."""


def eager_layer_bytes_per_token(w: Workload) -> float:
    """Bytes one token keeps per layer for the backward pass under an eager Hugging Face LLaMA-family model with SDPA
    attention, counted from what each module saves (transformers modeling_llama.py, bf16): two RMSNorms keep their fp32
    input (RMSNORM_FP32_BYTES x h each); SDPA keeps q, k, v and its output (2 x (2 x attention width + 2 x key-value
    width), 2h x (2 + 2 x kv_share) where heads x head size is the hidden size); the SwiGLU MLP keeps
    the gate output for SiLU and both operands of the product (3 x 2f); each trained linear layer keeps its input (2h for
    q/k/v, o_proj and gate/up, 2f for down_proj), one bf16 tensor per group of layers that read it. Under LoRA/QLoRA only
    adapted layers keep an input, one bf16 copy each (ADAPTER_INPUT_BYTES: PEFT's fp32 adapters under Trainer's
    autocast). Llama 3 8B: 36h with no adapters, 40h with q/v adapters, 56h with every linear layer adapted (47h fully
    trained), against a fused stack's 34h."""
    h, f = float(w.shape.hidden), mlp_width(w)
    kept = 2.0 * RMSNORM_FP32_BYTES * h + 2.0 * (2.0 * w.shape.attention_width + 2.0 * w.shape.kv_width) + 3.0 * 2.0 * f
    if is_peft(w):
        return kept + ADAPTER_INPUT_BYTES * sum(d_in for d_in, _d_out in adapted_matrices(w))
    return kept + 2.0 * h * 3.0 + 2.0 * f  # every linear layer trained: the q/k/v, o_proj, gate/up and down_proj inputs


def logits_bytes(w: Workload, tp: np.ndarray | float, micro_batch: np.ndarray | float, pp: np.ndarray | float) -> np.ndarray:
    """The output logits at the loss, per GPU (workload.EAGER_LOGITS_BYTES_PER_VOCAB), on an eager stack: on the last
    pipeline stage, which holds fewer micro-batches in flight than the first, so counted only without pipelining. Fused
    stacks' vocabulary-parallel cross-entropy (megatron-core tensor_parallel/cross_entropy.py) is within their band."""
    ones = np.ones(np.broadcast_shapes(np.shape(tp), np.shape(micro_batch), np.shape(pp)))
    if w.stack != "eager":
        return 0.0 * ones
    tokens = w.seq_len * np.asarray(micro_batch, dtype=float)
    held = tokens * float(w.vocab) * EAGER_LOGITS_BYTES_PER_VOCAB / np.asarray(tp, dtype=float)
    return np.where(np.asarray(pp, dtype=float) > 1, 0.0, held) * ones


def model_state_bytes(strategy: str, w: Workload, gpus: np.ndarray, tp: np.ndarray, pp: np.ndarray, gpus_per_node: int = 8) -> np.ndarray:
    """Parameters + gradients + optimizer states per GPU, by each strategy's published formula.

    ZeRO-2/3 and offload are DeepSpeed's own estimators (dsmem.py), evaluated elementwise.
    """
    if is_peft(w):
        return peft_state_bytes(strategy, w, gpus, tp, pp, gpus_per_node)
    P = w.params
    n = gpus.astype(float)
    ll = w.largest_layer
    states = spec(strategy).states
    if states == "replicated":
        rank = spec(strategy).powersgd_rank
        if rank:
            return np.full_like(n, 16.0 * P + powersgd_bytes(w, rank))
        return np.full_like(n, 16.0 * P)
    if states == "fsdp":
        return 16.0 * P / n + 2.0 * 2.0 * ll
    if states == "hsdp":
        # HYBRID_SHARD: states sharded over the GPUs of one node and replicated across nodes (PyTorch FSDP,
        # arXiv:2304.11277 Sec 3.2.2), so they divide by the node's GPUs however many nodes join.
        return 16.0 * P / np.minimum(n, gpus_per_node) + 2.0 * 2.0 * ll
    # DeepSpeed-MoE (ZeRO-1/2 with expert parallelism): each GPU keeps the dense part and 1/EP of the experts in 16-bit;
    # the partitioned states spread over the data-parallel group (dense) and the expert-data-parallel group of n/EP
    # (experts), which is 1/n of all parameters either way.
    ep = expert_degree(strategy, w, n, n, gpus_per_node)
    held = w.expert_params * (1.0 - 1.0 / ep)  # expert weights a GPU no longer keeps
    if states == "zero1":
        return 4.0 * (P - held) + 12.0 * P / n
    if states == "deepspeed-estimator":
        base = _deepspeed(strategy, w, n, gpus_per_node)[1] - (2.0 * held if spec(strategy).expert_parallel else 0.0)
        if spec(strategy).zeropp:
            # hpZ keeps a secondary bf16 copy of the weights partitioned over the node's GPUs (ZeRO++, arXiv:2306.10209
            # Sec 3.2: memory traded for cross-node backward all-gathers; zero_hpz_partition_size = GPUs per node), on more than one node.
            base = base + np.where(n > gpus_per_node, 2.0 * P / np.minimum(n, gpus_per_node), 0.0)
        return base
    if states == "megatron":
        dp = n / (tp * pp)
        # Megatron's distributed optimizer (workload.MEGATRON_MAIN_GRAD_BYTES): the weights and the gradient buffer
        # replicated across data-parallel ranks — 6 bytes under bf16 (fp32 gradients), 4 where the buffer is 16-bit —
        # and the optimizer sharded: fp32 master weights and Adam's two moments (none of the master under fp32), and
        # the fp32 main-gradient shard where the buffer is 16-bit. Under expert parallelism each rank holds the dense
        # part and 1/EP of the experts.
        ep = expert_degree(strategy, w, n, dp, gpus_per_node)
        replicated = w.dense_params + w.expert_params / ep
        weight = 4.0 if w.grad_bytes == 4.0 else 2.0  # fp32 training keeps fp32 weights (workload_from: grad_bytes)
        # An optimizer whose state is 16-bit (Workload.optimizer_state_bytes: Apex DistributedFusedAdam at dtype=bf16)
        # keeps its master copy and both moments at that width, and no fp32 gradient shard beside them.
        osb = w.optimizer_state_bytes
        sharded = 2.0 * osb + (0.0 if weight == 4.0 else osb) + (4.0 if w.main_grad_bytes < 4.0 and osb == 4.0 else 0.0)
        return ((weight + w.main_grad_bytes) * replicated + sharded * P / dp) / (tp * pp) * stage_factor(w, pp)
    raise ValueError(f"unknown strategy {strategy!r}")


def powersgd_bytes(w: Workload, rank: int) -> float:
    """What the PowerSGD hook keeps besides DDP's replica (torch powerSGD_hook.py): an error-feedback buffer per bucket,
    as long as the bucket and of its dtype — one gradient's size ('PowerSGD typically requires extra memory of the same
    size as the model's gradients to enable error feedback', PyTorch DDP Communication Hooks) — and, with warm_start,
    the P and Q factors of every compressed matrix, (n + m)·r elements. The hook's per-bucket copy of the input is one
    bucket (DDP's bucket_cap_mb, 25 MB by default) at a time and is not counted."""
    vol = powersgd_volume(w, rank)
    per_element = w.grad_bytes
    return float(per_element * (vol.full_elements + vol.p_elements + vol.q_elements))


def _nodes(gpus: np.ndarray | int, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """(GPUs per node, nodes) as DeepSpeed's estimators take them: a job smaller than a node fills part of one."""
    per_node = np.minimum(gpus, gpus_per_node)
    return per_node, np.maximum(1, np.ceil(np.asarray(gpus) / per_node))


def _deepspeed(strategy: str, w: Workload, gpus: np.ndarray, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """(cpu bytes per node, gpu bytes) from DeepSpeed's estimator for the strategy's configuration (zero_init=1)."""
    per_node, nodes = _nodes(gpus, gpus_per_node)
    sp = spec(strategy)
    if sp.deepspeed_stage == 2:
        return dsmem.zero2(w.params, per_node, nodes, cpu_offload=sp.offload)
    offload = sp.offload
    return dsmem.zero3(w.params, w.largest_layer, per_node, nodes, cpu_offload=offload, cpu_offload_params=offload, zero_init=True)


def deepspeed_table(strategy: str, w: Workload, gpus: int, gpus_per_node: int) -> list[dsmem.DsRow]:
    """DeepSpeed's whole printed estimate for the stage this strategy uses (ZeRO-2 or ZeRO-3), offload rows included."""
    per_node, nodes = _nodes(gpus, gpus_per_node)
    stage = 2 if spec(strategy).deepspeed_stage == 2 else 3
    return dsmem.estimator_table(stage, w.params, w.largest_layer, int(per_node), int(nodes))


def cpu_bytes_per_node(strategy: str, w: Workload, gpus: np.ndarray, hw: Hardware) -> np.ndarray:
    """Host memory per node that DeepSpeed's estimators ask for (zero_init=1); 0 where none is needed."""
    if is_peft(w):
        return peft_cpu_bytes_per_node(strategy, w, gpus, hw.gpus_per_node)
    if spec(strategy).states != "deepspeed-estimator":
        return np.zeros(gpus.shape)
    return _deepspeed(strategy, w, gpus.astype(float), hw.gpus_per_node)[0]
