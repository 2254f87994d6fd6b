"""The results screen: the decision, the options, the questions, the tickable checklist, the rules and the memo."""

from __future__ import annotations

import math

from collections.abc import Callable
from msgspec import Struct

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import Screen
from textual_plotext import PlotextPlot
from textual.widgets import Button, Checkbox, DataTable, Footer, Header, Input, Markdown, SelectionList, Static, TabbedContent, TabPane

from advisor.decision.advice import Advice
from advisor.base.errors import AdvisorError
from advisor.base.text import join_reasons
from advisor.base.i18n import _, N_, clip, width, written_in_chinese, zh
from advisor.base.units import count, format_number, money_column, money_pair, money_unit, same_unit
from advisor.estimate.posttrain import stage_name
from advisor.outputs.render import (answers_of, chart_in_hours, axis_ticks, count_word, decision_notes, drawn_limit, hours_text, money, memo_for_screen,
                                    option_rows, plan_gpu_name, row_at_risk, runs, source_words, spread, summary_rows, tight, to_markdown, today_on_the_line)
from advisor.decision.report import Report
from advisor.tui.ask import AskBox, QuestionInput
from advisor.tui.common import _esc, translate_bindings
from advisor.tui.dialogs import HelpScreen
from advisor.tui.look import palette
from advisor.tui.messages import AdoptWhatIf, ChecklistTicked, ConversationTurn, EditWanted, ExportWanted, MemoQuestions
from advisor.tui.state import AdvisorState, session


# ------------------------------------------------------------------------------ results


class ResultsView(Struct, frozen=True):
    """Everything the results screen shows, computed by the core: the typed report, the decision sentence, the
    summary rows, the memo. A snapshot test can build one from a fixed report and pin layout, not model numbers."""

    report: Report
    headline: str
    summary: list[tuple[str, str, str]]
    memo: Callable[..., str]
    """The memo as the screen shows it, given the screen's width (wide tables as records)."""
    checked: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """How the choice was made and its trade-offs (the text summary's notes, without the risks shown apart)."""
    chart: tuple[ChartPoint, ...] = ()
    """The what-if table as points (the memo's table and Mermaid charts come from the same rows)."""

    @classmethod
    def of(cls, advice: Advice, checked: tuple[str, ...] = ()) -> ResultsView:
        return cls.of_report(advice.report(), checked)

    @classmethod
    def of_report(cls, report: Report, checked: tuple[str, ...] = ()) -> ResultsView:
        """The view of a typed report: the same report the text and the memo are rendered from."""
        on_line = today_on_the_line(report)  # the line is the plan's GPU type: today's count on another type is not today
        deadline = answers_of(report).training.deadline_days
        points = tuple(ChartPoint(wi.gpus, (wi.wall_clock_hours or 0.0) / 24.0, wi.cost or 0.0, wi.today and on_line, wi.chosen,
                                  row_at_risk(wi, deadline))  # the what-if table's 'at risk'
                       for wi in report.what_if if wi.strategy is not None)
        return cls(report, report.headline, summary_rows(report), lambda width=None: memo_for_screen(to_markdown(report), width), checked, tuple(decision_notes(report)), points)


class ChartPoint(Struct, frozen=True):
    gpus: int
    days: float
    cost: float
    today: bool
    plan: bool
    at_risk: bool = False
    """Inside the deadline, but runs of this kind can take longer than it (render.at_risk_note): the line alone drew it
    under the deadline as if met."""


MEMO_SETTLE_S = 0.15
"""How long the Memo tab must stay chosen before its preview is drawn: longer than keys held or pressed in a burst."""


