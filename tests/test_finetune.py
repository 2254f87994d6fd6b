"""Issue 18: fine-tuning — full, LoRA and QLoRA fine-tunes priced, planned and launched."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping
from advisor.cli import main
from advisor.base.errors import AnswerError
from advisor.estimate import GB, estimate_all, workload_from
from advisor.estimate.finetune import (
    DEQUANT_SECONDS_PER_PARAM_A100,
    NF4_BYTES_PER_PARAM,
    adapter_params,
    frozen_base_bytes,
    quantized_params,
)
from advisor.outputs.render import summary_rows, to_markdown, to_text


def job(**training):
    return {"model": {"params": "7B"}, "training": training, "cluster": {"gpu": "a100-80gb", "gpus": 8}, "budget": {"price_per_gpu_hour": 2}}


SEVENTY = {"model": {"params": "70B", "seq_len": 4096},
           "training": {"method": "finetune", "tokens": "100M", "current_strategy": "deepspeed-zero3"},
           "cluster": {"gpu": "a100-80gb", "gpus": 8, "cpu_memory_gb_per_node": 1024}, "budget": {"price_per_gpu_hour": 2}}
THIRTEEN = {"model": {"params": "13B"}, "training": {"method": "finetune", "tokens": "100M"},
            "cluster": {"gpu": "rtx4090", "gpus": 8, "cpu_memory_gb_per_node": 256}, "budget": {"price_per_gpu_hour": 0.4}}
SEVEN = {"model": {"params": "7B"}, "training": {"method": "finetune", "examples": "200k", "tokens_per_example": 512, "epochs": 3},
         "cluster": {"gpu": "a10", "gpus": 8, "inter_node_gbps": 25}, "budget": {"price_per_gpu_hour": 1}}


# ---- 1, 2: the answers


def test_method_defaults_to_pretrain_and_takes_the_four_kinds():
    assert answers_from_mapping(job(tokens="1T")).training.method == "pretrain"
    for m in ("pretrain", "finetune", "lora", "qlora"):
        assert answers_from_mapping(job(tokens="1B", method=m)).training.method == m


@pytest.mark.parametrize("examples", ["200k", "20万", 200000])
def test_tokens_are_examples_times_tokens_per_example_times_epochs(examples):
    t = answers_from_mapping(job(method="lora", examples=examples, tokens_per_example=512, epochs=3)).training
    assert t.data_tokens == pytest.approx(200_000 * 512 * 3)
    assert answers_from_mapping(job(method="lora", examples=examples, tokens_per_example=512)).training.data_tokens == pytest.approx(200_000 * 512)


@pytest.mark.parametrize("training, field", [
    ({"method": "lora", "tokens": "1B", "lora_rank": 0}, "training.lora_rank"),
    ({"method": "lora", "examples": "1k", "tokens_per_example": 512, "epochs": -1}, "training.epochs"),
    ({"method": "lora", "examples": "200k"}, "tokens_per_example"),
    ({"method": "full", "tokens": "1B"}, "training.method"),
    ({"method": "finetune", "tokens": "1B", "lora_rank": 8}, "lora_rank"),
    ({"method": "lora", "tokens": "1B", "examples": "1k", "tokens_per_example": 5}, "tokens or examples"),
    ({"method": "lora", "tokens_per_example": 512, "tokens": "1B"}, "tokens_per_example"),
    ({"method": "lora", "tokens": "1B", "lora_targets": "everything"}, "training.lora_targets"),
])
def test_bad_fine_tune_input_is_one_line_naming_the_field(tmp_path, capsys, training, field):
    import yaml

    path = tmp_path / "a.yaml"
    path.write_text(yaml.safe_dump(job(**training)))
    code = main(["advise", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("advisor: ") and err.count("\n") == 1 and field in err and "Traceback" not in err
    with pytest.raises(AnswerError):
        answers_from_mapping(job(**training))


# ---- 3: memory per GPU, broken down


def test_adapter_count_matches_peft_for_llama_7b_rank_8_on_q_and_v():
    # LLaMA-7B (32 layers, hidden 4096), r=8 on q_proj and v_proj: PEFT prints 'trainable params: 4,194,304'.
    assert adapter_params(32, 4096, 8, "qv") == 4_194_304


def test_lora_and_qlora_memory_is_base_plus_adapters_and_sharding_divides_the_base():
    a = answers_from_mapping(dict(SEVENTY, training={"method": "lora", "tokens": "100M"}))
    est, ctx = estimate_all(a)
    w = ctx["workload"]
    base = frozen_base_bytes(w)
    assert base == pytest.approx(2.0 * 70e9)  # frozen bf16
    ddp, fsdp, z3 = (est[s].model_states[0] for s in ("ddp", "fsdp", "deepspeed-zero3"))
    assert ddp == pytest.approx(base + 16.0 * w.adapter_params)  # replicated base, adapters with Adam states
    assert fsdp == pytest.approx((base + 16.0 * w.adapter_params) / 8 + 4.0 * w.largest_layer)  # FSDP + LoRA: the base sharded
    assert z3 == pytest.approx(fsdp)
    assert est["fsdp"].fits[0] and not est["ddp"].fits[0]
    q = answers_from_mapping(dict(SEVENTY, training={"method": "qlora", "tokens": "100M"}))
    qw = workload_from(q)
    qbase = frozen_base_bytes(qw)
    assert qbase == pytest.approx(NF4_BYTES_PER_PARAM * quantized_params(qw) + 2.0 * (70e9 - quantized_params(qw)))
    assert 0.25 < qbase / base < 0.35  # about a quarter of the bf16 base (4.127 bits for the linear layers)
    qest, _ = estimate_all(q)
    assert qest["fsdp"].model_states[0] < fsdp  # FSDP-QLoRA shards a smaller base
    # Full fine-tune: every weight trained, 16 B/param as before.
    f, _ = estimate_all(answers_from_mapping(SEVENTY))
    assert f["ddp"].model_states[0] == pytest.approx(16.0 * 70e9)


def test_lora_activations_add_the_rank_r_intermediates():
    lo, _ = estimate_all(answers_from_mapping(job(method="lora", tokens="1B", micro_batch_size=1, activation_recompute="none")))
    ft, _ = estimate_all(answers_from_mapping(job(method="finetune", tokens="1B", micro_batch_size=1, activation_recompute="none")))
    w = workload_from(answers_from_mapping(job(method="lora", tokens="1B")))
    extra = 2.0 * w.seq_len * 1 * w.lora_rank * 2 * w.shape.layers  # s·b·r per adapted matrix (q and v), 2 bytes
    # Issue 32: the frozen o_proj, gate/up and down_proj keep no inputs (a full fine-tune's do): 2h + 2h + 2f per token;
    # q's and v's adapters each keep their own copy of the input q/k/v share (measured: finetune.ADAPTER_INPUT_BYTES), 2h more.
    from advisor.estimate.finetune import mlp_width

    frozen = w.seq_len * w.shape.layers * (2.0 * w.shape.hidden + 2.0 * mlp_width(w))
    assert lo["ddp"].activations[0] - ft["ddp"].activations[0] == pytest.approx(extra - frozen)


# ---- 4: compute and time


def test_a_frozen_base_skips_weight_gradients_and_a_4_bit_base_pays_dequantisation():
    def step(method, **kw):
        est, _ = estimate_all(answers_from_mapping(job(method=method, tokens="100M", micro_batch_size=1, activation_recompute="none",
                                                       global_batch_tokens=16 * 2048, **kw)))
        return est["fsdp"]

    full, lora, qlora = step("finetune"), step("lora"), step("qlora", lora_rank=8, lora_targets="qv")
    w = workload_from(answers_from_mapping(job(method="lora", tokens="1B")))
    ratio = float(lora.compute_s[0] / full.compute_s[0])
    assert ratio == pytest.approx((4.0 * w.params + 6.0 * w.adapter_params + w.attention_flops_per_token)
                                  / (6.0 * w.params + w.attention_flops_per_token), rel=1e-6)
    qw = workload_from(answers_from_mapping(job(method="qlora", tokens="1B")))
    micro = float(qlora.accumulation[0])
    assert float(qlora.compute_s[0] - lora.compute_s[0]) == pytest.approx(DEQUANT_SECONDS_PER_PARAM_A100 * quantized_params(qw) * micro)


def test_fine_tune_batches_come_from_fine_tune_recipes_not_llama_pretraining():
    w = workload_from(answers_from_mapping(SEVEN))
    assert w.global_batch_tokens == 64 * 2048 and "Llama 2-Chat" in w.batch_source
    assert workload_from(answers_from_mapping(job(method="qlora", tokens="1B"))).global_batch_tokens == 16 * 2048
    assert workload_from(answers_from_mapping(job(tokens="1T"))).global_batch_tokens == 4 * 2**20  # pre-training unchanged


def test_a_default_fine_tune_batch_feeds_every_gpu_of_todays_cluster(rules):
    """A LoRA on 64 A100 with no batch given: the 16-sequence recipe batch starved 48 of the 64 GPUs, so the plan was
    'run on 16 GPUs instead of 64' and took four times as long. A Trainer's batch is per GPU (per_device_train_batch_size),
    so the default is at least one sequence per GPU of today's cluster; a batch the team gives is kept as given."""
    lora = {"model": {"params": "13B"}, "training": {"tokens": "20B", "method": "lora"},
            "cluster": {"gpu": "a100-80gb", "gpus": 64}, "budget": {"price_per_gpu_hour": 2}}
    w = workload_from(answers_from_mapping(lora))
    assert w.global_batch_seqs == 64 and "one sequence per GPU" in w.batch_source
    advice = advise(answers_from_mapping(lora), rules)
    assert advice.gpus == 64, to_text(advice).splitlines()[0]
    given = {**lora, "training": {**lora["training"], "global_batch_tokens": 16 * 2048}}
    assert workload_from(answers_from_mapping(given)).global_batch_seqs == 16  # as given: the team's batch stands
    few = {**lora, "cluster": {"gpu": "a100-80gb", "gpus": 8}}
    assert workload_from(answers_from_mapping(few)).global_batch_seqs == 16  # the recipe's 16 already feeds 8 GPUs


