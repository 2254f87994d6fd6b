"""The estimate: one strategy over an array of GPU counts — layout, recomputation, micro-batch, step time, hours, cost."""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace
from collections.abc import Callable
from typing import Any

import numpy as np

from advisor.inputs.answers import POST_TRAINING_METHODS, Answers
from advisor.knowledge.catalog import kernel_scale, mfu_band
from advisor.knowledge.strategies import spec, STRATEGIES
from advisor.knowledge.vocabulary import OFFLOAD_NAMES, PARTIAL_RECOMPUTE_NAMES
from advisor.estimate.finetune import dequant_seconds, is_peft, lora_activation_bytes
from advisor.estimate.posttrain import add_post_training
from advisor.estimate.communication import Collective, communication_plan, exposed_communication, megatron_gradient_seconds
from advisor.estimate.layout import MEMORY_HEADROOM, _layouts, expert_degree, interleave_memory_factor, stage_factor
from advisor.estimate.memory import activation_bytes, cpu_bytes_per_node, logits_bytes, model_state_bytes
from advisor.estimate.workload import fp8_time_factor
from advisor.estimate.workload import (
    CUDA_OVERHEAD_BYTES,
    eager_efficiency,
    FULL_RECOMPUTE_FLOPS,
    GB,
    Hardware,
    MICRO_BATCH_CHOICES,
    OVERLAP_BACKWARD,
    SELECTIVE_RECOMPUTE_FLOPS,
    Workload,
    hardware_from,
    interruption_overhead,
    time_off_training,
    spot_overhead,
    workload_from,
)


# ------------------------------------------------------------------------------ the estimate


class StrategyEstimate(Struct):
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
    """Wall-clock multiplier for restarts after interruptions (Llama 3's rate)."""
    wallclock_factor: np.ndarray
    """Wall-clock multiplier for all time off training, restarts included (workload.time_off_training): in ``hours``."""
    collectives: list[Collective]
    gpu_bound_hours: np.ndarray
    """Mid-band hours if data loading kept up: what the GPUs could do (the loader's bound is already in ``hours``)."""

    @property
    def communication_share(self) -> np.ndarray:
        step = self.step_s["mid"]
        return np.where(step > 0, self.exposed_comm_s / step, 0.0)

    def at(self, i: int) -> StrategyEstimate:
        """This estimate at one GPU count (index i), as one-element arrays."""
        return self.take(slice(i, i + 1))

    def take(self, cut: slice | np.ndarray) -> StrategyEstimate:
        """This estimate at some of its GPU counts (a slice or an array of indices)."""
        fields: dict[str, Any] = {}
        for name in self.__struct_fields__:
            value = getattr(self, name)
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


OFFLOAD_MODES: dict[str, float] = dict(zip(OFFLOAD_NAMES, (0.25, 0.5, 0.75), strict=True))
"""No recomputation, the saved activations of that share of the layers held in the CPU's memory during the step and
copied back for the backward: NVIDIA's GB200 recipes do this in place of recomputation (Megatron-Bridge
scripts/performance/configs/llama/llama3_workload_base_configs.py, LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V1:
'micro_batch_size=2, use_megatron_fsdp=True, cpu_offloading_num_layers=40', no recomputation; megatron-core 0.16.1
refuses cpu_offloading with recomputation or pipeline parallelism). Offered where the GPU has a coherent CPU link
(GpuSpec.c2c_gbs: Grace's NVLink-C2C) to the sharded data-parallel strategies of a pre-training, whose train.py keeps
the first layers' activations on the CPU (torch.autograd.graph.save_on_cpu)."""
OFFLOAD_STRATEGIES = ("fsdp", "fsdp-hybrid")
OFFLOAD_FORWARD_SHARE = 1.0 / 3.0
"""The forward's share of a layer's training FLOPs (2 of 6 per parameter per token): the copy to the CPU hides behind
the forward, the copy back behind the backward's other two thirds."""

RECOMPUTE_CODE: dict[str, float] = {"none": -1.0, "selective": 0.0, **PARTIAL_RECOMPUTE, "full": 1.0,
                                    **{name: -1.0 - share for name, share in OFFLOAD_MODES.items()}}
"""Each recomputation as a number: -1 none, below -1 none with 1 - code's share of layers offloaded (-1.5: half), else
the share of layers fully recomputed (the rest selective)."""
_RECOMPUTE_NAME = {v: k for k, v in RECOMPUTE_CODE.items()}


def offloaded_share(code: np.ndarray | float) -> np.ndarray:
    """The share of layers whose activations sit in CPU memory under recomputation ``code`` (0 for every other mode)."""
    return np.clip(-1.0 - np.asarray(code, dtype=float), 0.0, 1.0)


def offload_offered(strategy: str, w: Workload, hw: Hardware) -> bool:
    return (w.recompute == "auto" and strategy in OFFLOAD_STRATEGIES and w.method == "pretrain"
            and hw.spec.c2c_gbs is not None and hw.spec.host_memory_gb_per_gpu is not None)


def _recompute_modes(w: Workload, strategy: str = "", hw: Hardware | None = None) -> tuple[str, ...]:
    """Least recomputation first: the first that fits a layout is its fastest."""
    # With a fused attention kernel selective recomputation keeps as much as none and costs 2.7% more, so "auto" starts
    # from none; the partial modes recompute some layers fully and the rest selectively (Megatron-LM's recipe). Where the
    # CPU sits on a chip-to-chip link, keeping some layers' activations there comes before recomputing any (OFFLOAD_MODES).
    if w.recompute != "auto":
        return (w.recompute,)
    offload = tuple(OFFLOAD_MODES) if hw is not None and offload_offered(strategy, w, hw) else ()
    return ("none", *offload, *PARTIAL_RECOMPUTE, "full")