class ResultsScreen(Screen[None]):
    """Recommendation, options, questions, checklist (tickable), warnings and the memo preview."""

    BINDINGS = [
        Binding("e", "export", N_("Export memo")),
        Binding("s", "save", N_("Save answers")),
        Binding("a", "artifacts", N_("Launch files")),
        Binding("b", "back", N_("Edit"), tooltip=N_("Edit the answers")),
        Binding("q", "quit", N_("Quit"), show=False),  # ^q Quit is on the footer
        # priority, before the focused widget: from the empty question box too (ask.QuestionInput leaves the brackets to
        # the screen while it is empty; Textual drops a key an Input takes from the bindings, so a bracket in a question
        # stays text)
        Binding("right_square_bracket", "next_tab", N_("Next tab"), priority=True),
        Binding("left_square_bracket", "previous_tab", N_("Previous tab"), show=False, priority=True),
        Binding("f1", "help", N_("Help"), priority=True),
        # priority, like the brackets: '/' pressed in the empty, focused question box typed itself (user try 9)
        Binding("slash", "ask", N_("Ask"), show=False, priority=True),
        Binding("escape", "leave_input", N_("Leave the question box"), show=False),
    ]

    def __init__(self, advice: Advice | None = None, view: ResultsView | None = None, tab: str | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        if view is None:
            assert advice is not None, "ResultsScreen needs an advice or a view"
            view = ResultsView.of(advice)
        self.advice = advice
        self.view = view
        self.options = option_rows(view.report)
        self.tab = tab
        self.change: dict[str, object] = {}
        """The last what-if's change (answers field -> value as written): what Adopt sets."""
        self._typing_ahead = False
        """Stepped onto Ask and the box has not the focus yet: keys go into the box (on_key)."""

    def compose(self) -> ComposeResult:
        v = self.view
        d = v.report
        rec = d.recommendation
        e = d.estimate
        cur = e.currency
        yield Header(show_clock=False)
        with TabbedContent(id="tabs", initial=self.tab or ""):
            with TabPane(_("Summary"), id="summary"):
                with VerticalScroll():
                    lo, hi = e.range.wall_clock_hours
                    clo, chi = e.range.cost
                    cal = d.scale.baseline_hours is not None
                    head = [
                        f"[b]{_esc(v.headline)}[/b]",
                        *((f"{_esc(what)}: [b]{_esc(new)}[/b]" if d.plan.greenfield else f"{_esc(what)}: {_esc(today)} → [b]{_esc(new)}[/b]")
                          for what, today, new in v.summary[3:]),  # not training yet: no today to compare with
                        *(f"[dim]•[/dim] {_esc(note)}" for note in v.notes),
                        "",
                        _("[b]Recommendation: {framework}[/b] ([b $accent]{strategy}[/]) on {gpus} GPUs",
                          framework=rec.framework, strategy=rec.strategy, gpus=rec.gpus),
                        _("Time {time} {range}", time=hours_text(e.wall_clock_hours), range=spread(lo, hi, same_unit, cal)) + "   "
                        + _("Cost {cost} {range}", cost=money(e.cost, cur), range=spread(clo, chi, lambda x, y: money_pair(x, y, cur), cal)),
                        _("Memory {gb} GB per GPU ({fits})", gb=f"{e.memory_per_gpu_gb:,.1f}", fits=_("fits") if e.fits else _("DOES NOT FIT"))
                        + "   " + _("Exposed communication {share} of step", share=f"{e.communication_share:.0%}"),
                    ]
                    yield Static("\n".join(head), id="headline")
                    if d.warnings:
                        colours = palette(self.app.current_theme.dark)
                        yield Static(Text.assemble(*[part for w in d.warnings for part in (
                            (_("BLOCKING ") if w.blocking else "! ", f"bold {colours['error'] if w.blocking else colours['warn']}"),
                            w.text + "\n")]), id="warnings")
                    # The reasons in words; which rule gave each and its sources are the Rules tab's (issue 34: no ids here).
                    yield Static("[b]" + _("Why") + "[/b]\n" + "\n".join(f"• {_esc(r.text)}" for r in rec.rationale)
                                 + "\n[dim]" + _("Sources: the Rules tab") + "[/dim]", id="why-list")
            with TabPane(_("Options"), id="options"):
                # which count and job the rows are priced at: the table alone read as every option searched (user try)
                method = stage_name(d.method.planned) if d.method is not None else None
                # the type too: a PM whose cluster is A10 read the rented H100s' rows as A10 figures (user try 15)
                yield Static(_("Options on {gpus} × {gpu}", gpus=count(rec.gpus), gpu=plan_gpu_name(d)) + (f" · {method}" if method else ""),
                             id="options-heading")
                yield DataTable(id="options-table", zebra_stripes=True, cursor_type="row")
                # A scrolling panel: a long reason was cut mid-sentence at 80x24 with no way to read on (user try
                # 2026-12-06); Tab focuses it and the arrows, Page Down and End scroll it. It sits in a container of its
                # own: Textual moves the focus of a widget whose pane is hidden to a focusable sibling, and a sibling
                # panel took it back and reopened this tab.
                with Container(classes="detail-wrap"):
                    with VerticalScroll(id="options-detail-box", classes="detail"):
                        yield Static("", id="options-detail")
            with TabPane(_("Questions"), id="questions"):
                with VerticalScroll():
                    yield Static("\n".join(f"? {_esc(q.text)}" for q in d.questions) or _("No questions."), id="questions-list")
            with TabPane(_("Checklist"), id="checklist"):
                done = set(v.checked)
                yield SelectionList[int](*[(Text(c.text), i, c.text in done) for i, c in enumerate(d.checklist)], id="checklist-list")
                with Container(classes="detail-wrap"):
                    with VerticalScroll(id="checklist-detail-box", classes="detail"):
                        yield Static("", id="checklist-detail")
            with TabPane(_("Rules"), id="rules"):
                with VerticalScroll():
                    yield Static("\n".join(f"[b]{_esc(fr.title)}[/b] [dim]({_esc('; '.join(source_words(x) for x in fr.source))}; {fr.id})[/dim]"
                                           for fr in d.fired_rules), id="rules-list")
            with TabPane(_("Memo"), id="memo"):
                # said while the preview is built (a second or more on a slow machine): the blank pane looked broken (user try 13)
                yield VerticalScroll(Static(_("Building the memo…"), id="memo-loading"), id="memo-scroll")
            with TabPane(_("Chart"), id="chart"):
                with VerticalScroll(id="chart-scroll"):
                    yield Static(self._chart_key(), id="chart-key")
                    yield PlotextPlot(id="chart-days")
                    yield PlotextPlot(id="chart-cost")
            with TabPane(_("Ask"), id="ask"):
                state = self.state
                yield AskBox(getattr(state, "conversation", []), bool(getattr(state, "memo_questions", False)), id="ask-box",
                             gpus=rec.gpus)
        yield Footer(show_command_palette=False, compact=True)  # five keys fill 80 columns; ^p still opens the palette (F1 lists it)

    def on_mount(self) -> None:
        self._draw_charts()
        # The first tab's pane takes the keys, so PageDown and the arrows scroll the Summary at once (after Ctrl+R they did
        # nothing until Tab, and neither the footer nor the help said so: user try 2026-12-06).
        self.call_after_refresh(self._focus_pane, self.query_one("#tabs", TabbedContent).active or "summary")
        table = self.query_one("#options-table", DataTable)
        # What a PM reads first: whether it runs, its time and cost, and why it lost, all within the screen's width — a
        # wider table scrolled sideways and drew its scrollbar's thumb as a stray '▉' (user try 2026-12-05); the whole
        # sentence, the memory and the rules' score are shown under the table for the highlighted row.
        table.add_columns(_("strategy"), _("runs"), _("time"), _("cost"), _("why not"))
        chosen = self.view.report.recommendation.strategy
        rows = [(est, _("chosen") if est.strategy == chosen else (est.why_not or [""])[0]) for est in self.options]
        usable = self.view.report.hardware.usable_gb
        # 'tight' past the 10% memory headroom, as the memo's 'yes, tight (96% of memory)' (user try 8b: the tab said 'yes')
        costs = money_column([est.cost for est, _why in rows], self.view.report.estimate.currency)  # one unit a column
        cells = [(est.strategy, (_("tight") if tight(est, usable) else _("yes")) if runs(est) else _("no"),
                  hours_text(est.wall_clock_hours), said) for (est, _why), said in zip(rows, costs, strict=True)]
        # Each column takes its widest cell plus 2 of padding; the scrollbar takes 2 more.
        used = sum(max(width(str(c[i])) for c in [*cells, (_("strategy"), _("runs"), _("time"), _("cost"))]) + 2 for i in range(4))
        room = max(12, (self.app.size.width or 80) - used - 4)
        for (est, why), row in zip(rows, cells, strict=True):
            table.add_row(*row, clip(why, room), key=est.strategy)

    def _chart_key(self) -> str:
        """What the colours mean, and where the line cannot show it, why: one count searched, or today on another GPU type."""
        report, pts = self.view.report, self.view.chart
        p = report.plan
        if len(pts) < 2:  # one count: a sentence, not two empty boxes
            if not pts:
                return _("Nothing runs at the GPU counts searched.")
            q = pts[0]
            return _("Only {gpus} GPUs were searched: {time} and {cost} a run.", gpus=f"{q.gpus:,}", time=hours_text(q.days * 24.0),
                     cost=money(q.cost, report.estimate.currency))
        # the lines on one row, the marks on the next: at 80 columns one row wrapped a mark away from its words
        answers, today_shown = answers_of(report), any(q.today for q in pts)
        marks = ["[green]●[/] " + _("plan")]
        if any(q.at_risk for q in pts):
            marks.append("[yellow]●[/] " + _("deadline at risk"))
        if today_shown:
            marks.append("[#ffa500]●[/] " + _esc(count_word(report)))
        deadline, limit = answers.training.deadline_days, answers.budget.limit
        drawn = (drawn_limit(deadline, [q.days for q in pts]) is not None, drawn_limit(limit, [q.cost for q in pts]) is not None)
        lines = (_("[blue]━[/] best option at each GPU count   [red]━[/] deadline or run budget") if any(drawn)
                 else _("[blue]━[/] best option at each GPU count"))  # no red line is drawn: none named, or none near (user try)
        key = lines + "\n" + "   ".join(marks)
        far = [_("the {days}-day deadline", days=format_number(deadline)) if deadline is not None and not drawn[0] else "",
               _("the run budget of {limit}", limit=money(limit, report.estimate.currency)) if limit is not None and not drawn[1] else ""]
        far = [f for f in far if f]
        if far:  # the memo's words: a line drawn there flattened every point onto zero
            what = _(" and ").join(far)
            key += "\n" + _("{what} is far above every point, so it is not drawn.", what=what[:1].upper() + what[1:])
        if not today_shown and not p.greenfield and not today_on_the_line(report):
            key += "\n" + _("Today's {gpus} × {gpu} are another GPU type, not on these lines.", gpus=f"{p.today.gpus:,}",
                             gpu=_esc(answers.cluster.spec.name))
        return key

    def _draw_charts(self) -> None:
        """Time and cost per run against GPU count (log scale), the deadline and run budget as flat lines, today's count
        and the plan's marked: the what-if table as a picture (issue 22). The y axis runs from 0 to a round top with round
        labels (issue 34: a ±4% wobble filled the height and read 174133.1); one count is a sentence, not two boxes."""
        pts = self.view.chart
        answers = answers_of(self.view.report)  # the typed answers, not the report's dict read by key
        cur = self.view.report.estimate.currency
        deadline = answers.training.deadline_days
        limit = answers.budget.limit
        # a run of hours in hours, as the memo's chart says it: a 0.3 h run drew on an axis of 0-0.015 days (user try 11)
        in_hours = bool(pts) and chart_in_hours(max(q.days for q in pts) * 24.0)
        time_chart = (("#chart-days", _("Time per run (hours) by GPU count"), [q.days * 24.0 for q in pts],
                       deadline * 24.0 if deadline is not None else None) if in_hours else
                      ("#chart-days", _("Time per run (days) by GPU count"), [q.days for q in pts], deadline))
        for widget_id, title, values, line in (
            time_chart,
            ("#chart-cost", _("Cost per run ({currency}) by GPU count", currency=money_unit(cur)), [q.cost for q in pts], limit),
        ):
            plot = self.query_one(widget_id, PlotextPlot)
            plt = plot.plt
            plt.clear_data()
            plt.title(title)
            plot.display = len(pts) >= 2
            if len(pts) < 2:
                continue
            # GPU counts on a log axis, transformed here: plotext's own log scale re-applies itself on every build, so a
            # second render (a resize, a theme switch) takes the log of a log and fails.
            xs = [math.log2(q.gpus) for q in pts]
            # No plotext legend: it indexes past a series whose points all fall outside the canvas (a hidden tab lays out
            # at zero height), so the colours are named in the caption above instead.
            plt.plot(xs, values, marker="braille", color="blue")
            line = drawn_limit(line, values)  # far above every point it is said in the key, not drawn (render.drawn_limit)
            if line is not None:
                plt.plot([xs[0], xs[-1]], [float(line), float(line)], marker="braille", color="red")
            marks = [(lambda q: q.today, "orange"), (lambda q: q.plan, "green")]
            if widget_id == "#chart-days":  # at risk is about the date: marked on the time line, over today's, under the plan's
                marks.insert(1, (lambda q: q.at_risk, "yellow"))
            for flag, colour in marks:
                hit = [(math.log2(q.gpus), v) for q, v in zip(pts, values, strict=True) if flag(q)]
                if hit:
                    plt.scatter([h[0] for h in hit], [h[1] for h in hit], marker="hd", color=colour)
            ticks = axis_ticks(max(values + ([float(line)] if line is not None else [])))
            plt.ylim(0, ticks[-1])
            plt.yticks(ticks, [format_number(t) for t in ticks])
            plt.xticks(xs, [f"{q.gpus:,}" for q in pts])
            plt.xlabel(_("GPUs (log scale)"))  # the doublings are evenly spaced: a PM read 8 -> 16 as linear (user try 2026-12-06)

    @on(DataTable.RowHighlighted, "#options-table")
    def _option_detail(self, event: DataTable.RowHighlighted) -> None:
        """The full reasons for the highlighted strategy: the table cell is cut to fit."""
        s = str(event.row_key.value)
        rec = self.view.report.recommendation
        est = next(o for o in self.options if o.strategy == s)
        figures = _("{gb} GB per GPU, rule score {score}", gb=f"{est.memory_per_gpu_gb:,.1f}", score=f"{est.score:g}")
        why = (_("chosen") + " — " + " ".join(r.text for r in rec.rationale[:1])) if s == rec.strategy else join_reasons(est.why_not)
        text = _("{strategy} ({figures}): {why}", strategy=s, figures=figures, why=why)
        self.query_one("#options-detail", Static).update(Text(text))

    @on(SelectionList.SelectionHighlighted, "#checklist-list")
    def _checklist_detail(self, event: SelectionList.SelectionHighlighted) -> None:
        item = self.view.report.checklist[event.selection_index]
        self.query_one("#checklist-detail", Static).update(Text(f"{item.text}  ({'; '.join(source_words(x) for x in item.source.split(', '))})"))

    @on(TabbedContent.TabActivated)
    def _tab(self, event: TabbedContent.TabActivated) -> None:
        """The memo preview is built when first shown: it is the slowest widget on the screen. Built a moment later, and
        only if the memo is still showing: ] pressed through the tabs drew it on the way and held every later step behind
        it (user try 12: the screen sat on Options for seconds with Ask already chosen)."""
        if event.pane.id == "memo" and not self.query("#memo-preview"):
            self.set_timer(MEMO_SETTLE_S, self._mount_memo)

    async def _mount_memo(self) -> None:
        if self.query_one("#tabs", TabbedContent).active != "memo" or self.query("#memo-preview"):
            return
        preview = Markdown(self.view.memo(self.size.width), id="memo-preview")
        await self.query("#memo-loading").remove()
        await self.query_one("#memo-scroll", VerticalScroll).mount(preview)

    def action_next_tab(self) -> None:
        """] and [ step through the tabs from anywhere but a question being typed (a new user found only Tab, then
        arrows)."""
        self._step_tab(+1)

    def action_previous_tab(self) -> None:
        self._step_tab(-1)

    def _step_tab(self, by: int) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        panes = [p.id for p in tabs.query(TabPane) if p.id]
        tabs.active = panes[(panes.index(tabs.active) + by) % len(panes)] if tabs.active in panes else panes[0]
        # the pane takes the keys, so PageDown and the arrows scroll it (a user try found they did nothing until Tab); on Ask,
        # the question box: its empty box invites typing, and letters typed outside it ran shortcuts ('s' in 'what is MFU'
        # opened the save dialog; user try 2026-12-06). Esc gives the keys back.
        self._typing_ahead = tabs.active == "ask"
        self.call_after_refresh(self._focus_pane, tabs.active, self._typing_ahead)

    def on_key(self, event: events.Key) -> None:
        """Keys typed right behind the step onto Ask, before the box has the focus (a terminal queues them while the tab
        is drawn): into the box, not the screen's keys — '?' opened the help, 'a' the launch dialog, 'q' quit (user try at
        80x24, 2026-12-07). Until the box takes the focus or Esc."""
        if not self._typing_ahead:
            return
        if event.key == "escape":  # the box's own focus ends it too (_focus_moved): keys then go to the box itself
            self._typing_ahead = False
            return
        box = self.query_one("#ask-input", Input)
        if event.is_printable and event.character:
            box.insert_text_at_cursor(event.character)
        elif event.key == "backspace":
            box.action_delete_left()
        elif event.key == "enter":
            box.post_message(Input.Submitted(box, box.value))
        else:
            return
        event.stop()
        event.prevent_default()

    @on(events.DescendantFocus)
    def _focus_moved(self, event: events.DescendantFocus) -> None:
        if event.widget.id == "ask-input":
            self._typing_ahead = False

    def _focus_pane(self, pane_id: str, box: bool = False) -> None:
        """The pane's first focusable widget (on Ask, the question box) — unless the tabs have moved on: a focus in a pane
        makes Textual's TabbedContent show that pane again (TabPane.Focused), so a late focus of a pane stepped past
        pulled the tabs back to it, and ] pressed fast from Summary stopped on Chart with the keys typed for the question
        going to the screen (user try at 80x24, 2026-12-07)."""
        if self.query_one("#tabs", TabbedContent).active != pane_id:
            return
        if box:  # stepped onto Ask: the question box (a screen opened on Ask, after Adopt, keeps its keys: s saves)
            self.query_one("#ask-input", Input).focus()
            return
        pane = self.query_one(f"#{pane_id}", TabPane)
        target = next((w for w in pane.query("*") if w.focusable), None)
        if target is not None:
            target.focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def key_question_mark(self) -> None:
        """'?' opens the help unless the question box takes it as text."""
        if not isinstance(self.focused, Input):
            self.action_help()

    def action_ask(self) -> None:
        self.query_one("#tabs", TabbedContent).active = "ask"
        self.query_one("#ask-input", Input).focus()

    @on(Input.Submitted, "#ask-input")
    async def _asked(self, event: Input.Submitted) -> None:
        """The question becomes a chat turn: the answer with its figures under it; an out-of-range value is the answers'
        own one-line error, shown in red; the conversation travels with the app (saved with the answers)."""
        question = QuestionInput.question(event.value)
        event.input.value = ""
        if not question:
            return
        state = self.state
        from advisor.outputs.ask import ask

        error, understood = False, False
        self.change = {}
        if self.advice is None:
            answer, error = _("The questions need the advice: answer the steps first."), True
        else:
            try:
                reply = ask(question, state.draft, self.advice, state.rules, _("answers"))
                answer, self.change, understood = reply.text(), reply.adoptable(), reply.understood
                if not zh() and written_in_chinese(question):
                    # The CLI answers a Chinese question in Chinese where no language was chosen; here the screen's
                    # language is the one chosen (the advice on screen is in it), so say how to get Chinese throughout.
                    answer += "\n" + "（回答使用界面语言。要用中文：ADVISOR_LANG=zh advisor，或 advisor --lang zh。）"
            except AdvisorError as exc:
                answer, error = exc.msg, True
            except Exception as exc:  # noqa: BLE001 - one question must not end the session and lose its answers
                answer, error = _("advisor could not answer this question (internal error: {error}); the plan and the answers "
                                  "are unchanged. Please report it with the question.", error=f"{type(exc).__name__}: {exc}"), True
        if understood:  # a question advisor could not read, or an error, is shown, not kept: it reached the memo (user try 2026-12-06)
            self.post_message(ConversationTurn(question, answer))
        adopt = self.query_one("#ask-adopt", Button)
        adopt.disabled = not self.change
        await self.query_one("#ask-box", AskBox).add(question, answer, error)

    @on(Button.Pressed, "#ask-adopt")
    def _adopt(self) -> None:
        """The what-if becomes the answers: the app takes the change and shows the advice on a new results screen."""
        if self.change:
            self.post_message(AdoptWhatIf(dict(self.change)))

    @on(Checkbox.Changed, "#ask-memo")
    def _memo_questions(self, event: Checkbox.Changed) -> None:
        from advisor.tui.ask import memo_label

        event.checkbox.label = memo_label(event.value)
        self.post_message(MemoQuestions(event.value))

    def action_export(self) -> None:
        self.post_message(ExportWanted("memo"))

    def action_save(self) -> None:
        self.post_message(ExportWanted("answers"))

    def action_artifacts(self) -> None:
        self.post_message(ExportWanted("launch"))

    def action_back(self) -> None:
        """Back to the review of every answer (the app leaves this screen, and drops an export asked for just before)."""
        self.post_message(EditWanted())

    def action_leave_input(self) -> None:
        """Esc in the Ask box gives the keys back to the screen: the tabs take the focus, so b, e, s work again."""
        if isinstance(self.focused, Input):
            self.query_one("#tabs Tabs").focus()

    async def action_quit(self) -> None:
        await self.app.action_quit()

    @on(SelectionList.SelectedChanged)
    def _ticked(self, event: SelectionList.SelectedChanged) -> None:
        """Ticked checklist items travel with the answers (project.checklist_done) and show as [x] in the memo."""
        items = self.view.report.checklist
        self.post_message(ChecklistTicked([items[i].text for i in event.selection_list.selected]))

    @property
    def state(self) -> AdvisorState:
        return session(self)
