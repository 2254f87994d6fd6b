"""Reading untrusted YAML/JSON files safely: size, encoding, duplicates, aliases.

``yaml.safe_load`` alone accepts duplicate keys (last one wins, silently) and alias bombs
(a few lines that expand to billions of nodes once something walks the tree). Both are refused
here, before any model sees the data.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from advisor.base.errors import InputFileError
from advisor.base.i18n import _
from advisor.base.units import count

MAX_BYTES = 2 * 1024 * 1024
"""Largest input file we read (2 MiB): answers are a few hundred bytes, rule packs a few KiB."""

MAX_EXPANDED_NODES = 200_000
"""Most values YAML aliases may add to a tree once expanded; a billion-laughs document exceeds it immediately. Values
written out in the file do not count: a 2 MiB file holds at most a few hundred thousand, and a 10,000-rule pack is
one of them (issue 19: it was refused as an 'alias bomb')."""

MAX_DIGITS = 4300
"""Longest whole number read: Python's own limit for turning digits into an int (sys.get_int_max_str_digits(), which
guards against quadratic conversion time). A longer one is refused naming its field, not converted."""


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present: ~10x faster


class _StrictLoader(_Base):  # type: ignore[misc, valid-type]
    """SafeLoader that refuses duplicate mapping keys, naming the key and its line, and reads numbers as YAML 1.2
    (and a person) would: 010 is ten, not octal eight; 1:30 is text, not sexagesimal ninety.

    Merge keys (``<<: *base``) are accepted: a key written out beside a merge overrides the merged value, as
    YAML's merge spec says; only a key written out twice in the same mapping is a duplicate."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value", key_node.start_mark
                ) from None
            line = key_node.start_mark.line + 1
            if key in seen:
                raise _DuplicateKey(key, seen[key], line)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


# YAML 1.2 core schema numbers instead of YAML 1.1's: drop the int/float resolvers and add 1.2's.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$"), list("-+0123456789"))
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$"),
    list("-+0123456789."),
)


class TooLong:
    """Stands in for a whole number of more than MAX_DIGITS digits until the reader finds its field and refuses it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<a number of {self.digits:,} digits>"


def _int_12(loader: Any, node: yaml.ScalarNode) -> int | TooLong:
    text = loader.construct_scalar(node).replace("_", "")
    if text.startswith(("0o", "0x")):
        return int(text, 0)  # power-of-two bases convert in linear time: Python sets no digit limit on them
    digits = len(text.lstrip("+-"))
    if digits > MAX_DIGITS:
        return TooLong(digits)
    return int(text, 10)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _int_12)


class _DuplicateKey(Exception):
    def __init__(self, key: Any, first: int, again: int) -> None:
        super().__init__(key)
        self.key, self.first, self.again = key, first, again


def _check_aliases(root: yaml.Node, limit: int) -> None:
    """Refuse a document whose aliases would add more than ``limit`` values once copied out (an alias bomb), or that
    holds an alias inside the node it names (a recursive structure, which no answers file or rule pack needs and
    which would send every reader round in circles). Values written out in the file are not counted against
    ``limit``; a document without aliases is not walked at all."""
    written: set[int] = set()
    memo: dict[int, int] = {}
    open_: set[int] = set()
    aliased = False

    def size(n: yaml.Node, path: tuple[Any, ...]) -> int:
        nonlocal aliased
        key = id(n)
        if key in open_:
            raise _Recursive(path, n.start_mark.line + 1)
        if key in written:
            aliased = True  # a node met twice is a node an alias copies
        if key in memo:
            return memo[key]
        written.add(key)
        open_.add(key)
        if isinstance(n, yaml.MappingNode):
            total = 1
            for k, v in n.value:
                total += size(k, path) + size(v, path + (k.value if isinstance(k, yaml.ScalarNode) else "?",))
        elif isinstance(n, yaml.SequenceNode):
            total = 1 + sum(size(v, path + (i,)) for i, v in enumerate(n.value))
        else:
            total = 1
        open_.discard(key)
        memo[key] = total
        if aliased and total - len(written) > limit:
            raise _TooLarge()
        return total

    size(root, ())


def _has_alias_events(text: str) -> bool:
    return "*" in text  # an alias is written '*name'; without one the tree is exactly what the file spells out


class _TooLarge(Exception):
    pass


class _Recursive(Exception):
    def __init__(self, path: tuple[Any, ...], line: int) -> None:
        super().__init__(path)
        self.path, self.line = path, line


def dotted(path: tuple[Any, ...] | list[Any]) -> str:
    """('rules', 0, 'when') -> 'rules[0].when': a position in a file as its keys name it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or _("top level")


