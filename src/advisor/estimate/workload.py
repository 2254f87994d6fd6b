"""What is trained and on what: the model shape, the batch, the hardware, and the conventions every estimate states."""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace
import math
from typing import Any

import numpy as np

from advisor.inputs.answers import Answers
from advisor.inputs.hfconfig import known_models
from advisor.knowledge.catalog import efficiency_data, GpuSpec
from advisor.base.i18n import N_
from advisor.estimate.finetune import DEFAULT_RANK, DEFAULT_TARGETS, FINETUNE_BATCH_SEQUENCES, FINETUNE_METHODS, TRAINED_FLOPS_PER_PARAM, adapter_params


GB = 1e9
"""Memory is reported in GB (10^9 bytes), as GPU datasheets state capacity."""

CUDA_OVERHEAD_BYTES = 2 * GB
"""Per-GPU runtime overhead: 'CUDA kernels typically require 1-2 GB' (Ultra-Scale Playbook); upper end."""

FULL_RECOMPUTE_FLOPS = 8.0 / 6.0
"""Full recomputation adds one forward pass: 8PD instead of 6PD (Transformer Math 101)."""

SELECTIVE_RECOMPUTE_FLOPS = 1.027
"""Selective recomputation costs 2.7% compute on GPT-3 175B (Ultra-Scale Playbook, after Korthikanti et al.)."""

MICRO_BATCH_CHOICES: tuple[int, ...] = (16, 8, 4, 2, 1)
"""Micro-batch sizes tried, largest first, when the answers leave it to advisor."""

HEAD_DIM = 128
"""Head size of the published shapes in Megatron-LM 2021 Table 1 (e.g. 4096/32, 8192/64)."""

PUBLISHED_SHAPES: tuple[tuple[float, int, int, int], ...] = (
    (1.7e9, 24, 2304, 24),
    (3.6e9, 30, 3072, 32),
    (7.5e9, 36, 4096, 32),
    (18.4e9, 40, 6144, 48),
    (39.1e9, 48, 8192, 64),
    (76.1e9, 60, 10240, 80),
    (145.6e9, 80, 12288, 96),
    (310.1e9, 96, 16384, 128),
    (529.6e9, 105, 20480, 128),
    (1008e9, 128, 25600, 160),
)
"""(params, layers, hidden, heads) from Megatron-LM 2021 Table 1 (arXiv:2104.04473), used when the answers omit the shape."""


def nearest_published(params: float) -> tuple[float, int, int, int]:
    return min(PUBLISHED_SHAPES, key=lambda row: abs(math.log(row[0] / params)))


DEFAULT_BATCHES: tuple[tuple[float, float, str], ...] = (
    (5e9, 512 * 2048, N_("1M tokens (512 x 2,048), Megatron-LM 2021 Table 1's batch for its 1.7-3.6B models (arXiv:2104.04473)")),
    (200e9, 4 * 2**20, N_("4M tokens, LLaMA's batch for every size from 6.7B to 65B (arXiv:2302.13971 Table 2) and Llama 2's")),
    (math.inf, 16 * 2**20, N_("16M tokens, Llama 3 405B's batch (arXiv:2407.21783 Table 4)")),
)
"""(below this many parameters, global batch tokens, source): published runs grow the batch with the model."""


BATCH_NOT_GIVEN = "global batch not given: "
"""Prefix of batch_source when the default batch was used (render translates the two parts)."""


def default_batch_tokens(params: float) -> tuple[float, str]:
    """The global batch published runs of this size used: 1M tokens below 5B, 4M to 200B, 16M above."""
    for limit, tokens, source in DEFAULT_BATCHES:
        if params < limit:
            return float(tokens), BATCH_NOT_GIVEN + source
    raise AssertionError("unreachable: the last limit is infinite")

