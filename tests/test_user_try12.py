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


LI = {"model": {"params": "72B"},
      "training": {"tokens": "30M", "method": "finetune", "deadline_days": 5, "precision": "bf16"},
      "cluster": {"gpu": "h20", "gpus": 8, "candidates": [{"gpu": "h800", "price_per_gpu_hour": 22, "max_gpus": 8}]},
      "budget": {"price_per_gpu_hour": 9, "currency": "CNY", "limit": "5万"}}


def test_gpu_types_are_compared_on_the_method_the_plan_trains_with(rules):
    """The H800 won at LoRA, 146 CNY, 'beating the H20 at 614 CNY: 321% more' — the H20 priced as a full fine-tune,
    while LoRA on the H20s costs about 400: the method is now chosen over the best of every type, and every type is
    then compared at that method."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(LI), rules)
    assert a.method == "lora" and a.answers.cluster.gpu == "h800"
    h20 = next(t for t in a.plan.gpu_types if t.gpu == "h20")
    assert h20.method == "lora", h20
    alone = advise(answers_from_mapping({**LI, "training": {**LI["training"], "method": "lora"},
                                         "cluster": {"gpu": "h20", "gpus": 8}}), rules)
    assert h20.option.cost == pytest.approx(alone.plan.chosen.cost, rel=1e-9)


def test_the_method_reason_names_the_gpu_type_when_the_plan_moved_to_another(rules):
    """'a full fine-tune takes 1.8 h and costs 323 CNY a run on 8 GPUs' read as the team's own H20s, two lines under
    '8.5 h, 614 CNY' for the H20s: it was the H800s. The reason names the type where the plan runs on another."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(LI), rules)
    reason = a.method_reason()
    assert reason is not None and "8 × NVIDIA H800" in reason, reason


@pytest.mark.parametrize("question", ["what if we use LoRA on the H20?", "如果在 H20 上用 LoRA 呢？"])
def test_a_method_on_a_named_gpu_type_prices_that_type(rules, question):
    """'LoRA on our H20?' — the plan was LoRA on the listed H800s — was answered 'the plan already fine-tunes with LoRA'
    with the H800 reasoning again: the H20 in the question was dropped. It now prices LoRA on the H20."""
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask
    from advisor.base.units import money

    a = advise(answers_from_mapping(LI), rules)
    text = "\n".join(ask(question, LI, a, rules).lines)
    alone = advise(answers_from_mapping({**LI, "training": {**LI["training"], "method": "lora"}, "cluster": {"gpu": "h20", "gpus": 8}}), rules)
    assert "already fine-tunes" not in text and "已经在用" not in text, text
    assert "is planned only where" not in text, text  # the plan's own method asked: no policy line about switching to it
    assert money(alone.plan.chosen.cost, "CNY") in text, (money(alone.plan.chosen.cost, "CNY"), text)


SAM = {"model": {"params": "13B", "seq_len": 4096}, "training": {"tokens": "1.5T", "deadline_days": 30},
       "cluster": {"gpu": "h100-sxm", "gpus": 256, "inter_node_gbps": 3200},
       "budget": {"price_per_gpu_hour": 2.4, "currency": "USD", "limit": "2.5M"},
       "team": {"experience": "expert"}, "project": {"stage": "frontier"}}


def test_the_faster_option_for_no_more_is_the_best_option_at_its_count(rules):
    """One memo named 512 GPUs twice with two frameworks at the same figures: 'Faster for no more per run: 512 GPUs with
    fsdp take 7.1 days ... 209,869 USD' and the what-if row '512 deepspeed-zero3 7.1 days 209,869 USD'. The note now
    names the option the chooser takes at that count, the row's."""
    from advisor.decision.advice import advise
    from advisor.decision.explain import best_option_at

    a = advise(answers_from_mapping(SAM), rules)
    fast = a.plan.faster_same_cost
    assert fast is not None
    row = best_option_at(a, fast.gpus)
    assert row is not None and (row.strategy, row.cost) == (fast.strategy, fast.cost)
    [point] = [r for r in a.report().what_if if r.gpus == fast.gpus]
    assert point.strategy == fast.strategy and point.faster_same_cost


def test_the_sweeps_cheapest_says_when_another_framework_costs_a_little_less_at_that_count():
    """'Cheapest feasible: fsdp on 256 GPUs, 209,571 USD' where deepspeed-zero2 on the same 256 GPUs costs 208,304: the
    line now names it and why the rules' choice stands (within the 5% tie)."""
    import yaml

    from advisor.cli import main

    import io
    from contextlib import redirect_stdout
    import tempfile, pathlib
    with tempfile.TemporaryDirectory() as d:
        f = pathlib.Path(d) / "sam.yaml"
        f.write_text(yaml.safe_dump(SAM))
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["sweep", str(f), "--gpus", "256,512"]) == 0
    [line] = [l for l in out.getvalue().splitlines() if l.startswith("Cheapest feasible")]
    assert "fsdp on 256 GPUs" in line and "deepspeed-zero2 costs" in line and "the rules' score decides" in line, line


