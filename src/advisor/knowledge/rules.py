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

import math
import re
import sys
from msgspec import Struct, field
from functools import cache
from pathlib import Path
from typing import Any
from collections.abc import Callable

from advisor.knowledge.strategies import STRATEGIES
from advisor.base.errors import AdvisorError, RuleLoadError
from advisor.knowledge.vocabulary import BOOL, FACTS, NUMBER, SAID_AS, TEXT
from advisor.base.i18n import LANGUAGES, _, singular, zh
from advisor.base.safeload import cache_file, parse_mapping_cached, read_text, write_cache
from advisor.base.units import count, format_number, hours_text, money, readable_figure

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
PACK_KEYS = ("pack", "description", "constants", "default", "rules")
_CONSTANT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_CONSTANT_REF = re.compile(r"\{\$([a-z][a-z0-9_]{0,63})\}")
DEFAULT_KEYS = ("strategy", "rationale", "source")
WARNING_KEYS = ("text", "blocking")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")
_SEED = re.compile(r"^seed:K(\d+)$")
_TEMPLATE = re.compile(r"\{\{|\}\}|\{([^{}:]*)(?::([^{}]*))?\}")
"""'{fact}' or '{fact:spec}'; '{{' and '}}' are literal braces, as in Python's str.format."""
_SPEC = re.compile(r"^[<>^]?[+ -]?,?(\.\d)?[fegd%]?$")
"""Alignment, sign, thousands and a one-digit precision: a template cannot ask for a gigabyte-long number."""
MONEY_SPEC = "money"
"""'{best_cost:money}': an amount in the facts' currency, written as units.money writes every amount (46.1 万元 in
Chinese), so a rule's figure reads as the memo's figures do."""
DURATION_SPEC = "duration"
"""'{chosen_hours:duration}': hours in the reader's unit ('10.2 h', '3.0 days'), as every other text says a duration."""
COUNT_SPEC = "count"
"""'{adapter_params:count}': a large count in the reader's words ('7.2 million', '720 万'): '7.2M 个适配器参数' stood in the
Chinese memo (user try 9)."""


# ------------------------------------------------------------------------------ the model


class Text(Struct, frozen=True):
    """A rule text in both languages; str() gives the current one."""

    en: str
    zh: str

    def __str__(self) -> str:
        return self.zh if zh() else self.en


class Warning_(Struct, frozen=True):
    text: Text
    blocking: bool


class Effects(Struct, frozen=True):
    score: dict[str, float]
    exclude: tuple[str, ...]
    rationale: Text | None
    questions: tuple[Text, ...]
    checklist: tuple[Text, ...]
    warnings: tuple[Warning_, ...]


class RuleFields(Struct, frozen=True):
    """A rule as its pack states it, validated: what is kept between runs (``_kept_pack``)."""

    id: str
    title: Text
    description: str | None
    source: tuple[str, ...]
    priority: int
    when: Any
    then: Effects
    file: str


class Rule(RuleFields, frozen=True):
    test: Callable[[dict[str, Any], list[dict[str, Any]] | None], bool]
    """The compiled condition (a closure over `when`): equal rules are the same parse, so it compares by identity."""


class DefaultOutcome(Struct, frozen=True):
    strategy: str
    rationale: Text
    source: tuple[str, ...]
    file: str


class RuleSet(Struct):
    """Rules ordered for evaluation: priority high to low, ties by id (reproducible memos)."""

    rules: list[Rule]
    default: DefaultOutcome | None
    files: list[str]

    def __post_init__(self) -> None:
        self.rules.sort(key=lambda r: (-r.priority, r.id))


class Problems(Struct):
    """Collects every problem (``advisor rules check``) or raises at the first (normal start)."""

    collect: bool = False
    items: list[str] = field(default_factory=list)

    def add(self, msg: str) -> None:
        if not self.collect:
            raise RuleLoadError(msg)
        self.items.append(msg)


# ------------------------------------------------------------------------------ loading


@cache
def shipped_rules_dir() -> Path:
    """The rules/ shipped with advisor: inside the package when installed, the repo root in a checkout (found once)."""
    packaged = Path(__file__).resolve().parents[1] / "rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "rules"


