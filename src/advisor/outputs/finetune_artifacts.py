"""Launch files for fine-tunes: PEFT adapter settings, bitsandbytes 4-bit settings, and the accelerate / DeepSpeed
configs that run a full, LoRA or QLoRA fine-tune with the recommended strategy.

Pure functions of the advice (no I/O). Keys follow each library's own names: peft.LoraConfig's keyword arguments,
transformers' BitsAndBytesConfig's, accelerate's config file (``accelerate launch --config_file``) and DeepSpeed's JSON.
tests/test_finetune_artifacts.py feeds them to the libraries' own parsers.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from msgspec import Struct

from advisor.base.i18n import _
from advisor.decision.advice import Advice
from advisor.decision.deployment import Deployment, deployment
from advisor.estimate.finetune import DEFAULT_ALPHA, PEFT_METHODS, TARGET_MODULES
from advisor.inputs.hfconfig import read_config
from advisor.knowledge.strategies import spec


def _method(advice: Advice) -> str:
    return advice.answers.training.engine_method  # a dpo/grpo/ppo policy update gets the files of its LoRA or full fine-tune


MLP_MODULES = ("gate_proj", "up_proj", "down_proj")
"""A gated MLP's projections by transformers' names (LlamaMLP; DeepseekV3MLP in dense layers and shared experts)."""

EXPERT_PARAMETERS = ("experts.gate_up_proj", "experts.down_proj")
"""Routed experts under transformers 5.x are one module holding 3-D parameters, not Linear layers per expert
(MixtralExperts, DeepseekV3Experts: gate_up_proj, down_proj): PEFT reaches them through LoraConfig.target_parameters."""


class Architecture(Struct, frozen=True):
    """What LoRA can target in the model's modules: multi-head latent attention (DeepSeek-V2/V3), routed experts, and
    gated-MLP modules by name. In a mixture of experts the MLP names are left out: PEFT 0.21 reads gate_proj / up_proj /
    down_proj on a transformers 5.x MoE model as the routed experts' fused parameters (peft/utils/
    transformers_weight_conversion.py _convert_peft_config_moe), so a shared expert's or a dense layer's MLP cannot be
    named apart from them; the experts are reached through target_parameters instead."""

    mla: bool = False
    q_lora: bool = False
    experts: bool = False
    mlp_modules: bool = True


def architecture(advice: Advice) -> Architecture:
    """From the Hugging Face config where the answers name one; else a mixture of experts is Mixtral-shaped and a dense
    model Llama-shaped."""
    config = advice.answers.model.config
    if config is not None:
        cfg = read_config(config)
        if isinstance(cfg.get("text_config"), dict):
            cfg = {**cfg, **cfg["text_config"]}
        experts = bool(cfg.get("num_local_experts") or cfg.get("n_routed_experts") or cfg.get("num_experts"))
        return Architecture(mla=bool(cfg.get("kv_lora_rank")), q_lora=bool(cfg.get("q_lora_rank")), experts=experts,
                            mlp_modules=not experts)
    moe = bool(advice.evaluation.context["workload"].is_moe)
    return Architecture(experts=moe, mlp_modules=not moe)


def lora_targets(targets: str, arch: Architecture) -> tuple[list[str], list[str]]:
    """(target_modules, target_parameters) for the priced targets (qv, attention, all-linear) in this architecture's
    names: every name matches a module of the model (PEFT refuses a list none of which match, and silently skips the
    rest). MLA has no q/k/v_proj: queries go through q_a_proj/q_b_proj (q_proj without a query LoRA rank), keys and
    values through kv_a_proj_with_mqa/kv_b_proj (transformers DeepseekV3Attention)."""
    if arch.mla:
        query = ["q_a_proj", "q_b_proj"] if arch.q_lora else ["q_proj"]
        attention = {"qv": [*query, "kv_a_proj_with_mqa", "kv_b_proj"],
                     "attention": [*query, "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]}
    else:
        attention = {key: list(TARGET_MODULES[key]) for key in ("qv", "attention")}
    if targets != "all-linear":
        return attention[targets], []
    modules = attention["attention"] + (list(MLP_MODULES) if arch.mlp_modules else [])
    return modules, list(EXPERT_PARAMETERS) if arch.experts else []


def lora_config_kwargs(advice: Advice) -> dict[str, Any] | None:
    """peft.LoraConfig(**kwargs) for a LoRA or QLoRA plan (None otherwise): rank and targets as priced, alpha and dropout
    at the recipe's defaults (PEFT's for LoRA, the QLoRA trainer's for QLoRA; estimate/finetune.py)."""
    method = _method(advice)
    if method not in PEFT_METHODS:
        return None
    w = advice.evaluation.context["workload"]
    modules, parameters = lora_targets(w.lora_targets, architecture(advice))
    out: dict[str, Any] = {
        "r": int(w.lora_rank),
        "lora_alpha": DEFAULT_ALPHA[method],
        "lora_dropout": 0.0,
        "target_modules": modules,
        "bias": "none",
        "task_type": "CAUSAL_LM",
    }
    if parameters:
        out["target_parameters"] = parameters
    return out


