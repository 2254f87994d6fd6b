"""Issue 32: the model's named terms that make it hold on runs nobody tuned it to (accumulation overlap, context and
tensor parallelism, FP8 per recipe, PEFT memory, logits), each checked against the behaviour its source describes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from advisor.estimate import estimate_all
from advisor.estimate.communication import OVERLAP_BACKWARD
from advisor.inputs.answers import answers_from_mapping

from .conftest import MINIMAL, with_


def _answers(**sections):
    return answers_from_mapping(with_(MINIMAL, **sections))


@pytest.mark.parametrize("strategy", ["ddp", "deepspeed-zero1"])
def test_accumulated_gradient_reduction_hides_behind_the_last_micro_batch_only(strategy):
    """DDP's no_sync (and ZeRO-1's accumulation boundary) reduce gradients once per step, in the last micro-batch's
    backward: the term (communication.LAST_BACKWARD) hides such a reduction behind compute / accumulation (issue 32:
    16 nodes on 25 Gbit/s showed '3% exposed' where the real step is ~58% longer). Held back while the layout search
    mispriced large scale; with the collectives' ring latency (communication.NCCL_PROTOCOLS) it holds the full-run guards."""
    from advisor.estimate.communication import LAST_BACKWARD, exposed_communication

    compute = np.array([10.0])
    assert float(exposed_communication([_plan(3.0, LAST_BACKWARD)], compute, 16.0)[0]) == pytest.approx(3.0 - OVERLAP_BACKWARD * 10.0 / 16.0)
    assert float(exposed_communication([_plan(3.0, LAST_BACKWARD)], compute, 1.0)[0]) == pytest.approx(max(0.0, 3.0 - OVERLAP_BACKWARD * 10.0))
    a = _answers(model={"params": "7B"}, training={"tokens": 1e11, "micro_batch_size": 1},
                 cluster={"gpu": "a100-80gb", "gpus": 128, "inter_node_gbps": 25})
    e = estimate_all(a)[0][strategy]
    acc = float(e.accumulation[0])
    assert acc >= 8
    last = OVERLAP_BACKWARD * float(e.compute_s[0]) / acc
    assert float(e.exposed_comm_s[0]) == pytest.approx(max(0.0, float(e.comm_s[0]) - last), rel=1e-6)
    assert float(e.exposed_comm_s[0]) > float(e.comm_s[0]) - OVERLAP_BACKWARD * float(e.compute_s[0])


def test_megatron_step_floor_stays_under_the_step_with_accumulation():
    """The layout search's floor (model._step_floor) hides the gradient all-reduce behind the last micro-batch's
    backward too, so the floor never exceeds the step it bounds."""
    from advisor.estimate import model

    a = _answers(model={"params": "13B"}, training={"tokens": 1e11},
                 cluster={"gpu": "a100-80gb", "gpus": 128, "inter_node_gbps": 25})
    e = estimate_all(a)[0]["megatron-3d"]
    w, hw = model.workload_from(a), model.hardware_from(a)
    floor = model._step_floor("megatron-3d", w, hw, e.gpus, e.tp, e.pp, e.vpp, e.recompute_code, e.micro_batch, e.cp)
    assert np.all(floor <= e.step_s["mid"] * (1 + 1e-9))


LLAMA3_8B = {"params": "8.03B", "layers": 32, "hidden_size": 4096, "attention_heads": 32, "kv_heads": 8, "vocab_size": 128256,
             "seq_len": 2048}
"""Llama 3 8B (arXiv:2407.21783 Table 3; vocabulary 128,256)."""


def _lora_8b(gpu: str) -> object:
    # The measured run: micro-batch 4 at 2,048 tokens, Hugging Face Trainer without gradient checkpointing. Its
    # adapters are not stated; rank 16 on every linear layer is one of the two settings for which advisor printed the
    # issue's 55.2 GB before this change (the other, rank 64 on q/v, is modelled at 74 GB: see the report).
    return _answers(model=LLAMA3_8B,
                    training={"method": "lora", "lora_rank": 16, "lora_targets": "all-linear", "tokens": 1e8,
                              "micro_batch_size": 4, "global_batch_tokens": 16 * 2048, "activation_recompute": "none"},
                    cluster={"gpu": gpu, "gpus": 1})


def test_an_8b_lora_that_peaked_at_86_gb_is_not_said_to_fit_80_gb():
    """Measured on one H200 (issue 32): 86.3 GB peak where advisor said 55.2 GB and 'fits 80 GB'. The eager stack's saved
    tensors (fp32 RMSNorm inputs, SDPA's q/k/v/out, SwiGLU's operands, the adapted layers' inputs) and the loss's logits
    (bf16 + fp32 log-probabilities + fp32 gradients over 128,256 entries) are now counted."""
    on_h200 = estimate_all(_lora_8b("h200"))[0]["ddp"]
    assert 80.0 < float(on_h200.memory[0]) / 1e9 < 95.0
    on_80gb = estimate_all(_lora_8b("h100-sxm"))[0]["ddp"]
    assert not bool(on_80gb.fits[0])


