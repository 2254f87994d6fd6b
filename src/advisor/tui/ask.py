"""The Ask box on the results screen: a question typed, the answer shown as a chat turn under it (advisor.outputs.ask does
the work; this widget only moves text between the input and the log)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Static

from advisor.base.i18n import _


def memo_label(on: bool) -> str:
    """The memo checkbox's words say its state: ticked and unticked differed only in colour, and an export went out
    without the questions nobody saw were off (user try 2026-12-07)."""
    return _("Questions in the memo: yes") if on else _("Questions in the memo: no")


class QuestionInput(Input):
    """The question box. Empty, it leaves ] and [ to the screen, which steps through the tabs with them: Textual drops
    every printable key an Input could take from the screen's bindings, so a further ] on the Ask tab typed itself
    into the box (user try 2026-12-06). Once a question is being typed, each is text.

    '/' (the key that focuses the box) is always text while the box has the focus: whether the box is empty is read
    when the key arrives, before the keys typed just ahead of it have reached the box, so a question typed or pasted in
    one burst lost every '/' ('a/b 1/2' became 'ab 12', '100 Gb/s' '100 Gbs'; user try 14). A '/' pressed to focus a
    box that already had the focus is dropped from the question instead (``question``; user try 9)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character is None and key == "slash":
            character = "/"  # Textual's key_to_character('slash') is None, so a '/' in a question read as the Ask key
        if not self.value and character in ("[", "]"):
            return False
        return super().check_consume_key(key, character)

    @staticmethod
    def question(value: str) -> str:
        """The question as asked: without the '/' that was pressed to focus the box (no question starts with one)."""
        return value.strip().lstrip("/").strip()


class MarkedCheckbox(Checkbox):
    """A checkbox whose X is drawn only when ticked: Textual draws it in both states and tells them apart by colour alone,
    so '▐X▌ Questions in the memo: no' read as ticked in a terminal without colour (user try 15)."""

    def __init__(self, label: str, value: bool = False, id: str | None = None) -> None:
        super().__init__(label, value, id=id)
        self.BUTTON_INNER = "X" if value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()


class AskBox(Vertical):
    """The conversation so far, an input for the next question, Adopt (for a what-if) and 'in the memo'."""

    def __init__(self, turns: Sequence[Mapping[str, str]], in_memo: bool, id: str | None = None, gpus: int = 256) -> None:
        super().__init__(id=id)
        self.turns = list(turns)
        self.in_memo = in_memo
        self.fewer = max(1, gpus // 2)
        """The hint's 'what if we only get N GPUs?': half the plan's count ('128' was offered to an 8-GPU team; user try 15)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="ask-log"):
            yield Static(Text(_("Ask about the plan: what if we only get {gpus} GPUs? · why not DeepSpeed? · what is all-reduce? · "
                                "compare ddp and fsdp · 如果截止日期是 10 天呢？", gpus=self.fewer), style="dim"), id="ask-hint")
            for t in self.turns:
                yield from self.turn(t["question"], t["answer"])
        inp = QuestionInput(placeholder=_("Type a question, Enter asks"), id="ask-input")
        inp.cursor_blink = False
        yield inp
        with Horizontal(id="ask-actions"):
            yield Button(_("Adopt the what-if"), id="ask-adopt", disabled=True)
            yield MarkedCheckbox(memo_label(self.in_memo), self.in_memo, id="ask-memo")

    @staticmethod
    def turn(question: str, answer: str, error: bool = False) -> list[Static]:
        return [Static(Text("› " + question, style="bold"), classes="ask-q"),
                Static(Text(answer, style="red" if error else ""), classes="ask-a ask-error" if error else "ask-a")]

    async def add(self, question: str, answer: str, error: bool = False) -> None:
        log = self.query_one("#ask-log", VerticalScroll)
        widgets = self.turn(question, answer, error)
        await log.mount_all(widgets)
        # the question at the top, its answer under it, once both are laid out: scrolled after one refresh, the log's
        # height was still the one before them and the scroll stopped short, leaving the new turn below the fold (user
        # try 12: the fourth answer at 80x24 showed only after Shift+Tab and End)
        log.call_after_refresh(log.call_after_refresh, log.scroll_to_widget, widgets[0], top=True, animate=False)
