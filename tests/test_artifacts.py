"""Launch artifacts: consistent batch layout, the right files per strategy, DeepSpeed's own schema."""

from __future__ import annotations

import json

import pytest
import yaml

from advisor.decision.advice import advise
from advisor.inputs.answers import STRATEGIES, answers_from_mapping, load_answers
from advisor.outputs.artifacts import build_artifacts, deepspeed_config, write_artifacts
from advisor.cli import main
from advisor.decision.deployment import deployment
from advisor.base.errors import OutputError

from .deepspeed_check import parsed_by_deepspeed
from .conftest import EXAMPLES, MINIMAL, with_

EXPECTED_FILES = {
    # train.py: the template torchrun and DeepSpeed launches run (issue 31); Horovod and Megatron-LM bring their own entry points.
    "ddp": {"launch.sh", "job.sbatch", "README.md", "train.py"},
    "ddp-powersgd": {"powersgd_hook.py", "launch.sh", "job.sbatch", "README.md", "train.py"},
    "horovod": {"launch.sh", "job.sbatch", "README.md"},
    "fsdp": {"accelerate_fsdp.yaml", "launch.sh", "job.sbatch", "README.md", "train.py"},
    "fsdp-hybrid": {"accelerate_fsdp.yaml", "launch.sh", "job.sbatch", "README.md", "train.py"},
    "megatron-3d": {"launch.sh", "job.sbatch", "README.md"},
    **{s: {"ds_config.json", "launch.sh", "job.sbatch", "README.md", "train.py"} for s in STRATEGIES if s.startswith("deepspeed")},
}


def _advice_for(rules, strategy, **sections):
    advice = advise(answers_from_mapping(with_(MINIMAL, **sections)), rules)
    advice.strategy = strategy  # price every strategy's artifacts, not only the recommended one
    return advice


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_gets_its_files(rules, strategy):
    advice = _advice_for(rules, strategy, cluster={"cpu_memory_gb_per_node": 2048})
    assert {a.name for a in build_artifacts(advice)} == EXPECTED_FILES[strategy]


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s.startswith("deepspeed")])
@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp32"])
def test_deepspeed_batch_identity_and_stage(rules, strategy, precision):
    advice = _advice_for(rules, strategy, training={"precision": precision})
    d = deployment(advice.evaluation, strategy)
    cfg = deepspeed_config(d)
    e = advice.estimate_dict(strategy)
    parsed = parsed_by_deepspeed(cfg, e["data_parallel"])  # DeepSpeed derives the accumulation from the batch and the ranks
    assert parsed.gradient_accumulation_steps == d.accumulation == e["gradient_accumulation_steps"]
    assert cfg["train_batch_size"] == cfg["train_micro_batch_size_per_gpu"] * parsed.gradient_accumulation_steps * e["data_parallel"]
    assert cfg["zero_optimization"]["stage"] == {"deepspeed-zero1": 1, "deepspeed-zero2": 2}.get(strategy, 3)
    assert ("offload_param" in cfg["zero_optimization"]) == (strategy == "deepspeed-zero3-offload")
    assert ("bf16" in cfg) == (precision == "bf16") and ("fp16" in cfg) == (precision == "fp16")


def test_horovod_and_megatron_commands(rules):
    hv = {a.name: a.text for a in build_artifacts(_advice_for(rules, "horovod"))}
    assert "horovodrun -np 64" in hv["launch.sh"] and "HOROVOD_HOSTS" in hv["job.sbatch"]
    advice = _advice_for(rules, "megatron-3d", model={"params": "70B"}, cluster={"gpus": 512})
    e = advice.estimate_dict("megatron-3d")
    mg = {a.name: a.text for a in build_artifacts(advice)}
    assert f"--tensor-model-parallel-size {e['tensor_parallel']}" in mg["launch.sh"] and "--use-distributed-optimizer" in mg["launch.sh"]
    assert f"--pipeline-model-parallel-size {e['pipeline_parallel']}" in mg["launch.sh"]
    d = deployment(advice.evaluation, "megatron-3d")
    chunks = "--num-virtual-stages-per-pipeline-rank" in mg["launch.sh"] or "--pipeline-model-parallel-layout" in mg["launch.sh"]
    assert chunks == (e["virtual_pipeline_stages"] > 1 or d.pipeline_layout is not None)
    assert "--num-layers-per-virtual-pipeline-stage" not in mg["launch.sh"]


def test_sbatch_matches_the_cluster_shape(rules):
    advice = _advice_for(rules, "fsdp", cluster={"gpus": 32, "multi_tenant": True})
    text = {a.name: a.text for a in build_artifacts(advice)}["job.sbatch"]
    assert "#SBATCH --nodes=4" in text and "#SBATCH --gpus-per-node=8" in text and "--exclusive" in text


def test_offload_without_host_memory_is_explained(rules):
    advice = _advice_for(rules, "deepspeed-zero3-offload")
    readme = {a.name: a.text for a in build_artifacts(advice)}["README.md"]
    assert "Host memory unknown" in readme


def test_a_blocked_recommendation_writes_nothing(rules, tmp_path):
    advice = advise(answers_from_mapping(with_(MINIMAL, model={"params": "400B"}, cluster={"gpu": "a10", "gpus": 2, "gpus_per_node": 2, "cpu_memory_gb_per_node": 64})), rules)
    with pytest.raises(OutputError, match="blocked"):
        write_artifacts(advice, tmp_path / "out", force=False)
    assert not (tmp_path / "out").exists()


