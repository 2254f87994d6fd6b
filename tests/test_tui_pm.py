"""Issue 34: the guided Q&A as a PM meets it at 80x24 — an error is seen where it is made and no toast contradicts it, a
choice list moves the live estimate, `b` goes back to the review, Esc leaves the Ask box, and a dialog asked for just
before leaving the results never opens over the Q&A nor writes files."""

from __future__ import annotations

from advisor.inputs.answers import load_answers
from advisor.tui.app import AdvisorApp, LivePanel, PathDialog, QuestionScreen, ResultsScreen
from advisor.tui.dialogs import ReviewScreen

from .conftest import EXAMPLES
from .test_tui_trust import SMALL, settle, step_to, to_results


def make_app(rules, tmp_path):
    return AdvisorApp(rules=rules, cursor_blink=False, workdir=tmp_path)


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_an_invalid_duration_shows_its_error_on_screen_and_no_toast_says_it_was_used(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await step_to(pilot, "training")
        screen.query_one("#f2").value = "-3"  # days one run takes: refused
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen) and app.screen.step.id == "training"
        error = screen.query_one("#error")
        assert str(error.render()).strip(), "the error is written"
        visible = screen.query_one("#question").region
        assert error.region.height and visible.contains_region(error.region), (error.region, visible)
        assert not any("-3" in t or "Using the known" in t for t in toasts(app)), toasts(app)
        assert app.draft["training"].get("tokens") == "1T", "nothing was used"


