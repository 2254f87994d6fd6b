"""Issue 13: the JSON contract as types — every advice validates against advisor.decision.report.Report, and
`advisor schema --report` prints its JSON Schema."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.cli import main
from advisor.base.i18n import language
from advisor.outputs.render import to_json
from advisor.decision.report import Report

from .conftest import EXAMPLES


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_example_advice_is_a_valid_report(rules, example, lang):
    with language(lang):
        advice = advise(load_answers(EXAMPLES / example), rules)
        report = Report.model_validate(json.loads(to_json(advice)))
    assert report.recommendation.strategy == advice.strategy
    assert report.estimate.cost == pytest.approx(advice.to_dict()["estimate"]["cost"])


def test_a_key_the_contract_does_not_declare_is_refused(rules):
    d = advise(load_answers(EXAMPLES / "customer-service.yaml"), rules).to_dict()
    d["estimate"]["surprise"] = 1
    with pytest.raises(Exception, match="surprise"):
        Report.model_validate(d)


def test_schema_report_prints_the_contract():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["schema", "--report"]) == 0
    schema = json.loads(out.getvalue())
    assert schema["title"] == "Report" and "recommendation" in schema["required"]
    assert schema["$defs"]["Estimate"]["additionalProperties"] is False
