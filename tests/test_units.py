"""Strict quantity parsing: '7B' is 7e9, 'seven' is an error, never a silent guess."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.base.units import format_quantity, parse_quantity


@pytest.mark.parametrize(
    "text, expected",
    [
        ("7B", 7e9), ("1.3b", 1.3e9), ("70e9", 70e9), ("1T", 1e12), ("500M", 5e8), ("2.5k", 2500.0),
        (" 13B ", 13e9), ("125m", 125e6), (".5T", 5e11), (7, 7.0), (1.5e9, 1.5e9), ("1e3", 1000.0), ("4G", 4e9),
    ],
)
def test_quantities_parse_to_the_number_they_name(text, expected):
    """Each accepted spelling gives exactly the number it names."""
    assert parse_quantity(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["", "seven", "7 bilion", "7BB", "B7", "7,00", "1,0000", "70亿亿", "亿", "1..3B", "nan", "inf", "-", "7 B B"])
def test_unreadable_quantities_are_refused(text):
    """Anything but number + one suffix is an error, not a guess."""
    with pytest.raises(ValueError):
        parse_quantity(text)


@pytest.mark.parametrize("value", [True, False, None, [7], {"b": 7}, float("nan"), float("inf")])
def test_non_numbers_are_refused(value):
    """Booleans (an int subclass), containers and non-finite floats are errors."""
    with pytest.raises(ValueError):
        parse_quantity(value)


@given(st.floats(min_value=1e-3, max_value=1e15, allow_nan=False), st.sampled_from(["", "K", "M", "B", "T"]))
def test_number_and_suffix_round_trip(number, suffix):
    """Writing a float with a suffix and parsing it back returns the scaled float."""
    scale = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[suffix]
    assert math.isclose(parse_quantity(f"{number!r}{suffix}"), number * scale, rel_tol=1e-12)


@pytest.mark.parametrize("value, text", [(7e9, "7B"), (1.3e9, "1.3B"), (1e12, "1T"), (2.5e6, "2.5M"), (512, "512")])
def test_quantities_format_for_humans(value, text):
    assert format_quantity(value) == text


# ---------------------------------------------------------------- numbers as people write them (issue 12)

from advisor.base.units import parse_duration, parse_money  # noqa: E402


@pytest.mark.parametrize("text, expected", [
    ("7B", 7e9), ("7 billion", 7e9), ("7 Billion", 7e9), ("70亿", 7e9), ("7e9", 7e9), ("1.3 million", 1.3e6),
    ("1万亿", 1e12), ("500,000", 5e5), ("1,000,000", 1e6), ("500k", 5e5), ("50万", 5e5), ("50 万", 5e5), ("3千亿", 3e11),
])
def test_quantities_as_people_write_them(text, expected):
    assert parse_quantity(text) == pytest.approx(expected)


@pytest.mark.parametrize("text, amount, currency", [
    ("500,000", 5e5, None), ("500k", 5e5, None), ("50万", 5e5, None), ("¥10", 10, "CNY"), ("￥10", 10, "CNY"),
    ("10元", 10, "CNY"), ("50万元", 5e5, "CNY"), ("10 人民币", 10, "CNY"), ("RMB 10", 10, "CNY"), ("$2.5", 2.5, "USD"), ("2.5 USD", 2.5, "USD"),
])
def test_money_as_people_write_it(text, amount, currency):
    assert parse_money(text) == (pytest.approx(amount), currency)


@pytest.mark.parametrize("text", ["ten yuan", "¥", "10元元", "$10元"])
def test_unreadable_money_shows_an_accepted_form(text):
    with pytest.raises(ValueError, match="500k|50万|two currencies|10元"):
        parse_money(text)


@pytest.mark.parametrize("text, unit, expected", [
    ("3d", "days", 3), ("3 days", "days", 3), ("3天", "days", 3), ("72h", "days", 3), ("72小时", "days", 3), ("2 weeks", "days", 14),
    ("2周", "days", 14), ("3", "days", 3), ("3d", "hours", 72), ("72h", "hours", 72), ("1.5天", "hours", 36),
])
def test_durations_as_people_write_them(text, unit, expected):
    assert parse_duration(text, unit) == pytest.approx(expected)


def test_an_unreadable_duration_shows_an_accepted_form():
    with pytest.raises(ValueError, match="3天"):
        parse_duration("three days", "days")
