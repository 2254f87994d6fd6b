"""Defects found trying advisor as its users would (2026-12-07, ninth session), and one left from the eighth's review.
Each test failed on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.inputs.answers import answers_from_mapping

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))


def _ask(rules, draft: dict, question: str, lang: str = "en") -> str:
    from advisor.base.i18n import language
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    with language(lang):
        a = advise(answers_from_mapping(draft), rules)
        return "\n".join(ask(question, draft, a, rules).lines)


@pytest.mark.parametrize(("lang", "question", "short", "rounded"), [
    ("en", "how big is a checkpoint?", "a save takes 0.04 s", "a save takes 0 s"),
    ("zh", "检查点多大？", "保存一次要 0.04 秒", "保存一次要 0 秒"),
])
def test_ask_gives_a_short_save_in_hundredths_as_the_memo_does(rules, lang, question, short, rounded):
    """The memo's 'Each save takes 0.04 s' (the eighth session's fix) had a twin in ask: 'At 2 GB/s a save takes 0 s'."""
    text = _ask(rules, _example("customer-service-dpo.yaml"), question, lang)
    assert short in text and rounded not in text, text
