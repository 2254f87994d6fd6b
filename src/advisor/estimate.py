"""The cost and estimate model: memory, compute, communication, time and cost per strategy.

Pure functions over numpy arrays of GPU counts, so one call prices a single configuration and
the same call prices a sweep. Every formula names its source; figures come from the catalog data
files. Conventions (which bytes-per-parameter rule, which overlap) are stated in ``ASSUMPTIONS``
and printed with every estimate, because published tools disagree (estimators-notes §11).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .answers import STRATEGIES, Answers
from .catalog import GpuSpec, efficiency_data, mfu_band

GB = 1e9
"""Memory is reported in GB (10^9 bytes), as GPU datasheets state capacity."""

CUDA_OVERHEAD_BYTES = 2 * GB
"""Per-GPU runtime overhead: 'CUDA kernels typically require 1-2 GB' (Ultra-Scale Playbook); upper end."""

DEEPSPEED_CPU_BUFFER_FACTOR = 1.5
"""DeepSpeed estimators' additional_buffer_factor, applied to CPU memory only (stage3.py, stage_1_and_2.py)."""

FULL_RECOMPUTE_FLOPS = 8.0 / 6.0
"""Full recomputation adds one forward pass: 8PD instead of 6PD (Transformer Math 101)."""

SELECTIVE_RECOMPUTE_FLOPS = 1.027
"""Selective recomputation costs 2.7% compute on GPT-3 175B (Ultra-Scale Playbook, after Korthikanti et al.)."""

MICRO_BATCH_CHOICES: tuple[int, ...] = (16, 8, 4, 2, 1)
"""Micro-batch sizes tried, largest first, when the answers leave it to advisor."""

HEAD_DIM = 128
"""Head size of the published shapes in Megatron-LM 2021 Table 1 (e.g. 4096/32, 8192/64)."""

PUBLISHED_SHAPES: tuple[tuple[float, int, int, int], ...] = (
    (1.7e9, 24, 2304, 24),
    (3.6e9, 30, 3072, 32),
    (7.5e9, 36, 4096, 32),
    (18.4e9, 40, 6144, 48),
    (39.1e9, 48, 8192, 64),
    (76.1e9, 60, 10240, 80),
    (145.6e9, 80, 12288, 96),
    (310.1e9, 96, 16384, 128),
    (529.6e9, 105, 20480, 128),
    (1008e9, 128, 25600, 160),
)
"""(params, layers, hidden, heads) from Megatron-LM 2021 Table 1 (arXiv:2104.04473), used when the answers omit the shape."""

FRAMEWORKS: dict[str, str] = {
    "ddp": "PyTorch DDP",
    "horovod": "Horovod",
    "fsdp": "PyTorch FSDP (FULL_SHARD)",
    "deepspeed-zero1": "DeepSpeed ZeRO stage 1",
    "deepspeed-zero2": "DeepSpeed ZeRO stage 2",
    "deepspeed-zero3": "DeepSpeed ZeRO stage 3",
    "deepspeed-zero3-offload": "DeepSpeed ZeRO-3 with CPU offload (ZeRO-Offload/Infinity)",
    "megatron-3d": "Megatron-LM 3D parallelism (tensor x pipeline x data)",
}

MEMORY_CONVENTION: dict[str, str] = {
    "ddp": "16 B/param replicated: 2 weights + 2 grads + 12 Adam (fp32 master, m, v) (Transformer Math 101)",
    "horovod": "16 B/param replicated: 2 weights + 2 grads + 12 Adam (fp32 master, m, v) (Transformer Math 101)",
    "fsdp": "16 B/param / GPUs + 2 unsharded layers in flight (Ultra-Scale Playbook ZeRO-3/FSDP; llm-analysis prefetch buffers)",
    "deepspeed-zero1": "2P + 2P + 12P/GPUs (Ultra-Scale Playbook ZeRO-1; DeepSpeed ships no ZeRO-1 estimator)",
    "deepspeed-zero2": "2P + 18P/GPUs (DeepSpeed estimate_zero2_model_states_mem_needs, offload_optimizer=none)",
    "deepspeed-zero3": "4 x largest layer + 18P/GPUs (DeepSpeed estimate_zero3_model_states_mem_needs, no offload)",
    "deepspeed-zero3-offload": "4 x largest layer on GPU; CPU 18P/nodes x 1.5 (DeepSpeed estimate_zero3, offload_optimizer=cpu, offload_param=cpu, zero_init=1)",
    "megatron-3d": "P/(TP x PP) x (6 + 12/DP) with the distributed optimizer (Megatron theoretical_memory_usage.py)",
}

