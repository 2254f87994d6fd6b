"""Strict quantity parsing: '7B' is 7e9, 'seven' is an error, never a silent guess."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.units import format_quantity, parse_quantity


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


@pytest.mark.parametrize("text", ["", "seven", "7 billion", "7BB", "B7", "7,000", "1..3B", "nan", "inf", "-", "7 B B"])
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
