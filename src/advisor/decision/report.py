"""The JSON contract of `advisor advise --format json`, as types: what a recommendation holds, field by field.

``Advice.report()`` builds it once from the advice and validates it (``extra="forbid"``: a key the core adds without
declaring it here fails the tests); ``advisor schema --report`` prints its JSON Schema for the tools that read the
JSON. Keys and strategy ids are English in every language; the texts are in the language the advice was made in.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.inputs.answers import Answers, Strategy
from advisor.decision.deployment import Deployment


def _none_yet() -> list[Any]:
    """An empty list for a list field's default: a Python function, because pydantic reads a default factory's
    signature and a builtin's (``list``) sends inspect through the tokenizer, whose first use compiles its big regular
    expression (~4 ms of every `advise`). The JSON Schema shows no default for either."""
    return []


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
    gpu: str = Field(default="", description="GPU type (catalog id; 'custom' for one given inline).")
    spot: bool = Field(default=False, description="Spot / preemptible capacity.")


class Change(_Part):
    kind: Literal["more-gpus", "other-gpu", "later-date", "bigger-budget", "bigger-monthly", "fp8", "lighter-method", "bigger-batch"]
    strategy: str
    gpus: int
    wall_clock_hours: float
    cost: float
    target: float = Field(description="GPUs (more-gpus, other-gpu), days (later-date) or money (bigger-budget, bigger-monthly).")
    gpu: str = Field(default="", description="The GPU type of an other-gpu change (catalog id).")
    spot: bool = Field(default=False, description="An other-gpu change on spot capacity.")
    detail: str = Field(default="", description="The lever's setting: 'fp8', the method (lora, qlora) or the global batch in tokens.")


class GpuTypeResult(_Part):
    """The best plan found on one GPU type compared (cluster.candidates), and why it lost."""

    gpu: str = Field(description="Catalog id ('custom' for today's GPU given inline).")
    name: str
    spot: bool
    price_per_gpu_hour: float
    strategy: Strategy
    gpus: int
    wall_clock_hours: float
    cost: float
    meets_deadline: bool | None
    within_budget: bool
    blocked: bool = Field(description="Nothing runs on this type as asked.")
    chosen: bool
    lost: Literal["blocked", "deadline", "budget", "cost", "time", "tie"] | None = Field(
        description="Why another type won: it runs where this one cannot, meets the deadline or the budget this one misses, "
        "costs (or, with no type meeting the deadline, takes) more than 5% less, or ties and is the smaller change.")
    method: Literal["pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo"] | None = Field(
        default=None, description="The training method this type's plan uses (a full fine-tune may run on one type where another needs LoRA).")


class ChoiceStage(_Part):
    stage: Literal["runs", "date", "budget", "pick", "dominance"]
    code: str = Field(description="The reason code: runs; date-met-on-today, date-needs-more-gpus, date-out-of-reach, no-date-keep-count, "
                      "no-date-nothing-runs-here, no-date-over-budget-here; within-budget, fastest-within-budget, over-budget; "
                      "cheapest, fastest; fewer-gpus-as-fast.")
    kept: int = Field(description="Options left after this stage.")


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
    what_it_takes: list[Change] = Field(default_factory=_none_yet, description="Where the deadline or a budget is missed: the smallest "
                                        "changes that meet it (more GPUs, another GPU type, a later date, a bigger budget), each with its plan.")
    stages: list[ChoiceStage] = Field(default_factory=_none_yet, description="The choice as stages (runs, date, budget, pick, "
                                      "dominance), each with its reason code: empty when nothing can run.")
    greenfield: bool = Field(default=False, description="Not training yet (training.current_strategy: none): the plan is not a switch.")
    gpu_types: list[GpuTypeResult] = Field(default_factory=_none_yet, description="The best plan on each GPU type compared; empty "
                                           "where only today's type is searched.")


class Ranges(_Part):
    wall_clock_hours: list[float] = Field(min_length=2, max_length=2, description="[low, high]")
    gpu_hours: list[float] = Field(min_length=2, max_length=2)
    cost: list[float] = Field(min_length=2, max_length=2)
    published_within: float | None = Field(default=None, description="Published runs of this kind came in within ± this share of "
                                           "the model's estimate (80th percentile, bench/heldout.py); None where a measurement calibrates it")
    published_runs: int | None = Field(default=None, description="How many published runs that share was measured on")


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
    time_off_training: float = 0.0
    """Share of wall-clock added for all time off training, restarts included (estimate.time_off_training)."""
    expected_spot_reclaims: float = Field(default=0.0, description="Spot capacity: nodes reclaimed over the run at the given monthly rate.")
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
    strategy: Strategy | Literal["none"] = Field(description="training.current_strategy ('none': not training yet; the figures are then "
                                                 "the plan's strategy on today's GPUs).")
    gpus: int


class Alternative(Estimate):
    strategy: Strategy
    framework: str
    score: float
    why_not: list[str]
    excluded: bool = Field(default=False, description="The rules exclude it here (its why-not gives the rule's reason), "
                           "so it cannot be the plan even where it fits; False in reports saved before this was recorded.")


class Condition(_Part):
    fact: str
    op: str
    value: Any
    seen: Any
    result: bool


class TraceNode(_Part):
    """One node of a fired rule's condition: a group (all / any / not, with its children) or a leaf comparing a fact."""

    op: str = Field(description="all, any or not for a group; always; else the leaf's operator (eq, lt, in, is_set, ...).")
    result: bool = Field(description="Whether this node held.")
    fact: str | None = Field(default=None, description="The fact a leaf tests.")
    seen: Any = Field(default=None, description="The fact's value.")
    value: Any = Field(default=None, description="What a leaf compares it with: a value, or {fact, seen} for another fact.")
    children: "list[TraceNode]" = Field(default_factory=_none_yet, description="A group's conditions, every one evaluated.")


