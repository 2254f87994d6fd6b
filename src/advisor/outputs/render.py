"""Advice as terminal text, JSON, or the markdown decision memo.

Rendering is deterministic (no clock, no locale): the same answers and rules give the same bytes,
which is what makes the golden-file memo tests meaningful.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping, Sequence

import yaml

from advisor.decision.deployment import layout_lines
from advisor.decision.advice import Advice, hours_text, method_names, money, pct_change
from advisor.decision.decide import COST_TIE, Option, preference, tie_band
from advisor.inputs.answers import STRATEGIES, Answers
from advisor.estimate import BATCH_NOT_GIVEN
from advisor.knowledge.strategies import FRAMEWORKS
from advisor.base.i18n import N_, _, pad

ANSWER_WORDS = (N_("none"), N_("some"), N_("expert"), N_("mvp"), N_("stable"), N_("frontier"))
"""Answer values the memo shows in words (team experience, project stage): marked so the catalog has them."""
from advisor.knowledge.rules import format_number

if TYPE_CHECKING:  # the report's ~20 pydantic models: built only where a renderer reads a report (issue 20)
    from advisor.decision.report import Alternative, Estimate, MethodReport, Report


def spread(lo: float, hi: float, fmt, calibrated: bool) -> str:
    """'(range a – b)', or a note that a measured run pins the figure when the band collapses."""
    if abs(hi - lo) <= 1e-9 * max(abs(hi), 1.0):
        return _("(calibrated to the measured run)") if calibrated else ""
    return _("(range {low} – {high})", low=fmt(lo), high=fmt(hi))


def to_json(advice: Advice) -> str:
    # allow_nan=False: JSON never holds NaN or Infinity (inputs are bounded so results stay finite).
    return json.dumps(advice.to_dict(), indent=2, ensure_ascii=False, default=_jsonable, allow_nan=False) + "\n"


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot serialise {type(value).__name__}")


# ------------------------------------------------------------------------------ the decision in business terms


def headline(advice: Advice) -> str:
    """The decision in one sentence: what changes against today (text, memo and TUI all show this one)."""
    p, a = advice.plan, advice.answers
    fw = FRAMEWORKS[p.chosen.strategy]
    if any(w["blocking"] for w in advice.warnings):
        return _("Blocked: nothing can run as asked (showing {fw} on {gpus} GPUs); resolve the blocking warnings first.", fw=fw, gpus=p.chosen.gpus)
    if advice.method_changed:
        names = method_names()
        return _("Fine-tune with {method} instead of a {asked}: {fw} on {gpus} GPUs.", method=names[advice.method],
                 asked=names[advice.asked_method or ""], fw=fw, gpus=p.chosen.gpus)
    if p.status_quo:
        return _("No change needed: keep {fw} on {gpus} GPUs.", fw=fw, gpus=p.chosen.gpus)
    if p.keeps_strategy:
        return _("Keep {fw}; run on {gpus} GPUs instead of {today}.", fw=fw, gpus=p.chosen.gpus, today=p.today.gpus)
    where = (_("on the same {gpus} GPUs", gpus=p.chosen.gpus) if p.chosen.gpus == p.today.gpus
             else _("on {gpus} GPUs instead of {today}", gpus=p.chosen.gpus, today=p.today.gpus))
    return _("Switch from {old} to {fw}, {where}.", old=FRAMEWORKS[a.training.current_strategy], fw=fw, where=where)


def summary_rows(advice: Advice, d: Report, user_text: Callable[[str], str] = str) -> list[tuple[str, str, str]]:
    """(what, today, recommended) rows of the executive summary, from the report ``advice.report()`` already built;
    ``user_text`` escapes what the user typed (the memo's markdown escaping)."""
    t, e, a = d.today, d.estimate, advice.answers
    gpu = user_text(a.cluster.spec.name)
    cur = e.currency
    p = advice.plan
    runs = p.runs_per_month
    today_runs = t.fits and t.batch_ok
    measured = d.scale.baseline_hours is not None
    t_time, e_time = _same_unit(t.wall_clock_hours, e.wall_clock_hours)
    if not today_runs and not measured:
        t_time = _("cannot run")
    cannot = _("cannot run")
    yes, no = _("yes"), _("no")
    n_runs = round(runs, 1)
    rows = [
        (_("Framework"), FRAMEWORKS[t.strategy], FRAMEWORKS[d.recommendation.strategy]),
        (_("GPUs"), f"{t.gpus:,} × {gpu}", f"{advice.gpus:,} × {gpu}"),
        (_("Fits in GPU memory"), yes if today_runs else no, yes if e.fits and e.batch_ok else no),
    ]
    if d.method is not None and d.method.asked != "pretrain":
        # Fine-tunes only, fourth (the TUI's headline box shows the rows from the fourth on).
        rows.append((_("Method"), method_names()[d.method.asked], method_text(d.method)))
    rows += [
        (_("Time per run (today: measured)") if measured else _("Time per run"), t_time, e_time),
        (_("Cost per run"), money(t.cost, cur) if today_runs or measured else cannot, money(e.cost, cur)),
        (_("Per month (1 run)") if n_runs == 1 else _("Per month ({n} runs)", n=format_number(n_runs)),
         money(p.today.monthly, cur) if today_runs or measured else cannot, money(p.chosen.monthly, cur)),
    ]
    known = today_runs or measured

    def today(text: str) -> str:
        return text if known else "—"

    if a.budget.monthly_limit:
        lim = a.budget.monthly_limit
        rows.append((_("Monthly ceiling {amount}", amount=money(lim, cur)), today(_within(p.today.monthly <= lim)), _within(p.chosen.monthly <= lim)))
    if a.budget.limit:
        rows.append((_("Run budget {amount}", amount=money(a.budget.limit, cur)), today(_within(p.today.cost <= a.budget.limit)),
                     _within(p.chosen.cost <= a.budget.limit)))
    if a.training.deadline_days is not None:
        met, missed = _("met"), _("missed")
        rows.append((_("Deadline {n} days", n=format_number(a.training.deadline_days)), today(met if p.today.meets_deadline else missed),
                     met if p.chosen.meets_deadline else missed))
    return rows


def method_text(m: MethodReport) -> str:
    """'LoRA (rank 8 on qv, 4.2M adapter parameters)', or the method's name."""
    name = method_names()[m.planned]
    if m.lora_rank is None or m.adapter_params is None:
        return name
    return _("{name} (rank {rank} on {targets}, {n}M adapter parameters)", name=name, rank=m.lora_rank, targets=m.lora_targets,
             n=f"{m.adapter_params / 1e6:,.1f}")


def data_note(advice: Advice) -> str | None:
    """'Data: 200,000 examples x 512 tokens x 3 epochs = 307.2M tokens.' when the answers count examples."""
    t = advice.answers.training
    if t.examples is None or t.tokens_per_example is None:
        return None
    epochs = t.epochs if t.epochs is not None else 1.0
    return _("Data: {examples} examples × {per} tokens × {epochs} epochs = {tokens}M tokens.", examples=f"{t.examples:,.0f}",
             per=f"{t.tokens_per_example:,}", epochs=format_number(epochs), tokens=f"{(t.data_tokens or 0) / 1e6:,.1f}")


def _same_unit(a: float, b: float) -> tuple[str, str]:
    """Two durations side by side in one unit: days when either is two days or more."""
    if max(a, b) >= 48:
        return _("{n} days", n=f"{a / 24:,.1f}"), _("{n} days", n=f"{b / 24:,.1f}")
    return _("{n} h", n=f"{a:,.1f}"), _("{n} h", n=f"{b:,.1f}")


def _within(ok: bool) -> str:
    return _("within") if ok else _("over")


def summary_notes(advice: Advice) -> list[str]:
    """The deadline verdict, the cheapest way to meet it, what cheaper would cost in time, and the top risks."""
    out = decision_notes(advice)
    for w in advice.warnings[:3]:
        out.append((_("Blocking: ") if w["blocking"] else _("Risk: ")) + w["text"])
    return out


def decision_notes(advice: Advice) -> list[str]:
    """How the choice was made and the trade-offs around it (deadline, cheaper-but-slower, faster-for-the-same-cost):
    the summary's notes without the risks, which the TUI shows in its own warnings panel."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    out = [_("How it was chosen: {objective}.", objective=p.objective)]
    data = data_note(advice)
    if data:
        out.append(data)
    dl = a.training.deadline_days
    if dl is not None:
        cm = p.cheapest_meeting_deadline
        if cm is None:
            fastest = p.fastest
            tail = (_(": the fastest option, {strategy} on {gpus} GPUs, takes {time} for {cost} a run.", strategy=fastest.strategy,
                      gpus=fastest.gpus, time=hours_text(fastest.hours), cost=money(fastest.cost, cur))
                    if fastest and not p.what_it_takes else ".")
            out.append(_("The {days}-day deadline cannot be met with up to {most} GPUs{tail}", days=format_number(dl),
                         most=f"{max(o.gpus for o in p.options):,}", tail=tail))
        elif cm.cost < p.chosen.cost * (1 - COST_TIE):
            out.append(_("Cheapest way to meet the {days}-day deadline: {strategy} on {gpus} GPUs, {time} for {cost} a run.",
                         days=format_number(dl), strategy=cm.strategy, gpus=cm.gpus, time=hours_text(cm.hours), cost=money(cm.cost, cur)))
        elif cm.gpus != p.chosen.gpus:
            # Within the tie: say why the cheapest is not the plan, instead of naming it 'cheapest' beside another choice.
            out.append(_("{strategy} on {gpus} GPUs also meets the {days}-day deadline, for {cost} a run ({change}): costs within 5% are a "
                         "tie here, and the smaller change from today wins it.", strategy=cm.strategy, gpus=cm.gpus,
                         days=format_number(dl), cost=money(cm.cost, cur), change=pct_change(cm.cost, p.chosen.cost)))
    out.extend(what_it_takes_notes(advice))
    if p.cheaper_slower is not None:
        c = p.cheaper_slower
        slow, fast = _same_unit(c.hours, p.chosen.hours)
        out.append(_("Cheaper but slower: {gpus} GPUs with {strategy} cost {cost} a run ({change}) and take {slow} instead of {fast}.",
                     gpus=c.gpus, strategy=c.strategy, cost=money(c.cost, cur), change=pct_change(c.cost, p.chosen.cost), slow=slow, fast=fast))
    if p.faster_same_cost is not None:
        f = p.faster_same_cost
        quick, slow = _same_unit(f.hours, p.chosen.hours)
        out.append(_("Faster for no more per run: {gpus} GPUs with {strategy} take {quick} instead of {slow}, for {cost} a run ({change}), "
                     "if the cluster can give them.", gpus=f"{f.gpus:,}", strategy=f.strategy, quick=quick, slow=slow, cost=money(f.cost, cur),
                     change=pct_change(f.cost, p.chosen.cost)))
    return out


def what_it_takes_notes(advice: Advice) -> list[str]:
    """The smallest changes that meet what the plan misses (takes.what_it_takes), worded for the PM."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    out = []
    for c in p.what_it_takes:
        plan = _("{strategy} on {gpus} GPUs, {time} for {cost} a run", strategy=c.strategy, gpus=f"{c.gpus:,}", time=hours_text(c.hours),
                 cost=money(c.cost, cur))
        if c.kind == "more-gpus":
            most = max(o.gpus for o in p.options)
            out.append(_("What it takes to meet the {days}-day deadline: {gpus} GPUs, {more} more than the {most} searched ({plan}).",
                         days=format_number(a.training.deadline_days or 0), gpus=f"{c.gpus:,}", more=f"{c.gpus - most:,}",
                         most=f"{most:,}", plan=plan))
        elif c.kind == "later-date":
            out.append(_("Or move the date: the fastest option within reach needs {days} days ({plan}).", days=f"{c.target:,.1f}", plan=plan))
        elif c.kind == "bigger-budget":
            out.append(_("What it takes within the run budget of {limit}: a budget of {cost} ({plan}).",
                         limit=money(a.budget.limit or 0, cur), cost=money(c.target, cur), plan=plan))
        else:
            out.append(_("What it takes within the monthly ceiling of {limit}: {cost} a month at {runs} runs ({plan}).",
                         limit=money(a.budget.monthly_limit or 0, cur), cost=money(c.target, cur), runs=f"{p.runs_per_month:,.1f}",
                         plan=plan))
    return out


@dataclass(frozen=True)
class WhatIfRow:
    gpus: int
    option: Option | None
    note: str


def what_if_rows(advice: Advice) -> list[WhatIfRow]:
    """The best runnable option at the allocations clusters hand out (1, 2, 3, 4, 6, 8 … nodes), today's count, the
    choice's and the cheapest meeting the deadline: the search prices more counts than a table should show (issue 20)."""
    from advisor.decision.search import ladder_counts

    p = advice.plan
    rows: list[WhatIfRow] = []
    shown = ladder_counts(advice.answers) | {p.today.gpus, p.chosen.gpus}
    if p.cheapest_meeting_deadline is not None:
        shown.add(p.cheapest_meeting_deadline.gpus)
    for g in sorted({o.gpus for o in p.options} & shown):
        here = [o for o in p.options if o.gpus == g and o.runnable]
        if not here:
            rows.append(WhatIfRow(g, None, _("nothing fits")))
            continue
        ok = [o for o in here if o.meets_deadline is not False] or here
        if g == p.chosen.gpus and p.chosen in ok:
            best = p.chosen
        else:
            best = min(tie_band(ok), key=preference(p.today.strategy, g))
        notes = []
        if g == p.today.gpus:
            notes.append(_("today"))
        if g == p.chosen.gpus:
            notes.append(_("chosen ({strategy})", strategy=p.chosen.strategy))
        if p.cheapest_meeting_deadline and g == p.cheapest_meeting_deadline.gpus and (g != p.chosen.gpus):
            notes.append(_("cheapest meeting the deadline"))
        rows.append(WhatIfRow(g, best, ", ".join(notes)))
    return rows


def what_if_charts(advice: Advice, what_if: list[WhatIfRow]) -> list[str]:
    """The what-if table as two Mermaid xychart-beta charts GitHub renders (time, then cost, against GPU count), the
    deadline and the run budget drawn as flat lines, today's count and the plan's labelled on the x axis. Nothing
    where fewer than two counts run."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    rows = [wi for wi in what_if if wi.option is not None]
    if len(rows) < 2:
        return []

    def label(g: int) -> str:
        tags = [t for t, hit in ((_("today"), g == p.today.gpus), (_("plan"), g == p.chosen.gpus)) if hit]
        return f"{g:,}" + (f" ({', '.join(tags)})" if tags else "")

    def chart(title: str, unit: str, values: list[float], limit: float | None, limit_name: str) -> list[str]:
        top = max(values + ([limit] if limit is not None else []))
        lines = ["```mermaid", "xychart-beta", f'    title "{title}"',
                 "    x-axis [" + ", ".join(f'"{label(wi.gpus)}"' for wi in rows) + "]",
                 f'    y-axis "{unit}" 0 --> {_axis_top(top)}',
                 "    line [" + ", ".join(_plain(v) for v in values) + "]"]
        if limit is not None:
            lines.append("    line [" + ", ".join(_plain(limit) for _ in rows) + "]")
        lines += ["```", ""]
        caption = _("Line: the best option at each GPU count (the table above).")
        if limit is not None:
            caption += " " + _("Flat line: {what}.", what=limit_name)
        return lines + [caption, ""]

    days = [wi.option.hours / 24.0 for wi in rows if wi.option]
    costs = [wi.option.cost for wi in rows if wi.option]
    out = chart(_("Time per run (days) by GPU count"), _("days"), days, a.training.deadline_days,
                _("the {days}-day deadline", days=format_number(a.training.deadline_days or 0)))
    out += chart(_("Cost per run ({currency}) by GPU count", currency=cur), cur, costs, a.budget.limit,
                 _("the run budget of {limit}", limit=money(a.budget.limit or 0, cur)))
    return out


def _plain(v: float) -> str:
    """A number as Mermaid's xychart grammar reads it: plain decimals, never an exponent."""
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3f}".rstrip("0").rstrip(".")


