"""Defects found trying advisor as its users would (2026-12-07, eighth session: a PM in the Chinese TUI at 80x24 and the
English CLI on the shipped examples). Each test failed on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.inputs.answers import answers_from_mapping

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# The Chinese session's answers, as the guided Q&A saved them: a 13B LoRA for a customer-service bot on 8 A100s, H100s
# listed to compare at 20 CNY, a 3-day deadline.
ZH_TRY = {
    "model": {"params": "13B", "seq_len": 2048},
    "training": {"current_strategy": "none", "method": "lora", "deadline_days": "3天", "runs_per_month": 4, "examples": "20万",
                 "tokens_per_example": 1024, "epochs": 3, "precision": "bf16"},
    "cluster": {"gpu": "a100-80gb", "gpus": 8, "gpus_per_node": 8, "max_gpus": 16,
                "candidates": [{"gpu": "h100-sxm", "price_per_gpu_hour": 20, "max_gpus": 16}], "multi_tenant": False},
    "budget": {"price_per_gpu_hour": 12, "currency": "CNY", "limit": "3万", "monthly_limit": "20万"},
    "team": {"experience": "some"},
    "project": {"stage": "stable"},
}


def _example(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))


def _ask(rules, draft: dict, question: str, lang: str = "en") -> str:
    from advisor.base.i18n import language
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    with language(lang):
        a = advise(answers_from_mapping(draft), rules)
        return "\n".join(ask(question, draft, a, rules).lines)


def test_a_reservation_is_asked_for_the_ranges_upper_end_everywhere(rules):
    """The ask read 'reserve up to 14.7 h', the risk 'rented or reserved for 11.6 h per run' and the question for the
    engineers 'for 0.5 days per run': three lengths for one reservation. Both now ask for the upper end."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    a = advise(answers_from_mapping(_example("customer-service-finetune.yaml")), rules)
    high = a.estimate_dict(a.strategy)["range"]["wall_clock_hours"][1]
    md = to_markdown(a)
    [risk] = [w["text"] for w in a.warnings if w["rule"] == "plan-needs-more-gpus"]
    assert f"reserved for up to {high:.1f} h per run" in risk, risk
    [question] = [q["text"] for q in a.questions if q["rule"] == "plan-needs-more-gpus"]
    assert f"for up to {high:.1f} h per run" in question, question
    assert "0.5 days per run" not in md and f"reserve up to {high:.1f} h" in md


def test_a_budget_out_of_reach_only_at_the_upper_end_says_so_with_that_figure(rules):
    """'No option searched keeps a run within 90,000 USD: the cheapest, deepspeed-zero1 on 8 GPUs, costs 81,082 USD' —
    81,082 is under 90,000, and 8 GPUs take 169 days for the same money. The reply now gives the upper end it judged and,
    among options that cost the same, the fastest."""
    draft = _example("pretrain-7b-h100.yaml")
    text = _ask(rules, draft, "what if the budget is 90k?")
    [line] = [line for line in text.splitlines() if line.startswith("No option searched keeps a run within 90,000 USD")]
    assert "at the range's upper end, where budgets are judged" in line and ", up to 10" in line, line
    assert "on 8 GPUs" not in line, line


def test_a_budget_changed_in_chinese_is_the_budget_not_the_gpu_price(rules):
    """'预算改成 9 万美元呢' was read as a GPU-hour price of 90,000 USD: 2,935,879,427 USD a run."""
    from advisor.outputs.ask import load_intents, parse

    parsed = parse("预算改成 9 万美元呢", load_intents())
    assert parsed is not None and parsed.intent == "what_if" and "budget" in parsed.slots and "price" not in parsed.slots, parsed
    text = _ask(rules, _example("pretrain-7b-h100.yaml"), "预算改成 9 万美元呢", "zh")
    assert text.startswith("假如单次预算 = 90,000 USD"), text


def test_the_upper_end_is_not_rounded_onto_the_deadline(rules):
    """'有风险：推荐方案需要 3.2 小时，在 4.0 小时以内，但这类训练慢的时候要 4.0 小时' — the upper end 4.02 h rounded to the
    deadline itself read as no risk at all. Asked with a deadline just under the range's upper end, the reply gives the
    upper end to a hundredth."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(ZH_TRY), rules)
    hi = a.estimate_dict(a.strategy)["range"]["wall_clock_hours"][1]
    deadline = hi - 0.002
    assert f"{deadline:.1f}" == f"{hi:.1f}"  # one decimal would say the same figure twice
    text = _ask(rules, ZH_TRY, f"{deadline:.3f}小时内能训完吗", "zh")
    assert text.startswith("有风险：") and f"慢的时候要 {hi:.2f} 小时" in text.splitlines()[0], text


@pytest.mark.parametrize("question", ["哪个GPU最便宜", "哪种 GPU 最便宜？", "最便宜的卡是哪种"])
def test_which_gpu_is_cheapest_compares_the_types_in_chinese(rules, question):
    """English 'which GPU is cheapest?' compared the A100 with the H100; '哪个GPU最便宜' answered 'nothing cheaper was
    found' and never named a type."""
    text = _ask(rules, ZH_TRY, question, "zh")
    assert "NVIDIA A100 SXM 80GB" in text and "NVIDIA H100 SXM 80GB" in text, text


