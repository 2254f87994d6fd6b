"""Measured rows (issue 32): advisor against plans run on a real GPU (bench/measured_runs.yaml, bench/gpu_measure.py).

Run:  PYTHONPATH=src python bench/measured.py
Prices each measured plan on one GPU with advisor, as a user would ask it (method, adapters, micro-batch, sequence,
recomputation), and prints modelled against measured memory and tokens per second. Memory is read against what the
allocator reserved (torch.cuda.max_memory_reserved): the figure a GPU runs out of, which advisor's "fits" is about.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import yaml

from advisor.estimate import estimate_all
from advisor.inputs.answers import answers_from_mapping

ROOT = Path(__file__).resolve().parent
MEASURED = ROOT / "measured_runs.yaml"


def row_answers(row: dict[str, Any], shapes: dict[str, Any], gpu: str = "h200") -> Any:
    training: dict[str, Any] = {"method": row["method"], "tokens": 1e8, "micro_batch_size": row["micro"],
                                "global_batch_tokens": row["micro"] * row["seq"], "activation_recompute": row["recompute"]}
    if row["method"] == "lora":
        training.update(lora_rank=16, lora_targets=row["targets"])
    return answers_from_mapping({"model": {**shapes[row["shape"]], "seq_len": row["seq"]}, "training": training,
                                 "cluster": {"gpu": gpu, "gpus": 1}, "budget": {"price_per_gpu_hour": 1}})


def priced(row: dict[str, Any], shapes: dict[str, Any], gpu: str = "h200") -> dict[str, float]:
    """advisor's peak memory (GB) and tokens/s for a measured row, on one GPU under DDP (one rank)."""
    from msgspec.structs import replace

    from advisor.estimate import model

    original = model.workload_from

    def workload(answers: Any) -> Any:
        w = original(answers)
        return replace(w, stack=row["stack"]) if "stack" in row else w

    model.workload_from = workload
    try:
        est, ctx = estimate_all(row_answers(row, shapes, gpu))
    finally:
        model.workload_from = original
    e = est["ddp"]
    seconds = float(e.hours["mid"][0]) * 3600.0 / float(e.wallclock_factor[0])
    return {"memory_gb": float(e.memory[0]) / 1e9, "tokens_per_s": ctx["tokens"] / seconds, "fits": bool(e.fits[0])}


def main() -> list[dict[str, Any]]:
    data = yaml.safe_load(MEASURED.read_text())
    out = []
    print("Measured rows (one H200, bench/measured_runs.yaml): modelled / measured\n")
    print(f"{'case':<26} {'reserved GB':>11} {'model':>7} {'ratio':>6} {'tok/s':>8} {'model':>8} {'ratio':>6}")
    for row in data["rows"]:
        if row.get("control"):
            continue  # isolates a term (measured_runs.yaml says which); no advisor plan runs that way
        m = priced(row, data["shapes"])
        r = {**row, **m, "memory_ratio": m["memory_gb"] / row["reserved_gb"], "speed_ratio": m["tokens_per_s"] / row["tokens_per_s"]}
        out.append(r)
        print(f"{row['case']:<26} {row['reserved_gb']:>11.1f} {m['memory_gb']:>7.1f} {r['memory_ratio']:>6.2f} "
              f"{row['tokens_per_s']:>8,.0f} {m['tokens_per_s']:>8,.0f} {r['speed_ratio']:>6.2f}")
    print(f"\nmemory: median modelled/measured {statistics.median(r['memory_ratio'] for r in out):.2f}, "
          f"range {min(r['memory_ratio'] for r in out):.2f}-{max(r['memory_ratio'] for r in out):.2f}")
    print(f"speed:  median modelled/measured {statistics.median(r['speed_ratio'] for r in out):.2f}, "
          f"range {min(r['speed_ratio'] for r in out):.2f}-{max(r['speed_ratio'] for r in out):.2f}")
    return out


if __name__ == "__main__":
    main()
