"""Collectives: every transfer one optimizer step needs, priced by the ring formulas over NVLink/PCIe and the network."""

from __future__ import annotations

from msgspec import Struct
from functools import lru_cache
from typing import Any

import numpy as np

from advisor.base.i18n import N_
from advisor.knowledge.strategies import POWERSGD_MIN_COMPRESSION_RATE, POWERSGD_WARMUP_SHARE, spec
from advisor.estimate.finetune import is_peft
from advisor.estimate.layout import expert_degree
from advisor.estimate.workload import CPU_ADAM_BYTES_PER_PARAM, FP8_ALLGATHER_BYTES, GB, HOST_MEMORY_BW, Hardware, OVERLAP_BACKWARD, Workload


QWZ_BYTES = 1.0
"""Bytes per parameter of ZeRO++'s forward weight all-gather: block-quantised INT8 instead of FP16 (DeepSpeed ZeRO++
tutorial: 'qwZ ... reduce ZeRO parameter all-gather communication volume by half from FP16 to INT8')."""

QGZ_BYTES = 0.5
"""Bytes per parameter of ZeRO++'s gradient averaging: INT4 (arXiv:2306.10209 Sec 3.3, qgZ: 0.25M across nodes of
ZeRO-3's M; with qwZ's 0.5M and hpZ's 0, the 4x cut of the DeepSpeed ZeRO++ tutorial)."""


# ------------------------------------------------------------------------------ collectives

ATTENTION = "attention"
"""Overlap of context parallelism's K/V exchange: each ring step's send/recv hides behind the attention computation of
the chunk already received, and nothing else (TransformerEngine AttnFuncWithCPAndKVP2P overlaps the P2P of step i+1
with the flash-attention of step i; the Ultra-Scale Playbook's ring attention). exposed = max(0, exchange - attention
compute): at 8K, where attention is a small share of the FLOPs, the exchange shows (issue 32: over-prediction grew with
the CP degree while the exchange was hidden behind all compute)."""

EXPERT_OVERLAPPED = "expert-overlap"
"""Overlap of the expert all-to-all where the layout overlaps it (Hardware.ep_overlap: DualPipe, Megatron-Core's 1F1B
all-to-all overlap). It hides behind the other micro-batch's computation, but not wholly and not for free
(arXiv:2603.07685 Sec 4.2.3, DeepSeek-V3 on H100): 'DeepEP uses 20 SMs per GPU and introduces roughly 20% GEMM-efficiency
overhead', and with the overlap a '93% overlap ratio'. So EP_OVERLAP_RATIO of it hides (with the step's other
overlapped traffic, behind all computation) and the rest waits; the computation it hides behind runs EP_OVERLAP_SM_COST
slower for as long as it is hidden."""

EP_OVERLAP_RATIO = 0.93
"""Share of an overlapped expert all-to-all that hides: arXiv:2603.07685 Sec 4.2.3, '93% overlap ratio'."""

EP_OVERLAP_SM_COST = 0.20
"""Slowdown of the computation an overlapped all-to-all runs beside: its kernels hold SMs (DeepEP 20 of the H100's
132; DeepSeek-V3 arXiv:2412.19437 Sec 3.2.2 gives the same 20 SMs to communication): arXiv:2603.07685 Sec 4.2.3,
'roughly 20% GEMM-efficiency overhead'."""

TENSOR_OVERLAP = "tensor-gemm"
"""Overlap of the tensor-parallel collectives where the layout overlaps them with the GEMMs that produce and consume
them: Megatron-LM --tp-comm-overlap (TransformerEngine userbuffers) and torchtitan's AsyncTP (torch.compile +
SymmetricMemory) split each all-gather/reduce-scatter + GEMM into TP chunks and run chunk i's transfer behind chunk
i-1's GEMM, so the first (local) chunk hides nothing: the collectives hide behind (TP-1)/TP of the linear layers'
compute, never behind attention (exposed_communication's ``gemm``). Both run on NVLink Hopper and newer
(Hardware.tp_overlap); torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md measures 1.09-1.16x over vanilla
TP on 64-256 H100. Without overlap the collectives sit on the critical path ('none')."""

ASYNC_TP_FORWARD_SHARE = 0.5
"""The share of the tensor-parallel collectives torchtitan's AsyncTP overlaps: those of the forward pass, 2 of the 4 per
layer (Hardware.tp_overlap_forward_only). PyTorch's post introducing it (discuss.pytorch.org/t/209487, '[Distributed w/
TorchTitan] Introducing Async Tensor Parallelism in PyTorch') measured 'up to ~29% forward pass speedup and ~8% E2E
speedup' on Llama 3 8B: a forward 1.29x faster hides 22.5% of the forward's time; with the backward's matmuls twice the
forward's and the same collectives, hiding the forward's alone takes 0.225 / 2.775 = 8.1% off the step (E2E 1.09x),
hiding both would take 16% (1.19x). Megatron's --tp-comm-overlap (TransformerEngine userbuffers) overlaps both."""

EXPERT_OVERLAP = ("Megatron-Core MoE README (megatron/core/transformer/moe/README.md): the token dispatcher's all-to-all "
                  "runs between the router and the experts unless --overlap-moe-expert-parallel-comm overlaps it with "
                  "another micro-batch's computation; DeepSeek-V3 (arXiv:2412.19437 Sec 3.2.1) hides it with DualPipe; "
                  "NVIDIA's Megatron MoE model zoo measures Qwen3-235B on 256 H100s at 19.7 s per step without and 17.6 s "
                  "with that overlap (bench/heldout_runs.yaml megatron-moe-modelzoo-h100)")
"""Why the expert all-to-all is on the critical path by default (Hardware.ep_overlap): dispatch feeds the experts and
combine feeds the next layer, so in a plain schedule nothing runs beside them (issue 32: priced as hidden behind all
computation, the published MoE runs came out 1.39x faster than published in median)."""


