"""The GPU catalog's rows as shipped (src/advisor/data/gpus.yaml), untyped: what the guided Q&A lists on its GPU step.

No pydantic here: the Q&A builds its steps, the GPU list included, before its first question is drawn, and the typed
catalog (knowledge.catalog, which validates these same rows into GpuSpec) loads after that, with the estimate (issue 20).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.base.safeload import parse_trusted_cached


def data_file(name: str) -> dict[str, Any]:
    """One of the shipped data files (src/advisor/data/NAME), parsed (through the parsed-file cache: no YAML reader
    needed when the file is unchanged)."""
    data: dict[str, Any] = parse_trusted_cached(Path(__file__).resolve().parents[1] / "data" / name)
    return data


@lru_cache(maxsize=1)
def gpu_rows() -> dict[str, dict[str, Any]]:
    """Each catalog GPU's row as written, by id, in file order (shared: read, never change)."""
    rows: dict[str, dict[str, Any]] = data_file("gpus.yaml")["gpus"]
    return rows
