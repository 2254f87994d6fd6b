"""The choice: a search over (strategy x GPU count) against the PM's stated objective.

Order of what matters, and why: a plan must run (fit in memory, feed every rank from the batch, not be excluded by a
rule); then meet the deadline; then stay under the run budget and the monthly ceiling; then cost least. Costs within
``COST_TIE`` of the cheapest are the same to this model, and among them the smallest change from today wins (today's
framework, then today's GPU count), then the rules' score, then the faster run, then the simpler framework. So advisor
says "no change needed" whenever today's setup is as good as anything it can find, and every change it proposes buys
something it can name. GPU counts change only when an objective asks for it: without a deadline or a budget that
today's count breaks, the count stays as given, and cheaper-but-slower counts are reported as a trade-off with the time
they cost.
"""

from __future__ import annotations

import math
from msgspec import Struct, field
from collections.abc import Callable
from typing import Any


from advisor.inputs.answers import Answers
from advisor.knowledge.strategies import SIMPLICITY
from advisor.base.i18n import _
from advisor.base.units import format_number, percent
from advisor.decision.policy import (  # noqa: F401 - re-exported: the choice's thresholds, read from here by callers
    CHEAPER_SLOWER_STRETCH, CHEAPER_WORTH_SAYING, COST_TIE, FASTER_WORTH_SAYING, SAME_FIGURE, SEARCH_GROWTH, SWITCH_MIN_GAIN)

class Option(Struct, frozen=True):
    """One strategy at one GPU count, as the choice sees it."""

    strategy: str
    gpus: int
    hours: float
    cost: float
    monthly: float
    usable: bool
    excluded: tuple[str, ...]
    score: float
    meets_deadline: bool | None
    within_budget: bool
    within_monthly: bool
    gpu: str = ""
    """The GPU type's catalog id ("custom" for one given inline); empty where one type is searched (issue 22)."""
    spot: bool = False
    """Spot / preemptible capacity (its restarts are in ``hours``)."""
    unusable: str = ""
    """Why it cannot run, where it cannot: 'fit' (GPU memory), 'host-memory' (the node's RAM, for offload) or 'batch'
    (the global batch has fewer sequences than the data-parallel ranks); empty where it runs."""

    @property
    def runnable(self) -> bool:
        return self.usable and not self.excluded


class Plan(Struct):
    """The chosen option, today's, and the search behind the choice."""

    chosen: Option
    today: Option
    options: list[Option]
    objective: str
    """How the choice was made, in one sentence a PM can check."""
    deadline_met: bool | None
    beyond_cluster: bool
    cheapest_meeting_deadline: Option | None
    fastest: Option | None
    cheaper_slower: Option | None
    runs_per_month: float
    faster_same_cost: Option | None = None
    """The chosen framework on more GPUs, finishing sooner for about the same cost per run or less (near-linear
    scaling): what a PM without a deadline should still hear."""
    constraints_broken: list[str] = field(default_factory=list)
    what_it_takes: list[Any] = field(default_factory=list)
    """takes.Change: the smallest changes that meet what the plan misses (more GPUs, a later date, a bigger budget)."""
    stages: list[Stage] = field(default_factory=list)
    """The stages of the choice with their reason codes (empty for a blocked plan)."""
    greenfield: bool = False
    """Not training yet (training.current_strategy: none): nothing is switched from; ``today`` is the plan's strategy on today's
    GPU count (the plan itself where that does not run), for the figures only."""
    gpu_types: list[Any] = field(default_factory=list)
    """candidates.TypeBest: the best option on each GPU type compared (empty where only today's type is searched)."""

    @property
    def status_quo(self) -> bool:
        return (not self.greenfield and self.chosen.strategy == self.today.strategy and self.chosen.gpus == self.today.gpus
                and self.same_gpu_type)

    @property
    def same_gpu_type(self) -> bool:
        """The plan runs on today's GPU type, bought the same way (on demand or spot)."""
        return self.chosen.gpu == self.today.gpu and self.chosen.spot == self.today.spot

    @property
    def keeps_strategy(self) -> bool:
        return not self.greenfield and self.chosen.strategy == self.today.strategy

    def option(self, strategy: str, gpus: int) -> Option | None:
        for o in self.options:
            if o.strategy == strategy and o.gpus == gpus:
                return o
        return None

    def to_dict(self) -> dict[str, Any]:
        def opt(o: Option | None) -> dict[str, Any] | None:
            if o is None:
                return None
            return {"strategy": o.strategy, "gpus": o.gpus, "wall_clock_hours": o.hours, "cost": o.cost, "monthly_spend": o.monthly,
                    "meets_deadline": o.meets_deadline, "gpu": o.gpu, "spot": o.spot}

        return {
            "objective": self.objective,
            "status_quo": self.status_quo,
            "keeps_strategy": self.keeps_strategy,
            "deadline_met": self.deadline_met,
            "beyond_cluster": self.beyond_cluster,
            "runs_per_month": self.runs_per_month,
            "constraints_broken": self.constraints_broken,
            "today": opt(self.today),
            "chosen": opt(self.chosen),
            "cheapest_meeting_deadline": opt(self.cheapest_meeting_deadline),
            "fastest": opt(self.fastest),
            "cheaper_slower": opt(self.cheaper_slower),
            "faster_same_cost": opt(self.faster_same_cost),
            "searched_gpu_counts": sorted({o.gpus for o in self.options}),
            "what_it_takes": [c.to_dict() for c in self.what_it_takes],
            "stages": [st.to_dict() for st in self.stages],
            "greenfield": self.greenfield,
            "gpu_types": [t.to_dict() for t in self.gpu_types],
        }


