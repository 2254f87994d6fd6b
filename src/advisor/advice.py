"""From answers to advice: estimate, evaluate the rules, choose, explain.

The choice is deliberately simple and auditable: every fired rule adds its points; excluded
strategies and strategies that do not fit in memory are out; the highest score wins, ties go to
the cheaper estimate and then to the simpler framework. A strategy that does not fit is never
recommended without a blocking warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .answers import STRATEGIES, Answers
from .catalog import efficiency_data, mfu_band
from .estimate import (
    ASSUMPTIONS,
    FRAMEWORKS,
    GB,
    INTERRUPTIONS_PER_GPU_HOUR,
    MEMORY_CONVENTION,
    StrategyEstimate,
    cost,
    deepspeed_table,
)
from .facts import Evaluation, compute_facts
from .rules import Rule, RuleSet, format_number, render_template

SIMPLICITY = {s: i for i, s in enumerate(STRATEGIES)}

DEEPSPEED_ESTIMATED = ("deepspeed-zero2", "deepspeed-zero3", "deepspeed-zero3-offload")
"""Strategies whose JSON carries DeepSpeed's own estimator table (ZeRO-2, or ZeRO-3 for both ZeRO-3 variants)."""


@dataclass
class FiredRule:
    rule: Rule
    rationale: str | None
    trace: list[dict[str, Any]]


@dataclass
class Advice:
    """Everything a front end shows; ``to_dict`` is the JSON contract."""

    answers: Answers
    evaluation: Evaluation
    strategy: str
    scores: dict[str, float]
    fired: list[FiredRule]
    not_fired: list[FiredRule]
    excluded: dict[str, list[str]]
    questions: list[dict[str, str]]
    checklist: list[dict[str, str]]
    warnings: list[dict[str, Any]]
    default_used: bool
    default_rationale: str | None

    @property
    def facts(self) -> dict[str, Any]:
        return self.evaluation.facts

    def estimate_dict(self, strategy: str) -> dict[str, Any]:
        return estimate_dict(self.evaluation, strategy)

    def rationale(self) -> list[dict[str, Any]]:
        """Fired rules that argue for the recommendation, or that speak to the whole decision."""
        out = []
        for fr in self.fired:
            sc = fr.rule.then.score.get(self.strategy, 0)
            general = not fr.rule.then.score and not fr.rule.then.exclude
            if (sc > 0 or general) and fr.rationale:
                out.append({"rule": fr.rule.id, "title": fr.rule.title, "text": fr.rationale, "source": list(fr.rule.source), "points": sc})
        if self.default_used and self.default_rationale:
            out.append({"rule": "default", "title": "Default outcome", "text": self.default_rationale, "source": ["advisor default"], "points": 0})
        return out

    def why_not(self, strategy: str) -> list[str]:
        """Reasons an alternative lost, most decisive first."""
        reasons: list[str] = []
        e = self.evaluation.estimates[strategy]
        if not bool(e.fits[0]):
            reasons.append(
                f"does not fit: needs {e.memory[0] / GB:,.1f} GB per GPU, the {self.answers.cluster.spec.name} has {self.answers.cluster.spec.memory_gb:g} GB"
            )
        if not bool(e.cpu_fits[0]):
            reasons.append(f"needs {e.cpu_per_node[0] / GB:,.0f} GB of host RAM per node for offload; the nodes have {self.answers.cluster.cpu_memory_gb_per_node:g} GB")
        reasons.extend(self.excluded.get(strategy, []))
        for fr in self.fired:
            if fr.rule.then.score.get(strategy, 0) < 0 and fr.rationale:
                reasons.append(fr.rationale)
        if not reasons:
            mine, theirs = self.scores[self.strategy], self.scores[strategy]
            ch = self.facts[f"cost.{self.strategy}"]
            ct = self.facts[f"cost.{strategy}"]
            cur = self.facts["currency"]
            if theirs < mine:
                reasons.append(f"scored {format_number(theirs)} against {format_number(mine)} for {self.strategy}")
            elif ct > ch * 1.001:
                reasons.append(f"same score, but costs {format_number(ct)} {cur} against {format_number(ch)} {cur}")
            else:
                reasons.append(f"same score and cost; {self.strategy} is simpler to run")
        return reasons

    def to_dict(self) -> dict[str, Any]:
        s = self.strategy
        f = self.facts
        return {
            "recommendation": {
                "strategy": s,
                "framework": FRAMEWORKS[s],
                "score": self.scores[s],
                "rationale": self.rationale(),
                "blocked": any(w["blocking"] for w in self.warnings),
            },
            "estimate": self.estimate_dict(s),
            "alternatives": [
                {"strategy": o, "framework": FRAMEWORKS[o], "score": self.scores[o], **self.estimate_dict(o), "why_not": self.why_not(o)}
                for o in STRATEGIES
                if o != s
            ],
            "questions": self.questions,
            "checklist": self.checklist,
            "warnings": self.warnings,
            "fired_rules": [
                {"id": fr.rule.id, "title": fr.rule.title, "source": list(fr.rule.source), "priority": fr.rule.priority,
                 "file": fr.rule.file, "rationale": fr.rationale, "conditions": fr.trace}
                for fr in self.fired
            ],
            "scale": {
                "tokens": self.evaluation.context["tokens"],
                "tokens_implied": self.evaluation.context["tokens_implied"],
                "baseline_hours": self.evaluation.context["baseline_hours"],
                "fewer_gpus": self.evaluation.fewer_gpus,
                "monthly_cost": f["monthly_cost"],
            },
            "shape": {
                "layers": self.evaluation.context["workload"].shape.layers,
                "hidden_size": self.evaluation.context["workload"].shape.hidden,
                "attention_heads": self.evaluation.context["workload"].shape.heads,
                "source": self.evaluation.context["workload"].shape.source,
            },
            "assumptions": assumptions(self.evaluation),
            "answers": self.answers.model_dump(mode="json", exclude_none=True),
        }


