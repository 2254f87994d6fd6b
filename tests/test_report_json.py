"""Issue 33: one typed report. `advise --format json` writes the validated ``Report`` with the model's own encoder, and
``advisor render`` decodes the same model: every file advisor writes reads back, and the JSON Schema that
``advisor schema --report`` prints is generated from it (no committed copy, no second serializer)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.decision.advice import advise
from advisor.decision.report import Report, report_schema
from advisor.inputs.answers import load_answers
from advisor.outputs.render import to_json

from tests.test_decisions import CASES, _answers

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_the_report_schema_is_generated_from_the_model():
    printed = json.loads(_cli("schema", "--report"))
    assert printed == report_schema() == Report.model_json_schema()
    assert not (ROOT / "src" / "advisor" / "data" / "report.schema.json").exists()  # no hand-kept second copy


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_example_json_reads_back_into_the_same_bytes(path, lang, tmp_path):
    out = tmp_path / "report.json"
    _cli("--lang", lang, "advise", str(path), "--format", "json", "-o", str(out))
    text = out.read_text(encoding="utf-8")
    assert to_json(Report.model_validate_json(text)) == text
    assert _cli("render", str(out), "--format", "json") == text  # advisor render accepts what advise wrote


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_every_decision_case_report_validates_and_round_trips(rules, case):
    text = to_json(advise(_answers(case), rules).report())
    assert to_json(Report.model_validate_json(text)) == text


def test_a_report_off_the_contract_is_refused_on_write_not_on_read(rules):
    """The fast path wrote what render then refused (an unknown stage name): now the report is validated before any
    byte is written, so a bug fails the run instead of leaving a file advisor cannot read."""
    import pydantic

    advice = advise(load_answers(EXAMPLES[0]), rules)
    data = advice.to_dict()
    data["plan"]["stages"].append({"stage": "no-such-stage", "code": "x", "kept": 1})
    with pytest.raises(pydantic.ValidationError):
        Report.model_validate(data)
