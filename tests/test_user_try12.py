"""Defects found trying advisor as its users would (2026-12-07, seventh session). Each test failed on the code before it."""

from __future__ import annotations

import pytest
from advisor.base.errors import AnswerError

from advisor.inputs.answers import answers_from_mapping

MINIMAL = {"model": {"params": "8B"}, "training": {"method": "lora", "tokens": "200M"}, "cluster": {"gpu": "a100-80gb", "gpus": 8}}


@pytest.mark.parametrize("price", [0, "0", "¥0"])
def test_a_zero_price_says_what_to_give_for_gpus_you_own(price):
    """A team on its own GPUs typed 0 and was told only 'must be greater than zero': the refusal now says what price
    stands for owned hardware, so the PM can go on."""
    with pytest.raises(AnswerError) as info:
        answers_from_mapping({**MINIMAL, "budget": {"price_per_gpu_hour": price}})
    text = str(info.value)
    assert "must be greater than zero" in text
    assert "GPUs you own" in text and "depreciation" in text, text


def test_the_interruption_warning_speaks_of_the_plans_run(rules):
    """A 13B what-if read 'The plan becomes fsdp on 104 GPUs: 23.7 days a run' beside 'A run of about 23.5 days on 13
    nodes should expect interruptions': the warning priced the fastest option, not the plan. It now gives the plan's
    days, and the same count of interruptions the memo's checkpoint section gives."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping({"model": {"params": "13B", "seq_len": 4096}, "training": {"tokens": "1T", "deadline_days": 30},
                                     "cluster": {"gpu": "h100-sxm", "gpus": 64, "inter_node_gbps": 3200},
                                     "budget": {"price_per_gpu_hour": 2.5, "limit": 150000},
                                     "team": {"experience": "some"}, "project": {"stage": "mvp"}}), rules)
    days = a.plan.chosen.hours / 24.0
    [w] = [w for w in a.warnings if w["rule"] == "k18-long-run-failures"]
    assert f"A run of about {days:.1f} days on {a.plan.chosen.gpus // 8} nodes" in w["text"], (days, w["text"])
    expected = a.report().estimate.expected_interruptions
    assert f"{expected:.1f} on average" in w["text"], (expected, w["text"])


ONE_GPU_NODES = {"model": {"params": "1.3B"}, "training": {"tokens": "20B"},
                 "cluster": {"gpu": "rtx4090", "gpus": 4, "gpus_per_node": 1, "inter_node_gbps": 25},
                 "budget": {"price_per_gpu_hour": 0.4}}


def test_one_gpu_per_node_is_not_said_to_talk_over_pcie_inside_the_node(rules):
    """Four one-GPU workstations: the memo's Links row read 'pcie inside a node', its assumptions 'pcie 31 GB/s inside a
    node', and the K3 rule docked Megatron because 'GPUs in a node talk over PCIe' — no two GPUs share a node."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    a = advise(answers_from_mapping(ONE_GPU_NODES), rules)
    md = to_markdown(a)
    assert "pcie inside a node" not in md and "GB/s inside a node" not in md, [line for line in md.splitlines() if "inside a node" in line]
    assert "k3-intra-node-pcie" not in md
    assert "| Links | one GPU per node, 25 Gbit/s per node |" in md
    assert "Links: one GPU per node, 25 Gbit/s per node across nodes" in md


def test_out_is_not_taken_for_output_and_points_at_artifacts(tmp_path, capsys):
    """`advise sam.yaml --out DIR` was read as --output (argparse's prefix matching): it wrote the text summary to a file
    named DIR, exited 0 and wrote no launch files. An abbreviation is now refused, naming the options it may mean."""
    from advisor.cli import main

    answers = tmp_path / "a.yaml"
    answers.write_text("model: {params: 7B}\ncluster: {gpu: h100-sxm, gpus: 8}\nbudget: {price_per_gpu_hour: 2}\ntraining: {tokens: 10B}\n")
    target = tmp_path / "launch"
    with pytest.raises(SystemExit) as done:  # usage errors leave through SystemExit, before any command ran
        main(["advise", str(answers), "--out", str(target)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "--artifacts" in err and "--output" in err, err
    assert not target.exists()
    with pytest.raises(SystemExit) as done:  # no prefix of --format either
        main(["advise", str(answers), "--form", "json"])
    assert done.value.code == 2 and "did you mean --format?" in capsys.readouterr().err
