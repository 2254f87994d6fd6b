"""The post-training pipeline, checkpoints, evaluation runs and serving, as summary rows and a memo section.

Figures come from estimate/posttrain.py at the plan's GPU count and strategy; the answers' own stage is the plan itself
(its time and cost as the summary shows them), the stages before it are priced on the same GPUs.
"""

from __future__ import annotations

from collections.abc import Callable


from msgspec import Struct

from advisor.base.i18n import _
from advisor.base.units import count, data_size, format_number, hours_text, money, money_column, seconds_text
from advisor.decision.report import Report
from advisor.estimate.posttrain import (
    DECODE_SOURCE,
    CheckpointPlan,
    checkpoint_plan,
    evaluation_hours,
    post_training_facts,
    serving_gpus,
    stage_name,
    vllm_tensor_parallel,
)
from advisor.estimate.stages import StagePrice, stages_before
from advisor.estimate.workload import workload_from
from advisor.inputs.answers import Answers


class Extras(Struct, frozen=True):
    """Everything this module adds to a report, computed once."""

    stages: list[StagePrice]
    checkpoints: CheckpointPlan | None
    evaluation_hours: float | None
    serving: tuple[int, float] | None
    facts: dict[str, object]
    vllm_tp: int


def extras(d: Report, a: Answers) -> Extras | None:
    """None when the answers ask for nothing this module prices (a single-stage run with no operations section)."""
    t = a.training
    if not t.stages_before and a.operations is None and not post_training_facts(a, workload_from(a)):
        return None
    r, e = d.recommendation, d.estimate
    w = workload_from(a)
    before = stages_before(a, r.strategy, r.gpus)
    # The plan's time and cost are the pipeline's (estimate.model._add_stages_before): its own stage is what is left.
    own = StagePrice(name=stage_name(t.method), method=t.method, strategy=r.strategy, gpus=r.gpus,
                     hours=e.wall_clock_hours - sum(s.hours for s in before), cost=e.cost - sum(s.cost for s in before), fits=e.fits)
    stages = before + [own]
    total_h = sum(s.hours for s in stages)
    ckpt = checkpoint_plan(a, w, total_h, r.gpus) if a.operations is not None else None
    return Extras(stages=stages, checkpoints=ckpt, evaluation_hours=evaluation_hours(a, w, r.gpus), serving=serving_gpus(a, w),
                  facts=post_training_facts(a, w), vllm_tp=vllm_tensor_parallel(w, a.cluster.spec, a.cluster.gpus_per_node))


def summary_rows(d: Report, a: Answers) -> list[tuple[str, str, str]]:
    """(what, today, recommended) rows: each stage and the total when there are several, then checkpoints and serving."""
    x = extras(d, a)
    if x is None:
        return []
    cur = d.estimate.currency
    rows: list[tuple[str, str, str]] = []
    if len(x.stages) > 1:
        for i, s in enumerate(x.stages, 1):
            said = _("{time}, {cost}", time=hours_text(s.hours), cost=money(s.cost, cur))
            if s.strategy != d.recommendation.strategy:  # the plan's framework cannot run this stage on these GPUs (user try 8)
                said = _("{said} with {strategy}", said=said, strategy=s.strategy)
            rows.append((_("Stage {i}: {name}", i=i, name=s.name), "—", said))
        rows.append((_("Pipeline total ({n} stages)", n=len(x.stages)), "—",
                     _("{time}, {cost}", time=hours_text(sum(s.hours for s in x.stages)), cost=money(sum(s.cost for s in x.stages), cur))))
    if x.checkpoints is not None:
        rows.append((_("Checkpoint storage"), "—", _("{gb} GB", gb=f"{x.checkpoints.storage_gb:,.1f}")))
    if x.serving is not None:
        rows.append((_("Serving (estimate)"), "—", _("{n} GPUs", n=x.serving[0])))
    return rows


