"""DeepSpeed's own model-state memory estimators, transcribed so advisor needs no torch.

DeepSpeed prints a table ``per CPU | per GPU | Options`` from
``estimate_zero2_model_states_mem_needs`` (deepspeed/runtime/zero/stage_1_and_2.py) and
``estimate_zero3_model_states_mem_needs`` (deepspeed/runtime/zero/stage3.py); both are transcribed
here line for line from DeepSpeed 0.19.8 (estimators-notes §2), including their ``int()``
truncations and the 1.5 ``additional_buffer_factor`` that DeepSpeed applies to CPU memory only.
A test compares every row with DeepSpeed itself when it is installed (CI installs it). The functions take
numpy arrays of GPU counts so a sweep prices thousands of layouts at once; ``int()`` becomes ``floor``
(the same for these positive byte counts) and ``max`` becomes ``np.maximum``.

These are *model states* only (parameters, gradients, optimizer states): DeepSpeed's docs leave
activations as a stub, so advisor adds Korthikanti et al. activations on top (estimate.py).
"""

from __future__ import annotations

from msgspec import Struct

import numpy as np

ADDITIONAL_BUFFER_FACTOR = 1.5
"""DeepSpeed's default ``additional_buffer_factor``, "to be conservative", CPU memory only."""


class DsRow(Struct, frozen=True):
    """One row of DeepSpeed's printed estimate: the options and the bytes it asks for."""

    stage: int
    offload_optimizer: bool
    offload_param: bool
    zero_init: bool
    gpu_bytes: int
    cpu_bytes: int

    @property
    def options(self) -> str:
        """The row's options, worded as DeepSpeed prints them."""
        optimizer = f"offload_optimizer={'cpu' if self.offload_optimizer else 'none'}"
        if self.stage == 2:
            return optimizer
        return f"offload_param={'cpu' if self.offload_param else 'none'}, {optimizer}, zero_init={int(self.zero_init)}"


Count = int | np.ndarray


def zero2(total_params: float, gpus_per_node: Count, nodes: Count, cpu_offload: bool, abf: float = ADDITIONAL_BUFFER_FACTOR) -> tuple[np.ndarray, np.ndarray]:
    """(cpu_bytes, gpu_bytes) per DeepSpeed ``estimate_zero2_model_states_mem_needs``."""
    total_gpus = np.asarray(nodes) * np.asarray(gpus_per_node)
    if cpu_offload:
        gpu_mem = 2 * total_params * np.ones_like(total_gpus, dtype=float)
        cpu_mem = total_params * np.maximum(4 * total_gpus, 16) * abf
    else:
        # 2 = params_16bit; 18 = 2 grads_16bit + 4 grads_32bit + 4 params_32bit + 8 optimizer states (DeepSpeed's comment)
        gpu_mem = 2 * total_params + np.floor(18 * total_params / total_gpus)
        cpu_mem = total_params * 4 * np.asarray(gpus_per_node) * abf * np.ones_like(total_gpus, dtype=float)
    return np.floor(cpu_mem), np.floor(gpu_mem)


def zero3(
    total_params: float,
    largest_layer_params: float,
    gpus_per_node: Count,
    nodes: Count,
    cpu_offload: bool,
    cpu_offload_params: bool,
    zero_init: bool,
    abf: float = ADDITIONAL_BUFFER_FACTOR,
) -> tuple[np.ndarray, np.ndarray]:
    """(cpu_bytes, gpu_bytes) per DeepSpeed ``estimate_zero3_model_states_mem_needs``."""
    per_node = np.asarray(gpus_per_node)
    nodes = np.asarray(nodes)
    total_gpus = nodes * per_node
    gpus_factor = 1 / nodes
    largest_layer_memory = 4 * largest_layer_params * np.ones_like(total_gpus, dtype=float)  # 2 B fp16 params gathered + 2 B fp16 grads
    if cpu_offload:
        if cpu_offload_params:
            gpu_mem = largest_layer_memory
            if zero_init:
                cpu_mem = total_params * 18 * gpus_factor * abf
            else:
                cpu_mem = total_params * np.maximum(4 * per_node, 18 * gpus_factor) * abf
        else:
            gpu_mem = largest_layer_memory + np.floor(2 * total_params / total_gpus)
            if zero_init:
                cpu_mem = total_params * 16 * gpus_factor * abf
            else:
                cpu_mem = total_params * np.maximum(4 * per_node, 16 * gpus_factor) * abf
    else:
        gpu_mem = largest_layer_memory + np.floor(18 * total_params / total_gpus)
        if zero_init:
            cpu_mem = largest_layer_params * 4 * per_node * abf * np.ones_like(total_gpus, dtype=float)
        else:
            cpu_mem = total_params * 4 * per_node * abf * np.ones_like(total_gpus, dtype=float)
    return np.floor(cpu_mem), np.floor(gpu_mem)


def estimator_table(stage: int, total_params: float, largest_layer_params: float, gpus_per_node: int, nodes: int) -> list[DsRow]:
    """Every row DeepSpeed's ``..._all_cold`` prints for this stage, in its order."""
    rows: list[DsRow] = []
    if stage == 2:
        for off in (True, False):
            cpu, gpu = zero2(total_params, gpus_per_node, nodes, off)
            rows.append(DsRow(2, off, False, False, int(gpu), int(cpu)))
        return rows
    for off_opt, off_param in ((True, True), (True, False), (False, False)):
        for init in (True, False):
            cpu, gpu = zero3(total_params, largest_layer_params, gpus_per_node, nodes, off_opt, off_param, init)
            rows.append(DsRow(3, off_opt, off_param, init, int(gpu), int(cpu)))
    return rows
