"""Advice as terminal text, JSON, or the markdown decision memo.

Every renderer is a function of the typed report (``Advice.report()``, or ``advisor render report.json`` reading the
JSON back): what the plan implies is stated once in the core (decision/explain.py) and only laid out here. Rendering
is deterministic (no clock, no locale: the date is the report's): the same report gives the same bytes, which is what
makes the golden-file memo tests meaningful.
"""

from __future__ import annotations

import math
import re
from typing import Any
from collections.abc import Callable, Mapping, Sequence

import yaml

from advisor.decision.policy import COST_TIE
from advisor.decision.deployment import Deployment, layout_lines
from advisor.decision.advice import Advice
from advisor.decision.facts import HOURS_PER_MONTH
from advisor.estimate.workload import CUDA_OVERHEAD_BYTES
from advisor.estimate.layout import MEMORY_HEADROOM
from advisor.decision.explain import PLAN_SOURCE, budget_word, deadline_word, lost_text, method_names, point_inside, spot_name
from advisor.outputs.posttrain_report import memo_lines as posttrain_memo_lines, summary_rows as posttrain_rows
from advisor.inputs.answers import STRATEGIES, Answers
from advisor.estimate import BATCH_NOT_GIVEN, GB, judged_limits
from advisor.estimate.finetune import FROZEN_MATMUL_FLOPS_PER_PARAM, TRAINED_FLOPS_PER_PARAM
from advisor.decision.report import Alternative, Estimate, MethodReport, Report, TraceNode, WhatIfPoint
from advisor.knowledge.strategies import FRAMEWORKS, spec
from advisor.knowledge.vocabulary import offload_share, partial_share
from advisor.base.i18n import N_, _, pad, width, zh
from advisor.base.text import join_reasons
from advisor.base.yamlread import whole_numbers

ANSWER_WORDS = (N_("none"), N_("some"), N_("expert"), N_("mvp"), N_("stable"), N_("frontier"))
"""Answer values the memo shows in words (team experience, project stage): marked so the catalog has them."""
from advisor.base.units import count, format_number, gpu_hours_text, token_text, hours_text, money, money_column, money_pair, money_unit, more_than_about_the_same, percent, same_unit, plural, readable_figure


def spread(lo: float, hi: float, fmt, calibrated: bool) -> str:
    """'(range a – b)', or a note that a measured run pins the figure when the band collapses. ``fmt`` writes both ends
    in one unit (units.same_unit, units.money_pair): '83,231 元 – 13.08 万元' read as two scales."""
    if abs(hi - lo) <= 1e-9 * max(abs(hi), 1.0):
        return _("(calibrated to the measured run)") if calibrated else ""
    low, high = fmt(lo, hi)
    return _("(range {low} – {high})", low=low, high=high)


def to_json(report: Report | Advice) -> str:
    """The report as JSON, written by the validated model itself (the one report, one library: pydantic encodes it
    here and ``advisor render`` decodes it with ``Report.model_validate_json``, so every file advisor writes reads
    back). Inputs are bounded so results stay finite."""
    # exclude_unset: the keys the core set, no more (a report read back from JSON sets the same ones: same bytes).
    return as_report(report).model_dump_json(indent=2, exclude_unset=True) + "\n"


# ------------------------------------------------------------------------------ the decision in business terms


def as_report(x: Report | Advice) -> Report:
    """Renderers read the typed report; given the advice itself (in-process callers), its report."""
    return x if isinstance(x, Report) else x.report()


def answers_of(d: Report) -> Answers:
    """The answers the report was made from, typed (Report.typed_answers): the renderers read the cluster, budget and
    deadline from them."""
    return d.typed_answers()


def plan_gpu_name(d: Report) -> str:
    """The plan's GPU type as the summary names it, '(spot)' for spot capacity."""
    return spot_name(d.hardware.gpu, d.plan.chosen.spot)


def gpu_type_rows(d: Report) -> list[tuple[str, str, str, str, str, str]]:
    """(GPU type, price per GPU-hour, best plan, time, cost, result) for each GPU type compared; empty with one type."""
    types = d.plan.gpu_types
    if len(types) < 2:
        return []
    cur, deadline = d.estimate.currency, answers_of(d).training.deadline_days
    return [(spot_name(t.name, t.spot), format_number(t.price_per_gpu_hour),
             _("{strategy} on {gpus} GPUs", strategy=t.strategy, gpus=count(t.gpus)), hours_text(t.wall_clock_hours), money(t.cost, cur),
             _("chosen") if t.chosen else lost_text(t.lost, t.cost, d.plan.chosen.cost, deadline)) for t in types]


def headline(report: Report | Advice) -> str:
    """The decision in one sentence (made in the core: decision/explain.py)."""
    d = as_report(report)
    return d.headline


def summary_rows(report: Report | Advice, user_text: Callable[[str], str] = str) -> list[tuple[str, str, str]]:
    """(what, today, recommended) rows of the executive summary; ``user_text`` escapes what the user typed (the memo's
    markdown escaping)."""
    d = as_report(report)
    t, e, a = d.today, d.estimate, answers_of(d)
    gpu = user_text(d.hardware.gpu)
    today_gpu = user_text(a.cluster.spec.name)  # the answers as given describe today's GPU type
    cur = e.currency
    p = d.plan
    today_runs = t.fits and t.batch_ok
    measured = d.scale.baseline_hours is not None
    t_time, e_time = same_unit(t.wall_clock_hours, e.wall_clock_hours)
    if not today_runs and not measured:
        t_time = _("cannot run")
    cannot = _("cannot run")
    rows = [
        (_("Framework"), FRAMEWORKS.get(t.strategy, t.strategy), FRAMEWORKS[d.recommendation.strategy]),
        (_("GPUs"), f"{t.gpus:,} × {today_gpu}", f"{d.recommendation.gpus:,} × {spot_name(gpu, p.chosen.spot)}"),
        (_("Can run"), _runs_word(t), _("blocked: see the warnings") if d.recommendation.blocked else _runs_word(e)),
    ]
    if d.method is not None and d.method.asked != "pretrain":
        # Fine-tunes only, fourth (the TUI's headline box shows the rows from the fourth on).
        rows.append((_("Method"), method_names()[d.method.asked], method_text(d.method)))
    rows += [
        (_("Time per run (today: measured)") if measured else _("Time per run"), t_time, e_time),
        (_("Cost per run"), money(t.cost, cur) if today_runs or measured else cannot, money(e.cost, cur)),
    ]
    month = per_month_label(d)
    if month is not None:
        rows.append((month, money(p.today.monthly_spend, cur) if today_runs or measured else cannot, money(p.chosen.monthly_spend, cur)))
    known = today_runs or measured

    def today(text: str) -> str:
        return text if known else "—"

    judged_run, judged_month = judged_limits(a)  # on the range's upper end, as the choice judges them
    if a.budget.monthly_limit and judged_month is not None:
        lim = a.budget.monthly_limit

        def month_word(spend: float) -> str:
            return budget_word(spend <= judged_month, spend, lim)

        rows.append((_("Monthly ceiling {amount}", amount=money(lim, cur)), today(month_word(p.today.monthly_spend)),
                     month_word(p.chosen.monthly_spend)))
    if a.budget.limit and judged_run is not None:
        lim_run = a.budget.limit

        def run_word(amount: float) -> str:
            return budget_word(amount <= judged_run, amount, lim_run)

        rows.append((_("Run budget {amount}", amount=money(lim_run, cur)), today(run_word(p.today.cost)), run_word(p.chosen.cost)))
    if a.training.deadline_days is not None:
        dd = a.training.deadline_days
        # A blocked plan meets nothing (user try 10: "Deadline 7 days: met" above "cannot be met with up to 32 GPUs").
        rows.append((_("Deadline {n} days", n=format_number(dd)), today(deadline_word(bool(p.today.meets_deadline), p.today.wall_clock_hours, dd)),
                     "—" if d.recommendation.blocked else deadline_word(bool(p.chosen.meets_deadline), p.chosen.wall_clock_hours, dd)))
    rows += posttrain_rows(d, a)  # a pipeline's stages, checkpoint storage, serving (outputs/posttrain_report.py)
    if p.greenfield:  # not training yet: nothing to compare with
        rows = [(what, _("not training yet") if i == 0 else "—", rec) for i, (what, _today, rec) in enumerate(rows)]
    return rows


def shape_notes(d: Report) -> list[str]:
    """The attention shape the estimate priced where it is not the hidden size's (user try 10: only the memo said it)."""
    sh, out = d.shape, []
    if sh.head_dim and sh.head_dim * sh.attention_heads != sh.hidden_size:
        out.append(_("attention priced at {heads} heads of {size} ({width} wide; hidden {hidden})", heads=sh.attention_heads, size=sh.head_dim,
                     width=f"{sh.head_dim * sh.attention_heads:,}", hidden=f"{sh.hidden_size:,}"))
    if sh.sliding_window and sh.sliding_window_layers_pct:
        out.append(_("a {window}-token sliding window on {pct}% of the layers, priced at that window", window=f"{sh.sliding_window:,}",
                     pct=f"{sh.sliding_window_layers_pct:.0f}"))
    return out


