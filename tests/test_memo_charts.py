"""Issue 34: the memo's Mermaid charts read at a glance — a visible series colour, a y-axis fitted to the data, x labels
that cannot collide (markers said under the chart, not glued to a label), and 'today' only on the line of today's GPU
type. bench/render_charts.py renders them in headless Chromium and measures the same things on the drawn SVG."""

from __future__ import annotations

import re

import pytest

from advisor.base.i18n import language
from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.outputs.render import to_markdown

from .conftest import EXAMPLES

ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))
MAX_LABELS = 12


def memo(rules, example, lang="en"):
    with language(lang):
        return to_markdown(advise(load_answers(EXAMPLES / example), rules).report())


def charts(text):
    return re.findall(r"```mermaid\n(.*?)```", text, re.S)


def series(src):
    return [[float(v) for v in line.split(",")] for line in re.findall(r"(?:line|bar) \[([^\]]*)\]", src)]


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_every_chart_has_a_visible_colour_and_a_fitted_axis(rules, example):
    found = charts(memo(rules, example))
    assert found, "every example searches several counts"
    for src in found:
        assert re.search(r'%%\{init:.*"plotColorPalette": "#[0-9a-f]{6}', src), src[:200]
        top = float(re.search(r"y-axis .*?--> ([0-9.]+)", src).group(1))
        most = max(max(s) for s in series(src))
        assert most <= top <= 1.25 * most, (top, most)


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_x_labels_are_few_short_counts(rules, example, lang):
    for src in charts(memo(rules, example, lang)):
        labels = re.findall(r'"([^"]*)"', re.search(r"x-axis \[(.*)\]", src).group(1))
        assert 2 <= len(labels) <= MAX_LABELS, labels
        assert all(re.fullmatch(r"[0-9,]+", label) for label in labels), labels  # no '(today, plan)' glued on
        assert all(len(s) == len(labels) for s in series(src))


def test_the_plan_and_today_are_said_under_the_chart(rules):
    text = memo(rules, "customer-service.yaml")
    assert "Plan: 104 GPUs" in text and "today: 64 GPUs" in text


def test_today_is_not_marked_on_another_gpu_types_line(rules):
    """gpu-choice: today is 128 A100s; the what-if line is the plan's H100 (spot) at each count, so its 128 is not today."""
    text = memo(rules, "gpu-choice.yaml")
    table = text.split("## What if: other GPU counts")[1].split("```mermaid")[0]
    row = next(line for line in table.splitlines() if line.startswith("| 128 |"))
    assert "today" not in row, row
    caption = text.split("```mermaid")[1].split("```", 1)[1].split("\n\n")[1]
    assert "today" in caption and "A100" in caption and "not on this line" in caption, caption


def test_greenfield_charts_mark_the_cluster_not_today(rules):
    from advisor.inputs.answers import Answers

    from .test_pm_wording import GREENFIELD_LORA

    with language("en"):
        text = to_markdown(advise(Answers.model_validate(GREENFIELD_LORA), rules).report())
    for block in text.split("```mermaid")[1:]:
        caption = block.split("```", 1)[1].split("\n\n")[1]
        assert "today" not in caption.lower() and "your cluster" in caption, caption


@pytest.mark.parametrize("value", [0.9, 1.3, 1.55, 3.05, 305.0, 6.1, 61.0, 8.2, 1234.0, 0.0031, 0.00031])
def test_an_axis_top_is_within_a_quarter_of_the_data(value):
    # 305 GPU-hours drew a 400 axis (1.31x): the steps 3 -> 4, 1.5 -> 2 and 6 -> 8 were a third apart.
    from advisor.outputs.render import _axis_top

    assert value <= float(_axis_top(value)) <= 1.25 * value


def test_a_run_of_hours_is_charted_in_hours(rules):
    """User try 8: a 0.6 h run's caption read 'Plan: 64 GPUs, 0.0 days' on a days axis."""
    from .test_user_try8 import LEAD

    from advisor.inputs.answers import answers_from_mapping

    raw = {**LEAD, "training": {**LEAD["training"], "tokens": "200M", "deadline_days": None}}
    with language("en"):
        text = to_markdown(advise(answers_from_mapping(raw), rules).report())
    block = text.split("```mermaid")[1]
    assert "Time per run (hours) by GPU count" in text and "0.0 days" not in text
    caption = block.split("```", 1)[1].split("\n\n")[1]
    assert re.search(r"Plan: [0-9,]+ GPUs, [0-9.]+ h", caption), caption


def test_a_deadline_far_above_every_point_is_said_not_drawn(rules):
    """User try 8b: an hours chart ran its axis to a 504 h deadline and every run of 0.4-5 h lay flat on zero."""
    from .test_user_try8 import LEAD

    from advisor.inputs.answers import answers_from_mapping

    raw = {**LEAD, "training": {**LEAD["training"], "tokens": "200M"}}  # a 3-week deadline
    with language("en"):
        text = to_markdown(advise(answers_from_mapping(raw), rules).report())
    block = text.split("```mermaid")[1]
    assert len(series(block.split("```")[0])) == 1, "the deadline is not drawn as a line"
    top = float(re.search(r"y-axis .*?--> ([0-9.]+)", block).group(1))
    assert top <= 1.25 * max(series(block.split("```")[0])[0])
    assert "The 21-day deadline is far above every point, so it is not drawn." in block
