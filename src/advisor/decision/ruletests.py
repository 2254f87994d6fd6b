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
from msgspec import Struct, field
from pathlib import Path
from typing import Any

from advisor.decision.advice import Advice, FiredRule, RuleOutcome, advise, run_rules
from advisor.inputs.answers import STRATEGIES, answers_from_mapping
from advisor.base.errors import AdvisorError, RuleLoadError
from advisor.base.i18n import _, language
from advisor.knowledge.rules import RuleSet, shipped_rules_dir
from advisor.knowledge.vocabulary import BOOL, FACTS, NUMBER, TEXT
from advisor.base.safeload import load_mapping

EXPECT_KEYS = ("strategy", "not_strategy", "fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain", "blocked", "fits",
               "excluded")
CHOICE_KEYS = ("strategy", "not_strategy", "fits")
"""What only the choice over priced plans decides: a case that gives facts instead of answers cannot expect it."""


class CaseResult(Struct):
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
            raise RuleLoadError(_("{p}: no such case file or directory", p=p))
    return files


def load_cases(paths: list[Path] | None = None) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in case_files(paths):
        name, data = load_mapping(path)
        raw = data.get("cases")
        if not isinstance(raw, list) or not raw:
            raise RuleLoadError(_("{name}: cases: expected a non-empty list of cases", name=name))
        for i, case in enumerate(raw):
            where = f"{name}: cases[{i}]"
            if not isinstance(case, dict) or not isinstance(case.get("note"), str):
                raise RuleLoadError(_("{where}: each case needs a note (text), answers and expect", where=where))
            for key in case:
                if key not in ("note", "answers", "facts", "expect"):
                    raise RuleLoadError(_("{where}: unknown key '{key}'; a case has note, answers or facts, expect", where=where, key=key))
            if ("answers" in case) == ("facts" in case):
                raise RuleLoadError(_("{where}: give answers (the whole pipeline) or facts (the rules alone), one of them", where=where))
            expect = case.get("expect") or {}
            if not isinstance(expect, dict):
                raise RuleLoadError(_("{where}.expect: expected a mapping", where=where))
            if "facts" in case:
                check_facts(case["facts"], f"{where}.facts")
                for key in CHOICE_KEYS:
                    if key in expect:
                        raise RuleLoadError(_("{where}.expect.{key}: the choice decides it, and a facts case runs the rules alone; give answers to test the choice", where=where, key=key))
            for key in expect:
                if key not in EXPECT_KEYS:
                    raise RuleLoadError(_("{where}.expect: unknown key '{key}'; allowed: {names}", where=where, key=key, names=', '.join(EXPECT_KEYS)))
            for key in ("fired", "not_fired", "questions_contain", "checklist_contain", "warnings_contain", "excluded"):
                if key in expect and not (isinstance(expect[key], list) and all(isinstance(x, str) for x in expect[key])):
                    raise RuleLoadError(_("{where}.expect.{key}: expected a list of texts, e.g. [k13-ddp-under-64]", where=where, key=key))
            for s in expect.get("excluded", []):
                if s not in STRATEGIES:
                    raise RuleLoadError(_("{where}.expect.excluded: unknown strategy '{s}'", where=where, s=s))
            for key in ("blocked", "fits"):
                if key in expect and not isinstance(expect[key], bool):
                    raise RuleLoadError(_("{where}.expect.{key}: expected true or false", where=where, key=key))
            for key in ("strategy", "not_strategy"):
                if key in expect and not isinstance(expect[key], str):
                    raise RuleLoadError(_("{where}.expect.{key}: expected a strategy id such as ddp", where=where, key=key))
                if key in expect and expect[key] not in STRATEGIES:
                    raise RuleLoadError(_("{where}.expect.{key}: unknown strategy '{expect}'", where=where, key=key, expect=expect[key]))
            cases.append({**case, "file": name, "expect": expect})
    return cases


