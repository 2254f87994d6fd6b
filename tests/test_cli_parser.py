"""Issue 20: the command line builds only the parser of the command it names; what argparse reads, prints and refuses
must be what the whole parser reads, prints and refuses."""

from __future__ import annotations

import contextlib
import io

import pytest

from advisor import cli

LINES = [
    ["advise", "a.yaml"],
    ["advise", "a.yaml", "--format", "json", "-o", "out.json", "--force", "--artifacts", "launch", "--rules", "r"],
    ["--lang", "zh", "advise", "a.yaml", "--format", "md"],
    ["--rules", "extra", "--debug", "sweep", "a.yaml", "--gpus", "8..64", "--rows", "3"],
    ["ask", "a.yaml", "what if we only get 128 GPUs?", "--save", "s.yaml", "--adopt"],
    ["render", "r.json", "--format", "text"],
    ["tui", "a.yaml"],
    ["--answers", "a.yaml", "tui"],
    ["init", "-", "--force"],
    ["schema", "--report"],
    ["gpus", "--format", "json"],
    ["rules", "test", "cases.yaml", "--rules", "r"],
    ["rules", "list"],
    [],
    ["--lang", "en"],
]


@pytest.mark.parametrize("argv", LINES, ids=lambda a: " ".join(a) or "(none)")
def test_the_commands_own_parser_reads_what_the_whole_parser_reads(argv):
    assert vars(cli._parser(cli._command(argv)).parse_args(argv)) == vars(cli._parser(None).parse_args(argv))


@pytest.mark.parametrize("argv, command", [
    (["advise", "a.yaml"], "advise"),
    (["--lang", "advise", "sweep", "x"], "sweep"),  # the word after --lang is its value, not the command
    (["--rules", "ask", "ask"], "ask"),
    (["--debug", "rules", "list"], "rules"),
    (["--help", "advise"], None),
    (["advise", "--help"], "advise"),  # the command's own help: its parser alone prints it
    (["bogus"], None),
    ([], None),
    (["--lang=zh", "gpus"], "gpus"),
])
def test_the_command_is_the_first_word_that_is_not_an_option_or_its_value(argv, command):
    assert cli._command(argv) == command


def _printed(argv: list[str], parser) -> tuple[int | str | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as done:
        parser.parse_args(argv)
    return done.value.code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_a_commands_help_and_errors_are_the_whole_parsers(command):
    for argv in ([command, "--help"], [command, "--no-such-option"]):
        assert _printed(argv, cli._parser(cli._command(argv))) == _printed(argv, cli._parser(None)), argv


def test_every_command_the_whole_parser_knows_is_listed():
    """COMMANDS is what _command recognises: a command added to the parser but not to it would be refused."""
    sub = next(a for a in cli._parser(None)._actions if a.dest == "command")
    assert tuple(sub.choices) == cli.COMMANDS


def test_an_unknown_command_is_refused_with_every_command_to_choose_from(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["bogus"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert all(f"'{c}'" in err for c in cli.COMMANDS), err