def per_month_label(d: Report) -> str | None:
    """The per-month row's label: the runs a month as asked; where they were not asked, the row is there only to check a
    monthly ceiling, and says what it assumes (the GPUs kept busy: a sub-hour LoRA job would otherwise 'cost' a thousand
    runs a month nobody planned); with neither, None: no per-month figure is claimed (issue 34)."""
    a = answers_of(d)
    n = format_number(round(d.plan.runs_per_month, 1))
    if a.training.runs_per_month is not None:
        return _("Per month (1 run)") if n == "1" else _("Per month ({n} runs)", n=n)
    if a.budget.monthly_limit:
        # the assumption, said: 'GPUs busy' read as a load; 'run back to back' as the plan's pace, but both columns hold
        # today's runs a month (runs_note: today's setup back to back), so the month compares like with like
        if d.plan.greenfield:  # no today to repeat: one run a month assumed (facts.GREENFIELD_RUNS_PER_MONTH)
            return _("Per month (1 run, assumed)") if n == "1" else _("Per month ({n} runs, assumed)", n=n)
        return _("Per month ({n} runs at today's pace)", n=n)
    return None


def runs(e: Estimate) -> bool:
    """Whether an option can be the plan: it fits, the batch feeds every rank, and no rule excludes it (an option the
    rules rule out read 'runs: yes' beside the rule's reason, user try 2026-12-05)."""
    return bool(e.fits and e.batch_ok and not getattr(e, "excluded", False))


def tight(e: Estimate, usable_gb: float | None) -> bool:
    """Past MEMORY_HEADROOM of the GPU's usable memory (layout.MEMORY_HEADROOM: 97% fits on paper and runs out of memory
    in practice): what the memo's 'yes, tight' and the options tab's 'tight' say."""
    return bool(usable_gb) and e.memory_per_gpu_gb > MEMORY_HEADROOM * (usable_gb or 0.0)


def _runs_word(e: Estimate, usable_gb: float | None = None) -> str:
    """'yes', or why not in a word: memory, a batch too small for the data-parallel ranks (not 'does not fit'), or the
    rules. Past the headroom (tight), 'yes, tight': ZeRO-2 at 82.8 of 85.5 GB read 'yes' while ask said advisor leaves 10%
    free (user try 8)."""
    if runs(e):
        if usable_gb and tight(e, usable_gb):  # usable_gb for the percentage below
            return _("yes, tight ({pct} of memory)", pct=percent(e.memory_per_gpu_gb / usable_gb))
        return _("yes")
    if not e.fits:
        return _("no: memory")
    if not e.batch_ok:
        return _("no: batch too small")
    return _("no: rules")


def method_text(m: MethodReport) -> str:
    """'LoRA (rank 8 on query and value, 4.2M adapter parameters)', or the method's name."""
    name = method_names()[m.planned]
    if m.lora_rank is None or m.adapter_params is None:
        return name
    # '720 万' in Chinese, not '7.2M 个' (user try 9)
    n = readable_figure(m.adapter_params) if zh() else f"{m.adapter_params / 1e6:,.1f}M"
    return _("{name} (rank {rank} on {targets}, {n} adapter parameters)", name=name, rank=m.lora_rank, targets=lora_target_words(m.lora_targets),
             n=n)


LORA_TARGET_WORDS = {"qv": N_("query and value"), "attention": N_("attention"), "all-linear": N_("every linear layer")}
"""Which weights carry adapters (training.lora_targets), in words: 'rank 8 on qv' was read as jargon (user try
2026-12-05); the answers file keeps the field's values."""


def lora_target_words(targets: str | None) -> str:
    return _(LORA_TARGET_WORDS[targets]) if targets in LORA_TARGET_WORDS else str(targets)


def range_sentence(report: Report | Advice) -> str:
    """One plain sentence on how far the time may fall from the point estimate, from published runs of this kind
    (estimate.residuals); empty where a measurement calibrates the estimate."""
    d = as_report(report)
    r = d.estimate.range
    if r.published_within is None or r.published_runs is None:
        return ""
    low, high = same_unit(r.wall_clock_hours[0], r.wall_clock_hours[1])  # '44.0 h to 3.2 days' beside '1.8 – 3.2 days' (user try 9)
    return _("Published runs of this kind came in within ±{within} of this model's estimate: 8 in 10 of {runs} ran between "
             "{factor}x faster and {factor}x slower, so this run may take {low} to {high}; deadlines and budgets are judged on "
             "its upper end.", within=percent(r.published_within), runs=r.published_runs, factor=f"{1.0 + r.published_within:.2f}",
             low=low, high=high)


def row_at_risk(wi: WhatIfPoint, deadline_days: float | None) -> bool:
    """A what-if row that misses the deadline on the range's longer end with its estimate inside it: 'at risk', not
    missed (explain.deadline_word), in the table, its note and the TUI chart alike."""
    return deadline_days is not None and wi.meets_deadline is False and point_inside(wi.wall_clock_hours or 0.0, deadline_days)


def at_risk_note(d: Report) -> str:
    """Under a what-if table with an 'at risk' row: why a time inside the deadline is not 'met' (25.2 h read 'at risk'
    against a 30 h deadline with the reason only in the summary, user try 2026-12-06). '' where no row is at risk."""
    days = answers_of(d).training.deadline_days
    r = d.estimate.range
    if days is None or r.published_within is None:
        return ""
    if not any(row_at_risk(wi, days) for wi in d.what_if if wi.strategy):
        return ""
    return _("At risk: the estimate is inside the deadline, but runs of this kind can take {factor}x as long, which is not; "
             "deadlines are judged on the longer.", factor=f"{1.0 + r.published_within:.2f}")


def summary_notes(report: Report | Advice) -> list[str]:
    """The range sentence, the notes on the choice, then every warning (blocking ones first): the risks are said here
    and only here."""
    d = as_report(report)
    out = [s for s in (range_sentence(d),) if s] + decision_notes(d)
    for w in sorted(d.warnings, key=lambda w: not w.blocking):
        out.append((_("Blocking: ") if w.blocking else _("Risk: ")) + w.text)
    return out


def decision_notes(report: Report | Advice) -> list[str]:
    """How the choice was made and the trade-offs around it, as the core stated them (the TUI shows the risks apart)."""
    d = as_report(report)
    return [n.text for n in d.notes]


CHART_COLOURS = ("#1f6feb", "#cf222e")
"""The best option's line (blue) and the deadline or run budget (red): strong enough on GitHub's light and dark pages;
Mermaid's default palette drew the data line in a pale lilac (#ECECFF) that vanished on white (issue 34)."""

CHART_INIT = ('%%{init: {"xyChart": {"width": 760, "height": 420}, "themeVariables": {"xyChart": {"plotColorPalette": "'
              + ", ".join(CHART_COLOURS) + '"}}}}%%')

MAX_CHART_POINTS = 12
"""At most this many GPU counts on a chart's x axis: Mermaid labels every category, and 20 labels at 760 px ran into
each other ('96128 (today, plan)192'). The what-if table above the charts keeps every count."""


def today_on_the_line(d: Report) -> bool:
    """Today's setup is a point of the what-if line only when the plan stays on today's GPU type: the line is the plan's
    type at each count, and 128 H100s are not the 128 A100s the team runs."""
    return d.plan.today.gpu == d.plan.chosen.gpu and d.plan.today.spot == d.plan.chosen.spot


def chart_rows(d: Report) -> list[WhatIfPoint]:
    """The what-if rows a chart shows: every one that runs, thinned to MAX_CHART_POINTS evenly along the table, always
    keeping the first, the last, the plan's and today's, the rows the table marks, and both sides of where the deadline
    stops being met (the chart left out 128 GPUs, the one count at risk, beside the table that marks it; user try 12)."""
    rows = [wi for wi in d.what_if if wi.strategy is not None]
    if len(rows) <= MAX_CHART_POINTS:
        return rows
    keep = {0, len(rows) - 1} | {i for i, wi in enumerate(rows) if wi.chosen or (wi.today and today_on_the_line(d))
                                 or wi.cheapest_meeting_deadline or wi.faster_same_cost}
    keep |= {j for i in range(1, len(rows)) if rows[i].meets_deadline != rows[i - 1].meets_deadline for j in (i - 1, i)}
    spare = MAX_CHART_POINTS - len(keep)
    step = (len(rows) - 1) / (spare + 1)
    for k in range(1, spare + 1):
        i = round(k * step)
        while i in keep and i < len(rows) - 1:
            i += 1
        keep.add(i)
    return [rows[i] for i in sorted(keep)]


CHART_HOURS_BELOW = 48.0
"""A time chart whose longest run is under this many hours is drawn in hours, else in days: one threshold for the memo's
chart and the screen's (they were 48 h and 2.0 days, written twice)."""


def chart_in_hours(longest_hours: float) -> bool:
    return longest_hours < CHART_HOURS_BELOW


