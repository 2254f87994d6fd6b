"""The GPU counts the decision search prices in full: every whole-node count from one node to the most GPUs that can be
had, priced at once (the estimate is vectorised over counts), then pruned to the counts the choice could take (issue 20).

The search used to price only 2^k and 1.5 x 2^k nodes (26 counts at 16,384 GPUs), so "what it takes"
could answer 1,024 GPUs where 1,080 meet the deadline for less. Now every count's time and cost are known; the rules
(which score and exclude strategies count by count, and are the slow part: each count's facts are a dictionary) run only
at the counts that can matter to ``decide.choose``:

- the allocations the memo's what-if table shows (1, 2, 3, 4, 6, 8 ... nodes: the former ladder), today's and the top;
- for each strategy, and for all strategies together, the band within ``COST_TIE`` of the cheapest option that meets the
  deadline on today's GPUs, beyond them, and within the budgets (or, without a deadline, on at most today's GPUs), and
  the band within ``COST_TIE`` of the fastest (where nothing meets the deadline): of each band the counts nearest
  today's on either side (the choice's tie-break prefers the smallest change), its cheapest and its fastest — with every strategy left
  out in turn, so that a rule excluding one strategy still finds the next band priced;
- for each count so picked, the options the choice compares it with: fewer GPUs about as fast for 10% less, the
  cheaper-but-slower trade-off, the same framework faster for the same cost.

A test compares the choice with a search that runs the rules at every count (tests/test_search.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from advisor.base.limits import MAX_SEARCH_COUNTS
from advisor.decision.policy import CHEAPER_SLOWER_STRETCH, CHEAPER_WORTH_SAYING, COST_TIE, FASTER_WORTH_SAYING, SEARCH_GROWTH, SWITCH_MIN_GAIN
from advisor.decision.facts import _cadence_hours, runs_per_month
from advisor.estimate import cost, deadline_hours, estimate_all, judged_limits
from advisor.inputs.answers import STRATEGIES, Answers

PRUNE_ABOVE = 48
"""Counts up to which the rules run at every count instead of at the counts the search keeps: below about 48 the search's
bands cost more than the rule evaluations they save (bench, advise's median on one core, every count against pruned:
customer-service at 64 GPUs, 32 counts, 11.4 against 16.4 ms; its fine-tune 35.6 against 40.1; at 64 counts 25.8
against 25.3, 45.9 against 41.0). The choice is the same either way (tests/test_search.py); only the plan's list of
searched counts grows."""

NEAREST = 1
"""Counts kept on each side of today's in every band: the choice prefers the smallest change (advisor's policy; 2 chose
the same in the 115 cases tried — the search tests' table, the examples and the decision cases — and priced more)."""


def top_count(a: Answers) -> int:
    """The most GPUs the search considers: cluster.max_gpus, else SEARCH_GROWTH x today's up to the counts the search may
    hold in memory (base/limits.py; the answers refuse a given count beyond them)."""
    g = a.cluster.gpus
    grown = min(SEARCH_GROWTH * g, MAX_SEARCH_COUNTS * a.cluster.gpus_per_node)
    return max(g, a.cluster.max_gpus if a.cluster.max_gpus is not None else grown)


