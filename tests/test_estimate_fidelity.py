"""Estimate fidelity (issue 4): DeepSpeed's own estimators, attention FLOPs, collectives, scale effects, MoE,
the memo's what-if section, and a calibration guard against the published runs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimate import dsmem
from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping
from advisor.estimate import (
    LLAMA3_EFFECTIVE,
    LLAMA3_GPUS,
    estimate_all,
    interruption_overhead,
    model_state_bytes,
    pipeline_choices,
    workload_from,
)
from advisor.outputs.render import to_json, to_markdown, to_text

from .conftest import MINIMAL, with_

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference" / "published_runs.yaml"


def _answers(**sections):
    return answers_from_mapping(with_(MINIMAL, **sections))


# ---- DeepSpeed's estimators: the transcription against DeepSpeed itself, row by row.

DS_CASES = [(2851e6, 1e8, 8, 1), (7e9, 131e6, 8, 1), (13e9, 164e6, 8, 8), (70e9, 524e6, 8, 64), (175e9, 600e6, 4, 256), (1.3e9, 5e7, 1, 1)]


@pytest.mark.parametrize("params, largest, per_node, nodes", DS_CASES)
def test_every_row_of_deepspeeds_table_equals_deepspeed_itself(params, largest, per_node, nodes):
    """Issue 4: ZeRO-2/3 with and without offload, GPU and CPU figures, equal to DeepSpeed's functions (±2%; in fact exact)."""
    stage_1_and_2 = pytest.importorskip("deepspeed.runtime.zero.stage_1_and_2", reason="DeepSpeed is not installed (CI installs it)")
    stage3 = pytest.importorskip("deepspeed.runtime.zero.stage3")
    for row in dsmem.estimator_table(2, params, largest, per_node, nodes):
        cpu, gpu = stage_1_and_2.estimate_zero2_model_states_mem_needs(params, per_node, nodes, cpu_offload=row.offload_optimizer)
        assert (row.gpu_bytes, row.cpu_bytes) == (gpu, cpu) and gpu == pytest.approx(row.gpu_bytes, rel=0.02)
    for row in dsmem.estimator_table(3, params, largest, per_node, nodes):
        cpu, gpu, _ = stage3.estimate_zero3_model_states_mem_needs(
            params, largest, per_node, nodes, cpu_offload=row.offload_optimizer, cpu_offload_params=row.offload_param, zero_init=row.zero_init
        )
        assert (row.gpu_bytes, row.cpu_bytes) == (gpu, cpu)


@settings(max_examples=50, deadline=None)
@given(params=st.floats(1e8, 2e12), per_node=st.sampled_from([1, 2, 4, 8, 16]), nodes=st.integers(1, 4096))
def test_the_vectorised_estimators_equal_the_row_by_row_ones(params, per_node, nodes):
    """The sweep prices thousands of counts at once; every element must equal the scalar transcription."""
    counts = np.array([1, nodes, nodes * 2], dtype=float)
    cpu, gpu = dsmem.zero2(params, per_node, counts, cpu_offload=False)
    for i, c in enumerate(counts):
        assert (cpu[i], gpu[i]) == tuple(float(v) for v in dsmem.zero2(params, per_node, int(c), cpu_offload=False))


def test_the_estimate_json_carries_deepspeeds_table_for_zero_strategies(rules):
    a = _answers(model={"params": "13B"}, cluster={"gpus": 64})
    d = json.loads(to_json(advise(a, rules)))
    rows = {alt["strategy"]: alt for alt in d["alternatives"]}
    rows[d["recommendation"]["strategy"]] = d["estimate"]
    zero3 = rows["deepspeed-zero3"]["deepspeed_estimator"]
    assert len(zero3) == 6 and len(rows["deepspeed-zero2"]["deepspeed_estimator"]) == 2
    assert "deepspeed_estimator" not in rows["ddp"]
    no_offload = next(r for r in zero3 if r["options"] == "offload_param=none, offload_optimizer=none, zero_init=1")
    assert no_offload["gpu_gb"] == pytest.approx(rows["deepspeed-zero3"]["model_states_gb_per_gpu"])
    full_offload = next(r for r in zero3 if r["options"].startswith("offload_param=cpu") and r["options"].endswith("zero_init=1"))
    assert full_offload["cpu_gb_per_node"] == pytest.approx(rows["deepspeed-zero3-offload"]["cpu_memory_gb_per_node"])


