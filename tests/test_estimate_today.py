"""Issue 24: estimates that hold on today's stacks — catalog, efficiency shape, FP8, real model shapes, a measured step."""

from __future__ import annotations

import pytest

from advisor.answers import answers_from_mapping
from advisor.catalog import gpu_catalog, mfu_band, resolve_gpu
from advisor.errors import AnswerError

from .conftest import MINIMAL, with_


# ---- catalog: Blackwell and L4, each figure cited; the names people type resolve


@pytest.mark.parametrize("typed, gid", [
    ("h100", "h100-sxm"), ("H100", "h100-sxm"), ("H100 SXM5", "h100-sxm"), ("h200", "h200"), ("a100", "a100-80gb"),
    ("B200", "b200"), ("DGX B200", "b200"), ("GB200", "gb200"), ("NVL72", "gb200"), ("L4", "l4"), ("nvidia-l4", "l4"),
    ("4090", "rtx4090"), ("v100", "v100-32gb"),
])
def test_common_gpu_names_resolve(typed, gid):
    assert resolve_gpu(typed) == gid


def test_h100_is_no_longer_taken_for_h800():
    a = answers_from_mapping(with_(MINIMAL, cluster={"gpu": "h100"}))
    assert a.cluster.gpu == "h100-sxm"


def test_an_unknown_gpu_still_says_what_it_is_close_to():
    with pytest.raises(AnswerError, match="unknown GPU 'b20'"):
        answers_from_mapping(with_(MINIMAL, cluster={"gpu": "b20"}))


@pytest.mark.parametrize("gid, memory, peak, generation", [
    ("b200", 180, 2250, "blackwell"), ("gb200", 187.5, 2500, "blackwell"), ("l4", 24, 121, "ada"),
])
def test_new_parts_carry_their_cited_figures(gid, memory, peak, generation):
    g = gpu_catalog()[gid]
    assert (g.memory_gb, g.peak_tflops, g.generation) == (memory, peak, generation)
    assert "datasheet" in g.source or "estimators-notes" in g.source
    assert mfu_band(generation).source != mfu_band("ampere").source  # Blackwell has its own cited band


def test_blackwell_is_priced_with_its_own_band():
    band = mfu_band("blackwell")
    assert "Megatron-Bridge" in band.source and band.low < band.mid < band.high
