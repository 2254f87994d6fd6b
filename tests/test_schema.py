"""Issue 23 item 6: `advisor schema` describes what the tool accepts. Files advisor itself writes (the examples, `advisor
init`'s template, the guided Q&A's save) validate against it with the JSON Schema package's own validator, and a few bad
files do not; the schema's text patterns read exactly what the parsers read."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from advisor.base.units import (duration_pattern, money_pattern, parse_duration, parse_money, parse_quantity, price_pattern, quantity_pattern,
                                strip_per_hour)
from advisor.base.errors import AnswerError
from advisor.cli import main
from advisor.inputs.answers import answers_from_text, answers_schema
from advisor.inputs.questions import coerce, default_draft, set_value, steps
from advisor.inputs.template import answers_template
from advisor.outputs.ask import answers_yaml

from .conftest import EXAMPLES, MINIMAL

TEXTS = ["7B", "7 billion", "70亿", "7e9", "500,000", "500k", "50万", "1.3b", " 2T ", "7G", "2,000,000", ".5M", "1十亿",
         "", "seven", "7BB", "B7", "7,00", "1,0000", "亿", "7 B B", "nan", "inf", "1..3", "$3.5", "3d", "-", "7 bilion"]
MONEY = ["$3.5", "¥10", "10元", "50万", "50万元", "2,000,000", "USD 5", "5 rmb", "人民币100", "3.5", "$", "$$3", "3.5 dollars", "¥x"]
DURATIONS = ["3", "3d", "3 days", "3天", "72h", "72小时", "2 weeks", "2周", "1.5 D", "3 fortnights", "d3", "3dd", "2k",
             "两周", "十天", "10个工作日", "1个月", "2 working days", "一二三天", "周两"]
# a Chinese PM's counts and prices (user try 9), and near misses
COUNTS = ["4张", "4卡", "8块卡", "30万条", "50w", "3W", "3轮", "140亿参数", "2T tokens", "4张张", "张4", "w", "4 个"]
PRICES = ["20元/小时", "20元每小时", "$2.5/h", "2.5 per GPU-hour", "2.5 an hour", "¥10", "10/卡时", "/小时", "20元/天", "20/小时/小时"]


def _reads(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("text", TEXTS + COUNTS)
def test_the_quantity_pattern_reads_what_parse_quantity_reads(text):
    assert bool(re.search(quantity_pattern(), text)) == _reads(parse_quantity, text), text


@pytest.mark.parametrize("text", MONEY + TEXTS)
def test_the_money_pattern_reads_what_parse_money_reads(text):
    assert bool(re.search(money_pattern(), text)) == _reads(parse_money, text), text


@pytest.mark.parametrize("text", DURATIONS + TEXTS)
def test_the_duration_pattern_reads_what_parse_duration_reads(text):
    assert bool(re.search(duration_pattern(), text)) == _reads(lambda t: parse_duration(t, "days"), text), text


@pytest.mark.parametrize("text", PRICES + MONEY)
def test_the_price_pattern_reads_what_a_price_reads(text):
    assert bool(re.search(price_pattern(), text)) == _reads(lambda t: parse_money(strip_per_hour(t)), text), text


def test_the_schema_types_quantities_as_numbers_or_their_text(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    params = schema["$defs"]["ModelSection"]["properties"]["params"]
    assert {"type": "number"} in params["anyOf"] and any(b.get("type") == "string" and b.get("pattern") for b in params["anyOf"])
    assert params["description"].startswith("Total parameter count")


# ---------------------------------------------------------------- against the JSON Schema package's own validator

@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install -e '.[test]' installs it)")
    schema = answers_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def tui_saved() -> str:
    """What the guided Q&A saves after these answers were typed: the draft keeps the text as typed (tui/app.py
    save_answers), written with the same YAML writer."""
    typed = {"model.params": "70B", "training.tokens": "2T", "cluster.gpus": "256", "cluster.inter_node_gbps": "400",
             "budget.price_per_gpu_hour": "$3.5", "budget.limit": "2,000,000", "budget.monthly_limit": "50万",
             "training.deadline_days": "30", "model.seq_len": "4k", "training.global_batch_tokens": "4M"}
    fields = {f.path: f for s in steps() for f in s.fields}
    draft = default_draft()
    draft["cluster"]["gpu"] = "h100"
    for path, text in typed.items():
        set_value(draft, path, coerce(fields[path], text))
    data = {section: {k: v for k, v in values.items() if v is not None} for section, values in draft.items()}
    data["project"]["checklist_done"] = ["Checkpoints are written"]
    return "# saved from the guided Q&A\n" + answers_yaml(data)


WRITTEN = {**{f"examples/{p.name}": p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.yaml"))},
           "advisor init": answers_template(), "guided Q&A save": tui_saved()}


@pytest.mark.parametrize("name", list(WRITTEN))
def test_every_file_advisor_writes_validates_against_its_schema(validator, name):
    text = WRITTEN[name]
    answers_from_text(text, name)  # it loads
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(yaml.safe_load(text))]
    assert not errors, errors[:3]


def _with(section: str, **values: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(MINIMAL))
    data[section].update(values)
    return data


BAD = [
    ("a word for a size", _with("model", params="seven"), "model.params"),
    ("a doubled suffix", _with("model", params="7BB"), "model.params"),
    ("two currency marks", _with("budget", price_per_gpu_hour="$$3"), "budget.price_per_gpu_hour"),
    ("a count in words", _with("cluster", gpus="lots"), "cluster.gpus"),
    ("a fraction of a GPU", _with("cluster", gpus=2.5), "cluster.gpus"),
    ("a unit the parser does not know", _with("training", deadline_days="3 fortnights"), "training.deadline_days"),
    ("a typo'd key", _with("cluster", gpu_count=8), "cluster"),
    ("a boolean for a number", _with("budget", limit=True), "budget.limit"),
]


@pytest.mark.parametrize("name, data, where", BAD, ids=[b[0] for b in BAD])
def test_bad_answers_fail_the_schema_where_advisor_refuses_them(validator, name, data, where):
    errors = list(validator.iter_errors(data))
    assert errors and any(".".join(map(str, e.absolute_path)).startswith(where) for e in errors), [e.message for e in errors]
    with pytest.raises(AnswerError):
        answers_from_text(yaml.safe_dump(data, allow_unicode=True), name)