async def test_moving_a_choice_list_moves_the_live_estimate(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await step_to(pilot, "gpu")
        await pilot.pause(0.3)
        await settle(pilot)
        panel = screen.query_one(LivePanel)
        before = panel.advice
        assert before is not None and before.answers.cluster.gpu == "a100-80gb"
        chosen = screen.query_one("#f0")
        target = next(i for i, c in enumerate(screen.step.fields[0].choices) if c.value == "h100-sxm")
        chosen.highlighted = target  # the arrow keys do this one row at a time
        for _ in range(10):
            await pilot.pause(0.1)
            if panel.advice is not None and panel.advice.answers.cluster.gpu == "h100-sxm":
                break
        assert panel.advice is not None and panel.advice.answers.cluster.gpu == "h100-sxm"
        assert app.draft["cluster"]["gpu"] == "a100-80gb", "previewed, not accepted"


async def back_to_the_review(pilot, app) -> None:
    """From a fresh Q&A to the results, then b: the review of every answer."""
    await settle(pilot)
    await to_results(pilot)
    await pilot.press("b")
    await settle(pilot)
    assert isinstance(app.screen, ReviewScreen), app.screen


async def test_b_on_the_results_goes_back_to_the_review(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await back_to_the_review(pilot, app)
        await pilot.press("escape")  # and the review's Esc goes on back to the last step
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen)


async def test_escape_leaves_the_ask_box(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        await pilot.press("slash")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "ask-input"
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is None or app.focused.id != "ask-input"
        await pilot.press("b")  # a key of the results again, not a letter typed into the question
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)


async def step_onto(pilot, tab_id: str):
    """Onto ``tab_id`` with one ']' from the tab before it: what stepping onto a tab does is tested; the tabs before it are
    opened directly (rendering each on the way cost ~1.5 s of CPU a tab)."""
    tabs = pilot.app.screen.query_one("#tabs")
    panes = [p.id for p in tabs.query("TabPane")]
    tabs.active = panes[panes.index(tab_id) - 1]
    await settle(pilot)
    await pilot.press("right_square_bracket")
    await settle(pilot)
    return tabs


async def test_stepping_onto_ask_puts_the_keys_in_the_question_box(rules, tmp_path):
    """] onto the Ask tab left the keys with the screen: typing 'what is MFU' opened the save dialog at its 's' (user try
    2026-12-06). Now the question is typed into the box."""
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        tabs = await step_onto(pilot, "ask")
        assert tabs.active == "ask"
        await pilot.press(*"what is mfu")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "ask-input"
        assert app.focused.value == "what is mfu"
        assert type(app.screen).__name__ == "ResultsScreen", app.screen_stack


async def test_a_then_b_leaves_no_dialog_over_the_questions_and_writes_nothing(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        results = app.screen
        results.action_artifacts()  # `a`, and `b` before the launch dialog is up (a fast typist, a slow machine)
        results.action_back()
        await settle(pilot)
        await pilot.pause(0.2)
        assert not any(isinstance(s, PathDialog) for s in app.screen_stack), app.screen_stack
        assert not any(isinstance(s, ResultsScreen) for s in app.screen_stack)
        await pilot.press("enter")  # whatever has the focus now, Enter must not confirm a dialog's default path
        await settle(pilot)
        assert not (tmp_path / "launch").exists()
        assert not any(isinstance(s, PathDialog) for s in app.screen_stack)


async def test_the_summary_and_questions_tabs_show_no_rule_ids_or_seed_tags(rules, tmp_path):
    app = AdvisorApp(rules=rules, answers=load_answers(EXAMPLES / "customer-service.yaml"), cursor_blink=False, workdir=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        report = app.screen.view.report
        ids = {fr.id for fr in report.fired_rules}
        for widget in ("#why-list", "#questions-list", "#headline"):
            text = str(app.screen.query_one(widget).render())
            assert "seed:" not in text and not any(i in text for i in ids), (widget, text[:300])


async def test_runs_a_month_is_asked_with_the_budget(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        await screen.jump_to(next(i for i, s in enumerate(screen.state.steps) if s.id == "budget"))  # walking there costs ~2 s
        await settle(pilot)
        index = next(i for i, f in enumerate(screen.step.fields) if f.path == "training.runs_per_month")
        field = screen.query_one(f"#f{index}")
        field.focus()
        await settle(pilot)
        assert screen.query_one("#question").region.contains_region(field.region), "on screen when focused at 80x24"
        field.value = "4"
        await pilot.press("enter")
        await settle(pilot)
        assert app.draft["training"]["runs_per_month"] == 4


async def test_the_review_says_a_new_projects_framework_in_words(rules, tmp_path):
    """User try 8: the Review read '团队现在用的框架: none' — the file's value, untranslated."""
    from advisor.base.i18n import language

    with language("zh"):
        app = make_app(rules, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await back_to_the_review(pilot, app)
            row = next(r for r in app.screen.rows if "团队现在用的框架" in r)
            assert "团队现在用的框架: 还没开始训练" in row and ": none" not in row, row


async def test_keys_typed_ahead_of_the_step_onto_ask_go_into_the_question_box(rules, tmp_path):
    """']' onto Ask and a question typed at once, as a terminal delivers them (all queued before the app has drawn the
    tab): the letters reached the screen's keys before the box took the focus — '?' opened the help, 'a' the launch
    dialog, 'q' quit (user try at 80x24, 2026-12-07). Keys queued behind the step now go into the box."""
    from textual import events

    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        tabs = pilot.app.screen.query_one("#tabs")
        tabs.active = "chart"
        await settle(pilot)
        for key, char in [("right_square_bracket", "]"), *((c if c.isalnum() else {" ": "space", "?": "question_mark"}[c], c)
                                                            for c in "what gpu should we buy?")]:
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)  # no wait between keys: a fast typist, a slow machine
        await settle(pilot)
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "ResultsScreen", app.screen_stack
        assert tabs.active == "ask"
        assert app.focused is not None and app.focused.id == "ask-input" and app.focused.value == "what gpu should we buy?"
        assert not (tmp_path / "launch").exists()


async def test_a_late_focus_of_a_pane_stepped_past_does_not_pull_the_tabs_back(rules, tmp_path):
    """] pressed fast from Summary stopped on Chart: each step focuses its pane after the next refresh, the memo's landed
    behind its drawing, after the tabs had moved on, and Textual's TabbedContent shows the pane of a focused widget
    (TabPane.Focused) — one ] was lost and the question typed next went to the screen's keys (user try at 80x24,
    2026-12-07). The late focus of the memo, with Ask showing, now leaves Ask showing and its box focused."""
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        tabs = await step_onto(pilot, "ask")
        app.screen._focus_pane("memo")  # what the step onto Memo had scheduled, run late
        await settle(pilot)
        assert tabs.active == "ask", tabs.active
        assert app.focused is not None and app.focused.id == "ask-input"


async def test_a_fine_tunes_data_fields_are_not_labelled_optional(rules, tmp_path):
    """User try 15: '微调样本数（可选）' on step 13 while the footer said '还不完整：第 13/13 步还需要回答' for a LoRA whose
    examples it asks; the other fields there stay '(optional)'."""
    from textual.widgets import Label

    app = make_app(rules, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        await screen.jump_to(next(i for i, s in enumerate(screen.state.steps) if s.id == "advanced"))
        await settle(pilot)
        labels = [str(w.render()) for w in screen.query(Label).results() if "field-label" in w.classes]
        said = {text.split("  ")[0]: "optional" in text for text in labels}
        assert said.get("Fine-tuning examples") is False and said.get("Tokens per example") is False, said
        assert said.get("Host RAM per node (GB)") is True, said


async def test_the_ask_hint_offers_a_gpu_count_of_this_plans_size(rules, tmp_path):
    """User try 15: 'what if we only get 128 GPUs?' was the hint shown to a team planning on 8; it now offers half the
    plan's count."""
    app = AdvisorApp(rules=rules, answers=load_answers(EXAMPLES / "customer-service-finetune.yaml"), cursor_blink=False, workdir=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        gpus = app.screen.view.report.recommendation.gpus
        hint = str(app.screen.query_one("#ask-hint").render())
        assert f"what if we only get {max(1, gpus // 2)} GPUs?" in hint and (gpus // 2 == 128 or "128 GPUs" not in hint), hint


def test_the_network_placeholder_is_a_node_figure_like_its_hint():
    """'例如 200' beside a hint giving an A100 node's 8 x 200 = 1600: the placeholder read as per card."""
    from advisor.inputs.questions import steps

    [step] = [s for s in steps() if s.id == "network"]
    [field] = [f for f in step.fields if f.path == "cluster.inter_node_gbps"]
    assert "1600" in field.placeholder and "1600" in step.why


async def test_the_memo_checkbox_draws_its_x_only_when_ticked(rules, tmp_path):
    """User try 15: '▐X▌ Questions in the memo: no' — the X drawn in both states, told apart by colour alone."""
    app = AdvisorApp(rules=rules, answers=load_answers(EXAMPLES / "customer-service-finetune.yaml"), cursor_blink=False, workdir=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await to_results(pilot)
        box = app.screen.query_one("#ask-memo")
        shown = str(box.render())
        assert ("X" in shown.split(" ")[0]) is box.value, shown
        box.value = not box.value
        await settle(pilot)
        shown = str(box.render())
        assert ("X" in shown.split(" ")[0]) is box.value, shown
