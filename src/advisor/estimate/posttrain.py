"""Post-training stages (DPO, GRPO, PPO) priced from their structure, and the costs around any run: checkpoints,
evaluation runs and serving the trained model.

The policy update of a post-training stage is an ordinary fine-tune (LoRA or full, ``TrainingSection.engine_method``), so
the strategy search prices it with the pre-training formulas; this module adds what the stage runs beside it
(``add_post_training``, called once from model.py):

* DPO: the policy is trained on the chosen and the rejected answer of every pair, and a frozen reference runs forward on
  both (Rafailov et al., arXiv:2305.18290 Eq. 7: the loss needs the reference's log-probabilities of each answer), or
  once before training when they are precomputed (TRL DPOConfig precompute_ref_log_probs: 'the reference model does not
  need to be kept in memory').
* GRPO: every step generates responses_per_prompt answers to each prompt with vLLM inside the training processes (TRL
  GRPOConfig use_vllm=True, vllm_mode='colocate': 'vLLM will run in the same process and share the training GPUs'), scores
  them, then updates the policy once on them (num_iterations=1) with a reference forward only when beta > 0 (GRPOConfig
  beta=0.0: 'the reference model is not loaded'; DeepSeekMath arXiv:2402.03300 Sec 4.1 for the group advantage).
* PPO: generation as GRPO, plus a reward model forward and a value model (critic) trained beside the policy, initialised
  from the reward model (InstructGPT, arXiv:2203.02155 Sec 3.5), the four models OpenRLHF schedules (arXiv:2405.11143).

Every constant names its source; [obs] marks what advisor derives.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from msgspec import Struct

from advisor.estimate.workload import GB
from advisor.inputs.answers import POST_TRAINING_METHODS, REWARD_BYTES_PER_PARAM, Answers
from advisor.knowledge.catalog import GpuSpec
from advisor.knowledge.strategies import spec

if TYPE_CHECKING:
    from advisor.estimate.model import StrategyEstimate
    from advisor.estimate.workload import Hardware, Workload

DECODE_SOURCE = ("LambdaLabsML/vllm-benchmark benchmark_v0.md (vLLM 0.5.4, 320 prompts): Mistral-7B-Instruct-v0.3 bf16 "
                 "generates 3,281 tokens/s on 1 x H100 SXM and 1,591 on 1 x A100 SXM 80GB")
"""Where the decode rates come from (the memo cites it beside every rollout, evaluation and serving figure)."""

DECODE_MEASURED: dict[str, tuple[float, float]] = {"hopper": (3281.19 * 7.25e9, 989.0), "ampere": (1591.4 * 7.25e9, 312.0)}
"""(parameter-tokens per GPU-second, peak TFLOP/s of the GPU measured): output tokens/s x 7.25B parameters of
Mistral-7B-Instruct-v0.3 (mistralai/Mistral-7B-Instruct-v0.3 model card) on one H100 SXM (989 dense BF16) and one A100 SXM
80GB (312) (DECODE_SOURCE). Parameter-tokens per GPU-second hold across model sizes in the same table: Llama 3.1 70B FP8 on
8 x H100 gives 2,572.8 x 70.6e9 / 8 = 2.3e13, against 2.4e13 for the 7B on one [obs: derived]. Newer vLLM is faster (the same
report: v0.6.0 doubles output throughput), so these rates are conservative."""


def decode_param_tokens_per_gpu_s(gpu: GpuSpec) -> float:
    """Generation throughput of one GPU in parameter-tokens per second (divide by the model's active parameters for
    tokens/s): the measured GPU of its family, scaled by peak for the others [obs: a proxy — decode is bound by memory
    bandwidth, which the catalog does not give]."""
    rate, peak = DECODE_MEASURED["hopper" if gpu.generation in ("hopper", "blackwell") else "ampere"]
    return rate * gpu.peak_tflops / peak


VLLM_GPU_MEMORY_UTILIZATION_COLOCATE = 0.3
"""Share of each training GPU TRL gives the colocated vLLM engine (trl 1.16.0 GRPOConfig vllm_gpu_memory_utilization=0.3)."""

VLLM_GPU_MEMORY_UTILIZATION_SERVING = 0.9
"""Share of a serving GPU vLLM takes for weights and KV cache (vLLM engine argument gpu_memory_utilization, default 0.9)."""

OPTIMIZER_CHECKPOINT_BYTES_PER_PARAM = 12.0
"""A resumable checkpoint adds the fp32 master weights and Adam's two moments to the 16-bit weights: 4 + 4 + 4 bytes per
trained parameter (ZeRO, arXiv:1910.02054 Sec 3.1: K = 12 for mixed-precision Adam); gradients are not saved."""

WEIGHT_BYTES_PER_PARAM = 2.0
"""16-bit weights: what a weights-only save (the final model, or LoRA adapters alone) holds per parameter."""

CRITIC_BYTES_PER_PARAM = 16.0
"""The PPO value model is trained like the policy: 16-bit weights and gradients plus 12 bytes of Adam (ZeRO Sec 3.1)."""


def _is_post(answers: Answers) -> bool:
    return answers.training.method in POST_TRAINING_METHODS and answers.training.post_training is not None


class Role(Struct, frozen=True):
    """One model's work in the stage: which phase it runs in, on which GPU group, and its FLOPs over the stage."""

    name: str
    phase: str
    """'forward' (scoring the rollouts: reference, reward, value, old log-probabilities) or 'train' (the updates)."""
    group: str
    """'policy' (the policy's GPUs) or the role's own GPUs: 'reference', 'reward', 'critic'."""
    flops: float