def test_frozen_layers_keep_no_inputs_under_lora():
    """PEFT: a frozen linear layer saves no input for a weight gradient, so q/v adapters keep less than every linear
    layer trained, on both stacks."""
    from advisor.estimate import activation_bytes, workload_from
    from msgspec.structs import replace

    qv = workload_from(_answers(model=LLAMA3_8B, training={"method": "lora", "lora_targets": "qv", "tokens": 1e8}))
    every = replace(qv, lora_targets="all-linear")
    for stack in ("eager", "fused"):
        assert activation_bytes(replace(qv, stack=stack), "none") < activation_bytes(replace(every, stack=stack), "none")
    pretrain = workload_from(_answers(model=LLAMA3_8B))
    assert pretrain.stack == "fused" and qv.stack == "eager"
    assert activation_bytes(replace(every, stack="fused"), "none") == activation_bytes(pretrain, "none")


def test_context_parallelism_is_searched_from_16k_tokens_where_the_full_runs_hold():
    """Searched from 8K, CP2 made Meta's published full runs (CP1 at 8K) more optimistic than the 15% guard allows
    (layout.CONTEXT_PARALLEL_FROM says the measured figures): CP is tried from 16K, and its exchange is priced."""
    from advisor.estimate import model

    a = _answers(model={"params": "405B", "seq_len": 16384}, training={"global_batch_tokens": 16 * 2**20},
                 cluster={"gpu": "h100-sxm", "gpus": 1024})
    layouts = model._layouts(model.workload_from(a), model.hardware_from(a))
    assert any(cp == 2 for _tp, cp, _pp, _v in layouts)
    shorter = _answers(model={"params": "405B", "seq_len": 8192}, training={"global_batch_tokens": 16 * 2**20},
                       cluster={"gpu": "h100-sxm", "gpus": 1024})
    assert all(cp == 1 for _tp, cp, _pp, _v in model._layouts(model.workload_from(shorter), model.hardware_from(shorter)))


def _plan(seconds: float, overlap: str):
    from advisor.estimate.communication import Collective

    one = np.ones(1)
    return Collective("x", "send/recv", one, one, one, one, seconds * one, overlap)


def test_the_kv_exchange_hides_only_under_attention():
    """Ring attention overlaps each K/V transfer with the attention of the chunk already received (TransformerEngine
    AttnFuncWithCPAndKVP2P), not with the whole layer: at 8K, where attention is a small share of the FLOPs, the
    exchange shows."""
    from advisor.estimate.communication import ATTENTION, exposed_communication

    compute, attention = np.array([10.0]), np.array([2.0])
    assert float(exposed_communication([_plan(3.0, ATTENTION)], compute, 1.0, attention)[0]) == pytest.approx(1.0)
    assert float(exposed_communication([_plan(1.5, ATTENTION)], compute, 1.0, attention)[0]) == 0.0


def test_tensor_parallel_overlap_is_a_property_of_the_layout():
    """With Megatron's --tp-comm-overlap / torchtitan's AsyncTP (NVLink Hopper and newer) the TP collectives hide behind
    (TP-1)/TP of the linear layers; without it (A100, as Megatron-LM 2021 ran) they stay on the critical path."""
    from advisor.estimate.communication import TENSOR_OVERLAP, exposed_communication

    compute, gemm = np.array([10.0]), np.array([7.0])
    assert float(exposed_communication([_plan(3.0, TENSOR_OVERLAP)], compute, 1.0, 0.0, gemm)[0]) == 0.0
    assert float(exposed_communication([_plan(3.0, "none")], compute, 1.0, 0.0, gemm)[0]) == pytest.approx(3.0)

    def tp_overlap(gpu):
        a = _answers(model={"params": "70B"}, training={"tokens": 1e11}, cluster={"gpu": gpu, "gpus": 64})
        e = estimate_all(a)[0]["megatron-3d"]
        return {c.name: c.overlap for c in e.collectives}["tensor-parallel all-reduce"]

    # advisor's own Megatron files run without --tp-comm-overlap: their plans are priced with the collectives exposed.
    assert tp_overlap("h100-sxm") == "none" and tp_overlap("a100-80gb") == "none"


def test_mi300x_may_train_in_fp8():
    """CDNA3 has FP8 matrix cores (MI300X: 2,614.9 TFLOPS FP8 dense, twice its bf16): fp8 was refused as 'no FP8 tensor
    cores'."""
    a = _answers(model={"params": "70B"}, training={"tokens": 1e11, "precision": "fp8"}, cluster={"gpu": "mi300x", "gpus": 64})
    fp8 = estimate_all(a)[0]["fsdp"]
    bf16 = estimate_all(_answers(model={"params": "70B"}, training={"tokens": 1e11}, cluster={"gpu": "mi300x", "gpus": 64}))[0]["fsdp"]
    assert float(fp8.compute_s[0]) < float(bf16.compute_s[0])


