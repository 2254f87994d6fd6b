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
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np

from advisor.inputs.answers import Answers
from advisor.knowledge.strategies import SIMPLICITY
from advisor.base.i18n import _

COST_TIE = 0.05
"""Costs within 5% are treated as equal: below the model's resolution (its own MFU bands span ±20%), so they never
justify a change of framework or GPU count. advisor's policy, not a published figure."""

CHEAPER_WORTH_SAYING = 0.10
"""A cheaper-but-slower option is reported as a trade-off only past a 10% saving (advisor's policy)."""

FASTER_WORTH_SAYING = 0.10
"""A faster option at about the same cost (within COST_TIE) is named only past a 10% shorter run (advisor's policy)."""

SEARCH_GROWTH = 4
"""Without cluster.max_gpus, a deadline may look up to 4x today's GPUs — the range of the memo's what-if table."""



@dataclass(frozen=True)
class Option:
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

    @property
    def runnable(self) -> bool:
        return self.usable and not self.excluded


@dataclass
class Plan:
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

    @property
    def status_quo(self) -> bool:
        return self.chosen.strategy == self.today.strategy and self.chosen.gpus == self.today.gpus

    @property
    def keeps_strategy(self) -> bool:
        return self.chosen.strategy == self.today.strategy

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
                    "meets_deadline": o.meets_deadline}

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
        }


def search_counts(a: Answers) -> np.ndarray:
    """GPU counts the search prices in full: every whole-node count from one node up to max_gpus (default 4x today) is
    priced at once and pruned to those the choice could take, beside today's and the allocations clusters hand out
    (1, 2, 3, 4, 6, 8 … nodes) that the what-if table shows (advisor.decision.search)."""
    from advisor.decision.search import candidate_counts  # it reads this module's constants

    return candidate_counts(a)


def choose(options: list[Option], a: Answers, runs_per_month: float, default_strategy: str | None = None) -> Plan | None:
    """The plan, or None when nothing can run (nothing fits, or rules exclude every fitting option)."""
    given = a.cluster.gpus
    current = a.training.current_strategy
    today = next(o for o in options if o.strategy == current and o.gpus == given)
    pool = [o for o in options if o.runnable]
    if not pool:
        return None
    deadline = a.training.deadline_days
    within = [o for o in pool if o.gpus <= given]
    beyond = [o for o in pool if o.gpus > given]
    broken: list[str] = []
    mode = "cost"
    if deadline is not None:
        meet = [o for o in within if o.meets_deadline]
        meet_beyond = [o for o in beyond if o.meets_deadline]
        if meet:
            cands = meet
            objective = _("meet the {days}-day deadline on at most today's {gpus} GPUs, then cost least", days=_num(deadline), gpus=given)
        elif meet_beyond:
            cands = meet_beyond
            objective = _("no option on today's {gpus} GPUs meets the {days}-day deadline; the cheapest way to meet it needs more GPUs",
                          gpus=given, days=_num(deadline))
        else:
            # Out of reach on every count searched: the plan is the fastest of them all (more GPUs included), as the
            # objective says — not the fastest on today's count, which may be slower and dearer.
            cands = pool
            mode = "time"
            broken.append("deadline")
            objective = _("nothing searched meets the {days}-day deadline, so the fastest option is shown", days=_num(deadline))
    else:
        if not within:
            return None  # nothing runs on today's GPUs and no deadline asks for more: the caller blocks, naming a count that would
        same = [o for o in within if o.gpus == given]
        affordable_same = [o for o in same if o.within_budget and o.within_monthly]
        if same and (affordable_same or not [o for o in within if o.within_budget and o.within_monthly]):
            cands = same
            objective = _("no deadline given, so the GPU count stays at {gpus}; the cheapest option wins", gpus=given)
        elif not same:
            # Nothing runs on today's count (out of memory, or more data-parallel ranks than the batch has sequences):
            # the reason is that, not a budget nobody gave.
            cands = within
            objective = _("nothing can run on {gpus} GPUs as asked, so fewer GPUs were searched; the cheapest option wins", gpus=given)
        else:
            cands = within
            objective = _("no option on {gpus} GPUs stays within budget, so fewer GPUs were searched; the cheapest option wins", gpus=given)
    affordable = [o for o in cands if o.within_budget and o.within_monthly]
    if affordable:
        if mode == "time" and deadline is not None and min(o.hours for o in affordable) > min(o.hours for o in cands):
            objective = _("nothing searched meets the {days}-day deadline, so the fastest option within the budget is shown",
                          days=_num(deadline))
        cands = affordable
    else:
        if any(not o.within_budget for o in cands):
            broken.append("run budget")
        if any(not o.within_monthly for o in cands):
            broken.append("monthly ceiling")
    chosen = min(tie_band(cands, "hours" if mode == "time" else "cost"), key=preference(current, given, default_strategy))
    # Fewer GPUs that finish as fast (within the tie) for at least 10% less dominate the choice, deadline or not: GPUs
    # waiting on a slow loader or a thin network buy nothing.
    as_fast = [o for o in pool if o.gpus < chosen.gpus and o.hours <= chosen.hours * (1 + COST_TIE)
               and o.cost <= chosen.cost * (1 - CHEAPER_WORTH_SAYING) and o.within_budget and o.within_monthly
               and (deadline is None or o.meets_deadline or not chosen.meets_deadline)]
    if as_fast:
        first, chosen = chosen, min(tie_band(as_fast), key=preference(current, given, default_strategy))
        objective = _("{gpus} GPUs finish about as fast as {more} for at least 10% less, so fewer GPUs were chosen",
                      gpus=chosen.gpus, more=first.gpus)
    meeting = [o for o in pool if o.meets_deadline] if deadline is not None else []
    cheapest_meeting = min(meeting, key=lambda o: (o.cost, o.hours)) if meeting else None
    fastest = min(pool, key=lambda o: (o.hours, o.cost))
    slower = [o for o in pool if o.gpus < chosen.gpus and o.cost <= chosen.cost * (1 - CHEAPER_WORTH_SAYING)]
    # Of the options within the cost tie of the cheapest, the fastest: '512 GPUs, 24.6 h, 17% less' says more than
    # '8 GPUs, 65 days, 17% less' when both cost the same.
    cheaper_slower = min(tie_band(slower), key=lambda o: (o.hours, o.cost)) if slower else None
    quicker = [o for o in pool if o.strategy == chosen.strategy and o.gpus > chosen.gpus and o.cost <= chosen.cost * (1 + COST_TIE) and o.within_budget
               and o.within_monthly and o.hours <= chosen.hours * (1 - FASTER_WORTH_SAYING)]
    faster_same_cost = min(quicker, key=lambda o: (o.hours, o.cost)) if quicker else None
    return Plan(
        chosen=chosen, today=today, options=options, objective=objective,
        deadline_met=None if deadline is None else bool(chosen.meets_deadline),
        beyond_cluster=chosen.gpus > given, cheapest_meeting_deadline=cheapest_meeting, fastest=fastest,
        cheaper_slower=cheaper_slower, runs_per_month=runs_per_month, constraints_broken=broken, faster_same_cost=faster_same_cost,
    )


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


def _num(x: float) -> str:
    return f"{x:g}"