class FiredRule(_Part):
    id: str
    title: str
    source: list[str]
    priority: int
    file: str
    rationale: str | None
    conditions: list[Condition] = Field(description="The leaves evaluated until the condition was decided, in order.")
    tree: TraceNode | None = Field(default=None, description="The whole condition as a tree, every leaf evaluated "
                                   "(absent in reports from before issue 23).")


class Scale(_Part):
    tokens: float
    tokens_implied: bool
    baseline_hours: float | None
    monthly_spend: float
    runs_per_month: float
    active_params: float = Field(description="Parameters active per token (all of them unless a mixture of experts).")


class Shape(_Part):
    layers: int
    hidden_size: int
    attention_heads: int
    source: str
    head_dim: int | None = Field(default=None, description="Width of one attention head where the model sets it apart from hidden_size / attention_heads (model.head_dim).")
    sliding_window: int | None = Field(default=None, description="Tokens a sliding-window attention layer attends back (model.sliding_window); null: full attention.")
    sliding_window_layers_pct: float | None = Field(default=None, description="Percent of the layers with the sliding window.")
    attention_tokens: int | None = Field(default=None, description="Tokens each token's attention spans as the estimate priced it: "
                                         "the example where shorter examples are packed into a sequence, else the sequence "
                                         "(null in reports saved before it was kept: the sequence).")


class MethodReport(_Part):
    """The job kind: what was asked, what the plan uses, and the fine-tuning figures behind it."""

    asked: Literal["pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo"] = Field(description="training.method as the answers give it.")
    planned: Literal["pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo"] = Field(description="The method the plan uses.")
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


class Note(_Part):
    """One statement about the plan, made once in the core (decision/explain.py) and laid out by every renderer."""

    code: str = Field(description="What the statement is: objective, today-cannot-run, data, deadline-out-of-reach, "
                      "cheapest-meeting-deadline, tie-meeting-deadline, what-it-takes-<kind>, cheaper-slower, faster-same-cost.")
    text: str


class WhatIfLayout(_Part):
    """What moves a what-if row's time besides the GPU count: the layout, the recomputation and each rank's share."""

    tensor_parallel: int
    pipeline_parallel: int
    recompute: str
    micro_batches: int = Field(description="Micro-batches each data-parallel rank runs a step (gradient accumulation).")
    sequences_per_rank: float = Field(description="Sequences each data-parallel rank runs a step.")


class WhatIfPoint(_Part):
    """The best runnable option at one GPU count the search priced (strategy and figures null where nothing runs)."""

    gpus: int
    strategy: Strategy | None
    wall_clock_hours: float | None
    cost: float | None
    meets_deadline: bool | None
    today: bool
    chosen: bool
    cheapest_meeting_deadline: bool
    faster_same_cost: bool = Field(default=False, description="The count the notes name 'faster for no more per run': the "
                                   "plan's framework on more GPUs, sooner for about the plan's cost (false in reports saved before).")
    nothing_because: Literal["fit", "host-memory", "batch", "rules"] | None = Field(
        default=None, description="Where nothing runs: every option is out of GPU memory ('fit'), of the node's RAM, has "
        "more data-parallel ranks than the batch has sequences ('batch'), or runs but the rules exclude it.")
    layout: WhatIfLayout | None = Field(default=None, description="How the best option runs at this count (None where "
                                        "nothing runs, and in reports saved before it was recorded).")


class Hardware(_Part):
    """The plan's GPU type (which may differ from today's: cluster.candidates) and its price."""

    gpu: str
    memory_gb: float
    capacity_gb: float | None = Field(default=None, description="What a training process can fill, GB (the driver's total; "
                                      "catalog.GpuSpec.capacity_gb); None in reports saved before it was recorded.")

    @property
    def usable_gb(self) -> float:
        return self.capacity_gb or self.memory_gb
    peak_tflops: float
    intra_link: str
    price_per_gpu_hour: float
    network_gbps: float | None = Field(default=None, description="The plan's network per node, Gbit/s (its GPU type's where "
                                       "that differs from today's); None in reports saved before it was recorded.")
    network_source: Literal["given", "usual", "assumed"] | None = Field(
        default=None, description="Where network_gbps comes from: the answers, the GPU type's usual fabric, or assumed.")


class Report(_Part):
    """advisor's advice for one answers file."""

    language: Literal["en", "zh"] = Field(description="The language the texts are in; `advisor render` renders in it.")
    made_on: str = Field(description="The date the advice was made (ISO 8601), SOURCE_DATE_EPOCH's when set.")
    headline: str = Field(description="The decision in one sentence.")
    notes: list[Note] = Field(description="How the plan was chosen and what it trades, each statement once.")
    what_if: list[WhatIfPoint] = Field(description="The best option at every GPU count searched.")
    hardware: Hardware
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

    def typed_answers(self) -> Answers:
        """The answers the report was made from, validated again (with the method the plan uses): what renderers and
        launch files read, instead of the dictionary by key."""
        data = self.answers
        model = data.get("model")
        if isinstance(model, dict) and "config" in model and "layers" in model:
            # The Hugging Face config was read when the advice was made and its shape kept here: a report renders
            # without the file (moved, or on another machine).
            data = {**data, "model": {k: v for k, v in model.items() if k != "config"}}
        a = Answers.model_validate(data)
        if self.method is not None and self.method.planned != a.training.method:
            a = a.model_copy(update={"training": a.training.model_copy(update={"method": self.method.planned})})
        return a


def report_schema() -> dict[str, Any]:
    return Report.model_json_schema()


__all__ = ["Report", "report_schema"]

