"""Issue 22 item 4: the results screen draws time and cost against GPU count (textual-plotext), at 80x24, in both languages."""

from __future__ import annotations

import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.base.i18n import language
from advisor.tui.app import AdvisorApp
from advisor.tui.results import ResultsScreen

from .conftest import EXAMPLES


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_chart_tab_draws_time_and_cost_with_today_and_the_plan(rules, tmp_path, lang):
    with language(lang):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        advice = advise(answers, rules)
        app = AdvisorApp(rules=rules, answers=answers, cursor_blink=False, workdir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.push_screen(ResultsScreen(advice, tab="chart"))
            await pilot.pause()
            screen = app.screen
            view = screen.view
            assert len(view.chart) >= 5 and sum(p.today for p in view.chart) == 1 and sum(p.plan for p in view.chart) == 1
            for widget in ("#chart-days", "#chart-cost"):
                plot = screen.query_one(widget)
                assert plot.size.width >= 70
                text = plot.render().plain
                assert plot.render().plain == text, "a second render (resize, theme switch) draws the same chart"
                assert "┌" in text and any(f"{p.gpus:,}" in text for p in view.chart), text[:200]
            await pilot.press("tab")  # moving on from the chart must not break the screen
            assert getattr(app, "internal_error", None) is None
