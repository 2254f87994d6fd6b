"""The guided Q&A: `advisor` with no arguments.

A thin front end. Steps, explanations and validation come from ``advisor.questions``; estimates,
rules and the memo from the core. Screens only move values between widgets and the draft.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Iterable

import yaml
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    Markdown,
    OptionList,
    SelectionList,
    Static,
    TabbedContent,
    TabPane,
)
from textual.widgets.option_list import Option

from ..advice import Advice, advise
from ..answers import STRATEGIES, Answers
from ..errors import AdvisorError
from ..estimate import FRAMEWORKS
from ..i18n import N_, _
from ..io import shown, write_atomic
from .look import load_theme, palette, save_theme
from ..questions import Step, coerce, display, draft_from, get_value, reconcile, set_value, step_error, steps, validate
from ..render import headline, hours_text, money, spread, summary_rows, to_markdown
from ..rules import RuleSet


def translate_bindings(node: Any) -> None:
    """Binding descriptions are English msgids (N_) on the class; each screen shows them in the current language."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [replace(b, description=_(b.description) if b.description else b.description,
                              tooltip=_(b.tooltip) if b.tooltip else b.tooltip) for b in bindings]


TEXTUAL_WORDS = (N_("palette"),)
"""Textual's own footer words, translated with the rest (the command palette's key)."""


# ------------------------------------------------------------------------------ messages