# ---- compute: attention FLOPs are counted, as the published MFU figures count them.


@pytest.mark.parametrize("seq, layers, hidden", [(2048, 32, 4096), (8192, 80, 8192), (4096, 16, 2048)])
def test_flops_per_token_add_attention_scores_to_six_n(seq, layers, hidden):
    a = _answers(model={"params": "7B", "seq_len": seq, "layers": layers, "hidden_size": hidden})
    w = workload_from(a)
    assert w.flops_per_token == 6 * 7e9 + 12 * layers * hidden * seq


def test_longer_sequences_cost_more_time_for_the_same_tokens():
    short = estimate_all(_answers(model={"params": "7B", "seq_len": 2048}))[0]["fsdp"].hours["mid"][0]
    long = estimate_all(_answers(model={"params": "7B", "seq_len": 8192}))[0]["fsdp"].hours["mid"][0]
    assert long > short * 1.2


# ---- communication: volumes per collective and link.


def test_fsdp_moves_three_times_the_parameters_per_micro_batch():
    """Ultra-Scale Playbook: ZeRO-3 = all-gather forward + backward + reduce-scatter, 3 x 2 bytes x params."""
    a = _answers(model={"params": "7B"}, cluster={"gpus": 64})
    e = estimate_all(a)[0]["fsdp"]
    names = {c.name: c for c in e.collectives}
    gather, scatter = names["parameter all-gather (forward and backward)"], names["gradient reduce-scatter"]
    assert gather.payload[0] == scatter.payload[0] == 2 * 7e9
    assert gather.calls[0] == 2 * scatter.calls[0] == 2 * e.accumulation[0]
    # 8 GPUs a node: in-node bytes (n-1)/n of the payload per call at 8 ranks, network 1/8 of (nodes-1)/nodes.
    assert scatter.intra_bytes[0] == pytest.approx(7 / 8 * 14e9 * scatter.calls[0])
    assert scatter.inter_bytes[0] == pytest.approx(7 / 8 * 14e9 / 8 * scatter.calls[0])


def test_one_gpu_communicates_nothing(rules):
    a = _answers(model={"params": "1B"}, cluster={"gpus": 1, "gpus_per_node": 1})
    d = advise(a, rules).to_dict()
    assert d["estimate"]["communication"]["per_step"] == [] and d["estimate"]["communication_share"] == 0


@pytest.mark.parametrize("network", [10, 25, 100])
def test_a_fixed_job_on_more_gpus_over_a_slow_network_loses_efficiency(network):
    """seed:K6, K11: scaling out on a thin network raises the exposed share, and per-GPU-hour efficiency falls."""
    a = _answers(model={"params": "1.3B"}, cluster={"gpu": "a10", "gpus": 8, "inter_node_gbps": network})
    e = estimate_all(a, np.array([8.0, 64.0, 256.0]))[0]["ddp"]
    share = e.communication_share
    gpu_hours = e.hours["mid"] * e.gpus
    assert share[0] <= share[1] < share[2]
    # Time off training is a flat 1/0.9 below Llama 3's 16,384 GPUs (issue 24), so where the exposed share does not
    # grow the GPU-hours do not either.
    assert gpu_hours[0] <= gpu_hours[1] < gpu_hours[2]
    assert (gpu_hours[0] < gpu_hours[1]) == (share[0] < share[1])


