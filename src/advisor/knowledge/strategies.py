"""The strategy registry: every distributed-training strategy advisor can recommend, with the traits the estimate,
the launch files and the memo branch on — in one place, so adding a strategy means adding one entry here and, where
it behaves like no existing one, its formula.

Bottom layer: imports nothing from advisor, no numpy, no pydantic (answers, rules and the estimate all read it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from msgspec import Struct
from typing import Literal

from advisor.base.i18n import N_, _

StatesModel = Literal["replicated", "fsdp", "hsdp", "zero1", "deepspeed-estimator", "megatron"]
GradientSync = Literal["all-reduce-per-step", "low-rank-all-reduce", "reduce-scatter-per-micro-batch", "sharded-params", "hybrid-sharded",
                       "quantised-sharded", "megatron"]
Launcher = Literal["torchrun", "horovodrun", "deepspeed", "megatron"]


POWERSGD_RANK = 4
"""PowerSGD's matrix_approximation_rank in the plan: the paper's rank for language modelling (rank-4 PowerSGD against SGD
on 16 workers, Table 7; rank 2 for ResNet18 on CIFAR-10, Table 6: epfml/powersgd hyperparameters.md). PyTorch's
PowerSGDState docstring (torch 2.13, ddp_comm_hooks/powerSGD_hook.py) says to start from 1 and double until the accuracy
is satisfactory, 'typically only a small value 1-4 is used', raised to 32 'for some NLP tasks (as shown in Appendix D of
the original paper)' [policy: a convergence knob the team validates; at 32 the compressed volume is 8x larger, 2.4% of
DDP's on 1.3B]."""

POWERSGD_WARMUP_SHARE = 0.1
"""Share of the run's optimizer steps that all-reduce uncompressed before PowerSGD starts (start_powerSGD_iter): the
PowerSGDState docstring suggests 'to start with 10% of total training steps, and increase it until a satisfactory
accuracy is reached', and no fewer than the learning-rate warm-up's steps."""

POWERSGD_MIN_COMPRESSION_RATE = 2.0
"""PowerSGDState's default min_compression_rate: a matrix is compressed only where (n + m)·r x 2 < n·m; the rest —
every 1-D tensor (biases, norm weights) — is all-reduced as it is (powerSGD_hook.py: _should_compress)."""

POWERSGD_MIN_START_ITER = 2
"""PowerSGDState refuses start_powerSGD_iter <= 1 with error feedback or warm start on ('PowerSGD can only be applied
after the first two iterations in DDP': DDP rebuilds its buckets after the first)."""


def powersgd_start_iter(steps: float) -> int:
    """start_powerSGD_iter for a run of ``steps`` optimizer steps: POWERSGD_WARMUP_SHARE of them, never below the 2
    PowerSGDState accepts with error feedback on."""
    return max(POWERSGD_MIN_START_ITER, math.ceil(POWERSGD_WARMUP_SHARE * steps))


class StrategySpec(Struct, frozen=True):
    id: str
    framework: str
    """Display name (a product name: the same in every language)."""
    states: StatesModel
    """How model states (weights, gradients, optimizer) are held per GPU — selects the memory formula."""
    memory_convention: str
    """The memory formula in words, with its source (shown in the memo)."""
    gradient_sync: GradientSync
    """How gradients (and sharded parameters) move each step — selects the communication plan."""
    launcher: Launcher
    """What the launch files start it with."""
    deepspeed_stage: int | None = None
    """ZeRO stage for ds_config.json (DeepSpeed strategies only)."""
    offload: bool = False
    """Optimizer state and parameters live in CPU memory (ZeRO-Offload/Infinity)."""
    model_parallel: bool = False
    """Tensor/pipeline/context/expert parallelism and Megatron's layout search apply."""
    expert_parallel: bool = False
    """A mixture of experts' experts are split over GPUs (expert parallelism) rather than sharded and gathered whole:
    Megatron's EP, PyTorch-native EP beside FSDP (torchtitan), DeepSpeed-MoE beside ZeRO-1/2 (deepspeed.moe.layer.MoE
    ep_size; DeepSpeed's engine.py refuses MoE with ZeRO stage 3: 'MoE not supported with Stage 3')."""
    zeropp: bool = False
    """ZeRO++ on top of ZeRO-3 (arXiv:2306.10209; DeepSpeed zero_quantized_weights, zero_hpz_partition_size,
    zero_quantized_gradients): int8 forward weight gathers (qwZ), a secondary bf16 copy of the weights partitioned
    inside the node so backward gathers stay on NVLink (hpZ), int4 gradient averaging by all-to-all (qgZ)."""
    powersgd_rank: int | None = None
    """DDP with PyTorch's PowerSGD communication hook (torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook;
    Vogels, Karimireddy, Jaggi, NeurIPS 2019, arXiv:1905.13727) at this matrix_approximation_rank: each n x m gradient
    matrix crosses the network as two all-reduced factors P (n x r) and Q (m x r), (n + m)·r values instead of n·m."""
    resident_twin: str | None = None
    """An offloading strategy's GPU-resident counterpart: where that fits, the offload takes its micro-batch (the
    offload exists to fit, not to change the batch layout)."""


STATE_BYTES_PER_PARAM = 16.0
"""Bytes of model state per parameter for mixed-precision Adam, replicated: 2 (bf16 weights) + 2 (bf16 gradients) + 12
(fp32 master weights, momentum, variance) — Transformer Math 101 (EleutherAI), estimators-notes §4. The one home of this
figure: every sentence and formula that states it reads it here."""

MODEL_STATE_BYTES = f"{STATE_BYTES_PER_PARAM:g} B/param"
"""What {sb} stands for in a memory convention (each marked N_ above its strategy, translated where the advice words it)."""


