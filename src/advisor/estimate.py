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

from . import dsmem
from .answers import Answers
from .strategies import STRATEGIES, spec
from .vocabulary import PARTIAL_RECOMPUTE_NAMES
from .catalog import GpuSpec, efficiency_data, mfu_band
from .i18n import N_

GB = 1e9
"""Memory is reported in GB (10^9 bytes), as GPU datasheets state capacity."""

CUDA_OVERHEAD_BYTES = 2 * GB
"""Per-GPU runtime overhead: 'CUDA kernels typically require 1-2 GB' (Ultra-Scale Playbook); upper end."""

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


def nearest_published(params: float) -> tuple[float, int, int, int]:
    return min(PUBLISHED_SHAPES, key=lambda row: abs(math.log(row[0] / params)))


DEFAULT_BATCHES: tuple[tuple[float, float, str], ...] = (
    (5e9, 512 * 2048, N_("1M tokens (512 x 2,048), Megatron-LM 2021 Table 1's batch for its 1.7-3.6B models (arXiv:2104.04473)")),
    (200e9, 4 * 2**20, N_("4M tokens, LLaMA's batch for every size from 6.7B to 65B (arXiv:2302.13971 Table 2) and Llama 2's")),
    (math.inf, 16 * 2**20, N_("16M tokens, Llama 3 405B's batch (arXiv:2407.21783 Table 4)")),
)
"""(below this many parameters, global batch tokens, source): published runs grow the batch with the model."""


BATCH_NOT_GIVEN = "global batch not given: "
"""Prefix of batch_source when the default batch was used (render translates the two parts)."""


def default_batch_tokens(params: float) -> tuple[float, str]:
    """The global batch published runs of this size used: 1M tokens below 5B, 4M to 200B, 16M above."""
    for limit, tokens, source in DEFAULT_BATCHES:
        if params < limit:
            return float(tokens), BATCH_NOT_GIVEN + source
    raise AssertionError("unreachable: the last limit is infinite")

ASSUMPTIONS: tuple[str, ...] = (
    N_("Compute per token = 6 x active params (Transformer Math 101) + 12 x layers x hidden x seq_len for attention scores "
       "(llm-analysis: 4bs^2h forward FLOPs per layer; the s/6h term of Narayanan et al. 2021 Eq. 3), because the published "
       "MFU figures the bands come from count attention FLOPs too; full recomputation adds a forward pass (8/6), selective 2.7%."),
    N_("Achieved MFU comes from published runs per GPU generation (low/mid/high band, see data/efficiency.yaml); "
       "it already includes well-overlapped communication, so only communication that cannot hide behind compute is added."),
    N_("Collectives: ring all-reduce t = 2(n-1)/n x S/B, reduce-scatter and all-gather (n-1)/n x S/B (nccl-tests "
       "PERFORMANCE.md), hierarchical: inside the node over NVLink/PCIe, across nodes over each GPU's share of the node's network."),
    N_("Link efficiency: 0.65 of NVLink/PCIe, 0.9 of the network (Calculon a100_80g.json)."),
    N_("DDP, Horovod and ZeRO-1 reduce gradients once per optimizer step and ZeRO-2 on every micro-batch (DeepSpeed stage_1_and_2.py), "
       "overlapping the backward pass (2/3 of compute); ZeRO-3/FSDP all-gather 16-bit parameters in forward and backward and "
       "reduce-scatter gradients on every micro-batch (3 x params, Ultra-Scale Playbook), overlapping all of compute; tensor-parallel "
       "all-reduces and pipeline sends sit on the critical path."),
    N_("Gradients move in 16-bit (2 bytes/param) under bf16/fp16, 4 bytes under fp32."),
    N_("The global batch is kept as given: every data-parallel rank needs at least one sequence per step, so a plan whose ranks "
       "outnumber the batch's sequences cannot run; tensor or pipeline parallelism, or fewer GPUs, keep the ranks within it."),
    N_("Mixture of experts: memory counts all parameters and compute the active ones; FSDP and ZeRO-3 shard and gather all "
       "parameters and move no tokens; Megatron spreads experts by expert parallelism, whose token all-to-alls overlap compute "
       "as in DeepSeek-V3's DualPipe (arXiv:2412.19437)."),
    N_("Activations per layer from Korthikanti et al. 2022 Table 2: sbh(34 + 5as/h) none, 34sbh selective, 2sbh full; "
       "Megatron uses sequence parallelism (divided by TP); the first pipeline stage holds all layers' worth."),
    N_("Memory per GPU adds 2 GB of CUDA runtime overhead (Ultra-Scale Playbook: 1-2 GB); fragmentation is not modelled."),
    N_("Pipeline bubble = (PP-1)/micro-batches of compute (Narayanan et al. 2021), divided by the virtual stages of an "
       "interleaved schedule."),
    N_("Job interruptions: 419 unexpected interruptions in 54 days on 16,384 H100s with more than 90% effective training time "
       "(Llama 3, arXiv:2407.21783 Sec 3.3.4) — lost time grows with GPU count: x(1 + 0.111 x GPUs/16,384)."),
    N_("Cost = wall-clock hours x price per GPU-hour x GPUs (seed:K14)."),
)
"""The model's conventions, in English (msgids); advice.assumptions() gives them in the current language."""

CPU_ADAM_BYTES_PER_PARAM = 28.0
"""Host bytes an Adam step streams per parameter: fp32 weight, gradient, m and v read (16), weight, m and v written (12)
(the 12 B/param of optimizer state plus the fp32 gradient, Transformer Math 101's mixed-precision Adam)."""

