"""What-if sweep: every strategy across a range of GPU counts, in one vectorised pass.

The estimate model is already written over numpy arrays of GPU counts, so a sweep is one call per
strategy. The cheapest and the fastest feasible points (fit in memory, meet any deadline) are marked.
"""

from __future__ import annotations

import re
from msgspec import Struct, field
from typing import Any

import numpy as np

from advisor.inputs.answers import STRATEGIES, Answers
from advisor.base.errors import AnswerError
from advisor.base.limits import MAX_SEARCH_COUNTS
from advisor.base.i18n import _, pad
from advisor.base.units import count, days, format_number, hours_text, money, money_column, money_unit, parse_count, percent, same_unit
from advisor.estimate import GB, cost, estimate_all
from advisor.decision.advice import METHOD_ALTERNATIVES, options_at
from advisor.decision.candidates import GpuType, gpu_types, variant
from advisor.decision.decide import COST_TIE, SAME_FIGURE, SWITCH_MIN_GAIN, Option, best_at, dominates, pick_best, preference, undominated
from advisor.knowledge.rules import RuleSet, load_rules
from advisor.decision.explain import point_inside, spot_name
from advisor.estimate.posttrain import stage_name
from advisor.outputs.render import layout_words, slower_reason

_RANGE = re.compile(r"^([^.]+)\.\.([^.]+)$")
MAX_POINTS = MAX_SEARCH_COUNTS
"""Refuse sweeps larger than this many GPU counts (a typo like 8..80000000 must not hang): what the search may hold
(base/limits.py), over every GPU type swept together (the CLI checks their sum)."""


