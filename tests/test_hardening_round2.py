"""Issue 19: the eleven inputs that still escaped "one line naming file and field, exit 2, no traceback, nothing left
behind", the plausible ranges for absurd-but-accepted numbers, and the --debug switch.

Each test here failed on the code before issue 19 (exit 70, a traceback, a half-written output, or silence)."""

from __future__ import annotations

import errno
import json
import tempfile
import warnings

import pytest

from advisor.cli import main

BASE = {
    "model": {"params": "7B"},
    "training": {"tokens": "1T"},
    "cluster": {"gpu": "a100-80gb", "gpus": 16},
    "budget": {"price_per_gpu_hour": 2},
}
HUGE = "1" + "0" * 5000  # over Python's 4,300-digit int conversion limit
LONG = "9" * 400  # fits an int, not a float


def advise(capsys, *args):
    code = main(["advise", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def one_clean_line(code, err, *names):
    assert code == 2, (code, err)
    assert err.count("\n") == 1 and err.startswith("advisor: "), err
    assert "Traceback" not in err and "internal error" not in err, err
    for name in names:
        assert name in err, (name, err)


def answers_file(tmp_path, text, suffix=".yaml"):
    f = tmp_path / f"a{suffix}"
    f.write_text(text, encoding="utf-8")
    return f


def with_field(section, key, value):
    data = json.loads(json.dumps(BASE))
    data[section][key] = value
    return data


# ---------------------------------------------------------------- 1, 2: numbers too long to convert


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_integer_of_more_than_4300_digits_names_its_field(tmp_path, capsys, suffix):
    text = json.dumps(BASE).replace('"gpus": 16', f'"gpus": {HUGE}')
    f = answers_file(tmp_path, text if suffix == ".json" else text.replace('"', ""), suffix)
    code, _out, err = advise(capsys, f)
    one_clean_line(code, err, str(f), "cluster.gpus", "5,001 digits")


def rule_pack(tmp_path, when="always", then="{score: {ddp: 1}}", extra=""):
    d = tmp_path / "pack"
    d.mkdir(exist_ok=True)
    (d / "p.yaml").write_text(extra + "rules:\n  - id: r-one\n    title: {en: t, zh: t}\n    source: seed:K1\n    priority: 10\n"
                              f"    when: {when}\n    then: {then}\n")
    return d


@pytest.mark.parametrize("when, then, field", [
    ("always", "{score: {ddp: " + HUGE + "}}", "rules[0].then.score.ddp"),
    ("always", "{score: {ddp: " + LONG + "}}", "then.score.ddp"),
    ("{all: [{fact: gpus, op: lt, value: " + LONG + "}]}", "{score: {ddp: 1}}", "when.all[0].value"),
    ("{all: [{fact: gpus, op: in, value: [1, " + LONG + "]}]}", "{score: {ddp: 1}}", "when.all[0].value"),
    ("&w {all: [*w]}", "{score: {ddp: 1}}", "rules[0].when.all[0]"),
], ids=["score-5001-digits", "score-400-digits", "value-400-digits", "in-list-400-digits", "recursive-alias"])
@pytest.mark.parametrize("command", ["advise", "check"])
def test_rule_packs_with_huge_numbers_or_recursive_aliases_are_refused_in_one_line(tmp_path, capsys, when, then, field, command):
    pack = rule_pack(tmp_path, when, then)
    args = ["advise", str(answers_file(tmp_path, json.dumps(BASE))), "--rules", str(pack)] if command == "advise" else ["rules", "check", str(pack)]
    code = main(args)
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    if command == "advise":
        one_clean_line(code, err, "p.yaml", field)
    else:
        assert code == 1 and field in out, (code, out, err)


def test_a_pack_default_without_a_source_is_accepted(tmp_path, capsys):
    """The loader's own fallback source ('advisor default') was checked as a citation and refused, always."""
    pack = rule_pack(tmp_path, extra="default: {strategy: ddp, rationale: {en: nothing else applies, zh: 无其他规则适用}}\n")
    assert main(["rules", "check", str(pack)]) == 0, capsys.readouterr()
    (tmp_path / "x").mkdir()
    pack2 = rule_pack(tmp_path / "x", extra="default: {strategy: ddp, rationale: {en: r, zh: r}, source: nonsense}\n")
    assert main(["rules", "check", str(pack2)]) == 1  # a source that is given is still checked
    assert "default.source" in capsys.readouterr().out


# ---------------------------------------------------------------- 4: tiny and absurd values get a range


@pytest.mark.parametrize("section, key, value", [
    ("training", "duration_days", 5e-324),
    ("cluster", "data_pipeline_tokens_per_sec", 1e-300),
    ("cluster", "inter_node_gbps", 1e-310),
    ("cluster", "inter_node_gbps", 1e-300),
    ("budget", "price_per_gpu_hour", 1e-12),
    ("training", "tokens", 1),
    ("model", "params", 1e18),
])
def test_implausible_quantities_are_refused_with_their_range(tmp_path, capsys, section, key, value):
    data = with_field(section, key, value)
    if key == "duration_days":
        del data["training"]["tokens"]
    f = answers_file(tmp_path, json.dumps(data), ".json")
    code, _out, err = advise(capsys, f, "--format", "json")
    one_clean_line(code, err, f"{section}.{key}", "must be between")


def test_a_custom_gpu_with_a_subnormal_link_is_refused(tmp_path, capsys):
    f = answers_file(tmp_path, json.dumps(with_field("cluster", "gpu", {"memory_gb": 80, "peak_tflops": 300, "pcie_gbs": 5e-324})), ".json")
    code, _out, err = advise(capsys, f, "--format", "json")
    one_clean_line(code, err, "cluster.gpu.pcie_gbs")


BOUNDS = [
    ("model", "params", "PARAMS_RANGE"), ("training", "tokens", "TOKENS_RANGE"), ("training", "duration_days", "DAYS_RANGE"),
    ("training", "deadline_days", "DAYS_RANGE"), ("training", "duration_hours", "HOURS_RANGE"), ("training", "runs_per_month", "RUNS_RANGE"),
    ("cluster", "inter_node_gbps", "BANDWIDTH_RANGE"), ("cluster", "cpu_memory_gb_per_node", "MEMORY_RANGE"),
    ("cluster", "data_pipeline_tokens_per_sec", "LOADER_RANGE"), ("budget", "price_per_gpu_hour", "PRICE_RANGE"),
]


def _bounds(name):
    from advisor.inputs import answers

    cells = [c.cell_contents for c in getattr(answers, name).func.__closure__]  # the range's (low, high)
    return min(cells), max(cells)


@pytest.mark.parametrize("section, key, name", BOUNDS)
@pytest.mark.parametrize("end", ["low", "high"])
def test_every_value_inside_a_range_gives_finite_advice_without_warnings(tmp_path, capsys, section, key, name, end):
    """The ranges are wide, and their ends are real inputs: both ends must give clean advice, no numpy warning."""
    low, high = _bounds(name)
    data = with_field(section, key, low if end == "low" else high)
    if key in ("duration_days", "duration_hours"):
        del data["training"]["tokens"]
    f = answers_file(tmp_path, json.dumps(data), ".json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = advise(capsys, f, "--format", "json")
    assert code in (0, 2) and "internal error" not in err, err  # 2: another field's rule (e.g. the deadline) may refuse

    def refuse(constant):
        raise AssertionError(f"JSON holds {constant}")

    if code == 0:
        json.loads(out, parse_constant=refuse)
    else:
        assert err.count("\n") == 1


# ---------------------------------------------------------------- 6: a lone surrogate


def test_a_lone_surrogate_in_json_names_its_field(tmp_path, capsys):
    f = answers_file(tmp_path, json.dumps(BASE).replace('"a100-80gb"', '"\\udcff"'), ".json")
    code, _out, err = advise(capsys, f)
    one_clean_line(code, err, "cluster.gpu", "surrogate")


# ---------------------------------------------------------------- 8: big packs are not alias bombs


def test_a_large_document_without_aliases_is_not_an_alias_bomb():
    from advisor.base.safeload import parse_mapping

    data = parse_mapping("items: [" + ", ".join(["1"] * 210_000) + "]\n", "big.yaml")  # the old limit counted 200,000
    assert len(data["items"]) == 210_000


def test_an_alias_bomb_is_still_refused():
    from advisor.base.errors import InputFileError
    from advisor.base.safeload import parse_mapping

    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))
    with pytest.raises(InputFileError, match="alias bomb"):
        parse_mapping(bomb, "bomb.yaml")


def test_a_ten_thousand_rule_pack_loads(tmp_path):
    from advisor.knowledge.rules import Problems, load_rules

    d = tmp_path / "pack"
    d.mkdir()
    (d / "p.yaml").write_text("rules:\n" + "".join(
        f"- {{id: r-{i:05d}, title: {{en: R{i}, zh: R{i}}}, source: seed:K13, priority: {1 + i % 1000}, "
        f"when: {{all: [{{fact: gpus, op: ge, value: {i}}}]}}, then: {{score: {{ddp: 1}}}}}}\n" for i in range(10_000)))
    problems = Problems(collect=True)
    ruleset = load_rules([d], problems, include_shipped=False)
    assert problems.items == [] and len(ruleset.rules) == 10_000


def test_conditions_nested_too_deep_are_refused_not_overflowed(tmp_path, capsys):
    when = "{not: " * 60 + "{fact: gpus, op: lt, value: 8}" + "}" * 60
    pack = rule_pack(tmp_path, when)
    assert main(["rules", "check", str(pack)]) == 1
    out, err = capsys.readouterr()
    assert "nest more than" in out and "internal error" not in err


# ---------------------------------------------------------------- 9, 10, 11: outputs


def test_o_naming_a_directory_that_does_not_exist_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    code, _out, err = advise(capsys, f, "-o", "newsub/")
    one_clean_line(code, err, "newsub/", "directory")
    assert not (tmp_path / "newsub").exists()


@pytest.mark.parametrize("command", ["advise", "sweep"])
def test_an_empty_o_is_refused_not_ignored(tmp_path, capsys, command):
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    code = main([command, str(f), "-o", ""])
    out, err = capsys.readouterr()
    one_clean_line(code, err, "-o", "empty")
    assert out == ""


def test_an_empty_init_path_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["init", ""])
    _out, err = capsys.readouterr()
    one_clean_line(code, err, "empty")