def _axis_top(value: float) -> str:
    """A round axis top just above ``value`` (1, 2 or 5 x a power of ten)."""
    if value <= 0:
        return "1"
    mag = 10 ** math.floor(math.log10(value))
    for m in (1, 2, 5, 10):
        if value <= m * mag:
            return _plain(m * mag)
    return _plain(10 * mag)


# ------------------------------------------------------------------------------ text


def to_text(advice: Advice) -> str:
    d = advice.report()
    r, e = d.recommendation, d.estimate
    cur = e.currency
    lines: list[str] = [_("Decision: {headline}", headline=headline(advice)), ""]
    for what, today, rec in summary_rows(advice, d):
        lines.append(f"  {pad(what, 34)} {pad(today, 28, right=True)}  →  {rec}")
    lines.append("")
    lines.extend(f"  {note}" for note in summary_notes(advice))
    lines.append("")
    blocked = _("  [BLOCKED — see warnings]") if r.blocked else ""
    lines.append(_("Recommendation: {framework} ({strategy}) on {gpus} GPUs{blocked}", framework=r.framework, strategy=r.strategy,
                   gpus=advice.gpus, blocked=blocked))
    lines.append("")
    lo, hi = e.range.wall_clock_hours
    clo, chi = e.range.cost
    cal = d.scale.baseline_hours is not None
    lines.append((_("  Time    ") + f"{hours_text(e.wall_clock_hours)}  {spread(lo, hi, hours_text, cal)}").rstrip())
    lines.append((_("  Cost    ") + f"{money(e.cost, cur)}  {spread(clo, chi, lambda v: money(v, cur), cal)}").rstrip())
    lines.append(_("  GPU-h   {hours}   at {price} {currency}/GPU-hour × {gpus} GPUs", hours=f"{e.gpu_hours:,.0f}",
                   price=format_number(advice.answers.budget.price_per_gpu_hour), currency=cur, gpus=advice.gpus))
    lines.append(_("  Memory  {need} GB per GPU of {has} GB ({fits}; model states {states} GB, activations {acts} GB)",
                   need=f"{e.memory_per_gpu_gb:,.1f}", has=f"{advice.answers.cluster.spec.memory_gb:g}",
                   fits=_("fits") if e.fits else _("DOES NOT FIT"), states=f"{e.model_states_gb_per_gpu:,.1f}",
                   acts=f"{e.activations_gb_per_gpu:,.1f}"))
    lines.append(_("  Comm    {share} of step time exposed; micro-batch {micro}, accumulation {accumulation}, recompute {recompute}",
                   share=f"{e.communication_share:.0%}", micro=e.micro_batch_size, accumulation=e.gradient_accumulation_steps,
                   recompute=e.activation_recompute))
    c = e.communication
    lines.append(_("  Traffic {intra} GB in-node + {inter} GB network per GPU per step: ", intra=f"{c.intra_node_gb_per_step:,.1f}",
                   inter=f"{c.inter_node_gb_per_step:,.1f}") + "; ".join(f"{row.name} {row.seconds:.2f} s" for row in c.per_step))
    if e.tensor_parallel > 1 or e.pipeline_parallel > 1 or e.context_parallel > 1:
        lines.append(_("  Layout  ") + layout_text(e))
    lines.extend(_("  Note    ") + note for note in scale_notes(e, advice.answers))
    lines.append("")
    if d.warnings:
        _section(lines, _("Warnings"), [f"  {_('BLOCKING: ') if w.blocking else '! '}{w.text}" for w in d.warnings])
    _section(lines, _("Why"), [f"  - {item.text}  [{item.rule}; {', '.join(item.source)}]" for item in r.rationale])
    if d.tradeoffs:
        _section(lines, _("Trade-offs"), [f"  - {item.text}  [{item.rule}; {', '.join(item.source)}]" for item in d.tradeoffs])
    if d.context:
        _section(lines, _("Context"), [f"  - {item.text}  [{item.rule}; {', '.join(item.source)}]" for item in d.context])
    lines.append(_("Options on {gpus} GPUs", gpus=advice.gpus))
    lines.append(f"  {pad(_('strategy'), 24)} {pad(_('fits'), 6)} {'GB/GPU':>8} {pad(_('time'), 11, right=True)} {pad(_('cost'), 16, right=True)}  {_('score')}")
    for row in option_rows(d):
        lines.append(
            f"  {row.strategy:<24} {pad(_('yes') if row.fits and row.batch_ok else _('no'), 6)} {row.memory_per_gpu_gb:>8,.1f} "
            f"{pad(hours_text(row.wall_clock_hours), 11, right=True)} {pad(money(row.cost, cur), 16, right=True)}  {format_number(row.score)}"
            + (_("  ← chosen") if row.strategy == r.strategy else "")
        )
    lines.append("")
    lines.append(_("Why not"))
    lines.extend(f"  {alt.strategy}: {alt.why_not[0]}" for alt in d.alternatives)
    lines.append("")
    lines.append(_("What if: other GPU counts (best option at each)"))
    for wi in what_if_rows(advice):
        o = wi.option
        if o is None:
            lines.append(f"  {wi.gpus:>7,}  {_('nothing fits')}")
            continue
        dl = "" if o.meets_deadline is None else (_("  meets deadline") if o.meets_deadline else _("  misses deadline"))
        lines.append(f"  {wi.gpus:>7,}  {o.strategy:<24} {pad(hours_text(o.hours), 11, right=True)} {pad(money(o.cost, cur), 16, right=True)}{dl}"
                     + (f"  ← {wi.note}" if wi.note else ""))
    lines.append("")
    _section(lines, _("Ask the engineers"), [f"  ? {q.text}" for q in d.questions])
    _section(lines, _("Pre-launch checklist"), [f"  [ ] {c.text}" for c in d.checklist])
    lines.append(_("Rules fired: {ids}", ids=", ".join(fr.id for fr in d.fired_rules)))
    return "\n".join(lines) + "\n"


