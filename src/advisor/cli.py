"""Command line: `advisor` (the guided TUI) and the headless subcommands.

The headless paths never import Textual (see tests/test_boundaries.py), so `advisor advise`
starts fast. Every expected failure is an AdvisorError rendered as one stderr line, exit 2.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn
from collections.abc import Sequence

from advisor import __version__
from advisor.base.errors import AdvisorError, AnswerError, InputFileError, OutputError
from advisor.base.i18n import N_, _, detect, normalise, pad, set_language, written_in_chinese, zh
from advisor.base.units import count, plural

EXIT_BAD_INPUT = 2
EXIT_FAILED_CHECK = 1


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (its default prints the whole usage block), and no abbreviated options: `advise
    --out DIR` was taken for --output and wrote the text summary to a file named DIR (user try 12)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        words = _argparse_words(message)
        if message.startswith("unrecognized arguments: "):
            token = message.split(": ", 1)[1].split()[0]
            own = {o for a in self._actions for o in a.option_strings if o.startswith("--")}
            flag = token.split("=", 1)[0]
            words += (_(" (put {flag} before the command: {prog} {flag} ...)", flag=flag, prog=self.prog) if flag in own
                      else _meant(token, self._option_names()))
        self.exit(EXIT_BAD_INPUT, "advisor: " + _("{message} (see '{prog} --help')", message=words, prog=self.prog) + "\n")

    def _option_names(self) -> set[str]:
        """Every long option this parser and its commands take."""
        names = {o for a in self._actions for o in a.option_strings if o.startswith("--")}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    names |= {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
        return names


_DIRECTORY_WORDS = ("--out", "--outdir", "--out-dir", "--output-dir", "--dir", "--launch")
"""What people type for an output directory: advise writes its launch files with --artifacts DIR."""


def _meant(token: str, names: set[str]) -> str:
    """' (did you mean ...?)' for an unknown option: the options it begins, else close spellings, and --artifacts for an
    output directory's usual names."""
    if not token.startswith("--"):
        return ""
    flag = token.split("=", 1)[0]
    meant = sorted(n for n in names if n.startswith(flag) and n != flag)
    if not meant:  # a prefix says it; else spelling (difflib imported only here, off the start-up path)
        import difflib

        meant = [n for n in difflib.get_close_matches(flag, sorted(names), n=3, cutoff=0.75) if n != flag][:2]
    if flag in _DIRECTORY_WORDS and "--artifacts" in names and "--artifacts" not in meant:
        meant.append("--artifacts")
    if not meant:
        return ""
    return _(" (did you mean {options}?)", options=_(" or ").join(meant))


_ARGPARSE = (
    (re.compile(r"^the following arguments are required: (?P<names>.*)$"), N_("the following arguments are required: {names}")),
    (re.compile(r"^unrecognized arguments: (?P<names>.*)$"), N_("unrecognized arguments: {names}")),
    (re.compile(r"^argument (?P<arg>[^:]+): invalid choice: (?P<value>.*?) \(choose from (?P<names>.*)\)$"),
     N_("argument {arg}: invalid choice: {value} (choose from {names})")),
    (re.compile(r"^argument (?P<arg>[^:]+): invalid (?P<kind>\w+) value: (?P<value>.*)$"), N_("argument {arg}: invalid {kind} value: {value}")),
    (re.compile(r"^argument (?P<arg>[^:]+): expected one argument$"), N_("argument {arg}: expected one argument")),
)
"""argparse's own messages (English: Python ships no catalog for them), put in the current language."""


def _argparse_words(message: str) -> str:
    for rx, msgid in _ARGPARSE:
        m = rx.match(message)
        if m:
            return _(msgid, **m.groupdict())
    return message


def _early_language(argv: Sequence[str] | None) -> None:
    """--lang (or ADVISOR_LANG, the locale) set before the command line is parsed, so argparse's errors follow it too;
    a bad --lang is reported once parsing is done."""
    args = list(sys.argv[1:] if argv is None else argv)
    lang = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            lang = args[i + 1]
        elif arg.startswith("--lang="):
            lang = arg.split("=", 1)[1]
    try:
        set_language(lang if lang else detect())
    except ValueError:
        set_language("en")