EXPERT_A2A_SPLIT = ("arXiv:2603.07685 (Scalable Training of MoE Models with Megatron Core) Table 7: the standard all-to-all "
                    "dispatch of DeepSeek-V3's hidden 7,168, sequence 4,096, 256 experts on H100 takes 1,265 us at EP8, "
                    "5,774 at EP16, 8,059 at EP32 and 9,164 at EP64: it grows with the share of ranks off the node "
                    "((EP - 8) / EP), not as if every copy crossed the network once EP leaves the node")
"""Why only the EP ranks outside a GPU's node are priced on the network (_expert_all_to_all): priced the other way, EP16
on H100 took 9,787 us a dispatch against the published 5,774; split by where the ranks are, 5,922 (EP8 1,405, EP32 8,181,
EP64 9,310 against 1,265, 8,059 and 9,164; GB200 in one NVL72 domain 703-790 against 735-930)."""


def distinct_destinations(destinations: np.ndarray | float, top_k: np.ndarray | float) -> np.ndarray:
    """Expected distinct destinations among a token's top-k experts spread evenly over ``destinations`` GPUs or nodes:
    D (1 - (1 - 1/D)^k). DeepEP sends a token once per destination GPU over NVLink and once per destination node over
    RDMA, forwarding inside the node (deepseek-ai/DeepEP README; DeepSeek-V3 Sec 3.2.2), where the plain all-to-all
    sends one copy per chosen expert."""
    d = np.maximum(np.asarray(destinations, dtype=float), 1.0)
    return d * (1.0 - (1.0 - 1.0 / d) ** top_k)


def routed_destinations(bins: np.ndarray | float, top_k: np.ndarray | float, groups: int = 1,
                        groups_per_token: int = 1) -> np.ndarray:
    """Expected distinct bins (the GPUs, or the nodes, of an expert-parallel group; experts laid out over them in order)
    that a token's top-k experts reach when routing is group-limited (Workload.expert_groups): its experts lie in
    ``groups_per_token`` of ``groups`` equal groups. Where a bin holds g/b >= 1 groups, a bin is missed by all t chosen
    groups with probability C(g - g/b, t) / C(g, t), so t groups touch b (1 - that) bins, each chosen group holding some
    of the k experts (DeepSeek-V3's group score is its top-2 experts' sum: arXiv:2412.19437 Sec 2.1.2); where a group
    spans b/g bins, the k experts spread over the t x b/g bins the chosen groups cover (distinct_destinations). Without
    groups this is distinct_destinations. DeepSeek-V3 on EP64 over 8 nodes: 4 nodes, where 8 free picks reach 5.25."""
    b = np.maximum(np.asarray(bins, dtype=float), 1.0)
    free = distinct_destinations(b, top_k)
    if groups <= 1 or groups_per_token >= groups:
        return free
    g, t = float(groups), int(groups_per_token)
    per_bin = g / b
    missed = np.ones_like(b)
    for i in range(t):
        missed = missed * np.clip((g - per_bin - i) / (g - i), 0.0, 1.0)
    touched = np.minimum(b * (1.0 - missed), free)
    spread = distinct_destinations(np.maximum(1.0, t * b / g), top_k)
    return np.where(per_bin >= 1.0, touched, spread)


LAST_BACKWARD = "last-backward"

FIRST_FORWARD = "first-forward"
"""Overlap of the distributed optimizer's parameter all-gather: it runs in the forward of the step's first micro-batch
(Megatron-LM --overlap-param-gather), so it hides behind that forward only — 1/3 of one micro-batch's compute."""
"""Overlap of a gradient reduction made once per optimizer step: with gradient accumulation it can hide only behind the
last micro-batch's backward pass. PyTorch DDP skips the all-reduce inside ``no_sync()`` and reduces 'in the first
forward-backward pass exiting the context' (torch.nn.parallel.DistributedDataParallel.no_sync docs); megatron-core's
DistributedDataParallel likewise disables gradient sync for every micro-batch but the last (no_sync_func, with
overlap_grad_reduce hiding the buckets behind that last backward); DeepSpeed reduces at the accumulation boundary
(is_gradient_accumulation_boundary). So exposed = max(0, reduction - last micro-batch's backward), not the whole step's
(issue 32: 16 nodes on 25 Gbit/s were shown '3% exposed')."""


class Collective(Struct):
    """One kind of traffic in an optimizer step, per GPU; arrays have the shape of the GPU counts."""

    name: str
    kind: str
    """all-reduce, reduce-scatter, all-gather, all-to-all, send/recv, pcie or c2c (the GPU's CPU link), cpu."""
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
    """What it can hide behind: 'backward' (every micro-batch's), 'last-backward' (only the last micro-batch's: a
    once-per-step gradient reduction under accumulation), 'warm-up', 'compute' or 'none' (critical path)."""


