"""Issue 31: LoRA's target modules are chosen per architecture (dense, mixture of experts, multi-head latent attention)
and checked by PEFT against the model transformers builds from the same config, shrunk and on the meta device (no
weights): every name the file lists reaches a module or parameter of the model."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping

from .conftest import DATA
from .test_launch_plan import _rules

HF = DATA / "hf"

TINY = {"hidden_size": 64, "intermediate_size": 128, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 64,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "first_k_dense_replace": 1,
        "n_routed_experts": 4, "num_local_experts": 4, "num_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1,
        "q_lora_rank": 32, "kv_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "vocab_size": 128}
"""Each config's structural keys kept, its sizes shrunk (only the keys the config has are replaced)."""


def _advice(config: Path, targets: str):
    return advise(answers_from_mapping({"model": {"config": str(config)},
                                        "training": {"method": "lora", "lora_rank": 8, "lora_targets": targets, "tokens": "50M"},
                                        "cluster": {"gpu": "h100-sxm", "gpus": 64}, "budget": {"price_per_gpu_hour": 2}}), _rules())


def _meta_model(config: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: see .ci/run)")
        transformers = pytest.importorskip("transformers", reason="transformers is not installed (CI installs it: see .ci/run)")
    raw = json.loads(config.read_text())
    shrunk = {k: v for k, v in raw.items() if k not in ("architectures", "model_type")}
    shrunk.update({k: v for k, v in TINY.items() if k in raw})
    cfg = transformers.AutoConfig.for_model(raw["model_type"], **shrunk)
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transformers.AutoModelForCausalLM.from_config(cfg)


@pytest.mark.parametrize("targets", ["qv", "attention", "all-linear"])
@pytest.mark.parametrize("config", ["llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b", "qwen1.5-moe-a2.7b", "deepseek-v3"])
def test_every_lora_target_reaches_the_model_built_from_the_config(config, targets):
    peft = pytest.importorskip("peft", reason="peft is not installed (CI installs it: see .ci/run)")
    from advisor.outputs.finetune_artifacts import lora_config_kwargs

    path = HF / f"{config}.json"
    kwargs = lora_config_kwargs(_advice(path, targets))
    assert kwargs is not None
    model = _meta_model(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped = peft.get_peft_model(model, peft.LoraConfig(**json.loads(json.dumps(kwargs))))
    reached = [name for name, _ in wrapped.named_modules()]
    for target in kwargs["target_modules"]:
        assert any(n.endswith(f".{target}.lora_A") or f".{target}.lora_A." in n for n in reached), (config, target)
    experts = kwargs.get("target_parameters", [])
    if targets == "all-linear" and config in ("mixtral-8x7b", "qwen1.5-moe-a2.7b", "deepseek-v3"):
        assert experts, "the routed experts hold most of the weights: all-linear must reach them"
    for parameter in experts:
        # PEFT wraps each targeted parameter's module in a ParamWrapper holding lora_A / lora_B.
        module = parameter.rsplit(".", 1)[0]
        assert any(f".{module}.lora_A" in n for n in reached), (config, parameter)
    if config == "deepseek-v3":
        assert not {"q_proj", "k_proj", "v_proj"} & set(kwargs["target_modules"]), "MLA has no q/k/v_proj"
    trainable = sum(p.numel() for p in wrapped.parameters() if p.requires_grad)
    assert trainable > 0