@functools.cache
def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """Built once per process: building it costs ~10 ms (argparse looks up a gettext catalog for every help string), as
    much as the rest of a cached `advise`; parse_args does not change it (append defaults are copied). Given the command
    the command line names (``_command``), only that command's parser is added: its options, help and errors are the
    same, and the other nine are not built for nothing (~5 ms of every run; issue 20). Without one (no command,
    --help, an unknown name) every command is added, so the help lists them all and an unknown name is refused with
    the list to choose from."""
    p = _Parser(prog="advisor", description="Rule-based distributed-training advisor. With no command, opens the guided Q&A.")
    p.add_argument("--version", action="version", version=f"advisor {__version__}")
    p.add_argument("--debug", action="store_true", help="print the full traceback of an internal error, for a bug report (also: ADVISOR_DEBUG=1)")
    p.add_argument("--lang", metavar="LANG", default=None,
                   help="en or zh (简体中文) for the Q&A, text and memo; default: $ADVISOR_LANG, then the locale. JSON keys stay English")
    p.add_argument("--answers", metavar="FILE", help="open the guided Q&A with these answers prefilled")
    p.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], help="extra rule pack directory (repeatable)")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    if only in (None, "tui"):
        tui = sub.add_parser("tui", help="the guided Q&A (the default)")
        tui.add_argument("answers_file", nargs="?", metavar="ANSWERS", help="answers to prefill")
        tui.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], dest="sub_rules")

    if only in (None, "advise"):
        adv = sub.add_parser("advise", help="advice for an answers file, as text, JSON or a markdown memo")
        adv.add_argument("answers_file", metavar="ANSWERS", help="answers file (YAML or JSON; '-' reads stdin)")
        adv.add_argument("--format", choices=("text", "json", "md"), default="text")
        adv.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout (atomic)")
        adv.add_argument("--force", action="store_true", help="overwrite an existing output file (and artifacts)")
        adv.add_argument("--artifacts", metavar="DIR", help="also write launch artifacts (ds_config.json, launch.sh, job.sbatch, ...) into DIR")
        adv.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], dest="sub_rules")

    if only in (None, "render"):
        ren = sub.add_parser("render", help="the text summary or the memo again, from a report saved by `advise --format json`")
        ren.add_argument("report_file", metavar="REPORT", help="report JSON written by `advisor advise --format json` ('-' reads stdin)")
        ren.add_argument("--format", choices=("text", "md", "json"), default="md")
        ren.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout (atomic)")
        ren.add_argument("--force", action="store_true", help="overwrite an existing output file")

    if only in (None, "sweep"):
        sw = sub.add_parser("sweep", help="what-if: time, cost and fit across GPU counts for every strategy")
        sw.add_argument("answers_file", metavar="ANSWERS")
        sw.add_argument("--gpus", default=None, metavar="COUNTS",
                        help="GPU counts to price: 256, 8..1024 or a list such as 64,128,256 (default: one node .. 4x the answers' count)")
        sw.add_argument("--format", choices=("text", "json", "md"), default="text")
        sw.add_argument("--rows", type=int, default=24, help="table rows in text/md (the JSON has every point)")
        sw.add_argument("-o", "--output", metavar="PATH")
        sw.add_argument("--force", action="store_true")

    if only in (None, "ask"):
        ask = sub.add_parser("ask", help="ask about the advice: what if, why (not), what is, compare (English or Chinese)")
        ask.add_argument("answers_file", metavar="ANSWERS", help="answers file (YAML or JSON; '-' reads stdin)")
        ask.add_argument("question", nargs="?", default=None, metavar="QUESTION",
                         help="e.g. 'what if we only get 128 GPUs?', 'why not DeepSpeed?', 'what is all-reduce?', '如果截止日期是 10 天呢？'")
        ask.add_argument("--format", choices=("text", "json", "md"), default="text",
                         help="md: the decision memo with the questions kept in the answers and this one as an appendix")
        ask.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout (atomic)")
        ask.add_argument("--save", metavar="PATH", help="write the answers with this question and answer kept in project.conversation")
        ask.add_argument("--adopt", action="store_true", help="with --save: a what-if's change becomes the saved answers")
        ask.add_argument("--force", action="store_true", help="overwrite an existing output or --save file")
        ask.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], dest="sub_rules")

    if only in (None, "init"):
        init = sub.add_parser("init", help="write a commented answers template")
        init.add_argument("path", nargs="?", default=None, help="where to write it (default answers.yaml; '-' for stdout)")
        # '-o FILE', as every other command takes it: 'advisor init -o FILE' was refused (user try 14)
        init.add_argument("-o", "--output", metavar="PATH", help="the same as PATH")
        init.add_argument("--force", action="store_true")

    if only in (None, "schema"):
        sch = sub.add_parser("schema", help="print the answers file's JSON Schema (--report: the advice JSON's)")
        sch.add_argument("--report", action="store_true", help="the JSON Schema of `advise --format json` output instead")

    if only in (None, "gpus"):
        gpus = sub.add_parser("gpus", help="list the GPU catalog")
        gpus.add_argument("--format", choices=("text", "json"), default="text")

    if only in (None, "rules"):
        rules = sub.add_parser("rules", help="check, test or list rule packs")
        rsub = rules.add_subparsers(dest="rules_command", parser_class=_Parser, required=True)
        chk = rsub.add_parser("check", help="list every problem in every rule file")
        chk.add_argument("dirs", nargs="*", type=Path, metavar="DIR", help="rule directories (default: the shipped rules)")
        tst = rsub.add_parser("test", help="run the rule test cases")
        tst.add_argument("cases", nargs="*", type=Path, metavar="CASES", help="case files or directories (default: the shipped rules/tests)")
        tst.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], dest="sub_rules")
        rsub.add_parser("facts", help="list the facts rules may test")
        lst = rsub.add_parser("list", help="list the loaded rules in evaluation order")
        lst.add_argument("--rules", metavar="DIR", action="append", type=Path, default=[], dest="sub_rules")
    _program_options_after_the_command(p)
    return p


