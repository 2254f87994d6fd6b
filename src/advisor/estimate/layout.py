"""Megatron-style layouts: tensor, pipeline (with interleaving), context parallel degrees the search may choose."""

from __future__ import annotations

from msgspec import Struct
from functools import lru_cache

import numpy as np

from advisor.estimate.workload import Hardware, Workload


# ------------------------------------------------------------------------------ megatron layout

_TP_CHOICES = (1, 2, 4, 8)
MAX_PIPELINE_STAGES = 128
"""Deepest pipeline tried; Megatron-LM 2021 Table 1 goes to 64 stages, MT-NLG used 35 (arXiv:2201.11990)."""

VIRTUAL_STAGE_CHOICES = (1, 2, 4, 8)
"""Interleaved 1F1B: each GPU holds v model chunks and the bubble shrinks v-fold (Narayanan et al. 2021 Sec 2.2.2)."""

MEMORY_HEADROOM = 0.9
"""Layouts, micro-batches and recomputation are chosen among those that leave 10% of GPU memory free where any does
(fragmentation, NCCL buffers; issue 10); a plan at 97% of memory fits on paper and runs out of memory in practice."""


SHALLOW_PIPELINES = 16
"""Every depth up to 16 is tried, so a GPU count like 10,000 (2^4 x 5^4) still finds a layout that divides it."""


def interleaving_fits(layers: int, pp: int, v: int) -> bool:
    """Whether PP x v model chunks can each hold something: v = 1 always; interleaved, every chunk a layer, or — as Llama 3
    405B did — the first chunk only the embedding and the last only the output and loss, so PP x v may reach layers + 2
    (126 layers on 16 stages of 8 chunks: 'the first model chunk on the first stage has only the embedding, and the last
    model chunk on the last stage has only output projection and loss calculation', arXiv:2407.21783 Sec 3.3.2;
    megatron-core's --pipeline-model-parallel-layout takes such chunks, deployment.pipeline_layout)."""
    return v == 1 or (pp > 1 and pp * v <= layers + 2)


def pipeline_choices(layers: int) -> tuple[int, ...]:
    """Pipeline depths tried: every depth up to 16, every divisor of the layer count and every power of two, up to 128.

    Stages need not be even: Llama 3 405B put 126 layers on 16 stages (arXiv:2407.21783 Sec 3.3.2), and Megatron-LM
    takes uneven first and last stages (--decoder-first/last-pipeline-num-layers); the slowest stage sets the pace.
    """
    top = min(layers, MAX_PIPELINE_STAGES)
    powers = {1 << k for k in range(8) if (1 << k) <= top}
    shallow = set(range(1, min(top, SHALLOW_PIPELINES) + 1))
    return tuple(sorted(powers | shallow | {p for p in range(1, top + 1) if layers % p == 0}))


class StageSplit(Struct, frozen=True):
    """How Megatron places ``layers`` on ``pp`` pipeline stages of ``v`` model chunks each: the first and last stages may
    hold a different count (Megatron-LM --decoder-first/last-pipeline-num-layers; megatron-core TransformerConfig
    num_layers_in_first/last_pipeline_stage), every middle stage the same."""

    first: int
    middle: int
    last: int
    uneven: bool

    @property
    def fullest(self) -> int:
        return max(self.first, self.middle, self.last)


