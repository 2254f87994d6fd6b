"""The facts rules test, computed from answers + estimates.

The vocabulary (``FACTS``: every fact, its type and what it means) is in ``advisor.knowledge.vocabulary``; ``compute_facts``
fills it. Facts never
depend on the recommendation itself, so rule evaluation has no cycles.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from msgspec import Struct
from typing import Any

import numpy as np

from advisor.inputs.answers import STRATEGIES, Answers
from advisor.estimate import GB, StrategyEstimate, cost, estimate_all, judged_limits

from advisor.estimate.communication import powersgd_volume
from advisor.estimate.finetune import finetune_facts
from advisor.estimate.memory import logits_bytes, powersgd_bytes
from advisor.estimate.workload import fp8_time_factor
from advisor.knowledge.strategies import STATE_BYTES_PER_PARAM, powersgd_start_iter, spec
from advisor.knowledge.vocabulary import FACTS

"""Every fact a rule may test, by name."""


class Evaluation(Struct):
    """What the core computed for one GPU count: facts for the rules, estimates (at that count) for output."""

    answers: Answers
    facts: dict[str, Any]
    estimates: Mapping[str, StrategyEstimate]
    context: dict[str, Any]
    gpus: int


class AtCount(Mapping[str, StrategyEstimate]):
    """Every strategy's estimate at one of the counts estimated together, each cut out (StrategyEstimate.at) when first
    asked for: the search derives facts at many counts and shows the estimates of a few."""

    def __init__(self, estimates: Mapping[str, StrategyEstimate], index: int) -> None:
        self._all = estimates
        self._index = index
        self._cut: dict[str, StrategyEstimate] = {}

    def __getitem__(self, strategy: str) -> StrategyEstimate:
        cut = self._cut.get(strategy)
        if cut is None:
            cut = self._cut[strategy] = self._all[strategy].at(self._index)
        return cut

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)


GREENFIELD_RUNS_PER_MONTH = 1.0
"""A project not training yet has no pace of its own to repeat: one run a month is assumed until training.runs_per_month
says otherwise. Back to back at the pace of the fastest option on its GPUs, a 10-hour LoRA planned on listed 4090s read
68.6 runs and 40,029 元 a month, runs the plan's 2.4 days could not fit (user try 9)."""


def runs_per_month(answers: Answers, today_hours: float) -> float:
    """As given; for a project not training yet, GREENFIELD_RUNS_PER_MONTH; else as many runs as today's setup completes
    back to back in 30 days (a cluster kept busy)."""
    given = answers.training.runs_per_month
    if given is not None:
        return given
    if answers.training.greenfield:
        return GREENFIELD_RUNS_PER_MONTH
    return HOURS_PER_MONTH / today_hours if today_hours > 0 else 1.0


HOURS_PER_MONTH = 24.0 * 30.0


def step_hours(e: StrategyEstimate) -> np.ndarray:
    """Mid-band hours of training steps per count were data loading to keep up: the time off training (restarts,
    checkpoints, evaluation; StrategyEstimate.wallclock_factor) taken out, since the loader feeds the steps only (the rate
    it must deliver read 697,315 tokens/s, 1T over the whole 16.6 days, where the steps take 775k; user try 2026-12-07)."""
    return e.gpu_bound_hours / e.wallclock_factor


def gpu_bound_hours(e: StrategyEstimate) -> float:
    """step_hours at this count."""
    return float(step_hours(e)[0])


def _cadence_hours(answers: Answers, estimates: dict[str, StrategyEstimate], today: int) -> float:
    """Hours of the run that sets the monthly cadence: today's, measured or modelled — but a setup that cannot run (does
    not fit, or its batch cannot feed every rank) keeps no cadence, so then the fastest option that can run on today's
    GPUs sets it (a cluster kept busy); where none can, today's modelled hours stand."""
    current = estimates.get(answers.training.current_strategy)  # None: not training yet
    hours = float(current.hours["mid"][today]) if current is not None else math.inf
    if answers.training.baseline_hours is not None or (current is not None and bool(current.usable[today])):
        return hours
    runnable = [float(e.hours["mid"][today]) for e in estimates.values() if e.usable[today]]
    if runnable:
        return min(runnable)
    return hours if current is not None else min(float(e.hours["mid"][today]) for e in estimates.values())