def assumptions(ev: Evaluation) -> list[str]:
    spec = ev.answers.cluster.spec
    band = mfu_band(spec.generation)
    _, link = efficiency_data()
    hw = ev.context["hardware"]
    out = list(ASSUMPTIONS)
    out.append(f"GPU: {spec.name}, {spec.memory_gb:g} GB, {spec.peak_tflops:g} TFLOP/s dense BF16 ({spec.source}).")
    out.append(f"MFU band for {spec.generation}: {band.low:.2f} / {band.mid:.2f} / {band.high:.2f} (low / mid / high) — {band.source}.")
    out.append(
        f"Links: {hw.intra_link} {hw.intra_bw / GB / link['intra_node']:g} GB/s inside a node, "
        f"{ev.answers.cluster.inter_node_gbps:g} Gbit/s per node across nodes, before efficiency."
    )
    out.append(f"Model shape: {ev.context['workload'].shape.layers} layers, hidden {ev.context['workload'].shape.hidden}, "
               f"{ev.context['workload'].shape.heads} heads ({ev.context['workload'].shape.source}).")
    if ev.context["tokens_implied"]:
        out.append(
            f"Tokens were not given: {ev.context['tokens'] / 1e9:,.1f}B tokens implied by the known "
            f"{ev.context['baseline_hours']:g} h run with {ev.answers.training.current_strategy} at mid efficiency."
        )
    if ev.context["baseline_hours"] is not None:
        out.append(
            f"The known duration ({ev.context['baseline_hours']:g} h) is the baseline for {ev.answers.training.current_strategy}; "
            "other strategies scale by their modelled step-time ratio to it."
        )
    return out


