"""The fact vocabulary rules may test: every fact's name, type, allowed values and meaning.

Bottom layer (no numpy, no estimate model): the rule loader validates rules against it and ``advisor rules facts``
prints it without loading the estimate; ``advisor.decision.facts`` computes the values.
"""

from __future__ import annotations

from msgspec import Struct

from advisor.knowledge.strategies import STRATEGIES

PARTIAL_RECOMPUTE_NAMES = ("full on 25% of layers", "full on 50% of layers", "full on 75% of layers")
"""The partial-recomputation settings by name (advisor.estimate.PARTIAL_RECOMPUTE gives their fractions)."""
OFFLOAD_NAMES = ("offload 25% of layers", "offload 50% of layers", "offload 75% of layers")
"""No recomputation, with the saved activations of that share of the layers kept in the CPU's memory over a chip-to-chip
link (advisor.estimate.OFFLOAD_MODES; Megatron-Core's cpu_offloading_num_layers, PyTorch's save_on_cpu)."""

NUMBER, BOOL, TEXT = "number", "bool", "text"


def recompute_said(value: str) -> str:
    """A recomputation setting in words, as a rule's text says it ('micro-batch 2 with no activation recomputation'), in
    the current language; the fact keeps its value ('none', 'full on 50% of layers') for conditions."""
    from advisor.base.i18n import _

    if value == "none":
        return _("no activation recomputation")
    if value == "selective":
        return _("selective recomputation")
    if value == "full":
        return _("full recomputation")
    share = partial_share(value)
    if share is not None:
        return _("full recomputation on {share} of layers", share=share)
    offloaded = offload_share(value)
    if offloaded is not None:
        return _("no recomputation, with {share} of layers' activations in CPU memory", share=offloaded)
    return value


def offload_share(value: str) -> str | None:
    """'50%' of 'offload 50% of layers', else None: the one parser of that name."""
    if value.startswith("offload ") and value.endswith(" of layers"):
        return value.removeprefix("offload ").removesuffix(" of layers")
    return None


def partial_share(value: str) -> str | None:
    """'50%' of 'full on 50% of layers' (the estimate's name for recomputing only some layers fully), else None: the one
    parser of that name, for the rules' wording and the memo's."""
    if value.startswith("full on ") and value.endswith(" of layers"):
        return value.removeprefix("full on ").removesuffix(" of layers")
    return None


SAID_AS = {"chosen_recompute": recompute_said}
"""Text facts whose values a rule's text says in words (render_template), not as the value a condition tests."""


class FactSpec(Struct, frozen=True):
    """A fact rules may name: its type, allowed values for text facts, and a description."""

    name: str
    type: str
    description: str
    choices: tuple[str, ...] | None = None
    plan: bool = False
    """A fact about the chosen plan: known only after the choice, so it may drive texts but never scores."""