def layout_text(e: Estimate) -> str:
    v = e.virtual_pipeline_stages
    ep = e.expert_parallel
    return (f"TP={e.tensor_parallel}" + (f" × CP={e.context_parallel}" if e.context_parallel > 1 else "")
            + f" × PP={e.pipeline_parallel} × DP={e.data_parallel}"
            + (_(", interleaved schedule with {v} virtual stages per GPU", v=v) if v > 1 else "")
            + (_(", expert parallelism {ep}", ep=ep) if ep > 1 else ""))


def scale_notes(e: Estimate, a: Answers) -> list[str]:
    """Batch and interruptions for one estimate: what changes when a job is spread over many GPUs."""
    notes = []
    if e.batch_source != "given":
        source = e.batch_source
        if source.startswith(BATCH_NOT_GIVEN):
            source = _("global batch not given: {source}", source=_(source[len(BATCH_NOT_GIVEN):]))
        notes.append(_("Global batch {tokens} tokens: {source}.", tokens=f"{e.global_batch_tokens:,.0f}", source=source))
    if not e.batch_ok:
        notes.append(_("{ranks} data-parallel ranks but only {seqs} sequences per step: the batch cannot feed every rank; use "
                       "tensor/pipeline parallelism or fewer GPUs.", ranks=f"{e.data_parallel:,}",
                       seqs=f"{e.global_batch_tokens / a.model.seq_len:,.0f}"))
    rate = a.cluster.data_pipeline_tokens_per_sec
    if rate and e.global_batch_tokens / rate >= e.step_seconds * 0.999:
        notes.append(_("Data loading sets the pace: at {rate} tokens/s the loader needs {load} s per batch, longer than the GPUs' "
                       "{gpu} s, so the time above is the loader's.", rate=f"{rate:,.0f}", load=f"{e.global_batch_tokens / rate:.2f}",
                       gpu=f"{e.compute_seconds_per_step + e.exposed_communication_seconds_per_step:.2f}"))
    if e.expected_interruptions >= 1:
        pct = _restart_pct(e.interruption_overhead)
        if round(e.expected_interruptions) == 1:
            notes.append(_("Expect about one interruption over the run at Llama 3's rate (one per ~50,700 GPU-hours); restarts add {pct} "
                           "to the wall-clock (arXiv:2407.21783).", pct=pct))
        else:
            notes.append(_("Expect about {n} interruptions over the run at Llama 3's rate (one per ~50,700 GPU-hours); restarts add {pct} to "
                           "the wall-clock (arXiv:2407.21783).", n=f"{e.expected_interruptions:,.0f}", pct=pct))
    return notes