class Stage(Struct, frozen=True):
    """One stage of the choice: which rule of the objective it applied (a reason code with its figures) and how many
    options it kept. The wording is objective_text's, apart from the search."""

    stage: str
    """runs, date, budget, pick or dominance."""
    code: str
    kept: int
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "code": self.code, "kept": self.kept}


def choose(options: list[Option], a: Answers, runs_per_month: float, default_strategy: str | None = None) -> Plan | None:
    """The plan, or None when nothing can run (nothing fits, or rules exclude every fitting option).

    Stages, each narrowing the options and saying why: runs -> meets the date -> within budget -> cheapest (or fastest,
    where no date can be met) with the tie-break -> not dominated by fewer GPUs as fast for less. Then the trade-offs
    around the choice (cheapest meeting the date, fastest, cheaper but slower, faster for the same cost)."""
    given, current = a.cluster.gpus, a.training.current_strategy
    # Not training yet: no option is today's; the plan stands in for it (Plan.greenfield says so).
    today = next((o for o in options if o.strategy == current and o.gpus == given), None)
    pool = [o for o in options if o.runnable]
    if not pool:
        return None
    stages = [Stage("runs", "runs", len(pool))]
    dated = _meets_date(pool, a)
    if dated is None:
        return None  # nothing runs on today's GPUs and no deadline asks for more: the caller blocks, naming a count that would
    cands, mode, stage = dated
    stages.append(stage)
    cands, broken, stage = _within_budget(cands, mode)
    stages.append(stage)
    prefer = preference(current, given, default_strategy)
    # Over budget everywhere too: a framework switch for less than the tie buys a difference the model cannot see, so the
    # tie band decides here as well ('what it takes' names the budget of the plan itself).
    # More GPUs are a cost of their own (they must be found, reserved and kept healthy): an option that beats the pick
    # only by taking more GPUs than its objective needs is named beside it (explain.notes), not taken.
    grow = False
    chosen = pick_best(cands, mode, prefer, grow)
    stages.append(Stage("pick", "fastest" if mode == "time" else "cheapest", len(cands)))
    chosen, dominated = _not_dominated(pool, chosen, a.training.deadline_days, prefer)
    if dominated is not None:
        stages.append(dominated)
    # Nothing that runs on no more GPUs may beat the plan on both cost and time.
    better = undominated(pool, chosen, prefer, grow)
    if better is not chosen:
        stages.append(Stage("dominance", "dominated", len(pool), {"gpus": better.gpus, "strategy": better.strategy,
                                                                 "from_gpus": chosen.gpus, "from_strategy": chosen.strategy}))
        chosen = better
    if mode == "time":
        broken.insert(0, "deadline")
    trade = _tradeoffs(pool, chosen, a.training.deadline_days, prefer)
    return Plan(
        chosen=chosen, options=options, objective=objective_text(stages, a), greenfield=today is None,
        today=today or next((o for o in options if o.strategy == chosen.strategy and o.gpus == given), chosen),
        deadline_met=None if a.training.deadline_days is None else bool(chosen.meets_deadline),
        beyond_cluster=chosen.gpus > given, runs_per_month=runs_per_month, constraints_broken=broken, stages=stages,
        cheapest_meeting_deadline=trade["cheapest_meeting_deadline"], fastest=trade["fastest"], cheaper_slower=trade["cheaper_slower"],
        faster_same_cost=trade["faster_same_cost"],
    )


