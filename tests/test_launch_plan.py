"""Issue 25: the launch files run the plan — the recommended GPUs and a layout the frameworks accept — and say the same
numbers as the memo's engineering appendix."""

from __future__ import annotations

import json
import re
import shlex
import warnings
from functools import cache

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping, load_answers
from advisor.outputs.artifacts import MegatronModel, artifacts_for, build_artifacts, launch_command, megatron_model
from advisor.decision.deployment import Deployment, deployment, pipeline_layout
from advisor.estimate.layout import stage_split
from advisor.outputs.render import to_markdown
from advisor.knowledge.rules import load_rules

from .conftest import EXAMPLES


@cache
def _rules():
    return load_rules()


SCENARIOS = {
    # 70B with 84 layers on 768 H100: the search once wrote PP 3 with 3 layers a virtual stage (28 a stage: not divisible).
    "70b-84-layers": {"model": {"params": "70B", "layers": 84}, "training": {"tokens": "2T", "current_strategy": "megatron-3d"},
                      "cluster": {"gpu": "h100-sxm", "gpus": 768, "inter_node_gbps": 3200}, "budget": {"price_per_gpu_hour": 3.5}},
    # 405B, 126 layers: PP 8 needs uneven first/last stages (126 = 15 + 6 x 16 + 15).
    "405b-126-layers": {"model": {"params": "405B", "layers": 126, "hidden_size": 16384, "attention_heads": 128, "seq_len": 8192,
                                  "vocab_size": 128256},
                        "training": {"tokens": "15T", "global_batch_tokens": "16M", "current_strategy": "megatron-3d"},
                        "cluster": {"gpu": "h100-sxm", "gpus": 16384, "inter_node_gbps": 3200}, "budget": {"price_per_gpu_hour": 2}},
    # DeepSeek-V3-like: 61 layers, 256 experts, top-8.
    "deepseek-v3-like": {"model": {"params": "671B", "active_params": "37B", "experts_per_token": 8, "experts": 256, "layers": 61,
                                   "hidden_size": 7168, "attention_heads": 128, "seq_len": 4096, "vocab_size": 129280},
                         "training": {"tokens": "14.8T", "global_batch_tokens": 62914560, "current_strategy": "megatron-3d"},
                         "cluster": {"gpu": "h800", "gpus": 2048, "inter_node_gbps": 3200}, "budget": {"price_per_gpu_hour": 2}},
    # Llama 3 70B's shape (arXiv:2407.21783 Table 3: 80 layers, 8,192 wide, 64 heads, 8 key-value heads, 128K vocabulary).
    "llama3-70b-gqa": {"model": {"params": "70B", "layers": 80, "hidden_size": 8192, "attention_heads": 64, "kv_heads": 8,
                                 "vocab_size": 128256},
                       "training": {"tokens": "2T", "current_strategy": "megatron-3d"},
                       "cluster": {"gpu": "h100-sxm", "gpus": 512, "inter_node_gbps": 3200}, "budget": {"price_per_gpu_hour": 2}},
    # Mixtral-like on 256 H100.
    "mixtral-like": {"model": {"params": "46.7B", "active_params": "12.9B", "experts_per_token": 2, "experts": 8},
                     "training": {"tokens": "1T"}, "cluster": {"gpu": "h100-sxm", "gpus": 256, "inter_node_gbps": 3200},
                     "budget": {"price_per_gpu_hour": 3}},
}


def _flags(command: str) -> dict[str, str | bool]:
    """`--name value` and bare `--switch` pairs of one command line (after the entry point)."""
    words = shlex.split(command.split("#", 1)[0])
    out: dict[str, str | bool] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("--"):
            name, eq, val = w.partition("=")
            if eq:
                out[name] = val
            elif i + 1 < len(words) and not words[i + 1].startswith("--"):
                out[name] = words[i + 1]
                i += 1
            else:
                out[name] = True
        i += 1
    return out


def _files(advice) -> dict[str, str]:
    return {a.name: a.text for a in build_artifacts(advice)}