def test_cli_writes_artifacts_and_links_them_from_the_memo(tmp_path, capsys):
    out, memo = tmp_path / "launch", tmp_path / "memo.md"
    assert main(["advise", str(EXAMPLES / "finetune-13b-small-cluster.yaml"), "--artifacts", str(out), "--format", "md", "-o", str(memo)]) == 0
    assert json.loads((out / "ds_config.json").read_text())["zero_optimization"]["stage"] == 3
    assert f"]({out}/ds_config.json)" in memo.read_text()
    assert main(["advise", str(EXAMPLES / "finetune-13b-small-cluster.yaml"), "--artifacts", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err


def test_accelerate_config_is_yaml_with_fsdp_keys(rules):
    text = {a.name: a.text for a in build_artifacts(_advice_for(rules, "fsdp"))}["accelerate_fsdp.yaml"]
    cfg = yaml.safe_load(text)
    assert cfg["distributed_type"] == "FSDP" and cfg["fsdp_config"]["fsdp_sharding_strategy"] == "FULL_SHARD"
    assert cfg["num_processes"] == 64 and cfg["num_machines"] == 8


@pytest.mark.parametrize("example", ["finetune-13b-small-cluster", "thousand-gpus-one-day", "pretrain-7b-h100"])
@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s.startswith("deepspeed")])
def test_generated_ds_config_validates_against_deepspeeds_own_schema(rules, example, strategy):
    advice = advise(load_answers(EXAMPLES / f"{example}.yaml"), rules)
    advice.strategy = strategy
    d = deployment(advice.evaluation, strategy)
    cfg = deepspeed_config(d)
    parsed = parsed_by_deepspeed(cfg, advice.estimate_dict(strategy)["data_parallel"])
    if strategy == "deepspeed-zeropp":
        # Issue 24: ZeRO++'s three switches reach DeepSpeed's own ZeRO config, hpZ over one node's GPUs.
        z = parsed.zero_config
        assert z.zero_quantized_weights and z.zero_quantized_gradients
        assert z.zero_hpz_partition_size == (d.gpus_per_node if d.nodes > 1 else 1)


def test_hsdp_writes_hybrid_shard_for_accelerate(rules):
    """Issue 24: HSDP (fsdp-hybrid) is FSDP's HYBRID_SHARD: shard inside each node, replicate across nodes."""
    files = {a.name: a.text for a in build_artifacts(_advice_for(rules, "fsdp-hybrid"))}
    cfg = yaml.safe_load(files["accelerate_fsdp.yaml"])
    assert cfg["distributed_type"] == "FSDP" and cfg["fsdp_config"]["fsdp_sharding_strategy"] == "HYBRID_SHARD"
    assert "HYBRID_SHARD" in files["launch.sh"]


def test_powersgd_hook_file_passes_only_arguments_torch_accepts(rules):
    """Issue 24: DDP + PowerSGD writes powersgd_hook.py, which registers torch's own powerSGD_hook with the plan's rank and
    warm-up; every keyword it passes to PowerSGDState is a parameter of PowerSGDState.__init__ in the installed torch, and
    the values satisfy its own checks (start_powerSGD_iter > 1 with error feedback)."""
    import ast
    import inspect

    powersgd = pytest.importorskip("torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
    from advisor.knowledge.strategies import POWERSGD_RANK, POWERSGD_WARMUP_SHARE

    advice = advise(answers_from_mapping(with_(MINIMAL, model={"params": "1.3B"}, cluster={"inter_node_gbps": 10})), rules)
    assert advice.strategy == "ddp-powersgd"
    files = {a.name: a.text for a in build_artifacts(advice)}
    assert "register_powersgd" in files["launch.sh"] and "no_sync" in files["launch.sh"]
    module = files["powersgd_hook.py"]
    tree = ast.parse(module)
    consts = {t.id: ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "PowerSGDState")
    accepted = set(inspect.signature(powersgd.PowerSGDState.__init__).parameters) - {"self"}
    passed = {k.arg for k in call.keywords}
    assert passed <= accepted and {"process_group", "matrix_approximation_rank", "start_powerSGD_iter"} <= passed
    assert any(getattr(n, "attr", "") == "register_comm_hook" for n in ast.walk(tree))
    assert any(getattr(n, "attr", "") == "powerSGD_hook" for n in ast.walk(tree))
    steps = advice.estimate_dict("ddp-powersgd")["steps"]
    assert consts["MATRIX_APPROXIMATION_RANK"] == POWERSGD_RANK
    assert consts["START_POWERSGD_ITER"] == max(2, -(-POWERSGD_WARMUP_SHARE * steps // 1)) > 1
    # torch's own constructor accepts the values (it raises for start_powerSGD_iter <= 1 with error feedback on).
    kwargs = {k.arg: consts.get(getattr(k.value, "id", ""), None) if isinstance(k.value, ast.Name) else ast.literal_eval(k.value)
              for k in call.keywords}
    kwargs["process_group"] = None
    state = powersgd.PowerSGDState(**kwargs)
    assert state.matrix_approximation_rank == POWERSGD_RANK and state.use_error_feedback
