"""The question screen: one step at a time with the live estimate beside (or, below 100 columns, under) it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.css.query import NoMatches
from textual.widgets import Button, Footer, Header, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from textual.timer import Timer

from advisor.knowledge.strategies import FRAMEWORKS
from advisor.base.i18n import _, N_
from advisor.inputs.questions import coerce, config_name, display, from_config, get_value, reconcile, set_value, Step, step_error
from advisor.tui.common import translate_bindings
from advisor.tui.dialogs import HelpScreen, ReviewScreen
from advisor.tui.look import palette
from advisor.tui.messages import DraftAccepted, DraftTyped, ResultsWanted, ReviewChoice
from advisor.tui.state import AdvisorState, session

if TYPE_CHECKING:  # numpy and the core: imported by the estimate's worker after the first question is drawn
    from advisor.decision.advice import Advice

TYPING_PAUSE = 0.2
"""Seconds without a keystroke before the live estimate previews what is typed (issue 20: it moved only on Enter).
A pause this short reads as 'as you type'; a keystroke inside it restarts the wait, so a fast typist computes once."""


# ------------------------------------------------------------------------------ side panel


class LivePanel(Static):
    """The live recommendation and estimate, recomputed on every accepted answer."""

    DEFAULT_CSS = """
    LivePanel { width: 34; height: 1fr; border: round $primary; padding: 0 1; }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.advice: Advice | None = None
        self.problem: str | None = None
        self.stale = False
        """What is typed does not read: the estimate shown is for the answers before it (user try 2026-12-06: '70Bx'
        left the 70B estimate standing, unmarked, until Enter showed the error)."""
        self.stale_problem = ""
        """Why it does not read, said in the mark: '[not updated: the answer as typed does not read]' named no field
        (user try 12: tokens and examples both given read as an unreadable number)."""

    def show(self, advice: Advice | None, problem: str | None = None) -> None:
        self.advice, self.problem, self.stale = advice, problem, False
        self.redraw()

    def mark_stale(self, stale: bool, problem: str = "") -> None:
        if stale != self.stale or (stale and problem != self.stale_problem):
            self.stale, self.stale_problem = stale, problem if stale else ""
            self.redraw()

    def redraw(self) -> None:
        """Full panel beside the question on wide screens; two lines under it below 100 columns."""
        advice, narrow = self.advice, self.screen.has_class("narrow") if self.is_attached else False
        colours = palette(self.app.current_theme.dark if self.is_attached else True)
        warn, error = colours["warn"], f"bold {colours['error']}"
        if advice is None:
            text = Text(self.problem or _("Answer the questions to see an estimate."), style="dim")
            self.update(text if narrow else Text.assemble((_("Live estimate") + "\n\n", "bold"), text))
            return
        from advisor.outputs.render import hours_text, money  # an advice exists: the core is loaded already

        e = advice.estimate_dict(advice.strategy)
        cur = e["currency"]
        blocked = any(w["blocking"] for w in advice.warnings)
        fits = e["fits"] and e["batch_ok"]
        fit = _("fits") if fits else _("DOES NOT FIT")
        deadline = advice.answers.training.deadline_days
        verdict = None if deadline is None else (_("Deadline met") if advice.plan.deadline_met else _("Deadline MISSED"))
        # Several GPU types compared: the plan's type by its short id ('h100-sxm (spot)'), to fit the line at 80 columns.
        from advisor.decision.explain import spot_name  # the core loads after the first question is drawn (issue 20)

        kind = spot_name(advice.plan.chosen.gpu, advice.plan.chosen.spot) if advice.plan.gpu_types else None
        if narrow:
            first = ((_("{strategy} on {gpus} × {gpu}", strategy=advice.strategy, gpus=advice.gpus, gpu=kind) if kind
                      else _("{strategy} on {gpus} GPUs", strategy=advice.strategy, gpus=advice.gpus))
                     + f" · {hours_text(e['wall_clock_hours'])} · {money(e['cost'], cur)}" + (f" · {verdict}" if verdict else ""))
            second = (f"{e['memory_per_gpu_gb']:,.0f} GB/GPU {fit} · "
                      + _("{share} exposed communication", share=f"{e['communication_share']:.0%}")
                      + (" · " + _("{n} warning(s)", n=len(advice.warnings)) if advice.warnings else ""))
            if self.stale:  # in place of the second line: two lines under the question at 80x24, as ever
                mark = _("[not updated: {problem}]", problem=self.stale_problem) if self.stale_problem else _(
                    "[not updated: the answer as typed does not read]")
                room = self.content_region.width if self.is_attached else 0
                if room > 8 and cell_len(mark) > room:  # one line, as ever: the whole error shows under the fields on Enter
                    mark = set_cell_size(mark, room - 1) + "…"
                self.update(Text.assemble((first, "dim"), "\n", (mark, warn)))
                return
            self.update(Text.assemble((first, "bold"), "\n", (second, error if blocked else "")))
            return
        lines: list[tuple[str, str] | str] = [
            (_("Live estimate") + "\n\n", "bold"),
            *([((_("Not updated: {problem}; this is the estimate before it.", problem=self.stale_problem) if self.stale_problem else
                  _("Not updated: the answer as typed does not read; this is the estimate before it.")) + "\n\n", warn)] if self.stale else []),
            (f"{advice.strategy}", "bold"), " " + _("on {gpus} GPUs", gpus=advice.gpus) + (f" · {kind}" if kind else "") + "\n",
            f"{FRAMEWORKS[advice.strategy]}\n\n",
            _("Time   {time}", time=hours_text(e["wall_clock_hours"])) + "\n",
            _("Cost   {cost}", cost=money(e["cost"], cur)) + "\n",
            _("Memory {gb} GB/GPU", gb=f"{e['memory_per_gpu_gb']:,.1f}") + "\n",
            ("       " + fit + "\n", "" if fits else error),
            _("Exposed communication {share}", share=f"{e['communication_share']:.0%}") + "\n",
        ]
        if verdict:
            lines.append((verdict + "\n", "" if advice.plan.deadline_met else error))
        if blocked:
            lines.append(("\n" + _("Blocked: see warnings") + "\n", error))
        for w in advice.warnings[:3]:
            lines.append(("\n! " + w["text"] + "\n", warn))
        if len(advice.warnings) > 3:
            lines.append(_("(+{n} more on the results screen)", n=len(advice.warnings) - 3))
        self.update(Text.assemble(*lines))