def full_disk_for(monkeypatch, prefix):
    """mkstemp fails with ENOSPC for files whose name starts with ``prefix``, as a nearly full disk would."""
    from advisor.outputs import io

    real = tempfile.mkstemp

    def mkstemp(*args, **kw):
        if str(kw.get("prefix", "")).startswith(prefix):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kw)

    monkeypatch.setattr(io.tempfile, "mkstemp", mkstemp)


def test_a_memo_that_cannot_be_written_leaves_no_launch_files(tmp_path, capsys, monkeypatch):
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    full_disk_for(monkeypatch, ".m.md.")
    code, _out, err = advise(capsys, f, "--artifacts", tmp_path / "art", "--format", "md", "-o", tmp_path / "m.md")
    one_clean_line(code, err, "m.md", "No space left")
    assert not (tmp_path / "art").exists() and not (tmp_path / "m.md").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    monkeypatch.undo()
    monkeypatch.setenv("ADVISOR_LANG", "en")
    code, _out, err = advise(capsys, f, "--artifacts", tmp_path / "art", "--format", "md", "-o", tmp_path / "m.md")
    assert code == 0, err  # the rerun needs no --force: nothing was left behind


def test_launch_files_that_cannot_be_written_leave_no_memo_and_name_the_users_directory(tmp_path, capsys, monkeypatch):
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    full_disk_for(monkeypatch, ".launch.sh.")
    code, _out, err = advise(capsys, f, "--artifacts", tmp_path / "art", "--format", "md", "-o", tmp_path / "m.md")
    one_clean_line(code, err, str(tmp_path / "art"), "No space left")
    assert ".tmp" not in err and "/.art." not in err, err
    assert not (tmp_path / "art").exists() and not (tmp_path / "m.md").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_memo_that_appears_meanwhile_rolls_the_launch_files_back(tmp_path, capsys, monkeypatch):
    from advisor.outputs import artifacts

    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    real = artifacts.write_artifacts

    def and_then_someone_writes_the_memo(*args, **kw):
        out = real(*args, **kw)
        (tmp_path / "m.md").write_text("someone else's")
        return out

    monkeypatch.setattr(artifacts, "write_artifacts", and_then_someone_writes_the_memo)
    code, _out, err = advise(capsys, f, "--artifacts", tmp_path / "deep" / "art", "--format", "md", "-o", tmp_path / "m.md")
    one_clean_line(code, err, "m.md", "already exists")
    assert not (tmp_path / "deep" / "art").exists()
    assert (tmp_path / "m.md").read_text() == "someone else's"