def what_if_charts(report: Report | Advice) -> list[str]:
    """The what-if table as two Mermaid xychart-beta charts GitHub renders (time, then cost, against GPU count), the
    deadline and the run budget drawn as flat lines, in colours set by an init directive; the y axis runs from 0 to a
    round top just above the data (a ±4% wobble stays the wobble it is); the x labels are bare counts, and the plan and
    today are said under the chart (bench/render_charts.py renders and measures them). Nothing where fewer than two
    counts run."""
    d = as_report(report)
    a, cur = answers_of(d), d.estimate.currency
    rows = chart_rows(d)
    if len(rows) < 2:
        return []
    p = d.plan

    def marks(value_of: Callable[[float, float], str]) -> str:
        """'Plan: 104 GPUs, 1.9 days; today: 64 GPUs, 3.0 days.' — the points a label used to carry."""
        plan = _("Plan: {gpus} GPUs, {value}", gpus=f"{p.chosen.gpus:,}", value=value_of(p.chosen.wall_clock_hours, p.chosen.cost))
        if p.greenfield:
            return _("{plan}; your cluster: {gpus} GPUs.", plan=plan, gpus=f"{p.today.gpus:,}")
        if not today_on_the_line(d):
            return _("{plan}; today's {gpus} × {gpu} are another GPU type, not on this line.", plan=plan, gpus=f"{p.today.gpus:,}",
                     gpu=_md_text(a.cluster.spec.name))
        if p.today.gpus == p.chosen.gpus:
            return _("{plan} (today's count).", plan=plan)
        today = next((wi for wi in d.what_if if wi.today and wi.strategy is not None), None)
        value = value_of(today.wall_clock_hours or 0.0, today.cost or 0.0) if today else "—"
        return _("{plan}; today: {gpus} GPUs, {value}.", plan=plan, gpus=f"{p.today.gpus:,}", value=value)

    def chart(title: str, unit: str, values: list[float], limit: float | None, limit_name: str, value_of: Callable[[float, float], str]) -> list[str]:
        far = limit is not None and drawn_limit(limit, values) is None
        if far:  # drawn, a 504 h deadline flattened runs of 0.4-5 h onto the axis (user try 8b): said instead
            limit = None
        top = max(values + ([limit] if limit is not None else []))
        lines = ["```mermaid", CHART_INIT, "xychart-beta", f'    title "{title}"',
                 "    x-axis [" + ", ".join(f'"{wi.gpus:,}"' for wi in rows) + "]",
                 f'    y-axis "{unit}" 0 --> {_axis_top(top)}',
                 "    line [" + ", ".join(_plain(v) for v in values) + "]"]
        if limit is not None:
            lines.append("    line [" + ", ".join(_plain(limit) for _ in rows) + "]")
        lines += ["```", ""]
        caption = _("Blue line: the best option at each GPU count (the table above).")
        if limit is not None:
            caption += " " + _("Red line: {what}.", what=limit_name)
        elif far:
            caption += " " + _("{what} is far above every point, so it is not drawn.", what=limit_name[:1].upper() + limit_name[1:])
        return lines + [caption + " " + marks(value_of), ""]

    hours = [wi.wall_clock_hours or 0.0 for wi in rows]
    costs = [wi.cost or 0.0 for wi in rows]
    deadline = a.training.deadline_days
    deadline_name = _("the {days}-day deadline", days=format_number(deadline or 0))
    if chart_in_hours(max(hours)):  # a run of hours in hours: a 0.6 h run read 'Plan: 64 GPUs, 0.0 days' (user try 8)
        out = chart(_("Time per run (hours) by GPU count"), _("hours"), hours, deadline * 24 if deadline is not None else None, deadline_name,
                    lambda h, _c: _("{n} h", n=f"{h:,.2f}" if h < 10 else f"{h:,.1f}"))
    else:
        out = chart(_("Time per run (days) by GPU count"), _("days"), [h / 24.0 for h in hours], deadline, deadline_name,
                    lambda h, _c: _("{n} days", n=f"{h / 24:,.1f}"))  # in the chart's unit, today's and the plan's alike
    out += chart(_("Cost per run ({currency}) by GPU count", currency=money_unit(cur)), money_unit(cur), costs, a.budget.limit,
                 _("the run budget of {limit}", limit=money(a.budget.limit or 0, cur)), lambda _h, c: money(c, cur))
    return out


LIMIT_OFF_CHART = 3.0
"""A deadline or budget more than this many times the chart's largest point is said under the chart, not drawn: the axis
would run to it and every point would sit near zero."""


def drawn_limit(limit: float | None, values: list[float]) -> float | None:
    """The deadline or budget line a chart draws: None where there is none, or where it is more than LIMIT_OFF_CHART times
    the largest point (the memo and the TUI's Chart tab decide alike: the TUI drew a 14-day line over runs of 3.4 h,
    which sat on the zero line, while the memo said it was not drawn; user try 2026-12-07)."""
    if limit is None or not values or limit > LIMIT_OFF_CHART * max(values):
        return None
    return float(limit)


def _plain(v: float) -> str:
    """A number as Mermaid's xychart grammar reads it: plain decimals, never an exponent."""
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3f}".rstrip("0").rstrip(".")


AXIS_STEPS = (1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 10)
"""Round axis tops, each at most 1.25x the one below: the top sits within a quarter of the data (1, 2, 5 left a line at
half height when its largest value was just past a step: 24 days on a 50-day axis)."""


def axis_ticks(value: float, most: int = 5) -> list[float]:
    """Round ticks from 0 to just past ``value``, at most ``most`` + 1 of them (a step of 1, 2, 2.5 or 5 x a power of
    ten): the TUI chart's y axis, labelled 0, 50,000, 100,000, 150,000 instead of plotext's 131373.4, 174133.1."""
    if value <= 0:
        return [0.0, 1.0]
    raw = value / most
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-12))
    n = math.ceil(value / step - 1e-9)
    return [i * step for i in range(n + 1)]


def _axis_top(value: float) -> str:
    """A round axis top just above ``value``."""
    if value <= 0:
        return "1"
    exponent = math.floor(math.log10(value))
    mag = 10.0 ** exponent
    top = next((m * mag for m in AXIS_STEPS if value <= m * mag * (1 + 1e-12)), 10 * mag)
    # As many decimals as the step has (0.0035 h, not 0.004 or 0): plain decimals, as Mermaid reads them.
    return f"{top:.{max(0, 2 - exponent)}f}".rstrip("0").rstrip(".") if top < 100 else _plain(top)


def _network_note(a: Any, source: str | None = None) -> str:
    """Where the network per node came from: given, the GPU's usual fabric on record, or assumed (an RTX 4090 workstation
    read '200 Gbit/s per node (the GPU's usual fabric)', a fabric no source gives for it; user try 2026-12-06). ``source``:
    the plan's (Hardware.network_source), where it runs on another GPU type than today's; else today's answers'."""
    source = source or a.cluster.network_source
    if source == "given":
        return ""
    if source == "usual":
        return _(" (the GPU's usual fabric)")
    return _(" (not given: one 200 Gb/s port per node assumed; it matters only past one node)")


def _links_cell(d: Any, a: Any) -> str:
    """The Context table's links: the plan's, and where the plan runs on another GPU type, named as that type's beside
    today's cluster's (the row read '3200 Gbit/s per node (the GPU's usual fabric)' under 'Cluster: 8 x A800' where the
    answers gave 400 for the A800s and the 3200 was the plan's H800 fabric; user try 2026-12-07)."""
    gbps = d.hardware.network_gbps if d.hardware.network_gbps is not None else a.cluster.network_gbps
    same_type = d.hardware.gpu == a.cluster.spec.name
    if same_type and a.cluster.gpus_per_node == 1:  # workstations: no two GPUs share a node, so no link inside one
        plan = _("one GPU per node, {gbps} Gbit/s per node", gbps=f"{gbps:g}")
    else:
        plan = _("{link} inside a node, {gbps} Gbit/s per node", link=d.hardware.intra_link, gbps=f"{gbps:g}")
    plan += _network_note(a, d.hardware.network_source)
    if same_type:
        return plan
    today = _("{gbps} Gbit/s per node", gbps=f"{a.cluster.network_gbps:g}") + _network_note(a)
    return _("the plan's {gpu}: {links}; today's {today_gpu}: {today}", gpu=_md_text(plan_gpu_name(d)), links=plan,
             today_gpu=_md_text(a.cluster.spec.name), today=today)


# ------------------------------------------------------------------------------ text


class Sources:
    """Footnotes: the running text speaks to a PM, and each reason's rule and source sit behind a number, listed at the
    end (the trace stays complete for engineers). The same rule and sources get the same number."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self._seen: dict[tuple[str, ...], int] = {}
        self.cites_article = False  # some entry cites the source article (seed:K<n>): the memo says once what it is

    def ref(self, rule: str, title: str, source: Sequence[str] | str) -> int:
        sources = [x.strip() for x in source.split(", ")] if isinstance(source, str) else list(source)
        key = (rule, *sources)
        self.cites_article = self.cites_article or any(x.startswith("seed:K") for x in sources)
        if key not in self._seen:
            words = "; ".join(source_words(x) for x in sources)
            what = _("rule {rule} ({title})", rule=rule, title=title) if rule and title else (_("rule {rule}", rule=rule) if rule else "")
            self.entries.append(f"{what}: {words}" if what else words)
            self._seen[key] = len(self.entries)
        return self._seen[key]


def _hours_that_multiply(hours: float, billed: float, rate: float, cur: str) -> str:
    """The hours of the memo's cost line to as many decimals (one to three) as make the product read as the cost shown:
    a PM checking '2.6 h × 3 USD × 8 GPUs = 61 USD' by hand found 62.4 (user try 2026-12-06), and '3.1 小时 × 25 元 × 8
    张 GPU = 619 元' made 620 (user try 15; the run takes 3.09 h). ``billed``: the hours the cost was priced on (cost /
    ``rate``, the price of all the GPUs for an hour); at no price, within half a percent of them."""
    h = billed or hours
    for places in (1, 2, 3):
        shown = f"{h:,.{places}f}"
        value = float(shown.replace(",", ""))
        if (money(value * rate, cur) == money(h * rate, cur)) if rate else abs(value - h) <= 0.005 * h:
            return shown
    return f"{h:,.3f}"


def article_named() -> str:
    """What 'the source article' is, said once where the memo cites it (a reader the memo is forwarded to could not
    follow 'the source article, item K14'; user try 2026-12-06)."""
    return _("'The source article' is the Chinese guide advisor's rules are built from, written for product managers choosing a "
             "distributed-training framework and keeping GPU cost down, around a customer-service product on a large model whose "
             "runs take 3 days and cost 500,000 CNY a month; its items are numbered K1 to K21.")


def seed_item(source: str) -> str | None:
    """The article's item number a source names ('seed:K14' -> '14'), or None for any other source."""
    s = source.strip()
    return s[6:] if s.startswith("seed:K") and s[6:].isdigit() else None


