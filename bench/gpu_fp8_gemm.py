"""Measure FP8 against bf16 matrix products on one Hopper/Blackwell GPU (issue 32: FP8 priced per recipe).

Run on a CUDA machine with torch:  python bench/gpu_fp8_gemm.py > fp8.jsonl
For each shape (8192^3, and Llama 3 8B's linear layers at 16,384 tokens: qkv, o, gate+up, down) it times the bf16
product (torch.mm) and the FP8 e4m3 product with per-tensor scales (torch._scaled_mm, the kernel TransformerEngine-style
fused recipes reach once their casts are fused away), each after warm-ups with CUDA events, and prints TFLOP/s and the
ratio. It also times the per-tensor cast of the activation (amax, scale, cast to e4m3): the work an unfused recipe adds.
"""

from __future__ import annotations

import json
import sys

import torch
from gpu_moe_layer import timed as moe_timed  # bench/ is on the path when a bench script runs

SHAPES = {  # name: (M tokens, K in, N out)
    "square-8192": (8192, 8192, 8192),
    "llama3-8b-qkv": (16384, 4096, 6144),
    "llama3-8b-o": (16384, 4096, 4096),
    "llama3-8b-gate-up": (16384, 4096, 28672),
    "llama3-8b-down": (16384, 14336, 4096),
}


def timed(fn, repeats: int = 30) -> float:
    return moe_timed(fn, "cuda", repeats, warmup=5)


def measure(name: str, m: int, k: int, n: int) -> dict:
    e4m3 = torch.float8_e4m3fn
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * m * k * n
    bf16 = timed(lambda: torch.mm(a, b.t()))
    scale_a = (a.abs().max() / 448.0).float()
    scale_b = (b.abs().max() / 448.0).float()
    a8 = (a / scale_a).to(e4m3)
    b8 = (b / scale_b).to(e4m3)
    out: dict = {"shape": name, "m": m, "k": k, "n": n, "bf16_tflops": flops / bf16 / 1e12}
    for label, fast in (("fp8", False), ("fp8_fast_accum", True)):
        t = timed(lambda fast=fast: torch._scaled_mm(a8, b8.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16,
                                                     use_fast_accum=fast))
        out[f"{label}_tflops"] = flops / t / 1e12
        out[f"{label}_over_bf16"] = bf16 / t

    def cast():
        s = a.abs().max().float() / 448.0
        return (a / s).to(e4m3)

    out["activation_cast_s"] = timed(cast)
    out["bf16_s"] = bf16
    return out


def main() -> int:
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA device"}))
        return 1
    for name, (m, k, n) in SHAPES.items():
        try:
            row = measure(name, m, k, n)
        except Exception as exc:  # noqa: BLE001 - a measurement script: report and go on
            row = {"shape": name, "error": repr(exc)[:300]}
        row.update(gpu=torch.cuda.get_device_name(0), torch=torch.__version__)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
