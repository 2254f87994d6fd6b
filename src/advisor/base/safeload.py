"""Reading untrusted YAML/JSON files safely: size, encoding, duplicates, aliases.

``yaml.safe_load`` alone accepts duplicate keys (last one wins, silently) and alias bombs
(a few lines that expand to billions of nodes once something walks the tree). Both are refused
here, before any model sees the data. The YAML reader itself is in base/yamlread.py, imported on the first YAML
parsed: PyYAML's import costs as much as a small Textual app's first frame, and a rule pack read from the cache, a
JSON file or the guided Q&A's first question need none of it (issue 20).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable


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


MAX_DEPTH = 64
"""Deepest nesting of lists and mappings read: an answers file nests 4 levels, a rule's condition a dozen, a Hugging Face
config.json 3; a few thousand levels exhaust the parser's stack (issue 36: a config.json of nested arrays was an
internal error)."""


class TooLong:
    """Stands in for a whole number of more than MAX_DIGITS digits until the reader finds its field and refuses it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<a number of {self.digits:,} digits>"


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
    from advisor.base.yamlread import load_trusted

    return load_trusted(text)


def read_text(path: str | Path, label: str | None = None, max_bytes: int = MAX_BYTES, what: str | None = None) -> tuple[str, str]:
    """Read a UTF-8 text file ('-' = stdin) and return (label, text), refusing bad files early: only a regular file is
    opened (its type is checked before the open, and again on the open file: a FIFO would block the open, a device
    such as /dev/zero be read without end), and at most ``max_bytes`` are read. ``what``: the kind of file, in the
    current language, for the message refusing a larger one (default: an answers or rules file)."""
    name = label or ("<stdin>" if str(path) == "-" else str(path))
    try:
        if str(path) == "-":
            if sys.stdin is None or sys.stdin.closed:
                raise InputFileError(_("<stdin>: stdin is closed; give an answers file"))
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            p = Path(path)
            mode = p.stat().st_mode
            if stat.S_ISDIR(mode):
                raise InputFileError(_("{name}: is a directory, expected a YAML or JSON file", name=name))
            if not stat.S_ISREG(mode):
                raise InputFileError(_("{name}: is not a regular file (a FIFO or device would be read forever); give a file", name=name))
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the check and the open
                    raise InputFileError(_("{name}: is not a regular file (a FIFO or device would be read forever); give a file", name=name))
                data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputFileError(_("{name}: no such file", name=name)) from None
    except PermissionError:
        raise InputFileError(_("{name}: permission denied", name=name)) from None
    except IsADirectoryError:
        raise InputFileError(_("{name}: is a directory, expected a YAML or JSON file", name=name)) from None
    except OSError as exc:
        raise InputFileError(_("{name}: cannot read ({reason})", name=name, reason=exc.strerror or exc)) from None
    except ValueError as exc:  # a path with a NUL byte
        raise InputFileError(_("{name}: cannot read ({reason})", name=name, reason=exc)) from None
    if len(data) > max_bytes:
        raise InputFileError(_("{name}: file is larger than {size}, more than {what} can be", name=name, size=size_text(max_bytes),
                                 what=what or _("an answers or rules file")))
    if b"\x00" in data:
        raise InputFileError(_("{name}: looks like a binary file (contains NUL bytes); expected YAML or JSON text", name=name))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(_("{name}: is not UTF-8 text (bad byte at offset {offset})", name=name, offset=exc.start)) from None
    if not text.strip():
        raise InputFileError(_("{name}: file is empty", name=name))
    return name, text


def size_text(n: int) -> str:
    """2 MiB, 1 MB, 512 KiB: a size limit as it is set (binary or decimal), for a message."""
    for unit, word in ((1024 * 1024, "MiB"), (1_000_000, "MB"), (1024, "KiB"), (1000, "kB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit:,} {word}"
    return f"{n:,} bytes"


def _too_deep(data: Any, text: str) -> tuple[Any, ...] | None:
    """The path of the first value nested more than MAX_DEPTH deep, or None. Iterative (a deep tree must not exhaust
    the stack it is refused for); not walked at all where the text has too few brackets, keys and dashes to nest so."""
    if sum(text.count(c) for c in "[{:-") <= MAX_DEPTH:
        return None
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if len(path) > MAX_DEPTH:
            return path[:MAX_DEPTH + 1]
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value) if isinstance(v, (dict, list)))
    return None


def refuse_too_deep(data: Any, text: str, name: str) -> None:
    found = _too_deep(data, text)
    if found is not None:
        raise InputFileError(_("{name}: nested too deeply (more than {most} levels, at {where}); no answers, rules or config file nests so",
                               name=name, most=MAX_DEPTH, where=dotted(found)[:120]))


