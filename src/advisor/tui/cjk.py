"""Line breaking for Chinese in the terminal UI.

Textual wraps text at whitespace only (textual._wrap.chunks: a chunk is a run of non-space characters), which suits
English and fails Chinese, written without spaces: at 80 columns a sentence ran on to the next line whole from its last
space, leaving a line 20 cells short ('请填团队现在训练用的' / 'GPU（已知…'). Chinese may break between any two characters,
except before a closing mark ('，' '。' '）' …), which stays with the character before it (the kinsoku rule of CJK
typesetting). Latin words keep Textual's behaviour.

The chunk patterns are module globals read on every call (Textual's ``_wrap.re_chunk``, Rich's ``_wrap.re_word``, which
Textual's Content wraps with); ``install`` replaces them when the TUI starts. A release that renames them is left as it
is (the text still shows, wrapped at spaces).
"""

from __future__ import annotations

import re

CJK = ("\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
       "\ufe30-\ufe4f\uff00-\uffef")
"""Characters of Chinese (and Japanese) text and full-width punctuation (curly quotes are left to the Latin rule:
English uses them inside words, as in don’t)."""
CLOSING = "，。；：、？！）」』”’》〉】…"
"""Marks that never begin a line: each stays with the character before it."""

UNITS = "亿万千百元天张卡块个次倍号"
"""Units written straight after a number ('70亿', '5天', '3倍'): kept on the number's line."""

CHUNK = re.compile(rf"[{CJK}][{CLOSING}]*\s*|[^\s{CJK}]*[0-9][{UNITS}][{CLOSING}]*\s*|[^\s{CJK}]+[{CLOSING}]*\s*|\s+")
"""One chunk per Chinese character (with the closing marks after it), a number with its unit, else Textual's own: a
word and its spaces."""


def install() -> bool:
    """Make the wrappers the TUI draws with break Chinese between characters: Textual's (text areas) and Rich's, which
    Textual's Content (labels, statics, the summary) calls. False where either module has changed its pattern's name."""
    from rich import _wrap as rich_wrap
    from textual import _wrap as textual_wrap

    done = True
    for module, name in ((textual_wrap, "re_chunk"), (rich_wrap, "re_word")):
        if isinstance(getattr(module, name, None), re.Pattern):
            setattr(module, name, CHUNK)
        else:
            done = False
    return done