@lru_cache(maxsize=4096)
def stage_split(layers: int, pp: int, v: int = 1) -> StageSplit | None:
    """The split megatron-core accepts with the fewest layers on the fullest stage, or None where there is none.

    megatron-core's rules (transformer_config.py __post_init__, transformer_block.get_num_layers_to_build): an even
    split needs layers % PP == 0 and, interleaved, (layers / PP) % v == 0; an uneven one gives the first and last stages
    their own counts, each a positive multiple of v, and the middle stages the rest, divisible by their count, each a
    multiple of v. Ties keep the middle stages fullest (first and last also hold the embedding and the loss).
    """
    if pp <= 1:
        return StageSplit(layers, 0, 0, False) if v == 1 else None
    if layers % pp == 0 and (layers // pp) % v == 0:
        each = layers // pp
        return StageSplit(each, each, each, False)
    if layers % v:
        return None  # every stage holds whole chunks of v
    units, middles = layers // v, pp - 2
    best: tuple[int, int, int, int] | None = None
    for m in range(1 if middles else 0, (units - 2) // middles + 1 if middles else 1):
        rest = units - middles * m
        if rest < 2:
            break
        f = rest // 2
        key = (max(m, rest - f), -m, f, rest - f)
        if best is None or key < best:
            best = key
    if best is None:
        return None
    _, neg_m, f, last = best
    return StageSplit(f * v, -neg_m * v, last * v, True)


def stage_factor(w: Workload, pp: np.ndarray | float) -> np.ndarray:
    """Slowest (fullest) stage against an even split: ceil(L/PP) x PP / L, 1 when the layers divide evenly. Every (PP, v)
    the search tries reaches it: megatron-core's flags where they can (stage_split), its per-chunk layout otherwise
    (deployment.pipeline_layout)."""
    pp = np.asarray(pp, dtype=float)
    return np.ceil(w.shape.layers / pp) * pp / w.shape.layers


def interleave_memory_factor(pp: np.ndarray, vpp: np.ndarray) -> np.ndarray:
    """Activations the first stage holds under interleaving: 1 + (PP-1)/(PP·v) of a plain 1F1B's (estimators-notes §6)."""
    return np.where(vpp > 1, 1.0 + (pp - 1.0) / (pp * vpp), 1.0)




MIN_HIDDEN_PER_TP_RANK = 768
"""Every layout in Megatron-LM 2021 Table 1 keeps at least 768 columns of the hidden size per tensor-parallel rank
(18.4B: 6,144 / TP 8; 7.5B: 4,096 / TP 4; 1.7B runs TP 1): thinner slices make GEMMs too small to keep a GPU busy,
which the compute model does not otherwise see."""


CONTEXT_PARALLEL_FROM = 16_384
"""Context parallelism is tried from 16K-token sequences: Llama 3 405B trained 8K sequences with CP1 and 128K with CP16
(arXiv:2407.21783 Table 4). NVIDIA's tuned 405B recipes run CP2 at 8,192 (Megatron-Bridge docs/performance-summary.md,
25.11), but searching CP from 8K made the published full runs (Meta's, at CP1) more optimistic in median (0.145 -> 0.161
GPU-hour error when first tried; 0.148 -> 0.151 with NCCL's latency and the last micro-batch's overlap priced,
tests/test_estimate_fidelity.py's 15% guard): the search picks CP4 x TP2 for Llama 3 70B at 8K, trading the exposed
tensor-parallel all-reduce for a K/V exchange hidden under attention, where NVIDIA's own recipe runs TP4 x CP2 — a cost
of ring attention at short sequences (its split attention kernels) the model does not price. Left at 16K (issue 32).
Its K/V exchange is priced where it cannot hide under the attention it feeds (communication.ATTENTION)."""

CP_CHOICES = (1, 2, 4, 8, 16)


def _layouts(w: Workload, hw: Hardware) -> list[tuple[int, int, int, int]]:
    """(TP, CP, PP, v) candidates: TP inside a node, dividing the heads, not thinner than Megatron's published layouts; CP only for long
    sequences, each rank keeping at least 1,024 tokens; v > 1 only where every model chunk holds a layer, the embedding or the
    loss (interleaving_fits)."""
    cps = [c for c in CP_CHOICES if c == 1 or (w.seq_len >= CONTEXT_PARALLEL_FROM and w.seq_len // c >= 1024)]
    out = []
    for pp in pipeline_choices(w.shape.layers):
        for tp in _TP_CHOICES:
            if tp > hw.gpus_per_node or (tp > 1 and w.shape.hidden / tp < MIN_HIDDEN_PER_TP_RANK) or w.shape.heads % tp:
                continue  # Megatron-LM splits whole attention heads: num_attention_heads % TP == 0
            for cp in cps:
                for v in VIRTUAL_STAGE_CHOICES:
                    if interleaving_fits(w.shape.layers, pp, v):
                        out.append((tp, cp, pp, v))
    return out


def expert_degree(strategy: str, w: Workload, n: np.ndarray, dp: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """Expert-parallel degree for a mixture of experts: 1 for a dense model or a strategy without expert parallelism.

    Megatron spreads the experts over the data-parallel ranks as far as they divide them: EP = gcd(DP, experts)
    (megatron-core moe_layer.py asserts num_moe_experts % EP == 0, and parallel_state.initialize_model_parallel forms
    expert groups inside the data-parallel ones). PyTorch-native expert parallelism with FSDP (torchtitan's MoE,
    megatron-core's MoE README: FSDP with EP) keeps the experts inside a node so the token all-to-all stays on NVLink:
    EP = gcd(GPUs, experts, GPUs per node) — advisor's policy, no published figure.
    """
    ones = np.ones(np.broadcast_shapes(np.shape(n), np.shape(dp)))
    if not w.is_moe or w.experts <= 1:
        return ones
    from advisor.knowledge.strategies import spec  # bottom layer; imported here to keep layout's imports to the workload

    sp = spec(strategy)
    if sp.model_parallel:
        whole = np.maximum(np.floor(np.asarray(dp, dtype=float)), 1.0).astype(np.int64)
        return np.gcd(whole, w.experts).astype(float) * ones
    if sp.expert_parallel:
        whole = np.maximum(np.floor(np.asarray(n, dtype=float)), 1.0).astype(np.int64)
        return np.gcd(np.gcd(whole, w.experts), gpus_per_node).astype(float) * ones
    return ones
