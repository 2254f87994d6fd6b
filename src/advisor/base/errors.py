"""One exception family, rendered once at the edge (CLI: one stderr line; TUI: a message).

Every error carries a complete one-line message that names the file and the field or key it is
about, so front ends never need to add context or print a traceback.
"""

from __future__ import annotations


class AdvisorError(Exception):
    """Base of every expected failure: bad input, bad rules, unwritable output."""

    title = "error"

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg

    def __str__(self) -> str:
        return self.msg


class InputFileError(AdvisorError):
    """A file could not be read or parsed as a mapping (empty, binary, huge, bad YAML)."""

    title = "input error"


class AnswerError(AdvisorError):
    """The answers do not validate against the answers model."""

    title = "answer error"


class RuleLoadError(AdvisorError):
    """A rule pack is malformed: names the file, the rule id and the dotted key."""

    title = "rule error"


class OutputError(AdvisorError):
    """The output could not be written (exists without --force, unwritable path). ``reason``: the system's own words
    (e.g. 'No space left on device'), so a caller writing a hidden staging file can name the user's path instead."""

    title = "output error"

    def __init__(self, msg: str, reason: str | None = None) -> None:
        super().__init__(msg)
        self.reason = reason
