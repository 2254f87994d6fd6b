"""How much work one piece of advice does, counted rather than timed (bench/run.py times it): the decision search at
16,384 GPUs must stay under 100 ms, and it went past when 'what it takes' ran a whole second search for a lever (twice
the batch) whose plan could not meet the monthly ceiling the first missed."""

from __future__ import annotations

import copy

import pytest

import advisor.decision.advice as advice_module
import advisor.estimate.model as estimate_model
from advisor.base.safeload import load_mapping
from advisor.decision.advice import advise
from advisor.decision.search import candidate_counts as search_counts, every_count
from advisor.inputs.answers import answers_from_mapping

from .conftest import EXAMPLES


def _bench_search() -> dict:
    """bench/run.py's 'decision search at 16,384 GPUs': the customer-service example on 4,096 GPUs (the search looks to
    4x), over its monthly ceiling everywhere."""
    _name, raw = load_mapping(EXAMPLES / "customer-service.yaml")
    raw = copy.deepcopy(raw)
    raw["cluster"]["gpus"] = 4096
    return raw


def _counting(monkeypatch) -> tuple[list[int], list[int]]:
    """Counts the estimates computed (their sizes: counts priced; a memoised slice is not counted) and the searches run."""
    computed: list[int] = []
    searches: list[int] = []
    compute, search = estimate_model._estimate_all, advice_module.search_counts

    def counted_estimate(answers, gpus):
        computed.append(1 if gpus is None else len(gpus))
        return compute(answers, gpus)

    def counted_search(answers):
        counts = search(answers)
        searches.append(counts.size)
        return counts

    monkeypatch.setattr(estimate_model, "_LAST", None)
    monkeypatch.setattr(estimate_model, "_estimate_all", counted_estimate)
    monkeypatch.setattr(advice_module, "search_counts", counted_search)
    return computed, searches


def test_the_search_at_16384_gpus_runs_once_and_prices_each_job_once(rules, monkeypatch):
    """One search (the job as asked); the bigger-batch lever is dropped, since no option meets the monthly ceiling,
    without a search of its own: its proof is the run's FLOPs floor (estimate.gpu_hours_floor) against the ceiling at
    today's cadence, priced at today's count alone (it priced all 2,048 before). The search's estimate is over the 2,048
    whole-node counts: the facts and the options reuse it."""
    computed, searches = _counting(monkeypatch)
    advice = advise(answers_from_mapping(_bench_search()), rules)
    assert advice.plan.chosen.within_monthly is False
    assert not [c for c in advice.plan.what_it_takes if c.kind == "bigger-batch"]
    assert len(searches) == 1
    assert computed == [2048, 1]


LEVERS = {
    "over its monthly ceiling at 16,384 GPUs (bench/run.py)": _bench_search(),
    "fp8 meets the budget": {"model": {"params": "70B"}, "training": {"tokens": "2T", "deadline_days": 45},
                             "cluster": {"gpu": "h100-80gb", "gpus": 256, "inter_node_gbps": 400},
                             "budget": {"price_per_gpu_hour": 3.5, "limit": 2_000_000}},
    "twice the batch meets the date": {"model": {"params": "7B"}, "training": {"tokens": "20B", "deadline_days": 3, "method": "finetune"},
                                       "cluster": {"gpu": "a100-80gb", "gpus": 8, "inter_node_gbps": 200},
                                       "budget": {"price_per_gpu_hour": 2.5}},
    "LoRA meets the date": {"model": {"params": "7B"},
                            "training": {"tokens": "20B", "deadline_days": 3, "method": "finetune", "global_batch_tokens": "0.5M"},
                            "cluster": {"gpu": "a100-80gb", "gpus": 8, "inter_node_gbps": 200}, "budget": {"price_per_gpu_hour": 2.5}},
    "a date no lever meets": {"model": {"params": "70B"}, "training": {"tokens": "2T", "deadline_days": 10},
                              "cluster": {"gpu": "h100-sxm", "gpus": 256, "inter_node_gbps": 400},
                              "budget": {"price_per_gpu_hour": 3.5, "limit": 1_500_000}},
}


@pytest.mark.parametrize("raw", LEVERS.values(), ids=LEVERS.keys())
def test_a_lever_is_skipped_only_where_its_advice_would_have_been_dropped(raw, rules, monkeypatch):
    """'What it takes' is the same with the proof that skips a lever's search as with every lever advised in full."""
    answers = answers_from_mapping(raw)
    proved = [c.to_dict() for c in advise(answers, rules).plan.what_it_takes]
    monkeypatch.setattr(advice_module, "_any_option_meets", lambda *_args: True)
    assert proved == [c.to_dict() for c in advise(answers, rules).plan.what_it_takes]


SMALL = [{"model": {"params": p}, "training": {"tokens": t, "deadline_days": d},
          "cluster": {"gpu": "h100-80gb", "gpus": 64, "inter_node_gbps": 200}, "budget": {"price_per_gpu_hour": 2.5, **b}}
         for p, t, d, b in [("7B", "300B", 3, {"monthly_limit": 20_000}), ("13B", "1T", 20, {"limit": 150_000}),
                            ("70B", "2T", 30, {"limit": 3_000_000, "monthly_limit": 5_000_000}), ("1B", "50B", 1, {"limit": 200})]]


@pytest.mark.parametrize("raw", SMALL, ids=lambda r: f"{r['model']['params']}-{r['training']['deadline_days']}d")
@pytest.mark.parametrize(("date", "budget"), [(True, False), (False, True), (True, True)])
def test_the_lever_proof_reads_the_options_as_the_search_prices_them(raw, date, budget, rules):
    """_any_option_meets is 'some option at some count meets it', the options priced and judged as the plan's are."""
    answers = answers_from_mapping(raw)
    options = [o for opts in advice_module.options_at(answers, rules, every_count(answers)).values() for o in opts]
    meets = any((not date or o.meets_deadline) and (not budget or (o.within_budget and o.within_monthly)) for o in options)
    assert advice_module._any_option_meets(answers, date, budget) is meets


@pytest.mark.parametrize("raw", [_bench_search(), *SMALL], ids=["16384", *(f"{r['model']['params']}" for r in SMALL)])
def test_the_search_keeps_only_counts_the_lever_proof_reads(raw):
    """The proof reads every_count: a plan is one of its options only while the search keeps no count outside it."""
    answers = answers_from_mapping(raw)
    assert set(search_counts(answers).tolist()) <= set(every_count(answers).tolist())