ASSUMPTIONS: tuple[str, ...] = (
    N_("Compute per token = 6 x active params (Transformer Math 101) + 12 x layers x hidden x seq_len for attention scores "
       "(llm-analysis: 4bs^2h forward FLOPs per layer; the s/6h term of Narayanan et al. 2021 Eq. 3), because the published "
       "MFU figures the bands come from count attention FLOPs too; full recomputation adds a forward pass (8/6), selective 2.7%."),
    N_("Achieved efficiency comes from published runs per GPU generation (low/mid/high band of hardware FLOPs utilisation "
       "at hidden size 4,096, see data/efficiency.yaml), rising with the model's width as published tables do "
       "(x (hidden/4,096)^0.06); recomputation is charged once, on top. The band already includes well-overlapped "
       "communication, so only communication that cannot hide behind compute is added."),
    N_("Collectives: ring all-reduce t = 2(n-1)/n x S/B, reduce-scatter and all-gather (n-1)/n x S/B (nccl-tests "
       "PERFORMANCE.md), hierarchical: inside the node over NVLink/PCIe, across nodes over each GPU's share of the node's network; "
       "each call also pays NCCL's latency per ring step on its cheapest protocol (NVIDIA/nccl tuning.cc), milliseconds a call "
       "over thousands of GPUs: FSDP and ZeRO-3 pay it per layer."),
    N_("Link efficiency: 0.65 of NVLink/PCIe, 0.9 of the network (Calculon a100_80g.json)."),
    N_("DDP, Horovod and ZeRO-1 reduce gradients once per optimizer step, hidden behind the last micro-batch's backward pass only "
       "(DDP's no_sync); Megatron's distributed optimizer reduce-scatters them there and all-gathers the parameters in the next step's "
       "first forward; ZeRO-2 reduces on every micro-batch (DeepSpeed stage_1_and_2.py), behind every backward pass (2/3 of "
       "compute); ZeRO-3/FSDP all-gather 16-bit parameters in forward and backward and reduce-scatter gradients on every micro-batch "
       "(3 x params, Ultra-Scale Playbook), overlapping all of compute; tensor-parallel collectives hide behind the linear layers where "
       "the layout overlaps them (Megatron --tp-comm-overlap, torchtitan AsyncTP: NVLink Hopper and Blackwell) and sit on the critical "
       "path elsewhere; context parallelism's K/V exchange hides only behind attention; pipeline sends hide behind compute in the "
       "interleaved schedule's steady phase (Megatron's default overlap_p2p_comm) and sit on the critical path elsewhere."),
    N_("Software stack: fine-tunes are priced on Hugging Face Trainer / accelerate, which runs its modules op by op at 0.86 of a "
       "compiled or fused stack's speed (torchtitan docs/performance.md Tables 1 and 3: eager vs torch.compile) and keeps what its "
       "modules save for the backward pass plus the loss's logits in fp32; pre-training on Megatron-LM, torchtitan or llm-foundry, "
       "the stacks the efficiency bands come from."),
    N_("FP8 speeds only the linear layers, by recipe: Megatron plans run TransformerEngine, whose fused casts leave the "
       "products' own speedup (1.81x, measured on an H200); FSDP and DeepSpeed plans run torchao's per-tensor scaling, 1.28x of "
       "the step at Llama 3 8B and 8K tokens on H100 (torchtitan), or MXFP8 1.22-1.28x on B200 (PyTorch on Crusoe), the default "
       "on Blackwell; MI300X runs FP8 at twice its bf16 rate and is priced as Hopper."),
    N_("Gradients move in 16-bit (2 bytes/param) under bf16/fp16, 4 bytes under fp32."),
    N_("DDP + PowerSGD (PyTorch's powerSGD_hook, Vogels et al. 2019): once it compresses, each n x m gradient matrix crosses as "
       "rank-4 factors, (n + m) x 4 values instead of n x m, and 1-D tensors whole; the first 10% of the steps all-reduce "
       "uncompressed (start_powerSGD_iter), each phase hiding behind its own backward passes; error feedback adds one gradient's "
       "size of memory per GPU. The compression's own matrix products (about 4 x rank FLOPs per parameter per step) are not priced."),
    N_("The global batch is kept as given: every data-parallel rank needs at least one sequence per step, so a plan whose ranks "
       "outnumber the batch's sequences cannot run; tensor or pipeline parallelism, or fewer GPUs, keep the ranks within it."),
    N_("Mixture of experts: memory counts all parameters and compute the active ones; Megatron, FSDP (PyTorch-native expert "
       "parallelism) and DeepSpeed-MoE with ZeRO-1/2 split the experts over EP GPUs (EP divides the experts), keep the dense part "
       "and 1/EP of the experts per GPU and route tokens by all-to-all, which waits on the critical path as the plain dispatcher "
       "runs it (Megatron-Core hides it only with --overlap-moe-expert-parallel-comm, DeepSeek-V3 with DualPipe, arXiv:2412.19437); ZeRO-3 shards and gathers all parameters, the experts' as a dense layer's (DeepSpeed's own expert-parallel MoE layer "
       "refuses stage 3; a Hugging Face MoE block runs under it as a ZeRO-3 leaf module, deepspeed.utils.set_z3_leaf_modules); "
       "DDP and Horovod replicate them."),
    N_("Activations per layer from Korthikanti et al. 2022 Table 2 with a fused attention kernel (FlashAttention, as every "
       "current stack runs): 34sbh with no recomputation or selective, 2sbh full; Megatron uses sequence parallelism "
       "(divided by TP); the first pipeline stage holds all layers' worth."),
    N_("Memory per GPU adds 2 GB of CUDA runtime overhead (Ultra-Scale Playbook: 1-2 GB); fragmentation is not modelled."),
    N_("Pipeline bubble = (PP-1)/micro-batches of compute (Narayanan et al. 2021), divided by the virtual stages of an "
       "interleaved schedule."),
    N_("Time off training: 419 unexpected interruptions in 54 days on 16,384 H100s with more than 90% effective training time "
       "(Llama 3, arXiv:2407.21783 Sec 3.3.4) — a full run's wall-clock is its steps x 1/0.9 for restarts, checkpoints and "
       "evaluation, and past 16,384 GPUs x(1 + 0.111 x GPUs/16,384) as interruptions grow with the GPU count."),
    N_("Cost = wall-clock hours x price per GPU-hour x GPUs (seed:K14)."),
)
"""The model's conventions, in English (msgids); advice.assumptions() gives them in the current language."""

CPU_ADAM_BYTES_PER_PARAM = 28.0
"""Host bytes an Adam step streams per parameter: fp32 weight, gradient, m and v read (16), weight, m and v written (12)
(the 12 B/param of optimizer state plus the fp32 gradient, Transformer Math 101's mixed-precision Adam)."""

HOST_MEMORY_BW = 409.6e9
"""Host memory bandwidth per node: two CPU sockets x 8 channels x DDR4-3200's 25.6 GB/s (JEDEC DDR4-3200; the DGX A100's
two AMD EPYC 7742 have 8 channels each). A node with less makes ZeRO-Offload slower still."""

ATTENTION_FLOPS_PER_LAYER_TOKEN = 12.0
"""Attention-score FLOPs per token per layer, as a multiple of seq_len x hidden: forward 4·b·s²·h per layer
(llm-analysis analysis.py) is 4·s·h per token, and backward doubles it (x3 in all)."""

FP8_SPEEDUP = 8532.0 / 6667.0
"""FP8 training's throughput over bf16, both with torch.compile: torchtitan docs/performance.md Table 1, Llama 3.1 8B on
8 H100 with FSDP: 6,667 tokens/s/GPU (bf16 + compile) to 8,532 (+ Float8, tensorwise dynamic scaling) = 1.28. Weights,
gradients and optimizer states stay in bf16/fp32 (torchtitan docs/float8.md: Float8Linear casts high-precision weights to
float8 for each matmul), so model-state memory does not change."""


def linear_share(layers: int, width: float, seq_len: float, params: float) -> float:
    """The share of a step's FLOPs in the linear layers, the only ones FP8 runs (Float8Linear / TransformerEngine's
    te.Linear; attention stays bf16): 6N against 6N + 12·L·w·s, w the attention width (Shape.attention_width)."""
    linear = 6.0 * params
    return linear / (linear + ATTENTION_FLOPS_PER_LAYER_TOKEN * layers * width * seq_len)


class Fp8Recipe(Struct, frozen=True):
    """One FP8 scaling recipe: its whole-step speedup over bf16 where it was measured, and that job's linear share; or,
    where the linear layers' own speedup was measured directly, that (``measured_gemm``)."""

    step_speedup: float
    reference_share: float
    source: str
    measured_gemm: float | None = None

    @property
    def gemm_speedup(self) -> float:
        """The linear layers' own speedup that gives ``step_speedup`` at ``reference_share`` (attention unchanged)."""
        if self.measured_gemm is not None:
            return self.measured_gemm
        return self.reference_share / (1.0 / self.step_speedup - (1.0 - self.reference_share))


_LLAMA3_8B_AT_8K = linear_share(32, 4096, 8192, 8.03e9)

FP8_GEMM_MEASURED = {"qkv": (4096 * 6144, 1.825), "o": (4096 * 4096, 1.816), "gate-up": (4096 * 28672, 1.815),
                     "down": (14336 * 4096, 1.799)}
"""FP8 e4m3 over bf16 matrix products on one H200, measured 2026-12-04 (bench/gpu_fp8_gemm.py, bench/measured/
h200-fp8-gemm-2026-12-04.jsonl): torch._scaled_mm with per-tensor scales against torch.mm, at Llama 3 8B's linear layers
for 16,384 tokens (in x out: q/k/v fused 4,096 x 6,144, o 4,096 x 4,096, gate/up 4,096 x 28,672, down 14,336 x 4,096),
each weighted by its FLOPs (in x out) below; bf16 ran at 692-763 TFLOP/s, FP8 at 1,256-1,392."""