def parse_json(text: str, name: str) -> dict[str, Any]:
    """A JSON object (and only JSON: no YAML fallback), on the same terms as every input: duplicate keys, non-finite
    numbers, over-long whole numbers, lone surrogates and deep nesting refused naming where."""
    try:
        data = _parse_json(text, name)
    except _NotJson as exc:
        raise InputFileError(exc.msg) from None
    if not isinstance(data, dict):
        raise InputFileError(_("{name}: the top level must be a mapping of sections (key: value), not {kind}", name=name,
                               kind=_("a list") if isinstance(data, list) else _("a single {kind}", kind=type(data).__name__)))
    return data


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

    import json  # not at start-up: the guided Q&A's first question reads no JSON

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_int=integer)
        refuse_too_deep(data, text, name)
        _refuse_unreadable_values(data, name, text)
        return data
    except json.JSONDecodeError as exc:
        raise _NotJson(_("{name}: line {line}: invalid JSON ({reason})", name=name, line=exc.lineno, reason=exc.msg)) from None
    except RecursionError:
        raise InputFileError(_("{name}: nested too deeply", name=name)) from None


def _parse_yaml(text: str, name: str) -> Any:
    from advisor.base.yamlread import parse_yaml

    return parse_yaml(text, name)


# ------------------------------------------------------------------------------ parsed-file cache

CACHE_FORMAT = 2
"""Bumped whenever what the cache holds changes meaning (a new parser rule): older entries are then never read."""


def cache_dir() -> Path:
    """Where parsed files are kept between runs: $ADVISOR_CACHE_DIR, else $XDG_CACHE_HOME/advisor, else ~/.cache/advisor."""
    explicit = os.environ.get("ADVISOR_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "advisor"


def parse_mapping_cached(path: Path, name: str, text: str) -> dict[str, Any]:
    """``parse_mapping`` for a file read on every run (a rule pack; ``text`` is its content, from ``read_text``): the
    parsed mapping is kept in the user's cache directory, marshalled, beside the exact text it was parsed from, and used
    only when the file's text is that text character for character — so an edited, replaced or touched-back file is
    always parsed afresh and a stale entry is never used. Any problem (an unreadable or unwritable cache, a value
    marshal cannot hold) silently falls back to parsing; errors are never cached, so a bad file is refused with the
    same message every time. YAML parse of the shipped packs ~10 ms, from the cache ~0.2 ms (issue 20)."""
    data: dict[str, Any] = _through_cache(path, text, "", lambda: parse_mapping(text, name))
    return data


def parse_trusted_cached(path: Path) -> Any:
    """``parse_trusted`` for a YAML file shipped in the package (the GPU catalog, a message catalog), through the same
    cache and on the same terms: read on every run, these then need neither a YAML parse nor the YAML reader's import
    (~15-20 ms, more than the parse), which the guided Q&A's first question was waiting for (issue 20)."""
    text = Path(path).read_text(encoding="utf-8")
    return _through_cache(path, text, "trusted", lambda: parse_trusted(text))


def _through_cache(path: Path, text: str, kind: str, parse: Callable[[], Any]) -> Any:
    """``parse()`` of ``text`` (the content of ``path``), or the mapping cached for exactly that text by the same kind
    of parse; a mapping parsed afresh is cached."""
    import marshal

    tag = (CACHE_FORMAT, sys.version_info[:2], kind)
    found = cache_file(path, kind, "marshal")
    if found is None:
        return parse()
    where, entry = found
    try:
        held = marshal.loads(entry.read_bytes())
        if isinstance(held, tuple) and len(held) == 4 and held[0] == tag and held[1] == where and held[2] == text \
                and isinstance(held[3], dict):
            return held[3]
    except (OSError, EOFError, ValueError, TypeError):
        pass
    data = parse()
    if not isinstance(data, dict):
        return data
    try:
        blob = marshal.dumps((tag, where, text, data))
    except ValueError:
        return data
    write_cache(entry, blob)
    return data


def cache_file(path: Path, kind: str, suffix: str) -> tuple[str, Path] | None:
    """(the file's resolved path, the cache entry kept for it) — one entry per file and kind — or None where the path
    cannot be resolved."""
    import zlib

    try:
        where = str(Path(path).resolve())
        entry = cache_dir() / f"{Path(where).stem[:40]}-{zlib.crc32(where.encode('utf-8')):08x}{'-' + kind if kind else ''}.{suffix}"
    except (OSError, RuntimeError, ValueError):
        return None
    return where, entry


def write_cache(entry: Path, blob: bytes) -> None:
    """Put a cache entry in place whole (written beside it, then renamed); a cache that cannot be written is no cache."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        tmp.replace(entry)
    except OSError:
        pass
