"""The train.py template the launch files ship: a toy model and random tokens, run the way launch.sh starts the plan
(torchrun with DDP, FSDP or HSDP; DeepSpeed's engine over ds_config.json; a PEFT LoRA adapter from
peft_lora_config.json). It shows the arguments launch.sh passes and how each strategy wraps a model, so the files can
be tried before the team's own script replaces it; tests/test_launch_on_cpu.py runs it on CPU with gloo."""

TRAIN_PY = '''"""TEMPLATE written by advisor: NOT your training script. Replace the toy model and the random tokens with yours.

It runs as launch.sh starts it, so the launch files can be tried first (a few steps, any GPU count, CPU with gloo too):
    train.py                                   DDP (torch DistributedDataParallel)
    train.py --fsdp FULL_SHARD|HYBRID_SHARD    FSDP2 fully_shard over all ranks, or HSDP: shard in a node, replicate across
    train.py --deepspeed --deepspeed_config ds_config.json
                                               DeepSpeed's engine: ZeRO stage, batch and AdamW from ds_config.json
    ... --lora peft_lora_config.json           a PEFT LoRA adapter on the toy model's Llama-named projections
    accelerate launch --config_file accelerate_fsdp.yaml (or accelerate_finetune.yaml) train.py ...
                                               FSDP as accelerate's config sets it (its sharding, precision, checkpointing)
"""

import argparse
import contextlib
import json
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.checkpoint import checkpoint


def core_attention(q, k, v):
    return torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1) @ v


class Block(nn.Module):
    """A Llama-style block's projections by their transformers names (q/k/v/o_proj, gate/up/down_proj)."""

    def __init__(self, width):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(width, width, bias=False) for _ in range(4))
        self.gate_proj, self.up_proj = nn.Linear(width, 2 * width, bias=False), nn.Linear(width, 2 * width, bias=False)
        self.down_proj = nn.Linear(2 * width, width, bias=False)
        self.selective = False  # recompute the core attention in the backward (Megatron's selective recomputation)

    def forward(self, x):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        attn = checkpoint(core_attention, q, k, v, use_reentrant=False) if self.selective and self.training else core_attention(q, k, v)
        x = x + self.o_proj(attn)
        return x + self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class ToyModel(nn.Module):
    def __init__(self, vocab=256, width=32, layers=4):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList(Block(width) for _ in range(layers))
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.full_recompute = 0  # the first N blocks recompute whole in the backward (full recomputation of N layers)
        self.offload = 0  # the first N blocks keep their saved activations in CPU memory (the plan's offload, no recompute)

    def forward(self, tokens):
        x = self.embed_tokens(tokens)
        for i, layer in enumerate(self.layers):
            if i < self.full_recompute and self.training:
                x = checkpoint(layer, x, use_reentrant=False)
            elif i < self.offload and self.training:
                # what the block saves for its backward goes to the CPU now and comes back then (over Grace's NVLink-C2C
                # on a GB200); pinned where there is a GPU, so the copies run beside the compute
                with torch.autograd.graph.save_on_cpu(pin_memory=torch.cuda.is_available()):
                    x = layer(x)
            else:
                x = layer(x)
        return self.lm_head(x)


def set_recompute(model, how):
    """The plan's recomputation: 'none', 'selective' (core attention), 'full' (every block) or a share of blocks ('0.25')."""
    if how == "selective":
        for layer in model.layers:
            layer.selective = True
    elif how == "full":
        model.full_recompute = len(model.layers)
    elif how not in (None, "none"):  # full on that share of the blocks, selective on the rest (Megatron's block method)
        for layer in model.layers:
            layer.selective = True
        model.full_recompute = round(float(how) * len(model.layers))


def from_accelerate(args):
    """Under `accelerate launch`, what its config file set (accelerate/utils/launch.py exports it to every process):
    FSDP's sharding, the mixed precision and activation checkpointing, where the command line did not say."""
    env = os.environ
    if args.fsdp is None and env.get("ACCELERATE_USE_FSDP", "").lower() == "true":
        strategy = env.get("FSDP_SHARDING_STRATEGY", "FULL_SHARD").upper()
        args.fsdp = {"1": "FULL_SHARD", "4": "HYBRID_SHARD"}.get(strategy, strategy)
        if args.fsdp not in ("FULL_SHARD", "HYBRID_SHARD"):
            raise SystemExit(f"train.py: FSDP sharding {strategy} is not one this template runs (FULL_SHARD, HYBRID_SHARD)")
    if args.precision is None and env.get("ACCELERATE_MIXED_PRECISION", "no") != "no":
        args.precision = env["ACCELERATE_MIXED_PRECISION"]
    if args.recompute is None and env.get("FSDP_ACTIVATION_CHECKPOINTING", "").lower() == "true":
        args.recompute = "full"


def autocast(device, precision):
    """bf16 (and FP8, whose matmuls need Transformer Engine or torchao in your script: the toy runs them in bf16) or fp16
    autocast over fp32 weights; fp32 runs as is. On CPU fp16 autocast runs in bf16."""
    if precision in (None, "no", "fp32"):
        return contextlib.nullcontext()
    dtype = torch.float16 if precision == "fp16" and device.type == "cuda" else torch.bfloat16
    return torch.autocast(device.type, dtype=dtype)


def loss_of(model, tokens):
    logits = model(tokens[:, :-1])
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsdp", choices=["FULL_SHARD", "HYBRID_SHARD"])
    parser.add_argument("--deepspeed", action="store_true")
    parser.add_argument("--deepspeed_config")
    parser.add_argument("--lora", help="peft.LoraConfig keyword arguments as JSON")
    parser.add_argument("--steps", type=int, default=3)
    # launch.sh passes the plan's micro-batch, accumulation and sequence length; for a quick try, shrink them after it:
    # bash launch.sh --seq-len 16 --accumulation 1
    parser.add_argument("--micro-batch", type=int, default=2)
    parser.add_argument("--accumulation", type=int, default=1, help="micro-batches per optimizer step")
    parser.add_argument("--seq-len", type=int, default=16)
    parser.add_argument("--precision", choices=["fp32", "bf16", "fp16", "fp8"], help="the plan's: autocast (default fp32)")
    parser.add_argument("--recompute", help="the plan's: none, selective, full, or the share of blocks recomputed (0.25)")
    parser.add_argument("--offload-activations", type=float, default=0.0,
                        help="the plan's share of blocks whose saved activations wait in CPU memory (0.5), in place of recompute")
    args = parser.parse_args()
    from_accelerate(args)

    cuda = torch.cuda.is_available()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = ToyModel()
    if args.lora:
        from peft import LoraConfig, get_peft_model

        with open(args.lora) as f:
            kwargs = json.load(f)
        kwargs.pop("task_type", None)  # CAUSAL_LM wraps a transformers model; the toy model is a plain module
        model = get_peft_model(model, LoraConfig(**kwargs))
    base = model.get_base_model() if args.lora else model
    set_recompute(base, args.recompute)
    base.offload = round(args.offload_activations * len(base.layers))

    if args.deepspeed:
        import deepspeed

        engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=[p for p in model.parameters() if p.requires_grad],
                                               config=args.deepspeed_config)
        micro, accumulation = engine.train_micro_batch_size_per_gpu(), engine.gradient_accumulation_steps()
        for step in range(args.steps):
            for _ in range(accumulation):
                tokens = torch.randint(0, 256, (micro, args.seq_len), device=engine.device)
                loss = loss_of(engine, tokens)  # DeepSpeed's engine runs bf16 / fp16 as ds_config.json sets it
                engine.backward(loss)
                engine.step()
            if engine.global_rank == 0:
                print(f"step {step + 1} loss {loss.item():.4f}", flush=True)
        # Every rank past its last collective before any tears down: a rank that frees its engine (ZeRO-3's partitioned
        # parameters, DeepSpeed's shared-memory all-reduce on CPU) while the other is still in a step aborts the pair
        # ('terminate called without an active exception'). Then end the group DeepSpeed started, engine freed first.
        dist.barrier()
        engine.destroy()
        del engine, loss
        dist.barrier()
        dist.destroy_process_group()
        return

    dist.init_process_group("nccl" if cuda else "gloo")
    model.to(device)
    if args.fsdp:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard

        world, per_node = dist.get_world_size(), int(os.environ.get("LOCAL_WORLD_SIZE", dist.get_world_size()))
        kind = "cuda" if cuda else "cpu"
        if args.fsdp == "HYBRID_SHARD":
            mesh = init_device_mesh(kind, (world // per_node, per_node), mesh_dim_names=("replicate", "shard"))
        else:
            mesh = init_device_mesh(kind, (world,), mesh_dim_names=("shard",))
        for layer in model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
    else:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if cuda else None)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    for step in range(args.steps):
        for i in range(args.accumulation):
            # DDP all-reduces once per optimizer step: the first accumulation - 1 micro-batches skip it (no_sync()). FSDP
            # reduce-scatters every micro-batch, as the plan's estimate and memory assume: skipping it
            # (set_requires_gradient_sync(False)) would keep every rank's whole unsharded gradients until the last one.
            last = i == args.accumulation - 1
            sync = contextlib.nullcontext() if args.fsdp or last else model.no_sync()
            with sync:  # DDP's no_sync must hold the backward too
                with autocast(device, args.precision):
                    tokens = torch.randint(0, 256, (args.micro_batch, args.seq_len), device=device)
                    loss = loss_of(model, tokens)
                (loss / args.accumulation).backward()
        optimizer.step()
        optimizer.zero_grad()
        if dist.get_rank() == 0:
            print(f"step {step + 1} loss {loss.item():.4f}", flush=True)
    # Free the model (DDP's reducer) while the process group is still alive, then end the group: a reducer that dies last,
    # on the way out of main(), tears the gloo group down under the GIL its worker thread is waiting for, and the rank hangs.
    dist.barrier()
    del model, optimizer, loss
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''