ASSUMPTIONS: tuple[str, ...] = (
    "Compute = 6 x active params x tokens FLOPs (Transformer Math 101); 8x with full recomputation.",
    "Achieved MFU comes from published runs per GPU generation (low/mid/high band, see data/efficiency.yaml); "
    "it already includes well-overlapped communication, so only communication that cannot hide behind compute is added.",
    "Collectives: ring all-reduce t = 2(n-1)/n x S/B (nccl-tests PERFORMANCE.md), hierarchical: inside the node over "
    "NVLink/PCIe, across nodes over the node's network; reduce-scatter and all-gather take half of that.",
    "Link efficiency: 0.65 of NVLink/PCIe, 0.9 of the network (Calculon a100_80g.json).",
    "Gradient all-reduce (DDP, Horovod, ZeRO-1/2) happens once per optimizer step with gradient accumulation and "
    "overlaps the backward pass (2/3 of compute); ZeRO-3/FSDP re-gather parameters every micro-batch and overlap all of compute.",
    "Gradients move in 16-bit (2 bytes/param) under bf16/fp16, 4 bytes under fp32.",
    "Activations per layer from Korthikanti et al. 2022 Table 2: sbh(34 + 5as/h) none, 34sbh selective, 2sbh full; "
    "Megatron uses sequence parallelism (divided by TP); the first pipeline stage holds all layers' worth.",
    "Memory per GPU adds 2 GB of CUDA runtime overhead (Ultra-Scale Playbook: 1-2 GB); fragmentation is not modelled.",
    "Pipeline bubble = (PP-1)/micro-batches of compute (Narayanan et al. 2021).",
    "Cost = wall-clock hours x price per GPU-hour x GPUs (seed:K14).",
)


@dataclass(frozen=True)
class Shape:
    """Transformer dimensions used by the activation and largest-layer formulas."""

    layers: int
    hidden: int
    heads: int
    source: str


@dataclass(frozen=True)
class Workload:
    """The job, in the units the formulas use."""

    params: float
    active_params: float
    shape: Shape
    seq_len: int
    vocab: int
    global_batch_tokens: float
    micro_batch: int | None
    grad_bytes: float
    act_scale: float
    recompute: str

    @property
    def largest_layer(self) -> float:
        """Largest single module's parameters, as DeepSpeed's _live estimator finds it: the embedding or the MLP matrix."""
        h = self.shape.hidden
        return float(max(self.vocab * h, 4 * h * h))

    @property
    def global_batch_seqs(self) -> float:
        return max(1.0, self.global_batch_tokens / self.seq_len)


@dataclass(frozen=True)
class Hardware:
    """The cluster, in bytes and seconds."""

    spec: GpuSpec
    gpus_per_node: int
    intra_bw: float
    inter_bw: float
    host_bw: float
    cpu_memory_per_node: float | None
    intra_link: str


def infer_shape(params: float, vocab: int, layers: int | None, hidden: int | None, heads: int | None) -> Shape:
    """Layers/hidden/heads from what was given; the rest from N = 12Lh^2 + 13Lh + Vh + 2h (Ultra-Scale Playbook)."""
    source = "given"
    if layers is None and hidden is None:
        nearest = min(PUBLISHED_SHAPES, key=lambda row: abs(math.log(row[0] / params)))
        layers = nearest[1]
        source = f"layers from the nearest published shape ({nearest[0] / 1e9:g}B, Megatron-LM 2021 Table 1); hidden solved from params"
    if hidden is None:
        assert layers is not None
        a, b, c = 12.0 * layers, 13.0 * layers + vocab + 2.0, -params
        hidden = max(64, int(round((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a))))
        if source == "given":
            source = "hidden solved from params and layers"
    if layers is None:
        layers = max(1, int(round((params - vocab * hidden) / (12.0 * hidden * hidden + 13.0 * hidden))))
        source = "layers solved from params and hidden"
    if heads is None:
        heads = max(1, int(round(hidden / HEAD_DIM)))
    return Shape(layers=int(layers), hidden=int(hidden), heads=int(heads), source=source)


