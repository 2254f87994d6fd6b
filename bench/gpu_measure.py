"""Measure peak memory and tokens/s of a few small training plans on one GPU (issue 32's measured rows).

Run on a machine with a CUDA GPU and torch + transformers + peft (no advisor import: the device image has none of
advisor's dependencies):

    python bench/gpu_measure.py --out measured.jsonl            # every case, each in its own subprocess
    python bench/gpu_measure.py --case lora8b-mb4 --tiny        # a CPU smoke test at toy sizes

Each case builds its model from a config with random weights (nothing is downloaded), runs WARMUP steps, then times
STEPS steps with CUDA synchronisation, and writes one JSON line: tokens/s, seconds/step, peak allocated and reserved
bytes (torch.cuda.max_memory_*), and the software versions. bench/measured.py prices the same plans with advisor and
prints measured against modelled; the rows it reads are kept in bench/measured_runs.yaml.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

WARMUP, STEPS = 3, 6

LLAMA3_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                 num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0,
                 tie_word_embeddings=False)
"""Llama 3 8B (arXiv:2407.21783 Table 3; HF meta-llama/Meta-Llama-3-8B config.json)."""
LLAMA32_1B = dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                  num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0,
                  tie_word_embeddings=True)
"""Llama 3.2 1B (HF meta-llama/Llama-3.2-1B config.json: tied embeddings)."""
TINY = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=1000, max_position_embeddings=512, tie_word_embeddings=False)

# name -> (kind, shape, micro-batch, sequence, options)
CASES: dict[str, tuple[str, str, int, int, dict]] = {
    "lora8b-mb4": ("lora", "llama3-8b", 4, 2048, {"targets": "all-linear", "checkpointing": False}),
    "gpt2-124m-eager": ("pretrain", "gpt2-124m", 16, 1024, {"compile": False}),
    "gpt2-124m-compile": ("pretrain", "gpt2-124m", 16, 1024, {"compile": True}),
    "lora8b-mb1": ("lora", "llama3-8b", 1, 2048, {"targets": "all-linear", "checkpointing": False}),
    "full1b-mb4": ("full", "llama3.2-1b", 4, 2048, {"checkpointing": False}),
    "lora8b-mb4-gc": ("lora", "llama3-8b", 4, 2048, {"targets": "all-linear", "checkpointing": True}),
    "lora8b-qv-mb4": ("lora", "llama3-8b", 4, 2048, {"targets": "qv", "checkpointing": False}),
    # the second run: is the slope linear, and what do fp32 adapters (PEFT's autocast_adapter_dtype default) cost?
    "lora8b-mb2": ("lora", "llama3-8b", 2, 2048, {"targets": "all-linear", "checkpointing": False}),
    "lora8b-mb4-bf16-adapters": ("lora", "llama3-8b", 4, 2048, {"targets": "all-linear", "checkpointing": False,
                                                                 "adapter_fp32": False}),
    "full1b-mb4-gc": ("full", "llama3.2-1b", 4, 2048, {"checkpointing": True}),
    # the third run: Hugging Face Trainer / accelerate with bf16=True run the step under bf16 autocast, which casts the
    # fp32 adapters' inputs back to bf16 for their matrix products
    "lora8b-mb4-autocast": ("lora", "llama3-8b", 4, 2048, {"targets": "all-linear", "checkpointing": False, "autocast": True}),
    "lora8b-qv-mb4-autocast": ("lora", "llama3-8b", 4, 2048, {"targets": "qv", "checkpointing": False, "autocast": True}),
    "lora8b-mb1-autocast": ("lora", "llama3-8b", 1, 2048, {"targets": "all-linear", "checkpointing": False, "autocast": True}),
}


def _versions() -> dict:
    import torch
    import transformers

    out = {"torch": torch.__version__, "transformers": transformers.__version__}
    try:
        import peft

        out["peft"] = peft.__version__
    except ImportError:
        pass
    if torch.cuda.is_available():
        out["gpu"] = torch.cuda.get_device_name(0)
        out["gpu_memory_bytes"] = torch.cuda.get_device_properties(0).total_memory
    return out


def _build(kind: str, shape: str, tiny: bool, device):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    if shape == "gpt2-124m":
        cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=1000) if tiny else GPT2Config()  # HF gpt2 defaults
        cfg._attn_implementation = "sdpa"
        with torch.device(device):
            return GPT2LMHeadModel(cfg), cfg.vocab_size
    fields = TINY if tiny else (LLAMA3_8B if shape == "llama3-8b" else LLAMA32_1B)
    cfg = LlamaConfig(**fields)
    cfg._attn_implementation = "sdpa"
    # LoRA: a bf16 base (as PEFT users load it: torch_dtype=bfloat16); full training: fp32 master weights under bf16
    # autocast, the 16 bytes/parameter mixed-precision AdamW that advisor prices.
    dtype = torch.bfloat16 if kind == "lora" else torch.float32
    torch.set_default_dtype(dtype)  # built in its own dtype: no fp32 copy of an 8B model is ever allocated
    try:
        with torch.device(device):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(torch.float32)
    return model, cfg.vocab_size


def run_case(name: str, tiny: bool) -> dict:
    import torch

    kind, shape, micro, seq, opts = CASES[name]
    if tiny:
        micro, seq = min(micro, 2), min(seq, 64)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model, vocab = _build(kind, shape, tiny, device)
    params = sum(p.numel() for p in model.parameters())
    if kind == "lora":
        from peft import LoraConfig, get_peft_model

        targets = "all-linear" if opts["targets"] == "all-linear" else ["q_proj", "v_proj"]
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=targets,
                                                 task_type="CAUSAL_LM"),
                               autocast_adapter_dtype=opts.get("adapter_fp32", True))
    if opts.get("checkpointing"):
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if kind == "lora":
            model.enable_input_require_grads()
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-5, fused=device == "cuda")
    step_fn = model
    if opts.get("compile"):
        step_fn = torch.compile(model)
    autocast = torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=kind != "lora" or bool(opts.get("autocast")))
    ids = torch.randint(0, vocab, (micro, seq), device=device)

    def step() -> float:
        with autocast:
            loss = step_fn(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss.detach())

    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    t0 = time.perf_counter()
    for _ in range(WARMUP):
        step()
    sync()
    warm_s = time.perf_counter() - t0
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    for _ in range(STEPS):
        loss = step()
    sync()
    seconds = (time.perf_counter() - t0) / STEPS
    out = {"case": name, "kind": kind, "shape": shape, "micro_batch": micro, "seq": seq, **opts,
           "params": params, "trainable_params": sum(p.numel() for p in trainable),
           "seconds_per_step": seconds, "tokens_per_s": micro * seq / seconds, "warmup_s": warm_s, "loss": loss,
           "tiny": tiny, **_versions()}
    if device == "cuda":
        out["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
        out["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    return out


def matmul_rate() -> dict:
    """The bf16 matrix-product rate on this GPU: the ceiling the measured tokens/s are read against."""
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        a @ b
    torch.cuda.synchronize()
    return {"case": "matmul-bf16-8192", "tflops": 2 * 8192**3 * 20 / (time.perf_counter() - t0) / 1e12, **_versions()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--cases", default="", help="comma-separated subset (default: every case)")
    parser.add_argument("--out", default="-")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds per case")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.tiny)), flush=True)
        return 0
    sink = sys.stdout if args.out == "-" else open(args.out, "a", encoding="utf-8")
    try:
        import torch

        if torch.cuda.is_available() and not args.cases:
            sink.write(json.dumps(matmul_rate()) + "\n")
            sink.flush()
    except Exception as exc:  # noqa: BLE001 - a measurement script: report and go on
        sink.write(json.dumps({"case": "matmul-bf16-8192", "error": repr(exc)}) + "\n")
    for name in [c for c in args.cases.split(",") if c] or list(CASES):
        cmd = [sys.executable, __file__, "--case", name] + (["--tiny"] if args.tiny else [])
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"})
            line = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else None
            row = json.loads(line) if line else {"case": name, "error": done.stderr.strip().splitlines()[-3:]}
        except subprocess.TimeoutExpired:
            row = {"case": name, "error": f"timed out after {args.timeout:.0f} s"}
        sink.write(json.dumps(row) + "\n")
        sink.flush()
        print(name, "done", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