def rule_files(directory: Path) -> list[Path]:
    if not directory.exists():
        raise RuleLoadError(_("{directory}: no such rules directory", directory=directory))
    if not directory.is_dir():
        raise RuleLoadError(_("{directory}: is not a directory of rule packs", directory=directory))
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
            problems.add(_("{d}: holds no .yaml rule packs", d=d))
        seen_here: dict[str, str] = {}
        for path in paths:
            files.append(str(path))
            rules, dflt = load_pack(path, problems)
            for rule in rules:
                if rule.id in seen_here:
                    problems.add(_("{path}: rule '{id}': id is already used in {seen_here}; ids must be unique", path=path, id=rule.id, seen_here=seen_here[rule.id]))
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
        _name, text = read_text(path)
    except AdvisorError as exc:
        problems.add(exc.msg)
        return [], None
    kept = _kept_pack(path, name, text)
    if kept is not None:
        rules, default = kept
    else:
        try:
            data = parse_mapping_cached(path, name, text)
        except AdvisorError as exc:
            problems.add(exc.msg)
            return [], None
        rules, default = parse_pack(data, name, problems)
        if len(problems.items) == before:
            _keep_pack(path, name, text, rules, default)
    if key is not None and len(problems.items) == before:
        _SHIPPED_PACKS[key] = (list(rules), default)
    return rules, default


# ------------------------------------------------------------------------------ validated packs kept between runs


class _PackRecord(Struct, array_like=True):
    """A pack that validated without a problem, with what it was validated from and by: the file (as resolved and as
    named), its exact text and the validator's code (``_validator_stamp``)."""

    stamp: tuple[int, ...]
    where: str
    name: str
    text: str
    rules: list[RuleFields]
    default: DefaultOutcome | None


_PACK_FORMAT = 1
"""Bumped whenever a record's layout changes meaning."""


@cache
def _validator_stamp() -> tuple[int, ...]:
    """What a validated pack depends on besides its text: this module, the fact vocabulary and the strategy list (the
    ``for_each`` copies), by size and modification time — a changed validator never reads what an older one kept."""
    import os

    from advisor.knowledge import strategies, vocabulary

    stamp = [_PACK_FORMAT, *sys.version_info[:2]]
    for module_file in (__file__, vocabulary.__file__, strategies.__file__):
        st = os.stat(str(module_file))
        stamp += [st.st_size, st.st_mtime_ns]
    return tuple(stamp)


def _kept_pack(path: Path, name: str, text: str) -> tuple[list[Rule], DefaultOutcome | None] | None:
    """The rules of a pack validated before from exactly this text by this validator, their conditions compiled again;
    None where there is no such record (or it cannot be read: the pack is then validated afresh). Validating the
    shipped packs costs ~30 M instructions of every run; reading the record and compiling 93 conditions, a third of it
    (issue 20)."""
    import msgspec

    found = cache_file(path, "pack", "msgpack")
    if found is None:
        return None
    where, entry = found
    try:
        record = msgspec.msgpack.decode(entry.read_bytes(), type=_PackRecord)
        stamp = _validator_stamp()
    except (OSError, msgspec.DecodeError):
        return None
    if record.stamp != stamp or record.where != where or record.name != name or record.text != text:
        return None
    rules = []
    for r in record.rules:
        test = _compile(r.when, name, Problems())
        if test is None:  # cannot happen for a condition that validated; a record that does is not used
            return None
        rules.append(Rule(**{f: getattr(r, f) for f in RuleFields.__struct_fields__}, test=test))
    return rules, record.default


def _keep_pack(path: Path, name: str, text: str, rules: list[Rule], default: DefaultOutcome | None) -> None:
    """Keep a pack that validated without a problem, for ``_kept_pack``; one that cannot be kept is simply not."""
    import msgspec

    found = cache_file(path, "pack", "msgpack")
    if found is None:
        return
    where, entry = found
    try:
        records = [RuleFields(**{f: getattr(r, f) for f in RuleFields.__struct_fields__}) for r in rules]
        blob = msgspec.msgpack.encode(_PackRecord(stamp=_validator_stamp(), where=where, name=name, text=text,
                                                  rules=records, default=default))
    except (OSError, TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return
    write_cache(entry, blob)


@cache
def _resolved(directory: Path) -> Path:
    """A directory's real path, looked up once per process (every pack of a directory asks for it)."""
    return directory.resolve()


def _shipped_key(path: Path) -> tuple[str, int, int, int] | None:
    try:
        if _resolved(path.parent) != _resolved(shipped_rules_dir()):
            return None
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns, st.st_ino)


