"""Issue 34: what a PM reads carries no internal ids, seed tags, file names or scientific notation, and in Chinese no
English running text and one money style; the greenfield and fine-tune wording never speaks of a "today" there is none."""

from __future__ import annotations

import re

import pytest

from advisor.base.i18n import language
from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.knowledge.catalog import gpu_catalog
from advisor.knowledge.strategies import FRAMEWORKS, STRATEGIES
from advisor.outputs.render import summary_notes, summary_rows, the_ask, to_markdown, to_text

from .conftest import EXAMPLES

ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))

PROPER_NOUNS = {
    # units and hardware words Chinese engineers write in Latin letters
    "GB", "MB", "GiB", "GPU", "GPUs", "CPU", "CUDA", "TFLOP", "Gbit", "token", "MFU", "NVLink", "PCIe", "NCCL", "HCCS", "XGMI", "SXM",
    # frameworks, methods and their parts
    "PyTorch", "DeepSpeed", "ZeRO", "SFT", "DPO", "GRPO", "PPO", "TRL", "vLLM", "arXiv", "Young", "MVP", "ZeRO-Offload", "ZeRO-Infinity", "Infinity", "FSDP", "DDP", "Horovod", "Megatron-LM", "LoRA", "QLoRA",
    "PowerSGD", "qwZ", "hpZ", "qgZ", "FULL", "SHARD", "HYBRID", "all-gather", "all-reduce", "reduce-scatter", "TP", "PP", "DP", "CP",
    "bf16", "fp16", "fp32", "fp8", "FP8", "BF16",
    # published runs named as their papers name them (Llama 3's interruption rate)
    "Llama",
    # the product, currencies other than the yuan (written as 元)
    "advisor", "USD", "EUR",
    "s",  # the per second of Gbit/s, TFLOP/s
}
"""Latin words a Chinese memo may carry: GPU and framework names, units, collectives. Anything else is English text."""


def allowed_words() -> set[str]:
    words = set(PROPER_NOUNS) | set(STRATEGIES)
    for name in [*FRAMEWORKS.values(), *(g.name for g in gpu_catalog().values())]:
        words.update(re.findall(r"[A-Za-z][A-Za-z0-9'+\-]*", name))
    return words


