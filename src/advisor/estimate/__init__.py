"""The cost and estimate model: memory, compute, communication, time and cost per strategy.

Pure functions over numpy arrays of GPU counts, so one call prices a single configuration and
the same call prices a sweep. Every formula names its source; figures come from the catalog data
files. Conventions (which bytes-per-parameter rule, which overlap) are stated in ``ASSUMPTIONS``
and printed with every estimate, because published tools disagree (estimators-notes §11).

A package: ``workload`` (inputs and conventions), ``memory``, ``communication``, ``layout`` (Megatron's
search space) and ``model`` (the estimate); this module re-exports the public names.
"""

from __future__ import annotations

from .workload import (  # noqa: F401
    ASSUMPTIONS,
    ATTENTION_FLOPS_PER_LAYER_TOKEN,
    BATCH_NOT_GIVEN,
    CPU_ADAM_BYTES_PER_PARAM,
    CUDA_OVERHEAD_BYTES,
    DEFAULT_BATCHES,
    FULL_RECOMPUTE_FLOPS,
    GB,
    HEAD_DIM,
    HOST_MEMORY_BW,
    HOURS_LOST_PER_INTERRUPTION,
    Hardware,
    INTERRUPTIONS_PER_GPU_HOUR,
    LLAMA3_DAYS,
    LLAMA3_EFFECTIVE,
    LLAMA3_GPUS,
    LLAMA3_INTERRUPTIONS,
    MICRO_BATCH_CHOICES,
    OVERLAP_BACKWARD,
    PUBLISHED_SHAPES,
    SELECTIVE_RECOMPUTE_FLOPS,
    Shape,
    Workload,
    default_batch_tokens,
    hardware_from,
    infer_shape,
    interruption_overhead,
    time_off_training,
    nearest_published,
    workload_from,
)
from .communication import (  # noqa: F401
    Collective,
    allreduce_time,
    communication_plan,
    exposed_communication,
)
from .memory import (  # noqa: F401
    activation_bytes,
    cpu_bytes_per_node,
    deepspeed_table,
    model_state_bytes,
)
from .layout import (  # noqa: F401
    CONTEXT_PARALLEL_FROM,
    CP_CHOICES,
    MAX_PIPELINE_STAGES,
    MEMORY_HEADROOM,
    MIN_HIDDEN_PER_TP_RANK,
    SHALLOW_PIPELINES,
    VIRTUAL_STAGE_CHOICES,
    interleave_memory_factor,
    pipeline_choices,
    stage_factor,
)
from .model import (  # noqa: F401
    PARTIAL_RECOMPUTE,
    RECOMPUTE_CODE,
    StrategyEstimate,
    TOKENS_DURATION_TOLERANCE,
    cost,
    estimate_all,
    estimate_strategy,
    gpu_hours_floor,
    hours_before_calibration,
)
from .residuals import (  # noqa: F401
    StatedRange,
    deadline_hours,
    judged_limits,
    stated_bounds,
    stated_range,
    upper_factor,
)