@pytest.mark.parametrize("question", ["how big is a checkpoint?", "what does the checkpoint cost?", "检查点有多大？"])
def test_a_checkpoints_size_is_answered(rules, question):
    """'how big is a checkpoint?' was refused (exit 2) and 'what does the checkpoint cost?' got the glossary: the size
    with the optimizer state (14 bytes a parameter: 13B -> 182 GB), the weights alone, and what the save time needs."""
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    a = advise(answers_from_mapping(SAM), rules)
    reply = ask(question, SAM, a, rules)
    text = "\n".join(reply.lines)
    assert reply.intent == "checkpoint" and not reply.refused, text
    assert "182.0 GB" in text and "26.0 GB" in text and "operations.storage_gbps" in text, text


def test_the_number_of_steps_is_answered(rules):
    """'how many steps is the run?' was refused, though the memo prints 357,628 steps."""
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    a = advise(answers_from_mapping(SAM), rules)
    e = a.estimate_dict(a.strategy)
    text = "\n".join(ask("how many steps is the run?", SAM, a, rules).lines)
    assert f"{round(e['steps']):,} optimizer steps" in text and f"{e['step_seconds']:,.2f} s" in text, text


def test_the_memo_gives_one_count_of_interruptions(rules):
    """The risk read '1.7 interruptions on average' and the estimate's note 'Expect about 2 interruptions': both now
    give the plan's expected count to a tenth."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    a = advise(answers_from_mapping(SAM), rules)
    n = f"{a.report().estimate.expected_interruptions:.1f}"
    md = to_markdown(a)
    assert f"interruptions: {n} on average" in md and f"Expect {n} interruptions on average" in md, n
    assert "Expect about" not in md


def test_a_reason_outside_the_tie_gives_each_percentage_against_its_own_base(rules):
    """'costs 219,646 USD a run (4.8% more), more than 5% above the cheapest option': the 4.8% was against the plan, the
    5% against the cheapest; it read as a contradiction. The reason gives the plan's cost and the share above the
    cheapest."""
    from advisor.decision.advice import advise

    a = advise(answers_from_mapping(SAM), rules)
    [r] = [r for r in a.why_not("megatron-3d") if "above the cheapest option" in r]
    o, cm = a.plan.option("megatron-3d", a.gpus), a.plan.cheapest_meeting_deadline
    assert f"(the plan: {a.plan.chosen.cost:,.0f} USD)" in r and f"{100 * (o.cost / cm.cost - 1):.1f}% above" in r, r


def test_the_chart_keeps_the_counts_either_side_of_the_deadline(rules):
    """The memo's chart thinned 14 counts to 12 and dropped 128 GPUs, the last count that misses the deadline, next to
    192, the first that meets it: where the deadline is crossed is what the chart is read for."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import chart_rows

    d = advise(answers_from_mapping(SAM), rules).report()
    rows = [w for w in d.what_if if w.strategy is not None]
    crossed = [(a.gpus, b.gpus) for a, b in zip(rows, rows[1:], strict=False) if a.meets_deadline != b.meets_deadline]
    assert crossed and len(rows) > 12
    shown = {w.gpus for w in chart_rows(d)}
    assert all(a in shown and b in shown for a, b in crossed), (crossed, sorted(shown))
    assert len(shown) <= 12


def test_what_a_faster_run_is_worth_is_asked_from_a_node_day_of_gpu_time(rules):
    """A 0.8-hour, 146 CNY LoRA on 8 GPUs was asked 'which optimisation would take 20% off a run of 0.8 h, and is it worth
    the engineering time?' — K16 prices days of training on a cluster. Asked from 192 GPU-hours (a node-day) up."""
    from advisor.decision.advice import advise

    short = advise(answers_from_mapping(LI), rules)
    assert short.plan.chosen.hours * short.gpus < 192 and not any(q["rule"] == "k16-what-time-is-worth" for q in short.questions)
    long = advise(answers_from_mapping(SAM), rules)
    assert any(q["rule"] == "k16-what-time-is-worth" for q in long.questions)