def _meets_date(pool: list[Option], a: Answers) -> tuple[list[Option], str, Stage] | None:
    """Stage 2: the options that meet the deadline, on today's GPUs first, then on more; where none does, all of them
    by speed. Without a deadline the GPU count stays as given unless nothing runs or fits the budget there."""
    given, deadline = a.cluster.gpus, a.training.deadline_days
    within = [o for o in pool if o.gpus <= given]
    if deadline is not None:
        meet = [o for o in within if o.meets_deadline]
        if meet:
            return meet, "cost", Stage("date", "date-met-on-today", len(meet))
        beyond = [o for o in pool if o.gpus > given and o.meets_deadline]
        if beyond:
            return beyond, "cost", Stage("date", "date-needs-more-gpus", len(beyond))
        # Out of reach on every count searched: the plan is the fastest of them all (more GPUs included), as the
        # objective says — not the fastest on today's count, which may be slower and dearer.
        return pool, "time", Stage("date", "date-out-of-reach", len(pool))
    if not within:
        return None
    same = [o for o in within if o.gpus == given]
    affordable_same = [o for o in same if o.within_budget and o.within_monthly]
    if same and (affordable_same or not [o for o in within if o.within_budget and o.within_monthly]):
        return same, "cost", Stage("date", "no-date-keep-count", len(same))
    if not same:
        # Nothing runs on today's count (out of memory, or more data-parallel ranks than the batch has sequences):
        # the reason is that, not a budget nobody gave.
        return within, "cost", Stage("date", "no-date-nothing-runs-here", len(within))
    return within, "cost", Stage("date", "no-date-over-budget-here", len(within))


def _within_budget(cands: list[Option], mode: str) -> tuple[list[Option], list[str], Stage]:
    """Stage 3: the options within the run budget and the monthly ceiling; where none is, all of them, the broken
    constraints named."""
    affordable = [o for o in cands if o.within_budget and o.within_monthly]
    if affordable:
        slower = mode == "time" and min(o.hours for o in affordable) > min(o.hours for o in cands)
        return affordable, [], Stage("budget", "fastest-within-budget" if slower else "within-budget", len(affordable))
    broken = [name for name, hit in (("run budget", any(not o.within_budget for o in cands)),
                                     ("monthly ceiling", any(not o.within_monthly for o in cands))) if hit]
    return cands, broken, Stage("budget", "over-budget", len(cands))


def _not_dominated(pool: list[Option], chosen: Option, deadline: float | None, prefer: Callable[[Option], Any]) -> tuple[Option, Stage | None]:
    """Stage 5: fewer GPUs that finish as fast (within the tie) for at least 10% less dominate the choice, deadline or
    not: GPUs waiting on a slow loader or a thin network buy nothing."""
    as_fast = [o for o in pool if o.gpus < chosen.gpus and o.hours <= chosen.hours * (1 + COST_TIE)
               and o.cost <= chosen.cost * (1 - CHEAPER_WORTH_SAYING) and o.within_budget and o.within_monthly
               and (deadline is None or o.meets_deadline or not chosen.meets_deadline)]
    if not as_fast:
        return chosen, None
    better = min(tie_band(as_fast), key=prefer)
    return better, Stage("dominance", "fewer-gpus-as-fast", len(as_fast), {"gpus": better.gpus, "more": chosen.gpus})