def sources_said(sources: Sequence[str]) -> str:
    """A rule's sources in one cell: the article's items together ('the source article, items K4, K12'), then the rest
    as source_words says them."""
    items = [n for s in sources if (n := seed_item(s)) is not None]
    rest = [source_words(s) for s in sources if seed_item(s) is None]
    said = ([_("the source article, item K{n}", n=items[0]) if len(items) == 1
             else _("the source article, items {items}", items=("、" if zh() else ", ").join(f"K{n}" for n in items))] if items else [])
    return _("; ").join(said + rest)


def source_words(source: str) -> str:
    """'seed:K14' as a reader can follow it: the article's inventory item; advisor's own search in the reader's
    language; other sources as cited."""
    s = source.strip()
    if (n := seed_item(s)) is not None:
        return _("the source article, item K{n}", n=n)
    if s == PLAN_SOURCE:
        return _("advisor's search (README: How it decides)")
    notes = _NOTES_CITE.match(s)
    if notes:  # the project's reference notes by section: the published sources the note names are what a reader can follow
        return notes.group(1)
    return s


_NOTES_CITE = re.compile(r"^estimators-notes §\d+(?:\.\d+)?:\s*(.+)$", re.S)
"""'estimators-notes §11: estimators that skip activations ... (DeepSpeed #4527, #4093)': a section of the project's
reference notes, which a PM reading the checklist cannot open (user try 2026-12-05); what follows the colon cites the
published sources."""


RECOMPUTE_WORDS = {"none": N_("no recompute"), "selective": N_("selective recompute"), "full": N_("full recompute")}
"""Activation recomputation as the estimate sets it (none / selective / full), in the reader's language."""


def recompute_word(setting: str) -> str:
    """The memo's short form ('no recompute'); recomputing only some layers fully is worded too (it was left in English
    in the Chinese memo)."""
    if setting in RECOMPUTE_WORDS:
        return _(RECOMPUTE_WORDS[setting])
    share = partial_share(setting)
    if share is not None:
        return _("full recompute on {share} of layers", share=share)
    offloaded = offload_share(setting)
    return _("no recompute, {share} of layers' activations in CPU memory", share=offloaded) if offloaded is not None else setting


def to_text(report: Report | Advice) -> str:
    d = as_report(report)
    r, e = d.recommendation, d.estimate
    a = answers_of(d)
    cur = e.currency
    fn = Sources()
    # A new project's headline is its plan ('Plan: FSDP on 64 GPUs'): 'Decision: Plan: …' said it twice (user try 7).
    lines: list[str] = [d.headline if d.plan.greenfield else _("Decision: {headline}", headline=d.headline), ""]
    rows = summary_rows(d)
    label = max([34, *(width(what) for what, _today, _rec in rows)])  # a long label widens the column, never breaks it
    for what, today, rec in rows:
        lines.append(f"  {pad(what, label)} {rec}" if d.plan.greenfield else f"  {pad(what, label)} {pad(today, 28, right=True)}  →  {rec}")
    lines.append("")
    lines.extend(f"  {note}" for note in summary_notes(d))
    lines.append("")
    blocked = _("  [BLOCKED — see warnings]") if r.blocked else ""
    lines.append(_("Recommendation: {framework} ({strategy}) on {gpus} GPUs{blocked}", framework=r.framework, strategy=r.strategy,
                   gpus=r.gpus, blocked=blocked))
    lines.append("")
    lo, hi = e.range.wall_clock_hours
    clo, chi = e.range.cost
    cal = d.scale.baseline_hours is not None
    lines.append((_("  Time    ") + f"{hours_text(e.wall_clock_hours)}  {spread(lo, hi, same_unit, cal)}").rstrip())
    lines.append((_("  Cost    ") + f"{money(e.cost, cur)}  {spread(clo, chi, lambda x, y: money_pair(x, y, cur), cal)}").rstrip())
    lines.append(_("  GPU-h   {hours}   at {price} {currency}/GPU-hour × {gpus} GPUs", hours=gpu_hours_text(e.gpu_hours),
                   price=format_number(d.hardware.price_per_gpu_hour), currency=money_unit(cur), gpus=r.gpus))
    lines.append(_("  Memory  {need} GB per GPU of {has} GB usable ({fits}; model states {states} GB, activations {acts} GB)",
                   need=f"{e.memory_per_gpu_gb:,.1f}", has=f"{d.hardware.usable_gb:,.1f}",
                   fits=_("fits") if e.fits else _("DOES NOT FIT"), states=f"{e.model_states_gb_per_gpu:,.1f}",
                   acts=f"{e.activations_gb_per_gpu:,.1f}"))
    lines.append(_("  Comm    {share} of step time exposed; micro-batch {micro}, accumulation {accumulation}, {recompute}",
                   share=percent(e.communication_share), micro=e.micro_batch_size, accumulation=e.gradient_accumulation_steps,
                   recompute=recompute_word(e.activation_recompute)))
    c = e.communication
    lines.append(_("  Traffic {intra} GB in-node + {inter} GB network per GPU per step: ", intra=f"{c.intra_node_gb_per_step:,.1f}",
                   inter=f"{c.inter_node_gb_per_step:,.1f}")
                 + _("; ").join(_("{name} {seconds} s", name=collective_words(row.name), seconds=f"{row.seconds:.2f}") for row in c.per_step))
    if e.tensor_parallel > 1 or e.pipeline_parallel > 1 or e.context_parallel > 1:
        lines.append(_("  Layout  ") + layout_text(e))
    lines.extend(_("  Note    ") + note for note in scale_notes(e, a, d.plan.runs_per_month, d.plan.greenfield, d.deployment))
    lines.extend(_("  Shape   ") + note for note in shape_notes(d))
    lines.append("")

    def cited(item) -> str:
        return f"  - {item.text} [{fn.ref(item.rule, item.title, item.source)}]"

    if r.rationale:
        _section(lines, _("Why"), [cited(item) for item in r.rationale])
    if d.tradeoffs:
        _section(lines, _("Trade-offs"), [cited(item) for item in d.tradeoffs])
    if d.context:
        _section(lines, _("Context"), [cited(item) for item in d.context])
    lines.append(_("Options on {gpus} × {gpu}", gpus=r.gpus, gpu=plan_gpu_name(d)))
    lines.append(f"  {pad(_('strategy'), 24)} {pad(_('runs'), 6)} {'GB/GPU':>8} {pad(_('time'), 11, right=True)} {pad(_('cost'), 16, right=True)}  "
                 f"{_('rule score')}")
    option_list = option_rows(d)
    for row, said in zip(option_list, money_column([row.cost for row in option_list], cur), strict=True):
        lines.append(
            f"  {row.strategy:<24} {pad(_('yes') if runs(row) else _('no'), 6)} {row.memory_per_gpu_gb:>8,.1f} "
            f"{pad(hours_text(row.wall_clock_hours), 11, right=True)} {pad(said, 16, right=True)}  {format_number(row.score)}"
            + (_("  ← chosen") if row.strategy == r.strategy else "")
        )
    lines.append(_("  rule score: points the rules gave each strategy; it only breaks ties between options within {tie} of the cheapest.",
                   tie=percent(COST_TIE)))
    lines.append("")
    lines.append(_("Why not"))
    lines.extend(f"  {alt.strategy}: {alt.why_not[0]}" for alt in d.alternatives)
    lines.append("")
    lines.append(_("What if: other GPU counts (best option at each)"))
    what_if_cost = money_column([wi.cost or 0 for wi in d.what_if], cur)  # one unit for the column
    for row_no, wi in enumerate(d.what_if):
        if wi.strategy is None:
            lines.append(f"  {wi.gpus:>7,}  {nothing_text(wi)}")
            continue
        dl = "" if wi.meets_deadline is None else (
            _("  meets deadline") if wi.meets_deadline
            # the summary's word (explain.deadline_word): a point inside the date is at risk, not missed
            else _("  deadline at risk") if row_at_risk(wi, answers_of(d).training.deadline_days)
            else _("  misses deadline"))
        note = what_if_note(wi, d)
        lines.append(f"  {wi.gpus:>7,}  {wi.strategy:<24} {pad(hours_text(wi.wall_clock_hours or 0), 11, right=True)} "
                     f"{pad(what_if_cost[row_no], 16, right=True)}{dl}" + (f"  ← {note}" if note else ""))
    if risk := at_risk_note(d):
        lines.append("  " + risk)
    lines.append("")
    _section(lines, _("Ask the engineers"), [f"  ? {q.text}" for q in d.questions])
    _section(lines, _("Pre-launch checklist"), [f"  [ ] {c.text}" for c in d.checklist])
    if fn.entries:
        _section(lines, _("Sources"), [f"  [{i}] {entry}" for i, entry in enumerate(fn.entries, 1)])
    lines.append(_("Rules fired: {ids}", ids=", ".join(fr.id for fr in d.fired_rules)))
    return "\n".join(lines) + "\n"


def nothing_text(wi: WhatIfPoint) -> str:
    """Why no option runs at a count, in the words of the GPU-count table."""
    why = wi.nothing_because
    if why == "batch":
        return _("the batch cannot feed {gpus} GPUs", gpus=f"{wi.gpus:,}")
    if why == "host-memory":
        return _("not enough host memory")
    if why == "rules":
        return _("ruled out by the rules")
    return _("nothing fits")


