"""Issue 18: the fine-tune launch files, fed to the libraries' own parsers on CPU — peft.LoraConfig for the adapter
settings, accelerate's config loader, DeepSpeedConfig where DeepSpeed runs it. Each parser test skips where the library is
not installed (CI installs torch==2.13.0 CPU, DeepSpeed, peft and accelerate: see .ci/run)."""

from __future__ import annotations

import json
import warnings

import pytest
import yaml

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping
from advisor.outputs.artifacts import build_artifacts
from .deepspeed_check import parsed_by_deepspeed
from advisor.outputs.finetune_artifacts import (
    accelerate_finetune_config,
    bnb_4bit_config_kwargs,
    deepspeed_finetune_config,
    finetune_files,
    lora_config_kwargs,
)

JOBS = {
    # The issue's three jobs, and the examples' methods.
    "70b-finetune-8xa100": {"model": {"params": "70B", "seq_len": 4096},
                            "training": {"method": "finetune", "tokens": "100M", "current_strategy": "deepspeed-zero3"},
                            "cluster": {"gpu": "a100-80gb", "gpus": 8, "cpu_memory_gb_per_node": 1024}, "budget": {"price_per_gpu_hour": 2}},
    "13b-qlora-8x4090": {"model": {"params": "13B"}, "training": {"method": "qlora", "examples": "50k", "tokens_per_example": 1024},
                         "cluster": {"gpu": "rtx4090", "gpus": 8}, "budget": {"price_per_gpu_hour": 0.4}},
    "7b-finetune-8xa10": {"model": {"params": "7B"}, "training": {"method": "finetune", "examples": "200k", "tokens_per_example": 512, "epochs": 3},
                          "cluster": {"gpu": "a10", "gpus": 8, "inter_node_gbps": 25}, "budget": {"price_per_gpu_hour": 1}},
    "7b-lora-ddp": {"model": {"params": "7B"}, "training": {"method": "lora", "lora_rank": 16, "lora_targets": "attention", "tokens": "50M"},
                    "cluster": {"gpu": "a100-80gb", "gpus": 8}, "budget": {"price_per_gpu_hour": 2}},
}


def _advice(rules, job, strategy=None):
    advice = advise(answers_from_mapping(JOBS[job]), rules)
    if strategy:
        advice.strategy = strategy
    return advice


def test_pretraining_gets_no_fine_tune_files(rules):
    advice = advise(answers_from_mapping({"model": {"params": "7B"}, "training": {"tokens": "1T"},
                                          "cluster": {"gpu": "a100-80gb", "gpus": 64}, "budget": {"price_per_gpu_hour": 2}}), rules)
    assert finetune_files(advice) == []
    assert not {a.name for a in build_artifacts(advice)} & {"peft_lora_config.json", "accelerate_finetune.yaml"}


def test_the_70b_job_is_launched_as_lora_on_zero3_with_its_files(rules):
    advice = _advice(rules, "70b-finetune-8xa100")
    assert advice.method == "lora" and advice.asked_method == "finetune"
    files = {a.name: a.text for a in build_artifacts(advice)}
    names = set(files)
    assert {"peft_lora_config.json", "accelerate_finetune.yaml"} <= names
    assert "accelerate_fsdp.yaml" not in names, "one accelerate config a run (the fine-tune's)"
    if advice.strategy.startswith("deepspeed"):
        # One DeepSpeed config: the fine-tune's, under the name launch.sh and accelerate both point at.
        assert json.loads(files["ds_config.json"]) == deepspeed_finetune_config(advice)
        assert yaml.safe_load(files["accelerate_finetune.yaml"])["deepspeed_config"]["deepspeed_config_file"] == "ds_config.json"
    d = advice.report().deployment
    acc = yaml.safe_load(files["accelerate_finetune.yaml"])
    assert acc["num_machines"] == d.nodes and acc["num_processes"] == d.gpus, "the plan's nodes, not today's"