def test_fp8_speeds_the_linear_layers_only_per_recipe():
    """FP8 runs the linear layers (Float8Linear, te.Linear); attention stays bf16. A flat x1.28 gave a 256K-token job,
    mostly attention, the gain of an 8K one. The recipe's measured speedup is reproduced at its own measurement point."""
    from msgspec.structs import replace

    from advisor.estimate.workload import FP8_RECIPES, FP8_SPEEDUP, fp8_time_factor, workload_from

    short = workload_from(_answers(model={**LLAMA3_8B, "seq_len": 8192}, training={"precision": "fp8"},
                                   cluster={"gpu": "h100-sxm", "gpus": 8}))
    # torchtitan Table 1's shape: two sequences of 8,192 a GPU (16 over 8 GPUs)
    assert 1.0 / fp8_time_factor(short, tokens=16384.0) == pytest.approx(FP8_SPEEDUP, rel=0.01)
    long = replace(short, seq_len=262144)
    assert 1.0 / fp8_time_factor(long) < 1.05
    blackwell = workload_from(_answers(model=LLAMA3_8B, training={"precision": "fp8"}, cluster={"gpu": "b200", "gpus": 8}))
    assert blackwell.fp8_default == "mxfp8" and short.fp8_default == "tensorwise"
    assert FP8_RECIPES["mxfp8"].gemm_speedup < FP8_RECIPES["tensorwise"].gemm_speedup


def test_the_range_is_the_measured_residual_and_the_deadline_is_judged_on_its_upper_end():
    """The stated range comes from published runs of this kind (data/residuals.yaml, written by bench/heldout.py), is said
    in one sentence in the summary and the memo, and a deadline the point estimate meets but the upper end misses is
    not 'met'."""
    from advisor.decision.advice import advise
    from advisor.estimate import deadline_hours, stated_range
    from advisor.knowledge.rules import load_rules
    from advisor.outputs.render import to_markdown, to_text

    base = {"model": {"params": "7B"}, "training": {"tokens": 1e11}, "cluster": {"gpu": "h100-sxm", "gpus": 64}}
    a = _answers(**base)
    r = stated_range(a)
    assert r is not None and 0.05 < r.within < 1.0 and r.runs >= 20
    advice = advise(a, load_rules())
    e = advice.to_dict()["estimate"]
    assert e["range"]["wall_clock_hours"][1] == pytest.approx(e["wall_clock_hours"] * r.factor)
    sentence = f"within ±{round(100 * r.within)}%"
    assert sentence in to_text(advice) and sentence in to_markdown(advice)
    # A deadline between the point and the upper end: the point would meet it, the range's upper end does not.
    days = e["wall_clock_hours"] * (1 + r.within / 2) / 24.0
    tight = _answers(**{**base, "training": {"tokens": 1e11, "deadline_days": days}, "cluster": {"gpu": "h100-sxm", "gpus": 64, "max_gpus": 64}})
    assert deadline_hours(tight) == pytest.approx(days * 24.0 / r.factor)
    assert advise(tight, load_rules()).plan.deadline_met is False


def test_a_measured_run_keeps_its_calibrated_range():
    """A known duration calibrates the estimate: the model's residual no longer applies, and no range sentence is said."""
    from advisor.estimate import stated_range

    a = _answers(model={"params": "7B"}, training={"duration_hours": 100, "current_strategy": "fsdp"},
                 cluster={"gpu": "h100-sxm", "gpus": 64})
    assert stated_range(a) is None


def test_every_held_out_row_is_sourced_and_the_residuals_are_generated_from_them():
    """bench/heldout_runs.yaml: every row names a family whose source says where its figure was read; the stated range
    (data/residuals.yaml) names the bench that writes it."""
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    data = yaml.safe_load((root / "bench" / "heldout_runs.yaml").read_text(encoding="utf-8"))
    assert len(data["rows"]) >= 40
    for row in data["rows"]:
        family = data["families"][row["family"]]
        assert family["source"] and row["published"] > 0 and row["shape"] in data["shapes"], row["name"]
    residuals = yaml.safe_load((root / "src" / "advisor" / "data" / "residuals.yaml").read_text(encoding="utf-8"))
    assert "bench/heldout.py --write-residuals" in residuals["source"]
    assert set(residuals["kinds"]) == {"pretrain", "moe", "finetune"}


def test_a_mixture_of_experts_gets_the_range_its_own_published_runs_show():
    """Published MoE pre-training runs land far wider of the model than dense ones (bench/heldout.py: the Megatron-Bridge
    MoE rows at 1.2-5x): a dense model's range would understate a MoE plan's."""
    from advisor.estimate import stated_range
    from advisor.estimate.residuals import job_kind

    moe = _answers(model={"params": "47B", "active_params": "13B", "experts": 8}, training={"tokens": 1e11},
                   cluster={"gpu": "h100-sxm", "gpus": 64})
    dense = _answers(model={"params": "47B"}, training={"tokens": 1e11}, cluster={"gpu": "h100-sxm", "gpus": 64})
    assert job_kind(moe) == "moe" and job_kind(dense) == "pretrain"
    assert stated_range(moe).within > stated_range(dense).within


