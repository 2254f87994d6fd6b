"""Issue 35: DPO / GRPO / PPO stages, a pipeline of stages, checkpoints, evaluation runs and serving."""

from __future__ import annotations

import copy
import json

import pytest

from advisor.cli import main
from advisor.decision.advice import advise
from advisor.estimate import estimate_all
from advisor.estimate.posttrain import (
    DECODE_MEASURED,
    checkpoint_plan,
    decode_param_tokens_per_gpu_s,
    post_work,
    serving_gpus,
)
from advisor.estimate.workload import workload_from
from advisor.inputs.answers import answers_from_mapping, answers_schema
from advisor.base.errors import AnswerError
from advisor.outputs.render import summary_rows, to_markdown
from advisor.outputs.trl_artifacts import trl_config_kwargs, trl_files

import numpy as np

DPO = {
    "model": {"params": "8B"},
    "training": {"method": "dpo", "current_strategy": "none", "post_training": {"pairs": "60k", "adapter": "lora"},
                 "stages_before": [{"method": "lora", "examples": "200k", "tokens_per_example": 512, "name": "SFT on support chats"}]},
    "cluster": {"gpu": "a100-80gb", "gpus": 8},
    "budget": {"price_per_gpu_hour": 2.5},
    "operations": {"storage_gbps": 2, "evaluation": {"runs": 3, "prompts": 2000, "answer_tokens": 512},
                   "serving": {"requests_per_sec": 20, "tokens_per_request": 300}},
}
GRPO = {
    "model": {"params": "7B"},
    "training": {"method": "grpo", "current_strategy": "none",
                 "post_training": {"prompts": "10k", "responses_per_prompt": 8, "generation_tokens": 1024}},
    "cluster": {"gpu": "h100-sxm", "gpus": 8},
    "budget": {"price_per_gpu_hour": 3},
}


def _with(base: dict, path: str, value) -> dict:
    data = copy.deepcopy(base)
    node = data
    *parents, last = path.split(".")
    for p in parents:
        node = node.setdefault(p, {})
    node[last] = value
    return data


