"""Issue 33: one function gives the best option at a GPU count (decide.best_at, under the rules' exclusions), and the
memo's what-if table, `advisor sweep`, `advisor ask` and the TUI chart all answer with it; the plan is never an option
that a listed one beats on both cost and time unless the summary says why."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

from advisor.cli import main
from advisor.decision.advice import advise
from advisor.decision.decide import COST_TIE, Option, best_at, dominates, preference
from advisor.decision.explain import best_option_at
from advisor.inputs.answers import load_answers
from advisor.outputs.sweep import sweep

from .conftest import EXAMPLES
from .test_decisions import CASES, _answers

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
EVERY = [pytest.param(lambda p=p: load_answers(p), id=p.stem) for p in EXAMPLE_FILES] + [
    pytest.param(lambda c=c: _answers(c), id=c["id"]) for c in CASES]


def _option(strategy: str, gpus: int, hours: float, cost: float, **kw: object) -> Option:
    base = dict(monthly=cost, usable=True, excluded=(), score=0.0, meets_deadline=None, within_budget=True, within_monthly=True)
    base.update(kw)
    return Option(strategy=strategy, gpus=gpus, hours=hours, cost=cost, **base)  # type: ignore[arg-type]


@pytest.mark.parametrize("make", EVERY)
def test_memo_sweep_and_tui_chart_name_the_same_best_option_at_every_count(make, rules):
    advice = advise(make(), rules)
    rows = advice.to_dict()["what_if"]
    plan = advice.plan.chosen
    others = [r for r in rows if r["gpus"] != plan.gpus]
    sw = sweep(advice.answers, np.array(sorted(r["gpus"] for r in others), dtype=float), rules) if others else None
    for r in rows:
        if r["gpus"] == plan.gpus and plan.runnable:
            assert r["strategy"] == plan.strategy  # the plan is the best at its own count
            continue
        assert sw is not None
        best = sw.best(int(np.searchsorted(sw.gpus, r["gpus"])))
        assert (best.strategy if best else None) == r["strategy"], r["gpus"]
        mine = best_option_at(advice, r["gpus"])
        assert (mine.strategy if mine else None) == r["strategy"]
    # The TUI's chart draws exactly these rows (ResultsView.of_report reads report.what_if).
    from advisor.tui.results import ResultsView

    view = ResultsView.of_report(advice.report())
    assert [p.gpus for p in view.chart] == [r["gpus"] for r in rows if r["strategy"] is not None]


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_ask_why_not_a_count_names_the_memo_rows_option(path, rules):
    advice = advise(load_answers(path), rules)
    rows = [r for r in advice.to_dict()["what_if"] if r["strategy"] and r["gpus"] != advice.plan.chosen.gpus]
    if advice.given is not None or advice.method_changed or not rows:
        pytest.skip("the plan's type or method differs from the file's: ask reads the file")
    row = rows[len(rows) // 2]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["ask", str(path), f"why not {row['gpus']} GPUs?", "--format", "json"]) == 0
    reply = json.loads(out.getvalue())
    assert f"{row['strategy']}, {row['gpus']:,} GPUs" in json.dumps(reply["figures"], ensure_ascii=False), reply


@pytest.mark.parametrize("make", EVERY)
def test_the_plan_is_not_dominated_by_an_option_on_as_few_gpus_and_says_why_beside_one_on_more(make, rules):
    advice = advise(make(), rules)
    if any(w["blocking"] for w in advice.warnings):
        return
    plan = advice.plan.chosen
    beaten = [o for o in advice.plan.options if o.runnable and dominates(o, plan)]
    assert all(o.gpus > plan.gpus for o in beaten), beaten[:3]
    if beaten:  # only more GPUs beat it: the summary says the plan asks for no more than its goal needs
        codes = {n["code"] for n in advice.to_dict()["notes"]}
        assert "faster-same-cost" in codes or advice.plan.faster_same_cost is None


def test_the_customer_service_plan_says_why_more_gpus_that_beat_it_are_not_taken(rules):
    """104 GPUs for 46,800 CNY in 45 h beside 128-256 GPUs for 46,080 in 18-36 h: the one sentence that says why."""
    advice = advise(load_answers(EXAMPLES / "customer-service.yaml"), rules)
    note = next(n["text"] for n in advice.to_dict()["notes"] if n["code"] == "faster-same-cost")
    assert "no more GPUs than its goal needs" in note


def test_best_at_takes_the_deadline_then_the_budget_then_the_cheapest_within_the_tie():
    prefer = preference("fsdp", 64)
    late = _option("ddp", 64, 100.0, 50.0, meets_deadline=False)
    dear = _option("fsdp", 64, 40.0, 120.0, meets_deadline=True, within_budget=False)
    ok = _option("deepspeed-zero2", 64, 45.0, 100.0, meets_deadline=True)
    ok_today = _option("fsdp", 64, 46.0, 103.0, meets_deadline=True)
    assert best_at([late, dear, ok, ok_today], prefer) == ok_today  # within the tie, today's framework
    excluded = _option("fsdp", 64, 46.0, 103.0, meets_deadline=True, excluded=("a rule",))
    assert best_at([late, dear, ok, excluded], prefer) == ok  # the rules' exclusions hold
    assert best_at([late], prefer) == late  # nothing meets the date: the fastest that runs
    assert best_at([_option("fsdp", 64, 1.0, 1.0, usable=False)], prefer) is None


def test_a_tie_never_keeps_an_option_another_beats_on_both_counts_by_the_switch_gain():
    prefer = preference("fsdp", 64)
    today = _option("fsdp", 64, 100.0, 100.0)
    better = _option("deepspeed-zero2", 64, 80.0, 99.0)  # 1% cheaper (a tie on cost) but 20% faster
    assert best_at([today, better], prefer) == better
    marginal = _option("deepspeed-zero2", 64, 99.0, 99.0)  # 1% on both: below the model's resolution, today's stays
    assert best_at([today, marginal], prefer) == today
    assert not dominates(marginal, today) and dominates(better, today) and COST_TIE == 0.05


@pytest.mark.parametrize("make", EVERY)
def test_the_sentence_that_says_the_cheapest_wins_names_the_tie_the_table_shows(make, rules):
    """The options table can list a runnable option a little cheaper than the plan (the TUI's defaults: fsdp at 167,041
    USD chosen over ZeRO-1 at 166,421): costs within COST_TIE are a tie the smaller change and the rules settle. Then a
    'how it was chosen' sentence that says 'the cheapest option wins' must say so, or a PM reads a contradiction."""
    from advisor.base.units import percent

    plan = advise(make(), rules).plan
    chosen = plan.chosen
    same_count = [o for o in plan.options if o.usable and not o.excluded and o.gpus == chosen.gpus]
    if "the cheapest option wins" in plan.objective and any(o.cost < chosen.cost for o in same_count):
        assert percent(COST_TIE) in plan.objective, plan.objective


def test_a_fine_tune_sweep_says_which_method_it_prices(rules, capsys, tmp_path):
    """`advisor sweep` priced the full fine-tune asked ('Cheapest feasible: deepspeed-zero2 on 32 GPUs, 6,912 USD') while
    the plan fine-tunes with QLoRA for 5,349 USD: the sweep names the method it prices and how to price the other."""
    import yaml as _yaml

    path = tmp_path / "answers.yaml"
    path.write_text(_yaml.safe_dump({
        "model": {"params": "13B"}, "training": {"method": "finetune", "tokens": "2B", "current_strategy": "deepspeed-zero2"},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8}, "budget": {"price_per_gpu_hour": 3, "currency": "USD"}}),
        encoding="utf-8")
    assert main(["sweep", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Priced as a full fine-tune, as the answers ask" in out and "lora or qlora" in out, out
