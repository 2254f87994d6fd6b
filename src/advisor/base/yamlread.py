"""The YAML reader behind base/safeload.py: PyYAML's safe loader made strict (duplicate keys, alias bombs, recursive
aliases and over-long numbers refused; YAML 1.2 numbers). Imported on the first YAML text parsed, not at start-up.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from advisor.base.errors import InputFileError
from advisor.base.i18n import _
from advisor.base.safeload import MAX_DIGITS, MAX_EXPANDED_NODES, TooLong, _refuse_unreadable_values, dotted, refuse_too_deep
from advisor.base.units import count

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



def load_trusted(text: str) -> Any:
    """YAML shipped inside the package: libyaml's safe loader, no per-key checks (safeload.parse_trusted)."""
    return yaml.load(text, Loader=_Base)


def parse_yaml(text: str, name: str) -> Any:
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _has_alias_events(text):
            _check_aliases(node, MAX_EXPANDED_NODES)
        data = loader.construct_document(node)
        refuse_too_deep(data, text, name)
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


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes a string plainly only where every reader takes it back as that string.

    PyYAML's dumper quotes what YAML 1.1 reads as another type ('100000', 'yes'), but advisor reads YAML 1.2 numbers:
    '1e5' and '1.5e5' are floats to it and plain text to YAML 1.1, so a question '1e5' was saved unquoted and read
    back as 100000.0 where a question belongs (issue 36). A string is quoted here when either set of rules resolves
    it to anything but a string."""


_Dumper.yaml_implicit_resolvers = {
    first: list(yaml.SafeDumper.yaml_implicit_resolvers.get(first, [])) + list(_StrictLoader.yaml_implicit_resolvers.get(first, []))
    for first in set(yaml.SafeDumper.yaml_implicit_resolvers) | set(_StrictLoader.yaml_implicit_resolvers)
}


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def whole_numbers(value: Any) -> Any:
    """Floats that are whole numbers as ints, all the way down: 'params: 34000000000', 'limit: 300000', not
    '34000000000.0' in a saved file or the memo's appendix (user try 8). Read back, the answers are the same."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [whole_numbers(v) for v in value]
    return value


def dump(data: Any) -> str:
    """``data`` as YAML that ``parse_yaml`` reads back to the same values: keys in the order given, text as written
    (a several-line string as a block, |), every string that could read as a number, a boolean, null or a date quoted."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