HOST_MEMORY_BW = 409.6e9
"""Host memory bandwidth per node: two CPU sockets x 8 channels x DDR4-3200's 25.6 GB/s (JEDEC DDR4-3200; the DGX A100's
two AMD EPYC 7742 have 8 channels each). A node with less makes ZeRO-Offload slower still."""

ATTENTION_FLOPS_PER_LAYER_TOKEN = 12.0
"""Attention-score FLOPs per token per layer, as a multiple of seq_len x hidden: forward 4·b·s²·h per layer
(llm-analysis analysis.py) is 4·s·h per token, and backward doubles it (x3 in all)."""

OVERLAP_BACKWARD = 2.0 / 3.0
"""Gradient reduction can hide behind the backward pass only: 4PD of the 6PD (Transformer Math 101)."""

LLAMA3_INTERRUPTIONS, LLAMA3_DAYS, LLAMA3_GPUS, LLAMA3_EFFECTIVE = 419, 54, 16_384, 0.90
"""Llama 3 405B pre-training (arXiv:2407.21783 Sec 3.3.4, as reported by DatacenterDynamics): 419 unexpected
interruptions in a 54-day snapshot on 16,384 H100s, and 'higher than 90% effective training time'."""

INTERRUPTIONS_PER_GPU_HOUR = LLAMA3_INTERRUPTIONS / (LLAMA3_DAYS * 24.0 * LLAMA3_GPUS)
"""About one interruption per 50,700 GPU-hours [obs: derived from the Llama 3 figures above]."""

HOURS_LOST_PER_INTERRUPTION = (1.0 / LLAMA3_EFFECTIVE - 1.0) / (INTERRUPTIONS_PER_GPU_HOUR * LLAMA3_GPUS)
"""About 0.34 h per interruption (restart plus work since the last checkpoint), the figure that makes Llama 3's
interruption rate cost exactly 10% [obs: derived; 'higher than 90%' makes it an upper bound at that scale]."""


def interruption_overhead(gpus: np.ndarray | float) -> np.ndarray:
    """Wall-clock multiplier for restarts: 1 + interruptions per hour x hours lost each (grows linearly with GPUs)."""
    return 1.0 + INTERRUPTIONS_PER_GPU_HOUR * np.asarray(gpus, dtype=float) * HOURS_LOST_PER_INTERRUPTION


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
    moe_top_k: int = 1
    batch_source: str = "given"

    @property
    def is_moe(self) -> bool:
        return self.active_params < self.params

    @property
    def comm_params(self) -> float:
        """Parameters whose weights and gradients cross the network each step: the active ones under expert parallelism."""
        return self.active_params

    @property
    def largest_layer(self) -> float:
        """Largest single module's parameters, as DeepSpeed's _live estimator finds it: the embedding or the MLP matrix."""
        h = self.shape.hidden
        return float(max(self.vocab * h, 4 * h * h))

    @property
    def global_batch_seqs(self) -> int:
        """Whole sequences per optimizer step (the batch as given, rounded to whole sequences)."""
        return max(1, int(round(self.global_batch_tokens / self.seq_len)))

    @property
    def attention_flops_per_token(self) -> float:
        return ATTENTION_FLOPS_PER_LAYER_TOKEN * self.shape.layers * self.shape.hidden * self.seq_len

    @property
    def flops_per_token(self) -> float:
        """Model FLOPs per trained token (forward + backward), before any recomputation."""
        return 6.0 * self.active_params + self.attention_flops_per_token


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

    @property
    def inter_bw_per_gpu(self) -> float:
        """Each GPU's share of its node's network."""
        return self.inter_bw / self.gpus_per_node


def infer_shape(params: float, vocab: int, layers: int | None, hidden: int | None, heads: int | None) -> Shape:
    """Layers/hidden/heads from what was given; the rest from N = 12Lh^2 + 13Lh + Vh + 2h (Ultra-Scale Playbook)."""
    source = "given"
    if layers is None and hidden is None:
        nearest = nearest_published(params)
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
    active = m.active_params or m.params
    # A mixture of experts is as wide and deep as a dense model of its *active* size; the experts add breadth.
    shape = infer_shape(active, m.vocab_size, m.layers, m.hidden_size, m.attention_heads)
    fp32 = t.precision == "fp32"
    if t.global_batch_tokens is not None:
        batch, batch_source = t.global_batch_tokens, "given"
    else:
        batch, batch_source = default_batch_tokens(m.params)
    return Workload(
        params=m.params,
        active_params=active,
        shape=shape,
        seq_len=m.seq_len,
        vocab=m.vocab_size,
        global_batch_tokens=float(max(1, round(batch / m.seq_len)) * m.seq_len),
        micro_batch=t.micro_batch_size,
        grad_bytes=4.0 if fp32 else 2.0,
        act_scale=2.0 if fp32 else 1.0,
        recompute=t.activation_recompute,
        moe_top_k=m.experts_per_token,
        batch_source=batch_source,
    )


def hardware_from(answers: Answers) -> Hardware:
    c = answers.cluster
    spec = c.spec
    _, link = efficiency_data()
    intra_link = c.intra_node or spec.intra_node
    if intra_link in ("nvlink", "xgmi", "hccs") and spec.nvlink_gbs:
        intra = spec.nvlink_gbs
    else:
        intra_link = "pcie"
        intra = spec.pcie_gbs
    return Hardware(
        spec=spec,
        gpus_per_node=c.gpus_per_node,
        intra_bw=intra * GB * link["intra_node"],
        inter_bw=c.network_gbps / 8.0 * GB * link["inter_node"],
        host_bw=spec.pcie_gbs * GB,
        cpu_memory_per_node=c.cpu_memory_gb_per_node * GB if c.cpu_memory_gb_per_node else None,
        intra_link=intra_link,
    )


