"""The deployment: the one value the launch files and the memo's engineering appendix are both written from.

It is taken from the *plan* — the recommended strategy at the recommended GPU count, with the layout the estimate
chose — never from today's cluster, so ds_config.json, launch.sh, job.sbatch and the memo cannot disagree on a
number (issue 25: the files once asked Slurm for today's 8 nodes beside a 128-GPU batch layout).

Every layout it holds is one the framework accepts: GPUs = TP x PP x CP x DP; train batch = micro-batch x
accumulation x DP (DeepSpeed asserts it; Megatron-LM asserts global % (micro x DP) == 0); attention heads divisible by
TP; experts divisible by EP; pipeline stages placed by megatron-core's even split, its uneven first/last-stage
settings, or its per-chunk layout (TransformerConfig.pipeline_model_parallel_layout) where neither can.
"""

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.estimate.layout import stage_split
from advisor.estimate.residuals import stated_bounds
from advisor.estimate.stages import stages_before
from advisor.decision.facts import Evaluation
from advisor.base.i18n import N_, _
from advisor.base.units import count, plural
from advisor.knowledge.strategies import spec

Schedule = Literal["none", "1f1b", "interleaved-1f1b"]

SBATCH_HEADROOM = 1.1
"""Slurm's time limit is the pessimistic estimate plus 10% (advisor's policy): a job killed at its limit loses the
work since its last checkpoint."""


