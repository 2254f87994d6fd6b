"""Advice as terminal text, JSON, or the markdown decision memo.

Rendering is deterministic (no clock, no locale): the same answers and rules give the same bytes,
which is what makes the golden-file memo tests meaningful.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import yaml

from .advice import Advice, hours_text, money, pct_change
from .decide import COST_TIE
from .answers import STRATEGIES, Answers
from .estimate import FRAMEWORKS
from .rules import format_number


def spread(lo: float, hi: float, fmt, calibrated: bool) -> str:
    """'(range a – b)', or a note that a measured run pins the figure when the band collapses."""
    if abs(hi - lo) <= 1e-9 * max(abs(hi), 1.0):
        return "(calibrated to the measured run)" if calibrated else ""
    return f"(range {fmt(lo)} – {fmt(hi)})"


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
        return f"Blocked: nothing can run as asked (showing {fw} on {p.chosen.gpus} GPUs); resolve the blocking warnings first."
    if p.status_quo:
        return f"No change needed: keep {fw} on {p.chosen.gpus} GPUs."
    if p.keeps_strategy:
        return f"Keep {fw}; run on {p.chosen.gpus} GPUs instead of {p.today.gpus}."
    where = f"on the same {p.chosen.gpus} GPUs" if p.chosen.gpus == p.today.gpus else f"on {p.chosen.gpus} GPUs instead of {p.today.gpus}"
    return f"Switch from {FRAMEWORKS[a.training.current_strategy]} to {fw}, {where}."


def summary_rows(advice: Advice, d: dict[str, Any], user_text: Callable[[str], str] = str) -> list[tuple[str, str, str]]:
    """(what, today, recommended) rows of the executive summary, from the dict ``advice.to_dict()`` already built;
    ``user_text`` escapes what the user typed (the memo's markdown escaping)."""
    t, e, a = d["today"], d["estimate"], advice.answers
    gpu = user_text(a.cluster.spec.name)
    cur = e["currency"]
    p = advice.plan
    runs = p.runs_per_month
    today_runs = t["fits"] and t["batch_ok"]
    measured = d["scale"]["baseline_hours"] is not None
    t_time, e_time = _same_unit(t["wall_clock_hours"], e["wall_clock_hours"])
    if not today_runs and not measured:
        t_time = "cannot run"
    rows = [
        ("Framework", FRAMEWORKS[t["strategy"]], FRAMEWORKS[d["recommendation"]["strategy"]]),
        ("GPUs", f"{t['gpus']:,} × {gpu}", f"{advice.gpus:,} × {gpu}"),
        ("Fits in GPU memory", "yes" if today_runs else "no", "yes" if e["fits"] and e["batch_ok"] else "no"),
        ("Time per run" + (" (today: measured)" if measured else ""), t_time, e_time),
        ("Cost per run", money(t["cost"], cur) if today_runs or measured else "cannot run", money(e["cost"], cur)),
        (f"Per month ({format_number(round(runs, 1))} run{'' if round(runs, 1) == 1 else 's'})",
         money(p.today.monthly, cur) if today_runs or measured else "cannot run", money(p.chosen.monthly, cur)),
    ]
    known = today_runs or measured

    def today(text: str) -> str:
        return text if known else "—"

    if a.budget.monthly_limit:
        lim = a.budget.monthly_limit
        rows.append((f"Monthly ceiling {money(lim, cur)}", today(_within(p.today.monthly <= lim)), _within(p.chosen.monthly <= lim)))
    if a.budget.limit:
        rows.append((f"Run budget {money(a.budget.limit, cur)}", today(_within(p.today.cost <= a.budget.limit)), _within(p.chosen.cost <= a.budget.limit)))
    if a.training.deadline_days is not None:
        rows.append((f"Deadline {format_number(a.training.deadline_days)} days", today("met" if p.today.meets_deadline else "missed"),
                     "met" if p.chosen.meets_deadline else "missed"))
    return rows


def _same_unit(a: float, b: float) -> tuple[str, str]:
    """Two durations side by side in one unit: days when either is two days or more."""
    if max(a, b) >= 48:
        return f"{a / 24:,.1f} days", f"{b / 24:,.1f} days"
    return f"{a:,.1f} h", f"{b:,.1f} h"


def _within(ok: bool) -> str:
    return "within" if ok else "over"


def summary_notes(advice: Advice) -> list[str]:
    """The deadline verdict, the cheapest way to meet it, what cheaper would cost in time, and the top risks."""
    p, a, cur = advice.plan, advice.answers, advice.facts["currency"]
    out = [f"How it was chosen: {p.objective}."]
    dl = a.training.deadline_days
    if dl is not None:
        cm = p.cheapest_meeting_deadline
        if cm is None:
            fastest = p.fastest
            out.append(f"The {format_number(dl)}-day deadline cannot be met with up to {max(o.gpus for o in p.options):,} GPUs"
                       + (f": the fastest option, {fastest.strategy} on {fastest.gpus} GPUs, takes {hours_text(fastest.hours)}." if fastest else "."))
        elif cm.gpus != p.chosen.gpus or cm.cost < p.chosen.cost * (1 - COST_TIE):
            out.append(f"Cheapest way to meet the {format_number(dl)}-day deadline: {cm.strategy} on {cm.gpus} GPUs, "
                       f"{hours_text(cm.hours)} for {money(cm.cost, cur)} a run.")
    if p.cheaper_slower is not None:
        c = p.cheaper_slower
        slow, fast = _same_unit(c.hours, p.chosen.hours)
        out.append(f"Cheaper but slower: {c.gpus} GPUs with {c.strategy} cost {money(c.cost, cur)} a run "
                   f"({pct_change(c.cost, p.chosen.cost)}) and take {slow} instead of {fast}.")
    for w in advice.warnings[:3]:
        out.append(("Blocking: " if w["blocking"] else "Risk: ") + w["text"])
    return out


def what_if_rows(advice: Advice) -> list[dict[str, Any]]:
    """The best runnable option at every GPU count the search priced, today and the choice marked."""
    p = advice.plan
    rows = []
    for g in sorted({o.gpus for o in p.options}):
        here = [o for o in p.options if o.gpus == g and o.runnable]
        if not here:
            rows.append({"gpus": g, "option": None, "note": "nothing fits"})
            continue
        ok = [o for o in here if o.meets_deadline is not False] or here
        if g == p.chosen.gpus and p.chosen in ok:
            best = p.chosen
        else:
            cheapest = min(o.cost for o in ok)
            band = [o for o in ok if o.cost <= cheapest * (1 + COST_TIE)]
            best = min(band, key=lambda o: (o.strategy != p.today.strategy, -o.score, o.hours, STRATEGIES.index(o.strategy)))
        notes = []
        if g == p.today.gpus:
            notes.append("today")
        if g == p.chosen.gpus:
            notes.append(f"chosen ({p.chosen.strategy})")
        if p.cheapest_meeting_deadline and g == p.cheapest_meeting_deadline.gpus and (g != p.chosen.gpus):
            notes.append("cheapest meeting the deadline")
        rows.append({"gpus": g, "option": best, "note": ", ".join(notes)})
    return rows


# ------------------------------------------------------------------------------ text


def to_text(advice: Advice) -> str:
    d = advice.to_dict()
    r, e = d["recommendation"], d["estimate"]
    cur = e["currency"]
    lines: list[str] = [f"Decision: {headline(advice)}", ""]
    for what, today, rec in summary_rows(advice, d):
        lines.append(f"  {what:<34} {today:>28}  →  {rec}")
    lines.append("")
    lines.extend(f"  {note}" for note in summary_notes(advice))
    lines.append("")
    blocked = "  [BLOCKED — see warnings]" if r["blocked"] else ""
    lines.append(f"Recommendation: {r['framework']} ({r['strategy']}) on {advice.gpus} GPUs{blocked}")
    lines.append("")
    lo, hi = e["range"]["wall_clock_hours"]
    clo, chi = e["range"]["cost"]
    cal = d["scale"]["baseline_hours"] is not None
    lines.append(f"  Time    {hours_text(e['wall_clock_hours'])}  {spread(lo, hi, hours_text, cal)}".rstrip())
    lines.append(f"  Cost    {money(e['cost'], cur)}  {spread(clo, chi, lambda v: money(v, cur), cal)}".rstrip())
    lines.append(f"  GPU-h   {e['gpu_hours']:,.0f}   at {format_number(advice.answers.budget.price_per_gpu_hour)} {cur}/GPU-hour × {advice.gpus} GPUs")
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
    if e["tensor_parallel"] > 1 or e["pipeline_parallel"] > 1 or e["context_parallel"] > 1:
        lines.append(f"  Layout  {layout_text(e)}")
    lines.extend(f"  Note    {note}" for note in scale_notes(e, advice.answers))
    lines.append("")
    if d["warnings"]:
        _section(lines, "Warnings", [f"  {'BLOCKING: ' if w['blocking'] else '! '}{w['text']}" for w in d["warnings"]])
    _section(lines, "Why", [f"  - {item['text']}  [{item['rule']}; {', '.join(item['source'])}]" for item in r["rationale"]])
    if d["tradeoffs"]:
        _section(lines, "Trade-offs", [f"  - {item['text']}  [{item['rule']}; {', '.join(item['source'])}]" for item in d["tradeoffs"]])
    if d["context"]:
        _section(lines, "Context", [f"  - {item['text']}  [{item['rule']}; {', '.join(item['source'])}]" for item in d["context"]])
    lines.append(f"Options on {advice.gpus} GPUs")
    lines.append(f"  {'strategy':<24} {'fits':<5} {'GB/GPU':>8} {'time':>11} {'cost':>16}  score")
    for row in _rows(d):
        lines.append(
            f"  {row['strategy']:<24} {'yes' if row['fits'] and row['batch_ok'] else 'no':<5} {row['memory_per_gpu_gb']:>8,.1f} "
            f"{hours_text(row['wall_clock_hours']):>11} {money(row['cost'], cur):>16}  {format_number(row['score'])}"
            + ("  ← chosen" if row["strategy"] == r["strategy"] else "")
        )
    lines.append("")
    lines.append("Why not")
    lines.extend(f"  {alt['strategy']}: {alt['why_not'][0]}" for alt in d["alternatives"])
    lines.append("")
    lines.append("What if: other GPU counts (best option at each)")
    for row in what_if_rows(advice):
        o = row["option"]
        if o is None:
            lines.append(f"  {row['gpus']:>7,}  nothing fits")
            continue
        dl = "" if o.meets_deadline is None else ("  meets deadline" if o.meets_deadline else "  misses deadline")
        lines.append(f"  {row['gpus']:>7,}  {o.strategy:<24} {hours_text(o.hours):>11} {money(o.cost, cur):>16}{dl}"
                     + (f"  ← {row['note']}" if row["note"] else ""))
    lines.append("")
    _section(lines, "Ask the engineers", [f"  ? {q['text']}" for q in d["questions"]])
    _section(lines, "Pre-launch checklist", [f"  [ ] {c['text']}" for c in d["checklist"]])
    lines.append(f"Rules fired: {', '.join(f['id'] for f in d['fired_rules'])}")
    return "\n".join(lines) + "\n"


def layout_text(e: dict[str, Any]) -> str:
    v = e["virtual_pipeline_stages"]
    ep = e["expert_parallel"]
    return (f"TP={e['tensor_parallel']}" + (f" × CP={e['context_parallel']}" if e["context_parallel"] > 1 else "")
            + f" × PP={e['pipeline_parallel']} × DP={e['data_parallel']}"
            + (f", interleaved schedule with {v} virtual stages per GPU" if v > 1 else "")
            + (f", expert parallelism {ep}" if ep > 1 else ""))


def scale_notes(e: dict[str, Any], a: Answers) -> list[str]:
    """Batch and interruptions for one estimate: what changes when a job is spread over many GPUs."""
    notes = []
    if e["batch_source"] != "given":
        notes.append(f"Global batch {e['global_batch_tokens']:,.0f} tokens: {e['batch_source']}.")
    if not e["batch_ok"]:
        notes.append(
            f"{e['data_parallel']:,} data-parallel ranks but only {e['global_batch_tokens'] / a.model.seq_len:,.0f} sequences per step: "
            "the batch cannot feed every rank; use tensor/pipeline parallelism or fewer GPUs."
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


_MD_SPECIAL = str.maketrans({ch: "\\" + ch for ch in "\\`*_[]<>#!~"})  # '|' is _md's job in tables


def _md_text(text: Any) -> str:
    """User-typed text (a custom GPU's name) inside a memo line: markdown characters escaped, so a name cannot add a
    heading, a link, an image or HTML to a memo someone forwards."""
    return " ".join(str(text).split()).translate(_MD_SPECIAL)


def _md_inline(text: Any) -> str:
    """Keep text on its list line: a newline in rule or user text would start a new block (a heading, a list)."""
    return " ".join(str(text).split("\n"))


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
    add("## Executive summary")
    add("")
    add(f"**{_md(headline(advice))}**")
    add("")
    add("| | Today | Recommended |")
    add("| --- | --- | --- |")
    for what, today, rec in summary_rows(advice, d, _md_text):
        add(f"| {_md(what)} | {_md(today)} | {_md(rec)} |")
    add("")
    for note in summary_notes(advice):
        add(f"- {_md_inline(note)}")
    add("")
    add("The aim is not the most advanced framework but business value at the lowest cost and the steadiest speed (seed:K21).")
    add("")
    add("## Decision")
    add("")
    status = " **Blocked — resolve the blocking warnings first.**" if r["blocked"] else ""
    add(f"Use **{r['framework']}** (`{r['strategy']}`) on {advice.gpus} × {_md_text(a.cluster.spec.name)}.{status}")
    add("")
    lo, hi = e["range"]["wall_clock_hours"]
    clo, chi = e["range"]["cost"]
    cal = d["scale"]["baseline_hours"] is not None
    add(f"- Wall-clock: **{hours_text(e['wall_clock_hours'])}** {spread(lo, hi, hours_text, cal)}".rstrip())
    add(f"- Cost: **{money(e['cost'], cur)}** {spread(clo, chi, lambda v: money(v, cur), cal)}".rstrip())
    add(f"- GPU-hours: {e['gpu_hours']:,.0f}")
    add(f"- Memory per GPU: {e['memory_per_gpu_gb']:,.1f} GB of {a.cluster.spec.memory_gb:g} GB ({'fits' if e['fits'] else '**does not fit**'})")
    add(f"- Exposed communication: {e['communication_share']:.0%} of step time")
    if e["tensor_parallel"] > 1 or e["pipeline_parallel"] > 1:
        add(f"- Layout: {layout_text(e)}")
    add("")
    add("### Why")
    add("")
    for item in r["rationale"]:
        add(f"- {_md_inline(item['text'])} _({item['rule']}; {_md_inline(', '.join(item['source']))})_")
    add("")
    if d["warnings"]:
        add("### Warnings")
        add("")
        for w in d["warnings"]:
            add(f"- {'**Blocking:** ' if w['blocking'] else ''}{_md_inline(w['text'])} _({w['rule']}; {_md_inline(w['source'])})_")
        add("")
    add("# Engineering appendix")
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
        ("Cluster today", f"{a.cluster.gpus} × {_md_text(a.cluster.spec.name)}, {a.cluster.gpus_per_node} per node, {a.cluster.nodes} node(s)"
         + (f"; up to {a.cluster.max_gpus} available" if a.cluster.max_gpus else "")),
        ("Links", f"{advice.evaluation.context['hardware'].intra_link} inside a node, {a.cluster.network_gbps:g} Gbit/s per node" + ("" if a.cluster.inter_node_gbps else " (the GPU's usual fabric)")),
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
    add(f"    {e['wall_clock_hours']:,.1f} h × {format_number(a.budget.price_per_gpu_hour)} {cur} × {advice.gpus} GPUs = {money(e['cost'], cur)}")
    add("")
    w = advice.evaluation.context["workload"]
    add(
        f"Time comes from compute = (6 × {format_number(w.active_params)} params + 12 × {w.shape.layers} layers × {w.shape.hidden} hidden "
        f"× {w.seq_len} seq) FLOPs per token × tokens ÷ ({advice.gpus} GPUs × {a.cluster.spec.peak_tflops:g} TFLOP/s × MFU), "
        f"plus communication that cannot overlap it (ring all-reduce 2(n−1)/n × S/B over each link). One step of "
        f"{e['global_batch_tokens']:,.0f} tokens takes {e['step_seconds']:.2f} s "
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
    add(f"## Options considered on {advice.gpus} GPUs")
    add("")
    add("| Strategy | Framework | Fits | GB per GPU | Time | Cost | Exposed comm. | Score | Why not |")
    add("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for est in _rows(d):
        s = est["strategy"]
        why = "**chosen**" if s == r["strategy"] else "; ".join(est["why_not"])
        add(
            f"| `{s}` | {_md(FRAMEWORKS[s])} | {'yes' if est['fits'] and est['batch_ok'] else 'no'} | {est['memory_per_gpu_gb']:,.1f} | "
            f"{hours_text(est['wall_clock_hours'])} | {money(est['cost'], cur)} | {est['communication_share']:.0%} | "
            f"{format_number(est['score'])} | {_md(why)} |"
        )
    add("")
    add("## What if: other GPU counts")
    add("")
    add(f"The best option the search found at each GPU count (whole nodes of {a.cluster.gpus_per_node}); `advisor sweep` prices any range.")
    add("")
    add("| GPUs | Best strategy | Time | Cost per run | Deadline | Note |")
    add("| --- | --- | --- | --- | --- | --- |")
    for row in what_if_rows(advice):
        o = row["option"]
        if o is None:
            add(f"| {row['gpus']:,} | nothing fits | | | | |")
            continue
        dl = "" if o.meets_deadline is None else ("met" if o.meets_deadline else "missed")
        add(f"| {row['gpus']:,} | `{o.strategy}` | {hours_text(o.hours)} | {money(o.cost, cur)} | {dl} | {_md(row['note'])} |")
    add("")
    add("## Trade-offs")
    add("")
    add(
        "No framework is best everywhere: optimising communication costs compute, and saving memory can cost speed; "
        "the right choice depends on cluster scale and network bandwidth (seed:K10)."
    )
    add("")
    for item in d["tradeoffs"]:
        add(f"- {_md_inline(item['text'])} _({item['rule']}; {_md_inline(', '.join(item['source']))})_")
    add(f"- Exposed communication for `{r['strategy']}`: {e['communication_share']:.0%} of each step (seed:K3).")
    add(f"- Activation recomputation: `{e['activation_recompute']}`; micro-batch {e['micro_batch_size']} (largest that fits: {e['max_micro_batch_size']}), gradient accumulation {e['gradient_accumulation_steps']} (seed:K17).")
    if f["fits.deepspeed-zero2"] and f["fits.ddp"] is not None:
        add(f"- ZeRO-2 would use {f['zero_memory_saving_pct']:.0f}% less GPU memory than DDP on this job (seed:K15).")
    add("")
    if d["context"]:
        add("## Context from the rules")
        add("")
        for item in d["context"]:
            add(f"- {_md_inline(item['text'])} _({item['rule']}; {_md_inline(', '.join(item['source']))})_")
        add("")
    add("## Questions for the engineers")
    add("")
    for q in d["questions"]:
        add(f"- {_md_inline(q['text'])} _({_md_inline(q['source'])})_")
    add("")
    add("## Pre-launch checklist")
    add("")
    done = set(a.project.checklist_done or ())
    for c in d["checklist"]:
        add(f"- [{'x' if c['text'] in done else ' '}] {_md_inline(c['text'])} _({_md_inline(c['source'])})_")
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
