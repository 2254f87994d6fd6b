"""Rule tests as data: answers (or facts) in, expected strategy / fired rules / questions out.

A case file (rules/tests/*.yaml) holds ``cases:``, each with a ``note``, ``answers`` or ``facts``, and ``expect``. The
same runner serves pytest (one test per case) and ``advisor rules test``.

A case with ``facts: {gpus: 300, experience: none}`` tests the rules on those facts alone, as an OPA test gives
``with input as``: no estimate, no search, every fact not given unknown. The names and values are checked against the
fact vocabulary (a typo gets a did-you-mean), and such a case may expect what the rules say (fired, not_fired,
questions, checklist, warnings, blocked, excluded) but not what the choice makes of it (strategy, fits).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.decision.advice import Advice, FiredRule, RuleOutcome, advise, run_rules
from advisor.inputs.answers import STRATEGIES, answers_from_mapping
from advisor.base.errors import AdvisorError, RuleLoadError
from advisor.knowledge.rules import RuleSet, shipped_rules_dir
from advisor.knowledge.vocabulary import BOOL, FACTS, NUMBER, TEXT
from advisor.base.safeload import load_mapping

EXPECT_KEYS = ("strategy", "not_strategy", "fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain", "blocked", "fits",
               "excluded")
CHOICE_KEYS = ("strategy", "not_strategy", "fits")
"""What only the choice over priced plans decides: a case that gives facts instead of answers cannot expect it."""


@dataclass
class CaseResult:
    note: str
    ok: bool
    detail: str
    advice: Advice | None = None
    fired: list[FiredRule] = field(default_factory=list)
    """The rules that fired (from the advice, or from the facts given)."""


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
                if key not in ("note", "answers", "facts", "expect"):
                    raise RuleLoadError(f"{where}: unknown key '{key}'; a case has note, answers or facts, expect")
            if ("answers" in case) == ("facts" in case):
                raise RuleLoadError(f"{where}: give answers (the whole pipeline) or facts (the rules alone), one of them")
            expect = case.get("expect") or {}
            if not isinstance(expect, dict):
                raise RuleLoadError(f"{where}.expect: expected a mapping")
            if "facts" in case:
                check_facts(case["facts"], f"{where}.facts")
                for key in CHOICE_KEYS:
                    if key in expect:
                        raise RuleLoadError(f"{where}.expect.{key}: the choice decides it, and a facts case runs the rules alone; "
                                            "give answers to test the choice")
            for key in expect:
                if key not in EXPECT_KEYS:
                    raise RuleLoadError(f"{where}.expect: unknown key '{key}'; allowed: {', '.join(EXPECT_KEYS)}")
            for key in ("fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain", "excluded"):
                if key in expect and not (isinstance(expect[key], list) and all(isinstance(x, str) for x in expect[key])):
                    raise RuleLoadError(f"{where}.expect.{key}: expected a list of texts, e.g. [k13-ddp-under-64]")
            for s in expect.get("excluded", []):
                if s not in STRATEGIES:
                    raise RuleLoadError(f"{where}.expect.excluded: unknown strategy '{s}'")
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


def check_facts(facts: Any, where: str) -> None:
    """Facts a case gives: known names (did-you-mean on a typo), each of its type (a number, true/false, one of a text
    fact's values), or null for unknown."""
    if not isinstance(facts, dict) or not facts:
        raise RuleLoadError(f"{where}: expected a mapping of fact names to values, e.g. {{gpus: 300, experience: none}}")
    for name, value in facts.items():
        spec = FACTS.get(str(name))
        if spec is None:
            close = difflib.get_close_matches(str(name), list(FACTS), n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else "; see `advisor rules facts`"
            raise RuleLoadError(f"{where}.{name}: unknown fact '{name}'{hint}")
        if value is None:
            continue
        if spec.type == NUMBER and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
            raise RuleLoadError(f"{where}.{name}: '{name}' is a number; got {value!r}")
        if spec.type == BOOL and not isinstance(value, bool):
            raise RuleLoadError(f"{where}.{name}: '{name}' is true or false; got {value!r}")
        if spec.type == TEXT:
            if not isinstance(value, str):
                raise RuleLoadError(f"{where}.{name}: '{name}' is text; got {value!r}")
            if spec.choices and value not in spec.choices:
                close = difflib.get_close_matches(value, list(spec.choices), n=1, cutoff=0.6)
                hint = f"did you mean '{close[0]}'? " if close else ""
                raise RuleLoadError(f"{where}.{name}: '{value}' is not a value of '{name}'; {hint}it is one of {', '.join(spec.choices)}")


def run_case(case: dict[str, Any], rules: RuleSet) -> CaseResult:
    if "facts" in case:
        return _run_on_facts(case, rules)
    note = case["note"]
    try:
        answers = answers_from_mapping(case.get("answers") or {}, f"{case['file']}: {note}")
    except AdvisorError as exc:
        return CaseResult(note, False, f"answers do not validate: {exc.msg}")
    advice = advise(answers, rules)
    exp = case["expect"]
    problems = _said(exp, advice.fired, advice.questions, advice.checklist, advice.warnings, advice.excluded)
    if "strategy" in exp and advice.strategy != exp["strategy"]:
        scores = ", ".join(f"{s}={v:g}" for s, v in sorted(advice.scores.items(), key=lambda kv: -kv[1]))
        problems.append(f"strategy is {advice.strategy}, expected {exp['strategy']} (scores: {scores})")
    if "not_strategy" in exp and advice.strategy == exp["not_strategy"]:
        problems.append(f"strategy is {advice.strategy}, which the case rules out")
    if "fits" in exp:
        fits = advice.facts[f"fits.{advice.strategy}"]
        if fits != exp["fits"]:
            problems.append(f"recommendation fits={fits}, expected {exp['fits']}")
    return CaseResult(note, not problems, "; ".join(problems), advice, advice.fired)


def _run_on_facts(case: dict[str, Any], rules: RuleSet) -> CaseResult:
    """The rules evaluated on the facts the case gives, every other fact unknown."""
    out: RuleOutcome = run_rules(rules, {name: case["facts"].get(name) for name in FACTS})
    problems = _said(case["expect"], out.fired, out.questions, out.checklist, out.warnings, out.excluded)
    return CaseResult(case["note"], not problems, "; ".join(problems), None, out.fired)


def _said(exp: dict[str, Any], fired_rules: list[FiredRule], questions: list[dict[str, str]], checklist: list[dict[str, str]],
          warnings: list[dict[str, Any]], excluded: dict[str, list[str]]) -> list[str]:
    """What the rules said against what the case expects of it."""
    problems: list[str] = []
    fired = {f.rule.id for f in fired_rules}
    for rid in exp.get("fired", []):
        if rid not in fired:
            problems.append(f"rule '{rid}' did not fire")
    for rid in exp.get("not_fired", []):
        if rid in fired:
            problems.append(f"rule '{rid}' fired but should not")
    for key, items in (("questions_contain", questions), ("checklist_contain", checklist), ("warnings_contain", warnings)):
        for needle in exp.get(key, []):
            if not any(needle.lower() in item["text"].lower() for item in items):
                problems.append(f"no {key.split('_')[0][:-1] if key != 'checklist_contain' else 'checklist item'} contains {needle!r}")
    if "blocked" in exp:
        blocked = any(w["blocking"] for w in warnings)
        if blocked != exp["blocked"]:
            problems.append(f"blocked is {blocked}, expected {exp['blocked']}")
    for s in exp.get("excluded", []):
        if s not in excluded:
            problems.append(f"strategy '{s}' is not excluded")
    return problems


def run_cases(paths: list[Path] | None, rules: RuleSet) -> list[CaseResult]:
    return [run_case(c, rules) for c in load_cases(paths)]