class PostWork(Struct, frozen=True):
    """What a post-training stage runs, for the whole stage."""

    method: str
    policy_tokens: float
    """Tokens the policy trains on (prompt + answer per sequence)."""
    roles: tuple[Role, ...]
    generated_tokens: float
    """Tokens the policy generates (grpo/ppo rollouts); 0 for dpo."""
    reference: str
    reward_params: float
    groups: dict[str, int]
    """GPUs given to a role of their own (generation, reference, reward, critic); absent: on the policy's GPUs."""

    @property
    def extra_flops(self) -> float:
        """Everything but the policy's own update: reference, reward and critic work, the PPO actor's scoring forward."""
        return sum(r.flops for r in self.roles if r.name != "policy")

    @property
    def separate_gpus(self) -> int:
        return sum(self.groups.values())


def post_work(answers: Answers, w: Workload) -> PostWork | None:
    """The stage's work in tokens and FLOPs (None when the answers describe no post-training stage). A forward is 2 FLOPs
    per parameter per token, a training pass 6 (Transformer Math 101); the policy's own update is w.flops_per_token."""
    t = answers.training
    if not _is_post(answers):
        return None
    post = t.post_training
    assert post is not None
    method = t.method
    tokens = post.policy_tokens(method)
    reference = post.reference_kind(method)
    ref_tokens = {"policy": tokens, "precomputed": tokens / post.epochs, "none": 0.0}[reference]
    reward = post.reward_model_params or 0.0
    groups = {k: int(v) for k, v in (("generation", post.generation_gpus), ("reference", post.reference_gpus),
                                      ("reward", post.reward_gpus), ("critic", post.critic_gpus)) if v}
    roles = [Role("policy", "train", "policy", tokens * w.flops_per_token)]
    if ref_tokens:
        roles.append(Role("reference", "forward", "reference" if "reference" in groups else "policy", ref_tokens * w.forward_flops_per_token))
    if reward:
        roles.append(Role("reward", "forward", "reward" if "reward" in groups else "policy", tokens * 2.0 * reward))
    if method == "ppo":
        # PPO scores each rollout with the actor (old log-probabilities) and the critic (values) before the updates, and
        # trains the critic, reward-model-sized, beside the actor (OpenRLHF openrlhf/trainer/ppo_utils/experience_maker.py
        # make_experience: actor, initial model, critic and reward model forwards; InstructGPT arXiv:2203.02155 Sec 3.5).
        critic = "critic" if "critic" in groups else "policy"
        roles += [Role("policy-forward", "forward", "policy", tokens * w.forward_flops_per_token),
                  Role("critic-forward", "forward", critic, tokens * 2.0 * reward),
                  Role("critic", "train", critic, tokens * 6.0 * reward)]
    generated = 0.0 if method == "dpo" else post.sequences(method) * post.answer_tokens(method)
    return PostWork(method=method, policy_tokens=tokens, roles=tuple(roles), generated_tokens=generated, reference=reference,
                    reward_params=reward, groups=groups)


