"""DeepSpeed's own config parser, run on CPU without a process group: what the launch-file tests feed ds_config.json to."""

from __future__ import annotations

import warnings
from typing import Any

import pytest


def parsed_by_deepspeed(cfg: dict[str, Any], data_parallel: int) -> Any:
    """DeepSpeedConfig(cfg) with a data-parallel size of ``data_parallel`` (skipped where DeepSpeed is not installed);
    also checks DeepSpeed refuses the same config with a misspelt ZeRO key, so a parser that accepts anything fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pytest.importorskip("deepspeed", reason="DeepSpeed is not installed (CI installs it: see .ci/run); its config schema check is skipped")
        import deepspeed.runtime.config as dsc

    class DataParallel:
        """DeepSpeedConfig reads the data-parallel size from an mpu; no process group is needed."""

        def get_data_parallel_world_size(self) -> int:
            return data_parallel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = dsc.dist.get_rank
        dsc.dist.get_rank = lambda *a, **k: 0
        try:
            parsed = dsc.DeepSpeedConfig(cfg, mpu=DataParallel())
            with pytest.raises(Exception):  # noqa: B017 (the type differs across DeepSpeed versions) — an unknown ZeRO key is refused
                dsc.DeepSpeedConfig(dict(cfg, zero_optimization=dict(cfg["zero_optimization"], stagee=1)), mpu=DataParallel())
        finally:
            dsc.dist.get_rank = real
    assert parsed.train_batch_size == cfg["train_batch_size"]
    assert parsed.zero_optimization_stage == cfg["zero_optimization"]["stage"]
    return parsed