def parse_pack(data: dict[str, Any], name: str, problems: Problems) -> tuple[list[Rule], DefaultOutcome | None]:
    _unknown_keys(data, PACK_KEYS, f"{name}: top level", problems)
    raw_rules = data.get("rules")
    if raw_rules is None:
        problems.add(_("{name}: top level: missing 'rules' (a list of rules)", name=name))
        raw_rules = []
    elif not isinstance(raw_rules, list):
        problems.add(_("{name}: rules: expected a list of rules, got {kind}", name=name, kind=_yaml_kind(raw_rules)))
        raw_rules = []
    constants = _parse_constants(data.get("constants"), name, problems)
    rules: list[Rule] = []
    ids: set[str] = set()
    for index, raw in _expanded(raw_rules, name, problems):
        raw = _with_constants(raw, constants, name, index, problems)
        rule = _parse_rule(raw, index, name, problems)
        if rule is None:
            continue
        if rule.id in ids:
            problems.add(_("{name}: rule '{id}': id is used twice in this file; ids must be unique", name=name, id=rule.id))
            continue
        ids.add(rule.id)
        rules.append(rule)
    default = None
    if "default" in data:
        default = _parse_default(data["default"], name, problems)
    return rules, default


def _parse_constants(raw: Any, name: str, problems: Problems) -> dict[str, Any]:
    """A pack's ``constants``: each threshold or figure its rules share, written once (issue 33). A condition's value
    reads one as ``$name``; a text says it as ``{$name}``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.add(_("{name}: constants: expected a mapping of names to numbers, got {kind}", name=name, kind=_yaml_kind(raw)))
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not _CONSTANT.match(key):
            problems.add(_("{name}: constants: {key} is not a constant's name; use lowercase letters, digits and underscores, e.g. "
                           "thin_network_gbps_per_gpu", name=name, key=_yaml_value(key)))
        elif isinstance(value, bool) or not _finite_number(value):
            problems.add(_("{name}: constants.{key}: expected a finite number, got {value}", name=name, key=key, value=_yaml_value(value)))
        else:
            out[key] = value
    return out


def _with_constants(node: Any, constants: dict[str, Any], name: str, index: int, problems: Problems, where: str | None = None) -> Any:
    """The rule with every ``$name`` value and ``{$name}`` in a text replaced by the pack's constant; an unknown name is a
    problem naming the rule and suggesting the constant meant."""
    if where is None:
        rid = node.get("id") if isinstance(node, dict) else None
        where = _("{name}: rule '{rid}'", name=name, rid=rid) if isinstance(rid, str) else f"{name}: rules[{index}]"

    def look_up(ref: str) -> Any:
        if ref in constants:
            return constants[ref]
        problems.add(_("{where}: ${ref} is not a constant of this pack{hint}", where=where, ref=ref,
                       hint=_suggest(ref, constants) or _("; declare it under constants: at the top of the file")))
        return None

    if isinstance(node, str):
        if node.startswith("$") and _CONSTANT.match(node[1:]):
            return look_up(node[1:])
        return _CONSTANT_REF.sub(lambda m: format_number(v) if (v := look_up(m.group(1))) is not None else m.group(0), node)
    if isinstance(node, list):
        return [_with_constants(n, constants, name, index, problems, where) for n in node]
    if isinstance(node, dict):
        return {k: _with_constants(v, constants, name, index, problems, where) for k, v in node.items()}
    return node


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
        where = _("{name}: rule '{rid}'", name=name, rid=rid) if isinstance(rid, str) else f"{name}: rules[{index}]"
        if not isinstance(over, str) or over not in FOR_EACH:
            problems.add(_("{where}: for_each: {value} is not something a rule repeats over; use one of {names}", where=where, value=_yaml_value(over), names=', '.join(FOR_EACH)))
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
    where = _("{name}: default", name=name)
    if not isinstance(raw, dict):
        problems.add(_("{where}: expected a mapping with strategy and rationale, got {kind}", where=where, kind=_yaml_kind(raw)))
        return None
    _unknown_keys(raw, DEFAULT_KEYS, where, problems)
    strategy = raw.get("strategy")
    if strategy not in STRATEGIES:
        problems.add(f"{where}.strategy: {_strategy_problem(strategy)}")
        return None
    if raw.get("rationale") is None:
        problems.add(_("{where}.rationale: required text explaining the fallback, in both languages: {{en: ..., zh: ...}}", where=where))
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
        problems.add(_("{name}: rules[{index}]: expected a mapping (id, title, source, priority, when, then), got {kind}", name=name, index=index, kind=_yaml_kind(raw)))
        return None
    rid = raw.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        problems.add(
            _("{name}: rules[{index}].id: {v}; use lowercase letters, digits and hyphens, e.g. k13-ddp-under-64", name=name, index=index, v=_("missing") if rid is None else _("{value} is not a valid id", value=repr(rid)))
        )
        return None
    where = _("{name}: rule '{rid}'", name=name, rid=rid)
    before = len(problems.items)
    _unknown_keys(raw, RULE_KEYS, where, problems)
    title = raw.get("title")
    if title is None:
        problems.add(_("{where}: title: required text (a short name for the rule), in both languages: {{en: ..., zh: ...}}", where=where))
    else:
        title = _parse_text(title, f"{where}: title", problems)
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        problems.add(_("{where}: description: expected text, got {kind}", where=where, kind=_yaml_kind(description)))
    source = _parse_source(raw.get("source"), f"{where}: source", problems, required=True)
    priority = raw.get("priority")
    if isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 1000:
        problems.add(_("{where}: priority: expected a whole number from 1 to 1000, got {value}", where=where, value=_yaml_value(priority)))
        priority = 1
    if "when" not in raw:
        problems.add(_("{where}: when: missing; give a condition such as {{all: [{{fact: gpus, op: lt, value: 64}}]}}", where=where))
        test = None
    else:
        test = _compile(raw["when"], f"{where}: when", problems)
    then = _parse_then(raw.get("then"), f"{where}: then", problems)
    if test is not None and then is not None and (then.score or then.exclude):
        plan_facts = sorted(f for f in _facts_in(raw["when"]) if FACTS[f].plan)
        if plan_facts:
            problems.add(
                _("{where}: when: tests '{plan_facts}', a fact about the chosen plan, but the rule scores or excludes strategies; the plan is chosen from the scores, so plan facts may only drive rationale, questions, checklist and warnings — split the rule in two", where=where, plan_facts=plan_facts[0])
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
            problems.add(_("{where}: missing; cite seed:K<n> (1-21) or a reference such as 'arXiv:2104.04473'", where=where))
        return None
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            problems.add(_("{where}: expected text such as seed:K13, got {kind}", where=where, kind=_yaml_kind(item)))
            return None
        m = _SEED.match(item.strip())
        if m:
            if not 1 <= int(m.group(1)) <= 21:
                problems.add(_("{where}: {item} is not a seed item; the seed inventory runs K1 to K21", where=where, item=repr(item)))
                return None
        elif item.strip().lower().startswith("seed"):
            problems.add(_("{where}: {item} is not a seed reference; write seed:K<n>, e.g. seed:K13", where=where, item=repr(item)))
            return None
        elif ":" not in item and "/" not in item:
            problems.add(_("{where}: {item} does not look like a citation; use seed:K<n> or a reference with a locator (arXiv:…, owner/repo: path, URL)", where=where, item=repr(item)))
            return None
        out.append(item.strip())
    return tuple(out)


def _parse_then(raw: Any, where: str, problems: Problems) -> Effects | None:
    if raw is None:
        problems.add(_("{where}: missing; a rule must do something (score, exclude, rationale, questions, checklist or warnings)", where=where))
        return None
    if not isinstance(raw, dict):
        problems.add(_("{where}: expected a mapping, got {kind}", where=where, kind=_yaml_kind(raw)))
        return None
    _unknown_keys(raw, THEN_KEYS, where, problems)
    if not any(k in raw for k in THEN_KEYS):
        problems.add(_("{where}: has no effect; give at least one of {names}", where=where, names=', '.join(THEN_KEYS)))
        return None
    score: dict[str, float] = {}
    if "score" in raw:
        sc = raw["score"]
        if not isinstance(sc, dict):
            problems.add(_("{where}.score: expected a mapping of strategy to points, e.g. {{ddp: 3}}, got {kind}", where=where, kind=_yaml_kind(sc)))
        else:
            for key, pts in sc.items():
                if key not in STRATEGIES:
                    problems.add(f"{where}.score.{key}: {_strategy_problem(key)}")
                elif not _finite_number(pts):
                    problems.add(_("{where}.score.{key}: expected a number of points, got {value}", where=where, key=key, value=_yaml_value(pts)))
                else:
                    score[key] = float(pts)
    exclude: list[str] = []
    if "exclude" in raw:
        ex = raw["exclude"]
        if not isinstance(ex, list):
            problems.add(_("{where}.exclude: expected a list of strategies, got {kind}", where=where, kind=_yaml_kind(ex)))
        else:
            for i, key in enumerate(ex):
                if key not in STRATEGIES:
                    problems.add(f"{where}.exclude[{i}]: {_strategy_problem(key)}")
                else:
                    exclude.append(key)
        if "rationale" not in raw:
            problems.add(_("{where}.rationale: required with exclude; it becomes the 'why not' of the excluded strategies", where=where))
    rationale = None
    if raw.get("rationale") is not None:
        rationale = _parse_text(raw["rationale"], f"{where}.rationale", problems)
    lists: dict[str, list[Text]] = {}
    for key in ("questions", "checklist"):
        items = raw.get(key, [])
        if not isinstance(items, list):
            problems.add(_("{where}.{key}: expected a list of text items, got {kind}", where=where, key=key, kind=_yaml_kind(items)))
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
        problems.add(_("{where}.warnings: expected a list, got {kind}", where=where, kind=_yaml_kind(items)))
        items = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and "text" in item:
            _unknown_keys(item, WARNING_KEYS, f"{where}.warnings[{i}]", problems)
            blocking = item.get("blocking", False)
            if not isinstance(blocking, bool):
                problems.add(_("{where}.warnings[{i}].blocking: expected true or false, got {value}", where=where, i=i, value=_yaml_value(blocking)))
                continue
            text = _parse_text(item["text"], f"{where}.warnings[{i}].text", problems)
            if text is not None:
                warnings.append(Warning_(text, blocking))
        elif isinstance(item, (str, dict)):
            text = _parse_text(item, f"{where}.warnings[{i}]", problems)
            if text is not None:
                warnings.append(Warning_(text, False))
        else:
            problems.add(_("{where}.warnings[{i}]: expected text {{en: ..., zh: ...}} or {{text: {{en: ..., zh: ...}}, blocking: true}}, got {kind}", where=where, i=i, kind=_yaml_kind(item)))
    return Effects(
        score=score, exclude=tuple(exclude), rationale=rationale, questions=tuple(lists["questions"]),
        checklist=tuple(lists["checklist"]), warnings=tuple(warnings),
    )


def _parse_text(raw: Any, where: str, problems: Problems) -> Text | None:
    """A text in every language: {en: "...", zh: "..."}; both name the same facts."""
    if isinstance(raw, str):
        problems.add(_("{where}: give the text in both languages, {{en: {text}, zh: ...}} (missing zh)", where=where, text=_short(raw)))
        return None
    if not isinstance(raw, dict):
        problems.add(_("{where}: expected text in both languages, {{en: ..., zh: ...}}, got {kind}", where=where, kind=_yaml_kind(raw)))
        return None
    for key in raw:
        if key not in LANGUAGES:
            problems.add(_("{where}.{key}: unknown language{hint}; give en and zh", where=where, key=key, hint=_suggest(str(key), LANGUAGES)))
            return None
    texts: dict[str, str] = {}
    for lang in LANGUAGES:
        value = raw.get(lang)
        if value is None:
            problems.add(_("{where}: missing {lang}; every rule text is written in both languages ({names})", where=where, lang=lang, names=', '.join(LANGUAGES)))
            return None
        if not isinstance(value, str) or not value.strip():
            problems.add(_("{where}.{lang}: expected text, got {kind}", where=where, lang=lang, kind=_yaml_kind(value)))
            return None
        _check_template(value, f"{where}.{lang}", problems)
        if (unclosed := _unclosed_bracket(value)) is not None:
            problems.add(_("{where}.{lang}: '{bracket}' is never closed; the text may be cut short: in an unquoted YAML value ' #' "
                           "starts a comment, so quote the text", where=where, lang=lang, bracket=unclosed))
            return None
        texts[lang] = value
    names = {lang: {name for name, _spec in _template_fields(texts[lang])} for lang in LANGUAGES}
    if names["en"] != names["zh"]:
        extra = sorted(names["zh"] ^ names["en"])
        problems.add(_("{where}: en and zh quote different facts ({names}); both languages must say the same numbers", where=where, names=', '.join(extra)))
        return None
    return Text(en=texts["en"], zh=texts["zh"])


_BRACKETS = {"(": ")", "（": "）", "[": "]", "【": "】", "「": "」"}


def _unclosed_bracket(text: str) -> str | None:
    """The first opening bracket a text leaves open: a Chinese rule text read up to an unquoted ' #5046' (a YAML comment)
    ended '（DeepSpeed issue' in every report, and the pack loaded (user try 9)."""
    closers = {v: k for k, v in _BRACKETS.items()}
    stack: list[str] = []
    for ch in text:
        if ch in _BRACKETS:
            stack.append(ch)
        elif ch in closers and stack and stack[-1] == closers[ch]:
            stack.pop()
    return stack[0] if stack else None


def _template_fields(text: str) -> list[tuple[str, str | None]]:
    """(fact, format spec) for every '{fact}' / '{fact:spec}' in a text; '{{' and '}}' are literal braces."""
    return [(m.group(1), m.group(2)) for m in _TEMPLATE.finditer(text) if m.group(0) not in ("{{", "}}")]


def _short(text: str) -> str:
    return repr(text if len(text) <= 30 else text[:27] + "...")


# ------------------------------------------------------------------------------ conditions

Test = Callable[[dict[str, Any], list[dict[str, Any]] | None], bool]
"""A compiled condition: (facts, trace) -> holds. Leaves append what they compared to ``trace``; None keeps no record
(the search scores rules at every GPU count and reads only the result)."""


MAX_CONDITION_DEPTH = 50
"""Deepest all / any / not nesting a condition may have (a validation bound: the shipped rules nest 3 deep); deeper
trees are refused at load rather than overflowing the evaluator's stack."""


