"""The messages screens send up to the app, and the typed results modal screens return (issue 23 item 7).

Screens read the session through ``advisor.tui.state.AdvisorState`` and never assign to it: a change of answers, a
ticked checklist item, a question asked, an export wanted — each is a message the app handles. Both sides import this
module, so the screens no longer import the app (the import circle app ↔ question ↔ results is gone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

if TYPE_CHECKING:  # the answers and the advice need pydantic and numpy: not before the first question is drawn
    from advisor.decision.advice import Advice
    from advisor.inputs.answers import Answers


@dataclass
class AnswersChanged(Message):
    """The draft changed and validated: the side panel recomputes."""

    answers: Answers


@dataclass
class DraftAccepted(Message):
    """A step's answers validated (Enter, Next, Back): they become the session's draft and the estimate follows."""

    draft: dict[str, Any]


@dataclass
class DraftTyped(Message):
    """The fields as typed, not yet accepted (sent after a pause in typing): the live estimate previews them."""

    draft: dict[str, Any]


@dataclass
class EstimateReady(Message):
    """The estimate a worker computed for ``draft`` (None and a problem when it cannot be computed)."""

    draft: dict[str, Any]
    advice: Advice | None
    problem: str | None


class ResultsWanted(Message):
    """Show the results for the session's draft."""


class EditWanted(Message):
    """Leave the results for the review of every answer (`b`): an export asked for just before is dropped with them."""


@dataclass
class ChecklistTicked(Message):
    """The checklist items ticked on the results screen (they travel with the answers)."""

    items: list[str]


@dataclass
class ConversationTurn(Message):
    """A question asked on the results screen and its answer."""

    question: str
    answer: str


@dataclass
class MemoQuestions(Message):
    """Whether the exported memo carries the conversation."""

    included: bool


@dataclass
class AdoptWhatIf(Message):
    """The last what-if's change becomes the answers (answers field -> value as written)."""

    change: dict[str, object]


@dataclass
class ExportWanted(Message):
    """Write the memo, the answers or the launch files (the app asks where)."""

    what: Literal["memo", "answers", "launch"]


@dataclass(frozen=True)
class ReviewChoice:
    """What the review screen returns: a step to go back to, or the results."""

    step: int | None = None
    results: bool = False