# ---------------------------------------------------------------- the debug switch


def boom(*args, **kw):
    raise ZeroDivisionError("float division by zero")


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_prints_the_traceback_of_an_internal_error(tmp_path, capsys, monkeypatch, how):
    monkeypatch.setattr("advisor.decision.advice.advise", boom)
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    if how == "env":
        monkeypatch.setenv("ADVISOR_DEBUG", "1")
    code = main((["--debug"] if how == "flag" else []) + ["advise", str(f)])
    _out, err = capsys.readouterr()
    assert code == 70
    assert "Traceback (most recent call last)" in err and "ZeroDivisionError" in err and "def boom" not in err
    assert err.rstrip("\n").splitlines()[-1].startswith("advisor: internal error (ZeroDivisionError")


def test_without_debug_an_internal_error_is_one_line_that_says_how_to_see_more(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("advisor.decision.advice.advise", boom)
    monkeypatch.setenv("ADVISOR_DEBUG", "0")
    f = answers_file(tmp_path, json.dumps(BASE), ".json")
    code = main(["advise", str(f)])
    _out, err = capsys.readouterr()
    assert code == 70 and err.count("\n") == 1 and "Traceback" not in err and "--debug" in err, err


TUI_CRASH = """
import sys
from advisor.inputs.answers import answers_from_mapping
from advisor.knowledge.rules import load_rules
from advisor.tui import app as tui_app

def boom(*args, **kw):
    raise ZeroDivisionError("float division by zero")

import advisor.decision.advice as core

core.advise = boom  # the app calls the core through it, from the estimate's worker and from the results

async def press_ctrl_r(pilot):
    await pilot.pause()
    await pilot.press("ctrl+r")
    await pilot.pause()
    if pilot.app.internal_error is None:  # not expected: the error ends the app by itself
        pilot.app.exit()

app = tui_app.AdvisorApp(rules=load_rules(), answers=answers_from_mapping(%r), cursor_blink=False, show_tracebacks=%r)
try:
    app.run(headless=True, size=(80, 24), auto_pilot=press_ctrl_r)
except ZeroDivisionError:
    pass  # the pilot re-raises what it saw; what matters is what reached the terminal before that
print(type(app.internal_error).__name__, app.return_code)
"""


@pytest.mark.parametrize("debug", [False, True])
def test_the_tui_keeps_an_internal_error_to_one_line_unless_debugging(tmp_path, debug):
    """Issue 19 (5): the Q&A used to dump a ~2,000-line Rich traceback, locals included, on an internal error. It runs
    in its own interpreter: a crashed Textual app leaves coroutines unawaited, which pytest would report."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "ADVISOR_CONFIG_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-c", TUI_CRASH % (BASE, debug)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert r.stdout.split()[-2:] == ["ZeroDivisionError", "1"], (r.stdout, r.stderr[-2000:])
    if debug:
        assert "ZeroDivisionError" in r.stderr and "boom" in r.stderr
    else:
        assert "Traceback" not in r.stderr and "ZeroDivisionError" not in r.stderr and "boom" not in r.stderr, r.stderr[:2000]
