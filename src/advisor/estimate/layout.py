"""Megatron-style layouts: tensor, pipeline (with interleaving), context parallel degrees the search may choose."""

from __future__ import annotations

import numpy as np

from .workload import Hardware, Workload


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


def pipeline_choices(layers: int) -> tuple[int, ...]:
    """Pipeline depths tried: every depth up to 16, every divisor of the layer count and every power of two, up to 128.

    Stages need not be even: Llama 3 405B put 126 layers on 16 stages (arXiv:2407.21783 Sec 3.3.2), and Megatron-LM
    takes uneven first and last stages (--decoder-first/last-pipeline-num-layers); the slowest stage sets the pace.
    """
    top = min(layers, MAX_PIPELINE_STAGES)
    powers = {1 << k for k in range(8) if (1 << k) <= top}
    shallow = set(range(1, min(top, SHALLOW_PIPELINES) + 1))
    return tuple(sorted(powers | shallow | {p for p in range(1, top + 1) if layers % p == 0}))


def stage_factor(w: Workload, pp: np.ndarray | float) -> np.ndarray:
    """Slowest (fullest) stage against an even split: ceil(L/PP) x PP / L, 1 when the layers divide evenly."""
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
"""Context parallelism is tried from 16K-token sequences: Llama 3 405B trained 8K sequences with CP1 and 128K with
CP16 (arXiv:2407.21783 Table 4); the Ultra-Scale Playbook adds it 'for long sequences'."""

CP_CHOICES = (1, 2, 4, 8, 16)


def _layouts(w: Workload, hw: Hardware) -> list[tuple[int, int, int, int]]:
    """(TP, CP, PP, v) candidates: TP inside a node, dividing the heads, not thinner than Megatron's published layouts; CP only for long
    sequences, each rank keeping at least 1,024 tokens; v > 1 only where each virtual stage keeps at least one layer."""
    cps = [c for c in CP_CHOICES if c == 1 or (w.seq_len >= CONTEXT_PARALLEL_FROM and w.seq_len // c >= 1024)]
    out = []
    for pp in pipeline_choices(w.shape.layers):
        for tp in _TP_CHOICES:
            if tp > hw.gpus_per_node or (tp > 1 and w.shape.hidden / tp < MIN_HIDDEN_PER_TP_RANK) or w.shape.heads % tp:
                continue  # Megatron-LM splits whole attention heads: num_attention_heads % TP == 0
            for cp in cps:
                for v in VIRTUAL_STAGE_CHOICES:
                    if v == 1 or (pp > 1 and pp * v <= w.shape.layers):
                        out.append((tp, cp, pp, v))
    return out
