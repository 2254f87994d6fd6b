"""What every screen of the guided Q&A shares: translated key bindings, the message the live panel answers, literal text."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from advisor.base.i18n import _, N_
from advisor.tui.messages import AnswersChanged as AnswersChanged  # re-exported: its home was here


def translate_bindings(node: Any) -> None:
    """Binding descriptions are English msgids (N_) on the class; each screen shows them in the current language."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [replace(b, description=_(b.description) if b.description else b.description,
                              tooltip=_(b.tooltip) if b.tooltip else b.tooltip) for b in bindings]


TEXTUAL_WORDS = (N_("palette"),)
"""Textual's own footer words, translated with the rest (the command palette's key)."""



def _esc(text: str) -> str:
    """Keep rule text literal: '[' would otherwise start Textual markup."""
    return text.replace("[", "\\[")
