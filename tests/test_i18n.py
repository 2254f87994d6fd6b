"""Issue 12: the Chinese interface — a real message catalog checked against the source, bilingual rule texts, the
zh memo as a golden file, numbers and currency as Chinese users write them."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest

from advisor.inputs.answers import answers_from_mapping
from advisor.base.i18n import catalog, detect, language, normalise
from .conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "advisor"
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"
PLACEHOLDER = re.compile(r"\{([^{}:!]*)")


def source_msgids() -> dict[str, str]:
    """Every literal passed to _() or N_() anywhere in the package, with the file it is in."""
    out: dict[str, str] = {}
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.setdefault(arg.value, str(f.relative_to(SRC)))
    return out


def test_every_message_in_the_source_has_a_chinese_translation():
    missing = {m: f for m, f in source_msgids().items() if m not in catalog("zh")}
    assert not missing, f"{len(missing)} msgids without zh, e.g. {list(missing.items())[:3]}"


def test_the_catalog_holds_nothing_the_source_no_longer_says():
    stale = set(catalog("zh")) - set(source_msgids())
    assert not stale, sorted(stale)[:5]


def test_translations_keep_every_placeholder():
    bad = [(m, t) for m, t in catalog("zh").items() if set(PLACEHOLDER.findall(m)) != set(PLACEHOLDER.findall(t))]
    assert not bad, bad[:3]


def test_translations_are_chinese_not_copies():
    same = [m for m, t in catalog("zh").items() if t == m and re.search(r"[a-z]{4,}", m)]
    assert not same, same[:5]


def test_no_call_passes_a_non_literal_msgid_that_the_catalog_cannot_know():
    """_(variable) is allowed only where every value is marked with N_ (the test above then covers it)."""
    dynamic = []
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_" and node.args:
                if not isinstance(node.args[0], ast.Constant):
                    dynamic.append(str(f.relative_to(SRC)))
    assert sorted(dynamic) == sorted(ALLOWED_DYNAMIC), dynamic


ALLOWED_DYNAMIC = [
    "decision/advice.py",  # the ASSUMPTIONS, each marked N_ in estimate.py
    "decision/advice.py",  # MEMORY_MIB_CITE (N_ in knowledge/catalog.py)
    "decision/advice.py",  # each strategy's memory convention (N_ in knowledge/strategies.py REGISTRY)
    "base/units.py", "base/units.py", "base/units.py",  # EXAMPLES and the duration unit names (N_ in units.py)
    "base/units.py",  # units.plural: its two forms are marked N_ where it is called
    "cli.py",  # argparse's messages (N_ in cli._ARGPARSE)
    "tui/common.py", "tui/common.py",  # binding descriptions and tooltips (N_ on each Binding)
    "tui/dialogs.py", "tui/app.py",  # GLOSSARY, SUB_TITLE (N_)
    "outputs/render.py", "outputs/render.py", "outputs/render.py",  # the default batch's source (N_ in estimate.DEFAULT_BATCHES); experience, stage (render.ANSWER_WORDS)
    "outputs/render.py", "outputs/render.py",  # recomputation and LoRA targets in words (render.RECOMPUTE_WORDS, LORA_TARGET_WORDS)
    "outputs/render.py", "outputs/render.py",  # the collectives (N_ in estimate/communication.py) and what they hide behind (render.OVERLAP_WORDS)
    "outputs/render.py",  # what a strategy moves once per micro-batch (N_ in render.PER_MICRO_BATCH)
    "knowledge/strategies.py",  # framework names (N_ in REGISTRY; the proper names PyTorch DDP and Horovod stay as written)
    "outputs/ask.py", "outputs/ask.py",  # a limit over or out of reach, run budget and monthly ceiling (N_ in ask._limits_lost)
    "knowledge/catalog.py",  # the assumed network's source (N_ in catalog.DEFAULT_NETWORK_SOURCE)
]


@pytest.mark.parametrize("env, lang", [
    ({"ADVISOR_LANG": "zh"}, "zh"), ({"ADVISOR_LANG": "zh_CN.UTF-8"}, "zh"), ({"ADVISOR_LANG": "en"}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"), ({"LANG": "en_GB.UTF-8"}, "en"),
    ({}, "en"), ({"ADVISOR_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
])
def test_the_language_comes_from_advisor_lang_then_the_locale(env, lang):
    assert detect(env) == lang


@pytest.mark.parametrize("text", ["fr", "de_DE", "klingon"])
def test_an_unknown_language_is_refused(text):
    with pytest.raises(ValueError, match="en or zh"):
        normalise(text)


def cli(*args, env=None):
    """`advisor ARGS` in process (conftest.run_cli), English unless the test says otherwise."""
    return run_cli(*args, env={"ADVISOR_LANG": "en", **(env or {})})


def test_the_chinese_memo_matches_its_golden_file():
    """`advisor --lang zh advise examples/customer-service.yaml --format md`: a memo a Chinese PM can forward."""
    r = cli("--lang", "zh", "advise", str(EXAMPLES / "customer-service.yaml"), "--format", "md")
    assert r.returncode == 0, r.stderr
    golden = GOLDEN / "customer-service.zh.md"
    if __import__("os").environ.get("UPDATE_GOLDEN"):
        golden.write_text(r.stdout, encoding="utf-8")
    assert r.stdout == golden.read_text(encoding="utf-8")


def test_the_chinese_memo_speaks_chinese_in_every_business_section():
    r = cli("--lang", "zh", "advise", str(EXAMPLES / "customer-service.yaml"), "--format", "md")
    memo = r.stdout
    for heading in ("# 决策备忘录", "## 管理层摘要", "## 决定", "### 理由", "# 工程附录", "## 请工程师回答的问题", "## 启动前检查清单"):
        assert heading in memo
    summary = memo.split("# 工程附录")[0]
    english_words = re.findall(r"\b(?:the|and|GPUs|deadline|cost|run)\b", re.sub(r"_\(.*?\)_|`[^`]*`|NVIDIA[^|]*|DeepSpeed ZeRO stage \d", "", summary))
    assert english_words == [], english_words[:10]
    assert "46,080 元" in memo and "万元" in memo  # yuan as a Chinese reader writes them


def test_json_keys_and_strategy_ids_stay_english_in_chinese():
    r = cli("--lang", "zh", "advise", str(EXAMPLES / "customer-service.yaml"), "--format", "json")
    d = json.loads(r.stdout)
    assert d["recommendation"]["strategy"] == "deepspeed-zero2" and "wall_clock_hours" in d["estimate"]
    assert any("截止" in n["text"] for n in d["notes"]) and d["language"] == "zh"


def test_ADVISOR_LANG_selects_chinese_and_a_bad_value_is_one_line():
    r = cli("advise", str(EXAMPLES / "customer-service.yaml"), env={"ADVISOR_LANG": "zh"})
    assert r.returncode == 0 and r.stdout.startswith("决定：")
    r = cli("advise", str(EXAMPLES / "customer-service.yaml"), env={"ADVISOR_LANG": "fr"})
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "en or zh" in r.stderr


def test_the_currency_defaults_to_cny_in_chinese_and_usd_in_english():
    raw = {"model": {"params": "7B"}, "training": {"tokens": "1T"}, "cluster": {"gpu": "a800", "gpus": 16}, "budget": {"price_per_gpu_hour": 10}}
    assert answers_from_mapping(raw).budget.currency == "USD"
    with language("zh"):
        assert answers_from_mapping(raw).budget.currency == "CNY"


@pytest.mark.parametrize("budget, expect", [
    ({"price_per_gpu_hour": "¥10", "monthly_limit": "50万"}, (10, "CNY", 500_000)),
    ({"price_per_gpu_hour": "10元", "monthly_limit": "500k", "currency": "人民币"}, (10, "CNY", 500_000)),
    ({"price_per_gpu_hour": 10, "monthly_limit": "500,000", "currency": "¥"}, (10, "CNY", 500_000)),
    ({"price_per_gpu_hour": "$2.5", "monthly_limit": "1,000,000"}, (2.5, "USD", 1_000_000)),
])
def test_money_as_chinese_users_write_it_in_an_answers_file(budget, expect):
    a = answers_from_mapping({"model": {"params": "70亿"}, "training": {"tokens": "1万亿", "duration_days": "3天", "deadline_days": "48h"},
                              "cluster": {"gpu": "H800", "gpus": "1,024"}, "budget": budget})
    assert (a.budget.price_per_gpu_hour, a.budget.currency, a.budget.monthly_limit) == expect
    assert (a.model.params, a.training.tokens, a.training.duration_days, a.training.deadline_days) == (7e9, 1e12, 3, 2)
    assert (a.cluster.gpu, a.cluster.gpus) == ("h800", 1024)


@pytest.mark.parametrize("budget, needle", [
    ({"price_per_gpu_hour": "$10", "currency": "CNY"}, "written in USD but currency is CNY"),
    ({"price_per_gpu_hour": "10元", "limit": "$5"}, "different currencies"),
    ({"price_per_gpu_hour": "ten yuan"}, "50万"),
])
def test_money_that_contradicts_itself_or_cannot_be_read_says_so(budget, needle):
    from advisor.base.errors import AnswerError

    with pytest.raises(AnswerError, match=re.escape(needle)):
        answers_from_mapping({"model": {"params": "7B"}, "training": {"tokens": "1T"}, "cluster": {"gpu": "a100-80gb", "gpus": 16}, "budget": budget})


@pytest.mark.parametrize("typed, gid", [("a800", "a800"), ("A800", "a800"), ("H800", "h800"), ("h20", "h20"), ("L20", "l20"),
                                        ("910b", "ascend-910b"), ("910B", "ascend-910b"), ("Ascend 910B", "ascend-910b"), ("A100_80GB", "a100-80gb")])
def test_china_market_gpus_resolve_by_the_names_people_type(typed, gid):
    a = answers_from_mapping({"model": {"params": "7B"}, "training": {"tokens": "1T"}, "cluster": {"gpu": typed, "gpus": 16},
                              "budget": {"price_per_gpu_hour": 10}})
    assert a.cluster.gpu == gid


def test_every_catalog_gpu_cites_its_figures():
    from advisor.knowledge.catalog import gpu_catalog

    for gid in ("a800", "h800", "h20", "l20", "ascend-910b"):
        spec = gpu_catalog()[gid]
        assert spec.source and ("arthurchiao" in spec.source.lower() or "datasheet" in spec.source.lower() or "megatron" in spec.source.lower())
        assert spec.network_source


def test_rule_texts_render_in_the_current_language():
    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import load_rules

    rules = load_rules()
    answers = load_answers(EXAMPLES / "customer-service.yaml")
    with language("zh"):
        zh = advise(answers, rules)
    en = advise(answers, rules)
    assert zh.checklist and all(re.search(r"[\u4e00-\u9fff]", c["text"]) for c in zh.checklist)
    assert [c["rule"] for c in zh.checklist] == [c["rule"] for c in en.checklist]


def test_every_shipped_rule_text_exists_in_both_languages_with_the_same_facts():
    from advisor.knowledge.rules import load_rules

    for rule in load_rules().rules:
        t = rule.then
        texts = [rule.title] + ([t.rationale] if t.rationale else []) + list(t.questions) + list(t.checklist) + [w.text for w in t.warnings]
        for text in texts:
            assert re.search(r"[\u4e00-\u9fff]", text.zh), (rule.id, text.zh)
            assert set(PLACEHOLDER.findall(text.en)) == set(PLACEHOLDER.findall(text.zh)), rule.id


@pytest.mark.parametrize("text, where", [
    ("rationale: just English", "then.rationale: give the text in both languages"),
    ("rationale: {en: x}", "then.rationale: missing zh"),
    ("rationale: {en: x, zh: y, fr: z}", "then.rationale.fr: unknown language"),
    ("rationale: {en: '{gpus} GPUs', zh: '很多 GPU'}", "en and zh quote different facts (gpus)"),
])
def test_a_rule_text_missing_a_language_is_refused_naming_file_rule_and_key(tmp_path, text, where):
    pack = tmp_path / "site"
    pack.mkdir()
    (pack / "site.yaml").write_text(
        "rules:\n  - id: site-rule\n    title: {en: Site rule, zh: 站点规则}\n    source: 'internal: policy'\n    priority: 5\n"
        f"    when: {{fact: gpus, op: ge, value: 1}}\n    then:\n      {text}\n", encoding="utf-8")
    r = cli("rules", "check", str(pack))
    assert r.returncode == 1 and "site.yaml: rule 'site-rule'" in r.stdout and where in r.stdout, r.stdout


def test_chinese_text_tables_line_up_in_terminal_columns():
    """CJK characters are two columns wide: padding by characters would push every Chinese row out of line."""
    from advisor.base.i18n import width

    r = cli("--lang", "zh", "advise", str(EXAMPLES / "customer-service.yaml"))
    rows = [line for line in r.stdout.splitlines()[:12] if "→" in line]
    assert len(rows) >= 6
    assert len({width(line.split("→")[0]) for line in rows}) == 1, rows
    options = r.stdout.split("104 × NVIDIA A100 SXM 80GB 上的选项\n")[1].splitlines()[:9]
    assert len({width(line[: line.rfind("元") + 1]) for line in options[1:]}) == 1, options  # the cost column ends in one place


def test_every_call_passes_exactly_the_placeholders_its_message_names():
    """A rare path (a blocked plan, a tokens/duration conflict) must not raise KeyError in either language: each
    _("...", name=...) call gives every {name} its message uses, and no other."""
    bad = []
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                wanted = {name for _text, name, _spec, _conv in string.Formatter().parse(node.args[0].value) if name is not None}
                given = {k.arg for k in node.keywords if k.arg}
                if node.keywords and wanted != given:
                    bad.append((f.name, node.lineno, sorted(wanted ^ given)))
                if not node.keywords and wanted:
                    bad.append((f.name, node.lineno, sorted(wanted)))
    assert not bad, bad


def test_the_catalogs_hold_each_msgid_once():
    """A msgid written twice (easy after a merge) is silently the later translation: the shipped YAML must read under the
    loader that refuses duplicate keys."""
    from advisor.base.safeload import parse_mapping

    root = Path(__file__).resolve().parents[1] / "src" / "advisor" / "data"
    for path in [*sorted((root / "i18n").glob("*.yaml")), root / "intents.yaml"]:
        parse_mapping(path.read_text(encoding="utf-8"), path.name)  # raises on a duplicate key


# Issue 33: each figure and threshold has one home; a sentence takes it by placeholder. A literal that restates one of
# these model constants in a message (or a rule's text) would drift from the figure the model uses.
RESTATED = {
    r"within \d+(\.\d+)?%": "decide.COST_TIE (the cost tie): write within {tie}",
    r"\b16 (B|bytes) (per param|each)|\b16 B/param|每参数约? ?16 字节": "strategies.STATE_BYTES_PER_PARAM: write {bytes} or the fact state_bytes_per_param",
    r"\b25 Gbit/s": "the rule pack constant thin_network_gbps_per_gpu ({$thin_network_gbps_per_gpu} in a rule text)",
    r"at least 10% less": "decide.CHEAPER_WORTH_SAYING: write {saving}",
    r"\b312\b": "the GPU catalog's A100 peak (data/gpus.yaml)",
    r"\(6 × ": "estimate.finetune.TRAINED_FLOPS_PER_PARAM: the memo's formula takes the estimate's own terms",
}


def _rule_texts() -> list[tuple[str, str]]:
    import yaml

    out = []
    for f in sorted((SRC.parents[1] / "rules").glob("*.yaml")):
        def walk(node, where):
            if isinstance(node, dict):
                for k, v in node.items():
                    if k in ("en", "zh") and isinstance(v, str):
                        out.append((v, where))
                    else:
                        walk(v, where)
            elif isinstance(node, list):
                for n in node:
                    walk(n, where)
        walk(yaml.safe_load(f.read_text(encoding="utf-8")), f.name)
    return out


def test_no_message_restates_a_model_constant_as_a_literal():
    import re

    texts = [(m, f) for m, f in source_msgids().items()] + [(t, "zh.yaml") for t in catalog("zh").values()] + _rule_texts()
    bad = [(f, pattern, text[:90]) for text, f in texts for pattern in RESTATED if re.search(pattern, text)]
    assert not bad, [(f, RESTATED[p], t) for f, p, t in bad[:5]]


def test_the_memo_prints_the_flops_a_lora_plan_is_priced_at():
    """Issue 33: the memo printed '6 × params' FLOPs per token for LoRA plans, priced at 4 per frozen + 6 per adapter
    parameter (estimate.finetune.peft_flops_per_token)."""
    import yaml

    from advisor.decision.advice import advise
    from advisor.inputs.answers import answers_from_mapping
    from advisor.knowledge.rules import load_rules
    from advisor.outputs.render import to_markdown

    from .conftest import EXAMPLES

    job = yaml.safe_load((EXAMPLES / "customer-service-finetune.yaml").read_text())
    job["training"]["method"] = "lora"
    advice = advise(answers_from_mapping(job), load_rules())
    assert advice.method in ("lora", "qlora")
    memo = to_markdown(advice.report())
    assert "4 × " in memo and " frozen + 6 × " in memo and "adapter params" in memo
