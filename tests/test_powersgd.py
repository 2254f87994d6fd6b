"""Issue 24 item 3: PyTorch DDP with PowerSGD gradient compression (ddp-powersgd) — its volume, memory and warm-up."""

from __future__ import annotations

from msgspec.structs import replace

import numpy as np
import pytest

from advisor.estimate.communication import Collective, exposed_communication, powersgd_volume
from advisor.estimate.memory import model_state_bytes
from advisor.estimate.workload import OVERLAP_BACKWARD, workload_from
from advisor.inputs.answers import answers_from_mapping
from advisor.knowledge.strategies import POWERSGD_RANK, POWERSGD_WARMUP_SHARE, powersgd_start_iter

from .conftest import MINIMAL, with_


def _workload(**model):
    return workload_from(answers_from_mapping(with_(MINIMAL, model=model)))


def _collective(seconds: float, overlap: str, calls: float = 1.0) -> Collective:
    one = np.ones(1)
    return Collective("c", "all-reduce", one, calls * one, 0 * one, 0 * one, seconds * one, overlap)


def test_each_phase_hides_behind_its_own_steps_backward_passes():
    """An uncompressed warm-up on 10% of the steps that cannot hide is not averaged away by compressed steps that can:
    with compute 1 s, the warm-up all-reduce of 3 s leaves 3 - 2/3 s exposed on each of its steps (0.1 of the run)."""
    compute = np.ones(1)
    warm, full = POWERSGD_WARMUP_SHARE, 3.0
    plan = [_collective((1 - warm) * 0.01, "backward", 1 - warm), _collective(warm * full, "warm-up", warm)]
    exposed = float(exposed_communication(plan, compute)[0])
    assert exposed == pytest.approx(warm * (full - OVERLAP_BACKWARD))
    # Averaging the two phases' seconds first would hide it all (0.3 + 0.009 s < 2/3 s of backward): the defect avoided.
    assert float(exposed_communication([_collective(warm * full + (1 - warm) * 0.01, "backward")], compute)[0]) == 0.0
    # Without a warm-up collective nothing changes for the other strategies.
    assert float(exposed_communication([_collective(1.0, "backward")], compute)[0]) == pytest.approx(1.0 - OVERLAP_BACKWARD)


def test_low_rank_volume_is_n_plus_m_times_r_per_matrix_and_1d_tensors_stay_whole():
    w = _workload(params="7B", layers=32, hidden_size=4096, attention_heads=32)
    v = powersgd_volume(w, POWERSGD_RANK)
    h, L = 4096.0, 32.0
    one_d = 13.0 * L * h + 2.0 * h
    assert v.uncompressed_elements == pytest.approx(one_d)  # every matrix of a 4096-wide model compresses at rank 4
    # Q, K, V, O: four h x h matrices a layer, (h + h)·r each, split evenly between P (n·r) and Q (m·r).
    attention = 4.0 * L * h * POWERSGD_RANK
    assert v.p_elements > attention and v.q_elements > attention
    assert v.full_elements == w.params
    assert v.share < 0.005  # 0.17%: rank 4 on 4096-wide matrices, plus the 1-D tensors
    # The hook's min_compression_rate: a rank as wide as the matrices compresses nothing, so all is sent whole.
    whole = powersgd_volume(w, 10**6)
    assert whole.p_elements == whole.q_elements == 0.0 and whole.share == pytest.approx(1.0, rel=0.02)


def test_memory_is_ddps_replica_plus_error_feedback_of_a_gradients_size():
    w = _workload(params="1.3B")
    n = np.array([64.0])
    ddp = model_state_bytes("ddp", w, n, np.ones(1), np.ones(1))
    psgd = model_state_bytes("ddp-powersgd", w, n, np.ones(1), np.ones(1))
    v = powersgd_volume(w, POWERSGD_RANK)
    assert float(psgd[0] - ddp[0]) == pytest.approx(w.grad_bytes * (w.params + v.p_elements + v.q_elements))
    fp32 = replace(w, grad_bytes=4.0)
    assert float(model_state_bytes("ddp-powersgd", fp32, n, np.ones(1), np.ones(1))[0] - ddp[0]) > 1.9 * float(psgd[0] - ddp[0])


@pytest.mark.parametrize(("steps", "start"), [(95_367, 9_537), (10, 2), (0.5, 2)])
def test_start_iter_is_a_tenth_of_the_steps_and_at_least_two(steps, start):
    assert powersgd_start_iter(steps) == start


def test_the_warm_up_is_priced_at_plain_ddps_speed():
    """The estimate's PowerSGD run is about 10% plain DDP steps and 90% compressed ones (issue 24: the uncompressed
    warm-up counted in the estimate), so on a network where DDP is slow it lies between them, nearer the compressed end."""
    from advisor.estimate import estimate_all

    answers = answers_from_mapping(with_(MINIMAL, model={"params": "1.3B"}, training={"tokens": "100B"}, cluster={"inter_node_gbps": 10}))
    est, _ = estimate_all(answers)
    ddp, psgd = float(est["ddp"].step_s["mid"][0]), float(est["ddp-powersgd"].step_s["mid"][0])
    compute = float(est["ddp"].compute_s[0])
    assert compute < psgd < ddp
    assert psgd >= POWERSGD_WARMUP_SHARE * ddp + (1 - POWERSGD_WARMUP_SHARE) * compute - 1e-9


def test_the_stated_convention_names_the_rank_and_warm_up_the_estimate_uses():
    from advisor.estimate.workload import ASSUMPTIONS

    text = next(a for a in ASSUMPTIONS if "PowerSGD" in a)
    assert f"rank-{POWERSGD_RANK}" in text and f"{POWERSGD_WARMUP_SHARE:.0%}" in text
