"""`advisor advise --format json` without building the pydantic report models (issue 20).

The JSON contract is ``advisor.decision.report.Report``; its JSON Schema is committed beside the package data
(``data/report.schema.json``, kept equal to the model's by tests/test_report_json.py). Building the 27 report models
and their validator costs a one-shot `advise` ~25 ms of CPU, a seventh of all it does beyond importing its libraries,
for a dict the core itself made. So the JSON path lays ``Advice.to_dict()`` out by the committed schema instead, as
pydantic's dump would: keys in the models' field order (inherited fields first), only the keys the core set, integers
where the contract says number made floats and integral floats where it says integer made integers. The bytes are the
validated report's, which the tests check on every example, every rule test case and generated answers; everything
that reads a report back (``advisor render``, the memo, the launch files) still validates it with the models.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "data" / "report.schema.json"


Where = tuple[Any, ...]
"""Where a value sits, as (parent, key) pairs nested from the report down: spelled out only for an error."""


def _path(where: Where) -> str:
    keys: list[str] = []
    while where:
        where, key = where
        keys.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "report" + "".join(reversed(keys))


class ShapeError(ValueError):
    """The core's dict does not have the contract's shape: a bug, which the validated path would report the same way."""


def _load_schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return data


def to_json(advice: Any) -> str:
    """The advice as `advisor.outputs.render.to_json(advice.report())` writes it, byte for byte."""
    schema = _load_schema()
    layout = _Layout(schema["$defs"])
    laid_out = layout.lay_out(advice.to_dict(), schema, ())
    return encode(laid_out, plain_floats=layout.plain_floats)


def dumps(value: Any) -> str:
    """Any JSON-able value as the report is written (``encode``), its floats looked at first: the one spelling of a
    report's bytes, for the laid-out dict here and the validated model's dump (render.to_json)."""
    layout = _Layout({})
    layout.scan(value)
    return encode(value, plain_floats=layout.plain_floats)


def encode(value: Any, plain_floats: bool) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``: pydantic-core's encoder writes the same
    bytes at a tenth of the pure-Python indenting encoder's cost, for values whose floats all print alike in both (0,
    or at least 1e-4 in magnitude, and finite: below that Python writes 1e-05 where Rust writes 0.00001, and Python
    refuses NaN and infinity where Rust writes them). Anything else goes through json itself."""
    if plain_floats:
        import pydantic_core

        return pydantic_core.to_json(value, indent=2, fallback=jsonable).decode("utf-8") + "\n"
    return json.dumps(value, indent=2, ensure_ascii=False, default=jsonable, allow_nan=False) + "\n"


def jsonable(value: Any) -> Any:
    """json.dumps' fallback for numpy scalars; anything else is a bug."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot serialise {type(value).__name__}")


class _Layout:
    """Lays a dict out by the schema, noting whether every float in it prints alike in json and pydantic-core."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.plain_floats = True

    def note(self, number: float) -> None:
        if number != 0.0 and not 1e-4 <= abs(number) < math.inf:
            self.plain_floats = False

    def scan(self, value: Any) -> None:
        """A value the contract leaves open (the answers, a trace's values): its floats noted, the value unchanged."""
        if isinstance(value, float):
            self.note(value)
        elif isinstance(value, dict):
            for v in value.values():
                self.scan(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                self.scan(v)
        elif hasattr(value, "item"):
            self.scan(value.item())

    def lay_out(self, value: Any, node: dict[str, Any], where: Where) -> Any:
        if "$ref" in node:
            return self.lay_out(value, _resolved(node, self.defs), where)
        branches = node.get("anyOf")
        if branches is not None:
            if value is None:
                return None
            return self.lay_out(value, _branch(value, branches, self.defs, where), where)
        kind = node.get("type")
        if kind == "object":
            if not isinstance(value, dict):
                raise ShapeError(f"{_path(where)}: expected an object, got {type(value).__name__}")
            props = node.get("properties")
            if props is None:  # dict[str, Any]: as given
                self.scan(value)
                return value
            unknown = value.keys() - props.keys()
            if unknown:
                raise ShapeError(f"{_path(where)}: keys the contract does not declare: {sorted(unknown)}")
            return {key: self.lay_out(value[key], sub, (where, key)) for key, sub in props.items() if key in value}
        if kind == "array":
            if not isinstance(value, (list, tuple)):
                raise ShapeError(f"{_path(where)}: expected a list, got {type(value).__name__}")
            items = node.get("items", {})
            return [self.lay_out(v, items, (where, i)) for i, v in enumerate(value)]
        if kind == "number":
            number = _number(value, where)
            self.note(number)
            return number
        if kind == "integer":
            return _integer(value, where)
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            if hasattr(value, "item") and isinstance(value.item(), bool):
                return value.item()
            raise ShapeError(f"{_path(where)}: expected true or false, got {value!r}")
        if kind is None:  # Any: as given
            self.scan(value)
        return value  # strings and enumerations: as given


def _number(value: Any, where: Where) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int):  # bool included, as pydantic's lax mode takes it
        return float(value)
    if hasattr(value, "item"):
        return _number(value.item(), where)
    raise ShapeError(f"{_path(where)}: expected a number, got {value!r}")


def _integer(value: Any, where: Where) -> int:
    if isinstance(value, int):
        return int(value)  # True is 1, as pydantic's lax mode takes it
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "item"):
        return _integer(value.item(), where)
    raise ShapeError(f"{_path(where)}: expected an integer, got {value!r}")


def _resolved(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A schema node, or the definition its ``$ref`` ('#/$defs/Name') names."""
    ref = node.get("$ref")
    return node if ref is None else defs[ref.rsplit("/", 1)[1]]


_KIND_OF = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", tuple: "array", dict: "object"}


def _branch(value: Any, branches: list[dict[str, Any]], defs: dict[str, Any], where: Where) -> dict[str, Any]:
    """The branch of an optional or a union that a (non-null) value takes: the one of its kind, else a number branch
    for an integer (as pydantic's union does), else the only non-null one."""
    kind = _KIND_OF.get(type(value))
    if kind is None and hasattr(value, "item"):
        kind = _KIND_OF.get(type(value.item()))
    kinds = [_resolved(b, defs).get("type") for b in branches]
    for wanted in (kind, "number" if kind == "integer" else None):
        if wanted is not None and wanted in kinds:
            return branches[kinds.index(wanted)]
    non_null = [b for b, k in zip(branches, kinds, strict=True) if k != "null"]
    if len(non_null) == 1:
        return non_null[0]
    raise ShapeError(f"{_path(where)}: {value!r} matches none of the contract's types")
