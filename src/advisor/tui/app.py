"""The guided Q&A: `advisor` with no arguments.

A thin front end. Steps, explanations and validation come from ``advisor.inputs.questions``; estimates,
rules and the memo from the core. Screens only move values between widgets and their own copy of the answers; they
read the session through ``advisor.tui.state`` and send every change up as a message (``advisor.tui.messages``),
which this app handles — it alone assigns the session's state (issue 23 item 7). The estimate is computed in a thread
worker and posted back; the core (numpy, the estimate, the report models, the plots, markdown) is imported only once
the first question is on screen (issue 20).
"""

from __future__ import annotations

from collections.abc import Iterable
from msgspec.structs import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
import copy

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import WorkerFailed

from advisor.base.errors import AdvisorError
from advisor.base.i18n import _, N_, language, zh
from advisor.inputs.questions import draft_from, steps, validate
from advisor.knowledge.rules import RuleSet
from advisor.outputs.io import shown, write_atomic
from advisor.tui import cjk
from advisor.tui.common import AnswersChanged, translate_bindings
from advisor.tui.dialogs import GLOSSARY, ConfirmDialog, HelpScreen, PathDialog, ReviewScreen
from advisor.tui.look import load_theme, save_theme
from advisor.tui.messages import (AdoptWhatIf, ChecklistTicked, ConversationTurn, DraftAccepted, DraftTyped, EditWanted, EstimateReady, ExportWanted,
                                  MemoQuestions, ResultsWanted)
from advisor.tui.question import LivePanel, QuestionScreen, first_problem

if TYPE_CHECKING:
    from advisor.decision.advice import Advice
    from advisor.inputs.answers import Answers


# ------------------------------------------------------------------------------ the app



cjk.install()  # Chinese wraps between characters, not only at its spaces (tui/cjk.py)

def adopted_text(change: dict[str, Any]) -> str:
    """The toast for an adopted what-if, in the fields' labels, with a removed value said as such: 'Adopted cluster.gpus
    = 8, …, cluster.candidates = None' stood on a Chinese screen (user try 14)."""
    from advisor.inputs.questions import field_label

    def shown(v: Any) -> str:
        if v is None:
            return _("none")
        if isinstance(v, list):
            return ", ".join(str(c.get("gpu", c)) if isinstance(c, dict) else str(c) for c in v)
        return str(v)

    said = _(", ").join(f"{field_label(k)} = {shown(v)}" for k, v in change.items())
    return _("Adopted {change}; s saves the answers.", change=said)


