"""Rule packs: YAML data validated completely at load, compiled to closures, evaluated safely.

A rule pack is a YAML mapping::

    pack: scale                      # optional name
    description: ...                 # optional
    default: {strategy: ddp, rationale: "..."}   # optional fallback outcome
    rules:
      - id: k13-ddp-under-64
        title: DDP below 64 GPUs
        source: seed:K13
        priority: 50
        when: {all: [{fact: gpus, op: lt, value: 64}]}
        then:
          score: {ddp: 3}
          rationale: "{gpus:.0f} GPUs is inside DDP's < 64-GPU range"

Conditions are ``all`` / ``any`` / ``not`` trees over leaves ``{fact, op, value}``; ``value`` may
be ``{fact: other}`` to compare two facts. There is no ``eval`` and no code in YAML: each leaf is
checked against the fact registry and the operator table at load and becomes a small closure.
Every problem names the file, the rule id and the dotted key, and suggests a fix.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

from advisor.knowledge.strategies import STRATEGIES
from advisor.base.errors import AdvisorError, RuleLoadError
from advisor.knowledge.vocabulary import BOOL, FACTS, NUMBER, TEXT
from advisor.base.i18n import LANGUAGES, singular, zh
from advisor.base.safeload import load_mapping_cached

OPERATORS: dict[str, tuple[set[str], str]] = {
    "eq": ({NUMBER, BOOL, TEXT}, "equals"),
    "ne": ({NUMBER, BOOL, TEXT}, "differs from"),
    "lt": ({NUMBER}, "<"),
    "le": ({NUMBER}, "<="),
    "gt": ({NUMBER}, ">"),
    "ge": ({NUMBER}, ">="),
    "in": ({NUMBER, TEXT}, "is one of"),
    "not_in": ({NUMBER, TEXT}, "is none of"),
    "is_set": ({NUMBER, BOOL, TEXT}, "is known"),
}
"""Operator name -> (fact types it applies to, how the trace reads it)."""

OPERATOR_SPELLINGS: dict[str, str] = {
    "equal": "eq", "equals": "eq", "equal_to": "eq", "==": "eq", "not_equal": "ne", "!=": "ne",
    "less_than": "lt", "<": "lt", "less_than_or_equal": "le", "less_or_equal": "le", "<=": "le",
    "greater_than": "gt", ">": "gt", "greater_than_or_equal": "ge", "greater_or_equal": "ge", ">=": "ge",
    "one_of": "in", "contains": "in", "none_of": "not_in", "exists": "is_set", "defined": "is_set",
}
"""Other engines' operator names (json-rules-engine, business-rules), mapped to ours for suggestions."""

RULE_KEYS = ("id", "title", "description", "source", "priority", "when", "then", "for_each")
FOR_EACH = {"strategy": STRATEGIES}
"""What a rule can repeat over: ``for_each: strategy`` makes one rule per strategy, ``<strategy>`` standing for it."""
THEN_KEYS = ("score", "exclude", "rationale", "questions", "checklist", "warnings")
PACK_KEYS = ("pack", "description", "default", "rules")
DEFAULT_KEYS = ("strategy", "rationale", "source")
WARNING_KEYS = ("text", "blocking")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")
_SEED = re.compile(r"^seed:K(\d+)$")
_TEMPLATE = re.compile(r"\{\{|\}\}|\{([^{}:]*)(?::([^{}]*))?\}")
"""'{fact}' or '{fact:spec}'; '{{' and '}}' are literal braces, as in Python's str.format."""
_SPEC = re.compile(r"^[<>^]?[+ -]?,?(\.\d)?[fegd%]?$")
"""Alignment, sign, thousands and a one-digit precision: a template cannot ask for a gigabyte-long number."""


# ------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class Text:
    """A rule text in both languages; str() gives the current one."""

    en: str
    zh: str

    def __str__(self) -> str:
        return self.zh if zh() else self.en


