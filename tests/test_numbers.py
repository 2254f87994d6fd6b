"""Issue 23 item 5: one home for formatting and for number parsing (advisor.base.units), in both languages."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from advisor.base.i18n import N_, language
from advisor.base.units import (
    count,
    days,
    format_number,
    hours_text,
    money,
    parse_count,
    parse_quantity,
    pct_change,
    percent,
    plural,
    same_unit,
)
from advisor.inputs.answers import answers_from_mapping
from advisor.inputs.questions import coerce, default_draft, set_value, step_error, steps
from advisor.knowledge.rules import Text, render_template
from advisor.outputs.sweep import parse_gpu_range, sweep, sweep_text

from .conftest import MINIMAL, with_

SRC = Path(__file__).resolve().parents[1] / "src" / "advisor"
FORMATTERS = {"format_number", "count", "money", "hours_text", "same_unit", "days", "percent", "pct_change", "plural", "_trim",
              "_same_unit"}


def test_each_formatter_is_defined_once_in_units():
    """The copies in rules.py, advice.py, render.py and sweep.py are gone: no module but units defines a formatter."""
    found = []
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in FORMATTERS and f.name != "units.py":
                found.append(f"{f.relative_to(SRC)}:{node.name}")
    assert not found, found


@pytest.mark.parametrize("lang, value, currency, expected", [
    ("en", 2_209_909, "USD", "2,209,909 USD"), ("zh", 2_209_909, "USD", "2,209,909 USD"),
    ("zh", 18_920_282, "CNY", "1,892.03 万元"), ("zh", 46_100, "CNY", "46,100 元"), ("zh", 2.5e8, "CNY", "2.5 亿元"),
    ("en", 18_920_282, "CNY", "18,920,282 CNY"),
])
def test_money_in_both_languages(lang, value, currency, expected):
    with language(lang):
        assert money(value, currency) == expected


@pytest.mark.parametrize("lang, hours, expected", [("en", 36, "36.0 h"), ("en", 72, "3.0 days"), ("zh", 36, "36.0 小时"), ("zh", 72, "3.0 天")])
def test_durations_in_both_languages(lang, hours, expected):
    with language(lang):
        assert hours_text(hours) == expected


def test_counts_percentages_changes_and_plurals():
    assert count(1024) == "1,024" and count(1023.6) == "1,024" and format_number(64.0) == "64" and format_number(2.25) == "2.25"
    assert percent(0.513) == "51%" and percent(0.513, 1) == "51.3%" and days(15.1) == "0.63" and days(740) == "30.8"
    assert pct_change(112, 100) == "12% more" and pct_change(70, 100) == "30% less" and pct_change(100.2, 100) == "about the same"
    assert same_unit(24.6, 15.1) == ("24.6 h", "15.1 h") and same_unit(24.6 * 24, 15.1) == ("24.6 days", "0.6 days")
    # user try 11: a 5.9-minute run's range read '0.1 h – 0.1 h'
    assert same_unit(4.4 / 60, 7.8 / 60) == ("4.4 min", "7.8 min")
    assert same_unit(1.02, 1.04) == ("1.02 h", "1.04 h") and same_unit(2.0, 2.0) == ("2.0 h", "2.0 h")
    one, many = N_(" (and 1 more problem, at {where})"), N_(" (and {n} more problems, at {where})")
    assert plural(1, one, many, where="budget") == " (and 1 more problem, at budget)"
    assert plural(3, one, many, where="a, b") == " (and 3 more problems, at a, b)"
    with language("zh"):
        assert plural(3, one, many, where="a") == "（还有 3 个问题，在 a）"


def test_a_rule_template_writes_money_as_the_memo_does():
    """'{best_cost:money}': the Chinese rule text said '18,920,282 CNY' beside 万元 elsewhere (issue 23)."""
    text = Text(en="cheapest {best_cost:money}", zh="最便宜 {best_cost:money}")
    facts = {"best_cost": 18_920_282, "currency": "CNY"}
    assert render_template(text, facts) == "cheapest 18,920,282 CNY"
    with language("zh"):
        assert render_template(text, facts) == "最便宜 1,892.03 万元"
        assert render_template(Text(en="{over_budget} {deadline_days}", zh="{over_budget} {deadline_days}"), {"over_budget": True}) == "是 未知"


def test_the_sweep_writes_money_as_the_memo_does():
    a = answers_from_mapping(with_(MINIMAL, budget={"price_per_gpu_hour": 10, "currency": "CNY"}))
    sw = sweep(a, parse_gpu_range("64,128", 8))
    with language("zh"):
        text = sweep_text(sw, 4)
    assert "万元" in text and "CNY" not in text


# ---------------------------------------------------------------- one parser


@pytest.mark.parametrize("text, expected", [("64", 64), ("1,024", 1024), ("2k", 2000), (" 4M ", 4_000_000), ("-8", -8), ("7e2", 700)])
def test_counts_parse_as_every_quantity_does(text, expected):
    assert parse_count(text) == expected and parse_quantity(text) == expected


@pytest.mark.parametrize("text", ["2.5", "seven", "", "1,00"])
def test_a_count_that_is_not_a_whole_number_is_refused(text):
    with pytest.raises(ValueError):
        parse_count(text)


FIELDS = {f.path: f for s in steps() for f in s.fields}


@pytest.mark.parametrize("path, typed, expected", [
    ("cluster.gpus", "1,024", 1024), ("cluster.gpus", "2k", 2000), ("cluster.gpus", "64", 64), ("cluster.gpus", "-8", -8),
    ("model.seq_len", "4k", 4000), ("cluster.inter_node_gbps", "1.6k", 1600.0), ("cluster.inter_node_gbps", "400", 400.0),
    ("budget.price_per_gpu_hour", "$3.5", "$3.5"), ("training.deadline_days", "3d", "3d"), ("cluster.gpus", "lots", "lots"),
    ("budget.price_per_gpu_hour", "nan", "nan"), ("model.params", "7B", "7B"), ("cluster.gpus", "", None),
])
def test_the_guided_qa_reads_numbers_with_the_answers_parser(path, typed, expected):
    got = coerce(FIELDS[path], typed)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("typed, message", [
    ("-8", "'Total GPUs': must be a positive whole number (got -8)"),
    ("2.5", "'Total GPUs': expected a whole number, got 2.5"),
    ("lots", "'Total GPUs': cannot read 'lots' as a count; write a whole number such as 64"),
])
def test_a_bad_count_typed_in_the_guided_qa_reads_as_the_cli_says_it(typed, message):
    """The CLI's words, with the field named as the screen labels it (user try 13: 'cluster.gpus：必填' at step 4)."""
    draft = default_draft()
    set_value(draft, "cluster.gpus", coerce(FIELDS["cluster.gpus"], typed))
    step = next(s for s in steps() if s.id == "gpus")
    assert (step_error(draft, step) or "").startswith(message)


@pytest.mark.parametrize("text, expected", [("1k", [1000]), ("512..1k", list(range(512, 1001, 8))), ("2K,64", [64, 2000])])
def test_sweep_counts_use_the_same_parser(text, expected):
    assert parse_gpu_range(text, 8).tolist() == expected