REGISTRY: tuple[StrategySpec, ...] = (
    StrategySpec("ddp", "PyTorch DDP", "replicated",
                 N_("{sb} replicated: 2 weights + 2 grads + 12 Adam (fp32 master, m, v) (Transformer Math 101)"),
                 "all-reduce-per-step", "torchrun"),
    StrategySpec("ddp-powersgd", N_("PyTorch DDP + PowerSGD gradient compression"), "replicated",
                 N_("{sb} replicated (Transformer Math 101) + the error-feedback buffer, one gradient's size (PyTorch DDP "
                    "Communication Hooks: 'extra memory of the same size as the model's gradients'), + the P and Q factors"),
                 "low-rank-all-reduce", "torchrun", powersgd_rank=POWERSGD_RANK),
    StrategySpec("horovod", "Horovod", "replicated",
                 N_("{sb} replicated: 2 weights + 2 grads + 12 Adam (fp32 master, m, v) (Transformer Math 101)"),
                 "all-reduce-per-step", "horovodrun"),
    StrategySpec("fsdp", N_("PyTorch FSDP (FULL_SHARD)"), "fsdp",
                 N_("{sb} / GPUs + 2 unsharded layers in flight (Ultra-Scale Playbook ZeRO-3/FSDP; llm-analysis prefetch buffers)"),
                 "sharded-params", "torchrun", expert_parallel=True),
    StrategySpec("fsdp-hybrid", N_("PyTorch FSDP HYBRID_SHARD (HSDP)"), "hsdp",
                 N_("{sb} / GPUs per node + 2 unsharded layers in flight: sharded inside the node, replicated across nodes (PyTorch FSDP, "
                    "arXiv:2304.11277 Sec 3.2.2)"),
                 "hybrid-sharded", "torchrun"),
    StrategySpec("deepspeed-zero1", N_("DeepSpeed ZeRO stage 1"), "zero1",
                 N_("2P + 2P + 12P/GPUs (Ultra-Scale Playbook ZeRO-1; DeepSpeed ships no ZeRO-1 estimator)"),
                 "all-reduce-per-step", "deepspeed", deepspeed_stage=1, expert_parallel=True),
    StrategySpec("deepspeed-zero2", N_("DeepSpeed ZeRO stage 2"), "deepspeed-estimator",
                 N_("2P + 18P/GPUs (DeepSpeed estimate_zero2_model_states_mem_needs, offload_optimizer=none)"),
                 "reduce-scatter-per-micro-batch", "deepspeed", deepspeed_stage=2, expert_parallel=True),
    StrategySpec("deepspeed-zero3", N_("DeepSpeed ZeRO stage 3"), "deepspeed-estimator",
                 N_("4 x largest layer + 18P/GPUs (DeepSpeed estimate_zero3_model_states_mem_needs, no offload)"),
                 "sharded-params", "deepspeed", deepspeed_stage=3),
    StrategySpec("deepspeed-zeropp", N_("DeepSpeed ZeRO++ (ZeRO-3 with qwZ, hpZ, qgZ)"), "deepspeed-estimator",
                 N_("4 x largest layer + 18P/GPUs (DeepSpeed estimate_zero3_model_states_mem_needs) + 2P/GPUs per node for hpZ's secondary weight partition (arXiv:2306.10209 Sec 3.2)"),
                 "quantised-sharded", "deepspeed", deepspeed_stage=3, zeropp=True),
    StrategySpec("deepspeed-zero3-offload", N_("DeepSpeed ZeRO-3 with CPU offload (ZeRO-Offload/Infinity)"), "deepspeed-estimator",
                 N_("4 x largest layer on GPU; CPU 18P/nodes x 1.5 (DeepSpeed estimate_zero3, offload_optimizer=cpu, offload_param=cpu, zero_init=1)"),
                 "sharded-params", "deepspeed", deepspeed_stage=3, offload=True, resident_twin="deepspeed-zero3"),
    StrategySpec("megatron-3d", N_("Megatron-LM 3D parallelism (tensor x pipeline x data)"), "megatron",
                 N_("P/(TP x PP) x (6 + 12/DP) with the distributed optimizer (Megatron theoretical_memory_usage.py); MoE experts spread over the data-parallel ranks"),
                 "megatron", "megatron", model_parallel=True, expert_parallel=True),
)
"""In order of engineering simplicity: the last tie-break of the choice, and the order of every table."""

SPECS: dict[str, StrategySpec] = {s.id: s for s in REGISTRY}
STRATEGIES: tuple[str, ...] = tuple(SPECS)


class _Translated(Mapping[str, str]):
    """Framework names read in the current language: marked N_ where they are written, translated on access (the Chinese
    summary said 'DeepSpeed ZeRO stage 2' in English). Proper names such as Horovod are not marked and stay as written."""

    def __init__(self, names: dict[str, str]) -> None:
        self._names = names

    def __getitem__(self, key: str) -> str:
        return _(self._names[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


FRAMEWORKS: Mapping[str, str] = _Translated({s.id: s.framework for s in REGISTRY})
MEMORY_CONVENTION: dict[str, str] = {s.id: s.memory_convention for s in REGISTRY}
SIMPLICITY: dict[str, int] = {s.id: i for i, s in enumerate(REGISTRY)}
DEEPSPEED_ESTIMATED: tuple[str, ...] = tuple(s.id for s in REGISTRY if s.states == "deepspeed-estimator")
"""Strategies whose memory is DeepSpeed's own estimator (ZeRO-2, ZeRO-3, ZeRO-3 offload); the memo prints its table."""


def spec(strategy: str) -> StrategySpec:
    return SPECS[strategy]