def check_files_run_the_plan(advice) -> Deployment:
    """Nodes x GPUs per node in job.sbatch and launch.sh = the plan's GPUs = TP x PP x CP x DP; the batch identity."""
    report = advice.report()
    d = report.deployment
    files = {a.name: a.text for a in artifacts_for(report)}
    gpus = report.recommendation.gpus
    assert d.gpus == gpus == advice.plan.chosen.gpus
    assert d.tensor_parallel * d.pipeline_parallel * d.context_parallel * d.data_parallel == gpus
    assert d.train_batch_sequences == d.micro_batch * d.accumulation * d.data_parallel
    sb = files["job.sbatch"]
    nodes = int(re.search(r"#SBATCH --nodes=(\d+)", sb).group(1))
    per_node = int(re.search(r"#SBATCH --gpus-per-node=(\d+)", sb).group(1))
    assert nodes * per_node == gpus, sb
    host = report.typed_answers().cluster.spec.gpus_per_host
    assert host is None or per_node <= host, "one host runs no more GPUs than it has (GB200: 4 per compute tray)"
    launch = files["launch.sh"].splitlines()[-1]
    if d.launcher == "horovodrun":
        assert f"horovodrun -np {gpus} " in launch
    else:
        f = _flags(launch)
        assert int(f["--nnodes"]) * int(f["--nproc-per-node"]) == gpus, launch
        assert int(f["--nnodes"]) == nodes
    if "ds_config.json" in files:
        cfg = json.loads(files["ds_config.json"])
        # DeepSpeed derives the accumulation: train_batch_size / (micro-batch x data-parallel ranks), whole at the plan's ranks.
        assert "gradient_accumulation_steps" not in cfg, "a fixed accumulation refuses every other GPU count"
        assert cfg["train_batch_size"] == cfg["train_micro_batch_size_per_gpu"] * d.accumulation * d.data_parallel
        assert cfg["train_batch_size"] == d.train_batch_sequences
        assert cfg["optimizer"]["type"] == "AdamW" and cfg["optimizer"]["params"]["lr"] > 0
    for name in ("accelerate_fsdp.yaml", "accelerate_finetune.yaml"):
        if name in files:
            acc = yaml.safe_load(files[name])
            assert acc["num_processes"] == gpus and acc["num_machines"] == nodes
            assert "main_process_ip" not in acc and "machine_rank" not in acc, "one host's values would reach every host"
    if d.launcher == "megatron":
        f = _flags(launch)
        assert int(f["--global-batch-size"]) == d.train_batch_sequences
        assert int(f["--global-batch-size"]) % (int(f["--micro-batch-size"]) * d.data_parallel) == 0
        assert_interleaved_schedule_runs(f, d)
        needs_one_queue = d.tensor_parallel > 1 or d.context_parallel > 1
        assert ("export CUDA_DEVICE_MAX_CONNECTIONS=1" in files["launch.sh"]) == needs_one_queue
        assert ("export CUDA_DEVICE_MAX_CONNECTIONS=1" in files["job.sbatch"]) == needs_one_queue
    readme = files["README.md"]
    assert f"{gpus} x" in readme.splitlines()[2]
    return d


def assert_interleaved_schedule_runs(flags: dict[str, str | bool], d: Deployment) -> None:
    """megatron-core's interleaved 1F1B (pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving)
    raises unless PP <= group <= micro-batches and micro-batches % group is 0 or at least PP; the group is
    --microbatch-group-size-per-virtual-pipeline-stage, PP by default (ModelParallelConfig.__post_init__)."""
    chunked = "--num-virtual-stages-per-pipeline-rank" in flags or "--pipeline-model-parallel-layout" in flags and d.virtual_stages > 1
    if not chunked:
        return
    pp = int(flags["--pipeline-model-parallel-size"])
    m = int(flags["--global-batch-size"]) // (int(flags["--micro-batch-size"]) * d.data_parallel)
    group = int(flags.get("--microbatch-group-size-per-virtual-pipeline-stage", pp))
    assert pp <= group <= m, (pp, group, m)
    assert m % group == 0 or m % group >= pp, (pp, group, m)