def _program_options_after_the_command(parser: argparse.ArgumentParser) -> None:
    """--lang and --debug taken after the command as well as before it: `advisor advise a.yaml --lang zh` was refused as
    'unrecognized arguments'. Their default is SUPPRESS, so a command that is not given them keeps the program's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.add_argument("--lang", metavar="LANG", default=argparse.SUPPRESS, help="en or zh (简体中文), as before the command")
                sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                 help="print the full traceback of an internal error, as before the command")
                _program_options_after_the_command(sub)


COMMANDS = ("tui", "advise", "render", "sweep", "ask", "init", "schema", "gpus", "rules")
_TAKES_VALUE = ("--lang", "--answers", "--rules")
"""The top-level options that take a value: the word after one is not the command."""


def _command(argv: Sequence[str]) -> str | None:
    """The command a command line names, as argparse will read it; None where it names none or asks for help."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help", "--version", "--"):
            return None
        if arg in _TAKES_VALUE:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return arg if arg in COMMANDS else None
    return None


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every temporary output file is removed on the way out."""
    raise KeyboardInterrupt


TUNING_OFF = "ADVISOR_PROCESS_TUNING"
"""Set to 0 (or off, false, no) to run advisor as a plain Python program: the environment as given, the cycle collector
on, and the interpreter's ordinary teardown (atexit handlers, profilers' reports). ``tune_process`` says what is tuned."""


def tuning_wanted() -> bool:
    """Process tuning applies unless switched off (ADVISOR_PROCESS_TUNING=0) or a profiler or tracer is attached
    (cProfile, coverage, a debugger): those read the process as it is, and report at teardown."""
    off = os.environ.get(TUNING_OFF, "").strip().lower() in ("0", "off", "false", "no")
    return not off and sys.getprofile() is None and sys.gettrace() is None


def tune_process() -> None:
    """What the `advisor` entry points (console script, ``python -m advisor``) tune for one short run, before any heavy
    import; ``main`` itself changes nothing process-wide, so a program that imports advisor keeps its own settings.
    Each explicit setting in the environment is kept (issue 20)."""
    # pydantic scans every installed distribution's entry points for plugins when it builds its first model (~10 ms of
    # importlib.metadata); advisor uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _no_plugin_loader()
    # numpy's OpenBLAS starts one worker thread per core when numpy is imported, and they spin-wait for work: 50-100 ms
    # of CPU on a 2-core machine for every run. advisor's arrays are a few thousand elements and never reach BLAS
    # (no matmul, dot or linalg), so one thread does the same work. Set before numpy is first imported.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    global _tuned
    _tuned = True


_tuned = False
"""tune_process() ran: this process is the `advisor` program itself, so it may end without the interpreter's teardown."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread (tests calling main from a worker): nothing to install
        pass
    global _collector_paused
    _collector_paused = gc.isenabled()
    gc.disable()
    try:
        _early_language(argv)
        return _main(argv)
    except AdvisorError as exc:
        _err(exc.msg)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err(_("interrupted"))
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one line, and the traceback only when asked for (--debug, ADVISOR_DEBUG=1)
        if debugging(argv):
            import traceback

            try:
                traceback.print_exc(file=sys.stderr)
            except (OSError, ValueError, AttributeError):
                pass
        _err(_("internal error ({kind}: {brief}); please report it with the input that caused it", kind=type(exc).__name__, brief=_brief(exc))
             + ("" if debugging(argv) else _(" (--debug or ADVISOR_DEBUG=1 shows the traceback)")))
        return 70
    finally:
        _resume_collector()


_collector_paused = False
"""main() turned Python's cycle collector off and it is to be turned back on (it was on when main was called)."""

LONG_RUNNING = ("tui", "sweep")
"""Commands that keep the cycle collector on: the guided Q&A runs as long as the user likes, a sweep may price
millions of points. Every other command is one short run over one bounded input (2 MiB at most) that ends with the
process: there the collector would walk the young objects every few hundred allocations while the models, rules and
estimate are built, to free nothing (~14 ms of CPU, 3% of an `advise`; issue 20)."""


_one_shot = False
"""The command that ran is one process's one piece of work (everything but the guided Q&A): see ``leave``."""