def latin_words(text: str) -> list[str]:
    """Latin words outside code spans and the allow-list; a token with a digit is a product or model code (A100, 7B,
    OPT-175B, megatron-3d), not running text."""
    text = re.sub(r"`[^`]*`", "", text)
    allowed = allowed_words()
    found = re.findall(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9'+\-]*", text)
    return [w for w in found if w.strip("-'") not in allowed and not re.search(r"[0-9]", w)]


def business_part(memo: str) -> str:
    """The memo up to its engineering appendix: what a PM forwards."""
    return memo.split("# 工程附录")[0]


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_the_chinese_memo_and_summary_have_no_english_running_text(rules, example):
    answers = load_answers(EXAMPLES / example)
    with language("zh"):
        advice = advise(answers, rules)
        report = advice.report()
        memo = business_part(to_markdown(report))
        summary = "\n".join([report.headline, the_ask(report), *(" ".join(row) for row in summary_rows(report)), *summary_notes(report)])
    for stage in [s for s in answers.training.stages_before or () if s.name]:  # the team's own names for its stages are theirs, not advisor's text
        memo, summary = memo.replace(stage.name, ""), summary.replace(stage.name, "")
    assert latin_words(memo) == [], latin_words(memo)[:20]
    assert latin_words(summary) == [], latin_words(summary)[:20]


CNY_EXAMPLES = [name for name in ALL_EXAMPLES if "currency: CNY" in (EXAMPLES / name).read_text(encoding="utf-8")]


@pytest.mark.parametrize("example", CNY_EXAMPLES)
def test_chinese_money_in_yuan_is_written_one_way(rules, example):
    """'46,082 元' everywhere: never '10 CNY' beside it (the price per GPU-hour was written with the currency code)."""
    with language("zh"):
        advice = advise(load_answers(EXAMPLES / example), rules)
        memo, text = to_markdown(advice.report()), to_text(advice.report())
    assert "CNY" not in business_part(memo), [line for line in memo.splitlines() if "CNY" in line][:5]
    head = text.split("\n\n")[0:3]
    assert "CNY" not in "\n".join(head)


def test_the_recompute_setting_is_said_in_chinese(rules):
    with language("zh"):
        text = to_text(advise(load_answers(EXAMPLES / "customer-service-finetune.yaml"), rules).report())
    comm = next(line for line in text.splitlines() if line.strip().startswith("通信"))
    assert not re.search(r"重计算 (none|selective|full)", comm), comm


def test_the_plan_search_is_cited_in_chinese(rules):
    with language("zh"):
        memo = to_markdown(advise(load_answers(EXAMPLES / "customer-service-finetune.yaml"), rules).report())
    assert "advisor's search" not in memo and "How it decides" not in memo


GREENFIELD_LORA = {
    "model": {"params": "7B"},
    "training": {"method": "lora", "examples": "50k", "tokens_per_example": 1024, "epochs": 2, "current_strategy": "none",
                 "deadline_days": 0.1},
    "cluster": {"gpu": "a100-80gb", "gpus": 8, "gpus_per_node": 8},
    "budget": {"price_per_gpu_hour": 2, "currency": "USD"},
    "team": {"experience": "none"},
    "project": {"stage": "mvp"},
}
"""A first LoRA job (not training yet): nothing runs today, and a run takes under an hour."""


GREENFIELD_PRETRAIN = {
    "model": {"params": "7B"},
    "training": {"tokens": "1T", "current_strategy": "none", "deadline_days": 20},
    "cluster": {"gpu": "a100-80gb", "gpus": 64, "gpus_per_node": 8},
    "budget": {"price_per_gpu_hour": 2, "currency": "USD", "monthly_limit": 400000},
    "team": {"experience": "some"},
    "project": {"stage": "stable"},
}
"""A first pretrain whose deadline needs more GPUs than the cluster has: the plan-needs-more-GPUs warning, a tie note."""


def greenfield_advice(rules, lang, base=GREENFIELD_LORA, **training):
    from advisor.inputs.answers import Answers

    data = {k: dict(v) for k, v in base.items()}
    data["training"].update(training)
    with language(lang):
        return advise(Answers.model_validate(data), rules)


@pytest.mark.parametrize("base", [GREENFIELD_LORA, GREENFIELD_PRETRAIN], ids=["lora", "pretrain-needs-more-gpus"])
@pytest.mark.parametrize("lang, word", [("en", r"\btoday"), ("zh", "现在")])
def test_a_greenfield_plan_never_speaks_of_today(rules, lang, word, base):
    advice = greenfield_advice(rules, lang, base)
    assert advice.plan.greenfield
    with language(lang):
        report = advice.report()
        memo = to_markdown(report)
        said = "\n".join([business_part(memo.split("# Engineering appendix")[0]), to_text(report).split("\n\n\n")[0],
                          *(q.text for q in report.questions), *(w.text for w in report.warnings),
                          *(line for line in memo.splitlines() if line.startswith("|") or "x-axis" in line)])
    hits = [line for line in said.splitlines() if re.search(word, line, re.I) and "today's stacks" not in line]
    assert hits == [], hits[:8]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_runs_a_month_not_asked_are_not_claimed(rules, lang):
    """A LoRA run of under an hour 'keeps the cluster busy' at ~1,000 runs a month: a figure nobody asked for. Without
    runs_per_month (and no monthly ceiling to check) the summary and the ask say nothing per month; with it, they do."""
    advice = greenfield_advice(rules, lang)
    with language(lang):
        report = advice.report()
        rows = [what for what, _t, _r in summary_rows(report)]
        ask = the_ask(report)
    month = "月" if lang == "zh" else "month"
    assert not any(month in r for r in rows), rows
    assert month not in ask, ask
    asked = greenfield_advice(rules, lang, runs_per_month=4)
    with language(lang):
        report = asked.report()
        rows = [what for what, _t, _r in summary_rows(report)]
        ask = the_ask(report)
    assert any(month in r and "4" in r for r in rows), rows
    assert month in ask and "4" in ask, ask


def test_a_monthly_ceiling_without_runs_a_month_says_what_is_assumed(rules):
    advice = greenfield_advice(rules, "en")
    from advisor.inputs.answers import Answers

    data = {k: dict(v) for k, v in GREENFIELD_LORA.items()}
    data["budget"]["monthly_limit"] = 5000
    with language("en"):
        report = advise(Answers.model_validate(data), rules).report()
        rows = [what for what, _t, _r in summary_rows(report)]
    per_month = [r for r in rows if r.startswith("Per month")]
    assert per_month and "1 run, assumed" in per_month[0], rows  # the assumption, said (a new project has no pace of its own: one run)
    assert advice is not None


@pytest.mark.parametrize("lang, low, high", [("en", "1 million", "100 trillion"), ("zh", "100 万", "100 万亿")])
def test_a_range_error_writes_its_bounds_in_words_not_scientific_notation(rules, lang, low, high):
    from advisor.base.errors import AdvisorError
    from advisor.inputs.answers import load_answers as load

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp, language(lang):
        path = Path(tmp) / "a.yaml"
        path.write_text("model: {params: 1e15}\ntraining: {tokens: 1T}\ncluster: {gpu: a100-80gb, gpus: 8}\nbudget: {price_per_gpu_hour: 2}\n")
        with pytest.raises(AdvisorError) as err:
            load(path)
    msg = err.value.msg
    assert msg.startswith(f"{path}: "), msg
    msg = msg.removeprefix(f"{path}: ")  # the temporary folder's random name may hold '3e2' (CI, 2026-12-05)
    assert low in msg and high in msg, msg
    assert not re.search(r"\de[+-]?\d", msg), msg


@pytest.mark.parametrize("value, en, zh_text", [(1e6, "1 million", "100 万"), (1e14, "100 trillion", "100 万亿"), (2.5e9, "2.5 billion", "25 亿"),
                                                (36_500, "36,500", "36,500"), (0.001, "0.001", "0.001"), (5e-324, "less than 0.001", "小于 0.001"),
                                                (1e300, "more than 1,000,000 trillion", "大于 1,000,000 万亿")])
def test_readable_figures(value, en, zh_text):
    from advisor.base.units import readable_figure

    with language("en"):
        assert readable_figure(value) == en
    with language("zh"):
        assert readable_figure(value) == zh_text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_optional_field_says_optional_once(lang):
    """The form adds "(optional)" after every optional field's label; a label that says it too reads twice at 80 columns
    ("Most GPUs you could get for a run (optional; default 4x today)  (optional)")."""
    from advisor.inputs.questions import steps

    marks = ("optional", "可选")
    with language(lang):
        for step in steps():
            for field in step.fields:
                if field.optional:
                    assert not any(m in field.label.lower() for m in marks), (step.id, field.label)


@pytest.mark.parametrize(("typed", "lang", "said"), [("3天", "zh", "采用已知的 3 天训练"), ("72h", "en", "known 3-day run"),
                                                     ("3", "en", "known 3-day run")])
def test_a_known_run_typed_with_its_unit_is_said_once(typed, lang, said):
    """Typing '3天' on the training step said '采用已知的 3天 天训练' (the unit twice)."""
    from advisor.inputs.questions import DEFAULT_TOKENS, reconcile

    with language(lang):
        note = reconcile({"training": {"duration_days": typed, "tokens": DEFAULT_TOKENS}}, {"training": {}})
    assert note is not None and said in note, note


@pytest.mark.parametrize(("value", "lang", "said", "not_said"), [
    ("none", "en", "with no activation recomputation:", "none recomputation"),
    ("none", "zh", "不做激活重计算", "none"),
    ("full on 50% of layers", "en", "with full recomputation on 50% of layers:", "full on 50% of layers recomputation"),
    ("selective", "zh", "选择性重计算", "selective"),
])
def test_the_profiling_item_says_the_recomputation_in_words(rules, value, lang, said, not_said):
    """The checklist read 'micro-batch 2 with none recomputation' (and '、none 重计算下' in Chinese): a fact's raw value."""
    from advisor.knowledge.rules import render_template

    rule = next(r for r in rules.rules if r.id == "memory-activations-profile")
    facts = {"chosen_framework": "DeepSpeed ZeRO stage 2", "seq_len": 2048.0, "chosen_micro_batch": 2.0, "chosen_recompute": value,
             "chosen_memory_gb": 54.3, "gpu_memory_gb": 85.5}
    with language(lang):
        text = render_template(rule.then.checklist[0], facts)
    assert said in text and not_said not in text, text


def test_a_qlora_memo_has_no_empty_deepspeed_table_a_peft_memory_convention_and_no_moe_field(rules, tmp_path):
    """User try (2026-12-05), a 13B full fine-tune planned as QLoRA: the memo printed DeepSpeed's estimator table header
    with no rows, the full fine-tune's 'Memory convention: 2P + 18P/GPUs' under a QLoRA breakdown, and
    'experts_per_token: 2' among the answers of a dense model."""
    from advisor.inputs.answers import answers_from_mapping

    answers = answers_from_mapping({
        "model": {"params": "13B"},
        "training": {"method": "finetune", "tokens": "2B", "current_strategy": "deepspeed-zero2", "deadline_days": 5},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8},
        "budget": {"price_per_gpu_hour": 3, "currency": "USD", "limit": 8000}})
    for lang in ("en", "zh"):
        with language(lang):
            advice = advise(answers, rules)
            assert advice.method in ("lora", "qlora")
            memo = to_markdown(advice)
        lines = memo.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("| --- | --- | --- | --- |") and i + 1 < len(lines):
                assert lines[i + 1].startswith("|"), f"a table with no rows after line {i}: {lines[i - 1]}"
        assert "2P + 18P" not in memo and "18P/" not in memo
        assert "experts_per_token" not in memo


