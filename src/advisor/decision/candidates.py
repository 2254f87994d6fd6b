"""Which GPU type: the search over cluster.candidates (issue 22).

Today's GPU at today's price is the first type; each candidate adds its on-demand capacity and, where it has a spot
price, its spot capacity as a further type. Each type is searched as its own answers (``variant``: the same job on that
GPU at that price, up to its max_gpus) with the usual count x strategy search, then ``pick`` chooses among the types'
plans with the same objective as within one type: a plan that runs, then the deadline, then the budget, then the
cost; costs within COST_TIE are a tie that the smaller change from today wins (today's type, on-demand before spot).
"""

from __future__ import annotations

from msgspec import Struct
from typing import TYPE_CHECKING, Any

from advisor.decision.decide import COST_TIE, Option
from advisor.decision.takes import Change, _more_gpus
from advisor.estimate import deadline_hours
from advisor.inputs.answers import STRATEGIES, Answers
from advisor.knowledge.catalog import gpu_catalog

if TYPE_CHECKING:
    from advisor.decision.advice import Advice


class GpuType(Struct, frozen=True):
    """One way to buy GPUs for the run."""

    gpu: str
    """Catalog id, or "custom" for today's GPU given inline."""
    name: str
    price: float
    max_gpus: int | None
    spot: bool
    interruptions_pct: float | None
    today: bool
    """Today's GPU type (spot or not)."""


class TypeBest(Struct, frozen=True):
    """The best plan found on one GPU type, and why it lost (None for the chosen type)."""

    gpu: str
    name: str
    spot: bool
    price: float
    option: Option
    blocked: bool
    lost: str | None
    """'blocked', 'deadline', 'budget', 'cost', 'time' or 'tie' (costs within COST_TIE; the smaller change won)."""
    fastest: Option | None = None
    """The fastest option that runs on this type, whatever it costs: 'what's the fastest option?' named only the plan's
    type (user try 9: 8 H100s at 5.3 h went unmentioned beside 4090s at 31 h)."""
    method: str = ""
    """The fine-tuning method this type's plan trains with (a full fine-tune may run on one type where another needs
    LoRA): the comparison names it where it differs from the plan's (user try 2026-12-07: LoRA on 4090s against an
    unlabelled full fine-tune on A100s)."""

    def to_dict(self) -> dict[str, Any]:
        o = self.option
        return {"gpu": self.gpu, "name": self.name, "spot": self.spot, "price_per_gpu_hour": self.price, "strategy": o.strategy,
                "gpus": o.gpus, "wall_clock_hours": o.hours, "cost": o.cost, "meets_deadline": o.meets_deadline,
                "within_budget": o.within_budget and o.within_monthly, "blocked": self.blocked, "chosen": self.lost is None,
                "lost": self.lost, "method": self.method or None}


def gpu_id(a: Answers) -> str:
    return a.cluster.gpu if isinstance(a.cluster.gpu, str) else "custom"


def gpu_types(a: Answers) -> list[GpuType]:
    """Today's type first, then every candidate's on-demand and spot capacity, in the order given."""
    c = a.cluster
    today_id = gpu_id(a)
    own = next((x for x in c.candidates or () if x.gpu == today_id), None)
    most = c.max_gpus if c.max_gpus is not None else (own.max_gpus if own else None)
    out = [GpuType(today_id, c.spec.name, a.budget.price_per_gpu_hour, most, c.spot_interruptions_pct_per_month is not None,
                   c.spot_interruptions_pct_per_month, True)]
    for x in c.candidates or ():
        name = gpu_catalog()[x.gpu].name
        # a type listed without its most: today's ceiling (user try 8: the Q&A called the field optional, then required it)
        cap = x.max_gpus if x.max_gpus is not None else c.max_gpus
        if x.gpu != today_id:
            out.append(GpuType(x.gpu, name, x.price_per_gpu_hour, cap, False, None, False))
        if x.spot_price_per_gpu_hour is not None and not (x.gpu == today_id and c.spot_interruptions_pct_per_month is not None):
            out.append(GpuType(x.gpu, name, x.spot_price_per_gpu_hour, cap if x.gpu != today_id else most, True, x.spot_interruptions_pct_per_month,
                               x.gpu == today_id))
    return out