def what_if_note(wi: WhatIfPoint, d: Report) -> str:
    """'today, chosen (fsdp)': which what-if row is today's count, the plan's, the cheapest meeting the deadline; and why
    a row takes longer than the one with fewer GPUs before it."""
    notes = []
    if wi.today and today_on_the_line(d):  # the row is the plan's GPU type: today's count on another type is not today
        notes.append(count_word(d))
    if wi.chosen:
        notes.append(_("chosen ({strategy})", strategy=d.plan.chosen.strategy))
    if wi.cheapest_meeting_deadline:
        notes.append(_("cheapest meeting the deadline"))
    if wi.faster_same_cost:
        more = wi.cost is not None and more_than_about_the_same(wi.cost, d.plan.chosen.cost)
        notes.append(_("faster for a little more per run") if more else _("faster for no more per run"))  # as the note says it
    slower = _slower_than_before(wi, d)
    if slower:
        notes.append(slower)
    return _(", ").join(notes)


def _slower_than_before(wi: WhatIfPoint, d: Report) -> str:
    """Why a what-if row is slower than the last row with fewer GPUs that runs; '' where it is not, or where the report
    did not record the layouts (saved before they were)."""
    before = [p for p in d.what_if if p.gpus < wi.gpus and p.strategy is not None and p.wall_clock_hours is not None]
    if wi.strategy is None or wi.wall_clock_hours is None or not before:
        return ""
    prev = before[-1]
    if wi.wall_clock_hours <= (prev.wall_clock_hours or 0.0) or wi.layout is None or prev.layout is None:
        return ""
    here, there = wi.layout, prev.layout
    return slower_reason(count(prev.gpus), wi.strategy, prev.strategy or "",
                         layout_words(here.tensor_parallel, here.pipeline_parallel, here.recompute),
                         layout_words(there.tensor_parallel, there.pipeline_parallel, there.recompute),
                         here.micro_batches, there.micro_batches, here.sequences_per_rank, there.sequences_per_rank)


def layout_words(tp: int, pp: int, recompute: str) -> str:
    """'1 x 1, no recompute': TP x PP and the recomputation, as the sweep and the what-if notes compare them."""
    return _("{tp} x {pp}, {recompute}", tp=tp, pp=pp, recompute=recompute_word(recompute))


PER_MICRO_BATCH = {"sharded-params": N_("gathers the weights"), "quantised-sharded": N_("gathers the weights"),
                   "hybrid-sharded": N_("gathers the weights"), "reduce-scatter-per-micro-batch": N_("reduces the gradients")}
"""Strategies whose traffic repeats for every micro-batch (ZeRO-3, FSDP, ZeRO++ gather the weights; ZeRO-2 reduces the
gradients; knowledge/strategies.py GradientSync): more micro-batches a rank, more of it."""


def slower_reason(gpus_there: str, s: str, s_there: str, layout_here: str, layout_there: str, steps: int, steps_there: int,
                  per_rank: float, per_rank_there: float) -> str:
    """Why a count takes longer than a smaller count: another option, another layout, more micro-batches for a strategy
    whose traffic repeats per micro-batch, a batch that no longer divides, or communication outgrowing compute. One
    wording for ``advisor sweep`` and the memo's what-if rows."""
    if s_there != s:
        return _("slower than {gpus} GPUs: {here} is the cheapest that meets everything here, {there} there", gpus=gpus_there, here=s,
                 there=s_there)
    if layout_here != layout_there:
        return _("slower than {gpus} GPUs: the layout changes (TP x PP, recompute: {before} -> {after})", gpus=gpus_there,
                 before=layout_there, after=layout_here)
    sync = spec(s).gradient_sync
    if steps > steps_there and sync in PER_MICRO_BATCH:
        # user try: 24 A10s took 18.3 h between 16 (11.6 h) and 32 (6.3 h), said to be 'communication grows faster'
        return _("slower than {gpus} GPUs: each rank runs its share as {n} micro-batches here ({m} there), and {strategy} {moves} "
                 "once per micro-batch", gpus=gpus_there, n=steps, m=steps_there, strategy=s, moves=_(PER_MICRO_BATCH[sync]))
    if per_rank >= per_rank_there:
        return _("slower than {gpus} GPUs: the batch no longer divides evenly, so each rank still runs {n} sequences a step while "
                 "communication grows", gpus=gpus_there, n=count(per_rank))
    return _("slower than {gpus} GPUs: communication grows faster than compute shrinks (seed:K6)", gpus=gpus_there)


def count_word(d: Report) -> str:
    """What marks the cluster's own GPU count in the what-if table and charts: 'today's GPU count' (a row marked 'today'
    showed LoRA on 8 GPUs where the summary said today's setup cannot run, user try 2026-12-06), or, for a team not
    training yet, 'your cluster' (there is no today to speak of)."""
    return _("your cluster") if d.plan.greenfield else _("today's GPU count")


def layout_text(e: Estimate) -> str:
    v = e.virtual_pipeline_stages
    ep = e.expert_parallel
    return (f"TP={e.tensor_parallel}" + (f" × CP={e.context_parallel}" if e.context_parallel > 1 else "")
            + f" × PP={e.pipeline_parallel} × DP={e.data_parallel}"
            + (_(", interleaved schedule with {v} virtual stages per GPU", v=v) if v > 1 else "")
            + (_(", expert parallelism {ep}", ep=ep) if ep > 1 else ""))


def runs_note(runs: float, given: bool, greenfield: bool = False) -> str:
    """Where the runs a month come from when the answers do not give them: the monthly bill is runs x cost per run, and
    '16.3 runs' read as if the team had said so (user try 2026-12-06). '' where they were given. A team not training
    yet has no today: the pace is the fastest option on the GPUs it has (facts._cadence_hours)."""
    if given or runs <= 0:
        return ""
    if greenfield:  # no pace of its own to repeat (facts.GREENFIELD_RUNS_PER_MONTH)
        return _("Runs a month not given: {runs} assumed for a project not training yet; set training.runs_per_month to what "
                 "the roadmap needs.", runs=format_number(round(runs, 1)))
    return _("Runs a month not given: {runs}, as many runs of {hours} as fit back to back in 30 days {pace}; set "
             "training.runs_per_month to what the roadmap needs.", runs=format_number(round(runs, 1)),
             hours=hours_text(HOURS_PER_MONTH / runs), pace=_("(today's setup's pace, or the fastest option on today's GPUs where it cannot run)"))


def scale_notes(e: Estimate, a: Answers, runs: float | None = None, greenfield: bool = False,
                deployment: Deployment | None = None) -> list[str]:  # a: answers_of(report)
    """Batch, runs a month and interruptions for one estimate: what changes when a job is spread over many GPUs."""
    notes = []
    if e.batch_source != "given":
        source = e.batch_source
        if source.startswith(BATCH_NOT_GIVEN):
            source = _("global batch not given: {source}", source=_(source[len(BATCH_NOT_GIVEN):]))
        notes.append(_("Global batch {tokens} tokens: {source}.", tokens=count(e.global_batch_tokens), source=source))
    d = deployment
    if d is not None and d.train_batch_sequences != d.requested_batch_sequences:
        # the launch files' batch, as their README says it: 'Global batch 4,194,304 tokens' beside 'train_batch_size 1056
        # sequences (4,325,376 tokens)' read as two batches (user try 15); the time per token is the same
        notes.append(_("The launch files run {seqs} sequences a step ({tokens} tokens), {asked} rounded up so every data-parallel "
                       "rank runs whole micro-batches.", seqs=count(d.train_batch_sequences), tokens=count(d.train_batch_tokens),
                       asked=count(d.requested_batch_sequences)))
    if runs is not None and (note := runs_note(runs, a.training.runs_per_month is not None, greenfield)):
        notes.append(note)
    if not e.batch_ok:
        notes.append(_("{ranks} data-parallel ranks but only {seqs} sequences per step: the batch cannot feed every rank; use "
                       "tensor/pipeline parallelism or fewer GPUs.", ranks=count(e.data_parallel),
                       seqs=count(e.global_batch_tokens / a.model.seq_len)))
    rate = a.cluster.data_pipeline_tokens_per_sec
    if rate and e.global_batch_tokens / rate >= e.step_seconds * 0.999:
        notes.append(_("Data loading sets the pace: at {rate} tokens/s the loader needs {load} s per batch, longer than the GPUs' "
                       "{gpu} s, so the time above is the loader's.", rate=count(rate), load=f"{e.global_batch_tokens / rate:.2f}",
                       gpu=f"{e.compute_seconds_per_step + e.exposed_communication_seconds_per_step:.2f}"))
    if e.expected_interruptions >= 1:
        notes.append(interruptions_text(e.expected_interruptions, e.interruption_overhead))
    return notes


def interruptions_text(n: float, overhead: float) -> str:
    """The interruptions a run can expect at Llama 3's rate and what restarts add: the memo's note, and ask's risks (an
    engineer asking 'what are the risks?' heard nothing of hardware failures; user try 15)."""
    # to a tenth, as the long-run warning gives it beside it: '1.7 interruptions on average' above 'about 2' (user try 12)
    return _("Expect {n} interruptions on average over the run at Llama 3's rate (one per ~50,700 GPU-hours); restarts add "
             "{pct} to the wall-clock (arXiv:2407.21783).", n=f"{n:.1f}", pct=_restart_pct(overhead))


def _restart_pct(share: float) -> str:
    """Restart overhead as a percentage that never reads 0.0% when there is some."""
    return "0%" if share <= 0 else "<0.1%" if share < 0.0005 else f"{share:.1%}"


