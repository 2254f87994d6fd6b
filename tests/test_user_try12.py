"""Defects found trying advisor as its users would (2026-12-07, seventh session). Each test failed on the code before it."""

from __future__ import annotations

import pytest
from advisor.base.errors import AnswerError

from advisor.inputs.answers import answers_from_mapping

MINIMAL = {"model": {"params": "8B"}, "training": {"method": "lora", "tokens": "200M"}, "cluster": {"gpu": "a100-80gb", "gpus": 8}}


@pytest.mark.parametrize("price", [0, "0", "¥0"])
def test_a_zero_price_says_what_to_give_for_gpus_you_own(price):
    """A team on its own GPUs typed 0 and was told only 'must be greater than zero': the refusal now says what price
    stands for owned hardware, so the PM can go on."""
    with pytest.raises(AnswerError) as info:
        answers_from_mapping({**MINIMAL, "budget": {"price_per_gpu_hour": price}})
    text = str(info.value)
    assert "must be greater than zero" in text
    assert "GPUs you own" in text and "depreciation" in text, text
