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
from .estimate import GB, PARTIAL_RECOMPUTE, StrategyEstimate, cost, estimate_all

NUMBER, BOOL, TEXT = "number", "bool", "text"


@dataclass(frozen=True)
class FactSpec:
    """A fact rules may name: its type, allowed values for text facts, and a description."""

    name: str
    type: str
    description: str
    choices: tuple[str, ...] | None = None
    plan: bool = False
    """A fact about the chosen plan: known only after the choice, so it may drive texts but never scores."""


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
        FactSpec("gpu_generation", TEXT, "GPU architecture family.", ("volta", "ampere", "ada", "hopper", "cdna3", "davinci")),
        FactSpec("intra_node", TEXT, "GPU link inside a node as used by the estimate.", ("nvlink", "pcie", "xgmi", "hccs")),
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
        FactSpec("runs_per_month", NUMBER, "Runs a month: as given, else as many as today's setup completes back to back in 30 days."),
        FactSpec("monthly_spend", NUMBER, "runs_per_month x the cheapest fitting option's cost per run."),
        FactSpec("deadline_days", NUMBER, "Days the run must finish in (only when given)."),
        FactSpec("replicated_states_gb", NUMBER, "Model states of an unsharded replica, 16 B/param, GB."),
        FactSpec("replicated_states_ratio", NUMBER, "replicated_states_gb / gpu_memory_gb (above ~1 plain data parallel cannot fit)."),
        FactSpec("fitting_count", NUMBER, "How many strategies fit in GPU memory."),
        FactSpec("best_hours", NUMBER, "Wall-clock hours of the fastest fitting strategy."),
        FactSpec("best_days", NUMBER, "best_hours / 24."),
        FactSpec("best_cost", NUMBER, "Cost of the cheapest fitting strategy."),
        FactSpec("over_budget", BOOL, "Even the cheapest fitting strategy costs more than budget_limit."),
        FactSpec("over_deadline", BOOL, "Even the fastest fitting strategy misses deadline_days."),
        FactSpec("over_monthly_limit", BOOL, "monthly_spend exceeds monthly_limit."),
        FactSpec("zero_memory_saving_pct", NUMBER, "GPU memory saved by ZeRO-2 against DDP, percent (seed:K15)."),
    ]
    per_strategy = [
        ("fits", BOOL, "fits in GPU memory"),
        ("cpu_fits", BOOL, "fits in host memory where offload needs it (true when host memory is unknown)"),
        ("memory_gb", NUMBER, "memory per GPU, GB"),
        ("hours", NUMBER, "wall-clock hours"),
        ("cost", NUMBER, "cost of the run"),
        ("cost_vs_best", NUMBER, "cost / best_cost"),
        ("batch_ok", BOOL, "the global batch has at least one sequence for every data-parallel rank"),
        ("comm_share", NUMBER, "share of step time spent in communication that does not overlap compute"),
        ("scaling_efficiency", NUMBER, "compute time / step time"),
    ]
    for prefix, kind, what in per_strategy:
        for s in STRATEGIES:
            specs.append(FactSpec(f"{prefix}.{s}", kind, f"{s}: {what}."))
    plan = [
        FactSpec("chosen_strategy", TEXT, "The recommended strategy.", STRATEGIES),
        FactSpec("chosen_framework", TEXT, "The recommended framework's name."),
        FactSpec("chosen_gpus", NUMBER, "GPUs in the recommended plan."),
        FactSpec("chosen_nodes", NUMBER, "Nodes in the recommended plan."),
        FactSpec("chosen_hours", NUMBER, "Wall-clock hours of the recommended plan."),
        FactSpec("chosen_days", NUMBER, "chosen_hours / 24."),
        FactSpec("chosen_cost", NUMBER, "Cost per run of the recommended plan."),
        FactSpec("chosen_monthly_spend", NUMBER, "runs_per_month x chosen_cost."),
        FactSpec("chosen_comm_share", NUMBER, "Exposed communication share of the recommended plan's step."),
        FactSpec("chosen_memory_gb", NUMBER, "Memory per GPU of the recommended plan, GB."),
        FactSpec("chosen_micro_batch", NUMBER, "Micro-batch of the recommended plan."),
        FactSpec("chosen_accumulation", NUMBER, "Gradient-accumulation steps of the recommended plan."),
        FactSpec("chosen_recompute", TEXT, "Activation recomputation of the recommended plan.", ("none", "selective", *PARTIAL_RECOMPUTE, "full")),
        FactSpec("chosen_tp", NUMBER, "Tensor-parallel degree of the recommended plan."),
        FactSpec("chosen_pp", NUMBER, "Pipeline-parallel degree of the recommended plan."),
        FactSpec("chosen_vpp", NUMBER, "Virtual pipeline stages per GPU (interleaving) of the recommended plan."),
        FactSpec("chosen_tokens_per_sec", NUMBER, "Tokens/s the recommended plan consumes."),
        FactSpec("status_quo", BOOL, "The recommendation is today's strategy on today's GPU count."),
        FactSpec("keeps_strategy", BOOL, "The recommendation keeps today's strategy."),
        FactSpec("gpus_added", NUMBER, "chosen_gpus - gpus today (negative when fewer)."),
        FactSpec("deadline_met", BOOL, "The recommended plan meets deadline_days (only when a deadline is given)."),
        FactSpec("beyond_cluster", BOOL, "Meeting the deadline needs more GPUs than the cluster has today."),
        FactSpec("today_hours", NUMBER, "Wall-clock hours of today's setup (current strategy, today's GPUs)."),
        FactSpec("today_days", NUMBER, "today_hours / 24."),
        FactSpec("today_cost", NUMBER, "Cost per run of today's setup."),
        FactSpec("fewer_gpus_cheaper", BOOL, "Fewer GPUs than the plan would do the same job at least 10% cheaper (and slower)."),
        FactSpec("cheaper_gpus", NUMBER, "The GPU count of that cheaper option."),
        FactSpec("cheaper_strategy", TEXT, "The strategy of that cheaper option.", STRATEGIES),
        FactSpec("cheaper_days", NUMBER, "Days one run would take on cheaper_gpus."),
        FactSpec("fewer_gpus_saving_pct", NUMBER, "Saving in percent at cheaper_gpus."),
    ]
    specs.extend(FactSpec(p.name, p.type, p.description, p.choices, plan=True) for p in plan)
    return {spec.name: spec for spec in specs}