NCCL_PROTOCOLS = {
    # protocol: (base latency, per-step latency by link, bandwidth kept): NVIDIA/nccl src/graph/tuning.cc, Ring —
    # baseLat { LL 3.6, LL128 10.0, Simple 8.4 } us; hwLat NVLink { .47, 1.9, 3.4 }, PCI { 1.0, 2.5, 5.7 },
    # network { 2.7, 4.0, 9.6 } us; LL keeps 1/4 of the bus bandwidth across nodes (1/3 inside one), LL128 0.92.
    "LL": (3.6e-6, {"nvlink": 0.47e-6, "pcie": 1.0e-6, "net": 2.7e-6}, 0.25),
    "LL128": (10.0e-6, {"nvlink": 1.9e-6, "pcie": 2.5e-6, "net": 4.0e-6}, 0.92),
    "Simple": (8.4e-6, {"nvlink": 3.4e-6, "pcie": 5.7e-6, "net": 9.6e-6}, 1.0),
}
"""NCCL's own cost model for a ring collective: baseLat + (steps - inter steps) x intra hop + inter steps x network hop,
plus bytes over the protocol's bandwidth, and it runs each call on the protocol that makes that smallest
(tuning.cc ncclTopoTuneModel, ncclTopoGetAlgoTime). A ring all-gather or reduce-scatter over n ranks on N nodes takes
n - 1 steps, N - 1 of them over the network (2(n - 1) and 2(N - 1) for an all-reduce): at a thousand ranks that is
milliseconds a call, why 'at 512+ GPUs, DP communication becomes bound by ring latency' (Ultra-Scale Playbook,
../shared/reference/estimators-notes.md) and FSDP / ZeRO-3 over every GPU stop scaling. LL128 runs only where that
file enables it by default: NVLink nodes of Volta or Ampere GPUs (LL128_GENERATIONS)."""

LL128_GENERATIONS = ("volta", "ampere")

NCCL_TREE_HOP_LATENCY = {"nvlink": 28e-6, "pcie": 28e-6, "net": 50e-6}
"""The tree all-reduce's per-hop seconds (tuning.cc hwLat, Tree / Simple: 28 us in the node, 50 us across) over
2 x ((ranks per node - 1) + log2(nodes)) hops, at half the bus bandwidth's algorithm rate; NCCL takes the cheaper of
ring and tree for an all-reduce."""

DDP_BUCKET_BYTES = 25e6
"""PyTorch DDP's gradient bucket: bucket_cap_mb=25 (torch.nn.parallel.DistributedDataParallel): one all-reduce each."""

DEEPSPEED_BUCKET_BYTES = 1e9
"""DeepSpeed ZeRO-1/2's reduce and all-gather buckets: reduce_bucket_size / allgather_bucket_size 5e8 elements (DeepSpeed
config docs), 1 GB of 16-bit values."""

MEGATRON_BUCKET_BYTES = 2.0 * 40e6
"""Megatron-Core's data-parallel bucket: max(40,000,000, 1,000,000 x DP) parameters (megatron/core/distributed
DistributedDataParallelConfig bucket_size default), of 16-bit gradients."""


def nccl_seconds(kind: str, ranks: Any, local: Any, hw: Hardware, bandwidth_s: Any, ops: Any) -> np.ndarray:
    """Seconds of ``ops`` NCCL calls of ``kind`` over ``ranks`` GPUs (``local`` per node) that move, together,
    ``bandwidth_s`` seconds of bytes at full bus bandwidth: each call on its cheapest protocol (NCCL_PROTOCOLS)."""
    ranks = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = np.clip(np.asarray(local, dtype=float), 1.0, ranks)
    ops = np.maximum(np.asarray(ops, dtype=float), 1.0)
    nodes = np.ceil(ranks / local)
    link = "nvlink" if hw.intra_link in ("nvlink", "xgmi", "hccs") else "pcie"
    factor = 2.0 if kind == "all-reduce" else 1.0
    steps, inter_steps = factor * (ranks - 1.0), factor * (nodes - 1.0)
    per_op = np.asarray(bandwidth_s, dtype=float) / ops
    intra_steps = steps - inter_steps
    best: Any = np.inf
    for proto, (base, hop, keep) in NCCL_PROTOCOLS.items():
        if proto == "LL128" and not (link == "nvlink" and hw.spec.generation in LL128_GENERATIONS):
            continue
        kept: Any = np.where(nodes > 1.0, keep, 1.0 / 3.0) if proto == "LL" else keep
        best = np.minimum(best, base + intra_steps * hop[link] + inter_steps * hop["net"] + per_op / kept)
    if kind == "all-reduce":  # the tree: log2(nodes) network hops, half the bus bandwidth's algorithm rate
        tree = 2.0 * ((local - 1.0) * NCCL_TREE_HOP_LATENCY[link] + np.log2(nodes) * NCCL_TREE_HOP_LATENCY["net"]) + per_op
        best = np.where(nodes > 1.0, np.minimum(best, tree), best)
    return np.where(ranks > 1.0, ops * best, 0.0)