# ------------------------------------------------------------------------------ collectives


def _ring(n: np.ndarray) -> np.ndarray:
    """2(n-1)/n, the all-reduce volume factor (nccl-tests PERFORMANCE.md); 0 for one rank."""
    n = np.maximum(n, 1)
    return 2.0 * (n - 1) / n


@dataclass
class Collective:
    """One kind of traffic in an optimizer step, per GPU; arrays have the shape of the GPU counts."""

    name: str
    kind: str
    """all-reduce, reduce-scatter, all-gather, all-to-all, send/recv or pcie."""
    payload: np.ndarray
    """Bytes per call (nccl-tests' S)."""
    calls: np.ndarray
    """Calls per optimizer step."""
    intra_bytes: np.ndarray
    """Bytes each GPU moves over the in-node link per step."""
    inter_bytes: np.ndarray
    """Bytes each GPU moves over the network per step."""
    seconds: np.ndarray
    overlap: str
    """What it can hide behind: 'backward', 'compute' or 'none' (critical path)."""


def _group_collective(
    name: str, kind: str, payload: np.ndarray | float, calls: np.ndarray | float, ranks: np.ndarray, local: np.ndarray | float, hw: Hardware,
    overlap: str,
) -> Collective:
    """A hierarchical ring collective over `ranks` GPUs, `local` of them per node, every GPU of a node busy at once.

    Bus factor 2(n-1)/n for all-reduce, (n-1)/n for reduce-scatter and all-gather (nccl-tests PERFORMANCE.md). Across
    nodes, each group member carries 1/local of the payload over its 1/gpus_per_node share of the node's network.
    """
    factor = 2.0 if kind == "all-reduce" else 1.0
    ranks = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = np.clip(np.asarray(local, dtype=float), 1.0, ranks)
    nodes = np.ceil(ranks / local)
    size = np.asarray(payload, dtype=float) * np.ones_like(ranks)
    times = np.asarray(calls, dtype=float) * np.ones_like(ranks)
    intra = factor * (local - 1.0) / local * size * times
    inter = factor * (nodes - 1.0) / nodes * size / local * times
    seconds = np.asarray(intra / hw.intra_bw + inter / hw.inter_bw_per_gpu, dtype=float)
    return Collective(name, kind, size, times, intra, inter, seconds, overlap)


def allreduce_time(size: np.ndarray | float, ranks: np.ndarray, hw: Hardware) -> np.ndarray:
    """Hierarchical ring all-reduce of `size` bytes over `ranks` GPUs packed into nodes."""
    ranks = np.asarray(ranks, dtype=float)
    return _group_collective("", "all-reduce", size, 1.0, ranks, np.minimum(ranks, hw.gpus_per_node), hw, "none").seconds