def _section(lines: list[str], title: str, items: list[str]) -> None:
    """A titled block of the terminal summary, followed by a blank line."""
    lines.append(title)
    lines.extend(items)
    lines.append("")


def option_rows(d: Report) -> list[Alternative]:
    """Every strategy's estimate in catalogue order, the recommendation's included (with no why-not); a report saved
    before a strategy joined the catalogue lists the ones it has."""
    rec = d.recommendation
    chosen = Alternative(strategy=rec.strategy, framework=rec.framework, score=rec.score, why_not=[], **d.estimate.model_dump())
    by_strategy: dict[str, Alternative] = {rec.strategy: chosen, **{alt.strategy: alt for alt in d.alternatives}}
    return [by_strategy[s] for s in STRATEGIES if s in by_strategy]


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


def the_ask(report: Report | Advice) -> str:
    """The one clear ask of the memo's first page: the GPUs, the money and the time to approve."""
    d = as_report(report)
    r, e, p = d.recommendation, d.estimate, d.plan
    cur = e.currency
    runs = p.runs_per_month
    asked = answers_of(d).training.runs_per_month is not None  # a cadence nobody gave is no part of the ask
    monthly = (_(", {amount} a month at {n} runs", amount=money(p.chosen.monthly_spend, cur), n=format_number(round(runs, 1)))
               if asked and round(runs, 1) != 1 else "")
    if r.blocked:
        return _("**The ask:** nothing can run as asked; decide on the blocking warnings below before any GPUs are committed.")
    hi_h, hi_c = e.range.wall_clock_hours[1], e.range.cost[1]
    if hi_c > e.cost * (1 + 1e-9) and d.scale.baseline_hours is None:
        # the reservation and the money approved at the range's upper end, where deadlines and budgets are judged: 'approve
        # 16.6 days, 52.58 万元' beside a budget needed of 65.35 万元 and a range to 20.6 days (user try 2026-12-07)
        return _("**The ask:** approve {gpus} × {gpu} for {time} a run (reserve up to {time_hi}), {cost} a run (up to {cost_hi}){monthly}.",
                 gpus=f"{r.gpus:,}", gpu=_md_text(d.hardware.gpu), time=hours_text(e.wall_clock_hours), time_hi=hours_text(hi_h),
                 cost=money(e.cost, cur), cost_hi=money(hi_c, cur), monthly=monthly)
    return _("**The ask:** approve {gpus} × {gpu} for {time} a run, {cost} a run{monthly}.", gpus=f"{r.gpus:,}", gpu=_md_text(d.hardware.gpu),
             time=hours_text(e.wall_clock_hours), cost=money(e.cost, cur), monthly=monthly)


def inputs_line(d: Report, a: Answers) -> str:
    """The inputs the advice rests on, in one line a PM can check."""
    cur = d.estimate.currency
    parts = [_("{n}B-parameter model", n=format_number(a.model.params / 1e9)),
             _("{n} tokens", n=token_text(d.scale.tokens)),  # in Chinese 400 亿, as the table says it (user try 8)
             *([_("{n} tokens in the stages before", n=token_text(sum(float(s.training(a.training.precision).data_tokens or 0)
                                                                       for s in a.training.stages_before)))]
               if a.training.stages_before else []),
             (_("{gpus} × {gpu} available", gpus=f"{a.cluster.gpus:,}", gpu=_md_text(a.cluster.spec.name)) if d.plan.greenfield
              else _("{gpus} × {gpu} today", gpus=f"{a.cluster.gpus:,}", gpu=_md_text(a.cluster.spec.name))),
             _("{price} {currency} per GPU-hour", price=format_number(a.budget.price_per_gpu_hour), currency=money_unit(cur))]
    if a.budget.limit:
        parts.append(_("run budget {amount}", amount=money(a.budget.limit, cur)))
    if a.budget.monthly_limit:
        parts.append(_("monthly ceiling {amount}", amount=money(a.budget.monthly_limit, cur)))
    if a.training.deadline_days is not None:
        parts.append(_("deadline {n} days", n=format_number(a.training.deadline_days)))
    if a.training.precision == "fp8":
        # the plan's time and cost rest on it: an adopted FP8 what-if showed '39% less' with FP8 said only in the checklist
        # and the appendix (user try 14)
        parts.append(_("FP8 training (the time and cost assume it)"))
    return _("Inputs: {inputs}.", inputs=_(", ").join(parts))