def _group_collective(
    name: str, kind: str, payload: np.ndarray | float, calls: np.ndarray | float, ranks: np.ndarray, local: np.ndarray | float, hw: Hardware,
    overlap: str, ops: np.ndarray | float | None = None,
) -> Collective:
    """A hierarchical ring collective over `ranks` GPUs, `local` of them per node, every GPU of a node busy at once.

    Bus factor 2(n-1)/n for all-reduce, (n-1)/n for reduce-scatter and all-gather (nccl-tests PERFORMANCE.md). Across
    nodes, each group member carries 1/local of the payload over its 1/gpus_per_node share of the node's network. Each
    of the ``ops`` NCCL calls it takes per step (``calls`` unless the payload goes in pieces: per layer, per bucket) adds
    its latency, on the protocol NCCL would pick (nccl_seconds).
    """
    factor = 2.0 if kind == "all-reduce" else 1.0
    ranks = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = np.clip(np.asarray(local, dtype=float), 1.0, ranks)
    nodes = np.ceil(ranks / local)
    size = np.asarray(payload, dtype=float) * np.ones_like(ranks)
    times = np.asarray(calls, dtype=float) * np.ones_like(ranks)
    intra = factor * (local - 1.0) / local * size * times
    inter = factor * (nodes - 1.0) / nodes * size / local * times
    launches: Any = times if ops is None else np.asarray(ops, dtype=float) * np.ones_like(ranks)
    seconds = nccl_seconds(kind, ranks, local, hw, intra / hw.intra_bw + inter / hw.inter_bw_per_gpu, launches)
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
    # Without expert parallelism every parameter is a dense one to the collectives: ZeRO shards and gathers all of a
    # mixture of experts' weights, and DDP reduces all of its gradients. FSDP and Megatron split the experts (EP ranks),
    # so each GPU moves the dense part and its 1/EP of the experts, and routes tokens to them (expert all-to-all).
    sp = spec(strategy)
    ep, moved_params, updated, grads = _moved(strategy, w, g, n, tp, pp)
    if sp.gradient_sync == "low-rank-all-reduce":
        plan.extend(_powersgd_plan(w, hw, n, local_all, grads, sp.powersgd_rank or 1))
    elif sp.gradient_sync == "all-reduce-per-step":
        # DDP (with no_sync) and ZeRO-1 accumulate locally and reduce once per optimizer step; ZeRO-1's reduce-scatter +
        # all-gather move the same 2P as one all-reduce (Ultra-Scale Playbook).
        name = N_("gradient all-reduce") if sp.states == "replicated" else N_("gradient reduce-scatter + parameter all-gather")
        bucket = DDP_BUCKET_BYTES if sp.states == "replicated" else DEEPSPEED_BUCKET_BYTES
        plan.append(_group_collective(name, "all-reduce", grads, 1.0, n, local_all, hw, LAST_BACKWARD, np.ceil(grads / bucket)))
    elif sp.gradient_sync == "reduce-scatter-per-micro-batch":
        # DeepSpeed's ZeRO-2 engine reduces gradients into their owner's partition in the backward of every micro-step
        # (stage_1_and_2.py: reduce_ipg_grads from the backward hooks), so accumulation does not cut its traffic; the
        # updated 16-bit parameters are all-gathered once per optimizer step.
        plan.append(_group_collective(N_("gradient reduce-scatter (every micro-batch)"), "reduce-scatter", grads, micro, n, local_all, hw, "backward",
                                      micro * np.ceil(grads / DEEPSPEED_BUCKET_BYTES)))
        plan.append(_group_collective(N_("parameter all-gather"), "all-gather", 2.0 * updated, 1.0, n, local_all, hw, "backward",
                                      np.ceil(2.0 * updated / DEEPSPEED_BUCKET_BYTES)))
    elif sp.gradient_sync == "sharded-params":
        # FSDP2 under FP8 gathers the weights as float8 (torchtitan's enable_fsdp_float8_all_gather); DeepSpeed does not.
        fp8_scale = FP8_ALLGATHER_BYTES / 2.0 if w.fp8 and sp.states == "fsdp" else 1.0
        params16 = w.weight_bytes * moved_params / w.params * fp8_scale  # 16-bit weights, or the frozen LoRA/QLoRA base as stored (NF4 for QLoRA)
        units = w.shape.layers  # one all-gather / reduce-scatter per wrapped block (FSDP unit, ZeRO-3 prefetch bucket)
        gather = _group_collective(N_("parameter all-gather (forward and backward)"), "all-gather", params16, 2.0 * micro, n, local_all, hw, "compute",
                                   2.0 * micro * units)
        plan.append(gather)
        plan.append(_group_collective(N_("gradient reduce-scatter"), "reduce-scatter", grads, micro, n, local_all, hw, "compute", micro * units))
        # Prefetching hides the *next* unit's all-gather behind the current unit's compute; the first unit of each forward
        # and backward has nothing to hide behind (PyTorch FSDP, arXiv:2304.11277 Sec 3.3.2, forward/backward prefetching).
        plan.append(_first_unit(gather, w, n))
        if sp.offload:
            # ZeRO-Offload's schedule (arXiv:2101.06840 Sec 4.1): gradient shards go to the CPU, Adam runs there, and the
            # updated 16-bit parameters come back before the next forward — on the critical path once per step; with
            # offload_param the parameter shards also cross the CPU link for every forward and backward, behind compute.
            # The link is PCIe, or Grace's NVLink-C2C where the GPU has one (Hardware.host_link).
            c2c = hw.host_link == "c2c"
            shard = 2.0 * w.trainable_params / n
            zeros = np.zeros_like(n)
            step_bytes = 2.0 * shard
            plan.append(Collective(N_("optimizer step over NVLink-C2C (gradients out, parameters back)") if c2c
                                   else N_("optimizer step over PCIe (gradients out, parameters back)"), hw.host_link, step_bytes,
                                   np.ones_like(n), zeros, zeros, step_bytes / hw.host_bw, "none"))
            # The Adam update itself runs on the host, bound by its memory bandwidth: on an x86 node each node updates its
            # GPUs' shards from HOST_MEMORY_BW; behind a Grace each GPU's shard has its share of the Grace's LPDDR5X.
            if hw.spec.host_memory_gbs_per_gpu:
                cpu_s = CPU_ADAM_BYTES_PER_PARAM * w.trainable_params / n / (hw.spec.host_memory_gbs_per_gpu * GB)
            else:
                cpu_s = CPU_ADAM_BYTES_PER_PARAM * w.trainable_params / n * np.minimum(n, g) / HOST_MEMORY_BW
            plan.append(Collective(N_("CPU Adam step (host memory)"), "cpu", zeros, np.ones_like(n), zeros, zeros, cpu_s, "none"))
            fetch = 2.0 * micro * w.weight_bytes / n
            plan.append(Collective(N_("parameter fetch from CPU over NVLink-C2C") if c2c else N_("parameter fetch from CPU over PCIe"),
                                   hw.host_link, w.weight_bytes / n, 2.0 * micro, zeros, zeros, fetch / hw.host_bw, "compute"))
    elif sp.gradient_sync == "hybrid-sharded":
        # HSDP (PyTorch FSDP HYBRID_SHARD, arXiv:2304.11277 Sec 3.2.2): shard inside the node, replicate across nodes. The
        # per-unit all-gathers and reduce-scatters stay on NVLink/PCIe; across nodes each GPU all-reduces only its
        # 1/(GPUs per node) gradient shard with its peers in the other nodes — on every micro-batch, as FSDP reduces
        # (no_sync would keep whole unsharded gradients), behind the backward pass.
        params16 = w.weight_bytes * moved_params / w.params * (FP8_ALLGATHER_BYTES / 2.0 if w.fp8 else 1.0)
        nodes = np.ceil(n / local_all)
        units = w.shape.layers
        gather = _group_collective(N_("parameter all-gather inside the node (forward and backward)"), "all-gather", params16, 2.0 * micro,
                                   local_all, local_all, hw, "compute", 2.0 * micro * units)
        plan.append(gather)
        plan.append(_group_collective(N_("gradient reduce-scatter inside the node"), "reduce-scatter", grads, micro, local_all, local_all, hw, "compute",
                                      micro * units))
        plan.append(_group_collective(N_("gradient all-reduce of each shard across nodes"), "all-reduce", grads / local_all, micro, nodes, 1.0, hw,
                                      "backward", micro * units))
        plan.append(_first_unit(gather, w, n))
    elif sp.gradient_sync == "quantised-sharded":
        # ZeRO++ (arXiv:2306.10209 Sec 3): ZeRO-3's three collectives of M bytes each become qwZ's int8 forward all-gather
        # (0.5M), hpZ's backward all-gather from the in-node secondary copy (no network) and qgZ's int4 gradient averaging
        # (0.25M across nodes): 0.75M instead of 3M, the paper's 4x. All three run per micro-batch behind compute.
        params16 = w.weight_bytes * moved_params / w.params * np.ones_like(n)  # as stored: 16-bit, or a QLoRA base in NF4
        units = w.shape.layers
        gather = _group_collective(N_("int8 parameter all-gather, forward (qwZ)"), "all-gather", np.minimum(QWZ_BYTES * moved_params, params16),
                                   micro, n, local_all, hw, "compute", micro * units)
        plan.append(gather)
        plan.append(_group_collective(N_("parameter all-gather inside the node, backward (hpZ)"), "all-gather", params16,
                                      micro, local_all, local_all, hw, "compute", micro * units))
        plan.append(_group_collective(N_("int4 gradient averaging, all-to-all (qgZ)"), "reduce-scatter", QGZ_BYTES * updated, micro, n, local_all, hw,
                                      "compute", micro * units))
        plan.append(_first_unit(gather, w, n))
    if sp.gradient_sync != "megatron":
        if w.is_moe and sp.expert_parallel:
            plan.append(_expert_all_to_all(w, hw, n, ep, 1.0, 1.0, mb, micro))
        return plan
    # megatron-3d
    plan.extend(_megatron_gradient_reduction(hw, n, tp, pp, grads, 2.0 * updated))
    # Tensor parallelism: 2 all-reduces forward and 2 backward per layer per micro-batch of s·b·h 16-bit values
    # (Korthikanti et al. 2022 Sec 4.2.2; sequence parallelism swaps each for a reduce-scatter + all-gather of the
    # same volume), inside the node. The slowest stage holds ceil(layers / PP) layers.
    tp_msg = 2.0 * w.seq_len / cp * mb * w.shape.hidden * w.act_scale
    tp_calls = micro * np.ceil(w.shape.layers / pp) * 4.0
    if hw.tp_overlap and hw.tp_overlap_forward_only:  # AsyncTP: the forward's collectives overlap, the backward's do not
        plan.append(_group_collective(N_("tensor-parallel all-reduce"), "all-reduce", tp_msg, tp_calls * ASYNC_TP_FORWARD_SHARE,
                                      tp, tp, hw, TENSOR_OVERLAP))
        plan.append(_group_collective(N_("tensor-parallel all-reduce (backward)"), "all-reduce", tp_msg,
                                      tp_calls * (1.0 - ASYNC_TP_FORWARD_SHARE), tp, tp, hw, "none"))
    else:
        plan.append(_group_collective(N_("tensor-parallel all-reduce"), "all-reduce", tp_msg, tp_calls, tp, tp, hw,
                                      TENSOR_OVERLAP if hw.tp_overlap else "none"))
    # Pipeline: activations forward and their gradients backward at each stage boundary, s·b·h per micro-batch
    # (Ultra-Scale Playbook), split across the TP ranks (Megatron's scatter/gather), over the network; an interleaved
    # schedule crosses v times as many boundaries (Narayanan et al. 2021 Sec 2.2.2).
    p2p = 2.0 * w.seq_len / cp * mb * w.shape.hidden * w.act_scale / tp
    p2p_calls = np.where(pp > 1, 2.0 * micro * vpp, 0.0)
    net = p2p * p2p_calls
    # Megatron-LM overlaps these sends and receives with the forward and backward chunks of the interleaved schedule
    # (arguments.py: '--no-overlap-p2p-communication', store_false, so overlap_p2p_comm is on by default; validate_args
    # turns it off without virtual pipeline stages): they hide behind computation only where v > 1.
    # Only the steady 1F1B phase overlaps: the first rank's warm-up runs 2(p - 1) + (v - 1) p of its m x v chunks before
    # it (megatron/core/pipeline_parallel/schedules.py, num_warmup_microbatches with microbatch_group_size_per_vp_stage
    # = p), and the flush as many after; their sends wait (--overlap-p2p-communication-warmup-flush is off by default).
    p2p_s = net / hw.inter_bw_per_gpu
    chunks = np.maximum(micro * vpp, 1.0)
    warm = 2.0 * (pp - 1.0) + (vpp - 1.0) * pp
    steady = np.where(vpp > 1, np.clip((chunks - warm) / chunks, 0.0, 1.0), 0.0)
    plan.append(Collective(N_("pipeline send/recv"), "send/recv", p2p, p2p_calls, np.zeros_like(n), (1.0 - steady) * net, (1.0 - steady) * p2p_s,
                           "none"))
    plan.append(Collective(N_("pipeline send/recv (interleaved steady phase, overlapped)"), "send/recv", p2p, p2p_calls, np.zeros_like(n),
                           steady * net, steady * p2p_s, "compute"))
    # Context parallelism (ring attention): each rank passes its chunk's keys and values round the CP ring, once
    # forward and twice backward per layer, overlapped with the attention it feeds (Llama 3 Sec 3.3.2; Ultra-Scale
    # Playbook, context parallelism). Keys and values at their grouped-query width (kv_heads / heads of full width).
    kv = 2.0 * 2.0 * w.seq_len / cp * mb * w.shape.kv_width / tp * w.act_scale
    cp_calls = np.where(cp > 1, 3.0 * micro * np.ceil(w.shape.layers / pp), 0.0)
    moved = kv * (cp - 1.0) * cp_calls
    in_node = tp * cp <= hw.gpus_per_node
    cp_intra, cp_inter = np.where(in_node, moved, 0.0), np.where(in_node, 0.0, moved)
    plan.append(Collective(N_("context-parallel K/V exchange"), "send/recv", kv * np.ones_like(n), cp_calls * np.ones_like(n),
                           cp_intra * np.ones_like(n), cp_inter * np.ones_like(n),
                           cp_intra / hw.intra_bw + cp_inter / hw.inter_bw_per_gpu, ATTENTION))
    if w.is_moe:
        plan.append(_expert_all_to_all(w, hw, n, ep, tp, pp, mb, micro))
    return plan


