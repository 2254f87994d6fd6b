"""Languages: English (the source) and 简体中文, gettext-style.

Every user-facing string in the core and the front ends is written in English inside ``_("...")``; the English text
is the message id, and ``data/i18n/zh.yaml`` maps it to Chinese. A test (tests/test_i18n.py) reads every ``_()``
call in the source and checks the catalog has each one, with the same ``{placeholders}``, and nothing stale.
Rule texts carry both languages in the rule YAML instead (``{en: ..., zh: ...}``), validated at load.

The current language is a context variable: the CLI sets it from ``--lang`` / ``ADVISOR_LANG`` / the locale, the
TUI at start-up; library callers can use ``with language("zh"):``.
"""

from __future__ import annotations

import os
import re
import unicodedata
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from functools import cache
from typing import Any
from collections.abc import Iterator, Mapping

LANGUAGES = ("en", "zh")

_current: ContextVar[str] = ContextVar("advisor_language", default="en")


def detect(env: Mapping[str, str] | None = None) -> str:
    """ADVISOR_LANG if set, else the locale (LC_ALL, LC_MESSAGES, LANG): zh_* means Chinese."""
    source: Mapping[str, str] = os.environ if env is None else env
    chosen = source.get("ADVISOR_LANG", "").strip().lower()
    if chosen:
        return normalise(chosen)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = source.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def normalise(lang: str) -> str:
    """'zh', 'zh_CN.UTF-8', 'zh-Hans', 'cn', '中文' -> 'zh'; 'en', 'en_US' -> 'en'; anything else is refused."""
    low = lang.strip().lower()
    if low.startswith(("zh", "cn")) or low in ("中文", "chinese"):
        return "zh"
    if low.startswith("en") or low in ("english", "c", "posix"):
        return "en"
    raise ValueError(f"unknown language {lang!r}; use en or zh")


def set_language(lang: str) -> None:
    _current.set(normalise(lang))


@contextmanager
def language(lang: str) -> Iterator[None]:
    token = _current.set(normalise(lang))
    try:
        yield
    finally:
        _current.reset(token)


@cache
def catalog(lang: str) -> dict[str, str]:
    """msgid -> translation for ``lang`` (empty for English, the source language)."""
    if lang == "en":
        return {}
    from advisor.base.safeload import parse_trusted_cached

    data = parse_trusted_cached(Path(__file__).resolve().parents[1] / "data" / "i18n" / f"{lang}.yaml") or {}
    return {str(k): str(v) for k, v in data.items()}


_ONE_GPUS = re.compile(r"(?<![\d.,])1 (GPU|node)s\b")


def singular(text: str) -> str:
    """'1 GPUs' -> '1 GPU' (and nodes): messages say '{gpus} GPUs', and a one-GPU job is a real answer. English only;
    Chinese has no plural."""
    return _ONE_GPUS.sub(r"1 \1", text) if "1 " in text else text


def _(msgid: str, /, **values: Any) -> str:
    """The current language's text for ``msgid``, with ``{name}`` placeholders filled from ``values``."""
    lang = _current.get()
    text = catalog(lang).get(msgid, msgid) if lang != "en" else msgid
    if not values:
        return text
    text = text.format(**values)
    return singular(text) if lang == "en" else _CJK_GAP.sub("", text)


_CJK_GAP = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")
"""One space between two Chinese characters, left where a template's space met a value that starts or ends in Chinese
('假如 训练方式', '实测的 3.0 天 是在'): Chinese runs on without spaces. Runs of spaces (a column's padding) stay."""


def N_(msgid: str, /) -> str:
    """Marks a string for translation where it is defined (a constant); ``_(msgid)`` translates it where it is shown."""
    return msgid


def zh() -> bool:
    return _current.get() == "zh"


def written_in_chinese(text: str) -> bool:
    """Whether ``text`` holds a CJK ideograph (U+4E00-U+9FFF): a question asked in Chinese."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def width(text: str) -> int:
    """Terminal columns: CJK characters take two (Unicode East Asian Width W/F), so f-string padding misaligns them."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def clip(text: str, cols: int) -> str:
    """``text`` cut to ``cols`` terminal columns, at the last space that leaves room for '…' where there is one (a
    word is not cut in half: 'needs 29.0 GB p'), else at the column (Chinese has no spaces)."""
    if width(text) <= cols:
        return text
    out, used = [], 0
    for ch in text:
        w = width(ch)
        if used + w > cols - 1:
            break
        out.append(ch)
        used += w
    cut = "".join(out)
    space = cut.rfind(" ")
    if space > cols // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：") + "…"


def pad(text: str, cols: int, right: bool = False) -> str:
    """Pad to ``cols`` terminal columns (left-aligned, or right-aligned)."""
    fill = " " * max(0, cols - width(text))
    return fill + text if right else text + fill
