"""A pipeline's stages priced on the plan's GPUs (issue 35): each stage is the same job with its own method, estimated by
the model. Apart from estimate/posttrain.py, which the model itself calls, so that the two import one way only."""

from __future__ import annotations

import numpy as np
from msgspec import Struct

from advisor.estimate.model import cost, estimate_all
from advisor.estimate.posttrain import rollout_hours, stage_name
from advisor.inputs.answers import Answers, TrainingSection


class StagePrice(Struct, frozen=True):
    name: str
    method: str
    strategy: str
    gpus: int
    hours: float
    cost: float
    fits: bool
    rollout_hours: float = 0.0


def price_stage(answers: Answers, training: TrainingSection, strategy: str, gpus: int, name: str) -> StagePrice:
    """One stage on the plan's GPUs: with the plan's strategy where it fits, else the fastest strategy that fits there."""
    variant = answers.model_copy(update={"training": training.model_copy(update={"stages_before": None})})  # this stage alone
    counts = np.asarray([float(gpus)])
    results, ctx = estimate_all(variant, counts)
    usable = {s: e for s, e in results.items() if bool(e.usable[0])}
    chosen = strategy if strategy in usable else (min(usable, key=lambda s: float(usable[s].hours["mid"][0])) if usable else strategy)
    hours = float(results[chosen].hours["mid"][0])
    gen = float(rollout_hours(variant, ctx["workload"], ctx["hardware"], counts)[0] * results[chosen].wallclock_factor[0])
    return StagePrice(name=name, method=training.method, strategy=chosen, gpus=gpus, hours=hours,
                      cost=float(cost(hours, answers.budget.price_per_gpu_hour, gpus)), fits=chosen in usable, rollout_hours=gen)


def stages_before(answers: Answers, strategy: str, gpus: int) -> list[StagePrice]:
    """The stages before the answers' own (training.stages_before), each priced on the plan's GPUs: what the memo's stage
    table, job.sbatch's time and the launch README read."""
    t = answers.training
    return [price_stage(answers, s.training(t.precision), strategy, gpus, s.name or stage_name(s.method)) for s in t.stages_before or ()]
