"""Issue 20: Megatron's layout search prices each GPU count's dividing layouts and prunes by tier and by a floor under
the step (estimate.model._megatron_picks). Its picks are those of pricing every layout at every count, and the floor is
never above the step it bounds — on dense, mixture-of-experts, long-sequence, FP8 and QLoRA workloads."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.estimate import GB, hardware_from, workload_from
from advisor.estimate.layout import MEMORY_HEADROOM, _layouts
from advisor.estimate.model import RECOMPUTE_CODE, _activations, _evaluate, _megatron_picks, _recompute_modes, _step_floor
from advisor.estimate.workload import CUDA_OVERHEAD_BYTES
from advisor.inputs.answers import answers_from_mapping

from .conftest import MINIMAL, with_

WORKLOADS = {
    "7B on A100": dict(model={"params": "7B"}, cluster={"gpu": "a100-80gb", "gpus": 64}),
    "70B on H100, 100 Gbit/s": dict(model={"params": "70B"}, cluster={"gpu": "h100-sxm", "gpus": 256, "inter_node_gbps": 100}),
    "MoE": dict(model={"params": "46.7B", "active_params": "12.9B", "experts": 8, "experts_per_token": 2},
                cluster={"gpu": "h100-sxm", "gpus": 256}),
    "128K tokens": dict(model={"params": "70B", "seq_len": 131072}, training={"global_batch_tokens": 16 * 2**20},
                        cluster={"gpu": "h100-sxm", "gpus": 1024}),
    "FP8": dict(model={"params": "13B"}, training={"precision": "fp8"}, cluster={"gpu": "h100-sxm", "gpus": 128}),
    "QLoRA": dict(model={"params": "13B"}, training={"method": "qlora"}, cluster={"gpu": "a100-40gb", "gpus": 8}),
}
COUNTS = np.array(sorted({1, 2, 3, 4, 6, 12, 20, 1000, 4104, 10_000, 16_384} | set(range(8, 2049, 24))), dtype=float)


def _brute(strategy, w, hw, counts, table, codes):
    """Every layout at every count: recomputation by memory, then the tier and the shortest step, as documented."""
    mem_cap = hw.spec.capacity_gb * GB
    nn = counts[:, None] * np.ones((1, table.shape[0]))
    tp, pp, v, mb, cp = (table[:, i][None, :] * np.ones_like(nn) for i in range(5))
    code = np.full(nn.shape, codes[-1])
    for c in codes[-2::-1]:
        act = _activations(strategy, w, tp, pp, v, np.full(nn.shape, c), mb) / cp
        memory = _evaluate(strategy, w, hw, nn, tp, pp, v, np.full(nn.shape, c), mb, cp).states + act + CUDA_OVERHEAD_BYTES
        code = np.where(memory <= MEMORY_HEADROOM * mem_cap, c, code)
    ev = _evaluate(strategy, w, hw, nn, tp, pp, v, code, mb, cp)
    divides = (np.mod(nn, tp * pp * cp) == 0) & (nn >= tp * pp * cp)
    fits, roomy, feeds = ev.memory <= mem_cap, ev.memory <= MEMORY_HEADROOM * mem_cap, ev.dp <= float(w.global_batch_seqs)
    tier = np.select([divides & roomy & feeds, divides & fits & feeds, divides & fits, divides], [0, 1, 2, 3], 9)
    key = tier * 1e12 + np.where(tier < 3, ev.step["mid"], ev.memory / GB) + np.arange(table.shape[0])[None, :] * 1e-9
    pick = np.argmin(key, axis=1)
    return pick, code[np.arange(counts.size), pick], (nn, tp, pp, v, code, mb, cp, ev.step["mid"])


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_the_pruned_layout_search_picks_as_pricing_every_layout_everywhere(name):
    a = answers_from_mapping(with_(MINIMAL, **WORKLOADS[name]))
    w, hw = workload_from(a), hardware_from(a)
    table = np.array([(tp, pp, v, w.micro_batch or 1, cp) for tp, cp, pp, v in _layouts(w, hw)], dtype=float)
    codes = [RECOMPUTE_CODE[m] for m in _recompute_modes(w)]
    pick, code, (nn, tp, pp, v, all_codes, mb, cp, step) = _brute("megatron-3d", w, hw, COUNTS, table, codes)
    got, got_code = _megatron_picks("megatron-3d", w, hw, COUNTS, table, codes)
    assert got.tolist() == pick.tolist()
    assert got_code.tolist() == code.tolist()
    floor = _step_floor("megatron-3d", w, hw, nn, tp, pp, v, all_codes, mb, cp)
    assert np.all(floor <= step), "the floor must never exceed the step it bounds, or the pruning could drop the fastest layout"


def _brute_data_parallel(strategy, w, hw, counts, like=None):
    """Every micro-batch at every count, as estimate_strategy documents the choice: recomputation by memory (or the
    GPU-resident twin's where it fits), then fits with headroom, fits, least memory; the micro-batch must divide each
    rank's share."""
    from advisor.estimate.model import MICRO_BATCH_CHOICES

    mem_cap = hw.spec.capacity_gb * GB
    micro = np.array((w.micro_batch,) if w.micro_batch else MICRO_BATCH_CHOICES, dtype=float)
    nn = counts[:, None] * np.ones((1, micro.size))
    mb = micro[None, :] * np.ones_like(nn)
    one = np.ones_like(nn)
    codes = [RECOMPUTE_CODE[m] for m in _recompute_modes(w)]
    code = np.full(nn.shape, codes[-1])
    for c in codes[-2::-1]:
        memory = _evaluate(strategy, w, hw, nn, one, one, one, np.full(nn.shape, c), mb, one).memory
        code = np.where(memory <= MEMORY_HEADROOM * mem_cap, c, code)
    useful = np.ones(nn.shape, dtype=bool)
    if like is not None:
        lf, lc, lm = (x[:, None] for x in (like.fits, like.recompute_code, like.micro_batch))
        code = np.where(lf, lc, code)
        useful = ~lf | (lm == mb)
    ev = _evaluate(strategy, w, hw, nn, one, one, one, code, mb, one)
    useful &= (np.mod(ev.share, mb) == 0) | (mb == 1)
    fits, roomy = ev.memory <= mem_cap, ev.memory <= MEMORY_HEADROOM * mem_cap
    key = np.where(fits & useful, np.where(roomy, 0.0, 1e11) + ev.step["mid"], np.where(useful, 1e12 + ev.memory / GB, 9e12))
    pick = np.argmin(key + np.arange(micro.size)[None, :] * 1e-9, axis=1)
    return micro[pick], code[np.arange(counts.size), pick]


@pytest.mark.parametrize("name", ["7B on A100", "70B on H100, 100 Gbit/s", "MoE", "QLoRA"])
def test_data_parallel_strategies_pick_the_micro_batch_as_timing_every_one(name):
    """Micro-batches that do not divide a rank's share are no longer timed (past the batch's sequences in ranks only
    micro-batch 1 is): the picks are those of timing every micro-batch at every count."""
    from advisor.estimate.model import estimate_strategy

    a = answers_from_mapping(with_(MINIMAL, **WORKLOADS[name]))
    w, hw = workload_from(a), hardware_from(a)
    for strategy, twin in (("fsdp", None), ("deepspeed-zero2", None), ("deepspeed-zero3", None),
                           ("deepspeed-zero3-offload", "deepspeed-zero3")):
        like = estimate_strategy(twin, w, hw, COUNTS, 1e9) if twin else None
        got = estimate_strategy(strategy, w, hw, COUNTS, 1e9, like)
        micro, code = _brute_data_parallel(strategy, w, hw, COUNTS, like)
        assert got.micro_batch.tolist() == micro.tolist(), strategy
        assert got.recompute_code.tolist() == code.tolist(), strategy


def test_the_per_count_minimum_is_np_argmins_even_with_nan_and_infinities():
    """_first_min picks per run of counts what np.argmin picks per row: the first of equal minima, the first NaN."""
    from advisor.estimate.model import _first_min, _starts_of

    rng = np.random.default_rng(1)
    for _ in range(300):
        rows = int(rng.integers(1, 6))
        seg = np.repeat(np.arange(rows), rng.integers(1, 6, rows))
        values = rng.choice([1.0, 2.0, 3.0, np.nan, np.inf, -np.inf], seg.size)
        starts = np.flatnonzero(_starts_of(seg))
        expected = [int(starts[i] + np.argmin(values[seg == i])) for i in range(rows)]
        assert _first_min(values, starts, seg).tolist() == expected