@dataclass(frozen=True)
class Warning_:
    text: Text
    blocking: bool


@dataclass(frozen=True)
class Effects:
    score: dict[str, float]
    exclude: tuple[str, ...]
    rationale: Text | None
    questions: tuple[Text, ...]
    checklist: tuple[Text, ...]
    warnings: tuple[Warning_, ...]


@dataclass(frozen=True)
class Rule:
    id: str
    title: Text
    description: str | None
    source: tuple[str, ...]
    priority: int
    when: Any
    then: Effects
    file: str
    test: Callable[[dict[str, Any], list[dict[str, Any]]], bool] = field(compare=False, repr=False)


@dataclass(frozen=True)
class DefaultOutcome:
    strategy: str
    rationale: Text
    source: tuple[str, ...]
    file: str


@dataclass
class RuleSet:
    """Rules ordered for evaluation: priority high to low, ties by id (reproducible memos)."""

    rules: list[Rule]
    default: DefaultOutcome | None
    files: list[str]

    def __post_init__(self) -> None:
        self.rules.sort(key=lambda r: (-r.priority, r.id))


@dataclass
class Problems:
    """Collects every problem (``advisor rules check``) or raises at the first (normal start)."""

    collect: bool = False
    items: list[str] = field(default_factory=list)

    def add(self, msg: str) -> None:
        if not self.collect:
            raise RuleLoadError(msg)
        self.items.append(msg)


# ------------------------------------------------------------------------------ loading


