"""The decision search prices every whole-node count and prunes (issue 20): its choice is the one a search that runs the
rules at every count makes, on small clusters where that brute force is cheap."""

from __future__ import annotations

import itertools

import numpy as np

from advisor.decision.decide import COST_TIE
import pytest

import advisor.decision.advice as advice_module
from advisor.decision.advice import advise
from advisor.decision.search import every_count, ladder_counts
from advisor.inputs.answers import answers_from_mapping

from .conftest import EXAMPLES

MODELS = [("1B", "50B"), ("7B", "300B"), ("13B", "1T"), ("70B", "2T")]
CLUSTERS = [("a100-80gb", 8, None), ("h100-80gb", 24, 64), ("a100-40gb", 32, None), ("h100-80gb", 64, 160)]
OBJECTIVES = [{}, {"deadline_days": 7}, {"deadline_days": 30}, {"deadline_days": 400}, {"deadline_days": 30, "limit": 200_000},
              {"limit": 50_000}]
CASES = [(m, c, o) for (m, c), o in itertools.product(itertools.product(MODELS, CLUSTERS), OBJECTIVES)][::3]


def _answers(model, cluster, objective):
    (params, tokens), (gpu, gpus, most) = model, cluster
    raw = {"model": {"params": params}, "training": {"tokens": tokens},
           "cluster": {"gpu": gpu, "gpus": gpus, "inter_node_gbps": 200},
           "budget": {"price_per_gpu_hour": 2.5}}
    if most is not None:
        raw["cluster"]["max_gpus"] = most
    if "deadline_days" in objective:
        raw["training"]["deadline_days"] = objective["deadline_days"]
    if "limit" in objective:
        raw["budget"]["limit"] = objective["limit"]
    return answers_from_mapping(raw)


def _picks(plan):
    def key(o):
        return None if o is None else (o.strategy, o.gpus)

    return {"chosen": key(plan.chosen), "cheapest meeting the deadline": key(plan.cheapest_meeting_deadline),
            "fastest": key(plan.fastest), "cheaper but slower": key(plan.cheaper_slower), "faster, same cost": key(plan.faster_same_cost),
            "deadline met": plan.deadline_met, "what it takes": [c.to_dict() for c in plan.what_it_takes]}


@pytest.mark.parametrize(("model", "cluster", "objective"), CASES, ids=lambda v: str(v))
def test_the_pruned_search_chooses_as_a_search_of_every_count(model, cluster, objective, rules, monkeypatch):
    answers = _answers(model, cluster, objective)
    pruned = advise(answers, rules)
    monkeypatch.setattr(advice_module, "search_counts", every_count)
    brute = advise(answers, rules)
    assert {o.gpus for o in brute.plan.options} == set(every_count(answers).astype(int).tolist())
    assert _picks(pruned.plan) == _picks(brute.plan)


@pytest.mark.parametrize("example", ["customer-service.yaml", "thousand-gpus-one-day.yaml", "pretrain-7b-h100.yaml"])
def test_the_examples_choose_as_a_search_of_every_count(example, rules, monkeypatch):
    """The shipped examples too (the 1,000-GPU day searches 500 counts): a pruning that kept too few counts chose 848
    GPUs there where every count gives 856."""
    from advisor.inputs.answers import load_answers

    answers = load_answers(EXAMPLES / example)
    pruned = advise(answers, rules)
    monkeypatch.setattr(advice_module, "search_counts", every_count)
    assert _picks(pruned.plan) == _picks(advise(answers, rules).plan)


def test_every_whole_node_count_is_considered_not_only_the_ladder(rules):
    """Issue 22's case (70B, 2T tokens, 256 H100 at 3.5, 400 Gbit/s, budget 2,000,000, 30 days): nothing meets both the
    date and the budget, so the plan is the cheapest option meeting the date among every whole-node count, and 'what it
    takes' names that same plan (it named 1,024 GPUs beside a plan of 960 that a tie-break had made 4.6% dearer). Issue 32
    judges the date on the stated range's upper end, where no count meets 30 days: the date is 45 days. Issue 33: over
    budget too, a cost within the tie buys no switch, so the plan is within COST_TIE of that cheapest and the bigger
    budget named is the plan's own."""
    answers = answers_from_mapping({"model": {"params": "70B"}, "training": {"tokens": "2T", "deadline_days": 45},
                                    "cluster": {"gpu": "h100-80gb", "gpus": 256, "inter_node_gbps": 400},
                                    "budget": {"price_per_gpu_hour": 3.5, "limit": 2_000_000}})
    plan = advise(answers, rules).plan
    assert plan.chosen.gpus % 8 == 0 and plan.chosen.meets_deadline
    assert set(ladder_counts(answers)) < {o.gpus for o in plan.options}  # more than the ladder was priced
    meeting = [o for o in plan.options if o.runnable and o.meets_deadline]
    cheapest = min(o.cost for o in meeting)
    assert cheapest <= plan.chosen.cost <= cheapest * (1 + COST_TIE)
    budget = next(c for c in plan.what_it_takes if c.kind == "bigger-budget")
    assert (budget.gpus, budget.strategy, budget.cost) == (plan.chosen.gpus, plan.chosen.strategy, plan.chosen.cost)


def test_every_count_runs_from_one_node_to_the_most_that_can_be_had():
    answers = _answers(("7B", "300B"), ("h100-80gb", 64, 160), {})
    counts = every_count(answers)
    assert counts[0] == 8 and counts[-1] == 160 and np.all(np.diff(counts) == 8)