def workload_from(answers: Answers) -> Workload:
    m, t = answers.model, answers.training
    shape = infer_shape(m.params, m.vocab_size, m.layers, m.hidden_size, m.attention_heads)
    fp32 = t.precision == "fp32"
    return Workload(
        params=m.params,
        active_params=m.active_params or m.params,
        shape=shape,
        seq_len=m.seq_len,
        vocab=m.vocab_size,
        global_batch_tokens=max(t.global_batch_tokens, float(m.seq_len)),
        micro_batch=t.micro_batch_size,
        grad_bytes=4.0 if fp32 else 2.0,
        act_scale=2.0 if fp32 else 1.0,
        recompute=t.activation_recompute,
    )


def hardware_from(answers: Answers) -> Hardware:
    c = answers.cluster
    spec = c.spec
    _, link = efficiency_data()
    intra_link = c.intra_node or spec.intra_node
    if intra_link in ("nvlink", "xgmi") and spec.nvlink_gbs:
        intra = spec.nvlink_gbs
    else:
        intra_link = "pcie"
        intra = spec.pcie_gbs
    return Hardware(
        spec=spec,
        gpus_per_node=c.gpus_per_node,
        intra_bw=intra * GB * link["intra_node"],
        inter_bw=c.inter_node_gbps / 8.0 * GB * link["inter_node"],
        host_bw=spec.pcie_gbs * GB,
        cpu_memory_per_node=c.cpu_memory_gb_per_node * GB if c.cpu_memory_gb_per_node else None,
        intra_link=intra_link,
    )


# ------------------------------------------------------------------------------ collectives


def _ring(n: np.ndarray) -> np.ndarray:
    """2(n-1)/n, the all-reduce volume factor (nccl-tests PERFORMANCE.md); 0 for one rank."""
    n = np.maximum(n, 1)
    return 2.0 * (n - 1) / n


def allreduce_time(size: np.ndarray | float, ranks: np.ndarray, hw: Hardware) -> np.ndarray:
    """Hierarchical ring all-reduce of `size` bytes over `ranks` GPUs packed into nodes."""
    ranks = np.asarray(ranks, dtype=float)
    g = hw.gpus_per_node
    local = np.minimum(ranks, g)
    nodes = np.ceil(ranks / g)
    return _ring(local) * size / hw.intra_bw + _ring(nodes) * size / hw.inter_bw


# ------------------------------------------------------------------------------ memory


def activation_bytes(
    w: Workload, mode: str, tp: np.ndarray | float = 1.0, seq_parallel: bool = False, micro_batch: np.ndarray | float = 1.0
) -> np.ndarray | float:
    """Activation memory per GPU for one micro-batch through all layers (Korthikanti et al. 2022 Table 2)."""
    s, b, h, a, L = w.seq_len, np.asarray(micro_batch, dtype=float), w.shape.hidden, w.shape.heads, w.shape.layers
    sbh = s * b * h
    tp = np.asarray(tp, dtype=float)
    if mode == "full":
        per_layer = 2.0 * sbh / (tp if seq_parallel else 1.0)
    elif mode == "selective":
        per_layer = sbh * (34.0 / tp) if seq_parallel else sbh * (10.0 + 24.0 / tp)
    else:  # none
        scores = 5.0 * a * s / (h * tp)
        per_layer = sbh * (34.0 / tp + scores) if seq_parallel else sbh * (10.0 + 24.0 / tp + scores)
    return per_layer * L * w.act_scale


def model_state_bytes(strategy: str, w: Workload, gpus: np.ndarray, tp: np.ndarray, pp: np.ndarray) -> np.ndarray:
    """Parameters + gradients + optimizer states per GPU, by each strategy's published formula."""
    P = w.params
    n = gpus.astype(float)
    ll = w.largest_layer
    if strategy in ("ddp", "horovod"):
        return np.full_like(n, 16.0 * P)
    if strategy == "fsdp":
        return 16.0 * P / n + 2.0 * 2.0 * ll
    if strategy == "deepspeed-zero1":
        return 4.0 * P + 12.0 * P / n
    if strategy == "deepspeed-zero2":
        return 2.0 * P + np.floor(18.0 * P / n)
    if strategy == "deepspeed-zero3":
        return 4.0 * ll + np.floor(18.0 * P / n)
    if strategy == "deepspeed-zero3-offload":
        return np.full_like(n, 4.0 * ll)
    if strategy == "megatron-3d":
        dp = n / (tp * pp)
        return P / (tp * pp) * (6.0 + 12.0 / dp)
    raise ValueError(f"unknown strategy {strategy!r}")