def leave(code: int) -> int:
    """The exit of the console script and of ``python -m advisor.cli``: after a one-shot command, the process ends here
    without tearing the interpreter down. Python's finalisation frees every object and module one by one — numpy's,
    pydantic's, the rules and the estimate — for an operating system that is about to reclaim the memory whole: ~80 M
    instructions, a fifth of what `advise` does beyond importing its libraries (issue 20). Nothing is lost by it:
    every file advisor writes is closed (and fsynced) before the command returns, advisor registers no exit handler,
    and the standard streams are flushed here; if flushing fails the ordinary exit runs and reports it as before. The
    guided Q&A (Textual, its threads and its terminal) always exits the ordinary way, as do tests calling ``main``, a
    process with an atexit handler registered, and any run with the tuning switched off (ADVISOR_PROCESS_TUNING=0)."""
    import atexit

    if not (_one_shot and _tuned and tuning_wanted()) or atexit._ncallbacks():
        return code
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return code
    os._exit(code)


def _resume_collector() -> None:
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        gc.enable()


def _no_plugin_loader() -> None:
    """With pydantic's plugins off, its plugin loader returns none; but importing the loader imports importlib.metadata
    (email, zipfile, csv...: ~18 ms of CPU, a tenth of everything `advise` adds to its libraries) just to name a
    function it then does not call. So, plugins off and the loader not imported yet, a loader that returns none is put
    in its place: the same answer, without that import (issue 20). An explicit PYDANTIC_DISABLE_PLUGINS that allows
    some plugins keeps pydantic's own loader."""
    name = "pydantic.plugin._loader"
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true") or name in sys.modules:
        return
    import types

    loader = types.ModuleType(name, "pydantic's plugin loader with plugins disabled (advisor.cli): no plugins, no scan.")
    loader.__dict__["get_plugins"] = lambda: ()
    sys.modules[name] = loader


