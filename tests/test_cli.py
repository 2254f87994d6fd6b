"""The CLI as a user meets it: formats, output files, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from advisor.inputs.answers import answers_from_text
from advisor.cli import main
from advisor.knowledge.strategies import STRATEGIES

from .conftest import EXAMPLES, MINIMAL

EXAMPLE = str(EXAMPLES / "customer-service.yaml")


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_advice_names_the_recommendation_and_the_questions(capsys):
    code, out, err = run(capsys, "advise", EXAMPLE)
    assert code == 0 and err == ""
    assert out.startswith("Decision: ") and "\nRecommendation: " in out
    for section in ("Why", "Options", "Why not", "Ask the engineers", "Pre-launch checklist", "Rules fired:"):
        assert section in out


def test_json_advice_has_the_contract_fields(capsys):
    code, out, _ = run(capsys, "advise", EXAMPLE, "--format", "json")
    assert code == 0
    d = json.loads(out)
    rec = d["recommendation"]
    assert rec["strategy"] in STRATEGIES
    assert rec["framework"] and all({"rule", "source", "text"} <= set(r) for r in rec["rationale"])
    for key in ("wall_clock_hours", "gpu_hours", "cost", "currency", "memory_per_gpu_gb", "model_states_gb_per_gpu", "fits", "communication_share", "range"):
        assert key in d["estimate"]
    assert len(d["alternatives"]) == len(STRATEGIES) - 1 and all(alt["why_not"] for alt in d["alternatives"])
    for key in ("questions", "checklist", "warnings", "fired_rules", "assumptions"):
        assert isinstance(d[key], list)
    assert d["fired_rules"][0]["conditions"]


def test_memo_written_atomically_and_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "memo.md"
    code, stdout, err = run(capsys, "advise", EXAMPLE, "--format", "md", "-o", str(out))
    assert code == 0 and stdout == "" and f"wrote {out}" in err
    text = out.read_text()
    assert text.startswith("# Decision memo")
    code, _, err = run(capsys, "advise", EXAMPLE, "--format", "md", "-o", str(out))
    assert code == 2 and "already exists; pass --force" in err
    out.write_text("old")
    code, _, _ = run(capsys, "advise", EXAMPLE, "--format", "md", "-o", str(out), "--force")
    assert code == 0 and out.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == ["memo.md"]  # no temp files left behind


@pytest.mark.parametrize(
    "target, needle",
    [("missing-dir/memo.md", "does not exist"), ("", "is a directory")],
)
def test_unwritable_outputs_are_refused_before_work(tmp_path, capsys, target, needle):
    code, _, err = run(capsys, "advise", EXAMPLE, "-o", str(tmp_path / target) if target else str(tmp_path))
    assert code == 2 and needle in err and err.count("\n") == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only directories")
def test_read_only_directory_is_refused(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    code, _, err = run(capsys, "advise", EXAMPLE, "-o", str(ro / "memo.md"))
    assert code == 2 and "not writable" in err


@pytest.mark.parametrize(
    "content, needle",
    [
        ("", "file is empty"),
        ("model: {parms: 7B}\n", "did you mean 'params'"),
        ("- just\n- a list\n", "must be a mapping"),
        ("model:\n  params: 7B\n  params: 8B\n", "duplicate key"),
    ],
)
def test_bad_answers_exit_2_with_one_line(tmp_path, capsys, content, needle):
    path = tmp_path / "a.yaml"
    path.write_text(content)
    code, out, err = run(capsys, "advise", str(path))
    assert code == 2 and out == ""
    assert err.startswith("advisor: ") and err.count("\n") == 1 and needle in err


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["advise", EXAMPLE, "--format", "pdf"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice" in err


def test_stdin_answers_via_subprocess():
    """'-' reads answers from stdin; the real console entry point gives the same result."""
    proc = subprocess.run(
        [sys.executable, "-m", "advisor.cli", "advise", "-", "--format", "json"],
        input=yaml.safe_dump(MINIMAL), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["estimate"]["currency"] == "USD"


def test_no_traceback_on_binary_input_via_subprocess(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes(os.urandom(64) + b"\x00")
    proc = subprocess.run([sys.executable, "-m", "advisor.cli", "advise", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_init_writes_a_template_that_loads(tmp_path, capsys):
    path = tmp_path / "answers.yaml"
    code, _, _ = run(capsys, "init", str(path))
    assert code == 0
    answers = answers_from_text(path.read_text(), str(path))
    assert answers.model.params == 7e9
    code, _, err = run(capsys, "init", str(path))
    assert code == 2 and "already exists" in err
    text = path.read_text()
    assert "# seq_len: 2048" in text and "# multi_tenant: false" in text


def test_schema_describes_every_field(capsys):
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    assert code == 0 and set(schema["properties"]) == {"model", "training", "cluster", "budget", "team", "project", "operations"}
    for definition in schema["$defs"].values():
        for name, prop in definition.get("properties", {}).items():
            assert prop.get("description"), name


def test_gpus_lists_the_catalog(capsys):
    code, out, _ = run(capsys, "gpus")
    assert code == 0 and "a100-80gb" in out and "h100-sxm" in out
    code, out, _ = run(capsys, "gpus", "--format", "json")
    assert json.loads(out)["h100-sxm"]["peak_tflops"] == 989


def test_rules_check_lists_every_problem_and_fails(capsys):
    from .conftest import DATA

    code, out, err = run(capsys, "rules", "check", str(DATA / "rules"))
    assert code == 1
    assert len(out.strip().splitlines()) >= 16 and "problems" in err
    code, out, err = run(capsys, "rules", "check")
    assert code == 0 and out == "" and "no problems" in err


def test_rules_facts_and_list(capsys):
    code, out, _ = run(capsys, "rules", "facts")
    assert code == 0 and "comm_share.ddp" in out
    code, out, _ = run(capsys, "rules", "list")
    assert code == 0 and "k13-ddp-under-64" in out


def test_tui_without_a_terminal_is_refused_cleanly():
    proc = subprocess.run([sys.executable, "-m", "advisor.cli"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "needs a terminal" in proc.stderr


def test_python_dash_m_advisor_runs_the_same_program():
    """`python -m advisor` works where the venv's bin/ is not on PATH; before, it said 'cannot be directly executed'."""
    done = subprocess.run([sys.executable, "-m", "advisor", "advise", EXAMPLE, "--format", "json"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["recommendation"]["strategy"]
    bad = subprocess.run([sys.executable, "-m", "advisor", "advise", "/nonexistent.yaml"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, collecting", [
    (["advise", EXAMPLE, "--format", "json"], False),  # one short run: the cycle collector stays off (issue 20)
    (["tui"], True),  # the guided Q&A and a sweep run long: it is on
    ([], True),
    (["sweep", EXAMPLE], True),
])
def test_the_cycle_collector_is_off_only_for_short_runs_and_on_again_after(monkeypatch, argv, collecting):
    import gc

    from advisor import cli

    seen = []
    for name in ("_advise", "_run_tui", "_sweep"):
        monkeypatch.setattr(cli, name, lambda *a, **k: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert main(argv) == 0
    assert seen == [collecting]
    assert gc.isenabled()  # an in-process caller gets its collector back