def cpu_bytes_per_node(strategy: str, w: Workload, gpus: np.ndarray, hw: Hardware) -> np.ndarray:
    """Host memory per node that DeepSpeed's estimators ask for (zero_init=1); 0 where none is needed."""
    P, g = w.params, hw.gpus_per_node
    nodes = np.ceil(gpus / g)
    if strategy == "deepspeed-zero3-offload":
        return P * 18.0 / nodes * DEEPSPEED_CPU_BUFFER_FACTOR
    if strategy == "deepspeed-zero3":
        return np.full(gpus.shape, w.largest_layer * 4.0 * g * DEEPSPEED_CPU_BUFFER_FACTOR)
    if strategy == "deepspeed-zero2":
        return np.full(gpus.shape, P * 4.0 * g * DEEPSPEED_CPU_BUFFER_FACTOR)
    return np.zeros(gpus.shape)


# ------------------------------------------------------------------------------ megatron layout

_TP_CHOICES = (1, 2, 4, 8)
_PP_CHOICES = (1, 2, 4, 8, 16, 32, 64)


def megatron_layout(w: Workload, gpus: np.ndarray, hw: Hardware, mode: str, micro_batch: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Smallest TP x PP (TP inside a node first, as Megatron and EleutherAI practice) whose model states fit."""
    n = gpus.astype(float)
    tp_best = np.ones_like(n)
    pp_best = np.ones_like(n)
    found = np.zeros(n.shape, dtype=bool)
    mem = hw.spec.memory_gb * GB
    for pp in _PP_CHOICES:
        for tp in _TP_CHOICES:
            if tp > hw.gpus_per_node or pp > w.shape.layers:
                continue
            ok = (np.mod(n, tp * pp) == 0) & (n >= tp * pp) & ~found
            if not ok.any():
                continue
            tpa, ppa = np.full_like(n, tp), np.full_like(n, pp)
            states = model_state_bytes("megatron-3d", w, n, tpa, ppa)
            act = activation_bytes(w, mode, tpa, seq_parallel=True, micro_batch=micro_batch)
            fits = states + act + CUDA_OVERHEAD_BYTES <= mem
            take = ok & fits
            tp_best = np.where(take, tp, tp_best)
            pp_best = np.where(take, pp, pp_best)
            found |= take
    # Where nothing fits, show the largest layout that divides the GPUs (the closest to fitting).
    for pp in _PP_CHOICES:
        for tp in _TP_CHOICES:
            if tp > hw.gpus_per_node or pp > w.shape.layers:
                continue
            ok = (np.mod(n, tp * pp) == 0) & (n >= tp * pp) & ~found
            tp_best = np.where(ok, tp, tp_best)
            pp_best = np.where(ok, pp, pp_best)
    return tp_best, pp_best


# ------------------------------------------------------------------------------ the estimate


@dataclass
class StrategyEstimate:
    """One strategy over an array of GPU counts. Arrays have the shape of ``gpus``."""

    strategy: str
    gpus: np.ndarray
    recompute: np.ndarray
    model_states: np.ndarray
    activations: np.ndarray
    memory: np.ndarray
    cpu_per_node: np.ndarray
    fits: np.ndarray
    cpu_fits: np.ndarray
    compute_s: np.ndarray
    comm_s: np.ndarray
    exposed_comm_s: np.ndarray
    bubble_s: np.ndarray
    step_s: dict[str, np.ndarray]
    hours: dict[str, np.ndarray]
    accumulation: np.ndarray
    max_micro_batch: np.ndarray
    tp: np.ndarray
    pp: np.ndarray
    micro_batch: np.ndarray

    @property
    def communication_share(self) -> np.ndarray:
        step = self.step_s["mid"]
        return np.where(step > 0, self.exposed_comm_s / step, 0.0)


def _recompute_modes(w: Workload) -> tuple[str, ...]:
    return ("selective", "full") if w.recompute == "auto" else (w.recompute,)


def estimate_strategy(strategy: str, w: Workload, hw: Hardware, gpus: np.ndarray, tokens: float) -> StrategyEstimate:
    """Memory, time and fit for one strategy at every GPU count in ``gpus``."""
    n = np.asarray(gpus, dtype=float)
    mem_cap = hw.spec.memory_gb * GB
    modes = _recompute_modes(w)
    sp = strategy == "megatron-3d"

    # Pick, per GPU count, the least recomputation that fits (the K4/K10 memory-for-speed trade),
    # then the largest micro-batch that fits (seed:K17: memory limits the batch; fewer micro-batches
    # mean fewer ZeRO-3 re-gathers). A micro-batch given in the answers is kept as given.
    if w.micro_batch:
        micro_choices: tuple[int, ...] = (w.micro_batch,)
    elif sp:
        micro_choices = (1,)  # many small micro-batches keep the pipeline bubble (PP-1)/m small (Narayanan et al. 2021)
    else:
        micro_choices = MICRO_BATCH_CHOICES
    chosen = np.full(n.shape, modes[-1], dtype=object)
    mb = np.full(n.shape, float(micro_choices[-1]))
    tp = np.ones_like(n)
    pp = np.ones_like(n)
    decided = np.zeros(n.shape, dtype=bool)
    for mode in modes:
        for cand in micro_choices:
            if sp:
                tpm, ppm = megatron_layout(w, n, hw, mode, cand)
            else:
                tpm, ppm = np.ones_like(n), np.ones_like(n)
            share = np.ceil(w.global_batch_seqs / (n / (tpm * ppm)))  # sequences per data-parallel rank per step
            if cand > 1:
                useful = cand <= share
            else:
                useful = np.ones(n.shape, dtype=bool)
            states = model_state_bytes(strategy, w, n, tpm, ppm)
            act = activation_bytes(w, mode, tpm, seq_parallel=sp, micro_batch=cand) * np.ones_like(n)
            take = ~decided & useful & (states + act + CUDA_OVERHEAD_BYTES <= mem_cap)
            chosen = np.where(take, mode, chosen)
            mb = np.where(take, float(cand), mb)
            tp, pp = np.where(take, tpm, tp), np.where(take, ppm, pp)
            decided |= take
    if not decided.all() and sp:
        tpf, ppf = megatron_layout(w, n, hw, modes[-1], micro_choices[-1])
        tp, pp = np.where(decided, tp, tpf), np.where(decided, pp, ppf)
    states = model_state_bytes(strategy, w, n, tp, pp)
    act = np.array(
        [activation_bytes(w, m, t, seq_parallel=sp, micro_batch=b) for m, t, b in zip(chosen.ravel(), tp.ravel(), mb.ravel())], dtype=float
    ).reshape(n.shape)
    memory = states + act + CUDA_OVERHEAD_BYTES
    fits = memory <= mem_cap
    cpu = cpu_bytes_per_node(strategy, w, n, hw)
    cpu_fits = np.ones(n.shape, dtype=bool) if hw.cpu_memory_per_node is None else cpu <= hw.cpu_memory_per_node

    # Largest micro-batch that would fit (seed:K17 "is GPU memory limiting the batch size?").
    per_sample = act / mb
    room = mem_cap - states - CUDA_OVERHEAD_BYTES
    max_mb = np.where(per_sample > 0, np.floor(np.maximum(room, 0) / per_sample), 0)

    dp = n / (tp * pp)
    micro_per_step = np.maximum(1.0, np.ceil(w.global_batch_seqs / (mb * dp)))
    recompute_factor = np.where(chosen == "full", FULL_RECOMPUTE_FLOPS, np.where(chosen == "selective", SELECTIVE_RECOMPUTE_FLOPS, 1.0))
    flops_per_step = 6.0 * w.active_params * w.global_batch_tokens * recompute_factor
    band = mfu_band(hw.spec.generation)
    peak = hw.spec.peak_tflops * 1e12

    grads = w.grad_bytes * w.params
    g = hw.gpus_per_node
    if strategy in ("ddp", "horovod", "deepspeed-zero1", "deepspeed-zero2"):
        comm = allreduce_time(grads, n, hw)  # ZeRO-1/2: reduce-scatter + all-gather = the same 2P volume (Playbook)
        overlap_with = 2.0 / 3.0
    elif strategy in ("fsdp", "deepspeed-zero3", "deepspeed-zero3-offload"):
        # ZeRO-3/FSDP: all-gather params in forward and backward of every micro-batch, reduce-scatter grads once: 3P (Playbook).
        params16 = 2.0 * w.params
        comm = micro_per_step * 2.0 * allreduce_time(params16, n, hw) / 2.0 + allreduce_time(grads, n, hw) / 2.0
        if strategy == "deepspeed-zero3-offload":
            # Parameter shards cross PCIe for forward and backward, gradient shards back, every micro-batch.
            comm = comm + micro_per_step * 3.0 * (2.0 * w.params / n) / hw.host_bw
        overlap_with = 1.0
    else:  # megatron-3d
        shard = grads / (tp * pp)
        replicas = np.maximum(1.0, g / (tp * pp))
        node_payload = shard * np.minimum(g, tp * pp)
        dp_nodes = np.maximum(1.0, np.ceil(dp / replicas))
        dp_comm = np.where(dp > 1, _ring(np.minimum(dp, replicas)) * shard / hw.intra_bw + _ring(dp_nodes) * node_payload / hw.inter_bw, 0.0)
        tp_msg = 2.0 * w.seq_len * mb * w.shape.hidden * w.act_scale
        layers_per_stage = w.shape.layers / pp
        tp_comm = np.where(tp > 1, micro_per_step * layers_per_stage * 4.0 * _ring(tp) * tp_msg / hw.intra_bw, 0.0)
        comm = dp_comm + tp_comm
        overlap_with = 2.0 / 3.0
        extras_tp_comm = tp_comm
    step: dict[str, np.ndarray] = {}
    hours: dict[str, np.ndarray] = {}
    compute_mid = flops_per_step / (n * peak * band.mid)
    bubble = np.where(pp > 1, (pp - 1.0) / micro_per_step, 0.0)
    if strategy == "megatron-3d":
        hidden_comm = comm - extras_tp_comm  # tensor-parallel all-reduces sit on the critical path
    exposed_mid = None
    for name, mfu in (("low", band.high), ("mid", band.mid), ("high", band.low)):
        compute = flops_per_step / (n * peak * mfu)
        if strategy == "megatron-3d":
            exposed = extras_tp_comm + np.maximum(0.0, hidden_comm - overlap_with * compute)
        else:
            exposed = np.maximum(0.0, comm - overlap_with * compute)
        s = compute * (1.0 + bubble) + exposed
        step[name] = s
        hours[name] = s * (tokens / w.global_batch_tokens) / 3600.0
        if name == "mid":
            exposed_mid = exposed
    assert exposed_mid is not None
    return StrategyEstimate(
        strategy=strategy, gpus=n, recompute=chosen, model_states=states, activations=act, memory=memory,
        cpu_per_node=cpu, fits=fits, cpu_fits=cpu_fits, compute_s=compute_mid, comm_s=comm, exposed_comm_s=exposed_mid,
        bubble_s=compute_mid * bubble, step_s=step, hours=hours, accumulation=micro_per_step, max_micro_batch=max_mb,
        tp=tp, pp=pp, micro_batch=mb,
    )


def estimate_all(answers: Answers, gpus: np.ndarray | None = None) -> tuple[dict[str, StrategyEstimate], dict[str, Any]]:
    """Every strategy at the given GPU counts (default: the answers' own), calibrated to a known duration.

    Returns the estimates and a context dict (workload, hardware, tokens, whether tokens were implied).
    """
    w = workload_from(answers)
    hw = hardware_from(answers)
    counts = np.asarray([answers.cluster.gpus] if gpus is None else gpus, dtype=float)
    baseline = answers.training.baseline_hours
    tokens = answers.training.tokens or w.global_batch_tokens  # placeholder when only a duration is known
    results = {s: estimate_strategy(s, w, hw, counts, tokens) for s in STRATEGIES}
    tokens_implied = False
    if baseline is not None:
        # The known duration is the truth for the team's current strategy at its GPU count: scale
        # every strategy by its step-time ratio to that one, band by band.
        current = answers.training.current_strategy
        if gpus is None:
            ref = results[current]  # already estimated at the answers' own GPU count
            ref_step = {band: ref.step_s[band].copy() for band in ref.step_s}
        else:
            ref = estimate_strategy(current, w, hw, np.asarray([answers.cluster.gpus], dtype=float), tokens)
            ref_step = ref.step_s
        for est in results.values():
            for band in est.hours:
                est.hours[band] = baseline * est.step_s[band] / ref_step[band][0]
        if answers.training.tokens is None:
            tokens = baseline * 3600.0 / ref_step["mid"][0] * w.global_batch_tokens
            tokens_implied = True
    ctx = {"workload": w, "hardware": hw, "tokens": float(tokens), "tokens_implied": tokens_implied, "baseline_hours": baseline}
    return results, ctx


def cost(hours: np.ndarray | float, price: float, gpus: np.ndarray | float) -> np.ndarray:
    """seed:K14 — cost = training time x price per GPU-hour x number of GPUs."""
    return np.asarray(hours, dtype=float) * price * np.asarray(gpus, dtype=float)
