"""What the plan implies, said once: the headline, the notes on the choice, and the what-if rows.

Every statement a front end shows about the plan (cheaper, faster, over budget, what it takes) is made here, from the
plan the search returned, and stored in the report; the renderers (text, memo, TUI) only lay the report out. A second
renderer that re-derived "cheaper but slower" is how the same fact came to be said three times in two units (issue 23).

Each note carries a code (``cheapest-meeting-deadline``, ``cheaper-slower``, ``what-it-takes-more-gpus`` …) so tests
and tools can ask which statements a plan makes without parsing its wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from advisor.base.i18n import N_, _
from advisor.estimate.posttrain import stage_name
from advisor.decision.decide import COST_TIE, Option, best_at, dominates, preference
from advisor.base.units import count, format_number, money_unit, hours_against, hours_text, money, more_than_about_the_same, pct_change, percent, same_unit, token_text, plural
from advisor.knowledge.strategies import FRAMEWORKS

if TYPE_CHECKING:
    from advisor.decision.advice import Advice

PLAN_SOURCE = "advisor's search (README: How it decides)"
"""Where the plan's own statements come from: the search over strategy x GPU count, not a rule."""


def method_names() -> dict[str, str]:
    """Each training method's name as the texts say it (estimate.posttrain.stage_name: one wording for a plan and a stage)."""
    return {m: stage_name(m) for m in ("pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo")}


def point_inside(hours: float, deadline_days: float) -> bool:
    """Whether the point estimate is inside the date: a plan judged to miss it (on the range's upper end,
    estimate.deadline_hours) is then at risk, not missed."""
    return hours <= deadline_days * 24.0


def deadline_reason(hours: float, deadline_days: float) -> str:
    """Why an option that misses the deadline lost, in the words every part uses (the Options tab, the memo and ask's
    'why not N GPUs' had two phrasings of it): at risk where the point is inside the date, past it where it is not."""
    if point_inside(hours, deadline_days):
        return _("takes {time}: inside the {days}-day deadline, but at risk of running past it", time=hours_text(hours),
                 days=format_number(deadline_days))
    return _("takes {time}, past the {days}-day deadline", time=hours_against(hours, deadline_days * 24),
             days=format_number(deadline_days))


def budget_word(within: bool, amount: float, limit: float) -> str:
    """A plan against a budget in one word, as deadline_word says a date: within; at risk where the point estimate is
    under the limit but the range's upper end (on which budgets are judged, estimate.judged_limits) is over it; over
    where the point is (user try 9: 'within' beside a range whose upper end was over)."""
    if within:
        return _("within")
    return _("at risk") if amount <= limit else _("over")


def deadline_word(meets: bool | None, hours: float, deadline_days: float | None) -> str:
    """A plan against its deadline in one word: met; at risk where the point estimate is inside the date but the range's
    upper end (on which deadlines are judged, estimate.deadline_hours) is past it; missed where the point is past it."""
    if meets is None or deadline_days is None:
        return "—"
    if meets:
        return _("met")
    return _("at risk") if point_inside(hours, deadline_days) else _("missed")