def _compile(node: Any, where: str, problems: Problems, depth: int = 0) -> Test | None:
    """Turn a condition tree into a closure that records a trace entry per leaf (given a list to record in). ``always``
    holds unconditionally."""
    if depth > MAX_CONDITION_DEPTH:
        problems.add(_("{where}: conditions nest more than {MAX_CONDITION_DEPTH} deep; flatten the all / any / not tree", where=where, MAX_CONDITION_DEPTH=MAX_CONDITION_DEPTH))
        return None
    if node == "always":
        def always(facts: dict[str, Any], trace: list[dict[str, Any]] | None) -> bool:
            if trace is not None:
                trace.append({"fact": "always", "op": "always", "value": True, "seen": True, "result": True})
            return True

        return always
    if not isinstance(node, dict):
        problems.add(_("{where}: expected 'always' or a mapping with all, any, not or fact, got {kind}", where=where, kind=_yaml_kind(node)))
        return None
    groups = [k for k in ("all", "any", "not") if k in node]
    if groups:
        if len(node) != 1:
            extra = [k for k in node if k not in ("all", "any", "not")]
            problems.add(_("{where}: a condition holds exactly one of all / any / not", where=where) + (_("; unexpected {names}", names=', '.join(map(str, extra))) if extra else ""))
            return None
        key = groups[0]
        if key == "not":
            inner = _compile(node["not"], f"{where}.not", problems, depth + 1)
            if inner is None:
                return None
            return lambda facts, trace: not inner(facts, trace)
        items = node[key]
        if not isinstance(items, list):
            problems.add(_("{where}.{key}: expected a list of conditions, got {kind}", where=where, key=key, kind=_yaml_kind(items)))
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
        problems.add(_("{where}.op: expected an operator name such as eq, got {kind}", where=where, kind=_yaml_kind(op)))
        return None
    if not isinstance(fact, str):
        problems.add(_("{where}.fact: missing; name a fact such as gpus (see `advisor rules facts`)", where=where))
        return None
    spec = FACTS.get(fact)
    if spec is None:
        problems.add(_("{where}.fact: unknown fact '{fact}'{hint}", where=where, fact=fact, hint=_suggest(fact, FACTS)))
        return None
    if op not in OPERATORS:
        problems.add(_("{where}.op: unknown operator '{op}'{hint}", where=where, op=op, hint=_suggest_operator(str(op))))
        return None
    types, _names = OPERATORS[op]
    if spec.type not in types:
        problems.add(_("{where}.op: '{op}' does not apply to {type} fact '{fact}'; use one of {names}", where=where, op=op, type=spec.type, fact=fact, names=', '.join(o for o, (t, _op) in OPERATORS.items() if spec.type in t)))
        return None
    if "value" not in node:
        problems.add(_("{where}.value: missing; '{op}' compares '{fact}' with a value", where=where, op=op, fact=fact))
        return None
    value = node["value"]
    if isinstance(value, dict):
        if set(value) != {"fact"} or not isinstance(value["fact"], str) or value["fact"] not in FACTS:
            other = value.get("fact")
            problems.add(_("{where}.value: a fact reference is {{fact: NAME}} with a known fact", where=where) + (_suggest(str(other), FACTS) if other else ""))
            return None
        other_spec = FACTS[value["fact"]]
        if other_spec.type != spec.type or op in ("in", "not_in", "is_set"):
            problems.add(_("{where}.value: cannot compare {type} fact '{fact}' with {type2} fact '{name}' using '{op}'", where=where, type=spec.type, fact=fact, type2=other_spec.type, name=other_spec.name, op=op))
            return None
        ref = other_spec.name
        return _leaf(fact, op, None, ref)
    if not _value_ok(spec, op, value, where, problems):
        return None
    return _leaf(fact, op, value, None)


