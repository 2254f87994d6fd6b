"""TRL launch settings for a post-training plan: DPOConfig or GRPOConfig keyword arguments as priced.

Pure functions of the advice (no I/O). Keys are TRL's own field names (trl 1.16.0 trl/trainer/dpo_config.py,
grpo_config.py); tests/test_posttrain.py builds trl.DPOConfig / trl.GRPOConfig from them, so a renamed or removed field
fails in CI rather than in the team's first launch. PPO has no TRL trainer in 1.x (OpenRLHF or verl run it): no file.
"""

from __future__ import annotations

import json
from typing import Any

from advisor.base.i18n import _
from advisor.decision.advice import Advice
from advisor.estimate.posttrain import vllm_tensor_parallel


def _batch(advice: Advice) -> tuple[int, int]:
    """(per_device_train_batch_size, gradient_accumulation_steps) as the plan prices them."""
    e = advice.evaluation.estimates[advice.strategy]
    return int(e.micro_batch[0]), int(e.accumulation[0])


def trl_config_kwargs(advice: Advice) -> tuple[str, dict[str, Any]] | None:
    """('DPOConfig' or 'GRPOConfig', keyword arguments), or None for any other method."""
    t = advice.answers.training
    post = t.post_training
    if t.method not in ("dpo", "grpo") or post is None:
        return None
    micro, accumulation = _batch(advice)
    common: dict[str, Any] = {
        "output_dir": "checkpoints",
        "per_device_train_batch_size": micro,
        "gradient_accumulation_steps": accumulation,
        "num_train_epochs": float(post.epochs),
        "bf16": t.precision == "bf16",
        "activation_checkpointing": advice.evaluation.estimates[advice.strategy].recompute[0] != "none",
    }
    if t.method == "dpo":
        return "DPOConfig", {**common, "max_length": post.prompt_tokens + post.answer_tokens("dpo"),
                             "precompute_ref_log_probs": post.reference_kind("dpo") == "precomputed"}
    w = advice.evaluation.context["workload"]
    generations = post.responses("grpo")
    # GRPOConfig: the effective batch (processes x per-device batch x accumulation) must be a multiple of num_generations.
    processes = advice.plan.chosen.gpus
    while (processes * micro * accumulation) % generations:
        accumulation += 1
    reference = post.reference_kind("grpo")
    return "GRPOConfig", {**common, "gradient_accumulation_steps": accumulation, "num_generations": generations,
                          "max_completion_length": post.answer_tokens("grpo"), "use_vllm": True,
                          "vllm_mode": "server" if post.generation_gpus else "colocate",
                          "vllm_tensor_parallel_size": vllm_tensor_parallel(w, advice.answers.cluster.spec,
                                                                            advice.answers.cluster.gpus_per_node),
                          # beta > 0 loads the reference; DeepSeek-R1 used 0.001 (GRPOConfig's help text, arXiv:2501.12948).
                          "beta": 0.001 if reference == "policy" else 0.0}


def trl_files(advice: Advice) -> list[tuple[str, str, str]]:
    """(file name, description, text) for the TRL config of a DPO or GRPO plan; empty otherwise."""
    found = trl_config_kwargs(advice)
    if found is None:
        return []
    kind, kwargs = found
    name = "trl_dpo_config.json" if kind == "DPOConfig" else "trl_grpo_config.json"
    return [(name, _("TRL settings: trl.{kind}(**json.load(...))", kind=kind), json.dumps(kwargs, indent=2) + "\n")]