def bnb_4bit_config_kwargs(advice: Advice) -> dict[str, Any] | None:
    """transformers.BitsAndBytesConfig(**kwargs) for QLoRA: NF4 with double quantisation (arXiv:2305.14314 Sec 3), bf16
    compute, and the 4-bit weights stored as bf16 so FSDP or ZeRO-3 can shard them (answer.ai/posts/2024-03-06-fsdp-qlora)."""
    if _method(advice) != "qlora":
        return None
    return {
        "load_in_4bit": True,
        "bnb_4bit_quant_type": "nf4",
        "bnb_4bit_use_double_quant": True,
        "bnb_4bit_compute_dtype": "bfloat16",
        "bnb_4bit_quant_storage": "bfloat16",
    }


def deepspeed_finetune_config(advice: Advice) -> dict[str, Any] | None:
    """DeepSpeed JSON for a fine-tune on a DeepSpeed strategy: the pre-training file's (artifacts.deepspeed_config: ZeRO
    stage, batch layout, AdamW) at the method's learning rate; with LoRA/QLoRA the frozen base is sharded like any
    parameter under ZeRO-3 (HF PEFT's DeepSpeed guide) and ZeRO++ keeps it quantised."""
    sp = spec(advice.strategy)
    if _method(advice) == "pretrain" or sp.launcher != "deepspeed":
        return None
    from advisor.outputs.artifacts import deepspeed_config  # artifacts imports this module where it writes fine-tunes

    d = deployment(advice.evaluation, advice.strategy)  # the plan's batch layout, as every launch file has it
    return deepspeed_config(d, _method(advice), advice.answers.model.params)


def accelerate_finetune_config(advice: Advice, d: Deployment | None = None) -> dict[str, Any] | None:
    """accelerate's config file for the fine-tune: FSDP (LoRA on a sharded base, FSDP-QLoRA), DeepSpeed (pointing at
    ds_config.json), or plain multi-GPU data parallelism. None for pre-training and Megatron/Horovod plans."""
    if _method(advice) == "pretrain":
        return None
    a, sp = advice.answers, spec(advice.strategy)
    d = d if d is not None else deployment(advice.evaluation, advice.strategy)  # ``d``: the caller's, where it has one
    from advisor.outputs.artifacts import accelerate_checkpointing, accelerate_machines  # artifacts imports this module where it writes fine-tunes

    base: dict[str, Any] = accelerate_machines(d, a.training.precision, deepspeed=sp.launcher == "deepspeed")
    if sp.states in ("fsdp", "hsdp"):
        return {**base, "distributed_type": "FSDP", "fsdp_config": {
            "fsdp_sharding_strategy": "HYBRID_SHARD" if sp.states == "hsdp" else "FULL_SHARD",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_backward_prefetch": "BACKWARD_PRE",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_offload_params": False,
            # PEFT mixes frozen and trainable parameters in one wrapped unit: FSDP needs the original parameters
            # (HF PEFT 'FSDP' guide); every rank loads on meta and rank 0 broadcasts (FSDP-QLoRA's low-CPU loading).
            "fsdp_use_orig_params": _method(advice) in PEFT_METHODS,
            "fsdp_cpu_ram_efficient_loading": True,
            "fsdp_sync_module_states": True,
            "fsdp_activation_checkpointing": accelerate_checkpointing(d.recompute),
        }}
    if sp.launcher == "deepspeed":
        return {**base, "distributed_type": "DEEPSPEED", "deepspeed_config": {
            "deepspeed_config_file": "ds_config.json",
            "zero3_init_flag": sp.deepspeed_stage == 3,
        }}
    if sp.launcher == "torchrun":
        return {**base, "distributed_type": "MULTI_GPU" if advice.gpus > 1 else "NO"}
    return None


def finetune_files(advice: Advice) -> list[tuple[str, str, str]]:
    """(file name, description, text) for every fine-tune file of this plan; empty for pre-training."""
    out: list[tuple[str, str, str]] = []
    lora = lora_config_kwargs(advice)
    if lora is not None:
        out.append(("peft_lora_config.json", _("PEFT adapter settings: peft.LoraConfig(**json.load(...))"), json.dumps(lora, indent=2) + "\n"))
    bnb = bnb_4bit_config_kwargs(advice)
    if bnb is not None:
        out.append(("bnb_4bit_config.json", _("4-bit NF4 base: transformers.BitsAndBytesConfig(**json.load(...)), dtype names as text"),
                    json.dumps(bnb, indent=2) + "\n"))
    ds = deepspeed_finetune_config(advice)
    if ds is not None:
        # The one DeepSpeed config of the run: it replaces the pre-training ds_config.json that launch.sh points at.
        out.append(("ds_config.json", _("DeepSpeed config for the fine-tune (ZeRO stage, batch layout)"), json.dumps(ds, indent=2) + "\n"))
    d = deployment(advice.evaluation, advice.strategy)
    acc = accelerate_finetune_config(advice, d)
    if acc is not None:
        from advisor.outputs.artifacts import accelerate_launch, accelerate_note

        adapters = "--lora peft_lora_config.json" if any(name == "peft_lora_config.json" for name, _desc, _text in out) else ""
        out.append(("accelerate_finetune.yaml", _("accelerate config for the fine-tune; on each node: `{command}`",
                                                  command=accelerate_launch('accelerate_finetune.yaml', d, adapters)) + accelerate_note(d.recompute),
                    yaml.safe_dump(acc, sort_keys=False)))
    return out