class _Eval(Struct):
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
    """Activation bytes per GPU for recomputation ``code`` (RECOMPUTE_CODE, per element): the fullest pipeline stage under
    Megatron."""
    return _activations_by_code(strategy, w, tp, pp, vpp, mb)(code)


def _activations_by_code(strategy: str, w: Workload, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray,
                         mb: np.ndarray) -> Callable[[np.ndarray | float], np.ndarray]:
    """Activation bytes per GPU of these layouts as a function of the recomputation code (one code, or one per element):
    the selective and full sets, the stage factors and LoRA's share are computed once however many codes are asked for;
    the no-recomputation set only when a code asks for it."""
    sp = spec(strategy).model_parallel  # sequence parallelism comes with Megatron's tensor parallelism
    selective = activation_bytes(w, "selective", tp, seq_parallel=sp, micro_batch=mb)
    full = activation_bytes(w, "full", tp, seq_parallel=sp, micro_batch=mb)
    none: np.ndarray | float | None = None
    stage = stage_factor(w, pp) if sp else None
    interleave = interleave_memory_factor(pp, vpp) if sp else None
    lora = lora_activation_bytes(w, tp, mb)
    logits = logits_bytes(w, tp, mb, pp)  # the loss's logits (eager stacks), on the last stage

    def at(c: np.ndarray | float) -> np.ndarray:
        nonlocal none
        code = np.asarray(c, dtype=float)
        f = np.clip(code, 0.0, 1.0)
        act = (1.0 - f) * selective + f * full
        if np.any(code < 0):
            if none is None:
                none = activation_bytes(w, "none", tp, seq_parallel=sp, micro_batch=mb)
            # offloaded layers leave the GPU, but for the one whose copy is in flight
            off = offloaded_share(code)
            kept = 1.0 - off + np.minimum(off, 1.0 / w.shape.layers)
            act = np.where(code < 0, none * kept, act)
        if stage is not None:
            act = act * stage * interleave
        return act + lora + logits

    return at


_BANDS = ("low", "mid", "high")


def _evaluate(strategy: str, w: Workload, hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray,
              code: np.ndarray, mb: np.ndarray, cp: np.ndarray | float = 1.0, bands: tuple[str, ...] = _BANDS) -> _Eval:
    """Memory and step time of one configuration per GPU count; ``code`` holds each count's recomputation.

    Context parallelism (``cp``) splits every sequence over cp ranks: activations and compute divide by cp, weights
    replicate across them, and the distributed optimizer shards over data x context ranks (n / (TP x PP) below).
    ``bands``: the MFU bands timed (the layout search compares the mid band only).
    """
    states = model_state_bytes(strategy, w, n, tp, pp, hw.gpus_per_node)
    act = _activations(strategy, w, tp, pp, vpp, code, mb) / cp
    memory = states + act + CUDA_OVERHEAD_BYTES
    dp, share, accumulation, work, bubble = _work(strategy, w, n, tp, pp, vpp, code, mb, cp)
    band = mfu_band(hw.spec.band)
    plan = communication_plan(strategy, w, hw, n, tp, pp, mb, accumulation, vpp, cp)
    compute, exposed, step = {}, {}, {}
    held = offloaded_bytes(w, tp, code, mb)  # once, not per band: the same bytes copy behind each band's compute
    for name, mfu in (("low", band.high), ("mid", band.mid), ("high", band.low)):
        if name not in bands:
            continue
        compute[name] = _compute_seconds(w, hw, work, mfu, accumulation, tp, pp)
        attention = compute[name] * (w.attention_flops_per_token / w.flops_per_token)  # what the K/V exchange hides behind
        gemm = (compute[name] - attention) * (tp - 1.0) / tp  # what overlapped TP chunks hide behind (TENSOR_OVERLAP)
        exposed[name] = exposed_communication(plan, compute[name], accumulation, attention, gemm)
        exposed[name] = exposed[name] + offload_exposed_seconds(hw, held, compute[name], accumulation)
        step[name] = compute[name] * (1.0 + bubble) + exposed[name]
    return _Eval(states, act, memory, dp, share, accumulation, compute, bubble, plan, exposed, step)


def offloaded_bytes(w: Workload, tp: np.ndarray | float, code: np.ndarray | float, mb: np.ndarray | float) -> np.ndarray:
    """Activation bytes per GPU held in CPU memory under ``code``: the offloaded layers' saved inputs of one micro-batch
    (the data-parallel strategies offered offloading run one micro-batch at a time)."""
    off = offloaded_share(code)
    if not np.any(off > 0):
        return np.zeros(np.shape(off))
    return activation_bytes(w, "none", tp, seq_parallel=False, micro_batch=mb) * off


def offload_exposed_seconds(hw: Hardware, held: np.ndarray, compute: np.ndarray, accumulation: np.ndarray) -> np.ndarray:
    """Seconds per step the activation copies are not hidden: each micro-batch copies its offloaded bytes (``held``,
    offloaded_bytes) to the CPU behind the forward and back behind the backward, over the GPU's share of the chip-to-chip
    link (GpuSpec.c2c_gbs)."""
    if not np.any(held > 0) or hw.spec.c2c_gbs is None:
        return np.zeros(np.shape(compute))
    copy = held / (hw.spec.c2c_gbs * GB)
    per_micro = compute / accumulation
    late = np.maximum(0.0, copy - per_micro * OFFLOAD_FORWARD_SHARE) + np.maximum(0.0, copy - per_micro * (1.0 - OFFLOAD_FORWARD_SHARE))
    return late * accumulation