def _registry() -> dict[str, FactSpec]:
    specs = [
        FactSpec("params", NUMBER, "Total parameters."),
        FactSpec("params_b", NUMBER, "Total parameters, in billions."),
        FactSpec("active_params_b", NUMBER, "Parameters active per token, in billions (MoE; else = params_b)."),
        FactSpec("is_moe", BOOL, "active_params was given and is below params."),
        FactSpec("tokens_b", NUMBER, "Training tokens, in billions (implied from a known duration if not given)."),
        FactSpec("tokens_implied", BOOL, "tokens were not given and were implied from the known duration."),
        FactSpec("duration_known", BOOL, "The answers give a known run duration (the baseline)."),
        FactSpec("baseline_hours", NUMBER, "The known run duration in hours (only when duration_known)."),
        FactSpec("seq_len", NUMBER, "Training sequence length."),
        FactSpec("gpus", NUMBER, "Total GPUs."),
        FactSpec("gpus_per_node", NUMBER, "GPUs per node."),
        FactSpec("nodes", NUMBER, "Nodes (gpus / gpus_per_node, at least 1)."),
        FactSpec("multi_node", BOOL, "The run spans more than one node."),
        FactSpec("gpu", TEXT, "GPU catalog id ('custom' for an inline GPU)."),
        FactSpec("gpu_memory_gb", NUMBER, "Memory of one GPU, GB."),
        FactSpec("gpu_generation", TEXT, "GPU architecture family.", ("volta", "ampere", "ada", "hopper", "blackwell", "cdna3", "davinci")),
        FactSpec("gpu_fp8", BOOL, "The GPU has FP8 tensor cores (Hopper, Ada, Blackwell, CDNA3)."),
        FactSpec("fp8_linear_share", NUMBER, "Share of a step's FLOPs in the linear layers, the ones FP8 runs (0-1)."),
        FactSpec("fp8_compute_saving_megatron", NUMBER, "Share of compute time FP8 takes off under Megatron (TransformerEngine's fused recipe), 0-1."),
        FactSpec("fp8_compute_saving_other", NUMBER, "Share of compute time FP8 takes off under FSDP/DeepSpeed (torchao Float8, or MXFP8 on Blackwell), 0-1."),
        FactSpec("intra_node", TEXT, "GPU link inside a node as used by the estimate.", ("nvlink", "pcie", "xgmi", "hccs")),
        FactSpec("inter_node_gbps", NUMBER, "Network bandwidth per node, Gbit/s."),
        FactSpec("inter_node_gbps_per_gpu", NUMBER, "Network bandwidth per node divided by its GPUs, Gbit/s."),
        FactSpec("cpu_memory_known", BOOL, "cpu_memory_gb_per_node was given."),
        FactSpec("cpu_memory_gb_per_node", NUMBER, "Host RAM per node, GB (only when known)."),
        FactSpec("multi_tenant", BOOL, "The cluster is shared with other jobs."),
        FactSpec("data_pipeline_known", BOOL, "A data-loader throughput was given."),
        FactSpec("data_pipeline_tokens_per_sec", NUMBER, "Given data-loader throughput, tokens/s."),
        FactSpec("tokens_per_sec_needed", NUMBER, "Tokens/s the fastest fitting strategy consumes."),
        FactSpec("data_pipeline_ratio", NUMBER, "Given loader throughput / tokens_per_sec_needed (below 1 starves the GPUs)."),
        FactSpec("experience", TEXT, "Team's distributed-training experience.", ("none", "some", "expert")),
        FactSpec("stage", TEXT, "Project stage.", ("mvp", "stable", "frontier")),
        FactSpec("precision", TEXT, "Training precision.", ("bf16", "fp16", "fp32", "fp8")),
        FactSpec("current_strategy", TEXT, "What the team runs today (none: not training yet).", (*STRATEGIES, "none")),
        FactSpec("current_fits", BOOL, "The current strategy fits in GPU memory by the estimate."),
        FactSpec("current_memory_gb", NUMBER, "Memory per GPU the current strategy needs by the estimate, GB."),
        FactSpec("price_per_gpu_hour", NUMBER, "Price of one GPU-hour."),
        FactSpec("currency", TEXT, "Currency code."),
        FactSpec("budget_limit", NUMBER, "Most the run may cost (only when given)."),
        FactSpec("monthly_limit", NUMBER, "Monthly bill ceiling (only when given)."),
        FactSpec("monthly_cost", NUMBER, "Cost of keeping all the GPUs busy for 30 days."),
        FactSpec("runs_per_month", NUMBER, "Runs a month: as given, else as many as today's setup (or, where it cannot run, the fastest option that can) completes back to back in 30 days."),
        FactSpec("monthly_spend", NUMBER, "runs_per_month x the cheapest fitting option's cost per run."),
        FactSpec("deadline_days", NUMBER, "Days the run must finish in (only when given)."),
        FactSpec("replicated_states_gb", NUMBER, "Model states of an unsharded replica (state_bytes_per_param x params), GB."),
        FactSpec("state_bytes_per_param", NUMBER, "Bytes of model state per parameter for mixed-precision Adam (strategies.STATE_BYTES_PER_PARAM)."),
        FactSpec("replicated_states_ratio", NUMBER, "replicated_states_gb / gpu_memory_gb (above ~1 plain data parallel cannot fit)."),
        FactSpec("fitting_count", NUMBER, "How many strategies fit in GPU memory."),
        FactSpec("best_hours", NUMBER, "Wall-clock hours of the fastest fitting strategy."),
        FactSpec("best_days", NUMBER, "best_hours / 24."),
        FactSpec("best_cost", NUMBER, "Cost of the cheapest fitting strategy."),
        FactSpec("over_budget", BOOL, "Even the cheapest fitting strategy costs more than budget_limit, judged on the range's upper end."),
        FactSpec("over_deadline", BOOL, "Even the fastest fitting strategy misses deadline_days."),
        FactSpec("over_monthly_limit", BOOL, "monthly_spend exceeds monthly_limit, judged on the range's upper end."),
        FactSpec("zero_memory_saving_pct", NUMBER, "GPU memory saved by ZeRO-2 against DDP, percent (seed:K15)."),
        FactSpec("powersgd_rank", NUMBER, "PowerSGD's matrix_approximation_rank in a ddp-powersgd plan."),
        FactSpec("powersgd_volume_pct", NUMBER, "What PowerSGD all-reduces once it compresses, percent of plain DDP's gradient volume."),
        FactSpec("powersgd_warmup_steps", NUMBER, "Optimizer steps PowerSGD all-reduces uncompressed first (start_powerSGD_iter: 10% of the run)."),
        FactSpec("powersgd_error_feedback_gb", NUMBER, "GPU memory of PowerSGD's error-feedback buffer and P/Q factors, GB per GPU."),
        FactSpec("method", TEXT, "The job kind the estimate prices: pretrain, finetune (every weight), lora or qlora.",
                 ("pretrain", "finetune", "lora", "qlora")),
        FactSpec("is_finetune", BOOL, "method is finetune, lora or qlora (an existing model is adapted)."),
        FactSpec("is_peft", BOOL, "method is lora or qlora: a frozen base plus trained low-rank adapters."),
        FactSpec("lora_rank", NUMBER, "LoRA/QLoRA adapter rank r (only when is_peft)."),
        FactSpec("adapter_params_m", NUMBER, "Trainable adapter parameters, millions (only when is_peft)."),
        FactSpec("adapter_params", NUMBER, "Trainable adapter parameters (only when is_peft); '{adapter_params:count}' words it."),
        FactSpec("logits_gb", NUMBER, "The loss's output logits for one sequence on a Hugging Face (eager) stack, GB: sequence x vocabulary x 14 bytes (workload.EAGER_LOGITS_BYTES_PER_VOCAB); 0 on fused stacks."),
        FactSpec("logits_share", NUMBER, "logits_gb / gpu_memory_gb: above ~0.25 the logits alone crowd the GPU whatever the sharding."),
        FactSpec("vocab_size", NUMBER, "Vocabulary entries of the model."),
        FactSpec("example_tokens", NUMBER, "Tokens of one fine-tuning example (training.tokens_per_example; only where the data is given in examples)."),
        FactSpec("examples_per_sequence", NUMBER, "seq_len / example_tokens: examples packed into one sequence; below 1 an example is longer than the sequence (only where example_tokens is known)."),
        FactSpec("frozen_base_gb", NUMBER, "The frozen base weights, GB: bf16 for lora, NF4 + double quantisation for qlora (only when is_peft)."),
    ]
    per_strategy = [
        ("fits", BOOL, "fits in GPU memory"),
        ("cpu_fits", BOOL, "fits in host memory where offload needs it (true when host memory is unknown)"),
        ("memory_gb", NUMBER, "memory per GPU, GB"),
        ("hours", NUMBER, "wall-clock hours"),
        ("cost", NUMBER, "cost of the run"),
        ("cost_vs_best", NUMBER, "cost / best_cost"),
        ("batch_ok", BOOL, "the global batch has at least one sequence for every data-parallel rank"),
        ("comm_share", NUMBER, "share of step time spent in communication that does not overlap compute"),
        ("scaling_efficiency", NUMBER, "compute time / step time"),
    ]
    for prefix, kind, what in per_strategy:
        for s in STRATEGIES:
            specs.append(FactSpec(f"{prefix}.{s}", kind, f"{s}: {what}."))
    plan = [
        FactSpec("chosen_strategy", TEXT, "The recommended strategy.", STRATEGIES),
        FactSpec("chosen_framework", TEXT, "The recommended framework's name."),
        FactSpec("chosen_gpus", NUMBER, "GPUs in the recommended plan."),
        FactSpec("chosen_nodes", NUMBER, "Nodes in the recommended plan."),
        FactSpec("chosen_hours", NUMBER, "Wall-clock hours of the recommended plan."),
        FactSpec("chosen_days", NUMBER, "chosen_hours / 24."),
        FactSpec("chosen_gpu_hours", NUMBER, "GPU-hours of the recommended plan's run: chosen_gpus x chosen_hours."),
        FactSpec("chosen_interruptions", NUMBER, "Interruptions the recommended plan's run can expect at Llama 3's rate: chosen_hours x chosen_gpus / 50,700 GPU-hours."),
        FactSpec("chosen_cost", NUMBER, "Cost per run of the recommended plan."),
        FactSpec("cheapest_cost_searched", NUMBER, "Cost per run of the cheapest option that runs, at any GPU count searched."),
        FactSpec("cheapest_cost_upper", NUMBER, "cheapest_cost_searched at the stated range's upper end, where budgets are judged."),
        FactSpec("cheapest_strategy_searched", TEXT, "The strategy of that cheapest option.", STRATEGIES),
        FactSpec("cheapest_gpus_searched", NUMBER, "The GPU count of that cheapest option."),
        FactSpec("cheapest_hours_searched", NUMBER, "Wall-clock hours of that cheapest option."),
        FactSpec("over_budget_everywhere", BOOL, "Even the cheapest option that runs, at any GPU count searched, costs more than budget_limit."),
        FactSpec("chosen_monthly_spend", NUMBER, "runs_per_month x chosen_cost."),
        FactSpec("chosen_day_cost", NUMBER, "What a day of the recommended plan's GPUs costs: chosen_gpus x price x 24 h."),
        FactSpec("chosen_comm_share", NUMBER, "Exposed communication share of the recommended plan's step."),
        FactSpec("chosen_memory_gb", NUMBER, "Memory per GPU of the recommended plan, GB."),
        FactSpec("chosen_micro_batch", NUMBER, "Micro-batch of the recommended plan."),
        FactSpec("chosen_accumulation", NUMBER, "Gradient-accumulation steps of the recommended plan."),
        FactSpec("chosen_recompute", TEXT, "Activation recomputation of the recommended plan.", ("none", "selective", *PARTIAL_RECOMPUTE_NAMES, "full", *OFFLOAD_NAMES)),
        FactSpec("chosen_tp", NUMBER, "Tensor-parallel degree of the recommended plan."),
        FactSpec("chosen_pp", NUMBER, "Pipeline-parallel degree of the recommended plan."),
        FactSpec("chosen_vpp", NUMBER, "Virtual pipeline stages per GPU (interleaving) of the recommended plan."),
        FactSpec("chosen_tokens_per_sec", NUMBER, "Tokens/s the recommended plan consumes."),
        FactSpec("status_quo", BOOL, "The recommendation is today's strategy on today's GPU count."),
        FactSpec("keeps_strategy", BOOL, "The recommendation keeps today's strategy."),
        FactSpec("today_gpus", NUMBER, "GPUs today (gpus is the count being evaluated, which is the plan's in the second pass)."),
        FactSpec("gpus_added", NUMBER, "chosen_gpus - gpus today (negative when fewer)."),
        FactSpec("deadline_met", BOOL, "The recommended plan meets deadline_days (only when a deadline is given)."),
        FactSpec("deadline_at_risk", BOOL, "The recommended plan misses deadline_days on the range's upper end but its point estimate is inside it."),
        FactSpec("chosen_days_high", NUMBER, "chosen_days at the stated range's upper end (P80; chosen_days where a measured run calibrates)."),
        FactSpec("chosen_hours_high", NUMBER, "chosen_hours at the stated range's upper end: what a reservation for the run must cover."),
        FactSpec("beyond_cluster", BOOL, "Meeting the deadline needs more GPUs than the cluster has today."),
        FactSpec("today_hours", NUMBER, "Wall-clock hours of today's setup (current strategy, today's GPUs)."),
        FactSpec("today_days", NUMBER, "today_hours / 24."),
        FactSpec("today_cost", NUMBER, "Cost per run of today's setup."),
        FactSpec("fewer_gpus_cheaper", BOOL, "Fewer GPUs than the plan would do the same job at least 10% cheaper (and slower)."),
        FactSpec("cheaper_gpus", NUMBER, "The GPU count of that cheaper option."),
        FactSpec("cheaper_strategy", TEXT, "The strategy of that cheaper option.", STRATEGIES),
        FactSpec("cheaper_days", NUMBER, "Days one run would take on cheaper_gpus."),
        FactSpec("fewer_gpus_saving_pct", NUMBER, "Saving in percent at cheaper_gpus."),
    ]
    specs.extend(FactSpec(p.name, p.type, p.description, p.choices, plan=True) for p in plan)
    return {spec.name: spec for spec in specs}


FACTS: dict[str, FactSpec] = _registry()