def debugging(argv: Sequence[str] | None = None) -> bool:
    """--debug on the command line, or ADVISOR_DEBUG set to anything but empty, 0, false or no."""
    args = sys.argv[1:] if argv is None else argv
    if "--debug" in args:
        return True
    return os.environ.get("ADVISOR_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


def _brief(exc: BaseException) -> str:
    """An exception's message cut to one readable piece (str() itself may fail, e.g. on a huge number)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - any failure to describe it must not hide the original error
        text = _("(no description)")
    return text if len(text) <= 300 else text[:297] + "..."


def _err(msg: str) -> None:
    """One line on stderr, whatever the message echoes: escape sequences removed, other control characters (a newline)
    escaped (base.text.shown, the sanitiser every echo of user text goes through)."""
    from advisor.base.text import shown

    safe = shown(msg)
    try:
        sys.stderr.write(f"advisor: {safe}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # nowhere left to say it


_NEGATIVE_VALUE = re.compile(r"^-\.?\d")


def _joined_negative_values(argv: Sequence[str]) -> list[str]:
    """``--gpus -8..8`` as ``--gpus=-8..8``: argparse reads a value that starts with a minus sign and is not a plain
    number as another option and says only 'expected one argument'; joined, the option's own check names the bad
    count. No file name or command starts with a minus sign and a digit."""
    out: list[str] = []
    for arg in argv:
        if out and _NEGATIVE_VALUE.match(arg) and out[-1].startswith("--") and "=" not in out[-1] and out[-1] != "--":
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _main(argv: Sequence[str] | None) -> int:
    argv = _joined_negative_values(sys.argv[1:] if argv is None else argv)
    args = _parser(_command(argv)).parse_args(argv)
    try:
        set_language(normalise(args.lang) if args.lang else detect())
    except ValueError:
        given = args.lang if args.lang else os.environ.get("ADVISOR_LANG", "")
        raise AnswerError(_("--lang / ADVISOR_LANG: unknown language {lang}; use en or zh", lang=repr(given))) from None
    extra = list(args.rules) + list(getattr(args, "sub_rules", []) or [])
    cmd = args.command
    global _one_shot
    _one_shot = cmd is not None and cmd != "tui"
    if cmd is None or cmd in LONG_RUNNING:
        _resume_collector()
    if cmd is None or cmd == "tui":
        path = getattr(args, "answers_file", None) or args.answers
        return _run_tui(path, extra)
    if cmd == "advise":
        return _advise(args, extra)
    if cmd == "ask":
        return _ask(args, extra)
    if cmd == "render":
        return _render(args)
    if cmd == "init":
        return _init(args)
    if cmd == "sweep":
        return _sweep(args, extra)
    if cmd == "schema" and args.report:
        from advisor.decision.report import report_schema

        _out(json.dumps(report_schema(), indent=2) + "\n")
        return 0
    if cmd == "schema":
        from advisor.inputs.answers import answers_schema

        _out(json.dumps(answers_schema(), indent=2) + "\n")
        return 0
    if cmd == "gpus":
        return _gpus(args)
    if cmd == "rules":
        return _rules(args, extra)
    raise AssertionError(cmd)


def _out(text: str) -> None:
    """Write to stdout; characters its encoding lacks are replaced, and a full or closed stdout is one error line."""
    out = sys.stdout
    if out is None:
        raise OutputError(_("stdout is closed; write to a file with -o"))
    encoding = out.encoding or "utf-8"
    try:
        # ASCII (every JSON output, most text) passes through any encoding stdout may have: no 2 x 12 MB copies for a
        # 16,384-point sweep (issue 20).
        out.write(text if text.isascii() else text.encode(encoding, errors="replace").decode(encoding))
        out.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise OutputError(_("cannot write to stdout ({reason}); write to a file with -o", reason=getattr(exc, "strerror", None) or exc)) from None


def _run_tui(answers_path: str | None, extra: list[Path]) -> int:
    from advisor.knowledge.rules import load_rules

    rules = load_rules(extra)  # bad rules fail here, before the screen opens
    answers, draft = None, None
    if answers_path:  # the answers model (pydantic) only for a file: without one, it loads after the first paint
        from advisor.inputs.answers import answers_from_mapping, load_answers_mapping

        name, draft = load_answers_mapping(answers_path)
        try:
            answers = answers_from_mapping(draft, name)
        except AnswerError as exc:
            # One bad answer a step can show: open on that step with it marked. Anything else (a typo'd key): refuse.
            from advisor.inputs.answers import field_path
            from advisor.inputs.questions import steps, validate

            paths = {f.path for s in steps() for f in s.fields}
            _answers, errors = validate(draft)
            locs = {".".join(str(p) for p in field_path(e["loc"]))[:200] for e in errors}
            if not locs or not all(loc in paths for loc in locs):
                raise exc from None
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise InputFileError(_("the guided Q&A needs a terminal; for scripts use 'advisor advise ANSWERS'"))
    from advisor.tui.app import AdvisorApp

    source = Path(answers_path) if answers_path and answers_path != "-" else None
    app = AdvisorApp(rules=rules, answers=answers, draft=draft, show_tracebacks=debugging(), source=source)
    app.run()
    if app.return_code:
        error = app.internal_error
        what = f" ({type(error).__name__}: {_brief(error)})" if error is not None else ""
        hint = "" if debugging() else _(" (--debug or ADVISOR_DEBUG=1 shows the traceback)")
        _err(_("the guided Q&A stopped on an internal error{what}; please report it with the answers that caused it{hint}", what=what, hint=hint))
        return 70
    return 0


def _not_the_answers_file(args: argparse.Namespace) -> None:
    """-o naming the file read (the answers, or render's report): with --force the memo overwrote the answers it was
    made from (user try 14: 'advise copy.yaml --format md -o copy.yaml --force'; sweep and render the same). --force
    allows replacing an output, not the input."""
    from advisor.outputs.io import same_file, shown

    given = getattr(args, "answers_file", None) or getattr(args, "report_file", None)
    if given and given != "-" and args.output and args.output != "-" and same_file(given, args.output):
        raise OutputError(_("-o names the file being read ({path}); write the output to another path", path=shown(args.output)))


def _advise(args: argparse.Namespace, extra: list[Path]) -> int:
    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import load_rules

    to_file = _output_path(args.output)
    if to_file:
        from advisor.outputs.io import check_writable

        _not_the_answers_file(args)
        check_writable(args.output, args.force)  # refuse before doing any work
    if args.artifacts is not None and not args.artifacts.strip():
        raise OutputError(_("--artifacts: the directory is empty; give a directory such as launch/"))
    answers = load_answers(args.answers_file)
    advice = advise(answers, load_rules(extra))
    links, artifacts = None, None
    from advisor.outputs.render import to_json, to_markdown, to_text

    report = advice.report()  # built and validated once: the JSON, the text and the launch files are all written from it
    if args.artifacts:
        from advisor.outputs.artifacts import artifact_links, build_artifacts

        artifacts = build_artifacts(advice, report)
        links = artifact_links(artifacts, args.artifacts)
    if args.format == "md":
        text = to_markdown(report, artifacts=links)
    else:
        text = {"text": to_text, "json": to_json}[args.format](report)
    # Several outputs are written all or none: the memo is staged (written and fsynced beside its target) before the
    # launch files go in, and put in place after them; a failure on either side removes what the other wrote.
    staged = None
    if to_file:
        from advisor.outputs.io import stage_atomic

        staged = stage_atomic(args.output, text, force=args.force)
    try:
        written = _write_artifacts(advice, args, artifacts, staged) if artifacts is not None else None
        if staged and artifacts is None:
            staged.commit()
    except BaseException:
        if staged:
            staged.discard()
        raise
    if written is not None:
        _err(_("wrote {n} launch artifacts to {dir}", n=len(written), dir=args.artifacts))
    if staged:
        _err(_("wrote {path}", path=staged.path))
    else:
        _out(text)
    return 0


def _render(args: argparse.Namespace) -> int:
    """A saved report rendered again, in the language it was made in: the same bytes `advise` printed (issue 23)."""
    from pydantic import ValidationError

    from advisor.base.safeload import load_mapping
    from advisor.decision.report import Report
    from advisor.outputs.io import check_writable, write_atomic
    from advisor.outputs.render import to_json, to_markdown, to_text

    if _output_path(args.output):
        _not_the_answers_file(args)
        check_writable(args.output, args.force)
    name, data = load_mapping(args.report_file)
    try:
        report = Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "the top level"
        raise InputFileError(_("{name}: not an advisor report ({where}: {why}); write one with `advisor advise FILE --format json`",
                               name=name, where=where, why=first["msg"])) from None
    set_language(report.language)
    text = {"text": to_text, "md": to_markdown, "json": to_json}[args.format](report)
    if _output_path(args.output):
        _err(_("wrote {path}", path=write_atomic(args.output, text, force=args.force)))
    else:
        _out(text)
    return 0


def _ask(args: argparse.Namespace, extra: list[Path]) -> int:
    """One follow-up question about the advice (advisor.outputs.ask); the answer as text, JSON or in the memo's appendix."""
    from advisor.decision.advice import advise
    from advisor.inputs.answers import answers_from_mapping, load_answers_mapping
    from advisor.outputs.ask import ask, turn, with_change
    from advisor.outputs.io import Staged, check_writable, commit_all, same_file, shown, stage_atomic
    from advisor.outputs.render import to_markdown
    from advisor.knowledge.rules import load_rules

    question = _question(args.question)
    to_file = _output_path(args.output)
    save_to_stdout = args.save == "-"
    if args.save is not None:
        if not args.save.strip():
            raise OutputError(_("--save: the path is empty; give a file path such as answers.yaml"))
        if save_to_stdout and not to_file:
            raise OutputError(_("--save -: standard output carries the reply; write the reply to a file with -o, or save the answers to a file"))
        if to_file and not save_to_stdout and same_file(args.save, args.output):
            raise OutputError(_("--save and -o name the same file ({path}); give the answers and the reply a path each", path=shown(args.output)))
    if to_file:
        _not_the_answers_file(args)
    for given in (args.output, args.save):
        if given and given != "-":
            check_writable(given, args.force)
    if args.adopt and not args.save:
        raise InputFileError(_("--adopt: needs --save PATH (the answers file to write)"))
    if question is None and args.format != "md":
        raise InputFileError(_("QUESTION: is required (only --format md, the memo with the questions already kept, runs without one)"))
    if question is not None and args.lang is None and not os.environ.get("ADVISOR_LANG", "").strip() \
            and written_in_chinese(question):
        set_language("zh")  # asked in Chinese, with no language chosen: answered in Chinese (the locale is no choice)
    name, draft = load_answers_mapping(args.answers_file)
    answers = answers_from_mapping(draft, name)
    rules = load_rules(extra)
    advice = advise(answers, rules)
    kept = [t.model_dump() for t in answers.project.conversation or ()]
    reply = ask(question, draft, advice, rules, name) if question is not None else None
    if reply is not None and not reply.understood:
        # a question advisor could not read is not an answer: one line on stderr and exit 2, nothing saved or written
        # (it printed 'I could not read that question.' and exited 0, so a script took it as answered; user try 2026-12-06)
        quote = "“{}”" if zh() else "'{}'"
        asked = " ".join(reply.question.split())
        asked = asked if len(asked) <= 80 else asked[:79] + "…"
        raise InputFileError(_("QUESTION: could not read {question}; ask e.g. {examples}", question=quote.format(asked),
                               examples=" / ".join(quote.format(s) for s in reply.suggestions)))
    if reply is not None and reply.refused:
        # read, but not answerable as asked (an amount in another currency, a family of strategies, FP8 on a GPU without
        # it): the reply asks again, so a script must not take it as an answer (it printed on stdout and exited 0; user
        # try 2026-12-07). One line on stderr, exit 2, nothing saved or written, as an unread question.
        raise InputFileError(" ".join(line for line in reply.lines if line))
    conversation = kept + ([turn(reply)] if reply is not None else [])
    adopted = reply.adoptable() if args.adopt and reply is not None else {}
    saved_text = None
    if args.save:
        from advisor.base.safeload import parse_mapping
        from advisor.outputs.ask import answers_yaml

        saved = with_change(draft, adopted)
        saved = with_change(saved, {"project.conversation": conversation})
        answers_from_mapping(saved, args.save)  # never write answers that would not load
        saved_text = "# advisor answers (saved by advisor ask); run: advisor advise FILE\n" + answers_yaml(saved)
        where = "<stdout>" if save_to_stdout else args.save
        answers_from_mapping(parse_mapping(saved_text, where), where)  # ... nor a text that would not read back as them
    if args.format == "json":
        out = json.dumps(reply.to_dict() if reply else {}, indent=2, ensure_ascii=False) + "\n"
    elif args.format == "md":
        memo_advice = advise(answers_from_mapping(with_change(draft, adopted), name), rules) if adopted else advice
        out = to_markdown(memo_advice.report(), conversation=conversation)
    else:
        out = reply.text() + "\n" if reply else ""
    # The saved answers and the reply are written all or none: both staged (written and fsynced beside their targets),
    # then put in place together; 'wrote' is said only once both are in.
    staged: list[Staged] = []
    try:
        if saved_text is not None and not save_to_stdout:
            staged.append(stage_atomic(args.save, saved_text, force=args.force))
        if to_file:
            staged.append(stage_atomic(args.output, out, force=args.force))
        written = commit_all(staged)
    except BaseException:
        for st in staged:
            st.discard()
        raise
    for path in written:
        _err(_("wrote {path}", path=path))
    if save_to_stdout and saved_text is not None:
        _out(saved_text)
    elif not to_file:
        _out(out)
    return 0


def _question(given: str | None) -> str | None:
    """The question as it may be echoed and kept: a byte that is not UTF-8 refused (it would fail every write), escape
    sequences and control characters removed (base.text.plain), then an empty or over-long question refused."""
    if given is None:
        return None
    from advisor.base.text import plain
    from advisor.outputs.ask import MAX_QUESTION

    bad = next((ch for ch in given if "\ud800" <= ch <= "\udfff"), None)
    if bad is not None:
        what = f"0x{ord(bad) - 0xDC00:02x}" if "\udc80" <= bad <= "\udcff" else f"U+{ord(bad):04X}"  # a byte os.fsdecode kept
        raise InputFileError(_("QUESTION: holds {what}, which is not UTF-8 text; ask it in UTF-8", what=what))
    question = plain(given)
    if not question.strip():
        raise InputFileError(_("QUESTION: is empty; ask e.g. 'what if we get 128 GPUs?', 'why not DeepSpeed?' or 'what is all-reduce?'"))
    if len(question) > MAX_QUESTION:
        raise InputFileError(_("QUESTION: is {n} characters long; ask it in at most {most}", n=count(len(question)), most=MAX_QUESTION))
    return question


def _output_path(output: str | None) -> bool:
    """True when -o names a file; '-' (or no -o) means stdout, and an empty -o is refused rather than ignored."""
    if output is None or output == "-":
        return False
    if not output.strip():
        raise OutputError(_("-o: the output path is empty; give a file path, or - for standard output"))
    return True


def _write_artifacts(advice: Any, args: argparse.Namespace, artifacts: list[Any], staged: Any) -> list[Path]:
    """Write the launch files, then commit the staged memo; if the memo cannot be put in place, the launch files this
    call wrote are removed again (a new directory whole; in an existing one, the files it added)."""
    import shutil

    from advisor.outputs.artifacts import write_artifacts

    d = Path(args.artifacts)
    existed = d.exists()
    before = {f.name for f in artifacts if (d / f.name).exists()} if existed else set()
    written = write_artifacts(advice, args.artifacts, args.force, artifacts)
    if staged is None:
        return written
    try:
        staged.commit()
    except BaseException:
        if not existed:
            shutil.rmtree(d, ignore_errors=True)
        else:
            for path in written:
                if path.name not in before:
                    path.unlink(missing_ok=True)
        raise
    return written


def _sweep(args: argparse.Namespace, extra: list[Path]) -> int:
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import load_rules
    from advisor.outputs.io import check_writable, write_atomic
    from advisor.base.limits import BYTES_PER_COUNT, MAX_SEARCH_COUNTS, SEARCH_MEMORY_BYTES
    from advisor.decision.candidates import gpu_types
    from advisor.outputs.sweep import parse_gpu_range, sweep_types, sweep_types_dict, sweep_types_text

    to_file = _output_path(args.output)
    if to_file:
        _not_the_answers_file(args)
        check_writable(args.output, args.force)
    if args.rows < 1:
        raise InputFileError(_("--rows: must be at least 1"))
    answers = load_answers(args.answers_file)
    per_node = answers.cluster.gpus_per_node
    types = len(gpu_types(answers))  # every GPU type is swept over the same counts, and all are kept
    # Without --gpus: one node to 4x today's count, as far as the search may hold (base/limits.py) over every type.
    top = max(per_node, min(4 * answers.cluster.gpus, per_node * (MAX_SEARCH_COUNTS // types - 8)))
    spec = args.gpus or f"{per_node}..{top},{answers.cluster.gpus}"
    counts = parse_gpu_range(spec, per_node)
    if counts.size * types > MAX_SEARCH_COUNTS:
        raise AnswerError(_("--gpus: {range} is {n} GPU counts on {types} GPU types, {total} in all; a sweep holds at most {most} (about "
                            "{kb} KB each, so as to stay within {mib} MiB of memory): narrow the range", range=repr(spec),
                            n=count(counts.size), types=types, total=count(counts.size * types), most=count(MAX_SEARCH_COUNTS),
                            kb=f"{BYTES_PER_COUNT / 1000:.1f}", mib=SEARCH_MEMORY_BYTES // (1024 * 1024)))
    groups = sweep_types(answers, counts, load_rules(extra))  # every GPU type: today's, then cluster.candidates
    if args.format == "json":
        # Indented for a range a person reads; compact past 1,000 points, where indent=2 was 0.7 s of a 16,384-point sweep
        # and half its bytes (issue 20). Either is the same JSON.
        points = sum(sw.gpus.size for _t, sw in groups)
        text = json.dumps(sweep_types_dict(groups), indent=2 if points <= 1000 else None) + "\n"
    else:
        text = sweep_types_text(groups, args.rows, markdown=args.format == "md")
    if to_file:
        _err(_("wrote {path}", path=write_atomic(args.output, text, force=args.force)))
    else:
        _out(text)
    return 0


def _init(args: argparse.Namespace) -> int:
    from advisor.inputs.template import answers_template

    if args.path is not None and args.output is not None and args.path != args.output:
        raise OutputError(_("init: give the path once, as PATH or -o, not both"))
    args.path = args.output if args.output is not None else args.path if args.path is not None else "answers.yaml"
    text = answers_template()
    if args.path == "-":
        _out(text)
        return 0
    from advisor.outputs.io import write_atomic

    path = write_atomic(args.path, text, force=args.force)
    _err(_("wrote {path}; edit it, then run: advisor advise {path}", path=path))
    return 0


def _gpus(args: argparse.Namespace) -> int:
    from advisor.knowledge.catalog import gpu_catalog

    cat = gpu_catalog()
    if args.format == "json":
        _out(json.dumps({k: v.model_dump() for k, v in cat.items()}, indent=2) + "\n")
        return 0
    lines = [f"{pad('id', 11)} {pad(_('name'), 30)} {pad(_('memory'), 7, right=True)} {'TFLOP/s':>8}  {_('link')}"]
    for gid, g in cat.items():
        link = f"{g.intra_node} {g.nvlink_gbs:g} GB/s" if g.nvlink_gbs else f"pcie {g.pcie_gbs:g} GB/s"
        lines.append(f"{gid:<11} {g.name:<30} {g.memory_gb:>5g}GB {g.peak_tflops:>8g}  {link}")
    lines.append("")
    lines.append(_("Figures and sources: advisor gpus --format json. Custom GPU: {example}", example="cluster.gpu: {memory_gb: 48, peak_tflops: 362}"))
    _out("\n".join(lines) + "\n")
    return 0


def _rules(args: argparse.Namespace, extra: list[Path]) -> int:
    from advisor.knowledge.rules import Problems, load_rules

    sub = args.rules_command
    if sub == "check":
        problems = Problems(collect=True)
        if args.dirs:
            ruleset = load_rules(args.dirs, problems, include_shipped=False)
        else:
            ruleset = load_rules(extra, problems)
        for msg in problems.items:
            _out(msg + "\n")
        n = len(problems.items)
        found = plural(n, N_("1 problem"), N_("{n} problems")) if n else _("no problems")
        summary = _("{rules} rules in {files} files: {found}", rules=len(ruleset.rules), files=len(ruleset.files), found=found)
        _err(summary)
        return EXIT_FAILED_CHECK if n else 0
    if sub == "facts":
        from advisor.knowledge.vocabulary import FACTS

        for spec in FACTS.values():
            choices = f" ({' | '.join(spec.choices)})" if spec.choices else ""
            _out(f"{spec.name:<36} {spec.type:<7} {spec.description}{choices}\n")
        return 0
    if sub == "list":
        ruleset = load_rules(extra)
        for r in ruleset.rules:
            _out(f"{r.priority:>4}  {r.id:<38} {', '.join(r.source)[:60]}\n")
        return 0
    if sub == "test":
        from advisor.decision.ruletests import run_cases

        ruleset = load_rules(extra)
        results = run_cases(args.cases or None, ruleset)
        failed = [res for res in results if not res.ok]
        for res in results:
            _out(f"{'PASS' if res.ok else 'FAIL'}  {res.note}" + ("" if res.ok else f"\n      {res.detail}") + "\n")
        _out(_("{passed} passed, {failed} failed", passed=len(results) - len(failed), failed=len(failed)) + "\n")
        return EXIT_FAILED_CHECK if failed else 0
    raise AssertionError(sub)


if __name__ == "__main__":  # pragma: no cover
    if tuning_wanted():
        tune_process()
    sys.exit(leave(main()))