def test_launch_files_run_the_recommended_gpus_not_todays():
    """customer-service recommends 128 GPUs instead of 64: the files asked Slurm and torchrun for today's 8 nodes beside
    a ds_config whose batch needs 128 ranks (DeepSpeed refuses that at start-up)."""
    advice = advise(load_answers(EXAMPLES / "customer-service.yaml"), _rules())
    assert advice.plan.chosen.gpus != advice.answers.cluster.gpus, "the example must recommend a different count"
    d = check_files_run_the_plan(advice)
    files = _files(advice)
    assert f"#SBATCH --nodes={d.nodes}" in files["job.sbatch"] and d.nodes == advice.plan.chosen.gpus // 8
    assert f"--nnodes={d.nodes} " in files["launch.sh"]
    readme = files["README.md"]
    assert f"{advice.answers.cluster.gpus} x" not in readme.splitlines()[2]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_run_the_plan(name):
    check_files_run_the_plan(advise(answers_from_mapping(SCENARIOS[name]), _rules()))


@st.composite
def valid_answers(draw) -> dict:
    """Answers files that validate: dense or mixture-of-experts models from 125M to 405B, given or inferred shapes, whole
    nodes of every catalog GPU family, slow to fast networks, with and without deadlines and batches."""
    params = draw(st.sampled_from([0.125, 1.3, 7, 13, 34, 70, 175, 405]))
    model: dict = {"params": f"{params}B", "seq_len": draw(st.sampled_from([1024, 2048, 4096, 8192, 32768]))}
    if draw(st.booleans()):
        model["layers"] = draw(st.sampled_from([12, 24, 32, 40, 61, 80, 84, 96, 126]))
    if draw(st.booleans()):
        model["kv_heads"] = draw(st.sampled_from([1, 8]))  # multi-query or Llama 3's grouped-query attention
    if draw(st.integers(0, 3)) == 0:
        model["head_dim"] = draw(st.sampled_from([64, 128, 256]))  # a head size of its own (Qwen3, GPT-OSS, Gemma)
    if draw(st.integers(0, 3)) == 0:  # sliding-window attention on every layer, every other one, or five in six
        model["sliding_window"] = draw(st.sampled_from([128, 1024, 4096]))
        model["sliding_window_layers_pct"] = draw(st.sampled_from([100, 50, 500 / 6]))
    if params >= 7 and draw(st.integers(0, 3)) == 0:
        model["active_params"] = f"{params * draw(st.sampled_from([0.1, 0.25, 0.4])):.3g}B"
        k = draw(st.sampled_from([1, 2, 8]))
        model["experts_per_token"] = k
        model["experts"] = draw(st.sampled_from([e for e in (8, 16, 64, 128, 256) if e > k]))
    per_node = draw(st.sampled_from([4, 8]))
    gpus = draw(st.sampled_from([1, 2, per_node, 2 * per_node, 8 * per_node, 32 * per_node, 128 * per_node]))
    training: dict = {"tokens": draw(st.sampled_from(["100M", "10B", "300B", "2T"])),
                      "current_strategy": draw(st.sampled_from(["ddp", "fsdp", "deepspeed-zero2", "deepspeed-zero3", "megatron-3d"]))}
    if draw(st.booleans()):
        training["deadline_days"] = draw(st.sampled_from([1, 7, 30]))
    if draw(st.booleans()):
        training["global_batch_tokens"] = draw(st.sampled_from(["1M", "4M", "16M"]))
    cluster = {"gpu": draw(st.sampled_from(["a100-80gb", "h100-sxm", "h800", "a10", "l40s", "mi300x", "ascend-910b", "gb200"])),
               "gpus": gpus, "gpus_per_node": per_node, "inter_node_gbps": draw(st.sampled_from([25, 200, 400, 3200])),
               "cpu_memory_gb_per_node": 2048, "multi_tenant": draw(st.booleans())}
    return {"model": model, "training": training, "cluster": cluster, "budget": {"price_per_gpu_hour": draw(st.sampled_from([1, 2.5, 10]))}}


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=valid_answers())
def test_any_plan_writes_files_that_run_it(data):
    answers = answers_from_mapping(data)  # every drawn file is valid: a refusal here is a defect
    advice = advise(answers, _rules())
    if any(w["blocking"] for w in advice.warnings):
        return
    check_files_run_the_plan(advice)
    mega = deployment(advice.evaluation, "megatron-3d")
    _check_megatron_layout(mega)
    MEGATRON_SEEN.append((mega, megatron_model(mega, advice.evaluation.context["workload"])))


