"""Strict parsing of numbers as people write them: "7B", "7 billion", "70亿", "7e9", "500,000", "500k", "50万",
money "¥10" / "10元" / "$2.5", durations "3d" / "3天" / "72h".

Strict means: a number, optionally one magnitude word, optionally (for money) one currency mark and (for durations)
one time unit, nothing else. "7BB", "seven", "1,00" and "" are refused, so a typo never silently becomes a different
model size. Every pattern is linear-time: a long non-match fails fast.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
import re
from typing import Any

from advisor.base.i18n import N_, _, zh

SUFFIXES: dict[str, float] = {
    "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12,
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
    "千": 1e3, "万": 1e4, "十万": 1e5, "百万": 1e6, "千万": 1e7, "亿": 1e8, "十亿": 1e9, "百亿": 1e10, "千亿": 1e11, "万亿": 1e12,
    "w": 1e4,
}
"""Magnitude suffixes (case-insensitive). "G" is accepted as a synonym of "B" (giga); 万 is 10^4 and 亿 10^8, and "w"
(wan) is 万 as Chinese readers type it ('50w', '3w': user try 9); a duration reads '2w' as two weeks (parse_duration
tries its units first)."""

MEASURE_WORDS = ("张卡", "块卡", "张", "块", "卡", "台", "条样本", "个样本", "条数据", "样本", "条", "轮", "次", "个参数", "参数",
                 "个", "tokens", "token")
"""Words a count is written with after its number, read and dropped: '4张', '4卡', '30万条', '3轮', '140亿参数', '2T
tokens' (user try 9: a Chinese PM's counts were refused with parameter-count examples)."""

_SUFFIX_RX = "|".join(sorted((re.escape(s) for s in SUFFIXES), key=len, reverse=True))
_MEASURE_RX = "|".join(sorted((re.escape(s) for s in MEASURE_WORDS), key=len, reverse=True))
_NUMBER = r"([+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?|[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+))?"
_QUANTITY = re.compile(rf"^\s*{_NUMBER}\s*(?:({_SUFFIX_RX})\s*)?(?:(?:{_MEASURE_RX})\s*)?$", re.IGNORECASE)
"""A number (thousands may be grouped with commas: 500,000), an optional exponent, an optional magnitude word. A sign is
read too, so '-8' typed for a GPU count is refused by the field's range ('must be a positive whole number (got -8)'),
not as unreadable text."""

_CN_NUMERAL_RX = "[一二两三四五六七八九十]{1,3}"
_CN_QUANTITY = re.compile(rf"^\s*({_CN_NUMERAL_RX})\s*(?:(?:{_MEASURE_RX})\s*)?$")
"""A count written in Chinese numerals up to 99, with its measure word or without ('十六', '十六张', '三轮'): read as the
digits are (user try 14: '十六' was refused where '70亿' was read)."""

CURRENCY_MARKS: dict[str, str] = {
    "¥": "CNY", "￥": "CNY", "元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "yuan": "CNY",
    "$": "USD", "美元": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD", "€": "EUR", "eur": "EUR", "欧元": "EUR",
    "euros": "EUR", "euro": "EUR", "£": "GBP", "gbp": "GBP",
}
"""Currency marks written before or after an amount, and the ISO code each means."""

_MARK_RX = "|".join(sorted((re.escape(m) for m in CURRENCY_MARKS), key=len, reverse=True))
_MONEY = re.compile(rf"^\s*(?:({_MARK_RX})\s*)?(.*?)\s*(?:({_MARK_RX}))?\s*$", re.IGNORECASE)

WORKING_DAY_HOURS = 24.0 * 7.0 / 5.0
"""A working day as calendar time: five of them to a seven-day week, so '10个工作日' is two weeks ahead."""

DURATION_UNITS: dict[str, float] = {
    "h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "小时": 1.0, "个小时": 1.0, "时": 1.0,
    "d": 24.0, "day": 24.0, "days": 24.0, "天": 24.0, "日": 24.0,
    "w": 168.0, "wk": 168.0, "week": 168.0, "weeks": 168.0, "周": 168.0, "星期": 168.0, "个星期": 168.0, "个礼拜": 168.0,
    "working days": WORKING_DAY_HOURS, "working day": WORKING_DAY_HOURS, "business days": WORKING_DAY_HOURS,
    "工作日": WORKING_DAY_HOURS, "个工作日": WORKING_DAY_HOURS,
    "month": 720.0, "months": 720.0, "个月": 720.0,
}
"""Time units in hours; a month is 30 days, as the monthly cadence counts it (decision.facts.HOURS_PER_MONTH)."""

_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _is_cn_number(text: str) -> bool:
    """A well-formed Chinese number up to 99 ('十六', '二十', '三'), not a run of digits ('十十', '三三')."""
    if "十" not in text:
        return len(text) == 1
    tens, _sep, ones = text.partition("十")
    if "十" in ones or len(tens) > 1 or len(ones) > 1:
        return False
    return tens != "两"  # twenty is 二十, never 两十


def cn_number(text: str) -> int:
    """A Chinese number up to 99: '七' 7, '两' 2, '十' 10, '十六' 16, '二十' 20, '三十二' 32."""
    if "十" not in text:
        return int("".join(str(_CN_DIGITS[ch]) for ch in text))
    tens, _sep, ones = text.partition("十")
    return (_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[ones] if ones else 0)


_UNIT_RX = "|".join(sorted((re.escape(u) for u in DURATION_UNITS), key=len, reverse=True))
_DURATION = re.compile(rf"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+|{_CN_NUMERAL_RX})\s*({_UNIT_RX})\s*$", re.IGNORECASE)

MAX_QUANTITY_CHARS = 64
"""Longer text is refused before any parsing (a paste of 100 KB of digits must not stall the app)."""

EXAMPLES = N_("write a number such as 7e9, 7B, 7 billion or 70亿 (suffixes: K, M, B, T, 万, 亿)")
UNITS = (N_("hours"), N_("days"))


def parse_quantity(value: object) -> float:
    """Return a finite float from a number or a suffixed string; raise ValueError otherwise.

    Raises:
        ValueError: with a message meant to be shown to the user after the field name.
    """
    if isinstance(value, bool):
        raise ValueError(_("expected a number, got a boolean ({value})", value=str(value).lower()))
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(_("is too large to be a quantity")) from None
    elif isinstance(value, str):
        if len(value) > MAX_QUANTITY_CHARS:
            raise ValueError(_("is {n} characters long; {examples}", n=count(len(value)), examples=_(EXAMPLES)))
        cn = _CN_QUANTITY.match(value)
        if cn and _is_cn_number(cn.group(1)):
            return float(cn_number(cn.group(1)))
        match = _QUANTITY.match(value)
        if not match:
            raise ValueError(_("cannot read {value} as a number; {examples}", value=repr(value), examples=_(EXAMPLES)))
        mantissa, exponent, suffix = match.groups()
        number = float(f"{mantissa.replace(',', '')}e{exponent or 0}")  # float() saturates to inf instead of raising
        if suffix:
            number *= SUFFIXES[suffix.lower()]
        if math.isinf(number):
            raise ValueError(_("{value} is too large to be a quantity", value=repr(value.strip())))
    else:
        raise ValueError(_("expected a number or a string such as '7B', got {kind}", kind=type(value).__name__))
    if not math.isfinite(number):
        raise ValueError(_("must be a finite number (NaN and infinity are not allowed)"))
    return number


def as_written(number: float) -> int | float:
    """A number as a person writes it: an integral float (16.0, from a parser that reads every number as a float) as
    the int 16, where it is one exactly (finite, below 2**53); any other number unchanged. Error messages quote it so
    ('got -8', not '-8.0') and saved answers keep it so (gpus: 16)."""
    if math.isfinite(number) and number.is_integer() and abs(number) < 2 ** 53:
        return int(number)
    return number


def parse_count(value: object) -> int:
    """A whole number as people write it (64, '1,024', '2k'); raise ValueError otherwise (a fraction included)."""
    number = parse_quantity(value)
    if not number.is_integer():
        raise ValueError(_("expected a whole number, got {value}", value=repr(value)))
    return int(number)


def split_money(value: object) -> tuple[object, str | None]:
    """('50万', 'CNY') from '¥50万' or '50万元'; (value, None) when no currency mark is written."""
    if not isinstance(value, str) or len(value) > MAX_QUANTITY_CHARS:
        return value, None
    m = _MONEY.match(value)
    if not m:
        return value, None
    before, amount, after = m.groups()
    marks = {CURRENCY_MARKS[x.lower()] for x in (before, after) if x}
    if len(marks) > 1:
        raise ValueError(_("{value} names two currencies; write one, e.g. ¥10 or 10元", value=repr(value)))
    return amount, (marks.pop() if marks else None)


def parse_money(value: object) -> tuple[float, str | None]:
    """An amount as people write it — 500000, '500,000', '500k', '50万', '¥10', '10元', '$2.5' — and the currency
    its mark names, if any."""
    amount, currency = split_money(value)
    try:
        return parse_quantity(amount), currency
    except ValueError:
        if isinstance(value, str) and isinstance(amount, str) and _QUANTITY.match(amount) is None:
            raise ValueError(_("cannot read {value} as an amount; write e.g. 500000, 500,000, 500k, 50万, ¥10 or 10元", value=repr(value))) from None
        raise


_PER_HOUR_RX = r"(?:/|每|per\s*|an?\s+)\s*(?:gpu\s*[- ]?\s*)?(?:小时|卡时|hours?|hrs?|h)"
_PER_HOUR = re.compile(rf"\s*{_PER_HOUR_RX}\s*$", re.IGNORECASE)
_PER_HOUR_SCHEMA = (r"(?:/|每|[pP][eE][rR]\s*|[aA][nN]?\s+)\s*(?:[gG][pP][uU]\s*[- ]?\s*)?"
                    r"(?:小时|卡时|[hH][oO][uU][rR][sS]?|[hH][rR][sS]?|[hH])")
"""_PER_HOUR_RX spelled for a JSON Schema pattern (no flags, so each letter is a class; _any_case would break its \\s)."""


def strip_per_hour(value: object) -> object:
    """A price as written with its unit of time, which a price per GPU-hour already is: '20元/小时', '20元每小时',
    '$2.5/h', '2.5 per GPU-hour' are 20元, $2.5, 2.5 (user try 9: '20元/小时' was refused). Other values unchanged."""
    if isinstance(value, str) and len(value) <= MAX_QUANTITY_CHARS:
        return _PER_HOUR.sub("", value)
    return value


def parse_duration(value: object, unit: str) -> float:
    """A duration in ``unit`` ('hours' or 'days'): a bare number is already in that unit; '3d', '3 days', '3天',
    '72h', '72小时', '2 weeks', '2周' are converted."""
    if isinstance(value, str) and len(value) <= MAX_QUANTITY_CHARS:
        m = _DURATION.match(value)
        if m:
            amount = m.group(1)
            number = float(amount) if amount[0] in "0123456789." else float(cn_number(amount))  # '两周' (user try 9)
            hours = number * DURATION_UNITS[m.group(2).lower()]
            return hours if unit == "hours" else hours / 24.0
        try:
            return parse_quantity(value)
        except ValueError:
            raise ValueError(_("cannot read {value} as a duration; write e.g. 3 (in {unit}), 3d, 3 days, 3天, 72h or 72小时", value=repr(value), unit=_(unit))) from None
    return parse_quantity(value)


# ------------------------------------------------------------------------------ the same grammar as JSON Schema patterns


def _any_case(alternation: str) -> str:
    """A Python alternation matched case-insensitively, spelled for a JSON Schema (ECMA 262) pattern, which has no
    flags: every ASCII letter becomes a two-letter class."""
    return re.sub(r"[A-Za-z]", lambda m: f"[{m.group(0).lower()}{m.group(0).upper()}]", alternation)


_QUANTITY_BODY = rf"{_NUMBER}\s*(?:(?:{_any_case(_SUFFIX_RX)})\s*)?(?:(?:{_any_case(_MEASURE_RX)})\s*)?"
_MARK_ANY = _any_case(_MARK_RX)


def quantity_pattern() -> str:
    """What parse_quantity reads from text, as a JSON Schema pattern ('7B', '7 billion', '70亿', '2,000,000', '7e9')."""
    return rf"^\s*(?:{_QUANTITY_BODY}|{_CN_NUMERAL_RX}\s*(?:(?:{_any_case(_MEASURE_RX)})\s*)?)$"


def money_pattern() -> str:
    """What parse_money reads from text: a quantity with one optional currency mark before or after ('$3.5', '50万元')."""
    return rf"^\s*(?:(?:{_MARK_ANY})\s*)?{_QUANTITY_BODY}(?:(?:{_MARK_ANY})\s*)?$"


def price_pattern() -> str:
    """What a price per GPU-hour reads from text: an amount (money_pattern), with its unit of time or without."""
    return rf"^\s*(?:(?:{_MARK_ANY})\s*)?{_QUANTITY_BODY}(?:(?:{_MARK_ANY})\s*)?(?:\s*{_PER_HOUR_SCHEMA}\s*)?$"


def duration_pattern() -> str:
    """What parse_duration reads from text: a number with a time unit ('3d', '72小时', '2 weeks'), or a quantity."""
    return rf"^\s*(?:([0-9]+(?:\.[0-9]*)?|\.[0-9]+|{_CN_NUMERAL_RX})\s*(?:{_any_case(_UNIT_RX)})\s*|{_QUANTITY_BODY})$"


def format_quantity(value: float, unit: str = "") -> str:
    """Render 7e9 as '7B', 1.3e9 as '1.3B', 1e12 as '1T' (for labels and memos)."""
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(value) >= scale:
            text = f"{value / scale:.3g}"
            return f"{text}{suffix}{unit}"
    return f"{value:.3g}{unit}"


# ------------------------------------------------------------------------------ formatting: the one home
# Every number a person reads is written by one of these, in the current language (issue 23): counts, plain numbers,
# money (yuan as a Chinese reader writes them: 万元, 亿元), durations (h / days, 小时 / 天), percentages and plurals.
# Babel is not used: its zh_CN currency format writes "¥46,100.00" and US$ amounts with a locale's symbol, not the
# 46.1 万元 the seed article and the Chinese memo use, and every format here is one line of Python.


def format_number(value: float) -> str:
    """Readable numbers: 64 not 64.0, 1,234 not 1234.0, 0.42 not 0.4199999."""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        # A value given with two decimals (a 1.25-day deadline, a 2.25 price) is shown as given, not rounded to 1.2.
        return f"{value:.2f}".rstrip("0").rstrip(".") if round(value, 2) == value else f"{value:.1f}"
    return f"{value:.2g}"


def token_amount(value: float) -> str:
    """A token count as the field writes it: '1T', '1.5T', '55.4B', '307.2M' ('1,000B' read as a typo for 1T)."""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= scale:
            return f"{format_number(round(value / scale, 1))}{unit}"
    return count(value)


def token_text(value: float) -> str:
    """A token count in a sentence, to a tenth of its unit: '614.4M', '260B'; in Chinese in 万 and 亿 as a Chinese reader counts
    ('6.14 亿'), not 'M' (user try 2026-12-06)."""
    if zh():
        return readable_figure(value)
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(value) >= scale:
            return f"{value / scale:,.1f}".removesuffix(".0") + unit
    return count(value)


def count(value: float) -> str:
    """A whole count, grouped: 1,024 (GPUs, tokens, steps, GPU-hours); a fraction is rounded."""
    return f"{value:,.0f}"


def gpu_hours_text(value: float) -> str:
    """GPU-hours as a reader checks them against price x GPUs: whole above 100, one decimal below, two below 0.1 ('GPU-h
    2 at 25 CNY/GPU-hour x 16 GPUs' beside 42.93 CNY read as a sum that did not add up, where it was 1.7; user try 14)."""
    if value >= 100:
        return count(value)
    return f"{value:,.2f}" if value < 0.1 else f"{value:,.1f}"


SMALL_MONEY = 100.0
"""Below this an amount keeps two decimals: whole units read a 4.32 CNY run and a 4.67 CNY option both as '4 CNY', beside
'8% more' (user try 2026-12-06)."""


def money_pair(low: float, high: float, currency: str) -> tuple[str, str]:
    """Two amounts of one range in one unit, the larger's: '8.32 万元 – 13.08 万元', not '83,231 元 – 13.08 万元' (user try 8)."""
    lo, hi = money_column([low, high], currency)
    return lo, hi


def money_column(values: Sequence[float], currency: str) -> list[str]:
    """Amounts of one table column (or one compared row) in one unit, the largest's: in Chinese '9.98 万元' above
    '10.04 万元', not '99,810 元' (user try 8: rows straddling 10 万元 read as two scales). An amount that would read
    below 0.01 of that unit keeps its own ('665 元' in a column of 万元), so no row reads as zero."""
    if zh() and currency.upper() == "CNY" and values and max(abs(v) for v in values) >= 1e5:
        scale, unit = (1e8, "亿元") if max(abs(v) for v in values) >= 1e8 else (1e4, "万元")
        return [f"{_trim(v / scale)} {unit}" if abs(v) / scale >= 0.01 else money(v, currency) for v in values]
    return [money(v, currency) for v in values]


def money(value: float, currency: str) -> str:
    """'46,100 CNY'; in Chinese, yuan as a Chinese reader writes them: '46,100 元', '46.1 万元', '1.2 亿元'; under
    SMALL_MONEY, to the cent without trailing zeros ('4.32 CNY', '4 CNY')."""
    amount = _trim(value) if abs(value) < SMALL_MONEY else f"{value:,.0f}"
    if zh() and currency.upper() == "CNY":
        if abs(value) >= 1e8:
            return f"{_trim(value / 1e8)} 亿元"
        if abs(value) >= 1e5:
            return f"{_trim(value / 1e4)} 万元"
        return f"{amount} 元"
    return f"{amount} {currency}"


def readable_figure(value: float) -> str:
    """A bound or a typed value as a person reads it, never in scientific notation (issue 34: 'between 1e6 and 1e14'):
    0.001, 36,500, 1 million / 100 trillion (100 万 / 100 万亿 in Chinese); a value past any scale or below a
    thousandth is said as such."""
    v = abs(value)
    sign = "-" if value < 0 else ""
    if v == 0 or 1e-3 <= v < 1e6:
        return f"{value:,.6g}" if v < 1e6 else f"{value:,.0f}"
    if v < 1e-3:
        return _("less than {n}", n=sign + "0.001")
    if v > 1e18:
        return _("more than {n}", n=sign + readable_figure(1e18))
    if zh():  # Chinese counts in 万 (10^4), 亿 (10^8) and 万亿 (10^12), as money() writes yuan
        scale, word = (1e12, "万亿") if v >= 1e12 else (1e8, "亿") if v >= 1e8 else (1e4, "万")
        n = v / scale  # hundreds of 万 to the whole one: '1,192.76 万个适配器参数' read as false precision (user try 13)
        return f"{sign}{n:,.0f} {word}" if n >= 100 else f"{sign}{_trim(n)} {word}"
    if v >= 1e12:
        return sign + _("{n} trillion", n=_trim(v / 1e12))
    if v >= 1e9:
        return sign + _("{n} billion", n=_trim(v / 1e9))
    return sign + _("{n} million", n=_trim(v / 1e6))


def money_unit(currency: str) -> str:
    """The currency as a unit beside a bare number ('10 CNY per GPU-hour', an axis): in Chinese the yuan is 元, as
    money() writes it, so one memo never says '10 CNY' beside '46,082 元' (issue 34)."""
    return "元" if zh() and currency.upper() == "CNY" else currency


def _trim(x: float) -> str:
    """Two decimals without trailing zeros: 46.08, 46.1, 50."""
    return f"{x:,.2f}".rstrip("0").rstrip(".")


SHORT_HOURS = 1.0
"""Below this a duration is said in minutes: one decimal of an hour read a 2-minute LoRA as '0.0 h' (user try 2026-12-06),
and every option of a 6-to-7-minute LoRA as '0.1 h' beside costs 10% apart, a reservation of 'up to 0.1 h' (user try 14)."""


def data_size(gb: float) -> str:
    """A size given in GB as a reader wants it: megabytes below 1 GB (LoRA's adapters: '0.0 GB' said nothing), one decimal
    up to 1,000 GB, whole gigabytes above ('94 MB', '26.0 GB', '1,820 GB')."""
    if gb < 1:
        return _("{n} MB", n=f"{gb * 1000:,.0f}")
    return _("{n} GB", n=f"{gb:,.1f}") if gb < 1000 else _("{n} GB", n=f"{gb:,.0f}")


def seconds_text(s: float) -> str:
    """A short duration in seconds, with two decimals below one and one below ten ('0.04 s', '3.5 s', '12 s'), where
    hours_text would read '0.0 min'."""
    return _("{n} s", n=f"{s:,.2f}" if s < 1 else f"{s:,.1f}" if s < 10 else f"{s:,.0f}")


def hours_text(h: float) -> str:
    """Hours below two days, days above: '36.0 h', '3.0 days' ('36.0 小时', '3.0 天'); under an hour, minutes ('6.4 min')."""
    if h < SHORT_HOURS:
        return _("{n} min", n=f"{h * 60:,.1f}")
    return _("{n} days", n=f"{h / 24:,.1f}") if h >= 48 else _("{n} h", n=f"{h:,.1f}")


def hours_against(h: float, limit: float) -> str:
    """A duration said beside a limit it passes or meets: as hours_text, with a second decimal where one decimal would read
    the same as the limit ('takes 2.0 days, past the 2-day deadline' read as a contradiction; user try 2026-12-05)."""
    said = hours_text(h)
    if h != limit and said == hours_text(limit):
        return _("{n} days", n=f"{h / 24:,.2f}") if h >= 48 else _("{n} h", n=f"{h:,.2f}")
    return said


def same_unit(a: float, b: float) -> tuple[str, str]:
    """Two durations in one unit, so they compare at a glance: both in days when either is two days or more."""
    if max(a, b) >= 48:
        return _("{n} days", n=f"{a / 24:,.1f}"), _("{n} days", n=f"{b / 24:,.1f}")
    if max(a, b) < SHORT_HOURS or (min(a, b) < SHORT_HOURS and max(a, b) < 1.0):
        # a range around a few minutes in minutes: '5.9 min (range 0.1 h – 0.1 h)' said nothing (user try 11)
        return _("{n} min", n=f"{a * 60:,.1f}"), _("{n} min", n=f"{b * 60:,.1f}")
    places = 1 if f"{a:,.1f}" != f"{b:,.1f}" or a == b else 2  # two ends that read alike at one decimal get a second
    return _("{n} h", n=f"{a:,.{places}f}"), _("{n} h", n=f"{b:,.{places}f}")


def days(hours: float) -> str:
    """A duration in days as a bare number for a column headed in days: 0.63, 9.50, 30.8."""
    d = hours / 24.0
    return f"{d:,.2f}" if d < 10 else f"{d:,.1f}"


def percent(fraction: float, places: int = 0) -> str:
    """0.513 -> '51%' (places=1: '51.3%')."""
    return f"{fraction:.{places}%}"


ABOUT_THE_SAME = 0.005
"""Within half a percent, pct_change says 'about the same' (and a note that weighs the difference treats it so)."""


def more_than_about_the_same(new: float, old: float) -> bool:
    """``new`` is more than ``old`` by what pct_change would say as a figure ('3% more'), not as 'about the same'."""
    return old > 0 and new / old - 1.0 >= ABOUT_THE_SAME


def pct_change(new: float, old: float) -> str:
    """'12% more', '30% less', 'about the same' (within half a percent: ABOUT_THE_SAME)."""
    if old <= 0:
        return _("n/a")
    d = new / old - 1.0
    if abs(d) < ABOUT_THE_SAME:
        return _("about the same")
    # Around 5% (the cost tie, decide.COST_TIE) to a tenth: '(5% less): costs within 5% are a tie' read as a contradiction
    # for 4.5% (user try 2026-12-07).
    # Below one percent, one decimal too: '(1% less)' in the summary beside the sweep's '0.6% less' for the same two
    # options read as two figures (user try 14).
    places = 1 if 0.045 <= abs(d) < 0.055 or abs(d) < 0.0095 else 0
    return _("{pct} more", pct=percent(d, places)) if d > 0 else _("{pct} less", pct=percent(-d, places))


def plural(n: float, one: str, many: str, **values: Any) -> str:
    """``one`` or ``many`` (both marked N_ where written) by the count, translated, ``{n}`` filled: Chinese has one form,
    and its catalog gives both msgids the same text."""
    return _(one if n == 1 else many, n=format_number(n), **values)