class Deployment(BaseModel):
    """How the recommended plan runs: GPUs, nodes, parallel layout, batch and schedule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: str
    launcher: str
    gpu: str = Field(description="GPU type (catalog name).")
    gpus: int = Field(description="GPUs the plan runs on (the recommendation's count, not today's).")
    nodes: int
    gpus_per_node: int = Field(description="GPUs used in each node: torchrun --nproc-per-node, sbatch --gpus-per-node.")
    tensor_parallel: int
    pipeline_parallel: int
    virtual_stages: int = Field(description="Model chunks per pipeline rank (interleaved 1F1B); 1 without interleaving.")
    context_parallel: int
    data_parallel: int
    expert_parallel: int
    experts: int | None = Field(description="Routed experts per MoE layer; None for a dense model.")
    experts_per_token: int | None
    micro_batch: int
    accumulation: int
    train_batch_sequences: int = Field(description="micro-batch x accumulation x data-parallel size: the batch the files run.")
    requested_batch_sequences: int = Field(description="The global batch asked for (or defaulted), in sequences.")
    seq_len: int
    layers: int
    hidden_size: int
    attention_heads: int
    first_stage_layers: int | None = Field(description="Megatron --decoder-first-pipeline-num-layers, where the split is uneven.")
    last_stage_layers: int | None = Field(description="Megatron --decoder-last-pipeline-num-layers, where the split is uneven.")
    pipeline_layout: str | None = Field(description="Megatron --pipeline-model-parallel-layout, where flags cannot place the layers.")
    fullest_stage_layers: int
    schedule: Schedule
    bubble_fraction: float = Field(description="Pipeline bubble as a share of compute: (PP-1)/(v x micro-batches) (Narayanan et al. 2021).")
    recompute: str
    precision: str
    zero_stage: int | None
    offload: bool
    time_limit_hours: int = Field(description="sbatch --time: the pessimistic estimate plus 10%.")
    exclusive: bool = Field(description="Whole nodes on a shared cluster (seed:K20).")

    @property
    def train_batch_tokens(self) -> int:
        return self.train_batch_sequences * self.seq_len


def pipeline_layout(layers: int, pp: int, v: int) -> str:
    """megatron-core's layout string for L layers over PP x v chunks, as even as it goes: chunk i (= vpp_rank x PP +
    pp_rank, PipelineParallelLayerLayout's order) takes floor(L / (PP·v)) layers, the first L mod (PP·v) one more, so
    every pipeline rank holds ceil(L/PP) layers at most; 'E' (embedding) opens the first chunk and 'L' (loss) closes
    the last (pipeline_parallel_layer_layout.py: validate_layer_layout). Where PP x v exceeds L (by at most 2,
    layout.interleaving_fits) the embedding, then the loss, get a chunk of their own, as Llama 3 405B's 126 layers on
    16 x 8 chunks did (arXiv:2407.21783 Sec 3.3.2)."""
    chunks = pp * v
    alone = max(0, chunks - layers)  # chunks holding only the embedding (first) or the loss (last)
    body = chunks - alone
    base, extra = divmod(layers, body)
    parts = ["t" * (base + (1 if i < extra else 0)) for i in range(body)]
    parts = ["E"] + parts if alone >= 1 else ["E" + parts[0], *parts[1:]]
    parts = parts + ["L"] if alone >= 2 else [*parts[:-1], parts[-1] + "L"]
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1] == parts[i]:
            j += 1
        run = j - i + 1
        out.append(f"({parts[i]}|)*{run}" if run > 2 else "|".join([parts[i]] * run) + "|")
        i = j + 1
    return "".join(out).rstrip("|")


def host_gpus(gpus: int, gpus_per_node: int, gpus_per_host: int | None) -> int:
    """GPUs each launched host runs (torchrun --nproc-per-node, sbatch --gpus-per-node): the node's, or fewer where the
    GPU type's host is smaller than the NVLink domain the answers call a node (GB200 NVL72: 72 GPUs in one domain, 4 on
    each compute tray's operating system; gpus.yaml host_source), dividing the plan's GPUs evenly."""
    per = min(gpus, gpus_per_node)
    if gpus_per_host is not None and per > gpus_per_host:
        per = math.gcd(gpus, gpus_per_host)
    return per


def deployment(ev: Evaluation, strategy: str) -> Deployment:
    """The deployment of ``strategy`` at the evaluation's GPU count (the plan's, for the recommendation)."""
    e = ev.estimates[strategy]
    a = ev.answers
    w = ev.context["workload"]
    sp = spec(strategy)
    gpus = int(ev.gpus)
    per_node = host_gpus(gpus, a.cluster.gpus_per_node, a.cluster.spec.gpus_per_host)
    nodes = max(1, -(-gpus // per_node))
    tp, pp, v, cp = (int(x[0]) for x in (e.tp, e.pp, e.vpp, e.cp))
    if not sp.model_parallel:
        tp = pp = v = cp = 1
    dp = gpus // (tp * pp * cp)
    micro, accum = int(e.micro_batch[0]), int(e.accumulation[0])
    unchunked = 1
    if v > 1 and accum < pp:
        # megatron-core's interleaved schedule needs at least PP micro-batches a step (pipeline_parallel/schedules.py:
        # PP <= microbatch_group_size_per_vp_stage <= micro-batches): with fewer it runs plain 1F1B, its bubble v times the
        # interleaved one's ((PP-1)/(v x micro-batches), Narayanan et al. 2021).
        unchunked, v = v, 1
    first = last = None
    layout = None
    if pp > 1:
        split = stage_split(w.shape.layers, pp, v)
        fullest = math.ceil(w.shape.layers / pp)
        if split is not None and split.fullest <= fullest:
            if split.uneven:
                first, last = split.first, split.last
        else:
            layout = pipeline_layout(w.shape.layers, pp, v)
    else:
        fullest = w.shape.layers
    compute = float(e.compute_s[0])
    bubble = unchunked * float(e.bubble_s[0]) / compute if compute > 0 else 0.0
    schedule: Schedule = "none" if pp == 1 else ("interleaved-1f1b" if v > 1 else "1f1b")
    # the range the memo asks to reserve (residuals.stated_bounds), not the efficiency bands' upper end
    hi_hours = stated_bounds(a, float(e.hours["low"][0]), float(e.hours["mid"][0]), float(e.hours["high"][0]))[1]
    if a.training.stages_before:
        # The plan's hours are the pipeline's; these files run its last stage (artifacts' README), so --time is that
        # stage's share of the pessimistic time (user try 8: an SFT of 0.6 h asked Slurm for 5 days).
        before = sum(s.hours for s in stages_before(a, strategy, gpus))
        mid = float(e.hours["mid"][0])
        hi_hours = hi_hours * max(0.0, mid - before) / mid if mid > 0 else hi_hours
    moe = w.is_moe and w.experts > 0
    return Deployment(
        strategy=strategy, launcher=sp.launcher, gpu=a.cluster.spec.name, gpus=gpus, nodes=nodes, gpus_per_node=per_node,
        tensor_parallel=tp, pipeline_parallel=pp, virtual_stages=v, context_parallel=cp, data_parallel=dp,
        expert_parallel=int(e.ep[0]) if moe else 1, experts=w.experts if moe else None, experts_per_token=w.moe_top_k if moe else None,
        micro_batch=micro, accumulation=accum, train_batch_sequences=micro * accum * dp, requested_batch_sequences=w.global_batch_seqs,
        seq_len=w.seq_len, layers=w.shape.layers, hidden_size=w.shape.hidden, attention_heads=w.shape.heads,
        first_stage_layers=first, last_stage_layers=last, pipeline_layout=layout, fullest_stage_layers=fullest,
        schedule=schedule, bubble_fraction=bubble, recompute=str(e.recompute[0]), precision=a.training.precision,
        zero_stage=sp.deepspeed_stage, offload=sp.offload, time_limit_hours=max(1, math.ceil(hi_hours * SBATCH_HEADROOM)),
        exclusive=bool(a.cluster.multi_tenant),
    )


def layout_lines(d: Deployment) -> list[str]:
    """The deployment in words: the same lines in the launch README and the memo's engineering appendix, so the two
    state every number once, from one value."""
    total = d.tensor_parallel * d.pipeline_parallel * d.context_parallel * d.data_parallel
    lines = [
        plural(d.nodes, N_("GPUs: {gpus} x {gpu} = {n} node x {per_node} GPUs"), N_("GPUs: {gpus} x {gpu} = {n} nodes x {per_node} GPUs"),
               gpus=d.gpus, gpu=d.gpu, per_node=d.gpus_per_node),
        _("Parallel layout: TP {tp} x PP {pp} x CP {cp} x DP {dp} = {total} GPUs", tp=d.tensor_parallel, pp=d.pipeline_parallel,
          cp=d.context_parallel, dp=d.data_parallel, total=total),
    ]
    if d.experts is not None:
        lines.append(_("Expert parallelism {ep}: {experts} experts, {each} on each GPU of an expert group, top-{k} routing",
                       ep=d.expert_parallel, experts=d.experts, each=d.experts // d.expert_parallel, k=d.experts_per_token))
    lines.append(_("Batch: train_batch_size {seqs} sequences = micro-batch {micro} x gradient accumulation {accum} x data-parallel {dp} "
                   "({tokens} tokens per step)", seqs=d.train_batch_sequences, micro=d.micro_batch, accum=d.accumulation,
                   dp=d.data_parallel, tokens=count(d.train_batch_tokens)))
    if d.train_batch_sequences != d.requested_batch_sequences:
        lines.append(_("Batch rounded up from {asked} sequences so every data-parallel rank runs whole micro-batches",
                       asked=d.requested_batch_sequences))
    if d.schedule != "none":
        if d.pipeline_layout is not None:
            placement = _("per-chunk layout `{layout}`", layout=d.pipeline_layout)
        elif d.first_stage_layers is not None:
            placement = _("first stage {first} layers, last {last}, the others even", first=d.first_stage_layers, last=d.last_stage_layers)
        else:
            placement = _("{n} layers a stage", n=d.layers // d.pipeline_parallel)
        lines.append(_("Pipeline schedule: {schedule}, {v} model chunk(s) per GPU; bubble {bubble} of compute = (PP-1)/(v x micro-batches) "
                       "= {pp1}/({v} x {m}) (Narayanan et al. 2021); {layers} layers: {placement}; fullest stage {fullest}",
                       schedule="interleaved 1F1B" if d.schedule == "interleaved-1f1b" else "1F1B", v=d.virtual_stages,
                       bubble=f"{d.bubble_fraction:.1%}", pp1=d.pipeline_parallel - 1, m=d.accumulation, layers=d.layers,
                       placement=placement, fullest=d.fullest_stage_layers))
    return lines
