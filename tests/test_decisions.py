"""Issue 10: the decision table (tests/data/decisions.yaml) — the chosen strategy, GPU count and deadline verdict."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.decision.advice import advise
from advisor.decision.decide import CHEAPER_WORTH_SAYING
from advisor.inputs.answers import answers_from_mapping
from advisor.outputs.render import headline, to_text
from advisor.base.safeload import load_mapping

from .conftest import EXAMPLES

TABLE = Path(__file__).parent / "data" / "decisions.yaml"
CASES = yaml.safe_load(TABLE.read_text())["cases"]


def _answers(case: dict[str, Any]):
    if "example" in case:
        _, data = load_mapping(EXAMPLES / case["example"])
    else:
        data = copy.deepcopy(case["answers"])
    for section, values in (case.get("change") or {}).items():
        for key, value in values.items():
            if value is None:
                data.setdefault(section, {}).pop(key, None)
            else:
                data.setdefault(section, {})[key] = value
    return answers_from_mapping(data, case["id"])


def test_the_table_has_the_cases_issue_10_names():
    assert len(CASES) >= 20
    ids = {c["id"] for c in CASES}
    assert {"llama3-405b-16k-h100", "mixtral-8x7b-256-h100", "llama-70b-64-mi300x", "small-model-512-a100-thin-network",
            "7b-25gbit-accumulation"} <= ids


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_decision(case, rules):
    answers = _answers(case)
    advice = advise(answers, rules)
    exp, plan, why = case["expect"], advice.plan, case["why"]
    if "strategy" in exp:
        assert advice.strategy == exp["strategy"], why
    if "not_strategy" in exp:
        assert advice.strategy != exp["not_strategy"], why
    if "gpus" in exp:
        assert advice.gpus == exp["gpus"], why
    if "deadline_met" in exp:
        assert plan.deadline_met == exp["deadline_met"], why
    if "status_quo" in exp:
        assert plan.status_quo == exp["status_quo"], why
        if exp["status_quo"]:
            assert headline(advice).startswith("No change needed"), headline(advice)
    if "gpu" in exp:
        assert plan.chosen.gpu == exp["gpu"] and plan.chosen.spot == exp.get("spot", False), why
    for gpu, lost in (exp.get("lost") or {}).items():  # each losing GPU type (on demand) and why it lost
        assert [t.lost for t in plan.gpu_types if t.gpu == gpu and not t.spot] == [lost], why
    if exp.get("more_gpus"):
        assert advice.gpus > answers.cluster.gpus and plan.beyond_cluster, why
    if exp.get("fewer_gpus"):
        assert advice.gpus < answers.cluster.gpus, why
    if "max_gpus" in exp:
        assert advice.gpus <= exp["max_gpus"], why
    if exp.get("cheaper_slower"):
        c = plan.cheaper_slower
        assert c is not None and c.gpus < advice.gpus and c.hours > plan.chosen.hours, why
        assert "Cheaper but slower" in to_text(advice)
    e = advice.estimate_dict(advice.strategy)
    if "tensor_parallel" in exp:
        assert e["tensor_parallel"] == exp["tensor_parallel"], why
    if "min_pipeline" in exp:
        assert e["pipeline_parallel"] >= exp["min_pipeline"], why
    # Whatever the scenario: the plan runs (or says it is blocked), and every reason is about the chosen strategy.
    assert (e["fits"] and e["batch_ok"]) or advice.to_dict()["recommendation"]["blocked"]
    for reason in advice.rationale():
        assert reason["rule"] == "plan" or reason["points"] > 0


def test_a_cheaper_claim_always_states_the_time_it_costs(rules):
    for case in CASES:
        advice = advise(_answers(case), rules)
        for line in to_text(advice).splitlines():
            if "cheaper but slower" in line.lower() or ("% more per run than" in line):
                assert "instead of" in line or "would take" in line, (case["id"], line)


def test_the_monthly_cadence_never_comes_from_a_setup_that_cannot_run(rules):
    """The shipped defaults (7B, DDP today on 64 A100s) : DDP does not fit, yet its modelled 72 days set '0.4 runs a
    month', and the recommended FSDP, which runs 58 days back to back, was billed 0.4 x its cost — 23% under what
    keeping the cluster busy costs. Where today's setup cannot run, the cadence is that of the fastest option that can
    (the recommendation may be one within the cost tie and up to 2% slower: FSDP's first all-gather per pass is exposed,
    ZeRO-2's gradients hide behind the backward)."""
    from advisor.inputs.questions import default_draft

    draft = default_draft()
    draft["training"]["current_strategy"] = "ddp"  # the guided Q&A's defaults plan a new project; here DDP runs today
    advice = advise(answers_from_mapping(draft), rules)
    report = advice.report()
    assert not (report.today.fits and report.today.batch_ok)
    chosen_days = report.estimate.wall_clock_hours / 24
    assert advice.plan.runs_per_month * chosen_days <= 30.0 * 1.02
    assert advice.plan.runs_per_month == pytest.approx(30.0 / chosen_days, rel=0.02)


def test_a_measured_or_runnable_today_keeps_todays_cadence(rules):
    advice = advise(answers_from_mapping(load_mapping(EXAMPLES / "customer-service.yaml")[1]), rules)
    assert advice.plan.runs_per_month == pytest.approx(30.0 / 3.0)


def test_no_question_or_checklist_item_is_word_for_word_the_same_in_every_scenario(rules):
    """Issue 10: questions and checklist items are specific to the scenario and the chosen framework. Before, the
    gradient-accumulation and micro-batch questions and the Horovod question were asked, word for word, of every case."""
    common: set[str] | None = None
    for case in CASES:
        report = advise(_answers(case), rules).report()
        texts = {q.text for q in report.questions} | {c.text for c in report.checklist}
        common = texts if common is None else common & texts
    assert common == set(), common


def test_a_faster_plan_at_about_the_same_cost_is_named(rules):
    """The shipped defaults: FSDP on 64 GPUs takes 57.7 days; the what-if table priced 256 GPUs at 14.4 days for +0.1%,
    but the summary said only 'the GPU count stays at 64'. A PM must see that 4x faster costs about the same."""
    from advisor.inputs.questions import default_draft
    from advisor.outputs.render import to_text

    advice = advise(answers_from_mapping(default_draft()), rules)
    fast = advice.plan.faster_same_cost
    assert fast is not None and fast.gpus > advice.plan.chosen.gpus
    assert fast.hours < 0.5 * advice.plan.chosen.hours and fast.cost <= 1.05 * advice.plan.chosen.cost
    assert advice.report().plan.faster_same_cost.gpus == fast.gpus
    assert fast.strategy == advice.plan.chosen.strategy
    assert f"Faster for no more per run: {fast.gpus} GPUs" in to_text(advice)


def test_no_faster_same_cost_note_where_more_gpus_cost_more(rules):
    """1.3B over 200 Gbit/s on 512 A100s: more GPUs spend longer synchronising, so they cost more per run — nothing to
    name."""
    case = next(c for c in CASES if c["id"] == "small-model-512-a100-thin-network")
    advice = advise(_answers(case), rules)
    assert advice.plan.faster_same_cost is None


def test_when_no_count_meets_the_deadline_the_plan_is_the_fastest_searched_not_todays_slowest(rules):
    """70B on 8 H100s with a 7-day deadline: nothing searched meets it. The plan was ZeRO-3-offload on today's 8 GPUs,
    32.9 days for 18,942 USD, while its own note said FSDP on 32 GPUs takes 8.1 days — for less money. When the deadline
    is out of reach the fastest option searched (within the budget) is the plan, as its objective sentence says, and the
    warning quotes the plan's own time."""
    from advisor.outputs.render import to_text

    a = answers_from_mapping({"model": {"params": "70B"}, "training": {"tokens": "20B", "deadline_days": 7},
                              "cluster": {"gpu": "h100-sxm", "gpus": 8}, "budget": {"price_per_gpu_hour": 3, "limit": 25000}})
    # 25,000 since budgets are judged on the range's upper end (x1.25 for pre-training): 20,000 as the point must meet it
    advice = advise(a, rules)
    p = advice.plan
    assert p.deadline_met is False
    fastest_affordable = min((o for o in p.options if o.runnable and o.within_budget), key=lambda o: o.hours)
    assert p.chosen.hours <= fastest_affordable.hours * 1.05
    text = to_text(advice)
    days = f"{p.chosen.hours / 24:.1f} days"
    assert all(days in line for line in text.splitlines() if "past the 7-day deadline" in line or "past the 7 day deadline" in line)


def test_one_interruption_is_singular_and_a_small_overhead_never_reads_zero(rules):
    """Mixtral on 256 H100s for 9.7 days said 'Expect about 1 interruptions'; a 13B fine-tune said 'restarts ... add 0.0%'
    while expecting restarts."""
    from advisor.outputs.render import _restart_pct, to_text

    case = next(c for c in CASES if c["id"] == "mixtral-8x7b-256-h100")
    text = to_text(advise(_answers(case), rules))
    assert "about 1 interruptions" not in text
    assert [_restart_pct(x) for x in (0.0, 0.0001, 0.0123)] == ["0%", "<0.1%", "1.2%"]


def test_out_of_reach_and_over_budget_the_summary_says_the_budget_chose(rules):
    """70B on 8 H100s, 7-day deadline, 19,000 USD run budget: the fastest option (FSDP on 32 GPUs) costs more than the
    budget, so the plan is the fastest within it — and 'How it was chosen' must say so, not 'the fastest option'.
    (The budget was 20,000 until issue 24's efficiency model priced the fastest option at 19,600, then 18,000 until FSDP's exposed first
    all-gather priced the cheapest at 18,038, then 17,000 when issue 24 set the bands at the benchmarks' level: fastest
    18,516, cheapest 16,711: the budget sits between the cheapest and the fastest; 16,715 since issue 32's overlapped tensor
    parallelism priced the fastest, Megatron on 32 GPUs, at 16,723; 17,000 since NCCL's ring latency and the last
    micro-batch's overlap priced it at 17,560 and the cheapest, ZeRO-3 offload on 8, at 16,759; 21,300 since budgets are
    judged on the range's upper end, x1.254 for pre-training: 16,990 as the point must meet it.)"""
    from advisor.estimate import judged_limits
    from advisor.outputs.render import to_text

    a = answers_from_mapping({"model": {"params": "70B"}, "training": {"tokens": "20B", "deadline_days": 7},
                              "cluster": {"gpu": "h100-sxm", "gpus": 8}, "budget": {"price_per_gpu_hour": 3, "limit": 21300}})
    advice = advise(a, rules)
    fastest = advice.plan.fastest
    judged = judged_limits(a)[0]
    assert judged is not None and 16800 < judged < 17500
    assert fastest is not None and fastest.cost > judged and advice.plan.chosen.cost <= judged
    text = to_text(advice)
    assert "so the fastest option within the budget wins (times within 5% of it count as equal" in text
    assert f"{fastest.hours / 24:.1f} days for" in text  # the fastest option, said once (what it takes: a later date)


def test_why_holds_only_reasons_for_the_choice(rules):
    """Issue 10: 'Why' argues for the chosen strategy. Horovod's maintenance status (a reason against Horovod) was listed
    as a reason for FSDP and DDP in 13 of the 22 cases; a one-GPU job was told '1 GPUs is inside DDP's range'."""
    for case in CASES:
        report = advise(_answers(case), rules).report()
        why = " ".join(r.text for r in report.recommendation.rationale)
        if report.recommendation.strategy != "horovod":
            assert "Horovod's last release" not in why, case["id"]
        assert "1 GPUs" not in why, case["id"]


def test_the_cheaper_option_named_is_the_fastest_of_the_cheapest(rules):
    """The seed's 1,000-GPU day: 'Cheaper but slower: 8 GPUs with fsdp cost 125,354 CNY (17% less) and take 65.3 days'
    — while 512 GPUs cost 125,783 CNY (also 17% less) and take 24.6 h. Of the options within the 5% cost tie of the
    cheapest, the fastest is the one to name — in every decision case that names one (the 1,000-GPU day no longer
    does: with every whole-node count searched its plan is already the cheap 856 GPUs)."""
    named = 0
    for case in CASES:
        p = advise(_answers(case), rules).plan
        c = p.cheaper_slower
        if c is None:
            continue
        named += 1
        # Only trades a PM would weigh are named (issue 23): at most twice the plan's time, not giving up a met deadline.
        # ... and only savings worth saying (decide.CHEAPER_WORTH_SAYING): Llama 3 405B's 15,680 GPUs, 6% cheaper, is not.
        weighed = [o for o in p.options if o.runnable and o.gpus < p.chosen.gpus and o.hours <= 2 * p.chosen.hours
                   and o.cost <= p.chosen.cost * (1 - CHEAPER_WORTH_SAYING)
                   and (o.meets_deadline is not False or not p.chosen.meets_deadline)]
        cheapest = min(o.cost for o in weighed)
        band = [o for o in weighed if o.cost <= cheapest * 1.05]
        assert c.hours == min(o.hours for o in band), case["id"]
    assert named >= 2


def test_a_slow_data_pipeline_bounds_the_time_it_warns_about(rules):
    """13B on 256 Ascend 910B with a 300,000 tokens/s loader: the warning said the GPUs would be at most 67% busy, yet
    the time (12.9 days) and cost assumed full speed, and the summary offered 1,024 GPUs finishing in 3.2 days — four
    times the rate the loader can deliver. The run takes at least tokens / loader rate (19.3 days; 21.4 with issue 24's
    time off training; the deadline, judged on the stated range's upper end since issue 32, is 32 days)."""
    from advisor.outputs.render import to_text

    a = answers_from_mapping({"model": {"params": "13B"}, "training": {"tokens": "500B", "deadline_days": 32},
                              "cluster": {"gpu": "910B", "gpus": 256, "inter_node_gbps": 800, "data_pipeline_tokens_per_sec": 300000},
                              "budget": {"price_per_gpu_hour": 8, "currency": "CNY"}})
    advice = advise(a, rules)
    floor_h = 500e9 / 300000 / 3600
    assert advice.plan.chosen.hours >= floor_h
    assert all(o.hours >= floor_h for o in advice.plan.options if o.runnable)
    assert advice.plan.faster_same_cost is None
    # More GPUs than the loader can feed buy nothing: the deadline is met on fewer, for less.
    assert advice.plan.chosen.gpus < 256 and advice.plan.deadline_met
    # With every whole-node count searched the plan stops where the loader keeps up (152-160 GPUs take just under its
    # 300,000 tokens/s), so the warning that it sets the pace is not due; the checklist still names the rate to measure.
    assert f"Data loading keeps up: {advice.plan.chosen.gpus} GPUs consume about" in to_text(advice)


def test_fewer_gpus_that_finish_as_fast_for_much_less_are_the_plan(rules):
    """The shipped defaults with a 100,000 tokens/s loader: 64 GPUs wait on data, and the summary read 'Cheaper but
    slower: 32 GPUs cost 50% less and take 115.8 days instead of 115.8 days' — while recommending the 64. An option no
    slower (within the 5% tie) and at least 10% cheaper is the better plan, deadline or not."""
    from advisor.inputs.questions import default_draft
    from advisor.outputs.render import to_text

    draft = default_draft()
    draft["cluster"]["data_pipeline_tokens_per_sec"] = 100000
    advice = advise(answers_from_mapping(draft), rules)
    p = advice.plan
    at_64 = p.option("fsdp", 64)
    assert at_64 is not None
    assert p.chosen.gpus < 64 and p.chosen.hours <= at_64.hours * 1.05 and p.chosen.cost <= at_64.cost * 0.9
    text = to_text(advice)
    assert not any("instead of" in line and line.count(f"{p.chosen.hours / 24:.1f} days") == 2 for line in text.splitlines())


def test_a_plan_on_fewer_gpus_because_nothing_runs_on_todays_count_says_so_not_budget(rules):
    """Review: a 16-sequence batch cannot feed 64 ranks, and 'How it was chosen' blamed a budget nobody gave. (The
    default batch now feeds every GPU of today's cluster, so the team's own batch of 16 sequences makes the case.)"""
    from advisor.outputs.render import to_text

    a = answers_from_mapping({"model": {"params": "7B", "seq_len": 2048},
                              "training": {"method": "lora", "tokens": "1T", "global_batch_tokens": 16 * 2048},
                              "cluster": {"gpu": "a100-80gb", "gpus": 64}, "budget": {"price_per_gpu_hour": 2}})
    advice = advise(a, rules)
    assert advice.plan.chosen.gpus < 64
    text = to_text(advice)
    assert "stays within budget" not in text and "nothing can run on 64 GPUs as asked" in text


def test_an_option_within_the_tie_is_not_called_the_cheapest_beside_another_choice(rules):
    """Review: 'Cheapest way to meet the 1-day deadline: megatron-3d on 24 GPUs, 2,965 CNY' beside a plan of fsdp on 16 GPUs
    at 3,082 CNY, with the 5% tie never stated. Within the tie the summary now says why the other one is not the plan."""
    from advisor.outputs.render import decision_notes

    data = yaml.safe_load((EXAMPLES / "customer-service-finetune.yaml").read_text(encoding="utf-8"))
    # On A10s ZeRO++ now meets the deadline on today's 8 GPUs outright (issue 24); on A100s, with the deadline judged on
    # the stated range's upper end (issue 32), a 0.6-day deadline gives ZeRO-2 on 8 and DDP on 16 within 5% of each other,
    # which is the case this test is about (0.5 days until NCCL's ring latency moved the counts).
    data["training"]["deadline_days"] = 0.6
    data["cluster"]["gpu"] = "a100-80gb"
    advice = advise(answers_from_mapping(data), rules)
    cm, chosen = advice.plan.cheapest_meeting_deadline, advice.plan.chosen
    assert cm is not None and cm.gpus != chosen.gpus and cm.cost >= chosen.cost * 0.95
    notes = " ".join(decision_notes(advice))
    # within the tie it is said once: why it is not the plan, or, where it is the same option, as 'faster for no more'
    assert "Cheapest way to meet" not in notes
    assert "a tie here" in notes or f"Faster for no more per run: {cm.gpus} GPUs with {cm.strategy}" in notes


def test_the_objective_words_the_deadline_as_the_summary_does(rules):
    """One number format everywhere (base.units): a 1,500-day deadline read '1500-day' in 'How it was chosen' and
    '1,500' in the summary's deadline row."""
    raw = load_mapping(EXAMPLES / "customer-service.yaml")[1]
    raw = copy.deepcopy(raw)
    raw["training"]["deadline_days"] = 1500
    raw.setdefault("budget", {}).pop("monthly_limit", None)
    text = to_text(advise(answers_from_mapping(raw), rules))
    assert "1,500-day" in text and "1500" not in text