class LowRankVolume(Struct, frozen=True):
    """What PowerSGD all-reduces per optimizer step once it compresses, in gradient elements (powerSGD_hook.py)."""

    p_elements: float
    """Sum of n·r over the compressed n x m matrices: the P factors, all-reduced first."""
    q_elements: float
    """Sum of m·r: the Q factors, all-reduced after P is orthogonalised."""
    uncompressed_elements: float
    """Tensors all-reduced as they are: every 1-D tensor (biases, norm weights) and any matrix too small to compress."""
    full_elements: float
    """Every gradient element: what plain DDP all-reduces, and what PowerSGD sends during its warm-up."""

    @property
    def share(self) -> float:
        """Compressed volume as a share of the uncompressed one."""
        sent = self.p_elements + self.q_elements + self.uncompressed_elements
        return sent / self.full_elements if self.full_elements > 0 else 1.0


@lru_cache(maxsize=32)
def powersgd_volume(w: Workload, rank: int) -> LowRankVolume:
    """PowerSGD's all-reduced elements for this model's gradient matrices at ``rank`` (Vogels et al. 2019,
    arXiv:1905.13727: an n x m matrix crosses as P = M·Q, n x r, and Q = M^T·P, m x r: (n + m)·r values instead of n·m).

    torch's powerSGD_hook views each parameter's gradient as (shape[0], -1) and compresses it only where
    (n + m)·r x min_compression_rate < n·m (``_should_compress``); the rest, 1-D tensors included, is all-reduced
    uncompressed in one batch. The matrices are the shape's: per layer Q, O (h x h), K, V (h x h·kv_share) and an MLP
    holding the rest of the layer's weights as two h x f matrices (per expert for a mixture of experts), and the
    vocab x h embedding; 1-D tensors are the 13·h per layer of the parameter count's convention (workload.infer_shape).
    A LoRA/QLoRA job reduces only its adapters: r_lora x h and h x r_lora matrices."""
    h, layers = float(w.shape.hidden), float(w.shape.layers)

    def matrix(n: float, m: float, count: float) -> tuple[float, float, float]:
        r = min(n, m, float(rank))
        if (n + m) * r * POWERSGD_MIN_COMPRESSION_RATE < n * m:
            return count * n * r, count * m * r, 0.0
        return 0.0, 0.0, count * n * m

    if is_peft(w):
        lr = float(max(1, w.lora_rank))
        per = lr * h  # A is r x h, B is h x r: the same element count, the same (n + m)·r
        mats = [matrix(lr, h, w.adapter_params / (2.0 * per)), matrix(h, lr, w.adapter_params / (2.0 * per))]
        p, q, u = (sum(x[i] for x in mats) for i in range(3))
        return LowRankVolume(p, q, u, float(w.adapter_params))
    kv = w.shape.kv_share
    one_d = 13.0 * layers * h + 2.0 * h
    embedding = float(w.vocab) * h
    attention = (2.0 + 2.0 * kv) * h * h
    experts = float(w.experts) if w.is_moe and w.experts > 0 else 1.0
    mlp = max(0.0, (w.params - embedding - one_d) / max(1.0, layers) - attention)
    f = mlp / (2.0 * h * experts)  # two h x f matrices per expert hold the rest of the layer's weights
    mats = [matrix(h, h, 2.0 * layers), matrix(h, kv * h, 2.0 * layers), matrix(embedding / h, h, 1.0)]
    if f >= 1.0:
        mats += [matrix(f, h, layers * experts), matrix(h, f, layers * experts)]
    p, q, u = (sum(x[i] for x in mats) for i in range(3))
    return LowRankVolume(p, q, u + one_d, float(w.params))