def _flop_weighted_speedup(measured: dict[str, tuple[int, float]]) -> float:
    total = sum(flops for flops, _ in measured.values())
    return total / sum(flops / speedup for flops, speedup in measured.values())


TE_GEMM_SPEEDUP = _flop_weighted_speedup(FP8_GEMM_MEASURED)
"""1.81: the linear layers' FP8 speedup where the recipe fuses its casts into the kernels around the products —
TransformerEngine's current and delayed scaling in Megatron-Core (te.Linear, LayerNormLinear: the scaling and cast ride
on the layer norm and on the previous GEMM's epilogue) — so what remains is the products' own speedup. torchao's
Float8Linear under torch.compile reached 1.39 on the same layers (FP8_RECIPES['tensorwise']): the casts its compiled
graph leaves unfused. Blackwell's and CDNA3's FP8 peaks are twice their bf16 (B200 4.5 vs 2.25 PFLOP/s dense; MI300X
2,614.9 vs 1,307.4 TFLOP/s), as Hopper's are: the Hopper figure stands in [obs]."""
_LLAMA3_70B_AT_8K = linear_share(80, 8192, 8192, 70.6e9)

FP8_RECIPES: dict[str, Fp8Recipe] = {
    "tensorwise": Fp8Recipe(FP8_SPEEDUP, _LLAMA3_8B_AT_8K,
                            "torchtitan docs/performance.md Table 1: Llama 3.1 8B, 8 H100, seq 8,192, Float8 tensorwise 1.28x"),
    "rowwise": Fp8Recipe(1.34, _LLAMA3_70B_AT_8K,
                         "pytorch.org blog 'Accelerating Large Scale Training and Convergence with PyTorch Float8 Rowwise on "
                         "Crusoe 2K H200s': 'training accelerations of 34 - 43% at scale' (the low end; Llama 3 70B-class "
                         "at 8K read as its job [obs])"),
    "te": Fp8Recipe(0.0, _LLAMA3_8B_AT_8K, "bench/gpu_fp8_gemm.py on one H200 (TE_GEMM_SPEEDUP)", TE_GEMM_SPEEDUP),
    "mxfp8": Fp8Recipe(1.25, _LLAMA3_70B_AT_8K,
                       "pytorch.org blog 'Accelerating 2K scale pre-training up to 1.28x with TorchAO, MXFP8 and TorchTitan "
                       "on Crusoe B200 Cluster': Llama3-70B, 1.22x-1.28x over BF16 (the middle)"),
}
"""FP8 per recipe, priced on the linear layers only (issue 32: a flat x1.28 on the whole step gave a 256K-token job, 90%
attention, the same gain as a 405B at 8K). Per-tensor current and delayed scaling (TransformerEngine
Float8CurrentScaling / DelayedScaling, Megatron's fp8 recipes) scale as torchao's tensorwise does: one scale per tensor."""

FP8_RECIPE_ALIASES: dict[str, str] = {"current": "te", "delayed": "te", "te": "te", "te-mxfp8": "te", "te-blockwise": "te",
                                      "tensorwise": "tensorwise", "rowwise": "rowwise", "mxfp8": "mxfp8"}
"""Recipe names as their stacks give them: TransformerEngine's current ('FP8-CS') and delayed scaling, its MXFP8 on
Blackwell and its blockwise scaling on Hopper ('FP8-BLK', Float8BlockScaling) are the fused 'te' recipe [obs: no
blockwise-against-bf16 figure of its own]; torchao's tensorwise, rowwise and MXFP8 are priced from their own measured steps."""

FP8_DEFAULT_RECIPE: dict[str, str] = {"blackwell": "mxfp8"}
"""The recipe assumed where the answers do not name one: MXFP8 on Blackwell (hardware block scaling, the default of
NVIDIA's and PyTorch's Blackwell recipes), per-tensor elsewhere (Hopper, Ada, and CDNA3, whose FP8 matrix cores run at
twice the bf16 rate: AMD Instinct MI300X datasheet, 2,614.9 TFLOPS FP8 dense vs 1,307.4 BF16 — no published MI300X
FP8 training speedup, so Hopper's per-tensor figure stands in [obs])."""


def fp8_recipe_of(w: Workload, megatron: bool = False) -> str:
    """The recipe a plan runs: the one stated, else its stack's own — TransformerEngine's under Megatron-LM (advisor's
    Megatron files pass --fp8-format hybrid: TE delayed scaling), the GPU generation's default elsewhere."""
    if w.fp8_recipe:
        return FP8_RECIPE_ALIASES.get(w.fp8_recipe, "tensorwise")
    return "te" if megatron else w.fp8_default


FP8_ROOFLINE = {"bf16_flops": 989e12 * 0.78, "fp8_flops": 1979e12 * 0.78, "bytes_per_s": 2.4e12 * 0.92}
"""torchao's float8 roofline (pytorch/ao torchao/testing/training/roofline_utils.py, 'NVIDIA H100'): bf16 989 and FP8
1,979 TFLOP/s at 'pct_achievable_gemm_tops' 0.78, memory 2.4 TB/s at 'pct_achievable_mem_bw' 0.92. Its own H100 figures
serve every GPU here [obs: the shape effect is priced with Hopper's balance of FLOPs to bytes]."""

FP8_CAST_BYTES: dict[str, tuple[float, float, float]] = {"tensorwise": (6.0, 8.0, 6.0), "rowwise": (8.0, 10.0, 8.0),
                                                          "mxfp8": (6.0, 6.0, 6.0)}
"""Bytes per element torchao's recipes read and write to cast a linear layer's input, weight and output gradient to
float8 over forward and backward (roofline_utils.py get_tensor_memory_traffic_ovhd_s, unfused): tensorwise reads the
bf16 tensor for its max and again to write two float8 copies (2 + 2 + 2 for activations and gradients; the weight's two
casts 2 + 3 + 3); rowwise adds a transposed bf16 copy (2 + 1 + 2, then 2 + 1; the weight 3 + 4 + 3); MXFP8 casts each
tensor twice, 2 + 1 apiece. TransformerEngine fuses its casts into the kernels around the products (TE_GEMM_SPEEDUP):
no term."""

FP8_ROOFLINE_REFERENCE: dict[str, tuple[float, float, float, float, float]] = {
    "tensorwise": (4096.0, 4096.0, 1024.0, 15668.0, 16384.0), "rowwise": (8192.0, 8192.0, 1024.0, 29226.0, 8192.0),
    "mxfp8": (8192.0, 8192.0, 1024.0, 29226.0, 8192.0)}
