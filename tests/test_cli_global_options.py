"""The program's own options where people type them: after the command as well as before it (`advisor advise a.yaml
--lang zh` was refused with 'unrecognized arguments: --lang zh (did you mean --lang?)')."""

from __future__ import annotations

import pytest

ANSWERS = "model: {params: 7B}\ncluster: {gpu: h100-sxm, gpus: 8}\nbudget: {price_per_gpu_hour: 2}\ntraining: {tokens: 10B}\n"


@pytest.fixture
def answers(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(ANSWERS, encoding="utf-8")
    return path


@pytest.mark.parametrize("argv", [["advise", "{a}", "--lang", "zh"], ["advise", "{a}", "--lang=zh"], ["--lang", "en", "advise", "{a}", "--lang", "zh"]])
def test_lang_after_the_command_is_taken(answers, capsys, argv):
    from advisor.cli import main

    assert main([x.format(a=answers) for x in argv]) == 0
    out = capsys.readouterr().out
    assert "推荐" in out or "方案" in out, out


@pytest.mark.parametrize("command", [["tui"], ["advise", "{a}"], ["sweep", "{a}"], ["ask", "{a}", "why?"], ["render", "r.json"],
                                     ["init"], ["schema"], ["gpus"], ["rules", "check"], ["rules", "test"], ["rules", "list"]])
def test_every_command_reads_lang_and_debug_where_they_are_typed(answers, command):
    from advisor.cli import _command, _parser

    argv = [x.format(a=answers) for x in command] + ["--lang", "zh", "--debug"]
    args = _parser(_command(argv)).parse_args(argv)
    assert args.lang == "zh" and args.debug is True
    before = ["--lang", "zh", "--debug"] + [x.format(a=answers) for x in command]
    args = _parser(_command(before)).parse_args(before)
    assert args.lang == "zh" and args.debug is True  # before the command, as ever


def test_an_option_given_after_the_command_is_not_suggested_as_itself(answers, capsys):
    """'--version' after a command: its place is before the command, and the message says so, not 'did you mean
    --version?'."""
    from advisor.cli import main

    with pytest.raises(SystemExit) as done:
        main(["advise", str(answers), "--version"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean --version" not in err and "advisor --version" in err, err
