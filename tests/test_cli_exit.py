"""Issue 20: a one-shot command leaves without the interpreter's teardown (cli.leave); nothing it writes may be lost,
and its exit code and its one error line stay what they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "customer-service.yaml"

PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('torn down\\n'))\n"
         "sys.argv = ['advisor'] + sys.argv[1:]\n"
         "from advisor._entry import main\n"
         "sys.exit(main())\n")
"""The console script's entry, with an exit handler that says whether the interpreter was torn down."""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)


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