"""The layer each recipe's measured speedup was read at (FP8_RECIPES): hidden, queries' width, keys' width, MLP width as
finetune.mlp_width reads it from the parameter count (the plan's layer is read the same way) and tokens per micro-batch:
Llama 3 8B at two sequences of 8,192 a GPU (torchtitan Table 1: 16 sequences over 8 GPUs), Llama 3 70B at one sequence of
8,192 (the two blogs state no micro-batch [obs]); one GPU's whole layer (no tensor parallelism)."""


def _fp8_roofline(recipe: str, h: float, q: float, kv: float, f: float, tokens: Any, tp: Any) -> Any:
    """bf16 time over FP8 time of one layer's linear products, forward and backward (three GEMMs each), with the recipe's
    casts at memory speed: torchao's roofline. Tensor parallelism splits q, k, v, gate and up by output and o and down
    by input; the casts of each shard's activations do not shrink with it, which is why FP8 gains less at TP8."""
    r = FP8_ROOFLINE
    cast_in, cast_w, cast_out = FP8_CAST_BYTES[recipe]
    m = np.asarray(tokens, dtype=float)
    t = np.asarray(tp, dtype=float)
    bf: Any = 0.0
    fp: Any = 0.0
    for k, n in ((h, q / t), (h, kv / t), (h, kv / t), (q / t, h), (h, f / t), (h, f / t), (f / t, h)):
        flops = 6.0 * m * k * n
        bf = bf + flops / r["bf16_flops"]
        fp = fp + flops / r["fp8_flops"] + (cast_in * m * k + cast_w * k * n + cast_out * m * n) / r["bytes_per_s"]
    return bf / fp


def fp8_shape_factor(w: Workload, recipe: str, tp: Any = 1.0, tokens: Any = None) -> Any:
    """How a torchao recipe's measured GEMM speedup carries to this layer at this tensor-parallel degree and micro-batch:
    the roofline's speedup here over its speedup at the layer the recipe was measured on (FP8_ROOFLINE_REFERENCE). 1 for
    TransformerEngine's fused recipe and for a mixture of experts (its experts' shapes are not modelled here)."""
    if recipe not in FP8_CAST_BYTES or w.is_moe:
        return np.ones(np.shape(tp)) if np.ndim(tp) else 1.0
    from advisor.estimate.finetune import mlp_width

    m = float(w.seq_len) if tokens is None else tokens
    ref = _fp8_roofline(recipe, *FP8_ROOFLINE_REFERENCE[recipe][:4], FP8_ROOFLINE_REFERENCE[recipe][4], 1.0)
    here = _fp8_roofline(recipe, float(w.shape.hidden), w.shape.attention_width, w.shape.kv_width, mlp_width(w), m, tp)
    return here / ref


def fp8_time_factor(w: Workload, megatron: bool = False, tp: Any = 1.0, tokens: Any = None) -> Any:
    """Compute time under FP8 as a share of bf16's: the linear layers at the recipe's GEMM speedup, carried to this layer
    and tensor-parallel degree by torchao's roofline for torchao's recipes (fp8_shape_factor), attention unchanged."""
    name = fp8_recipe_of(w, megatron)
    recipe = FP8_RECIPES[name]
    share = w.linear_share
    return (1.0 - share) + share / (recipe.gemm_speedup * fp8_shape_factor(w, name, tp, tokens))


FP8_ALLGATHER_BYTES = 1.0
"""Bytes per parameter of FSDP's weight all-gather under FP8: torchtitan docs/float8.md,
--float8.enable_fsdp_float8_all_gather 'cast Float8Linear.weight ... to float8 before FSDP all-gather ... to save
bandwidth' (1 byte instead of bf16's 2)."""

STACKS: tuple[str, ...] = ("fused", "eager")
"""The software stack a job runs on. 'fused': Megatron-LM/megatron-core, torchtitan (torch.compile) or llm-foundry — fused
kernels, the stacks the efficiency bands were read from. 'eager': Hugging Face Trainer / accelerate modules run op by op,
the stack of the published fine-tune recipes (QwenLM/Qwen finetune.py, artidoro/qlora qlora.py) and of most fine-tunes."""

EAGER_EFFICIENCY = 5762.0 / 6667.0
"""Throughput of an eager stack against the same job compiled: torchtitan docs/performance.md Table 1 (Llama 3.1 8B, FSDP,
8 H100): 5,762 tokens/s/GPU eager vs 6,667 with torch.compile = 0.864; Table 3 (128 H100) 5,605 vs 6,514 = 0.860. The
issue-32 measurement of an 8B LoRA under Hugging Face Trainer on one H200 (11.1k tokens/s against 13.1k modelled on
the fused band, 0.85) agrees."""

EAGER_REFERENCE_HIDDEN = 4096.0
"""The hidden size EAGER_EFFICIENCY was measured at (Llama 3.1 8B)."""


def eager_efficiency(hidden: float) -> float:
    """An eager stack's throughput against the same job compiled, at this hidden size. What eager mode loses is the
    unfused element-wise and normalisation kernels between the matrix multiplications (torch.compile fuses them): they
    move O(s·h) bytes per layer while the matrix multiplications do O(s·h²) FLOPs, so their share of the step falls as
    1/h ('Data Movement Is All You Need', arXiv:2007.00072: in BERT such memory-bound operators took about a third of the
    runtime for 0.2% of the FLOPs). So the time eager mode adds, 1/EAGER_EFFICIENCY - 1 = 15.7% of the compiled step at
    hidden 4,096, scales with 4,096/h: 0.93 of compiled at 8,192, 0.76 at 2,048, 0.54 at 768."""
    added = (1.0 / EAGER_EFFICIENCY - 1.0) * EAGER_REFERENCE_HIDDEN / float(hidden)
    return 1.0 / (1.0 + added)


EAGER_LOGITS_BYTES_PER_VOCAB = 14.0
"""Bytes per token per vocabulary entry the output logits hold at the loss under an eager Hugging Face stack: the bf16
logits the model returns (2), the fp32 log-probabilities cross_entropy saves for its backward (4: transformers
loss_utils.py ForCausalLMLoss upcasts with ``logits = logits.float()`` before nn.functional.cross_entropy), and at the
start of backward the fp32 gradients of the log-probabilities and of the upcast logits (4 + 4). At 128,256 entries (Llama
3) that is 1.8 MB per token: 14.7 GB for 4 x 2,048 tokens, which the activation set did not count."""