def _tradeoffs(pool: list[Option], chosen: Option, deadline: float | None,
               prefer: Callable[[Option], Any]) -> dict[str, Option | None]:
    """What the plan is compared with: the cheapest option meeting the date, the fastest, the cheaper-but-slower trade a
    PM would weigh (within CHEAPER_SLOWER_STRETCH, not giving up a met date), and the best option at a larger count that
    is faster for about the same cost. Exact ties go to ``prefer``, the choice's own tie-break, so two lines of one summary never name two
    frameworks for one figure (ZeRO-1 and ZeRO-2 on 256 GPUs, user try 2026-12-05)."""
    meeting = [o for o in pool if o.meets_deadline] if deadline is not None else []
    slower = [o for o in pool if o.gpus < chosen.gpus and o.cost <= chosen.cost * (1 - CHEAPER_WORTH_SAYING)
              and o.hours <= chosen.hours * CHEAPER_SLOWER_STRETCH and (o.meets_deadline is not False or not chosen.meets_deadline)]
    # A budget the plan itself misses does not rule out a faster option for no more (88 GPUs over budget at 16.6 days stood
    # silent beside 128 at 11.1 days for 3% less, equally over; user try 2026-12-07).
    # The best option at each larger count, as the what-if row there names it (best_at): the note named fsdp on 512 GPUs
    # where the row named deepspeed-zero3 at the same figures (user try 12).
    larger: dict[int, list[Option]] = {}
    for o in pool:
        if o.gpus > chosen.gpus:
            larger.setdefault(o.gpus, []).append(o)
    at_count = [b for opts in larger.values() if (b := best_at(opts, prefer)) is not None]
    quicker = [o for o in at_count if o.cost <= chosen.cost * (1 + COST_TIE)
               and (o.within_budget or not chosen.within_budget) and (o.within_monthly or not chosen.within_monthly)
               and o.hours <= chosen.hours * (1 - FASTER_WORTH_SAYING)]
    return {
        "cheapest_meeting_deadline": min(meeting, key=lambda o: (o.cost, o.hours, prefer(o))) if meeting else None,
        "fastest": min(pool, key=lambda o: (o.hours, o.cost, prefer(o))),
        # Of the options within the cost tie of the cheapest, the fastest: '512 GPUs, 24.6 h, 17% less' says more than
        # '8 GPUs, 65 days, 17% less' when both cost the same.
        "cheaper_slower": min(tie_band(slower), key=lambda o: (o.hours, o.cost, prefer(o))) if slower else None,
        "faster_same_cost": min(quicker, key=lambda o: (o.hours, o.cost, prefer(o))) if quicker else None,
    }


def objective_text(stages: list[Stage], a: Answers) -> str:
    """How the choice was made, in one sentence a PM can check: the wording of the stages' reason codes."""
    codes = {st.code: st for st in stages}
    base = _objective_base(codes, a)
    if "dominated" in codes:
        p = codes["dominated"].params
        return _("{base}; then {strategy} on {gpus} GPUs beat that on both cost and time (by at least {gain} on one), so it was chosen",
                 base=base, strategy=p["strategy"], gpus=f"{p['gpus']:,}", gain=percent(SWITCH_MIN_GAIN))
    return base


def _tie_rule(a: Answers, gpus: str, times: bool) -> str:
    """How a tie of costs (or times) within COST_TIE is settled, as preference settles it. A new project has no setup
    today to change from (user try 2026-12-06 read 'the smaller change from today' on a plan): its ties go to the count
    nearest the GPUs given."""
    tie = percent(COST_TIE)
    if a.training.greenfield:
        return (_("times within {tie} of it count as equal: the count nearest the {gpus} GPUs given, then the rules' score, decides "
                  "among them", tie=tie, gpus=gpus) if times else
                _("costs within {tie} of it count as equal: the count nearest the {gpus} GPUs given, then the rules' score, decides "
                  "among them", tie=tie, gpus=gpus))
    return (_("times within {tie} of it count as equal: the smaller change from today, then the rules' score, decides among them", tie=tie)
            if times else
            _("costs within {tie} of it count as equal: the smaller change from today, then the rules' score, decides among them", tie=tie))


def _objective_base(codes: dict[str, Stage], a: Answers) -> str:
    gpus, days = f"{a.cluster.gpus:,}", format_number(a.training.deadline_days or 0)
    if "fewer-gpus-as-fast" in codes:
        p = codes["fewer-gpus-as-fast"].params
        return _("{gpus} GPUs finish about as fast as {more} for at least {saving} less, so fewer GPUs were chosen",
                 gpus=f"{p['gpus']:,}", more=f"{p['more']:,}", saving=percent(CHEAPER_WORTH_SAYING))
    if "date-met-on-today" in codes:
        return _("meet the {days}-day deadline on at most the {gpus} GPUs you have, then cost least", days=days, gpus=gpus)
    if "date-needs-more-gpus" in codes:
        return _("no option on the {gpus} GPUs you have meets the {days}-day deadline; the cheapest way to meet it needs more GPUs",
                 gpus=gpus, days=days)
    if "date-out-of-reach" in codes:
        # Times within COST_TIE are a tie too: 'the fastest is shown' beside a plan 0.4% slower than another read as a
        # contradiction (user try 2026-12-05).
        time_rule = _tie_rule(a, gpus, times=True)
        if "fastest-within-budget" in codes:
            return _("nothing searched meets the {days}-day deadline, so the fastest option within the budget wins ({time_rule})",
                     days=days, time_rule=time_rule)
        return _("nothing searched meets the {days}-day deadline, so the fastest option wins ({time_rule})", days=days, time_rule=time_rule)
    # Costs within COST_TIE are a tie the table shows as such: each 'cheapest wins' says how it is settled.
    tie_rule = _tie_rule(a, gpus, times=False)
    if "no-date-keep-count" in codes:
        return _("no deadline given, so the GPU count stays at {gpus}; the cheapest option wins ({tie_rule})", gpus=gpus, tie_rule=tie_rule)
    if "no-date-nothing-runs-here" in codes:
        return _("nothing can run on {gpus} GPUs as asked, so fewer GPUs were searched; the cheapest option wins ({tie_rule})",
                 gpus=gpus, tie_rule=tie_rule)
    return _("no option on {gpus} GPUs stays within budget, so fewer GPUs were searched; the cheapest option wins ({tie_rule})",
             gpus=gpus, tie_rule=tie_rule)