def _find(data: Any, hit: Any) -> tuple[tuple[Any, ...], Any] | None:
    """The first (path, value) in ``data`` for which ``hit(value)`` holds, keys included; iterative, cycle-safe."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    seen: set[int] = set()
    while stack:
        path, value = stack.pop()
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            for k, v in reversed(items):
                if isinstance(value, dict) and hit(k):
                    return path, k
                stack.append((path + (k,), v))
        elif hit(value):
            return path, value
    return None


def _surrogate(value: Any) -> bool:
    return isinstance(value, str) and any("\ud800" <= ch <= "\udfff" for ch in value)


def _refuse_unreadable_values(data: Any, name: str, text: str) -> None:
    """A whole number too long to convert, or text holding a lone UTF-16 surrogate (JSON's "\\udcff"), is refused
    naming its field: the first would fail every later str() or int(), the second every write of the memo."""
    if "\\u" in text.lower():
        found = _find(data, _surrogate)
        if found:
            path, value = found
            raise InputFileError(
                _("{name}: {where}: {value} holds a lone surrogate escape (\\ud800-\\udfff), which is not text; write the character itself",
                  name=name, where=dotted(path), value=ascii(value)[:60])
            )
    if _long_digits(text):
        found = _find(data, lambda v: isinstance(v, TooLong))
        if found:
            path, value = found
            raise InputFileError(
                _("{name}: {where}: a whole number of {digits} digits is too large to be a value (numbers are read up to {most} digits)",
                  name=name, where=dotted(path), digits=count(value.digits), most=count(MAX_DIGITS))
            )


_DIGIT_RUN = re.compile(rf"[0-9_]{{{MAX_DIGITS + 1},}}")


def _long_digits(text: str) -> bool:
    return bool(_DIGIT_RUN.search(text))


class _NotJson(InputFileError):
    """Invalid JSON: final for a .json file, a cue to read the text as YAML otherwise."""


def parse_trusted(text: str) -> Any:
    """YAML shipped inside the package (the GPU catalog, message catalogs): libyaml's safe loader, no per-key checks."""
    return yaml.load(text, Loader=_Base)


def read_text(path: str | Path, label: str | None = None, max_bytes: int = MAX_BYTES) -> tuple[str, str]:
    """Read a UTF-8 text file ('-' = stdin) and return (label, text), refusing bad files early."""
    name = label or ("<stdin>" if str(path) == "-" else str(path))
    try:
        if str(path) == "-":
            if sys.stdin is None or sys.stdin.closed:
                raise InputFileError(_("<stdin>: stdin is closed; give an answers file"))
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            p = Path(path)
            if p.is_dir():
                raise InputFileError(_("{name}: is a directory, expected a YAML or JSON file", name=name))
            if p.exists() and not p.is_file():
                raise InputFileError(_("{name}: is not a regular file (a FIFO or device would be read forever); give a file", name=name))
            with p.open("rb") as fh:
                data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputFileError(_("{name}: no such file", name=name)) from None
    except PermissionError:
        raise InputFileError(_("{name}: permission denied", name=name)) from None
    except IsADirectoryError:
        raise InputFileError(_("{name}: is a directory, expected a YAML or JSON file", name=name)) from None
    except OSError as exc:
        raise InputFileError(_("{name}: cannot read ({reason})", name=name, reason=exc.strerror or exc)) from None
    if len(data) > max_bytes:
        raise InputFileError(_("{name}: file is larger than {n} MiB; this is not an answers or rules file", name=name, n=max_bytes // (1024 * 1024)))
    if b"\x00" in data:
        raise InputFileError(_("{name}: looks like a binary file (contains NUL bytes); expected YAML or JSON text", name=name))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(_("{name}: is not UTF-8 text (bad byte at offset {offset})", name=name, offset=exc.start)) from None
    if not text.strip():
        raise InputFileError(_("{name}: file is empty", name=name))
    return name, text


def parse_mapping(text: str, name: str) -> dict[str, Any]:
    """Parse YAML (or JSON, which is tried first when the text looks like JSON) into a dict."""
    if name.endswith(".json"):
        data = _parse_json(text, name)
    elif text.lstrip().startswith("{"):
        # JSON is tried first (its errors are clearer for a JSON file); a YAML flow mapping such as
        # "{model: {params: 7B}}" is not JSON but is valid YAML, so it falls back rather than being refused.
        try:
            data = _parse_json(text, name)
        except _NotJson:
            data = _parse_yaml(text, name)
    else:
        data = _parse_yaml(text, name)
    if data is None:
        raise InputFileError(_("{name}: file holds no data (only comments or an empty document)", name=name))
    if not isinstance(data, dict):
        kind = _("a list") if isinstance(data, list) else _("a single string") if isinstance(data, str) else \
            _("a single {kind}", kind=type(data).__name__)
        raise InputFileError(_("{name}: the top level must be a mapping of sections (key: value), not {kind}", name=name, kind=kind))
    return data


def load_mapping(path: str | Path, label: str | None = None) -> tuple[str, dict[str, Any]]:
    """read_text + parse_mapping: the one way every input file enters the program."""
    name, text = read_text(path, label)
    return name, parse_mapping(text, name)


def _parse_json(text: str, name: str) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise InputFileError(_("{name}: duplicate key '{key}'; each key may appear once", name=name, key=key))
            out[key] = value
        return out

    def constant(word: str) -> Any:
        raise InputFileError(_("{name}: {word} is not allowed; numbers must be finite", name=name, word=word))

    def integer(digits: str) -> int | TooLong:
        n = len(digits.lstrip("-"))
        return TooLong(n) if n > MAX_DIGITS else int(digits)

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_int=integer)
        _refuse_unreadable_values(data, name, text)
        return data
    except json.JSONDecodeError as exc:
        raise _NotJson(_("{name}: line {line}: invalid JSON ({reason})", name=name, line=exc.lineno, reason=exc.msg)) from None
    except RecursionError:
        raise InputFileError(_("{name}: nested too deeply", name=name)) from None


def _parse_yaml(text: str, name: str) -> Any:
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _has_alias_events(text):
            _check_aliases(node, MAX_EXPANDED_NODES)
        data = loader.construct_document(node)
        _refuse_unreadable_values(data, name, text)
        return data
    except _Recursive as rec:
        raise InputFileError(_("{name}: line {line}: {where}: a YAML alias refers to a node that contains it (a recursive structure); "
                                 "write the values out", name=name, line=rec.line, where=dotted(rec.path))) from None
    except _TooLarge:
        raise InputFileError(_("{name}: expands to more than {n} values through YAML aliases (an 'alias bomb'); write the values out",
                                 name=name, n=count(MAX_EXPANDED_NODES))) from None
    except _DuplicateKey as dup:
        raise InputFileError(_("{name}: line {line}: duplicate key '{key}' (first given on line {first}); each key may appear once",
                                 name=name, line=dup.again, key=dup.key, first=dup.first)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = _("line {line}: ", line=mark.line + 1) if mark else ""
        what = " ".join((exc.problem or exc.context or "invalid YAML").split())
        raise InputFileError(_("{name}: {where}invalid YAML ({reason})", name=name, where=where, reason=what)) from None
    except yaml.YAMLError as exc:
        raise InputFileError(_("{name}: invalid YAML ({reason})", name=name, reason=" ".join(str(exc).split()))) from None
    except RecursionError:
        raise InputFileError(_("{name}: nested too deeply", name=name)) from None
    finally:
        loader.dispose()


# ------------------------------------------------------------------------------ parsed-file cache

CACHE_FORMAT = 1
"""Bumped whenever what the cache holds changes meaning (a new parser rule): older entries are then never read."""


def cache_dir() -> Path:
    """Where parsed files are kept between runs: $ADVISOR_CACHE_DIR, else $XDG_CACHE_HOME/advisor, else ~/.cache/advisor."""
    explicit = os.environ.get("ADVISOR_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "advisor"


def load_mapping_cached(path: Path) -> tuple[str, dict[str, Any]]:
    """``load_mapping`` for a file read on every run (a rule pack): the parsed mapping is kept in the user's cache
    directory, marshalled, beside the exact text it was parsed from, and used only when the file's text is that text
    character for character — so an edited, replaced or touched-back file is always parsed afresh and a stale entry is
    never used. Any problem (an unreadable or unwritable cache, a value marshal cannot hold) silently falls back to
    parsing; errors are never cached, so a bad file is refused with the same message every time. YAML parse of the
    shipped packs ~10 ms, from the cache ~0.2 ms (issue 20)."""
    import marshal
    import zlib

    name, text = read_text(path)
    tag = (CACHE_FORMAT, sys.version_info[:2])
    try:
        where = str(Path(path).resolve())
        entry = cache_dir() / f"{Path(where).stem[:40]}-{zlib.crc32(where.encode('utf-8')):08x}.marshal"
    except (OSError, RuntimeError, ValueError):
        return name, parse_mapping(text, name)
    try:
        held = marshal.loads(entry.read_bytes())
        if isinstance(held, tuple) and len(held) == 4 and held[0] == tag and held[1] == where and held[2] == text \
                and isinstance(held[3], dict):
            return name, held[3]
    except (OSError, EOFError, ValueError, TypeError):
        pass
    data = parse_mapping(text, name)
    try:
        blob = marshal.dumps((tag, where, text, data))
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        tmp.replace(entry)
    except (OSError, ValueError):
        pass
    return name, data