def communication_plan(
    strategy: str, w: Workload, hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, mb: np.ndarray, micro: np.ndarray,
    vpp: np.ndarray | float = 1.0, cp: np.ndarray | float = 1.0,
) -> list[Collective]:
    """Every collective one optimizer step needs, per GPU, for this strategy (estimators-notes §4, §5, §8)."""
    g = hw.gpus_per_node
    local_all = np.minimum(n, g)
    plan: list[Collective] = []
    # Without expert parallelism every parameter is a dense one to the collectives: FSDP/ZeRO shard and gather all of a
    # mixture of experts' weights, and DDP reduces all of its gradients. Only Megatron spreads experts (below).
    grads = w.grad_bytes * w.params
    sp = spec(strategy)
    if sp.gradient_sync == "all-reduce-per-step":
        # DDP (with no_sync) and ZeRO-1 accumulate locally and reduce once per optimizer step; ZeRO-1's reduce-scatter +
        # all-gather move the same 2P as one all-reduce (Ultra-Scale Playbook).
        name = "gradient all-reduce" if sp.states == "replicated" else "gradient reduce-scatter + parameter all-gather"
        plan.append(_group_collective(name, "all-reduce", grads, 1.0, n, local_all, hw, "backward"))
    elif sp.gradient_sync == "reduce-scatter-per-micro-batch":
        # DeepSpeed's ZeRO-2 engine reduces gradients into their owner's partition in the backward of every micro-step
        # (stage_1_and_2.py: reduce_ipg_grads from the backward hooks), so accumulation does not cut its traffic; the
        # updated 16-bit parameters are all-gathered once per optimizer step.
        plan.append(_group_collective("gradient reduce-scatter (every micro-batch)", "reduce-scatter", grads, micro, n, local_all, hw, "backward"))
        plan.append(_group_collective("parameter all-gather", "all-gather", 2.0 * w.params, 1.0, n, local_all, hw, "backward"))
    elif sp.gradient_sync == "sharded-params":
        params16 = 2.0 * w.params
        plan.append(_group_collective("parameter all-gather (forward and backward)", "all-gather", params16, 2.0 * micro, n, local_all, hw, "compute"))
        plan.append(_group_collective("gradient reduce-scatter", "reduce-scatter", grads, micro, n, local_all, hw, "compute"))
        if sp.offload:
            # ZeRO-Offload's schedule (arXiv:2101.06840 Sec 4.1): gradient shards go to the CPU, Adam runs there, and the
            # updated 16-bit parameters come back before the next forward — on the critical path once per step; with
            # offload_param the parameter shards also cross PCIe for every forward and backward, behind compute.
            shard = 2.0 * w.params / n
            zeros = np.zeros_like(n)
            step_bytes = 2.0 * shard
            plan.append(Collective("optimizer step over PCIe (gradients out, parameters back)", "pcie", step_bytes, np.ones_like(n),
                                   zeros, zeros, step_bytes / hw.host_bw, "none"))
            # The Adam update itself runs on the host, bound by its memory bandwidth: each node updates its GPUs' shards.
            per_node = np.minimum(n, g)
            cpu_s = CPU_ADAM_BYTES_PER_PARAM * w.params / n * per_node / HOST_MEMORY_BW
            plan.append(Collective("CPU Adam step (host memory)", "cpu", zeros, np.ones_like(n), zeros, zeros, cpu_s, "none"))
            fetch = 2.0 * micro * shard
            plan.append(Collective("parameter fetch from CPU over PCIe", "pcie", shard, 2.0 * micro, zeros, zeros, fetch / hw.host_bw, "compute"))
    else:  # megatron-3d
        dp = n / (tp * pp)
        dp_local = np.clip(g / (tp * pp), 1.0, dp)
        shard = w.grad_bytes * w.comm_params / (tp * pp)
        plan.append(_group_collective("data-parallel gradient all-reduce", "all-reduce", shard, 1.0, dp, dp_local, hw, "backward"))
        # Tensor parallelism: 2 all-reduces forward and 2 backward per layer per micro-batch of s·b·h 16-bit values
        # (Korthikanti et al. 2022 Sec 4.2.2; sequence parallelism swaps each for a reduce-scatter + all-gather of the
        # same volume), inside the node. The slowest stage holds ceil(layers / PP) layers.
        tp_msg = 2.0 * w.seq_len / cp * mb * w.shape.hidden * w.act_scale
        tp_calls = micro * np.ceil(w.shape.layers / pp) * 4.0
        plan.append(_group_collective("tensor-parallel all-reduce", "all-reduce", tp_msg, tp_calls, tp, tp, hw, "none"))
        # Pipeline: activations forward and their gradients backward at each stage boundary, s·b·h per micro-batch
        # (Ultra-Scale Playbook), split across the TP ranks (Megatron's scatter/gather), over the network; an interleaved
        # schedule crosses v times as many boundaries (Narayanan et al. 2021 Sec 2.2.2).
        p2p = 2.0 * w.seq_len / cp * mb * w.shape.hidden * w.act_scale / tp
        p2p_calls = np.where(pp > 1, 2.0 * micro * vpp, 0.0)
        net = p2p * p2p_calls
        plan.append(Collective("pipeline send/recv", "send/recv", p2p, p2p_calls, np.zeros_like(n), net, net / hw.inter_bw_per_gpu, "none"))
        # Context parallelism (ring attention): each rank passes its chunk's keys and values round the CP ring, once
        # forward and twice backward per layer, overlapped with the attention it feeds (Llama 3 Sec 3.3.2; Ultra-Scale
        # Playbook, context parallelism). Keys and values counted at full width (no grouped-query saving assumed).
        kv = 2.0 * 2.0 * w.seq_len / cp * mb * w.shape.hidden / tp * w.act_scale
        cp_calls = np.where(cp > 1, 3.0 * micro * np.ceil(w.shape.layers / pp), 0.0)
        moved = kv * (cp - 1.0) * cp_calls
        in_node = tp * cp <= hw.gpus_per_node
        cp_intra, cp_inter = np.where(in_node, moved, 0.0), np.where(in_node, 0.0, moved)
        plan.append(Collective("context-parallel K/V exchange", "send/recv", kv * np.ones_like(n), cp_calls * np.ones_like(n),
                               cp_intra * np.ones_like(n), cp_inter * np.ones_like(n),
                               cp_intra / hw.intra_bw + cp_inter / hw.inter_bw_per_gpu, "compute"))
        if w.is_moe:
            # Expert parallelism: dispatch and combine each token's hidden state to its top-k experts, forward and backward;
            # under sequence parallelism each TP rank routes 1/TP of the tokens. DeepSeek-V3's DualPipe overlaps this
            # all-to-all with computation (arXiv:2412.19437 Sec 3.2.1).
            tokens = w.seq_len * mb / tp
            msg = w.moe_top_k * tokens * w.shape.hidden * 2.0 * w.act_scale
            calls = 4.0 * np.ceil(w.shape.layers / pp) * micro
            ep = np.maximum(dp, 1.0)
            off_node = ep * tp * pp > hw.gpus_per_node
            moved = msg * calls * (ep - 1.0) / ep
            intra = np.where(off_node, 0.0, moved)
            inter = np.where(off_node, moved, 0.0)
            plan.append(Collective("expert all-to-all", "all-to-all", msg * np.ones_like(n), calls * np.ones_like(n), intra, inter,
                                   intra / hw.intra_bw + inter / hw.inter_bw_per_gpu, "compute"))
    return plan


def exposed_communication(plan: list[Collective], compute: np.ndarray) -> np.ndarray:
    """Communication left on the critical path after each collective hides behind what it may overlap."""
    total: dict[str, Any] = {"none": 0.0, "backward": 0.0, "compute": 0.0}
    for c in plan:
        total[c.overlap] = total[c.overlap] + c.seconds
    return (
        total["none"]
        + np.maximum(0.0, total["backward"] - OVERLAP_BACKWARD * compute)
        + np.maximum(0.0, total["compute"] - compute)
    )


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