# ---- 5: the decision


@pytest.mark.parametrize("answers", [SEVENTY, THIRTEEN, SEVEN], ids=["70b-8xa100", "13b-8x4090", "7b-8xa10"])
def test_the_issues_three_jobs_get_plans_that_run_and_the_summary_says_method_gpus_time_cost(rules, answers):
    advice = advise(answers_from_mapping(answers), rules)
    assert not any(w["blocking"] for w in advice.warnings)
    e = advice.estimate_dict(advice.strategy)
    assert e["fits"] and e["batch_ok"]
    assert e["global_batch_tokens"] < 4 * 2**20  # not LLaMA's pre-training batch
    rows = {what: rec for what, _today, rec in summary_rows(advice)}
    assert rows["Method"].split(" ")[0] in ("LoRA", "QLoRA", "full")
    assert rows["GPUs"].startswith(f"{advice.gpus:,} ×")
    assert rows["Time per run"] != "cannot run" and rows["Cost per run"].endswith("USD")


def test_a_full_fine_tune_that_cannot_run_becomes_lora_and_says_what_is_traded(rules):
    advice = advise(answers_from_mapping(SEVENTY), rules)
    assert advice.asked_method == "finetune" and advice.method == "lora"
    memo = to_markdown(advice)
    assert "Fine-tune with LoRA instead of a full fine-tune" in memo
    assert "arXiv:2405.09673" in memo  # the quality caveat, cited
    assert "| Method | full fine-tune | LoRA" in memo
    assert "method: finetune" in memo  # the answers appendix keeps what was asked
    d = advice.to_dict()
    assert d["method"]["asked"] == "finetune" and d["method"]["planned"] == "lora" and d["method"]["changed"]
    assert d["today"]["fits"] is False  # today = the full fine-tune as asked