def evaluate_counts(answers: Answers, counts: np.ndarray) -> list[Evaluation]:
    """Estimate every strategy at every GPU count in one vectorised pass, and derive each count's facts.

    The counts must include today's (answers.cluster.gpus): today's run sets the monthly cadence.
    """
    counts = np.asarray(counts, dtype=float)
    estimates, ctx = estimate_all(answers, counts)
    today = int(np.searchsorted(counts, answers.cluster.gpus)) if answers.cluster.gpus in counts else None
    if today is None:
        raise ValueError("evaluate_counts needs today's GPU count among the counts")
    cadence = _cadence_hours(answers, estimates, today)
    current = estimates.get(answers.training.current_strategy)
    ctx["today_hours"] = float(current.hours["mid"][today]) if current is not None else cadence  # not training yet: the plan's pace
    ctx["runs_per_month"] = runs_per_month(answers, cadence)
    columns = _columns(answers, estimates, counts)
    fixed = _powersgd_facts(estimates, ctx) | _fp8_facts(ctx)
    return [_facts_at(answers, estimates, columns, i, ctx, int(c), fixed) for i, c in enumerate(counts)]


def _powersgd_facts(estimates: Mapping[str, StrategyEstimate], ctx: dict[str, Any]) -> dict[str, float]:
    """PowerSGD's rank, compressed share, warm-up steps and error-feedback memory: the model's and the batch's, the same
    at every GPU count, so worked out once per evaluation rather than at each count."""
    psgd = next(s for s in STRATEGIES if spec(s).powersgd_rank)
    rank = spec(psgd).powersgd_rank or 1
    return {"powersgd_rank": float(rank),
            "powersgd_volume_pct": 100.0 * powersgd_volume(ctx["workload"], rank).share,
            "powersgd_warmup_steps": float(powersgd_start_iter(ctx["tokens"] / float(estimates[psgd].batch_tokens[0]))),
            "powersgd_error_feedback_gb": powersgd_bytes(ctx["workload"], rank) / GB}


def _fp8_facts(ctx: dict[str, Any]) -> dict[str, float]:
    """What FP8 would take off this model's compute time, by the recipe each stack runs (workload.fp8_time_factor: the
    linear layers at the recipe's measured speedup, attention unchanged) — the figure the precision rule quotes, so the
    Questions tab and the FP8 what-if read one model (user try 8: 'up to 22%' beside a what-if's 38%)."""
    w = ctx["workload"]
    return {"fp8_linear_share": w.linear_share,
            "fp8_compute_saving_megatron": 1.0 - fp8_time_factor(w, megatron=True),
            # 'up to': torchao's recipes at their best, the weight casts spread over a long micro-batch (fp8_shape_factor)
            "fp8_compute_saving_other": 1.0 - float(fp8_time_factor(w, megatron=False, tokens=1e12))}


def _columns(a: Answers, estimates: dict[str, StrategyEstimate], counts: np.ndarray) -> dict[str, dict[str, list[Any]]]:
    """What the facts read of each strategy's estimate, at every count at once, as Python values."""
    price = a.budget.price_per_gpu_hour
    out = {}
    for s, e in estimates.items():
        hours = e.hours["mid"]
        out[s] = {"hours": hours.tolist(), "cost": cost(hours, price, counts.astype(int)).tolist(), "step": e.step_s["mid"].tolist(),
                  "fits": e.fits.tolist(), "cpu_fits": e.cpu_fits.tolist(), "batch_ok": e.batch_ok.tolist(),
                  "usable": e.usable.tolist(), "memory": e.memory.tolist(), "comm_share": e.communication_share.tolist(),
                  "compute": e.compute_s.tolist(), "gpu_bound_hours": step_hours(e).tolist()}
    return out


def compute_facts(answers: Answers) -> Evaluation:
    """The facts at today's GPU count alone."""
    return evaluate_counts(answers, np.array([float(answers.cluster.gpus)]))[0]


