"""Measure a mixture-of-experts layer against the dense layer of the same FLOPs on one GPU (issue 32: MoE rows).

Run on a CUDA machine with torch >= 2.8:  python bench/gpu_moe_layer.py > moe.jsonl     (--tiny: a CPU smoke test)
advisor prices a MoE's active FLOPs as if they ran like a dense model's. This times, forward and backward, (a) one MoE
layer as a grouped-GEMM implementation runs it (router, top-k, token permutation, torch._grouped_mm over the local
experts, SwiGLU, weighted combine) and (b) the dense SwiGLU layer with the same FLOPs per token (intermediate size
top_k x expert FFN), both on the same tokens, and prints the ratio. The shapes are the published models' at expert
parallelism 8: each GPU holds experts / 8 experts and receives tokens x top_k routed tokens, balanced.
"""

from __future__ import annotations

import argparse
import json
import sys

import torch
import torch.nn.functional as F

SHAPES = {  # name: (hidden, expert FFN, experts, top-k) from the models' configs
    "qwen3-30b-a3b": (2048, 768, 128, 8),
    "qwen3-235b-a22b": (4096, 1536, 128, 8),
    "deepseek-v3": (7168, 2048, 256, 8),
    "gpt-oss-120b": (2880, 2880, 128, 4),
    "mixtral-8x7b": (4096, 14336, 8, 2),
}
EP = 8


def moe_layer(x, router, w1, w2, top_k, grouped: bool):
    """One MoE layer on the local experts (w1: [E, 2f, h], w2: [E, h, f], stored as torchtitan's grouped experts store
    them and passed transposed, the layout torch._grouped_mm takes); x: [T, h]."""
    logits = x @ router
    weights, idx = torch.topk(torch.softmax(logits.float(), dim=-1), top_k, dim=-1)
    flat = idx.reshape(-1)
    order = torch.argsort(flat, stable=True)
    token = torch.arange(x.shape[0], device=x.device).repeat_interleave(top_k)[order]
    xp = x[token]
    counts = torch.bincount(flat, minlength=w1.shape[0])
    if grouped:
        offs = torch.cumsum(counts, 0).to(torch.int32)
        h = torch._grouped_mm(xp, w1.transpose(-2, -1), offs=offs)
        g, u = h.chunk(2, dim=-1)
        y = torch._grouped_mm((F.silu(g) * u).contiguous(), w2.transpose(-2, -1), offs=offs)
    else:  # a loop over experts: the fallback where grouped GEMMs are not available
        pieces, start = [], 0
        for e, c in enumerate(counts.tolist()):
            g, u = (xp[start:start + c] @ w1[e].t()).chunk(2, dim=-1)
            pieces.append((F.silu(g) * u) @ w2[e].t())
            start += c
        y = torch.cat(pieces)
    y = y * weights.reshape(-1)[order].unsqueeze(-1).to(y.dtype)
    return torch.zeros_like(x).index_add_(0, token, y)


def dense_layer(x, w1, w2):
    g, u = (x @ w1).chunk(2, dim=-1)
    return (F.silu(g) * u) @ w2


def timed(fn, device: str, repeats: int, warmup: int = 3) -> float:
    """Seconds per call after ``warmup`` calls: CUDA events on a GPU, the wall clock elsewhere (bench/gpu_fp8_gemm.py
    times with it too)."""
    import time

    for _ in range(warmup):
        fn()
    if device == "cuda":
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 1e3 / repeats
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) / repeats


def measure(name: str, tokens: int, tiny: bool) -> dict:
    h, f, experts, k = SHAPES[name]
    if tiny:
        h, f, experts, tokens = 64, 32, max(8, experts // 16), 256
    local = max(1, experts // EP)
    kk = min(k, local)  # each token reaches kk of the local experts ...
    routed = tokens * k  # ... so that they receive the tokens x top_k copies one GPU's experts get under EP (balanced)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dt = torch.bfloat16 if device == "cuda" else torch.float32
    torch.manual_seed(0)
    x = torch.randn(routed // kk, h, device=device, dtype=dt, requires_grad=True)
    router = torch.randn(h, local, device=device, dtype=dt, requires_grad=True)
    w1 = (torch.randn(local, 2 * f, h, device=device, dtype=dt) * h**-0.5).requires_grad_()
    w2 = (torch.randn(local, h, f, device=device, dtype=dt) * f**-0.5).requires_grad_()
    dw1 = (torch.randn(h, 2 * kk * f, device=device, dtype=dt) * h**-0.5).requires_grad_()  # the same FLOPs, dense
    dw2 = (torch.randn(kk * f, h, device=device, dtype=dt) * f**-0.5).requires_grad_()
    grouped = device == "cuda" and hasattr(torch, "_grouped_mm")

    def moe():
        moe_layer(x, router, w1, w2, kk, grouped).sum().backward()

    def dense():
        dense_layer(x, dw1, dw2).sum().backward()

    try:
        t_moe = timed(moe, device, 10)
    except Exception as exc:  # noqa: BLE001 - fall back to the per-expert loop and say so
        grouped, err = False, repr(exc)[:200]
        t_moe = timed(moe, device, 10)
    else:
        err = None
    t_dense = timed(dense, device, 10)
    flops = 6.0 * routed * h * 3 * f  # forward + backward of the routed copies' expert matmuls (= the dense layer's)
    return {"shape": name, "hidden": h, "expert_ffn": f, "experts": experts, "local_experts": local, "top_k": k,
            "tokens": x.shape[0], "routed": routed, "grouped_mm": grouped, "grouped_error": err, "moe_s": t_moe, "dense_s": t_dense,
            "moe_over_dense": t_moe / t_dense, "dense_tflops": flops / t_dense / 1e12, "moe_tflops": flops / t_moe / 1e12,
            "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu", "torch": torch.__version__}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--tokens", type=int, default=8192)
    args = parser.parse_args()
    for name in SHAPES:
        try:
            row = measure(name, args.tokens, args.tiny)
        except Exception as exc:  # noqa: BLE001 - a measurement script: report and go on
            row = {"shape": name, "error": repr(exc)[:300]}
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
