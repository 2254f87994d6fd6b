"""What a screen may read of the guided Q&A's session, typed, without importing the app (issue 23 item 7).

The app (``advisor.tui.app.AdvisorApp``) holds the session and is the only one to change it, in its message handlers
(``advisor.tui.messages``); a screen reads it through ``session(self)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from advisor.decision.advice import Advice
    from advisor.inputs.questions import Step
    from advisor.knowledge.rules import RuleSet


class AdvisorState(Protocol):
    """The session as screens see it: read, never assigned."""

    @property
    def draft(self) -> dict[str, Any]: ...
    @property
    def rules(self) -> RuleSet: ...
    @property
    def steps(self) -> tuple[Step, ...]: ...
    @property
    def checked(self) -> list[str]: ...
    @property
    def conversation(self) -> list[dict[str, str]]: ...
    @property
    def memo_questions(self) -> bool: ...
    @property
    def cursor_blink(self) -> bool: ...
    @property
    def last_advice(self) -> Advice | None: ...


def session(node: DOMNode) -> AdvisorState:
    """The session of the app ``node`` runs in."""
    return cast("AdvisorState", node.app)
