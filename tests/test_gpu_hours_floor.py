"""The floor under every option's GPU-hours (estimate.gpu_hours_floor) that lets advice._any_option_meets prove a budget
out of reach without pricing every count (issue 20: 116 -> 76 ms at 16,384 GPUs). A floor above any option would drop
a lever that works, so it is checked against every strategy at every count the search could price."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from advisor.base.safeload import load_mapping
from advisor.decision import advice as advice_module
from advisor.decision.search import every_count
from advisor.estimate import estimate_all, gpu_hours_floor
from advisor.inputs.answers import answers_from_mapping

from .conftest import EXAMPLES

VARIANTS = {
    "as given": {},
    "fp8": {"training": {"precision": "fp8"}},
    "lora": {"training": {"method": "lora"}},
    "bigger batch": {"training": {"global_batch_tokens": 8388608}},
    "h100": {"cluster": {"gpu": "h100-sxm"}},
    "h100 fp8": {"cluster": {"gpu": "h100-sxm"}, "training": {"precision": "fp8"}},
}


def _variant(raw, change):
    out = copy.deepcopy(raw)
    for section, fields in change.items():
        out.setdefault(section, {}).update(fields)
    return out


def _accepted(example: str, variant: str) -> bool:
    """A variant the answers take (fp8 needs FP8 tensor cores; DPO's post-training section needs its method)."""
    try:
        answers_from_mapping(_variant(load_mapping(EXAMPLES / example)[1], VARIANTS[variant]))
    except Exception:  # noqa: BLE001 - refused: not a case
        return False
    return True


CASES = [(p.name, v) for p in sorted(EXAMPLES.glob("*.yaml")) for v in VARIANTS if _accepted(p.name, v)]


@pytest.mark.parametrize("example, variant", CASES)
def test_no_option_at_any_count_costs_less_gpu_time_than_the_floor(example, variant):
    _name, raw = load_mapping(EXAMPLES / example)
    a = answers_from_mapping(_variant(raw, VARIANTS[variant]))
    floor = gpu_hours_floor(a)
    if floor is None:  # only where post-training's rollouts or a measured refit rescale the estimate
        assert a.training.method in ("dpo", "grpo", "ppo") or a.training.measured is not None, (example, variant)
        return
    counts = every_count(a)
    est, _ctx = estimate_all(a, counts)
    least = min(float(np.min(e.hours["mid"] * counts)) for e in est.values())
    assert floor <= least * (1 + 1e-9), (floor, least)
    assert floor >= 0.3 * least, (floor, least)  # a floor that proves something: within ~3x of the cheapest option


@pytest.mark.parametrize("example, variant", CASES)
@pytest.mark.parametrize("limits", [{"monthly_limit": 5000}])  # where the floor can prove a budget out of reach
def test_the_floor_never_changes_whether_an_option_meets_a_budget(example, variant, limits, monkeypatch):
    _name, raw = load_mapping(EXAMPLES / example)
    raw = _variant(raw, VARIANTS[variant])
    raw.setdefault("budget", {}).update(limits)
    a = answers_from_mapping(raw)
    quick = advice_module._any_option_meets(a, False, True)
    monkeypatch.setattr(advice_module, "gpu_hours_floor", lambda _a: None)
    assert advice_module._any_option_meets(a, False, True) == quick
