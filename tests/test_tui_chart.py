"""Issue 22 item 4: the results screen draws time and cost against GPU count (textual-plotext), at 80x24, in both languages."""

from __future__ import annotations

import re

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


async def chart_text(rules, tmp_path, example, lang="en", view=None, answers=None):
    """The two plots' text at 80x24 (or the view given, for a made-up one; ``answers`` in place of an example's)."""
    from advisor.tui.results import ResultsView

    with language(lang):
        answers = answers if answers is not None else load_answers(EXAMPLES / example)
        advice = advise(answers, rules)
        app = AdvisorApp(rules=rules, answers=answers, cursor_blink=False, workdir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.push_screen(ResultsScreen(advice, view=view(advice) if view else ResultsView.of(advice), tab="chart"))
            await pilot.pause()
            screen = app.screen
            plots = [screen.query_one(w) for w in ("#chart-days", "#chart-cost")]
            return screen, [p.render().plain if p.display else "" for p in plots], str(screen.query_one("#chart-key").render())


def y_labels(text):
    return [line.split("┤")[0].strip() for line in text.splitlines() if "┤" in line]


async def test_the_cost_axis_has_round_labels_and_starts_at_zero(rules, tmp_path):
    """gpu-choice: costs from 131,373 to 136,259 USD (±4%) were drawn on a 131,373..136,259 axis labelled 174133.1-style,
    a wobble shown as zigzags across the whole height."""
    _screen, (days, cost), _key = await chart_text(rules, tmp_path, "gpu-choice.yaml")
    for text in (days, cost):
        labels = y_labels(text)
        assert labels and all(re.fullmatch(r"[0-9][0-9,]*", label) for label in labels), labels  # whole, grouped
        assert labels[-1] == "0", labels  # from zero: the wobble is drawn to scale
    rows = [line for line in cost.splitlines() if "┤" in line or "│" in line][:-1]
    drawn = [i for i, line in enumerate(rows) if re.search(r"[\u2801-\u28ff]", line.split("┤")[-1].split("│")[-1] if "┤" in line else line[9:])]
    assert drawn and max(drawn) - min(drawn) <= 3, cost  # ±4% of the height, not all of it


async def test_one_searched_count_shows_one_line_not_two_empty_boxes(rules, tmp_path):
    from msgspec.structs import replace

    from advisor.tui.results import ResultsView

    def one_point(advice):
        view = ResultsView.of(advice)
        return replace(view, chart=tuple(q for q in view.chart if q.today))

    screen, texts, key = await chart_text(rules, tmp_path, "customer-service.yaml", view=one_point)
    assert texts == ["", ""], "no empty boxes"
    assert "64" in key and "GPU" in key, key


async def test_today_is_not_marked_on_another_gpu_types_line(rules, tmp_path):
    screen, _texts, key = await chart_text(rules, tmp_path, "gpu-choice.yaml")
    assert not any(p.today for p in screen.view.chart), "the line is the plan's H100 (spot): 128 of them are not today's A100s"
    assert "A100" in key, key


@pytest.mark.parametrize("lang, title", [("en", "Time per run (hours) by GPU count"), ("zh", None)])
async def test_a_run_of_hours_is_charted_in_hours(rules, tmp_path, lang, title):
    """User try 11: a 0.3 h LoRA drew 'Time per run (days)' on an axis of 0-0.015; the memo's chart already said hours."""
    from advisor.base.i18n import _ as tr

    screen, (time_text, _cost), _key = await chart_text(rules, tmp_path, "customer-service-finetune.yaml", lang)
    with language(lang):
        hours_title = title or tr("Time per run (hours) by GPU count")
    assert max(q.days for q in screen.view.chart) < 2.0
    assert hours_title in time_text, time_text[:300]
    assert all(re.fullmatch(r"[0-9][0-9,.]*", label) for label in y_labels(time_text))