def test_the_advice_says_when_fewer_gpus_would_be_cheaper_and_what_time_it_costs(rules):
    """Issue 10: a "cheaper" claim states the time it costs. Over 25 Gbit/s the 256 GPUs wait on the network: fewer
    finish about as fast for less; cheaper still, and slower, is said with its time. Since issue 24 ZeRO++ compresses the
    traffic enough to keep all 256 GPUs busy (2.6x cheaper than today's DDP), and fewer GPUs stay the cheaper, slower option."""
    a = _answers(model={"params": "1.3B"}, cluster={"gpu": "a10", "gpus": 256, "inter_node_gbps": 25},
                 training={"current_strategy": "ddp"})  # a team on DDP today (a file that does not say so plans anew)
    advice = advise(a, rules)
    cheaper = advice.to_dict()["plan"]["cheaper_slower"]
    assert advice.plan.chosen.hours <= 1.05 * advice.plan.today.hours and advice.plan.chosen.cost < advice.plan.today.cost
    assert cheaper is not None and cheaper["gpus"] < 256 and cheaper["cost"] <= 0.9 * advice.to_dict()["estimate"]["cost"]
    text = to_text(advice)
    line = next(ln for ln in text.splitlines() if "Cheaper but slower" in ln)
    assert f"{cheaper['gpus']} GPUs" in line and "instead of" in line


# ---- scale: batch growth and interruptions.


def test_more_ranks_than_sequences_keep_the_batch_and_say_so(rules):
    """Issue 10 replaced the silent batch growth: 256 sequences cannot feed 1,024 data-parallel ranks, so pure data
    parallelism is not an option at 1,024 GPUs, and the advice says why instead of changing the optimisation."""
    a = _answers(model={"params": "1B", "seq_len": 4096}, training={"global_batch_tokens": "1M"}, cluster={"gpus": 1024})
    advice = advise(a, rules)
    e = advice.estimate_dict("ddp")
    assert e["global_batch_tokens"] == 244 * 4096 and not e["batch_ok"]
    assert e["steps"] == pytest.approx(advice.to_dict()["scale"]["tokens"] / (244 * 4096))
    assert advice.estimate_dict(advice.strategy)["batch_ok"]
    why = " ".join(advice.why_not("ddp"))
    assert "data-parallel ranks but the global batch has only 244 sequences" in why


def test_interruptions_cost_llama3s_ten_percent_at_its_scale_and_little_on_one_node():
    assert interruption_overhead(LLAMA3_GPUS) == pytest.approx(1 / LLAMA3_EFFECTIVE)
    assert interruption_overhead(8) < 1.001


# ---- layouts and mixtures of experts.


def test_pipeline_depths_are_the_shallow_ones_the_divisors_and_the_powers_of_two():
    assert pipeline_choices(105) == (*range(1, 17), 21, 32, 35, 64, 105)
    assert pipeline_choices(32) == (*range(1, 17), 32)
    assert pipeline_choices(8) == tuple(range(1, 9))


def test_mt_nlg_fits_on_2800_gpus_with_an_uneven_pipeline():
    """MT-NLG 530B trained with PP=35 (arXiv:2201.11990); 2,800 GPUs admit no power-of-two pipeline that fits."""
    a = _answers(model={"params": "530B", "layers": 105, "hidden_size": 20480, "attention_heads": 128},
                 training={"global_batch_tokens": 1920 * 2048}, cluster={"gpus": 2800, "inter_node_gbps": 1600})
    e = estimate_all(a)[0]["megatron-3d"]
    assert e.fits[0] and e.batch_ok[0] and 2800 % (e.tp[0] * e.pp[0]) == 0  # uneven stages are allowed since issue 10


def test_moe_expert_parallelism_moves_tokens_and_active_weights_in_megatron():
    """Issue 10 changed FSDP/ZeRO-3 (they gather every parameter and route no tokens, tests/test_estimate_scale.py); the
    expert all-to-all and active-parameter traffic belong to Megatron's expert parallelism."""
    moe = _answers(model={"params": "400B", "active_params": "17B", "experts_per_token": 1}, cluster={"gpus": 512})
    dense = _answers(model={"params": "17B"}, cluster={"gpus": 512})
    m_moe, m_dense = estimate_all(moe)[0]["megatron-3d"], estimate_all(dense)[0]["megatron-3d"]
    assert "expert all-to-all" in {c.name for c in m_moe.collectives}
    assert "expert all-to-all" not in {c.name for c in m_dense.collectives}
    assert estimate_all(moe)[0]["fsdp"].model_states[0] > 10 * estimate_all(dense)[0]["fsdp"].model_states[0]
    top2 = _answers(model={"params": "400B", "active_params": "17B", "experts_per_token": 2}, cluster={"gpus": 512})
    m_top2 = estimate_all(top2)[0]["megatron-3d"]
    a1 = {c.name: c for c in m_moe.collectives}["expert all-to-all"]
    a2 = {c.name: c for c in m_top2.collectives}["expert all-to-all"]
    assert a2.payload[0] / m_top2.micro_batch[0] * m_top2.tp[0] == 2 * a1.payload[0] / m_moe.micro_batch[0] * m_moe.tp[0]


