"""What it takes: where the deadline or the budget cannot be met with what can be had, the smallest change that meets
it — more GPUs (how many), a later date, a bigger budget — each with its time and cost (issue 22).

Computed once, in the core, from the plan and the estimate; the summary, the memo and the TUI only word it.
"""

from __future__ import annotations

from msgspec import Struct
from typing import Literal

import numpy as np

from advisor.inputs.answers import Answers
from advisor.decision.decide import Option, Plan
from advisor.estimate import cost, deadline_hours, estimate_all, judged_limits, upper_factor

ChangeKind = Literal["more-gpus", "other-gpu", "later-date", "bigger-budget", "bigger-monthly", "fp8", "lighter-method", "bigger-batch"]
"""fp8, lighter-method and bigger-batch: the same job priced with FP8 matmuls, LoRA/QLoRA, or twice the global batch,
where that meets what the plan misses (advice.other_levers)."""

GROWTH_LIMIT = 16
"""How far past what can be had the search for 'more GPUs' looks: 16x the most GPUs searched (advisor's policy: past
that the answer is 'not with this model on this GPU type', said as such)."""


class Change(Struct, frozen=True):
    """One change that meets the goal the plan misses, with the plan it gives."""

    kind: ChangeKind
    strategy: str
    gpus: int
    hours: float
    cost: float
    target: float
    """GPUs for more-gpus and other-gpu, days for later-date, money for bigger-budget / bigger-monthly; the lever's GPUs
    for fp8, lighter-method and bigger-batch."""
    gpu: str = ""
    """The GPU type of an other-gpu change (catalog id)."""
    spot: bool = False
    """An other-gpu change on spot capacity."""
    detail: str = ""
    """The lever's setting: 'fp8', the method ('lora', 'qlora'), or the global batch in tokens (bigger-batch)."""

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "strategy": self.strategy, "gpus": self.gpus, "wall_clock_hours": self.hours, "cost": self.cost,
                "target": self.target, "gpu": self.gpu, "spot": self.spot, "detail": self.detail}


def what_it_takes(answers: Answers, plan: Plan, allowed: set[str]) -> list[Change]:
    """The changes that meet what the plan misses; empty when it misses nothing. ``allowed``: strategies the rules do
    not exclude at the plan's count (the search past it prices only these). A budget change names what the plan that
    meets the deadline costs — never a cheaper plan that misses it by years."""
    out: list[Change] = []
    deadline = answers.training.deadline_days
    runnable = [o for o in plan.options if o.runnable]
    if not runnable:
        return out
    more: Change | None = None
    if deadline is not None and plan.deadline_met is False:
        more = _more_gpus(answers, plan, allowed, deadline_hours(answers) or deadline * 24.0)
        if more is not None:
            out.append(more)
        fastest = min(runnable, key=lambda o: (o.hours, o.cost))
        # The date that fastest plan meets as a deadline is judged: its point estimate at the stated range's upper end.
        out.append(Change("later-date", fastest.strategy, fastest.gpus, fastest.hours, fastest.cost,
                          fastest.hours * deadline * 24.0 / (deadline_hours(answers) or deadline * 24.0) / 24.0))
    # The budget a plan that meets everything else needs: the more-GPUs plan where the date is out of reach, else the plan
    # itself where it meets the deadline (the choice keeps a framework within the cost tie, so the budget named must
    # cover the plan, not a cheaper option it did not take), else the cheapest option that meets it.
    meeting = [o for o in runnable if o.meets_deadline is not False]
    if more is not None:
        target: Change | Option = more
    elif plan.chosen.meets_deadline is not False or not meeting:
        target = plan.chosen
    else:
        target = min(meeting, key=lambda o: (o.cost, o.hours))
    # Budgets are judged on the range's upper end (judged_limits), as the deadline is: the budget that plan needs is its
    # cost there, which the search would take as within.
    limit, monthly = judged_limits(answers)
    upper = upper_factor(answers)
    if limit is not None and target.cost > limit:
        out.append(Change("bigger-budget", target.strategy, target.gpus, target.hours, target.cost, target.cost * upper))
    runs = plan.runs_per_month
    if monthly is not None and runs * target.cost > monthly:
        out.append(Change("bigger-monthly", target.strategy, target.gpus, target.hours, target.cost, runs * target.cost * upper))
    return out


def _more_gpus(answers: Answers, plan: Plan, allowed: set[str], deadline_hours: float) -> Change | None:
    """The smallest whole-node count past what was searched at which an allowed strategy meets the deadline: a coarse
    pass in steps of 25%, then every whole node between the last count that misses and the first that meets."""
    per = answers.cluster.gpus_per_node
    top = max(o.gpus for o in plan.options)
    cap = GROWTH_LIMIT * top
    coarse: list[int] = []
    g = float(top)
    while g < cap:
        g = g * 1.25
        coarse.append(int(-(-g // per) * per))
    first = _first_meeting(answers, np.array(sorted(set(coarse)), dtype=float), allowed, deadline_hours)
    if first is None:
        return None
    hit = first[0]
    below = [c for c in coarse if c < hit]
    lo = below[-1] if below else top
    fine = np.arange(lo + per, hit + 1, per, dtype=float)
    best = _first_meeting(answers, fine, allowed, deadline_hours) if fine.size else None
    gpus, strategy, hours = best or first
    price = answers.budget.price_per_gpu_hour
    return Change("more-gpus", strategy, int(gpus), hours, float(cost(hours, price, gpus)), float(gpus))


def _first_meeting(answers: Answers, counts: np.ndarray, allowed: set[str], deadline_hours: float) -> tuple[int, str, float] | None:
    """(GPUs, strategy, hours) of the smallest count where an allowed, runnable strategy meets the deadline (the
    cheapest such strategy there), or None."""
    if counts.size == 0:
        return None
    est, _ = estimate_all(answers, counts)
    price = answers.budget.price_per_gpu_hour
    for i, g in enumerate(counts):
        hits = [(float(cost(e.hours["mid"][i], price, g)), s, float(e.hours["mid"][i])) for s, e in est.items()
                if s in allowed and bool(e.usable[i]) and float(e.hours["mid"][i]) <= deadline_hours]
        if hits:
            c, s, h = min(hits)
            return int(g), s, h
    return None
