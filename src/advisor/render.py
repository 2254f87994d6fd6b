"""Advice as terminal text, JSON, or the markdown decision memo.

Rendering is deterministic (no clock, no locale): the same answers and rules give the same bytes,
which is what makes the golden-file memo tests meaningful.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from .advice import Advice
from .answers import STRATEGIES, Answers
from .estimate import FRAMEWORKS
from .rules import format_number


def money(value: float, currency: str) -> str:
    return f"{value:,.0f} {currency}"


def hours_text(h: float) -> str:
    if h >= 48:
        return f"{h / 24:,.1f} days"
    return f"{h:,.1f} h"


def spread(lo: float, hi: float, fmt, calibrated: bool) -> str:
    """'(range a – b)', or a note that a measured run pins the figure when the band collapses."""
    if abs(hi - lo) <= 1e-9 * max(abs(hi), 1.0):
        return "(calibrated to the measured run)" if calibrated else ""
    return f"(range {fmt(lo)} – {fmt(hi)})"


def to_json(advice: Advice) -> str:
    return json.dumps(advice.to_dict(), indent=2, ensure_ascii=False, default=_jsonable) + "\n"


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot serialise {type(value).__name__}")


# ------------------------------------------------------------------------------ text


def to_text(advice: Advice) -> str:
    d = advice.to_dict()
    r, e = d["recommendation"], d["estimate"]
    cur = e["currency"]
    lines: list[str] = []
    blocked = "  [BLOCKED — see warnings]" if r["blocked"] else ""
    lines.append(f"Recommendation: {r['framework']} ({r['strategy']}){blocked}")
    lines.append("")
    lo, hi = e["range"]["wall_clock_hours"]
    clo, chi = e["range"]["cost"]
    cal = d["scale"]["baseline_hours"] is not None
    lines.append(f"  Time    {hours_text(e['wall_clock_hours'])}  {spread(lo, hi, hours_text, cal)}".rstrip())
    lines.append(f"  Cost    {money(e['cost'], cur)}  {spread(clo, chi, lambda v: money(v, cur), cal)}".rstrip())
    lines.append(f"  GPU-h   {e['gpu_hours']:,.0f}   at {format_number(advice.answers.budget.price_per_gpu_hour)} {cur}/GPU-hour × {advice.answers.cluster.gpus} GPUs")
    lines.append(
        f"  Memory  {e['memory_per_gpu_gb']:,.1f} GB per GPU of {advice.answers.cluster.spec.memory_gb:g} GB "
        f"({'fits' if e['fits'] else 'DOES NOT FIT'}; model states {e['model_states_gb_per_gpu']:,.1f} GB, activations {e['activations_gb_per_gpu']:,.1f} GB)"
    )
    lines.append(
        f"  Comm    {e['communication_share']:.0%} of step time exposed; micro-batch {e['micro_batch_size']}, "
        f"accumulation {e['gradient_accumulation_steps']}, recompute {e['activation_recompute']}"
    )
    c = e["communication"]
    lines.append(
        f"  Traffic {c['intra_node_gb_per_step']:,.1f} GB in-node + {c['inter_node_gb_per_step']:,.1f} GB network per GPU per step: "
        + "; ".join(f"{row['name']} {row['seconds']:.2f} s" for row in c["per_step"])
    )
    if e["tensor_parallel"] > 1 or e["pipeline_parallel"] > 1:
        lines.append(f"  Layout  TP={e['tensor_parallel']} × PP={e['pipeline_parallel']} × DP={e['data_parallel']}")
    lines.extend(f"  Note    {note}" for note in scale_notes(e, advice.answers))
    lines.append("")
    if d["warnings"]:
        _section(lines, "Warnings", [f"  {'BLOCKING: ' if w['blocking'] else '! '}{w['text']}" for w in d["warnings"]])
    _section(lines, "Why", [f"  - {item['text']}  [{item['rule']}; {', '.join(item['source'])}]" for item in r["rationale"]])
    lines.append("Options")
    lines.append(f"  {'strategy':<24} {'fits':<5} {'GB/GPU':>8} {'time':>11} {'cost':>16}  score")
    for row in _rows(d):
        lines.append(
            f"  {row['strategy']:<24} {'yes' if row['fits'] else 'no':<5} {row['memory_per_gpu_gb']:>8,.1f} "
            f"{hours_text(row['wall_clock_hours']):>11} {money(row['cost'], cur):>16}  {format_number(row['score'])}"
            + ("  ← chosen" if row["strategy"] == r["strategy"] else "")
        )
    lines.append("")
    lines.append("Why not")
    lines.extend(f"  {alt['strategy']}: {alt['why_not'][0]}" for alt in d["alternatives"])
    fewer = d["scale"]["fewer_gpus"]
    if fewer:
        lines.append("")
        lines.append(
            f"Scale: {format_number(fewer['gpus'])} GPUs would take {hours_text(fewer['hours'])} for {money(fewer['cost'], cur)} "
            f"({fewer['saving_pct']:.0f}% cheaper with {fewer['strategy']})."
        )
    _section(lines, "Ask the engineers", [f"  ? {q['text']}" for q in d["questions"]])
    _section(lines, "Pre-launch checklist", [f"  [ ] {c['text']}" for c in d["checklist"]])
    lines.append(f"Rules fired: {', '.join(f['id'] for f in d['fired_rules'])}")
    return "\n".join(lines) + "\n"


def scale_notes(e: dict[str, Any], a: Answers) -> list[str]:
    """Batch growth and interruptions for one estimate: what changes when a job is spread over many GPUs."""
    notes = []
    if e["effective_global_batch_tokens"] > 1.05 * a.training.global_batch_tokens:
        notes.append(
            f"{e['data_parallel']:,} data-parallel ranks need at least one {a.model.seq_len:,}-token sequence each, so the global batch "
            f"grows from {a.training.global_batch_tokens:,.0f} to {e['effective_global_batch_tokens']:,.0f} tokens: check that the "
            "learning-rate schedule still converges, or use fewer GPUs or more tensor/pipeline parallelism."
        )
    if e["expected_interruptions"] >= 1:
        notes.append(
            f"Expect about {e['expected_interruptions']:,.0f} interruptions over the run at Llama 3's rate (one per ~50,700 GPU-hours); "
            f"restarts add {e['interruption_overhead']:.1%} to the wall-clock (arXiv:2407.21783)."
        )
    return notes


def _section(lines: list[str], title: str, items: list[str]) -> None:
    """A titled block of the terminal summary, followed by a blank line."""
    lines.append(title)
    lines.extend(items)
    lines.append("")


def _rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """Every strategy's estimate in catalogue order, from the dict ``Advice.to_dict`` already built."""
    rec = d["recommendation"]
    by_strategy = {rec["strategy"]: {"strategy": rec["strategy"], "score": rec["score"], **d["estimate"]}}
    by_strategy.update({alt["strategy"]: alt for alt in d["alternatives"]})
    return [by_strategy[s] for s in STRATEGIES]