@pytest.mark.parametrize("question", ["can we finish by 14 hours?", "can we make a 14 hour deadline?"])
def test_a_deadline_asked_with_by_or_make_is_read(rules, question):
    """Both were refused ('could not read'), though 'can we finish in 14 hours?' was answered."""
    text = _ask(rules, ZH_TRY, question)
    assert text.startswith("Yes: the recommended plan takes") and "inside 14.0 h" in text, text


@pytest.mark.parametrize("lang, question, offer", [
    ("en", "will it be done by friday?", "can we finish in 4 days?"),
    ("zh", "下周五之前能训完吗", "4 天能训完吗？"),
])
def test_a_deadline_by_the_calendar_says_which_form_to_use(rules, lang, question, offer):
    """'will it be done by friday?' and '下周五之前能训完吗' got 'could not read' with unrelated suggestions: the reply now
    says a date needs a start the answers do not hold, and offers the form that works first."""
    from advisor.base.i18n import language
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    with language(lang):
        a = advise(answers_from_mapping(ZH_TRY), rules)
        reply = ask(question, ZH_TRY, a, rules)
    assert not reply.understood and reply.suggestions[0] == offer, reply.suggestions
    assert offer in reply.lines[0], reply.lines


def test_the_cost_answer_gives_the_upper_end_the_memo_asks_to_approve(rules):
    """The memo asked for '509 元（最多 643 元）'; '总共要花多少钱' said 509 and a monthly 2,035 with no upper end."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(ZH_TRY), rules)
    hi = a.estimate_dict(a.strategy)["range"]["cost"][1]
    text = _ask(rules, ZH_TRY, "how much will it cost?")
    assert f"up to {hi:,.0f} CNY at the range's upper end" in text, text
    assert f"a month, up to {hi * 4:,.0f} CNY" in text, text
    one = {**ZH_TRY, "training": {**ZH_TRY["training"], "runs_per_month": 1}}
    assert "At 1 run a month" in _ask(rules, one, "how much will it cost?")


def test_a_small_checkpoint_is_given_in_megabytes_in_the_memo(rules):
    """The DPO memo read 'Checkpoints: 0.0 GB per save of weights only, 0.1 GB with optimizer state' and 'Each save takes
    0 s … 0.0 min of saving', where ask says '94 MB'."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    md = to_markdown(advise(answers_from_mapping(_example("customer-service-dpo.yaml")), rules))
    [line] = [line for line in md.splitlines() if line.startswith("- Checkpoints:")]
    assert "0.0 GB" not in line and " MB per save of weights only" in line, line
    [save] = [line for line in md.splitlines() if line.startswith("- Each save takes")]
    assert "takes 0 s" not in save and "0.0 min" not in save, save


def test_the_memo_title_reads_without_a_wrong_article(rules):
    """'# Decision memo: distributed training for a 8B-parameter model'."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    md = to_markdown(advise(answers_from_mapping(_example("customer-service-dpo.yaml")), rules))
    assert md.startswith("# Decision memo: distributed training of the 8B-parameter model"), md.splitlines()[0]


def test_a_plan_on_a_listed_gpu_type_says_it_must_be_had(rules):
    """The plan moved to 8 H100s a team with 8 A100s listed only to compare, and the memo said nothing of getting them
    ('方案：PyTorch DDP，8 × NVIDIA H100 SXM 80GB … 在不超过已有 8 张 GPU 的前提下'). A risk now says so; where the count
    grows too, one warning says both (not '48 more than the cluster has' of A100s the plan does not use)."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(ZH_TRY), rules)
    assert a.answers.cluster.gpu == "h100-sxm"
    [w] = [w["text"] for w in a.warnings if w["rule"] == "plan-on-another-gpu-type"]
    assert "8 × NVIDIA H100 SXM 80GB" in w and "the cluster has NVIDIA A100 SXM 80GB" in w, w
    many = advise(answers_from_mapping(_example("gpu-choice.yaml")), rules)
    rules_fired = [w["rule"] for w in many.warnings]
    assert "plan-on-another-gpu-type" in rules_fired and "plan-needs-more-gpus" not in rules_fired, rules_fired


def test_a_required_field_is_named_by_its_label_on_the_guided_qa():
    """Step 4 read 'cluster.gpus：必填' — the key, where the screen labels the field 'GPU 总数'."""
    from advisor.base.i18n import language
    from advisor.inputs.questions import on_screen, steps

    labels = {f.path: f.label for s in steps() for f in s.fields}
    assert on_screen("cluster.gpus: is required") == f"'{labels['cluster.gpus']}': is required"
    with language("zh"):
        zh_labels = {f.path: f.label for s in steps() for f in s.fields}
        assert on_screen("cluster.gpus：必填") == f"“{zh_labels['cluster.gpus']}”：必填"
    assert on_screen("cluster.not_a_field: is required") == "cluster.not_a_field: is required"


async def test_the_live_estimate_says_which_step_a_fine_tune_still_needs(rules, tmp_path):
    """From step 2 to 13 of a LoRA the live estimate read only 'The answers are not complete yet.' (回答还不完整。): the
    data is asked last and nothing said where. It now names the step."""
    from advisor.tui.question import LivePanel

    from .test_tui import SIZE, make_app

    app = make_app(rules, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in ("enter", "down", "down", "enter"):
            await pilot.press(key)
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = app.screen.query_one(LivePanel)
        assert panel.advice is None and panel.problem == "Not complete yet: step 13 of 13 still needs an answer.", panel.problem
