"""What-if sweep: every strategy across a range of GPU counts, in one vectorised pass.

The estimate model is already written over numpy arrays of GPU counts, so a sweep is one call per
strategy. The cheapest and the fastest feasible points (fit in memory, meet any deadline) are marked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .answers import STRATEGIES, Answers
from .errors import AnswerError
from .estimate import GB, cost, estimate_all

_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")
MAX_POINTS = 200_000
"""Refuse sweeps larger than this many GPU counts (a typo like 8..80000000 must not hang)."""


def parse_gpu_range(text: str, per_node: int) -> np.ndarray:
    """'8..1024' -> powers of two below one node, then every whole node up to the top."""
    m = _RANGE.match(text)
    if not m:
        raise AnswerError(f"--gpus: cannot read {text!r}; write a range such as 8..1024")
    lo, hi = int(m.group(1)), int(m.group(2))
    if lo < 1 or hi < lo:
        raise AnswerError(f"--gpus: {text!r} must run from a positive count up to a larger one")
    small = [c for c in (1, 2, 4, 8, 16, 32, 64) if lo <= c < per_node and c <= hi]
    first = max(per_node, -(-lo // per_node) * per_node)
    if (hi - first) // per_node + 1 + len(small) > MAX_POINTS:
        raise AnswerError(f"--gpus: {text!r} is more than {MAX_POINTS:,} GPU counts; narrow the range")
    nodes = np.arange(first, hi + 1, per_node, dtype=float) if hi >= first else np.zeros(0)
    counts = np.concatenate([np.asarray(small, dtype=float), nodes])
    if counts.size == 0:
        raise AnswerError(f"--gpus: {text!r} holds no count that fits whole {per_node}-GPU nodes")
    return counts


@dataclass
class Sweep:
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

    def to_dict(self) -> dict[str, Any]:
        def point(p: tuple[str, float] | None) -> dict[str, Any] | None:
            if p is None:
                return None
            s, g = p
            i = int(np.searchsorted(self.gpus, g))
            return {"strategy": s, "gpus": g, "wall_clock_hours": float(self.hours[s][i]), "cost": float(self.cost[s][i])}

        return {
            "gpus": self.gpus.tolist(),
            "currency": self.answers.budget.currency.upper(),
            "strategies": {
                s: {
                    "wall_clock_hours": self.hours[s].tolist(),
                    "cost": self.cost[s].tolist(),
                    "memory_per_gpu_gb": self.memory_gb[s].tolist(),
                    "fits": self.fits[s].tolist(),
                    "batch_ok": self.batch_ok[s].tolist(),
                    "feasible": self.feasible[s].tolist(),
                }
                for s in STRATEGIES
            },
            "cheapest": point(self.cheapest),
            "fastest": point(self.fastest),
        }


def sweep(answers: Answers, gpus: np.ndarray) -> Sweep:
    est, _ = estimate_all(answers, gpus)
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
    cheapest = _best(costs, feasible, gpus)
    fastest = _best(hours, feasible, gpus)
    return Sweep(answers, gpus, hours, costs, {s: est[s].memory / GB for s in STRATEGIES}, fits, batch_ok, feasible, cheapest, fastest)


def _best(values: dict[str, np.ndarray], feasible: dict[str, np.ndarray], gpus: np.ndarray) -> tuple[str, float] | None:
    best: tuple[float, str, float] | None = None
    for s in STRATEGIES:
        masked = np.where(feasible[s], values[s], np.inf)
        i = int(np.argmin(masked))
        if np.isfinite(masked[i]) and (best is None or masked[i] < best[0]):
            best = (float(masked[i]), s, float(gpus[i]))
    return None if best is None else (best[1], best[2])


def sweep_text(sw: Sweep, rows: int = 24, markdown: bool = False) -> str:
    """A table of the best feasible strategy per GPU count (thinned to ``rows`` lines), marks included."""
    cur = sw.answers.budget.currency.upper()
    idx = np.unique(np.linspace(0, sw.gpus.size - 1, min(rows, sw.gpus.size)).round().astype(int))
    marks = {sw.cheapest: "cheapest", sw.fastest: "fastest"}
    extra = [int(np.searchsorted(sw.gpus, p[1])) for p in (sw.cheapest, sw.fastest) if p]
    idx = np.unique(np.concatenate([idx, np.asarray(extra, dtype=int)]))
    out = []
    if markdown:
        out += ["| GPUs | best strategy | time (h) | cost | note |", "| --- | --- | --- | --- | --- |"]
    else:
        out.append(f"{'GPUs':>7}  {'best feasible strategy':<24} {'time (h)':>10} {'cost':>16}  note")
    for i in idx:
        g = float(sw.gpus[i])
        cands = [(float(sw.cost[s][i]), STRATEGIES.index(s), s) for s in STRATEGIES if sw.feasible[s][i]]
        if not cands:
            fitting = [s for s in STRATEGIES if sw.fits[s][i]]
            running = [s for s in fitting if sw.batch_ok[s][i]]
            why = "none fits in memory"
            if fitting and not running:
                why = "the global batch has too few sequences for this many data-parallel ranks"
            elif running:
                fitting = running
                fastest = min(float(sw.hours[s][i]) for s in fitting)
                why = f"misses the deadline ({fastest / 24.0:,.1f} days at best)"
            line = (f"| {g:,.0f} | {why} | | | |" if markdown else f"{g:>7,.0f}  {why}")
            out.append(line)
            continue
        c, _, s = min(cands)
        note = ", ".join(v for k, v in marks.items() if k and k[1] == g)
        h = float(sw.hours[s][i])
        if markdown:
            out.append(f"| {g:,.0f} | `{s}` | {h:,.1f} | {c:,.0f} {cur} | {note} |")
        else:
            out.append(f"{g:>7,.0f}  {s:<24} {h:>10,.1f} {c:>12,.0f} {cur}  {note}")
    for label, p in (("Cheapest feasible", sw.cheapest), ("Fastest feasible", sw.fastest)):
        if p:
            i = int(np.searchsorted(sw.gpus, p[1]))
            line = f"{label}: {p[0]} on {p[1]:,.0f} GPUs, {sw.hours[p[0]][i]:,.1f} h, {sw.cost[p[0]][i]:,.0f} {cur}"
        else:
            line = f"{label}: nothing in this range fits" + (" the deadline" if sw.answers.training.deadline_days else "")
        out.append(("" if not markdown else "\n") + line if label.startswith("Cheapest") else line)
    return "\n".join(out) + "\n"