MEGATRON_MAIN_GRAD_BYTES: dict[str, float] = {"bf16": 4.0, "fp8": 4.0, "fp32": 4.0, "fp16": 2.0}
"""Megatron's gradient buffer by precision. Under bf16 (and FP8 over bf16 weights) Megatron-LM accumulates and reduces
gradients in fp32 unless told otherwise (megatron/training/arguments.py: 'bfloat16 requires gradient accumulation and
all-reduce to be done in fp32' sets accumulate_allreduce_grads_in_fp32; advisor's files pass --bf16 and no
--grad-reduce-in-bf16); under fp16 the buffer is fp16. So the distributed optimizer keeps 6 + 12/DP bytes a parameter
under bf16 and 4 + 16/DP under fp16, the fp32 main-gradient shard joining the optimizer's (Megatron-LM
docs/source/api-guide/dist_optimizer.md table: 'bf16 param, fp32 grads 6 + 12/d', 'fp16 param, fp16 grads 4 + 16/d',
'fp32 param, fp32 grads 8 + 8/d'). A recipe that reduces in bf16 (Megatron-Bridge's Llama performance recipes:
'cfg.ddp.grad_reduce_in_fp32 = False') keeps 4 + 16/DP and moves half the bytes."""

OVERLAP_BACKWARD = 2.0 / 3.0
"""Gradient reduction can hide behind the backward pass only: 4PD of the 6PD (Transformer Math 101)."""

LLAMA3_INTERRUPTIONS, LLAMA3_DAYS, LLAMA3_GPUS, LLAMA3_EFFECTIVE = 419, 54, 16_384, 0.90
"""Llama 3 405B pre-training (arXiv:2407.21783 Sec 3.3.4, as reported by DatacenterDynamics): 419 unexpected
interruptions in a 54-day snapshot on 16,384 H100s, and 'higher than 90% effective training time'."""

INTERRUPTIONS_PER_GPU_HOUR = LLAMA3_INTERRUPTIONS / (LLAMA3_DAYS * 24.0 * LLAMA3_GPUS)
"""About one interruption per 50,700 GPU-hours [obs: derived from the Llama 3 figures above]."""

HOURS_LOST_PER_INTERRUPTION = (1.0 / LLAMA3_EFFECTIVE - 1.0) / (INTERRUPTIONS_PER_GPU_HOUR * LLAMA3_GPUS)
"""About 0.34 h per interruption (restart plus work since the last checkpoint), the figure that makes Llama 3's
interruption rate cost exactly 10% [obs: derived; 'higher than 90%' makes it an upper bound at that scale]."""


def interruption_overhead(gpus: np.ndarray | float) -> np.ndarray:
    """Wall-clock multiplier for restarts: 1 + interruptions per hour x hours lost each (grows linearly with GPUs)."""
    return 1.0 + INTERRUPTIONS_PER_GPU_HOUR * np.asarray(gpus, dtype=float) * HOURS_LOST_PER_INTERRUPTION


def time_off_training(gpus: np.ndarray | float) -> np.ndarray:
    """Wall-clock multiplier for all time a full run spends not training — restarts, the work lost since the last
    checkpoint, checkpoint writes, evaluation, stalls: Llama 3 trained 'higher than 90%' of the time at 16,384 GPUs
    (arXiv:2407.21783 Sec 3.3.4), so 1/0.90, and the interruption line above past that scale. advisor charges the full
    10% at every scale [policy: checkpoints and evaluation do not shrink with the cluster as failures do]; a
    benchmark of a few steps (bench/fidelity.py) and a throughput-derived GPU-hour figure carry none of it. Published
    full runs price 18 runs within a median 12.6% with it (bench/fidelity.py)."""
    return np.maximum(1.0 / LLAMA3_EFFECTIVE, interruption_overhead(gpus))


HOURS_PER_MONTH = 24.0 * 30.0
"""A month as spot interruption rates are published: AWS's 'frequency of interruption' is the share of capacity reclaimed
'during the trailing month' (Spot Instance Advisor data, spot-advisor-data.json)."""


def spot_overhead(gpus: np.ndarray | float, hw: Hardware) -> np.ndarray:
    """Extra wall-clock share for spot reclaims: reclaims per node-hour x nodes x hours lost each, priced like a hardware
    interruption (HOURS_LOST_PER_INTERRUPTION). A synchronous job stops when any node is reclaimed; the wait for
    replacement capacity is not priced."""
    nodes = np.ceil(np.asarray(gpus, dtype=float) / hw.gpus_per_node)
    return hw.spot_reclaims_per_node_hour * nodes * HOURS_LOST_PER_INTERRUPTION


class Shape(Struct, frozen=True):
    """Transformer dimensions used by the activation and largest-layer formulas."""

    layers: int
    hidden: int
    heads: int
    source: str
    kv_heads: int | None = None
    """Key-value heads under grouped-query attention (model.kv_heads or model.config); None: as many as heads."""
    head_dim: int | None = None
    """Width of one attention head where the model states its own (model.head_dim, config.json 'head_dim'); None: hidden /
    heads. Qwen3 and GPT-OSS set it apart from the hidden size (Qwen3-30B-A3B: 32 heads of 128 at hidden 2,048)."""

    sliding_window: int | None = None
    """Tokens a sliding-window layer attends back (model.sliding_window); None: every layer attends to the whole sequence."""
    window_share: float = 0.0
    """Share of layers with the sliding window (model.sliding_window_layers_pct / 100; 1 where only the window is given)."""

    def attention_context(self, seq_len: float) -> float:
        """Keys a token's attention works over, averaged over the layers, in the units of ATTENTION_FLOPS_PER_LAYER_TOKEN
        (the whole sequence for a full layer). A causal window of W over s tokens does s·W - W²/2 query-key products
        where full causal attention does s²/2: 2W - W²/s of the s a full layer counts (s where W >= s). GPT-OSS's
        128-token window at 4,096 tokens: 6% of a full layer's work on half its layers."""
        s = float(seq_len)
        if not self.sliding_window or self.window_share <= 0.0:
            return s
        return s * ((1.0 - self.window_share) + self.window_share * self.window_work(seq_len))

    def window_work(self, seq_len: float) -> float:
        """A sliding-window layer's attention work as a share of a full layer's at ``seq_len`` tokens: 2W/s - (W/s)²."""
        if not self.sliding_window:
            return 1.0
        r = min(float(self.sliding_window), float(seq_len)) / max(float(seq_len), 1.0)
        return 2.0 * r - r * r

    @property
    def kv_share(self) -> float:
        """Keys and values as a share of full-width multi-head ones (8 of 32 heads: 0.25)."""
        return min(1.0, (self.kv_heads or self.heads) / max(1, self.heads))

    @property
    def attention_width(self) -> float:
        """Queries' width, heads x head size: what the attention scores and their product with the values run over.
        The hidden size where the head size is not stated (a Llama's 32 heads of 128 are its 4,096); Qwen3-30B-A3B's
        32 heads of 128 are 4,096 at hidden 2,048 (its config.json), twice the attention work its hidden size implies."""
        return float(self.heads * self.head_dim) if self.head_dim else float(self.hidden)

    @property
    def kv_width(self) -> float:
        """Keys' (and values') width: key-value heads x head size."""
        return self.attention_width * self.kv_share