def dominates(o: Option, c: Option, gain: float = SWITCH_MIN_GAIN) -> bool:
    """``o`` is cheaper and no slower than ``c``, or faster for no more, by at least ``gain`` of the cost or the time: a
    PM shown both would take ``o``, and the difference is larger than the estimate's resolution."""
    return (o.cost <= c.cost and o.hours <= c.hours
            and (o.cost <= c.cost * (1.0 - gain) or o.hours <= c.hours * (1.0 - gain)))


def pick_best(cands: list[Option], mode: str, prefer: Callable[[Option], Any], grow: bool = True) -> Option:
    """Of options that all serve the objective equally (they run, and meet what the best of them meets), the one to
    take: the cheapest (or, in ``mode`` "time", the fastest) within COST_TIE, the tie broken by ``prefer``, and never one
    that another of them dominates (``undominated``; ``grow`` as there)."""
    return undominated(cands, min(tie_band(cands, "hours" if mode == "time" else "cost"), key=prefer), prefer, grow)


def undominated(options: list[Option], chosen: Option, prefer: Callable[[Option], Any], grow: bool = True) -> Option:
    """``chosen``, or, while a runnable option dominates it (``dominates``: cheaper and no slower, or faster for no more,
    by SWITCH_MIN_GAIN), the best of those: a pick is never an option that a listed one beats on both counts by more than
    the model's resolution. A dominating option meets every goal the chosen one meets (no slower, no dearer).

    ``grow`` False: a dominating option on more GPUs is not taken (the plan asks for no more GPUs than its objective
    needs); the summary names it, with that reason (explain.notes)."""
    while better := [o for o in options if o.runnable and dominates(o, chosen) and (grow or o.gpus <= chosen.gpus)]:
        chosen = min(tie_band(better), key=prefer)
    return chosen


def best_at(options: list[Option], prefer: Callable[[Option], Any]) -> Option | None:
    """The best option among ``options`` by the plan's objective — the one function that says "the best option" for a
    GPU count (pass the options at that count) or over counts: it runs (fits, feeds every rank, no rule excludes it);
    it meets the deadline where any option does (else the fastest wins); it stays within the run budget and the monthly
    ceiling where any does; then ``pick_best``. None where nothing runs. The memo's what-if table, ``advisor sweep``,
    ``advisor ask`` and the TUI chart all call it (tests/test_one_chooser.py)."""
    pool = [o for o in options if o.runnable]
    if not pool:
        return None
    meet = [o for o in pool if o.meets_deadline]
    missed = any(o.meets_deadline is False for o in pool)
    cands, mode = (meet, "cost") if meet else (pool, "time") if missed else (pool, "cost")
    cands = [o for o in cands if o.within_budget and o.within_monthly] or cands
    return pick_best(cands, mode, prefer)


def tie_band(options: list[Option], by: str = "cost") -> list[Option]:
    """The options within COST_TIE of the best by ``by`` ("cost" or "hours"): differences smaller than the estimate's
    own uncertainty do not decide."""
    best = min(getattr(o, by) for o in options)
    return [o for o in options if getattr(o, by) <= best * (1 + COST_TIE)]


def preference(current: str, given: int, default_strategy: str | None = None) -> Callable[[Option], tuple[Any, ...]]:
    """How ties are broken, everywhere an option is picked (the choice, the memo's what-if table): the smallest change
    from today — today's framework while no rule counts against it on balance, then today's GPU count — then the
    rules' score, a pack's default, speed, simplicity."""

    def key(o: Option) -> tuple[Any, ...]:
        keeps = o.strategy == current and o.score >= 0
        return (not keeps, abs(math.log(o.gpus / given)), -o.score, o.strategy != default_strategy, o.hours, SIMPLICITY[o.strategy])

    return key