def test_megatron_plans_run_fp8_at_transformer_engines_measured_speedup():
    """Issue 32 cause 1: FP8 was priced at torchao's compiled-step gain everywhere, capping Hopper FP8 near 0.6 of the
    bf16 peak where NVIDIA's TransformerEngine runs reach 0.75-0.9. TE fuses its casts, so its linear layers run at the
    products' own measured speedup (workload.TE_GEMM_SPEEDUP, 1.81 on one H200); advisor's Megatron files run TE
    (--fp8-format hybrid), the FSDP/DeepSpeed plans torchao's recipe. A stated recipe wins over either."""
    from msgspec.structs import replace

    from advisor.estimate.workload import FP8_RECIPES, TE_GEMM_SPEEDUP, fp8_recipe_of, fp8_time_factor, workload_from

    w = workload_from(_answers(model={**LLAMA3_8B, "seq_len": 8192}, training={"precision": "fp8"},
                               cluster={"gpu": "h100-sxm", "gpus": 8}))
    assert fp8_recipe_of(w, megatron=True) == "te" and fp8_recipe_of(w) == "tensorwise"
    assert 1.75 < TE_GEMM_SPEEDUP < 1.9 and FP8_RECIPES["te"].gemm_speedup == TE_GEMM_SPEEDUP
    assert fp8_time_factor(w, megatron=True) < fp8_time_factor(w)
    stated = replace(w, fp8_recipe="tensorwise")
    assert fp8_recipe_of(stated, megatron=True) == "tensorwise"
    assert fp8_recipe_of(replace(w, fp8_recipe="current")) == "te"  # TE's current scaling ('FP8-CS')
    e = estimate_all(_answers(model={**LLAMA3_8B, "seq_len": 8192}, training={"precision": "fp8", "tokens": 1e11},
                              cluster={"gpu": "h100-sxm", "gpus": 64}))[0]
    bf16 = estimate_all(_answers(model={**LLAMA3_8B, "seq_len": 8192}, training={"tokens": 1e11},
                                 cluster={"gpu": "h100-sxm", "gpus": 64}))[0]
    gain = {s: float(bf16[s].compute_s[0]) / float(e[s].compute_s[0]) for s in ("megatron-3d", "fsdp")}
    assert gain["megatron-3d"] > gain["fsdp"] > 1.2


def test_async_tp_overlaps_the_forward_collectives_only():
    """PyTorch's AsyncTP post measured ~29% forward and ~8% end-to-end on Llama 3 8B: what hiding the forward pass's
    tensor-parallel collectives alone gives (communication.ASYNC_TP_FORWARD_SHARE). Pricing both passes as hidden made
    torchtitan's async-TP rows 1.42-2.27x their published speed. Megatron's userbuffers overlap both."""
    from msgspec.structs import replace

    from advisor.estimate import model
    from advisor.estimate.communication import ASYNC_TP_FORWARD_SHARE, TENSOR_OVERLAP, communication_plan

    a = _answers(model={"params": "70B"}, training={"tokens": 1e11}, cluster={"gpu": "h100-sxm", "gpus": 64})
    w, hw = model.workload_from(a), model.hardware_from(a)
    n, tp, pp, mb, acc = (np.array([64.0]), np.array([8.0]), np.array([2.0]), np.array([1.0]), np.array([4.0]))

    def tp_seconds(h):
        plan = communication_plan("megatron-3d", w, h, n, tp, pp, mb, acc, np.array([1.0]), 1.0)
        return {(c.name, c.overlap): float(c.seconds[0]) for c in plan if c.name.startswith("tensor-parallel")}

    vanilla = tp_seconds(replace(hw, tp_overlap=False))
    both = tp_seconds(replace(hw, tp_overlap=True))
    forward = tp_seconds(replace(hw, tp_overlap=True, tp_overlap_forward_only=True))
    total = sum(vanilla.values())
    assert sum(both.values()) == pytest.approx(total) and sum(forward.values()) == pytest.approx(total)
    assert both[("tensor-parallel all-reduce", TENSOR_OVERLAP)] == pytest.approx(total)
    assert forward[("tensor-parallel all-reduce", TENSOR_OVERLAP)] == pytest.approx(ASYNC_TP_FORWARD_SHARE * total)
    assert forward[("tensor-parallel all-reduce (backward)", "none")] == pytest.approx((1 - ASYNC_TP_FORWARD_SHARE) * total)


def test_a_72_gpu_gb200_node_keeps_each_gpus_nic():
    """The catalog tells GB200 users to set gpus_per_node to 72 (one NVLink domain); the rack then shared one 8-GPU
    node's 3,200 Gb/s, 44 Gb/s per GPU. Each GPU has its own 400 Gb/s NIC (catalog network_gbps_per_gpu)."""
    from advisor.estimate import hardware_from

    tray = _answers(model={"params": "70B"}, cluster={"gpu": "gb200", "gpus": 144})
    rack = _answers(model={"params": "70B"}, cluster={"gpu": "gb200", "gpus": 144, "gpus_per_node": 72})
    assert rack.cluster.network_gbps == 72 * 400
    assert hardware_from(rack).inter_bw_per_gpu == pytest.approx(hardware_from(tray).inter_bw_per_gpu)


@pytest.mark.parametrize("gpu, mib", [("h100-sxm", 81_559), ("h200", 143_771), ("a100-80gb", 81_920), ("b200", 183_359)])
def test_capacity_is_what_the_driver_reports_not_the_datasheets_round_gb(gpu, mib):
    """HBM is sized in GiB and named in GB: an '80 GB' H100 holds 81,559 MiB = 85.5 GB (catalog.MEMORY_MIB_SOURCE). The
    H200 lent to issue 32 gave torch 150.1 GB where the datasheet names 141."""
    from advisor.knowledge.catalog import gpu_catalog

    spec = gpu_catalog()[gpu]
    assert spec.capacity_gb == pytest.approx(mib * 2**20 / 1e9)
    assert spec.capacity_gb > 1.06 * spec.memory_gb