def memo_lines(d: Report, a: Answers, cite: Callable[[str], str] | None = None) -> list[str]:
    """The memo's section on the pipeline, the post-training stage's structure, checkpoints, evaluation and serving.
    ``cite`` turns a source into the memo's footnote mark (the source itself sits behind it, not in the PM's text)."""
    x = extras(d, a)
    if x is None:
        return []
    source = _("a published vLLM decode benchmark") + (cite(DECODE_SOURCE) if cite else f" ({DECODE_SOURCE})")
    cur, price, gpus = d.estimate.currency, a.budget.price_per_gpu_hour, d.recommendation.gpus
    out = [_("## Pipeline stages, checkpoints, evaluation and serving"), ""]  # a stage may be continued pre-training (user try 8)
    if len(x.stages) > 1:
        out += [_("| Stage | Method | Framework | Time | Cost |"), "| --- | --- | --- | --- | --- |"]
        *stage_costs, total = money_column([*(s.cost for s in x.stages), sum(s.cost for s in x.stages)], cur)  # one unit
        for i, (s, said) in enumerate(zip(x.stages, stage_costs, strict=True), 1):
            fits = "" if s.fits else _(" (does not fit)")
            out.append(f"| {i}. {s.name} | {stage_name(s.method)} | `{s.strategy}`{fits} | {hours_text(s.hours)} | {said} |")
        out.append(_("| **Total** | | {gpus} GPUs | **{time}** | **{cost}** |", gpus=gpus, time=hours_text(sum(s.hours for s in x.stages)),
                     cost=total))
        out.append("")
    f = x.facts
    if f:
        method = str(f["method"])
        ref = {"policy": _("a frozen reference runs forward on every sample"), "precomputed": _("the reference's log-probabilities are "
               "computed once before training (TRL precompute_ref_log_probs) and the reference is not kept in memory"),
               "none": _("no reference model (no KL term, TRL GRPOConfig beta=0.0)")}[str(f["reference"])]
        out.append(_("- {method}: the policy trains on {tokens} tokens; {ref}; the work of the models beside it adds {extra} to "
                     "the update's compute.", method=stage_name(method), tokens=count(float(f["policy_tokens"])), ref=ref,  # type: ignore[arg-type]
                     extra=f"{(float(f['compute_scale']) - 1.0) * 100:.0f}%"))  # type: ignore[arg-type]
        groups = dict(f.get("groups") or {})  # type: ignore[call-overload]
        if float(f["generated_tokens"]) > 0 and "generation" in groups:  # type: ignore[arg-type]
            out.append(_("- Rollouts: {tokens} generated tokens on {g} GPUs of their own (TRL vllm_mode='server', OpenRLHF's vLLM "
                         "engines) while the others wait, then scoring and updates on the rest, at the decode rate of {source}.",
                         tokens=count(float(f["generated_tokens"])), g=groups["generation"], source=source))  # type: ignore[arg-type]
        elif float(f["generated_tokens"]) > 0:  # type: ignore[arg-type]
            out.append(_("- Rollouts: {tokens} generated tokens with vLLM colocated on the training GPUs (TRL use_vllm=True, "
                         "vllm_mode='colocate', tensor parallel {tp}), at the decode rate of {source}.",
                         tokens=count(float(f["generated_tokens"])), tp=x.vllm_tp, source=source))  # type: ignore[arg-type]
    c = x.checkpoints
    if c is not None:
        # megabytes where a LoRA's adapters are smaller than a gigabyte ('0.0 GB per save'; user try 13), as ask says them
        out.append(_("- Checkpoints: {weights} per save of weights only, {full} with optimizer state (12 bytes per trained "
                     "parameter, ZeRO arXiv:1910.02054); storage to budget {storage}.", weights=data_size(c.weights_gb),
                     full=data_size(c.full_gb), storage=data_size(c.storage_gb)))
        if c.save_seconds is not None and c.every_hours is not None and c.saves is not None:
            how = _("Young's optimum, sqrt(2 × save time × mean time between interruptions)") if c.young else _("as given")
            out.append(_("- Each save takes {seconds} at {gbps} GB/s; a save every {every} ({how}): {saves} saves, {stall} of "
                         "saving.", seconds=seconds_text(c.save_seconds), gbps=format_number(a.operations.storage_gbps or 0),  # type: ignore[union-attr]
                         every=hours_text(c.every_hours), how=how, saves=c.saves,
                         stall=seconds_text(c.saves * c.save_seconds) if c.saves * c.save_seconds < 60 else hours_text(c.saves * c.save_seconds / 3600.0)))
        else:
            out.append(_("- Give operations.storage_gbps for the save time and how often to save."))
    if x.evaluation_hours is not None:
        h = x.evaluation_hours
        out.append(_("- Evaluation runs: {time} on {gpus} GPUs, {cost} (decode rate of {source}).", time=hours_text(h), gpus=gpus,
                     cost=money(h * gpus * price, cur), source=source))
    if x.serving is not None:
        n, need = x.serving
        out.append(_("- Serving (an estimate): {n} × {gpu} to generate {rate} tokens/s at the stated request rate, from the decode "
                     "rate of {source}; {cost} a month at today's price.", n=n, gpu=a.cluster.spec.name, rate=count(need),
                     source=source, cost=money(n * price * 24 * 30, cur)))
    out.append("")
    return out