# ------------------------------------------------------------------------------ markdown memo


def _md(text: Any) -> str:
    """Escape a table cell: pipes and newlines would break the row (harlequin _MarkdownLayout)."""
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def to_markdown(advice: Advice, artifacts: dict[str, str] | None = None) -> str:
    d = advice.to_dict()
    a = advice.answers
    r, e = d["recommendation"], d["estimate"]
    cur = e["currency"]
    f = advice.facts
    out: list[str] = []
    add = out.append
    add(f"# Decision memo: distributed training for a {format_number(a.model.params / 1e9)}B-parameter model")
    add("")
    add("## Decision")
    add("")
    status = " **Blocked — resolve the blocking warnings first.**" if r["blocked"] else ""
    add(f"Use **{r['framework']}** (`{r['strategy']}`) on {a.cluster.gpus} × {a.cluster.spec.name}.{status}")
    add("")
    lo, hi = e["range"]["wall_clock_hours"]
    clo, chi = e["range"]["cost"]
    cal = d["scale"]["baseline_hours"] is not None
    add(f"- Wall-clock: **{hours_text(e['wall_clock_hours'])}** {spread(lo, hi, hours_text, cal)}".rstrip())
    add(f"- Cost: **{money(e['cost'], cur)}** {spread(clo, chi, lambda v: money(v, cur), cal)}".rstrip())
    add(f"- GPU-hours: {e['gpu_hours']:,.0f}")
    add(f"- Memory per GPU: {e['memory_per_gpu_gb']:,.1f} GB of {a.cluster.spec.memory_gb:g} GB ({'fits' if e['fits'] else '**does not fit**'})")
    add(f"- Communication share of step time: {e['communication_share']:.0%}")
    add("")
    add("The aim is not the most advanced framework but business value at the lowest cost and the steadiest speed (seed:K21).")
    add("")
    if d["warnings"]:
        add("### Warnings")
        add("")
        for w in d["warnings"]:
            add(f"- {'**Blocking:** ' if w['blocking'] else ''}{w['text']} _({w['rule']}; {w['source']})_")
        add("")
    add("## Context")
    add("")
    add("| Question | Answer |")
    add("| --- | --- |")
    tokens = f"{d['scale']['tokens'] / 1e9:,.1f}B" + (" (implied by the known duration)" if d["scale"]["tokens_implied"] else "")
    rows = [
        ("Model", f"{format_number(a.model.params / 1e9)}B parameters" + (f", {format_number(a.model.active_params / 1e9)}B active" if a.model.active_params else "")),
        ("Shape", f"{d['shape']['layers']} layers, hidden {d['shape']['hidden_size']}, {d['shape']['attention_heads']} heads, seq {a.model.seq_len}"),
        ("Training tokens", tokens),
        ("Known run duration", hours_text(d["scale"]["baseline_hours"]) + f" with {a.training.current_strategy}" if d["scale"]["baseline_hours"] else "not given"),
        ("Cluster", f"{a.cluster.gpus} × {a.cluster.spec.name}, {a.cluster.gpus_per_node} per node, {a.cluster.nodes} node(s)"),
        ("Links", f"{advice.evaluation.context['hardware'].intra_link} inside a node, {a.cluster.inter_node_gbps:g} Gbit/s per node"),
        ("Price", f"{format_number(a.budget.price_per_gpu_hour)} {cur} per GPU-hour"),
        ("Budget", (money(a.budget.limit, cur) if a.budget.limit else "no run limit") + (f"; {money(a.budget.monthly_limit, cur)} a month" if a.budget.monthly_limit else "")),
        ("Deadline", f"{format_number(a.training.deadline_days)} days" if a.training.deadline_days else "none given"),
        ("Team / stage", f"{a.team.experience} experience, {a.project.stage} stage"),
        ("Shared cluster", "yes" if a.cluster.multi_tenant else "no"),
    ]
    for k, v in rows:
        add(f"| {_md(k)} | {_md(v)} |")
    add("")
    add("## Estimate")
    add("")
    add("Cost = training time × price per GPU-hour × number of GPUs (seed:K14):")
    add("")
    add(f"    {e['wall_clock_hours']:,.1f} h × {format_number(a.budget.price_per_gpu_hour)} {cur} × {a.cluster.gpus} GPUs = {money(e['cost'], cur)}")
    add("")
    w = advice.evaluation.context["workload"]
    add(
        f"Time comes from compute = (6 × {format_number(w.active_params)} params + 12 × {w.shape.layers} layers × {w.shape.hidden} hidden "
        f"× {w.seq_len} seq) FLOPs per token × tokens ÷ ({a.cluster.gpus} GPUs × {a.cluster.spec.peak_tflops:g} TFLOP/s × MFU), "
        f"plus communication that cannot overlap it (ring all-reduce 2(n−1)/n × S/B over each link). One step of "
        f"{e['effective_global_batch_tokens']:,.0f} tokens takes {e['step_seconds']:.2f} s "
        f"({e['compute_seconds_per_step']:.2f} s compute, {e['communication_seconds_per_step']:.2f} s of communication before overlap, "
        f"{e['exposed_communication_seconds_per_step']:.2f} s of it exposed), {e['steps']:,.0f} steps; "
        f"restarts after interruptions add {e['interruption_overhead']:.1%}."
    )
    add("")
    for note in scale_notes(e, a):
        add(f"- {note}")
        add("")
    _communication_table(add, e)
    _deepspeed_table(add, {row["strategy"]: row for row in _rows(d)})
    add(
        f"A day of this cluster costs {money(e['cost_per_day'], cur)}; making the run 20% faster would save "
        f"{money(e['savings_if_20pct_faster'], cur)} (seed:K16)."
    )
    add("")
    add(f"Memory convention: {e['memory_convention']}.")
    add("")
    add("## Options considered")
    add("")
    add("| Strategy | Framework | Fits | GB per GPU | Time | Cost | Comm. share | Score | Why not |")
    add("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for est in _rows(d):
        s = est["strategy"]
        why = "**chosen**" if s == r["strategy"] else "; ".join(est["why_not"])
        add(
            f"| `{s}` | {_md(FRAMEWORKS[s])} | {'yes' if est['fits'] else 'no'} | {est['memory_per_gpu_gb']:,.1f} | "
            f"{hours_text(est['wall_clock_hours'])} | {money(est['cost'], cur)} | {est['communication_share']:.0%} | "
            f"{format_number(est['score'])} | {_md(why)} |"
        )
    add("")
    fewer = d["scale"]["fewer_gpus"]
    if fewer:
        add(
            f"Scale check (seed:K11): {format_number(fewer['gpus'])} GPUs with `{fewer['strategy']}` would take {hours_text(fewer['hours'])} "
            f"for {money(fewer['cost'], cur)}, {fewer['saving_pct']:.0f}% cheaper than {a.cluster.gpus} GPUs."
        )
        add("")
    _what_if(add, advice)
    add("## Rationale")
    add("")
    for item in r["rationale"]:
        add(f"- {item['text']} _({item['rule']}; {', '.join(item['source'])})_")
    add("")
    add("## Trade-offs")
    add("")
    add(
        "No framework is best everywhere: optimising communication costs compute, and saving memory can cost speed; "
        "the right choice depends on cluster scale and network bandwidth (seed:K10)."
    )
    add("")
    add(f"- Exposed communication for `{r['strategy']}`: {e['communication_share']:.0%} of each step (seed:K3).")
    add(f"- Activation recomputation: `{e['activation_recompute']}`; micro-batch {e['micro_batch_size']} (largest that fits: {e['max_micro_batch_size']}), gradient accumulation {e['gradient_accumulation_steps']} (seed:K17).")
    add(f"- ZeRO-2 would use {f['zero_memory_saving_pct']:.0f}% less GPU memory than DDP on this job (seed:K15).")
    add("")
    add("## Questions for the engineers")
    add("")
    for q in d["questions"]:
        add(f"- {q['text']} _({q['source']})_")
    add("")
    add("## Pre-launch checklist")
    add("")
    for c in d["checklist"]:
        add(f"- [ ] {c['text']} _({c['source']})_")
    add("")
    if artifacts:
        add("## Launch artifacts")
        add("")
        for name, desc in artifacts.items():
            add(f"- [`{name}`]({name}) — {desc}")
        add("")
    add("## Rules that fired")
    add("")
    add("| Rule | Title | Source |")
    add("| --- | --- | --- |")
    for fr in d["fired_rules"]:
        add(f"| `{fr['id']}` | {_md(fr['title'])} | {_md(', '.join(fr['source']))} |")
    add("")
    add("## Assumptions")
    add("")
    for item in d["assumptions"]:
        add(f"- {item}")
    add("")
    add("## Appendix: answers")
    add("")
    add("```yaml")
    add(yaml.safe_dump(d["answers"], sort_keys=False, allow_unicode=True).rstrip())
    add("```")
    return "\n".join(out) + "\n"


def _communication_table(add, e: dict[str, Any]) -> None:
    """Per-step traffic of the chosen strategy, per GPU, by collective and link (JSON: estimate.communication)."""
    c = e["communication"]
    if not c["per_step"]:
        add("No communication: one GPU.")
        add("")
        return
    add(f"Communication per optimizer step, per GPU ({e['communication_share']:.0%} of the step exposed):")
    add("")
    add("| Collective | Kind | Payload (GB) | Calls | In-node (GB) | Network (GB) | Seconds | Hides behind |")
    add("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in c["per_step"]:
        add(
            f"| {_md(row['name'])} | {row['collective']} | {row['payload_gb']:,.3f} | {row['calls_per_step']:,.0f} | "
            f"{row['intra_node_gb']:,.2f} | {row['inter_node_gb']:,.2f} | {row['seconds']:.3f} | {row['overlaps_with']} |"
        )
    add("")


def _deepspeed_table(add, estimates: dict[str, dict[str, Any]]) -> None:
    """DeepSpeed's own model-state estimate for ZeRO-2 and ZeRO-3, every offload option (GiB, as DeepSpeed prints)."""
    add(
        "DeepSpeed's own model-state estimator for this job (estimate_zero2/zero3_model_states_mem_needs; "
        "model states only, activations come on top; CPU figures include DeepSpeed's 1.5 buffer factor):"
    )
    add("")
    add("| Stage | Options | per GPU (GiB) | per CPU node (GiB) |")
    add("| --- | --- | --- | --- |")
    for strategy, stage in (("deepspeed-zero2", "ZeRO-2"), ("deepspeed-zero3", "ZeRO-3")):
        for row in estimates[strategy]["deepspeed_estimator"]:
            add(f"| {stage} | {row['options']} | {row['gpu_gib']:,.2f} | {row['cpu_gib_per_node']:,.2f} |")
    add("")


def what_if_counts(gpus: int, per_node: int) -> list[float]:
    """GPU counts for the memo's what-if table: one node, doubling up to 4x the planned count, and the count itself."""
    counts = {float(gpus)}
    c = per_node
    while c <= 4 * gpus:
        counts.add(float(c))
        c *= 2
    return sorted(counts)


def _what_if(add, advice: Advice) -> None:
    """The memo's sweep: the best feasible strategy per GPU count, cheapest and fastest marked (advisor sweep)."""
    import numpy as np

    from .sweep import sweep, sweep_text

    a = advice.answers
    counts = np.asarray(what_if_counts(a.cluster.gpus, a.cluster.gpus_per_node))
    sw = sweep(a, counts)
    add("## What if: other GPU counts")
    add("")
    add(f"The same job on other GPU counts (whole nodes of {a.cluster.gpus_per_node}); `advisor sweep` prices any range.")
    add("")
    add(sweep_text(sw, rows=len(counts), markdown=True).rstrip())
    add("")