FACTS: dict[str, FactSpec] = _registry()
"""Every fact a rule may test, by name."""


@dataclass
class Evaluation:
    """What the core computed for one GPU count: facts for the rules, estimates (at that count) for output."""

    answers: Answers
    facts: dict[str, Any]
    estimates: dict[str, StrategyEstimate]
    context: dict[str, Any]
    gpus: int


def runs_per_month(answers: Answers, today_hours: float) -> float:
    """As given, or as many runs as today's setup completes back to back in 30 days (a cluster kept busy)."""
    given = answers.training.runs_per_month
    return given if given is not None else HOURS_PER_MONTH / today_hours if today_hours > 0 else 1.0


HOURS_PER_MONTH = 24.0 * 30.0


def evaluate_counts(answers: Answers, counts: np.ndarray) -> list[Evaluation]:
    """Estimate every strategy at every GPU count in one vectorised pass, and derive each count's facts.

    The counts must include today's (answers.cluster.gpus): today's run sets the monthly cadence.
    """
    counts = np.asarray(counts, dtype=float)
    estimates, ctx = estimate_all(answers, counts)
    today = int(np.searchsorted(counts, answers.cluster.gpus)) if answers.cluster.gpus in counts else None
    if today is None:
        raise ValueError("evaluate_counts needs today's GPU count among the counts")
    ctx["today_hours"] = float(estimates[answers.training.current_strategy].hours["mid"][today])
    ctx["runs_per_month"] = runs_per_month(answers, ctx["today_hours"])
    return [_facts_at(answers, {s: e.at(i) for s, e in estimates.items()}, ctx, int(c)) for i, c in enumerate(counts)]


def compute_facts(answers: Answers) -> Evaluation:
    """The facts at today's GPU count alone."""
    return evaluate_counts(answers, np.array([float(answers.cluster.gpus)]))[0]


def _facts_at(a: Answers, estimates: dict[str, StrategyEstimate], ctx: dict[str, Any], gpus: int) -> Evaluation:
    """Every fact in FACTS at one GPU count (None where a fact is unknown; plan facts stay None until the choice)."""
    price = a.budget.price_per_gpu_hour
    nodes = max(1, -(-gpus // a.cluster.gpus_per_node))
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
        nodes=float(nodes),
        multi_node=nodes > 1,
        gpu=a.cluster.gpu if isinstance(a.cluster.gpu, str) else "custom",
        gpu_memory_gb=a.cluster.spec.memory_gb,
        gpu_generation=a.cluster.spec.generation,
        intra_node=ctx["hardware"].intra_link,
        inter_node_gbps=a.cluster.network_gbps,
        inter_node_gbps_per_gpu=a.cluster.network_gbps / min(a.cluster.gpus_per_node, gpus),
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
        monthly_cost=price * gpus * HOURS_PER_MONTH,
        runs_per_month=ctx["runs_per_month"],
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
        f[f"batch_ok.{s}"] = bool(e.batch_ok[0])
        f[f"memory_gb.{s}"] = float(e.memory[0]) / GB
        f[f"hours.{s}"] = hours
        f[f"cost.{s}"] = c
        f[f"comm_share.{s}"] = float(e.communication_share[0])
        f[f"scaling_efficiency.{s}"] = float(e.compute_s[0] / step) if step > 0 else 1.0
    f["current_fits"] = f[f"fits.{a.training.current_strategy}"]
    f["current_memory_gb"] = f[f"memory_gb.{a.training.current_strategy}"]
    fitting = [s for s in STRATEGIES if bool(estimates[s].usable[0])]
    f["fitting_count"] = float(len(fitting))
    pool = fitting or list(STRATEGIES)
    best_cost = min(costs[s] for s in pool)
    f["best_cost"] = best_cost
    f["best_hours"] = min(f[f"hours.{s}"] for s in pool)
    f["best_days"] = f["best_hours"] / 24.0
    f["monthly_spend"] = ctx["runs_per_month"] * best_cost
    for s in STRATEGIES:
        f[f"cost_vs_best.{s}"] = costs[s] / best_cost if best_cost > 0 else 1.0
    f["over_budget"] = a.budget.limit is not None and best_cost > a.budget.limit
    f["over_deadline"] = a.training.deadline_days is not None and f["best_days"] > a.training.deadline_days
    f["over_monthly_limit"] = a.budget.monthly_limit is not None and f["monthly_spend"] > a.budget.monthly_limit
    f["zero_memory_saving_pct"] = 100.0 * (1.0 - f["memory_gb.deepspeed-zero2"] / f["memory_gb.ddp"])
    tokens_per_sec = ctx["tokens"] / (f["best_hours"] * 3600.0) if f["best_hours"] > 0 else 0.0
    f["tokens_per_sec_needed"] = tokens_per_sec
    if a.cluster.data_pipeline_tokens_per_sec is not None and tokens_per_sec > 0:
        f["data_pipeline_ratio"] = a.cluster.data_pipeline_tokens_per_sec / tokens_per_sec
    return Evaluation(answers=a, facts=f, estimates=estimates, context=ctx, gpus=gpus)