def headline(advice: Advice, count_asked: bool = False) -> str:
    """The decision in one sentence: what changes against today (text, memo and TUI all show this one). ``count_asked``:
    the GPU count is a what-if's, not the team's, so 'the same N GPUs' would contradict the '(was M)' above it."""
    p, a = advice.plan, advice.answers
    fw = FRAMEWORKS[p.chosen.strategy]
    if any(w["blocking"] for w in advice.warnings):
        return _("Blocked: nothing can run as asked (showing {fw} on {gpus} GPUs); resolve the blocking warnings first.", fw=fw, gpus=f"{p.chosen.gpus:,}")
    if advice.method_changed:
        names = method_names()
        return _("Fine-tune with {method} instead of a {asked}: {fw} on {gpus} GPUs.", method=names[advice.method],
                 asked=names[advice.asked_method or ""], fw=fw, gpus=f"{p.chosen.gpus:,}")
    if p.greenfield:
        return _("Plan: {fw} on {gpus} × {gpu}.", fw=fw, gpus=f"{p.chosen.gpus:,}", gpu=gpu_type_name(advice))
    if not p.same_gpu_type:
        if p.keeps_strategy:
            return _("Move to {gpu}: keep {fw}, on {gpus} GPUs.", gpu=gpu_type_name(advice), fw=fw, gpus=f"{p.chosen.gpus:,}")
        return _("Move to {gpu} and switch from {old} to {fw}, on {gpus} GPUs.", gpu=gpu_type_name(advice),
                 old=FRAMEWORKS[a.training.current_strategy], fw=fw, gpus=f"{p.chosen.gpus:,}")
    if p.status_quo:
        if p.deadline_met is False:  # nothing that can be had meets the date: keeping today's setup is no 'no change needed'
            days = a.training.deadline_days or 0
            if point_inside(p.chosen.hours, days):
                return _("Keep {fw} on {gpus} GPUs: the {days}-day deadline is at risk (the estimate's upper end is past it).",
                         fw=fw, gpus=f"{p.chosen.gpus:,}", days=format_number(days))
            return _("Keep {fw} on {gpus} GPUs: nothing within reach meets the {days}-day deadline.", fw=fw, gpus=f"{p.chosen.gpus:,}",
                     days=format_number(days))
        return _("No change needed: keep {fw} on {gpus} GPUs.", fw=fw, gpus=f"{p.chosen.gpus:,}")
    if p.keeps_strategy:
        return _("Keep {fw}; run on {gpus} GPUs instead of {today}.", fw=fw, gpus=f"{p.chosen.gpus:,}", today=f"{p.today.gpus:,}")
    where = (_("using {gpus} GPUs", gpus=f"{p.chosen.gpus:,}") if count_asked
             else _("on the same {gpus} GPUs", gpus=f"{p.chosen.gpus:,}") if p.chosen.gpus == p.today.gpus
             else _("on {gpus} GPUs instead of {today}", gpus=f"{p.chosen.gpus:,}", today=f"{p.today.gpus:,}"))
    return _("Switch from {old} to {fw}, {where}.", old=FRAMEWORKS[a.training.current_strategy], fw=fw, where=where)


def _note(code: str, text: str) -> dict[str, Any]:
    return {"code": code, "text": text}


