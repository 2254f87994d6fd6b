"""Strict parsing of human quantities such as "7B", "1.3b", "70e9", "1T", "500M".

Strict means: a number, optionally one magnitude suffix, nothing else. "7 billion", "7BB",
"seven" and "" are refused, so a typo never silently becomes a different model size.
"""

from __future__ import annotations

import math
import re

SUFFIXES: dict[str, float] = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
"""Magnitude suffixes (case-insensitive). "G" is accepted as a synonym of "B" (giga)."""

_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?\s*(?:([kKmMbBgGtT])\s*)?$")
"""Linear-time by construction: no two adjacent parts can match the same characters, so a long non-match fails fast."""

MAX_QUANTITY_CHARS = 64
"""Longer text is refused before any parsing (a paste of 100 KB of digits must not stall the app)."""


def parse_quantity(value: object) -> float:
    """Return a finite float from a number or a suffixed string; raise ValueError otherwise.

    Raises:
        ValueError: with a message meant to be shown to the user after the field name.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got a boolean ({str(value).lower()})")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            raise ValueError("is too large to be a quantity") from None
    elif isinstance(value, str):
        if len(value) > MAX_QUANTITY_CHARS:
            raise ValueError(f"is {len(value):,} characters long; write a number such as 7e9 or 7B")
        match = _QUANTITY.match(value)
        if not match:
            raise ValueError(f"cannot read {value!r} as a quantity; write a number such as 7e9 or 7B (suffixes: K, M, B, T)")
        mantissa, exponent, suffix = match.groups()
        number = float(f"{mantissa}e{exponent or 0}")  # float() saturates to inf instead of raising, unlike 10.0 ** 999
        if suffix:
            number *= SUFFIXES[suffix.lower()]
        if math.isinf(number):
            raise ValueError(f"{value.strip()!r} is too large to be a quantity")
    else:
        raise ValueError(f"expected a number or a string such as '7B', got {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError("must be a finite number (NaN and infinity are not allowed)")
    return number


def format_quantity(value: float, unit: str = "") -> str:
    """Render 7e9 as '7B', 1.3e9 as '1.3B', 1e12 as '1T' (for labels and memos)."""
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(value) >= scale:
            text = f"{value / scale:.3g}"
            return f"{text}{suffix}{unit}"
    return f"{value:.3g}{unit}"