def _restart_pct(share: float) -> str:
    """Restart overhead as a percentage that never reads 0.0% when there is some."""
    return "0%" if share <= 0 else "<0.1%" if share < 0.0005 else f"{share:.1%}"


def _section(lines: list[str], title: str, items: list[str]) -> None:
    """A titled block of the terminal summary, followed by a blank line."""
    lines.append(title)
    lines.extend(items)
    lines.append("")


def option_rows(d: Report) -> list[Alternative]:
    """Every strategy's estimate in catalogue order, the recommendation's included (with no why-not)."""
    from advisor.decision.report import Alternative

    rec = d.recommendation
    chosen = Alternative(strategy=rec.strategy, framework=rec.framework, score=rec.score, why_not=[], **d.estimate.model_dump())
    by_strategy: dict[str, Alternative] = {rec.strategy: chosen, **{alt.strategy: alt for alt in d.alternatives}}
    return [by_strategy[s] for s in STRATEGIES]


# ------------------------------------------------------------------------------ markdown memo


def _md(text: Any) -> str:
    """Escape a table cell: pipes and newlines would break the row (harlequin _MarkdownLayout)."""
    return str(text).replace("|", "\\|").replace("\n", "<br>")


_MD_SPECIAL = str.maketrans({ch: "\\" + ch for ch in "\\`*_[]<>#!~"})  # '|' is _md's job in tables


