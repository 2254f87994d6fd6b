"""Issue 36: the surfaces added in round 2 (ask --save, cluster.candidates, model.config, huge counts) refuse bad input in
one line naming the file and field (or the question), exit 2, nothing written — or, where the input is valid, answer.

Each test here failed on the code before issue 36 (a file advisor could not read back, a file named '-', a leftover
file and two lines, an internal error, a hang, gigabytes of memory, escape sequences on the terminal, a price in
another currency taken silently)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.base.limits import MAX_SEARCH_COUNTS
from advisor.base.safeload import parse_mapping
from advisor.base.text import plain
from advisor.cli import main
from advisor.inputs.answers import answers_from_mapping
from advisor.outputs.ask import answers_yaml

from .conftest import EXAMPLES, MINIMAL, ROOT

from .test_hardening_round2 import one_clean_line  # noqa: E402 - the one-line refusal check, shared

ESC = "\x1b"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err




def answers_file(tmp_path, data=None, name="a.json"):
    f = tmp_path / name
    f.write_text(json.dumps(MINIMAL if data is None else data), encoding="utf-8")
    return f


def listing(d):
    return sorted(p.name for p in Path(d).iterdir())


def with_cluster(**fields):
    data = json.loads(json.dumps(MINIMAL))
    data["cluster"].update(fields)
    return data


# ---------------------------------------------------------------- ask --save: files advisor can read back


NUMBER_LIKE = ["100000", "1e5", "1.5e5", "1E5", ".5", "010", "+1", "0x1F", "0o17", "1_000", "true", "null", "~", "yes", ".inf", ".NaN",
               "2026-12-04", "1:30", "12:30:00"]


@pytest.mark.parametrize("question", NUMBER_LIKE)
def test_a_question_that_reads_as_a_number_is_saved_as_text(tmp_path, capsys, question):
    """A saved conversation stored 1e5 as the number 100000.0 where a question belongs: the file was refused on reading.
    (The turn comes from the file: an unreadable question asked now is refused and not saved; the guided Q&A keeps such
    turns, and its save writes them through the same dumper.)"""
    data = {**MINIMAL, "project": {"conversation": [{"question": question, "answer": question}]}}
    src, saved = answers_file(tmp_path, data), tmp_path / "saved.yaml"
    code, _out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", saved)
    assert code == 0, err
    code, _out, err = run(capsys, "advise", saved)
    assert code == 0, err
    turns = answers_from_mapping(parse_mapping(saved.read_text(encoding="utf-8"), "saved.yaml")).project.conversation
    assert turns is not None and turns[0].question == question and turns[0].answer == question


@pytest.mark.parametrize("spelling", ["same", "dot-slash", "symlink"])
def test_save_onto_the_output_path_is_refused(tmp_path, capsys, spelling, monkeypatch):
    """--save and -o naming one file: with --force the reply overwrote the saved answers (a key 'Model FLOPs utilisation')."""
    monkeypatch.chdir(tmp_path)
    src = answers_file(tmp_path)
    target = tmp_path / "both.yaml"
    target.write_text("kept: true\n")
    other = {"same": "both.yaml", "dot-slash": "./both.yaml", "symlink": "link.yaml"}[spelling]
    if spelling == "symlink":
        (tmp_path / "link.yaml").symlink_to(target)
    before = listing(tmp_path)
    code, out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", "both.yaml", "-o", other, "--force")
    one_clean_line(code, err, "--save", "-o")
    assert out == "" and target.read_text() == "kept: true\n" and listing(tmp_path) == before


def test_save_to_dash_without_o_is_refused_and_writes_no_file_named_dash(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = answers_file(tmp_path)
    code, out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", "-")
    one_clean_line(code, err, "--save")
    assert out == "" and not (tmp_path / "-").exists()


def test_save_to_dash_with_o_prints_the_answers_on_stdout(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = answers_file(tmp_path)
    code, out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", "-", "-o", "reply.txt")
    assert code == 0, err
    assert not (tmp_path / "-").exists() and (tmp_path / "reply.txt").exists()
    saved = answers_from_mapping(parse_mapping(out, "<stdout>"))
    assert saved.project.conversation is not None and saved.project.conversation[-1].question == "what is all-reduce?"


def _failing_nth_fsync(monkeypatch, n):
    """The n-th file advisor writes hits a full disk (ENOSPC when its data is flushed)."""
    real = os.fsync
    calls = {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] == n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    monkeypatch.setattr("advisor.outputs.io.os.fsync", fsync)


@pytest.mark.parametrize("failing", [1, 2])
def test_a_failed_save_leaves_no_file_and_prints_one_line(tmp_path, capsys, monkeypatch, failing):
    """A full disk on either of --save and -o: the other file was left behind, and 'wrote' plus the error made two lines."""
    src = answers_file(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    _failing_nth_fsync(monkeypatch, failing)
    code, out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", out_dir / "saved.yaml", "-o", out_dir / "reply.txt")
    one_clean_line(code, err, "No space left on device")
    assert listing(out_dir) == [] and out == ""


def test_a_save_into_an_unwritable_directory_leaves_no_file_and_prints_one_line(tmp_path, capsys, monkeypatch):
    src = answers_file(tmp_path)

    def refuse(*_a, **_k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr("advisor.outputs.io.tempfile.mkstemp", refuse)
    code, out, err = run(capsys, "ask", src, "what is all-reduce?", "--save", tmp_path / "saved.yaml")
    one_clean_line(code, err, "saved.yaml", "Permission denied")
    assert not (tmp_path / "saved.yaml").exists() and out == ""


def test_a_lone_surrogate_in_a_question_is_refused_naming_the_question(tmp_path, capsys):
    """A byte that is not UTF-8 on the command line arrives as a lone surrogate: writing it to -o was an internal error."""
    src, reply = answers_file(tmp_path), tmp_path / "reply.md"
    code, out, err = run(capsys, "ask", src, "what is all-reduce\udcff?", "-o", reply, "--save", tmp_path / "s.yaml")
    one_clean_line(code, err, "QUESTION")
    assert not reply.exists() and not (tmp_path / "s.yaml").exists()


# ---------------------------------------------------------------- escape sequences never reach a terminal or a file


NASTY = "what is all-reduce\x1b[2J\x1b]0;owned\x07\x1b[31m\x9b1m\u202e?\x08\x00"


def test_the_sanitiser_strips_escape_sequences_and_control_characters():
    assert plain(NASTY) == "what is all-reduce?"
    assert plain("line one\nline two\tend", newlines=True) == "line one\nline two\tend"
    assert plain("line one\nline two") == "line one line two"
    assert plain("中文 ok é") == "中文 ok é"


@pytest.mark.parametrize("fmt", ["text", "md", "json"])
def test_escape_sequences_in_a_question_reach_neither_the_terminal_nor_a_file(tmp_path, capsys, fmt):
    src, saved, reply = answers_file(tmp_path), tmp_path / "s.yaml", tmp_path / "reply.out"
    code, out, err = run(capsys, "ask", src, NASTY, "--format", fmt, "--save", saved)
    assert code == 0, err
    assert ESC not in out + err and "\x07" not in out and "\x9b" not in out
    assert ESC not in saved.read_text(encoding="utf-8")
    code, _out, err = run(capsys, "ask", src, NASTY, "--format", fmt, "-o", reply)
    assert code == 0 and ESC not in reply.read_text(encoding="utf-8")


def test_escape_sequences_kept_in_an_answers_file_stay_out_of_the_memo(tmp_path, capsys):
    data = json.loads(json.dumps(MINIMAL))
    data["project"] = {"conversation": [{"question": "why\x1b[2J?", "answer": "because\x1b]0;x\x07 of\nthis"}],
                       "checklist_done": ["ticked\x1b[31m"]}
    code, out, err = run(capsys, "ask", answers_file(tmp_path, data), "--format", "md")
    assert code == 0, err
    assert ESC not in out and "\x07" not in out and "because of\nthis" in out


def test_escape_sequences_in_an_error_never_reach_the_terminal(tmp_path, capsys):
    code, _out, err = run(capsys, "advise", answers_file(tmp_path, with_cluster(gpu="a100\x1b[2J\x1b]0;x\x07")))
    one_clean_line(code, err, "cluster.gpu")
    assert ESC not in err and "\x07" not in err


# ---------------------------------------------------------------- a candidate priced in another currency


@pytest.mark.parametrize("field", ["price_per_gpu_hour", "spot_price_per_gpu_hour"])
def test_a_candidate_priced_in_another_currency_is_refused(tmp_path, capsys, field):
    cand = {"gpu": "h100-sxm", "price_per_gpu_hour": 3.5, "max_gpus": 64}
    if field.startswith("spot"):
        cand.update(spot_interruptions_pct_per_month=10)
    cand[field] = "€3"
    data = with_cluster(candidates=[cand])
    data["budget"]["currency"] = "USD"
    code, _out, err = run(capsys, "advise", answers_file(tmp_path, data))
    one_clean_line(code, err, f"cluster.candidates[0].{field}", "EUR", "USD")


def test_a_candidate_priced_in_the_budgets_currency_is_accepted(tmp_path, capsys):
    data = with_cluster(candidates=[{"gpu": "h100-sxm", "price_per_gpu_hour": "¥25", "max_gpus": 64}])
    data["budget"] = {"price_per_gpu_hour": "¥10"}
    code, _out, err = run(capsys, "advise", answers_file(tmp_path, data), "--format", "json")
    assert code == 0, err


# ---------------------------------------------------------------- a known run length answers what-ifs


KNOWN_RUN_QUESTIONS = ["what if we only get 32 GPUs?", "what if we get 128 GPUs?", "what if the deadline is 10 days?",
                       "what if the monthly budget is 300k?", "what if we had a 400 Gbps network?", "what if we train on 2T tokens?",
                       "what if we use fp16?", "what if we use qlora?", "what if we switch to ZeRO++?", "what if we use h100?",
                       "如果截止日期是 10 天呢？"]


@pytest.mark.parametrize("question", KNOWN_RUN_QUESTIONS)
def test_ask_on_a_known_run_answers_what_ifs(tmp_path, capsys, question):
    """customer-service.yaml knows its run takes 3 days (training.duration_days): every what-if is answered."""
    code, out, err = run(capsys, "ask", EXAMPLES / "customer-service.yaml", question)
    assert code == 0 and out.strip(), err


# ---------------------------------------------------------------- huge counts are refused quickly, with the limit


HUGE_COUNT = 10_000_000


def _quick_refusal(capsys, *args, names=()):
    start = time.perf_counter()
    code, _out, err = run(capsys, *args)
    took = time.perf_counter() - start
    one_clean_line(code, err, f"{MAX_SEARCH_COUNTS:,}", *names)
    assert took < 10, took


@pytest.mark.parametrize("fields, where", [
    ({"max_gpus": HUGE_COUNT}, "cluster.max_gpus"),
    ({"gpus": HUGE_COUNT}, "cluster.gpus"),
    ({"candidates": [{"gpu": "h100-sxm", "price_per_gpu_hour": 3, "max_gpus": HUGE_COUNT}]}, "cluster.candidates[0].max_gpus"),
    ({"gpus_per_node": 1, "gpus": 64, "max_gpus": 2 * MAX_SEARCH_COUNTS}, "cluster.max_gpus"),
])
def test_an_answers_file_with_a_huge_count_is_refused_with_the_limit(tmp_path, capsys, fields, where):
    _quick_refusal(capsys, "advise", answers_file(tmp_path, with_cluster(**fields)), names=(where,))


@pytest.mark.parametrize("question", ["what if we get 10M GPUs", "what if we only get 10000000 GPUs?", "64 GPUs or 10000000 GPUs?",
                                      "why not 10000000 GPUs?"])
def test_a_question_with_a_huge_count_is_refused_with_the_limit(tmp_path, capsys, question):
    _quick_refusal(capsys, "ask", answers_file(tmp_path), question, names=("cluster",))


def test_a_huge_sweep_is_refused_with_the_limit(tmp_path, capsys):
    top = 8 * (MAX_SEARCH_COUNTS + 1)
    _quick_refusal(capsys, "sweep", answers_file(tmp_path), "--gpus", f"8..{top}", names=("--gpus",))


def test_a_sweep_over_several_gpu_types_counts_every_types_points(tmp_path, capsys):
    """Each GPU type is swept over the same counts and all are kept: the limit is on their sum."""
    data = with_cluster(candidates=[{"gpu": "h100-sxm", "price_per_gpu_hour": 3, "max_gpus": 64}])
    top = 8 * (MAX_SEARCH_COUNTS // 2 + 8)
    _quick_refusal(capsys, "sweep", answers_file(tmp_path, data), "--gpus", f"8..{top}", names=("--gpus", "2 GPU types"))


def test_the_default_sweep_of_a_large_cluster_stays_within_the_limit(tmp_path, capsys, monkeypatch):
    """Without --gpus a sweep runs to 4x today's count; where that is past the limit it stops at the limit (shown here
    with the limit lowered to 300 counts, so that the sweep is quick)."""
    monkeypatch.setattr("advisor.base.limits.MAX_SEARCH_COUNTS", 300)
    code, _out, err = run(capsys, "sweep", answers_file(tmp_path, with_cluster(gpus=2048)), "--format", "json", "-o", tmp_path / "sw.json")
    assert code == 0, err
    swept = json.loads((tmp_path / "sw.json").read_text())["gpus"]
    assert 2048 in swept and 4 * 2048 not in swept and len(swept) <= 300


# ---------------------------------------------------------------- model.config: regular files of a stated size


def config_answers(tmp_path, config):
    data = json.loads(json.dumps(MINIMAL))
    data["model"] = {"config": str(config)}
    return answers_file(tmp_path, data)


def test_a_fifo_as_model_config_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "advisor", "advise", str(config_answers(tmp_path, fifo))], capture_output=True,
                          text=True, timeout=30, env=env)
    one_clean_line(done.returncode, done.stderr, "model.config", "regular file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_as_model_config_is_refused_before_reading(tmp_path, capsys, device):
    if not os.path.exists(device):
        pytest.skip(f"{device} is not on this system")
    code, _out, err = run(capsys, "advise", config_answers(tmp_path, device))
    one_clean_line(code, err, "model.config", "regular file")


def test_a_config_larger_than_the_cap_is_refused_with_the_cap(tmp_path, capsys):
    from advisor.inputs.hfconfig import MAX_CONFIG_BYTES

    big = tmp_path / "config.json"
    big.write_text(json.dumps({"num_hidden_layers": 32, "pad": "x" * MAX_CONFIG_BYTES}))
    code, _out, err = run(capsys, "advise", config_answers(tmp_path, big))
    one_clean_line(code, err, "model.config", "1 MB")


LLAMA = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
         "intermediate_size": 14336}


@pytest.mark.parametrize("extra, names", [
    ('"deep": ' + "[" * 100_000 + "]" * 100_000, ("nested",)),
    ('"deep": ' + '{"a": ' * 50_000 + "1" + "}" * 50_000, ("nested",)),
    ('"deep": ' + "[" * 800 + "]" * 800, ("nested",)),
    ('"num_hidden_layers": ' + "9" * 400, ("num_hidden_layers",)),
    ('"text_config": {"hidden_size": ' + "9" * 400 + "}", ("hidden_size",)),
    ('"big": ' + "9" * 5000, ("5,000 digits",)),
], ids=["arrays-100k", "objects-50k", "arrays-800", "layers-400-digits", "text-config-400-digits", "5000-digits"])
def test_a_deeply_nested_or_huge_numbered_config_is_refused_in_one_line(tmp_path, capsys, extra, names):
    cfg = tmp_path / "config.json"
    body = json.dumps({k: v for k, v in LLAMA.items() if f'"{k}"' not in extra})[1:-1]
    cfg.write_text("{" + body + ", " + extra + "}")
    code, _out, err = run(capsys, "advise", config_answers(tmp_path, cfg))
    one_clean_line(code, err, "model.config", *names)


def test_a_real_config_still_reads(tmp_path, capsys):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({**LLAMA, "unused_big_number": int("9" * 400), "rope_scaling": {"factor": 8.0}}))
    code, _out, err = run(capsys, "advise", config_answers(tmp_path, cfg), "--format", "json")
    assert code == 0, err


# ---------------------------------------------------------------- what advisor writes, advisor reads back


_text = st.text(min_size=1, max_size=60)  # any code point: escapes, controls, lone surrogates, CJK
_number_words = st.sampled_from(NUMBER_LIKE + ["7B", "1T", "¥10", "50万", "3 days", "1,024", "no", "off", "=", "- x", "? y", "*a", "&b",
                                               "!!python/object:x", "'quoted'", '"dq"', "# not a comment", "key: value", "[1, 2]", "{a: 1}"])
_question = st.one_of(_text, _number_words)


@st.composite
def drafts(draw):
    """Answers as the TUI and ask keep them: numbers as typed (text or numbers), and a conversation of free text."""
    data = {"model": {"params": draw(st.sampled_from(["7B", 7e9, "13b", "70亿", 1.3e10]))},
            "training": {"tokens": draw(st.sampled_from(["1T", 1e12, "300B", "2e12"]))},
            "cluster": {"gpu": draw(st.sampled_from(["a100-80gb", "h100-sxm", "H800"])), "gpus": draw(st.sampled_from([8, 64, "128", "1,024"]))},
            "budget": {"price_per_gpu_hour": draw(st.sampled_from([2, 2.5, "3.5", "$2"]))}}
    turns = draw(st.lists(st.tuples(_question, st.one_of(_text, _number_words)), max_size=4))
    if turns:
        data["project"] = {"conversation": [{"question": q, "answer": a} for q, a in turns]}
    if draw(st.booleans()):
        data["project"] = {**data.get("project", {}), "checklist_done": draw(st.lists(st.one_of(_text, _number_words), max_size=3))}
    return data


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drafts())
def test_any_answers_advisor_writes_load_back_the_same(data):
    """answers_yaml is what the TUI's save and `ask --save` write: the text reads back to the same answers — the same
    model, field for field — and so to the same plan (advise is a function of the answers and the rules)."""
    try:
        answers = answers_from_mapping(data)
    except Exception:  # noqa: BLE001 - only answers that validate are ever saved
        return
    back = answers_from_mapping(parse_mapping(answers_yaml(data), "saved.yaml"))
    assert back == answers


@pytest.mark.parametrize("example, question", [
    ("customer-service.yaml", "what if we get 128 GPUs?"),
    ("customer-service.yaml", "what if we use fp16?"),
    ("gpu-choice.yaml", "what if the deadline is 10 days?"),
    ("thousand-gpus-one-day.yaml", "what if we only get 512 GPUs?"),
    ("customer-service-finetune.yaml", "what if we use qlora?"),
])
def test_answers_saved_by_ask_adopt_load_back_and_give_the_what_ifs_plan(tmp_path, capsys, example, question):
    saved = tmp_path / "adopted.yaml"
    code, out, err = run(capsys, "ask", EXAMPLES / example, question, "--save", saved, "--adopt", "--format", "json")
    assert code == 0, err
    change = json.loads(out)["change"]
    assert change, out
    code, out, err = run(capsys, "advise", saved, "--format", "json")
    assert code == 0, err
    from advisor.base.safeload import load_mapping
    from advisor.decision.advice import advise
    from advisor.knowledge.rules import load_rules
    from advisor.outputs.ask import with_change

    _name, draft = load_mapping(EXAMPLES / example)
    expected = advise(answers_from_mapping(with_change(draft, change)), load_rules([])).plan.chosen
    assert (json.loads(out)["plan"]["chosen"]["strategy"], json.loads(out)["plan"]["chosen"]["gpus"]) == (expected.strategy, expected.gpus)


def test_outputs_committed_together_put_back_what_force_replaced(tmp_path):
    """commit_all: when a later output cannot be put in place, an earlier one is taken back — a new file removed, a file
    --force replaced restored — and no staging file is left."""
    from advisor.base.errors import OutputError
    from advisor.outputs.io import commit_all, stage_atomic

    (tmp_path / "replaced.txt").write_text("old")
    first = stage_atomic(tmp_path / "replaced.txt", "new", force=True)
    second = stage_atomic(tmp_path / "new.txt", "new")
    third = stage_atomic(tmp_path / "late.txt", "x")
    (tmp_path / "late.txt").write_text("appeared meanwhile")  # without --force, the last cannot go in
    with pytest.raises(OutputError, match="already exists"):
        commit_all([first, second, third])
    assert (tmp_path / "replaced.txt").read_text() == "old"
    assert listing(tmp_path) == ["late.txt", "replaced.txt"]


def test_the_stated_search_limit_holds_for_the_search_as_it_is():
    """base/limits.py states ~4.6 KB a priced count and 100,000 counts within 512 MiB: measured here (tracemalloc sees
    numpy's arrays) at two sizes, the search's memory per count and what it needs at the limit must stay within them,
    so that a change that makes the search hungrier fails here instead of in a user's memory."""
    import tracemalloc

    from advisor.base.limits import BYTES_PER_COUNT, SEARCH_MEMORY_BYTES
    from advisor.decision.search import candidate_counts, every_count

    def answers(top):
        data = with_cluster(max_gpus=top)
        data["training"]["deadline_days"] = 2
        return answers_from_mapping(data)

    candidate_counts(answers(128))  # the one-time setup (caches, imports) is not the search's per-count memory
    peaks = []
    for top in (8 * 4_000, 8 * 8_000):
        a = answers(top)
        tracemalloc.start()
        try:
            candidate_counts(a)
            peaks.append((every_count(a).size, tracemalloc.get_traced_memory()[1]))
        finally:
            tracemalloc.stop()
    (n1, p1), (n2, p2) = peaks
    per_count = (p2 - p1) / (n2 - n1)
    assert per_count <= BYTES_PER_COUNT, per_count
    assert p1 + per_count * (MAX_SEARCH_COUNTS - n1) <= SEARCH_MEMORY_BYTES, (p1, per_count)