class Workload(Struct, frozen=True):
    """The job, in the units the formulas use."""

    params: float
    active_params: float
    shape: Shape
    seq_len: int
    vocab: int
    global_batch_tokens: float
    micro_batch: int | None
    grad_bytes: float
    act_scale: float
    recompute: str
    moe_top_k: int = 1
    batch_source: str = "given"
    experts: int = 0
    """Routed experts per MoE layer (0 for a dense model)."""
    expert_groups: int = 1
    """Group-limited routing: the experts fall into this many equal groups, in order, and a token's top-k are chosen
    inside ``expert_groups_per_token`` of them (DeepSeek-V3 config.json 'n_group': 8, 'topk_group': 4; arXiv:2412.19437
    Sec 2.1.2 node-limited routing: 'each token will be sent to at most M nodes', M = 4; Megatron-Core
    --moe-router-num-groups / --moe-router-group-topk). 1: the top-k are drawn from all experts. Only a dispatcher that
    sends a token once per destination (Hardware.ep_dedup, DeepEP) sends less for it (communication.routed_destinations);
    advisor's own Megatron files run the plain alltoall dispatcher, so its plans are priced the same either way."""
    expert_groups_per_token: int = 1
    """Groups a token's experts are chosen from (config.json 'topk_group'); see expert_groups."""
    method: str = "pretrain"
    """pretrain, finetune, lora or qlora (estimate/finetune.py holds the fine-tuning terms)."""
    adapter_params: float = 0.0
    """Trainable LoRA parameters (lora, qlora); 0 otherwise."""
    lora_rank: int = 0
    lora_targets: str = "qv"
    fp8: bool = False
    """FP8 matrix multiplications (training.precision: fp8): compute / FP8_SPEEDUP, FSDP gathers weights in 1 byte."""
    fp8_recipe: str = ""
    """The FP8 scaling recipe where one is stated (FP8_RECIPE_ALIASES); '' for the stack's own (fp8_recipe_of)."""
    fp8_default: str = "tensorwise"
    """The recipe outside Megatron by GPU generation (FP8_DEFAULT_RECIPE)."""
    stack: str = "fused"
    """The software stack (STACKS): 'eager' for Hugging Face Trainer fine-tunes, 'fused' otherwise (workload_from)."""
    main_grad_bytes: float = 4.0
    """Bytes of each gradient in Megatron's gradient buffer, which it accumulates and reduces (MEGATRON_MAIN_GRAD_BYTES)."""
    optimizer_state_bytes: float = 4.0
    """Bytes of each element of the optimizer's sharded state (master weights and Adam's two moments) on the Megatron
    path: fp32 by default (Megatron-LM's distributed optimizer); 2 where a recipe keeps it in bf16, as NeMo 1.x's
    fine-tuning configs do (Apex DistributedFusedAdam 'dtype (torch.dtype, optional): datatype for optimizer state',
    set to bf16 with grad_sync_dtype bf16 in NeMo-Framework-Launcher conf/peft/llama/sft.yaml). See memory.model_state_bytes."""
    example_tokens: int = 0
    """Tokens of one fine-tuning example (training.tokens_per_example) where the data is given in examples: shorter ones
    are packed several to a sequence, each attending only within itself (attention_tokens); longer ones are cut or split
    at the sequence. 0 where a sequence is one document (pre-training, post-training, or a fine-tune given in tokens)."""

    @property
    def is_moe(self) -> bool:
        return self.active_params < self.params

    @property
    def attention_tokens(self) -> int:
        """Tokens a token's attention can span: the example where short examples are packed into a sequence, else the
        whole sequence. Packed fine-tunes keep each example's attention to itself: NeMo's sequence packing for SFT/PEFT,
        as 'each input sequence should be treated individually' (NeMo 24.07 docs, features/optimizations/
        sequence_packing); Megatron-Bridge 'while preserving sequence boundaries for attention' (docs/training/
        packed-sequences.md); Hugging Face since Transformers 4.44 (arXiv:2407.09105). s/e examples of e tokens do
        (s/e)·e² = s·e query-key products: e/s of a whole sequence's quadratic work."""
        if 0 < self.example_tokens < self.seq_len:
            return self.example_tokens
        return self.seq_len

    @property
    def linear_share(self) -> float:
        """The share of this model's FLOPs in its linear layers (linear_share), attention at the span it is priced at."""
        return linear_share(self.shape.layers, self.shape.attention_width, self.shape.attention_context(self.attention_tokens),
                            self.active_params)

    @property
    def dense_params(self) -> float:
        """Parameters outside the routed experts (attention, embeddings, router, shared experts): with E experts of which k
        run per token, active = dense + k x expert and total = dense + E x expert, so dense = (E·active - k·total)/(E - k)."""
        if not self.is_moe or self.experts <= self.moe_top_k:
            return self.params
        e, k = float(self.experts), float(self.moe_top_k)
        return float(min(self.active_params, max(0.0, (e * self.active_params - k * self.params) / (e - k))))

    @property
    def expert_params(self) -> float:
        """Parameters in the routed experts: what expert parallelism splits."""
        return self.params - self.dense_params

    @property
    def largest_layer(self) -> float:
        """Largest single module's parameters, as DeepSpeed's _live estimator finds it: the embedding or the MLP matrix."""
        h = self.shape.hidden
        return float(max(self.vocab * h, 4 * h * h))

    @property
    def global_batch_seqs(self) -> int:
        """Whole sequences per optimizer step (the batch as given, rounded to whole sequences)."""
        return max(1, int(round(self.global_batch_tokens / self.seq_len)))

    @property
    def attention_flops_per_token(self) -> float:
        """Attention scores and their product with the values, over the queries' width (Shape.attention_width)."""
        return ATTENTION_FLOPS_PER_LAYER_TOKEN * self.shape.layers * self.shape.attention_width * self.shape.attention_context(self.attention_tokens)

    @property
    def flops_per_token(self) -> float:
        """Model FLOPs per trained token (forward + backward), before any recomputation; a frozen LoRA/QLoRA base
        skips its weight gradients (estimate/finetune.py)."""
        if self.method in ("lora", "qlora"):
            from advisor.estimate.finetune import peft_flops_per_token

            return peft_flops_per_token(self)
        return TRAINED_FLOPS_PER_PARAM * self.active_params + self.attention_flops_per_token

    @property
    def forward_flops_per_token(self) -> float:
        """One forward pass: what full recomputation repeats (2N + a third of the attention term; Transformer Math 101)."""
        return 2.0 * self.active_params + self.attention_flops_per_token / 3.0

    @property
    def trainable_params(self) -> float:
        """Parameters whose gradients are reduced across ranks: all of them, or only the adapters of LoRA/QLoRA."""
        return self.adapter_params if self.method in ("lora", "qlora") else self.params

    @property
    def weight_bytes(self) -> float:
        """Bytes of the weights FSDP/ZeRO-3 gather: 16-bit weights, or the frozen LoRA/QLoRA base as stored."""
        if self.method in ("lora", "qlora"):
            from advisor.estimate.finetune import frozen_base_bytes

            return frozen_base_bytes(self)
        return 2.0 * self.params