def test_nemos_70b_sft_at_tp4_pp4_fits_the_h100s_it_ran_on():
    """NeMo 24.07 published Llama 2 70B SFT on 16 H100s at TP4 PP4 (bench/heldout_runs.yaml nemo-24.07-h100-finetune),
    run by NVIDIA's NeMo-Framework-Launcher example (examples/peft/llama/h100/70b_2node.sh: VP 20, no recomputation in
    conf/peft/llama/sft.yaml, whose Apex DistributedFusedAdam keeps its state and gradients in bf16). advisor had priced
    the run with fp32 optimizer state and no interleaving: 80.9 GB, so it recomputed every layer (0.69 of the published
    tokens/s). At the recipe's state it fits without recomputation, as the run did."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "heldout.py"
    spec = importlib.util.spec_from_file_location("heldout", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    data = yaml.safe_load(bench.HELDOUT.read_text())
    data["rows"] = [r for r in data["rows"] if r["name"] == "LLAMA2-70B SFT 16 GPUs TP4 PP4"]
    [row] = data["rows"]
    assert row["layout"] == [4, 1, 4, 20] and row["optimizer_state"] == "bf16" and row["grad_reduce"] == "bf16"
    [sft] = bench.heldout_rows(data)
    assert sft["fits"] and sft["memory_gb"] < 85.5
    assert sft["rc"] == "none" and sft["vpp"] == 20.0
    assert 0.75 <= sft["ratio"] <= 1.33


def test_a_custom_gpu_keeps_the_memory_it_is_given():
    custom = _answers(cluster={"gpu": {"memory_gb": 48, "peak_tflops": 300}, "gpus": 8})
    assert custom.cluster.spec.capacity_gb == 48


def _moe_on(gpu_count: int = 64):
    return _answers(model={"params": "235B", "active_params": "22B", "experts": 128, "experts_per_token": 8, "layers": 94,
                           "hidden_size": 4096, "attention_heads": 64, "kv_heads": 4},
                    training={"tokens": 1e11, "global_batch_tokens": 2048 * 4096},
                    cluster={"gpu": "h100-sxm", "gpus": gpu_count})


def _expert_collective(hw_fields: dict):
    from msgspec.structs import replace

    from advisor.estimate import hardware_from, workload_from
    from advisor.estimate.communication import communication_plan

    a = _moe_on()
    w, hw = workload_from(a), replace(hardware_from(a), **hw_fields)
    one = np.ones(1)
    plan = communication_plan("megatron-3d", w, hw, 256 * one, 2 * one, 8 * one, one, 4 * one, one, one)
    return next(c for c in plan if c.name == "expert all-to-all")


def test_the_expert_all_to_all_waits_on_the_critical_path_unless_the_layout_overlaps_it():
    """Issue 32 (MoE rows 1.2-6.5x optimistic): dispatch feeds the experts and combine the next layer, so the plain
    alltoall dispatcher — the one advisor's Megatron files pass — hides nothing; DualPipe or Megatron-Core's
    --overlap-moe-expert-parallel-comm hide it behind another micro-batch's computation."""
    from advisor.estimate.communication import EXPERT_OVERLAPPED

    assert _expert_collective({}).overlap == "none"
    assert _expert_collective({"ep_overlap": True}).overlap == EXPERT_OVERLAPPED


def test_deepep_sends_a_token_once_per_destination_node():
    """A token's 8 experts over N nodes reach N (1 - (1 - 1/N)^8) distinct nodes (5.25 of 8), (N-1)/N of them remote:
    DeepEP crosses the network that often where the plain all-to-all sends one copy per expert on another node,
    8 (EP - local)/EP with ``local`` the EP ranks of a node (communication.EXPERT_A2A_SPLIT)."""
    from advisor.estimate import hardware_from, workload_from
    from advisor.estimate.communication import distinct_destinations
    from advisor.estimate.layout import expert_degree

    assert float(distinct_destinations(8, 8)) == pytest.approx(5.25, abs=0.01)
    a = _moe_on()
    ep = float(expert_degree("megatron-3d", workload_from(a), np.array([256.0]), np.array([16.0]), 8)[0])
    nodes = ep * 2 / hardware_from(a).gpus_per_node
    assert nodes > 1
    plain, deepep = _expert_collective({}), _expert_collective({"ep_dedup": True})
    ratio = float(deepep.inter_bytes[0] / plain.inter_bytes[0])
    local = hardware_from(a).gpus_per_node / 2  # EP ranks per node at TP2
    assert ratio == pytest.approx(float(distinct_destinations(nodes, 8)) * (nodes - 1) / nodes / (8 * (ep - local) / ep), rel=1e-6)
    assert ratio < 0.8