def estimate_dict(ev: Evaluation, strategy: str) -> dict[str, Any]:
    e: StrategyEstimate = ev.estimates[strategy]
    a = ev.answers
    price, gpus = a.budget.price_per_gpu_hour, a.cluster.gpus
    hours = {b: float(e.hours[b][0]) for b in ("low", "mid", "high")}
    costs = {b: float(cost(hours[b], price, gpus)) for b in hours}
    mid = hours["mid"]
    return {
        "wall_clock_hours": mid,
        "wall_clock_days": mid / 24.0,
        "gpu_hours": mid * gpus,
        "cost": costs["mid"],
        "currency": a.budget.currency.upper(),
        "cost_per_day": 24.0 * price * gpus,
        "savings_if_20pct_faster": 0.2 * costs["mid"],
        "range": {
            "wall_clock_hours": [hours["low"], hours["high"]],
            "gpu_hours": [hours["low"] * gpus, hours["high"] * gpus],
            "cost": [costs["low"], costs["high"]],
        },
        "memory_per_gpu_gb": float(e.memory[0]) / GB,
        "model_states_gb_per_gpu": float(e.model_states[0]) / GB,
        "activations_gb_per_gpu": float(e.activations[0]) / GB,
        "cpu_memory_gb_per_node": float(e.cpu_per_node[0]) / GB,
        "fits": bool(e.fits[0]),
        "cpu_fits": bool(e.cpu_fits[0]),
        "memory_convention": MEMORY_CONVENTION[strategy],
        "communication_share": float(e.communication_share[0]),
        "communication_seconds_per_step": float(e.comm_s[0]),
        "exposed_communication_seconds_per_step": float(e.exposed_comm_s[0]),
        "communication": communication_dict(e),
        "compute_seconds_per_step": float(e.compute_s[0]),
        "pipeline_bubble_seconds_per_step": float(e.bubble_s[0]),
        "step_seconds": float(e.step_s["mid"][0]),
        "steps": ev.context["tokens"] / float(e.batch_tokens[0]),
        "effective_global_batch_tokens": float(e.batch_tokens[0]),
        "interruption_overhead": float(e.interruption_factor[0]) - 1.0,
        "expected_interruptions": INTERRUPTIONS_PER_GPU_HOUR * gpus * mid,
        "scaling_efficiency": ev.facts[f"scaling_efficiency.{strategy}"],
        "activation_recompute": str(e.recompute[0]),
        "micro_batch_size": int(e.micro_batch[0]),
        "max_micro_batch_size": int(e.max_micro_batch[0]),
        "gradient_accumulation_steps": int(e.accumulation[0]),
        "tensor_parallel": int(e.tp[0]),
        "pipeline_parallel": int(e.pp[0]),
        "data_parallel": int(gpus // (e.tp[0] * e.pp[0])),
        **({"deepspeed_estimator": deepspeed_rows(ev, strategy)} if strategy in DEEPSPEED_ESTIMATED else {}),
    }


def communication_dict(e: StrategyEstimate) -> dict[str, Any]:
    """Per-step traffic per GPU, by collective and by link (estimators-notes §8)."""
    rows = [
        {
            "name": c.name,
            "collective": c.kind,
            "payload_gb": float(c.payload[0]) / GB,
            "calls_per_step": float(c.calls[0]),
            "intra_node_gb": float(c.intra_bytes[0]) / GB,
            "inter_node_gb": float(c.inter_bytes[0]) / GB,
            "seconds": float(c.seconds[0]),
            "overlaps_with": c.overlap,
        }
        for c in e.collectives
        if float(c.calls[0]) > 0 and float(c.seconds[0]) > 0
    ]
    return {
        "per_step": rows,
        "intra_node_gb_per_step": sum(r["intra_node_gb"] for r in rows),
        "inter_node_gb_per_step": sum(r["inter_node_gb"] for r in rows),
    }


def deepspeed_rows(ev: Evaluation, strategy: str) -> list[dict[str, Any]]:
    """DeepSpeed's printed model-state table for this stage, every offload option, in GB (10^9 B) and GiB."""
    a = ev.answers
    return [
        {"options": r.options, "gpu_gb": r.gpu_bytes / GB, "cpu_gb_per_node": r.cpu_bytes / GB,
         "gpu_gib": r.gpu_bytes / 2**30, "cpu_gib_per_node": r.cpu_bytes / 2**30}
        for r in deepspeed_table(strategy, ev.context["workload"], a.cluster.gpus, a.cluster.gpus_per_node)
    ]


def advise(answers: Answers, rules: RuleSet) -> Advice:
    """Estimate, evaluate every rule in order, and choose."""
    ev = compute_facts(answers)
    facts = ev.facts
    scores = {s: 0.0 for s in STRATEGIES}
    excluded: dict[str, list[str]] = {}
    fired: list[FiredRule] = []
    not_fired: list[FiredRule] = []
    questions: list[dict[str, str]] = []
    checklist: list[dict[str, str]] = []
    warnings: list[dict[str, Any]] = []
    seen_q: set[str] = set()
    seen_c: set[str] = set()
    for rule in rules.rules:
        trace: list[dict[str, Any]] = []
        if not rule.test(facts, trace):
            not_fired.append(FiredRule(rule, None, trace))
            continue
        t = rule.then
        text = render_template(t.rationale, facts) if t.rationale else None
        fired.append(FiredRule(rule, text, trace))
        for s, pts in t.score.items():
            scores[s] += pts
        for s in t.exclude:
            excluded.setdefault(s, []).append(text or rule.title)
        src = ", ".join(rule.source)
        for q in t.questions:
            q_text = render_template(q, facts)
            if q_text not in seen_q:
                seen_q.add(q_text)
                questions.append({"text": q_text, "rule": rule.id, "source": src})
        for c in t.checklist:
            c_text = render_template(c, facts)
            if c_text not in seen_c:
                seen_c.add(c_text)
                checklist.append({"text": c_text, "rule": rule.id, "source": src})
        for w in t.warnings:
            warnings.append({"text": render_template(w.text, facts), "blocking": w.blocking, "rule": rule.id, "source": src})

    def usable(s: str) -> bool:
        return facts[f"fits.{s}"] and facts[f"cpu_fits.{s}"] and s not in excluded

    candidates = [s for s in STRATEGIES if usable(s)]
    default_used = False
    default_rationale = None
    if not any(scores.values()) and rules.default and usable(rules.default.strategy):
        choice = rules.default.strategy
        default_used = True
        default_rationale = render_template(rules.default.rationale, facts)
    elif candidates:
        choice = max(candidates, key=lambda s: (scores[s], -facts[f"cost.{s}"], -SIMPLICITY[s]))
    elif fitting := [s for s in STRATEGIES if facts[f"fits.{s}"] and facts[f"cpu_fits.{s}"]]:
        # Rules excluded every strategy that fits: say so, and show the best of them rather than one that cannot run.
        choice = max(fitting, key=lambda s: (scores[s], -facts[f"cost.{s}"], -SIMPLICITY[s]))
        warnings.insert(0, {
            "text": f"Rules excluded every strategy that fits ({', '.join(fitting)}); showing {choice}. Review the exclusions before launching.",
            "blocking": True, "rule": "all-fitting-excluded", "source": "advisor engine",
        })
    else:
        # Nothing fits (or every fitting strategy was excluded): show the least-memory option, blocked.
        choice = min(STRATEGIES, key=lambda s: (facts[f"memory_gb.{s}"], SIMPLICITY[s]))
        need = facts[f"memory_gb.{choice}"]
        warnings.insert(0, {
            "text": (
                f"No strategy fits: even {choice} needs {need:,.1f} GB per GPU on {facts['gpu_memory_gb']:g} GB GPUs"
                + ("" if facts[f"cpu_fits.{choice}"] else f" and more host RAM than the {facts['cpu_memory_gb_per_node']:g} GB per node")
                + ". Add GPUs, use larger-memory GPUs, or shorten seq_len before launching."
            ),
            "blocking": True, "rule": "memory-fit", "source": "estimators-notes §2 (DeepSpeed estimators), §4-5",
        })
    return Advice(
        answers=answers, evaluation=ev, strategy=choice, scores=scores, fired=fired, not_fired=not_fired,
        excluded=excluded, questions=questions, checklist=checklist, warnings=warnings,
        default_used=default_used, default_rationale=default_rationale,
    )
