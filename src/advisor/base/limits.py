"""Limits that bound advisor's work by design: how much the decision search may hold in memory, and so how many GPU
counts it, a sweep and a what-if may price.

The search (decision/search.py) prices every whole-node GPU count from one node to the most GPUs that can be had, for
every strategy at once, as numpy arrays: the estimate keeps some fifty arrays of float64 per strategy per count, and the
search's masks and bands add a few more. Measured (tests and bench: peak RSS of `candidate_counts` minus the process's
before it, 7B model, 11 strategies): 4.6 KB per count at 50,000 counts, 4.5 KB at 100,000; a sweep holds 4.2 KB per
point. A 10,000,000-GPU what-if asked for 5,000,000 counts: ~22 GB, and the process died after a minute (issue 36).
"""

from __future__ import annotations

SEARCH_MEMORY_BYTES = 512 * 1024 * 1024
"""Most memory the search may hold for its priced counts: 512 MiB, a quarter of a small 2 GiB CI runner or laptop
container, beside the interpreter and its libraries (~150 MiB)."""

BYTES_PER_COUNT = 4_600
"""Measured memory of one GPU count priced by the search, all strategies together (see the module's docstring)."""

MAX_SEARCH_COUNTS = 100_000
"""Most GPU counts one search or sweep prices: SEARCH_MEMORY_BYTES / BYTES_PER_COUNT is ~116,700, rounded down so that
what is measured on another model or machine still fits. With 8 GPUs a node that is 800,000 GPUs, four times the
largest cluster announced in 2025 (xAI Colossus, 200,000 GPUs)."""

MAX_COUNT = 10_000_000
"""Largest count any answer may hold (GPUs, layers, tokens per sequence): larger describes no real job and overflows the
arithmetic."""
