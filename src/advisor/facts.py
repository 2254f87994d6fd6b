"""The fact vocabulary rules may test, and its computation from answers + estimates.

One registry (``FACTS``) names every fact, its type and what it means. The rule loader checks
rules against it, ``advisor rules facts`` prints it, and ``compute_facts`` fills it. Facts never
depend on the recommendation itself, so rule evaluation has no cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .answers import STRATEGIES, Answers
from .estimate import GB, StrategyEstimate, cost, estimate_all

NUMBER, BOOL, TEXT = "number", "bool", "text"


@dataclass(frozen=True)
class FactSpec:
    """A fact rules may name: its type, allowed values for text facts, and a description."""

    name: str
    type: str
    description: str
    choices: tuple[str, ...] | None = None


def _registry() -> dict[str, FactSpec]:
    specs = [
        FactSpec("params", NUMBER, "Total parameters."),
        FactSpec("params_b", NUMBER, "Total parameters, in billions."),
        FactSpec("active_params_b", NUMBER, "Parameters active per token, in billions (MoE; else = params_b)."),
        FactSpec("is_moe", BOOL, "active_params was given and is below params."),
        FactSpec("tokens_b", NUMBER, "Training tokens, in billions (implied from a known duration if not given)."),
        FactSpec("tokens_implied", BOOL, "tokens were not given and were implied from the known duration."),
        FactSpec("duration_known", BOOL, "The answers give a known run duration (the baseline)."),
        FactSpec("baseline_hours", NUMBER, "The known run duration in hours (only when duration_known)."),
        FactSpec("seq_len", NUMBER, "Training sequence length."),
        FactSpec("gpus", NUMBER, "Total GPUs."),
        FactSpec("gpus_per_node", NUMBER, "GPUs per node."),
        FactSpec("nodes", NUMBER, "Nodes (gpus / gpus_per_node, at least 1)."),
        FactSpec("multi_node", BOOL, "The run spans more than one node."),
        FactSpec("gpu", TEXT, "GPU catalog id ('custom' for an inline GPU)."),
        FactSpec("gpu_memory_gb", NUMBER, "Memory of one GPU, GB."),
        FactSpec("gpu_generation", TEXT, "GPU architecture family.", ("volta", "ampere", "ada", "hopper", "cdna3")),
        FactSpec("intra_node", TEXT, "GPU link inside a node as used by the estimate.", ("nvlink", "pcie", "xgmi")),
        FactSpec("inter_node_gbps", NUMBER, "Network bandwidth per node, Gbit/s."),
        FactSpec("inter_node_gbps_per_gpu", NUMBER, "Network bandwidth per node divided by its GPUs, Gbit/s."),
        FactSpec("cpu_memory_known", BOOL, "cpu_memory_gb_per_node was given."),
        FactSpec("cpu_memory_gb_per_node", NUMBER, "Host RAM per node, GB (only when known)."),
        FactSpec("multi_tenant", BOOL, "The cluster is shared with other jobs."),
        FactSpec("data_pipeline_known", BOOL, "A data-loader throughput was given."),
        FactSpec("data_pipeline_tokens_per_sec", NUMBER, "Given data-loader throughput, tokens/s."),
        FactSpec("tokens_per_sec_needed", NUMBER, "Tokens/s the fastest fitting strategy consumes."),
        FactSpec("data_pipeline_ratio", NUMBER, "Given loader throughput / tokens_per_sec_needed (below 1 starves the GPUs)."),
        FactSpec("experience", TEXT, "Team's distributed-training experience.", ("none", "some", "expert")),
        FactSpec("stage", TEXT, "Project stage.", ("mvp", "stable", "frontier")),
        FactSpec("precision", TEXT, "Training precision.", ("bf16", "fp16", "fp32")),
        FactSpec("current_strategy", TEXT, "What the team runs today.", STRATEGIES),
        FactSpec("current_fits", BOOL, "The current strategy fits in GPU memory by the estimate."),
        FactSpec("current_memory_gb", NUMBER, "Memory per GPU the current strategy needs by the estimate, GB."),
        FactSpec("price_per_gpu_hour", NUMBER, "Price of one GPU-hour."),
        FactSpec("currency", TEXT, "Currency code."),
        FactSpec("budget_limit", NUMBER, "Most the run may cost (only when given)."),
        FactSpec("monthly_limit", NUMBER, "Monthly bill ceiling (only when given)."),
        FactSpec("monthly_cost", NUMBER, "Cost of keeping all the GPUs busy for 30 days."),
        FactSpec("deadline_days", NUMBER, "Days the run must finish in (only when given)."),
        FactSpec("replicated_states_gb", NUMBER, "Model states of an unsharded replica, 16 B/param, GB."),
        FactSpec("replicated_states_ratio", NUMBER, "replicated_states_gb / gpu_memory_gb (above ~1 plain data parallel cannot fit)."),
        FactSpec("fitting_count", NUMBER, "How many strategies fit in GPU memory."),
        FactSpec("best_hours", NUMBER, "Wall-clock hours of the fastest fitting strategy."),
        FactSpec("best_days", NUMBER, "best_hours / 24."),
        FactSpec("best_cost", NUMBER, "Cost of the cheapest fitting strategy."),
        FactSpec("over_budget", BOOL, "Even the cheapest fitting strategy costs more than budget_limit."),
        FactSpec("over_deadline", BOOL, "Even the fastest fitting strategy misses deadline_days."),
        FactSpec("over_monthly_limit", BOOL, "monthly_cost exceeds monthly_limit."),
        FactSpec("fewer_gpus_cheaper", BOOL, "Fewer GPUs would do the same job at least 10% cheaper (and still meet any deadline)."),
        FactSpec("cheaper_gpus", NUMBER, "The cheapest GPU count found for the best data-parallel strategy."),
        FactSpec("fewer_gpus_saving_pct", NUMBER, "Saving in percent at cheaper_gpus."),
        FactSpec("zero_memory_saving_pct", NUMBER, "GPU memory saved by ZeRO-2 against DDP, percent (seed:K15)."),
    ]
    per_strategy = [
        ("fits", BOOL, "fits in GPU memory"),
        ("cpu_fits", BOOL, "fits in host memory where offload needs it (true when host memory is unknown)"),
        ("memory_gb", NUMBER, "memory per GPU, GB"),
        ("hours", NUMBER, "wall-clock hours"),
        ("cost", NUMBER, "cost of the run"),
        ("cost_vs_best", NUMBER, "cost / best_cost"),
        ("comm_share", NUMBER, "share of step time spent in communication that does not overlap compute"),
        ("scaling_efficiency", NUMBER, "compute time / step time"),
    ]
    for prefix, kind, what in per_strategy:
        for s in STRATEGIES:
            specs.append(FactSpec(f"{prefix}.{s}", kind, f"{s}: {what}."))
    return {spec.name: spec for spec in specs}


FACTS: dict[str, FactSpec] = _registry()
"""Every fact a rule may test, by name."""


@dataclass
class Evaluation:
    """What the core computed for one set of answers: facts for the rules, estimates for output."""

    answers: Answers
    facts: dict[str, Any]
    estimates: dict[str, StrategyEstimate]
    context: dict[str, Any]
    fewer_gpus: dict[str, Any] | None


FEWER_GPUS_MIN_SAVING = 0.10
"""Report "fewer GPUs would be cheaper" only past a 10% saving, so noise never drives advice."""


def _candidate_counts(gpus: int, per_node: int) -> np.ndarray:
    """GPU counts to price against the given one (seed:K11): whole nodes, halving down to one node."""
    counts = {gpus}
    c = gpus
    while c > per_node:
        c = max(per_node, (c // 2) // per_node * per_node)
        counts.add(c)
    for k in (1, 2, 4):
        if k * per_node < gpus:
            counts.add(k * per_node)
    return np.array(sorted(counts), dtype=float)


def compute_facts(answers: Answers) -> Evaluation:
    """Run the estimate model and derive every fact in FACTS (None where a fact is unknown)."""
    a = answers
    estimates, ctx = estimate_all(a)
    price, gpus = a.budget.price_per_gpu_hour, a.cluster.gpus
    f: dict[str, Any] = {name: None for name in FACTS}
    f.update(
        params=a.model.params,
        params_b=a.model.params / 1e9,
        active_params_b=(a.model.active_params or a.model.params) / 1e9,
        is_moe=a.model.active_params is not None and a.model.active_params < a.model.params,
        tokens_b=ctx["tokens"] / 1e9,
        tokens_implied=ctx["tokens_implied"],
        duration_known=ctx["baseline_hours"] is not None,
        baseline_hours=ctx["baseline_hours"],
        seq_len=float(a.model.seq_len),
        gpus=float(gpus),
        gpus_per_node=float(a.cluster.gpus_per_node),
        nodes=float(a.cluster.nodes),
        multi_node=a.cluster.nodes > 1,
        gpu=a.cluster.gpu if isinstance(a.cluster.gpu, str) else "custom",
        gpu_memory_gb=a.cluster.spec.memory_gb,
        gpu_generation=a.cluster.spec.generation,
        intra_node=ctx["hardware"].intra_link,
        inter_node_gbps=a.cluster.inter_node_gbps,
        inter_node_gbps_per_gpu=a.cluster.inter_node_gbps / min(a.cluster.gpus_per_node, gpus),
        cpu_memory_known=a.cluster.cpu_memory_gb_per_node is not None,
        cpu_memory_gb_per_node=a.cluster.cpu_memory_gb_per_node,
        multi_tenant=a.cluster.multi_tenant,
        data_pipeline_known=a.cluster.data_pipeline_tokens_per_sec is not None,
        data_pipeline_tokens_per_sec=a.cluster.data_pipeline_tokens_per_sec,
        experience=a.team.experience,
        stage=a.project.stage,
        precision=a.training.precision,
        current_strategy=a.training.current_strategy,
        price_per_gpu_hour=price,
        currency=a.budget.currency.upper(),
        budget_limit=a.budget.limit,
        monthly_limit=a.budget.monthly_limit,
        monthly_cost=price * gpus * 24 * 30,
        deadline_days=a.training.deadline_days,
        replicated_states_gb=16.0 * a.model.params / GB,
    )
    f["replicated_states_ratio"] = f["replicated_states_gb"] / f["gpu_memory_gb"]
    costs = {}
    for s, e in estimates.items():
        hours = float(e.hours["mid"][0])
        c = float(cost(hours, price, gpus))
        costs[s] = c
        step = float(e.step_s["mid"][0])
        f[f"fits.{s}"] = bool(e.fits[0])
        f[f"cpu_fits.{s}"] = bool(e.cpu_fits[0])
        f[f"memory_gb.{s}"] = float(e.memory[0]) / GB
        f[f"hours.{s}"] = hours
        f[f"cost.{s}"] = c
        f[f"comm_share.{s}"] = float(e.communication_share[0])
        f[f"scaling_efficiency.{s}"] = float(e.compute_s[0] / step) if step > 0 else 1.0
    f["current_fits"] = f[f"fits.{a.training.current_strategy}"]
    f["current_memory_gb"] = f[f"memory_gb.{a.training.current_strategy}"]
    fitting = [s for s in STRATEGIES if f[f"fits.{s}"] and f[f"cpu_fits.{s}"]]
    f["fitting_count"] = float(len(fitting))
    pool = fitting or list(STRATEGIES)
    best_cost = min(costs[s] for s in pool)
    f["best_cost"] = best_cost
    f["best_hours"] = min(f[f"hours.{s}"] for s in pool)
    f["best_days"] = f["best_hours"] / 24.0
    for s in STRATEGIES:
        f[f"cost_vs_best.{s}"] = costs[s] / best_cost if best_cost > 0 else 1.0
    f["over_budget"] = a.budget.limit is not None and best_cost > a.budget.limit
    f["over_deadline"] = a.training.deadline_days is not None and f["best_days"] > a.training.deadline_days
    f["over_monthly_limit"] = a.budget.monthly_limit is not None and f["monthly_cost"] > a.budget.monthly_limit
    f["zero_memory_saving_pct"] = 100.0 * (1.0 - f["memory_gb.deepspeed-zero2"] / f["memory_gb.ddp"])
    tokens_per_sec = ctx["tokens"] / (f["best_hours"] * 3600.0) if f["best_hours"] > 0 else 0.0
    f["tokens_per_sec_needed"] = tokens_per_sec
    if a.cluster.data_pipeline_tokens_per_sec is not None and tokens_per_sec > 0:
        f["data_pipeline_ratio"] = a.cluster.data_pipeline_tokens_per_sec / tokens_per_sec
    fewer = _fewer_gpus(a, fitting, ctx, costs)
    f["fewer_gpus_cheaper"] = fewer is not None
    if fewer:
        f["cheaper_gpus"] = fewer["gpus"]
        f["fewer_gpus_saving_pct"] = fewer["saving_pct"]
    return Evaluation(answers=a, facts=f, estimates=estimates, context=ctx, fewer_gpus=fewer)


def _fewer_gpus(a: Answers, fitting: list[str], ctx: dict[str, Any], costs: dict[str, float]) -> dict[str, Any] | None:
    """Price the cheapest fitting strategy at fewer GPUs (seed:K6, K11); None if no clear saving."""
    if not fitting or a.cluster.gpus <= 1:
        return None
    counts = _candidate_counts(a.cluster.gpus, a.cluster.gpus_per_node)
    counts = counts[counts < a.cluster.gpus]
    if counts.size == 0:
        return None
    strategy = min(fitting, key=lambda s: costs[s])
    est, _ = estimate_all(a, counts)
    e = est[strategy]
    price = a.budget.price_per_gpu_hour
    total = cost(e.hours["mid"], price, counts)
    ok = e.fits & e.cpu_fits
    if a.training.deadline_days is not None:
        ok &= e.hours["mid"] / 24.0 <= a.training.deadline_days
    if not ok.any():
        return None
    i = int(np.argmin(np.where(ok, total, np.inf)))
    saving = 1.0 - float(total[i]) / costs[strategy]
    if saving < FEWER_GPUS_MIN_SAVING:
        return None
    return {
        "strategy": strategy,
        "gpus": float(counts[i]),
        "hours": float(e.hours["mid"][i]),
        "cost": float(total[i]),
        "saving_pct": 100.0 * saving,
    }