def test_a_ring_collective_pays_nccls_latency_per_step():
    """NCCL's own cost model (tuning.cc): a ring all-gather over n ranks on N nodes is baseLat + (n - N) intra hops +
    (N - 1) network hops — on Simple 8.4 + 3.4 (n - N) + 9.6 (N - 1) us. Over 2,048 H100s that is 8.5 ms a call,
    whatever its size: why FSDP / ZeRO-3 over every GPU stop scaling (Ultra-Scale Playbook: 'bound by ring latency')."""
    from advisor.estimate import hardware_from
    from advisor.estimate.communication import nccl_seconds

    hw = hardware_from(_answers(cluster={"gpu": "h100-sxm", "gpus": 2048}))
    one = np.ones(1)
    simple = 8.4e-6 + 3.4e-6 * (2048 - 256) + 9.6e-6 * 255
    assert simple == pytest.approx(8.5e-3, rel=0.01)
    # A large message rides Simple at full bandwidth: the latency adds to, never replaces, the bytes' time.
    assert float(nccl_seconds("all-gather", 2048 * one, 8 * one, hw, 1.0 * one, one)[0]) == pytest.approx(1.0 + simple)
    # A small one takes LL's lower latency at a quarter of the bandwidth, as NCCL would.
    ll = 3.6e-6 + 0.47e-6 * (2048 - 256) + 2.7e-6 * 255
    assert float(nccl_seconds("all-gather", 2048 * one, 8 * one, hw, 1e-4 * one, one)[0]) == pytest.approx(ll + 4e-4)
    assert float(nccl_seconds("all-gather", 2048 * one, 8 * one, hw, 0.0 * one, one)[0]) == pytest.approx(ll)
    assert float(nccl_seconds("all-gather", one, one, hw, 0.0 * one, one)[0]) == 0.0


def test_fsdp_over_two_thousand_gpus_waits_on_its_per_layer_gathers():
    """Each FSDP unit (one transformer block) is gathered forward and backward and its gradients reduce-scattered: 3 x
    layers NCCL calls per micro-batch, each paying the ring's latency over all ranks."""
    a = _answers(model={"params": "70B"}, training={"tokens": 1e11, "global_batch_tokens": 2048 * 4096},
                 cluster={"gpu": "h100-sxm", "gpus": 2048})
    e = estimate_all(a)[0]["fsdp"]
    gather = next(c for c in e.collectives if c.name.startswith("parameter all-gather"))
    from advisor.estimate import hardware_from, workload_from
    from advisor.estimate.communication import nccl_seconds

    w, hw = workload_from(a), hardware_from(a)
    one = np.ones(1)
    per_call = float(nccl_seconds("all-gather", 2048 * one, 8 * one, hw, 0.0 * one, one)[0])  # the cheapest latency (LL)
    assert float(gather.seconds[0]) > 2 * float(e.accumulation[0]) * w.shape.layers * per_call


def test_megatron_overlaps_pipeline_sends_in_the_interleaved_steady_phase_only():
    """Megatron-LM overlaps pipeline sends with compute by default in the interleaved schedule (overlap_p2p_comm), but
    not in its warm-up and flush: rank 0 warms up over 2(p - 1) + (v - 1) p of its m x v chunks."""
    from advisor.estimate import hardware_from, workload_from
    from advisor.estimate.communication import communication_plan

    a = _answers(model={"params": "70B"}, training={"tokens": 1e11}, cluster={"gpu": "h100-sxm", "gpus": 256})
    w, hw = workload_from(a), hardware_from(a)
    one = np.ones(1)

    def sends(v: float, m: float):
        plan = communication_plan("megatron-3d", w, hw, 256 * one, 4 * one, 8 * one, one, m * one, v * one, one)
        return {c.overlap: float(c.seconds[0]) for c in plan if c.name.startswith("pipeline send/recv")}

    plain = sends(1.0, 64.0)
    assert plain["compute"] == 0.0 and plain["none"] > 0.0
    interleaved = sends(4.0, 64.0)
    steady = (64 * 4 - (2 * 7 + 3 * 8)) / (64 * 4)
    total = interleaved["compute"] + interleaved["none"]
    assert interleaved["compute"] / total == pytest.approx(steady)


def test_megatrons_distributed_optimizer_reduce_scatters_then_gathers():
    """--use-distributed-optimizer reduce-scatters the gradients in the last backward (--overlap-grad-reduce) and
    all-gathers the updated parameters in the next first forward (--overlap-param-gather): half an all-reduce each,
    and advisor's Megatron files pass all three flags."""
    from advisor.estimate.communication import FIRST_FORWARD, LAST_BACKWARD

    a = _answers(model={"params": "13B"}, training={"tokens": 1e11}, cluster={"gpu": "a100-80gb", "gpus": 128})
    e = estimate_all(a)[0]["megatron-3d"]
    kinds = {c.name: (c.kind, c.overlap) for c in e.collectives if c.name.startswith("data-parallel")}
    assert kinds == {"data-parallel gradient reduce-scatter": ("reduce-scatter", LAST_BACKWARD),
                     "data-parallel parameter all-gather": ("all-gather", FIRST_FORWARD)}