def model_state_bytes(strategy: str, w: Workload, gpus: np.ndarray, tp: np.ndarray, pp: np.ndarray, gpus_per_node: int = 8) -> np.ndarray:
    """Parameters + gradients + optimizer states per GPU, by each strategy's published formula.

    ZeRO-2/3 and offload are DeepSpeed's own estimators (dsmem.py), evaluated elementwise.
    """
    P = w.params
    n = gpus.astype(float)
    ll = w.largest_layer
    states = spec(strategy).states
    if states == "replicated":
        return np.full_like(n, 16.0 * P)
    if states == "fsdp":
        return 16.0 * P / n + 2.0 * 2.0 * ll
    if states == "zero1":
        return 4.0 * P + 12.0 * P / n
    if states == "deepspeed-estimator":
        return _deepspeed(strategy, w, n, gpus_per_node)[1]
    if states == "megatron":
        dp = n / (tp * pp)
        # Megatron's 6 + 12/DP bytes: 16-bit weights and fp32 gradients replicated across data-parallel ranks, the
        # optimizer sharded. Under expert parallelism the experts' weights and gradients are spread over the
        # data-parallel ranks too (one expert group per rank at most), so only the active share is replicated.
        replicated = w.active_params + (P - w.active_params) / dp
        return (6.0 * replicated + 12.0 * P / dp) / (tp * pp) * stage_factor(w, pp)
    raise ValueError(f"unknown strategy {strategy!r}")


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
    if spec(strategy).states != "deepspeed-estimator":
        return np.zeros(gpus.shape)
    return _deepspeed(strategy, w, gpus.astype(float), hw.gpus_per_node)[0]


# ------------------------------------------------------------------------------ megatron layout

_TP_CHOICES = (1, 2, 4, 8)
MAX_PIPELINE_STAGES = 128
"""Deepest pipeline tried; Megatron-LM 2021 Table 1 goes to 64 stages, MT-NLG used 35 (arXiv:2201.11990)."""

VIRTUAL_STAGE_CHOICES = (1, 2, 4, 8)
"""Interleaved 1F1B: each GPU holds v model chunks and the bubble shrinks v-fold (Narayanan et al. 2021 Sec 2.2.2)."""

MEMORY_HEADROOM = 0.9
"""Layouts are chosen among those that leave 10% of GPU memory free (fragmentation, NCCL buffers; issue 10)."""


SHALLOW_PIPELINES = 16
"""Every depth up to 16 is tried, so a GPU count like 10,000 (2^4 x 5^4) still finds a layout that divides it."""


def pipeline_choices(layers: int) -> tuple[int, ...]:
    """Pipeline depths tried: every depth up to 16, every divisor of the layer count and every power of two, up to 128.

    Stages need not be even: Llama 3 405B put 126 layers on 16 stages (arXiv:2407.21783 Sec 3.3.2), and Megatron-LM
    takes uneven first and last stages (--decoder-first/last-pipeline-num-layers); the slowest stage sets the pace.
    """
    top = min(layers, MAX_PIPELINE_STAGES)
    powers = {1 << k for k in range(8) if (1 << k) <= top}
    shallow = set(range(1, min(top, SHALLOW_PIPELINES) + 1))
    return tuple(sorted(powers | shallow | {p for p in range(1, top + 1) if layers % p == 0}))


def stage_factor(w: Workload, pp: np.ndarray | float) -> np.ndarray:
    """Slowest (fullest) stage against an even split: ceil(L/PP) x PP / L, 1 when the layers divide evenly."""
    pp = np.asarray(pp, dtype=float)
    return np.ceil(w.shape.layers / pp) * pp / w.shape.layers


def interleave_memory_factor(pp: np.ndarray, vpp: np.ndarray) -> np.ndarray:
    """Activations the first stage holds under interleaving: 1 + (PP-1)/(PP·v) of a plain 1F1B's (estimators-notes §6)."""
    return np.where(vpp > 1, 1.0 + (pp - 1.0) / (pp * vpp), 1.0)


# ------------------------------------------------------------------------------ the estimate


@dataclass
class StrategyEstimate:
    """One strategy over an array of GPU counts. Arrays have the shape of ``gpus``."""

    strategy: str
    gpus: np.ndarray
    recompute: np.ndarray
    recompute_code: np.ndarray
    model_states: np.ndarray
    activations: np.ndarray
    memory: np.ndarray
    cpu_per_node: np.ndarray
    fits: np.ndarray
    cpu_fits: np.ndarray
    batch_ok: np.ndarray
    """Every data-parallel rank gets at least one sequence of the global batch (else the batch would have to grow)."""
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
    vpp: np.ndarray
    ep: np.ndarray
    cp: np.ndarray
    micro_batch: np.ndarray
    batch_tokens: np.ndarray
    """Tokens per optimizer step: the global batch as given, at every GPU count."""
    interruption_factor: np.ndarray
    collectives: list[Collective]

    @property
    def communication_share(self) -> np.ndarray:
        step = self.step_s["mid"]
        return np.where(step > 0, self.exposed_comm_s / step, 0.0)

    def at(self, i: int) -> StrategyEstimate:
        """This estimate at one GPU count (index i), as one-element arrays."""
        cut = slice(i, i + 1)
        fields: dict[str, Any] = {}
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                fields[name] = value[cut]
            elif isinstance(value, dict):
                fields[name] = {k: v[cut] for k, v in value.items()}
            elif name == "collectives":
                fields[name] = [Collective(c.name, c.kind, c.payload[cut], c.calls[cut], c.intra_bytes[cut], c.inter_bytes[cut],
                                           c.seconds[cut], c.overlap) for c in value]
            else:
                fields[name] = value
        return StrategyEstimate(**fields)

    @property
    def usable(self) -> np.ndarray:
        """Fits in GPU memory, in host memory where it offloads, and the batch feeds every rank."""
        return self.fits & self.cpu_fits & self.batch_ok