class Hardware(Struct, frozen=True):
    """The cluster, in bytes and seconds."""

    spec: GpuSpec
    gpus_per_node: int
    intra_bw: float
    inter_bw: float
    host_bw: float
    """GPU to CPU memory, bytes/s each way: the GPU's PCIe, or its coherent chip-to-chip link where it has one (host_link)."""
    cpu_memory_per_node: float | None
    intra_link: str
    data_tokens_per_sec: float | None = None
    """The data loader's measured throughput, if given: no step is faster than it can feed the batch."""
    efficiency_scale: float = 1.0
    """Multiplies the efficiency band: 1 by default, refitted to training.measured (model.estimate_all)."""
    tp_overlap: bool = False
    """Tensor-parallel communication overlapped with the GEMMs (communication.TENSOR_OVERLAP): on by default on NVLink
    Hopper and Blackwell nodes, where Megatron-LM's --tp-comm-overlap and torchtitan's AsyncTP run (hardware_from)."""
    tp_overlap_forward_only: bool = False
    """With tp_overlap: only the forward pass's collectives overlap (communication.ASYNC_TP_FORWARD_ONLY: torchtitan's
    AsyncTP); Megatron's userbuffers overlap both passes."""
    ep_overlap: bool = False
    """The expert all-to-all hidden behind computation (communication.EXPERT_OVERLAP): where the layout schedules it so —
    DeepSeek-V3's DualPipe, Megatron-Core's --overlap-moe-expert-parallel-comm. advisor's Megatron files run the plain
    alltoall dispatcher, so its plans keep the all-to-all on the critical path."""
    ep_dedup: bool = False
    """Tokens dispatched once per destination GPU and, across nodes, once per destination node (DeepEP;
    communication.distinct_destinations) instead of once per chosen expert."""
    spot_reclaims_per_node_hour: float = 0.0
    """Spot / preemptible capacity: reclaims per node-hour (cluster.spot_interruptions_pct_per_month / 100 / 720); 0 on demand."""

    @property
    def host_link(self) -> str:
        """"pcie", or "c2c" on a GPU with a coherent CPU link (GpuSpec.c2c_gbs: Grace's NVLink-C2C)."""
        return "c2c" if self.spec.c2c_gbs else "pcie"

    @property
    def inter_bw_per_gpu(self) -> float:
        """Each GPU's share of its node's network."""
        return self.inter_bw / self.gpus_per_node


SPLITTABLE_WIDTH = 1024
"""An inferred hidden size of 2,048 or more is rounded to a multiple of 1,024, so its heads (hidden / 128) are a multiple of
8 and every tensor-parallel degree up to a node divides them, as Megatron-LM requires (num_attention_heads % TP == 0);
Megatron-LM 2021 Table 1's widths from 3.6B up (3,072 ... 25,600) are all such multiples. advisor's policy for shapes
the answers leave out."""


def _solve_hidden(params: float, vocab: int, layers: int) -> float:
    a, b, c = 12.0 * layers, 13.0 * layers + vocab + 2.0, -params
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


def _solve_layers(params: float, vocab: int, hidden: int) -> int:
    return max(1, int(round((params - vocab * hidden) / (12.0 * hidden * hidden + 13.0 * hidden))))


def infer_shape(params: float, vocab: int, layers: int | None, hidden: int | None, heads: int | None) -> Shape:
    """Layers/hidden/heads from what was given; the rest from N = 12Lh^2 + 13Lh + Vh + 2h (Ultra-Scale Playbook)."""
    source = "given"
    if layers is None and hidden is None:
        nearest = nearest_published(params)
        solved = _solve_hidden(params, vocab, nearest[1])
        if solved >= 2 * SPLITTABLE_WIDTH:
            # A width tensor parallelism can split; the depth follows from the parameter count.
            hidden = int(round(solved / SPLITTABLE_WIDTH)) * SPLITTABLE_WIDTH
            layers = _solve_layers(params, vocab, hidden)
            source = (f"nearest published shape ({nearest[0] / 1e9:g}B, Megatron-LM 2021 Table 1): hidden rounded to a multiple "
                      f"of {SPLITTABLE_WIDTH}, layers solved from params")
        else:
            layers = nearest[1]
            source = f"layers from the nearest published shape ({nearest[0] / 1e9:g}B, Megatron-LM 2021 Table 1); hidden solved from params"
    if hidden is None:
        assert layers is not None
        hidden = max(64, int(round(_solve_hidden(params, vocab, layers))))
        if source == "given":
            source = "hidden solved from params and layers"
    if layers is None:
        layers = _solve_layers(params, vocab, hidden)
        source = "layers solved from params and hidden"
    if heads is None:
        heads = max(1, int(round(hidden / HEAD_DIM)))
    return Shape(layers=int(layers), hidden=int(hidden), heads=int(heads), source=source)