@dataclass
class AnswersChanged(Message):
    """The draft changed and validated: the side panel recomputes."""

    answers: Answers


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

    def show(self, advice: Advice | None, problem: str | None = None) -> None:
        self.advice, self.problem = advice, problem
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
        e = advice.estimate_dict(advice.strategy)
        cur = e["currency"]
        blocked = any(w["blocking"] for w in advice.warnings)
        fits = e["fits"] and e["batch_ok"]
        fit = _("fits") if fits else _("DOES NOT FIT")
        deadline = advice.answers.training.deadline_days
        verdict = None if deadline is None else (_("Deadline met") if advice.plan.deadline_met else _("Deadline MISSED"))
        if narrow:
            first = (_("{strategy} on {gpus} GPUs", strategy=advice.strategy, gpus=advice.gpus)
                     + f" · {hours_text(e['wall_clock_hours'])} · {money(e['cost'], cur)}" + (f" · {verdict}" if verdict else ""))
            second = (f"{e['memory_per_gpu_gb']:,.0f} GB/GPU {fit} · "
                      + _("{share} exposed communication", share=f"{e['communication_share']:.0%}")
                      + (" · " + _("{n} warning(s)", n=len(advice.warnings)) if advice.warnings else ""))
            self.update(Text.assemble((first, "bold"), "\n", (second, error if blocked else "")))
            return
        lines: list[tuple[str, str] | str] = [
            (_("Live estimate") + "\n\n", "bold"),
            (f"{advice.strategy}", "bold"), " " + _("on {gpus} GPUs", gpus=advice.gpus) + "\n",
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

    @property
    def app_(self) -> AdvisorApp:
        app = self.app
        assert isinstance(app, AdvisorApp)
        return app

    @property
    def step(self) -> Step:
        return self.app_.steps[self.index]

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
        self._fit_to(self.app.size)
        await self.render_step()
        if self.problem:
            self.query_one("#error", Static).update(Text(self.problem, style=f"bold {palette(self.app.current_theme.dark)['error']}"))
            self.problem = None
        self.app_.refresh_live(self.query_one(LivePanel))

    def on_resize(self, event: events.Resize) -> None:
        self._fit_to(event.size)

    def _fit_to(self, size: Any) -> None:
        """Below 100 columns the live panel moves under the question; below 30 rows the spacing tightens."""
        self.set_class(size.width < 100, "narrow")
        self.set_class(size.height < 30, "short")
        panel = self.query(LivePanel)
        if panel:
            panel.first().redraw()

    async def render_step(self) -> None:
        step = self.step
        total = len(self.app_.steps)
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
            widgets.append(Label(field.label + ("  [dim]" + _("(optional)") + "[/dim]" if field.optional else ""), classes="field-label"))
            value = get_value(self.app_.draft, field.path)
            if field.kind == "choice":
                ol = OptionList(*[Option(c.label, id=f"c{j}") for j, c in enumerate(field.choices)], id=f"f{i}", classes="choice")
                current = next((j for j, c in enumerate(field.choices) if c.value == value), 0)
                ol.highlighted = current
                widgets.append(ol)
            else:
                inp = Input(value=display(value), placeholder=field.placeholder, id=f"f{i}")
                inp.cursor_blink = self.app_.cursor_blink
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

    def _read(self) -> dict[str, Any]:
        """Copy every widget of this step into a new draft."""
        draft = {k: dict(v) for k, v in self.app_.draft.items()}
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
        draft = self._read()
        note = reconcile(draft, self.app_.draft)
        if note:
            self.notify(note, markup=False)
        problem = step_error(draft, self.step)
        if problem:
            self.query_one("#error", Static).update(Text(problem, style=f"bold {palette(self.app.current_theme.dark)['error']}"))
            return False
        self.app_.draft = draft
        self.app_.refresh_live(self.query_one(LivePanel))
        return True

    async def action_next(self) -> None:
        if not self.accept():
            return
        if self.index == len(self.app_.steps) - 1:
            self.app_.show_review(self)
        else:
            self.index += 1
            await self.render_step()

    async def action_back(self) -> None:
        if self.index > 0:
            self.index -= 1
            await self.render_step()

    def action_results(self) -> None:
        if self.accept():
            self.app_.show_results()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def key_question_mark(self) -> None:
        """'?' opens the help unless an input takes it as text."""
        if not isinstance(self.focused, Input):
            self.action_help()

    async def jump_to(self, index: int) -> None:
        self.index = max(0, min(index, len(self.app_.steps) - 1))
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
        """An edit clears the error line; the value a field is shown with (its Changed on mount) does not."""
        field_id = event.input.id or ""
        if field_id.startswith("f") and field_id[1:].isdigit() and int(field_id[1:]) < len(self.step.fields):
            if event.value == display(get_value(self.app_.draft, self.step.fields[int(field_id[1:])].path)):
                return
        self.query_one("#error", Static).update("")


# ------------------------------------------------------------------------------ modal dialogs


class PathDialog(ModalScreen[str | None]):
    """Ask for a file path; Enter confirms, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.title_text, self.default = title, default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text)
            inp = Input(value=self.default, id="path")
            inp.cursor_blink = False
            yield inp
            yield Static("", id="dialog-error")
            with Horizontal(classes="buttons"):
                yield Button(_("Save"), variant="primary", id="ok")
                yield Button(_("Cancel"), id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        value = self.query_one("#path", Input).value.strip()
        if not value:
            self.query_one("#dialog-error", Static).update("[red]" + _("give a file path") + "[/red]")
            return
        self.dismiss(value)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question whose safe answer (Cancel) has the focus, so Enter never destroys anything."""

    BINDINGS = [Binding("escape", "no", N_("No")), Binding("y", "yes", N_("Yes")), Binding("n", "no", N_("No"))]

    def __init__(self, question: str, yes: str | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        self.question, self.yes = question, yes or _("Overwrite")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.question))
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(_("Cancel (n)"), id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


# ------------------------------------------------------------------------------ help and review

GLOSSARY = N_("""\
# Help

**Keys** — Enter accepts a step, Tab moves between fields, Esc goes back, Ctrl+R jumps to the results, F1 (or ? outside
a text field) shows this help, Ctrl+Q quits (asking first while answers are unsaved), Ctrl+T switches light/dark,
Ctrl+P opens the command palette. On the results: e exports the memo, s saves the answers, a writes launch files,
b goes back to edit.

**Glossary**

- **DDP** (PyTorch DistributedDataParallel): every GPU holds a whole copy of the model and optimizer and averages
  gradients with an all-reduce after each step. Simplest; about 16 bytes per parameter on every GPU.
- **Horovod**: the same data parallelism through a separate library (ring all-reduce); last released in 2023.
- **ZeRO** (DeepSpeed): data parallelism that shards the optimizer state (stage 1), the gradients too (stage 2) and
  the weights too (stage 3) across the GPUs. **ZeRO-Offload** moves some of it to CPU memory: memory for speed.
- **FSDP** (PyTorch Fully Sharded Data Parallel): PyTorch's own ZeRO-3.
- **3D parallelism** (Megatron-LM): tensor parallelism (each layer split across a node's GPUs), pipeline parallelism
  (groups of layers on different nodes) and data parallelism, combined.
- **All-reduce**: sums a buffer across all GPUs and gives every GPU the result; a ring moves about twice the buffer.
- **MFU** (model FLOPs utilisation): the share of the GPUs' peak arithmetic the training uses; 35-55% is typical of
  well-tuned large runs.
- **Exposed communication**: the part of each step spent waiting for NVLink or the network that could not overlap
  computation. When it is high, more GPUs stop making the run faster.
- **Recomputation** (activation checkpointing): recompute activations in the backward pass instead of storing them.
- **Global batch / micro-batch / accumulation**: tokens per optimizer step; sequences per GPU per forward pass; how
  many micro-batches a GPU runs before each optimizer step.
""")


class HelpScreen(ModalScreen[None]):
    """Keys and a glossary of the words the advice uses."""

    BINDINGS = [Binding("escape", "close", N_("Close")), Binding("f1", "close", N_("Close")), Binding("q", "close", N_("Close"), show=False)]

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Markdown(_(GLOSSARY))

    def action_close(self) -> None:
        self.dismiss(None)


class ReviewScreen(ModalScreen[int | None]):
    """Every answer before the results: Enter on the first line shows them, on a step jumps back to edit it."""

    BINDINGS = [Binding("escape", "back", N_("Back")), Binding("f1", "help", N_("Help"), priority=True)]

    def __init__(self, rows: list[str]) -> None:
        super().__init__()
        translate_bindings(self)
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            yield Label(Text(_("Review your answers — Enter on a step to change it, Esc to go back"), style="bold"))
            yield OptionList(Option(Text(_("→ See the recommendation"), style="bold"), id="results"),
                             *[Option(Text(row), id=f"s{i}") for i, row in enumerate(self.rows)], id="review-list")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one("#review-list", OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        self.dismiss(-1 if option_id == "results" else int(option_id[1:]))

    def action_back(self) -> None:
        self.dismiss(len(self.rows) - 1)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


# ------------------------------------------------------------------------------ results


class ResultsScreen(Screen[None]):
    """Recommendation, options, questions, checklist (tickable), warnings and the memo preview."""

    BINDINGS = [
        Binding("e", "export", N_("Export memo")),
        Binding("s", "save", N_("Save answers")),
        Binding("a", "artifacts", N_("Launch files")),
        Binding("b", "back", N_("Edit answers")),
        Binding("q", "quit", N_("Quit")),
    ]

    def __init__(self, advice: Advice) -> None:
        super().__init__()
        translate_bindings(self)
        self.advice = advice

    def compose(self) -> ComposeResult:
        a = self.advice
        d = a.to_dict()
        e = d["estimate"]
        cur = e["currency"]
        yield Header(show_clock=False)
        with TabbedContent(id="tabs"):
            with TabPane(_("Summary"), id="summary"):
                with VerticalScroll():
                    lo, hi = e["range"]["wall_clock_hours"]
                    clo, chi = e["range"]["cost"]
                    cal = d["scale"]["baseline_hours"] is not None
                    head = [
                        f"[b]{_esc(headline(a))}[/b]",
                        *(f"{_esc(what)}: {_esc(today)} → [b]{_esc(rec)}[/b]" for what, today, rec in summary_rows(a, d)[3:]),
                        "",
                        _("[b]Recommendation: {framework}[/b] ([b $accent]{strategy}[/]) on {gpus} GPUs",
                          framework=d["recommendation"]["framework"], strategy=a.strategy, gpus=a.gpus),
                        _("Time {time} {range}", time=hours_text(e["wall_clock_hours"]), range=spread(lo, hi, hours_text, cal)) + "   "
                        + _("Cost {cost} {range}", cost=money(e["cost"], cur), range=spread(clo, chi, lambda v: money(v, cur), cal)),
                        _("Memory {gb} GB per GPU ({fits})", gb=f"{e['memory_per_gpu_gb']:,.1f}", fits=_("fits") if e["fits"] else _("DOES NOT FIT"))
                        + "   " + _("Exposed communication {share} of step", share=f"{e['communication_share']:.0%}"),
                    ]
                    yield Static("\n".join(head), id="headline")
                    if d["warnings"]:
                        colours = palette(self.app.current_theme.dark)
                        yield Static(Text.assemble(*[part for w in d["warnings"] for part in (
                            (_("BLOCKING ") if w["blocking"] else "! ", f"bold {colours['error'] if w['blocking'] else colours['warn']}"),
                            w["text"] + "\n")]), id="warnings")
                    yield Static("[b]" + _("Why") + "[/b]\n" + "\n".join(f"• {_esc(r['text'])} [dim]({r['rule']}; {_esc(', '.join(r['source']))})[/dim]" for r in d["recommendation"]["rationale"]), id="why-list")
            with TabPane(_("Options"), id="options"):
                yield DataTable(id="options-table", zebra_stripes=True, cursor_type="row")
                yield Static("", id="options-detail", classes="detail")
            with TabPane(_("Questions"), id="questions"):
                with VerticalScroll():
                    yield Static("\n".join(f"? {_esc(q['text'])} [dim]({_esc(q['source'])})[/dim]" for q in d["questions"]) or _("No questions."), id="questions-list")
            with TabPane(_("Checklist"), id="checklist"):
                done = set(self.app_.checked)
                yield SelectionList[int](*[(Text(c["text"]), i, c["text"] in done) for i, c in enumerate(d["checklist"])], id="checklist-list")
                yield Static("", id="checklist-detail", classes="detail")
            with TabPane(_("Rules"), id="rules"):
                with VerticalScroll():
                    yield Static("\n".join(f"[b]{fr['id']}[/b] — {_esc(fr['title'])} [dim]({_esc(', '.join(fr['source']))})[/dim]" for fr in d["fired_rules"]), id="rules-list")
            with TabPane(_("Memo"), id="memo"):
                yield VerticalScroll(id="memo-scroll")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#options-table", DataTable)
        table.add_columns(_("strategy"), _("fits"), "GB/GPU", _("time"), _("cost"), _("score"), _("why not"))
        cur = self.advice.facts["currency"]
        for s in STRATEGIES:
            est = self.advice.estimate_dict(s)
            why = _("chosen") if s == self.advice.strategy else self.advice.why_not(s)[0]
            table.add_row(
                s, _("yes") if est["fits"] and est["batch_ok"] else _("no"), f"{est['memory_per_gpu_gb']:,.1f}", hours_text(est["wall_clock_hours"]),
                money(est["cost"], cur), f"{self.advice.scores[s]:g}", why[:70] + ("…" if len(why) > 70 else ""), key=s,
            )

    @on(DataTable.RowHighlighted, "#options-table")
    def _option_detail(self, event: DataTable.RowHighlighted) -> None:
        """The full reasons for the highlighted strategy: the table cell is cut to fit."""
        s = str(event.row_key.value)
        text = (f"{s}: " + _("chosen") + " — " + " ".join(r["text"] for r in self.advice.rationale()[:1])) if s == self.advice.strategy \
            else f"{s}: " + "; ".join(self.advice.why_not(s))
        self.query_one("#options-detail", Static).update(Text(text))

    @on(SelectionList.SelectionHighlighted, "#checklist-list")
    def _checklist_detail(self, event: SelectionList.SelectionHighlighted) -> None:
        item = self.advice.checklist[event.selection_index]
        self.query_one("#checklist-detail", Static).update(Text(f"{item['text']}  ({item['source']})"))

    @on(TabbedContent.TabActivated)
    async def _tab(self, event: TabbedContent.TabActivated) -> None:
        """The memo preview is built when first shown: it is the slowest widget on the screen."""
        if event.pane.id == "memo" and not self.query("#memo-preview"):
            await self.query_one("#memo-scroll", VerticalScroll).mount(Markdown(to_markdown(self.advice), id="memo-preview"))

    def action_export(self) -> None:
        self.app_.export_memo()

    def action_save(self) -> None:
        self.app_.save_answers()

    def action_artifacts(self) -> None:
        self.app_.export_artifacts()

    def action_back(self) -> None:
        self.app.pop_screen()

    async def action_quit(self) -> None:
        await self.app_.action_quit()

    @on(SelectionList.SelectedChanged)
    def _ticked(self, event: SelectionList.SelectedChanged) -> None:
        """Ticked checklist items travel with the answers (project.checklist_done) and show as [x] in the memo."""
        items = self.advice.checklist
        self.app_.checked = [items[i]["text"] for i in event.selection_list.selected]

    @property
    def app_(self) -> AdvisorApp:
        app = self.app
        assert isinstance(app, AdvisorApp)
        return app


def _esc(text: str) -> str:
    """Keep rule text literal: '[' would otherwise start Textual markup."""
    return text.replace("[", "\\[")


# ------------------------------------------------------------------------------ the app


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
                 draft: dict[str, Any] | None = None) -> None:
        """``draft``: the answers file as written (its '7B' stays '7B'); it may hold one invalid field, which the Q&A
        opens on, marked, instead of refusing the file."""
        super().__init__()
        translate_bindings(self)
        self.sub_title = _(self.SUB_TITLE)
        self.rules = rules
        self.steps = steps()
        self.draft: dict[str, Any] = copy.deepcopy(draft) if draft is not None else draft_from(answers)
        self.cursor_blink = cursor_blink
        self.workdir = workdir or Path.cwd()
        self.last_advice: Advice | None = None
        self.notices: list[str] = []
        done = (self.draft.get("project") or {}).get("checklist_done") if isinstance(self.draft.get("project"), dict) else None
        self.checked: list[str] = [str(x) for x in done] if isinstance(done, list) else (list(answers.project.checklist_done or ()) if answers else [])
        self._saved = (copy.deepcopy(self.draft), list(self.checked))
        """What is on disk (the file it came from, or nothing changed yet): quitting asks only when this differs."""

    def on_mount(self) -> None:
        saved = load_theme()
        if saved:
            self.theme = saved
        start, problem = first_problem(self.draft, self.steps)
        self.push_screen(QuestionScreen(start, problem))

    # -- core calls ---------------------------------------------------------------------

    def compute(self) -> tuple[Advice | None, str | None]:
        answers, errors = validate(self.draft)
        if answers is None:
            return None, _("The answers are not complete yet.")
        try:
            self.last_advice = advise(answers, self.rules)
        except AdvisorError as exc:
            return None, exc.msg
        return self.last_advice, None

    def refresh_live(self, panel: LivePanel) -> None:
        advice, problem = self.compute()
        panel.show(advice, problem)
        if advice is not None:
            self.post_message(AnswersChanged(advice.answers))

    def show_results(self) -> None:
        advice, problem = self.compute()
        if advice is None:
            self.notify(problem or _("The answers are not complete yet."), severity="error", markup=False)
            return
        self.push_screen(ResultsScreen(advice))

    def show_review(self, screen: QuestionScreen) -> None:
        """Every answer on one screen before the results; choosing a step jumps back to it."""
        rows = []
        for i, step in enumerate(self.steps):
            parts = []
            for f in step.fields:
                value = get_value(self.draft, f.path)
                if f.kind == "choice":
                    shown_value = next((c.label.split("  ")[0].split(" — ")[0].strip() for c in f.choices if c.value == value), display(value))
                else:
                    shown_value = display(value) or "—"
                parts.append(f"{f.label}: {shown_value}")
            rows.append(f"{i + 1:>2}. {'; '.join(parts)}")

        def chosen(index: int | None) -> None:
            if index == -1:
                self.show_results()
            elif index is not None:
                self.call_later(screen.jump_to, index)

        self.push_screen(ReviewScreen(rows), chosen)

    def unsaved(self) -> bool:
        """The answers mean something other than what is on disk ('7B' typed over 7e9 is no change)."""
        def meaning(draft: dict[str, Any]) -> Any:
            answers, _errors = validate(draft)
            return answers.model_dump(exclude={"project": {"checklist_done"}}) if answers else draft

        return meaning(self.draft) != meaning(self._saved[0]) or self.checked != self._saved[1]

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

    def _resolve(self, name: str) -> Path | None:
        """The path typed in a dialog, or None (and a one-line notice) when it names no usable place."""
        try:
            p = Path(name).expanduser()
        except RuntimeError:  # '~someone' for a user that does not exist
            self._report(_("{path}: no such user's home directory", path=shown(name)), error=True)
            return None
        return p if p.is_absolute() else self.workdir / p

    def export_memo(self) -> None:
        if self.last_advice is None:
            return
        memo = to_markdown(self.answers_with_checks(self.last_advice))
        self._write_with_confirm(_("Export the decision memo to:"), "decision-memo.md", memo, _("memo"))

    def save_answers(self) -> None:
        if self.last_advice is None:
            return
        # The draft keeps what was typed ('7B', '1T'), not the model's 7000000000.0.
        data = {section: {k: v for k, v in values.items() if v is not None} for section, values in self.draft.items()}
        data = {section: values for section, values in data.items() if values}
        if self.checked:
            data.setdefault("project", {})["checklist_done"] = list(self.checked)
        text = _("# advisor answers (saved from the guided Q&A); run: advisor advise FILE") + "\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        saved = (copy.deepcopy(self.draft), list(self.checked))
        self._write_with_confirm(_("Save the answers to:"), "answers.yaml", text, _("answers"), on_saved=lambda: setattr(self, "_saved", saved))

    def export_artifacts(self) -> None:
        """Launch files for the recommendation (ds_config.json, launch.sh, job.sbatch, README.md) into a directory."""
        advice = self.last_advice
        if advice is None:
            return
        from ..artifacts import build_artifacts, write_artifacts

        def chosen(name: str | None) -> None:
            path = self._resolve(name) if name else None
            if path is None:
                return
            try:
                names = [f.name for f in build_artifacts(advice)]
            except AdvisorError as exc:
                self._report(exc.msg, error=True)
                return

            def write(force: bool) -> None:
                try:
                    written = write_artifacts(advice, path, force=force)
                except AdvisorError as exc:
                    self._report(exc.msg, error=True)
                    return
                self._report(_("Wrote {n} launch files to {path}", n=len(written), path=shown(path)))

            try:
                clash = path.is_dir() and any((path / n).exists() for n in names)
            except OSError as exc:
                self._report(_("{path}: cannot be used ({why})", path=shown(path), why=exc.strerror or exc), error=True)
                return
            if clash:
                self.push_screen(ConfirmDialog(_("{path} already holds launch files. Overwrite them?", path=shown(path))),
                                 lambda ok: write(True) if ok else None)
            else:
                write(False)

        self.push_screen(PathDialog(_("Write launch files into the directory:"), "launch"), chosen)

    def _report(self, msg: str, error: bool = False) -> None:
        msg = " ".join(msg.split("\n"))
        self.notices.append(msg)
        self.notify(msg, severity="error" if error else "information", timeout=8 if error else 5, markup=False)

    def _write_with_confirm(self, title: str, default: str, text: str, what: str, on_saved: Any = None) -> None:
        def chosen(name: str | None) -> None:
            path = self._resolve(name) if name else None
            if path is None:
                return
            try:
                exists = path.exists() and not path.is_dir()
            except OSError as exc:
                self._report(_("{path}: cannot be used ({why})", path=shown(path), why=exc.strerror or exc), error=True)
                return
            if exists:
                self.push_screen(ConfirmDialog(_("{path} exists. Overwrite it?", path=shown(path))),
                                 lambda ok: self._write(path, text, what, force=True, on_saved=on_saved) if ok else None)
            else:
                self._write(path, text, what, force=False, on_saved=on_saved)

        self.push_screen(PathDialog(title, default), chosen)

    def _write(self, path: Path, text: str, what: str, force: bool, on_saved: Any = None) -> None:
        try:
            write_atomic(path, text, force=force)
        except AdvisorError as exc:
            self._report(exc.msg, error=True)
            return
        if on_saved:
            on_saved()
        self._report(_("Saved the {what} to {path}", what=what, path=shown(path)))

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
