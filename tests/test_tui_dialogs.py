"""Dialogs at 80x24: a long question wraps inside the dialog (review: the quit question was cut off at 80 columns)."""

from __future__ import annotations

import pytest

from advisor.base.i18n import _, language
from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import ConfirmDialog


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_quit_question_is_shown_whole_at_80_columns(rules, tmp_path, lang):
    with language(lang):
        question = _("Quit without saving your answers? (s on the results screen saves them)")
        app = AdvisorApp(rules=rules, cursor_blink=False, workdir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.push_screen(ConfirmDialog(question, yes=_("Quit")))
            await pilot.pause()
            label = app.screen.query_one("Label")
            # the whole question is laid out: on one line it fits, or it wraps onto more
            assert len(question) <= label.region.width or label.region.height >= 2, (label.region, question)
            assert label.region.right <= app.screen.query_one(".dialog").region.right