def check_facts(facts: Any, where: str) -> None:
    """Facts a case gives: known names (did-you-mean on a typo), each of its type (a number, true/false, one of a text
    fact's values), or null for unknown."""
    if not isinstance(facts, dict) or not facts:
        raise RuleLoadError(_("{where}: expected a mapping of fact names to values, e.g. {{gpus: 300, experience: none}}", where=where))
    for name, value in facts.items():
        spec = FACTS.get(str(name))
        if spec is None:
            close = difflib.get_close_matches(str(name), list(FACTS), n=1, cutoff=0.6)
            hint = _("; did you mean '{name}'?", name=close[0]) if close else _("; see `advisor rules facts`")
            raise RuleLoadError(_("{where}.{name}: unknown fact '{name}'{hint}", where=where, name=name, hint=hint))
        if value is None:
            continue
        if spec.type == NUMBER and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
            raise RuleLoadError(_("{where}.{name}: '{name}' is a number; got {value}", where=where, name=name, value=repr(value)))
        if spec.type == BOOL and not isinstance(value, bool):
            raise RuleLoadError(_("{where}.{name}: '{name}' is true or false; got {value}", where=where, name=name, value=repr(value)))
        if spec.type == TEXT:
            if not isinstance(value, str):
                raise RuleLoadError(_("{where}.{name}: '{name}' is text; got {value}", where=where, name=name, value=repr(value)))
            if spec.choices and value not in spec.choices:
                close = difflib.get_close_matches(value, list(spec.choices), n=1, cutoff=0.6)
                hint = _("did you mean '{name}'? ", name=close[0]) if close else ""
                raise RuleLoadError(_("{where}.{name}: '{value}' is not a value of '{name}'; {hint}it is one of {names}", where=where, name=name, value=value, hint=hint, names=', '.join(spec.choices)))


def run_case(case: dict[str, Any], rules: RuleSet) -> CaseResult:
    if "facts" in case:
        return _run_on_facts(case, rules)
    note = case["note"]
    try:
        answers = answers_from_mapping(case.get("answers") or {}, f"{case['file']}: {note}")
    except AdvisorError as exc:
        return CaseResult(note, False, f"answers do not validate: {exc.msg}")
    with language("en"):  # the cases' expected texts are English, whatever --lang the report is in
        advice = advise(answers, rules)
    exp = case["expect"]
    problems = _said(exp, advice.fired, advice.questions, advice.checklist, advice.warnings, advice.excluded)
    if "strategy" in exp and advice.strategy != exp["strategy"]:
        scores = ", ".join(f"{s}={v:g}" for s, v in sorted(advice.scores.items(), key=lambda kv: -kv[1]))
        problems.append(_("strategy is {strategy}, expected {exp} (scores: {scores})", strategy=advice.strategy, exp=exp['strategy'], scores=scores))
    if "not_strategy" in exp and advice.strategy == exp["not_strategy"]:
        problems.append(_("strategy is {strategy}, which the case rules out", strategy=advice.strategy))
    if "fits" in exp:
        fits = advice.facts[f"fits.{advice.strategy}"]
        if fits != exp["fits"]:
            problems.append(_("recommendation fits={fits}, expected {exp}", fits=fits, exp=exp['fits']))
    return CaseResult(note, not problems, "; ".join(problems), advice, advice.fired)


def _run_on_facts(case: dict[str, Any], rules: RuleSet) -> CaseResult:
    """The rules evaluated on the facts the case gives, every other fact unknown."""
    with language("en"):
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
            problems.append(_("rule '{rid}' did not fire", rid=rid))
    for rid in exp.get("not_fired", []):
        if rid in fired:
            problems.append(_("rule '{rid}' fired but should not", rid=rid))
    for key, items in (("questions_contain", questions), ("checklist_contain", checklist), ("warnings_contain", warnings)):
        for needle in exp.get(key, []):
            if not any(needle.lower() in item["text"].lower() for item in items):
                problems.append({"questions_contain": _("no question contains {needle}", needle=repr(needle)),
                                 "checklist_contain": _("no checklist item contains {needle}", needle=repr(needle)),
                                 "warnings_contain": _("no warning contains {needle}", needle=repr(needle))}[key])
    if "blocked" in exp:
        blocked = any(w["blocking"] for w in warnings)
        if blocked != exp["blocked"]:
            problems.append(_("blocked is {blocked}, expected {exp}", blocked=blocked, exp=exp['blocked']))
    for s in exp.get("excluded", []):
        if s not in excluded:
            problems.append(_("strategy '{s}' is not excluded", s=s))
    return problems


def run_cases(paths: list[Path] | None, rules: RuleSet) -> list[CaseResult]:
    return [run_case(c, rules) for c in load_cases(paths)]
