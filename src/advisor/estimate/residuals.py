"""The stated range: how far published runs of this kind came in from what this model predicts for them.

The figure is measured, not assumed: bench/heldout.py --write-residuals prices every published row in bench/ (throughput
benchmarks at their published layouts, full runs' GPU-hours, fine-tunes' step times) and stores, per kind of job, the
80th percentile of |log(modelled / published)| in data/residuals.yaml. A plan's range is its point estimate divided and
multiplied by exp(that), and a deadline and the budgets are judged on the upper end (issue 32), not the point.
"""

from __future__ import annotations

import math
from functools import lru_cache

from msgspec import Struct

from advisor.inputs.answers import Answers
from advisor.knowledge.gpurows import data_file


class StatedRange(Struct, frozen=True):
    """Published runs of ``kind`` came in within ±``within`` (a fraction) of the model, for ``quantile`` of ``runs`` rows."""

    kind: str
    within: float
    runs: int
    quantile: float

    @property
    def factor(self) -> float:
        """The range's upper end as a multiple of the point estimate (its lower end divides by it)."""
        return 1.0 + self.within


@lru_cache(maxsize=1)
def _residuals() -> dict[str, StatedRange]:
    raw = data_file("residuals.yaml")
    q = float(raw["quantile"])
    return {kind: StatedRange(kind, math.expm1(float(row["abs_log_error"])), int(row["runs"]), q) for kind, row in raw["kinds"].items()}


def job_kind(answers: Answers) -> str:
    """The kinds bench/ measures separately: 'finetune' for fine-tunes (full, LoRA, QLoRA), 'moe' for pre-training a
    mixture of experts (fewer parameters active per token than held: its published runs land far wider of the model
    than dense ones), else 'pretrain'."""
    if answers.training.method != "pretrain":
        return "finetune"
    m = answers.model
    return "moe" if m.active_params is not None and m.active_params < m.params else "pretrain"


def stated_range(answers: Answers) -> StatedRange | None:
    """The measured range for this job's kind; None where a known duration or a measured step calibrates the estimate
    (its error is then the measurement's, not the model's)."""
    t = answers.training
    if t.baseline_hours is not None or t.measured is not None:
        return None
    return _residuals().get(job_kind(answers))


def stated_bounds(answers: Answers, low: float, mid: float, high: float) -> tuple[float, float]:
    """A figure's range as every output states it: the point divided and multiplied by the measured range where there is
    one (stated_range), else the efficiency bands' own low and high (a calibrated estimate: they collapse onto the
    measurement). The memo's 'reserve up to', the summary's range and Slurm's time limit all read it (a 30B MoE's
    job.sbatch had asked for the bands' 339 h where the memo asked to reserve 382)."""
    r = stated_range(answers)
    return (mid / r.factor, mid * r.factor) if r else (low, high)


def upper_factor(answers: Answers) -> float:
    """The stated range's upper end as a multiple of the point estimate, 1 where a measurement calibrates it: what the
    deadline and the budgets are judged on, and what a figure 'at the range's upper end' is multiplied by."""
    r = stated_range(answers)
    return r.factor if r else 1.0


def deadline_hours(answers: Answers) -> float | None:
    """The deadline in hours as the point estimate must meet it: the deadline divided by the range's upper end, so a plan
    is said to meet it only where published runs of this kind would have (None without a deadline)."""
    days = answers.training.deadline_days
    if days is None:
        return None
    return days * 24.0 / upper_factor(answers)


def judged_limits(answers: Answers) -> tuple[float | None, float | None]:
    """The run budget and the monthly ceiling as the point estimate must meet them: each divided by the range's upper end,
    as the deadline is (deadline_hours). 'Run budget 600 元: within' stood beside 'cost 584 元 (range 440-775 元)'
    (user try 9): a plan is within a budget only where published runs of this kind would have been."""
    f = upper_factor(answers)
    limit, monthly = answers.budget.limit, answers.budget.monthly_limit
    return (None if limit is None else limit / f), (None if monthly is None else monthly / f)