def _md_text(text: Any) -> str:
    """User-typed text (a custom GPU's name) inside a memo line: markdown characters escaped, so a name cannot add a
    heading, a link, an image or HTML to a memo someone forwards."""
    return " ".join(str(text).split()).translate(_MD_SPECIAL)


def _md_inline(text: Any) -> str:
    """Keep text on its list line: a newline in rule or user text would start a new block (a heading, a list)."""
    return " ".join(str(text).split("\n"))


def to_markdown(advice: Advice, artifacts: dict[str, str] | None = None, conversation: Sequence[Mapping[str, str]] | None = None) -> str:
    """The decision memo. ``conversation`` (question / answer turns from `advisor ask` or the Ask box) adds the
    "Questions asked" appendix; without it the memo is as before, whatever the answers keep."""
    d = advice.report()
    a = advice.answers
    r, e = d.recommendation, d.estimate
    cur = e.currency
    f = advice.facts
    out: list[str] = []
    add = out.append
    add(_("# Decision memo: distributed training for a {n}B-parameter model", n=format_number(a.model.params / 1e9)))
    add("")
    add(_("## Executive summary"))
    add("")
    add(f"**{_md(headline(advice))}**")
    add("")
    add(_("| | Today | Recommended |"))
    add("| --- | --- | --- |")
    for what, today, rec in summary_rows(advice, d, _md_text):
        add(f"| {_md(what)} | {_md(today)} | {_md(rec)} |")
    add("")
    for note in summary_notes(advice):
        add(f"- {_md_inline(note)}")
    add("")
    add(_("The aim is not the most advanced framework but business value at the lowest cost and the steadiest speed (seed:K21)."))
    add("")
    add(_("## Decision"))
    add("")
    status = _(" **Blocked — resolve the blocking warnings first.**") if r.blocked else ""
    add(_("Use **{framework}** (`{strategy}`) on {gpus} × {gpu}.{status}", framework=r.framework, strategy=r.strategy, gpus=advice.gpus,
          gpu=_md_text(a.cluster.spec.name), status=status))
    add("")
    lo, hi = e.range.wall_clock_hours
    clo, chi = e.range.cost
    cal = d.scale.baseline_hours is not None
    add(_("- Wall-clock: **{time}** {range}", time=hours_text(e.wall_clock_hours), range=spread(lo, hi, hours_text, cal)).rstrip())
    add(_("- Cost: **{cost}** {range}", cost=money(e.cost, cur), range=spread(clo, chi, lambda v: money(v, cur), cal)).rstrip())
    add(_("- GPU-hours: {n}", n=f"{e.gpu_hours:,.0f}"))
    add(_("- Memory per GPU: {need} GB of {has} GB ({fits})", need=f"{e.memory_per_gpu_gb:,.1f}", has=f"{a.cluster.spec.memory_gb:g}",
          fits=_("fits") if e.fits else _("**does not fit**")))
    m = d.method
    if m is not None and m.frozen_base_gb_per_gpu is not None:
        add(_("- Of which: frozen base {base} GB, adapters with gradients and optimizer states {adapters} GB, layers in flight {flight} GB, "
              "activations {act} GB", base=f"{m.frozen_base_gb_per_gpu:,.1f}", adapters=f"{m.adapter_states_gb_per_gpu or 0:,.2f}",
              flight=f"{m.layers_in_flight_gb_per_gpu or 0:,.1f}", act=f"{e.activations_gb_per_gpu:,.1f}"))
    add(_("- Exposed communication: {share} of step time", share=f"{e.communication_share:.0%}"))
    if e.tensor_parallel > 1 or e.pipeline_parallel > 1:
        add(_("- Layout: {layout}", layout=layout_text(e)))
    add("")
    add(_("### Why"))
    add("")
    for item in r.rationale:
        add(f"- {_md_inline(item.text)} _({item.rule}; {_md_inline(', '.join(item.source))})_")
    add("")
    if d.warnings:
        add(_("### Warnings"))
        add("")
        for w in d.warnings:
            add(f"- {_('**Blocking:** ') if w.blocking else ''}{_md_inline(w.text)} _({w.rule}; {_md_inline(w.source)})_")
        add("")
    add(_("# Engineering appendix"))
    add("")
    add(_("## Context"))
    add("")
    add(_("| Question | Answer |"))
    add("| --- | --- |")
    tokens = f"{d.scale.tokens / 1e9:,.1f}B" + (_(" (implied by the known duration)") if d.scale.tokens_implied else "")
    active = _(", {n}B active", n=format_number(a.model.active_params / 1e9)) if a.model.active_params else ""
    rows = [
        (_("Model"), _("{n}B parameters", n=format_number(a.model.params / 1e9)) + active),
        (_("Shape"), _("{layers} layers, hidden {hidden}, {heads} heads, seq {seq}", layers=d.shape.layers, hidden=d.shape.hidden_size,
                       heads=d.shape.attention_heads, seq=a.model.seq_len)),
        (_("Training tokens"), tokens),
        (_("Known run duration"), _("{time} with {strategy}", time=hours_text(d.scale.baseline_hours), strategy=a.training.current_strategy)
         if d.scale.baseline_hours else _("not given")),
        (_("Cluster today"), _("{gpus} × {gpu}, {per_node} per node, {nodes} node(s)", gpus=a.cluster.gpus, gpu=_md_text(a.cluster.spec.name),
                               per_node=a.cluster.gpus_per_node, nodes=a.cluster.nodes)
         + (_("; up to {n} available", n=a.cluster.max_gpus) if a.cluster.max_gpus else "")),
        (_("Links"), _("{link} inside a node, {gbps} Gbit/s per node", link=advice.evaluation.context["hardware"].intra_link,
                       gbps=f"{a.cluster.network_gbps:g}") + ("" if a.cluster.inter_node_gbps else _(" (the GPU's usual fabric)"))),
        (_("Price"), _("{price} {currency} per GPU-hour", price=format_number(a.budget.price_per_gpu_hour), currency=cur)),
        (_("Budget"), (money(a.budget.limit, cur) if a.budget.limit else _("no run limit"))
         + (_("; {amount} a month", amount=money(a.budget.monthly_limit, cur)) if a.budget.monthly_limit else "")),
        (_("Deadline"), _("{n} days", n=format_number(a.training.deadline_days)) if a.training.deadline_days else _("none given")),
        (_("Team / stage"), _("{experience} experience, {stage} stage", experience=_(a.team.experience), stage=_(a.project.stage))),
        (_("Shared cluster"), _("yes") if a.cluster.multi_tenant else _("no")),
    ]
    for k, v in rows:
        add(f"| {_md(k)} | {_md(v)} |")
    add("")
    add(_("## Estimate"))
    add("")
    add(_("Cost = training time × price per GPU-hour × number of GPUs (seed:K14):"))
    add("")
    add(_("    {hours} h × {price} {currency} × {gpus} GPUs = {cost}", hours=f"{e.wall_clock_hours:,.1f}",
          price=format_number(a.budget.price_per_gpu_hour), currency=cur, gpus=advice.gpus, cost=money(e.cost, cur)))
    add("")
    w = advice.evaluation.context["workload"]
    add(_("Time comes from compute = (6 × {params} params + 12 × {layers} layers × {hidden} hidden × {seq} seq) FLOPs per token × tokens ÷ "
          "({gpus} GPUs × {peak} TFLOP/s × MFU), plus communication that cannot overlap it (ring all-reduce 2(n−1)/n × S/B over each "
          "link). One step of {tokens} tokens takes {step} s ({compute} s compute, {comm} s of communication before overlap, {exposed} s "
          "of it exposed), {steps} steps; restarts after interruptions add {restarts}.", params=format_number(w.active_params),
          layers=w.shape.layers, hidden=w.shape.hidden, seq=w.seq_len, gpus=advice.gpus, peak=f"{a.cluster.spec.peak_tflops:g}",
          tokens=f"{e.global_batch_tokens:,.0f}", step=f"{e.step_seconds:.2f}", compute=f"{e.compute_seconds_per_step:.2f}",
          comm=f"{e.communication_seconds_per_step:.2f}", exposed=f"{e.exposed_communication_seconds_per_step:.2f}",
          steps=f"{e.steps:,.0f}", restarts=_restart_pct(e.interruption_overhead)))
    add("")
    for note in scale_notes(e, a):
        add(f"- {note}")
        add("")
    _communication_table(add, e)
    _deepspeed_table(add, {est.strategy: est for est in option_rows(d)})
    add(_("A day of this cluster costs {day}; making the run 20% faster would save {saving} (seed:K16).", day=money(e.cost_per_day, cur),
          saving=money(e.savings_if_20pct_faster, cur)))
    add("")
    add(_("Memory convention: {convention}.", convention=e.memory_convention))
    add("")
    add(_("## How it runs"))
    add("")
    add(_("The launch files (`advisor advise --artifacts DIR`) are written from these numbers:"))
    add("")
    for line in layout_lines(d.deployment):
        add(f"- {_md_inline(line)}")
    add("")
    add(_("## Options considered on {gpus} GPUs", gpus=advice.gpus))
    add("")
    add(_("| Strategy | Framework | Fits | GB per GPU | Time | Cost | Exposed comm. | Score | Why not |"))
    add("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for est in option_rows(d):
        s = est.strategy
        why = _("**chosen**") if s == r.strategy else "; ".join(est.why_not)
        add(
            f"| `{s}` | {_md(FRAMEWORKS[s])} | {_('yes') if est.fits and est.batch_ok else _('no')} | {est.memory_per_gpu_gb:,.1f} | "
            f"{hours_text(est.wall_clock_hours)} | {money(est.cost, cur)} | {est.communication_share:.0%} | "
            f"{format_number(est.score)} | {_md(why)} |"
        )
    add("")
    add(_("## What if: other GPU counts"))
    add("")
    add(_("The best option the search found at each GPU count (whole nodes of {n}); `advisor sweep` prices any range.", n=a.cluster.gpus_per_node))
    add("")
    add(_("| GPUs | Best strategy | Time | Cost per run | Deadline | Note |"))
    add("| --- | --- | --- | --- | --- | --- |")
    what_if = what_if_rows(advice)
    for wi in what_if:
        o = wi.option
        if o is None:
            add(f"| {wi.gpus:,} | {_('nothing fits')} | | | | |")
            continue
        dl = "" if o.meets_deadline is None else (_("met") if o.meets_deadline else _("missed"))
        add(f"| {wi.gpus:,} | `{o.strategy}` | {hours_text(o.hours)} | {money(o.cost, cur)} | {dl} | {_md(wi.note)} |")
    add("")
    out.extend(what_if_charts(advice, what_if))
    add(_("## Trade-offs"))
    add("")
    add(_("No framework is best everywhere: optimising communication costs compute, and saving memory can cost speed; "
          "the right choice depends on cluster scale and network bandwidth (seed:K10)."))
    add("")
    for item in d.tradeoffs:
        add(f"- {_md_inline(item.text)} _({item.rule}; {_md_inline(', '.join(item.source))})_")
    add(_("- Exposed communication for `{strategy}`: {share} of each step (seed:K3).", strategy=r.strategy, share=f"{e.communication_share:.0%}"))
    add(_("- Activation recomputation: `{recompute}`; micro-batch {micro} (largest that fits: {largest}), gradient accumulation {accumulation} "
          "(seed:K17).", recompute=e.activation_recompute, micro=e.micro_batch_size, largest=e.max_micro_batch_size,
          accumulation=e.gradient_accumulation_steps))
    if f["fits.deepspeed-zero2"] and f["fits.ddp"] is not None:
        add(_("- ZeRO-2 would use {pct}% less GPU memory than DDP on this job (seed:K15).", pct=f"{f['zero_memory_saving_pct']:.0f}"))
    add("")
    if d.context:
        add(_("## Context from the rules"))
        add("")
        for item in d.context:
            add(f"- {_md_inline(item.text)} _({item.rule}; {_md_inline(', '.join(item.source))})_")
        add("")
    add(_("## Questions for the engineers"))
    add("")
    for q in d.questions:
        add(f"- {_md_inline(q.text)} _({_md_inline(q.source)})_")
    add("")
    add(_("## Pre-launch checklist"))
    add("")
    done = set(a.project.checklist_done or ())
    for c in d.checklist:
        add(f"- [{'x' if c.text in done else ' '}] {_md_inline(c.text)} _({_md_inline(c.source)})_")
    add("")
    if artifacts:
        add(_("## Launch artifacts"))
        add("")
        for name, desc in artifacts.items():
            add(f"- [`{name}`]({name}) — {desc}")
        add("")
    add(_("## Rules that fired"))
    add("")
    add(_("| Rule | Title | Source |"))
    add("| --- | --- | --- |")
    for fr in d.fired_rules:
        add(f"| `{fr.id}` | {_md(fr.title)} | {_md(', '.join(fr.source))} |")
    add("")
    add(_("## Assumptions"))
    add("")
    for assumption in d.assumptions:
        add(f"- {assumption}")
    add("")
    add(_("## Appendix: answers"))
    add("")
    add("```yaml")
    shown = {k: ({kk: vv for kk, vv in v.items() if kk != "conversation"} if k == "project" and isinstance(v, dict) else v)
             for k, v in d.answers.items()}  # the conversation has its own appendix, when asked for
    add(yaml.safe_dump(shown, sort_keys=False, allow_unicode=True).rstrip())
    add("```")
    if conversation:
        add("")
        add(_("## Appendix: questions asked"))
        for i, turn in enumerate(conversation, 1):
            add("")
            add(f"**{i}. {_md_inline(turn['question'])}**")
            add("")
            add("~~~~text")
            add(str(turn["answer"]).replace("~~~~", "~ ~ ~ ~").rstrip())
            add("~~~~")
    return "\n".join(out) + "\n"


def _communication_table(add, e: Estimate) -> None:
    """Per-step traffic of the chosen strategy, per GPU, by collective and link (JSON: estimate.communication)."""
    c = e.communication
    if not c.per_step:
        add(_("No communication: one GPU."))
        add("")
        return
    add(_("Communication per optimizer step, per GPU ({share} of the step exposed):", share=f"{e.communication_share:.0%}"))
    add("")
    add(_("| Collective | Kind | Payload (GB) | Calls | In-node (GB) | Network (GB) | Seconds | Hides behind |"))
    add("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in c.per_step:
        add(
            f"| {_md(row.name)} | {row.collective} | {row.payload_gb:,.3f} | {row.calls_per_step:,.0f} | "
            f"{row.intra_node_gb:,.2f} | {row.inter_node_gb:,.2f} | {row.seconds:.3f} | {row.overlaps_with} |"
        )
    add("")


def _deepspeed_table(add, estimates: dict[str, Alternative]) -> None:
    """DeepSpeed's own model-state estimate for ZeRO-2 and ZeRO-3, every offload option (GiB, as DeepSpeed prints)."""
    add(_("DeepSpeed's own model-state estimator for this job (estimate_zero2/zero3_model_states_mem_needs; "
          "model states only, activations come on top; CPU figures include DeepSpeed's 1.5 buffer factor):"))
    add("")
    add(_("| Stage | Options | per GPU (GiB) | per CPU node (GiB) |"))
    add("| --- | --- | --- | --- |")
    for strategy, stage in (("deepspeed-zero2", "ZeRO-2"), ("deepspeed-zero3", "ZeRO-3")):
        for row in estimates[strategy].deepspeed_estimator or []:
            add(f"| {stage} | {row.options} | {row.gpu_gib:,.2f} | {row.cpu_gib_per_node:,.2f} |")
    add("")
