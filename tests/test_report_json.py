"""Issue 20: `advise --format json` lays the core's dict out by the committed contract instead of building the report
models, and must write the validated report's bytes exactly."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.decision.advice import advise
from advisor.decision.report import Report, report_schema
from advisor.inputs.answers import load_answers
from advisor.outputs import report_json
from advisor.outputs.render import to_json

from tests.test_decisions import CASES, _answers

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


def test_the_committed_schema_is_the_report_models_schema():
    """The layout follows data/report.schema.json: it must be the models' own (UPDATE_GOLDEN=1 writes it again)."""
    live = json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        report_json.SCHEMA_FILE.write_text(live, encoding="utf-8")
    assert report_json.SCHEMA_FILE.read_text(encoding="utf-8") == live, "run UPDATE_GOLDEN=1 pytest tests/test_report_json.py"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_example_writes_the_validated_reports_bytes(rules, path, lang):
    from advisor.base.i18n import set_language

    set_language(lang)
    try:
        advice = advise(load_answers(path), rules)
        assert report_json.to_json(advice) == to_json(advice.report())
    finally:
        set_language("en")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_every_decision_case_writes_the_validated_reports_bytes(rules, case):
    advice = advise(_answers(case), rules)
    assert report_json.to_json(advice) == to_json(advice.report())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e-05, 2.5e-07, 1e16, 1e-4, -0.0, 0.0, 1e300]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=json_values)
def test_the_encoder_writes_what_json_dumps_writes(value):
    layout = report_json._Layout({})
    layout.scan(value)
    assert report_json.encode(value, layout.plain_floats) == json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_float_json_cannot_hold_is_refused_as_json_refuses_it(bad):
    layout = report_json._Layout({})
    layout.scan({"x": [bad]})
    assert not layout.plain_floats
    with pytest.raises(ValueError, match="Out of range float"):
        report_json.encode({"x": [bad]}, layout.plain_floats)


def test_tiny_floats_keep_pythons_spelling():
    """pydantic-core writes 1e-05 as 0.00001: such a float sends the dump through json."""
    layout = report_json._Layout({})
    layout.scan([1e-05])
    assert report_json.encode([1e-05], layout.plain_floats) == "[\n  1e-05\n]\n"


def test_numbers_take_the_contracts_kind_as_pydantic_makes_them():
    schema = report_schema()
    layout = report_json._Layout(schema["$defs"])
    node = {"type": "object", "properties": {"f": {"type": "number"}, "i": {"type": "integer"}, "o": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}
    out = layout.lay_out({"i": 8.0, "f": 3, "o": 2}, node, ())
    assert out == {"f": 3.0, "i": 8, "o": 2.0} and list(out) == ["f", "i", "o"]  # the contract's order, not the dict's
    assert [type(v) for v in out.values()] == [float, int, float]


@pytest.mark.parametrize("value, message", [
    ({"f": 1, "typo": 2}, r"report: keys the contract does not declare: \['typo'\]"),
    ({"f": "x"}, r"report\.f: expected a number"),
    ({"l": [1, 2.5]}, r"report\.l\[1\]: expected an integer"),
])
def test_a_dict_off_the_contract_is_refused_where_it_is_off(value, message):
    node = {"type": "object", "properties": {"f": {"type": "number"}, "l": {"type": "array", "items": {"type": "integer"}}}}
    with pytest.raises(report_json.ShapeError, match=message):
        report_json._Layout({}).lay_out(value, node, ())


def test_json_advice_builds_no_report_model():
    """The point of the layout: a one-shot JSON advise never imports the report models (nor the renderers)."""
    code = ("import sys, io, contextlib\nfrom advisor.cli import main\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    assert main(['advise', {str(EXAMPLES[0])!r}, '--format', 'json']) == 0\n"
            "print(sorted(m for m in ('advisor.decision.report', 'advisor.outputs.render') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_cli_json_is_the_reports_json(tmp_path):
    out = subprocess.run([sys.executable, "-m", "advisor.cli", "advise", str(ROOT / "examples" / "customer-service.yaml"), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    assert out == to_json(Report.model_validate(json.loads(out)))