def _param_share(strategy: str, est: StrategyEstimate, gpus_per_node: int) -> np.ndarray:
    """Share of a frozen model's weights each GPU holds: sharded where the strategy shards parameters (FSDP, ZeRO-3),
    split by the layout under Megatron, whole elsewhere (as estimate/finetune.py holds a frozen LoRA base)."""
    sp = spec(strategy)
    n = np.asarray(est.gpus, dtype=float)
    if sp.states == "megatron":
        return 1.0 / (np.asarray(est.tp, dtype=float) * np.asarray(est.pp, dtype=float))
    if sp.states == "fsdp" or (sp.states == "deepspeed-estimator" and sp.deepspeed_stage == 3):
        return 1.0 / n
    if sp.states == "hsdp":
        return 1.0 / np.minimum(n, gpus_per_node)
    return np.ones_like(n)


def vllm_tensor_parallel(w: Workload, gpu: GpuSpec, gpus_per_node: int) -> int:
    """The colocated engine's tensor-parallel degree: the smallest power of two at which its bf16 weights fit in the
    share of a GPU TRL gives it (vllm_tensor_parallel_size; at most one node)."""
    tp = 1
    while tp < gpus_per_node and WEIGHT_BYTES_PER_PARAM * w.params / tp > VLLM_GPU_MEMORY_UTILIZATION_COLOCATE * gpu.capacity_gb * GB:
        tp *= 2
    return tp


def rollout_kv_bytes(w: Workload, sequences: float) -> float:
    """KV cache of ``sequences`` sequences of w.seq_len tokens: keys and values, 2 bytes each, per layer, at the
    key-value width (grouped-query attention keeps kv_heads of the heads; the vLLM PagedAttention layout, arXiv:2309.06180)."""
    per_token = 2.0 * 2.0 * w.shape.layers * w.shape.kv_width
    return per_token * w.seq_len * sequences


def post_memory_bytes(strategy: str, est: StrategyEstimate, answers: Answers, w: Workload, hw: Hardware) -> np.ndarray:
    """Per GPU of the policy, what a post-training stage holds beside the policy's own states: the frozen reference (a
    second copy for a full update; none with LoRA, whose reference is the base with adapters off — TRL's PEFT path), the
    reward model and the PPO critic where they share the policy's GPUs, and a colocated vLLM engine (its weights and the
    rollout batch's KV cache, at least the share of the GPU TRL gives it)."""
    work = post_work(answers, w)
    n = np.asarray(est.gpus, dtype=float)
    if work is None:
        return np.zeros_like(n)
    share = _param_share(strategy, est, hw.gpus_per_node)
    extra = np.zeros_like(n)
    if work.reference == "policy" and w.method not in ("lora", "qlora") and "reference" not in work.groups:
        extra = extra + WEIGHT_BYTES_PER_PARAM * w.params * share
    if "reward" not in work.groups:
        extra = extra + REWARD_BYTES_PER_PARAM * work.reward_params * share
    if work.method == "ppo" and "critic" not in work.groups:
        extra = extra + CRITIC_BYTES_PER_PARAM * work.reward_params * share
    if work.generated_tokens > 0 and "generation" not in work.groups:
        vtp = vllm_tensor_parallel(w, hw.spec, hw.gpus_per_node)
        in_flight = np.maximum(1.0, w.global_batch_seqs / n)  # each GPU's share of the step's rollouts
        engine = WEIGHT_BYTES_PER_PARAM * w.params / vtp + rollout_kv_bytes(w, 1.0) * in_flight
        extra = extra + np.maximum(engine, VLLM_GPU_MEMORY_UTILIZATION_COLOCATE * hw.spec.capacity_gb * GB)
    return extra