def _value_ok(spec: Any, op: str, value: Any, where: str, problems: Problems) -> bool:
    if op == "is_set":
        if not isinstance(value, bool):
            problems.add(_("{where}.value: 'is_set' takes true or false, got {value}", where=where, value=_yaml_value(value)))
            return False
        return True
    values = value if op in ("in", "not_in") else [value]
    if op in ("in", "not_in") and (not isinstance(value, list) or not value):
        problems.add(_("{where}.value: '{op}' takes a non-empty list, got {value}", where=where, op=op, value=_yaml_value(value)))
        return False
    for v in values:
        if spec.type == NUMBER and not _finite_number(v):
            problems.add(_("{where}.value: '{name}' is a number; got {value}", where=where, name=spec.name, value=_yaml_value(v)))
            return False
        if spec.type == BOOL and not isinstance(v, bool):
            problems.add(_("{where}.value: '{name}' is true or false; got {value}", where=where, name=spec.name, value=_yaml_value(v)))
            return False
        if spec.type == TEXT:
            if not isinstance(v, str):
                problems.add(_("{where}.value: '{name}' is text; got {value}", where=where, name=spec.name, value=_yaml_value(v)))
                return False
            if spec.choices and v not in spec.choices:
                problems.add(_("{where}.value: '{v}' is not a value of '{name}'{hint}; it is one of {names}", where=where, v=v, name=spec.name, hint=_suggest(v, spec.choices), names=', '.join(spec.choices)))
                return False
    return True