def _range(text: str, spec: str, per_node: int) -> list[float]:
    m = _RANGE.match(text)
    if not m:
        raise AnswerError(_("--gpus: cannot read {spec}; write a count (256), a range (8..1024) or a list of them (64,128,256)", spec=repr(spec)))
    lo, hi = _count(m.group(1), spec), _count(m.group(2), spec)
    if lo < 1 or hi < lo:
        raise AnswerError(_("--gpus: {range} must run from a positive count up to a larger one", range=repr(text)))
    small = [c for c in (1, 2, 4, 8, 16, 32, 64) if lo <= c < per_node and c <= hi]
    first = max(per_node, -(-lo // per_node) * per_node)
    if (hi - first) // per_node + 1 + len(small) > MAX_POINTS:
        raise AnswerError(_("--gpus: {range} is more than {most} GPU counts; narrow the range", range=repr(text), most=count(MAX_POINTS)))
    nodes = list(range(first, hi + 1, per_node)) if hi >= first else []
    if not small and not nodes:
        raise AnswerError(_("--gpus: {range} holds no count that fits whole {n}-GPU nodes", range=repr(text), n=per_node))
    return [float(c) for c in small + nodes]


def _count(item: str, spec: str) -> int:
    """One GPU count of --gpus, read as every count is (units.parse_count: 256, 1k); a sign or fraction is refused."""
    try:
        c = parse_count(item)
    except ValueError:
        raise AnswerError(_("--gpus: cannot read {spec}; write a count (256), a range (8..1024) or a list of them (64,128,256)", spec=repr(spec))) from None
    if c < 1:
        raise AnswerError(_("--gpus: {item} is not a positive GPU count", item=repr(item)))
    return c


def parse_gpu_range(text: str, per_node: int) -> np.ndarray:
    """GPU counts to sweep: '256', '8..1024' (powers of two below one node, then every whole node) or a list of
    either ('64,128,256', '8..64,512'), sorted and without repeats."""
    counts: set[float] = set()
    for part in text.split(","):
        item = part.strip()
        if ".." not in item:
            c = _count(item, text)
            if c > per_node and c % per_node:
                lower, upper = c - c % per_node, c + per_node - c % per_node
                raise AnswerError(_("--gpus: {count} is not whole {n}-GPU nodes; use {lower} or {upper}", count=c, n=per_node, lower=lower, upper=upper))
            counts.add(float(c))
        else:
            counts.update(_range(item.replace(" ", ""), text, per_node))
        if len(counts) > MAX_POINTS:
            raise AnswerError(_("--gpus: {range} is more than {most} GPU counts; narrow the range", range=repr(text), most=count(MAX_POINTS)))
    return np.array(sorted(counts), dtype=float)


HOURS_DECIMALS, COST_DECIMALS, MEMORY_DECIMALS = 4, 2, 3
"""Decimals the JSON sweep keeps: hours to 1e-4 h, money to the cent, GB to the MB (Sweep.to_dict)."""


class Sweep(Struct):
    answers: Answers
    gpus: np.ndarray
    hours: dict[str, np.ndarray]
    cost: dict[str, np.ndarray]
    memory_gb: dict[str, np.ndarray]
    fits: dict[str, np.ndarray]
    """Fits in GPU memory (and host RAM where offloading)."""
    batch_ok: dict[str, np.ndarray]
    """The global batch has a sequence for every data-parallel rank (the batch is never inflated to make it so)."""
    feasible: dict[str, np.ndarray]
    """Fits, the batch feeds every rank, and it meets any deadline."""
    cheapest: tuple[str, float] | None
    fastest: tuple[str, float] | None
    runnable: dict[str, np.ndarray]
    """Fits and the batch feeds every rank (deadline aside)."""
    per_rank: dict[str, np.ndarray]
    """Sequences each data-parallel rank runs a step (micro-batch x accumulation): where it does not fall as GPUs are
    added, the batch no longer divides evenly and the step stays as long."""
    layout: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    """TP, PP and recomputation per point (what a point slower than the one before changed): worded by ``layout_text``
    only for the rows shown (issue 20: wording all 16,384 points of a sweep cost 77 ms)."""
    tokens: float = 0.0
    """Training tokens (given, or implied by a known run): another GPU type is swept for the same tokens."""
    rules: RuleSet | None = None
    """The rules whose exclusions the best option at a count respects (decide.best_at, as the plan's search does)."""
    accumulation: dict[str, np.ndarray] = field(default_factory=dict)
    """Micro-batches each rank runs a step: a strategy that communicates once per micro-batch slows where it grows."""
    batch_tokens: float = 0.0
    """The global batch priced, in tokens: a lighter method's own default batch is smaller, so the footer that says how
    to price one here gives this batch too (a user try priced LoRA at 16 sequences, twice the plan's time)."""
    priced: dict[int, list[Option]] = field(default_factory=dict)
    """The options at each count where the rules were run (advice.options_at), filled as rows and markers need them."""

    def options(self, counts: list[int]) -> dict[int, list[Option]]:
        """The options at ``counts``, priced and judged as the plan's search does (rules run once per count, then kept)."""
        missing = [c for c in counts if c not in self.priced]
        if missing:
            self.priced.update(options_at(self.answers, self.rules or load_rules(), missing))
        return {c: self.priced[c] for c in counts}

    def best(self, i: int) -> Option | None:
        """The best option at point ``i``: the one chooser (decide.best_at), with the rules' exclusions, as the memo's
        what-if table and ``advisor ask`` pick it."""
        g = int(self.gpus[i])
        return best_at(self.options([g])[g], preference(self.answers.training.current_strategy, g))

    def layout_text(self, s: str, i: int) -> str:
        tp, pp, recompute = self.layout[s]
        return layout_words(int(tp[i]), int(pp[i]), str(recompute[i]))

    def to_dict(self) -> dict[str, Any]:
        """The sweep as JSON values: hours to 1e-4 h (0.36 s), costs to the cent, memory to the MB. An estimate whose
        range is +-20% has no more digits to give, and 17-digit floats made json's float formatting most of a
        16,384-point sweep's time (issue 20)."""
        def point(p: tuple[str, float] | None) -> dict[str, Any] | None:
            if p is None:
                return None
            s, g = p
            i = int(np.searchsorted(self.gpus, g))
            return {"strategy": s, "gpus": g, "wall_clock_hours": round(float(self.hours[s][i]), HOURS_DECIMALS),
                    "cost": round(float(self.cost[s][i]), COST_DECIMALS)}

        return {
            "gpus": self.gpus.tolist(),
            "today_gpus": self.answers.cluster.gpus,
            "currency": self.answers.budget.currency.upper(),
            "strategies": {
                s: {
                    "wall_clock_hours": np.round(self.hours[s], HOURS_DECIMALS).tolist(),
                    "cost": np.round(self.cost[s], COST_DECIMALS).tolist(),
                    "memory_per_gpu_gb": np.round(self.memory_gb[s], MEMORY_DECIMALS).tolist(),
                    "fits": self.fits[s].tolist(),
                    "batch_ok": self.batch_ok[s].tolist(),
                    "feasible": self.feasible[s].tolist(),
                }
                for s in STRATEGIES
            },
            "cheapest": point(self.cheapest),
            "fastest": point(self.fastest),
        }


def sweep(answers: Answers, gpus: np.ndarray, rules: RuleSet | None = None) -> Sweep:
    """Every strategy at every count of ``gpus`` (one vectorised estimate); the cheapest and fastest points are those no
    rule excludes (``rules``: the shipped pack where not given)."""
    est, ctx = estimate_all(answers, gpus)
    price = answers.budget.price_per_gpu_hour
    hours = {s: est[s].hours["mid"] for s in STRATEGIES}
    costs = {s: cost(hours[s], price, gpus) for s in STRATEGIES}
    fits = {s: est[s].fits & est[s].cpu_fits for s in STRATEGIES}
    batch_ok = {s: est[s].batch_ok for s in STRATEGIES}
    feasible = {}
    for s in STRATEGIES:
        ok = est[s].usable
        if answers.training.deadline_days is not None:
            ok = ok & (hours[s] / 24.0 <= answers.training.deadline_days)
        feasible[s] = ok
    runnable = {s: est[s].usable for s in STRATEGIES}
    per_rank = {s: est[s].micro_batch * est[s].accumulation for s in STRATEGIES}
    layout = {s: (np.broadcast_to(est[s].tp, gpus.shape), np.broadcast_to(est[s].pp, gpus.shape), est[s].recompute) for s in STRATEGIES}
    sw = Sweep(answers, gpus, hours, costs, {s: est[s].memory / GB for s in STRATEGIES}, fits, batch_ok, feasible, None, None,
               runnable, per_rank, layout, float(ctx["tokens"]), rules)
    sw.batch_tokens = float(ctx["workload"].global_batch_tokens)
    sw.accumulation = {s: np.broadcast_to(est[s].accumulation, gpus.shape) for s in STRATEGIES}
    sw.cheapest, sw.fastest = _markers(sw, [p for p in (_best(sw, costs), _best(sw, hours)) if p is not None])
    return sw


TIED_COUNTS = 8
"""Counts within COST_TIE of the sweep's cheapest (or fastest) whose best option is weighed for its marker, nearest
today's count first: the plan's tie-break prefers the smallest change from today, so a nearer tied count is the one it
would take; a flat cost curve can tie thousands of counts, and the rules run once per count weighed."""


def _markers(sw: Sweep, points: list[tuple[str, float]]) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
    """The cheapest and the fastest point as the plan's one chooser picks them (decide.pick_best): within COST_TIE of
    the raw minimum a difference does not decide (it marked 692 'cheapest' beside 693 at today's count, user try
    2026-12-06), and the smallest change from today wins, as in the plan. Each is named by the option the chooser takes
    at its count (decide.best_at), so a marker always says what its row says."""
    best = [o for _s, g in points if (o := sw.best(int(np.searchsorted(sw.gpus, g)))) is not None]
    if not best:
        return None, None
    prefer = preference(sw.answers.training.current_strategy, sw.answers.cluster.gpus)
    # each count's least cost and time over the strategies that run there and meet any deadline (rules aside: the
    # chooser at a count judges them)
    low = {by: np.min([np.where(sw.feasible[s], values[s], np.inf) for s in STRATEGIES], axis=0)
           for by, values in (("cost", sw.cost), ("hours", sw.hours))}
    picks = []
    for by in ("cost", "hours"):
        tied = np.flatnonzero(low[by] <= min(getattr(o, by) for o in best) * (1 + COST_TIE))
        near = tied[np.argsort(np.abs(np.log(sw.gpus[tied] / sw.answers.cluster.gpus)), kind="stable")][:TIED_COUNTS]
        pick = pick_best(best + _weighed(sw, near), "time" if by == "hours" else "cost", prefer)
        # no count the sweep priced may beat the marker on both cost and time (decide.dominates, as the plan's own
        # undominated step): the arrays name the counts where one could, the chooser at each count confirms it
        for _climb in range(TIED_COUNTS):
            could = np.flatnonzero((low["cost"] <= pick.cost) & (low["hours"] <= pick.hours)
                                   & ((low["cost"] <= pick.cost * (1 - SWITCH_MIN_GAIN)) | (low["hours"] <= pick.hours * (1 - SWITCH_MIN_GAIN))))
            first = could[np.argsort(low[by][could], kind="stable")][:TIED_COUNTS]
            beating = [o for o in _weighed(sw, first) if dominates(o, pick)]
            if not beating:
                break
            pick = undominated(beating, pick, prefer)
        picks.append(pick)
    return (picks[0].strategy, float(picks[0].gpus)), (picks[1].strategy, float(picks[1].gpus))


def _weighed(sw: Sweep, indices: np.ndarray) -> list[Option]:
    """The best option the one chooser takes at each of these points, where it runs and meets any deadline (the rules
    run once for all of them)."""
    sw.options([int(sw.gpus[i]) for i in indices])
    return [o for i in indices if (o := sw.best(int(i))) is not None and o.runnable and o.meets_deadline is not False]


def sweep_types(answers: Answers, gpus: np.ndarray, rules: RuleSet | None = None) -> list[tuple[GpuType, Sweep]]:
    """The sweep on today's GPU type, then on every candidate type (cluster.candidates: on demand, and spot where
    priced), each at its own price, for today's tokens."""
    types = gpu_types(answers)
    first = sweep(answers, gpus, rules)
    return [(types[0], first)] + [(t, sweep(variant(answers, t, first.tokens, 1.0), gpus, rules)) for t in types[1:]]


def sweep_types_dict(groups: list[tuple[GpuType, Sweep]]) -> dict[str, Any]:
    """Today's type as before; each candidate type under "candidates" with its GPU, price and its own sweep."""
    out = groups[0][1].to_dict()
    if len(groups) > 1:
        out["candidates"] = [{"gpu": t.gpu, "name": t.name, "spot": t.spot, "price_per_gpu_hour": t.price, **sw.to_dict()}
                             for t, sw in groups[1:]]
    return out


def sweep_types_text(groups: list[tuple[GpuType, Sweep]], rows: int = 24, markdown: bool = False) -> str:
    """One table per GPU type, each under a line naming the type and its price (one type: the table alone)."""
    if len(groups) == 1:
        return sweep_text(groups[0][1], rows, markdown)
    parts = []
    for t, sw in groups:
        name = spot_name(t.name, t.spot)
        title = _("{name} at {price} {currency}/GPU-hour", name=name, price=format_number(t.price), currency=money_unit(sw.answers.budget.currency.upper()))  # 元 in Chinese, as the rows say
        if t.today and not t.spot:
            title += _(" (today's GPU type)")
        parts.append((f"**{title}**\n\n" if markdown else f"{title}\n") + sweep_text(sw, rows, markdown, today_mark=t.today and not t.spot))
    return "\n".join(parts)


EXCLUSION_PROBES = 4
"""Counts tried per strategy for the sweep's cheapest and fastest point before a strategy the rules exclude at each of
them is left out of the markers: the rules run per count (a facts dictionary each), so a 16,384-point sweep cannot run
them everywhere; exclusions that hold at a strategy's four best counts are the method's or the cluster's, not the
count's (advisor's policy; the rows shown are judged exactly)."""


def _best(sw: Sweep, values: dict[str, np.ndarray]) -> tuple[str, float] | None:
    """(strategy, GPUs) of the smallest feasible value that no rule excludes there, or None."""
    best: tuple[float, str, float] | None = None
    masks = {s: np.where(sw.feasible[s], values[s], np.inf) for s in STRATEGIES}
    # Each strategy's best count first, judged in one pass (the rules' facts come from one vectorised estimate).
    sw.options(sorted({int(sw.gpus[int(np.argmin(m))]) for m in masks.values() if np.isfinite(m).any()}))
    for s in STRATEGIES:
        masked = masks[s]
        for _probe in range(EXCLUSION_PROBES):
            i = int(np.argmin(masked))
            if not np.isfinite(masked[i]) or (best is not None and masked[i] >= best[0]):
                break
            g = int(sw.gpus[i])
            if not next(o for o in sw.options([g])[g] if o.strategy == s).excluded:
                best = (float(masked[i]), s, float(sw.gpus[i]))
                break
            masked[i] = np.inf
    return None if best is None else (best[1], best[2])


def _rows(sw: Sweep, rows: int) -> np.ndarray:
    """Exactly min(rows, points) indices, spread over the range; today's count, the cheapest and the fastest first."""
    n = sw.gpus.size
    if rows >= n:
        return np.arange(n)
    keep = [int(np.searchsorted(sw.gpus, p[1])) for p in (sw.cheapest, sw.fastest) if p]
    today = float(sw.answers.cluster.gpus)
    if today in sw.gpus:
        keep.insert(0, int(np.searchsorted(sw.gpus, today)))
    keep = list(dict.fromkeys(keep))[:rows]
    rest = [i for i in range(n) if i not in keep]
    need = rows - len(keep)
    spread = [rest[int(round(k))] for k in np.linspace(0, len(rest) - 1, need)] if need > 0 else []
    return np.array(sorted(set(keep) | set(spread)), dtype=int)


FOOTER_MINUTES_BELOW = 0.1
"""The footer says a time under six minutes in minutes ('0.6 min', where the table's '0.01' hours would say nothing) and
longer ones in the table's own hours and precision ('0.23' above and '0.2 h' below read as two times; user try 7)."""


def sweep_text(sw: Sweep, rows: int = 24, markdown: bool = False, today_mark: bool = True) -> str:
    """One row per GPU count (``rows`` of them, today's count among them): the cheapest strategy that meets everything,
    else the fastest that runs with what it misses, its time in days and its cost; a point slower than the row above
    says why (the batch no longer divides evenly, or the layout changes)."""
    cur = sw.answers.budget.currency.upper()
    deadline = sw.answers.training.deadline_days
    idx = _rows(sw, rows)
    marks = [(sw.cheapest, _("cheapest")), (sw.fastest, _("fastest"))]  # one count may be both
    today = float(sw.answers.cluster.gpus)
    out = []
    sw.options([int(sw.gpus[i]) for i in idx])  # every row's options in one pass
    # The time column in hours where every row shown is under two days (a sub-hour LoRA read '0.02' days at three
    # counts, user try 2026-12-06), else in days; each cell to two decimals below 10.
    bests = {int(i): sw.best(int(i)) for i in idx}  # each row's pick, once: the unit and the rows read it
    shown = [float(sw.hours[o.strategy][i]) for i, o in bests.items() if o is not None]
    in_hours = bool(shown) and max(shown) < 48
    head = _("time (h)") if in_hours else _("time (days)")
    # The cost column in one unit, as the time column: '99,810 元' above '10.04 万元' read as two scales (user try 8).
    priced = {i: float(sw.cost[o.strategy][i]) for i, o in bests.items() if o is not None}
    cost_cell = dict(zip(priced, money_column(list(priced.values()), cur), strict=True))

    def cell(hours: float) -> str:
        return (f"{hours:,.2f}" if hours < 10 else f"{hours:,.1f}") if in_hours else days(hours)

    if markdown:
        out += [_("| GPUs | best strategy | {time} | cost | note |", time=head), "| --- | --- | --- | --- | --- |"]
    else:
        out.append(f"{pad(_('GPUs'), 7, right=True)}  {pad(_('best strategy'), 24)} {pad(head, 11, right=True)} "
                   f"{pad(_('cost'), 16, right=True)}  {_('note')}")
    prev: tuple[float, str, int] | None = None
    for i in idx:
        g = float(sw.gpus[i])
        notes = [_("today")] if g == today and today_mark else []  # another GPU type: today's count is not today's setup
        best = bests[int(i)]
        if best is not None:
            s = best.strategy
            if best.meets_deadline is False and deadline is not None:
                notes.append(_("the {days}-day deadline at risk", days=format_number(deadline))
                             if point_inside(best.hours, deadline)  # the summary's word
                             else _("misses the {days}-day deadline", days=format_number(deadline)))
        else:
            fitting = [t for t in STRATEGIES if sw.fits[t][i]]
            running = [t for t in STRATEGIES if sw.runnable[t][i]]
            fed = [t for t in running if sw.batch_ok[t][i]]  # a batch too small for the ranks is not the rules' doing (user try 13)
            why = (_("the global batch has too few sequences for this many data-parallel ranks; the rules exclude {strategies}, "
                     "which could use them", strategies=_(", ").join(fed)) if fed and len(fed) < len(fitting) else
                   _("the rules exclude every strategy that runs here") if fed else
                   _("the global batch has too few sequences for this many data-parallel ranks") if fitting else _("none fits in memory"))
            out.append(f"| {count(g)} | {why} | | | {_(', ').join(notes)} |" if markdown else f"{pad(count(g), 7, right=True)}  {why}  {_(', ').join(notes)}".rstrip())
            prev = None
            continue
        h = float(sw.hours[s][i])
        notes += [v for k, v in marks if k and k[1] == g]
        if prev is not None and h > prev[0] * 1.001:
            notes.append(_why_slower(sw, s, i, prev))
        prev = (h, s, i)
        note = _(", ").join(n for n in notes if n)
        if markdown:
            out.append(f"| {count(g)} | `{s}` | {cell(h)} | {cost_cell[int(i)]} | {note} |")
        else:
            out.append(f"{pad(count(g), 7, right=True)}  {s:<24} {cell(h):>11} {pad(cost_cell[int(i)], 16, right=True)}  {note}".rstrip())
    for first, label, p in ((True, _("Cheapest feasible"), sw.cheapest), (False, _("Fastest feasible"), sw.fastest)):
        if p:
            i = int(np.searchsorted(sw.gpus, p[1]))
            h = float(sw.hours[p[0]][i])
            # In the table's own precision where it reads in hours: '0.23' above and '0.2 h' below read as two times.
            said = _("{n} h", n=cell(h)) if in_hours and h >= FOOTER_MINUTES_BELOW else hours_text(h)
            line = _("{label}: {strategy} on {gpus} GPUs, {time}, {cost}", label=label, strategy=p[0], gpus=count(p[1]),
                     time=said, cost=money(float(sw.cost[p[0]][i]), cur))
            line += _framework_tie_note(sw, i, p[0], cur, "cost" if first else "hours")
            line += _tie_note(sw, i, float((sw.cost if first else sw.hours)[p[0]][i]), cur, "cost" if first else "hours", h)
        elif not any(np.any(sw.runnable[t] & sw.batch_ok[t]) for t in STRATEGIES):
            # nothing runs at all (too few sequences, no memory): not a deadline missed (user try 2026-12-06: --gpus 1e9)
            line = _("{label}: nothing in this range can run (see the notes above)", label=label)
        else:
            line = (_("{label}: nothing in this range meets the deadline", label=label) if deadline
                    else _("{label}: nothing in this range fits", label=label))
        out.append(("" if not markdown else "\n") + line if first else line)
    if idx.size < sw.gpus.size:
        # Rows are spread over the range: say so, or a missing count reads as one that cannot run (user try 2026-12-05).
        hidden = [count(g) for g in np.delete(sw.gpus, idx)]
        out.append(_("Shown: {shown} of the {total} GPU counts searched (not: {hidden}); --rows {total} shows every one, and "
                     "--format json has them all.", shown=idx.size, total=sw.gpus.size,
                     hidden=", ".join(hidden[:8]) + (", …" if len(hidden) > 8 else "")))
    method = sw.answers.training.method
    if method in ("finetune", "lora"):
        # The sweep prices the method the answers give; the plan may fine-tune a lighter way (decision/advice.py
        # METHOD_ALTERNATIVES): say so, or its cheapest point reads as a contradiction of the plan (user try, 2026-12-05).
        lighter = _(" or ").join(METHOD_ALTERNATIVES[method])
        # the plan prices a lighter method at this batch (advice.with_method), not at the lighter method's own default
        how = (_("set training.method to {lighter} and training.global_batch_tokens to {batch} (the batch priced here; a lighter "
                 "method's own default is smaller)", lighter=lighter, batch=f"{round(sw.batch_tokens):d}")
               if sw.answers.training.global_batch_tokens is None else _("set training.method to {lighter}", lighter=lighter))
        # advice._advise_method's policy, not "where it costs less": QLoRA usually costs more than LoRA (its dequantisation)
        # and is planned where only it runs or meets a goal, or needs half the GPUs for no more (_lighter_wins).
        out.append(_("Priced as a {method}, as the answers ask; `advisor advise` may plan {lighter} instead where it alone "
                     "runs, meets a goal the asked method misses, costs at most half as much, or needs half the GPUs for no more: "
                     "{how} to price that here.",
                     method=stage_name(method), lighter=lighter, how=how))
    return "\n".join(out) + "\n"


def _framework_tie_note(sw: Sweep, at: int, marked: str, cur: str, by: str = "cost") -> str:
    """Where another framework at the marked count costs a little less (or runs a little faster) than the one the
    chooser took there (within COST_TIE, where the rules' score decides), name it: 'Cheapest feasible: fsdp on 256 GPUs,
    209,571 USD' stood beside deepspeed-zero2 on the same GPUs at 208,304 (user try 12); 'Fastest feasible: fsdp on 256
    GPUs, 5.0 days' beside ZeRO-2 there at 4.9 (user try 14)."""
    values = sw.cost if by == "cost" else sw.hours
    mine = float(values[marked][at])
    others = [(float(values[t][at]), t) for t in STRATEGIES if t != marked and sw.feasible[t][at]]
    if not others:
        return ""
    low, t = min(others)
    if low >= mine * (1 - SAME_FIGURE):
        return ""
    if by == "cost":
        return _(" ({strategy} costs {cost} here, {pct} less: within {tie} a difference does not decide, and the rules' score decides, "
                 "as in the plan)", strategy=t, cost=money(low, cur), pct=percent(1.0 - low / mine, 1), tie=percent(COST_TIE))
    return _(" ({strategy} takes {time} here, {pct} less: within {tie} a difference does not decide, and the rules' score decides, "
             "as in the plan)", strategy=t, time=hours_text(low), pct=percent(1.0 - low / mine, 1), tie=percent(COST_TIE))


def _tie_note(sw: Sweep, at: int, marked: float, cur: str, by: str = "cost", marked_hours: float | None = None) -> str:
    """Where another count costs less than the one marked cheapest (or runs faster than the one marked fastest) — within
    COST_TIE, where the plan's chooser lets the count nearest today's win — say which and why (user try 8: 99,760 on 32
    GPUs beside '99,868 ... cheapest' on 64; 8b: 'fastest' on 120 GPUs beside 1.92 days on 128). The row's own strategy is
    the chooser's at that count (rules and ties among strategies), so other counts only. Where the marked count is faster
    than the cheaper one by more than the model's resolution, that is why it won (decide.undominated: faster for no
    more), not its nearness to today: 256 GPUs at 5.3 days had been said to beat 128 at 10.5 by being nearer 64."""
    values = sw.cost if by == "cost" else sw.hours
    low = np.min([np.where(sw.feasible[s], values[s], np.inf) for s in STRATEGIES], axis=0)
    low[at] = np.inf
    better = np.flatnonzero(low < marked * (1 - SAME_FIGURE))
    # each count as its row says it: the chooser's option there (rules and ties among strategies), best first
    for o in sorted(_weighed(sw, better[np.argsort(low[better], kind="stable")][:TIED_COUNTS]), key=lambda o: getattr(o, by)):
        value = getattr(o, by)
        if value < marked * (1 - SAME_FIGURE):
            if by == "cost" and marked_hours is not None and marked_hours <= o.hours * (1.0 - SWITCH_MIN_GAIN):
                return _(" ({gpus} GPUs cost {cost}, {pct} less, and take {time}: within {tie} a cost difference does not decide, "
                         "and {marked} GPUs are faster for no more, as in the plan)", gpus=count(o.gpus), cost=money(value, cur),
                         pct=percent(1.0 - value / marked, 1), time=same_unit(o.hours, marked_hours)[0], tie=percent(COST_TIE),
                         marked=count(sw.gpus[at]))
            if by == "cost":
                return _(" ({gpus} GPUs cost {cost}, {pct} less: within {tie} a difference does not decide, and the count nearest "
                         "today's wins, as in the plan)", gpus=count(o.gpus), cost=money(value, cur), pct=percent(1.0 - value / marked, 1),
                         tie=percent(COST_TIE))
            return _(" ({gpus} GPUs take {time}, {pct} less: within {tie} a difference does not decide, and the count nearest "
                     "today's wins, as in the plan)", gpus=count(o.gpus), time=same_unit(value, marked)[0], pct=percent(1.0 - value / marked, 1),
                     tie=percent(COST_TIE))
    return ""


def _why_slower(sw: Sweep, s: str, i: int, prev: tuple[float, str, int]) -> str:
    """Why this point takes longer than the row above with more GPUs (render.slower_reason, which the memo's what-if
    rows use too)."""
    _hours, ps, pi = prev
    return slower_reason(count(sw.gpus[pi]), s, ps, sw.layout_text(s, i), sw.layout_text(s, pi), int(sw.accumulation[s][i]),
                         int(sw.accumulation[s][pi]), float(sw.per_rank[s][i]), float(sw.per_rank[s][pi]))
