"""Issue 11 (part): answers whose numbers break the arithmetic exit 2 with one line; YAML reads numbers as written;
rule templates cannot ask for gigabyte-long numbers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from advisor.base.errors import RuleLoadError
from advisor.knowledge.rules import Problems, parse_pack
from .conftest import run_cli

BASE = "model: {{params: {params}}}\ntraining: {{tokens: {tokens}{extra}}}\ncluster: {{gpu: a100-80gb, gpus: {gpus}}}\nbudget: {{price_per_gpu_hour: {price}}}\n"


def run(tmp_path, text, *args):
    """`advisor advise FILE --format json` on this text, in process (conftest.run_cli)."""
    f = tmp_path / "a.yaml"
    f.write_text(text)
    return run_cli("advise", str(f), "--format", "json", *args)


@pytest.mark.parametrize("fields, where", [
    ({"tokens": "1e-320"}, "training.tokens"),
    ({"params": "0.001"}, "model.params"),
    ({"extra": ", global_batch_tokens: 1e308"}, "training.global_batch_tokens"),
    ({"params": '"1e400"'}, "model.params"),
    ({"gpus": "1" + "0" * 400}, "cluster.gpus"),
    ({"price": "1e308"}, "budget.price_per_gpu_hour"),
])
def test_numbers_that_break_the_arithmetic_exit_2_with_one_line(tmp_path, fields, where):
    values = {"params": "7B", "tokens": "1T", "extra": "", "gpus": 16, "price": 2, **fields}
    r = run(tmp_path, BASE.format(**values))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and where in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("gpus, price, expect", [("016", 2, {"gpus": 16}), (16, "1:30", None)])
def test_yaml_numbers_are_read_as_written(tmp_path, gpus, price, expect):
    """YAML 1.1 reads 016 as octal 14 and 1:30 as sexagesimal 90; advisor reads what a person wrote."""
    r = run(tmp_path, BASE.format(params="7B", tokens="1T", extra="", gpus=gpus, price=price))
    if expect:
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["answers"]["cluster"]["gpus"] == expect["gpus"]
    else:
        assert r.returncode == 2 and "budget.price_per_gpu_hour" in r.stderr and "1:30" in r.stderr


def test_json_output_never_holds_nan_or_infinity(tmp_path):
    r = run(tmp_path, BASE.format(params="7B", tokens="1T", extra="", gpus=16, price=2))
    assert r.returncode == 0

    def refuse(constant):
        raise AssertionError(f"JSON holds {constant}")

    json.loads(r.stdout, parse_constant=refuse)


@pytest.mark.parametrize("spec", [".999999999f", "99999999d", ".20f", "1000,.2f"])
def test_a_template_format_spec_is_bounded_at_load(spec):
    pack = {"pack": "p", "rules": [{"id": "r-one", "title": {"en": "t", "zh": "t"}, "source": "seed:K1", "priority": 10, "when": {"all": []},
                                    "then": {"rationale": {"en": "{params:" + spec + "} parameters", "zh": "{params:" + spec + "} 个参数"}}}]}
    problems = Problems(collect=True)
    try:
        parse_pack(pack, "p.yaml", problems)
    except RuleLoadError as exc:
        assert "format" in str(exc)
        return
    assert problems.items and any("format" in p for p in problems.items)


@pytest.mark.parametrize("extra, where", [("str: 1", "unknown key 'str'"), ("CustomGpu: 1", "unknown key 'CustomGpu'")])
def test_a_top_level_key_named_like_a_union_branch_is_named(tmp_path, extra, where):
    r = run(tmp_path, BASE.format(params="7B", tokens="1T", extra="", gpus=16, price=2) + extra + "\n")
    assert r.returncode == 2 and where in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_key_named_str_inside_a_section_names_that_section(tmp_path):
    r = run(tmp_path, "model: {str: 1}\ntraining: {tokens: 1T}\ncluster: {gpu: a100-80gb, gpus: 16}\nbudget: {price_per_gpu_hour: 2}\n")
    assert r.returncode == 2 and "model.str: unknown key 'str' in model" in r.stderr, r.stderr


@pytest.mark.parametrize("leaf", ["{fact: gpus, op: [eq], value: 1}", "{fact: gpus, op: eq, value: {fact: [gpus]}}",
                                  "{fact: [gpus], op: eq, value: 1}"])
@pytest.mark.parametrize("command", ["advise", "check"])
def test_rule_packs_with_lists_where_names_belong_exit_2(tmp_path, leaf, command):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "p.yaml").write_text("pack: p\nrules:\n  - id: r-one\n    title: {en: t, zh: t}\n    source: seed:K1\n    priority: 10\n"
                                 f"    when: {{all: [{leaf}]}}\n    then: {{rationale: {{en: x, zh: x}}}}\n")
    answers = tmp_path / "a.yaml"
    answers.write_text(BASE.format(params="7B", tokens="1T", extra="", gpus=16, price=2))
    args = ["advise", str(answers), "--rules", str(pack)] if command == "advise" else ["rules", "check", str(pack)]
    r = subprocess.run([sys.executable, "-c", "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))", *args],
                       capture_output=True, text=True, timeout=60)
    # advise refuses the pack (2); rules check lists its problems and fails as a linter does (1, tests/test_cli.py).
    assert r.returncode == (2 if command == "advise" else 1), r.stderr
    assert "internal error" not in r.stderr and "r-one" in r.stderr + r.stdout


def cli(*args, stdin=None, env=None, **kw):
    import os

    return subprocess.run([sys.executable, "-c", "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, timeout=30, stdin=stdin, env={**os.environ, **(env or {})}, **kw)


def good(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text(BASE.format(params="7B", tokens="1T", extra="", gpus=16, price=2))
    return f


def test_a_rule_test_file_with_a_number_for_a_list_exits_2(tmp_path):
    f = tmp_path / "cases.yaml"
    f.write_text("cases:\n  - note: x\n    answers: {model: {params: 7B}, training: {tokens: 1T}, cluster: {gpu: a100-80gb, gpus: 16}, "
                 "budget: {price_per_gpu_hour: 2}}\n    expect: {fired: 5}\n")
    r = run_cli("rules", "test", str(f))
    assert r.returncode == 2 and "expect.fired" in r.stderr and "internal error" not in r.stderr, r.stderr


def test_a_full_stdout_is_one_line_not_an_internal_error(tmp_path):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-c", "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))",
                            "advise", str(good(tmp_path))], stdout=full, stderr=subprocess.PIPE, text=True, timeout=30)
    assert r.returncode == 2 and "internal error" not in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_closed_stdin_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-c", "import os, sys; os.close(0); sys.stdin = None; from advisor.cli import main; "
                        "sys.exit(main(['advise', '-']))"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "stdin" in r.stderr and "internal error" not in r.stderr, r.stderr


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    import os

    fifo = tmp_path / "answers.yaml"
    os.mkfifo(fifo)
    r = cli("advise", str(fifo))
    assert r.returncode == 2 and "not a regular file" in r.stderr


def test_control_characters_give_one_line_and_are_escaped(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text(BASE.format(params="7B", tokens="1T", extra="", gpus=16, price=2) + "\x01bad: 1\n")
    r = run_cli("advise", str(f))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    f.write_text('model: {params: 7B}\ntraining: {tokens: 1T}\ncluster: {gpu: "a100\\n80\\e]0;pwned\\a", gpus: 16}\n'
                 "budget: {price_per_gpu_hour: 2}\n")
    r = run_cli("advise", str(f))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "\x1b" not in r.stderr and "\x07" not in r.stderr, r.stderr


def test_a_non_utf8_terminal_gets_the_text_not_a_crash(tmp_path):
    import os

    r = subprocess.run([sys.executable, "-c", "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))",
                        "advise", str(good(tmp_path)), "--format", "md"], capture_output=True, timeout=30,
                       env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert r.returncode == 0 and b"# Decision memo" in r.stdout, r.stderr


# ---- outputs never clobber or half-write


def test_a_dangling_symlink_is_not_replaced_without_force(tmp_path):
    link = tmp_path / "memo.md"
    link.symlink_to(tmp_path / "nowhere")
    r = run_cli("advise", str(good(tmp_path)), "--format", "md", "-o", str(link))
    assert r.returncode == 2 and "exists" in r.stderr and link.is_symlink()


def test_force_never_replaces_a_device_or_fifo(tmp_path):
    import os

    fifo = tmp_path / "out.md"
    os.mkfifo(fifo)
    r = cli("advise", str(good(tmp_path)), "--format", "md", "-o", str(fifo), "--force")
    assert r.returncode == 2 and "not a regular file" in r.stderr
    import stat

    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_force_keeps_the_files_permissions(tmp_path):
    out = tmp_path / "memo.md"
    out.write_text("old")
    out.chmod(0o600)
    r = run_cli("advise", str(good(tmp_path)), "--format", "md", "-o", str(out), "--force")
    assert r.returncode == 0 and (out.stat().st_mode & 0o777) == 0o600


def test_without_force_the_final_step_cannot_clobber_a_file_that_appeared(tmp_path, monkeypatch):
    """Check-then-rename let two writers both win; the final link is exclusive."""
    from advisor.outputs import io

    out = tmp_path / "memo.md"
    real = io._check_writable

    def racing(p, force):
        result = real(p, force)
        out.write_text("the other writer")
        return result

    monkeypatch.setattr(io, "_check_writable", racing)
    with pytest.raises(io.OutputError):
        io.write_atomic(out, "mine")
    assert out.read_text() == "the other writer"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def fail_third_write(monkeypatch):
    """The third file the launch set writes fails, as a full disk would."""
    from advisor.outputs import artifacts
    from advisor.outputs import io

    calls = {"n": 0}
    real = io.write_atomic

    def flaky(path, text, force=False):
        calls["n"] += 1
        if calls["n"] == 3:
            raise io.OutputError(f"{path}: cannot write (disk full)")
        return real(path, text, force)

    monkeypatch.setattr(artifacts, "write_atomic", flaky)


def test_launch_artifacts_appear_all_at_once(tmp_path, monkeypatch, rules):
    """A failure half-way leaves no directory, not a partial set."""
    from advisor.outputs import artifacts
    from advisor.outputs import io
    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers

    advice = advise(load_answers(good(tmp_path)), rules)
    fail_third_write(monkeypatch)
    with pytest.raises(io.OutputError):
        artifacts.write_artifacts(advice, tmp_path / "launch", force=False)
    assert not (tmp_path / "launch").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".launch")] == []


# ---------------------------------------------------------------- surprises decided (issue 11, last items)


def test_yaml_merge_keys_are_read_with_explicit_keys_winning(tmp_path):
    from advisor.base.safeload import parse_mapping

    text = "base: &b {params: 7B, layers: 32}\nmodel:\n  <<: *b\n  layers: 40\n"
    assert parse_mapping(text, "a.yaml")["model"] == {"params": "7B", "layers": 40}
    with pytest.raises(Exception, match="duplicate key 'y'"):
        parse_mapping("b: &b {x: 1}\nc:\n  <<: *b\n  y: 1\n  y: 2\n", "a.yaml")


def test_a_yaml_flow_mapping_starting_with_a_brace_is_yaml_not_refused_json(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("{model: {params: 7B}, training: {tokens: 1T}, cluster: {gpu: a100-80gb, gpus: 16}, budget: {price_per_gpu_hour: 2}}\n")
    r = run_cli("advise", str(f), "--format", "json")
    assert r.returncode == 0, r.stderr
    j = tmp_path / "a.json"
    j.write_text("{model: {params: 7B}}")
    r = run_cli("advise", str(j))
    assert r.returncode == 2 and "invalid JSON" in r.stderr


def test_rule_templates_take_doubled_braces_as_literal_braces(tmp_path):
    from advisor.knowledge.rules import render_template

    problems = Problems(collect=True)
    parse_pack({"pack": "p", "rules": [{"id": "r-one", "title": {"en": "t", "zh": "t"}, "source": ["seed:K1"], "priority": 50, "when": {"fact": "gpus", "op": "ge", "value": 1},
                                         "then": {"rationale": {"en": "{{not a fact}} on {gpus} GPUs", "zh": "{{不是事实}} 在 {gpus} 张 GPU 上"}}}]}, "p.yaml", problems)
    assert problems.items == []
    assert render_template("{{not a fact}} on {gpus} GPUs", {"gpus": 8}) == "{not a fact} on 8 GPUs"


@pytest.mark.parametrize("name", ["X\n# Pwned", "X [click](http://evil)", "<img src=x>", "![i](x)", "`code`", "a" * 61])
def test_a_custom_gpu_name_cannot_inject_markdown(tmp_path, name):
    f = tmp_path / "a.yaml"
    f.write_text(f"model: {{params: 7B}}\ntraining: {{tokens: 1T}}\ncluster: {{gpu: {{name: {json.dumps(name)}, memory_gb: 80, "
                 "peak_tflops: 300}, gpus: 16}\nbudget: {price_per_gpu_hour: 2}\n")
    r = run_cli("advise", str(f), "--format", "md")
    assert r.returncode == 2 and "cluster.gpu.name" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_the_memo_escapes_markdown_in_a_gpu_name():
    from advisor.outputs.render import _md_text

    assert _md_text("a_b *c* [d] <e> #f") == "a\\_b \\*c\\* \\[d\\] \\<e\\> \\#f"


@pytest.mark.parametrize("module", ["advisor.cli", "argparse"])
def test_ctrl_c_while_the_program_imports_is_one_line(module):
    """A KeyboardInterrupt raised while the console script imports the CLI (argparse, json, ...) ends with
    'advisor: interrupted' and exit 130, not a traceback."""
    code = (
        "import sys\n"
        f"sys.modules.pop({module!r}, None)\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r}: raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from advisor._entry import main\n"
        "sys.exit(main())\n"
    )
    r = subprocess.run([sys.executable, "-c", code, "advise", "x.yaml"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 130 and r.stderr == "advisor: interrupted\n", r.stderr


def test_the_console_script_is_the_interrupt_safe_entry():
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["advisor"] == "advisor._entry:main"


def test_an_existing_launch_directory_keeps_its_old_set_when_a_write_fails(tmp_path, monkeypatch, rules):
    """Into an existing directory with --force, a failure on the third file leaves every old file as it was."""
    from advisor.outputs import artifacts
    from advisor.outputs import io
    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers

    advice = advise(load_answers(good(tmp_path)), rules)
    d = tmp_path / "launch"
    written = artifacts.write_artifacts(advice, d, force=False)
    for p in written:
        p.write_text("old " + p.name)
    fail_third_write(monkeypatch)
    with pytest.raises(io.OutputError):
        artifacts.write_artifacts(advice, d, force=True)
    assert all(p.read_text() == "old " + p.name for p in written)
    assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in written)  # no staging left behind


def test_max_gpus_below_todays_count_is_one_line_naming_the_field(tmp_path, capsys):
    """Issue 22: a ceiling under today's count cannot be searched; it was accepted silently."""
    from advisor.cli import main

    f = tmp_path / "a.yaml"
    f.write_text("model: {params: 7B}\ntraining: {tokens: 1T}\ncluster: {gpu: a100-80gb, gpus: 64, max_gpus: 32}\nbudget: {price_per_gpu_hour: 2}\n")
    assert main(["advise", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "max_gpus" in err and "cluster" in err, err