def _work(strategy: str, w: Workload, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray, code: np.ndarray,
          mb: np.ndarray, cp: np.ndarray | float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Data-parallel width, each rank's share of the batch, accumulation, FLOPs per GPU per step and the pipeline bubble."""
    full_share = np.clip(code, 0.0, 1.0)
    sp = spec(strategy).model_parallel  # sequence parallelism comes with Megatron's tensor parallelism
    dp, share = _share(w, n, tp, pp, cp)
    accumulation = np.maximum(1.0, np.ceil(share / mb))
    full_rf = 1.0 + w.forward_flops_per_token / w.flops_per_token if is_peft(w) else FULL_RECOMPUTE_FLOPS  # one more forward
    rf = np.where(code < 0, 1.0, (1.0 - full_share) * SELECTIVE_RECOMPUTE_FLOPS + full_share * full_rf)
    work = w.flops_per_token * share * w.seq_len * rf / (tp * pp * cp) * (stage_factor(w, pp) if sp else 1.0)
    if w.fp8:
        work = work * fp8_time_factor(w, sp, tp, w.seq_len * mb / cp)  # the linear layers at the recipe's FP8 speedup, at this shard
    return dp, share, accumulation, work, _bubble(pp, vpp, accumulation)


def _bubble(pp: np.ndarray, vpp: np.ndarray, accumulation: np.ndarray) -> np.ndarray:
    """The pipeline bubble as a share of compute: (PP - 1) / (v x micro-batches) under interleaved 1F1B."""
    return np.where(pp > 1, (pp - 1.0) / (vpp * accumulation), 0.0)


def _share(w: Workload, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, cp: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """Data-parallel width and the sequences each data-parallel rank runs a step."""
    dp = n / (tp * pp * cp)
    seqs = float(w.global_batch_seqs)
    # Each data-parallel rank runs its share of the batch; where ranks do not divide it, the busiest rank sets the pace.
    return dp, np.ceil(seqs / dp)


def _peak_flops(w: Workload, hw: Hardware) -> float:
    """The FLOP/s the MFU band is a share of, for this model on this GPU: the band is hardware FLOPs utilisation at
    hidden 4,096, wider layers run their matrix multiplications more efficiently (hidden_scaling in
    data/efficiency.yaml), and an eager stack loses what its unfused kernels take (workload.eager_efficiency). The step
    and the GPU-hour floor read it from here."""
    peak = hw.spec.peak_tflops * 1e12 * kernel_scale(w.shape.hidden) * hw.efficiency_scale
    return peak * eager_efficiency(w.shape.hidden) if w.stack == "eager" else peak


def _compute_seconds(w: Workload, hw: Hardware, work: np.ndarray, mfu: float, accumulation: np.ndarray, tp: np.ndarray,
                     pp: np.ndarray) -> np.ndarray:
    """Compute seconds per step at one MFU (recomputation is charged once, in ``work``)."""
    return work / (_peak_flops(w, hw) * mfu) + dequant_seconds(w, hw.spec, accumulation, tp, pp)


def _step_floor(strategy: str, w: Workload, hw: Hardware, n: np.ndarray, tp: np.ndarray, pp: np.ndarray, vpp: np.ndarray,
                code: np.ndarray, mb: np.ndarray, cp: np.ndarray,
                groups: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """A floor under Megatron's ``_evaluate(...).step["mid"]`` at a fraction of its cost: compute and bubble, and the
    data-parallel all-reduce the backward pass does not hide (at large scale the step is mostly that all-reduce). The
    step adds to the same compute x (1 + bubble) its exposed communication, which holds this all-reduce's exposed part
    plus terms that are never negative (communication.exposed_communication), so in floating point too no step is below
    its floor.

    ``groups`` (first index of each group, each element's group): elements that differ only in v share all but the
    bubble, so the rest is computed once per group (the same numbers)."""
    n1, tp1, pp1, vpp1, code1, mb1, cp1 = n, tp, pp, vpp, code, mb, cp
    if groups is not None:
        f = groups[0]
        n1, tp1, pp1, vpp1, code1, mb1, cp1 = n[f], tp[f], pp[f], vpp[f], code[f], mb[f], cp[f]
    _dp, _share, accumulation, work, _bubble1 = _work(strategy, w, n1, tp1, pp1, vpp1, code1, mb1, cp1)
    compute = _compute_seconds(w, hw, work, mfu_band(hw.spec.band).mid, accumulation, tp1, pp1)
    # The gradient reduce-scatter hides behind the last micro-batch's backward only (communication.LAST_BACKWARD), as
    # the step's does (exposed_communication's ``accumulation``), so the floor stays under the step.
    hidden = np.maximum(0.0, megatron_gradient_seconds(strategy, w, hw, n1, tp1, pp1) - OVERLAP_BACKWARD * compute / np.maximum(accumulation, 1.0))
    if groups is not None:
        at = groups[1]
        compute, accumulation, hidden = compute[at], accumulation[at], hidden[at]
    return compute * (1.0 + _bubble(pp, vpp, accumulation)) + hidden



def _activation_table(strategy: str, w: Workload, table: np.ndarray, codes: list[float]) -> dict[float, np.ndarray]:
    """Activation bytes per GPU of every candidate (rows of ``table``: TP, PP, v, micro-batch, CP) under each
    recomputation code. They depend on the workload and on sequence parallelism alone, so the nine data-parallel
    strategies of one estimate share one table (kept for the last few workloads; read-only)."""
    sp = spec(strategy).model_parallel
    key = (w, sp, table.tobytes(), tuple(codes))
    found = _ACTIVATION_TABLES.get(key)
    if found is None:
        per_candidate = _activations_by_code(strategy, w, table[:, 0], table[:, 1], table[:, 2], table[:, 3])
        found = {c: np.asarray(per_candidate(c) / table[:, 4]) * np.ones(table.shape[0]) for c in codes}
        for values in found.values():
            values.setflags(write=False)
        if len(_ACTIVATION_TABLES) >= 16:
            _ACTIVATION_TABLES.clear()
        _ACTIVATION_TABLES[key] = found
    return found


_ACTIVATION_TABLES: dict[tuple[Any, ...], dict[float, np.ndarray]] = {}


LAYOUT_CHUNK = 100_000
"""(count, layout) pairs priced at once: a sweep of 16,384 counts stays within a few MB per array."""


def _starts_of(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal ``keys`` starts (True at the first element of every run)."""
    out = np.empty(keys.shape, dtype=bool)
    out[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=out[1:])
    return out


def _segments(new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first index of each run, each element's run) from a mask that is True where a run starts."""
    return np.flatnonzero(new), np.cumsum(new) - 1


def _first_min(values: np.ndarray, starts: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Index of each segment's smallest value, the first where several are equal (np.argmin per segment); ``starts``
    are the segments' first indices, ``seg`` each value's segment."""
    low = np.minimum.reduceat(values, starts)
    at = np.flatnonzero(values == low[seg])
    first = at[_starts_of(seg[at])]
    if first.size != starts.size:  # a NaN, which np.argmin takes first: NaNs first, then by value, then by position
        order = np.lexsort((np.arange(values.size), values, ~np.isnan(values), seg))
        first = order[starts]
    return first


def _divides(n: np.ndarray, product: np.ndarray) -> np.ndarray:
    """Whether each layout's TP x PP x CP (``product``) divides each count of ``n`` (counts down, layouts across): the
    remainder of whole counts in integers (4x faster than on floats, the same answer), each distinct product once."""
    whole = bool(np.all(n == np.floor(n))) and n.size > 0 and float(np.max(np.abs(n))) < 2.0 ** 53
    distinct, at = np.unique(product, return_inverse=True)
    if whole:
        remainder = n.astype(np.int64)[:, None] % distinct.astype(np.int64)[None, :]
    else:
        remainder = np.mod(n[:, None], distinct[None, :])
    return (remainder == 0)[:, at.reshape(-1)] & (n[:, None] >= product[None, :])


def _tier(divides: np.ndarray, roomy: np.ndarray, fits: np.ndarray, feeds: np.ndarray) -> np.ndarray:
    """A Megatron layout's tier: 0 fits with headroom and keeps the batch, 1 fits and keeps it, 2 fits, 3 divides the
    count, 9 does not (with headroom implies fits)."""
    return np.where(divides, np.where(fits, np.where(feeds, np.where(roomy, 0, 1), 2), 3), 9)


def _megatron_picks(strategy: str, w: Workload, hw: Hardware, flat: np.ndarray, table: np.ndarray,
                    codes: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Megatron's layout (an index into ``table``) and recomputation at each GPU count of ``flat``: among the layouts
    whose TP x PP x CP divides the count, the least recomputation that fits with headroom (else the most); then the
    layout in the best tier — fits with headroom and keeps the batch, fits and keeps it, fits, divides — with the shortest
    mid-band step (tier 3 and below: the least memory); equal keys, the earlier layout.

    Each count prices only the layouts that divide it (a layout that does not is in tier 9, below every dividing one,
    and TP = PP = CP = 1 divides every count; where none divides, every layout competes), as (count, layout) pairs in
    chunks. Two prunings that never change the pick (issue 20): the tier needs only memory and data-parallel width, so
    only the row's best tier is timed; and within it, only the layouts whose floor under the step (``_step_floor``) is
    not above the step of the layout with the lowest floor.
    """
    mem_cap = hw.spec.capacity_gb * GB
    room = MEMORY_HEADROOM * mem_cap
    seqs = float(w.global_batch_seqs)
    act_by_code = _activation_table(strategy, w, table, codes)
    product = table[:, 0] * table[:, 1] * table[:, 4]
    divides_all = _divides(flat, product)
    fallback = np.logical_not(np.any(divides_all, axis=1))
    divides_all[fallback] = True  # none divides: every layout competes (least memory)
    ends = np.cumsum(divides_all.sum(axis=1))
    column = [np.ascontiguousarray(table[:, i]) for i in range(5)]
    best = np.zeros(flat.shape, dtype=int)
    best_code = np.zeros(flat.shape)
    lo = 0
    while lo < flat.size:
        hi = min(flat.size, max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + LAYOUT_CHUNK, side="right"))))
        r, c = np.divmod(np.flatnonzero(divides_all[lo:hi]), table.shape[0])  # row-major: each count's layouts in candidate order
        r = r + lo
        nn = flat[r]
        c_tp, c_pp, c_cp = column[0][c], column[1][c], column[4][c]
        states = model_state_bytes(strategy, w, nn, c_tp, c_pp, hw.gpus_per_node)
        code = np.full(nn.shape, codes[-1])
        memory = states + act_by_code[codes[-1]][c] + CUDA_OVERHEAD_BYTES
        for cc in codes[-2::-1]:  # from the most recomputation down: the least that fits wins
            memory_c = states + act_by_code[cc][c] + CUDA_OVERHEAD_BYTES
            fits_c = memory_c <= room
            code = np.where(fits_c, cc, code)
            memory = np.where(fits_c, memory_c, memory)
        # The tier needs only memory and data-parallel width, known before the step is timed. Every pair divides but
        # those of a count no layout divides.
        feeds = nn / (c_tp * c_pp * c_cp) <= seqs
        fits = memory <= mem_cap
        tier = _tier(~fallback[r], memory <= room, fits, feeds)
        starts, seg = _segments(_starts_of(r))
        row_tier = np.minimum.reduceat(tier, starts)
        keep = tier == row_tier[seg]
        if bool(np.any(row_tier < 3)):
            # Within the tier the shortest step wins: time each count's layout with the lowest floor under its step,
            # and keep only the layouts whose floor is not above that step (tier 3 and below rank by memory: all kept).
            r, c, code, nn = r[keep], c[keep], code[keep], nn[keep]
            starts, seg = _segments(_starts_of(r))
            k_tp, k_pp, k_v, k_mb, k_cp = (column[i][c] for i in range(5))
            # Layouts that differ only in v (adjacent in candidate order) share every term of the floor but the bubble.
            same = _starts_of(r)
            for x in (k_tp, k_pp, k_cp, k_mb, code):
                same[1:] |= x[1:] != x[:-1]
            groups = _segments(same)
            floor = row_tier[seg] * 1e12 + _step_floor(strategy, w, hw, nn, k_tp, k_pp, k_v, code, k_mb, k_cp, groups) + c * 1e-9
            one = _first_min(floor, starts, seg)
            ev1 = _evaluate(strategy, w, hw, nn[one], k_tp[one], k_pp[one], k_v[one], code[one], k_mb[one], k_cp[one], bands=("mid",))
            bound = row_tier * 1e12 + ev1.step["mid"] + c[one] * 1e-9
            keep = (floor <= bound[seg]) | (row_tier[seg] >= 3)
        r, c, code, nn = r[keep], c[keep], code[keep], nn[keep]
        starts, seg = _segments(_starts_of(r))
        c_tp, c_pp, c_v, c_mb, c_cp = (column[i][c] for i in range(5))
        ev = _evaluate(strategy, w, hw, nn, c_tp, c_pp, c_v, code, c_mb, c_cp, bands=("mid",))
        fits = ev.memory <= mem_cap
        # Lexicographic: fits with headroom and keeps the batch, then fits, then least memory; within a tier the
        # shortest step wins.
        tier = _tier(~fallback[r], ev.memory <= MEMORY_HEADROOM * mem_cap, fits, ev.dp <= seqs)
        key = tier * 1e12 + np.where(tier < 3, ev.step["mid"], ev.memory / GB)
        key = key + c * 1e-9  # equal keys: the earlier candidate
        pick = _first_min(key, starts, seg)
        best[r[pick]] = c[pick]
        best_code[r[pick]] = code[pick]
        lo = hi
    return best, best_code


def estimate_strategy(
    strategy: str, w: Workload, hw: Hardware, gpus: np.ndarray, tokens: float, like: StrategyEstimate | None = None
) -> StrategyEstimate:
    """Memory, time and fit for one strategy at every GPU count in ``gpus``.

    Data-parallel strategies take the recomputation and micro-batch with the shortest modelled step that fit with 10%
    headroom, else that fit at all (seed:K10: memory and speed trade against each other; seed:K17: memory limits the
    batch). Megatron takes the layout — TP x PP x v and recomputation — with the shortest modelled step among those that
    fit with 10% headroom and keep the batch.
    ``like``: where that estimate fits, take its recomputation and micro-batch (CPU offload is priced as what it is, a
    way to buy memory GPU-resident ZeRO-3 lacks, not a way to change the step: so it is never faster where ZeRO-3 fits).
    """
    n = np.asarray(gpus, dtype=float)
    mem_cap = hw.spec.capacity_gb * GB
    modes = _recompute_modes(w, strategy, hw)
    seqs = float(w.global_batch_seqs)
    ones = np.ones_like(n)
    if spec(strategy).model_parallel:
        candidates = [(tp, pp, v, w.micro_batch or 1, cp) for tp, cp, pp, v in _layouts(w, hw)]
    else:
        micro = (w.micro_batch,) if w.micro_batch else MICRO_BATCH_CHOICES
        candidates = [(1, 1, 1, b, 1) for b in micro]
    codes = [RECOMPUTE_CODE[m] for m in modes]
    # For a fixed candidate, less recomputation is always faster, so memory alone picks each candidate's recomputation
    # and one timing pass compares the candidates.
    table = np.array(candidates, dtype=float)  # one row per candidate: TP, PP, v, micro-batch, CP
    room = MEMORY_HEADROOM * mem_cap
    best = np.zeros(n.shape, dtype=int)
    best_code = np.zeros(n.shape)
    flat = n.ravel()
    picked: _Eval | None = None
    if spec(strategy).model_parallel:
        if like is not None:
            raise ValueError(f"{strategy}: a model-parallel strategy has no GPU-resident twin")
        picks, picked_codes = _megatron_picks(strategy, w, hw, flat, table, codes)
        best, best_code = picks.reshape(n.shape), picked_codes.reshape(n.shape)
    else:
        # Every micro-batch at every GPU count at once: counts down axis 0, micro-batches along axis 1 (in chunks of
        # counts, so a sweep of thousands of counts stays within a few MB per array).
        step_rows = max(1, LAYOUT_CHUNK // len(candidates))
        # Activations depend on the candidate alone, not on the GPU count: each recomputation's, per candidate, computed
        # once and gathered (the same arithmetic on the same values, so the same bytes).
        act_by_code = _activation_table(strategy, w, table, codes)
        if any(c < -1.0 for c in codes):  # an offload the CPU's memory cannot hold never fits
            host = float(hw.spec.host_memory_gb_per_gpu or 0.0) * GB
            act_by_code = {c: np.where(offloaded_bytes(w, table[:, 0], c, table[:, 3]) > host, np.inf, a) if c < -1.0 else a
                           for c, a in act_by_code.items()}
        for lo in range(0, flat.size, step_rows):
            rows = np.arange(lo, min(flat.size, lo + step_rows))
            cols = np.arange(len(candidates))[None, :]
            c_tp, c_pp, c_v, c_mb, c_cp = (table[cols, i] for i in range(5))
            nn = flat[rows][:, None]
            states = model_state_bytes(strategy, w, nn, c_tp, c_pp, hw.gpus_per_node)
            code = np.full(np.broadcast_shapes(nn.shape, c_tp.shape), codes[-1])
            for c in codes[-2::-1]:  # from the most recomputation down: the least that fits wins
                code = np.where(states + act_by_code[c][cols] + CUDA_OVERHEAD_BYTES <= room, c, code)
            useful = np.ones(code.shape, dtype=bool)
            if like is not None:
                # Where the GPU-resident twin fits, take its recomputation and micro-batch.
                lf, lc, lm = (x.ravel()[rows][:, None] for x in (like.fits, like.recompute_code, like.micro_batch))
                code = np.where(lf, lc, code)
                useful = ~lf | (lm == c_mb)
            # Micro-batch x accumulation must be each rank's share exactly, and the share is known from the count alone:
            # a micro-batch that does not divide it is never picked (micro-batch 1 always does), so it is not timed
            # (past the global batch's sequences in ranks, only micro-batch 1 is: issue 20).
            _dp, share = _share(w, nn, c_tp, c_pp, c_cp)
            useful = useful & ((np.mod(share, c_mb) == 0) | (c_mb == 1))
            useful = useful | ~useful.any(axis=1, keepdims=True)  # never: micro-batch 1 divides every share
            r, k = np.nonzero(useful)
            code = (code * np.ones(useful.shape))[r, k]
            p_tp, p_pp, p_v, p_mb, p_cp = (table[k, i] for i in range(5))
            # In one chunk, every band is timed here and the picks are cut out of it: the numbers timing the picks
            # again would give, for one pass over the formulas instead of two.
            once = flat.size <= step_rows
            ev = _evaluate(strategy, w, hw, flat[rows][r], p_tp, p_pp, p_v, code, p_mb, p_cp, bands=_BANDS if once else ("mid",))
            fits = ev.memory <= mem_cap
            ok = useful[r, k] & ((np.mod(ev.share, p_mb) == 0) | (p_mb == 1))  # micro-batch x accumulation = each rank's share, exactly
            # The fastest micro-batch that fits with 10% headroom, then the fastest that fits at all; where none fits, the
            # least memory. On a slow link a larger micro-batch under more recomputation can beat many small
            # micro-batches (ZeRO-3/FSDP re-gather for every micro-batch).
            roomy = ev.memory <= MEMORY_HEADROOM * mem_cap
            key = np.where(fits & ok, np.where(roomy, 0.0, 1e11) + ev.step["mid"], np.where(ok, 1e12 + ev.memory / GB, 9e12))
            key = key + k * 1e-9  # equal keys: the earlier candidate
            pick = _first_min(key, *_segments(_starts_of(r)))
            best.ravel()[rows[r[pick]]] = k[pick]
            best_code.ravel()[rows[r[pick]]] = code[pick]
            if once:
                picked = _picked(ev, pick, n.shape)
    tp, pp, vpp, mb, cp = (table[best, i] for i in range(5))
    ev = picked if picked is not None else _evaluate(strategy, w, hw, n, tp, pp, vpp, best_code, mb, cp)
    fits = ev.memory <= mem_cap
    cpu = cpu_bytes_per_node(strategy, w, n, hw)
    cpu = cpu + offloaded_bytes(w, tp, best_code, mb) * ones * hw.gpus_per_node  # offloaded activations: the node's GPUs' share
    cpu_fits = np.ones(n.shape, dtype=bool) if hw.cpu_memory_per_node is None else cpu <= hw.cpu_memory_per_node
    batch_ok = ev.dp <= seqs

    # Largest micro-batch that would fit (seed:K17 "is GPU memory limiting the batch size?").
    per_sample = ev.act / mb
    headroom = mem_cap - ev.states - CUDA_OVERHEAD_BYTES
    max_mb = np.where(per_sample > 0, np.floor(np.maximum(headroom, 0) / per_sample), 0)

    batch_tokens = np.full(n.shape, seqs * w.seq_len)
    overhead = time_off_training(n) + spot_overhead(n, hw)
    gpu_bound_hours = ev.step["mid"] * (tokens / batch_tokens) * overhead / 3600.0
    step = ev.step
    if hw.data_tokens_per_sec:
        # The loader feeds one batch in batch_tokens / rate seconds: no step is shorter (seed:K19).
        step = {band: np.maximum(s, batch_tokens / hw.data_tokens_per_sec) for band, s in ev.step.items()}
    hours = {band: step[band] * (tokens / batch_tokens) * overhead / 3600.0 for band in step}
    comm = sum((c.seconds for c in ev.plan), np.zeros_like(n))
    ep = expert_degree(strategy, w, n, n / (tp * pp), hw.gpus_per_node) * ones
    return StrategyEstimate(
        strategy=strategy, gpus=n, recompute=_recompute_names(best_code).reshape(n.shape),
        recompute_code=best_code, model_states=ev.states, activations=ev.act, memory=ev.memory,
        cpu_per_node=cpu, fits=fits, cpu_fits=cpu_fits, batch_ok=batch_ok, compute_s=ev.compute["mid"], comm_s=comm,
        exposed_comm_s=ev.exposed["mid"], bubble_s=ev.compute["mid"] * ev.bubble, step_s=step, hours=hours,
        gpu_bound_hours=gpu_bound_hours,
        accumulation=ev.accumulation, max_micro_batch=max_mb, tp=tp, pp=pp, vpp=vpp, ep=ep, cp=cp, micro_batch=mb,
        batch_tokens=batch_tokens, interruption_factor=interruption_overhead(n), wallclock_factor=overhead, collectives=ev.plan,
    )


def _picked(ev: _Eval, pick: np.ndarray, shape: tuple[int, ...]) -> _Eval:
    """The evaluation of (count, candidate) pairs at the pairs ``pick`` (one per count, in order), shaped ``shape``."""
    size = int(np.shape(ev.memory)[0])

    def cut(x: Any) -> np.ndarray:
        full = x if isinstance(x, np.ndarray) and x.shape == (size,) else np.broadcast_to(x, (size,))
        return full[pick].reshape(shape)

    plan = [Collective(c.name, c.kind, cut(c.payload), cut(c.calls), cut(c.intra_bytes), cut(c.inter_bytes), cut(c.seconds), c.overlap)
            for c in ev.plan]
    return _Eval(cut(ev.states), cut(ev.act), cut(ev.memory), cut(ev.dp), cut(ev.share), cut(ev.accumulation),
                 {b: cut(v) for b, v in ev.compute.items()}, cut(ev.bubble), plan, {b: cut(v) for b, v in ev.exposed.items()},
                 {b: cut(v) for b, v in ev.step.items()})


def _recompute_names(codes: np.ndarray) -> np.ndarray:
    """Each point's recomputation by name, looked up at once (a per-point loop cost ~20 ms over a 16,384-count sweep)."""
    keys = np.array(sorted(_RECOMPUTE_NAME), dtype=float)
    names = np.array([_RECOMPUTE_NAME[k] for k in sorted(_RECOMPUTE_NAME)], dtype=object)
    flat = np.asarray(codes, dtype=float).ravel()
    at = np.clip(np.searchsorted(keys, flat), 0, keys.size - 1)
    if not np.array_equal(keys[at], flat):
        raise KeyError(f"unknown recomputation code in {sorted(set(flat.tolist()) - set(keys.tolist()))}")
    return names[at]


_LAST: tuple[Answers, np.ndarray, dict[str, StrategyEstimate], dict[str, Any]] | None = None
"""The last estimate over many counts, for the same answers object: the decision search prices every whole-node count
and then the facts want some of them (issue 20); each point is computed on its own, so a subset is a slice of it."""

MEMO_MAX_COUNTS = 4096
"""Largest estimate kept for reuse (a 16,384-GPU search holds 2,048 counts; a sweep's hundred thousand are not kept)."""


def estimate_all(answers: Answers, gpus: np.ndarray | None = None) -> tuple[dict[str, StrategyEstimate], dict[str, Any]]:
    """Every strategy at the given GPU counts (default: the answers' own), calibrated to a known duration.

    Returns the estimates and a context dict (workload, hardware, tokens, whether tokens were implied).
    """
    global _LAST
    if gpus is None:
        return _estimate_all(answers, None)
    counts = np.asarray(gpus, dtype=float)
    last = _LAST
    if last is not None and last[0] is answers and counts.ndim == 1 and counts.size:
        pos = np.clip(np.searchsorted(last[1], counts), 0, last[1].size - 1)
        if np.array_equal(last[1][pos], counts):
            return {s: e.take(pos) for s, e in last[2].items()}, dict(last[3])
    results, ctx = _estimate_all(answers, counts)
    if counts.ndim == 1 and 1 < counts.size <= MEMO_MAX_COUNTS and bool(np.all(np.diff(counts) > 0)):
        _LAST = (answers, counts.copy(), results, dict(ctx))
    return results, ctx


def _estimate_all(answers: Answers, gpus: np.ndarray | None) -> tuple[dict[str, StrategyEstimate], dict[str, Any]]:
    w = workload_from(answers)
    hw = hardware_from(answers)
    measured = _refit(answers, w, hw) if answers.training.measured is not None else None
    if measured is not None:
        hw = replace(hw, efficiency_scale=measured["efficiency_scale"])
    counts = np.asarray([answers.cluster.gpus] if gpus is None else gpus, dtype=float)
    baseline = answers.training.baseline_hours
    tokens = answers.training.data_tokens or w.global_batch_tokens  # placeholder when only a duration is known
    results: dict[str, StrategyEstimate] = {}
    for s in STRATEGIES:
        twin = spec(s).resident_twin
        like = results[twin] if twin else None
        results[s] = estimate_strategy(s, w, hw, counts, tokens, like)
    add_post_training(results, answers, w, hw, counts)  # dpo/grpo/ppo: reference, reward, rollouts (estimate/posttrain.py)
    tokens_implied = False
    conflict: dict[str, float] | None = None
    if baseline is not None:
        # The known duration is the truth for the team's current strategy at its GPU count: scale
        # every strategy by its modelled time ratio to that one, band by band.
        current = answers.training.current_strategy
        at = np.flatnonzero(counts == answers.cluster.gpus)[:1] if counts.ndim == 1 else np.array([], dtype=int)
        if gpus is None:
            ref_hours = {band: results[current].hours[band].copy() for band in results[current].hours}
        elif at.size:
            # Today's count is among those estimated: each count is priced on its own, so its hours are the reference.
            ref_hours = {band: results[current].hours[band][at] for band in results[current].hours}
        else:
            ref_hours = _with_twin(current, w, hw, np.asarray([answers.cluster.gpus], dtype=float), tokens).hours
        for est in results.values():
            est.gpu_bound_hours = baseline * est.gpu_bound_hours / ref_hours["mid"][0]
            for band in est.hours:
                est.hours[band] = baseline * est.hours[band] / ref_hours[band][0]
        implied = tokens * baseline / ref_hours["mid"][0]
        if answers.training.data_tokens is None:
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
    if answers.training.stages_before:
        _add_stages_before(results, answers, counts)
    ctx = {"workload": w, "hardware": hw, "tokens": float(tokens), "tokens_implied": tokens_implied, "baseline_hours": baseline,
           "tokens_conflict": conflict, "measured": measured}
    return results, ctx


def _add_stages_before(results: dict[str, StrategyEstimate], answers: Answers, counts: np.ndarray) -> None:
    """A pipeline's time is its stages' (training.stages_before, then the answers' own), run one after another on the same
    GPUs: each earlier stage is the same job with its own training, priced at every count with the strategy of the plan
    where it runs there, else the fastest that does (estimate.stages.price_stage's rule). So the search chooses the GPUs
    for the whole pipeline and judges the deadline and budgets on its total (user try 8: 40B tokens of continued
    pre-training before a 200M-token SFT were left out of the time, the cost, the deadline and the budget)."""
    for stage in answers.training.stages_before or ():
        variant = answers.model_copy(update={"training": stage.training(answers.training.precision)})
        before, _ctx = _estimate_all(variant, counts)
        mids = np.stack([np.where(before[s].usable, before[s].hours["mid"], np.inf) for s in STRATEGIES])
        fastest = np.argmin(mids, axis=0)
        anyone = np.isfinite(mids.min(axis=0))
        at = np.arange(counts.size)
        # each band's hours of the fastest strategy that runs the stage, at each count (once, for every strategy below)
        fastest_hours = {band: np.stack([before[t].hours[band] for t in STRATEGIES])[fastest, at] for band in before[STRATEGIES[0]].hours}
        for s, est in results.items():
            own = before[s].usable | ~anyone  # its own strategy where it runs (or where nothing does: the stage table says so)
            for band in est.hours:
                est.hours[band] = est.hours[band] + np.where(own, before[s].hours[band], fastest_hours[band])
    # gpu_bound_hours stays this stage's: the loader rate it gives is the rate of the tokens this stage reads (user try 8:
    # 200M SFT tokens over the pipeline's 3.6 days read 'must deliver about 639 tokens/s')


def gpu_hours_floor(answers: Answers) -> float | None:
    """A floor under every strategy's mid-band GPU-hours (hours x GPUs) at any GPU count, without pricing one: the
    run's FLOPs at the band's mid efficiency with nothing added — each step's work per GPU is at least its share of the
    batch's FLOPs (recomputation, uneven stages and the busiest rank only add), and bubbles, exposed communication, data
    loading and time off training only lengthen the step (_work, _compute_seconds, estimate_strategy). A known duration
    scales it as _estimate_all's calibration scales every estimate; None where a measured step refits the efficiency, a
    post-training method adds rollouts to the reference that calibration divides by, or neither tokens nor a duration
    is given. What advice._any_option_meets reads to prove that no option fits a budget before pricing 2,048 counts
    (issue 20)."""
    t = answers.training
    if t.measured is not None or t.method in POST_TRAINING_METHODS:
        return None  # a refit efficiency, or post-training's rollouts in the reference a known duration scales by
    w, hw = workload_from(answers), hardware_from(answers)
    tokens = float(t.data_tokens or w.global_batch_tokens)  # _estimate_all's placeholder where a duration stands in
    peak = _peak_flops(w, hw)
    # FP8 at its best here: one GPU's whole layer (no TP) and micro-batches long enough that the weight casts vanish
    fp8 = min(fp8_time_factor(w, False, 1.0, 1e12), fp8_time_factor(w, True)) if w.fp8 else 1.0
    floor = tokens * w.flops_per_token * fp8 / (peak * mfu_band(hw.spec.band).mid) / 3600.0
    if t.baseline_hours is not None:
        if t.current_strategy not in STRATEGIES:
            return None
        # The known duration scales every strategy at every count by one factor, baseline / today's modelled hours.
        today = _with_twin(t.current_strategy, w, hw, np.asarray([float(answers.cluster.gpus)]), tokens).hours["mid"][0]
        floor = floor * t.baseline_hours / float(today)
    elif t.data_tokens is None:
        return None
    return floor


MEASURED_FIT_ROUNDS = 6
"""Fixed-point rounds of the efficiency refit: exposed communication and bubbles make the step non-linear in efficiency,
and six rounds bring the modelled step within 0.1% of the measured one in every case tried [obs]."""


def _refit(answers: Answers, w: Workload, hw: Hardware) -> dict[str, Any]:
    """The efficiency scale at which the measured strategy, at the measured GPU count, takes the measured step.

    Returns the scale and the throughput before and after, for the memo's 'before and after' line."""
    m = answers.training.measured
    assert m is not None
    strategy = m.strategy or answers.training.current_strategy
    here = np.asarray([float(m.gpus)])
    batch = float(w.global_batch_seqs * w.seq_len)
    target_step = m.step_seconds if m.step_seconds is not None else batch / float(m.tokens_per_sec or 1.0)

    def step(scale: float) -> float:
        h = replace(hw, efficiency_scale=scale, data_tokens_per_sec=None)
        return float(_with_twin(strategy, w, h, here, batch).step_s["mid"][0])

    before = step(1.0)
    scale = 1.0
    modelled = before
    for _round in range(MEASURED_FIT_ROUNDS):
        scale = float(np.clip(scale * modelled / target_step, 0.05, 5.0))
        modelled = step(scale)
    return {"strategy": strategy, "gpus": int(m.gpus), "efficiency_scale": scale,
            "tokens_per_sec_before": batch / before, "tokens_per_sec_measured": batch / target_step,
            "tokens_per_sec_after": batch / modelled}


def hours_before_calibration(ctx: dict[str, Any], strategy: str, gpus: int) -> float | None:
    """Mid-band wall-clock hours of ``strategy`` on ``gpus`` with the efficiency as it was before the refit to
    training.measured (None without a measurement): the memo's 'before' beside the calibrated plan."""
    if not ctx.get("measured"):
        return None
    hw = replace(ctx["hardware"], efficiency_scale=1.0)
    return float(_with_twin(strategy, ctx["workload"], hw, np.asarray([float(gpus)]), ctx["tokens"]).hours["mid"][0])


def _with_twin(strategy: str, w: Workload, hw: Hardware, counts: np.ndarray, tokens: float) -> StrategyEstimate:
    """One strategy at ``counts`` on its own, its GPU-resident twin estimated first where it has one (the ``like`` an
    offload takes its micro-batch and recomputation from, as in _estimate_all)."""
    twin = spec(strategy).resident_twin
    like = estimate_strategy(twin, w, hw, counts, tokens) if twin else None
    return estimate_strategy(strategy, w, hw, counts, tokens, like)


TOKENS_DURATION_TOLERANCE = 1.5
"""Given tokens and a known duration that imply each other within 1.5x agree (the MFU band itself spans about that)."""


def cost(hours: np.ndarray | float, price: float, gpus: np.ndarray | float) -> np.ndarray:
    """seed:K14 — cost = training time x price per GPU-hour x number of GPUs."""
    return np.asarray(hours, dtype=float) * price * np.asarray(gpus, dtype=float)
