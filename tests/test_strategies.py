"""Issue 13: one strategy registry, and a rule layer that loads without the estimate model."""

from __future__ import annotations

import subprocess
import sys
import typing

from advisor.inputs import answers
from advisor.knowledge import strategies


def test_the_answers_literal_lists_exactly_the_registry():
    """pydantic needs the ids spelled out in a Literal; it must never drift from the registry."""
    assert typing.get_args(answers.Strategy) == strategies.STRATEGIES


def test_every_strategy_carries_consistent_traits():
    for s in strategies.REGISTRY:
        assert (s.launcher == "deepspeed") == (s.deepspeed_stage is not None), s.id
        assert not s.offload or s.resident_twin in strategies.SPECS, s.id
        assert s.memory_convention and s.framework


def test_derived_tables_follow_the_registry_order():
    assert list(strategies.FRAMEWORKS) == list(strategies.STRATEGIES) == list(strategies.SIMPLICITY)
    assert strategies.SIMPLICITY["ddp"] == 0  # DDP, the standard stable setup (seed:K7), is simplest
    assert strategies.DEEPSPEED_ESTIMATED == ("deepspeed-zero2", "deepspeed-zero3", "deepspeed-zeropp", "deepspeed-zero3-offload")


def test_loading_and_checking_rules_imports_neither_numpy_nor_the_estimate():
    code = ("import sys\nfrom advisor.knowledge.rules import load_rules, Problems\nload_rules(problems=Problems(collect=True))\n"
            "bad = [m for m in ('numpy', 'advisor.estimate', 'advisor.decision.facts', 'pydantic') if m in sys.modules]\nprint(bad)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
