"""Strict parsing of human quantities such as "7B", "1.3b", "70e9", "1T", "500M".

Strict means: a number, optionally one magnitude suffix, nothing else. "7 billion", "7BB",
"seven" and "" are refused, so a typo never silently becomes a different model size.
"""

from __future__ import annotations

import math
import re

SUFFIXES: dict[str, float] = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
"""Magnitude suffixes (case-insensitive). "G" is accepted as a synonym of "B" (giga)."""

_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?\s*([kKmMbBgGtT])?\s*$")


def parse_quantity(value: object) -> float:
    """Return a finite float from a number or a suffixed string; raise ValueError otherwise.

    Raises:
        ValueError: with a message meant to be shown to the user after the field name.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got a boolean ({str(value).lower()})")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        match = _QUANTITY.match(value)
        if not match:
            raise ValueError(f"cannot read {value!r} as a quantity; write a number such as 7e9 or 7B (suffixes: K, M, B, T)")
        mantissa, exponent, suffix = match.groups()
        number = float(mantissa) * (10.0 ** int(exponent) if exponent else 1.0)
        if suffix:
            number *= SUFFIXES[suffix.lower()]
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