def shipped_rules_dir() -> Path:
    """The rules/ shipped with advisor: inside the package when installed, the repo root in a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "rules"


def rule_files(directory: Path) -> list[Path]:
    if not directory.exists():
        raise RuleLoadError(f"{directory}: no such rules directory")
    if not directory.is_dir():
        raise RuleLoadError(f"{directory}: is not a directory of rule packs")
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def load_rules(extra_dirs: list[Path] | None = None, problems: Problems | None = None, include_shipped: bool = True) -> RuleSet:
    """Load the shipped packs, then each extra directory; a later rule with the same id overrides."""
    problems = problems or Problems()
    dirs = ([shipped_rules_dir()] if include_shipped else []) + list(extra_dirs or [])
    by_id: dict[str, Rule] = {}
    default: DefaultOutcome | None = None
    files: list[str] = []
    for d in dirs:
        try:
            paths = rule_files(d)
        except RuleLoadError as exc:
            problems.add(exc.msg)
            continue
        if not paths:
            problems.add(f"{d}: holds no .yaml rule packs")
        seen_here: dict[str, str] = {}
        for path in paths:
            files.append(str(path))
            rules, dflt = load_pack(path, problems)
            for rule in rules:
                if rule.id in seen_here:
                    problems.add(f"{path}: rule '{rule.id}': id is already used in {seen_here[rule.id]}; ids must be unique")
                    continue
                seen_here[rule.id] = str(path)
                by_id[rule.id] = rule
            if dflt is not None:
                default = dflt
    return RuleSet(rules=list(by_id.values()), default=default, files=files)


_SHIPPED_PACKS: dict[tuple[str, int, int, int], tuple[list[Rule], DefaultOutcome | None]] = {}
"""The shipped packs, parsed once per process (keyed by path, size, mtime and inode): a program that advises many
times — the TUI's live estimate, a sweep, a test suite — no longer re-reads and re-validates the same ~100 rules each
time (about half the cost of one `advise`). User packs are always read afresh: they may change between two calls."""


def load_pack(path: Path, problems: Problems) -> tuple[list[Rule], DefaultOutcome | None]:
    name = str(path)
    key = _shipped_key(path)
    if key is not None and key in _SHIPPED_PACKS:
        rules, default = _SHIPPED_PACKS[key]
        return list(rules), default
    before = len(problems.items)
    try:
        _name, data = load_mapping_cached(path)
    except AdvisorError as exc:
        problems.add(exc.msg)
        return [], None
    rules, default = parse_pack(data, name, problems)
    if key is not None and len(problems.items) == before:
        _SHIPPED_PACKS[key] = (list(rules), default)
    return rules, default


def _shipped_key(path: Path) -> tuple[str, int, int, int] | None:
    try:
        if path.parent.resolve() != shipped_rules_dir().resolve():
            return None
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns, st.st_ino)


def parse_pack(data: dict[str, Any], name: str, problems: Problems) -> tuple[list[Rule], DefaultOutcome | None]:
    _unknown_keys(data, PACK_KEYS, f"{name}: top level", problems)
    raw_rules = data.get("rules")
    if raw_rules is None:
        problems.add(f"{name}: top level: missing 'rules' (a list of rules)")
        raw_rules = []
    elif not isinstance(raw_rules, list):
        problems.add(f"{name}: rules: expected a list of rules, got {_yaml_kind(raw_rules)}")
        raw_rules = []
    rules: list[Rule] = []
    ids: set[str] = set()
    for index, raw in _expanded(raw_rules, name, problems):
        rule = _parse_rule(raw, index, name, problems)
        if rule is None:
            continue
        if rule.id in ids:
            problems.add(f"{name}: rule '{rule.id}': id is used twice in this file; ids must be unique")
            continue
        ids.add(rule.id)
        rules.append(rule)
    default = None
    if "default" in data:
        default = _parse_default(data["default"], name, problems)
    return rules, default


def _expanded(raw_rules: list[Any], name: str, problems: Problems) -> list[tuple[int, Any]]:
    """(index, rule) pairs with every ``for_each`` rule repeated: ``for_each: strategy`` gives one rule per strategy,
    id ``<id>-<strategy>``, with ``<strategy>`` replaced in every key and text (facts, score keys, titles, texts). Each
    copy is then validated like any rule, so a problem names the copy that has it."""
    out: list[tuple[int, Any]] = []
    for index, raw in enumerate(raw_rules):
        if not isinstance(raw, dict) or "for_each" not in raw:
            out.append((index, raw))
            continue
        over = raw["for_each"]
        rid = raw.get("id")
        where = f"{name}: rule '{rid}'" if isinstance(rid, str) else f"{name}: rules[{index}]"
        if not isinstance(over, str) or over not in FOR_EACH:
            problems.add(f"{where}: for_each: {_yaml_value(over)} is not something a rule repeats over; use one of {', '.join(FOR_EACH)}")
            continue
        if not isinstance(rid, str):
            out.append((index, {k: v for k, v in raw.items() if k != "for_each"}))  # the id check reports it
            continue
        token = f"<{over}>"
        for value in FOR_EACH[over]:
            copy = _substitute({k: v for k, v in raw.items() if k != "for_each"}, token, value)
            copy["id"] = f"{rid}-{value}"
            out.append((index, copy))
    return out


def _substitute(node: Any, token: str, value: str) -> Any:
    if isinstance(node, str):
        return node.replace(token, value)
    if isinstance(node, list):
        return [_substitute(n, token, value) for n in node]
    if isinstance(node, dict):
        return {_substitute(k, token, value): _substitute(v, token, value) for k, v in node.items()}
    return node


def _parse_default(raw: Any, name: str, problems: Problems) -> DefaultOutcome | None:
    where = f"{name}: default"
    if not isinstance(raw, dict):
        problems.add(f"{where}: expected a mapping with strategy and rationale, got {_yaml_kind(raw)}")
        return None
    _unknown_keys(raw, DEFAULT_KEYS, where, problems)
    strategy = raw.get("strategy")
    if strategy not in STRATEGIES:
        problems.add(f"{where}.strategy: {_strategy_problem(strategy)}")
        return None
    if raw.get("rationale") is None:
        problems.add(f"{where}.rationale: required text explaining the fallback, in both languages: {{en: ..., zh: ...}}")
        return None
    rationale = _parse_text(raw.get("rationale"), f"{where}.rationale", problems)
    if rationale is None:
        return None
    source = _parse_source(raw.get("source"), f"{where}.source", problems, required=False)  # optional: it names no figure
    if source is None and raw.get("source") is not None:
        return None
    return DefaultOutcome(strategy=strategy, rationale=rationale, source=source or ("advisor default",), file=name)


def _parse_rule(raw: Any, index: int, name: str, problems: Problems) -> Rule | None:
    if not isinstance(raw, dict):
        problems.add(f"{name}: rules[{index}]: expected a mapping (id, title, source, priority, when, then), got {_yaml_kind(raw)}")
        return None
    rid = raw.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        problems.add(
            f"{name}: rules[{index}].id: {'missing' if rid is None else repr(rid) + ' is not a valid id'}; "
            "use lowercase letters, digits and hyphens, e.g. k13-ddp-under-64"
        )
        return None
    where = f"{name}: rule '{rid}'"
    before = len(problems.items)
    _unknown_keys(raw, RULE_KEYS, where, problems)
    title = raw.get("title")
    if title is None:
        problems.add(f"{where}: title: required text (a short name for the rule), in both languages: {{en: ..., zh: ...}}")
    else:
        title = _parse_text(title, f"{where}: title", problems)
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        problems.add(f"{where}: description: expected text, got {_yaml_kind(description)}")
    source = _parse_source(raw.get("source"), f"{where}: source", problems, required=True)
    priority = raw.get("priority")
    if isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 1000:
        problems.add(f"{where}: priority: expected a whole number from 1 to 1000, got {_yaml_value(priority)}")
        priority = 1
    if "when" not in raw:
        problems.add(f"{where}: when: missing; give a condition such as {{all: [{{fact: gpus, op: lt, value: 64}}]}}")
        test = None
    else:
        test = _compile(raw["when"], f"{where}: when", problems)
    then = _parse_then(raw.get("then"), f"{where}: then", problems)
    if test is not None and then is not None and (then.score or then.exclude):
        plan_facts = sorted(f for f in _facts_in(raw["when"]) if FACTS[f].plan)
        if plan_facts:
            problems.add(
                f"{where}: when: tests '{plan_facts[0]}', a fact about the chosen plan, but the rule scores or excludes "
                "strategies; the plan is chosen from the scores, so plan facts may only drive rationale, questions, checklist "
                "and warnings — split the rule in two"
            )
    if len(problems.items) > before or test is None or then is None or source is None or not isinstance(title, Text):
        return None
    return Rule(
        id=rid, title=title, description=description, source=source, priority=int(priority),
        when=raw["when"], then=then, file=name, test=test,
    )


def _parse_source(raw: Any, where: str, problems: Problems, required: bool) -> tuple[str, ...] | None:
    if raw is None:
        if required:
            problems.add(f"{where}: missing; cite seed:K<n> (1-21) or a reference such as 'arXiv:2104.04473'")
        return None
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            problems.add(f"{where}: expected text such as seed:K13, got {_yaml_kind(item)}")
            return None
        m = _SEED.match(item.strip())
        if m:
            if not 1 <= int(m.group(1)) <= 21:
                problems.add(f"{where}: {item!r} is not a seed item; the seed inventory runs K1 to K21")
                return None
        elif item.strip().lower().startswith("seed"):
            problems.add(f"{where}: {item!r} is not a seed reference; write seed:K<n>, e.g. seed:K13")
            return None
        elif ":" not in item and "/" not in item:
            problems.add(f"{where}: {item!r} does not look like a citation; use seed:K<n> or a reference with a locator (arXiv:…, owner/repo: path, URL)")
            return None
        out.append(item.strip())
    return tuple(out)


def _parse_then(raw: Any, where: str, problems: Problems) -> Effects | None:
    if raw is None:
        problems.add(f"{where}: missing; a rule must do something (score, exclude, rationale, questions, checklist or warnings)")
        return None
    if not isinstance(raw, dict):
        problems.add(f"{where}: expected a mapping, got {_yaml_kind(raw)}")
        return None
    _unknown_keys(raw, THEN_KEYS, where, problems)
    if not any(k in raw for k in THEN_KEYS):
        problems.add(f"{where}: has no effect; give at least one of {', '.join(THEN_KEYS)}")
        return None
    score: dict[str, float] = {}
    if "score" in raw:
        sc = raw["score"]
        if not isinstance(sc, dict):
            problems.add(f"{where}.score: expected a mapping of strategy to points, e.g. {{ddp: 3}}, got {_yaml_kind(sc)}")
        else:
            for key, pts in sc.items():
                if key not in STRATEGIES:
                    problems.add(f"{where}.score.{key}: {_strategy_problem(key)}")
                elif not _finite_number(pts):
                    problems.add(f"{where}.score.{key}: expected a number of points, got {_yaml_value(pts)}")
                else:
                    score[key] = float(pts)
    exclude: list[str] = []
    if "exclude" in raw:
        ex = raw["exclude"]
        if not isinstance(ex, list):
            problems.add(f"{where}.exclude: expected a list of strategies, got {_yaml_kind(ex)}")
        else:
            for i, key in enumerate(ex):
                if key not in STRATEGIES:
                    problems.add(f"{where}.exclude[{i}]: {_strategy_problem(key)}")
                else:
                    exclude.append(key)
        if "rationale" not in raw:
            problems.add(f"{where}.rationale: required with exclude; it becomes the 'why not' of the excluded strategies")
    rationale = None
    if raw.get("rationale") is not None:
        rationale = _parse_text(raw["rationale"], f"{where}.rationale", problems)
    lists: dict[str, list[Text]] = {}
    for key in ("questions", "checklist"):
        items = raw.get(key, [])
        if not isinstance(items, list):
            problems.add(f"{where}.{key}: expected a list of text items, got {_yaml_kind(items)}")
            items = []
        good = []
        for i, item in enumerate(items):
            parsed = _parse_text(item, f"{where}.{key}[{i}]", problems)
            if parsed is not None:
                good.append(parsed)
        lists[key] = good
    warnings: list[Warning_] = []
    items = raw.get("warnings", [])
    if not isinstance(items, list):
        problems.add(f"{where}.warnings: expected a list, got {_yaml_kind(items)}")
        items = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and "text" in item:
            _unknown_keys(item, WARNING_KEYS, f"{where}.warnings[{i}]", problems)
            blocking = item.get("blocking", False)
            if not isinstance(blocking, bool):
                problems.add(f"{where}.warnings[{i}].blocking: expected true or false, got {_yaml_value(blocking)}")
                continue
            text = _parse_text(item["text"], f"{where}.warnings[{i}].text", problems)
            if text is not None:
                warnings.append(Warning_(text, blocking))
        elif isinstance(item, (str, dict)):
            text = _parse_text(item, f"{where}.warnings[{i}]", problems)
            if text is not None:
                warnings.append(Warning_(text, False))
        else:
            problems.add(f"{where}.warnings[{i}]: expected text {{en: ..., zh: ...}} or {{text: {{en: ..., zh: ...}}, blocking: true}}, got {_yaml_kind(item)}")
    return Effects(
        score=score, exclude=tuple(exclude), rationale=rationale, questions=tuple(lists["questions"]),
        checklist=tuple(lists["checklist"]), warnings=tuple(warnings),
    )


def _parse_text(raw: Any, where: str, problems: Problems) -> Text | None:
    """A text in every language: {en: "...", zh: "..."}; both name the same facts."""
    if isinstance(raw, str):
        problems.add(f"{where}: give the text in both languages, {{en: {_short(raw)}, zh: ...}} (missing zh)")
        return None
    if not isinstance(raw, dict):
        problems.add(f"{where}: expected text in both languages, {{en: ..., zh: ...}}, got {_yaml_kind(raw)}")
        return None
    for key in raw:
        if key not in LANGUAGES:
            problems.add(f"{where}.{key}: unknown language{_suggest(str(key), LANGUAGES)}; give en and zh")
            return None
    texts: dict[str, str] = {}
    for lang in LANGUAGES:
        value = raw.get(lang)
        if value is None:
            problems.add(f"{where}: missing {lang}; every rule text is written in both languages ({', '.join(LANGUAGES)})")
            return None
        if not isinstance(value, str) or not value.strip():
            problems.add(f"{where}.{lang}: expected text, got {_yaml_kind(value)}")
            return None
        _check_template(value, f"{where}.{lang}", problems)
        texts[lang] = value
    names = {lang: {name for name, _spec in _template_fields(texts[lang])} for lang in LANGUAGES}
    if names["en"] != names["zh"]:
        extra = sorted(names["zh"] ^ names["en"])
        problems.add(f"{where}: en and zh quote different facts ({', '.join(extra)}); both languages must say the same numbers")
        return None
    return Text(en=texts["en"], zh=texts["zh"])


def _template_fields(text: str) -> list[tuple[str, str | None]]:
    """(fact, format spec) for every '{fact}' / '{fact:spec}' in a text; '{{' and '}}' are literal braces."""
    return [(m.group(1), m.group(2)) for m in _TEMPLATE.finditer(text) if m.group(0) not in ("{{", "}}")]


def _short(text: str) -> str:
    return repr(text if len(text) <= 30 else text[:27] + "...")


# ------------------------------------------------------------------------------ conditions

Test = Callable[[dict[str, Any], list[dict[str, Any]]], bool]


MAX_CONDITION_DEPTH = 50
"""Deepest all / any / not nesting a condition may have (a validation bound: the shipped rules nest 3 deep); deeper
trees are refused at load rather than overflowing the evaluator's stack."""