def _compare(op: str, seen: Any, expected: Any) -> bool:
    """One leaf's comparison: the fact's value ``seen`` against ``expected`` (a value, or the other fact's value)."""
    if op == "is_set":
        return bool((seen is not None) == expected)
    if seen is None or expected is None:
        return False  # an unknown fact never satisfies a comparison
    if op == "eq":
        return bool(seen == expected)
    if op == "ne":
        return bool(seen != expected)
    if op == "lt":
        return bool(seen < expected)
    if op == "le":
        return bool(seen <= expected)
    if op == "gt":
        return bool(seen > expected)
    if op == "ge":
        return bool(seen >= expected)
    if op == "in":
        return seen in expected
    return seen not in expected


def _leaf(fact: str, op: str, value: Any, ref: str | None) -> Test:
    def test(facts: dict[str, Any], trace: list[dict[str, Any]] | None) -> bool:
        seen = facts.get(fact)
        expected = facts.get(ref) if ref else value
        result = _compare(op, seen, expected)
        if trace is not None:
            trace.append({"fact": fact, "op": op, "value": expected if ref is None else {"fact": ref, "seen": expected}, "seen": seen, "result": result})
        return result

    return test


def explain(when: Any, facts: dict[str, Any]) -> dict[str, Any]:
    """A rule's condition as a tree, every leaf evaluated (no short-circuit), for the record of why a rule fired:
    a group is ``{op: all | any | not, result, children}``, a leaf ``{op, fact, value, seen, result}`` (``value`` a
    ``{fact, seen}`` mapping where the leaf compares two facts). ``when`` is a condition the loader accepted, so its
    result is the rule's test's result (tests/test_rule_trace.py checks it on every example)."""
    if when == "always":
        return {"op": "always", "result": True, "children": []}
    for key in ("all", "any"):
        if key in when:
            children = [explain(c, facts) for c in when[key]]
            results = [c["result"] for c in children]
            return {"op": key, "result": all(results) if key == "all" else any(results), "children": children}
    if "not" in when:
        child = explain(when["not"], facts)
        return {"op": "not", "result": not child["result"], "children": [child]}
    fact, op, value = when["fact"], when["op"], when["value"]
    seen = facts.get(fact)
    if isinstance(value, dict):
        other = facts.get(value["fact"])
        return {"op": op, "fact": fact, "seen": seen, "value": {"fact": value["fact"], "seen": other}, "result": _compare(op, seen, other)}
    return {"op": op, "fact": fact, "seen": seen, "value": value, "result": _compare(op, seen, value)}


