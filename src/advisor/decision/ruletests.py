"""Rule tests as data: answers in, expected strategy / fired rules / questions out.

A case file (rules/tests/*.yaml) holds ``cases:``, each with a ``note``, ``answers`` and
``expect``. The same runner serves pytest (one test per case) and ``advisor rules test``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.decision.advice import Advice, advise
from advisor.inputs.answers import STRATEGIES, answers_from_mapping
from advisor.base.errors import AdvisorError, RuleLoadError
from advisor.knowledge.rules import RuleSet, shipped_rules_dir
from advisor.base.safeload import load_mapping

EXPECT_KEYS = ("strategy", "not_strategy", "fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain", "blocked", "fits")


@dataclass
class CaseResult:
    note: str
    ok: bool
    detail: str
    advice: Advice | None = None


def case_files(paths: list[Path] | None) -> list[Path]:
    roots = paths or [shipped_rules_dir() / "tests"]
    files: list[Path] = []
    for p in roots:
        if p.is_dir():
            files.extend(sorted(q for q in p.iterdir() if q.suffix in (".yaml", ".yml")))
        elif p.is_file():
            files.append(p)
        else:
            raise RuleLoadError(f"{p}: no such case file or directory")
    return files


def load_cases(paths: list[Path] | None = None) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in case_files(paths):
        name, data = load_mapping(path)
        raw = data.get("cases")
        if not isinstance(raw, list) or not raw:
            raise RuleLoadError(f"{name}: cases: expected a non-empty list of cases")
        for i, case in enumerate(raw):
            where = f"{name}: cases[{i}]"
            if not isinstance(case, dict) or not isinstance(case.get("note"), str):
                raise RuleLoadError(f"{where}: each case needs a note (text), answers and expect")
            for key in case:
                if key not in ("note", "answers", "expect"):
                    raise RuleLoadError(f"{where}: unknown key '{key}'; a case has note, answers, expect")
            expect = case.get("expect") or {}
            if not isinstance(expect, dict):
                raise RuleLoadError(f"{where}.expect: expected a mapping")
            for key in expect:
                if key not in EXPECT_KEYS:
                    raise RuleLoadError(f"{where}.expect: unknown key '{key}'; allowed: {', '.join(EXPECT_KEYS)}")
            for key in ("fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain"):
                if key in expect and not (isinstance(expect[key], list) and all(isinstance(x, str) for x in expect[key])):
                    raise RuleLoadError(f"{where}.expect.{key}: expected a list of texts, e.g. [k13-ddp-under-64]")
            for key in ("blocked", "fits"):
                if key in expect and not isinstance(expect[key], bool):
                    raise RuleLoadError(f"{where}.expect.{key}: expected true or false")
            for key in ("strategy", "not_strategy"):
                if key in expect and not isinstance(expect[key], str):
                    raise RuleLoadError(f"{where}.expect.{key}: expected a strategy id such as ddp")
                if key in expect and expect[key] not in STRATEGIES:
                    raise RuleLoadError(f"{where}.expect.{key}: unknown strategy '{expect[key]}'")
            cases.append({**case, "file": name, "expect": expect})
    return cases


def run_case(case: dict[str, Any], rules: RuleSet) -> CaseResult:
    note = case["note"]
    try:
        answers = answers_from_mapping(case.get("answers") or {}, f"{case['file']}: {note}")
    except AdvisorError as exc:
        return CaseResult(note, False, f"answers do not validate: {exc.msg}")
    advice = advise(answers, rules)
    exp = case["expect"]
    problems: list[str] = []
    fired = {f.rule.id for f in advice.fired}
    if "strategy" in exp and advice.strategy != exp["strategy"]:
        scores = ", ".join(f"{s}={v:g}" for s, v in sorted(advice.scores.items(), key=lambda kv: -kv[1]))
        problems.append(f"strategy is {advice.strategy}, expected {exp['strategy']} (scores: {scores})")
    if "not_strategy" in exp and advice.strategy == exp["not_strategy"]:
        problems.append(f"strategy is {advice.strategy}, which the case rules out")
    for rid in exp.get("fired", []):
        if rid not in fired:
            problems.append(f"rule '{rid}' did not fire")
    for rid in exp.get("not_fired", []):
        if rid in fired:
            problems.append(f"rule '{rid}' fired but should not")
    for key, items in (("questions_contain", advice.questions), ("checklist_contain", advice.checklist), ("warnings_contain", advice.warnings)):
        for needle in exp.get(key, []):
            if not any(needle.lower() in item["text"].lower() for item in items):
                problems.append(f"no {key.split('_')[0][:-1] if key != 'checklist_contain' else 'checklist item'} contains {needle!r}")
    if "blocked" in exp:
        blocked = any(w["blocking"] for w in advice.warnings)
        if blocked != exp["blocked"]:
            problems.append(f"blocked is {blocked}, expected {exp['blocked']}")
    if "fits" in exp:
        fits = advice.facts[f"fits.{advice.strategy}"]
        if fits != exp["fits"]:
            problems.append(f"recommendation fits={fits}, expected {exp['fits']}")
    return CaseResult(note, not problems, "; ".join(problems), advice)


def run_cases(paths: list[Path] | None, rules: RuleSet) -> list[CaseResult]:
    return [run_case(c, rules) for c in load_cases(paths)]