def _powersgd_plan(w: Workload, hw: Hardware, n: np.ndarray, local: np.ndarray, grads: np.ndarray, rank: int) -> list[Collective]:
    """DDP with the PowerSGD hook: once per optimizer step (DDP's no_sync accumulates), the uncompressed tensors, then the
    P factors, then the Q factors are all-reduced, each from DDP's bucket hooks behind the backward pass; during the first
    POWERSGD_WARMUP_SHARE of the steps (start_powerSGD_iter) the hook all-reduces every gradient as plain DDP does.

    Calls are per optimizer step averaged over the run: 1 - share for each compressed collective, share for the warm-up's
    all-reduce ('warm-up' overlap: exposed_communication gives each phase its own share of the backward pass)."""
    vol = powersgd_volume(w, rank)
    per_element = grads / max(vol.full_elements, 1.0)  # gradient bytes per element (2 under bf16/fp16, 4 under fp32)
    warm = POWERSGD_WARMUP_SHARE
    buckets = np.ceil(grads / DDP_BUCKET_BYTES)  # the hook runs per DDP bucket: each of its all-reduces once a bucket
    return [
        _group_collective(N_("1-D tensors and small matrices, all-reduced uncompressed (PowerSGD)"), "all-reduce",
                          vol.uncompressed_elements * per_element, 1.0 - warm, n, local, hw, LAST_BACKWARD, (1.0 - warm) * buckets),
        _group_collective(f"PowerSGD P factors, all-reduce (rank {rank})", "all-reduce", vol.p_elements * per_element, 1.0 - warm, n, local,
                          hw, LAST_BACKWARD, (1.0 - warm) * buckets),
        _group_collective(f"PowerSGD Q factors, all-reduce (rank {rank})", "all-reduce", vol.q_elements * per_element, 1.0 - warm, n, local,
                          hw, LAST_BACKWARD, (1.0 - warm) * buckets),
        _group_collective(f"gradient all-reduce, uncompressed warm-up ({warm:.0%} of the steps)", "all-reduce", grads, warm, n, local, hw,
                          "warm-up", warm * buckets),
    ]


