"""Ask the advisor: follow-up questions after the plan, in English and Chinese.

What it understands is data — ``data/intents.yaml``: intents with their triggers, the slots they read and the cues
that find each slot, a glossary whose every entry cites its source, and test cases (question -> intent + slots).
``load_intents`` validates it like the rules: a problem is refused with the file, the id and the key.

``ask`` answers one question against the answers (as written: '7B' stays '7B') and the advice made from them:
- what if: the one change (or the few named together: 'H800 at ¥15') is applied to the answers, validated by the
  answers' own parser (so '128', '1.5k', '¥15', '10天' read as in an answers file, and an out-of-range value is the
  answers' one-line error), the core re-runs once, and the reply is the difference;
- why / why not: from the decision (plan, options priced, rules that fired and their scores);
- explain: the glossary;
- compare: two strategies, GPU counts or GPU types side by side.
A question it cannot read is never guessed: the reply offers the closest questions it can answer.

Imports no UI code (tests/test_boundaries.py).
"""

from __future__ import annotations

import copy
import difflib
import math
import re
from msgspec import Struct, field
from msgspec.structs import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.decision.advice import METHOD_ALTERNATIVES, Advice, advise, hours_text, money, pct_change, peft_caveat
from advisor.estimate.finetune import FINETUNE_METHODS, PEFT_METHODS
from advisor.estimate.layout import MEMORY_HEADROOM
from advisor.estimate import GB
from advisor.estimate.residuals import deadline_hours, upper_factor
from advisor.estimate.workload import workload_from
from advisor.decision.decide import COST_TIE, SAME_FIGURE, Plan, best_at, choose, dominates, preference
from advisor.decision.explain import PLAN_SOURCE, best_option_at, budget_word, deadline_reason, deadline_word, gpu_type_name, lost_text, method_names, notes, point_inside, today_cannot_run, type_name, plan_with_method, what_it_takes_notes
from advisor.inputs.answers import STRATEGIES, Answers, _fields_at, _seq_len, answers_from_mapping
from advisor.knowledge.catalog import gpu_catalog, resolve_gpu
from advisor.base.errors import AdvisorError, AnswerError
from advisor.base.i18n import N_, _, width, written_in_chinese, zh
from advisor.base.text import plain
from advisor.knowledge.rules import RuleSet, format_number
from advisor.knowledge.strategies import FRAMEWORKS
from advisor.base.units import as_written, data_size, hours_against, cn_number, count, gpu_hours_text, money_column, money_pair, parse_duration, parse_money, parse_quantity, readable_figure, same_unit, seconds_text, strip_per_hour, token_amount, token_text
from advisor.decision.facts import HOURS_PER_MONTH
from advisor.outputs.render import interruptions_text, recompute_word, runs_note, seed_item

INTENTS_FILE = "intents.yaml"
BUILTIN_KINDS = ("strategy", "term", "field", "factor")
MULTIPLIER = r"[0-9]+(?:\.[0-9]+)?\s*(?:x|×|倍)(?![a-z0-9])|(?:x|×)\s*[0-9]+(?:\.[0-9]+)?"
"""A factor written as a number: '2x', '1.5 ×', 'x3', '3倍' (a `factor` slot's words are its `values`)."""
SCALAR_SECTIONS = ("model", "training", "cluster", "budget", "team", "project")
STRUCTURED_FIELDS = {"project.conversation", "project.checklist_done", "training.measured", "cluster.candidates", "model.config",
                     "training.stages_before", "training.post_training"}
"""Fields a what-if cannot set with one value (lists and mappings): a question names them in vain."""
MAX_QUESTION = 500
"""Longer questions are refused before any matching (a paste must not stall the app)."""


class IntentLoadError(AdvisorError):
    """The intents file is malformed: names the file, the intent (or slot / term) id and the key."""

    title = "intent error"


# ------------------------------------------------------------------------------ the data


class Slot(Struct, frozen=True):
    id: str
    kind: str
    label: dict[str, str]
    cues: tuple[re.Pattern[str], ...]
    fields: tuple[str, ...] = ()
    """The answers fields a what-if on this slot sets (usually one)."""
    values: tuple[str, ...] = ()
    means: dict[str, Any] = field(default_factory=dict)
    """A word as the answers hold it: 'dedicated' -> False for cluster.multi_tenant."""

    def name(self) -> str:
        return self.label["zh" if zh() else "en"]


class Intent(Struct, frozen=True):
    id: str
    title: dict[str, str]
    triggers: tuple[re.Pattern[str], ...]
    slots: tuple[str, ...]
    requires: tuple[str, ...]
    requires_any: tuple[str, ...]
    min_values: int
    example: dict[str, str]
    cases: tuple[dict[str, Any], ...]


class Term(Struct, frozen=True):
    id: str
    aliases: tuple[str, ...]
    source: tuple[str, ...]
    text: dict[str, str]


class Intents(Struct, frozen=True):
    file: str
    intents: tuple[Intent, ...]
    slots: dict[str, Slot]
    terms: dict[str, Term]
    strategy_names: dict[str, str]
    """alias -> strategy id or group name"""
    groups: dict[str, tuple[str, ...]]


