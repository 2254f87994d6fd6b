"""Defects the fifth user try left open: each test here failed on the code before its fix."""

from __future__ import annotations

import copy

import pytest

from advisor.inputs.questions import DEFAULT_TOKENS, default_draft, reconcile, step_error, steps

from .test_tui import SIZE, keys, make_app, type_into_focused


def _step(step_id):
    return next(s for s in steps() if s.id == step_id)


@pytest.mark.parametrize("method", ["finetune", "lora", "qlora"])
def test_a_fine_tune_picked_over_the_default_tokens_drops_them(method):
    """A LoRA picked at step 2 and Entered through was priced over the pre-training default of 1T tokens: the default
    stayed until the Advanced step, where most never look."""
    before = default_draft()
    draft = copy.deepcopy(before)
    draft["training"]["method"] = method
    note = reconcile(draft, before)
    assert "tokens" not in draft["training"], draft
    assert note == (f"A fine-tune is sized by its data: give its examples on the Advanced step (or its tokens here); the "
                    f"default {DEFAULT_TOKENS} tokens were dropped.")
    # the missing data is the Advanced step's to ask for, not step 2's (there it would block the way to it)
    assert step_error(draft, _step("training")) is None
    assert "give tokens" in (step_error(draft, _step("advanced")) or "")
    draft["training"].update(examples="200k", tokens_per_example=1024)
    assert step_error(draft, _step("advanced")) is None


def test_tokens_typed_for_a_fine_tune_are_kept():
    before = default_draft()
    before["training"].update(method="lora", tokens="200M")
    draft = copy.deepcopy(before)
    assert reconcile(draft, before) is None and draft["training"]["tokens"] == "200M"
    # the team retypes the default itself on a fine-tune it already picked: theirs
    before["training"]["tokens"] = DEFAULT_TOKENS
    draft = copy.deepcopy(before)
    assert reconcile(draft, before) is None and draft["training"]["tokens"] == DEFAULT_TOKENS


def test_pre_training_without_tokens_is_still_refused_at_step_two():
    draft = default_draft()
    draft["training"].pop("tokens")
    assert "give tokens" in (step_error(draft, _step("training")) or "")
    assert step_error(draft, _step("advanced")) is None


async def test_the_guided_lora_asks_for_its_data_instead_of_pricing_a_trillion_tokens(rules, tmp_path):
    app = make_app(rules, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await keys(pilot, "enter")
        assert app.screen.step.id == "training"
        await keys(pilot, "down", "down", "enter")  # pretrain -> finetune -> lora
        assert app.screen.step.id == "gpu"
        assert app.draft["training"]["method"] == "lora" and "tokens" not in app.draft["training"]
        while app.screen.step.id != "advanced":
            await keys(pilot, "enter")
        await keys(pilot, "enter")
        assert app.screen.step.id == "advanced"  # not skipped: a fine-tune without its data cannot be priced
        assert "give tokens" in str(app.screen.query_one("#error").render())
        for _ in range(3):  # to the examples field: host RAM, sequence, global batch before it
            await keys(pilot, "tab")
        await type_into_focused(pilot, "200k")
        await keys(pilot, "tab")
        await type_into_focused(pilot, "1024")
        await keys(pilot, "enter")
        assert app.draft["training"]["examples"] == "200k" and type(app.screen).__name__ == "ReviewScreen"


@pytest.mark.parametrize("question, lang, first", [
    ("How much does one more day cost?", "en",
     "A day of the planned 16 GPUs costs 3,840 CNY (16 GPUs × 24 h × 10 CNY a GPU-hour): each day a run takes longer costs "
     "that much more."),
    ("what is the daily cost", "en",
     "A day of the planned 16 GPUs costs 3,840 CNY (16 GPUs × 24 h × 10 CNY a GPU-hour): each day a run takes longer costs "
     "that much more."),
    ("多一天要多少钱", "zh", "计划中的 16 张 GPU 一天花费 3,840 元（16 张 × 24 小时 × 每 GPU 小时 10 元）：训练每多跑一天，就多花这么多。"),
])
def test_what_one_more_day_costs_is_the_day_not_the_run(rules, question, lang, first):
    """'How much does one more day cost?' was answered with the cost of a run (1,862 CNY)."""
    from advisor.base.i18n import language

    from .test_user_try4 import _ask

    with language(lang):
        reply = _ask(question, rules, "customer-service-finetune.yaml")
    assert reply.intent == "day_cost" and reply.lines[0] == first, reply.lines
    # the day is the plan's GPUs at the plan's price: 16 x 24 x 10
    assert "3,840" in reply.lines[0]


def test_a_day_asked_with_a_change_is_that_what_if(rules):
    from .test_user_try4 import _ask

    assert _ask("how much per day on 32 GPUs", rules, "customer-service-finetune.yaml").change.get("cluster.gpus") == "32"