def notes(advice: Advice) -> list[dict[str, Any]]:
    """How the choice was made and what it trades (deadline, what it takes, cheaper-but-slower, faster-for-the-same-cost),
    each said once. The risks are the warnings, shown apart."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    out = [_note("objective", _("How it was chosen: {objective}.", objective=p.objective))]
    today_note = today_cannot_run(advice)
    if today_note:
        out.append(_note("today-cannot-run", today_note))
    data = _data_note(advice)
    if data:
        out.append(_note("data", data))
    dl = a.training.deadline_days
    if dl is not None:
        cm = p.cheapest_meeting_deadline
        if cm is None:
            fastest = p.fastest
            tail = (_(": the fastest option, {strategy} on {gpus} GPUs, takes {time} for {cost} a run.", strategy=fastest.strategy,
                      gpus=fastest.gpus, time=hours_text(fastest.hours), cost=money(fastest.cost, cur))
                    if fastest and not p.what_it_takes else ".")
            out.append(_note("deadline-out-of-reach", _("The {days}-day deadline cannot be met with up to {most} GPUs{tail}",
                                                        days=format_number(dl), most=f"{max(o.gpus for o in p.options):,}", tail=tail)))
        elif cm.cost < p.chosen.cost * (1 - COST_TIE):
            out.append(_note("cheapest-meeting-deadline", _(
                "Cheapest way to meet the {days}-day deadline: {strategy} on {gpus} GPUs, {time} for {cost} a run.",
                days=format_number(dl), strategy=cm.strategy, gpus=cm.gpus, time=hours_text(cm.hours), cost=money(cm.cost, cur))))
        elif cm.gpus != p.chosen.gpus and not _same(cm, p.faster_same_cost):  # that one says it, as 'faster for no more'
            # Within the tie: say why the cheapest is not the plan, instead of naming it 'cheapest' beside another choice.
            # a new project's ties go to the count nearest the GPUs given (decide.preference); 'the simpler setup wins it'
            # named a 4-GPU ZeRO++ simpler than one GPU with offload (user try 9)
            same = p.option(cm.strategy, p.chosen.gpus) if cm.strategy != p.chosen.strategy else None
            if same is not None and same.runnable and same.meets_deadline is not False and same.cost <= p.chosen.cost * (1 + COST_TIE):
                # the same framework on the plan's own count ties too, so the count did not decide: ZeRO-2 on 256 'lost to the
                # count nearest the 64 GPUs given' where ZeRO-2 on those 64 cost the same and lost on the score (user try 14)
                cm = same
            keeps_today = not p.greenfield and p.chosen.strategy == a.training.current_strategy
            if cm.gpus == p.chosen.gpus and not keeps_today:
                tie = _("{strategy} on {gpus} GPUs also meets the {days}-day deadline, for {cost} a run ({change}): costs within {tie} are "
                        "a tie here, and the rules' score decides ({plan} {plan_score}, {strategy} {score}).", strategy=cm.strategy,
                        gpus=cm.gpus, days=format_number(dl), tie=percent(COST_TIE), cost=money(cm.cost, cur),
                        change=pct_change(cm.cost, p.chosen.cost), plan=p.chosen.strategy, plan_score=format_number(p.chosen.score),
                        score=format_number(cm.score))
            elif p.greenfield:  # no today to change from
                tie = _("{strategy} on {gpus} GPUs also meets the {days}-day deadline, for {cost} a run ({change}): costs within {tie} are a "
                        "tie here, and the count nearest the {given} GPUs given wins it.", strategy=cm.strategy, gpus=cm.gpus,
                        days=format_number(dl), tie=percent(COST_TIE), given=count(a.cluster.gpus), cost=money(cm.cost, cur),
                        change=pct_change(cm.cost, p.chosen.cost))
            else:
                tie = _("{strategy} on {gpus} GPUs also meets the {days}-day deadline, for {cost} a run ({change}): costs within {tie} are a "
                        "tie here, and the smaller change from today wins it.", strategy=cm.strategy, gpus=cm.gpus, tie=percent(COST_TIE),
                        days=format_number(dl), cost=money(cm.cost, cur), change=pct_change(cm.cost, p.chosen.cost))
            out.append(_note("tie-meeting-deadline", tie))
    out.extend(gpu_type_notes(advice))
    out.extend(what_it_takes_notes(advice))
    if p.cheaper_slower is not None:
        c = p.cheaper_slower
        slow, fast = same_unit(c.hours, p.chosen.hours)
        out.append(_note("cheaper-slower", _(
            "Cheaper but slower: {gpus} GPUs with {strategy} cost {cost} a run ({change}) and take {slow} instead of {fast}.",
            gpus=c.gpus, strategy=c.strategy, cost=money(c.cost, cur), change=pct_change(c.cost, p.chosen.cost), slow=slow, fast=fast)))
    if p.faster_same_cost is not None:
        f = p.faster_same_cost
        quick, slow = same_unit(f.hours, p.chosen.hours)
        if more_than_about_the_same(f.cost, p.chosen.cost):
            # within the cost tie, but more: 'Faster for no more per run … (3% more)' contradicted itself (user try 14)
            text = _("Faster for a little more per run: {gpus} GPUs with {strategy} take {quick} instead of {slow}, for {cost} a run "
                     "({change}, within the {tie} that counts as the same cost), if the cluster can give them.", gpus=f"{f.gpus:,}",
                     strategy=f.strategy, quick=quick, slow=slow, cost=money(f.cost, cur), change=pct_change(f.cost, p.chosen.cost),
                     tie=percent(COST_TIE))
        elif dominates(f, p.chosen):
            # decide.choose did not move to it: the one sentence that says why the plan stands beside an option that beats it.
            text = _("Faster for no more per run: {gpus} GPUs with {strategy} take {quick} instead of {slow}, for {cost} a run ({change}). "
                     "The plan asks for no more GPUs than its goal needs: if {gpus} are free to use, take them.", gpus=f"{f.gpus:,}",
                     strategy=f.strategy, quick=quick, slow=slow, cost=money(f.cost, cur), change=pct_change(f.cost, p.chosen.cost))
        else:
            text = _("Faster for no more per run: {gpus} GPUs with {strategy} take {quick} instead of {slow}, for {cost} a run ({change}), "
                     "if the cluster can give them.", gpus=f"{f.gpus:,}", strategy=f.strategy, quick=quick, slow=slow, cost=money(f.cost, cur),
                     change=pct_change(f.cost, p.chosen.cost))
        out.append(_note("faster-same-cost", text))
    return out


def _same(o: Option, other: Option | None) -> bool:
    return other is not None and (o.strategy, o.gpus, o.gpu, o.spot) == (other.strategy, other.gpus, other.gpu, other.spot)


def what_it_takes_notes(advice: Advice) -> list[dict[str, Any]]:
    """The smallest changes that meet what the plan misses (takes.what_it_takes), worded for the PM."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    out = []
    for c in p.what_it_takes:
        plan = _("{strategy} on {gpus} GPUs, {time} for {cost} a run", strategy=c.strategy, gpus=f"{c.gpus:,}", time=hours_text(c.hours),
                 cost=money(c.cost, cur))
        if c.kind == "more-gpus":
            most = max(o.gpus for o in p.options)
            text = _("What it takes to meet the {days}-day deadline: {gpus} GPUs, {more} more than the {most} searched ({plan}).",
                     days=format_number(a.training.deadline_days or 0), gpus=f"{c.gpus:,}", more=f"{c.gpus - most:,}",
                     most=f"{most:,}", plan=plan)
        elif c.kind == "other-gpu":
            text = _("Or another GPU type: {gpus} × {gpu} ({plan}).", gpus=f"{c.gpus:,}", gpu=type_name(c.gpu, c.spot), plan=plan)
        elif c.kind == "later-date":
            text = _("Or move the date: the fastest option within reach needs {days} days ({plan}).", days=f"{c.target:,.1f}", plan=plan)
        elif c.kind == "fp8":
            text = _("Or train in FP8 on these GPUs' FP8 tensor cores: {plan}. Check the loss against a bf16 run first.", plan=plan)
        elif c.kind == "lighter-method":
            text = _("Or fine-tune with {method} instead: {plan}. It trades some quality on hard tasks: compare on the team's own evaluation set.",
                     method={"lora": "LoRA", "qlora": "QLoRA"}.get(c.detail, c.detail), plan=plan)
        elif c.kind == "bigger-batch":
            text = _("Or double the global batch to {tokens} tokens a step, which feeds more GPUs: {plan}. A larger batch can change how the "
                     "model converges: confirm with the team's training recipe.", tokens=count(float(c.detail)), plan=plan)
        elif c.kind == "bigger-budget":
            text = _("What it takes within the run budget of {limit}: a budget of {cost} ({plan}).",
                     limit=money(a.budget.limit or 0, cur), cost=money(c.target, cur), plan=plan)
        else:
            # The ceiling it takes at the range's upper end, beside the point the summary's monthly row shows, and the other
            # lever: fewer runs ('61,159 CNY a month at 76.2 runs (... 605 CNY a run)' under a monthly row of 46,080 read as
            # two different bills, and named no way to stay within 30,000; user try 2026-12-07).
            point = p.runs_per_month * c.cost
            upper = c.target / point if point > 0 else 1.0
            fit = int((a.budget.monthly_limit or 0) // (c.cost * upper)) if c.cost > 0 else 0
            text = _("What it takes within the monthly ceiling of {limit}: a ceiling of {cost} a month for {runs} runs ({point} at the "
                     "estimate, judged at its upper end), or no more than {fit} runs a month ({plan}).",
                     limit=money(a.budget.monthly_limit or 0, cur), cost=money(c.target, cur), runs=f"{p.runs_per_month:,.1f}",
                     point=money(point, cur), fit=f"{fit:,}", plan=plan)
        out.append(_note(f"what-it-takes-{c.kind}", text))
    return out


def spot_name(name: str, spot: bool) -> str:
    """A GPU type's name, with '(spot)' for spot capacity: one wording for the summary, the memo, the sweep and the TUI."""
    return name + (_(" (spot)") if spot else "")


def type_name(gpu: str, spot: bool) -> str:
    """'NVIDIA H100 SXM 80GB' for a catalog id, with '(spot)' for spot capacity."""
    from advisor.knowledge.catalog import gpu_catalog

    known = gpu_catalog()
    return spot_name(known[gpu].name if gpu in known else gpu, spot)


def gpu_type_name(advice: Advice) -> str:
    """The plan's GPU type as the summary names it."""
    return spot_name(advice.answers.cluster.spec.name, advice.plan.chosen.spot)


def plan_with_method(method: str, plan: str) -> str:
    """'full fine-tune with fsdp on 2 GPUs, ...': a plan named with its training method, where plans compared side by
    side train differently (the GPU-type comparison, ask's 'on the A100 alone')."""
    return _("{method} with {plan}", method=method_names().get(method, method), plan=plan)


def _type_plan(o: Any, cur: str) -> str:
    return _("{strategy} on {gpus} GPUs, {time}, {cost}", strategy=o.strategy, gpus=f"{o.gpus:,}", time=hours_text(o.hours),
             cost=money(o.cost, cur))


def lost_text(lost: str | None, cost: float, chosen_cost: float, deadline_days: float | None) -> str:
    """Why one GPU type lost to the chosen one, in a few words (candidates.TypeBest.lost): the summary's sentence and the
    memo's table both word it here."""
    if lost == "blocked":
        return _("nothing runs")
    if lost == "deadline":
        return _("past the {days}-day deadline", days=format_number(deadline_days or 0))
    if lost == "budget":
        return _("over budget")
    if lost == "time":
        return _("slower")
    if lost == "cost":
        return pct_change(cost, chosen_cost)
    return _("within {tie}, and the smaller change wins", tie=percent(COST_TIE))


def gpu_type_notes(advice: Advice) -> list[dict[str, Any]]:
    """Why the chosen GPU type beat the others, with the best plan's time and cost on each (issue 22), and what spot
    capacity costs in reclaims."""
    types = advice.plan.gpu_types
    if len(types) < 2:
        return []
    cur = advice.facts["currency"]
    win = next(t for t in types if t.lost is None)
    unit = money_unit(str(cur))  # 元 in Chinese, as money() writes it: '每卡时 18 CNY' beside 万元 (user try 8)
    # the method named where the types' plans train differently: on the types whose method differs from the plan's, and
    # then on the plan's too
    mixed = any(t.method and t.method != win.method for t in types)

    def plan_of(t: Any) -> str:
        text = _type_plan(t.option, cur)
        return plan_with_method(t.method, text) if t.method and (t.method != win.method or (t is win and mixed)) else text

    others = _("; ").join(_("{name} at {price} ({plan}: {why})", name=type_name(t.gpu, t.spot), price=f"{format_number(t.price)} {unit}",
                         plan=plan_of(t), why=lost_text(t.lost, t.option.cost, win.option.cost, advice.answers.training.deadline_days)) for t in types if t.lost is not None)
    out = [_note("gpu-type", _("GPU type: {name} at {price} {currency}/GPU-hour ({plan}) beats {others}.", name=type_name(win.gpu, win.spot),
                               price=format_number(win.price), currency=unit, plan=plan_of(win), others=others))]
    if advice.plan.chosen.spot:
        e = advice.estimate_dict(advice.strategy)
        out.append(_note("spot", _("Spot capacity: about {n} reclaims over the run at {pct}% of instances a month, each a restart from the "
                                   "last checkpoint (priced like a hardware interruption); the wait for replacement capacity is not priced.",
                                   n=f"{e['expected_spot_reclaims']:,.1f}",
                                   pct=format_number(advice.answers.cluster.spot_interruptions_pct_per_month or 0))))
    return out


def _data_note(advice: Advice) -> str | None:
    """'Data: 200,000 examples x 512 tokens x 3 epochs = 307.2M tokens.' when the answers count examples."""
    t = advice.answers.training
    if t.examples is None or t.tokens_per_example is None:
        return None
    epochs = t.epochs if t.epochs is not None else 1.0
    return plural(epochs, N_("Data: {examples} examples × {per} tokens × {n} epoch = {tokens} tokens."),
                  N_("Data: {examples} examples × {per} tokens × {n} epochs = {tokens} tokens."), examples=f"{t.examples:,.0f}",
                  per=f"{t.tokens_per_example:,}", tokens=token_text(t.data_tokens or 0))


def today_cannot_run(advice: Advice) -> str | None:
    """Why the summary's 'today' column says 'cannot run' (the table only has room for the verdict), or, where the
    answers give a measured run (then the known-run warning speaks), nothing."""
    t = advice.plan.today
    if t.runnable:
        return None
    if advice.plan.greenfield:
        return None  # nothing runs today: the blocking warning says why no option runs (user try 10: "Today's megatron-3d")
    if t.excluded:
        return _("Today's {strategy} is ruled out here: {why}", strategy=t.strategy, why=t.excluded[0])
    if advice.today.context.get("baseline_hours") is not None:
        return None  # a measured run the estimate says cannot run: the known-run warning says so, with what to check
    why = advice.why_not_today()
    return _("Today's setup ({strategy} on {gpus} GPUs) cannot run this job: {why}.", strategy=t.strategy, gpus=f"{t.gpus:,}", why=why)


def what_if(advice: Advice) -> list[dict[str, Any]]:
    """The best runnable option at the allocations clusters hand out (1, 2, 3, 4, 6, 8 … nodes), today's count, the
    choice's and the cheapest meeting the deadline, today and the choice marked: the rows of the what-if table and the
    points of its charts. The search prices more counts than a table should show (issue 20)."""
    from advisor.decision.search import ladder_counts

    p = advice.plan
    # Marked 'cheapest meeting the deadline' only where it is cheaper than the plan beyond the tie, as the notes say it
    # ('tie-meeting-deadline' names one within it): 692 marked cheapest beside the plan's 693 read as a second answer.
    cm = p.cheapest_meeting_deadline if p.cheapest_meeting_deadline and p.cheapest_meeting_deadline.cost < p.chosen.cost * (1 - COST_TIE) else None
    shown = ladder_counts(advice.answers) | {p.today.gpus, p.chosen.gpus}
    if p.cheapest_meeting_deadline is not None:
        shown.add(p.cheapest_meeting_deadline.gpus)
    fast = p.faster_same_cost
    if fast is not None:
        shown.add(fast.gpus)
    rows: list[dict[str, Any]] = []
    for g in sorted({o.gpus for o in p.options} & shown):
        point: dict[str, Any] = {"gpus": g, "strategy": None, "wall_clock_hours": None, "cost": None, "meets_deadline": None,
                                 "today": g == p.today.gpus, "chosen": g == p.chosen.gpus,
                                 "cheapest_meeting_deadline": bool(cm and g == cm.gpus and g != p.chosen.gpus)}
        best = best_option_at(advice, g)
        # the row says what the note says only where its best option is the note's ('faster for no more': the plan's
        # framework on more GPUs)
        point["faster_same_cost"] = bool(fast and best and g == fast.gpus and best.strategy == fast.strategy and g != p.chosen.gpus)
        if best is not None:
            point.update(strategy=best.strategy, wall_clock_hours=best.hours, cost=best.cost, meets_deadline=best.meets_deadline)
            ev = advice.counts.get(g)
            if ev is not None:
                e = ev.estimates[best.strategy]
                one = {k: np.ravel(getattr(e, k))[0] for k in ("tp", "pp", "recompute", "accumulation", "micro_batch")}
                point["layout"] = {"tensor_parallel": int(one["tp"]), "pipeline_parallel": int(one["pp"]), "recompute": str(one["recompute"]),
                                   "micro_batches": int(one["accumulation"]),
                                   "sequences_per_rank": float(one["micro_batch"] * one["accumulation"])}
        else:
            point["nothing_because"] = nothing_because([o for o in p.options if o.gpus == g])
        rows.append(point)
    return rows


def nothing_because(here: list[Option]) -> str:
    """Why nothing runs at one count, the nearest miss first: the batch cannot feed the data-parallel ranks of what fits
    (what a PM can change: a bigger batch or fewer GPUs; an option that feeds them through model parallelism may still be
    ruled out, as Megatron is for LoRA); else the rules exclude what runs; else the host's memory; else GPU memory."""
    if any(o.unusable == "batch" for o in here):
        return "batch"
    if any(o.usable for o in here):
        return "rules"
    if any(o.unusable == "host-memory" for o in here):
        return "host-memory"
    return "fit"


def best_option_at(advice: Advice, gpus: int) -> Option | None:
    """The best option the plan's search priced at ``gpus`` GPUs (decide.best_at, the one chooser, with the tie-break
    ``advisor sweep`` uses: today's framework): the plan itself at the plan's count. None where nothing runs there or
    the count was not priced."""
    p = advice.plan
    if gpus == p.chosen.gpus and p.chosen.runnable:
        return p.chosen
    return best_at([o for o in p.options if o.gpus == gpus], preference(advice.answers.training.current_strategy, gpus))
