"""Megatron's gradient buffer is priced as advisor's Megatron files run it: fp32 under bf16 (Megatron-LM's default),
16-bit under fp16, and 16-bit where a published recipe reduces in bf16 (issue 32)."""

from __future__ import annotations

import numpy as np
import pytest
from msgspec.structs import replace

from advisor.estimate.communication import communication_plan
from advisor.estimate.memory import model_state_bytes
from advisor.estimate.model import hardware_from, workload_from
from advisor.inputs.answers import answers_from_mapping

from .conftest import MINIMAL, with_


def _w(precision: str):
    a = answers_from_mapping(with_(MINIMAL, model={"params": "7B"}, training={"precision": precision},
                                   cluster={"gpu": "h100-sxm", "gpus": 64}))
    return a, workload_from(a)


@pytest.mark.parametrize("precision, replicated, sharded", [
    # Megatron-LM docs/source/api-guide/dist_optimizer.md: 'bf16 param, fp32 grads 6 + 12/d', 'fp16 param, fp16 grads
    # 4 + 16/d', 'fp32 param, fp32 grads 8 + 8/d'. Before: 6 + 12/d whatever the precision.
    ("bf16", 6.0, 12.0), ("fp8", 6.0, 12.0), ("fp16", 4.0, 16.0), ("fp32", 8.0, 8.0),
])
def test_the_distributed_optimizer_keeps_megatrons_bytes_a_parameter(precision, replicated, sharded):
    _a, w = _w(precision)
    n, tp, pp = np.array([64.0]), np.array([1.0]), np.array([1.0])
    got = float(model_state_bytes("megatron-3d", w, n, tp, pp)[0])
    assert got == pytest.approx((replicated + sharded / 64.0) * w.params)


def test_a_recipe_that_reduces_in_bf16_keeps_4_plus_16_over_d():
    _a, w = _w("bf16")
    w = replace(w, main_grad_bytes=2.0)
    got = float(model_state_bytes("megatron-3d", w, np.array([64.0]), np.array([1.0]), np.array([1.0]))[0])
    assert got == pytest.approx((4.0 + 16.0 / 64.0) * w.params)


def test_an_optimizer_kept_in_bf16_holds_its_master_copy_and_moments_at_two_bytes():
    """Apex DistributedFusedAdam at dtype=bf16, grad_sync_dtype=bf16 (NeMo-Framework-Launcher conf/peft/llama/sft.yaml):
    16-bit weights and gradient buffer replicated, a bf16 master copy and two bf16 moments sharded: 4 + 6/d bytes a
    parameter, against the default distributed optimizer's 6 + 12/d (fp32 master and moments)."""
    _a, w = _w("bf16")
    n, one = np.array([64.0]), np.array([1.0])
    default = float(model_state_bytes("megatron-3d", w, n, one, one)[0])
    bf16 = float(model_state_bytes("megatron-3d", replace(w, optimizer_state_bytes=2.0, main_grad_bytes=2.0), n, one, one)[0])
    assert default == pytest.approx((6.0 + 12.0 / 64.0) * w.params)
    assert bf16 == pytest.approx((4.0 + 6.0 / 64.0) * w.params)
    # Without data parallelism nothing is sharded: 18 bytes a parameter become 10 (a 70B at TP4 x PP4: 78.8 -> 43.8 GB).
    alone = replace(w, optimizer_state_bytes=2.0, main_grad_bytes=2.0)
    assert float(model_state_bytes("megatron-3d", alone, one, one, one)[0]) == pytest.approx(10.0 * w.params)


def test_megatrons_gradient_reduce_scatter_moves_fp32_gradients_under_bf16():
    # Before: the reduce-scatter moved 2 bytes a parameter while the memory counted a 4-byte gradient buffer.
    a, w = _w("bf16")
    hw = hardware_from(a)
    n, one = np.array([64.0]), np.array([1.0])
    plan = {c.name: c for c in communication_plan("megatron-3d", w, hw, n, one, one, one, one)}
    scatter = plan["data-parallel gradient reduce-scatter"]
    gather = plan["data-parallel parameter all-gather"]
    assert float(scatter.payload[0]) == pytest.approx(4.0 * w.params)
    assert float(gather.payload[0]) == pytest.approx(2.0 * w.params)
    halved = {c.name: c for c in communication_plan("megatron-3d", replace(w, main_grad_bytes=2.0), hw, n, one, one, one, one)}
    assert float(halved["data-parallel gradient reduce-scatter"].payload[0]) == pytest.approx(2.0 * w.params)
