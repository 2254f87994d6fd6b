"""Modal screens: a path to write to, a yes/no whose safe answer has the focus, the help and the review of every answer."""

from __future__ import annotations


from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from advisor.knowledge.strategies import STATE_BYTES_PER_PARAM
from advisor.base.i18n import _, N_
from advisor.tui.common import translate_bindings
from advisor.tui.messages import ReviewChoice


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
Ctrl+P opens the command palette. On the results: ] and [ step through the tabs, / asks a question, e exports the
memo, s saves the answers, a writes launch files, b goes back to edit.

**Glossary**

- **DDP** (PyTorch DistributedDataParallel): every GPU holds a whole copy of the model and optimizer and averages
  gradients with an all-reduce after each step. Simplest; about {bytes} bytes per parameter on every GPU.
- **Horovod**: the same data parallelism through a separate library (ring all-reduce); last released in 2023.
- **ZeRO** (DeepSpeed): data parallelism that shards the optimizer state (stage 1), the gradients too (stage 2) and
  the weights too (stage 3) across the GPUs. **ZeRO-Offload** moves some of it to CPU memory: memory for speed.
- **FSDP** (PyTorch Fully Sharded Data Parallel): PyTorch's own ZeRO-3. **HSDP** (hybrid sharding): FSDP inside each
  node and a copy per node, so the weight gathers stay on NVLink.
- **ZeRO++**: ZeRO-3 gathering weights in 8-bit (qwZ), keeping a second copy per node so the backward gathers stay
  inside it (hpZ) and reducing gradients in 4-bit (qgZ): a quarter of ZeRO-3's traffic between nodes.
- **LoRA / QLoRA**: train small added matrices (rank r) on a frozen model; QLoRA stores the frozen model in 4-bit.
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
        from textual.widgets import Markdown  # markdown-it: only when the help is opened, not before the first question

        with VerticalScroll(classes="dialog help"):
            yield Markdown(_(GLOSSARY, bytes=f"{STATE_BYTES_PER_PARAM:g}"))
        yield Footer()  # 'Esc Close': the help never said how to leave it (user try 13)

    def action_close(self) -> None:
        self.dismiss(None)


class ReviewScreen(ModalScreen[ReviewChoice]):
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
        self.dismiss(ReviewChoice(results=True) if option_id == "results" else ReviewChoice(step=int(option_id[1:])))

    def action_back(self) -> None:
        self.dismiss(ReviewChoice(step=len(self.rows) - 1))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