@pytest.mark.parametrize("path, value, field", [
    ("training.post_training.responses_per_prompt", 0, "training.post_training.responses_per_prompt"),
    ("training.post_training.responses_per_prompt", 1, "training.post_training.responses_per_prompt"),
    ("training.post_training.generation_tokens", 10_000_000, "training.post_training.generation_tokens"),
    ("training.post_training.reward_model_params", "1T", "training.post_training.reward_model_params"),
    ("training.post_training.pairs", "10k", "training.post_training.pairs"),
    ("training.tokens", "1B", "training.tokens"),
    ("training.post_training.generation_gpus", 8, "training.post_training.generation_gpus"),
])
def test_bad_post_training_input_is_one_line_naming_the_field_and_exit_2(tmp_path, capsys, path, value, field):
    f = tmp_path / "a.json"
    f.write_text(json.dumps(_with(GRPO, path, value)))
    assert main(["advise", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err, err


def test_a_method_without_its_inputs_is_refused_naming_the_field():
    for method, needle in (("dpo", "post_training"), ("ppo", "post_training")):
        with pytest.raises(AnswerError, match=needle):
            answers_from_mapping(_with({k: v for k, v in GRPO.items()}, "training", {"method": method}))
    ppo = _with(GRPO, "training.method", "ppo")
    with pytest.raises(AnswerError, match="reward_model_params"):
        answers_from_mapping(ppo)
    with pytest.raises(AnswerError, match="post_training"):
        answers_from_mapping(_with(_with(GRPO, "training.method", "lora"), "training.tokens", "1B"))


def test_schema_and_init_know_the_new_methods_and_sections():
    schema = json.dumps(answers_schema())
    for word in ('"dpo"', '"grpo"', '"ppo"', "post_training", "responses_per_prompt", "generation_tokens", "reward_model_params",
                 "stages_before", "storage_gbps", "requests_per_sec"):
        assert word in schema, word
    from advisor.inputs.template import answers_template

    template = answers_template()
    for word in ("post_training:", "stages_before:", "operations:", "storage_gbps:", "ppo"):
        assert word in template, word


def test_dpo_prices_policy_on_chosen_and_rejected_plus_a_reference_forward():
    a = answers_from_mapping(DPO)
    w = workload_from(a)
    work = post_work(a, w)
    assert work is not None
    assert work.policy_tokens == 2 * 60_000 * (512 + 512)  # chosen + rejected, prompt + answer (TRL defaults)
    assert work.extra_flops == pytest.approx(work.policy_tokens * w.forward_flops_per_token)
    precomputed = answers_from_mapping(_with(DPO, "training.post_training.epochs", 3))
    pre = answers_from_mapping(_with(_with(DPO, "training.post_training.epochs", 3), "training.post_training.reference", "precomputed"))
    # Precomputed reference log-probs run the reference once, not every epoch.
    assert post_work(pre, w).extra_flops == pytest.approx(post_work(precomputed, w).extra_flops / 3)


def test_dpo_time_is_above_the_same_tokens_as_a_plain_lora_and_below_twice_it():
    a = answers_from_mapping(DPO)
    tokens = a.training.data_tokens
    plain = answers_from_mapping(_with(_with(_with(DPO, "training.method", "lora"), "training.post_training", None), "training.tokens", tokens))
    n = np.array([8.0])
    dpo_h = estimate_all(a, n)[0]["ddp"].hours["mid"][0]
    lora_h = estimate_all(plain, n)[0]["ddp"].hours["mid"][0]
    assert lora_h < dpo_h < 2 * lora_h


def test_grpo_adds_rollout_hours_at_the_cited_decode_rate_and_vllm_memory():
    a = answers_from_mapping(GRPO)
    w = workload_from(a)
    work = post_work(a, w)
    assert work.generated_tokens == 10_000 * 8 * 1024
    rate = decode_param_tokens_per_gpu_s(a.cluster.spec) / w.active_params
    assert decode_param_tokens_per_gpu_s(a.cluster.spec) == pytest.approx(DECODE_MEASURED["hopper"][0])
    est = estimate_all(a, np.array([8.0]))[0]["fsdp"]
    floor = work.generated_tokens / (rate * 8) / 3600
    assert est.hours["mid"][0] > floor
    base = answers_from_mapping(_with(_with(_with(GRPO, "training.method", "finetune"), "training.post_training", None),
                                      "training.tokens", a.training.data_tokens))
    plain = estimate_all(base, np.array([8.0]))[0]["fsdp"]
    assert est.memory[0] > plain.memory[0]  # the colocated vLLM engine's share of each GPU


def test_checkpoint_of_a_70b_full_model_with_optimizer_is_about_a_terabyte():
    a = answers_from_mapping({"model": {"params": "70B"}, "training": {"method": "finetune", "tokens": "100M"},
                              "cluster": {"gpu": "h100-sxm", "gpus": 64}, "budget": {"price_per_gpu_hour": 3},
                              "operations": {"storage_gbps": 10, "keep_checkpoints": 2}})
    c = checkpoint_plan(a, workload_from(a), 10.0, 64)
    assert c.weights_gb == pytest.approx(140, rel=0.01) and c.full_gb == pytest.approx(980, rel=0.01)
    assert c.save_seconds == pytest.approx(98, rel=0.01)
    assert c.storage_gb == pytest.approx(2 * 980 + 140, rel=0.01)
    assert c.young and c.saves >= 1


def test_serving_needs_enough_gpus_for_the_rate_and_for_the_weights():
    a = answers_from_mapping(DPO)
    n, need = serving_gpus(a, workload_from(a))
    assert need == 20 * 300 and n >= 1
    big = answers_from_mapping(_with(_with(DPO, "model.params", "70B"), "operations.serving.requests_per_sec", 0.01))
    assert serving_gpus(big, workload_from(big))[0] == 2  # 140 GB of bf16 weights in 0.9 x 80 GB per GPU


def test_the_pipeline_shows_each_stage_and_the_total_in_summary_and_memo(rules):
    advice = advise(answers_from_mapping(DPO), rules)
    rows = summary_rows(advice)
    names = [r[0] for r in rows]
    assert "Stage 1: SFT on support chats" in names and "Stage 2: DPO" in names and "Pipeline total (2 stages)" in names
    assert "Serving (estimate)" in names and "Checkpoint storage" in names
    memo = to_markdown(advice)
    assert "## Pipeline stages, checkpoints, evaluation and serving" in memo
    assert "| **Total** |" in memo and "Serving (an estimate)" in memo and "LambdaLabsML/vllm-benchmark" in memo


def test_trl_configs_are_accepted_by_trls_own_config_classes(rules, tmp_path):
    trl = pytest.importorskip("trl")
    for job, kind in ((DPO, "DPOConfig"), (GRPO, "GRPOConfig")):
        advice = advise(answers_from_mapping(job), rules)
        found = trl_config_kwargs(advice)
        assert found is not None and found[0] == kind
        kwargs = json.loads(trl_files(advice)[0][2])
        kwargs["output_dir"] = str(tmp_path / kind)
        kwargs["use_cpu"] = True  # validation only: this machine has no GPU, and bf16 needs one unless told so
        config = getattr(trl, kind)(**kwargs)
        assert config.per_device_train_batch_size == kwargs["per_device_train_batch_size"]
        if kind == "GRPOConfig":
            assert config.num_generations == 8 and config.vllm_mode == "colocate"


def test_published_post_training_runs_are_quoted_with_sources_and_scored():
    import importlib.util
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[1] / "bench" / "fidelity_posttrain.py"
    spec = importlib.util.spec_from_file_location("fidelity_posttrain", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = yaml.safe_load(module.ROWS.read_text())
    assert all(r["source"] for r in data["scored"]) and all(r["source"] and r["quote"] for r in data["quoted_not_scored"])
    rows, median = module.report()
    assert len(rows) == len(data["scored"]) and all(est > 0 for _n, _p, est, _e, _s in rows)
    assert median == pytest.approx(statistics_median([abs(r[3]) for r in rows]))


def statistics_median(values):
    import statistics

    return statistics.median(values)


def test_separate_placement_runs_rollouts_scoring_and_updates_one_after_another_on_their_own_gpus():
    """OpenRLHF's layout (arXiv:2405.11143 Table 3): generation, then the scoring forwards side by side, then actor and
    critic updates side by side, each on its group; the colocated layout runs every phase on every GPU."""
    from advisor.estimate.posttrain import phase_hours

    ppo = _with(_with(GRPO, "training.method", "ppo"), "training.post_training.reward_model_params", "7B")
    placed = _with(ppo, "training.post_training", {**ppo["training"]["post_training"], "generation_gpus": 2, "critic_gpus": 2,
                                                    "reference_gpus": 1, "reward_gpus": 1})
    a, b = answers_from_mapping(ppo), answers_from_mapping(placed)
    w = workload_from(b)
    work = post_work(b, w)
    assert work.groups == {"generation": 2, "reference": 1, "reward": 1, "critic": 2}
    n = np.array([8.0])
    base = np.array([1.0])  # the policy update alone takes 1 h on all 8 GPUs
    policy = next(r for r in work.roles if r.name == "policy").flops
    share = {r.name: r.flops / policy for r in work.roles}
    forward = max((share["policy-forward"]) * 8 / 2, share["reference"] * 8 / 1, share["reward"] * 8 / 1, share["critic-forward"] * 8 / 2)
    train = max(1.0 * 8 / 2, share["critic"] * 8 / 2)
    assert phase_hours(work, base, n)[0] == pytest.approx(forward + train)
    colocated = post_work(a, w)
    assert phase_hours(colocated, base, n)[0] == pytest.approx(sum(r.flops for r in colocated.roles) / policy)


def test_the_tui_summary_and_the_example_show_the_pipeline(rules):
    from pathlib import Path

    from advisor.inputs.answers import load_answers
    from advisor.tui.results import ResultsView

    example = Path(__file__).resolve().parents[1] / "examples" / "customer-service-dpo.yaml"
    view = ResultsView.of(advise(load_answers(example), rules))
    names = [row[0] for row in view.summary]
    assert "Stage 1: SFT on support dialogues" in names and "Pipeline total (2 stages)" in names


def test_ask_what_if_shows_the_pipeline_total(capsys):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "customer-service-dpo.yaml"
    assert main(["ask", str(example), "what if we had 16 GPUs?"]) == 0
    out = capsys.readouterr().out
    assert "time per run, all stages" in out and "cost per run, all stages" in out