def test_a_full_fine_tune_that_runs_and_is_not_twice_the_price_stays_a_full_fine_tune(rules):
    advice = advise(answers_from_mapping(SEVEN), rules)
    assert advice.method == "finetune" and not advice.method_changed
    assert "Data: 200,000 examples × 512 tokens × 3 epochs = 307.2M tokens." in to_text(advice)


def test_peft_plans_are_not_megatron(rules):
    advice = advise(answers_from_mapping(dict(SEVENTY, training={"method": "lora", "tokens": "100M"})), rules)
    assert advice.strategy != "megatron-3d" and "megatron-3d" in advice.excluded


def test_pretraining_answers_are_untouched_by_the_method_search(rules):
    a = answers_from_mapping(job(tokens="1T"))
    advice = advise(a, rules)
    assert advice.asked_method is None and advice.method == "pretrain"
    assert "Method" not in {what for what, _t, _r in summary_rows(advice)}
    assert "method" not in advice.to_dict()["answers"]["training"]


def test_hours_scale_with_epochs():
    one, _ = estimate_all(answers_from_mapping(dict(SEVEN, training=dict(SEVEN["training"], epochs=1))))
    three, _ = estimate_all(answers_from_mapping(SEVEN))
    assert np.allclose(three["fsdp"].hours["mid"], 3 * one["fsdp"].hours["mid"])
    assert float(one["fsdp"].memory[0]) / GB == pytest.approx(float(three["fsdp"].memory[0]) / GB)