def test_a_budget_out_of_reach_says_whether_a_lever_would_keep_it(rules):
    """'what if the budget is 150k?' said only that no option searched keeps a run within it, though an FP8 plan comes
    to 142,442 USD at the estimate: the reply now names the levers that keep it, or says that none does at the range's
    upper end, where budgets are judged (FP8's 142,442 is 178k there)."""
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask

    a = advise(answers_from_mapping(SAM), rules)
    text = "\n".join(ask("what if the budget is 150k?", SAM, a, rules).lines)
    assert "No option searched keeps a run within 150,000 USD" in text
    assert "at the estimate's upper end, where budgets are judged" in text, text
    text = "\n".join(ask("what if the budget is 200k?", SAM, a, rules).lines)
    assert "Or train in FP8" in text, text


@pytest.mark.parametrize("written", ["Qwen2.5-72B", "Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"])
def test_a_known_models_name_prices_its_published_shape(rules, written):
    """The customer-service PM typed Qwen2.5-72B's size and it was priced as 57 layers, hidden 10,240, a 32,000-word
    vocabulary (the nearest generic shape); Qwen2.5-72B is 80 layers, hidden 8,192, 64 heads, 8 key-value heads, 152,064
    words (its config.json). Its name, where the size is asked, now prices that shape, cited."""
    from advisor.decision.advice import advise
    from advisor.outputs.render import to_markdown

    draft = {**LI, "model": {"params": written}}
    a = advise(answers_from_mapping(draft), rules)
    m = a.answers.model
    assert (m.name, m.layers, m.hidden_size, m.attention_heads, m.kv_heads, m.vocab_size) == ("qwen2.5-72b", 80, 8192, 64, 8, 152064)
    assert m.params == pytest.approx(72.7e9, rel=0.01)
    assert "huggingface.co/Qwen/Qwen2.5-72B config.json" in to_markdown(a)


def test_an_unknown_model_name_is_refused_naming_the_known_ones():
    from advisor.base.errors import AnswerError as Refused

    with pytest.raises(Refused) as info:
        answers_from_mapping({**LI, "model": {"params": "Qwen2-72B"}})
    assert "a model advisor knows" in str(info.value) and "qwen2.5-72b" in str(info.value)
    with pytest.raises(Refused) as info:
        answers_from_mapping({**LI, "model": {"name": "qwen2.5-72", "params": "72B"}})
    assert "did you mean qwen2.5-72b?" in str(info.value), str(info.value)


async def test_every_new_answer_in_the_ask_log_is_scrolled_into_view(rules, tmp_path):
    """At 80x24 in Chinese the fourth question's turn stayed below the fold ('it looks as if nothing happened'): the log
    was scrolled after one refresh, while its height still was the one before the new turn."""
    from textual.containers import VerticalScroll

    from advisor.base.i18n import language

    from .test_tui_ask import ask, make_app, to_results

    with language("zh"):
        app = make_app(rules, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await to_results(pilot)
            for question in ("预算够吗？", "QLoRA 会不会影响效果？", "能再便宜点吗？", "为什么不用全参数微调？"):
                await ask(pilot, question)
                await pilot.pause()
                log = app.screen.query_one("#ask-log", VerticalScroll)
                newest = list(app.screen.query(".ask-q"))[-1]
                assert log.region.y <= newest.region.y < log.region.bottom, (question, newest.region, log.region)


def test_a_wide_comparison_in_chinese_keeps_each_row_on_one_line(rules):
    """'要是不用 H800，只用我们的 H20 呢？' gave a five-column table of 81 columns in Chinese: at 80 columns each row's verdict
    fell onto a line of its own. The rows' names give way first."""
    from advisor.base.i18n import language, width
    from advisor.decision.advice import advise
    from advisor.outputs.ask import TABLE_COLUMNS, ask

    with language("zh"):
        a = advise(answers_from_mapping(LI), rules)
        reply = ask("要是不用 H800，只用我们的 H20 呢？", LI, a, rules)
        text = reply.text()
    assert len(reply.columns) >= 4, reply.columns
    assert all(width(line) <= TABLE_COLUMNS for line in text.splitlines()[-len(reply.figures) - 2:-1]), text


def test_the_guided_qa_names_fields_by_their_labels_not_their_keys():
    """The Q&A's error read 'training: tokens 和 examples 只能给一个' — keys a PM on the guided Q&A never saw. It now
    names the fields as the screen labels them."""
    from advisor.base.i18n import language
    from advisor.inputs.questions import default_draft, step_error, steps

    draft = default_draft()
    draft["training"] = {**draft.get("training", {}), "tokens": "30M", "examples": 37500, "tokens_per_example": 800}
    step = next(s for s in steps() if any(f.path == "training.examples" for f in s.fields))
    with language("en"):
        assert step_error(draft, step) == "Give 'Training tokens' or 'Fine-tuning examples', not both"
    with language("zh"):
        labels = {f.path: f.label for s in steps() for f in s.fields}
        error = step_error(draft, step)
        assert error is not None and "examples" not in error and f"“{labels['training.examples']}”" in error, error