PARTIAL_RECOMPUTE: dict[str, float] = dict(zip(PARTIAL_RECOMPUTE_NAMES, (0.25, 0.5, 0.75), strict=True))
"""Full recomputation of only some layers, the rest selective: Megatron-LM's --recompute-method block
--recompute-num-layers (Korthikanti et al. 2022 Sec 5: recompute only as many layers as memory needs); FSDP can wrap a
subset of blocks the same way (apply_activation_checkpointing's check_fn)."""


RECOMPUTE_CODE: dict[str, float] = {"none": -1.0, "selective": 0.0, **PARTIAL_RECOMPUTE, "full": 1.0}
"""Each recomputation as a number: -1 none, else the share of layers fully recomputed (the rest selective)."""
_RECOMPUTE_NAME = {v: k for k, v in RECOMPUTE_CODE.items()}


def _recompute_modes(w: Workload) -> tuple[str, ...]:
    """Least recomputation first: the first that fits a layout is its fastest."""
    return ("selective", *PARTIAL_RECOMPUTE, "full") if w.recompute == "auto" else (w.recompute,)


@dataclass
class _Eval:
    """One candidate configuration (per GPU count) before the choice: what the choice compares."""

    states: np.ndarray
    act: np.ndarray
    memory: np.ndarray
    dp: np.ndarray
    share: np.ndarray
    accumulation: np.ndarray
    compute: dict[str, np.ndarray]
    bubble: np.ndarray
    plan: list[Collective]
    exposed: dict[str, np.ndarray]
    step: dict[str, np.ndarray]


def _activations(strategy: str, w: Workload, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray, code: np.ndarray, mb: np.ndarray) -> np.ndarray:
    """Activation bytes per GPU for recomputation ``code`` (RECOMPUTE_CODE): the fullest pipeline stage under Megatron."""
    sp = spec(strategy).model_parallel  # sequence parallelism comes with Megatron's tensor parallelism
    f = np.clip(code, 0.0, 1.0)
    selective = activation_bytes(w, "selective", tp, seq_parallel=sp, micro_batch=mb)
    act = (1.0 - f) * selective + f * activation_bytes(w, "full", tp, seq_parallel=sp, micro_batch=mb)
    if np.any(code < 0):
        act = np.where(code < 0, activation_bytes(w, "none", tp, seq_parallel=sp, micro_batch=mb), act)
    if sp:
        act = act * stage_factor(w, pp) * interleave_memory_factor(pp, vpp)
    return act


def _evaluate(strategy: str, w: Workload, hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray,
              code: np.ndarray, mb: np.ndarray, cp: np.ndarray | float = 1.0) -> _Eval:
    """Memory and step time of one configuration per GPU count; ``code`` holds each count's recomputation.

    Context parallelism (``cp``) splits every sequence over cp ranks: activations and compute divide by cp, weights
    replicate across them, and the distributed optimizer shards over data x context ranks (n / (TP x PP) below).
    """
    states = model_state_bytes(strategy, w, n, tp, pp, hw.gpus_per_node)
    act = _activations(strategy, w, tp, pp, vpp, code, mb) / cp
    full_share = np.clip(code, 0.0, 1.0)
    sp = spec(strategy).model_parallel  # sequence parallelism comes with Megatron's tensor parallelism
    memory = states + act + CUDA_OVERHEAD_BYTES
    dp = n / (tp * pp * cp)
    seqs = float(w.global_batch_seqs)
    # Each data-parallel rank runs its share of the batch; where ranks do not divide it, the busiest rank sets the pace.
    share = np.ceil(seqs / dp)
    accumulation = np.maximum(1.0, np.ceil(share / mb))
    rf = np.where(code < 0, 1.0, (1.0 - full_share) * SELECTIVE_RECOMPUTE_FLOPS + full_share * FULL_RECOMPUTE_FLOPS)
    work = w.flops_per_token * share * w.seq_len * rf / (tp * pp * cp) * (stage_factor(w, pp) if sp else 1.0)
    band = mfu_band(hw.spec.generation)
    peak = hw.spec.peak_tflops * 1e12
    bubble = np.where(pp > 1, (pp - 1.0) / (vpp * accumulation), 0.0)
    plan = communication_plan(strategy, w, hw, n, tp, pp, mb, accumulation, vpp, cp)
    compute, exposed, step = {}, {}, {}
    for name, mfu in (("low", band.high), ("mid", band.mid), ("high", band.low)):
        compute[name] = work / (peak * mfu)
        exposed[name] = exposed_communication(plan, compute[name])
        step[name] = compute[name] * (1.0 + bubble) + exposed[name]
    return _Eval(states, act, memory, dp, share, accumulation, compute, bubble, plan, exposed, step)


MIN_HIDDEN_PER_TP_RANK = 768
"""Every layout in Megatron-LM 2021 Table 1 keeps at least 768 columns of the hidden size per tensor-parallel rank
(18.4B: 6,144 / TP 8; 7.5B: 4,096 / TP 4; 1.7B runs TP 1): thinner slices make GEMMs too small to keep a GPU busy,
which the compute model does not otherwise see."""