def _moved(strategy: str, w: Workload, g: int, n: np.ndarray, tp: np.ndarray, pp: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(expert-parallel degree, parameters the collectives move, parameters updated, gradient bytes) per GPU."""
    ep = expert_degree(strategy, w, n, n / (tp * pp), g)  # experts spread over data x context ranks (MoE parallel folding)
    moved_params = w.dense_params + w.expert_params / ep if spec(strategy).expert_parallel else w.params * np.ones_like(n)
    # LoRA/QLoRA: only the adapters are trained, so only they have gradients and updated weights to move.
    updated = moved_params if w.trainable_params == w.params else w.trainable_params * np.ones_like(n)
    # Megatron reduces its gradient buffer, fp32 under bf16 by default (workload.MEGATRON_MAIN_GRAD_BYTES).
    per_grad = w.main_grad_bytes if spec(strategy).states == "megatron" else w.grad_bytes
    return ep, moved_params, updated, per_grad * updated


def _megatron_gradient_reduction(hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, grads: np.ndarray,
                                 params16: np.ndarray) -> list[Collective]:
    """Megatron's distributed optimizer (advisor's files pass --use-distributed-optimizer): each rank's TP x PP shard of
    the gradients is reduce-scattered over the data-parallel ranks in the last micro-batch's backward
    (--overlap-grad-reduce), and the updated 16-bit parameters are all-gathered in the next step's first forward
    (--overlap-param-gather) — half an all-reduce's volume each (Megatron-LM docs/source/api-guide/dist_optimizer.md:
    'reduce-scatter ... all-gather' in place of the all-reduce)."""
    scatter = _megatron_reduce_scatter(hw, n, tp, pp, grads)
    if np.array_equal(params16, grads):  # 16-bit gradients: the gather moves the same bytes in the same calls
        gather = Collective(N_("data-parallel parameter all-gather"), "all-gather", scatter.payload, scatter.calls, scatter.intra_bytes,
                            scatter.inter_bytes, scatter.seconds, FIRST_FORWARD)
    else:
        dp = n / (tp * pp)
        gathered = params16 / (tp * pp)
        gather = _group_collective(N_("data-parallel parameter all-gather"), "all-gather", gathered, 1.0, dp,
                                   np.clip(hw.gpus_per_node / (tp * pp), 1.0, dp), hw, FIRST_FORWARD,
                                   np.ceil(gathered / (MEGATRON_BUCKET_BYTES * np.maximum(1.0, dp / 40.0))))
    return [scatter, gather]


def _megatron_reduce_scatter(hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, grads: np.ndarray) -> Collective:
    """The distributed optimizer's gradient reduce-scatter over the data-parallel ranks, in Megatron-Core's buckets."""
    dp = n / (tp * pp)
    dp_local = np.clip(hw.gpus_per_node / (tp * pp), 1.0, dp)
    shard = grads / (tp * pp)
    bucket = MEGATRON_BUCKET_BYTES * np.maximum(1.0, dp / 40.0)
    return _group_collective(N_("data-parallel gradient reduce-scatter"), "reduce-scatter", shard, 1.0, dp, dp_local, hw, LAST_BACKWARD,
                             np.ceil(shard / bucket))


def megatron_gradient_seconds(strategy: str, w: Workload, hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray) -> np.ndarray:
    """Seconds of Megatron's data-parallel gradient all-reduce, the plan's collective that hides behind the backward pass
    (communication_plan), on its own: the layout search's floor under the step (estimate.model._step_floor)."""
    return _megatron_reduce_scatter(hw, n, tp, pp, _moved(strategy, w, hw.gpus_per_node, n, tp, pp)[3]).seconds


def _first_unit(gather: Collective, w: Workload, n: np.ndarray) -> Collective:
    """The first unit's all-gather of each pass: prefetching hides the next unit's gather behind the current unit's
    compute, and the first has nothing to hide behind (PyTorch FSDP, arXiv:2304.11277 Sec 3.3.2)."""
    first = gather.seconds / max(1, w.shape.layers)
    return Collective(N_("first layer's all-gather (nothing to prefetch behind)"), "all-gather", gather.payload / max(1, w.shape.layers),
                      gather.calls, np.zeros_like(n), np.zeros_like(n), first, "none")


