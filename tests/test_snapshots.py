"""Snapshot tests of every screen (SVG, deterministic: no cursor blink, no clock, fixed size).

Update only after reading the HTML report:  python -m pytest tests/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from advisor.inputs.answers import load_answers
from advisor.inputs.questions import steps
from advisor.tui.app import AdvisorApp
from advisor.tui.question import TYPING_PAUSE

from .conftest import EXAMPLES


def _app(rules, tmp_path, answers=None):
    app = AdvisorApp(rules=rules, answers=answers, cursor_blink=False, workdir=tmp_path)
    app.animation_level = "none"
    return app


async def _to_results(pilot):
    """The results on the prefilled answers, as Ctrl+R opens them. Walking there through every step costs ~3 s of CPU a
    snapshot and is tested on its own (tests/test_tui.py::test_enter_through_the_defaults_reaches_results); the
    snapshot is the same (issue 19)."""
    pilot.app.show_results()
    await pilot.pause()


async def _settled(pilot):
    """The live estimate is computed in a worker after the first paint (issue 20): the snapshot waits for it."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _opened_at(step_id):
    """The Q&A on a file's answers, opened at a step as Enter through the steps before it leaves it (the answers
    unchanged, so the screens are the same; the snapshots were the same bytes). Walking there is tested once, in
    test_review and tests/test_tui.py; 15 walks of up to 12 steps each were a tenth of the suite's time."""
    async def at_step(pilot):
        await _settled(pilot)
        screen = pilot.app.screen
        screen.index = STEP_IDS.index(step_id)
        await screen.render_step()
        await _settled(pilot)

    return at_step


class TestQuestionScreen:
    def test_first_step_at_80x24(self, snap_compare, rules, tmp_path):
        assert snap_compare(_app(rules, tmp_path), run_before=_settled, terminal_size=(80, 24))

    def test_gpu_picker(self, snap_compare, rules, tmp_path):
        assert snap_compare(_app(rules, tmp_path), run_before=_settled, press=["enter", "enter"], terminal_size=(100, 34))

    def test_error_shown_inline(self, snap_compare, rules, tmp_path):
        async def type_bad(pilot):
            await _settled(pilot)
            pilot.app.focused.value = ""
            await pilot.press(*"seven", "enter")
            await pilot.pause()

        assert snap_compare(_app(rules, tmp_path), run_before=type_bad, terminal_size=(100, 34))

    def test_light_theme(self, snap_compare, rules, tmp_path):
        assert snap_compare(_app(rules, tmp_path), run_before=_settled, press=["ctrl+t"], terminal_size=(100, 34))


class TestResultsScreen:
    def test_summary(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_to_results, terminal_size=(100, 34))

    def test_options_tab(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_to_results, press=["right"], terminal_size=(120, 34))

    def test_export_dialog(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_to_results, press=["e"], terminal_size=(100, 34))


STEP_IDS = [s.id for s in steps()]


class TestEveryStepAt80x24:
    """Issue 9: every step usable at the size most terminals open at (fields visible, live panel folded below)."""

    def test_step(self, snap_compare, rules, tmp_path, step_id):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_opened_at(step_id), terminal_size=(80, 24))

    def test_review(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_settled, press=["enter"] * len(steps()), terminal_size=(80, 24))

    def test_help(self, snap_compare, rules, tmp_path):
        assert snap_compare(_app(rules, tmp_path), run_before=_settled, press=["f1"], terminal_size=(80, 24))


class TestResultsAtBothSizes:
    def test_results_at_80x24(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_to_results, terminal_size=(80, 24))

    def test_results_at_120x40(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(_app(rules, tmp_path, answers), run_before=_to_results, terminal_size=(120, 40))


def pytest_generate_tests(metafunc):
    if "step_id" in metafunc.fixturenames:
        metafunc.parametrize("step_id", STEP_IDS)


class TestChineseAt80x24:
    """Issue 12: the Q&A in 简体中文 at 80x24 — CJK characters are two cells wide, so every line must still fit."""

    def _zh_app(self, rules, tmp_path, answers=None):
        from advisor.base.i18n import set_language

        set_language("zh")  # the conftest fixture puts English back after the test
        return _app(rules, tmp_path, answers)

    def test_first_step(self, snap_compare, rules, tmp_path):
        assert snap_compare(self._zh_app(rules, tmp_path), run_before=_settled, terminal_size=(80, 24))

    def test_price_step(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(self._zh_app(rules, tmp_path, answers), run_before=_opened_at("price"), terminal_size=(80, 24))

    def test_budget_step_with_wan(self, snap_compare, rules, tmp_path):
        async def type_wan(pilot):
            await _opened_at("budget")(pilot)
            await pilot.press("tab")
            pilot.app.focused.value = ""
            await pilot.press(*"50万")
            await pilot.pause(TYPING_PAUSE)  # the live estimate previews what is typed after this pause (issue 20)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(self._zh_app(rules, tmp_path, answers), run_before=type_wan, terminal_size=(80, 24))

    def test_help(self, snap_compare, rules, tmp_path):
        assert snap_compare(self._zh_app(rules, tmp_path), run_before=_settled, press=["f1"], terminal_size=(80, 24))

    def test_results(self, snap_compare, rules, tmp_path):
        answers = load_answers(EXAMPLES / "customer-service.yaml")
        assert snap_compare(self._zh_app(rules, tmp_path, answers), run_before=_to_results, terminal_size=(80, 24))


class TestResultsOnAFixedReport:
    """Issue 13: the results screen drawn from a frozen report (tests/data/fixed_results.json), so this snapshot pins
    layout and wording, not the estimate model's numbers: recalibrating the model leaves it unchanged."""

    @staticmethod
    def _view():
        import json
        from msgspec.structs import replace
        from pathlib import Path

        from advisor.decision.report import Report
        from advisor.tui.results import ResultsView

        data = json.loads((Path(__file__).parent / "data" / "fixed_results.json").read_text(encoding="utf-8"))
        view = ResultsView.of_report(Report.model_validate(data["report"]))
        return replace(view, memo=lambda: "# Decision memo\n\n(fixed report: the memo is tested by the golden files)\n")

    def test_fixed_report_at_80x24(self, snap_compare, rules, tmp_path):
        from advisor.tui.results import ResultsScreen

        async def show(pilot):
            await pilot.app.push_screen(ResultsScreen(view=self._view()))
            await pilot.pause()

        assert snap_compare(_app(rules, tmp_path), run_before=show, terminal_size=(80, 24))

    def test_fixed_report_options_tab_at_100x34(self, snap_compare, rules, tmp_path):
        from advisor.tui.results import ResultsScreen

        async def show(pilot):
            await pilot.app.push_screen(ResultsScreen(view=self._view()))
            await pilot.pause()
            pilot.app.screen.query_one("#tabs").active = "options"
            await pilot.pause()

        assert snap_compare(_app(rules, tmp_path), run_before=show, terminal_size=(100, 34))