CONTEXT_PARALLEL_FROM = 16_384
"""Context parallelism is tried from 16K-token sequences: Llama 3 405B trained 8K sequences with CP1 and 128K with
CP16 (arXiv:2407.21783 Table 4); the Ultra-Scale Playbook adds it 'for long sequences'."""

CP_CHOICES = (1, 2, 4, 8, 16)


def _layouts(w: Workload, hw: Hardware) -> list[tuple[int, int, int, int]]:
    """(TP, CP, PP, v) candidates: TP inside a node and not thinner than Megatron's published layouts; CP only for long
    sequences, each rank keeping at least 1,024 tokens; v > 1 only where each virtual stage keeps at least one layer."""
    cps = [c for c in CP_CHOICES if c == 1 or (w.seq_len >= CONTEXT_PARALLEL_FROM and w.seq_len // c >= 1024)]
    out = []
    for pp in pipeline_choices(w.shape.layers):
        for tp in _TP_CHOICES:
            if tp > hw.gpus_per_node or (tp > 1 and w.shape.hidden / tp < MIN_HIDDEN_PER_TP_RANK):
                continue
            for cp in cps:
                for v in VIRTUAL_STAGE_CHOICES:
                    if v == 1 or (pp > 1 and pp * v <= w.shape.layers):
                        out.append((tp, cp, pp, v))
    return out


def estimate_strategy(
    strategy: str, w: Workload, hw: Hardware, gpus: np.ndarray, tokens: float, like: StrategyEstimate | None = None
) -> StrategyEstimate:
    """Memory, time and fit for one strategy at every GPU count in ``gpus``.

    Data-parallel strategies take the recomputation and micro-batch with the shortest modelled step that fit (seed:K10:
    memory and speed trade against each other; seed:K17: memory limits the batch). Megatron takes the layout — TP x PP x v
    and recomputation — with the shortest modelled step among those that fit with 10% headroom and keep the batch.
    ``like``: where that estimate fits, take its recomputation and micro-batch (CPU offload is priced as what it is, a
    way to buy memory GPU-resident ZeRO-3 lacks, not a way to change the step: so it is never faster where ZeRO-3 fits).
    """
    n = np.asarray(gpus, dtype=float)
    mem_cap = hw.spec.memory_gb * GB
    modes = _recompute_modes(w)
    seqs = float(w.global_batch_seqs)
    ones = np.ones_like(n)
    if spec(strategy).model_parallel:
        candidates = [(tp, pp, v, w.micro_batch or 1, cp) for tp, cp, pp, v in _layouts(w, hw)]
    else:
        micro = (w.micro_batch,) if w.micro_batch else MICRO_BATCH_CHOICES
        candidates = [(1, 1, 1, b, 1) for b in micro]
    codes = [RECOMPUTE_CODE[m] for m in modes]
    # Every candidate at every GPU count at once: counts down axis 0, candidates along axis 1 (in chunks of counts, so
    # a sweep of thousands of counts stays within a few MB per array). For a fixed layout, less recomputation is always
    # faster, so memory alone picks each candidate's recomputation and one timing pass compares the candidates.
    c_tp, c_pp, c_v, c_mb, c_cp = (np.array([c[i] for c in candidates], dtype=float)[None, :] for i in range(5))
    room = (MEMORY_HEADROOM if spec(strategy).model_parallel else 1.0) * mem_cap
    rank = np.arange(len(candidates), dtype=float)[None, :]
    best = np.zeros(n.shape, dtype=int)
    best_code = np.zeros(n.shape)
    chunk = max(1, 100_000 // len(candidates))
    for lo in range(0, n.size, chunk):
        nn = n.ravel()[lo:lo + chunk][:, None]
        states = model_state_bytes(strategy, w, nn, c_tp, c_pp, hw.gpus_per_node)
        code = np.full(np.broadcast_shapes(nn.shape, c_tp.shape), codes[-1])
        for c in codes[-2::-1]:  # from the most recomputation down: the least that fits wins
            fits_c = states + _activations(strategy, w, c_tp, c_pp, c_v, np.asarray(c, dtype=float), c_mb) / c_cp + CUDA_OVERHEAD_BYTES <= room
            code = np.where(fits_c, c, code)
        useful = np.ones(code.shape, dtype=bool)
        if like is not None:
            # Where the GPU-resident twin fits, take its recomputation and micro-batch.
            lf, lc, lm = (x.ravel()[lo:lo + chunk][:, None] for x in (like.fits, like.recompute_code, like.micro_batch))
            code = np.where(lf, lc, code)
            useful = ~lf | (lm == c_mb)
        ev = _evaluate(strategy, w, hw, nn, c_tp, c_pp, c_v, code, c_mb, c_cp)
        divides = (np.mod(nn, c_tp * c_pp * c_cp) == 0) & (nn >= c_tp * c_pp * c_cp)
        fits = ev.memory <= mem_cap
        useful &= (np.mod(ev.share, c_mb) == 0) | (c_mb == 1)  # micro-batch x accumulation = each rank's share, exactly
        if spec(strategy).model_parallel:
            # Lexicographic: fits with headroom and keeps the batch, then fits, then least memory; within a tier the
            # shortest step wins.
            roomy = ev.memory <= MEMORY_HEADROOM * mem_cap
            feeds = ev.dp <= seqs
            tier = np.select([divides & roomy & feeds, divides & fits & feeds, divides & fits, divides], [0, 1, 2, 3], 9)
            key = tier * 1e12 + np.where(tier < 3, ev.step["mid"], ev.memory / GB)
        else:
            # The fastest micro-batch that fits; where none fits, the least memory. On a slow link a larger micro-batch
            # under more recomputation can beat many small micro-batches (ZeRO-3/FSDP re-gather for every micro-batch).
            key = np.where(fits & useful, ev.step["mid"], np.where(useful, 1e12 + ev.memory / GB, 9e12))
        key = key + rank * 1e-9  # equal keys: the earlier candidate
        pick_c = np.argmin(key, axis=1)
        best.ravel()[lo:lo + chunk] = pick_c
        best_code.ravel()[lo:lo + chunk] = np.take_along_axis(code * np.ones_like(key), pick_c[:, None], axis=1)[:, 0]
    tp, pp, vpp, mb, cp = (c[0, best] for c in (c_tp, c_pp, c_v, c_mb, c_cp))
    ev = _evaluate(strategy, w, hw, n, tp, pp, vpp, best_code, mb, cp)
    fits = ev.memory <= mem_cap
    cpu = cpu_bytes_per_node(strategy, w, n, hw)
    cpu_fits = np.ones(n.shape, dtype=bool) if hw.cpu_memory_per_node is None else cpu <= hw.cpu_memory_per_node
    batch_ok = ev.dp <= seqs

    # Largest micro-batch that would fit (seed:K17 "is GPU memory limiting the batch size?").
    per_sample = ev.act / mb
    headroom = mem_cap - ev.states - CUDA_OVERHEAD_BYTES
    max_mb = np.where(per_sample > 0, np.floor(np.maximum(headroom, 0) / per_sample), 0)

    batch_tokens = np.full(n.shape, seqs * w.seq_len)
    overhead = interruption_overhead(n)
    hours = {band: ev.step[band] * (tokens / batch_tokens) * overhead / 3600.0 for band in ev.step}
    comm = sum((c.seconds for c in ev.plan), np.zeros_like(n))
    ep = np.where(w.is_moe & spec(strategy).model_parallel, ev.dp, 1.0) * ones
    return StrategyEstimate(
        strategy=strategy, gpus=n, recompute=np.array([_RECOMPUTE_NAME[float(c)] for c in best_code.ravel()], dtype=object).reshape(n.shape),
        recompute_code=best_code, model_states=ev.states, activations=ev.act, memory=ev.memory,
        cpu_per_node=cpu, fits=fits, cpu_fits=cpu_fits, batch_ok=batch_ok, compute_s=ev.compute["mid"], comm_s=comm,
        exposed_comm_s=ev.exposed["mid"], bubble_s=ev.compute["mid"] * ev.bubble, step_s=ev.step, hours=hours,
        accumulation=ev.accumulation, max_micro_batch=max_mb, tp=tp, pp=pp, vpp=vpp, ep=ep, cp=cp, micro_batch=mb,
        batch_tokens=batch_tokens, interruption_factor=overhead, collectives=ev.plan,
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
    results: dict[str, StrategyEstimate] = {}
    for s in STRATEGIES:
        twin = spec(s).resident_twin
        like = results[twin] if twin else None
        results[s] = estimate_strategy(s, w, hw, counts, tokens, like)
    tokens_implied = False
    conflict: dict[str, float] | None = None
    if baseline is not None:
        # The known duration is the truth for the team's current strategy at its GPU count: scale
        # every strategy by its modelled time ratio to that one, band by band.
        current = answers.training.current_strategy
        if gpus is None:
            ref_hours = {band: results[current].hours[band].copy() for band in results[current].hours}
        else:
            here = np.asarray([answers.cluster.gpus], dtype=float)
            twin = spec(current).resident_twin
            like = estimate_strategy(twin, w, hw, here, tokens) if twin else None
            ref_hours = estimate_strategy(current, w, hw, here, tokens, like).hours
        for est in results.values():
            for band in est.hours:
                est.hours[band] = baseline * est.hours[band] / ref_hours[band][0]
        implied = tokens * baseline / ref_hours["mid"][0]
        if answers.training.tokens is None:
            tokens = implied
            tokens_implied = True
        elif not 1 / TOKENS_DURATION_TOLERANCE <= implied / tokens <= TOKENS_DURATION_TOLERANCE:
            # Both given and they disagree: the measured run is what the team sees, so time follows it and the step
            # count follows the tokens it implies; the advice says which answer to check.
            conflict = {"tokens_given": float(tokens), "tokens_implied": float(implied),
                        "hours_for_given_tokens": float(ref_hours["mid"][0])}
            tokens = implied
        for est in results.values():
            # Scaling band by band can cross the bands over (one strategy communication-bound where the baseline is not):
            # the range is whatever the bands span, low first.
            bands = np.stack([est.hours["low"], est.hours["mid"], est.hours["high"]])
            est.hours["low"], est.hours["high"] = bands.min(axis=0), bands.max(axis=0)
    ctx = {"workload": w, "hardware": hw, "tokens": float(tokens), "tokens_implied": tokens_implied, "baseline_hours": baseline,
           "tokens_conflict": conflict}
    return results, ctx


TOKENS_DURATION_TOLERANCE = 1.5
"""Given tokens and a known duration that imply each other within 1.5x agree (the MFU band itself spans about that)."""


def cost(hours: np.ndarray | float, price: float, gpus: np.ndarray | float) -> np.ndarray:
    """seed:K14 — cost = training time x price per GPU-hour x number of GPUs."""
    return np.asarray(hours, dtype=float) * price * np.asarray(gpus, dtype=float)
