"""Defects found in the session of 2026-12-07 (fifth), from the last closing note's 'left alone' list and trying `ask` as
a PM would: each as a test that failed on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.base.i18n import language
from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.outputs.ask import ask, parse

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def finetune(rules):
    answers = load_answers(EXAMPLES / "customer-service-finetune.yaml")
    return answers, advise(answers, rules)


@pytest.mark.parametrize(("question", "lang", "term", "words"), [
    ("why packing?", "en", "packing", "several short training examples"),
    ("why not packing", "en", "packing", "several short training examples"),
    ("why truncation?", "en", "truncation", "maximum length"),
    ("why is MFU so low?", "en", "mfu", "Model FLOPs utilisation"),
    ("为什么要打包？", "zh", "packing", "较短的训练样本"),
])
def test_why_a_term_explains_the_term_not_the_plan(finetune, rules, question, lang, term, words):
    """'why packing?' answered 'Why deepspeed-zeropp on 16 GPUs: ...' — the plan's rationale, not a word about packing:
    the why intent read no term, so a question naming one fell through to why the plan."""
    answers, advice = finetune
    with language(lang):
        reply = ask(question, answers.model_dump(mode="json"), advice, rules)
    assert reply.slots.get("term") == [term], (reply.intent, reply.slots)
    assert words in reply.text() and not reply.text().startswith(("Why deepspeed", "为什么是")), reply.text()


@pytest.mark.parametrize(("question", "term"), [
    ("should we pack examples?", "packing"),
    ("should we pack the conversations", "packing"),
    ("should I truncate long examples?", "truncation"),
    ("要不要打包样本？", "packing"),
])
def test_should_we_with_a_term_is_read_as_a_question_about_it(question, term):
    """'should we pack examples?' was not understood ('could not read'); a PM asks it that way more often than 'what
    is packing?'."""
    parsed = parse(question)
    assert parsed is not None and parsed.slots.get("term") == [term], parsed


@pytest.mark.parametrize("question", ["should we use spot instances?", "should we switch to FSDP?", "should we use 16 GPUs?"])
def test_should_we_use_still_reads_as_before(question):
    """The new 'should we <verb> <term>' reading must not take questions other intents answer (spot, worth it, what if)."""
    parsed = parse(question)
    assert parsed is not None and parsed.intent != "explain", parsed


def test_a_network_what_if_says_the_network_the_plan_assumed(finetune, rules):
    """'what if we had a 100G network?' on answers that give no network read 'was —', though the plan was priced over
    the A10's usual 200 Gbit/s per node."""
    answers, advice = finetune
    reply = ask("what if we had a 100G network?", answers.model_dump(mode="json"), advice, rules)
    assert "was 200, assumed for the NVIDIA A10 24GB" in reply.text() and "was —" not in reply.text(), reply.text()


@pytest.mark.parametrize(("question", "lang"), [("why 3 epochs?", "en"), ("为什么是3轮", "zh")])
def test_why_the_epochs_says_they_are_the_teams_and_what_a_pass_costs(finetune, rules, question, lang):
    """'why 3 epochs?' answered with why the plan's framework; the epochs are the answers' own, and what a PM can use is
    what one pass costs."""
    answers, advice = finetune
    with language(lang):
        reply = ask(question, answers.model_dump(mode="json"), advice, rules)
    c = advice.plan.chosen
    assert reply.intent == "why" and "training.epochs" in reply.text(), reply.text()
    assert f"{c.hours / 3:.1f}" in reply.text(), reply.text()