def test_expert_parallelism_spreads_expert_weights_in_megatron_memory():
    a = _answers(model={"params": "400B", "active_params": "17B"}, cluster={"gpus": 512})
    w = workload_from(a)
    n, one = np.array([512.0]), np.ones(1)
    dense_equivalent = 400e9 * (6 + 12 / 512)
    assert model_state_bytes("megatron-3d", w, n, one, one)[0] < dense_equivalent / 5


# ---- the memo and the sweep.


def test_the_memo_has_a_what_if_table_with_the_cheapest_point(rules):
    a = _answers(model={"params": "7B"}, cluster={"gpus": 64}, training={"tokens": "1T", "current_strategy": "ddp"})
    memo = to_markdown(advise(a, rules))
    section = memo[memo.index("## What if: other GPU counts"):memo.index("## Trade-offs")]
    assert "| GPUs | Best strategy |" in section and "today" in section and "| 256 |" in section and "| 8 |" in section
    assert "Communication per optimizer step" in memo and "DeepSpeed's own model-state estimator" in memo


def test_a_deadline_is_named_as_the_reason_a_count_is_infeasible(rules):
    a = _answers(model={"params": "7B"}, cluster={"gpus": 64}, training={"tokens": "1T", "deadline_days": 30})
    memo = to_markdown(advise(a, rules))
    assert "| missed |" in memo


# ---- calibration guard: the published runs (issue 4 targets).


def _fidelity_module():
    spec = importlib.util.spec_from_file_location("fidelity", ROOT / "bench" / "fidelity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not REFERENCE.exists(), reason="../shared/reference/published_runs.yaml is not beside this checkout")
def test_estimates_stay_calibrated_against_published_runs():
    """Issue 10: median |error| <= 20% with the published shape and with only what a PM knows; only the runs the closing
    note explains may be off by more than 2x. Issue 24: with the published shape the median is within 15%, and the
    throughput benchmarks' modelled/published median within 0.9-1.1 and every row within 0.75-1.33, none judged not to
    fit; at the benchmarks' level Llama 3.1 8B (long-context training to 128K) misses by 2.2x."""
    import statistics

    import yaml

    fid = _fidelity_module()
    reference, scenarios = yaml.safe_load(REFERENCE.read_text()), yaml.safe_load(fid.SCENARIOS.read_text())
    for pm, explained in ((False, {"Llama 3.1 8B", "Llama 3.2 1B"}), (True, {"Llama 3 8B", "Llama 3.1 8B", "Llama 3.2 1B"})):
        rows, _ = fid.full_run_rows(reference, scenarios, pm)
        names = {r[0] for r in rows}
        assert len(rows) >= 18 and {"BLOOM-176B", "OPT-175B", "GPT-3 175B", "Falcon-40B", "MPT-1.3B", "DeepSeek-V3"} <= names
        assert statistics.median(abs(r[5]) for r in rows) <= (0.20 if pm else 0.15), ("PM-only" if pm else "full shape")
        off = {r[0] for r in rows if max(r[4] / r[3], r[3] / r[4]) > 2}
        assert off <= explained, ("PM-only" if pm else "full shape", off)
    bench = fid.benchmark_rows(reference + list(scenarios.get("extra_benchmarks") or []), scenarios.get("benchmark_shapes"))
    ratios = [r[6] / r[5] for r in bench]
    assert len(ratios) >= 32 and 0.9 <= statistics.median(ratios) <= 1.1
    assert all(0.75 <= x <= 1.33 for x in ratios), [(r[0], round(r[6] / r[5], 2)) for r in bench if not 0.75 <= r[6] / r[5] <= 1.33]
    assert all(r[7] for r in bench), [r[0] for r in bench if not r[7]]