def _facts_at(a: Answers, estimates: dict[str, StrategyEstimate], columns: dict[str, dict[str, list[Any]]], i: int, ctx: dict[str, Any],
              gpus: int, fixed: dict[str, float]) -> Evaluation:
    """Every fact in FACTS at the GPU count ``gpus``, index ``i`` of ``estimates`` and ``columns`` (None where a fact is
    unknown; plan facts stay None until the choice); ``fixed``: the facts that are the same at every count."""
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
        gpu_memory_gb=a.cluster.spec.capacity_gb,
        gpu_generation=a.cluster.spec.generation,
        gpu_fp8=a.cluster.spec.has_fp8,
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
        replicated_states_gb=STATE_BYTES_PER_PARAM * a.model.params / GB,
        state_bytes_per_param=STATE_BYTES_PER_PARAM,
        **finetune_facts(ctx["workload"]),
    )
    f["replicated_states_ratio"] = f["replicated_states_gb"] / f["gpu_memory_gb"]
    w = ctx["workload"]
    f["vocab_size"] = float(w.vocab)
    f["logits_gb"] = float(logits_bytes(w, 1.0, 1.0, 1.0)) / GB  # one sequence at TP1: what no data-parallel sharding splits
    f["logits_share"] = f["logits_gb"] / f["gpu_memory_gb"]
    costs = {}
    for s, col in columns.items():
        hours = col["hours"][i]
        c = col["cost"][i]
        costs[s] = c
        step = col["step"][i]
        f[f"fits.{s}"] = col["fits"][i]
        f[f"cpu_fits.{s}"] = col["cpu_fits"][i]
        f[f"batch_ok.{s}"] = col["batch_ok"][i]
        f[f"memory_gb.{s}"] = col["memory"][i] / GB
        f[f"hours.{s}"] = hours
        f[f"cost.{s}"] = c
        f[f"comm_share.{s}"] = col["comm_share"][i]
        f[f"scaling_efficiency.{s}"] = col["compute"][i] / step if step > 0 else 1.0
    f["current_fits"] = f.get(f"fits.{a.training.current_strategy}")  # None when not training yet
    f["current_memory_gb"] = f.get(f"memory_gb.{a.training.current_strategy}")
    fitting = [s for s in STRATEGIES if columns[s]["usable"][i]]
    f["fitting_count"] = float(len(fitting))
    pool = fitting or list(STRATEGIES)
    best_cost = min(costs[s] for s in pool)
    f["best_cost"] = best_cost
    f["best_hours"] = min(f[f"hours.{s}"] for s in pool)
    f["best_days"] = f["best_hours"] / 24.0
    f["monthly_spend"] = ctx["runs_per_month"] * best_cost
    for s in STRATEGIES:
        f[f"cost_vs_best.{s}"] = costs[s] / best_cost if best_cost > 0 else 1.0
    limit, monthly = judged_limits(a)  # on the range's upper end, as the choice judges them
    f["over_budget"] = limit is not None and best_cost > limit
    f["over_deadline"] = a.training.deadline_days is not None and f["best_days"] > a.training.deadline_days
    f["over_monthly_limit"] = monthly is not None and f["monthly_spend"] > monthly
    f.update(fixed)
    f["zero_memory_saving_pct"] = 100.0 * (1.0 - f["memory_gb.deepspeed-zero2"] / f["memory_gb.ddp"])
    # What the GPUs could consume if loading kept up (hours already include a slow loader's bound).
    gpu_hours = min(columns[s]["gpu_bound_hours"][i] for s in pool)
    tokens_per_sec = ctx["tokens"] / (gpu_hours * 3600.0) if gpu_hours > 0 else 0.0
    f["tokens_per_sec_needed"] = tokens_per_sec
    if a.cluster.data_pipeline_tokens_per_sec is not None and tokens_per_sec > 0:
        f["data_pipeline_ratio"] = a.cluster.data_pipeline_tokens_per_sec / tokens_per_sec
    return Evaluation(answers=a, facts=f, estimates=AtCount(estimates, i), context=ctx, gpus=gpus)