def test_the_gpu_count_table_says_why_nothing_runs_at_a_count(rules):
    """User try (2026-12-05): a 13B fine-tune planned as QLoRA on 16 H100s listed '48 | nothing fits', '64 | nothing fits'
    where a 16-GPU plan fits: more GPUs never need more memory per GPU here; the fine-tune's batch of sequences is what
    cannot feed 48 ranks. The table names the reason it has."""
    from advisor.inputs.answers import answers_from_mapping

    answers = answers_from_mapping({
        "model": {"params": "13B"},
        "training": {"method": "finetune", "tokens": "2B", "current_strategy": "deepspeed-zero2", "deadline_days": 5},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8},
        "budget": {"price_per_gpu_hour": 3, "currency": "USD", "limit": 8000}})
    advice = advise(answers, rules)
    rows = {w["gpus"]: w for w in advice.to_dict()["what_if"]}
    empty = [g for g, w in rows.items() if w["strategy"] is None and g > advice.plan.chosen.gpus]
    assert empty, rows
    memo = to_markdown(advice)
    for g in empty:
        assert rows[g]["nothing_because"] == "batch", rows[g]
        assert f"| {g:,} | nothing fits |" not in memo
        assert f"| {g:,} | the batch cannot feed {g:,} GPUs |" in memo, memo