def ladder_counts(a: Answers) -> set[int]:
    """Today's, the top, and whole nodes in the allocations clusters hand out (1, 2, 3, 4, 6, 8 ... nodes: 2^k and
    1.5 x 2^k) from one node up: the rows of the memo's what-if table."""
    g, per = a.cluster.gpus, a.cluster.gpus_per_node
    top = top_count(a)
    counts = {g, top}
    if g < per:
        counts.update(c for c in (1, 2, 4) if c < g)
    k = 1
    while k * per <= top:
        counts.add(k * per)
        if k > 1 and 3 * k * per // 2 <= top:
            counts.add(3 * k * per // 2)
        k *= 2
    return counts


def every_count(a: Answers) -> np.ndarray:
    """Every count the search considers: each whole node from one node to the top, today's, the top, and (below one
    node) 1, 2 and 4 GPUs."""
    g, per = a.cluster.gpus, a.cluster.gpus_per_node
    top = top_count(a)
    counts = set(range(per, top + 1, per)) | {g, top}
    if g < per:
        counts.update(c for c in (1, 2, 4) if c < g)
    return np.array(sorted(counts), dtype=float)


def candidate_counts(a: Answers) -> np.ndarray:
    """The ladder and every count the choice could take, sorted (see the module's docstring)."""
    counts = every_count(a)
    keep = ladder_counts(a)
    if counts.size <= max(PRUNE_ABOVE, len(keep) + 2):
        return counts
    est, _ctx = estimate_all(a, counts)
    g = a.cluster.gpus
    today = int(np.searchsorted(counts, g))
    runs = runs_per_month(a, _cadence_hours(a, est, today))
    hours = np.stack([est[s].hours["mid"] for s in STRATEGIES])
    costs = np.stack([cost(est[s].hours["mid"], a.budget.price_per_gpu_hour, counts) for s in STRATEGIES])
    usable = np.stack([est[s].usable for s in STRATEGIES])
    affordable = np.ones_like(usable)
    limit, monthly = judged_limits(a)  # on the range's upper end, as price_options judges them
    if limit is not None:
        affordable &= costs <= limit
    if monthly is not None:
        affordable &= runs * costs <= monthly
    picked: set[tuple[int, int]] = set()

    below_today = counts <= g
    positions = np.arange(counts.size)

    def band_picks(sub: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> list[np.ndarray]:
        """Of each row of a band (``sub``: strategies ``rows`` at the count positions ``cols``, sorted): the positions of
        its cheapest, its fastest (the first of equals), and the NEAREST on either side of today's."""
        cheap = np.where(sub, costs[rows][:, cols], np.inf)
        quick = np.where(sub, hours[rows][:, cols], np.inf)
        cheapest, fastest = cheap.argmin(axis=1), quick.argmin(axis=1)
        at = np.arange(rows.size)
        if cols.size < counts.size and ((cheap[at, cheapest] == np.inf).any() or (quick[at, fastest] == np.inf).any()):
            # A band of infinite costs or times: the first of equals is then a count outside it, as over the whole row.
            full = np.zeros((rows.size, counts.size), dtype=bool)
            full[:, cols] = sub
            return band_picks(full, rows, positions)
        picks = [cols[cheapest], cols[fastest]]
        low = sub & below_today[cols]
        high = sub & ~below_today[cols]
        for _k in range(NEAREST):
            if low.any():
                last = np.where(low, cols, -1).max(axis=1)
                picks.append(np.where(last >= 0, last, picks[0]))
                low &= cols[None, :] != last[:, None]
            if high.any():
                first = np.where(high, cols, counts.size).min(axis=1)
                picks.append(np.where(first < counts.size, first, picks[0]))
                high &= cols[None, :] != first[:, None]
        return picks

    # The picks of a band that spans a strategy's every count (a band whose floor is infinite): the same every time.
    whole: list[set[tuple[int, int]]] = [set() for _s in STRATEGIES]
    for p in band_picks(np.ones(usable.shape, dtype=bool), np.arange(len(STRATEGIES)), positions):
        for s, n in enumerate(p.tolist()):
            whole[s].add((s, n))

    seen: dict[tuple[bool, bytes], set[tuple[int, int]]] = {}

    def bands(mask: np.ndarray, by: np.ndarray) -> set[tuple[int, int]]:
        """(strategy, count) indices picked from the tie bands of ``mask`` by ``by``: each strategy's, all together, and
        all but one strategy in turn (which leaves the second-best strategy's best as the band's floor). Of each band:
        the NEAREST counts on either side of today's, its cheapest and its fastest. A strategy with no option in the
        mask, or the best where the floor is the second-best's, has an infinite floor: its band is its every count.

        Read at the counts the mask holds (a band with a finite floor lies within the mask), those bands at the cached
        picks of whole rows: the same picks as over the whole grid, a fraction of the work."""
        if not mask.any():
            return set()
        key = (by is costs, mask.tobytes())  # the options compared with one pick are often those of another
        if key in seen:
            return seen[key]
        seen[key] = out = set()
        cols = np.flatnonzero(mask.any(axis=0))
        value = np.where(mask[:, cols], by[:, cols], np.inf)
        best = value.min(axis=1)
        ranked = np.sort(best)
        floors = [best, np.full_like(best, ranked[0])]
        if ranked.size > 1 and np.isfinite(ranked[1]):
            floors.append(np.where(best == ranked[0], np.inf, ranked[1]))
        for floor in floors:
            limit = floor * (1 + COST_TIE)
            band = value <= limit[:, None]
            # An infinite floor's row has no NaN (its best would be NaN): its band is every count, masked or not.
            spans = limit == np.inf
            for s in np.flatnonzero(spans).tolist():
                out |= whole[s]
            rows = np.flatnonzero(~spans & band.any(axis=1))
            if rows.size:
                for p in band_picks(band[rows], rows, cols):
                    out.update(zip(rows.tolist(), p.tolist(), strict=True))
        return out

    within = counts <= g
    deadline = a.training.deadline_days
    meets = usable & (hours <= (deadline_hours(a) or 0.0)) if deadline is not None else np.zeros_like(usable)
    for money in (np.ones_like(usable), affordable):
        if deadline is not None:
            picked |= bands(meets & within & money, costs)
            picked |= bands(meets & ~within & money, costs)
            picked |= bands(usable & money, hours)
        picked |= bands(usable & within & money, costs)
    for s in range(len(STRATEGIES)):  # the cheapest that meets the deadline, and the fastest, of every strategy
        for mask, by in ((meets[s], costs[s]), (usable[s], hours[s])):
            if mask.any():
                picked.add((s, int(np.flatnonzero(mask)[np.argmin(by[mask])])))
    # For each option picked so far (all at once, in chunks of options): the options the choice compares it with; then
    # the same for the dominators that adds (decide.undominated may move the plan to one, and one may itself be
    # dominated), until no new dominator is picked.
    done: set[tuple[int, int]] = set()
    around = sorted(picked)
    while around:
        done |= set(around)
        dominators = _compared(around, picked, bands, counts, hours, costs, usable, affordable, meets, deadline)
        around = sorted(dominators - done)
    keep.update(int(counts[n]) for _s, n in picked)
    return np.array(sorted(keep), dtype=float)


def _compared(around: list[tuple[int, int]], picked: set[tuple[int, int]], bands: Any, counts: np.ndarray, hours: np.ndarray,
              costs: np.ndarray, usable: np.ndarray, affordable: np.ndarray, meets: np.ndarray, deadline: float | None) -> set[tuple[int, int]]:
    """Adds to ``picked`` the options the choice compares each of ``around`` with: fewer GPUs about as fast for 10% less,
    fewer GPUs that dominate it (decide.undominated), the cheaper-but-slower trade, the same framework faster for the
    same cost. Returns the dominators it picked (the options the plan may move to)."""
    dominators: set[tuple[int, int]] = set()
    # Every mask below holds only options that run: compared over those alone (a flat index into the strategy x count
    # grid, in its row-major order), a sixth of the grid at 16,384 GPUs.
    runs = np.flatnonzero(usable)
    run_s, run_n = np.divmod(runs, usable.shape[1])
    run_hours, run_costs, run_counts = hours.ravel()[runs], costs.ravel()[runs], counts[run_n]
    run_affordable, run_meets = affordable.ravel()[runs], meets.ravel()[runs]

    def grid(row: np.ndarray) -> np.ndarray:
        """A mask over the options that run as a mask over the strategy x count grid (what ``bands`` reads)."""
        out = np.zeros(usable.size, dtype=bool)
        out[runs[row]] = True
        return out.reshape(usable.shape)

    per = max(1, 2_000_000 // max(1, runs.size))
    for lo in range(0, len(around), per):
        si = np.array([p[0] for p in around[lo:lo + per]])
        ni = np.array([p[1] for p in around[lo:lo + per]])
        h, c = hours[si, ni][:, None], costs[si, ni][:, None]
        # Where the option meets the deadline, the options compared with it meet it too.
        holds = ~(meets[si, ni][:, None]) | run_meets[None] if deadline is not None else np.ones((1, 1), dtype=bool)
        fewer = run_counts[None, :] < counts[ni][:, None]
        # Fewer GPUs about as fast for 10% less.
        as_fast = fewer & (run_hours[None] <= h * (1 + COST_TIE)) & (run_costs[None] <= c * (1 - CHEAPER_WORTH_SAYING)) & run_affordable[None] & holds
        for p in np.flatnonzero(as_fast.any(axis=1)):
            picked |= bands(grid(as_fast[p]), costs)
        # Fewer GPUs, cheaper and no slower (or faster for no more) by SWITCH_MIN_GAIN: what decide.undominated moves to.
        better = (fewer & (run_hours[None] <= h) & (run_costs[None] <= c)
                  & ((run_costs[None] <= c * (1 - SWITCH_MIN_GAIN)) | (run_hours[None] <= h * (1 - SWITCH_MIN_GAIN))))
        for p in np.flatnonzero(better.any(axis=1)):
            dominators |= bands(grid(better[p]), costs)
        picked |= dominators
        # The cheaper-but-slower trade as choose() bounds it: within CHEAPER_SLOWER_STRETCH of the time, not giving up a
        # deadline the count meets; of its cost band the fastest, then the cheapest, then the first in grid order.
        slower = fewer & (run_costs[None] <= c * (1 - CHEAPER_WORTH_SAYING)) & (run_hours[None] <= h * CHEAPER_SLOWER_STRETCH) & holds
        for p in np.flatnonzero(slower.any(axis=1)):
            band = np.flatnonzero(slower[p] & (run_costs <= run_costs[slower[p]].min() * (1 + COST_TIE)))
            j = band[np.lexsort((run_costs[band], run_hours[band]))[0]]
            picked.add((int(run_s[j]), int(run_n[j])))
        # The same framework faster for about the same cost.
        quicker = (usable[si] & (counts[None, :] > counts[ni][:, None]) & (costs[si] <= c * (1 + COST_TIE)) & affordable[si]
                   & (hours[si] <= h * (1 - FASTER_WORTH_SAYING)))
        fastest = np.where(quicker, hours[si], np.inf).argmin(axis=1)
        for p in np.flatnonzero(quicker.any(axis=1)):
            q = quicker[p]
            n = int(fastest[p]) if q[fastest[p]] else int(np.flatnonzero(q)[np.argmin(hours[si[p]][q])])  # (all infinite)
            picked.add((int(si[p]), n))
    return dominators
