"""Issue 23 item 5: every message follows --lang, errors included. `advisor --lang zh advise nope.yaml` said "no such
file" in English; so did sweep, I/O and rule-loading errors. Each bad input here, run in-process with --lang zh, gives
one Chinese line on stderr and exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.cli import main

from .conftest import EXAMPLES

EXAMPLE = str(EXAMPLES / "customer-service.yaml")
MINIMAL_YAML = "model: {params: 7B}\ntraining: {tokens: 1T}\ncluster: {gpu: a100-80gb, gpus: 64}\nbudget: {price_per_gpu_hour: 2}\n"
BAD_RULE = ("rules:\n  - id: bad-rule\n    title: {en: Bad, zh: 坏}\n    source: seed:K13\n    priority: 5\n"
            "    when: {fact: gpuss, op: lt, value: 64}\n    then: {rationale: {en: x, zh: x}}\n")


def _setup(tmp: Path, kind: str) -> list[str]:
    """The command line for one bad input, with the files it needs written under ``tmp``."""
    f = tmp / "answers.yaml"
    if kind == "missing file":
        return ["advise", str(tmp / "nope.yaml")]
    if kind == "directory":
        return ["advise", str(tmp)]
    if kind == "empty file":
        f.write_text("   \n", encoding="utf-8")
    elif kind == "binary file":
        f.write_bytes(b"model:\x00\x01")
    elif kind == "not UTF-8":
        f.write_bytes(b"model: {params: \xff}\n")
    elif kind == "duplicate key":
        f.write_text("model: {params: 7B}\nmodel: {params: 8B}\n", encoding="utf-8")
    elif kind == "invalid YAML":
        f.write_text("model: [params: 7B\n", encoding="utf-8")
    elif kind == "a list at the top":
        f.write_text("- 1\n- 2\n", encoding="utf-8")
    elif kind == "bad answer":
        f.write_text(MINIMAL_YAML.replace("gpus: 64", "gpus: -8"), encoding="utf-8")
    elif kind == "a choice misspelt":
        f.write_text(MINIMAL_YAML.replace("tokens: 1T", "tokens: 1T, method: pretrian"), encoding="utf-8")
    elif kind == "gpus not whole nodes":
        f.write_text(MINIMAL_YAML.replace("gpus: 64", "gpus: 12"), encoding="utf-8")
    else:
        f.write_text(MINIMAL_YAML, encoding="utf-8")
    if kind == "sweep count not whole nodes":
        return ["sweep", str(f), "--gpus", "12"]
    if kind == "sweep count unreadable":
        return ["sweep", str(f), "--gpus", "lots"]
    if kind == "output exists":
        (tmp / "memo.md").write_text("old", encoding="utf-8")
        return ["advise", str(f), "-o", str(tmp / "memo.md")]
    if kind == "output is a directory":
        return ["advise", str(f), "-o", str(tmp) + "/"]
    if kind == "output directory missing":
        return ["advise", str(f), "-o", str(tmp / "no" / "memo.md")]
    if kind == "rules directory missing":
        return ["advise", str(f), "--rules", str(tmp / "nowhere")]
    if kind == "bad rule pack":
        pack = tmp / "pack"
        pack.mkdir()
        (pack / "site.yaml").write_text(BAD_RULE, encoding="utf-8")
        return ["advise", str(f), "--rules", str(pack)]
    if kind == "unknown format":
        return ["advise", str(f), "--format", "pdf"]
    if kind == "missing argument":
        return ["advise"]
    if kind == "rows":
        return ["sweep", str(f), "--rows", "0"]
    if kind == "rule case with a typo'd fact":
        cases = tmp / "cases.yaml"
        cases.write_text("cases:\n  - note: n\n    facts: {gpuss: 8}\n    expect: {}\n", encoding="utf-8")
        return ["rules", "test", str(cases)]
    return ["advise", str(f)]


BAD = [
    ("missing file", "文件不存在"),
    ("directory", "是一个目录"),
    ("empty file", "文件是空的"),
    ("binary file", "二进制文件"),
    ("not UTF-8", "不是 UTF-8 文本"),
    ("duplicate key", "重复的键 'model'"),
    ("invalid YAML", "YAML 无效"),
    ("a list at the top", "顶层必须是各部分的映射"),
    ("bad answer", "cluster.gpus: 必须是正整数（实际是 -8）"),
    ("a choice misspelt", "training.method: 必须是 pretrain, finetune, lora, qlora, dpo, grpo, ppo 之一（实际是 'pretrian'）；是不是想写 'pretrain'？"),
    ("gpus not whole nodes", "不是 gpus_per_node（8）的整数倍；请用 8 或 16"),
    ("sweep count not whole nodes", "--gpus：12 不是整数台 8 卡节点；请用 8 或 16"),
    ("sweep count unreadable", "--gpus：无法读取 'lots'"),
    ("output exists", "已存在；如需覆盖请加 --force"),
    ("output is a directory", "这是目录"),
    ("output directory missing", "不存在"),
    ("rules directory missing", "规则目录不存在"),
    ("bad rule pack", "未知的事实 'gpuss'；是不是想写 'gpus'？"),
    ("unknown format", "参数 --format：无效的选项 'pdf'"),
    ("missing argument", "缺少必需的参数：ANSWERS"),
    ("rows", "--rows：至少为 1"),
    ("rule case with a typo'd fact", "未知的事实 'gpuss'；是不是想写 'gpus'？"),
]

ENGLISH = re.compile(r"\b(no such|is a directory|expected|already exists|cannot|unknown|must|invalid|required|did you mean)\b")


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's errors exit from inside parse_args, as `advisor` itself does
        return int(exc.code or 0)


@pytest.mark.parametrize("kind, chinese", BAD, ids=[b[0] for b in BAD])
def test_bad_input_gets_one_chinese_line_and_exit_2(tmp_path, capsys, kind, chinese):
    code = run(["--lang", "zh", *_setup(tmp_path, kind)])
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert err.startswith("advisor: ") and err.count("\n") == 1, err
    ours = re.sub(r"（[^（）]*）$", "", err.strip())  # the YAML parser's own words, quoted at the end, stay its own
    assert chinese in err and not ENGLISH.search(ours), err


def test_the_same_inputs_stay_english_by_default(tmp_path, capsys):
    assert main(["advise", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err == f"advisor: {tmp_path / 'nope.yaml'}: no such file\n"
    assert run(["advise", "--format", "pdf", EXAMPLE]) == 2
    assert "argument --format: invalid choice: 'pdf'" in capsys.readouterr().err


def test_rules_check_and_test_summaries_follow_the_language(capsys):
    assert main(["--lang", "zh", "rules", "check"]) == 0
    assert re.search(r"个文件中的 \d+ 条规则：没有问题", capsys.readouterr().err)
    assert main(["--lang=zh", "rules", "test", str(Path(__file__).resolve().parents[1] / "rules" / "tests" / "facts.yaml")]) == 0
    assert re.search(r"\d+ 个通过，0 个失败", capsys.readouterr().out)


@pytest.mark.parametrize("extra, english, chinese", [
    ("project: {checklist_done: 5}", "project.checklist_done: expected a list, got 5", "project.checklist_done: 应为列表，却是5"),
    ("project: {conversation: [{question: '', answer: x}]}", "project.conversation[0].question: must not be empty",
     "project.conversation[0].question: 不能为空"),
    ("project: {checklist_done: [" + ",".join(["a"] * 201) + "]}", "project.checklist_done: holds at most 200 items",
     "project.checklist_done: 最多 200 项"),
])
def test_pydantics_own_words_are_put_in_the_current_language(tmp_path, capsys, extra, english, chinese):
    """'Input should be a valid tuple', 'String should have at least 1 character' reached Chinese users in English."""
    f = tmp_path / "answers.yaml"
    f.write_text(MINIMAL_YAML + extra + "\n", encoding="utf-8")
    for lang, words in (("en", english), ("zh", chinese)):
        assert run(["--lang", lang, "advise", str(f)]) == 2
        assert capsys.readouterr().err == f"advisor: {f}: {words}\n"