@pytest.mark.parametrize(("lang", "joined"), [("en", "needs no over-design; Plain DDP's all-reduce"), ("zh", "不需要过度设计；纯 DDP")])
def test_reasons_joined_on_one_line_read_one_stop(lang, joined):
    """'needs no over-design.; Plain DDP's' (and '。; ' in Chinese) in the options detail and the memo's options table."""
    from advisor.base.text import join_reasons

    first, second = ("needs no over-design.", "Plain DDP's all-reduce") if lang == "en" else ("不需要过度设计。", "纯 DDP")
    with language(lang):
        assert join_reasons([first, second]) == joined


def test_the_memo_tab_shows_wide_tables_as_records_at_80_columns(rules):
    """The Memo tab at 80 columns squeezed the options table to 'y…', '4… d…', 'Ex… co…' and wrapped 'Why not' a word a
    line (user try, 2026-12-05): a table wider than the screen reads as one line a row, each value named; the exported
    memo keeps its tables."""
    from advisor.outputs.render import memo_for_screen

    advice = advise(load_answers(EXAMPLES / "customer-service.yaml"), rules)
    memo = to_markdown(advice)
    narrow, wide = memo_for_screen(memo, 80), memo_for_screen(memo, 200)
    widest = max(line.count("|") - 1 for line in narrow.splitlines() if line.startswith("|"))
    assert widest <= 5, widest
    assert "- **`fsdp`** — " in narrow and "Why not: " in narrow
    assert max(line.count("|") - 1 for line in wide.splitlines() if line.startswith("|")) >= 8


def test_the_memo_tab_shows_no_mermaid_source(rules):
    """User try 2026-12-05: the Memo tab showed the charts' Mermaid source ('xychart-beta', 'line [1.9, ...]')."""
    from advisor.outputs.render import memo_for_screen

    memo = to_markdown(advise(load_answers(EXAMPLES / "customer-service.yaml"), rules))
    assert "```mermaid" in memo  # the exported memo keeps its charts
    shown = memo_for_screen(memo, 80)
    assert "mermaid" not in shown and "xychart" not in shown and "line [" not in shown
    assert shown.count("The chart is drawn on the Chart tab") == memo.count("```mermaid")
    assert "Blue line: the best option at each GPU count" in shown  # the caption, with its plan and today marks, stays


def test_where_the_models_shape_came_from_is_said_in_chinese():
    """The Chinese memo's assumptions read 'nearest published shape (18.4B, Megatron-LM 2021 Table 1): hidden rounded to
    a multiple of 1024, layers solved from params' (user try, 2026-12-05)."""
    from advisor.decision.advice import shape_source_words
    from advisor.estimate.workload import infer_shape

    source = infer_shape(13e9, 32000, None, None, None).source
    with language("zh"):
        said = shape_source_words(source)
    assert "最接近的已发表形状" in said and "rounded" not in said, said