def variant(a: Answers, t: GpuType, tokens: float, runs_per_month: float) -> Answers:
    """The same job on GPU type ``t``: its GPU, price and most GPUs; its spot rate. Another GPU model also drops what
    describes today's machines (the links, a known duration and a measured step: they were seen on today's GPUs), so the
    tokens are today's (given or implied by the known run) and the monthly cadence is today's."""
    cluster: dict[str, Any] = {"max_gpus": t.max_gpus, "spot_interruptions_pct_per_month": t.interruptions_pct if t.spot else None,
                               "candidates": None}
    training: dict[str, Any] = {"runs_per_month": a.training.runs_per_month or runs_per_month}
    if t.gpu != gpu_id(a):
        cluster.update(gpu=t.gpu, intra_node=None, inter_node_gbps=None)
        training.update(duration_hours=None, duration_days=None, measured=None)
        if a.training.data_tokens is None:
            training["tokens"] = tokens  # implied by today's known run
        if a.training.precision == "fp8" and not gpu_catalog()[t.gpu].has_fp8:
            training["precision"] = "bf16"  # no FP8 tensor cores: priced at bf16
    return a.model_copy(update={
        "cluster": a.cluster.model_copy(update=cluster),
        "budget": a.budget.model_copy(update={"price_per_gpu_hour": t.price}),
        "training": a.training.model_copy(update=training),
    })


def _blocked(advice: Advice) -> bool:
    return any(w["blocking"] for w in advice.warnings)


def pick(found: list[tuple[GpuType, Advice]], a: Answers) -> tuple[int, list[TypeBest]]:
    """The index of the type whose plan serves the objective best, and each type's best plan with why it lost."""
    plans = [(i, adv.plan.chosen, _blocked(adv)) for i, (_t, adv) in enumerate(found)]
    pool = [p for p in plans if not p[2]] or plans
    deadline = a.training.deadline_days
    by = "cost"
    cands = pool
    if deadline is not None:
        meet = [p for p in pool if p[1].meets_deadline]
        if meet:
            cands = meet
        else:
            by = "time"
    affordable = [p for p in cands if p[1].within_budget and p[1].within_monthly]
    if affordable:
        cands = affordable

    def measure(o: Option) -> float:
        return o.hours if by == "time" else o.cost

    best = min(measure(p[1]) for p in cands)
    tied = [p for p in cands if measure(p[1]) <= best * (1 + COST_TIE)]
    win = min(tied, key=lambda p: (not found[p[0]][0].today, found[p[0]][0].spot, p[1].hours))[0]
    chosen = found[win][1].plan.chosen
    out = []
    for i, o, blocked in plans:
        t = found[i][0]
        lost: str | None = None
        if i != win:
            if blocked and not _blocked(found[win][1]):
                lost = "blocked"
            elif deadline is not None and chosen.meets_deadline and not o.meets_deadline:
                lost = "deadline"
            elif chosen.within_budget and chosen.within_monthly and not (o.within_budget and o.within_monthly):
                lost = "budget"
            elif measure(o) > best * (1 + COST_TIE):
                lost = by
            else:
                lost = "tie"
        out.append(TypeBest(t.gpu, t.name, t.spot, t.price, o, blocked, lost, found[i][1].plan.fastest, found[i][1].method))
    return win, out



def other_type_change(found: list[tuple[GpuType, Advice]], win: int, plan: Any) -> Change | None:
    """Where the deadline is out of reach on every type within what can be had: another GPU type, with more of it, when
    that meets the deadline for less than the chosen type does with more GPUs (the smallest change, in money)."""
    best = found[win][1]
    deadline = best.answers.training.deadline_days
    if deadline is None or plan.deadline_met is not False:
        return None
    own = next((c for c in plan.what_it_takes if c.kind == "more-gpus"), None)
    offers = []
    for i, (t, adv) in enumerate(found):
        if i == win or t.gpu == found[win][0].gpu or _blocked(adv):
            continue
        allowed = {s for s in STRATEGIES if s not in adv.excluded}
        more = _more_gpus(adv.answers, adv.plan, allowed, deadline_hours(adv.answers) or deadline * 24.0)
        if more is not None and (own is None or more.cost < own.cost * (1 - COST_TIE)):
            offers.append(Change("other-gpu", more.strategy, more.gpus, more.hours, more.cost, more.target, t.gpu, t.spot))
    return min(offers, key=lambda c: c.cost) if offers else None
