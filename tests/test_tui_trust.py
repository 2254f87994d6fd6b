"""Issue 9: the guided Q&A never crashes on bad input, loses no field at 80x24, and keeps answers coherent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from advisor.questions import steps
from advisor.rules import load_rules
from advisor.tui.app import AdvisorApp, QuestionScreen, ResultsScreen

SMALL = (80, 24)


def make_app(rules, tmp_path, answers=None):
    return AdvisorApp(rules=rules, answers=answers, cursor_blink=False, workdir=tmp_path)


async def settle(pilot):
    await pilot.pause()
    await pilot.pause()


async def type_into_focused(pilot, text):
    pilot.app.focused.value = ""
    pilot.app.focused.insert_text_at_cursor(text)
    await settle(pilot)


async def step_to(pilot, step_id):
    """Enter through the steps until the one with this id is shown."""
    for _ in range(len(steps()) + 2):
        screen = pilot.app.screen
        if isinstance(screen, QuestionScreen) and screen.step.id == step_id:
            return screen
        await pilot.press("enter")
        await settle(pilot)
    raise AssertionError(f"never reached step {step_id}")


def error_text(screen) -> str:
    return str(screen.query_one("#error").render())


@pytest.mark.parametrize("step_id, text", [("model", "1e999"), ("training", "1e999")])
async def test_an_overflowing_number_is_an_error_not_a_crash(rules, tmp_path, step_id, text):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await step_to(pilot, step_id)
        await type_into_focused(pilot, text)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, QuestionScreen) and app.screen.step.id == step_id
        assert "too large" in error_text(screen) or "finite" in error_text(screen)


@pytest.mark.parametrize("text", ["7B [/x]", "[b]7B", "7B [dense]"])
async def test_markup_in_what_was_typed_is_shown_literally(rules, tmp_path, text):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await type_into_focused(pilot, text)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running
        assert text in error_text(app.screen)


async def test_the_currency_error_shows_its_rule_not_a_mangled_pattern(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await step_to(pilot, "price")
        screen.query_one("#f1").value = "US$"
        await pilot.press("enter")
        await settle(pilot)
        shown = error_text(app.screen)
        assert "[A-Za-z]" in shown or "letters" in shown, shown


async def test_a_huge_paste_into_a_number_field_is_refused_quickly(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await step_to(pilot, "gpus")
        start = time.perf_counter()
        await type_into_focused(pilot, "9" * 100_000 + "x")
        await pilot.press("enter")
        await settle(pilot)
        assert time.perf_counter() - start < 5
        assert app.is_running and isinstance(app.screen, QuestionScreen)


@pytest.mark.parametrize("name", ["~nosuchuser-advisor/memo.md", "x" * 300 + ".md", "locked/memo.md"])
async def test_an_unwritable_export_path_is_reported_not_raised(rules, tmp_path, name):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    app = make_app(rules, tmp_path)
    try:
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            for _ in steps():
                await pilot.press("enter")
                await settle(pilot)
            assert isinstance(app.screen, ResultsScreen)
            for key in ("e", "s", "a"):
                await pilot.press(key)
                await settle(pilot)
                dialog = app.screen
                dialog.query_one("#path").value = name.replace("memo", f"memo-{key}")
                await pilot.press("enter")
                await settle(pilot)
                assert app.is_running, key
                if not isinstance(app.screen, ResultsScreen):
                    await pilot.press("escape")
                    await settle(pilot)
            assert len(app.notices) >= 3 and all("\n" not in n for n in app.notices)
    finally:
        locked.chmod(0o700)
    if not (Path.home().parent / "nosuchuser-advisor").exists():
        assert not list(tmp_path.glob("*.md"))


async def test_a_rule_text_with_markup_does_not_wedge_the_results(tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "markup.yaml").write_text(
        "pack: markup\nrules:\n  - id: markup-item\n    title: Markup in text\n    source: seed:K19\n    priority: 10\n"
        "    when: {all: []}\n    then:\n      checklist: ['Check [/x] and [b]bold[/b] stay literal']\n"
        "      questions: ['Is [/x] shown?']\n"
    )
    rules = load_rules([pack])
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for _ in steps():
            await pilot.press("enter")
            await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        app.screen.query_one("#tabs").active = "checklist"
        await settle(pilot)
        app.screen.query_one("#tabs").active = "questions"
        await settle(pilot)
        assert app.is_running


def test_a_crash_in_the_app_exits_non_zero(monkeypatch, capsys):
    """If the app ever does crash (Textual then sets return_code 1), `advisor` must not report success."""
    from advisor import cli
    from advisor.tui import app as tui_app

    def crashed_run(self, *args, **kwargs):
        self._return_code = 1

    monkeypatch.setattr(tui_app.AdvisorApp, "run", crashed_run)
    monkeypatch.setattr(cli.sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(cli.sys.stdout, "isatty", lambda: True, raising=False)
    assert cli.main(["tui"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "advisor:" in err
