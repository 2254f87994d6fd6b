"""Limits that bound advisor's work by design: how much the decision search may hold in memory, and so how many GPU
counts it, a sweep and a what-if may price (issue 36: a 10,000,000-GPU what-if asked the search for 5,000,000 counts,
~22 GB, and the process died after a minute).

The search (decision/search.py) prices every whole-node GPU count from one node to the most GPUs that can be had, for
every strategy at once, as numpy arrays: the estimate keeps some fifty float64 arrays per strategy, each one value per
count, and the search's masks and bands add a few more. Measured on this code (7B model, 11 strategies):

- peak RSS of ``candidate_counts`` less the process's before it: 224 MB at 50,000 counts (4.6 KB a count), 437 MB at
  100,000 (4.5 KB); a sweep 410 MB at 100,000 points (4.2 KB);
- tracemalloc's peak (numpy's arrays included), per extra count between 4,000 and 32,000 counts: 3.6-3.9 KB;
- `advisor advise` at the limit (max_gpus 800,000, 8 a node): 486 MB peak RSS for the whole process in 5.4 s; with
  three more GPU types, 488 MB in 14 s — each type is searched after the other, and none keeps its counts.

tests/test_hardening_round3.py measures it again on every run, so a hungrier search fails a test, not a user's machine.
"""

from __future__ import annotations

SEARCH_MEMORY_BYTES = 512 * 1024 * 1024
"""Most memory the search may hold for the counts it prices: 512 MiB, beside the interpreter and its libraries."""

BYTES_PER_COUNT = 4_600
"""Memory of one GPU count priced by the search, all strategies together: the largest of the measurements above."""

MAX_SEARCH_COUNTS = 100_000
"""Most GPU counts one search prices, and most points one sweep holds over all its GPU types: SEARCH_MEMORY_BYTES /
BYTES_PER_COUNT is ~116,700, rounded down to leave room for what another model shape adds. With 8 GPUs a node that is
800,000 GPUs."""

MAX_COUNT = 10_000_000
"""Largest count any answer may hold (layers, tokens per sequence, a config.json's widths): larger describes no real job
and overflows the arithmetic. GPU counts are held to MAX_SEARCH_COUNTS nodes as well."""