def test_transformer_engine_fp8_keeps_linear_inputs_in_one_byte():
    """TransformerEngine's Linear saves the FP8-quantized input for the weight gradient (pytorch/module/linear.py:
    'saved_inputmat = inputmat' under fp8): of 34sbh per layer, the QKV and first-MLP inputs go 2 -> 1 and the second MLP
    input 8 -> 4, while o_proj's input gains an FP8 copy beside the attention kernel's bf16 one (+1): 29sbh. torchao's
    Float8Linear saves its bf16 inputs, so advisor's own FSDP plans keep 34."""
    from msgspec.structs import replace

    from advisor.estimate import workload_from
    from advisor.estimate.memory import activation_bytes

    a = _answers(model={"params": "70B"}, training={"tokens": 1e11, "precision": "fp8"}, cluster={"gpu": "h100-sxm", "gpus": 64})
    w = workload_from(a)
    bf16 = activation_bytes(replace(w, fp8=False), "selective", 8.0, seq_parallel=True)
    te = activation_bytes(w, "selective", 8.0, seq_parallel=True)  # Megatron: TransformerEngine's recipe
    assert float(te) == pytest.approx(float(bf16) * 29.0 / 34.0)
    torchao = activation_bytes(w, "selective", 1.0, seq_parallel=False)  # FSDP: torchao's tensorwise by default
    assert float(torchao) == pytest.approx(float(activation_bytes(replace(w, fp8=False), "selective", 1.0, seq_parallel=False)))
    stated = activation_bytes(replace(w, fp8_recipe="current"), "selective", 1.0, seq_parallel=False)  # Megatron-FSDP on TE
    assert float(stated) < float(torchao)


def _bench(name: str):
    """A module of bench/ (not a package), imported with bench/ on the path as its own scripts run."""
    import importlib
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench"
    sys.path.insert(0, str(bench))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(bench))


def test_a_held_out_row_is_priced_at_its_published_expert_and_virtual_stage_degrees():
    """bench/heldout.py prices each row at the configuration that was measured: advisor's own EP (gcd of the
    data-parallel ranks and the experts) put Megatron-Bridge's B200 GPT-OSS-120B row at EP64, across nodes, where the
    run used EP8 inside one; and the layout search picked its own interleaving depth where the row names VP."""
    heldout = _bench("heldout")
    data = yaml.safe_load(heldout.HELDOUT.read_text(encoding="utf-8"))
    rows = {r["name"]: r for r in data["rows"]}
    gpt_oss = rows["B200 GPT-OSS-120B 64 GPUs BF16 EP8"]
    assert gpt_oss["ep"] == 8
    priced = {r["name"]: r for r in heldout.heldout_rows({**data, "rows": [gpt_oss, rows["Qwen3-235B BF16 TP2 PP8 VPP4 EP32 DeepEP"]]})}
    assert priced["B200 GPT-OSS-120B 64 GPUs BF16 EP8"]["ep"] == 8.0
    assert priced["Qwen3-235B BF16 TP2 PP8 VPP4 EP32 DeepEP"]["ep"] == 32.0
    assert priced["Qwen3-235B BF16 TP2 PP8 VPP4 EP32 DeepEP"]["vpp"] == 4.0
    # NeMo AutoModel's GPT-OSS 120B row leaves its EP cell '-'; the config its page links sets ep_size 64, and the row
    # had been priced at advisor's EP8 where the run spread the experts over all 64. At EP8 (1.64 of the published
    # tokens/s since its round-robin gate is priced: test_held_out_moe_rows_are_priced_at_the_routing_their_runs_used)
    # the experts' weights crowd each GPU; at EP64 the row is priced as it ran, and nearer the published figure.
    automodel = rows["GPT-OSS 120B 64 GPUs FSDP64"]
    assert automodel["ep"] == 64 and "ep_size: 64" in automodel["ep_source"] and automodel["recompute"] == "none"
    [oss] = heldout.heldout_rows({**data, "rows": [automodel]})
    [at_ep8] = heldout.heldout_rows({**data, "rows": [{k: v for k, v in automodel.items() if k != "ep"}]})
    assert oss["ep"] == 64.0 and at_ep8["ep"] == 8.0
    assert abs(math.log(oss["ratio"])) < abs(math.log(at_ep8["ratio"])) - 0.15