# ---- 7: calibrated against published fine-tune runs


def test_fine_tune_estimates_stay_calibrated_against_published_runs():
    """bench/fidelity_finetune.yaml (Qwen's published LoRA / QLoRA / full fine-tune profiling): median |error| of GPU-hours
    <= 25% and no run off by more than 2x, with no per-run tuning."""
    import importlib.util
    import statistics
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("fidelity", root / "bench" / "fidelity.py")
    assert spec is not None and spec.loader is not None
    fid = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fid)
    rows = fid.finetune_rows(yaml.safe_load(fid.FINETUNE.read_text()))
    assert len(rows) >= 10 and {"lora", "qlora", "finetune"} <= {r[0].split()[1] for r in rows}
    assert statistics.median(abs(r[5]) for r in rows) <= 0.25
    assert all(max(r[4] / r[3], r[3] / r[4]) <= 2 for r in rows)


# ---- 8: the example, in both languages


def test_the_fine_tune_example_has_a_chinese_golden_memo():
    """`advisor --lang zh advise examples/customer-service-finetune.yaml --format md` (the English memo is checked by
    tests/test_memo_golden.py like every example's)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "advisor", "--lang", "zh", "advise", str(root / "examples" / "customer-service-finetune.yaml"),
                        "--format", "md"], capture_output=True, text=True, timeout=120, env={**os.environ, "ADVISOR_LANG": "zh"})
    assert r.returncode == 0, r.stderr
    golden = root / "tests" / "golden" / "customer-service-finetune.zh.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(r.stdout, encoding="utf-8")
    assert r.stdout == golden.read_text(encoding="utf-8")
    # LoRA priced on the full fine-tune's work and batch (user try 2026-12-05): 16 A10s for about half the cost
    assert "| 方法 | 全参数微调 | LoRA（秩 8" in r.stdout


def test_the_memo_breaks_a_lora_gpus_memory_down_and_the_parts_add_up(rules):
    from advisor.estimate import CUDA_OVERHEAD_BYTES

    advice = advise(answers_from_mapping(SEVENTY), rules)
    m = advice.to_dict()["method"]
    e = advice.estimate_dict(advice.strategy)
    parts = m["frozen_base_gb_per_gpu"] + m["adapter_states_gb_per_gpu"] + m["layers_in_flight_gb_per_gpu"]
    assert parts + e["activations_gb_per_gpu"] + CUDA_OVERHEAD_BYTES / GB == pytest.approx(e["memory_per_gpu_gb"])
    assert m["frozen_base_gb_per_gpu"] == pytest.approx(140.0 / advice.gpus)  # the bf16 base sharded over the GPUs
    assert "- Of which: frozen base 17.5 GB" in to_markdown(advice)


@pytest.mark.parametrize("gpu, bandwidth", [("h100-sxm", 3350.0), ("a100-40gb", 1555.0), ("rtx4090", 1008.0)])
def test_dequantisation_runs_at_the_gpus_memory_bandwidth_not_its_peak(gpu, bandwidth):
    """QLoRA's dequantisation is memory-bound: an H100 SXM does it 3,350 / 2,039 = 1.64x as fast as the A100 80GB the
    constant was measured on, not 989 / 312 = 3.2x; an A100 40GB (1,555 GB/s) is slower than the 80GB, not as fast."""
    def extra(method):
        mapping = job(method=method, tokens="100M", micro_batch_size=1, activation_recompute="none", global_batch_tokens=16 * 2048,
                      lora_rank=8, lora_targets="qv")
        mapping["cluster"] = {**mapping["cluster"], "gpu": gpu}
        est, _ = estimate_all(answers_from_mapping(mapping))
        return est["fsdp"]

    qlora, lora = extra("qlora"), extra("lora")
    qw = workload_from(answers_from_mapping(job(method="qlora", tokens="1B")))
    micro = float(qlora.accumulation[0])
    expected = DEQUANT_SECONDS_PER_PARAM_A100 * quantized_params(qw) * micro * 2039.0 / bandwidth
    assert float(qlora.compute_s[0] - lora.compute_s[0]) == pytest.approx(expected)


def test_a_memory_bandwidth_without_its_source_is_refused():
    from pydantic import ValidationError

    from advisor.knowledge.catalog import GpuSpec, gpu_catalog

    row = gpu_catalog()["h100-sxm"].model_dump()
    row["hbm_source"] = None
    with pytest.raises(ValidationError, match="hbm_gbs 3350 has no hbm_source"):
        GpuSpec(**row)


def test_a_lighter_method_is_priced_on_the_known_run_s_work_and_batch(rules):
    """The full fine-tune's known 3-day run is the job: LoRA in its place trains the tokens that run implies, at its batch.
    It was calibrated as if LoRA itself took 3 days (6,912 USD either way) at its recipe's 16 sequences (user try
    2026-12-05), so LoRA never showed what it saves."""
    from advisor.decision.advice import _advise_one, with_method

    a = answers_from_mapping({
        "model": {"params": "13B"},
        "training": {"method": "finetune", "duration_days": 3, "current_strategy": "deepspeed-zero2", "runs_per_month": 4},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8},
        "budget": {"price_per_gpu_hour": 3, "currency": "USD"}}, "x")
    full = _advise_one(a, rules)
    lora = _advise_one(with_method(a, "lora", full.evaluation.context["tokens"], full.plan.runs_per_month), rules)
    w_full, w_lora = (x.evaluation.context["workload"] for x in (full, lora))
    assert w_lora.method == "lora" and w_lora.global_batch_tokens == w_full.global_batch_tokens
    assert w_lora.batch_source == w_full.batch_source  # the full fine-tune's cited batch, not 'given'
    assert lora.evaluation.context["tokens"] == pytest.approx(full.evaluation.context["tokens"])
    at_32 = lora.plan.option("deepspeed-zero2", 32)
    assert at_32 is not None and at_32.hours < 0.8 * full.plan.option("deepspeed-zero2", 32).hours  # no weight gradients, no Adam
    assert lora.plan.runs_per_month == full.plan.runs_per_month == 4


def test_the_fine_tune_example_is_planned_as_lora_on_the_full_fine_tune_s_batch(rules):
    from advisor.inputs.answers import load_answers

    from .conftest import EXAMPLES

    advice = advise(load_answers(EXAMPLES / "customer-service-finetune.yaml"), rules)
    assert (advice.asked_method, advice.method) == ("finetune", "lora")
    assert advice.evaluation.context["workload"].global_batch_seqs == 64