MEGATRON_SEEN: list[tuple[Deployment, MegatronModel]] = []


def _check_megatron_layout(d: Deployment) -> None:
    """What megatron-core asserts, in arithmetic (the framework's own check runs in test_megatron_core_accepts_*)."""
    assert d.attention_heads % d.tensor_parallel == 0
    if d.experts is not None:
        assert d.experts % d.expert_parallel == 0 and (d.data_parallel * d.context_parallel) % d.expert_parallel == 0
    if d.pipeline_parallel > 1:
        assert d.fullest_stage_layers == -(-d.layers // d.pipeline_parallel)
        if d.pipeline_layout is None:
            split = stage_split(d.layers, d.pipeline_parallel, d.virtual_stages)
            assert split is not None
            first = d.first_stage_layers or split.middle
            last = d.last_stage_layers or split.middle
            assert first % d.virtual_stages == 0 and last % d.virtual_stages == 0
            middle = d.layers - first - last
            if d.pipeline_parallel > 2:
                assert middle % (d.pipeline_parallel - 2) == 0 and (middle // (d.pipeline_parallel - 2)) % d.virtual_stages == 0


@pytest.mark.parametrize(("layers", "pp", "v"), [(84, 3, 3), (84, 3, 1), (126, 8, 1), (126, 16, 1), (61, 8, 1), (61, 8, 2),
                                                 (96, 10, 8), (32, 4, 4), (7, 2, 1), (61, 2, 4),
                                                 (126, 16, 8), (127, 16, 8)])
def test_pipeline_layout_holds_every_layer_once_and_fills_no_stage_past_even(layers, pp, v):
    text = pipeline_layout(layers, pp, v)
    unrolled = re.sub(r"\(([^)]*)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), text)
    chunks = unrolled.split("|")
    assert len(chunks) == pp * v and unrolled.count("t") == layers and unrolled.startswith("E") and unrolled.endswith("L")
    per_rank = [sum(chunks[vr * pp + r].count("t") for vr in range(v)) for r in range(pp)]
    assert max(per_rank) == -(-layers // pp)


def _decision_case_answers() -> list:
    from .test_decisions import CASES, _answers

    return [_answers(c) for c in CASES]


def _megatron_deployments() -> list[tuple[str, Deployment, MegatronModel]]:
    out = []
    sources = [(f"scenario:{k}", answers_from_mapping(v)) for k, v in SCENARIOS.items()]
    sources += [(f"decision:{i}", a) for i, a in enumerate(_decision_case_answers())]
    for name, answers in sources:
        advice = advise(answers, _rules())
        d = deployment(advice.evaluation, "megatron-3d")
        out.append((name, d, megatron_model(d, advice.evaluation.context["workload"])))
    for example in sorted(EXAMPLES.glob("*.yaml")):
        advice = advise(load_answers(example), _rules())
        d = deployment(advice.evaluation, "megatron-3d")
        out.append((f"example:{example.stem}", d, megatron_model(d, advice.evaluation.context["workload"])))
    return out


def test_llama3_405b_interleaves_16_stages_of_8_chunks_with_the_embedding_and_the_loss_alone():
    """Llama 3 405B: 126 layers on PP 16, 'the first model chunk on the first stage has only the embedding, and the last
    model chunk on the last stage has only output projection and loss' (arXiv:2407.21783 Sec 3.3.2): v = 8, first and
    last stages 7 layers. The search offers that layout and the launch file writes it."""
    from advisor.estimate.layout import _layouts
    from advisor.estimate.workload import hardware_from, workload_from

    a = answers_from_mapping({"model": {"params": 405e9, "layers": 126, "hidden_size": 16384, "attention_heads": 128, "seq_len": 8192},
                              "training": {"tokens": 15.6e12}, "cluster": {"gpu": "h100-sxm", "gpus": 16384, "gpus_per_node": 8},
                              "budget": {"price_per_gpu_hour": 2}})
    assert (8, 1, 16, 8) in _layouts(workload_from(a), hardware_from(a))
    text = pipeline_layout(126, 16, 8)
    unrolled = re.sub(r"\(([^)]*)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), text)
    chunks = unrolled.split("|")
    assert chunks[0] == "E" and chunks[-1] == "L" and all(c == "t" for c in chunks[1:-1])
    assert [sum(chunks[v * 16 + r].count("t") for v in range(8)) for r in range(16)] == [7] + [8] * 14 + [7]


def test_the_issue_layouts_are_ones_megatron_takes():
    """84 layers at PP 3 with 3 virtual stages, 126 at PP 8, 61 at PP 8: the flags now place every layer."""
    for layers, pp, v in ((84, 3, 3), (126, 8, 1), (61, 8, 1)):
        split = stage_split(layers, pp, v)
        assert split is not None and split.first + split.last + split.middle * (pp - 2) == layers
        assert split.first % v == 0 and split.last % v == 0 and split.middle % v == 0


def _megatron_core():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pytest.importorskip("torch", reason="megatron-core needs torch (CI installs torch==2.13.0 and megatron-core: see .ci/run)")
        core = pytest.importorskip("megatron.core.transformer.transformer_config",
                                   reason="megatron-core is not installed (CI installs it: see .ci/run)")
        from megatron.core.transformer.transformer_block import get_num_layers_to_build
    return core.TransformerConfig, get_num_layers_to_build


def megatron_config_from_flags(flags: dict[str, str | bool], TransformerConfig):
    """The launch line's flags as megatron-core's TransformerConfig (what Megatron-LM's core_transformer_config_from_args does)."""
    import torch

    pp = int(flags["--pipeline-model-parallel-size"])
    vpp = int(flags["--num-virtual-stages-per-pipeline-rank"]) if "--num-virtual-stages-per-pipeline-rank" in flags else None
    kwargs = dict(
        num_layers=int(flags["--num-layers"]), hidden_size=int(flags["--hidden-size"]), num_attention_heads=int(flags["--num-attention-heads"]),
        tensor_model_parallel_size=int(flags["--tensor-model-parallel-size"]), pipeline_model_parallel_size=pp,
        virtual_pipeline_model_parallel_size=vpp, context_parallel_size=int(flags.get("--context-parallel-size", 1)),
        sequence_parallel="--sequence-parallel" in flags, bf16="--bf16" in flags, fp16="--fp16" in flags,
        pipeline_dtype=torch.bfloat16 if "--bf16" in flags else (torch.float16 if "--fp16" in flags else torch.float32),
        add_bias_linear="--disable-bias-linear" not in flags,
        # The priced model's shape (issue 31): grouped-query attention, the feed-forward width, SwiGLU, RMSNorm.
        num_query_groups=int(flags["--num-query-groups"]) if "--group-query-attention" in flags else None,
        kv_channels=int(flags["--kv-channels"]) if "--kv-channels" in flags else None,
        window_size=tuple(int(x) for x in str(flags["--window-size"]).split(",")) if "--window-size" in flags else None,
        window_attn_skip_freq=int(flags["--window-attn-skip-freq"]) if "--window-attn-skip-freq" in flags else None,
        ffn_hidden_size=int(flags["--ffn-hidden-size"]) if "--ffn-hidden-size" in flags else None,
        gated_linear_unit="--swiglu" in flags, normalization=str(flags.get("--normalization", "LayerNorm")),
    )
    if "--swiglu" in flags:
        kwargs["activation_func"] = torch.nn.functional.silu
    if "--microbatch-group-size-per-virtual-pipeline-stage" in flags:
        kwargs["microbatch_group_size_per_vp_stage"] = int(flags["--microbatch-group-size-per-virtual-pipeline-stage"])
    if "--decoder-first-pipeline-num-layers" in flags:
        kwargs["num_layers_in_first_pipeline_stage"] = int(flags["--decoder-first-pipeline-num-layers"])
    if "--decoder-last-pipeline-num-layers" in flags:
        kwargs["num_layers_in_last_pipeline_stage"] = int(flags["--decoder-last-pipeline-num-layers"])
    if "--pipeline-model-parallel-layout" in flags:
        kwargs["pipeline_model_parallel_layout"] = flags["--pipeline-model-parallel-layout"]
    if "--num-experts" in flags:
        kwargs.update(num_moe_experts=int(flags["--num-experts"]), moe_router_topk=int(flags["--moe-router-topk"]),
                      expert_model_parallel_size=int(flags["--expert-model-parallel-size"]),
                      moe_router_pre_softmax="--moe-router-pre-softmax" in flags,
                      moe_ffn_hidden_size=int(flags["--moe-ffn-hidden-size"]) if "--moe-ffn-hidden-size" in flags else None,
                      moe_token_dispatcher_type=str(flags.get("--moe-token-dispatcher-type", "allgather")))
        if "--moe-shared-expert-intermediate-size" in flags:
            kwargs["moe_shared_expert_intermediate_size"] = int(flags["--moe-shared-expert-intermediate-size"])
    if "--recompute-granularity" in flags:
        kwargs["recompute_granularity"] = flags["--recompute-granularity"]
        if "--recompute-method" in flags:
            kwargs.update(recompute_method=flags["--recompute-method"], recompute_num_layers=int(flags["--recompute-num-layers"]))
    return TransformerConfig(**kwargs)


def test_megatron_core_accepts_every_megatron_layout():
    """megatron-core's own TransformerConfig takes the flags launch.sh writes, and its get_num_layers_to_build places
    every layer exactly once, for the decision cases, the examples, the issue's scenarios and the property test's plans."""
    TransformerConfig, layers_to_build = _megatron_core()
    from megatron.core.num_microbatches_calculator import ConstantNumMicroBatchesCalculator
    seen = _megatron_deployments() + [(f"property:{i}", d, m) for i, (d, m) in enumerate(MEGATRON_SEEN)]
    assert len(seen) >= 20
    checked = set()
    for name, d, m in seen:
        key = (d.layers, d.hidden_size, d.attention_heads, d.tensor_parallel, d.pipeline_parallel, d.virtual_stages, d.context_parallel,
               d.experts, d.expert_parallel, d.recompute, d.accumulation % d.pipeline_parallel, m)
        if key in checked:
            continue
        checked.add(key)
        flags = _flags(launch_command(d, m).split("pretrain_gpt.py", 1)[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = megatron_config_from_flags(flags, TransformerConfig)
            vps = cfg.virtual_pipeline_model_parallel_size or 1
            layout = cfg.pipeline_model_parallel_layout
            if layout is not None:
                # megatron-core parsed and validated it (validate_layer_layout); count its decoder layers per rank and chunk
                decoder = type(layout.layout[0][0][0]).decoder
                per_rank = [sum(layout.layout[p][v].count(decoder) for v in range(vps)) for p in range(cfg.pipeline_model_parallel_size)]
            else:
                per_rank = [sum(layers_to_build(cfg, vp_stage=v if vps > 1 else None, pp_rank=p) for v in range(vps))
                            for p in range(cfg.pipeline_model_parallel_size)]
            placed = sum(per_rank)
        assert max(per_rank) == d.fullest_stage_layers, (name, per_rank)
        assert placed == d.layers, (name, flags)
        assert vps == d.virtual_stages, (name, flags)
        if d.experts is not None:
            assert d.experts % d.expert_parallel == 0, name
        # megatron-core's own micro-batch count for the flags' batch (it asserts global % (micro x DP) == 0) ...
        steps = ConstantNumMicroBatchesCalculator(int(flags["--global-batch-size"]), int(flags["--micro-batch-size"]), d.data_parallel,
                                                  False, 0).get()
        assert steps == d.accumulation, name
        if vps > 1:
            # ... and the interleaved schedule's own range check (schedules.py), with the group the config settled on.
            group, pp = cfg.microbatch_group_size_per_vp_stage, cfg.pipeline_model_parallel_size
            assert pp <= group <= steps and (steps % group == 0 or steps % group >= pp), (name, group, steps)
        assert cfg.num_query_groups == m.kv_heads and cfg.ffn_hidden_size == m.ffn_hidden and cfg.gated_linear_unit, name
    assert len(checked) >= 5


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.yaml")) + sorted(SCENARIOS))
def test_memo_appendix_and_launch_readme_say_the_same_numbers(example):
    """The memo's 'How it runs' and the launch README's 'Layout' are the same lines, and the numbers launch.sh and
    job.sbatch carry are among them."""
    if example in SCENARIOS:
        advice = advise(answers_from_mapping(SCENARIOS[example]), _rules())
    else:
        advice = advise(load_answers(EXAMPLES / f"{example}.yaml"), _rules())
    if any(w["blocking"] for w in advice.warnings):
        pytest.skip("blocked: no launch files")
    files = _files(advice)
    memo = to_markdown(advice)
    memo_lines = memo.split("## How it runs", 1)[1].split("\n## ", 1)[0]
    readme_lines = files["README.md"].split("## Layout", 1)[1].split("\n## ", 1)[0]
    bullets = lambda text: [ln for ln in text.splitlines() if ln.startswith("- ")]  # noqa: E731
    assert bullets(memo_lines) == bullets(readme_lines) and bullets(memo_lines)
    d = advice.report().deployment
    text = "\n".join(bullets(memo_lines))
    for number in (d.gpus, d.nodes, d.gpus_per_node, d.tensor_parallel, d.pipeline_parallel, d.data_parallel, d.micro_batch,
                   d.accumulation, d.train_batch_sequences):
        assert re.search(rf"\b{number}\b", text), (number, text)
    assert f"--nodes={d.nodes}" in files["job.sbatch"] and f"--gpus-per-node={d.gpus_per_node}" in files["job.sbatch"]


def test_moe_on_fsdp_carries_expert_parallelism_into_the_files():
    advice = advise(answers_from_mapping(SCENARIOS["mixtral-like"]), _rules())
    mega = launch_command(deployment(advice.evaluation, "megatron-3d"))
    flags = _flags(mega.split("pretrain_gpt.py", 1)[1])
    assert flags["--num-experts"] == "8" and flags["--moe-router-topk"] == "2" and int(flags["--expert-model-parallel-size"]) > 1
    fsdp = launch_command(deployment(advice.evaluation, "fsdp"))
    assert "expert parallelism" in fsdp


def test_megatron_readme_names_its_entry_point():
    advice = advise(answers_from_mapping(SCENARIOS["deepseek-v3-like"]), _rules())
    advice.strategy = "megatron-3d"
    readme = _files(advice)["README.md"]
    assert "pretrain_gpt.py" in readme and "`train.py` stands for" not in readme


def test_deepspeed_template_meets_every_rank_before_it_tears_down():
    """CI run of 2026-12-05: ZeRO-3 on two CPU ranks aborted after its last step ('terminate called without an active
    exception') in 2 of 12 runs, a rank freeing its engine while the other was still in a collective. The template's
    DeepSpeed branch now barriers before engine.destroy() and again before ending the group (0 aborts in 35 runs)."""
    from advisor.outputs.train_template import TRAIN_PY

    branch = TRAIN_PY.split("if args.deepspeed:")[1].split("return")[0]
    barrier, destroy, end = branch.index("dist.barrier()"), branch.index("engine.destroy()"), branch.index("dist.destroy_process_group()")
    assert barrier < destroy < branch.index("dist.barrier()", destroy) < end