def rollout_hours(answers: Answers, w: Workload, hw: Hardware, gpus: np.ndarray) -> np.ndarray:
    """Hours the stage spends generating, before time off training: on the generation GPUs where the answers give them
    (TRL vllm_mode='server', OpenRLHF's vLLM engines), else colocated on every GPU of the job."""
    work = post_work(answers, w)
    n = np.asarray(gpus, dtype=float)
    if work is None or work.generated_tokens <= 0:
        return np.zeros_like(n)
    rate = decode_param_tokens_per_gpu_s(hw.spec) / w.active_params  # tokens/s per GPU
    on = np.full_like(n, float(work.groups["generation"])) if "generation" in work.groups else n
    return work.generated_tokens / (rate * on) / 3600.0


def phase_hours(work: PostWork, policy_hours: np.ndarray, gpus: np.ndarray) -> np.ndarray:
    """Hours of the scoring and update phases. The policy update's own hours on all ``gpus`` give the work rate per GPU
    (its efficiency, communication and recomputation included); every role runs at that rate per GPU on its group. The
    phases follow each other (rollouts, then scoring, then updates: OpenRLHF's make_experience before training; TRL's
    GRPOTrainer likewise); within a phase, separate groups run side by side and roles sharing a group one after another.
    All on the policy's GPUs, this is the update's hours scaled by the stage's total FLOPs over the update's."""
    n = np.asarray(gpus, dtype=float)
    policy_gpus = n - work.separate_gpus  # generation GPUs of their own wait while the others score and train
    policy_gpus = np.where(policy_gpus >= 1, policy_gpus, np.nan)
    train_flops = work.roles[0].flops
    per_flop_gpu = np.asarray(policy_hours, dtype=float) * n / train_flops  # hours per FLOP on one GPU
    total = np.zeros_like(n)
    for phase in ("forward", "train"):
        longest = np.zeros_like(n)
        for group in {r.group for r in work.roles if r.phase == phase}:
            flops = sum(r.flops for r in work.roles if r.phase == phase and r.group == group)
            on = policy_gpus if group == "policy" else float(work.groups[group])
            longest = np.maximum(longest, flops * per_flop_gpu / on)
        total = total + longest
    return total


def _fewer_policy_gpus_bytes(strategy: str, est: StrategyEstimate, work: PostWork, hw: Hardware) -> np.ndarray:
    """Where roles take GPUs of their own, the policy's sharded states spread over fewer GPUs: what each then holds more
    (FSDP and ZeRO-3 shard over all the policy's GPUs, HSDP within a node; replicated and Megatron layouts do not change;
    ZeRO-1/2's partial sharding is left as estimated) [obs: the policy's own layout is not searched again]."""
    n = np.asarray(est.gpus, dtype=float)
    if not work.separate_gpus:
        return np.zeros_like(n)
    sp = spec(strategy)
    policy = np.maximum(n - work.separate_gpus, 1.0)
    if sp.offload:
        return np.zeros_like(n)
    if sp.states == "fsdp" or (sp.states == "deepspeed-estimator" and sp.deepspeed_stage == 3):
        ratio = n / policy
    elif sp.states == "hsdp":
        ratio = np.minimum(n, hw.gpus_per_node) / np.minimum(policy, hw.gpus_per_node)
    else:
        return np.zeros_like(n)
    return np.asarray(est.model_states, dtype=float) * (ratio - 1.0)


def add_post_training(results: dict[str, StrategyEstimate], answers: Answers, w: Workload, hw: Hardware, gpus: np.ndarray) -> None:
    """Add a post-training stage's scoring and update phases, rollouts and memory to every strategy's estimate, in place.
    Where the stage gives roles GPUs of their own, a count that leaves the policy none cannot run."""
    work = post_work(answers, w)
    if work is None:
        return
    gen = rollout_hours(answers, w, hw, gpus)
    cap = hw.spec.capacity_gb * GB
    for s, est in results.items():
        wall = np.asarray(est.wallclock_factor, dtype=float)
        for band in est.hours:
            est.hours[band] = phase_hours(work, est.hours[band], gpus) + gen * wall
        est.gpu_bound_hours = phase_hours(work, est.gpu_bound_hours, gpus) + gen * wall
        est.memory = est.memory + post_memory_bytes(s, est, answers, w, hw) + _fewer_policy_gpus_bytes(s, est, work, hw)
        runs = np.isfinite(est.hours["mid"])
        est.fits = (est.memory <= cap) & runs
        for band in est.hours:
            est.hours[band] = np.where(runs, est.hours[band], 1e12)
        est.gpu_bound_hours = np.where(runs, est.gpu_bound_hours, 1e12)


