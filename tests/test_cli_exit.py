"""Issue 20: a one-shot command leaves without the interpreter's teardown (cli.leave); nothing it writes may be lost,
and its exit code and its one error line stay what they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "customer-service.yaml"

PROBE = ("import sys\n"
         "class Teardown:\n"
         "    def __del__(self):\n"
         "        sys.stderr.write('torn down\\n')\n"
         "sys.modules['teardown_probe'] = probe = type(sys)('teardown_probe')\n"
         "probe.witness = Teardown()\n"
         "sys.argv = ['advisor'] + sys.argv[1:]\n"
         "from advisor._entry import main\n"
         "sys.exit(main())\n")
"""The console script's entry, with an object that says whether the interpreter was torn down (its module is cleared
at finalisation). Not an atexit handler: one registered makes advisor exit the ordinary way (issue 33)."""

HANDLER = ("import atexit, sys\n"
           "atexit.register(lambda: sys.stderr.write('handler ran\\n'))\n"
           "sys.argv = ['advisor'] + sys.argv[1:]\n"
           "from advisor._entry import main\n"
           "sys.exit(main())\n")


def _run(*args: str, probe: str = PROBE, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_a_one_shot_command_skips_the_teardown_and_writes_everything():
    done = _run("advise", str(EXAMPLE), "--format", "json")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["recommendation"]["strategy"]


def test_a_file_output_is_whole_and_the_message_is_said(tmp_path):
    out = tmp_path / "memo.md"
    done = _run("advise", str(EXAMPLE), "--format", "md", "-o", str(out))
    assert done.returncode == 0 and done.stderr == f"advisor: wrote {out}\n"
    assert out.read_text(encoding="utf-8") == _run("advise", str(EXAMPLE), "--format", "md").stdout


def test_megabytes_on_a_pipe_arrive_whole():
    """8.8 MB of sweep JSON through a pipe: every byte is flushed before the process ends."""
    done = _run("sweep", str(EXAMPLE), "--gpus", "8..131072", "--format", "json")
    assert done.returncode == 0 and done.stderr == ""
    assert len(done.stdout) > 8_000_000 and len(json.loads(done.stdout)["gpus"]) == 16384


def test_a_refusal_keeps_its_code_and_its_line(tmp_path):
    done = _run("advise", str(tmp_path / "missing.yaml"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("advisor: ") and "torn down" not in done.stderr


def test_argparse_exits_the_ordinary_way():
    """--version and usage errors leave through SystemExit, before any command ran: the ordinary exit, handlers run."""
    done = _run("--version")
    assert done.returncode == 0 and done.stdout.startswith("advisor ") and done.stderr == "torn down\n"


def test_an_atexit_handler_runs_and_the_tuning_can_be_switched_off():
    """Issue 33: process tuning lives in the entry point, with an opt-out: a program's exit handler (or a profiler)
    gets the ordinary teardown, and ADVISOR_PROCESS_TUNING=0 runs advisor as a plain Python program."""
    done = _run("advise", str(EXAMPLE), "--format", "json", probe=HANDLER)
    assert done.returncode == 0 and done.stderr == "handler ran\n"
    plain = _run("advise", str(EXAMPLE), "--format", "json", env={"ADVISOR_PROCESS_TUNING": "0"})
    assert plain.returncode == 0 and plain.stderr == "torn down\n"


def test_main_called_in_process_leaves_the_environment_as_it_was(monkeypatch, capsys):
    """cli.main tunes nothing process-wide: only the entry points do (advisor.cli.tune_process)."""
    import os

    from advisor.cli import main

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    assert main(["gpus"]) == 0
    assert "OPENBLAS_NUM_THREADS" not in os.environ and "PYDANTIC_DISABLE_PLUGINS" not in os.environ
