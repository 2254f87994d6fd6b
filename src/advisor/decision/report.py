"""The JSON contract of `advisor advise --format json`, as types: what a recommendation holds, field by field.

``Advice.report()`` builds it once from the advice and validates it (``extra="forbid"``: a key the core adds without
declaring it here fails the tests); ``advisor schema --report`` prints its JSON Schema for the tools that read the
JSON. Keys and strategy ids are English in every language; the texts are in the language the advice was made in.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.inputs.answers import Strategy
from advisor.decision.deployment import Deployment


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Reason(_Part):
    rule: str = Field(description="Rule id, or 'plan' / 'default' for the choice itself.")
    title: str
    text: str
    source: list[str] = Field(description="Citations: seed:K<n> or a published reference.")
    points: float = Field(default=0, description="The rule's score for the recommended strategy (rationale only).")


class Item(_Part):
    """A question for the engineers or a pre-launch checklist item."""

    text: str
    rule: str
    source: str


class Warning(_Part):
    text: str
    blocking: bool = Field(description="A blocking warning means nothing can run as asked: resolve it before launch.")
    rule: str
    source: str


class Recommendation(_Part):
    strategy: Strategy
    framework: str
    gpus: int
    score: float
    rationale: list[Reason] = Field(description="Reasons for the choice only: the plan's, then rules that score the strategy up.")
    blocked: bool


class PlanPoint(_Part):
    strategy: Strategy
    gpus: int
    wall_clock_hours: float
    cost: float
    monthly_spend: float
    meets_deadline: bool | None


class Change(_Part):
    kind: Literal["more-gpus", "later-date", "bigger-budget", "bigger-monthly"]
    strategy: str
    gpus: int
    wall_clock_hours: float
    cost: float
    target: float = Field(description="GPUs (more-gpus), days (later-date) or money (bigger-budget, bigger-monthly).")


class Plan(_Part):
    objective: str = Field(description="How the choice was made, in words.")
    status_quo: bool = Field(description="Today's strategy and GPU count are already the answer.")
    keeps_strategy: bool
    deadline_met: bool | None
    beyond_cluster: bool = Field(description="The plan needs more GPUs than today's.")
    runs_per_month: float
    constraints_broken: list[str]
    today: PlanPoint
    chosen: PlanPoint
    cheapest_meeting_deadline: PlanPoint | None
    fastest: PlanPoint | None
    cheaper_slower: PlanPoint | None
    faster_same_cost: PlanPoint | None = Field(description="More GPUs that finish sooner for about the same cost per run.")
    searched_gpu_counts: list[int]
    what_it_takes: list[Change] = Field(default_factory=list, description="Where the deadline or a budget is missed: the smallest "
                                        "changes that meet it (more GPUs, a later date, a bigger budget), each with its plan.")


class Ranges(_Part):
    wall_clock_hours: list[float] = Field(min_length=2, max_length=2, description="[low, high]")
    gpu_hours: list[float] = Field(min_length=2, max_length=2)
    cost: list[float] = Field(min_length=2, max_length=2)


class CollectiveRow(_Part):
    name: str
    collective: str
    payload_gb: float
    calls_per_step: float
    intra_node_gb: float
    inter_node_gb: float
    seconds: float
    overlaps_with: str


class Communication(_Part):
    per_step: list[CollectiveRow]
    intra_node_gb_per_step: float
    inter_node_gb_per_step: float


class DeepSpeedRow(_Part):
    options: str
    gpu_gb: float
    cpu_gb_per_node: float
    gpu_gib: float
    cpu_gib_per_node: float


class Estimate(_Part):
    """One strategy at one GPU count: time, cost, memory, communication and layout."""

    wall_clock_hours: float
    wall_clock_days: float
    gpu_hours: float
    cost: float
    currency: str
    cost_per_day: float
    savings_if_20pct_faster: float
    range: Ranges
    memory_per_gpu_gb: float
    model_states_gb_per_gpu: float
    activations_gb_per_gpu: float
    cpu_memory_gb_per_node: float | None
    fits: bool
    cpu_fits: bool
    memory_convention: str
    communication_share: float
    communication_seconds_per_step: float
    exposed_communication_seconds_per_step: float
    communication: Communication
    compute_seconds_per_step: float
    pipeline_bubble_seconds_per_step: float
    step_seconds: float
    steps: float
    global_batch_tokens: float
    batch_source: str
    batch_ok: bool
    interruption_overhead: float
    expected_interruptions: float
    scaling_efficiency: float
    activation_recompute: str
    micro_batch_size: int
    max_micro_batch_size: int
    gradient_accumulation_steps: int
    tensor_parallel: int
    pipeline_parallel: int
    virtual_pipeline_stages: int
    expert_parallel: int
    context_parallel: int
    data_parallel: int
    deepspeed_estimator: list[DeepSpeedRow] | None = None


class Today(Estimate):
    strategy: Strategy
    gpus: int


class Alternative(Estimate):
    strategy: Strategy
    framework: str
    score: float
    why_not: list[str]


class Condition(_Part):
    fact: str
    op: str
    value: Any
    seen: Any
    result: bool


class FiredRule(_Part):
    id: str
    title: str
    source: list[str]
    priority: int
    file: str
    rationale: str | None
    conditions: list[Condition]


class Scale(_Part):
    tokens: float
    tokens_implied: bool
    baseline_hours: float | None
    monthly_spend: float
    runs_per_month: float


class Shape(_Part):
    layers: int
    hidden_size: int
    attention_heads: int
    source: str


class MethodReport(_Part):
    """The job kind: what was asked, what the plan uses, and the fine-tuning figures behind it."""

    asked: Literal["pretrain", "finetune", "lora", "qlora"] = Field(description="training.method as the answers give it.")
    planned: Literal["pretrain", "finetune", "lora", "qlora"] = Field(description="The method the plan uses.")
    changed: bool = Field(description="The plan proposes a lighter method than asked (LoRA or QLoRA for a full fine-tune).")
    reason: str | None = Field(description="Why the method was changed, with time and cost.")
    caveat: str | None = Field(description="What LoRA/QLoRA trade against a full fine-tune (cited).")
    lora_rank: int | None
    lora_targets: str | None
    adapter_params: float | None = Field(description="Trainable adapter parameters.")
    frozen_base_gb: float | None = Field(description="The frozen base weights, GB (bf16 for LoRA, NF4 + double quantisation for QLoRA).")
    frozen_base_gb_per_gpu: float | None = Field(description="The frozen base's share on one GPU in the plan (replicated or sharded).")
    adapter_states_gb_per_gpu: float | None = Field(description="Adapters with their gradients and Adam states on one GPU, GB.")
    layers_in_flight_gb_per_gpu: float | None = Field(description="Unsharded layers gathered for compute (FSDP / ZeRO-3), GB per GPU.")
    examples: float | None
    tokens_per_example: int | None
    epochs: float | None


class Report(_Part):
    """advisor's advice for one answers file."""

    recommendation: Recommendation
    plan: Plan
    estimate: Estimate
    deployment: Deployment = Field(description="How the plan runs (GPUs, nodes, layout, batch, schedule): what the launch files are written from.")
    today: Today
    alternatives: list[Alternative]
    context: list[Reason] = Field(description="Rules that speak to the whole decision.")
    tradeoffs: list[Reason] = Field(description="What the recommendation gives up.")
    questions: list[Item]
    checklist: list[Item]
    warnings: list[Warning]
    fired_rules: list[FiredRule]
    scale: Scale
    shape: Shape
    method: MethodReport | None = Field(default=None, description="The job kind (absent in reports from before fine-tuning was priced).")
    assumptions: list[str]
    answers: dict[str, Any] = Field(description="The answers as validated (see `advisor schema`).")


def report_schema() -> dict[str, Any]:
    return Report.model_json_schema()


__all__ = ["Report", "report_schema"]