# ---------------------------------------------------------------- a pipeline of stages, checkpoints, evaluation, serving


def stage_name(method: str) -> str:
    from advisor.base.i18n import _

    return {"finetune": _("full fine-tune"), "lora": "LoRA", "qlora": "QLoRA", "dpo": "DPO", "grpo": "GRPO", "ppo": "PPO",
            "pretrain": _("pre-training run")}[method]


class CheckpointPlan(Struct, frozen=True):
    weights_gb: float
    full_gb: float
    save_seconds: float | None
    every_hours: float | None
    saves: int | None
    storage_gb: float
    young: bool


def checkpoint_plan(answers: Answers, w: Workload, hours: float, gpus: int) -> CheckpointPlan:
    """Size per save without and with optimizer state, save time on the stated storage, how often, and storage to budget.
    LoRA saves its adapters alone (PEFT save_pretrained writes adapter weights only)."""
    from advisor.estimate.workload import INTERRUPTIONS_PER_GPU_HOUR

    ops = answers.operations
    trained = w.trainable_params
    weights = WEIGHT_BYTES_PER_PARAM * trained
    full = weights + OPTIMIZER_CHECKPOINT_BYTES_PER_PARAM * trained
    keep = ops.keep_checkpoints if ops else 1
    storage = keep * full + WEIGHT_BYTES_PER_PARAM * trained
    if ops is None or ops.storage_gbps is None:
        return CheckpointPlan(weights / GB, full / GB, None, ops.checkpoint_every_hours if ops else None, None, storage / GB, False)
    save_s = full / (ops.storage_gbps * GB)
    young = ops.checkpoint_every_hours is None
    if young:
        # Young's first-order optimum: interval = sqrt(2 x save time x mean time between interruptions).
        mtbf_s = 3600.0 / (INTERRUPTIONS_PER_GPU_HOUR * gpus)
        every = math.sqrt(2.0 * save_s * mtbf_s) / 3600.0
    else:
        every = float(ops.checkpoint_every_hours or 0.0)
    saves = max(1, math.ceil(hours / max(every, 1e-9)))
    return CheckpointPlan(weights / GB, full / GB, save_s, every, saves, storage / GB, young)


def evaluation_hours(answers: Answers, w: Workload, gpus: int) -> float | None:
    """Hours of the optional evaluation runs: their generated tokens at the decode rate on the plan's GPUs."""
    ops = answers.operations
    if ops is None or ops.evaluation is None:
        return None
    e = ops.evaluation
    tokens = float(e.runs) * e.prompts * e.answer_tokens
    return tokens * w.active_params / (decode_param_tokens_per_gpu_s(answers.cluster.spec) * gpus) / 3600.0


def serving_gpus(answers: Answers, w: Workload) -> tuple[int, float] | None:
    """(GPUs, generated tokens/s) to serve the trained model at the stated request rate: enough decode throughput, and
    never fewer GPUs than hold the bf16 weights in vLLM's share of memory."""
    ops = answers.operations
    if ops is None or ops.serving is None:
        return None
    spec_ = answers.cluster.spec
    need = ops.serving.requests_per_sec * ops.serving.tokens_per_request
    per_gpu = decode_param_tokens_per_gpu_s(spec_) / w.active_params
    hold = math.ceil(WEIGHT_BYTES_PER_PARAM * w.params / (VLLM_GPU_MEMORY_UTILIZATION_SERVING * spec_.capacity_gb * GB))
    return max(hold, math.ceil(need / per_gpu)), need


def post_training_facts(answers: Answers, w: Workload) -> dict[str, Any]:
    """Figures for the memo's post-training lines."""
    work = post_work(answers, w)
    if work is None:
        return {}
    return {"method": work.method, "policy_tokens": work.policy_tokens, "generated_tokens": work.generated_tokens,
            "reference": work.reference, "reward_params": work.reward_params, "groups": dict(work.groups),
            "compute_scale": 1.0 + work.extra_flops / work.roles[0].flops}
