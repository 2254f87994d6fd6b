"""The RTX 4090 is priced at a band read from a run measured on it, not at the Ampere stand-in (issue 32)."""

from __future__ import annotations

import pytest

from advisor.estimate import estimate_all
from advisor.inputs.answers import answers_from_mapping
from advisor.knowledge.catalog import efficiency_data, gpu_catalog, mfu_band

NANOGPT_4090_TOKENS_PER_GPU_S = 221_000 / 2
"""tyler-romero/nanogpt-speedrun, worklog record 1: 221k tokens/s on 2 x RTX 4090 (bench/sources/ada-rtx4090-nanogpt.md)."""


def _nanogpt_on(gpu: str) -> float:
    """advisor's tokens/s a GPU for the speedrun's baseline: GPT-2 124M, 2 GPUs under DDP, torch.compile, micro-batch 32."""
    a = answers_from_mapping({
        "model": {"params": 124.35e6, "layers": 12, "hidden_size": 768, "attention_heads": 12, "vocab_size": 50304,
                  "seq_len": 1024},
        "training": {"method": "pretrain", "tokens": 6.44e9, "micro_batch_size": 32, "global_batch_tokens": 262144,
                     "activation_recompute": "none"},
        "cluster": {"gpu": gpu, "gpus": 2}, "budget": {"price_per_gpu_hour": 1}})
    est, ctx = estimate_all(a)
    e = est["ddp"]
    seconds = float(e.hours["mid"][0]) * 3600.0 / float(e.wallclock_factor[0])
    return ctx["tokens"] / seconds / 2


def test_the_measured_4090_run_is_priced_within_ten_percent():
    # At the Ampere stand-in the model gave 93.9k tokens/s a GPU, 0.85 of the run.
    assert _nanogpt_on("rtx4090") / NANOGPT_4090_TOKENS_PER_GPU_S == pytest.approx(1.0, abs=0.10)


def test_the_4090s_band_names_its_run_and_other_ada_parts_keep_the_generation_band():
    g = gpu_catalog()["rtx4090"]
    assert g.generation == "ada" and g.band == "rtx4090"
    assert "nanogpt-speedrun" in mfu_band(g.band).source
    assert mfu_band(g.band).mid > mfu_band("ada").mid
    for gid in ("l40s", "l20", "l4"):
        assert gpu_catalog()[gid].band == "ada"


def test_every_gpu_is_priced_at_a_band_the_efficiency_file_has():
    bands, _ = efficiency_data()
    for gid, g in gpu_catalog().items():
        assert g.band in bands or g.efficiency_band is None, gid
        if g.efficiency_band:
            assert g.efficiency_band in bands, f"{gid}: efficiency_band {g.efficiency_band!r} is not in efficiency.yaml"


def test_the_assumptions_name_the_4090s_own_band(rules):
    from advisor.decision.advice import advise

    from .conftest import MINIMAL, with_

    advice = advise(answers_from_mapping(with_(MINIMAL, cluster={"gpu": "rtx4090", "gpus": 8})), rules)
    band = [line for line in advice.to_dict()["assumptions"] if line.startswith("Efficiency band for")]
    assert band and band[0].startswith("Efficiency band for NVIDIA GeForce RTX 4090 24GB (")
    assert "0.52 / 0.64 / 0.78" in band[0] and "nanogpt-speedrun" in band[0]