# ------------------------------------------------------------------------------ question screen


def first_problem(draft: dict[str, Any], all_steps: tuple[Step, ...]) -> tuple[int, str | None]:
    """(the first step whose answer is invalid, its error), or (0, None) when every step's answers hold."""
    for i, step in enumerate(all_steps):
        problem = step_error(draft, step)
        if problem:
            return i, problem
    return 0, None


class QuestionScreen(Screen[None]):
    """One step at a time: why it matters, a default, inline validation, back / next."""

    BINDINGS = [
        Binding("ctrl+n", "next", N_("Next"), priority=True),
        Binding("escape", "back", N_("Back")),
        Binding("ctrl+b", "back", N_("Back"), priority=True, show=False),
        Binding("ctrl+r", "results", N_("Results"), tooltip=N_("Skip to the results with the current answers")),
        Binding("f1", "help", N_("Help"), priority=True),
    ]

    def __init__(self, start: int = 0, problem: str | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        self.index = start
        self.problem = problem
        self.draft: dict[str, Any] = {}
        """This screen's working copy of the answers: it renders from it and sends each accepted step up (DraftAccepted);
        the session's draft is the app's to change."""
        self._typing: Timer | None = None
        self._rendering = False
        """A step is being drawn: its widgets are the old step's or half the new one's, so no preview reads them."""
        try:
            size = self.app.size
        except RuntimeError:  # no app running (Textual's NoActiveAppError): the size classes come on mount
            pass
        else:
            self._size_classes(size, update=False)  # styled with them from the start: no restyle of every widget on mount

    @property
    def state(self) -> AdvisorState:
        return session(self)

    @property
    def step(self) -> Step:
        return self.state.steps[self.index]

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="body"):
            with VerticalScroll(id="question"):
                yield Label("", id="progress")
                yield Static("", id="title")
                yield Static("", id="why")
                yield Vertical(id="fields")
                yield Static("", id="error")
                with Horizontal(id="nav"):
                    yield Button(_("Back"), id="back")
                    yield Button(_("Next"), id="next", variant="primary")
            yield LivePanel(id="live")
        yield Footer()

    async def on_mount(self) -> None:
        self.draft = {k: dict(v) for k, v in self.state.draft.items()}
        self._fit_to(self.app.size)
        await self.render_step()
        if self.problem:
            self.show_error(self.problem)
            self.problem = None
        # The estimate warms up in a worker once the question is on screen (issue 20: the first paint waited for it).
        self.call_after_refresh(self.post_message, DraftTyped(self.draft))

    async def on_screen_resume(self) -> None:
        """Back from the results, where a what-if may have been adopted: show the session's answers."""
        await self._follow_session()

    async def _follow_session(self) -> None:
        if self.draft and self.draft != self.state.draft:
            self.draft = {k: dict(v) for k, v in self.state.draft.items()}
            await self.render_step()
            self.post_message(DraftTyped(self.draft))  # and the live estimate follows them

    async def review_again(self) -> None:
        """Back from the results (`b`): the review of the session's answers, a what-if adopted there included."""
        await self._follow_session()
        self.show_review()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_to(event.size)

    def _size_classes(self, size: Any, update: bool = True) -> None:
        """Below 100 columns the live panel moves under the question; below 30 rows the spacing tightens."""
        self.set_class(size.width < 100, "narrow", update=update)
        self.set_class(size.height < 30, "short", update=update)

    def _fit_to(self, size: Any) -> None:
        """The size classes for this size (a change restyles the screen), and the live panel redrawn to fit."""
        self._size_classes(size)
        panel = self.query(LivePanel)
        if panel:
            panel.first().redraw()

    async def render_step(self) -> None:
        # a preview pending from the step before would read this step's fields from widgets being replaced (an
        # IndexError under load in CI: the old step's choice list read against the new step's text field)
        self._stop_typing()
        self._rendering = True
        try:
            await self._draw_step()
        finally:
            self._rendering = False

    async def _draw_step(self) -> None:
        step = self.step
        total = len(self.state.steps)
        self.query_one("#progress", Label).update(_("Step {n} of {total}", n=self.index + 1, total=total))
        self.query_one("#title", Static).update(f"[b]{step.title}[/b]")
        self.query_one("#why", Static).update(step.why)
        self.query_one("#error", Static).update("")
        self.query_one("#back", Button).disabled = self.index == 0
        self.query_one("#next", Button).label = _("Results") if self.index == total - 1 else _("Next")
        box = self.query_one("#fields", Vertical)
        await box.remove_children()
        widgets: list[Widget] = []
        for i, field in enumerate(step.fields):
            said_optional = field.optional and not field.needed_by_fine_tunes  # a fine-tune's data is not optional to it
            widgets.append(Label(field.label + ("  [dim]" + _("(optional)") + "[/dim]" if said_optional else ""), classes="field-label"))
            value = get_value(self.draft, field.path)
            if field.kind == "choice":
                ol = OptionList(*[Option(c.label, id=f"c{j}") for j, c in enumerate(field.choices)], id=f"f{i}", classes="choice")
                current = next((j for j, c in enumerate(field.choices) if c.value == value), field.unanswered_index())
                ol.highlighted = current
                widgets.append(ol)
            else:
                derived = from_config(self.draft, field.path)
                hint = _("from {file}: {value}", file=config_name(self.draft), value=derived) if derived else field.placeholder
                inp = Input(value=display(value), placeholder=hint, id=f"f{i}")
                inp.cursor_blink = self.state.cursor_blink
                widgets.append(inp)
        await box.mount_all(widgets)
        self._focus_first()

    def _focus_first(self) -> None:
        """Each step opens at its top (title and why visible), its first field focused, a choice list on its pick."""
        self.query_one("#question", VerticalScroll).scroll_home(animate=False)
        first = self.query("#fields Input, #fields OptionList").first()
        first.focus(scroll_visible=False)
        for ol in self.query("#fields OptionList").results(OptionList):
            if ol.highlighted is not None:
                ol.scroll_to_highlight()

    def typed_draft(self) -> dict[str, Any] | None:
        """The draft with this step's fields as typed (not yet kept with Enter); None while the step is being drawn."""
        try:
            return self._read()
        except NoMatches:  # a step still being drawn has no widgets to read: nothing typed yet
            return None

    def _read(self) -> dict[str, Any]:
        """Copy every widget of this step into a new draft."""
        draft = {k: dict(v) for k, v in self.draft.items()}
        for i, field in enumerate(self.step.fields):
            widget = self.query_one(f"#f{i}")
            if isinstance(widget, OptionList):
                j = widget.highlighted or 0
                set_value(draft, field.path, field.choices[j].value)
            elif isinstance(widget, Input):
                set_value(draft, field.path, coerce(field, widget.value))
        return draft

    def accept(self) -> bool:
        """Validate the step through the answers model; advance only when it holds."""
        problem = self._keep()
        if problem:
            self._stop_typing()  # said now, not by the typing pause's timer a moment later
            self.query_one("#live", LivePanel).mark_stale(True, problem)
            self.show_error(problem)
            return False
        return True

    def show_error(self, problem: str) -> None:
        """The step's error under its fields, scrolled into view: at 80x24 a long step's error line lies below the fold,
        and an error nobody sees reads as the value being taken."""
        error = self.query_one("#error", Static)
        error.update(Text(problem, style=f"bold {palette(self.app.current_theme.dark)['error']}"))
        self.call_after_refresh(error.scroll_visible, animate=False)

    def _keep(self) -> str | None:
        """Put this step's fields into the draft when they validate; else leave the draft alone and return the problem.
        What reconcile did is said only when the step is kept: a refused value was not used."""
        draft = self._read()
        note = reconcile(draft, self.draft)
        problem = step_error(draft, self.step)
        if problem:
            return problem
        if note:
            self.notify(note, markup=False)
        self._stop_typing()
        self.draft = draft
        self.post_message(DraftAccepted(draft))
        return None

    async def action_next(self) -> None:
        if not self.accept():
            return
        if self.index == len(self.state.steps) - 1:
            self.show_review()
        else:
            self.index += 1
            await self.render_step()

    async def action_back(self) -> None:
        """Back keeps a valid edit on this step (as Next would) and drops an invalid one with a notice."""
        if self.index > 0:
            problem = self._keep()
            if problem:
                self.notify(_("Not kept: {problem}", problem=problem), severity="warning", markup=False)
            self.index -= 1
            await self.render_step()

    def action_results(self) -> None:
        if self.accept():
            self.post_message(ResultsWanted())

    def show_review(self) -> None:
        """Every answer on one screen before the results; its typed result is a step to go back to, or the results."""
        from advisor.decision.explain import method_names  # here: the first question loads no core (test_boundaries)

        rows = []
        for i, step in enumerate(self.state.steps):
            parts = []
            for f in step.fields:
                value = get_value(self.draft, f.path)
                if f.kind == "choice":  # an unanswered choice as its list highlights it: the value the advice uses
                    picked = next((c for c in f.choices if c.value == value), f.choices[f.unanswered_index()] if value is None else None)
                    shown_value = picked.label.split("  ")[0].split(" — ")[0].strip() if picked else display(value)
                    if f.path == "training.method" and picked:
                        shown_value = method_names().get(picked.value, shown_value)  # '全参数微调', not the file's 'finetune'
                    elif picked and picked.value == "none" and " — " in picked.label:
                        shown_value = picked.label.split(" — ", 1)[1]  # 'not training yet', not the file's 'none' (user try 8)

                else:
                    derived = from_config(self.draft, f.path)
                    shown_value = display(value) or (_("{value} (from {file})", value=derived, file=config_name(self.draft)) if derived else "—")
                parts.append(f"{f.label}: {shown_value}")
            rows.append(f"{i + 1:>2}. {'; '.join(parts)}")

        def chosen(choice: ReviewChoice | None) -> None:
            if choice is None:
                return
            if choice.results:
                self.post_message(ResultsWanted())
            elif choice.step is not None:
                self.call_later(self.jump_to, choice.step)

        self.app.push_screen(ReviewScreen(rows), chosen)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def key_question_mark(self) -> None:
        """'?' opens the help unless an input takes it as text."""
        if not isinstance(self.focused, Input):
            self.action_help()

    async def jump_to(self, index: int) -> None:
        self.index = max(0, min(index, len(self.state.steps) - 1))
        await self.render_step()

    @on(Button.Pressed, "#next")
    async def _next_pressed(self) -> None:
        await self.action_next()

    @on(Button.Pressed, "#back")
    async def _back_pressed(self) -> None:
        await self.action_back()

    @on(Input.Submitted)
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self._advance_from(event.input)

    @on(OptionList.OptionSelected)
    async def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self._advance_from(event.option_list)

    async def _advance_from(self, widget: Any) -> None:
        """Enter in any field accepts the whole step (Tab moves between fields), so Enter walks the defaults."""
        await self.action_next()

    @on(Input.Changed)
    def _clear_error(self, event: Input.Changed) -> None:
        """An edit clears the error line and, after a pause in typing, previews the estimate; the value a field is shown
        with (its Changed on mount) does neither."""
        field_id = event.input.id or ""
        if field_id.startswith("f") and field_id[1:].isdigit() and int(field_id[1:]) < len(self.step.fields):
            if event.value == display(get_value(self.draft, self.step.fields[int(field_id[1:])].path)):
                return
        self.query_one("#error", Static).update("")
        self._stop_typing()
        self._typing = self.set_timer(TYPING_PAUSE, self._typed)

    @on(OptionList.OptionHighlighted, "#fields OptionList")
    def _choice_moved(self, event: OptionList.OptionHighlighted) -> None:
        """Arrowing through a choice list previews the estimate as typing does (issue 34: only Enter moved it); the
        highlight a list is drawn with does not."""
        field_id = event.option_list.id or ""
        if not (field_id.startswith("f") and field_id[1:].isdigit() and int(field_id[1:]) < len(self.step.fields)):
            return
        field = self.step.fields[int(field_id[1:])]
        if field.choices[event.option_index].value == get_value(self.draft, field.path):
            return
        self._stop_typing()
        self._typing = self.set_timer(TYPING_PAUSE, self._typed)

    def _stop_typing(self) -> None:
        if self._typing is not None:
            self._typing.stop()
            self._typing = None

    def _typed(self) -> None:
        """The fields as they stand, when this step's answers hold, go to the live estimate (nothing is accepted)."""
        self._typing = None
        if self._rendering:
            return  # the new step's widgets preview themselves once drawn (their highlight starts a timer)
        draft = self._read()
        reconcile(draft, self.draft)  # previewed as Enter would keep it: a LoRA highlighted is not priced over the 1T default
        live = self.query_one("#live", LivePanel)
        problem = step_error(draft, self.step)
        if problem is None:
            live.mark_stale(False)
            self.post_message(DraftTyped(draft))
        else:
            live.mark_stale(True, problem)
