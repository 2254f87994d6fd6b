"""Text from users made safe to echo: the one sanitiser every path that shows or writes user text goes through.

A question, a kept answer, a checklist item or a value quoted in an error may hold terminal escape sequences (ESC [ 2 J
clears the screen, ESC ] 0 ; ... BEL retitles the window, ESC ] 52 writes the clipboard) or other control characters.
advisor echoes such text to a terminal (the reply, the memo, an error line) and into files (the memo, saved answers),
so they are removed before any of that: whole sequences, not only their ESC byte, so that no '[2J' residue is left.
Bidirectional overrides (U+202A-U+202E, U+2066-U+2069) are removed too: they reorder what a reader sees.
"""

from __future__ import annotations

import re

_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI: ESC [ (or the 8-bit CSI) parameters, intermediates, final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC up to BEL or ST
    r"|\x1b[ -/]*[0-~]?"  # any other ESC sequence (ESC c, ESC ( B, ...), or a lone ESC
)
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_LINE_BREAKS = re.compile(r"\r\n|[\r\v\f\x85\u2028\u2029]")


def plain(text: str, *, newlines: bool = False) -> str:
    """``text`` without escape sequences, control characters, bidirectional overrides or lone surrogates. Line breaks become spaces
    unless ``newlines`` (a multi-line answer): then every kind of line break is a newline and tabs are kept."""
    if text.isascii() and text.isprintable():
        return text  # the common case, untouched
    text = _SEQUENCE.sub("", text)
    text = _LINE_BREAKS.sub("\n", text)
    keep = "\n\t" if newlines else ""
    out = []
    for ch in text:
        if ch in keep:
            out.append(ch)
        elif ch in "\n\t":
            out.append(" ")
        elif ch in _BIDI or ord(ch) < 32 or 127 <= ord(ch) < 160 or "\ud800" <= ch <= "\udfff":
            continue  # a control character, an override, or a lone surrogate (a byte that was not UTF-8: not text)
        else:
            out.append(ch)
    return "".join(out)


def shown(text: str) -> str:
    """``plain`` for one line that reports a problem (an error): sequences removed, and any control character left —
    a newline included — written as its escape (\\n, \\x07), so the line stays one line and shows what was there."""
    text = _SEQUENCE.sub("", text)
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text if ch not in _BIDI)


def join_reasons(reasons: list[str] | tuple[str, ...]) -> str:
    """Several reasons as one line: each without its closing full stop, then '; ' ('needs no over-design.; Plain DDP's'
    read a stop and a semicolon together; in Chinese '。; ')."""
    from advisor.base.i18n import zh

    parts = [r.strip().rstrip("。.").rstrip() for r in reasons if r and r.strip()]
    return ("；" if zh() else "; ").join(parts)
