"""Fidelity of the post-training estimate: advisor's hours against published post-training runs.

Run:  PYTHONPATH=src python bench/fidelity_posttrain.py
Reads bench/fidelity_posttrain.yaml; each scored row is priced at its own GPU count with the fastest strategy that
fits there (the runs name their GPUs, not advisor's strategies). Nothing is fitted per row.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from advisor.estimate import estimate_all
from advisor.inputs.answers import answers_from_mapping

ROWS = Path(__file__).resolve().parent / "fidelity_posttrain.yaml"


def estimate_seconds(row: dict[str, Any]) -> tuple[float, str]:
    """(seconds, strategy) advisor estimates for one published row."""
    post = {"prompts": row["prompts"], "responses_per_prompt": row["responses"], "prompt_tokens": row["prompt_tokens"],
            "generation_tokens": row["generation_tokens"]}
    post.update(row.get("placement") or {})
    if row.get("reward_model_params"):
        post["reward_model_params"] = row["reward_model_params"]
    answers = answers_from_mapping({
        "model": {**row["model"], "seq_len": row["prompt_tokens"] + row["generation_tokens"]},
        "training": {"method": row["method"], "current_strategy": "none", "post_training": post},
        "cluster": {"gpu": row["gpu"], "gpus": row["gpus"]},
        "budget": {"price_per_gpu_hour": 1},
    })
    results, _ctx = estimate_all(answers, np.asarray([float(row["gpus"])]))
    usable = {s: e for s, e in results.items() if bool(e.fits[0] and e.cpu_fits[0] and e.batch_ok[0])}
    pool = usable or results
    best = min(pool, key=lambda s: float(pool[s].hours["mid"][0]))
    return float(pool[best].hours["mid"][0]) * 3600.0, best


def report() -> tuple[list[tuple[str, float, float, float, str]], float]:
    """Rows (name, published s, estimated s, signed error, strategy) and the median absolute error."""
    data = yaml.safe_load(ROWS.read_text())
    rows = []
    for row in data["scored"]:
        est, strategy = estimate_seconds(row)
        rows.append((row["name"], float(row["seconds"]), est, est / float(row["seconds"]) - 1.0, strategy))
    return rows, statistics.median(abs(r[3]) for r in rows)


if __name__ == "__main__":
    rows, median = report()
    for name, published, est, err, strategy in rows:
        print(f"{name:24} published {published:8.0f} s  advisor {est:8.0f} s  {err:+6.0%}  ({strategy})")
    print(f"median absolute error: {median:.0%} over {len(rows)} runs")