def _compile(node: Any, where: str, problems: Problems, depth: int = 0) -> Test | None:
    """Turn a condition tree into a closure that records a trace entry per leaf. ``always`` holds unconditionally."""
    if depth > MAX_CONDITION_DEPTH:
        problems.add(f"{where}: conditions nest more than {MAX_CONDITION_DEPTH} deep; flatten the all / any / not tree")
        return None
    if node == "always":
        def always(facts: dict[str, Any], trace: list[dict[str, Any]]) -> bool:
            trace.append({"fact": "always", "op": "always", "value": True, "seen": True, "result": True})
            return True

        return always
    if not isinstance(node, dict):
        problems.add(f"{where}: expected 'always' or a mapping with all, any, not or fact, got {_yaml_kind(node)}")
        return None
    groups = [k for k in ("all", "any", "not") if k in node]
    if groups:
        if len(node) != 1:
            extra = [k for k in node if k not in ("all", "any", "not")]
            problems.add(f"{where}: a condition holds exactly one of all / any / not" + (f"; unexpected {', '.join(map(str, extra))}" if extra else ""))
            return None
        key = groups[0]
        if key == "not":
            inner = _compile(node["not"], f"{where}.not", problems, depth + 1)
            if inner is None:
                return None
            return lambda facts, trace: not inner(facts, trace)
        items = node[key]
        if not isinstance(items, list):
            problems.add(f"{where}.{key}: expected a list of conditions, got {_yaml_kind(items)}")
            return None
        parts = [_compile(item, f"{where}.{key}[{i}]", problems, depth + 1) for i, item in enumerate(items)]
        if any(p is None for p in parts):
            return None
        tests: list[Test] = [p for p in parts if p is not None]
        if key == "all":
            return lambda facts, trace: all(t(facts, trace) for t in tests)
        return lambda facts, trace: any(t(facts, trace) for t in tests)
    return _compile_leaf(node, where, problems)


