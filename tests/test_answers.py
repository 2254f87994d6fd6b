"""Bad answers get one clear line naming the field; good answers load from YAML, JSON or stdin."""

from __future__ import annotations

import io
import json
import sys

import pytest

from advisor.inputs.answers import Answers, answers_from_mapping, load_answers
from advisor.base.errors import AnswerError, InputFileError

from .conftest import EXAMPLES, MINIMAL, with_


def test_minimal_answers_fill_in_documented_defaults(minimal):
    a = answers_from_mapping(minimal)
    assert a.model.params == 7e9
    assert a.training.tokens == 1e12
    assert a.cluster.gpus_per_node == 8 and a.cluster.nodes == 8
    assert a.budget.currency == "USD" and a.team.experience == "some" and a.project.stage == "mvp"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_example_loads(path):
    assert isinstance(load_answers(path), Answers)


BAD_MAPPINGS = [
    ("unknown key suggests the right one", with_(MINIMAL, model={"parms": "7B"}), ["model.parms", "did you mean 'params'"]),
    ("typo in a section name", {**MINIMAL, "clustr": {}}, ["clustr", "did you mean 'cluster'"]),
    ("a key under the wrong section says where it belongs", with_(MINIMAL, team={"multi_tenant": True}),
     ["team.multi_tenant", "it belongs under cluster: cluster.multi_tenant"]),
    ("missing required field", with_(MINIMAL, model={"params": None}), ["model.params", "required"]),
    ("negative count", with_(MINIMAL, cluster={"gpus": -8}), ["cluster.gpus", "positive whole number"]),
    ("zero count", with_(MINIMAL, cluster={"gpus": 0}), ["cluster.gpus", "positive whole number"]),
    ("fractional count", with_(MINIMAL, cluster={"gpus": 6.5}), ["cluster.gpus", "whole number"]),
    ("bool where a number is expected", with_(MINIMAL, cluster={"gpus": True}), ["cluster.gpus", "boolean"]),
    ("bool price", with_(MINIMAL, budget={"price_per_gpu_hour": False}), ["budget.price_per_gpu_hour", "boolean"]),
    ("NaN price", with_(MINIMAL, budget={"price_per_gpu_hour": float("nan")}), ["budget.price_per_gpu_hour", "finite"]),
    ("infinite bandwidth", with_(MINIMAL, cluster={"inter_node_gbps": float("inf")}), ["cluster.inter_node_gbps", "finite"]),
    ("negative price", with_(MINIMAL, budget={"price_per_gpu_hour": -1}), ["budget.price_per_gpu_hour", "greater than zero"]),
    ("unparseable unit", with_(MINIMAL, model={"params": "7 bilion"}), ["model.params", "cannot read '7 bilion'"]),
    ("unparseable tokens", with_(MINIMAL, training={"tokens": "lots"}), ["training.tokens", "cannot read"]),
    ("string count", with_(MINIMAL, cluster={"gpus": "sixty-four"}), ["cluster.gpus", "cannot read 'sixty-four'"]),
    ("gpus not a multiple of gpus_per_node", with_(MINIMAL, cluster={"gpus": 12}), ["gpus (12)", "multiple of gpus_per_node (8)", "use 8 or 16"]),
    ("unknown GPU suggests the catalog id", with_(MINIMAL, cluster={"gpu": "a100-80g"}), ["cluster.gpu", "did you mean 'a100-80gb'"]),
    ("bad enum", with_(MINIMAL, team={"experience": "guru"}), ["team.experience", "must be one of none, some, expert (got 'guru')"]),
    ("neither tokens nor duration", with_(MINIMAL, training={"tokens": None}), ["tokens", "duration"]),
    ("both durations", with_(MINIMAL, training={"duration_days": 1, "duration_hours": 24}), ["duration_hours or duration_days"]),
    ("section is not a mapping", {**MINIMAL, "model": "7B"}, ["model", "mapping"]),
    ("custom GPU missing peak", with_(MINIMAL, cluster={"gpu": {"memory_gb": 48}}), ["cluster.gpu", "peak_tflops"]),
    ("custom GPU bad memory", with_(MINIMAL, cluster={"gpu": {"memory_gb": "lots", "peak_tflops": 100}}), ["cluster.gpu.memory_gb", "number"]),
    ("MoE active above total", with_(MINIMAL, model={"active_params": "8B"}), ["active_params cannot exceed params"]),
    ("bool multi_tenant as text", with_(MINIMAL, cluster={"multi_tenant": "yes"}), ["cluster.multi_tenant", "true or false"]),
]


@pytest.mark.parametrize("data, needles", [(d, n) for _, d, n in BAD_MAPPINGS], ids=[i for i, _, _ in BAD_MAPPINGS])
def test_bad_answers_name_the_field_in_one_line(data, needles):
    with pytest.raises(AnswerError) as err:
        answers_from_mapping(data, "answers.yaml")
    msg = str(err.value)
    assert msg.startswith("answers.yaml: ")
    assert "\n" not in msg
    for needle in needles:
        assert needle in msg


BAD_FILES = [
    ("empty", b"", "file is empty"),
    ("only whitespace", b"  \n\n", "file is empty"),
    ("only comments", b"# nothing here\n", "holds no data"),
    ("binary", b"\x00\x01\x02PK", "binary"),
    ("not utf-8", b"model: {params: \xff\xfe}\n", "not UTF-8"),
    ("a list", b"- 1\n- 2\n", "must be a mapping"),
    ("a scalar", b"7B\n", "must be a mapping"),
    ("duplicate keys", b"model:\n  params: 7B\n  params: 13B\n", "duplicate key 'params'"),
    ("bad yaml", b"model: {params: 7B\n", "invalid YAML"),
    ("bad json", b'{"model": {"params": 7e9,}}', "invalid JSON"),
    ("json duplicate", b'{"model": {"params": 1}, "model": {}}', "duplicate key 'model'"),
    ("json NaN", b'{"model": {"params": NaN}}', "NaN is not allowed"),
    ("tab indentation", b"model:\n\tparams: 7B\n", "invalid YAML"),
]


@pytest.mark.parametrize("content, needle", [(c, n) for _, c, n in BAD_FILES], ids=[i for i, _, _ in BAD_FILES])
def test_bad_files_are_refused_with_the_file_name(tmp_path, content, needle):
    path = tmp_path / ("answers.json" if content.lstrip().startswith(b"{") else "answers.yaml")
    path.write_bytes(content)
    with pytest.raises((InputFileError, AnswerError)) as err:
        load_answers(path)
    assert str(path) in str(err.value)
    assert needle in str(err.value)


def test_an_alias_bomb_is_refused_quickly(tmp_path):
    """A billion-laughs document must fail on size, not expand in memory."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError, match="alias bomb"):
        load_answers(path)


def test_a_huge_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"#" * (3 * 1024 * 1024))
    with pytest.raises(InputFileError, match="larger than"):
        load_answers(path)


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_missing_files_and_directories_are_clear(tmp_path, kind):
    path = tmp_path / "nope.yaml"
    if kind == "directory":
        path.mkdir()
    with pytest.raises(InputFileError, match="no such file" if kind == "missing" else "is a directory"):
        load_answers(path)


def test_answers_load_from_json_and_stdin(tmp_path, monkeypatch):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(MINIMAL))
    assert load_answers(path).cluster.gpus == 64
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(MINIMAL).encode())))
    assert load_answers("-").model.params == 7e9