def workload_from(answers: Answers) -> Workload:
    m, t = answers.model, answers.training
    active = m.active_params or m.params
    # A mixture of experts is as wide and deep as a dense model of its *active* size; the experts add breadth.
    shape = infer_shape(active, m.vocab_size, m.layers, m.hidden_size, m.attention_heads)
    if m.kv_heads is not None:
        shape = replace(shape, kv_heads=m.kv_heads)
    if m.head_dim is not None:
        shape = replace(shape, head_dim=m.head_dim)
    if m.sliding_window is not None:
        pct = 100.0 if m.sliding_window_layers_pct is None else m.sliding_window_layers_pct
        shape = replace(shape, sliding_window=m.sliding_window, window_share=pct / 100.0)
    if m.config is not None and shape.source == "given":
        shape = replace(shape, source=f"{m.config}")
    elif m.name is not None and shape.source == "given":  # a known model's shape (data/models.yaml): its config, cited
        shape = replace(shape, source=str(known_models()[m.name]["source"]))
    fp32 = t.precision == "fp32"
    method = t.engine_method  # a dpo/grpo/ppo policy update runs as a LoRA or full fine-tune (estimate/posttrain.py adds the rest)
    seq_len = t.sequence_tokens or m.seq_len
    if t.global_batch_tokens is not None:
        batch, batch_source = t.global_batch_tokens, "given"
    elif method != "pretrain":
        # the asked method's batch where advisor prices a lighter one in its place (TrainingSection.batch_method)
        batch, batch_source = finetune_batch_tokens(t.batch_method, seq_len, answers.cluster.gpus)
    else:
        batch, batch_source = default_batch_tokens(m.params)
    peft = method in ("lora", "qlora")
    # a fine-tune counted in examples knows their length: shorter ones are packed (Workload.attention_tokens)
    in_examples = t.method in FINETUNE_METHODS and t.examples is not None and t.tokens_per_example is not None
    rank = (t.lora_rank or DEFAULT_RANK[method]) if peft else 0
    targets = (t.lora_targets or DEFAULT_TARGETS[method]) if peft else "qv"
    return Workload(
        params=m.params,
        active_params=active,
        shape=shape,
        seq_len=seq_len,
        vocab=m.vocab_size,
        global_batch_tokens=float(max(1, round(batch / seq_len)) * seq_len),
        micro_batch=t.micro_batch_size,
        grad_bytes=4.0 if fp32 else 2.0,
        main_grad_bytes=MEGATRON_MAIN_GRAD_BYTES.get(t.precision, 4.0),
        act_scale=2.0 if fp32 else 1.0,
        recompute=t.activation_recompute,
        moe_top_k=m.experts_per_token,
        batch_source=batch_source,
        experts=m.moe_experts,
        method=method,
        adapter_params=adapter_params(shape.layers, shape.hidden, rank, targets) if peft else 0.0,
        lora_rank=rank,
        lora_targets=targets,
        fp8=t.precision == "fp8",
        fp8_default=FP8_DEFAULT_RECIPE.get(answers.cluster.spec.generation, "tensorwise"),
        # Fine-tunes run on Hugging Face Trainer / accelerate (the published fine-tune recipes' stack); pre-training on
        # Megatron-LM / torchtitan / llm-foundry, the stacks the efficiency bands come from.
        stack="eager" if t.method != "pretrain" else "fused",
        example_tokens=int(t.tokens_per_example or 0) if in_examples else 0,
    )


_QLORA_TRAINER_BATCH = N_("16 sequences, the QLoRA reference trainer's batch (artidoro/qlora qlora.py: 1 x 16 accumulation)")
_QLORA_TRAINER_BATCH_RAISED = N_("16 sequences, the QLoRA reference trainer's batch (artidoro/qlora qlora.py: 1 x 16 accumulation on one "
                                 "GPU), raised to one sequence per GPU of today's cluster: a Hugging Face Trainer's "
                                 "per_device_train_batch_size is per GPU, so a data-parallel batch never holds fewer sequences "
                                 "than GPUs (huggingface/transformers training_args.py)")

FINETUNE_BATCH_SOURCES: dict[str, str] = {
    "finetune": N_("64 sequences, Llama 2-Chat's supervised fine-tuning batch (arXiv:2307.09288 Sec 3.1)"),
    "lora": _QLORA_TRAINER_BATCH,
    "qlora": _QLORA_TRAINER_BATCH,
}

FINETUNE_BATCH_RAISED: dict[str, str] = {
    "finetune": N_("64 sequences, Llama 2-Chat's supervised fine-tuning batch (arXiv:2307.09288 Sec 3.1), raised to one sequence per GPU of "
                   "today's cluster: a Hugging Face Trainer's per_device_train_batch_size is per GPU, so a data-parallel batch never holds "
                   "fewer sequences than GPUs (huggingface/transformers training_args.py)"),
    "lora": _QLORA_TRAINER_BATCH_RAISED,
    "qlora": _QLORA_TRAINER_BATCH_RAISED,
}
"""Each source with its raise to one sequence per GPU, whole: render translates a batch source as one sentence."""


def finetune_batch_tokens(method: str, seq_len: int, gpus: int = 1) -> tuple[float, str]:
    """A fine-tune's default batch from published fine-tune recipes (estimate/finetune.py FINETUNE_BATCH_SEQUENCES), and
    at least one sequence per GPU of today's cluster: the recipes' batches were set on one GPU (QLoRA) or a node, and a
    default that starves today's GPUs would send a 64-GPU LoRA to 16 GPUs for no reason the team gave."""
    recipe = FINETUNE_BATCH_SEQUENCES[method]
    if gpus > recipe:
        return float(gpus * seq_len), BATCH_NOT_GIVEN + FINETUNE_BATCH_RAISED[method]
    return float(recipe * seq_len), BATCH_NOT_GIVEN + FINETUNE_BATCH_SOURCES[method]


def hardware_from(answers: Answers) -> Hardware:
    c = answers.cluster
    spec = c.spec
    _, link = efficiency_data()
    intra_link = c.intra_node or spec.intra_node
    if intra_link in ("nvlink", "xgmi", "hccs") and spec.nvlink_gbs:
        intra = spec.nvlink_gbs
    else:
        intra_link = "pcie"
        intra = spec.pcie_gbs
    return Hardware(
        spec=spec,
        gpus_per_node=c.gpus_per_node,
        intra_bw=intra * GB * link["intra_node"],
        inter_bw=c.network_gbps / 8.0 * GB * link["inter_node"],
        host_bw=(spec.c2c_gbs or spec.pcie_gbs) * GB,  # ZeRO-Offload's copies take the CPU link the GPU has
        cpu_memory_per_node=c.cpu_memory_gb_per_node * GB if c.cpu_memory_gb_per_node else None,
        intra_link=intra_link,
        data_tokens_per_sec=c.data_pipeline_tokens_per_sec,
        spot_reclaims_per_node_hour=(c.spot_interruptions_pct_per_month or 0.0) / 100.0 / HOURS_PER_MONTH,
        tp_overlap=False,  # advisor's Megatron files do not pass --tp-comm-overlap: the plan is priced as it will run
    )


TP_OVERLAP_GENERATIONS: tuple[str, ...] = ("hopper", "blackwell")
"""(Not applied to advisor's own plans: their launch files run without --tp-comm-overlap, so Hardware.tp_overlap stays
off and the collectives sit on the critical path, as they will. With overlap on, the published full runs came out 2.6
points more optimistic in median, 0.145 -> 0.171: issue 32's measured limit.)"""
"""Where tensor-parallel communication overlap is the published default: Megatron-Bridge's performance recipes enable
tp_comm_overlap on DGX-H100/B200/GB200 (scripts/performance), torchtitan's AsyncTP is published on H100
(benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md). Older layouts (Megatron-LM 2021 on A100) kept it on the
critical path."""