def _expert_all_to_all(w: Workload, hw: Hardware, n: np.ndarray, ep: np.ndarray, tp: np.ndarray | float, pp: np.ndarray | float,
                       mb: np.ndarray, micro: np.ndarray) -> Collective:
    """Expert parallelism: dispatch and combine each token's hidden state to its top-k experts, forward and backward; under
    sequence parallelism each TP rank routes 1/TP of the tokens. An EP group spans EP x TP consecutive ranks (megatron-core
    parallel_state order 'tp-cp-ep-dp-pp'), so it leaves the node past gpus_per_node. It sits on the critical path unless
    the layout overlaps it (Hardware.ep_overlap, EXPERT_OVERLAP); DeepEP sends fewer copies (Hardware.ep_dedup)."""
    tokens = w.seq_len * mb / tp
    per_copy = tokens * w.shape.hidden * 2.0 * w.act_scale
    msg = w.moe_top_k * per_copy
    calls = 4.0 * np.ceil(w.shape.layers / pp) * micro
    # Of the EP ranks, those in this GPU's node are reached over the in-node link, the rest over the network: an EP16
    # group of two 8-GPU nodes sends 7/16 of its copies over NVLink and 8/16 across (EXPERT_A2A_SPLIT).
    local = np.minimum(ep, np.maximum(1.0, hw.gpus_per_node / tp))
    intra = msg * calls * (local - 1.0) / ep
    inter = msg * calls * (ep - local) / ep
    if hw.ep_dedup:  # one copy per destination GPU inside the node and per destination node across them (DeepEP)
        nodes = np.maximum(1.0, ep * tp / hw.gpus_per_node)
        local = np.minimum(ep, np.maximum(1.0, hw.gpus_per_node / tp))
        if w.expert_groups > 1:  # group-limited routing: fewer nodes and GPUs a token (routed_destinations)
            gpus_copies = routed_destinations(ep, w.moe_top_k, w.expert_groups, w.expert_groups_per_token)
            node_hits = routed_destinations(nodes, w.moe_top_k, w.expert_groups, w.expert_groups_per_token)
        else:
            gpus_copies = distinct_destinations(local, w.moe_top_k / nodes) * nodes
            node_hits = distinct_destinations(nodes, w.moe_top_k)
        node_copies = node_hits * (nodes - 1.0) / nodes
        intra = per_copy * calls * gpus_copies * (local - 1.0) / local
        inter = per_copy * calls * node_copies
    overlap = EXPERT_OVERLAPPED if hw.ep_overlap else "none"
    return Collective(N_("expert all-to-all"), "all-to-all", msg * np.ones_like(n), calls * np.ones_like(n), intra * np.ones_like(n),
                      inter * np.ones_like(n), intra / hw.intra_bw + inter / hw.inter_bw_per_gpu, overlap)


def exposed_communication(plan: list[Collective], compute: np.ndarray, accumulation: np.ndarray | float = 1.0,
                          attention: np.ndarray | float = 0.0, gemm: np.ndarray | float = 0.0) -> np.ndarray:
    """Communication left on the critical path after each collective hides behind what it may overlap.

    'backward' collectives run in every micro-batch's backward pass and hide behind the backward share of the whole
    step's compute; 'last-backward' ones (LAST_BACKWARD: a once-per-step gradient reduction) only behind the last
    micro-batch's, compute / accumulation; 'first-forward' ones (FIRST_FORWARD) only behind the first micro-batch's forward;
    'attention' ones (ATTENTION) only behind ``attention``, the seconds of
    attention computation in the step; overlapped tensor-parallel ones (TENSOR_OVERLAP) only behind ``gemm``, the
    linear layers' seconds they can chunk under. A 'warm-up' collective runs instead of the 'last-backward' ones on a share
    of the steps (its calls per step, averaged over the run: PowerSGD's uncompressed start): each phase hides behind the
    backward passes of its own steps, so a warm-up that cannot hide is not averaged away by the compressed steps that can."""
    total: dict[str, Any] = {"none": 0.0, "backward": 0.0, LAST_BACKWARD: 0.0, "compute": 0.0, "warm-up": 0.0, ATTENTION: 0.0,
                             TENSOR_OVERLAP: 0.0, FIRST_FORWARD: 0.0, EXPERT_OVERLAPPED: 0.0}
    warm_share: Any = 0.0
    for c in plan:
        total[c.overlap] = total[c.overlap] + c.seconds
        if c.overlap == "warm-up":
            warm_share = np.maximum(warm_share, c.calls)
    backward = OVERLAP_BACKWARD * compute
    last = backward / np.maximum(np.asarray(accumulation, dtype=float), 1.0)
    return (
        total["none"]
        + np.maximum(0.0, total["backward"] - backward)
        + np.maximum(0.0, total[LAST_BACKWARD] - (1.0 - warm_share) * last)
        + np.maximum(0.0, total["warm-up"] - warm_share * last)
        + np.maximum(0.0, total[FIRST_FORWARD] - (1.0 - OVERLAP_BACKWARD) * compute / np.maximum(np.asarray(accumulation, dtype=float), 1.0))
        + np.maximum(0.0, total["compute"] + EP_OVERLAP_RATIO * total[EXPERT_OVERLAPPED] - compute)
        + (1.0 - EP_OVERLAP_RATIO) * total[EXPERT_OVERLAPPED]
        + EP_OVERLAP_SM_COST * np.minimum(EP_OVERLAP_RATIO * total[EXPERT_OVERLAPPED], compute)
        + np.maximum(0.0, total[ATTENTION] - attention)
        + np.maximum(0.0, total[TENSOR_OVERLAP] - gemm)
    )