def _bilingual(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or set(value) != {"en", "zh"} or not all(isinstance(v, str) and v.strip() for v in value.values()):
        raise IntentLoadError(f"{where}: must be {{en: ..., zh: ...}}, both non-empty text")
    return {"en": value["en"], "zh": value["zh"]}


def _strings(value: Any, where: str, empty_ok: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or (not value and not empty_ok) or not all(isinstance(v, str) and v.strip() for v in value):
        raise IntentLoadError(f"{where}: must be a list of non-empty texts")
    return tuple(value)


def _keys(data: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise IntentLoadError(f"{where}: must be a mapping")
    unknown = sorted(set(map(str, data)) - allowed)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(allowed), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(sorted(allowed))}"
        raise IntentLoadError(f"{where}.{unknown[0]}: unknown key{hint}")
    missing = sorted(required - set(data))
    if missing:
        raise IntentLoadError(f"{where}.{missing[0]}: is required")
    return data


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise IntentLoadError(f"{where}: not a valid regular expression ({exc})") from None


def _alternation(names: list[str]) -> str:
    return "|".join(re.escape(n.lower()) for n in sorted(set(names), key=len, reverse=True))


def parse_intents(data: Any, file: str) -> Intents:
    """Validate the intents data; the first problem raises IntentLoadError naming the file, the id and the key."""
    top = _keys(data, file, {"kinds", "slots", "strategies", "strategy_groups", "intents", "terms"}, {"kinds", "slots", "intents", "terms"})
    kinds = _keys(top["kinds"], f"{file}: kinds", set(map(str, top["kinds"] or {})), set()) if isinstance(top["kinds"], dict) else None
    if not kinds:
        raise IntentLoadError(f"{file}: kinds: must be a mapping of kind -> value pattern")
    for k, v in kinds.items():
        if not isinstance(v, str):
            raise IntentLoadError(f"{file}: kinds.{k}: must be a regular expression")
        _compile(v, f"{file}: kinds.{k}")

    # strategies and groups
    names: dict[str, str] = {}
    raw_strats = top.get("strategies") or {}
    if not isinstance(raw_strats, dict):
        raise IntentLoadError(f"{file}: strategies: must be a mapping of strategy id -> names")
    for sid, aliases in raw_strats.items():
        if sid not in STRATEGIES:
            raise IntentLoadError(f"{file}: strategies.{sid}: unknown strategy; known: {', '.join(STRATEGIES)}")
        for a in _strings(aliases, f"{file}: strategies.{sid}"):
            names[a.lower()] = sid
    groups: dict[str, tuple[str, ...]] = {}
    raw_groups = top.get("strategy_groups") or {}
    if not isinstance(raw_groups, dict):
        raise IntentLoadError(f"{file}: strategy_groups: must be a mapping")
    for gid, g in raw_groups.items():
        where = f"{file}: strategy_groups.{gid}"
        g = _keys(g, where, {"aliases", "members"}, {"aliases", "members"})
        members = _strings(g["members"], f"{where}.members")
        bad = [m for m in members if m not in STRATEGIES]
        if bad:
            raise IntentLoadError(f"{where}.members: unknown strategy '{bad[0]}'")
        groups[str(gid)] = members
        for a in _strings(g["aliases"], f"{where}.aliases"):
            names[a.lower()] = str(gid)

    # terms
    terms: dict[str, Term] = {}
    if not isinstance(top["terms"], dict) or not top["terms"]:
        raise IntentLoadError(f"{file}: terms: must be a mapping of term id -> entry")
    for tid, t in top["terms"].items():
        where = f"{file}: terms.{tid}"
        t = _keys(t, where, {"aliases", "source", "text"}, {"aliases", "source", "text"})
        terms[str(tid)] = Term(str(tid), tuple(a.lower() for a in _strings(t["aliases"], f"{where}.aliases")),
                               _strings(t["source"], f"{where}.source"), _bilingual(t["text"], f"{where}.text"))
    term_names = {a: tid for tid, t in terms.items() for a in t.aliases}

    # slots
    slots: dict[str, Slot] = {}
    if not isinstance(top["slots"], dict) or not top["slots"]:
        raise IntentLoadError(f"{file}: slots: must be a mapping of slot id -> slot")
    for sid, s in top["slots"].items():
        where = f"{file}: slots.{sid}"
        s = _keys(s, where, {"field", "kind", "label", "cues", "values", "means"}, {"kind", "label", "cues"})
        kind = s["kind"]
        if kind not in kinds and kind not in BUILTIN_KINDS:
            raise IntentLoadError(f"{where}.kind: unknown kind '{kind}'; known: {', '.join([*kinds, *BUILTIN_KINDS])}")
        given = s.get("field")
        fields = (given,) if isinstance(given, str) else _strings(given, f"{where}.field") if given is not None else ()
        for fld in fields:
            parts = str(fld).split(".")
            if len(parts) != 2 or parts[1] not in _fields_at(Answers, parts[:1]):
                raise IntentLoadError(f"{where}.field: '{fld}' is not an answers field (section.key, see `advisor schema`)")
        values = _strings(s["values"], f"{where}.values") if "values" in s else ()
        means = s.get("means", {})
        if not isinstance(means, dict) or any(str(k) not in values for k in means):
            raise IntentLoadError(f"{where}.means: must map some of the slot's values to what the answers hold")
        if kind == "factor" and (not fields or any(str(v) not in means for v in values)
                                 or any(isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m < 1e3 for m in means.values())):
            raise IntentLoadError(f"{where}.means: a factor slot needs a field and a positive multiplier for every one of its values")
        if kind == "field":
            value_rx = _field_names_rx() + r"\s*(?:=|:|to|is|of|at|是|为|改为|改成|设为)?\s*[^\s,;?？]+"
        elif kind == "strategy":
            value_rx = _alternation(list(names))
        elif kind == "term":
            value_rx = _alternation(list(term_names))
        elif kind == "factor":
            value_rx = _alternation(list(values)) + "|" + MULTIPLIER
        elif values:
            value_rx = _alternation(list(values))
        else:
            value_rx = kinds[kind]
        cues = []
        for i, cue in enumerate(_strings(s["cues"], f"{where}.cues")):
            if cue.count("({value})") != 1:
                raise IntentLoadError(f"{where}.cues[{i}]: must hold ({{value}}) once, where the value is read")
            rx = _compile(cue.replace("({value})", f"((?:{value_rx})(?![0-9]|[.,][0-9]))"), f"{where}.cues[{i}]")
            if rx.groups != 1:
                raise IntentLoadError(f"{where}.cues[{i}]: other groups must be non-capturing (?:...)")
            cues.append(rx)
        label = _bilingual(s["label"], f"{where}.label")
        # 'label = value' always reads as the slot: it is how a suggestion writes it ("what if GPUs = 128?")
        if kind not in ("field", "factor"):
            cues += [re.compile(r"(?<![\w.])" + re.escape(text.lower()) + rf"\s*=\s*((?:{value_rx})(?![0-9]|[.,][0-9]))", re.IGNORECASE)
                     for text in label.values()]
        slots[str(sid)] = Slot(str(sid), kind, label, tuple(cues), tuple(fields), tuple(values), {str(k): v for k, v in means.items()})

    # intents
    intents: list[Intent] = []
    seen: set[str] = set()
    if not isinstance(top["intents"], list) or not top["intents"]:
        raise IntentLoadError(f"{file}: intents: must be a list of intents")
    for i, it in enumerate(top["intents"]):
        iid = it.get("id") if isinstance(it, dict) else None
        where = f"{file}: intents[{i}] {iid or '?'}"
        it = _keys(it, where, {"id", "title", "triggers", "slots", "requires", "requires_any", "min_values", "example", "cases"},
                   {"id", "title", "triggers", "example", "cases"})
        if iid not in ANSWERERS:
            raise IntentLoadError(f"{where}.id: no answer for intent '{iid}'; known: {', '.join(ANSWERERS)}")
        if iid in seen:
            raise IntentLoadError(f"{where}.id: duplicate intent id")
        seen.add(iid)
        triggers = tuple(_compile(t, f"{where}.triggers[{j}]") for j, t in enumerate(_strings(it["triggers"], f"{where}.triggers")))
        used = _strings(it.get("slots", []), f"{where}.slots", empty_ok=True)
        req = _strings(it.get("requires", []), f"{where}.requires", empty_ok=True)
        req_any = _strings(it.get("requires_any", []), f"{where}.requires_any", empty_ok=True)
        for key, listed in (("slots", used), ("requires", req), ("requires_any", req_any)):
            for name in listed:
                if name not in slots:
                    raise IntentLoadError(f"{where}.{key}: unknown slot '{name}'; known: {', '.join(slots)}")
                if key != "slots" and name not in used:
                    raise IntentLoadError(f"{where}.{key}: '{name}' is not among the intent's slots")
        min_values = it.get("min_values", 1)
        if isinstance(min_values, bool) or not isinstance(min_values, int) or min_values < 1:
            raise IntentLoadError(f"{where}.min_values: must be a whole number >= 1")
        example = _bilingual(it["example"], f"{where}.example")
        cases = it["cases"]
        if not isinstance(cases, list) or not cases:
            raise IntentLoadError(f"{where}.cases: must be a list of {{q: question, slots: {{slot: [values]}}}} (at least one)")
        for j, case in enumerate(cases):
            cw = f"{where}.cases[{j}]"
            case = _keys(case, cw, {"q", "slots"}, {"q", "slots"})
            if not isinstance(case["q"], str) or not case["q"].strip():
                raise IntentLoadError(f"{cw}.q: must be a question")
            if not isinstance(case["slots"], dict):
                raise IntentLoadError(f"{cw}.slots: must be a mapping of slot -> list of values")
            for name, vals in case["slots"].items():
                if name not in used:
                    raise IntentLoadError(f"{cw}.slots.{name}: not among the intent's slots")
                _strings([str(v) for v in vals] if isinstance(vals, list) else vals, f"{cw}.slots.{name}")
        intents.append(Intent(str(iid), _bilingual(it["title"], f"{where}.title"), triggers, used, req, req_any, min_values,
                              example, tuple(cases)))
    return Intents(file, tuple(intents), slots, terms, names, groups)


@lru_cache(maxsize=1)
def answers_fields() -> dict[str, str]:
    """Every answers field one value sets, as a question may name it -> its path: 'training.lora_rank' always, and
    'lora_rank' alone where the key has an underscore (a plain 'gpus' is the GPUs slot's to read)."""
    names: dict[str, str] = {}
    for section in SCALAR_SECTIONS:
        for key in _fields_at(Answers, [section]):
            path = f"{section}.{key}"
            if path in STRUCTURED_FIELDS:
                continue
            names[path] = path
            if "_" in key:
                names.setdefault(key, path)
    return names


def _field_names_rx() -> str:
    return "(?:" + _alternation(list(answers_fields())) + ")"


_FIELD_VALUE = re.compile(r"^([a-z_.]+?)\s*(?:=|:|to|is|of|at|是|为|改为|改成|设为)?\s*([^\s,;?？]+)$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _shipped() -> Intents:
    from advisor.base.safeload import parse_trusted

    text = (Path(__file__).resolve().parents[1] / "data" / INTENTS_FILE).read_text(encoding="utf-8")
    return parse_intents(parse_trusted(text), f"data/{INTENTS_FILE}")


def load_intents(path: str | Path | None = None) -> Intents:
    """The shipped intents, or those in ``path`` (checked the same way)."""
    if path is None:
        return _shipped()
    from advisor.base.safeload import load_mapping

    name, data = load_mapping(path)
    return parse_intents(data, name)


# ------------------------------------------------------------------------------ reading a question


class Parsed(Struct):
    intent: str
    slots: dict[str, list[str]]


_CLOSING = re.compile(r"[\s?？!！。.,，~]+$")


def normalise(question: str) -> str:
    """Whitespace collapsed, the closing punctuation dropped, and a Chinese number before a unit written in digits
    ('一周' -> '1周', '两天' -> '2天', '十六张卡' -> '16张卡': '能在一周内完成吗' was not understood); the case is kept
    (values are quoted as written) and every pattern matches ignoring it."""
    text = _PER_HOUR.sub(r"\1/\2", _CLOSING.sub("", " ".join(question.split())))
    text = _A_SPAN.sub(lambda m: f"{m.group(1)} 1 {m.group(2)}", text)
    return _CN_COUNT.sub(lambda m: str(cn_number(m.group(1))), text) if written_in_chinese(text) else text


_PER_HOUR = re.compile(r"([元块])\s*一\s*(?:个)?\s*(小时|卡时)")
_A_SPAN = re.compile(r"\b(in|within|under)\s+an?\s+(week|day|fortnight|hour)\b", re.IGNORECASE)
"""'can we finish in a week' is 'in 1 week': a duration the deadline slot reads (user try 9)."""
"""'15元一小时' is '15元/小时', a price: not '15元' followed by a count of one hour (user try 9)."""

_CN_COUNT = re.compile(r"(?<![一二两三四五六七八九十])([一二两三四五六七八九十]{1,3})(?=\s*(?:个)?\s*(?:天|日|周|星期|小时|张|块|台|节点))")
"""A Chinese number of up to 99 written before a unit of time or a count of GPUs or nodes."""


def _gpu_of(token: str) -> str | None:
    """The catalog GPU a word names, its plural too: 'A100s' is the A100 (it was refused as "unknown GPU 'H100s'")."""
    return resolve_gpu(token) or (resolve_gpu(token[:-1]) if token.lower().endswith("s") else None)


def _gpu_like(token: str) -> bool:
    """A token that names a catalog GPU, or starts one ('h100' of h100-sxm): the answers' parser then decides."""
    if _gpu_of(token):
        return True
    t = token.lower().replace("-", "")
    return len(t) >= 3 and any(gid.replace("-", "").startswith(t) for gid in gpu_catalog())


def find_slots(text: str, names: tuple[str, ...], data: Intents) -> dict[str, list[str]]:
    """Each slot's values in the (normalised) question, in order; a span read by one slot is not read again."""
    claimed: list[tuple[int, int]] = []
    found: dict[str, list[str]] = {}
    for name in names:
        slot = data.slots[name]
        hits: list[tuple[int, str]] = []
        for cue in slot.cues:
            for m in cue.finditer(text):
                a, b = m.span(1)
                if any(a < y and x < b for x, y in claimed):
                    continue
                raw = m.group(1).strip()
                value = _value(slot, raw, data)
                if value is None:
                    continue
                claimed.append((a, b))
                hits.append((a, value))
        if hits:
            found[name] = [v for _pos, v in sorted(hits)]
    return found


def _value(slot: Slot, raw: str, data: Intents) -> str | None:
    if slot.kind == "strategy":
        return data.strategy_names.get(raw.lower())
    if slot.kind == "term":
        return next((tid for tid, t in data.terms.items() if raw.lower() in t.aliases), None)
    if slot.kind == "field":
        m = _FIELD_VALUE.match(raw)
        path = answers_fields().get(m.group(1).lower()) if m else None
        return f"{path}={m.group(2)}" if m and path else None
    if slot.kind == "factor":
        return raw.lower() if raw.lower() in slot.means else re.sub(r"\s+", "", raw.lower())
    if slot.values:
        return raw.lower()
    if slot.kind == "gpu":
        if not _gpu_like(raw):
            return None
        return _gpu_of(raw) or raw
    return raw


def parse(question: str, data: Intents | None = None) -> Parsed | None:
    """The first intent whose trigger is in the question and whose required slots are found; None if there is none."""
    data = data or load_intents()
    text = normalise(question)
    for it in data.intents:
        if not any(t.search(text) for t in it.triggers):
            continue
        slots = find_slots(text, it.slots, data)
        if any(s not in slots for s in it.requires):
            continue
        if it.requires_any and not any(s in slots for s in it.requires_any):
            continue
        if it.min_values > 1 and not any(len(v) >= it.min_values for v in slots.values()):
            continue
        return Parsed(it.id, slots)
    return None


def suggestions(question: str, data: Intents | None = None, n: int = 3, advice: Advice | None = None) -> list[str]:
    """The closest questions advisor can answer, filled with the values this one holds: 'what if GPUs = 128?' first;
    then questions drawn from ``advice`` (its strategy, GPU types, method), or everyday ones where there is none."""
    data = data or load_intents()
    text = normalise(question)
    lang = "zh" if zh() else "en"
    filled: list[tuple[bool, str]] = []
    for it in data.intents:
        if "{a}" not in it.example[lang]:
            continue  # how long / how much...: the question is the same whatever values it holds
        for name, values in find_slots(text, it.slots, data).items():
            if it.id == "compare" and len(values) < 2:
                continue
            shown = [_("{n} GPUs", n=v) if name == "gpus" and it.id != "what_if" else v for v in values]
            if data.slots[name].kind == "term":  # a term as people write it, not its id ('为什么是 data-loading？'; user try 14)
                shown = [_term_name(data.terms[v], lang) if v in data.terms else v for v in values]
            if it.id == "what_if":
                slot = data.slots[name]
                if slot.kind == "factor":
                    continue  # 'double the GPUs' reads as asked; 'GPUs = double' would not
                if slot.kind != "field" and not slot.fields:
                    continue  # a slot that sets no field ('with fsdp' beside a change) is no what-if of its own
                shown = [values[0].replace("=", " = ", 1) if slot.kind == "field" else f"{slot.label[lang]} = {values[0]}"]
            filled.append((it.id != "what_if", it.example[lang].format(a=shown[0], b=shown[-1])))
    out = [q for _later, q in sorted(filled, key=lambda f: f[0])]
    if len(out) < n:
        # A suggestion is answerable and about this plan: never a test case ('why is fsdp recommended' on a ZeRO-2 plan,
        # 'H800 at ¥15' on a USD plan, a negative count written to test a refusal).
        offers = plan_questions(advice) if advice is not None else everyday_questions()
        out += sorted(offers, key=lambda q: -difflib.SequenceMatcher(None, text.lower(), normalise(q).lower()).ratio())
    unique: list[str] = []
    for q in out:
        if q not in unique:
            unique.append(q)
    return unique[:n]


def _term_name(term: Term, lang: str) -> str:
    """A term's first alias in the reader's language (Chinese: the first alias in Chinese characters), else its first."""
    cjk = [a for a in term.aliases if any("\u4e00" <= ch <= "\u9fff" for ch in a)]
    latin = [a for a in term.aliases if a not in cjk]
    return (cjk or latin or [term.id])[0] if lang == "zh" else (latin or [term.id])[0]


def everyday_questions() -> list[str]:
    """What a PM asks about any plan."""
    return [_("how long will it take?"), _("how much per month?"), _("what are the risks?"), _("can we do it cheaper?"),
            _("is this worth it?"), _("what should I tell my boss?")]


_TERM_OF = {"ddp": "data-parallel", "ddp-powersgd": "data-parallel", "horovod": "horovod", "fsdp": "fsdp", "fsdp-hybrid": "fsdp",
            "deepspeed-zero1": "zero", "deepspeed-zero2": "zero", "deepspeed-zero3": "zero", "deepspeed-zeropp": "zero",
            "deepspeed-zero3-offload": "offload", "megatron-3d": "three-d-parallel", "lora": "lora", "qlora": "qlora"}
_TERM_NAME = {"data-parallel": ("data parallelism", "数据并行"), "horovod": ("Horovod", "Horovod"), "fsdp": ("FSDP", "FSDP"),
              "zero": ("ZeRO", "ZeRO"), "offload": ("ZeRO-Offload", "ZeRO-Offload"), "three-d-parallel": ("3D parallelism", "3D 并行"),
              "lora": ("LoRA", "LoRA"), "qlora": ("QLoRA", "QLoRA")}


def plan_questions(advice: Advice) -> list[str]:
    """Questions about this plan, in its own terms: its strategy, the runner-up, its GPU types, its method."""
    a, c = advice, advice.plan.chosen
    out = everyday_questions()[:3] + [_("why {strategy}?", strategy=c.strategy)]
    others = sorted((s for s in a.scores if s != c.strategy and (o := a.plan.option(s, c.gpus)) is not None and o.runnable),
                    key=lambda s: -a.scores[s])
    if others:
        out.append(_("why not {strategy}?", strategy=others[0]))
    out.append(_("what if GPUs = {n}?", n=c.gpus * 2))
    term = _TERM_OF.get(a.method) or _TERM_OF.get(c.strategy)
    if term:
        out.append(_("what is {term}?", term=_TERM_NAME[term][1 if zh() else 0]))
    types = list(dict.fromkeys([a.today_answers.cluster.gpu, *(o.gpu for o in a.plan.options if o.gpu)]))
    if len(types) >= 2:
        out.append(_("compare {a} and {b}", a=types[0], b=types[1]))
    return out + everyday_questions()[3:]


# ------------------------------------------------------------------------------ the reply


class Reply(Struct):
    """One answer: sentences, the figures it rests on (label, one value per column), sources and, for a what-if,
    the change that can be adopted as the new answers."""

    question: str
    intent: str | None
    slots: dict[str, list[str]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    figures: list[tuple[str, ...]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    change: dict[str, Any] = field(default_factory=dict)
    """answers field path ('cluster.gpus') -> the value as written ('128'): what the what-if priced"""
    understood: bool = True
    """False where the question was not read at all (no intent matched): the CLI exits non-zero on it"""
    refused: bool = False
    """Read, but not answerable as asked: the reply asks the question again another way (an amount in another currency,
    a family of strategies); the CLI exits non-zero on it, as on an unread question"""
    held: tuple[str, ...] = ()
    """paths in ``change`` set only to compare like with like (an assumed runs a month kept at today's): not adopted"""

    def adoptable(self) -> dict[str, Any]:
        """What adopting the what-if writes into the answers: the change less what it only held for the comparison
        (adopting '16 GPUs' wrote 'runs_per_month: 16.3274', an assumption the new file then gave as fact), with a number
        written as text ('16', '3 days') written as the number the answers read (user try 2026-12-06: 'gpus: '16'')."""
        return {path: adopted_value(path, value) for path, value in self.change.items() if path not in self.held}

    def text(self) -> str:
        return reply_text(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "intent": self.intent, "slots": self.slots, "answer": self.lines,
            "figures": {"columns": list(self.columns), "rows": [list(r) for r in self.figures]},
            "sources": self.sources, "suggestions": self.suggestions, "change": self.change, "held": list(self.held),
        }


TABLE_COLUMNS = 76
"""The widest a reply's table runs: the Ask tab's box at 80 columns, less its border, padding and scroll bar (a wider
row wrapped its last cell to column 0)."""


def reply_text(reply: Reply) -> str:
    from advisor.base.i18n import pad, width

    out = list(reply.lines)
    if reply.figures:
        rows = [("", *reply.columns), *reply.figures]
        cols = len(rows[0])
        widths = [max(width(r[i]) for r in rows if i < len(r)) for i in range(cols)]
        room = TABLE_COLUMNS - sum(widths[:-1]) - 2 * (cols - 1)
        if cols > 1 and widths[-1] > room >= 12:  # the last column gives way, so no row wraps (the lines above say it whole)
            rows = [(*r[:-1], _clip(r[-1], room)) if len(r) == cols else r for r in rows]
            widths[-1] = room
        excess = sum(widths) + 2 * (cols - 1) - TABLE_COLUMNS
        if cols > 2 and excess > 0 and widths[0] - excess >= 10:
            # else the first column, the rows' names ('NVIDIA H800 SXM 80GB'): a five-column comparison in Chinese ran to
            # 81 columns and wrapped each row's verdict onto a line of its own (user try 12)
            rows = [(_clip(r[0], widths[0] - excess), *r[1:]) for r in rows]
            widths[0] -= excess
        out.append("")
        for r in rows:
            out.append("  ".join(pad(r[i] if i < len(r) else "", widths[i]) for i in range(cols)).rstrip())
    if reply.suggestions:
        # an unread question gets guesses at what it meant; an answered one, what to ask next
        out.append(_("Did you mean: {options}", options=" / ".join(reply.suggestions)) if reply.intent is None
                   else _("You could ask next: {options}", options=" / ".join(reply.suggestions)))
    if reply.sources:
        out.append(_("Sources: {sources}", sources=("；" if zh() else "; ").join(dict.fromkeys(source_text(x) for x in reply.sources))))
    return "\n".join(out)


def source_text(source: str) -> str:
    """A source as a reader follows it (the footnote line): the article's item, advisor's own search or estimate, or the
    publication as cited; never an internal tag or a file name."""
    s = source.strip()
    if (n := seed_item(s)) is not None:
        return _("the source article, item K{n}", n=n)
    if s == PLAN_SOURCE:
        return _("advisor's search over strategies and GPU counts")
    if s.startswith("advisor estimate"):
        return _("advisor's time and cost estimate")
    return FILE_IN_CITATION.sub("", s)


FILE_IN_CITATION = re.compile(r"\s+(?:[\w.-]+/)*[\w.-]+\.(?:md|py|json|ya?ml|txt|rst)\b")
"""A file inside a cited repository ('stas00/ml-engineering network/README.md: ...'): the reader follows the repository
and the quote; the path is for the memo's footnotes."""


def ask(question: str, draft: dict[str, Any], advice: Advice, rules: RuleSet, name: str = "<answers>",
        data: Intents | None = None) -> Reply:
    """Answer one question about ``advice`` (made from ``draft``, the answers as written).

    Raises:
        AnswerError: a value in the question is out of range for its answer (the answers' own one-line error).
    """
    data = data or load_intents()
    question = question.strip()
    if not question:
        return Reply(question, None, lines=[_("Ask a question about the plan.")], suggestions=suggestions("", data, advice=advice))
    if len(question) > MAX_QUESTION:
        return Reply(question[:MAX_QUESTION], None, lines=[_("The question is {n} characters long; ask it in at most {most}.",
                                                                n=count(len(question)), most=MAX_QUESTION)])
    parsed = parse(question, data)
    if parsed is None:
        offers = suggestions(question, data, advice=advice)
        if _CALENDAR.search(normalise(question).lower()):
            # 'will it be done by friday?', '下周五之前能训完吗': a deadline by the calendar, which needs the start date the
            # answers do not hold; say so and offer the form that works (user try 13: no hint which form that was)
            offers = [_("can we finish in 4 days?")] + [q for q in offers if q != _("can we finish in 4 days?")][:2]
            return Reply(question, None, lines=[_("A deadline given as a day or a date cannot be read: the answers hold no start "
                                                  "date. Give it as time from the start, e.g. 'can we finish in 4 days?'.")],
                         suggestions=offers, understood=False)
        return Reply(question, None, lines=[_("I could not read that question.")], suggestions=offers, understood=False)
    budget = draft.get("budget")
    if isinstance(budget, dict) and "currency" not in budget:
        # '20元' set the currency as the answers were read: a what-if that copies that price onto another GPU type, or
        # prices one of its own, reads it from the draft, where English replies refused "'20元' is written in CNY but
        # budget.currency is USD" and a compared table mixed CNY and USD (user try 9)
        draft = {**draft, "budget": {**budget, "currency": advice.today_answers.budget.currency}}
    ctx = Context(question, draft, advice, rules, name, data)
    try:
        reply = ANSWERERS[parsed.intent](ctx, parsed.slots)
    except AnswerError as exc:
        raise AnswerError(question_error(question, exc.msg, name)) from None
    reply.slots = parsed.slots
    reply.held = tuple(sorted(ctx.held & reply.change.keys()))
    return reply


_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e\+?(\d+)(?![\w.])")


def question_error(question: str, msg: str, name: str) -> str:
    """An out-of-range value in a question, said as the question's (the file was fine: its advice was made), with the
    answers' own words for the field and the range, numbers written out ('1e6' is 1,000,000)."""
    if msg.startswith(name + ": "):
        msg = msg[len(name) + 2:]
    msg = _SCIENTIFIC.sub(lambda m: count(float(m.group(1)) * 10 ** int(m.group(2))), msg)
    return _("In '{question}': {problem}", question=question, problem=msg)


class Context(Struct):
    question: str
    draft: dict[str, Any]
    advice: Advice
    rules: RuleSet
    name: str
    data: Intents
    held: set[str] = field(default_factory=set)
    """the change's paths set only to keep the comparison like with like (Reply.held)"""

    @property
    def currency(self) -> str:
        return str(self.advice.facts["currency"])


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def adopted_value(path: str, value: Any) -> Any:
    """``value`` as the saved answers should hold it: a plain number written as text ('16') as that number, a duration
    ('3 days', '48h') as the number of the field's own unit; a quantity with a suffix ('1T', '20万') stays as written."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    unit = "days" if path.endswith("_days") else "hours" if path.endswith("_hours") else None
    number: float | None = None
    if _PLAIN_NUMBER.fullmatch(text):
        number = float(text)
    elif unit is not None:
        try:
            number = parse_duration(text, unit)
        except (TypeError, ValueError):
            return value  # the answers' own parser gives the one-line error on the re-run
    if number is None or not math.isfinite(number):
        return value
    return as_written(number)


def with_change(draft: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """A copy of the answers as written with ``change`` (field path -> value; None removes the key) applied."""
    new = copy.deepcopy(draft)
    for path, value in change.items():
        section, key = path.split(".")
        sect = new.get(section)
        if not isinstance(sect, dict):
            sect = new[section] = {}
        if value is None:
            sect.pop(key, None)
        else:
            sect[key] = value
    return new


def _month_claimed(ctx: Context, *changes: dict[str, Any]) -> bool:
    """Whether a cost a month is the team's figure: the answers give the runs a month or a monthly ceiling, or the
    question sets one. Otherwise the runs a month are advisor's assumption (today's setup back to back: 3,375 sub-hour
    LoRA runs read as a 92,160 USD bill for 64 GPUs that cost 46,080 USD a month; user try 2026-12-06), and the
    tables and notes of an answer leave the month out; 'how much per month?' still answers it, saying what it assumes."""
    a = ctx.advice
    if a.runs_given or a.answers.budget.monthly_limit is not None:
        return True
    return any(({"training.runs_per_month", "budget.monthly_limit"} & set(c)) - ctx.held for c in changes)


def _run_tokens(advice: Advice) -> float:
    """The work of a run: the tokens the answers give, or the ones a measured run implies (its days at today's pace)."""
    given = advice.today_answers.training.tokens
    return float(given) if given is not None else float(advice.evaluation.context["tokens"])


def _keep_the_work(ctx: Context, change: dict[str, Any]) -> list[str]:
    """What stays as it is in a what-if, set in ``change`` and said in the notes returned: the runs a month (by default
    today's setup back to back, which the change would move), and the work of a run. A measured duration is today's GPUs': on another count the run keeps its work (the tokens it implies), so the
    change also sets training.tokens in place of the duration. Returns the note that says so."""
    a = ctx.advice.today_answers  # as given: another GPU type's answers drop a measured duration
    notes = []
    training = ctx.draft.get("training")
    # the file's own runs a month (a lighter method's answers carry the plan's cadence as if given: advice.with_method)
    given = training.get("runs_per_month") if isinstance(training, dict) else a.training.runs_per_month
    if given is None and "training.runs_per_month" not in change:
        # the default cadence is today's setup back to back: a what-if keeps the roadmap's runs a month as they are
        runs = ctx.advice.plan.runs_per_month
        claimed = _month_claimed(ctx, change)
        change["training.runs_per_month"] = round(runs, 4)
        ctx.held.add("training.runs_per_month")
        if claimed:  # the month is shown: say what it holds
            notes.append(_("Runs a month kept at today's {runs}.", runs=format_number(runs)))
    if a.training.baseline_hours is None:
        return notes
    if "training.tokens" in change:
        # More or less data on the same setup: the measured run scales with the work (review: a 2T-token what-if on a
        # measured 3-day run answered 'about the same').
        try:
            new = parse_quantity(change["training.tokens"])
        except (TypeError, ValueError):
            return notes  # the answers' own parser gives the one-line error on the re-run
        implied = float(ctx.advice.evaluation.context["tokens"])
        hours = a.training.baseline_hours * new / implied
        change.update({"training.duration_hours": round(hours, 6), "training.duration_days": None})
        return notes + [_("The measured {time} trains about {implied} tokens; {tokens} tokens on the same setup take {hours}.",
                          time=hours_text(a.training.baseline_hours), implied=f"{implied / 1e9:,.4g}B", tokens=f"{new / 1e9:,.4g}B",
                          hours=hours_text(hours))]
    # The measured run holds for today's model on today's GPUs, count, links, precision, batch and framework: a change
    # to any of those keeps the work of a run (the tokens the answers give, or the ones the run implies) and lets the
    # model price the new setup (review: an H800 what-if re-used the A100 run's time; user try 2026-12-05: a 70B model
    # kept the 7B's measured time, and with tokens given, twice the GPUs kept the measured time at twice the cost).
    if not any(not path.startswith(KEEPS_THE_MEASURED_RUN) and not _same_value(value, _today_value(ctx.advice, path))
               for path, value in change.items()):
        return notes
    tokens = _run_tokens(ctx.advice)
    # exact: 4 significant figures moved the cost (46,082 against the what-if table's 46,080, user try 2026-12-05)
    change.update({"training.tokens": round(tokens), "training.duration_days": None, "training.duration_hours": None})
    return notes + [_("The measured {time} was on today's {gpus} GPUs; on another setup the run keeps its work, {tokens} tokens.",
              time=hours_text(a.training.baseline_hours), gpus=a.cluster.gpus, tokens=f"{tokens / 1e9:,.4g}B")]


KEEPS_THE_MEASURED_RUN = ("budget.", "project.", "team.", "training.deadline_days", "training.runs_per_month", "training.tokens",
                          "training.duration_days", "training.duration_hours", "cluster.max_gpus", "cluster.multi_tenant",
                          "cluster.cpu_memory_gb_per_node", "cluster.candidates")
"""What-if fields that leave the measured run's speed as it is (money, dates, cadence, a ceiling on GPUs, who the
team is): every other change (the model, the GPUs, the links, the batch, the precision, the method, the framework)
is a setup the measured time was not taken on."""


def _asked_type_alone(ctx: Context, change: dict[str, Any], new: Advice) -> list[str]:
    """Where a what-if names a GPU type and the search keeps today's (cheaper or faster), the named type's own plan, as
    'compare' prices it: 'what does it cost if we switch to A100?' was answered with the H100 plan only (user try 8)."""
    if "cluster.gpu" not in change:
        return []
    gid = resolve_gpu(str(change["cluster.gpu"])) or str(change["cluster.gpu"])
    if new.plan.chosen.gpu == gid or not new.plan.gpu_types:
        return []
    settled = _settle(ctx, change, alone=True)
    if isinstance(settled, Reply):
        return []
    own = _rerun(ctx, change)
    c, k = own.plan.chosen, new.plan.chosen
    blocking = [w["text"] for w in own.warnings if w["blocking"]]
    if blocking:
        return [_("On the {gpu} alone nothing runs: {why}", gpu=gpu_type_name(own), why=blocking[0])]
    cur = str(own.facts["currency"])
    # the method named where the two plans train differently (a full fine-tune on the A100 beside LoRA on 4090s read as
    # the same job; user try 2026-12-07)
    strategy = plan_with_method(own.method, c.strategy) if own.method != new.method else c.strategy
    return [_("On the {gpu} alone the plan would be {strategy} on {gpus} GPUs: {time} a run for {cost} (the plan above: {other}).",
              gpu=gpu_type_name(own), strategy=strategy, gpus=count(c.gpus), time=hours_text(c.hours), cost=money(c.cost, cur),
              other=money(k.cost, cur))]


def _break_even(ctx: Context, change: dict[str, Any], base: Advice, new: Advice) -> list[str]:
    """'how much would H100 cost instead?' with no H100 price: the plan on it is priced at today's rate, so beside that
    figure, the rate at which it would cost what today's plan costs (the reply led with a cost at a price nobody gave;
    user try 2026-12-07). A run's cost is its GPU-hours times the rate, so the rate scales the cost alone."""
    if "cluster.gpu" not in change or "budget.price_per_gpu_hour" in change or "cluster.candidates" in change:
        return []
    gid = resolve_gpu(str(change["cluster.gpu"])) or str(change["cluster.gpu"])
    listed = [c for c in _section(ctx.draft, "cluster").get("candidates") or [] if isinstance(c, dict) and _same_gpu(c, gid)]
    cn, cb = new.plan.chosen, base.plan.chosen
    if listed or (cn.gpu or new.answers.cluster.gpu) != gid or cn.cost <= 0 or not cn.runnable:
        return []
    cur = str(new.facts["currency"])
    rate = new.answers.budget.price_per_gpu_hour * cb.cost / cn.cost
    return [_("The {gpu} plan costs no more a run than the recommended plan ({cost}) at up to {rate} a GPU-hour.", gpu=gpu_type_name(new),
              cost=money(cb.cost, cur), rate=_price_text(rate, cur))]


def _rerun(ctx: Context, change: dict[str, Any]) -> Advice:
    answers = answers_from_mapping(with_change(ctx.draft, change), ctx.name)
    return advise(answers, ctx.rules)


def _plan_text(a: Advice, other_method: str | None = None) -> str:
    """The plan in a few words; with its method ('LoRA with fsdp on 16 GPUs') where ``other_method``, the plan it is
    compared with, fine-tunes another way (a what-if sentence hid a LoRA plan turning back into a full fine-tune)."""
    if a.plan.gpu_types:  # several GPU types compared: name the plan's
        text = _("{strategy} on {gpus} × {gpu}", strategy=a.plan.chosen.strategy, gpus=a.plan.chosen.gpus, gpu=gpu_type_name(a))
    else:
        text = _("{strategy} on {gpus} GPUs", strategy=a.plan.chosen.strategy, gpus=a.plan.chosen.gpus)
    if other_method is not None and other_method != a.method:
        return _("{method} with {plan}", method=method_names()[a.method], plan=text)
    return text


def _plan_cell(strategy: str, gpus: int) -> str:
    """A plan in a table cell, short enough for two columns at 80: 'deepspeed-zero2, 128 GPUs'."""
    return _("{strategy}, {gpus} GPUs", strategy=strategy, gpus=gpus)


def _money_row(a: float, cur_a: str, b: float, cur_b: str) -> tuple[str, str]:
    """Two compared amounts in one unit where they share a currency: 'now 99,810 元, what if 10.04 万元' read as two
    scales (user try 8)."""
    return money_pair(a, b, cur_a) if cur_a == cur_b else (money(a, cur_a), money(b, cur_b))


def _outcome_rows(a: Advice, b: Advice, monthly: bool) -> list[tuple[str, ...]]:
    """Plan, time, cost, month (``monthly``: where the month is the team's, _month_claimed) and limits of two advices,
    side by side."""
    ca, cb = a.plan.chosen, b.plan.chosen
    cur_a, cur_b = str(a.facts["currency"]), str(b.facts["currency"])
    # A pipeline's time and cost are its stages' together (estimate.model._add_stages_before): the rows say so.
    staged = bool(a.answers.training.stages_before or b.answers.training.stages_before)
    rows: list[tuple[str, ...]] = [
        (_("plan"), _plan_cell(ca.strategy, ca.gpus), _plan_cell(cb.strategy, cb.gpus)),
        (_("time per run, all stages") if staged else _("time per run"), hours_text(ca.hours), hours_text(cb.hours)),
        (_("cost per run, all stages") if staged else _("cost per run"), *_money_row(ca.cost, cur_a, cb.cost, cur_b)),
    ]
    if monthly:
        rows.append((_("cost per month"), *_money_row(ca.monthly, cur_a, cb.monthly, cur_b)))
    if a.method != b.method:  # a deadline what-if that takes a QLoRA plan back to the full fine-tune asked says so
        names = method_names()
        rows.insert(1, (_("method"), names.get(a.method, a.method), names.get(b.method, b.method)))
    da, db = a.answers.training.deadline_days, b.answers.training.deadline_days
    if da is not None or db is not None:
        def verdict(meets: bool | None, hours: float, days: float | None) -> str:
            word = deadline_word(meets, hours, days)  # the limit named as such: 'met (30.0 h)' read as the run's time
            return _("{word} (deadline {limit})", word=word, limit=hours_text(days * 24)) if days else word

        rows.append((_("deadline"), verdict(ca.meets_deadline, ca.hours, da), verdict(cb.meets_deadline, cb.hours, db)))
    la, lb = a.answers.budget.limit, b.answers.budget.limit
    if la is not None or lb is not None:  # 'at risk' where the point is within and the range's upper end is not (user try 9)
        rows.append((_("budget per run"), budget_word(ca.within_budget, ca.cost, la) if la is not None else "—",
                     budget_word(cb.within_budget, cb.cost, lb) if lb is not None else "—"))
    ma, mb = a.answers.budget.monthly_limit, b.answers.budget.monthly_limit
    if ma is not None or mb is not None:
        rows.append((_("monthly limit"), budget_word(ca.within_monthly, ca.monthly, ma) if ma is not None else "—",
                     budget_word(cb.within_monthly, cb.monthly, mb) if mb is not None else "—"))
    if any(w["blocking"] for w in b.warnings) != any(w["blocking"] for w in a.warnings):
        rows.append((_("blocked"), _("yes") if any(w["blocking"] for w in a.warnings) else _("no"),
                     _("yes") if any(w["blocking"] for w in b.warnings) else _("no")))
    return rows


_LIMITS = {"cluster.max_gpus", "training.deadline_days", "budget.limit", "budget.monthly_limit"}
"""Answers whose absence means no limit."""


def _shown(value: Any, path: str = "", advice: Advice | None = None) -> str:
    """An answer as the reply quotes it: days and money in their units; a limit not set as 'no limit' ('most GPUs = 16
    (was —)' read as jargon, user try 2026-12-06)."""
    if value is None:
        return _("no limit") if path in _LIMITS else "—"
    if path == "training.deadline_days" and isinstance(value, (int, float)):
        return hours_text(value * 24)
    if path.startswith("budget.") and path != "budget.currency" and isinstance(value, (int, float)) and advice is not None:
        return money(value, str(advice.facts["currency"])) if value >= 100 else _price_text(value, str(advice.facts["currency"]))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if path == "training.method" and isinstance(value, str):
        return method_names().get(value, value)  # 'was pre-training run', not 'was pretrain'
    if zh() and isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1e5:
        # in 万 and 亿 as the Chinese reader counts, the old value and the new alike ('微调样本数 = 1M（原为 500,000）' mixed
        # two ways of writing; user try 13)
        return readable_figure(value) if value >= 1e6 else f"{format_number(value / 1e4)} 万"
    if isinstance(value, (int, float)) and value >= 1e6:
        # a model size, tokens or a batch as people write them: 13B, 2T, 4M (not 13,000,000,000)
        big, mark = next((value / unit, m) for unit, m in ((1e12, "T"), (1e9, "B"), (1e6, "M")) if value >= unit)
        return f"{big:,.4g}{mark}"
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def _today_value(advice: Advice, path: str) -> Any:
    """A field as the answers give it today: the fine-tuning method asked for, not the one the plan switched to (the
    what-if 'training method = finetune' on a full fine-tune planned as QLoRA said 'was qlora')."""
    if path == "training.method" and advice.method_changed:
        return advice.asked_method
    return _answer_value(advice.today_answers, path)


def _same_value(a: Any, b: Any) -> bool:
    """Whether a what-if's value (as written: '128', 'finetune', '3天') is the one the answers hold."""
    if str(a).strip().lower() == str(b).strip().lower():
        return True
    x, y = _number(a), _number(b)
    return x is not None and y is not None and x == y


def _answer_value(answers: Answers, path: str) -> Any:
    section, key = path.split(".")
    value = getattr(getattr(answers, section), key)
    return value if isinstance(value, (str, int, float)) or value is None else getattr(value, "name", value)


# ------------------------------------------------------------------------------ the answers, by intent


def _slot_change(ctx: Context, slots: dict[str, list[str]]) -> dict[str, Any]:
    """The answers fields the question's values set: a word as the answers hold it ('dedicated' -> False), a named
    field ('lora_rank 16') as written."""
    change: dict[str, Any] = {}
    for name, vals in slots.items():
        slot = ctx.data.slots[name]
        if slot.kind == "field":
            for v in vals:
                path, raw = v.split("=", 1)
                change[path] = _BOOLEAN_WORDS.get(raw.lower(), raw)
            continue
        if slot.kind == "factor":
            for f in slot.fields:
                if f == "training.tokens" and _answer_value(ctx.advice.today_answers, f) is None \
                        and _answer_value(ctx.advice.today_answers, "training.examples") is not None:
                    f = "training.examples"  # a fine-tune's data is its examples: 'double the data' doubles them
                change[f] = _scaled(ctx, slot, f, vals[0])
            continue
        for f in slot.fields:
            change[f] = slot.means.get(vals[0], vals[0])
        if name == "network_per_gpu":  # the answers count the network per node: the GPUs in a node share its NICs
            per_node = ctx.advice.today_answers.cluster.gpus_per_node
            try:
                change["cluster.inter_node_gbps"] = f"{parse_quantity(vals[0]) * per_node:g}"
            except ValueError:
                pass  # the answers' parser words the error
    return change


def factor_of(slot: Slot, value: str) -> float:
    """The multiplier a factor slot's value stands for: its word's meaning ('double' -> 2) or the number written."""
    if value in slot.means:
        return float(slot.means[value])
    return float(re.sub(r"[^0-9.]", "", value))


def _scaled(ctx: Context, slot: Slot, path: str, value: str) -> str:
    """Today's value of ``path`` times the question's factor, written as the answers take it ('128', '1', '1000000');
    a field with no value today has nothing to scale: the question is refused with what to ask instead."""
    today = _answer_value(ctx.advice.today_answers, path)
    if path == "training.tokens" and today is None and ctx.advice.today_answers.training.baseline_hours is not None:
        today = _run_tokens(ctx.advice)  # a measured run's work: the tokens its days imply
    if not isinstance(today, (int, float)) or isinstance(today, bool):
        raise AnswerError(_("the answers give no {what} to scale; ask with a value instead ('what if {what} = ...?')", what=_label(ctx, path)))
    scaled = today * factor_of(slot, value)
    if path == "cluster.gpus":
        scaled = max(1, round(scaled))
    return str(int(scaled)) if float(scaled).is_integer() else f"{scaled:.6g}"


_BOOLEAN_WORDS = {"true": True, "false": False, "yes": True, "no": False}


NEGATED = re.compile(r"(?:\b(?:don'?t|do not|doesn'?t|not|never|without|no longer|stop|avoid|skip)\b(?:\s+(?:use|using|run|running|do|doing|go|going|with|train|training|the|a|an|to))*\s*$"
                     r"|(?:不用|不要|别用|不使用|不做|不采用|不走|不租|别租|不买|别买|不换|别|不)\s*$)")
"""Words that turn the value after them into what not to do: 'don't use QLoRA', '不用 LoRA'."""


def _negated(ctx: Context, slots: dict[str, list[str]]) -> str | None:
    """The value the question asks to do without, if any: a what-if sets what to use, so a negated value is not a change."""
    text = normalise(ctx.question).lower()
    for values in slots.values():
        for value in values:
            shown = value.split("=", 1)[-1]
            for m in re.finditer(re.escape(shown.lower()), text):
                if NEGATED.search(text[:m.start()]):
                    return shown
            for alias, sid in ctx.data.strategy_names.items():  # 'zero-3' in the question, deepspeed-zero3 in the slot
                if sid == value:
                    for m in re.finditer(r"(?<![\w-])" + re.escape(alias) + r"(?![\w-])", text):
                        if NEGATED.search(text[:m.start()]):
                            return alias
    return None


def _without_negated_alternatives(ctx: Context, slots: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each slot less the values the question negates, where another value of it is left to act on."""
    out = dict(slots)
    for name, values in slots.items():
        if len(values) < 2:
            continue
        kept = [v for v in values if _negated(ctx, {name: [v]}) is None]
        if kept and len(kept) < len(values):
            out[name] = kept
    return out


def _without(ctx: Context, what: str) -> Reply:
    """'What if we don't use QLoRA?': where the plan chose a lighter method than the one asked, the method as asked is
    the answer; otherwise the question is turned back into one that names what to use."""
    a = ctx.advice
    names = method_names()
    if a.method_changed and what.lower() in (a.method, names.get(a.method, "").lower()):
        return Reply(ctx.question, "what_if", lines=[a.method_reason() or ""], sources=[PLAN_SOURCE])
    return Reply(ctx.question, None, refused=True, lines=[_("A what-if sets what to use, not what to leave out: name what to use instead of {what}.", what=what)],
                 suggestions=suggestions("", ctx.data, advice=a))


def _what_if_asked(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """A question read as a what-if: one that names what to leave out ('don't use QLoRA') is not a change to make
    ('why not H800?' reaches _what_if through why_not, where the 'not' is the question's own)."""
    # 'if we don't rent the H800s and use our own 8 A100s' names two types, one negated: the other is the what-if (it was
    # read as a switch to the H800; user try 14)
    slots = _without_negated_alternatives(ctx, slots)
    negated = _negated(ctx, slots)
    if negated is not None:
        return _without(ctx, negated)
    if "gpus" in slots:
        slots = {**slots, "gpus": [_gpus_changed_by(ctx, slots["gpus"][0])]}
    return _what_if(ctx, slots)


def _gpus_changed_by(ctx: Context, raw: str) -> str:
    """'add 40 GPUs', '40 more GPUs', '20 fewer GPUs', '增加40张卡', '少16张卡': today's count plus or minus the number,
    not the number itself ('add 40 GPUs' read as 40 GPUs, user try 2026-12-05); any other phrasing, the number as given."""
    text = normalise(ctx.question).lower()
    n = re.escape(raw.lower())
    unit = r"\s*(?:张|块|个)?\s*(?:[a-z0-9-]+\s+)?(?:gpus?|cards?|accelerators?|卡|显卡)"
    more = (rf"\b(?:add|adding|another|extra)\s+{n}\s*(?:more\s+)?(?:[a-z0-9-]+\s+)?(?:gpus?|cards?|accelerators?)\b"
            rf"|(?<![\w.]){n}\s+(?:more|extra|additional)\s+(?:[a-z0-9-]+\s+)?(?:gpus?|cards?|accelerators?)\b"
            rf"|(?:增加|再多给|再多|多给|多加|再加|加)\s*{n}{unit}")
    fewer = (rf"(?<![\w.]){n}\s+(?:fewer|less)\s+(?:[a-z0-9-]+\s+)?(?:gpus?|cards?|accelerators?)\b"
             rf"|\b(?:remove|lose|drop|minus)\s+{n}\s*(?:[a-z0-9-]+\s+)?(?:gpus?|cards?|accelerators?)\b"
             rf"|(?:减少|少了|少|去掉|拿走|减)\s*{n}{unit}")
    sign = 1 if re.search(more, text) else -1 if re.search(fewer, text) else 0
    if not sign:
        return raw
    try:
        return str(int(ctx.advice.today_answers.cluster.gpus + sign * parse_quantity(raw)))
    except ValueError:
        return raw  # the answers' own parser words the error on the re-run


_THEN = re.compile(r"\b(?:also|then|afterwards?|after (?:that|this|it|the (?:run|pre-?training|training))|followed by)\b|\bafter\s*\?*$"
                   r"|之后|以后|然后|接着|再做|再跑|再训")
"""'what if we also run an SFT of 200M tokens after?', '之后再做一轮 SFT 呢': a stage after this run, not a change to it."""


def _then_stage(ctx: Context, change: dict[str, Any]) -> Reply:
    """This run, then another stage on the same GPUs: this run becomes training.stages_before and the stage asked becomes
    the answers' own, priced as the pipeline it makes (estimate.model._add_stages_before). 'what if we also run an SFT of
    200M tokens after?' had replaced the 40B tokens by 200M (user try 8)."""
    base = ctx.advice
    t = base.today_answers.training
    names = method_names()
    method = str(change.get("training.method", "finetune")).lower()
    if "training.tokens" not in change:
        return Reply(ctx.question, None, refused=True, lines=[_("How much data does the {method} after this run train on? Say it in tokens, e.g. 'what if we "
                                                  "also run a {method} of 200M tokens after?'", method=names.get(method, method))])
    earlier = [dict(s) for s in (_section(ctx.draft, "training").get("stages_before") or []) if isinstance(s, dict)]
    this = {"method": t.method, "tokens": float(t.data_tokens or _run_tokens(base)), "name": names.get(t.method, t.method)}
    stage_change: dict[str, Any] = {"training.stages_before": [*earlier, this], "training.method": method,
                                    "training.tokens": change["training.tokens"]}
    stage_change.update({f"training.{k}": None for k in ("examples", "tokens_per_example", "epochs", "duration_hours", "duration_days",
                                                         "measured", "post_training", "lora_rank", "lora_targets")})
    settled = _settle(ctx, stage_change)
    if isinstance(settled, Reply):
        return settled
    new = _rerun(ctx, stage_change)
    c = new.plan.chosen
    cur = str(new.facts["currency"])
    lines = [_("What if a {method} of {tokens} tokens runs after this {today} on the same GPUs:", method=names.get(method, method),
               tokens=token_text(parse_quantity(change["training.tokens"])), today=names.get(t.method, t.method)),
             _("The pipeline takes {time} and costs {cost} a run ({plan}).", time=hours_text(c.hours), cost=money(c.cost, cur),
               plan=_plan_text(new, t.method)),
             _("To plan it, write the {method} as the answers' training and this run under training.stages_before.",
               method=names.get(method, method))]
    return Reply(ctx.question, "what_if", lines=lines, columns=(_("now"), _("what if")),
                 figures=_outcome_rows(base, new, _month_claimed(ctx)), sources=[PLAN_SOURCE, "seed:K14"],
                 change=stage_change)  # adoptable: --adopt writes the pipeline (it saved the answers unchanged, user try 8b)


def _what_if(ctx: Context, slots: dict[str, list[str]], extra: dict[str, Any] | None = None) -> Reply:
    change = _slot_change(ctx, slots) | (extra or {})
    a = ctx.advice
    if change and set(change) <= {"training.tokens", "training.method"} and _THEN.search(normalise(ctx.question).lower()):
        return _then_stage(ctx, change)
    named = resolve_gpu(str(change["cluster.gpu"])) if "cluster.gpu" in change else None
    if a.method_changed and str(change.get("training.method", "")).lower() == a.method and named in (None, a.plan.chosen.gpu or a.answers.cluster.gpu):
        # (a GPU type other than the plan's named beside it, 'LoRA on our H20' where the plan is LoRA on H800s, is a
        # what-if on that type: user try 12)
        # 'what if we use QLoRA?' where the plan already does: say so, and what the method asked for costs
        names = method_names()
        return Reply(ctx.question, "what_if", sources=[PLAN_SOURCE], lines=[
            _("The plan already fine-tunes with {method}; the answers ask for a {asked}.", method=names[a.method], asked=names[a.asked_method or ""]),
            a.method_reason() or ""])
    if change.keys() == {"training.method"} and change["training.method"] == "pretrain" != a.today_answers.training.method:
        return _from_scratch(ctx)  # 'what if we pre-train instead?': not the fine-tune's data from random weights
    today_gpu = a.today_answers.cluster.gpu
    if isinstance(today_gpu, str) and change.keys() == {"cluster.gpu"} and named is not None and named == a.plan.chosen.gpu and named != today_gpu:
        # 'what if we switch to H100?' where the plan already runs on the listed H100s compared H100 with H100: the
        # contrast asked for is against the team's own type (user try 14)
        adopt = dict(change)
        settled = _settle(ctx, adopt)  # what adopting it sets: the type, at the price listed for it
        if isinstance(settled, Reply):
            return settled
        reply = _compare(ctx, {"gpu": [today_gpu, named]})
        reply.lines.insert(0, _("The plan already runs on {plan_gpu}, a type listed to compare; against the cluster's own {today_gpu}:",
                                plan_gpu=gpu_catalog()[named].name, today_gpu=a.today_answers.cluster.spec.name))
        reply.intent, reply.change = "what_if", adopt
        return reply
    method = slots.get("method")
    if method and method[0] in ctx.data.groups:
        return Reply(ctx.question, None, refused=True, lines=[_("'{name}' covers several strategies; name one.", name=method[0])],
                     suggestions=[_("what if we currently run {strategy}?", strategy=m) for m in ctx.data.groups[method[0]]][:3])
    if method:
        change["training.current_strategy"] = method[0]
    base = ctx.advice
    if "cluster.max_gpus" in change and "cluster.gpus" in change:
        try:
            if parse_quantity(change["cluster.gpus"]) >= base.answers.cluster.gpus:
                del change["cluster.gpus"]  # 'only 128' with 64 today: a ceiling, today's count stays
        except ValueError:
            pass  # the answers' parser words the error below
    asked = set(change)
    alone = dict(change)  # the GPU type named, on its own: what 'switch to the A100' costs where the search keeps today's
    settled = _settle(ctx, change)
    if isinstance(settled, Reply):
        return settled
    shown_as, assumed = settled
    if "network_per_gpu" in slots and "cluster.inter_node_gbps" in change:
        per_node = base.today_answers.cluster.gpus_per_node
        assumed = [_("{per_gpu} Gbit/s per GPU is {per_node} Gbit/s for a node of {n} GPUs: the answers count the network per node.",
                     per_gpu=slots["network_per_gpu"][0], per_node=format_number(float(change["cluster.inter_node_gbps"])), n=per_node),
                   *assumed]
    asked = (asked & set(change)) | set(shown_as)
    kept = _keep_the_work(ctx, change)
    new = _rerun(ctx, change)
    said_paths = [path for path in change if path in asked]
    moved = [path for path in said_paths if path in shown_as or _today_value(new, path) != _today_value(base, path)]
    def was(path: str) -> str:
        old = _shown(_today_value(base, path), path, base)
        if path == "training.method" and base.method_changed:  # 'was full fine-tune' beside a plan that is LoRA read as an error
            return _("{asked}, planned as {planned}", asked=old, planned=method_names().get(base.method, base.method))
        if path == "training.epochs" and _today_value(base, path) is None:
            return "1"  # an empty epochs is one pass ('轮数 = 3（原为 —）'; user try 14)
        if path == "training.runs_per_month" and _today_value(base, path) is None:
            # the cadence every other reply says is kept ('保持现在的 1 次'), not '原为 —' (user try 14)
            return _("{n}, assumed", n=format_number(base.plan.runs_per_month))
        if path == "training.tokens" and _today_value(base, path) is None and base.today_answers.training.baseline_hours is not None:
            return _shown(_run_tokens(base), path, base)  # the measured run's work, not '—'
        if path == "cluster.inter_node_gbps" and _today_value(base, path) is None:
            # the network the plan was priced over, not '—' ('what if we had a 100G network?': 'was —', user try 2026-12-07)
            return _("{value}, assumed for the {gpu}", value=format_number(base.today_answers.cluster.network_gbps),
                     gpu=base.today_answers.cluster.spec.name)
        return old

    said = _(", ").join(  # what did not move is left out ('GPU type = a100-80gb (was a100-80gb)'), unless nothing moved
        shown_as.get(path) or _("{what} = {new} (was {old})", what=_label(ctx, path), new=_shown(_today_value(new, path), path, new),
                                old=was(path))
        for path in (moved or said_paths))
    # the count asked may be today's while the ceiling it sets is not ('can we do it on the 8 GPUs we have?' with room for 16
    # said 'the advice stays as it is' above a plan that changed; user try 2026-12-07)
    ceiling_moved = "cluster.max_gpus" in change and _today_value(new, "cluster.max_gpus") != _today_value(base, "cluster.max_gpus")
    if not moved and "cluster.gpus" in asked and ceiling_moved:
        said = _("we use no more than today's {n} GPUs", n=count(_today_value(base, "cluster.gpus")))  # not 'GPUs = 8 (was 8)'
    cb, cn = base.plan.chosen, new.plan.chosen
    unchanged = not ceiling_moved and all(_today_value(new, p) == _today_value(base, p) for p in asked)
    direct = _can_we_finish(ctx, base, new, asked)
    if unchanged and not shown_as:  # 'can we finish in 2 days?' with 2 days asked: 'deadline = 2.0 days (was 2.0 days)' read oddly
        said = _(", ").join(f"{_label(ctx, path)} = {_shown(_today_value(new, path), path, new)}" for path in said_paths)
        lines = [_("The answers already say {change}: the advice stays as it is.", change=said), *assumed]
    else:
        lines = [_("What if {change}:", change=said), *assumed, *kept]
        if unchanged:
            lines.append(_("The answers already say so: the advice stays as it is."))
    if direct:
        lines.insert(0, direct)
    if unchanged:
        if "training.method" in asked and base.method_changed:
            lines.append(base.method_reason() or "")  # the method asked for is planned another way: say why and what it costs
    elif (cn.strategy, cn.gpus, cn.gpu, cn.spot) == (cb.strategy, cb.gpus, cb.gpu, cb.spot):
        lines.append(_("The plan stays {plan}: {time} a run ({dt}) for {cost} ({dc}).", plan=_plan_text(new), time=hours_text(cn.hours),
                       dt=pct_change(cn.hours, cb.hours), cost=money(cn.cost, str(new.facts["currency"])), dc=pct_change(cn.cost, cb.cost)))
    else:
        lines.append(_("The plan becomes {plan} (was {old}): {time} a run ({dt}) for {cost} ({dc}).", plan=_plan_text(new, base.method),
                       old=_plan_text(base, new.method), time=hours_text(cn.hours), dt=pct_change(cn.hours, cb.hours),
                       cost=money(cn.cost, str(new.facts["currency"])), dc=pct_change(cn.cost, cb.cost)))
    lines += _asked_type_alone(ctx, alone, new)
    lines += _break_even(ctx, alone, base, new)
    if "cluster.gpus" in asked:
        lines += _on_all_of_them(new, new.answers.cluster.gpus)
    lines += _new_warnings(base, new)
    lines += _limits_lost(base, new)
    lines += _more_machines(base, new)
    if not asked & {"cluster.gpus", "cluster.max_gpus"}:
        lines += _more_gpus_than_the_cluster(base, new)
    monthly = _month_claimed(ctx, {k: v for k, v in change.items() if k in asked})
    lines += _runs_do_not_fit(new, kept_runs=monthly and "training.runs_per_month" in change and "training.runs_per_month" not in asked)
    if base.answers.training.method == "pretrain" and new.answers.training.method in ("lora", "qlora"):
        lines.append(_("{method} adapts an existing model: it fits continued training of a trained model, not pre-training one "
                       "from scratch, which trains every weight.", method=method_names()[new.answers.training.method]))
    if base.method_changed and not new.method_changed and new.method != base.method:
        # the what-if keeps the method asked where the plan switched: why the lighter one no longer wins (not where the
        # what-if asks for the plan's own method: 'LoRA on our H20' read 'LoRA is planned only where ...: here it does
        # not' beside a LoRA plan; user try 12)
        lines.append(_method_policy(base.method, new.method))
    elif new.method_changed and not base.method_changed:
        # 'what if a full fine-tune?' planned as today's LoRA: the reply showed the same figures and no reason (user try 13);
        # planned as QLoRA, it gave QLoRA's figures with QLoRA's dequantisation as the reason and never what the full
        # fine-tune itself takes (user try 14): the method's reason says both
        lines.append(new.method_reason() or "")
    elif _lighter_not_planned(base, new):  # 'why not LoRA?' where the plan keeps the full fine-tune: why it was not planned
        lines.append(_method_policy(new.method, base.method))
    elif (base.method, new.method) == ("lora", "qlora") and cn.cost > cb.cost and base.estimate_dict(base.strategy)["fits"]:
        # 'why not QLoRA?' answered with +68% and no reason (user try 2026-12-06): what QLoRA trades, and that it buys nothing here
        e = base.estimate_dict(base.strategy)
        lines.append(_("QLoRA keeps the frozen base in 4 bits, which saves memory, and dequantises it on every step, which costs "
                       "time: here each run takes {dt}. LoRA already fits ({need} GB of {has} GB per GPU), so QLoRA would buy "
                       "memory this plan does not need.", dt=pct_change(cn.hours, cb.hours), need=f"{e['memory_per_gpu_gb']:,.1f}",
                       has=f"{base.answers.cluster.spec.capacity_gb:,.1f}"))
    lines += _with_strategy(ctx, slots, new)
    from advisor.decision.explain import headline

    lines.append(headline(new, count_asked="cluster.gpus" in asked))
    return Reply(ctx.question, "what_if", lines=lines, columns=(_("now"), _("what if")), figures=_outcome_rows(base, new, monthly),
                 sources=[PLAN_SOURCE, "seed:K14"], change=change)


def _new_warnings(base: Advice, new: Advice) -> list[str]:
    """The rules' warnings the what-if raises that today's plan does not (by rule): each what-if said only what the
    ask code knew to say ('examples longer than the sequence' was written twice, once as a rule and once here), and a
    change that set off any other warning was silent about it (review, 2026-12-07)."""
    had = {w["rule"] for w in base.warnings} | SAID_BY_THE_WHAT_IF
    return [_("New warning: {text}", text=w["text"]) for w in new.warnings if w["rule"] not in had and not w["blocking"]]


def _on_all_of_them(advice: Advice, n: int) -> list[str]:
    """'how long with 16 GPUs?' where the plan, allowed 16, takes 8: what all 16 would give, beside why the plan takes
    fewer ('The plan stays on 8 GPUs: 17.0 h' answered a question about 16, and a 'compare 8 and 16' showed 8 under
    '16 GPUs'; user try 2026-12-07)."""
    c = advice.plan.chosen
    if c.gpus >= n:
        return []
    o = best_option_at(advice, n)
    cur = str(advice.facts["currency"])
    if o is None:
        return [_("Nothing the search priced runs on all {n} GPUs; the plan takes {m}.", n=n, m=c.gpus)]
    return [_("On all {n} GPUs: {strategy} takes {time} a run for {cost} ({change} against the plan on {m}); the plan takes {m} "
              "because its goal is to {objective}.", n=n, strategy=o.strategy, time=hours_text(o.hours), cost=money(o.cost, cur),
              change=pct_change(o.cost, c.cost), m=c.gpus, objective=advice.plan.objective)]


SAID_BY_THE_WHAT_IF = frozenset({"over-deadline", "deadline-at-risk", "over-budget", "over-monthly-limit", "plan-needs-more-gpus"})
"""Rules whose warning a what-if already says in its own words (the deadline, the budgets, the GPUs the plan needs: the
outcome rows and _limits_lost): not repeated as a new warning. tests/test_user_try10.py checks each id is a shipped rule."""


def _with_strategy(ctx: Context, slots: dict[str, list[str]], new: Advice) -> list[str]:
    """'what if we use fp8 with fsdp?': the change priced as asked, and what the framework named beside it gives under it
    on the new plan's GPUs, where the plan moves to another ('with fsdp' was dropped and the reply named Megatron only;
    user try 14)."""
    if not slots.get("with_strategy"):
        return []
    members = ctx.data.groups.get(slots["with_strategy"][0]) or [slots["with_strategy"][0]]
    c, cur = new.plan.chosen, str(new.facts["currency"])
    if c.strategy in members:
        return []
    priced = [o for m in members if (o := new.plan.option(m, c.gpus)) is not None]
    o = best_at([o for o in priced if o.runnable], preference(new.plan.today.strategy, c.gpus))
    if o is None:
        why = next((w for m in members for w in new.why_not(m)), "")
        return [_("{strategy} cannot run this on {gpus} GPUs: {why}", strategy=members[0], gpus=c.gpus, why=why)]
    return [_("With {strategy}, as asked: {time} a run for {cost} on {gpus} GPUs ({dc} against the plan's {plan}).", strategy=o.strategy,
              time=hours_text(o.hours), cost=money(o.cost, cur), gpus=c.gpus, dc=pct_change(o.cost, c.cost), plan=c.strategy)]


def _more_gpus_than_the_cluster(base: Advice, new: Advice) -> list[str]:
    """A what-if whose plan grows past the cluster's GPUs (no cluster.max_gpus caps the search) says how many more it
    needs: 'can we finish in 20 days?' on 64 H100s answered 'The plan becomes deepspeed-zero2 on 80 GPUs' without a word
    of the 64 the team has, where advise says 'The plan needs 160 GPUs (96 more than the cluster has)' (user try 14). A
    count the question set itself is not news, and one already past the cluster's today is said by the outcome rows."""
    have, chosen = base.today_answers.cluster.gpus, new.plan.chosen
    if (chosen.gpu and chosen.gpu != base.today_answers.cluster.gpu) or chosen.gpus <= have or chosen.gpus <= base.plan.chosen.gpus:
        return []
    return [_("That plan takes {gpus} GPUs, {more} more than the {have} the cluster has; give the most GPUs you can get "
              "(cluster.max_gpus) to keep the search within them.", gpus=count(chosen.gpus), more=count(chosen.gpus - have), have=count(have))]


def _more_machines(base: Advice, new: Advice) -> list[str]:
    """A what-if whose plan takes more machines than today's, said with the network it was priced over: '4 cards?' on a
    2-card workstation is a second box and a link between them, which the answers may never have given (user try
    2026-12-06: the reply said neither, and priced a 200 Gb/s network nobody named)."""
    c, chosen = new.answers.cluster, new.plan.chosen
    if chosen.gpu and chosen.gpu != c.gpu:
        return []  # another GPU type: its own node shape
    nodes = -(-chosen.gpus // c.gpus_per_node)
    if nodes <= base.today_answers.cluster.nodes:
        return []
    if c.inter_node_gbps is not None:
        if base.today_answers.cluster.nodes > 1:
            return []  # a multi-machine cluster with its network given: more of the same machines says nothing new
        return [_("{gpus} GPUs at {per} a machine is {nodes} machines, priced over the {gbps} Gbit/s per machine the answers give.",
                  gpus=count(chosen.gpus), per=c.gpus_per_node, nodes=nodes, gbps=f"{c.network_gbps:g}")]
    source = c.spec.network_source_words
    return [_("{gpus} GPUs at {per} a machine is {nodes} machines, and the network between them is not in the answers: it was priced "
              "at {gbps} Gbit/s per machine ({source}). Give cluster.inter_node_gbps if yours differs.",
              gpus=count(chosen.gpus), per=c.gpus_per_node, nodes=nodes, gbps=f"{c.network_gbps:g}", source=source)]


_CALENDAR = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next (?:week|month)"
                       r"|end of (?:the )?(?:week|month|quarter)|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b)"
                       r"|(?:周|星期|礼拜)[一二三四五六日天末]|明天|后天|下周|下个月|月底|年底|\d{1,2}\s*月\s*\d{1,2}\s*[日号]")
"""A deadline by the calendar ('by friday', '下周五之前'), which advisor cannot turn into a duration without a start date."""

_CAN_WE_FINISH = re.compile(r"\b(?:can|could|will|would) (?:we|it|the run|training) (?:finish|be done|be ready|make it|train)\b|\bin time\b"
                            r"|\bmake (?:a|the|our|that)\b.*\bdeadline\b"
                            r"|(?:能|可以|能不能|可不可以).{0,8}(?:完成|训完|跑完|练完|交付|搞定)|(?:训|跑|练|做)得?完|完成吗|完吗|搞定吗"
                            r"|\benough\b|\bsufficient\b|\b(?:realistic|doable|feasible|achievable)\b|够吗|够不够|够用吗|来得及")
"""'can we finish in 3 days?', '2天能训完吗': a yes-or-no question about the recommended plan, before the what-if."""


def _can_we_finish(ctx: Context, base: Advice, new: Advice, asked: set[str]) -> str:
    """'Yes: the recommended plan takes 11.6 h (up to 16.0 h), inside 3 days.' for a deadline asked as a question; ''
    otherwise. The what-if that follows re-plans for that deadline (user try 2026-12-06: 'can we finish in 3 days?' got
    only a new plan, never a yes). 'is 300k enough?' gets the same for the run budget (user try 8)."""
    if not _CAN_WE_FINISH.search(normalise(ctx.question).lower()):
        return ""
    if asked == {"budget.limit"}:
        return _budget_enough(base, new)
    if asked != {"training.deadline_days"}:
        return ""
    days = new.answers.training.deadline_days
    if days is None:
        return ""
    c = base.plan.chosen
    hi = max(c.hours, base.estimate_dict(base.strategy)["range"]["wall_clock_hours"][1])
    deadline = _shown(days, "training.deadline_days", new)
    if c.hours <= (deadline_hours(new.answers) or 0.0):  # judged as the plan's own deadline is (on the range's upper end)
        if hours_text(hi) == hours_text(c.hours):  # a measured run: no spread to give
            return _("Yes: the recommended plan takes {time}, inside {deadline}.", time=hours_text(c.hours), deadline=deadline)
        return _("Yes: the recommended plan takes {time} (up to {high}), inside {deadline}.", time=hours_text(c.hours),
                 high=hours_text(hi), deadline=deadline)
    if point_inside(c.hours, days):
        # the upper end with a second decimal where one would read as the deadline itself ('up to 4.0 h' beside a
        # 4.0-hour deadline read as no risk at all; user try 13)
        return _("At risk: the recommended plan takes {time}, inside {deadline}, but slower runs of this kind take up to {high}.",
                 time=hours_text(c.hours), high=hours_against(hi, days * 24.0), deadline=deadline)
    return _("No: the recommended plan takes {time}, more than {deadline}.", time=hours_text(c.hours), deadline=deadline)


def _budget_enough(base: Advice, new: Advice) -> str:
    """'Yes: the recommended plan costs 104,347 CNY (up to 138,781 CNY), within 300,000 CNY.' for a run budget asked as
    a question: the plan's cost and the range's upper end against it."""
    limit = new.answers.budget.limit
    if limit is None:
        return ""
    c, cur = base.plan.chosen, str(base.facts["currency"])
    hi = max(c.cost, base.estimate_dict(base.strategy)["range"]["cost"][1])
    if hi <= limit:
        return _("Yes: the recommended plan costs {cost} (up to {high}), within {limit}.", cost=money(c.cost, cur), high=money(hi, cur),
                 limit=money(limit, cur))
    if c.cost <= limit:
        return _("At risk: the recommended plan costs {cost}, within {limit}, but slower runs of this kind cost up to {high}.",
                 cost=money(c.cost, cur), high=money(hi, cur), limit=money(limit, cur))
    return _("No: the recommended plan costs {cost}, more than {limit}.", cost=money(c.cost, cur), limit=money(limit, cur))


def _method_policy(lighter: str, asked: str) -> str:
    """Why a lighter method is or is not the plan: advisor's policy (advice.METHOD_SWITCH_SAVING), in one sentence."""
    names = method_names()
    return _("{method} is planned only where it runs when a {asked} cannot, or saves at least half the cost or the GPUs "
             "without missing a date the {asked} meets (a change of method trades model quality): here it does not.",
             method=names[lighter], asked=names[asked])


def _lighter_not_planned(base: Advice, new: Advice) -> bool:
    """``new`` prices a lighter method the search could have planned (METHOD_ALTERNATIVES) and did not: cheaper, but not
    by what a change of method must save (a user asked 'why not LoRA?' and saw it 31% cheaper with no reason given)."""
    return (not base.method_changed and new.method in METHOD_ALTERNATIVES.get(base.method, ())
            and new.plan.chosen.cost < base.plan.chosen.cost)


def _runs_do_not_fit(new: Advice, kept_runs: bool) -> list[str]:
    """Runs a month kept at today's pace (not given) that no longer fit in a month at the what-if's time per run: the
    monthly bill counted 100 runs of 18.1 h, 1,810 hours of a 720-hour month (user try 2026-12-06). Said, with how many
    fit back to back."""
    runs, hours = float(new.answers.training.runs_per_month or 0), new.plan.chosen.hours
    if not kept_runs or runs * hours <= HOURS_PER_MONTH:
        return []
    return [_("At {time} a run, {runs} runs take {total}, more than a month: back to back on the same GPUs, {fit} fit, and the cost "
              "per month counts all {runs}.", time=hours_text(hours), runs=format_number(round(runs, 1)),
              total=hours_text(runs * hours), fit=format_number(round(HOURS_PER_MONTH / hours, 1)))]


def _limits_lost(a: Advice, b: Advice) -> list[str]:
    """What ``b`` gives up that ``a`` keeps — the deadline, the budget per run, the monthly limit — in words (the table
    alone said 'over' where the sentence said only the price; user try 2026-12-05)."""
    ca, cb = a.plan.chosen, b.plan.chosen
    out = []
    cur = str(b.facts["currency"])
    days = b.answers.training.deadline_days
    # A limit the question itself sets (or moves) was not one the recommended plan kept: 'what if the run budget is
    # 1,000 CNY?' read 'goes over the budget (1,000 CNY) that the recommended plan keeps within' (user try 2026-12-06).
    # There the sentence says the limit cannot be kept, and what the cheapest option costs.
    runnable = [o for o in b.plan.options if o.runnable]
    if days is not None and days == a.answers.training.deadline_days and ca.meets_deadline and not cb.meets_deadline:
        if point_inside(cb.hours, days):  # the word the table uses (explain.deadline_word)
            out.append(_("It puts at risk the {days}-day deadline that the recommended plan meets: {time} is inside it, but slower runs of "
                         "this kind would not be.", days=f"{days:g}", time=hours_text(cb.hours)))
        else:
            out.append(_("It misses the {days}-day deadline that the recommended plan meets.", days=f"{days:g}"))
    elif days is not None and days != a.answers.training.deadline_days and cb.meets_deadline is False and runnable:
        quick = min(runnable, key=lambda o: o.hours)
        out.append(_("No option searched meets a {deadline} deadline: the fastest, {strategy} on {gpus} GPUs, takes {time}.",
                     deadline=hours_text(days * 24), strategy=quick.strategy, gpus=quick.gpus, time=hours_text(quick.hours)))
    limits = (  # the run budget, then the monthly ceiling: the limit now and before, whether each plan keeps it, the figure
        (b.answers.budget.limit, a.answers.budget.limit, ca.within_budget, cb.within_budget, "cost",
         N_("It goes over the budget per run ({limit}) that the recommended plan keeps within."),
         N_("It is at risk of going over the budget per run ({limit}) that the recommended plan keeps within: slower runs of this kind would."),
         N_("No option searched keeps a run within {limit}: the cheapest, {strategy} on {gpus} GPUs, costs {cost}."),
         N_("No option searched keeps a run within {limit} at the range's upper end, where budgets are judged: the cheapest, "
            "{strategy} on {gpus} GPUs, costs {cost}, up to {high}.")),
        (b.answers.budget.monthly_limit, a.answers.budget.monthly_limit, ca.within_monthly, cb.within_monthly, "monthly",
         N_("It goes over the monthly limit ({limit}) that the recommended plan keeps within."),
         N_("It is at risk of going over the monthly limit ({limit}) that the recommended plan keeps within: slower runs of this kind would."),
         N_("No option searched keeps a month within {limit}: the cheapest, {strategy} on {gpus} GPUs, costs {cost} a month."),
         N_("No option searched keeps a month within {limit} at the range's upper end, where budgets are judged: the cheapest, "
            "{strategy} on {gpus} GPUs, costs {cost} a month, up to {high}.")),
    )
    upper = upper_factor(b.answers)
    for limit, before, kept, keeps, figure, over, at_risk, out_of_reach, out_at_upper in limits:
        if limit is None or keeps:
            continue
        if limit == before and kept:
            # budgets are judged on the range's upper end: a point still under the limit is at risk, not over
            out.append(_(at_risk if getattr(cb, figure) <= limit else over, limit=money(limit, cur)))
        elif limit != before and runnable:
            # the cheapest, and among options that cost the same (GPU-hours that do not change with the count) the
            # fastest: 'the cheapest, deepspeed-zero1 on 8 GPUs' named a 169-day run where 256 GPUs cost as much (user try 13)
            least = min(getattr(o, figure) for o in runnable)
            low = min((o for o in runnable if getattr(o, figure) <= least * (1.0 + SAME_FIGURE)), key=lambda o: (o.hours, getattr(o, figure), -o.score))
            point = getattr(low, figure)
            # a point under the limit is out of reach only at the range's upper end: say so, with that figure ('costs
            # 81,082 USD' read as within a 90,000 USD budget; user try 13)
            text = out_at_upper if point <= limit < point * upper else out_of_reach
            out.append(_(text, limit=money(limit, cur), strategy=low.strategy, gpus=low.gpus, cost=money(point, cur),
                         high=money(point * upper, cur)))
            # and the levers that would keep it (FP8, a lighter method, a bigger batch), as the memo's what it takes names
            # them: 'no option keeps a run within 150,000 USD' stood beside an FP8 plan at 142,442 (user try 12)
            levers = {f"what-it-takes-{k}" for k in ("fp8", "lighter-method", "bigger-batch")}
            said = [n["text"] for n in what_it_takes_notes(b) if n["code"] in levers]
            out += said if said or figure != "cost" else [_("Neither FP8, a lighter fine-tuning method nor a larger batch keeps a run within it at the estimate's upper end, where "
                                                                  "budgets are judged.")]
    return out


def _members(ctx: Context, name: str) -> set[str]:
    """The strategies a name stands for: a group's members ('deepspeed'), else the strategy itself."""
    return set(ctx.data.groups.get(name, [name]))


def _choose_among(ctx: Context, keep: set[str]) -> Plan | None:
    """The plan chosen exactly as the advice chooses it (decide.choose: runs, date, budget, cost, tie-break), from the
    options of the strategies in ``keep`` only: one choice, whatever asks for it."""
    a = ctx.advice
    default = ctx.rules.default.strategy if ctx.rules.default else None
    return choose([o for o in a.plan.options if o.strategy in keep], a.answers, a.plan.runs_per_month, default)


def _plan_reply(ctx: Context, plan: Plan, intent: str, head: str, column: str) -> Reply:
    """The plan ``plan`` beside today's advice: one sentence and the side-by-side figures."""
    a = ctx.advice
    new = replace(a, plan=plan, strategy=plan.chosen.strategy)
    cn, cb = plan.chosen, a.plan.chosen
    lines = [_("{head}, the plan becomes {plan} (was {old}): {time} a run ({dt}) for {cost} ({dc}).", head=head, plan=_plan_text(new),
               old=_plan_text(a), time=hours_text(cn.hours), dt=pct_change(cn.hours, cb.hours), cost=money(cn.cost, ctx.currency),
               dc=pct_change(cn.cost, cb.cost))]
    lines += _limits_lost(a, new)
    return Reply(ctx.question, intent, lines=lines, columns=(_("now"), column), figures=_outcome_rows(a, new, _month_claimed(ctx)),
                 sources=[PLAN_SOURCE])


def _without_strategy(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'don't use DeepSpeed', '不用 FSDP' (user try 2026-12-05: not understood, or answered as 'why not FSDP')."""
    name = slots["strategy"][0]
    out = _members(ctx, name)
    a = ctx.advice
    if a.plan.chosen.strategy not in out:
        return Reply(ctx.question, "without", sources=[PLAN_SOURCE],
                     lines=[_("The plan already does without {what}: it is {plan}.", what=name, plan=_plan_text(a))])
    plan = _choose_among(ctx, {o.strategy for o in a.plan.options} - out)
    if plan is None:
        return Reply(ctx.question, "without", sources=[PLAN_SOURCE],
                     lines=[_("Without {what}, nothing runs this job: every other framework is ruled out or does not fit.", what=name)])
    return _plan_reply(ctx, plan, "without", _("Without {what}", what=name), _("without {what}", what=name))


def _instead(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'use FSDP instead', 'we must use DeepSpeed' (user try 2026-12-05: read as the framework run today)."""
    name = slots["strategy"][0]
    keep = _members(ctx, name)
    a = ctx.advice
    if a.plan.chosen.strategy in keep:
        return Reply(ctx.question, "instead", sources=[PLAN_SOURCE],
                     lines=[_("The plan already uses {what}: it is {plan}.", what=name, plan=_plan_text(a))])
    plan = _choose_among(ctx, keep)
    if plan is None:
        s = _best_member(ctx, name)
        return Reply(ctx.question, "instead", sources=[PLAN_SOURCE],
                     lines=[_("{what} cannot run this job:", what=name), *(f"• {r}" for r in a.why_not(s))])
    return _plan_reply(ctx, plan, "instead", _("With {what} instead", what=name), _("with {what}", what=name))


def _number(raw: Any) -> float | None:
    try:
        return parse_quantity(raw)
    except (TypeError, ValueError):
        return None  # the answers' own parser words the error on the re-run


def _sequence(raw: Any) -> float | None:
    """A sequence length as the answers read it ('8k' is 8,192: answers._seq_len), None where it is not one."""
    try:
        return float(_seq_len(raw)) if raw is not None else None
    except (TypeError, ValueError):
        return None  # the answers' own parser words the error on the re-run


def _price_said(raw: Any, currency: str) -> str:
    """A price from the raw answers as written ('9元', '¥18', 9): read as the answers read it, else as written (user try
    8: '9元' typed for a compared GPU's price crashed the what-if that named that GPU)."""
    try:
        amount, _mark = parse_money(strip_per_hour(raw))  # '20元/小时' as the answers read it
    except (TypeError, ValueError):
        return str(raw)
    return _price_text(amount, currency)


def _price_text(value: float, currency: str) -> str:
    """A price per GPU-hour, decimals kept: '3.5 USD', '15 元' (money() rounds to whole units, for totals)."""
    if zh() and currency.upper() == "CNY":
        return f"{format_number(value)} 元"
    return f"{format_number(value)} {currency}"


def _other_currency(ctx: Context, raw: Any) -> Reply | None:
    """The refusal of an amount written in another currency than the plan's ('$3.5' on a CNY plan), naming the
    question: advisor converts no currencies (a rate would be a figure it cannot cite)."""
    from advisor.base.units import split_money

    try:
        mark = split_money(strip_per_hour(raw))[1] if isinstance(raw, str) else None
    except ValueError:
        return None  # two marks in one amount: the answers' own parser words it on the re-run
    if not mark or mark == ctx.currency:
        return None
    return Reply(ctx.question, None, refused=True, lines=[_("'{question}' gives {value} in {theirs}, but this plan counts in {ours}; ask again with "
                                              "the amount in {ours} (advisor does not convert currencies).",
                                              question=ctx.question, value=raw, theirs=mark, ours=ctx.currency)])


def _same_gpu(entry: dict[str, Any], gid: str) -> bool:
    """Whether a listed GPU type (as written: 'h100') is ``gid`` (a catalog id)."""
    return (resolve_gpu(str(entry.get("gpu", ""))) or str(entry.get("gpu", ""))).lower() == gid.lower()


def _settle(ctx: Context, change: dict[str, Any], alone: bool = False) -> tuple[dict[str, str], list[str]] | Reply:
    """Make the change one the answers accept, as the question meant it, and say what was assumed: a price in another
    currency is refused naming the question; a GPU type is priced (the listed price, or today's rate, said so) and the
    list of GPU types to compare follows it (``alone``: that type only, as a side of a comparison); a count above the
    ceiling raises the ceiling. Returns (how a field the question set is quoted, the sentences that say what was
    assumed), or the refusal."""
    a = ctx.advice.today_answers
    cur = ctx.currency
    for path in ("budget.price_per_gpu_hour", "budget.limit", "budget.monthly_limit"):
        refused = _other_currency(ctx, change.get(path))
        if refused is not None:
            return refused
    if change.get("training.precision") == "fp8":
        gid = resolve_gpu(str(change.get("cluster.gpu", ""))) or ""
        spec = gpu_catalog()[gid] if gid in gpu_catalog() else a.cluster.spec
        if not spec.has_fp8:
            return Reply(ctx.question, None, lines=[_("FP8 needs FP8 tensor cores (Hopper, Ada or Blackwell GPUs); the {gpu} has none, so this "
                                                      "plan trains in 16 bits.", gpu=spec.name)],
                         suggestions=[_("what if we use {gpu} with fp8?", gpu="H100")])
    shown_as: dict[str, str] = {}
    assumed: list[str] = []
    cluster = _section(ctx.draft, "cluster")
    listed = [dict(c) for c in (cluster.get("candidates") or []) if isinstance(c, dict)]
    today_gpu = _gpu_id(a)
    today_price = a.budget.price_per_gpu_hour

    same = _same_gpu
    if "cluster.gpu" in change:
        gid = resolve_gpu(str(change["cluster.gpu"])) or str(change["cluster.gpu"])
        entry = next((c for c in listed if same(c, gid)), None)
        priced = "budget.price_per_gpu_hour" in change
        name = gpu_catalog()[gid].name if gid in gpu_catalog() else gid
        if gid == today_gpu:
            if listed and not alone:
                # 'what if we rent 8 H100s' with the plan on a listed 4090 kept the list, so the search stayed on the 4090
                # and the reply named the opposite type (user try 9): today's type, on its own (its spot offer kept)
                change["cluster.candidates"] = [c for c in listed if same(c, gid) and c.get("spot_price_per_gpu_hour") is not None] or None
                shown_as["cluster.candidates"] = _("only the {gpu}, the GPU type you have today (the other types listed are left out)",
                                                    gpu=name)
        elif entry is not None and priced and not alone:
            # 'the H100 costs 3.5': that listed type's price; the search still compares it with today's (alone, as one side
            # of a comparison, the type itself at that price: it priced today's type there; user try 2026-12-07)
            price = change.pop("budget.price_per_gpu_hour")
            del change["cluster.gpu"]
            old = entry.get("price_per_gpu_hour")
            entry["price_per_gpu_hour"] = price
            change["cluster.candidates"] = listed
            shown_as["cluster.candidates"] = _("{gpu} at {price} a GPU-hour (was {old})", gpu=name,
                                                price=_price_said(price, cur), old=_price_said(old, cur))  # '8 元', not '8块'
            if "cluster.gpus" in change:
                # 'rent 8 A100s at $1.5': the count is the listed type's, not today's (it made 8 of today's 4090s from two
                # workstations; user try 2026-12-07)
                n = change.pop("cluster.gpus")
                change.pop("cluster.max_gpus", None)
                entry["max_gpus"] = n
                shown_as["cluster.candidates"] = _("{gpu} at {price} a GPU-hour, up to {n} of them (was {old})", gpu=name,
                                                    price=_price_said(price, cur), n=n, old=_price_said(old, cur))
        else:
            if not priced:
                if entry is not None:
                    change["budget.price_per_gpu_hour"] = entry["price_per_gpu_hour"]
                    assumed.append(_("{gpu} is priced at {price} a GPU-hour, as in your list of GPU types to compare.", gpu=name,
                                     price=_price_said(entry["price_per_gpu_hour"], cur)))
                else:
                    assumed.append(_("{gpu} is priced at today's rate, {price} a GPU-hour: add its own price to the question to compare fairly.",
                                     gpu=name, price=_price_text(today_price, cur)))
            if listed and alone:
                change["cluster.candidates"] = [{**entry, "price_per_gpu_hour": change["budget.price_per_gpu_hour"]}] \
                    if entry is not None and entry.get("spot_price_per_gpu_hour") is not None else None
                if entry is not None and "cluster.max_gpus" not in change:
                    change["cluster.max_gpus"] = entry.get("max_gpus") or cluster.get("max_gpus")
            elif listed:
                # today's type joins the list at today's price; the new type leaves it (or keeps only its spot offer)
                rest = [c for c in listed if not same(c, gid) and not same(c, today_gpu)]
                most = cluster.get("max_gpus", a.cluster.gpus)
                mine = next((c for c in listed if same(c, today_gpu)), {})
                rest.append({**mine, "gpu": cluster.get("gpu", today_gpu), "price_per_gpu_hour": cluster_price(ctx.draft, today_price), "max_gpus": most})
                if entry is not None and entry.get("spot_price_per_gpu_hour") is not None:
                    rest.append({**entry, "price_per_gpu_hour": change["budget.price_per_gpu_hour"]})
                if entry is not None and "cluster.max_gpus" not in change:
                    change["cluster.max_gpus"] = entry.get("max_gpus") or cluster.get("max_gpus")
                change["cluster.candidates"] = rest
                assumed.append(_("Today's {gpu} stays among the GPU types compared, at {price} a GPU-hour.",
                                 gpu=a.cluster.spec.name, price=_price_text(today_price, cur)))
    training = _section(ctx.draft, "training")
    per_example = _number(change.get("training.tokens_per_example"))
    data_tokens = a.training.data_tokens
    counted = False
    if per_example and per_example >= 1 and "training.examples" not in change and training.get("examples") is None \
            and a.training.tokens is not None and data_tokens and a.training.method in FINETUNE_METHODS:
        # an example's length where the data is given in tokens: the same data, counted in examples of that length (it
        # was refused: 'tokens_per_example needs examples')
        examples = max(1, round(data_tokens / per_example))
        change["training.examples"] = examples
        assumed.append(_("The data stays {tokens} tokens, counted as {examples} examples of {length} tokens.",
                         tokens=token_text(data_tokens), examples=count(examples), length=count(per_example)))
        counted = True
    if ("training.tokens_per_example" in change or "model.seq_len" in change) and a.training.method in FINETUNE_METHODS:
        # whether the examples fit the sequence, before and after: a trainer cuts a longer one (TRL's max_length), which
        # the estimate, pricing every token, does not show (user try 11)
        before_e, before_s = a.training.tokens_per_example, a.model.seq_len
        after_e = per_example or before_e
        after_s = _sequence(change.get("model.seq_len")) or before_s
        if after_e and (a.training.examples is not None or counted):
            # examples longer than the sequence: the rule's warning, which every what-if shows where it is new (_new_warnings)
            if after_e <= after_s and before_e and before_e > before_s:
                assumed.append(_("At {seq} tokens the {example}-token examples train whole, where {before} tokens cut them.",
                                 seq=count(after_s), example=count(after_e), before=count(before_s)))
    for given, replaced, said in (
            ("training.tokens", ("examples", "tokens_per_example", "epochs"), _("The data is counted in tokens now, in place of the examples.")),
            ("training.examples", ("tokens",), _("The data is counted in examples now, in place of the tokens.")),
            ("training.duration_hours", ("duration_days",), ""), ("training.duration_days", ("duration_hours",), "")):
        if given in change and any(training.get(k) is not None for k in replaced):
            change.update({f"training.{k}": None for k in replaced if f"training.{k}" not in change})
            if said and not (counted and given == "training.examples"):  # said once, with the counts, above
                assumed.append(said)
    asked_method = str(change.get("training.method", "")).lower()
    own_method = ctx.advice.asked_method or a.training.method  # the answers' own (the plan may have moved to a lighter one)
    if asked_method and asked_method != own_method and "training.global_batch_tokens" not in change \
            and training.get("global_batch_tokens") is None and asked_method in FINETUNE_METHODS and own_method in FINETUNE_METHODS:
        # Another fine-tuning method on the same data keeps the batch: the method's own default (16 sequences for LoRA,
        # 64 for a full fine-tune) would compare two methods at two batches (user try 2026-12-05: LoRA looked slower and
        # dearer than the full fine-tune at a quarter of its batch).
        w = workload_from(a.model_copy(update={"training": a.training.model_copy(update={"method": own_method})}))
        change["training.global_batch_tokens"] = int(w.global_batch_tokens)
        assumed.append(_("The global batch stays today's {seqs} sequences, so the two methods train the same way.", seqs=count(w.global_batch_seqs)))
    if {"training.lora_rank", "training.lora_targets"} & set(change):
        method = change.get("training.method", ctx.advice.method)
        if method == "pretrain":
            return Reply(ctx.question, None, lines=[_("LoRA settings size the adapters of a fine-tune; this plan pretrains the model, so it has none.")])
        if method not in ("lora", "qlora"):
            change["training.method"] = "lora"
            assumed.append(_("Adapter settings apply to LoRA: the what-if fine-tunes with LoRA."))
        elif "training.method" not in change:
            change["training.method"] = method  # the plan fine-tunes with LoRA (maybe in place of a full fine-tune): the rank is that LoRA's
    gpus = _number(change.get("cluster.gpus"))
    if gpus is not None and gpus == int(gpus) and gpus >= 1:
        ceiling = _number(change.get("cluster.max_gpus", cluster.get("max_gpus")))
        if "cluster.max_gpus" not in change:
            # 'what if we use 32 GPUs' is the count the team would have: the plan may not grow past it (it grew back to
            # 128 with a deadline, user try 2026-12-05); a ceiling the question gives itself ('only 128') stays as given
            change["cluster.max_gpus"] = int(gpus)
            if ceiling != gpus:
                assumed.append(_("The plan may use at most the {n} GPUs asked.", n=count(gpus)))
        elif ceiling is not None and gpus > ceiling:
            change["cluster.max_gpus"] = int(gpus)
            assumed.append(_("Most GPUs raised from {old} to {new}, so the count asked is allowed.", old=format_number(ceiling), new=count(gpus)))
        others = change.get("cluster.candidates", listed) or []
        most = _number(change["cluster.max_gpus"]) or gpus
        if any((_number(c.get("max_gpus")) or 0) != most for c in others):
            change["cluster.candidates"] = [{**c, "max_gpus": int(most)} for c in others]
            assumed.append(_("The other GPU types may have {n} GPUs too.", n=count(most)))
    if "cluster.candidates" in change or "cluster.max_gpus" in change:
        # today's type, listed for its spot price, follows today's price and ceiling
        price = change.get("budget.price_per_gpu_hour", cluster_price(ctx.draft, today_price))
        gid_now = resolve_gpu(str(change.get("cluster.gpu", today_gpu))) or str(change.get("cluster.gpu", today_gpu))
        most = change.get("cluster.max_gpus", cluster.get("max_gpus"))
        fixed = [{**c, "price_per_gpu_hour": price, **({"max_gpus": most} if most is not None else {})} if same(c, gid_now) else c
                 for c in change.get("cluster.candidates", listed) or []]
        if fixed != listed:
            change["cluster.candidates"] = fixed or None
    return shown_as, assumed


def cluster_price(draft: dict[str, Any], price: float) -> Any:
    """Today's price as the answers wrote it (so '¥10' keeps its mark), else the number the advice used."""
    return _section(draft, "budget").get("price_per_gpu_hour", price)


def _section(draft: dict[str, Any], name: str) -> dict[str, Any]:
    value = draft.get(name)
    return value if isinstance(value, dict) else {}


def _label(ctx: Context, path: str) -> str:
    for slot in ctx.data.slots.values():
        if slot.fields == (path,) and slot.kind != "factor":  # 'GPUs', not 'GPUs (relative)': the value is absolute
            return slot.name()
    return _("most GPUs") if path == "cluster.max_gpus" else path


def _best_member(ctx: Context, name: str) -> str:
    """A strategy id for a name: a group (deepspeed) is its member that runs cheapest at the chosen GPU count."""
    members = ctx.data.groups.get(name)
    if not members:
        return name
    if ctx.advice.strategy in members:
        return ctx.advice.strategy
    plan = ctx.advice.plan
    priced = [o for m in members if (o := plan.option(m, ctx.advice.gpus)) is not None]
    best = best_at(priced, preference(plan.today.strategy, ctx.advice.gpus))
    return best.strategy if best is not None else members[0]


def _strategy_rows(ctx: Context, strategies: list[str]) -> list[tuple[str, ...]]:
    a = ctx.advice
    ests = [a.estimate_dict(s) for s in strategies]
    cur = ctx.currency

    def verdict(s: str) -> str:
        # A reason too long for the cell is said in full above the table (_compare, _why): cut mid-sentence, it was also
        # cut in the memo's appendix and the saved conversation (user try 8).
        why = _("chosen") if s == a.strategy else (a.why_not(s) or [""])[0]
        return why if width(why) <= 34 else _("not chosen: see above")

    return [
        (_("framework"), *(_clip(re.split(r" ?[（(]", FRAMEWORKS[s])[0], 30) for s in strategies)),  # the id heads the column
        (_("fits in memory"), *(_("yes") if e["fits"] and e["batch_ok"] else _("no") for e in ests)),
        (_("memory per GPU"), *(f"{e['memory_per_gpu_gb']:,.1f} GB" for e in ests)),
        (_("time per run"), *(hours_text(e["wall_clock_hours"]) for e in ests)),
        (_("cost per run"), *money_column([e["cost"] for e in ests], cur)),
        (_("exposed communication"), *(f"{e['communication_share']:.0%}" for e in ests)),
        (_("rules' score"), *(format_number(a.scores[s]) for s in strategies)),
        (_("verdict"), *(verdict(s) for s in strategies)),
    ]


def _clip(text: str, cols: int) -> str:
    """At most ``cols`` terminal columns (a Chinese character takes two), '…' where cut: a cell stays a cell at 80 columns."""
    from advisor.base.i18n import width

    if width(text) <= cols:
        return text
    out = ""
    for ch in text:
        if width(out + ch) > cols - 1:
            break
        out += ch
    return out + "…"


def _rules_on(ctx: Context, strategy: str) -> list[str]:
    """The considerations that counted for and against ``strategy``, by their titles (what a reader knows them by), not
    their ids or points."""
    pro, con = [], []
    for fr in ctx.advice.fired:
        pts = fr.rule.then.score.get(strategy, 0)
        title = str(fr.rule.title)
        if strategy in fr.rule.then.exclude or pts < 0:
            con.append(title)
        elif pts > 0:
            pro.append(title)
    out = []
    if pro:
        out.append(_("Counted for it: {titles}.", titles=_("; ").join(dict.fromkeys(pro))))
    if con:
        out.append(_("Counted against it: {titles}.", titles=_("; ").join(dict.fromkeys(con))))
    return out


def _why(ctx: Context, slots: dict[str, list[str]], negative: bool = False) -> Reply:
    a = ctx.advice
    if "strategy" in slots:
        s = _best_member(ctx, slots["strategy"][0])
        rules = _rules_on(ctx, s)
        if s == a.strategy:
            lines = [_("{strategy} is the recommendation on {gpus} GPUs:", strategy=s, gpus=a.gpus)]
            lines += [f"• {r['text']}" for r in a.rationale()]
            if negative:
                lines.insert(0, _("{strategy} is not ruled out: it is the plan.", strategy=s))
        else:
            lines = [_("Why not {strategy} on {gpus} GPUs:", strategy=s, gpus=a.gpus)] + [f"• {r}" for r in a.why_not(s)]
            # what put the plan ahead: 'the rules score it 2 against 6 for fsdp' named only what counted for the one
            # asked about, never the 6 (user try 14)
            ahead = [str(fr.rule.title) for fr in a.fired if fr.rule.then.score.get(a.strategy, 0) > fr.rule.then.score.get(s, 0)
                     and s not in fr.rule.then.exclude]
            if ahead:
                rules = [*rules, _("Counted for {plan} over it: {titles}.", plan=a.strategy, titles=_("; ").join(dict.fromkeys(ahead)))]
        lines += rules
        cols = (a.strategy, s) if s != a.strategy else (s,)
        return Reply(ctx.question, "why_not" if negative else "why", lines=lines, columns=cols, figures=_strategy_rows(ctx, list(cols)),
                     sources=sorted({src for fr in a.fired for src in fr.rule.source if fr.rule.then.score.get(s) or s in fr.rule.then.exclude}))
    if "train_method" in slots:
        word = slots["train_method"][0]
        return _why_method(ctx, str(ctx.data.slots["train_method"].means.get(word, word)), negative)
    if "gpus" in slots:
        return _why_gpus(ctx, slots["gpus"][0], negative)
    if "gpu" in slots:
        gpu = slots["gpu"][0]
        compared = _why_gpu_type(ctx, gpu, negative)
        if compared is not None:
            return compared
        reply = _what_if(ctx, {"gpu": [gpu]})
        reply.lines.insert(0, _("advisor does not choose the GPU type: it prices the GPUs you name. The same job on {gpu}:", gpu=gpu))
        reply.intent = "why_not" if negative else "why"
        return reply
    if "term" in slots:  # 'why packing?', '为什么要打包': the term explained, not why the plan (user try 2026-12-07)
        return _explain(ctx, slots)
    if "epochs" in slots and a.today_answers.training.epochs:
        return _why_epochs(ctx)
    lines = [_("Why {plan}:", plan=_plan_text(a)), *(f"• {n['text']}" for n in notes(a))]
    lines += [f"• {r['text']}" for r in a.rationale()]
    return Reply(ctx.question, "why", lines=lines, columns=(_("today"), _("recommended")),
                 figures=[(lbl, t, r) for lbl, t, r in _today_rows(a)], sources=[PLAN_SOURCE])


WHICH_GPU_OTHERS = {"CNY": ("a10", "l20", "a800", "h800", "h20"), "": ("a10", "l40s", "a100-80gb", "h100-sxm", "h200")}
"""The catalog types 'which GPU should we buy?' prices the job on beside the answers' own, by the answers' currency (the
parts sold in China where the quotes are in yuan: the catalog's H800, A800, H20 and L20 entries); at most WHICH_GPU_SHOWN."""
WHICH_GPU_SHOWN = 4


def _gpu_id(answers: Answers) -> str:
    """Today's GPU type as the catalog names it; 'custom' for one given inline (it has no catalog id)."""
    return answers.cluster.gpu if isinstance(answers.cluster.gpu, str) else "custom"


def _short_gpu(name: str) -> str:
    return name.removeprefix("NVIDIA ")


def _which_gpu(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'what GPU should we buy?', '用什么卡好': where the answers list GPU types with their prices, the comparison the plan made;
    otherwise the same job on a few catalog types, by time and GPU-hours, with the price below which each is the cheaper
    rental (user try 2026-12-07: not read). advisor has no prices of its own: they are the team's quotes."""
    a = ctx.advice
    if len(a.plan.gpu_types) >= 2:
        compared = _why_gpu_type(ctx, a.plan.chosen.gpu, False)
        if compared is not None:
            compared.intent = "which_gpu"
            return compared
    today = a.today_answers.cluster
    gid_now = _gpu_id(a.today_answers)
    others = [g for g in WHICH_GPU_OTHERS.get(ctx.currency, WHICH_GPU_OTHERS[""]) if g != gid_now][:WHICH_GPU_SHOWN]
    c, cur = a.plan.chosen, ctx.currency
    price = a.today_answers.budget.price_per_gpu_hour
    # GPUs rather than the plan cell, and names without 'NVIDIA ': five columns in the Ask box's 78 (the strategy is a
    # 'compare a10 and h800' away)
    rows: list[tuple[str, ...]] = [(_short_gpu(today.spec.name), count(c.gpus), hours_text(c.hours), count(c.hours * c.gpus),
                                    _("today's, at {price}", price=_price_text(price, cur)))]
    best: list[tuple[float, str]] = []
    for g in others:
        change: dict[str, Any] = {"cluster.gpu": g, "budget.price_per_gpu_hour": price}
        settled = _settle(ctx, change, alone=True)
        if isinstance(settled, Reply):
            continue
        try:
            o = _rerun(ctx, change).plan.chosen
        except AdvisorError:
            continue
        name = _short_gpu(gpu_catalog()[g].name)
        if not o.runnable:
            rows.append((name, _("does not run"), "—", "—", "—"))
            continue
        ratio = (c.hours * c.gpus) / (o.hours * o.gpus)
        late = o.meets_deadline is False and c.meets_deadline is not False
        rows.append((name, count(o.gpus), hours_text(o.hours), count(o.hours * o.gpus),
                     _("misses the deadline") if late else _("under {price}", price=_price_text(price * ratio, cur))))
        if not late:
            best.append((ratio, g))
    lines = [_("advisor does not choose the GPU type by itself: it prices the types you name at your quotes (list them with "
               "their prices in cluster.candidates, and the plan compares them). The same job on a few types in its catalog, "
               "each with the best plan on it (ask 'compare' for the framework each uses):"),
             _("A type is the cheaper rental when its price per GPU-hour is below the last column: today's {price} × the {gpu}'s "
               "GPU-hours ÷ its own.", price=_price_text(price, cur), gpu=today.spec.name)]
    if a.answers.training.deadline_days is not None:
        lines.append(_("Each plan is chosen for a deadline of {deadline}, as today's is.", deadline=hours_text(a.answers.training.deadline_days * 24)))
    return Reply(ctx.question, "which_gpu", lines=lines,
                 columns=(_("GPUs"), _("time per run"), _("GPU-hours"), _("cheaper at a GPU-hour")), figures=rows,
                 sources=[PLAN_SOURCE], suggestions=[_("compare {a} and {b}", a=gid_now, b=max(best)[1])] if best else [])


def _why_epochs(ctx: Context) -> Reply:
    """'why 3 epochs?': the epochs are the team's answer, not advisor's choice; what one pass costs in this plan (user try
    2026-12-07: answered with why the plan's framework)."""
    a, cur = ctx.advice, ctx.currency
    c, epochs = a.plan.chosen, a.today_answers.training.epochs or 1
    lines = [_("{epochs} epochs is what the answers give (training.epochs): advisor prices the passes over the data you name "
               "and does not choose how many; that is a question of model quality for the team's evaluation.",
               epochs=format_number(epochs)),
             _("In this plan each pass over the data takes {time} and costs {cost}, of the run's {total} and {total_cost}.",
               time=hours_text(c.hours / epochs), cost=money(c.cost / epochs, cur), total=hours_text(c.hours),
               total_cost=money(c.cost, cur))]
    fewer = max(1, round(epochs) - 1)
    return Reply(ctx.question, "why", lines=lines, sources=[PLAN_SOURCE],
                 suggestions=[_("what if {n} epochs?", n=fewer)] if fewer < epochs else [])


def _why_gpu_type(ctx: Context, gpu: str, negative: bool) -> Reply | None:
    """'why H100?' where the answers compare GPU types (cluster.candidates): the comparison the plan made, each type's
    best plan and why it lost (explain.gpu_type_notes, lost_text), not a what-if as if advisor never chose the type
    (user try 2026-12-05). None where ``gpu`` was not among the types compared."""
    a = ctx.advice
    types = a.plan.gpu_types
    asked = [t for t in types if t.gpu == gpu]
    if len(types) < 2 or not asked:
        return None
    cur, days = ctx.currency, a.answers.training.deadline_days
    win = next(t for t in types if t.lost is None)
    if any(t.lost is None for t in asked):
        head = _("{gpu} is the plan's GPU type: advisor compared the types your answers list and took the best plan on each.",
                 gpu=gpu_type_name(a))
    else:
        t = min(asked, key=lambda t: t.option.cost)
        head = _("Why not {gpu}: its best plan ({plan}) loses to {win}: {why}.", gpu=type_name(t.gpu, t.spot),
                 plan=_plan_cell(t.option.strategy, t.option.gpus), win=gpu_type_name(a),
                 why=lost_text(t.lost, t.option.cost, win.option.cost, days))
    lines = [head, *(f"• {n['text']}" for n in notes(a) if n["code"] in ("gpu-type", "spot"))]
    rows: list[tuple[str, ...]] = [
        (type_name(t.gpu, t.spot), _plan_cell(t.option.strategy, t.option.gpus), hours_text(t.option.hours), said,
         _("chosen") if t.lost is None else lost_text(t.lost, t.option.cost, win.option.cost, days))
        for t, said in zip(types, money_column([t.option.cost for t in types], cur), strict=True)]
    return Reply(ctx.question, "why_not" if negative else "why", lines=lines,
                 columns=(_("plan"), _("time per run"), _("cost per run"), _("verdict")), figures=rows, sources=[PLAN_SOURCE])


COMPUTE_OPTIMAL_TOKENS_PER_PARAM = 20.0
"""Training tokens per parameter of a compute-optimal pre-training run: Chinchilla's D ≈ 20P (Hoffmann et al. 2022,
arXiv:2203.15556, as EleutherAI's Transformer Math 101 states it: reference/estimators-notes.md 'Compute')."""

FROM_SCRATCH_SOURCES = ["Transformer Math 101 (EleutherAI): compute-optimal D ≈ 20P (Chinchilla, arXiv:2203.15556)",
                        "meta-llama/llama-models models/llama3/MODEL_CARD.md: Llama 3 8B, over 15T tokens, 1.3M H100 GPU-hours"]

_FROM_SCRATCH_DROPS = ("examples", "tokens_per_example", "epochs", "lora_rank", "lora_targets", "post_training", "stages_before",
                       "duration_hours", "duration_days", "measured", "global_batch_tokens", "runs_per_month")
"""What describes the fine-tune and not a pre-training run: its data, its adapters, its measured or known run, its batch
and how often it runs (a pre-training run is one run)."""


def _from_scratch(ctx: Context) -> Reply:
    """'why not pre-train our own model?', 'should we fine-tune or pre-train?', '要不要自己预训练': pre-training is not the
    fine-tune's data trained from random weights (the what-if priced 614M tokens of 'pre-training' at 11 h; user try
    2026-12-06) but a model built from a pre-training corpus: priced at the compute-optimal tokens for the model's size,
    beside the plan, with what today's open models are trained on."""
    a = ctx.advice
    t = a.answers.training
    names = method_names()
    params = float(a.answers.model.params)
    need = COMPUTE_OPTIMAL_TOKENS_PER_PARAM * params
    if t.method == "pretrain":
        lines = [_("The plan pre-trains, as the answers ask. If an open model of this size already does the job, fine-tuning it on "
                   "your own data costs a small part of that: set training.method to lora or finetune, with your examples, to price it.")]
        if t.data_tokens:
            lines.append(_("Its {tokens} tokens are {ratio} per parameter of the {params}-parameter model; compute-optimal is about "
                           "{optimal}.", tokens=token_text(t.data_tokens), ratio=format_number(round(t.data_tokens / params, 1)),
                           params=token_amount(params), optimal=format_number(COMPUTE_OPTIMAL_TOKENS_PER_PARAM)))
        return Reply(ctx.question, "why", lines=lines, sources=[PLAN_SOURCE, *FROM_SCRATCH_SOURCES])
    have = t.data_tokens or 0.0
    lines = [_("Adapt an existing model: pre-training is not a longer fine-tune but building the {params}-parameter model from "
               "scratch, and compute-optimal pre-training of that size reads about {need} tokens ({optimal} per parameter), {times} "
               "times the {have} tokens of this {method}.", params=token_amount(params), need=token_text(need),
               optimal=format_number(COMPUTE_OPTIMAL_TOKENS_PER_PARAM), times=f"{need / have:,.0f}" if have else "—",
               have=token_text(have), method=names[a.method])]
    draft = ctx.draft
    change: dict[str, Any] = {"training.method": "pretrain", "training.tokens": need, "budget.monthly_limit": None}
    change |= {f"training.{key}": None for key in _FROM_SCRATCH_DROPS if key in _section(draft, "training")}
    figures: list[tuple[str, ...]] = []
    try:
        new = _rerun(ctx, change)
    except AdvisorError:  # a size whose compute-optimal data is past what the answers take: the words stand alone
        new = None
    if new is not None:
        cb, cn, cur = a.plan.chosen, new.plan.chosen, ctx.currency
        lines.append(_("Priced the same way, that pre-training run takes {time} with {plan} for {cost}, against {plan_time} and "
                       "{plan_cost} a run for the plan's {method}.", time=hours_text(cn.hours), plan=_plan_text(new),
                       cost=money(cn.cost, cur), plan_time=hours_text(cb.hours), plan_cost=money(cb.cost, cur), method=names[a.method]))
        figures = [(_("plan"), _plan_cell(cb.strategy, cb.gpus), _plan_cell(cn.strategy, cn.gpus)),
                   (_("tokens"), token_text(have), token_text(need)),
                   (_("time per run"), hours_text(cb.hours), hours_text(cn.hours)),
                   (_("cost per run"), *_money_row(cb.cost, cur, cn.cost, cur))]
    lines.append(_("That is a floor, not the price of a model as good as the one you would fine-tune: today's open models read far "
                   "more (Llama 3 8B: over 15T tokens and 1.3M H100 GPU-hours)."))
    return Reply(ctx.question, "why_not", lines=lines, columns=(names[a.method], _("pre-training run")) if figures else (),
                 figures=figures, sources=[PLAN_SOURCE, *FROM_SCRATCH_SOURCES])


def _why_method(ctx: Context, method: str, negative: bool) -> Reply:
    """'why not a full fine-tune?' where the plan switched to QLoRA: the reason and what the method asked costs; 'why
    QLoRA?' the same; another method: what it would take, as a what-if."""
    a = ctx.advice
    names = method_names()
    if a.method_changed and method in (a.method, a.asked_method):
        lines = [a.method_reason() or ""]
        if negative and method == a.method:  # 'why not LoRA?' where the plan is LoRA: say so first
            lines.insert(0, _("The plan already fine-tunes with {method}; the answers ask for a {asked}.", method=names[a.method],
                              asked=names[a.asked_method or ""]))
        return Reply(ctx.question, "why_not" if negative else "why", lines=lines, sources=[PLAN_SOURCE, "seed:K4"])
    if method == a.method:
        lines = [_("{method} is the method the answers ask for, and the plan keeps it.", method=names.get(method, method))]
        other = {"lora": "finetune", "qlora": "lora", "finetune": "lora"}.get(method)
        if other is None or negative:
            return Reply(ctx.question, "why_not" if negative else "why", lines=lines, sources=[PLAN_SOURCE])
        # 'why LoRA?' answered only that the answers ask for it (user try 2026-12-07): beside it, what the method it
        # spares (a full fine-tune) or the lighter one (LoRA for a full fine-tune, LoRA for QLoRA) would take.
        reply = _what_if(ctx, {"train_method": [other]})
        reply.lines = [*lines, _("Beside it, the same data with {other}:", other=names[other]), *reply.lines]
        reply.intent = "why"
        return reply
    reply = _what_if(ctx, {"train_method": [method]})
    reply.intent = "why_not" if negative else "why"
    return reply


def _today_rows(a: Advice, monthly: bool = False) -> list[tuple[str, ...]]:
    """Today beside the plan (``monthly``: and the cost a month); a today that cannot run shows no time or cost, as the
    summary shows it (a figure for a run that cannot happen read as one to beat; user try 2026-12-05)."""
    t, c, cur = a.plan.today, a.plan.chosen, str(a.facts["currency"])
    runs = today_cannot_run(a) is None  # a measured run ran, whatever the estimate says of it
    rows: list[tuple[str, ...]] = [
        (_("plan"), _plan_cell(t.strategy, t.gpus), _plan_cell(c.strategy, c.gpus)),
        (_("time per run"), hours_text(t.hours) if runs else _("cannot run"), hours_text(c.hours)),
        (_("cost per run"), *(_money_row(t.cost, cur, c.cost, cur) if runs else (_("cannot run"), money(c.cost, cur)))),
    ]
    today_gpu = a.today_answers.cluster.gpu
    if c.gpu and isinstance(today_gpu, str) and c.gpu != today_gpu:
        # 'fsdp, 8 GPUs' in both columns, 8.4 h beside 3.1 h: the plan runs on a listed type, said (user try 14)
        rows.insert(1, (_("GPU type"), today_gpu, c.gpu))
    if monthly:
        rows.append((_("cost per month"), *(_money_row(t.monthly, cur, c.monthly, cur) if runs else (_("cannot run"), money(c.monthly, cur)))))
    return rows


def _count(ctx: Context, raw: str) -> int:
    """A GPU count as the answers read it: out of range is the answers' own error, naming cluster.gpus."""
    # the ceiling and the other GPU types' ceilings follow the count (as in a what-if): only the count itself is checked
    answers = answers_from_mapping(with_change(ctx.draft, {"cluster.gpus": raw, "cluster.max_gpus": None, "cluster.candidates": None}), ctx.name)
    return answers.cluster.gpus


def _why_gpus(ctx: Context, raw: str, negative: bool) -> Reply:
    a = ctx.advice
    n = _count(ctx, raw)
    plan = a.plan
    c, cur = plan.chosen, ctx.currency
    if n == c.gpus:
        lines = [_("{gpus} GPUs is the plan:", gpus=n), *(f"• {note['text']}" for note in notes(a))]
        return Reply(ctx.question, "why_not" if negative else "why", lines=lines, columns=(_("today"), _("recommended")),
                     figures=list(_today_rows(a)), sources=[PLAN_SOURCE])
    at_n = [o for o in plan.options if o.gpus == n]
    searched = sorted({o.gpus for o in plan.options})
    if not at_n:
        return Reply(ctx.question, "why_not" if negative else "why",
                     lines=[_("{gpus} GPUs was not searched: the search priced {counts}.", gpus=n,
                              counts=", ".join(str(x) for x in searched))],
                     suggestions=[_("what if GPUs = {n}?", n=n)])
    # The best option at that count by the plan's own objective (the one chooser, as the memo's what-if table and the
    # sweep pick it): not the plan's framework, which may be the slowest there.
    best = best_option_at(a, n)
    o = best if best is not None else at_n[0]
    reasons, dominated = [], False
    if best is None:
        reasons.append(_("nothing runs on {gpus} GPUs as asked", gpus=n))
    elif o.meets_deadline is False and c.meets_deadline:
        reasons.append(deadline_reason(o.hours, a.answers.training.deadline_days or 0.0))
    elif not o.within_budget and c.within_budget:
        reasons.append(_("it costs {cost} a run, over the budget", cost=money(o.cost, cur)) if o.cost > (a.answers.budget.limit or 0)
                       else _("it costs {cost} a run, at risk of going over the budget", cost=money(o.cost, cur)))
    elif not o.within_monthly and c.within_monthly:
        reasons.append(_("it costs {cost} a month, over the monthly limit", cost=money(o.monthly, cur)) if o.monthly > (a.answers.budget.monthly_limit or 0)
                       else _("it costs {cost} a month, at risk of going over the monthly limit", cost=money(o.monthly, cur)))
    elif o.cost > c.cost * (1 + COST_TIE) or o.hours > c.hours * (1 + COST_TIE):
        reasons.append(_("costs {cost} a run ({change}) and takes {time}", cost=money(o.cost, cur), change=pct_change(o.cost, c.cost),
                         time=hours_text(o.hours)))
    elif dominated := dominates(o, c):
        # Cheaper and no slower, or faster for no more: the plan stands only because the GPUs may not be there.
        reasons = [_("Nothing counts against {gpus} GPUs: they cost {cost} a run ({change}) and take {time}, no worse on either count. "
                     "The plan asks for no more GPUs than its goal needs: if {gpus} are free to use, take them.",
                     cost=money(o.cost, cur), change=pct_change(o.cost, c.cost), time=hours_text(o.hours), gpus=n)]
    else:
        reasons.append(_("it costs about the same; the choice keeps the count nearest the GPUs given ({objective})", objective=plan.objective)
                       if plan.greenfield else  # a new project has no setup today to change from
                       _("it costs about the same; the choice keeps the smaller change from today ({objective})", objective=plan.objective))
    lines = reasons if dominated else [_("Why not {gpus} GPUs: {reason}.", gpus=n, reason="; ".join(reasons))]
    rows: list[tuple[str, ...]] = [
        (_("plan"), _plan_cell(c.strategy, c.gpus), _plan_cell(o.strategy, o.gpus)),
        (_("time per run"), hours_text(c.hours), hours_text(o.hours)),
        (_("cost per run"), *_money_row(c.cost, cur, o.cost, cur)),
        *([(_("cost per month"), *_money_row(c.monthly, cur, o.monthly, cur))] if _month_claimed(ctx) else []),
    ]
    if a.answers.training.deadline_days is not None:
        dd = a.answers.training.deadline_days
        rows.append((_("deadline"), deadline_word(c.meets_deadline, c.hours, dd), deadline_word(o.meets_deadline, o.hours, dd)))
    return Reply(ctx.question, "why_not" if negative else "why", lines=lines, columns=(_("recommended"), _("{n} GPUs", n=n)),
                 figures=rows, sources=[PLAN_SOURCE, "seed:K6", "seed:K11"])


def _why_not(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    return _why(ctx, slots, negative=True)


QUALITY = re.compile(r"\b(?:quality|worse|better|accura(?:te|cy)|hurt|degrade|lose|loses|as good)\b|效果|质量|精度|准确|变差|变差|损失|影响")
"""Words that ask what a method costs in model quality, not what it is."""


def _explain(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    term = ctx.data.terms[slots["term"][0]]
    lang = "zh" if zh() else "en"
    lines = [term.text[lang]]
    if term.id in PEFT_METHODS and QUALITY.search(normalise(ctx.question).lower()):
        lines.append(peft_caveat(term.id))  # 'is QLoRA worse?' / 'QLoRA 会影响效果吗？': what it trades, cited
    t, m = ctx.advice.answers.training, ctx.advice.answers.model
    if term.id == "packing" and t.tokens_per_example:  # what it means for this plan (user try 2026-12-07: the same words for any)
        if t.tokens_per_example >= m.seq_len:
            lines.append(_("Here the {example}-token examples fill the {seq}-token sequence: there is nothing to pack.",
                           example=count(t.tokens_per_example), seq=count(m.seq_len)))
        else:
            lines.append(_("Here {per} examples of {example} tokens go to each {seq}-token sequence on average, and the estimate "
                           "assumes they are packed.", per=format_number(round(m.seq_len / t.tokens_per_example, 1)),
                           example=count(t.tokens_per_example), seq=count(m.seq_len)))
    figures = _term_figures(ctx, term.id)
    return Reply(ctx.question, "explain", lines=lines, columns=(_("in this plan"),) if figures else (), figures=figures,
                 sources=list(term.source))


def _term_figures(ctx: Context, term: str) -> list[tuple[str, ...]]:
    e = ctx.advice.estimate_dict(ctx.advice.strategy)
    getters: dict[str, list[tuple[str, str]]] = {
        "communication-share": [(_("exposed communication"), f"{e['communication_share']:.0%}")],
        "all-reduce": [(_("exposed communication"), f"{e['communication_share']:.0%}")],
        "gradient-accumulation": [(_("accumulation steps"), str(e["gradient_accumulation_steps"])),
                                  (_("micro-batch"), str(e["micro_batch_size"]))],
        "tensor-parallel": [(_("tensor parallel"), str(e["tensor_parallel"]))],
        "pipeline-parallel": [(_("pipeline parallel"), str(e["pipeline_parallel"]))],
        "expert-parallel": [(_("expert parallel"), str(e["expert_parallel"]))],
        # 'what happens if a GPU fails?': how often it is expected, not only what it costs (user try 12)
        "checkpoint-resume": [(_("interruptions expected in a run"), _interruptions_said(e["expected_interruptions"])),
                              (_("time lost to restarts"), f"{e['interruption_overhead']:.1%}")],
        "activation-recompute": [(_("recomputation"), str(e["activation_recompute"]))],
    }
    # 'what is ZeRO-3?' showed the plan's memory (FSDP's 43.1 GB) as if it were ZeRO-3's (43.3): each stage named, with the
    # plan's own beside them (user try 14)
    stages = {"zero": ("deepspeed-zero1", "deepspeed-zero2", "deepspeed-zero3"), "offload": ("deepspeed-zero3-offload",)}
    for name, strategies in stages.items():
        rows = [(_("memory per GPU, the plan ({strategy})", strategy=ctx.advice.strategy), f"{e['memory_per_gpu_gb']:,.1f} GB")]
        for sid in strategies:
            if sid != ctx.advice.strategy and sid in ctx.advice.scores:
                rows.append((_("memory per GPU, {strategy}", strategy=sid), f"{ctx.advice.estimate_dict(sid)['memory_per_gpu_gb']:,.1f} GB"))
        getters[name] = rows
    # 'what is the MFU?' gave only the definition (user try 14): the plan's own, the useful FLOPs it does a second over the
    # GPUs' dense bf16 peak (the convention MFU figures use), at the GPU-bound rate the engineers' data-loader question quotes
    a = ctx.advice
    w, tps, c = a.evaluation.context.get("workload"), float(a.facts.get("chosen_tokens_per_sec") or 0.0), a.plan.chosen
    if w is not None and tps > 0:
        mfu = w.flops_per_token * tps / (c.gpus * a.answers.cluster.spec.peak_tflops * 1e12)
        getters["mfu"] = [(_("model FLOPs utilisation, the plan ({strategy} on {gpus} GPUs)", strategy=c.strategy, gpus=c.gpus), f"{mfu:.0%}")]
    t, m = ctx.advice.answers.training, ctx.advice.answers.model
    if t.tokens_per_example:  # 'should we pack?' with examples as long as the sequence: nothing to pack, and it shows
        getters["packing"] = getters["truncation"] = [(_("tokens per example"), count(t.tokens_per_example)),
                                                      (_("sequence length"), count(m.seq_len))]
    return [(label, value) for label, value in getters.get(term, [])]


def _interruptions_said(expected: float) -> str:
    """Interruptions a run expects, as a PM reads them: '0.00' read as 'never', where it is about one run in 250."""
    if 0 < expected < 0.95:
        return _("about 1 in {n} runs", n=count(max(2, round(1.0 / expected))))
    return f"{expected:,.1f}"


def _compare(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    a = ctx.advice
    if len(slots.get("strategy", [])) >= 2:
        s1, s2 = (_best_member(ctx, s) for s in slots["strategy"][:2])
        reasons = [_("{strategy} is not chosen: {why}", strategy=s, why=(a.why_not(s) or [""])[0]) for s in (s1, s2) if s != a.strategy and a.why_not(s)]
        return Reply(ctx.question, "compare", lines=[_("{a} and {b} on {gpus} GPUs, side by side:", a=s1, b=s2, gpus=a.gpus), *reasons],
                     columns=(s1, s2), figures=_strategy_rows(ctx, [s1, s2]), sources=["advisor estimate (estimate/)", "seed:K10"])
    if len(slots.get("gpus", [])) >= 2:
        n1, n2 = (_count(ctx, raw) for raw in slots["gpus"][:2])
        changes: list[dict[str, Any]] = [{"cluster.gpus": n, "cluster.max_gpus": n} for n in (n1, n2)]
        listed = [c for c in _section(ctx.draft, "cluster").get("candidates") or [] if isinstance(c, dict)]
        for c in changes:
            if listed:  # 'no more' holds for every GPU type compared
                c["cluster.candidates"] = [{**entry, "max_gpus": c["cluster.gpus"]} for entry in listed]
            settled = _settle(ctx, c)
            if isinstance(settled, Reply):
                return settled
        notes = [_keep_the_work(ctx, c) for c in changes][0]
        if len(slots["gpus"]) > 2 or n1 == n2:
            notes.append(_("Compared: the first two counts named."))
        r1, r2 = (_rerun(ctx, c) for c in changes)
        notes += [line for r, n in ((r1, n1), (r2, n2)) for line in _on_all_of_them(r, n)]
        return Reply(ctx.question, "compare", lines=[_("The advice with {a} GPUs and with {b} GPUs, no more, side by side:", a=n1, b=n2),
                                                     *notes],
                     columns=(_("{n} GPUs", n=n1), _("{n} GPUs", n=n2)), figures=_outcome_rows(r1, r2, _month_claimed(ctx)),
                     sources=[PLAN_SOURCE, "seed:K6"])
    if len(slots.get("train_method", [])) >= 2:
        return _compare_methods(ctx, slots["train_method"][:2])
    g1, g2 = slots["gpu"][:2]
    runs, said = [], []
    for g in (g1, g2):
        # each side is that GPU type alone (with its spot offer, if listed): the search would otherwise pick the same best
        change: dict[str, Any] = {"cluster.gpu": g}
        settled = _settle(ctx, change, alone=True)
        if isinstance(settled, Reply):
            return settled
        if ctx.draft.get("cluster", {}).get("candidates") and "cluster.candidates" not in change:
            change["cluster.candidates"] = [c for c in ctx.draft["cluster"]["candidates"] if isinstance(c, dict) and _same_gpu(c, resolve_gpu(g) or g)] or None
        kept = _keep_the_work(ctx, change)
        said += [line for line in (*settled[1], *kept) if line not in said]
        runs.append(_rerun(ctx, change))
    r1, r2 = runs
    return Reply(ctx.question, "compare", lines=[_("The same job on {a} and on {b}, side by side:", a=g1, b=g2), *said],
                 columns=(g1, g2), figures=_outcome_rows(r1, r2, _month_claimed(ctx)), sources=[PLAN_SOURCE, "seed:K12"])


def _compare_methods(ctx: Context, words: list[str]) -> Reply:
    """'compare LoRA and QLoRA', '全参数微调还是 LoRA': the advice for each method, on the same data and batch (user try
    2026-12-05: not understood)."""
    means = ctx.data.slots["train_method"].means
    m1, m2 = (str(means.get(w, w)) for w in words)
    names = method_names()
    if "pretrain" in (m1, m2) and m1 != m2:
        return _from_scratch(ctx)  # 'should we fine-tune or pre-train?': not two ways to do one job, so not side by side
    runs, said = [], []
    for m in (m1, m2):
        change: dict[str, Any] = {"training.method": m}
        settled = _settle(ctx, change)
        if isinstance(settled, Reply):
            return settled
        said += [line for line in (*settled[1], *_keep_the_work(ctx, change)) if line not in said]
        runs.append(_rerun(ctx, change))
    r1, r2 = runs
    n1, n2 = names.get(m1, m1), names.get(m2, m2)
    lines = [_("The same job with {a} and with {b}, side by side:", a=n1, b=n2), *said]
    lighter = [m for m in (m2, m1) if m in PEFT_METHODS]
    if lighter:
        lines.append(peft_caveat(lighter[0]))  # what the lighter method trades (QLoRA's caveat names LoRA's too)
    return Reply(ctx.question, "compare", lines=lines, columns=(n1, n2), figures=_outcome_rows(r1, r2, _month_claimed(ctx)),
                 sources=[PLAN_SOURCE, "seed:K4"])


def _option_cell(a: Advice, o: Any) -> str:
    """An option in a sentence: 'fsdp, 128 GPUs', with its GPU type where the plan compared several."""
    cell = _plan_cell(o.strategy, o.gpus)
    if a.plan.gpu_types and o.gpu:
        name = gpu_catalog()[o.gpu].name if o.gpu in gpu_catalog() else o.gpu
        cell = f"{cell} × {name}" + (_(" (spot)") if o.spot else "")
    return cell


def _plan_rows(a: Advice, monthly: bool) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The plan's time, cost and (``monthly``) month, beside today's where there is a today (a new project has none)."""
    p, cur = a.plan, str(a.facts["currency"])
    c = p.chosen
    if p.greenfield:
        return (_("recommended"),), [
            (_("plan"), _plan_cell(c.strategy, c.gpus)), (_("time per run"), hours_text(c.hours)),
            (_("cost per run"), money(c.cost, cur)), *([(_("cost per month"), money(c.monthly, cur))] if monthly else [])]
    return (_("today"), _("recommended")), _today_rows(a, monthly=monthly)


def _limits(a: Advice) -> list[str]:
    """Whether the plan meets the deadline and the budgets the answers set, one sentence each."""
    return _deadline_status(a) + _budget_status(a)


def _deadline_status(a: Advice) -> list[str]:
    c, days = a.plan.chosen, a.answers.training.deadline_days
    if days is None:
        return []
    if c.meets_deadline:
        return [_("That meets the {days}-day deadline.", days=format_number(days))]
    if point_inside(c.hours, days):  # the word the summary uses: at risk, not missed (explain.deadline_word)
        return [_("That is inside the {days}-day deadline, but at risk: the upper end of the estimate's range is past it.",
                  days=format_number(days))]
    return [_("That misses the {days}-day deadline.", days=format_number(days))]


def _budget_status(a: Advice) -> list[str]:
    c, cur = a.plan.chosen, str(a.facts["currency"])
    out = []
    b = a.answers.budget
    if b.limit is not None:
        out.append(_("It is within the budget of {limit} a run.", limit=money(b.limit, cur)) if c.within_budget
                   else _("It is at risk of going over the budget of {limit} a run: slower runs of this kind would.", limit=money(b.limit, cur))
                   if c.cost <= b.limit else _("It is over the budget of {limit} a run.", limit=money(b.limit, cur)))
    if b.monthly_limit is not None:
        out.append(_("It is within the monthly limit of {limit}.", limit=money(b.monthly_limit, cur)) if c.within_monthly
                   else _("It is at risk of going over the monthly limit of {limit}: slower runs of this kind would.",
                          limit=money(b.monthly_limit, cur)) if c.monthly <= b.monthly_limit
                   else _("It is over the monthly limit of {limit}.", limit=money(b.monthly_limit, cur)))
    return out


def _changed(a: Advice) -> bool:
    c, t = a.plan.chosen, a.plan.today
    return not a.plan.greenfield and (c.strategy, c.gpus, c.gpu, c.spot) != (t.strategy, t.gpus, t.gpu, t.spot)


def _how_long(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    if slots:
        return _what_if(ctx, slots)  # 'how long on 128 GPUs?' is that what-if
    a = ctx.advice
    c, t = a.plan.chosen, a.plan.today
    lines = [_("One run takes {time} with {plan}.", time=hours_text(c.hours), plan=_plan_text(a))]
    if _changed(a):
        lines.append(today_cannot_run(a) or _("Today a run takes {time}; the plan's run is {change}.", time=hours_text(t.hours),
                                                change=pct_change(c.hours, t.hours)))
    lines += _deadline_status(a)
    lo, hi = a.estimate_dict(a.strategy)["range"]["wall_clock_hours"]
    if hours_text(lo) != hours_text(hi):
        low, high = same_unit(lo, hi)  # '44.0 h to 3.2 days' beside the summary's '1.8 - 3.2 days' (user try 9)
        lines.append(_("The estimate's range is {lo} to {hi}.", lo=low, hi=high))
    cols, rows = _plan_rows(a, _month_claimed(ctx))
    return Reply(ctx.question, "how_long", lines=lines, columns=cols, figures=rows, sources=[PLAN_SOURCE])


def _cost(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    if slots:
        return _what_if(ctx, slots)
    a, cur = ctx.advice, ctx.currency
    c, p = a.plan.chosen, a.plan
    e = a.estimate_dict(a.strategy)
    # with the range's upper end, which the memo asks to approve and budgets are judged on ('509 CNY' where the memo
    # asked for 'up to 643'; user try 13), and '1 run', not '1 runs'
    hi = max(c.cost, e["range"]["cost"][1])
    runs = round(p.runs_per_month, 1)
    if money(hi, cur) == money(c.cost, cur):  # a measured run: no spread to give
        lines = [_("One run costs {cost} ({hours} GPU-hours) with {plan}.", cost=money(c.cost, cur), hours=gpu_hours_text(e["gpu_hours"]),
                   plan=_plan_text(a)),
                 _("At {runs} runs a month that is {monthly} a month.", runs=format_number(runs), monthly=money(c.monthly, cur))
                 if runs != 1 else _("At 1 run a month that is {monthly} a month.", monthly=money(c.monthly, cur))]
    else:
        # the GPU-hours beside the point cost they make up, as the memo gives them (gpu_hours_text): after the upper end
        # they read as its own
        lines = [_("One run costs {cost} ({hours} GPU-hours), up to {high} at the range's upper end, with {plan}.", cost=money(c.cost, cur),
                   high=money(hi, cur), hours=gpu_hours_text(e["gpu_hours"]), plan=_plan_text(a)),
                 _("At {runs} runs a month that is {monthly} a month, up to {high}.", runs=format_number(runs), monthly=money(c.monthly, cur),
                   high=money(hi * p.runs_per_month, cur))
                 if runs != 1 else _("At 1 run a month that is {monthly} a month, up to {high}.", monthly=money(c.monthly, cur),
                                     high=money(hi * p.runs_per_month, cur))]
    if note := runs_note(p.runs_per_month, a.runs_given, p.greenfield):
        lines.append(note)
    if _changed(a):
        lines.append(today_cannot_run(a) or _("Today: {cost} a run and {monthly} a month.", cost=money(p.today.cost, cur),
                                                monthly=money(p.today.monthly, cur)))
    lines += _budget_status(a)
    cols, rows = _plan_rows(a, True)  # asked the cost: the month too, with what it assumes (runs_note)
    return Reply(ctx.question, "cost", lines=lines, columns=cols, figures=rows, sources=[PLAN_SOURCE, "seed:K14"])


def _day_cost(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """What a day of the planned GPUs costs: each day a run overruns, or a deadline moves, costs that (seed:K16)."""
    if slots:
        return _what_if(ctx, slots)
    a, cur = ctx.advice, ctx.currency
    c, e = a.plan.chosen, a.estimate_dict(a.strategy)
    price = c.cost / (c.gpus * c.hours) if c.hours > 0 else a.answers.budget.price_per_gpu_hour  # its GPU's, spot's too
    lines = [_("A day of the planned {gpus} GPUs costs {day} ({gpus} GPUs × 24 h × {price} a GPU-hour): each day a run takes "
               "longer costs that much more.", gpus=count(c.gpus), day=money(24.0 * c.gpus * price, cur), price=money(price, cur)),
             _("One run takes {time} and costs {cost} with {plan}; making it 20% faster would save {saving} a run.",
               time=hours_text(c.hours), cost=money(c.cost, cur), plan=_plan_text(a), saving=money(e["savings_if_20pct_faster"], cur))]
    lines += _deadline_status(a)
    cols, rows = _plan_rows(a, _month_claimed(ctx))
    return Reply(ctx.question, "day_cost", lines=lines, columns=cols, figures=rows, sources=[PLAN_SOURCE, "seed:K16"])


_CAPACITY_ASKED = re.compile(r"(?<![\w.])([0-9]+(?:\.[0-9]+)?)\s*(?:gb|gib|g)(?![a-z])")


def _gb(v: float) -> str:
    """GB to a tenth: one format for every memory figure of the memory replies."""
    return f"{v:,.1f}"


def _memory(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """The plan's memory per GPU against what its GPU can use, what holds it, and how the plan keeps it there; a capacity
    named in the question ('will it fit in 24GB?') is answered for the same layout (user try 2026-12-06), and a GPU type
    other than the plan's for that type (_memory_on)."""
    a = ctx.advice
    named = [g for v in slots.get("gpu", []) if (g := resolve_gpu(v)) is not None and g != a.answers.cluster.gpu]
    if named:
        return _memory_on(ctx, named[0])
    # the plan's GPU as the report names it (Advice.to_dict's 'hardware'), without building the whole report
    e, spec = a.estimate_dict(a.strategy), a.answers.cluster.spec
    need, has = float(e["memory_per_gpu_gb"]), spec.capacity_gb
    if e["fits"]:
        lines = [_("Each GPU holds {need} GB of the {has} GB usable on a {gpu} with {plan}: it fits, with {spare} GB to spare.",
                   need=_gb(need), has=_gb(has), gpu=spec.name, plan=_plan_text(a), spare=_gb(has - need))]
    else:
        lines = [_("Each GPU would need {need} GB of the {has} GB usable on a {gpu} with {plan}: it does not fit.",
                   need=_gb(need), has=_gb(has), gpu=spec.name, plan=_plan_text(a))]
    m = a.method_dict() or {}
    runtime = need - float(e["model_states_gb_per_gpu"]) - float(e["activations_gb_per_gpu"])
    if m.get("frozen_base_gb_per_gpu") is not None:
        # the layers gathered in flight too, as the memo's breakdown has them: without them the parts fell short of the
        # total by their 0.9 GB (user try 2026-12-07)
        lines.append(_("Of which: frozen base {base} GB, adapters with their optimizer states {adapters} GB, layers in flight {flight} GB, "
                       "activations {act} GB, CUDA runtime {runtime} GB.", base=_gb(m["frozen_base_gb_per_gpu"]),
                       adapters=f"{m.get('adapter_states_gb_per_gpu') or 0:,.2f}", flight=_gb(m.get("layers_in_flight_gb_per_gpu") or 0.0),
                       act=_gb(e["activations_gb_per_gpu"]), runtime=_gb(runtime)))
    else:
        lines.append(_("Of which: weights, gradients and optimizer states {states} GB, activations {act} GB, CUDA runtime {runtime} GB.",
                       states=_gb(e["model_states_gb_per_gpu"]), act=_gb(e["activations_gb_per_gpu"]), runtime=_gb(runtime)))
    lines.append(_("It is kept there with micro-batch {micro} and {recompute}; advisor leaves {free} of a GPU's memory free where a "
                   "layout can (fragmentation, communication buffers).", micro=e["micro_batch_size"],
                   recompute=recompute_word(e["activation_recompute"]), free=f"{1.0 - MEMORY_HEADROOM:.0%}"))
    asked = _CAPACITY_ASKED.search(normalise(ctx.question).lower())
    if asked:
        size = float(asked.group(1))
        if abs(size - spec.memory_gb) > 0.5 and abs(size - has) > 0.5:
            verdict = _("fits") if need <= size else _("does not fit")
            lines.append(_("On a {size} GB GPU the same layout {verdict}: it needs {need} GB.", size=f"{size:g}", verdict=verdict, need=_gb(need)))
    if not a.plan.today.runnable and (why := today_cannot_run(a)):
        lines.append(why)
    return Reply(ctx.question, "memory", lines=lines, sources=[PLAN_SOURCE])


def _memory_on(ctx: Context, gid: str) -> Reply:
    """Memory on a GPU type the question names that the plan does not run on ('我们自己的A10显存够吗' was answered for the
    plan's rented H100s, user try 15). The cluster's own type: what each framework needs on today's count of them, as
    the search priced it (Advice.today), and which of them fit. Any other type: the plan's layout against its memory,
    and the what-if that prices it."""
    a = ctx.advice
    spec = gpu_catalog()[gid]
    today = a.today_answers.cluster
    if gid == today.gpu:
        ev = a.today
        need = {s: float(e.memory[0]) / GB for s, e in ev.estimates.items()}
        fit = sorted((s for s, e in ev.estimates.items() if bool(e.usable[0])), key=lambda s: need[s])
        least = min(need, key=lambda s: need[s])
        # the verdict is the least one's own (its memory), what runs there is the list after it
        lines = [_("On the cluster's own {gpus} × {gpu} ({has} GB usable each), the least any framework needs is {least} GB per GPU "
                   "({strategy}): {verdict}.", gpus=count(ev.gpus), gpu=spec.name, has=_gb(spec.capacity_gb), least=_gb(need[least]),
                   strategy=least, verdict=_("it fits") if bool(ev.estimates[least].fits[0]) else _("it does not fit"))]
        if fit:
            lines.append(_("What fits there: {options}.", options=_(", ").join(f"{s} ({_gb(need[s])} GB)" for s in fit[:3])))
        lines.append(_("The plan runs on {gpu} instead: {plan}.", gpu=a.answers.cluster.spec.name, plan=_plan_text(a)))
        return Reply(ctx.question, "memory", lines=lines, sources=[PLAN_SOURCE])
    held = float(a.estimate_dict(a.strategy)["memory_per_gpu_gb"])
    lines = [_("On a {gpu} ({has} GB usable) the plan's layout ({plan}) needs {need} GB per GPU: {verdict}.", gpu=spec.name,
               has=_gb(spec.capacity_gb), plan=_plan_text(a), need=_gb(held),
               verdict=_("it fits") if held <= spec.capacity_gb else _("it does not fit"))]
    lines.append(_("Its own best layout, time and cost: ask 'what if we use {gpu}?'.", gpu=spec.name))
    return Reply(ctx.question, "memory", lines=lines, sources=[PLAN_SOURCE])


def _checkpoint(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """A checkpoint of the plan: its size with the optimizer state and without, the storage to keep, and the save time
    and interval where the storage's write bandwidth is given (estimate.posttrain.checkpoint_plan, which the memo's
    operations section uses); the time restarts and saves take is already in the estimate (user try 12: 'how big is a
    checkpoint?' was refused)."""
    from advisor.estimate.posttrain import checkpoint_plan

    if slots:
        return _what_if(ctx, slots)
    a = ctx.advice
    c, e = a.plan.chosen, a.estimate_dict(a.strategy)
    w = a.evaluation.context["workload"]
    ck = checkpoint_plan(a.answers, w, c.hours, c.gpus)
    if a.method in ("lora", "qlora"):  # adapters are megabytes: data_size says them so, not '0.0 GB'
        lines = [_("A checkpoint of this plan saves the adapters and their optimizer state: {full} ({weights} of adapter weights "
                   "in 16 bits plus Adam's fp32 master weights and two moments); the frozen base is not saved.",
                   full=data_size(ck.full_gb), weights=data_size(ck.weights_gb))]
    else:
        lines = [_("A checkpoint to resume from holds {full}: {weights} of weights in 16 bits plus Adam's fp32 master weights and "
                   "two moments (12 bytes a parameter, ZeRO's K); the final weights alone are {weights}.",
                   full=data_size(ck.full_gb), weights=data_size(ck.weights_gb))]
    keep = a.answers.operations.keep_checkpoints if a.answers.operations else 1
    lines.append(_("Keeping {n} to resume from and the final weights takes {storage} of storage.", n=count(keep), storage=data_size(ck.storage_gb)))
    if ck.save_seconds is not None and ck.every_hours is not None:
        gbps = a.answers.operations.storage_gbps if a.answers.operations else None
        lines.append(_("At {gbps} GB/s a save takes {seconds}; saving every {every} ({how}) means about {saves} saves a run.",
                       gbps=format_number(gbps or 0), seconds=seconds_text(ck.save_seconds), every=hours_text(ck.every_hours),
                       how=_("Young's optimum for advisor's interruption rate") if ck.young else _("as the answers set"),
                       saves=count(ck.saves or 0)))
    else:
        lines.append(_("How long a save takes depends on the storage's write bandwidth: give operations.storage_gbps (GB/s) to have the "
                       "save time and how often to save priced."))
    # the restarts' share beside the whole time off the estimate adds: '0.0% of the run' here and the memo's '+11.1% for
    # restarts, checkpoints and evaluation' read as two figures for one thing (user try 14)
    lines.append(_("The estimate already counts restarts and the work lost since the last save as time off training: {lost} of "
                   "the run (interruptions expected in a run: {n}), within the {off} it adds for all time off training "
                   "(restarts, checkpoints, evaluation).", lost=f"{e['interruption_overhead']:.1%}",
                   n=_interruptions_said(e["expected_interruptions"]), off=f"{e['time_off_training']:.1%}"))
    return Reply(ctx.question, "checkpoint", lines=lines, sources=[PLAN_SOURCE, "arXiv:1910.02054"])


def _steps(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """The run's optimizer steps: how many, the tokens each takes in, and how long one takes (the memo's figures)."""
    if slots:
        return _what_if(ctx, slots)
    a = ctx.advice
    e = a.estimate_dict(a.strategy)
    seq = a.answers.model.seq_len
    lines = [_("The run takes {steps} optimizer steps of {tokens} tokens each ({seqs} sequences of {seq}).",
               steps=count(round(e["steps"])), tokens=count(round(e["global_batch_tokens"])),
               seqs=count(round(e["global_batch_tokens"] / seq)), seq=count(seq)),
             _("One step takes {seconds} s with {plan}: micro-batch {micro} and {acc} accumulation steps per GPU.",
               seconds=f"{e['step_seconds']:,.2f}", plan=_plan_text(a), micro=e["micro_batch_size"], acc=e["gradient_accumulation_steps"])]
    return Reply(ctx.question, "steps", lines=lines, sources=[PLAN_SOURCE])


def _runs_a_month(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """Where the runs a month come from: the cost answer, which says it (a value in the question is the figure asked
    about, not a what-if on it)."""
    return _cost(ctx, {})


def _currency_mark(currency: str) -> str:
    """How an amount in this currency is written in a question: '¥', '$', or the code."""
    return {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£"}.get(currency.upper(), currency + " ")


def _first_sentence(text: str) -> str:
    """Up to the first full stop: a ';' joins two halves of one sentence, and cutting there left 'inside the deadline;'."""
    m = re.match(r"(.+?[.。])(?:\s|$)", text)
    return m.group(1) if m else text


def _accuracy(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'how accurate is this estimate?', '估算准不准': how far published runs of this kind fell from the model, this plan's
    range, what is judged on it, and how a measured smoke test narrows it (user try 2026-12-07: not read)."""
    from advisor.outputs.render import range_sentence

    a, cur = ctx.advice, ctx.currency
    e = a.estimate_dict(a.strategy)
    lo_c, hi_c = e["range"]["cost"]
    spread = range_sentence(a)
    anchored = not spread
    lines = [spread or _("This estimate is anchored to the run the answers give (a known duration or a measured step): "
                                     "advisor scales its efficiency to match it, so its figures carry that run's accuracy rather "
                                     "than the spread of published runs.")]
    if money(lo_c, cur) != money(hi_c, cur):
        lines.append(_("On that range a run of {plan} costs {lo_cost} to {hi_cost}.", plan=_plan_text(a), lo_cost=money(lo_c, cur),
                       hi_cost=money(hi_c, cur)))
    lines.append(_("The figures are a model: memory from each framework's published formula, time from the FLOPs at a published "
                   "efficiency for the GPU, and each collective over the links; the memo's Assumptions section lists every one "
                   "with its source."))
    if not anchored:
        lines.append(_("To narrow it, run the plan for a few hundred steps and give the measured tokens per second as "
                       "training.measured: advisor refits its efficiency to it, and the memo shows the estimate before and after."))
    return Reply(ctx.question, "accuracy", lines=lines, sources=[PLAN_SOURCE, "bench/heldout.py"])


def _checklist(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'what should we check first?', '先做什么检查': the plan's pre-launch checklist and the questions for the engineers,
    the first few of each (user try 2026-12-07: not read)."""
    a = ctx.advice
    checks, questions = [c["text"] for c in a.checklist], [q["text"] for q in a.questions]
    lines = [_("Before launching {plan}, the checklist ({n} items; the memo and the Checklist tab have them all):", plan=_plan_text(a),
               n=len(checks))]
    lines += [f"• {text}" for text in checks[:CHECKS_SHOWN]]
    if questions:
        lines.append(_("And to ask the engineers ({n} questions):", n=len(questions)))
        lines += [f"• {text}" for text in questions[:QUESTIONS_SHOWN]]
    return Reply(ctx.question, "checklist", lines=lines, sources=sorted({c["source"] for c in a.checklist[:CHECKS_SHOWN] if c.get("source")}))


CHECKS_SHOWN, QUESTIONS_SHOWN = 5, 3
"""How many checklist items and engineers' questions the 'what should we check?' reply quotes; the rest are a tab away."""


def _data_rate(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'how fast must the data loader be?', '数据加载器要多快': the tokens per second the plan consumes, in all and per GPU,
    against the loader's measured rate where the answers give one (user try 14: not read)."""
    a = ctx.advice
    c = a.plan.chosen
    need = float(a.facts.get("chosen_tokens_per_sec") or 0.0)
    lines = [_("The plan consumes about {tps} tokens/s ({per_gpu} per GPU on {gpus} GPUs): the data loader must deliver that, "
               "measured on its own, or the GPUs wait on it.", tps=count(need), per_gpu=count(need / max(c.gpus, 1)), gpus=c.gpus)]
    have = a.today_answers.cluster.data_pipeline_tokens_per_sec
    if have is not None:
        lines.append(_("The answers give the loader {have} tokens/s: {verdict}.", have=count(have),
                       verdict=_("enough") if have >= need else _("short of it, so the loader sets the pace")))
    else:
        lines.append(_("Give cluster.data_pipeline_tokens_per_sec once measured: the estimate then takes the slower of the two."))
    return Reply(ctx.question, "data_rate", lines=lines, sources=[PLAN_SOURCE, "seed:K19"])


def _network(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    """'is our network fast enough?', 'do we need InfiniBand?', '网络够快吗': the network the plan is priced over, the share
    of each step it leaves exposed, and the plan on twice and half that network (user try 2026-12-07: not read, or read
    as 'faster')."""
    a, cur = ctx.advice, ctx.currency
    gbps = float(a.today_answers.cluster.network_gbps)
    e = a.estimate_dict(a.strategy)
    given = a.today_answers.cluster.inter_node_gbps is not None
    lines = [_("The plan is priced over {gbps} Gbit/s per node{how}; {share} of each step is communication it cannot hide "
               "behind compute.", gbps=format_number(gbps), how="" if given else _(" (not given: the {gpu}'s usual)",
                                                                                    gpu=a.today_answers.cluster.spec.name),
               share=f"{e['communication_share']:.0%}")]
    rows: list[tuple[str, ...]] = [(_("network per node"), *(_("{n} Gbit/s", n=format_number(gbps * f)) for f in (0.5, 1.0, 2.0)))]
    half, today, twice = (a.plan.chosen if f == 1.0 else _rerun(ctx, {"cluster.inter_node_gbps": gbps * f}).plan.chosen
                          for f in (0.5, 1.0, 2.0))
    chosen = (half, today, twice)
    counts = [count(c.gpus) for c in chosen]
    frameworks = [c.strategy for c in chosen]
    times = [hours_text(c.hours) for c in chosen]
    # GPUs, not the plan cell: three 'deepspeed-zeropp, 16 GPUs' columns wrapped at 80 (user try 2026-12-07)
    rows += [(_("GPUs"), *counts), (_("time per run"), *times), (_("cost per run"), *(money(c.cost, cur) for c in chosen))]
    framework = (_("The framework changes with the network: {half} on half, {today} today, {twice} on twice.", half=frameworks[0],
                   today=frameworks[1], twice=frameworks[2]) if len(set(frameworks)) > 1 else
                 _("Each runs {framework}.", framework=frameworks[1]))
    if len(set(times)) == 1 and len(set(counts)) == 1 and len(set(frameworks)) == 1:
        lines.append(_("The network is not what limits this plan: on half or twice it the same plan takes the same time."))
    else:
        # the answer first, in what the network buys and costs (user try 12: 'is our network fast enough?' got a table and
        # no answer); whether 5% is worth an upgrade is the team's call, not a threshold of advisor's
        lines.insert(0, _("Twice the network would save {saved} of a run; half of it would cost {more} more.",
                          saved=f"{1.0 - twice.hours / today.hours:.0%}", more=f"{half.hours / today.hours - 1.0:.0%}"))
        lines.append(_("Half and twice the network, the plan chosen the same way: what a slower network costs and what a faster "
                       "one would buy (set cluster.inter_node_gbps to your own)."))
    lines.append(framework)
    return Reply(ctx.question, "network", lines=lines, columns=(_("half"), _("today"), _("twice")), figures=rows,
                 sources=[PLAN_SOURCE, "seed:K14"])


def _risks(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    a = ctx.advice
    items = [w["text"] for w in sorted(a.warnings, key=lambda w: not w["blocking"])] + [t["text"] for t in a.tradeoffs()]
    lines = [_("What could go wrong with {plan}:", plan=_plan_text(a))]
    lines += [f"• {text}" for text in dict.fromkeys(items)][:6]
    e = a.estimate_dict(a.strategy)
    if not items:
        # 'Nothing this plan's answers warn about' stood alone beside a 24.5-day upper end on a 30-day deadline and the
        # engineers' open questions (checkpoint resume, the data loader's rate; user try 14): what is still open. It then
        # opened the reply and hardware failures went unsaid (user try 15): the interruptions the run can expect come first.
        if e["expected_interruptions"] >= 0.1:
            lines.append("• " + interruptions_text(e["expected_interruptions"], e["interruption_overhead"]))
        days = a.today_answers.training.deadline_days
        if days is not None:
            lines.append(_("• The deadline: runs of this kind take up to {high} (the range's upper end) against the {days}-day deadline.",
                           high=hours_text(float(a.facts["chosen_hours_high"])), days=format_number(days)))
        # the running-the-job questions first (the operations pack: checkpoints, data loading, shared clusters), then the rest
        pack = {r.id: Path(r.file).stem for r in ctx.rules.rules}
        open_questions = sorted(a.questions, key=lambda q: pack.get(q.get("rule", ""), "") != "operations")
        lines += [_("• Still open, for the engineers: {question}", question=q["text"]) for q in open_questions[:3]]
    lo, hi = e["range"]["cost"]
    if money(lo, ctx.currency) != money(hi, ctx.currency):
        lines.append(_("• The estimate itself: a run could cost {lo} to {hi}.", lo=money(lo, ctx.currency), hi=money(hi, ctx.currency)))
    return Reply(ctx.question, "risks", lines=lines, sources=[PLAN_SOURCE])


def _cheaper(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    if slots:
        return _what_if(ctx, slots)
    a, cur = ctx.advice, ctx.currency
    p, c = a.plan, a.plan.chosen
    lines = [_("The plan, {plan}, costs {cost} a run.", plan=_plan_text(a), cost=money(c.cost, cur))]
    offers = [o for o in (p.cheaper_slower, p.cheapest_meeting_deadline) if o is not None and o.cost < c.cost * 0.995]
    for o in {(hours_text(o.hours), money(o.cost, cur)): o for o in reversed(offers)}.values():
        lines.append(_("Cheaper: {option} costs {cost} ({dc}) and takes {time} ({dt}).", option=_option_cell(a, o), cost=money(o.cost, cur),
                       dc=pct_change(o.cost, c.cost), time=hours_text(o.hours), dt=pct_change(o.hours, c.hours))
                     + ("" if o.meets_deadline is not False else _(" It misses the deadline.")))
    if not offers:
        lines.append(_("Nothing the search priced is cheaper while meeting what the answers ask."))
    lighter = METHOD_ALTERNATIVES.get(a.method, ()) if not a.method_changed else ()
    if lighter:  # 'can we do it cheaper?' where LoRA would be: say so, and why it is not the plan (user try 2026-12-06)
        change: dict[str, Any] = {"training.method": lighter[0]}
        _keep_the_work(ctx, change)
        new = _rerun(ctx, change)
        o = new.plan.chosen
        if _lighter_not_planned(a, new):
            lines.append(_("Cheaper with another method: {method} with {plan} costs {cost} ({dc}) and takes {time} ({dt}).",
                           method=method_names()[new.method], plan=_plan_text(new), cost=money(o.cost, cur), dc=pct_change(o.cost, c.cost),
                           time=hours_text(o.hours), dt=pct_change(o.hours, c.hours)) + ("" if o.meets_deadline is not False else _(" It misses the deadline.")))
            lines.append(_method_policy(new.method, a.method))
    hints = _levers(ctx, cheaper=True)
    return Reply(ctx.question, "cheaper", lines=lines, suggestions=hints, sources=[PLAN_SOURCE, "seed:K14"])


def _faster(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    if slots:
        return _what_if(ctx, slots)
    a, cur = ctx.advice, ctx.currency
    p, c = a.plan, a.plan.chosen
    lines = [_("The plan, {plan}, takes {time} a run.", plan=_plan_text(a), time=hours_text(c.hours))]
    offers = [o for o in (p.faster_same_cost, p.fastest) if o is not None and o.hours < c.hours * 0.995]
    for o in {(hours_text(o.hours), money(o.cost, cur)): o for o in reversed(offers)}.values():  # one line per outcome
        lines.append(_("Faster: {option} takes {time} ({dt}) for {cost} a run ({dc}).", option=_option_cell(a, o), time=hours_text(o.hours),
                       dt=pct_change(o.hours, c.hours), cost=money(o.cost, cur), dc=pct_change(o.cost, c.cost)))
    quickest = min([c, *offers], key=lambda o: o.hours)
    others = [t for t in p.gpu_types if t.fastest is not None and t.gpu != c.gpu and t.fastest.hours < quickest.hours * 0.995]
    if others:  # another GPU type compared runs it sooner
        t = min(others, key=lambda t: t.fastest.hours)
        f = t.fastest
        lines.append(_("Faster on another GPU type: {strategy} on {gpus} × {gpu} takes {time} ({dt}) for {cost} a run ({dc}).",
                       strategy=f.strategy, gpus=count(f.gpus), gpu=type_name(t.gpu, t.spot), time=hours_text(f.hours),
                       dt=pct_change(f.hours, c.hours), cost=money(f.cost, cur), dc=pct_change(f.cost, c.cost)))
    if not offers and not others:
        lines.append(_("Nothing the search priced is faster."))
    most = max(o.gpus for o in p.options) if p.options else c.gpus
    lines.append(_("The search went up to {gpus} GPUs; more GPUs can be asked as a what-if.", gpus=count(most)))
    return Reply(ctx.question, "faster", lines=lines, suggestions=_levers(ctx, cheaper=False), sources=[PLAN_SOURCE, "seed:K6"])


def _levers(ctx: Context, cheaper: bool) -> list[str]:
    """What-ifs worth asking next, drawn from this plan: more GPUs, FP8 where the GPU has it, LoRA for a fine-tune, spot."""
    a = ctx.advice
    out = []
    if not cheaper:
        # beyond the search: every count up to its top is already in the answer above ('208?' after 256 was shown)
        out.append(_("what if GPUs = {n}?", n=2 * max((o.gpus for o in a.plan.options), default=a.plan.chosen.gpus)))
        if a.answers.cluster.spec.has_fp8 and a.answers.training.precision != "fp8":
            out.append(_("what if we use fp8?"))
    if a.method in ("finetune",):
        out.append(_("what if we use lora?"))
    if cheaper and not any(o.spot for o in a.plan.options):
        out.append(_("what if we use spot instances?"))
    return out[:3]


def _worth_it(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    if slots:  # 'is fp8 worth it?': what that change does to this plan, not whether the plan's switch pays
        return _what_if(ctx, slots)
    a, cur = ctx.advice, ctx.currency
    p, c, t = a.plan, a.plan.chosen, a.plan.today
    monthly = _month_claimed(ctx)  # a month of assumed runs is not the team's saving
    if p.greenfield:
        lines = [_("There is no run today to compare with: the plan costs {cost} a run and {monthly} a month, {time} a run.",
                   cost=money(c.cost, cur), monthly=money(c.monthly, cur), time=hours_text(c.hours)) if monthly else
                 _("There is no run today to compare with: the plan costs {cost} and takes {time} a run.", cost=money(c.cost, cur),
                   time=hours_text(c.hours)), *_limits(a)]
    elif not _changed(a):
        lines = [_("The plan is to keep today's setup: there is no switch to weigh."), *_limits(a)]
    elif (cannot := today_cannot_run(a)) is not None:  # no saving against a setup that cannot run (user try: '43.8 h')
        lines = [cannot, _("So there is no saving to weigh: the plan is what it takes to run this job at all, {cost} and {time} a run, "
                           "{monthly} a month.", cost=money(c.cost, cur), time=hours_text(c.hours), monthly=money(c.monthly, cur)) if monthly
                 else _("So there is no saving to weigh: the plan is what it takes to run this job at all, {cost} and {time} a run.",
                        cost=money(c.cost, cur), time=hours_text(c.hours)),
                 *_limits(a)]
    else:
        save, month = t.cost - c.cost, t.monthly - c.monthly
        if save >= 0:
            lines = [_("Switching saves {save} a run ({dc}) and {month} a month.", save=money(save, cur), dc=pct_change(c.cost, t.cost),
                       month=money(max(month, 0.0), cur)) if monthly else
                     _("Switching saves {save} a run ({dc}).", save=money(save, cur), dc=pct_change(c.cost, t.cost))]
        else:
            lines = [_("Switching costs {extra} more a run ({dc}).", extra=money(-save, cur), dc=pct_change(c.cost, t.cost))]
        lines.append(_("A run takes {time} instead of {today} ({dt}).", time=hours_text(c.hours), today=hours_text(t.hours), dt=pct_change(c.hours, t.hours)))
        lines += _limits(a)
        if c.strategy != t.strategy:
            lines.append(_("Weigh that against the work of moving from {old} to {new}: setting it up and testing it once.",
                           old=FRAMEWORKS[t.strategy], new=FRAMEWORKS[c.strategy]))
    cols, rows = _plan_rows(a, monthly)
    return Reply(ctx.question, "worth_it", lines=lines, columns=cols, figures=rows, sources=[PLAN_SOURCE, "seed:K14"])


def _brief(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    from advisor.decision.explain import headline

    a, cur = ctx.advice, ctx.currency
    c, t = a.plan.chosen, a.plan.today
    # the monthly bill only where the answers give the runs a month: an assumed cadence, said as fact, is the figure a
    # manager would quote back (user try 2026-12-06)
    lines = [_("For your manager:"), headline(a),
             _("A run takes {time} and costs {cost}; about {monthly} a month.", time=hours_text(c.hours), cost=money(c.cost, cur),
               monthly=money(c.monthly, cur)) if a.runs_given else
             _("A run takes {time} and costs {cost}; the monthly bill is that times the runs a month, which the answers do not give.",
               time=hours_text(c.hours), cost=money(c.cost, cur))]
    if _changed(a):
        lines.append(_("Today's setup cannot run this job as asked, so there is no today to compare with.")
                     if today_cannot_run(a) is not None
                     else _("Against today: time {dt}, cost {dc}.", dt=pct_change(c.hours, t.hours), dc=pct_change(c.cost, t.cost)))
    lines += _limits(a)
    # The deadline's own verdict is in _limits above: its rule's warning would say it twice.
    risk = next((w["text"] for w in sorted(a.warnings, key=lambda w: not w["blocking"]) if w.get("rule") != "deadline-at-risk"), None)
    if risk:
        lines.append(_("Main risk: {risk}", risk=_first_sentence(risk)))
    return Reply(ctx.question, "brief", lines=lines, sources=[PLAN_SOURCE])


def _spot(ctx: Context, slots: dict[str, list[str]]) -> Reply:
    a, cur = ctx.advice, ctx.currency
    term = ctx.data.terms["spot"]
    lang = "zh" if zh() else "en"
    if "spot_price" in slots and "spot_rate" in slots:
        raw = slots["spot_price"][0]
        refused = _other_currency(ctx, raw)
        if refused is not None:
            return refused
        cluster = _section(ctx.draft, "cluster")
        today = a.today_answers
        listed = [dict(c) for c in (cluster.get("candidates") or []) if isinstance(c, dict)
                  if (resolve_gpu(str(c.get("gpu", ""))) or c.get("gpu")) != today.cluster.gpu]
        listed.append({"gpu": cluster.get("gpu", today.cluster.gpu), "price_per_gpu_hour": cluster_price(ctx.draft, today.budget.price_per_gpu_hour),
                       # no ceiling given: spot may go as far as the search went on demand
                       "max_gpus": cluster.get("max_gpus", max((o.gpus for o in a.plan.options), default=today.cluster.gpus)),
                       "spot_price_per_gpu_hour": raw,
                       "spot_interruptions_pct_per_month": slots["spot_rate"][0]})
        reply = _what_if(ctx, {}, {"cluster.candidates": listed})
        reply.lines[0] = _("What if spot {gpu} cost {price} a GPU-hour with {rate}% reclaimed a month:", gpu=today.cluster.spec.name,
                           price=raw, rate=slots["spot_rate"][0])
        reply.intent = "spot"
        return reply
    spot = [o for o in a.plan.options if o.spot and o.runnable]
    lines = [term.text[lang]]
    if a.plan.chosen.spot:
        lines.append(_("This plan already runs on spot capacity; the restarts after reclaims are in its time and cost."))
    elif spot:
        best = min(spot, key=lambda o: o.cost)
        lines.append(_("The search priced spot capacity too: the best spot option, {option}, costs {cost} a run and takes {time}; the plan is "
                       "better by what the answers ask.", option=_option_cell(a, best), cost=money(best.cost, ctx.currency), time=hours_text(best.hours)))
    else:
        lines.append(_("This plan has no spot price. To price spot capacity, ask with its price per GPU-hour and the percent of instances the "
                       "provider reclaims a month, e.g. 'what if spot costs {mark}… with …% reclaimed a month?'", mark=_currency_mark(cur)))
    return Reply(ctx.question, "spot", lines=lines, sources=list(term.source))


ANSWERERS = {"compare": _compare, "without": _without_strategy, "instead": _instead, "why_not": _why_not, "why": _why, "explain": _explain, "which_gpu": _which_gpu, "accuracy": _accuracy, "checklist": _checklist, "network": _network, "data_rate": _data_rate, "what_if": _what_if_asked, "spot": _spot,
             "worth_it": _worth_it, "brief": _brief, "risks": _risks, "cheaper": _cheaper, "faster": _faster, "how_long": _how_long,
             "cost": _cost, "day_cost": _day_cost, "runs_a_month": _runs_a_month, "memory": _memory, "checkpoint": _checkpoint,
             "steps": _steps}


# ------------------------------------------------------------------------------ conversation and test cases


def turn(reply: Reply) -> dict[str, str]:
    """One turn as the answers keep it (project.conversation) and the memo shows it: free of escape sequences and
    control characters (base.text.plain), whatever the question held."""
    return {"question": plain(reply.question), "answer": plain(reply.text(), newlines=True)}


def answers_yaml(data: dict[str, Any]) -> str:
    """The answers as YAML (what `advisor ask --save` and the guided Q&A's save write), read back by advisor as the same
    answers: every string that could read as a number, boolean or date quoted (a question '1e5' stays text), a kept
    answer's several lines as a block (|), and every text stripped of escape sequences and control characters."""
    from advisor.base.yamlread import dump, whole_numbers

    return dump(whole_numbers(_plain_values(data)))


def _plain_values(value: Any) -> Any:
    if isinstance(value, str):
        return plain(value, newlines=True)
    if isinstance(value, dict):
        return {k: _plain_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_values(v) for v in value]
    return value


class CaseResult(Struct):
    intent: str
    question: str
    ok: bool
    detail: str


def run_cases(data: Intents | None = None) -> list[CaseResult]:
    """Every test case in the intents data: the question must read as its intent with exactly its slots."""
    data = data or load_intents()
    out = []
    for it in data.intents:
        for case in it.cases:
            want = {k: [str(v) for v in vals] for k, vals in case["slots"].items()}
            got = parse(case["q"], data)
            ok = got is not None and got.intent == it.id and got.slots == want
            detail = "" if ok else f"expected {it.id} {want}, got " + (f"{got.intent} {got.slots}" if got else "nothing")
            out.append(CaseResult(it.id, case["q"], ok, detail))
    return out


__all__ = ["AnswerError", "IntentLoadError", "Intents", "Reply", "ask", "load_intents", "parse", "parse_quantity", "run_cases",
           "suggestions", "turn", "with_change"]