# ------------------------------------------------------------------------------ templates


def _check_template(text: str, where: str, problems: Problems) -> None:
    for name, spec in _template_fields(text):
        if name not in FACTS:
            problems.add(_("{where}: template names unknown fact '{{{name}}}'{hint}", where=where, name=name, hint=_suggest(name, FACTS)))
        elif spec and spec not in (MONEY_SPEC, DURATION_SPEC, COUNT_SPEC) and not _SPEC.match(spec):
            problems.add(_("{where}: template '{{{name}:{spec}}}' has an unsupported format; use e.g. {{{name}:,.0f}} or {{{name}:.1%}}", where=where, name=name, spec=spec))


def render_template(text: str | Text, facts: dict[str, Any]) -> str:
    """Fill '{fact}' / '{fact:spec}' from facts (in the current language for a Text); unknown values read 'unknown'."""
    text = str(text)

    def fill(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        name, spec = m.group(1), m.group(2)
        value = facts.get(name)
        if value is None:
            return _("unknown")
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if isinstance(value, (int, float)):
            if spec == MONEY_SPEC:
                return money(value, str(facts.get("currency") or ""))
            if spec == DURATION_SPEC:
                return hours_text(float(value))
            if spec == COUNT_SPEC:
                return readable_figure(float(value))
            if spec:
                try:
                    return format(value, spec)
                except ValueError:
                    return format(value, "g")
            return format_number(value)
        said = SAID_AS.get(name)
        return said(str(value)) if said else str(value)

    filled = _TEMPLATE.sub(fill, text)
    return filled if zh() else singular(filled)


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


def _close_matches(word: str, possibilities: Any, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """difflib.get_close_matches, with difflib imported only when a problem needs a suggestion (not at start-up)."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)


def _suggest(word: str, options: Any) -> str:
    close = _close_matches(word, list(options), n=1, cutoff=0.6)
    return _("; did you mean '{name}'?", name=close[0]) if close else ""


def _suggest_operator(word: str) -> str:
    direct = _suggest(word, OPERATORS)
    if direct:
        return direct
    close = _close_matches(word, list(OPERATOR_SPELLINGS), n=1, cutoff=0.6)
    if close:
        op = OPERATOR_SPELLINGS[close[0]]
        return _("; did you mean '{op}' ({replace})?", op=op, replace=close[0].replace('_', ' '))
    return _("; operators: {names}", names=', '.join(OPERATORS))


def _unknown_keys(raw: dict[str, Any], allowed: tuple[str, ...], where: str, problems: Problems, hint: str = "") -> None:
    for key in raw:
        if key not in allowed:
            close = _close_matches(str(key), allowed, n=1, cutoff=0.6)
            tip = _("; did you mean '{name}'?", name=close[0]) if close else _("; allowed: {names}{hint}", names=', '.join(allowed), hint=hint)
            problems.add(_("{where}: unknown key '{key}'{tip}", where=where, key=key, tip=tip))


def _strategy_problem(key: Any) -> str:
    return _("unknown strategy '{key}'{hint}; strategies: {names}", key=key, hint=_suggest(str(key), STRATEGIES), names=', '.join(STRATEGIES))


def _yaml_kind(value: Any) -> str:
    if value is None:
        return _("nothing")
    if isinstance(value, bool):
        return _("true/false")
    if isinstance(value, (int, float)):
        return _("a number")
    if isinstance(value, str):
        return _("text")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping")
    return type(value).__name__


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return _("nothing")
    if isinstance(value, str):
        return _("text {value}", value=repr(value))
    if isinstance(value, int) and abs(value) >= 10**30:
        return _("a number of {n} digits", n=count(len(str(abs(value)))))
    return repr(value) if not isinstance(value, (list, dict)) else _yaml_kind(value)