class AdvisorApp(App[None]):
    """advisor's guided Q&A."""

    CSS_PATH = "app.tcss"
    TITLE = "advisor"
    SUB_TITLE = N_("distributed-training decision")
    BINDINGS = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("ctrl+t", "toggle_theme", N_("Theme"), show=False),
    ]

    def __init__(self, rules: RuleSet, answers: Answers | None = None, cursor_blink: bool = True, workdir: Path | None = None,
                 draft: dict[str, Any] | None = None, show_tracebacks: bool = False, source: Path | None = None) -> None:
        """``draft``: the answers file as written (its '7B' stays '7B'); it may hold one invalid field, which the Q&A
        opens on, marked, instead of refusing the file. ``show_tracebacks`` (--debug, ADVISOR_DEBUG=1): an internal
        error prints Textual's full traceback on exit; without it the app only keeps the error in ``internal_error``
        for the CLI's one line."""
        super().__init__()
        self.show_tracebacks = show_tracebacks
        self.internal_error: BaseException | None = None
        translate_bindings(self)
        self.sub_title = _(self.SUB_TITLE)
        self.rules = rules
        self.steps = steps()
        self.draft: dict[str, Any] = copy.deepcopy(draft) if draft is not None else draft_from(answers)
        self._defaults = draft is None and answers is None
        """Started on the shipped defaults, which hold at every step (tests/test_tui.py): the first step opens without
        validating them, so the answers model (pydantic) loads after the first question is drawn (issue 20)."""
        self.cursor_blink = cursor_blink
        self.workdir = workdir or Path.cwd()
        self.source = source
        """The answers file the app was opened on (--answers FILE): Save offers it, the memo and launch files its
        directory; they offered answers.yaml and decision-memo.md in the working directory, and a save left the opened
        file as it was (user try 14)."""
        self.last_advice: Advice | None = None
        self._estimating: dict[str, Any] | None = None
        """The draft the latest estimate worker was started for: an older worker's result is dropped."""
        self.notices: list[str] = []
        done = (self.draft.get("project") or {}).get("checklist_done") if isinstance(self.draft.get("project"), dict) else None
        self.checked: list[str] = [str(x) for x in done] if isinstance(done, list) else (list(answers.project.checklist_done or ()) if answers else [])
        project = self.draft.get("project")
        kept = project.pop("conversation", None) if isinstance(project, dict) else None
        self.conversation: list[dict[str, str]] = [dict(t) for t in kept if isinstance(t, dict)] if isinstance(kept, (list, tuple)) else []
        """Questions asked on the results screen and their answers (project.conversation when saved)."""
        self.memo_questions = False
        """The exported memo carries the conversation as an appendix (ticked on the Ask tab)."""
        self._saved_conversation = len(self.conversation)
        self._saved = (copy.deepcopy(self.draft), list(self.checked))
        """What is on disk (the file it came from, or nothing changed yet): quitting asks only when this differs."""

    def _handle_exception(self, error: Exception) -> None:
        """An unhandled exception (a bug) ends the app, as in Textual; it is kept for the CLI's one-line report (a bug in
        the estimate's worker is reported as itself, not as the worker that failed)."""
        if self.internal_error is None:
            self.internal_error = error.error if isinstance(error, WorkerFailed) and isinstance(error.error, Exception) else error
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        """Textual renders a Rich traceback with locals (thousands of lines) to print on exit: only when asked."""
        if self.show_tracebacks:
            super()._fatal_error()
            return
        self._close_messages_no_wait()

    def on_mount(self) -> None:
        saved = load_theme()
        if saved:
            self.theme = saved
        start, problem = (0, None) if self._defaults else first_problem(self.draft, self.steps)
        self.push_screen(QuestionScreen(start, problem))

    # -- core calls ---------------------------------------------------------------------

    @staticmethod
    def advise_draft(draft: dict[str, Any], rules: RuleSet) -> tuple[Advice | None, str | None]:
        """The advice for a draft, or None and why not: the one call to the core, from the worker or the app. Answers not
        complete yet give no reason here: each caller says where (first_problem), or 'not complete yet'."""
        answers, _errors = validate(draft)
        if answers is None:
            return None, None
        from advisor.decision.advice import advise

        try:
            return advise(answers, rules), None
        except AdvisorError as exc:
            return None, exc.msg

    def compute(self) -> tuple[Advice | None, str | None]:
        advice, problem = self.advise_draft(self.draft, self.rules)
        if advice is not None:
            self.last_advice = advice
        return advice, problem

    def show_results(self) -> None:
        advice, problem = self.compute()
        if advice is None:
            index, missing = first_problem(self.draft, self.steps)
            if missing:  # which step and what: 'not complete yet' alone left a LoRA's missing data to be guessed (user try)
                problem = _("Step {n} ({title}): {problem}", n=index + 1, title=self.steps[index].title, problem=missing)
            self.notify(problem or _("The answers are not complete yet."), severity="error", markup=False)
            return
        from advisor.tui.results import ResultsScreen, ResultsView

        self.push_screen(ResultsScreen(advice, ResultsView.of(advice, tuple(self.checked))))

    # -- messages from the screens: the only place the session changes ------------------

    def on_draft_accepted(self, message: DraftAccepted) -> None:
        self.draft = message.draft
        answers, _errors = validate(message.draft)
        if answers is not None:
            self.post_message(AnswersChanged(answers))
        self.estimate(message.draft)

    def on_draft_typed(self, message: DraftTyped) -> None:
        self.estimate(message.draft)

    def estimate(self, draft: dict[str, Any]) -> None:
        """Recompute the live estimate in a thread worker; the newest request wins (issue 20: typing no longer waits)."""
        self._estimating = draft
        self._estimate_worker(draft, "zh" if zh() else "en")

    @work(thread=True, exclusive=True, group="estimate")
    def _estimate_worker(self, draft: dict[str, Any], lang: str) -> None:
        with language(lang):  # a thread does not inherit the language's context variable
            advice, problem = self.advise_draft(draft, self.rules)
            if advice is None and problem is None:
                # which step still needs an answer: 'not complete yet' stood from step 2 to 13 of a LoRA, whose data is
                # asked last, with no word of where (user try 13)
                index, missing = first_problem(draft, self.steps)
                problem = (_("Not complete yet: step {n} of {total} still needs an answer.", n=index + 1, total=len(self.steps))
                           if missing else _("The answers are not complete yet."))
        self.post_message(EstimateReady(draft, advice, problem))

    def on_estimate_ready(self, message: EstimateReady) -> None:
        if message.draft is not self._estimating:
            return  # a newer draft is being estimated
        # the session's draft by content: a preview of the same answers (a typing pause that ends after the step was kept)
        # is a different dict, and read by identity the advice of the answers as kept never landed (a CI flake, 2026-12-07)
        if message.advice is not None and message.draft == self.draft:
            self.last_advice = message.advice
        for screen in self.screen_stack:
            for panel in screen.query(LivePanel).results(LivePanel):
                panel.show(message.advice, message.problem)

    def on_results_wanted(self, _message: ResultsWanted) -> None:
        self.show_results()

    async def on_edit_wanted(self, _message: EditWanted) -> None:
        """`b` on the results: the review of every answer, over the questions. An export asked for just before (`a` then
        `b`) is cancelled, and its dialog, if it got on screen, goes too: nothing is left over the Q&A, nothing written."""
        self.workers.cancel_group(self, "export")
        while len(self.screen_stack) > 1 and not isinstance(self.screen, QuestionScreen):
            await self.pop_screen()
        if isinstance(self.screen, QuestionScreen):
            await self.screen.review_again()

    def on_checklist_ticked(self, message: ChecklistTicked) -> None:
        self.checked = list(message.items)

    def on_conversation_turn(self, message: ConversationTurn) -> None:
        self.conversation.append({"question": message.question, "answer": message.answer})

    def on_memo_questions(self, message: MemoQuestions) -> None:
        self.memo_questions = message.included

    def on_adopt_what_if(self, message: AdoptWhatIf) -> None:
        """The what-if becomes the answers: the draft takes the change, the advice is recomputed on a new results screen."""
        from advisor.outputs.ask import with_change
        from advisor.tui.results import ResultsScreen, ResultsView

        before = self.draft
        self.draft = with_change(self.draft, message.change)
        advice, problem = self.compute()
        if advice is None:
            self.draft = before
            self.notify(problem or _("The answers are not complete yet."), severity="error", markup=False)
            return
        self.notify(adopted_text(message.change), markup=False)
        self.switch_screen(ResultsScreen(advice, ResultsView.of(advice, tuple(self.checked)), tab="ask"))

    def on_export_wanted(self, message: ExportWanted) -> None:
        {"memo": self.export_memo, "answers": self.save_answers, "launch": self.export_artifacts}[message.what]()

    def unsaved(self) -> bool:
        """The answers mean something other than what is on disk ('7B' typed over 7e9 is no change)."""
        def meaning(draft: dict[str, Any]) -> Any:
            answers, _errors = validate(draft)
            return answers.model_dump(exclude={"project": {"checklist_done"}}) if answers else draft

        typed = self.screen.typed_draft() if isinstance(self.screen, QuestionScreen) else None
        if typed is not None and meaning(typed) != meaning(self.draft):
            return True  # typed on the step and not yet kept with Enter (user try 8: Ctrl+Q right after an edit lost it unasked)
        return (meaning(self.draft) != meaning(self._saved[0]) or self.checked != self._saved[1]
                or len(self.conversation) != self._saved_conversation)

    async def action_quit(self) -> None:
        """Quit, asking first while the answers differ from what was loaded or last saved."""
        if not self.unsaved():
            self.exit()
            return
        self.push_screen(ConfirmDialog(_("Quit without saving your answers? (s on the results screen saves them)"), yes=_("Quit")),
                         lambda ok: self.exit() if ok else None)

    def answers_with_checks(self, advice: Advice) -> Advice:
        """The advice as exported: its answers carry the ticked checklist items."""
        project = advice.answers.project.model_copy(update={"checklist_done": tuple(self.checked)})
        return replace(advice, answers=advice.answers.model_copy(update={"project": project}))

    # -- exports ------------------------------------------------------------------------

    def default_path(self, name: str) -> str:
        """What a save or export dialog offers: the opened answers file itself for the answers ('answers.yaml'), else
        ``name`` beside it; ``name`` in the working directory where no file was opened."""
        if self.source is None:
            return name
        target = self.source if name == "answers.yaml" else self.source.parent / name
        if target.is_absolute() and target.is_relative_to(self.workdir):
            return str(target.relative_to(self.workdir))  # as short as the user would type it
        return str(target)

    def _resolve(self, name: str) -> Path | None:
        """The path typed in a dialog, or None (and a one-line notice) when it names no usable place."""
        try:
            p = Path(name).expanduser()
        except RuntimeError:  # '~someone' for a user that does not exist
            self._report(_("{path}: no such user's home directory", path=shown(name)), error=True)
            return None
        return p if p.is_absolute() else self.workdir / p

    @work(exclusive=True, group="export")
    async def export_memo(self) -> None:
        """Ask where, confirm an overwrite, write: one worker awaiting its dialogs (push_screen_wait), no callbacks."""
        if self.last_advice is None:
            return
        from advisor.outputs.render import to_markdown

        memo = to_markdown(self.answers_with_checks(self.last_advice).report(), conversation=self.conversation if self.memo_questions else None)
        await self._write_with_confirm(_("Export the decision memo to:"), self.default_path("decision-memo.md"), memo, _("memo"))

    @work(exclusive=True, group="export")
    async def save_answers(self) -> None:
        if self.last_advice is None:
            return
        from advisor.outputs.ask import answers_yaml

        # The draft keeps what was typed ('7B', '1T'), not the model's 7000000000.0.
        data = {section: {k: v for k, v in values.items() if v is not None} for section, values in self.draft.items()}
        data = {section: values for section, values in data.items() if values}
        if self.checked:
            data.setdefault("project", {})["checklist_done"] = list(self.checked)
        if self.conversation:
            data.setdefault("project", {})["conversation"] = [dict(t) for t in self.conversation]
        text = _("# advisor answers (saved from the guided Q&A); run: advisor advise FILE") + "\n" + answers_yaml(data)
        saved = (copy.deepcopy(self.draft), list(self.checked))
        turns = len(self.conversation)
        if await self._write_with_confirm(_("Save the answers to:"), self.default_path("answers.yaml"), text, _("answers")):
            self._saved = saved
            self._saved_conversation = turns

    @work(exclusive=True, group="export")
    async def export_artifacts(self) -> None:
        """Launch files for the recommendation (ds_config.json, launch.sh, job.sbatch, README.md) into a directory."""
        advice = self.last_advice
        if advice is None:
            return
        from advisor.outputs.artifacts import build_artifacts, write_artifacts
        name = await self.push_screen_wait(PathDialog(_("Write launch files into the directory:"), self.default_path("launch")))
        path = self._resolve(name) if name else None
        if path is None:
            return
        try:
            names = [f.name for f in build_artifacts(advice)]
        except AdvisorError as exc:
            self._report(exc.msg, error=True)
            return
        try:
            clash = path.is_dir() and any((path / n).exists() for n in names)
        except OSError as exc:
            self._report(_("{path}: cannot be used ({why})", path=shown(path), why=exc.strerror or exc), error=True)
            return
        if clash and not await self.push_screen_wait(ConfirmDialog(_("{path} already holds launch files. Overwrite them?", path=shown(path)))):
            return
        try:
            written = write_artifacts(advice, path, force=clash)
        except AdvisorError as exc:
            self._report(exc.msg, error=True)
            return
        self._report(_("Wrote {n} launch files to {path}", n=len(written), path=shown(path)))

    def _report(self, msg: str, error: bool = False) -> None:
        msg = " ".join(msg.split("\n"))
        self.notices.append(msg)
        self.notify(msg, severity="error" if error else "information", timeout=8 if error else 5, markup=False)

    async def _write_with_confirm(self, title: str, default: str, text: str, what: str) -> bool:
        """Ask for a path, confirm replacing an existing file, write atomically; True when the file was written."""
        name = await self.push_screen_wait(PathDialog(title, default))
        path = self._resolve(name) if name else None
        if path is None:
            return False
        try:
            exists = path.exists() and not path.is_dir()
        except OSError as exc:
            self._report(_("{path}: cannot be used ({why})", path=shown(path), why=exc.strerror or exc), error=True)
            return False
        if exists and not await self.push_screen_wait(ConfirmDialog(_("{path} exists. Overwrite it?", path=shown(path)))):
            return False
        return self._write(path, text, what, force=exists)

    def _write(self, path: Path, text: str, what: str, force: bool) -> bool:
        try:
            write_atomic(path, text, force=force)
        except AdvisorError as exc:
            self._report(exc.msg, error=True)
            return False
        self._report(_("Saved the {what} to {path}", what=what, path=shown(path)))
        return True

    # -- commands -----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(_("Export decision memo"), _("Write the markdown memo to a file"), self.export_memo)
        yield SystemCommand(_("Save answers"), _("Write the answers as YAML for `advisor advise`"), self.save_answers)
        yield SystemCommand(_("Write launch files"), _("ds_config.json / launch.sh / job.sbatch for the recommendation"), self.export_artifacts)
        yield SystemCommand(_("Toggle light/dark theme"), _("Switch between the light and dark themes"), self.action_toggle_theme)

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme != "textual-light" else "textual-dark"
        save_theme(self.theme)
        for panel in self.query(LivePanel).results(LivePanel):
            panel.redraw()

def __getattr__(name: str) -> Any:
    """``ResultsScreen`` is still importable from here, loaded on first use: it brings plots and markdown along."""
    if name == "ResultsScreen":
        from advisor.tui.results import ResultsScreen

        return ResultsScreen
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AdvisorApp", "AnswersChanged", "ConfirmDialog", "GLOSSARY", "HelpScreen", "LivePanel", "PathDialog", "QuestionScreen",
           "ReviewScreen", "first_problem", "translate_bindings"]