def to_markdown(report: Report | Advice, artifacts: dict[str, str] | None = None, conversation: Sequence[Mapping[str, str]] | None = None) -> str:
    """The decision memo. ``conversation`` (question / answer turns from `advisor ask` or the Ask box) adds the
    "Questions asked" appendix; without it the memo is as before, whatever the answers keep."""
    d = as_report(report)
    a = answers_of(d)
    r, e = d.recommendation, d.estimate
    cur = e.currency
    fn = Sources()
    out: list[str] = []
    add = out.append

    def note(rule: str, title: str, source: Sequence[str] | str) -> str:
        return f"[^{fn.ref(rule, title, source)}]"

    # no article before the size: 'for a 8B-parameter model' (user try 13); 'an' would be wrong for 7B
    add(_("# Decision memo: distributed training of the {n}B-parameter model", n=format_number(a.model.params / 1e9)))
    add("")
    add(_("Prepared {date} by advisor. {inputs}", date=d.made_on, inputs=inputs_line(d, a)))
    add("")
    add(_("## Executive summary"))
    add("")
    add(f"**{_md(d.headline)}**")
    add("")
    add(the_ask(d))
    add("")
    if d.plan.greenfield:  # nothing runs today: the plan alone
        add(_("| | Plan |"))
        add("| --- | --- |")
        for what, _today, rec in summary_rows(d, _md_text):
            add(f"| {_md(what)} | {_md(rec)} |")
    else:
        add(_("| | Today | Recommended |"))
        add("| --- | --- | --- |")
        for what, today, rec in summary_rows(d, _md_text):
            add(f"| {_md(what)} | {_md(today)} | {_md(rec)} |")
    add("")
    if sentence := range_sentence(d):
        add(f"- {_md_inline(sentence)}")
    for text in decision_notes(d):
        add(f"- {_md_inline(text)}")
    for w in sorted(d.warnings, key=lambda w: not w.blocking):
        add(f"- {_('**Blocking:** ') if w.blocking else _('Risk: ')}{_md_inline(w.text)}{note(w.rule, '', w.source)}")
    add("")
    _gpu_type_table(add, d, cur)
    add(_("The aim is not the most advanced framework but business value at the lowest cost and the steadiest speed.")
        + note("", "", "seed:K21"))
    add("")
    out.extend(posttrain_memo_lines(d, a, cite=lambda source: note("", "", source)))
    add(_("## Decision"))
    add("")
    status = _(" **Blocked — resolve the blocking warnings first.**") if r.blocked else ""
    add(_("Use **{framework}** (`{strategy}`) on {gpus} × {gpu}.{status}", framework=r.framework, strategy=r.strategy, gpus=r.gpus,
          gpu=_md_text(plan_gpu_name(d)), status=status))
    add("")
    lo, hi = e.range.wall_clock_hours
    clo, chi = e.range.cost
    cal = d.scale.baseline_hours is not None
    add(_("- Wall-clock: **{time}** {range}", time=hours_text(e.wall_clock_hours), range=spread(lo, hi, same_unit, cal)).rstrip())
    add(_("- Cost: **{cost}** {range}", cost=money(e.cost, cur), range=spread(clo, chi, lambda x, y: money_pair(x, y, cur), cal)).rstrip())
    add(_("- GPU-hours: {n}", n=gpu_hours_text(e.gpu_hours)))
    add(_("- Memory per GPU: {need} GB of {has} GB usable ({fits})", need=f"{e.memory_per_gpu_gb:,.1f}", has=f"{d.hardware.usable_gb:,.1f}",
          fits=_("fits") if e.fits else _("**does not fit**")))
    m = d.method
    if m is not None and m.frozen_base_gb_per_gpu is not None:
        # the runtime too: without it the parts summed to 18.6 of the 20.6 GB above (user try 2026-12-06)
        add(_("- Of which: frozen base {base} GB, adapters with gradients and optimizer states {adapters} GB, layers in flight {flight} GB, "
              "activations {act} GB, CUDA runtime {runtime} GB", base=f"{m.frozen_base_gb_per_gpu:,.1f}",
              adapters=f"{m.adapter_states_gb_per_gpu or 0:,.2f}", flight=f"{m.layers_in_flight_gb_per_gpu or 0:,.1f}",
              act=f"{e.activations_gb_per_gpu:,.1f}", runtime=f"{CUDA_OVERHEAD_BYTES / GB:,.1f}"))
    add(_("- Exposed communication: {share} of step time", share=percent(e.communication_share)))
    if e.tensor_parallel > 1 or e.pipeline_parallel > 1:
        add(_("- Layout: {layout}", layout=layout_text(e)))
    add("")
    cited_list(add, _("### Why"), r.rationale, note)
    add(_("# Engineering appendix"))
    add("")
    add(_("## Context"))
    add("")
    add(_("| Question | Answer |"))
    add("| --- | --- |")
    # in its own unit: a 20M-token fine-tune read '0.0B' (user try 2026-12-06)
    tokens = token_text(d.scale.tokens) + (_(" (implied by the known duration)") if d.scale.tokens_implied else "")
    active = _(", {n}B active", n=format_number(a.model.active_params / 1e9)) if a.model.active_params else ""
    rows = [
        (_("Model"), _("{n}B parameters", n=format_number(a.model.params / 1e9)) + active),
        (_("Shape"), _("{layers} layers, hidden {hidden}, {heads} heads, seq {seq}", layers=d.shape.layers, hidden=d.shape.hidden_size,
                       heads=d.shape.attention_heads, seq=a.model.seq_len)
         + (_(" (heads of {n})", n=d.shape.head_dim) if d.shape.head_dim else "")),
        (_("Training tokens"), tokens),
        (_("Known run duration"), _("{time} with {strategy}", time=hours_text(d.scale.baseline_hours), strategy=a.training.current_strategy)
         if d.scale.baseline_hours else _("not given")),
        (_("Cluster") if d.plan.greenfield else _("Cluster today"), plural(a.cluster.nodes, N_("{gpus} × {gpu}, {per_node} per node, {n} node"),
                                                                          N_("{gpus} × {gpu}, {per_node} per node, {n} nodes"), gpus=a.cluster.gpus,
                                                                          gpu=_md_text(a.cluster.spec.name), per_node=a.cluster.gpus_per_node)
         + (_("; up to {n} available", n=a.cluster.max_gpus) if a.cluster.max_gpus else "")),
        (_("Links"), _links_cell(d, a)),
        (_("Price"), _("{price} {currency} per GPU-hour", price=format_number(a.budget.price_per_gpu_hour), currency=money_unit(cur))
         + ("" if d.hardware.price_per_gpu_hour == a.budget.price_per_gpu_hour and d.hardware.gpu == a.cluster.spec.name
            else _("; the plan's {gpu}: {price} {currency}", gpu=_md_text(plan_gpu_name(d)),
                   price=format_number(d.hardware.price_per_gpu_hour), currency=money_unit(cur)))),
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
    add(_("Cost = training time × price per GPU-hour × number of GPUs:") + note("", "", "seed:K14"))
    add("")
    rate = d.hardware.price_per_gpu_hour * r.gpus
    billed = e.cost / rate if rate else 0.0
    add(_("    {hours} h × {price} {currency} × {gpus} GPUs = {cost}", hours=_hours_that_multiply(e.wall_clock_hours, billed, rate, cur),
          price=format_number(d.hardware.price_per_gpu_hour), currency=money_unit(cur), gpus=r.gpus, cost=money(e.cost, cur)))
    add("")
    m = d.method
    if m is not None and m.planned in ("lora", "qlora") and m.adapter_params:
        # The estimate's own terms (estimate.finetune.peft_flops_per_token): the frozen base skips its weight gradients.
        params = _("{frozen} × {base} frozen + {trained} × {adapters} adapter", frozen=f"{FROZEN_MATMUL_FLOPS_PER_PARAM:g}",
                   base=format_number(d.scale.active_params), trained=f"{TRAINED_FLOPS_PER_PARAM:g}", adapters=format_number(m.adapter_params))
    else:
        params = f"{TRAINED_FLOPS_PER_PARAM:g} × {format_number(d.scale.active_params)}"
    # the attention's span as the estimate priced it: the example where short examples are packed (Workload.attention_tokens)
    span = d.shape.attention_tokens or a.model.seq_len
    seq_words = _("{n} tokens per packed example", n=span) if span < a.model.seq_len else _("{n} seq", n=a.model.seq_len)
    add(_("Time comes from compute = ({params} params + 12 × {layers} layers × {hidden} hidden × {seq}) FLOPs per token × tokens ÷ "
          "({gpus} GPUs × {peak} TFLOP/s × MFU), plus communication that cannot overlap it (ring all-reduce 2(n−1)/n × S/B over each "
          "link). One step of {tokens} tokens takes {step} s ({compute} s compute, {comm} s of communication before overlap, {exposed} s "
          "of it exposed), {steps} steps; time off training (restarts, checkpoints, evaluation) adds {restarts}.", params=params,
          layers=d.shape.layers, hidden=d.shape.hidden_size, seq=seq_words, gpus=r.gpus, peak=f"{d.hardware.peak_tflops:g}",
          tokens=count(e.global_batch_tokens), step=f"{e.step_seconds:.2f}", compute=f"{e.compute_seconds_per_step:.2f}",
          comm=f"{e.communication_seconds_per_step:.2f}", exposed=f"{e.exposed_communication_seconds_per_step:.2f}",
          steps=count(e.steps), restarts=_restart_pct(e.time_off_training)))
    if a.training.stages_before:
        # The wall-clock above is the pipeline's (estimate.model._add_stages_before); the step and steps are this stage's.
        add("")
        add(_("The time and cost are the whole pipeline's: the step above is this stage's, and the stages before it run first on "
              "the same GPUs (the stage rows in the summary)."))
    if d.deployment.train_batch_tokens != round(e.global_batch_tokens):
        # One step, two sizes (user try 2026-12-05): say which the launch files run and how the estimate prices it.
        add("")
        add(_("The launch files run {run} tokens a step (How it runs): {asked} do not split into whole micro-batches over {dp} "
              "data-parallel ranks. The estimate prices the batch asked at the pace of the fullest rank; run as the files round it, "
              "the same tokens take fewer steps of the same length, {pct} less time.", run=count(d.deployment.train_batch_tokens),
              asked=count(e.global_batch_tokens), dp=d.deployment.data_parallel,
              pct=percent(1.0 - e.global_batch_tokens / d.deployment.train_batch_tokens)))
    add("")
    for scale in scale_notes(e, a, d.plan.runs_per_month, d.plan.greenfield, d.deployment):
        add(f"- {scale}")
        add("")
    _communication_table(add, e)
    _deepspeed_table(add, {est.strategy: est for est in option_rows(d)})
    add(_("A day of the planned {gpus} GPUs costs {day}; making the run 20% faster would save {saving}.", gpus=count(r.gpus),
          day=money(e.cost_per_day, cur), saving=money(e.savings_if_20pct_faster, cur)) + note("", "", "seed:K16"))
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
    add(_("## Options considered on {gpus} GPUs", gpus=r.gpus))
    add("")
    add(_("Rule score: the points the rules gave each strategy; it only breaks ties between options whose cost is within {tie} of the "
          "cheapest. Runs: fits in memory, the batch feeds every GPU and no rule excludes it.", tie=percent(COST_TIE)))
    add("")
    add(_("| Strategy | Framework | Runs | GB per GPU | Time | Cost | Exposed comm. | Rule score | Why not |"))
    add("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    option_list = option_rows(d)
    for est, said in zip(option_list, money_column([est.cost for est in option_list], cur), strict=True):
        s = est.strategy
        why = _("**chosen**") if s == r.strategy else join_reasons(est.why_not)
        add(
            f"| `{s}` | {_md(FRAMEWORKS[s])} | {_md(_runs_word(est, d.hardware.usable_gb))} | {est.memory_per_gpu_gb:,.1f} | "
            f"{hours_text(est.wall_clock_hours)} | {said} | {est.communication_share:.0%} | "
            f"{format_number(est.score)} | {_md(why)} |"
        )
    add("")
    add(_("## What if: other GPU counts"))
    add("")
    if any(wi.gpus < a.cluster.gpus_per_node for wi in d.what_if):  # 1, 2, 4 on one node read under 'whole nodes of 8' (user try 9)
        add(_("The best option the search found at each GPU count (within one node, then whole nodes of {n}); `advisor sweep` prices any range.",
              n=a.cluster.gpus_per_node))
    else:
        add(_("The best option the search found at each GPU count (whole nodes of {n}); `advisor sweep` prices any range.", n=a.cluster.gpus_per_node))
    if d.method is not None and d.method.planned != d.method.asked:
        # the sweep prices the method the answers ask, so its 16-GPU row read 3,485 CNY beside this table's 1,862 (user try 2026-12-06)
        add(_("These rows are {planned}; `advisor sweep` prices the {asked} the answers ask for: set training.method to {method} and "
              "training.global_batch_tokens to {batch} to price these.", planned=method_names()[d.method.planned],
              asked=method_names()[d.method.asked], method=d.method.planned, batch=round(e.global_batch_tokens)))
    add("")
    add(_("| GPUs | Best strategy | Time | Cost per run | Deadline | Note |"))
    add("| --- | --- | --- | --- | --- | --- |")
    what_if_cost = money_column([wi.cost or 0 for wi in d.what_if], cur)  # one unit for the column
    for row_no, wi in enumerate(d.what_if):
        if wi.strategy is None:
            add(f"| {wi.gpus:,} | {nothing_text(wi)} | | | | |")
            continue
        dl = "" if wi.meets_deadline is None else deadline_word(wi.meets_deadline, wi.wall_clock_hours or 0.0, a.training.deadline_days)
        add(f"| {wi.gpus:,} | `{wi.strategy}` | {hours_text(wi.wall_clock_hours or 0)} | {what_if_cost[row_no]} | {dl} | "
            f"{_md(what_if_note(wi, d))} |")
    add("")
    if risk := at_risk_note(d):
        add(risk)
        add("")
    out.extend(what_if_charts(d))
    add(_("## Trade-offs"))
    add("")
    add(_("No framework is best everywhere: optimising communication costs compute, and saving memory can cost speed; "
          "the right choice depends on cluster scale and network bandwidth.") + note("", "", "seed:K10"))
    add("")
    for item in d.tradeoffs:
        add(f"- {_md_inline(item.text)}{note(item.rule, item.title, item.source)}")
    add(_("- Exposed communication for `{strategy}`: {share} of each step.", strategy=r.strategy, share=percent(e.communication_share))
        + note("", "", "seed:K3"))
    add(_("- Activation recomputation: {recompute}; micro-batch {micro} (largest that fits: {largest}), gradient accumulation {accumulation}.",
          # in words: '`full on 50% of layers`' stood in the Chinese memo (user try 9)
          recompute=recompute_word(e.activation_recompute), micro=e.micro_batch_size, largest=e.max_micro_batch_size,
          accumulation=e.gradient_accumulation_steps) + note("", "", "seed:K17"))
    add("")
    cited_list(add, _("## Context from the rules"), d.context, note)
    add(_("## Questions for the engineers"))
    add("")
    for q in d.questions:
        add(f"- {_md_inline(q.text)}{note(q.rule, '', q.source)}")
    add("")
    add(_("## Pre-launch checklist"))
    add("")
    done = set(a.project.checklist_done or ())
    for c in d.checklist:
        add(f"- [{'x' if c.text in done else ' '}] {_md_inline(c.text)}{note(c.rule, '', c.source)}")
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
        # the article's items as the footnotes say them ('the source article, item K4'), not 'seed:K4' (user try 14)
        add(f"| `{fr.id}` | {_md(fr.title)} | {_md(sources_said(fr.source))} |")
    add("")
    if any(fr.tree for fr in d.fired_rules):
        add(_("### Why each rule fired"))
        add("")
        add(_("Each condition with the value it saw: ✓ held, ✗ did not."))
        add("")
        add("```text")
        for fr in d.fired_rules:
            if fr.tree:
                add(fr.id)
                for line in condition_tree(fr.tree, 1):
                    add(line)
        add("```")
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
    add(yaml.safe_dump(whole_numbers(shown), sort_keys=False, allow_unicode=True).rstrip())
    add("```")
    if fn.entries:
        add("")
        add(_("## Sources"))
        add("")
        if fn.cites_article:
            add(article_named())
            add("")
        for i, entry in enumerate(fn.entries, 1):
            add(f"[^{i}]: {_md_inline(entry)}")
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


_OP_SIGNS = {"eq": "=", "ne": "≠", "lt": "<", "le": "≤", "gt": ">", "ge": "≥", "in": "∈", "not_in": "∉"}


_FOOTNOTE_DEFINITION = re.compile(r"^\[\^(\d+)\]:[ ]?", re.M)
_FOOTNOTE_REFERENCE = re.compile(r"\[\^(\d+)\]")


def memo_for_screen(memo: str, width: int | None = None) -> str:
    """The memo as Textual's Markdown widget can show it: that widget has no footnotes, so '[^3]' would show as typed.
    References become ' [3]' and the Sources section a numbered list; the exported memo keeps GitHub's footnotes.

    ``width``: the screen's columns. A table with more columns than fit (about one per 16 cells) is shown a row a line,
    each value named ('- **`fsdp`** — Runs: yes · Time: 45.8 h · …'): at 80 columns the widget squeezed a nine-column
    table to 'y…', '4… d…' and wrapped its last column a word a line."""
    listed = _FOOTNOTE_DEFINITION.sub(lambda m: f"{m.group(1)}. ", memo)
    text = _FOOTNOTE_REFERENCE.sub(lambda m: f" [{m.group(1)}]", listed)
    # The widget draws no Mermaid: a chart's source read as 'xychart-beta / line [1.9, 2.6 ...]' (user try 2026-12-05).
    text = _MERMAID.sub(lambda _m: "*" + _("The chart is drawn on the Chart tab, and in the exported memo.") + "*\n", text)
    return text if width is None else _narrow_tables(text, max(3, width // 16))


_MERMAID = re.compile(r"^```mermaid\n.*?^```\n", re.S | re.M)
"""A Mermaid block of the memo, whole."""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _narrow_tables(text: str, most: int) -> str:
    """Markdown tables with more than ``most`` columns as one bullet a row: the first cell, then 'Header: value' pairs."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        is_table = line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").split()) <= {"---", ":---", "---:", ":---:"} \
            and lines[i + 1].startswith("| ---")
        if not is_table or len(_cells(line)) <= most:
            out.append(line)
            i += 1
            continue
        header = _cells(line)
        i += 2
        while i < len(lines) and lines[i].startswith("|"):
            row = _cells(lines[i])
            pairs = [f"{h}: {v}" for h, v in zip(header[1:], row[1:], strict=False) if v]
            out.append(f"- **{row[0]}** — " + " · ".join(pairs) if row[0] else "- " + " · ".join(pairs))
            i += 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def condition_tree(node: TraceNode, depth: int = 0) -> list[str]:
    """A fired rule's condition as a compact indented tree, one line a node: '✓ all of', '  ✓ gpus (8) < 64'."""
    mark = "✓" if node.result else "✗"
    indent = "  " * depth
    groups = {"all": _("all of"), "any": _("any of"), "not": _("not"), "always": _("always")}
    if node.op in groups:
        lines = [f"{indent}{mark} {groups[node.op]}"]
        for child in node.children:
            lines.extend(condition_tree(child, depth + 1))
        return lines
    seen = f"{node.fact} ({_trace_value(node.seen)})"
    if node.op == "is_set":
        return [f"{indent}{mark} " + (_("{fact} is known", fact=seen) if node.value else _("{fact} is not known", fact=seen))]
    value = node.value
    other = f"{value['fact']} ({_trace_value(value.get('seen'))})" if isinstance(value, dict) else _trace_value(value)
    return [f"{indent}{mark} {seen} {_OP_SIGNS.get(node.op, node.op)} {other}"]


def _trace_value(value: Any) -> str:
    if value is None:
        return _("unknown")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, list):
        return "[" + ", ".join(_trace_value(v) for v in value) + "]"
    return str(value)


def _gpu_type_table(add, d: Report, cur: str) -> None:
    """The GPU types compared (cluster.candidates): the best plan on each."""
    rows = gpu_type_rows(d)
    if not rows:
        return
    add(_("| GPU type | {currency} per GPU-hour | Best plan on it | Time | Cost | Result |", currency=money_unit(cur)))
    add("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        add("| " + " | ".join(_md(x) for x in row) + " |")
    add("")


def cited_list(add: Callable[[str], None], title: str, items: Sequence[Any], note: Callable[[str, str, Any], str]) -> None:
    """A titled list of reasons, each with its footnote; nothing when there are none."""
    if not items:
        return
    add(title)
    add("")
    for item in items:
        add(f"- {_md_inline(item.text)}{note(item.rule, item.title, item.source)}")
    add("")


def _calls(calls: float) -> str:
    """Calls per step: whole numbers as such; a share of the steps (PowerSGD's warm-up and compressed phases, averaged over
    the run) with two decimals."""
    return f"{calls:,.0f}" if abs(calls - round(calls)) < 1e-9 else f"{calls:,.2f}"


def _communication_table(add, e: Estimate) -> None:
    """Per-step traffic of the chosen strategy, per GPU, by collective and link (JSON: estimate.communication)."""
    c = e.communication
    if not c.per_step:
        add(_("No communication: one GPU."))
        add("")
        return
    add(_("Communication per optimizer step, per GPU ({share} of the step exposed):", share=percent(e.communication_share)))
    add("")
    add(_("| Collective | Kind | Payload (GB) | Calls | In-node (GB) | Network (GB) | Seconds | Hides behind |"))
    add("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in c.per_step:
        add(
            f"| {_md(collective_words(row.name))} | {row.collective} | {row.payload_gb:,.3f} | {_calls(row.calls_per_step)} | "
            f"{row.intra_node_gb:,.2f} | {row.inter_node_gb:,.2f} | {row.seconds:.3f} | {overlap_words(row.overlaps_with)} |"
        )
    add("")


OVERLAP_WORDS = {"backward": N_("each backward pass"), "last-backward": N_("the last micro-batch's backward"), "compute": N_("compute"),
                 "none": N_("nothing to hide behind"), "attention": N_("the attention computation"), "tensor-gemm": N_("the tensor-parallel matrix multiplications"),
                 "first-forward": N_("the first forward pass"), "warm-up": N_("the pipeline's warm-up")}
"""What a collective hides behind (communication.Collective.overlap), in words."""


def collective_words(name: str) -> str:
    """A collective's name in the current language: the estimate names them in English, each marked N_ where it is
    written (estimate/communication.py); a name with figures in it, as PowerSGD's rank, has no entry and stays as named."""
    return _(name)


def overlap_words(kind: str) -> str:
    return _(OVERLAP_WORDS[kind]) if kind in OVERLAP_WORDS else kind


def _deepspeed_table(add, estimates: dict[str, Alternative]) -> None:
    """DeepSpeed's own model-state estimate for ZeRO-2 and ZeRO-3, every offload option (GiB, as DeepSpeed prints);
    nothing where it has no rows (a LoRA/QLoRA plan: DeepSpeed's estimator prices full training, not a frozen base)."""
    if not any(estimates[s].deepspeed_estimator for s in ("deepspeed-zero2", "deepspeed-zero3") if s in estimates):
        return
    add(_("DeepSpeed's own model-state estimator for this job (estimate_zero2/zero3_model_states_mem_needs; "
          "model states only, activations come on top; CPU figures include DeepSpeed's 1.5 buffer factor):"))
    add("")
    add(_("| Stage | Options | per GPU (GiB) | per CPU node (GiB) |"))
    add("| --- | --- | --- | --- |")
    for strategy, stage in (("deepspeed-zero2", "ZeRO-2"), ("deepspeed-zero3", "ZeRO-3")):
        for row in estimates[strategy].deepspeed_estimator or []:
            add(f"| {stage} | {row.options} | {row.gpu_gib:,.2f} | {row.cpu_gib_per_node:,.2f} |")
    add("")