def _facts_in(node: Any) -> set[str]:
    """Every known fact a (valid) condition tree names, value references included."""
    if isinstance(node, list):
        return set().union(*(_facts_in(n) for n in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    out: set[str] = set()
    for key in ("all", "any", "not"):
        if key in node:
            out |= _facts_in(node[key])
    if isinstance(node.get("fact"), str) and node["fact"] in FACTS:
        out.add(node["fact"])
    value = node.get("value")
    if isinstance(value, dict) and isinstance(value.get("fact"), str) and value["fact"] in FACTS:
        out.add(value["fact"])
    return out


def _compile_leaf(node: dict[str, Any], where: str, problems: Problems) -> Test | None:
    _unknown_keys(node, ("fact", "op", "value"), where, problems, hint=" (or all / any / not)")
    fact, op = node.get("fact"), node.get("op")
    if not isinstance(op, str):
        problems.add(f"{where}.op: expected an operator name such as eq, got {_yaml_kind(op)}")
        return None
    if not isinstance(fact, str):
        problems.add(f"{where}.fact: missing; name a fact such as gpus (see `advisor rules facts`)")
        return None
    spec = FACTS.get(fact)
    if spec is None:
        problems.add(f"{where}.fact: unknown fact '{fact}'{_suggest(fact, FACTS)}")
        return None
    if op not in OPERATORS:
        problems.add(f"{where}.op: unknown operator '{op}'{_suggest_operator(str(op))}")
        return None
    types, _names = OPERATORS[op]
    if spec.type not in types:
        problems.add(f"{where}.op: '{op}' does not apply to {spec.type} fact '{fact}'; use one of {', '.join(o for o, (t, _op) in OPERATORS.items() if spec.type in t)}")
        return None
    if "value" not in node:
        problems.add(f"{where}.value: missing; '{op}' compares '{fact}' with a value")
        return None
    value = node["value"]
    if isinstance(value, dict):
        if set(value) != {"fact"} or not isinstance(value["fact"], str) or value["fact"] not in FACTS:
            other = value.get("fact")
            problems.add(f"{where}.value: a fact reference is {{fact: NAME}} with a known fact" + (_suggest(str(other), FACTS) if other else ""))
            return None
        other_spec = FACTS[value["fact"]]
        if other_spec.type != spec.type or op in ("in", "not_in", "is_set"):
            problems.add(f"{where}.value: cannot compare {spec.type} fact '{fact}' with {other_spec.type} fact '{other_spec.name}' using '{op}'")
            return None
        ref = other_spec.name
        return _leaf(fact, op, None, ref)
    if not _value_ok(spec, op, value, where, problems):
        return None
    return _leaf(fact, op, value, None)


def _value_ok(spec: Any, op: str, value: Any, where: str, problems: Problems) -> bool:
    if op == "is_set":
        if not isinstance(value, bool):
            problems.add(f"{where}.value: 'is_set' takes true or false, got {_yaml_value(value)}")
            return False
        return True
    values = value if op in ("in", "not_in") else [value]
    if op in ("in", "not_in") and (not isinstance(value, list) or not value):
        problems.add(f"{where}.value: '{op}' takes a non-empty list, got {_yaml_value(value)}")
        return False
    for v in values:
        if spec.type == NUMBER and not _finite_number(v):
            problems.add(f"{where}.value: '{spec.name}' is a number; got {_yaml_value(v)}")
            return False
        if spec.type == BOOL and not isinstance(v, bool):
            problems.add(f"{where}.value: '{spec.name}' is true or false; got {_yaml_value(v)}")
            return False
        if spec.type == TEXT:
            if not isinstance(v, str):
                problems.add(f"{where}.value: '{spec.name}' is text; got {_yaml_value(v)}")
                return False
            if spec.choices and v not in spec.choices:
                problems.add(f"{where}.value: '{v}' is not a value of '{spec.name}'{_suggest(v, spec.choices)}; it is one of {', '.join(spec.choices)}")
                return False
    return True


def _leaf(fact: str, op: str, value: Any, ref: str | None) -> Test:
    def test(facts: dict[str, Any], trace: list[dict[str, Any]]) -> bool:
        seen = facts.get(fact)
        expected = facts.get(ref) if ref else value
        if op == "is_set":
            result = (seen is not None) == expected
        elif seen is None or expected is None:
            result = False  # an unknown fact never satisfies a comparison
        elif op == "eq":
            result = seen == expected
        elif op == "ne":
            result = seen != expected
        elif op == "lt":
            result = seen < expected
        elif op == "le":
            result = seen <= expected
        elif op == "gt":
            result = seen > expected
        elif op == "ge":
            result = seen >= expected
        elif op == "in":
            result = seen in expected
        else:
            result = seen not in expected
        trace.append({"fact": fact, "op": op, "value": expected if ref is None else {"fact": ref, "seen": expected}, "seen": seen, "result": result})
        return result

    return test


# ------------------------------------------------------------------------------ templates


def _check_template(text: str, where: str, problems: Problems) -> None:
    for name, spec in _template_fields(text):
        if name not in FACTS:
            problems.add(f"{where}: template names unknown fact '{{{name}}}'{_suggest(name, FACTS)}")
        elif spec and not _SPEC.match(spec):
            problems.add(f"{where}: template '{{{name}:{spec}}}' has an unsupported format; use e.g. {{{name}:,.0f}} or {{{name}:.1%}}")


def render_template(text: str | Text, facts: dict[str, Any]) -> str:
    """Fill '{fact}' / '{fact:spec}' from facts (in the current language for a Text); unknown values read 'unknown'."""
    text = str(text)

    def fill(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        name, spec = m.group(1), m.group(2)
        value = facts.get(name)
        if value is None:
            return "unknown"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, (int, float)):
            if spec:
                try:
                    return format(value, spec)
                except ValueError:
                    return format(value, "g")
            return format_number(value)
        return str(value)

    filled = _TEMPLATE.sub(fill, text)
    return filled if zh() else singular(filled)


def format_number(value: float) -> str:
    """Readable numbers: 64 not 64.0, 1,234 not 1234.0, 0.42 not 0.4199999."""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        # A value given with two decimals (a 1.25-day deadline, a 2.25 price) is shown as given, not rounded to 1.2.
        return f"{value:.2f}".rstrip("0").rstrip(".") if round(value, 2) == value else f"{value:.1f}"
    return f"{value:.2g}"


# ------------------------------------------------------------------------------ helpers


def _finite_number(value: Any) -> bool:
    """A number a rule may hold: finite and within a float's range (a 400-digit integer is not: comparing facts with
    it, or adding it to a score, would overflow)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _suggest(word: str, options: Any) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _suggest_operator(word: str) -> str:
    direct = _suggest(word, OPERATORS)
    if direct:
        return direct
    close = difflib.get_close_matches(word, list(OPERATOR_SPELLINGS), n=1, cutoff=0.6)
    if close:
        op = OPERATOR_SPELLINGS[close[0]]
        return f"; did you mean '{op}' ({close[0].replace('_', ' ')})?"
    return f"; operators: {', '.join(OPERATORS)}"


def _unknown_keys(raw: dict[str, Any], allowed: tuple[str, ...], where: str, problems: Problems, hint: str = "") -> None:
    for key in raw:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            tip = f"; did you mean '{close[0]}'?" if close else f"; allowed: {', '.join(allowed)}{hint}"
            problems.add(f"{where}: unknown key '{key}'{tip}")


def _strategy_problem(key: Any) -> str:
    return f"unknown strategy '{key}'{_suggest(str(key), STRATEGIES)}; strategies: {', '.join(STRATEGIES)}"


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"text {value!r}"
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"a number of {len(str(abs(value))):,} digits"
    return repr(value) if not isinstance(value, (list, dict)) else _yaml_kind(value)