def test_adapter_settings_are_what_was_priced(rules):
    advice = _advice(rules, "7b-lora-ddp")
    kwargs = lora_config_kwargs(advice)
    assert kwargs is not None
    assert kwargs["r"] == 16 and kwargs["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    q = _advice(rules, "13b-qlora-8x4090")
    qk, bnb = lora_config_kwargs(q), bnb_4bit_config_kwargs(q)
    assert qk is not None and qk["r"] == 64 and len(qk["target_modules"]) == 7
    assert bnb is not None and bnb["bnb_4bit_quant_type"] == "nf4" and bnb["bnb_4bit_use_double_quant"] is True
    assert bnb_4bit_config_kwargs(advice) is None


@pytest.mark.parametrize("job", ["70b-finetune-8xa100", "13b-qlora-8x4090", "7b-lora-ddp"])
def test_lora_settings_parse_with_peft(rules, job):
    peft = pytest.importorskip("peft", reason="peft is not installed (CI installs it: see .ci/run)")
    kwargs = lora_config_kwargs(_advice(rules, job))
    assert kwargs is not None
    cfg = peft.LoraConfig(**json.loads(json.dumps(kwargs)))  # as the file is read back
    assert cfg.r == kwargs["r"] and set(cfg.target_modules) == set(kwargs["target_modules"])
    assert str(cfg.task_type.value if hasattr(cfg.task_type, "value") else cfg.task_type) == "CAUSAL_LM"
    with pytest.raises(TypeError):
        peft.LoraConfig(**dict(kwargs, rank=8))  # the parser refuses a key it does not know


@pytest.mark.parametrize("job, strategy", [("13b-qlora-8x4090", "fsdp"), ("7b-finetune-8xa10", "fsdp"), ("70b-finetune-8xa100", "deepspeed-zero3"),
                                           ("7b-finetune-8xa10", "deepspeed-zero2"), ("7b-lora-ddp", "ddp"),
                                           ("13b-qlora-8x4090", "fsdp-hybrid"), ("70b-finetune-8xa100", "deepspeed-zeropp")])
def test_accelerate_config_loads_with_accelerates_own_loader(rules, tmp_path, job, strategy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config_args = pytest.importorskip("accelerate.commands.config.config_args",
                                          reason="accelerate is not installed (CI installs it: see .ci/run)")
    advice = _advice(rules, job, strategy)
    cfg = accelerate_finetune_config(advice)
    assert cfg is not None
    path = tmp_path / "accelerate_finetune.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    loaded = config_args.load_config_from_file(str(path))
    assert loaded.num_processes == advice.gpus
    assert str(loaded.distributed_type).split(".")[-1] == cfg["distributed_type"]
    if strategy == "fsdp":
        assert loaded.fsdp_config["fsdp_use_orig_params"] is (advice.method in ("lora", "qlora"))
    if strategy == "fsdp-hybrid":  # issue 24: HSDP is FSDP's HYBRID_SHARD
        assert loaded.fsdp_config["fsdp_sharding_strategy"] == "HYBRID_SHARD"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(dict(cfg, num_procesess=8)))
    with pytest.raises(ValueError):
        config_args.load_config_from_file(str(bad))


@pytest.mark.parametrize("job, strategy", [("70b-finetune-8xa100", "deepspeed-zero3"), ("7b-finetune-8xa10", "deepspeed-zero2"),
                                           ("7b-finetune-8xa10", "deepspeed-zero3-offload"), ("13b-qlora-8x4090", "deepspeed-zero3"),
                                           ("13b-qlora-8x4090", "deepspeed-zeropp"), ("70b-finetune-8xa100", "deepspeed-zeropp")])
def test_deepspeed_finetune_config_validates_against_deepspeeds_own_schema(rules, job, strategy):
    advice = _advice(rules, job, strategy)
    cfg = deepspeed_finetune_config(advice)
    assert cfg is not None
    parsed = parsed_by_deepspeed(cfg, advice.estimate_dict(strategy)["data_parallel"])
    if strategy == "deepspeed-zeropp":
        # Issue 24: a frozen LoRA/QLoRA base is quantised as Mixed Precision ZeRO++ keeps it; a full fine-tune's weights are
        # quantised only on the wire (qwZ).
        z = parsed.zero_config
        assert z.zero_quantized_gradients
        assert (z.zero_quantized_nontrainable_weights, z.zero_quantized_weights) == ((True, False) if advice.method in ("lora", "qlora") else (False, True))


def test_no_deepspeed_file_where_deepspeed_does_not_run_it(rules):
    assert deepspeed_finetune_config(_advice(rules, "7b-lora-ddp", "ddp")) is None
    assert accelerate_finetune_config(_advice(rules, "7b-lora-ddp", "horovod")) is None
