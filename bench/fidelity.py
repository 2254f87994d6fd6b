"""Fidelity: published GPU-hours of full training runs against advisor's estimate.

Run:  python bench/fidelity.py [PATH/TO/published_runs.yaml]
Reads ../shared/reference/published_runs.yaml by default. For every full run with GPU-hours,
parameters, tokens and a catalog GPU, it prices the run with the estimate model (FSDP, the
reported GPU family, 2,048 GPUs in 8-GPU nodes, a well-connected network) and prints published vs
estimated GPU-hours, the signed error and the median absolute error. Nothing is fitted per run.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import yaml

from advisor.advice import advise
from advisor.answers import answers_from_mapping
from advisor.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "reference" / "published_runs.yaml"

GPU_IDS = {"A100-80GB": "a100-80gb", "A100-40GB": "a100-40gb", "H100-80GB": "h100-sxm", "H800": "h100-sxm"}
"""Published GPU names -> catalog ids. H800 has H100's dense BF16 peak (its NVLink is cut, not its compute)."""

NETWORK_GBPS = {"a100-80gb": 1600, "a100-40gb": 1600, "h100-sxm": 3200}
"""Per-node network assumed: 8 x 200 Gb/s HDR for A100 nodes, 8 x 400 Gb/s NDR for H100 (estimators-notes §9)."""

ACTIVE_B = {"Llama 4 Scout": 17, "Llama 4 Maverick": 17}
"""Active parameters of MoE runs, as the reference's names and notes state them ('17B active')."""


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    runs = yaml.safe_load(path.read_text())
    rules = load_rules()
    rows, skipped = [], []
    for run in runs:
        if run.get("kind") != "full_run" or not run.get("gpu_hours"):
            continue
        name = run["name"]
        gpu = GPU_IDS.get(str(run.get("gpu")))
        if not (run.get("params_b") and run.get("tokens_b") and gpu):
            skipped.append((name, "no params, tokens or catalog GPU in the reference"))
            continue
        active = next((v for k, v in ACTIVE_B.items() if name.startswith(k)), None)
        if "MoE" in name and active is None or name.startswith("DeepSeek-V3"):
            skipped.append((name, "MoE run whose active parameter count the reference does not give"))
            continue
        answers = answers_from_mapping({
            "model": {"params": run["params_b"] * 1e9, **({"active_params": active * 1e9} if active else {})},
            "training": {"tokens": run["tokens_b"] * 1e9, "global_batch_tokens": 4e6},
            "cluster": {"gpu": gpu, "gpus": 2048, "inter_node_gbps": NETWORK_GBPS[gpu]},
            "budget": {"price_per_gpu_hour": 1},
        })
        est = advise(answers, rules).estimate_dict("fsdp")
        published = float(run["gpu_hours"])
        lo, hi = est["range"]["gpu_hours"]
        rows.append((name, published, est["gpu_hours"], est["gpu_hours"] / published - 1, lo <= published <= hi))
    print(f"{'run':<24} {'published GPU-h':>16} {'estimated GPU-h':>16} {'error':>8}  in range")
    for name, pub, est, err, inside in rows:
        print(f"{name[:24]:<24} {pub:>16,.0f} {est:>16,.0f} {err:>+8.0%}  {'yes' if inside else 'no'}")
    errs = [abs(r[3]) for r in rows]
    print(f"\nmedian |error| {statistics.median(errs):.0%} over {len(rows)} runs; worst {max(errs):.0%}; "
          f"{sum(r[4] for r in rows)} of {len(rows)} published figures inside the low-high range")
    print(f"off by more than 2x: {', '.join(r[0] for r in rows if r[2] / r[1] > 2 or r[1] / r[2] > 2) or 'none'}")
    for name, why in skipped:
        print(f"skipped {name}: {why}")


if __name__ == "__main__":
    main()