def test_a_held_out_full_run_is_priced_at_the_layout_its_source_states():
    """bench/heldout_fullruns.yaml: a whole pre-training whose paper, card or stored config states its TP x PP,
    micro-batch or recomputation is priced at them (fidelity.run_layout, answers_for), with the quote that says so; the
    full runs had all run at advisor's own layout search (StarCoder at TP2 x PP2 interleaved where its paper says TP4 x
    PP4, StableLM-3B-4E1T without the recomputation its GPT-NeoX config turns on)."""
    fidelity, heldout = _bench("fidelity"), _bench("heldout")
    scenarios = yaml.safe_load(heldout.FULL_RUNS.read_text(encoding="utf-8"))
    runs = scenarios["extra_runs"]
    pinned = {name: sc for name, sc in runs.items() if "layout" in sc}
    assert {n.split(" (")[0] for n in pinned} >= {"StarCoderBase", "Falcon-7B", "StableLM-3B-4E1T", "SmolLM3-3B"}
    assert all(sc.get("layout_source") for sc in pinned.values())
    expected = {"StarCoderBase": (4.0, 4.0, 1.0, "none"), "StableLM-3B-4E1T": (1.0, 1.0, 4.0, "full"), "SmolLM3-3B": (2.0, 1.0, 3.0, "none")}
    for name, sc in pinned.items():
        key = name.split(" (")[0]
        if key not in expected:
            continue
        run = {"name": name, **sc}
        answers = fidelity.answers_for(run, sc, scenarios["defaults"], int(sc["gpus"]))
        with fidelity.published_layout(fidelity.run_layout(sc)):
            e = fidelity.advise(answers, fidelity.load_rules()).today.estimates[sc["strategy"]]
        tp, pp, mb, rc = expected[key]
        assert (float(e.tp[0]), float(e.pp[0]), float(e.vpp[0]), float(e.micro_batch[0]), str(e.recompute[0])) == (tp, pp, 1.0, mb, rc), key
    # A PM-only pricing keeps advisor's own plan: what a PM knows carries no layout.
    star = next(sc for n, sc in pinned.items() if n.startswith("StarCoderBase"))
    pm = fidelity.answers_for({"name": "StarCoderBase", **star}, star, scenarios["defaults"], int(star["gpus"]), pm=True)
    assert pm.training.micro_batch_size is None and pm.training.activation_recompute == "auto"


def test_group_limited_routing_sends_a_deepseek_token_to_at_most_four_nodes():
    """DeepSeek-V3 limits each token to 4 of its 8 expert groups (config.json 'n_group': 8, 'topk_group': 4; arXiv:2412.19437
    Sec 2.1.2 node-limited routing, 'at most 4 nodes'); over EP64 on 8 nodes a group is a node, so DeepEP sends a token to
    4 nodes, where 8 experts drawn freely reach 5.25. The held-out DeepSeek-V3 rows on DeepEP had been priced as free
    routing (NeMo AutoModel's 256-GPU row 0.747 of its published tokens/s)."""
    from msgspec.structs import replace

    from advisor.estimate import hardware_from, workload_from
    from advisor.estimate.communication import communication_plan, distinct_destinations, routed_destinations

    assert float(routed_destinations(8, 8)) == pytest.approx(float(distinct_destinations(8, 8)))
    assert float(routed_destinations(8, 8, 8, 4)) == pytest.approx(4.0)  # a group per node, 4 of 8 chosen
    assert float(routed_destinations(16, 8, 8, 4)) == pytest.approx(float(distinct_destinations(8, 8)))  # a group spans 2 nodes
    assert float(routed_destinations(8, 8, 32, 1)) == pytest.approx(1.0)  # one block of 8 experts: one node
    assert float(routed_destinations(64, 8, 32, 1)) == pytest.approx(float(distinct_destinations(2, 8)))  # ... on two GPUs
    a = _moe_on()
    w, hw = workload_from(a), replace(hardware_from(a), ep_dedup=True)
    one = np.ones(1)

    def inter(workload, hardware):
        plan = communication_plan("megatron-3d", workload, hardware, 256 * one, 2 * one, 8 * one, one, 4 * one, one, one)
        return float(next(c for c in plan if c.name == "expert all-to-all").inter_bytes[0])

    free, grouped = inter(w, hw), inter(replace(w, expert_groups=8, expert_groups_per_token=4), hw)
    assert grouped < free
    # The plain all-to-all sends one copy per chosen expert wherever the groups are: the limit saves it nothing.
    plain = replace(hw, ep_dedup=False)
    assert inter(replace(w, expert_groups=8, expert_groups_per_token=4), plain) == pytest.approx(inter(w, plain))


def test_held_out_moe_rows_are_priced_at_the_routing_their_runs_used():
    """The routing a row ran with is the row's fact: DeepSeek-V3's group limit (its shape's ``routing_groups``), and NeMo
    AutoModel's benchmark configs' 'fake_balanced_gate: true', whose FakeBalancedGate gives token t the experts t·k to
    t·k + k - 1 (one aligned block of k: E/k groups, one per token). DeepEP then sends each token to one node."""
    heldout = _bench("heldout")
    data = yaml.safe_load(heldout.HELDOUT.read_text(encoding="utf-8"))
    assert data["shapes"]["deepseek-v3"]["routing_groups"] == [8, 4]
    rows = {r["name"]: r for r in data["rows"]}
    automodel = [r for r in data["rows"] if r["family"] == "automodel-h100" and r.get("ep_dispatcher") == "deepep" and not r.get("skip")]
    assert len(automodel) == 5 and all(r.get("gate") == "round-robin" and "fake_balanced_gate: true" in r["gate_source"] for r in automodel)
    w = heldout.row_workload(rows["DeepSeek V3 671B 256 GPUs PP4 EP64 FSDP64"], data)
    assert (w.expert_groups, w.expert_groups_per_token) == (32, 1)
    w = heldout.row_workload(rows["H100 DeepSeek-V3 1024 FP8-BLK TP2 PP8 VP4 EP64 DeepEP overlap"], data)
    assert (w.expert_groups, w.expert_groups_per_token) == (8, 4)
    [priced] = heldout.heldout_rows({**data, "rows": [rows["DeepSeek V3 671B 256 GPUs PP4 EP64 FSDP64"]]})
    assert 0.75 <= priced["ratio"] <= 1.33
