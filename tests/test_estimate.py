"""The estimate model against its published formulas, the seed's worked example, and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.decision.advice import advise
from advisor.inputs.answers import STRATEGIES, answers_from_mapping
from advisor.estimate import (
    CUDA_OVERHEAD_BYTES,
    activation_bytes,
    allreduce_time,
    cost,
    estimate_all,
    hardware_from,
    infer_shape,
    model_state_bytes,
    workload_from,
)

from .conftest import EXAMPLES, MINIMAL, with_


def _answers(**sections):
    return answers_from_mapping(with_(MINIMAL, **sections))


# ---- DeepSpeed's own estimator formulas (estimators-notes §2), written out independently here.


def ds_zero2_gpu(P, gpus):
    return 2 * P + int(18 * P / gpus)


def ds_zero3_gpu(P, largest, gpus, offload_param=False):
    return 4 * largest if offload_param else 4 * largest + int(18 * P / gpus)


def ds_zero3_cpu_offload_zero_init(P, nodes):
    return P * 18 * (1 / nodes) * 1.5


@pytest.mark.parametrize("params, gpus", [(2851e6, 8), (7e9, 8), (13e9, 64), (70e9, 512), (175e9, 1024), (1.3e9, 1)])
def test_zero2_and_zero3_model_states_equal_deepspeeds_estimators(params, gpus):
    a = _answers(model={"params": params}, cluster={"gpus": gpus, "gpus_per_node": min(8, gpus)})
    w = workload_from(a)
    n = np.array([gpus], dtype=float)
    one = np.ones(1)
    assert model_state_bytes("deepspeed-zero2", w, n, one, one)[0] == pytest.approx(ds_zero2_gpu(params, gpus), rel=1e-12)
    assert model_state_bytes("deepspeed-zero3", w, n, one, one)[0] == pytest.approx(ds_zero3_gpu(params, w.largest_layer, gpus), rel=1e-12)
    assert model_state_bytes("deepspeed-zero3-offload", w, n, one, one)[0] == pytest.approx(ds_zero3_gpu(params, w.largest_layer, gpus, True))
    est, _ = estimate_all(a)
    nodes = max(1, gpus // 8)
    assert est["deepspeed-zero3-offload"].cpu_per_node[0] == pytest.approx(ds_zero3_cpu_offload_zero_init(params, nodes), rel=1e-12)


def test_the_docs_t5_3b_example_reproduces_the_current_zero2_formula():
    """estimators-notes §2: t5-3b on 8 GPUs is ~11.28 GiB with the current ZeRO-2 code."""
    assert ds_zero2_gpu(2851e6, 8) / 2**30 == pytest.approx(11.28, abs=0.01)


def test_ddp_uses_the_16_bytes_per_parameter_convention():
    a = _answers(model={"params": "7B"})
    w = workload_from(a)
    n = np.array([64.0])
    assert model_state_bytes("ddp", w, n, np.ones(1), np.ones(1))[0] == 16 * 7e9
    assert model_state_bytes("fsdp", w, n, np.ones(1), np.ones(1))[0] == pytest.approx(16 * 7e9 / 64 + 4 * w.largest_layer)


@pytest.mark.parametrize("mode, per_layer", [("none", "34"), ("selective", "34"), ("full", "2")])
def test_activations_follow_korthikanti_table_2(mode, per_layer):
    """Korthikanti et al. 2022 Table 2 with a fused attention kernel (issue 24): no checkpointing stores no s x s scores,
    so it keeps what selective recomputation keeps, 34sbh per layer (the 5as/h term was the unfused kernel's)."""
    a = _answers(model={"params": "7B", "layers": 32, "hidden_size": 4096, "attention_heads": 32, "seq_len": 2048})
    w = workload_from(a)
    s, b, h, L, heads = 2048, 1, 4096, 32, 32
    factor = {"34+5as/h": 34 + 5 * heads * s / h, "34": 34, "2": 2}[per_layer]
    assert activation_bytes(w, mode) == pytest.approx(s * b * h * L * factor)


def test_ring_allreduce_matches_the_nccl_formula_on_one_node():
    a = _answers(cluster={"gpus": 8})
    hw = hardware_from(a)
    size = 14e9
    # nccl-tests' bus bandwidth formula, plus the latency NCCL's own model adds on Simple (tuning.cc: 8.4 us + 3.4 us a step).
    assert allreduce_time(size, np.array([8.0]), hw)[0] == pytest.approx(2 * 7 / 8 * size / hw.intra_bw + 8.4e-6 + 2 * 7 * 3.4e-6)
    assert allreduce_time(size, np.array([1.0]), hw)[0] == 0.0


@pytest.mark.parametrize("params, layers, hidden", [(7e9, 32, None), (7e9, None, 4096), (1.7e9, None, None), (70e9, None, None)])
def test_inferred_shapes_reproduce_the_parameter_count(params, layers, hidden):
    shape = infer_shape(params, 32000, layers, hidden, None)
    n = 12 * shape.layers * shape.hidden**2 + 13 * shape.layers * shape.hidden + 32000 * shape.hidden
    assert n == pytest.approx(params, rel=0.08)


def test_the_seeds_worked_example_comes_out_exactly(rules):
    """seed:K16: 10 CNY/GPU-hour, 1,000 GPUs, one day = 240,000 CNY; 20% faster saves 48,000 CNY/day."""
    advice = advise(answers_from_mapping(__import__("yaml").safe_load((EXAMPLES / "thousand-gpus-one-day.yaml").read_text())), rules)
    d = advice.to_dict()
    from advisor.decision.advice import estimate_dict

    baseline = estimate_dict(advice.today, advice.answers.training.current_strategy)  # today's 1,000 GPUs, whatever the plan
    assert baseline["wall_clock_hours"] == pytest.approx(24.0, abs=1e-9)
    assert baseline["cost"] == pytest.approx(240_000.0, abs=1e-6)
    assert baseline["cost_per_day"] == 240_000.0
    assert baseline["savings_if_20pct_faster"] == pytest.approx(48_000.0, abs=1e-6)
    assert d["estimate"]["currency"] == "CNY"


def test_a_known_duration_is_the_baseline_for_the_current_strategy(rules):
    a = _answers(training={"tokens": None, "duration_days": 3, "current_strategy": "deepspeed-zero2"})
    advice = advise(a, rules)
    est = advice.estimate_dict("deepspeed-zero2")
    assert est["wall_clock_hours"] == pytest.approx(72.0)
    assert est["range"]["wall_clock_hours"] == pytest.approx([72.0, 72.0])
    assert advice.to_dict()["scale"]["tokens_implied"] is True


def test_slow_networks_make_more_gpus_less_efficient():
    """seed:K6/K11: on a thin network, the same job's communication share rises with GPU count."""
    a = _answers(model={"params": "1.3B"}, cluster={"gpu": "a10", "gpus": 64, "inter_node_gbps": 25})
    counts = np.array([8, 16, 32, 64, 128, 256, 512], dtype=float)
    est, _ = estimate_all(a, counts)
    share = est["ddp"].communication_share
    assert np.all(np.diff(share) >= -1e-12)
    assert share[-1] > 0.5 > share[0]
    costs = cost(est["ddp"].hours["mid"], 1.0, counts)
    assert costs[-1] > 2 * costs[0]


def test_range_brackets_the_mid_estimate(rules):
    advice = advise(_answers(), rules)
    for s in STRATEGIES:
        e = advice.estimate_dict(s)
        lo, hi = e["range"]["wall_clock_hours"]
        assert lo <= e["wall_clock_hours"] <= hi
        clo, chi = e["range"]["cost"]
        assert clo <= e["cost"] <= chi


def test_memory_adds_up(rules):
    advice = advise(_answers(), rules)
    for s in STRATEGIES:
        e = advice.estimate_dict(s)
        total = e["model_states_gb_per_gpu"] + e["activations_gb_per_gpu"] + CUDA_OVERHEAD_BYTES / 1e9
        assert e["memory_per_gpu_gb"] == pytest.approx(total)
        assert e["fits"] == (e["memory_per_gpu_gb"] <= 80)


answer_space = st.fixed_dictionaries(
    {
        "params": st.floats(min_value=1e8, max_value=5e11),
        "tokens": st.floats(min_value=1e9, max_value=2e13),
        "gpu": st.sampled_from(["a100-80gb", "h100-sxm", "v100-32gb", "rtx4090", "mi300x", "l40s"]),
        "nodes": st.integers(min_value=1, max_value=64),
        "bw": st.floats(min_value=10, max_value=3200),
        "price": st.floats(min_value=0.1, max_value=50),
    }
)


def _from(x):
    return answers_from_mapping(
        {
            "model": {"params": x["params"]},
            "training": {"tokens": x["tokens"]},
            "cluster": {"gpu": x["gpu"], "gpus": 8 * x["nodes"], "inter_node_gbps": x["bw"]},
            "budget": {"price_per_gpu_hour": x["price"]},
        }
    )


@settings(max_examples=40, deadline=None)
@given(answer_space)
def test_cost_is_hours_times_price_times_gpus(rules, x):
    """seed:K14 holds for every strategy and every band."""
    advice = advise(_from(x), rules)
    a = advice.answers
    for s in STRATEGIES:
        e = advice.estimate_dict(s)
        # The estimates are at the plan's GPU count (today's, unless fewer finish as fast or a deadline needs more).
        assert e["cost"] == pytest.approx(e["wall_clock_hours"] * a.budget.price_per_gpu_hour * advice.gpus, rel=1e-9)
        assert e["gpu_hours"] == pytest.approx(e["wall_clock_hours"] * advice.gpus, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(answer_space)
def test_more_gpus_never_raise_compute_time(x):
    a = _from(x)
    counts = np.array([8, 16, 32, 64, 128, 256, 512, 1024], dtype=float)
    est, _ = estimate_all(a, counts)
    for s in ("ddp", "fsdp", "deepspeed-zero2", "deepspeed-zero3"):
        compute = est[s].compute_s
        assert np.all(np.diff(compute) <= 1e-9 * compute[:-1])


@settings(max_examples=40, deadline=None)
@given(answer_space)
def test_the_recommendation_fits_or_is_blocked(rules, x):
    advice = advise(_from(x), rules)
    d = advice.to_dict()
    if not (d["estimate"]["fits"] and d["estimate"]["cpu_fits"]):
        assert any(w["blocking"] for w in d["warnings"])


@settings(max_examples=200, deadline=None)
@given(params=st.floats(2e9, 2e12))
def test_an_inferred_shape_is_one_megatron_can_split_eight_ways(params):
    """A 7B model without a shape came out as 36 layers x hidden 3,988 x 31 heads: 31 heads split over no tensor-parallel
    degree (Megatron-LM requires num_attention_heads % TP == 0), yet the search could choose TP 8 and the launch files
    would write it. Inferred widths are whole multiples of 1,024, so heads = hidden / 128 is a multiple of 8."""
    shape = infer_shape(params, 32000, None, None, None)
    assert shape.hidden % 1024 == 0 and shape.heads * 128 == shape.hidden and shape.heads % 8 == 0
    n = 12 * shape.layers * shape.hidden**2 + 13 * shape.layers * shape.hidden + 32000 * shape.hidden
    assert n == pytest.approx(params, rel=0.15)


@pytest.mark.parametrize("heads, allowed", [(31, {1}), (12, {1, 2, 4}), (40, {1, 2, 4, 8})])
def test_the_layout_search_splits_only_the_heads_it_can(heads, allowed):
    from advisor.estimate.layout import _layouts

    a = _answers(model={"params": "20B", "layers": 40, "hidden_size": 6144, "attention_heads": heads}, cluster={"gpus": 64})
    tps = {tp for tp, _, _, _ in _layouts(workload_from(a), hardware_from(a))}
    assert tps == allowed
