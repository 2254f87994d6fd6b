"""Issue 21: ask the advisor — follow-up questions after the plan (what if, why / why not, what is, compare), read
from data (data/intents.yaml), in English and Chinese, headless (`advisor ask`) and kept with the answers."""

from __future__ import annotations

import copy
import json
import re
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.decision.advice import advise
from advisor.inputs.answers import answers_from_mapping, load_answers
from advisor.outputs.ask import IntentLoadError, ask, load_intents, parse, parse_intents, run_cases, suggestions, turn, with_change
from advisor.cli import main
from advisor.base.errors import AnswerError
from advisor.base.i18n import _, language
from advisor.outputs.render import to_markdown
from advisor.knowledge.rules import load_rules
from advisor.knowledge.strategies import STRATEGIES
from advisor.base.safeload import load_mapping, parse_trusted

from .conftest import EXAMPLES

EXAMPLE = str(EXAMPLES / "customer-service.yaml")


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.fixture(scope="module")
def base(rules):
    name, draft = load_mapping(EXAMPLE)
    return name, draft, advise(answers_from_mapping(draft, name), rules)


def asked(base, rules, question, lang="en"):
    name, draft, advice = base
    with language(lang):
        return ask(question, draft, advice, rules, name)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ the data and its cases


@pytest.mark.parametrize("case", run_cases(), ids=lambda c: f"{c.intent}:{c.question}")
def test_every_intent_case_in_the_data_reads_as_its_intent_and_slots(case):
    assert case.ok, case.detail


def test_every_intent_has_cases_in_both_languages():
    for it in load_intents().intents:
        langs = {any("\u4e00" <= ch <= "\u9fff" for ch in c["q"]) for c in it.cases}
        assert langs == {True, False}, it.id


def test_every_glossary_alias_reads_as_its_term_and_every_entry_cites_a_source():
    data = load_intents()
    wanted = {"all-reduce", "parameter-server", "zero", "offload", "tensor-parallel", "pipeline-parallel", "expert-parallel", "mfu",
              "gradient-accumulation", "checkpoint-resume"}
    assert wanted <= set(data.terms)
    for term in data.terms.values():
        assert term.source and all(s.strip() for s in term.source)
        for alias in term.aliases:
            got = parse(f"what is {alias}?", data)
            assert got is not None and got.intent == "explain" and got.slots["term"] == [term.id], alias


def _raw():
    from importlib import resources

    return parse_trusted(resources.files("advisor").joinpath("data", "intents.yaml").read_text(encoding="utf-8"))


def _break(path, value):
    def apply(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return data
    return apply


_DELETE = object()


@pytest.mark.parametrize(("mutate", "expected"), [
    (_break(["intents", 1, "triggers", 0], "(unclosed"), "intents[1] compare.triggers[0]: not a valid regular expression"),
    (_break(["intents", 3, "requires_any"], ["gpus", "nope"]), "intents[3] why_not.requires_any: unknown slot 'nope'"),
    (_break(["intents", 5, "cases"], []), "intents[5] why.cases: must be a list"),
    (_break(["intents", 9, "example"], {"en": "what is {a}?"}), "intents[9] explain.example: must be {en: ..., zh: ...}"),
    (_break(["intents", 14, "tirggers"], ["x"]), "intents[14] what_if.tirggers: unknown key; did you mean 'triggers'?"),
    (_break(["intents", 14, "id"], "wat_if"), "intents[14] wat_if.id: no answer for intent 'wat_if'"),
    (_break(["slots", "gpus", "field"], "cluster.gpuz"), "slots.gpus.field: 'cluster.gpuz' is not an answers field"),
    (_break(["slots", "gpus", "cues", 0], "gpus"), "slots.gpus.cues[0]: must hold ({value}) once"),
    (_break(["slots", "gpus", "kind"], "colour"), "slots.gpus.kind: unknown kind 'colour'"),
    (_break(["terms", "mfu", "source"], _DELETE), "terms.mfu.source: is required"),
    (_break(["terms", "mfu", "text"], {"en": "x", "zh": ""}), "terms.mfu.text: must be {en: ..., zh: ...}"),
    (_break(["strategies", "ddpp"], ["ddpp"]), "strategies.ddpp: unknown strategy"),
    (_break(["intents", 1, "cases", 0, "slots"], {"colour": ["red"]}), "intents[1] compare.cases[0].slots.colour: not among the intent's slots"),
])
def test_a_bad_intents_file_is_refused_naming_the_file_the_id_and_the_key(mutate, expected):
    data = mutate(copy.deepcopy(_raw()))
    with pytest.raises(IntentLoadError) as exc:
        parse_intents(data, "intents.yaml")
    assert exc.value.msg.startswith("intents.yaml: ") and expected in exc.value.msg, exc.value.msg
    assert "\n" not in exc.value.msg


# ------------------------------------------------------------------------------ what if


@pytest.mark.parametrize(("question", "most"), [("what if we halve the GPUs?", 32), ("what if we use 96 GPUs", 96),
                                              ("卡数减半会怎样", 32), ("what if we get 128 GPUs?", 128)])
def test_a_gpu_count_what_if_is_the_count_the_team_would_have_not_a_start_the_plan_grows_from(base, rules, question, most):
    """User try 2026-12-05: with a deadline the plan grew back to 128 GPUs after 'halve the GPUs' and 'use 96 GPUs'."""
    name, draft, advice = base
    assert advice.plan.chosen.gpus > 64  # today's plan grows past today's 64 to meet the deadline
    reply = asked(base, rules, question)
    assert reply.intent == "what_if" and reply.change["cluster.max_gpus"] == most
    new = advise(answers_from_mapping(with_change(draft, reply.change), name), rules)
    assert new.plan.chosen.gpus <= most
    assert f"deepspeed-zero2, {new.plan.chosen.gpus} GPUs" in {r[2] for r in reply.figures}


def test_what_if_reruns_the_core_with_that_one_change_and_answers_with_the_difference(base, rules):
    name, draft, advice = base
    reply = asked(base, rules, "what if we get 128 GPUs?")
    assert reply.intent == "what_if" and reply.change["cluster.gpus"] == "128"
    # what stays: the runs a month (today's cadence) and the work of the measured run, said in the reply
    assert reply.change["training.runs_per_month"] == advice.plan.runs_per_month
    assert reply.change["training.duration_days"] is None and reply.change["training.tokens"] == round(advice.evaluation.context["tokens"])
    assert "Runs a month kept at today's 10." in reply.lines
    assert any(line.startswith("The measured 3.0 days was on today's 64 GPUs; on another setup the run keeps its work") for line in reply.lines)
    new = advise(answers_from_mapping(with_change(draft, reply.change), name), rules)
    assert new.answers.cluster.gpus == 128
    rows = {r[0]: r[1:] for r in reply.figures}
    from advisor.decision.advice import hours_text, money

    assert rows["time per run"] == (hours_text(advice.plan.chosen.hours), hours_text(new.plan.chosen.hours))
    assert rows["cost per run"] == (money(advice.plan.chosen.cost, "CNY"), money(new.plan.chosen.cost, "CNY"))
    assert rows["plan"][1] == f"{new.plan.chosen.strategy}, {new.plan.chosen.gpus} GPUs"
    assert "deadline" in rows and "monthly limit" in rows  # the example has both: their status before and after
    assert reply.lines[0] == "What if GPUs = 128 (was 64):"


def test_only_n_gpus_is_a_ceiling_and_fewer_than_today_is_the_count_too(base, rules):
    more = asked(base, rules, "what if we only get 128 GPUs?")
    assert more.change["cluster.max_gpus"] == "128" and "cluster.gpus" not in more.change
    fewer = asked(base, rules, "what if we only have 32 GPUs?")
    assert fewer.change["cluster.max_gpus"] == fewer.change["cluster.gpus"] == "32"
    rows = {r[0]: r[1:] for r in fewer.figures}
    assert rows["plan"][1].endswith(", 32 GPUs") and rows["deadline"][1].startswith("missed")


@pytest.mark.parametrize(("question", "field", "value"), [
    ("what if GPUs = 1.6k?", ("cluster", "gpus"), 1600),
    ("what if we get 1,024 GPUs", ("cluster", "gpus"), 1024),
    ("and with H800 at ¥15?", ("budget", "price_per_gpu_hour"), 15.0),
    ("and with H800 at ¥15?", ("cluster", "gpu"), "h800"),
    ("如果截止日期是 10天 呢？", ("training", "deadline_days"), 10.0),
    ("what if the deadline is 72h", ("training", "deadline_days"), 3.0),
    ("如果预算是 50万 呢", ("budget", "limit"), 500_000.0),
    ("what if the monthly budget is 300k?", ("budget", "monthly_limit"), 300_000.0),
    ("what if we had a 400 Gbps network?", ("cluster", "inter_node_gbps"), 400.0),
    ("what if we train on 2T tokens?", ("training", "tokens"), 2e12),
    ("what if we use fp16?", ("training", "precision"), "fp16"),
    ("what if we currently run FSDP?", ("training", "current_strategy"), "fsdp"),
])
def test_numbers_read_as_people_write_them_with_the_answers_parser(base, rules, question, field, value):
    name, draft, _advice = base
    reply = asked(base, rules, question, "zh" if "如果" in question else "en")
    assert reply.intent == "what_if", reply.lines
    answers = answers_from_mapping(with_change(draft, reply.change), name)
    assert getattr(getattr(answers, field[0]), field[1]) == value


@pytest.mark.parametrize(("question", "error"), [
    ("what if we get 0 GPUs?", "cluster.gpus: must be a positive whole number"),
    ("what if we get 100 GPUs?", "cluster: gpus (100) spans several nodes but is not a multiple of gpus_per_node (8); use 96 or 104"),
    ("what if the price is ¥0?", "budget.price_per_gpu_hour: must be greater than zero"),
    ("what if we use MI3?", "cluster.gpu: unknown GPU 'MI3'; did you mean"),  # H100 now resolves (issue 24's aliases)
    ("why not 12 GPUs?", "cluster: gpus (12) spans several nodes"),
])
def test_an_out_of_range_value_gets_the_answers_own_one_line_error(base, rules, question, error):
    with pytest.raises(AnswerError) as exc:
        asked(base, rules, question)
    # the question's value is out of range, not the file (issue 34): the question is named, the file is not
    assert exc.value.msg.startswith(f"In '{question}': ") and error in exc.value.msg and "\n" not in exc.value.msg
    assert EXAMPLE not in exc.value.msg


def test_a_what_if_that_changes_nothing_says_so(base, rules):
    reply = asked(base, rules, "what if the deadline is 2 days?")
    assert reply.lines[0].startswith("The answers already say deadline = 2.0 days: the advice stays as it is"), reply.lines[0]
    assert "(was" not in reply.text()  # 'deadline = 2.0 days (was 2.0 days)' read oddly
    # today's 64 GPUs asked for, where the plan takes 104: the question caps it, so the advice does change (it said 'stays as
    # it is' above 'It misses the 2-day deadline that the recommended plan meets'; user try 12)
    capped = asked(base, rules, "what if we get 64 GPUs?")
    assert capped.lines[0] == "What if we use no more than today's 64 GPUs:" and "stays as it is" not in capped.text(), capped.text()


def test_a_what_if_answer_takes_at_most_50_ms_in_process(base, rules):
    # CPU time, best of 15: the target is what one re-run of the core costs, not what a busy neighbour on a shared
    # machine adds (bench/run.py prints the wall-clock figure)
    best = min(_timed(lambda: asked(base, rules, "what if we get 128 GPUs?")) for _ in range(15))
    assert best <= 0.05, f"{best * 1e3:.1f} ms"


def _timed(fn):
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


# ------------------------------------------------------------------------------ why, explain, compare


def test_why_not_a_strategy_comes_from_the_decision_trace_and_the_rules_that_fired(base, rules):
    _name, _draft, advice = base
    reply = asked(base, rules, "why not FSDP?")
    assert reply.intent == "why_not"
    assert reply.lines[0] == f"Why not fsdp on {advice.gpus} GPUs:"
    assert [line[2:] for line in reply.lines[1:1 + len(advice.why_not("fsdp"))]] == advice.why_not("fsdp")
    # the considerations that counted, by their titles (issue 34: 'Rules that scored it: k20-multi-tenant (-2)' was on a PM screen)
    fired = [str(fr.rule.title) for fr in advice.fired if fr.rule.then.score.get("fsdp")]
    assert fired and all(title in reply.text() for title in fired)
    assert reply.columns == (advice.strategy, "fsdp")


@pytest.mark.parametrize(("name", "sid"), [("HSDP", "fsdp-hybrid"), ("hybrid shard", "fsdp-hybrid"), ("ZeRO++", "deepspeed-zeropp"),
                                          ("zeropp", "deepspeed-zeropp"), ("PowerSGD", "ddp-powersgd"), ("混合分片", "fsdp-hybrid"),
                                          *((sid, sid) for sid in STRATEGIES)])
def test_every_strategy_is_known_by_its_common_names(base, rules, name, sid):
    """'why not HSDP?' answered 'why deepspeed-zero2' — HSDP and ZeRO++ had no names the reader knew."""
    _name, _draft, advice = base
    if sid == advice.strategy:
        pytest.skip("the plan's own strategy is a 'why', not a 'why not'")
    reply = asked(base, rules, f"why not {name}?")
    assert reply.intent == "why_not" and reply.columns == (advice.strategy, sid), reply.lines[:2]


def test_why_the_recommended_strategy_gives_its_rationale(base, rules):
    _name, _draft, advice = base
    reply = asked(base, rules, f"why {advice.strategy}?")
    assert reply.intent == "why"
    assert all(f"• {r['text']}" in reply.lines for r in advice.rationale())


def test_why_not_a_gpu_count_prices_that_count_from_the_search(base, rules):
    _name, _draft, advice = base
    other = next(o for o in advice.plan.options if o.gpus != advice.gpus and o.strategy == advice.strategy)
    reply = asked(base, rules, f"why not {other.gpus} GPUs?")
    assert reply.lines[0].startswith(f"Why not {other.gpus} GPUs: ")
    from advisor.decision.advice import money

    assert dict((r[0], r[2]) for r in reply.figures)["cost per run"] == money(other.cost, "CNY")


def test_why_not_a_gpu_type_says_advisor_does_not_choose_it_and_prices_it(base, rules):
    reply = asked(base, rules, "why not H800?")
    assert reply.intent == "why_not" and reply.change["cluster.gpu"] == "h800"
    assert reply.lines[0].startswith("advisor does not choose the GPU type")
    assert reply.columns == ("now", "what if")


def test_a_name_that_covers_several_strategies_is_not_guessed_for_today_s_framework(base, rules):
    reply = asked(base, rules, "what if we currently run deepspeed?")
    assert reply.intent is None and reply.change == {}
    assert reply.suggestions[0] == "what if we currently run deepspeed-zero1?"


def test_explain_a_term_cites_its_source_in_both_languages(base, rules):
    en = asked(base, rules, "what is all-reduce?")
    zh = asked(base, rules, "什么是 all-reduce？", "zh")
    assert en.intent == zh.intent == "explain"
    assert "seed:K5" in en.sources and en.sources == zh.sources
    assert en.lines[0].startswith("Sums a buffer") and zh.lines[0].startswith("把一块缓冲区")


def test_compare_two_strategies_side_by_side(base, rules):
    _name, _draft, advice = base
    reply = asked(base, rules, "compare ddp and fsdp")
    assert reply.columns == ("ddp", "fsdp")
    rows = {r[0]: r[1:] for r in reply.figures}
    assert rows["memory per GPU"] == tuple(f"{advice.estimate_dict(s)['memory_per_gpu_gb']:,.1f} GB" for s in ("ddp", "fsdp"))


def test_compare_two_gpu_types_reruns_each(base, rules):
    reply = asked(base, rules, "H100-SXM vs H800")
    assert reply.columns == ("h100-sxm", "h800") and reply.figures[0][0] == "plan"


# ------------------------------------------------------------------------------ never guesses silently


def test_an_unparsed_question_gets_the_closest_intents_filled_with_its_values(base, rules):
    reply = asked(base, rules, "128 GPUs")
    assert reply.intent is None and reply.change == {}
    assert reply.suggestions[0] == "what if GPUs = 128?"
    assert "Did you mean: what if GPUs = 128?" in reply.text()
    zh = asked(base, rules, "128 张卡", "zh")
    assert zh.suggestions[0] == "如果 GPU 数 = 128 呢？"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_suggestion_reads_back_as_the_question_it_offers(lang):
    """'Did you mean: what if price per GPU-hour = ¥15?' must itself be a question advisor reads, with that value."""
    data = load_intents()
    values = {"number": "128", "money": "¥15", "duration": "10 days", "gpu": "h800", "word": "fp16"}
    what_if = next(it for it in data.intents if it.id == "what_if")
    for name in what_if.slots:
        slot = data.slots[name]
        if slot.kind in ("field", "factor") or not slot.fields:
            # named as the answers file names it ('what if training.lora_rank = 16?') or relative to today ('double the
            # GPUs'), or setting no field ('with fsdp' beside a change): never offered as 'label = value'; the corpus asks
            # these as people write them
            continue
        # a word slot takes one of its own words (precision: fp16; training method: qlora)
        value = slot.values[0] if slot.kind == "word" and slot.values else values.get(slot.kind, "fsdp")
        with language(lang):
            question = what_if.example[lang].format(a=f"{slot.label[lang]} = {value}")
            got = parse(question, data)
            assert got is not None and got.intent == "what_if" and name in got.slots, (question, got)
            assert suggestions(question)[0] == question


def test_a_question_about_nothing_it_knows_still_gets_suggestions(base, rules):
    reply = asked(base, rules, "how is the weather")
    assert reply.intent is None and len(reply.suggestions) == 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_any_text_is_an_answer_suggestions_or_the_answers_one_line_error(base, rules, text):
    try:
        reply = asked(base, rules, text)
    except AnswerError as exc:
        assert "\n" not in exc.msg
        return
    assert reply.lines
    assert reply.intent is not None or reply.suggestions or not text.strip() or len(text) > 500


# ------------------------------------------------------------------------------ headless, memo, kept with the answers


def test_cli_ask_text_and_json(capsys):
    code, out, err = run(capsys, "ask", EXAMPLE, "what if we get 128 GPUs?")
    assert code == 0 and err == "" and out.startswith("What if GPUs = 128 (was 64):")
    code, out, err = run(capsys, "ask", EXAMPLE, "why not DeepSpeed?", "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["intent"] == "why_not" and d["slots"] == {"strategy": ["deepspeed"]} and d["figures"]["rows"]


def test_cli_ask_in_chinese(capsys):
    code, out, _err = run(capsys, "--lang", "zh", "ask", EXAMPLE, "如果截止日期是 10 天呢？")
    assert code == 0 and out.startswith("假如截止日期 = 10.0 天（原为 2.0 天）：")


def test_cli_out_of_range_is_one_stderr_line_and_exit_2(capsys, tmp_path):
    saved = tmp_path / "a.yaml"
    code, out, err = run(capsys, "ask", EXAMPLE, "what if we get -8 GPUs?", "--save", str(saved))
    assert code == 2 and out == "" and err.count("\n") == 1 and "cluster.gpus" in err and "what if we get -8 GPUs?" in err
    assert not saved.exists()


@pytest.mark.parametrize(("args", "error"), [
    (["ask", EXAMPLE, ""], "QUESTION: is empty"),
    (["ask", EXAMPLE, "x" * 501], "QUESTION: is 501 characters long; ask it in at most 500"),
    (["ask", EXAMPLE], "QUESTION: is required"),
    (["ask", EXAMPLE, "why?", "--adopt"], "--adopt: needs --save PATH"),
    (["ask", EXAMPLE, "why?", "--save", EXAMPLE], "already exists; pass --force"),
    (["ask", str(EXAMPLES / "nope.yaml"), "why?"], "nope.yaml: no such file"),
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, args, error):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and error in err, err


def test_the_conversation_is_kept_with_saved_answers_and_goes_into_the_memo_on_request(capsys, tmp_path):
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    assert run(capsys, "ask", EXAMPLE, "what if we only get 128 GPUs?", "--save", str(one))[0] == 0
    assert run(capsys, "ask", str(one), "what is MFU?", "--save", str(two))[0] == 0
    kept = load_answers(two).project.conversation
    assert [t.question for t in kept] == ["what if we only get 128 GPUs?", "what is MFU?"]
    assert kept[1].answer.startswith("Model FLOPs utilisation")
    # readable in the file: an answer's lines as a YAML block, read back exactly as given
    assert "    answer: |-\n      What if most GPUs = 128 (was no limit):\n" in two.read_text()
    code, out, _err = run(capsys, "ask", EXAMPLE, "what if we only get 128 GPUs?")
    assert kept[0].answer == out.rstrip("\n")
    code, memo, _err = run(capsys, "ask", str(two), "--format", "md")
    assert code == 0 and "## Appendix: questions asked" in memo
    assert "**1. what if we only get 128 GPUs?**" in memo and "**2. what is MFU?**" in memo
    # advise, not asked for it, leaves it out; and the answers appendix does not repeat it
    code, plain, _err = run(capsys, "advise", str(two), "--format", "md")
    assert "questions asked" not in plain and "conversation" not in plain


def test_adopt_writes_the_what_if_as_the_new_answers(capsys, tmp_path):
    out = tmp_path / "adopted.yaml"
    assert run(capsys, "ask", EXAMPLE, "what if we get 128 GPUs?", "--save", str(out), "--adopt")[0] == 0
    assert load_answers(out).cluster.gpus == 128
    assert yaml.safe_load(out.read_text())["model"]["params"] == "7B"  # the answers as written


def test_memo_appendix_only_on_request(base, rules):
    _name, _draft, advice = base
    reply = asked(base, rules, "what is ZeRO?")
    assert to_markdown(advice) == to_markdown(advice, conversation=[])
    memo = to_markdown(advice, conversation=[turn(reply)])
    assert memo.startswith(to_markdown(advice).rstrip("\n"))
    assert "## Appendix: questions asked" in memo and "**1. what is ZeRO?**" in memo


def test_suggestions_helper_uses_the_current_language():
    with language("zh"):
        assert suggestions("64 张卡")[0] == "如果 GPU 数 = 64 呢？"


# ---- review findings (a new user's try of the merged product)


def _ask_text(question: str, example: str = "customer-service.yaml") -> str:
    import io
    from contextlib import redirect_stdout

    from advisor.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["ask", str(EXAMPLES / example), question]) == 0
    return out.getvalue()


def test_a_gpu_type_what_if_on_a_measured_run_prices_the_new_gpu():
    """The measured 3-day A100 run was re-used as if measured on H800, so H800 came out no faster."""
    text = _ask_text("what if H800 at ¥15?")
    assert "on another setup the run keeps its work" in text
    plan = text.split("The plan becomes", 1)[1]
    gpus = int(plan.split(" GPUs", 1)[0].split()[-1])
    hours = float(plan.split(" a run", 1)[0].split(":")[-1].split()[0])
    assert gpus * hours < 0.5 * 104 * 45.0, text  # H800 GPU-hours: well under half of the 104 A100s' 45 h


def test_a_tokens_what_if_on_a_measured_run_scales_the_time():
    text = _ask_text("what if we train on 2T tokens?")
    assert "on the same setup take" in text and "about the same" not in text.split("The plan", 1)[1].split("\n", 1)[0]


def test_why_not_n_gpus_answers_with_the_best_option_there_as_the_what_if_does(tmp_path):
    """'why not 24 GPUs?' quoted the plan's framework at 24 GPUs (fsdp, 45 h, past the 1-day deadline) while 'what if 24
    GPUs?' found megatron-3d there meeting it for less: both now read the best option at that count."""
    import io
    from contextlib import redirect_stdout

    import yaml

    from advisor.cli import main

    data = yaml.safe_load((EXAMPLES / "customer-service-finetune.yaml").read_text(encoding="utf-8"))
    data["training"]["deadline_days"] = 1
    data["cluster"]["gpu"] = "a100-80gb"  # on A10s ZeRO++ now meets the deadline on 8 (issue 24); on A100s 24 GPUs is ZeRO++'s (issue 32)
    f = tmp_path / "a.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["ask", str(f), "why not 24 GPUs?", "--format", "json"]) == 0
    reply = json.loads(out.getvalue())
    # The one chooser (issue 33): the option the memo's what-if table shows at 24 GPUs.
    row = next(r for r in advise(load_answers(f), load_rules()).to_dict()["what_if"] if r["gpus"] == 24)
    assert f"{row['strategy']}, 24 GPUs" in json.dumps(reply["figures"]) and "past the deadline" not in " ".join(reply["answer"]), reply


@pytest.mark.parametrize("question", ["asdf qwerty", "what if we get a million GPUs?", "how is the weather"])
def test_no_suggestion_offers_a_negative_count(question):
    """Review: 'Did you mean: what if we get -8 GPUs?' — a suggestion that is then refused."""
    for lang in ("en", "zh"):
        with language(lang):
            assert not any(re.search(r"-\s*\d", q) for q in suggestions(question)), suggestions(question)


@pytest.mark.parametrize(("question", "lang_args", "env", "opening"), [
    ("为什么不用 FSDP？", (), {"ADVISOR_LANG": "", "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "为什么在 104 张 GPU 上不用 fsdp"),
    ("why not FSDP?", (), {"ADVISOR_LANG": "", "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "Why not fsdp"),
    ("为什么不用 FSDP？", ("--lang", "en"), {"ADVISOR_LANG": ""}, "Why not fsdp"),
    ("为什么不用 FSDP？", (), {"ADVISOR_LANG": "en"}, "Why not fsdp"),
])
def test_a_question_asked_in_chinese_is_answered_in_chinese_unless_a_language_was_chosen(question, lang_args, env, opening):
    """'为什么不用 HSDP' got an English answer on an English locale: the question's own language is the better signal,
    unless --lang or ADVISOR_LANG chose one."""
    from .conftest import EXAMPLES, run_cli

    done = run_cli(*lang_args, "ask", str(EXAMPLES / "customer-service.yaml"), question, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(opening), done.stdout[:80]


# ------------------------------------------------------------------------------ issue 34: everyday questions, as people ask them

CORPUS = yaml.safe_load((EXAMPLES.parent / "tests" / "data" / "ask_corpus.yaml").read_text(encoding="utf-8"))["questions"]
_PLANS: dict[tuple[str, str], tuple] = {}


def _plan(example: str, rules, lang: str = "en"):
    """The example's advice, made in the language it is asked in (as `advisor ask` makes it)."""
    if (example, lang) not in _PLANS:
        name, draft = load_mapping(str(EXAMPLES / example))
        with language(lang):
            _PLANS[example, lang] = (name, draft, advise(answers_from_mapping(draft, name), rules))
    return _PLANS[example, lang]


def _names_a_reader_knows() -> list[str]:
    from advisor.knowledge.catalog import gpu_catalog
    from advisor.knowledge.strategies import FRAMEWORKS

    frameworks = {*FRAMEWORKS.values(), *(re.split(r" ?[（(]", f)[0] for f in FRAMEWORKS.values())}  # a table's short form
    return sorted({*frameworks, *(g.name for g in gpu_catalog().values())}, key=len, reverse=True)


def assert_plain(text: str, lang: str, rules) -> None:
    """No rule id, seed tag, file name or scientific notation; in Chinese, no English running text and one money style."""
    ids = {r.id for r in rules.rules}
    body = "\n".join(line for line in text.splitlines() if not line.startswith(("Sources:", "来源：", "出处：")))
    assert not [i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)], text
    assert "seed:" not in text and ".yaml" not in text and "README" not in text, text
    assert not re.search(r"\d[eE][+-]?\d", body), text
    if lang == "zh":
        for name in _names_a_reader_knows():
            body = body.replace(name, "")
        body = re.sub(r"'[^']*'|“[^”]*”", "", body)  # a paper's title, quoted as cited
        assert not re.search(r"[A-Za-z]{2,}(?:[ ][A-Za-z]{2,}){2,}", body), body
        assert not re.search(r"\d\s*CNY", body), body


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: f"{c.get('plan', 'cs')}:{c['q']}")
def test_an_everyday_question_gets_its_answer(rules, case):
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in case["q"]) else "en"
    name, draft, advice = _plan(case.get("plan", "customer-service.yaml"), rules, lang)
    with language(lang):
        reply = ask(case["q"], draft, advice, rules, name)
        text = reply.text()
    assert reply.intent == case["intent"], (reply.intent, reply.slots, text)
    if "term" in case:
        assert reply.slots["term"] == [case["term"]]
    for path, value in (case.get("change") or {}).items():
        assert str(reply.change.get(path)).lower() == str(value).lower(), (path, reply.change)
    if "says" in case:
        assert case["says"] in text, text
    assert_plain(text, lang, rules)


def test_the_corpus_is_large_bilingual_and_mostly_written_as_people_type():
    chinese = [c for c in CORPUS if any("\u4e00" <= ch <= "\u9fff" for ch in c["q"])]
    casual = [c for c in CORPUS if c["q"][0].islower() or not c["q"].endswith(("?", "？"))]
    assert len(CORPUS) >= 150 and len(chinese) >= 40 and len(casual) >= len(CORPUS) / 2


@pytest.mark.parametrize(("example", "question"), [
    ("customer-service.yaml", "asdf qwerty"),
    ("customer-service.yaml", "how is the weather"),
    ("customer-service.yaml", "tell me about the plan pls"),
    ("gpu-choice.yaml", "asdf qwerty"),
    ("gpu-choice.yaml", "blah"),
    ("customer-service.yaml", "is the recommended plan any good"),  # was: 'why is fsdp recommended' on a ZeRO-2 plan
    ("gpu-choice.yaml", "hmm"),  # was: '换成 H800，价格 ¥15 呢？' on a USD plan
    ("customer-service.yaml", "这个方案怎么样嘛"),  # ("这个方案靠谱吗" is read now: accuracy) was: 'compare ddp and fsdp', 'H100-SXM vs H800'
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_unreadable_question_gets_suggestions_drawn_from_this_plan(rules, example, question, lang):
    """'why is fsdp recommended' was offered on a ZeRO-2 plan, 'H800 at ¥15' on a USD plan."""
    name, draft, advice = _plan(example, rules, lang)
    with language(lang):
        reply = ask(question, draft, advice, rules, name)
        assert reply.intent is None and len(reply.suggestions) == 3
        for s in reply.suggestions:
            assert "recommended" not in s or advice.strategy in s, s
            for sid in STRATEGIES:
                if re.search(rf"(?<![\w-]){re.escape(sid)}(?![\w-])", s, re.IGNORECASE) and sid != advice.strategy:
                    assert s.lower().startswith(("why not", "compare", "为什么不", "对比")), s
            assert ("$" not in s) if advice.facts["currency"] == "CNY" else ("¥" not in s and "元" not in s), s
            assert "h800" not in s.lower() and "h100-sxm vs" not in s.lower(), s  # no GPU type the plan does not name
            got = parse(s)
            assert got is not None, s  # every suggestion is itself a question advisor reads


def _finetune_capped(tmp_path):
    data = yaml.safe_load((EXAMPLES / "customer-service-finetune.yaml").read_text(encoding="utf-8"))
    data["cluster"]["max_gpus"] = 8
    f = tmp_path / "capped.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return str(f)


@pytest.mark.parametrize(("example", "question", "said"), [
    ("gpu-choice.yaml", "what if the H100 costs 3.5?", "3.5"),
    ("gpu-choice.yaml", "compare h100 and a100", "h100"),
    ("gpu-choice.yaml", "what if we use h100?", "GPU types to compare"),
    ("gpu-choice.yaml", "what if we get 512 GPUs?", "512"),
    ("gpu-choice.yaml", "what if we use H100 at $3.5?", "3.5"),
    ("capped", "what if we get 16 GPUs?", "16"),
    ("customer-service.yaml", "what if we use h100?", "today's rate"),
    ("gpu-choice.yaml", "64 gpus or 512 gpus", "512"),
    ("gpu-choice.yaml", "why not 512 GPUs?", "512"),
])
def test_a_what_if_never_fails_on_the_users_file(capsys, tmp_path, example, question, said):
    """'what if we get 16 GPUs?' on a plan with max_gpus 8 answered 'cluster: max_gpus (8) is below gpus (16)'; 'compare h100
    and a100' on gpu-choice exited 2 with a candidates error; a GPU type without a price silently used today's rate."""
    path = _finetune_capped(tmp_path) if example == "capped" else str(EXAMPLES / example)
    code, out, err = run(capsys, "ask", path, question)
    assert code == 0 and err == "", err
    assert said in out, out


def test_a_price_in_another_currency_is_refused_naming_the_question_not_the_file(base, rules):
    reply = asked(base, rules, "what if we use H800 at $3.5?")
    assert reply.intent is None and reply.change == {}
    assert "$3.5" in reply.lines[0] and "CNY" in reply.lines[0] and EXAMPLE not in reply.text()
    assert len(reply.lines) == 1


def test_a_gpu_type_what_if_without_a_price_says_it_is_priced_at_today_s_rate(base, rules):
    reply = asked(base, rules, "what if we use H800?")
    assert any("today's rate" in line and "10 CNY" in line for line in reply.lines), reply.lines
    zh = asked(base, rules, "如果用 H800 呢", "zh")
    assert any("当前单价" in line for line in zh.lines), zh.lines


def test_a_candidate_gpu_what_if_uses_the_candidates_price_and_says_so(rules):
    name, draft, advice = _plan("gpu-choice.yaml", rules)
    with language("en"):
        reply = ask("what if we use h100?", draft, advice, rules, name)
    assert reply.change["budget.price_per_gpu_hour"] == 3.5
    assert any("3.5" in line and "GPU types to compare" in line for line in reply.lines), reply.lines


def test_global_batch_tokens_is_a_batch_what_if_and_lora_rank_a_rank_change():
    assert parse("global batch 16M tokens").slots == {"batch": ["16M"]}
    got = parse("what if lora_rank 16")
    assert got is not None and "train_method" not in got.slots and got.slots == {"lora_rank": ["16"]}
    assert parse("what if we use fp8?").slots == {"precision": ["fp8"]}


def test_why_not_says_which_considerations_counted_in_plain_words_not_rule_ids(base, rules):
    reply = asked(base, rules, "why not FSDP?")
    ids = [fr.rule.id for fr in base[2].fired]
    assert not any(i in reply.text() for i in ids), reply.text()
    assert "Rules that scored it" not in reply.text()


def test_an_out_of_range_what_if_names_the_question_and_writes_numbers_out(base, rules):
    """'must be between 1e6 and 1e14' on a PM screen, and the error blamed the user's file for the question's value."""
    with pytest.raises(AnswerError) as exc:
        asked(base, rules, "what if we train on 1000 tokens?")
    assert exc.value.msg.startswith("In 'what if we train on 1000 tokens?': training.tokens: must be between 1 million and")
    assert not re.search(r"\d[eE]\d", exc.value.msg) and EXAMPLE not in exc.value.msg


def test_chinese_answers_use_one_money_style(base, rules):
    reply = asked(base, rules, "如果单价 15 元呢", "zh")
    text = reply.text()
    assert "CNY" not in text and "15 元" in text, text


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_answers_the_everyday_and_plan_questions_in_both_languages(rules, example):
    """Every question advisor offers, on every shipped plan, is answered (never an error) in plain words."""
    from advisor.outputs.ask import everyday_questions, plan_questions

    for lang in ("en", "zh"):
        name, draft, advice = _plan(example, rules, lang)
        with language(lang):
            for q in dict.fromkeys([*everyday_questions(), *plan_questions(advice), _("what if we use spot instances?")]):
                reply = ask(q, draft, advice, rules, name)
                assert reply.intent is not None, (example, q, reply.text())
                assert_plain(reply.text(), lang, rules)


def test_an_fp8_what_if_on_a_gpu_without_fp8_is_explained_not_an_error(base, rules):
    reply = asked(base, rules, "what if we use fp8?")
    assert reply.intent is None and reply.change == {} and "FP8" in reply.lines[0] and "A100" in reply.lines[0]
    assert parse(reply.suggestions[0]).slots == {"precision": ["fp8"], "gpu": ["h100-sxm"]}
    on_h100 = asked(base, rules, reply.suggestions[0])
    assert on_h100.intent == "what_if" and on_h100.change["training.precision"] == "fp8"


def test_a_lora_rank_what_if_follows_the_plan_s_method(rules):
    """On a fine-tune planned as LoRA the rank is that LoRA's (not an error about method finetune); a pretrain has no
    adapters, and says so instead of turning the pretrain into a LoRA run."""
    name, draft, advice = _plan("customer-service-finetune.yaml", rules)
    with language("en"):
        reply = ask("what if lora_rank 16", draft, advice, rules, name)
    assert reply.intent == "what_if" and reply.change["training.lora_rank"] == "16" and reply.change["training.method"] in ("lora", "qlora")
    name, draft, advice = _plan("pretrain-7b-h100.yaml", rules)
    with language("en"):
        reply = ask("what if lora_rank 16", draft, advice, rules, name)
    assert reply.intent is None and "pretrains" in reply.lines[0] and reply.change == {}


FIELD_VALUES = {
    "model.params": "13B", "model.name": "qwen2.5-14b", "model.layers": "40", "model.hidden_size": "5120", "model.attention_heads": "40", "model.kv_heads": "8", "model.head_dim": "128", "model.sliding_window": "4096", "model.sliding_window_layers_pct": "50",
    "model.seq_len": "4096", "model.vocab_size": "32000", "model.active_params": "2B", "model.experts_per_token": "2", "model.experts": "8",
    "training.method": "qlora", "training.tokens": "1T", "training.examples": "200k", "training.tokens_per_example": "512",
    "training.epochs": "2", "training.lora_rank": "16", "training.lora_targets": "all-linear", "training.duration_hours": "60",
    "training.duration_days": "2", "training.current_strategy": "fsdp", "training.deadline_days": "5", "training.runs_per_month": "4",
    "training.precision": "fp16", "training.global_batch_tokens": "4M", "training.micro_batch_size": "2",
    "training.activation_recompute": "full", "cluster.gpu": "h800", "cluster.gpus": "16", "cluster.max_gpus": "64",
    "cluster.spot_interruptions_pct_per_month": "5", "cluster.gpus_per_node": "4", "cluster.intra_node": "pcie",
    "cluster.inter_node_gbps": "400", "cluster.cpu_memory_gb_per_node": "512", "cluster.multi_tenant": "false",
    "cluster.data_pipeline_tokens_per_sec": "2M", "budget.price_per_gpu_hour": "12", "budget.currency": "CNY", "budget.limit": "100k",
    "budget.monthly_limit": "300k", "team.experience": "expert", "project.stage": "frontier",
}


def test_every_answers_field_has_a_value_in_the_field_table():
    from advisor.outputs.ask import answers_fields

    assert {p for p in answers_fields() if "." in p} == set(FIELD_VALUES)


@pytest.mark.parametrize(("path", "value"), sorted(FIELD_VALUES.items()))
def test_a_what_if_on_every_answers_field_sets_it(rules, path, value):
    """`advisor schema` lists every field; each can be asked as a what-if by its name, and the answer sets it (or, where
    the value cannot hold for this plan, says so naming the question, never the file)."""
    name, draft, advice = _plan("customer-service-finetune.yaml", rules)
    question = f"what if {path} = {value}"
    with language("en"):
        try:
            reply = ask(question, draft, advice, rules, name)
        except AnswerError as exc:
            assert exc.msg.startswith(f"In '{question}': ") and name not in exc.msg, exc.msg
            return
    assert reply.intent == "what_if", reply.text()
    assert str(reply.change[path]).lower() == value.lower(), reply.change


def test_the_deepspeed_group_is_every_strategy_deepspeed_launches():
    """Issue 33: the `deepspeed` name in a question missed ZeRO++; the group is checked against the registry's launcher."""
    from advisor.knowledge.strategies import spec

    members = set(load_intents().groups["deepspeed"])
    assert members == {s for s in STRATEGIES if spec(s).launcher == "deepspeed"}


@pytest.mark.parametrize("source, shown", [
    ("stas00/ml-engineering network/README.md: PCIe 4 x16 31 GB/s", "stas00/ml-engineering: PCIe 4 x16 31 GB/s"),
    ("Megatron gpu_peak_flops.py (H100-SXM: 989)", "Megatron (H100-SXM: 989)"),
    ("arXiv:2407.21783 Sec 3.3.4", "arXiv:2407.21783 Sec 3.3.4"),
])
def test_a_cited_file_path_is_not_shown_to_the_reader(source, shown):
    """Issue 32's recommendation change surfaced a rule sourced to a README path on the ask screen: the reader gets the
    repository and the quote, not the file."""
    from advisor.outputs.ask import source_text

    assert source_text(source) == shown


@pytest.mark.parametrize("question", ["what if we train a 70B model?", "what if we use a 1.3B model?"])
def test_a_model_size_what_if_on_a_measured_run_prices_the_new_model(base, rules, question):
    """The measured 3-day run is the 7B's: a 70B model on the same data does 10x the work. The what-if kept the measured
    time and priced 70B 36% cheaper than 7B (user try, 2026-12-05)."""
    name, draft, advice = base
    reply = asked(base, rules, question)
    assert reply.intent == "what_if"
    assert reply.change["training.duration_days"] is None and reply.change["training.tokens"] == round(advice.evaluation.context["tokens"])
    new = advise(answers_from_mapping(with_change(draft, reply.change), name), rules)
    gpu_hours = new.plan.chosen.hours * new.plan.chosen.gpus
    today = advice.plan.chosen.hours * advice.plan.chosen.gpus
    assert (gpu_hours > 3 * today) if "70B" in question else (gpu_hours < today / 2), (gpu_hours, today)


def test_a_gpu_count_what_if_with_tokens_and_a_measured_time_prices_the_new_count(rules, tmp_path):
    """Answers that give both the tokens and today's measured time: 'double the GPUs' kept the measured 4.6 days at twice
    the cost, and an A100 came out faster than today's H100 (user try, 2026-12-05). On another setup the run keeps the
    tokens the answers give, and the measured time no longer holds."""
    path = tmp_path / "answers.yaml"
    path.write_text(yaml.safe_dump({
        "model": {"params": "13B"}, "training": {"tokens": "2B", "duration_days": 3, "current_strategy": "deepspeed-zero2"},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8, "inter_node_gbps": 3200},
        "budget": {"price_per_gpu_hour": 3, "currency": "USD"}}), encoding="utf-8")
    name, draft = load_mapping(str(path))
    advice = advise(answers_from_mapping(draft, name), rules)
    reply = ask("what if we double the GPUs?", draft, advice, rules, name)
    assert reply.change["cluster.gpus"] == "64" and reply.change["training.duration_days"] is None
    new = advise(answers_from_mapping(with_change(draft, reply.change), name), rules)
    assert new.answers.training.tokens == 2e9
    a100 = ask("what if we use A100 instead?", draft, advice, rules, name)
    slower = advise(answers_from_mapping(with_change(draft, a100.change), name), rules)
    same_h100 = advise(answers_from_mapping(with_change(draft, {"training.duration_days": None}), name), rules)
    assert slower.plan.chosen.hours * slower.plan.chosen.gpus > same_h100.plan.chosen.hours * same_h100.plan.chosen.gpus


def _planned_as_lora(tmp_path, rules):
    """A full fine-tune on 32 H100 that advisor plans as LoRA on 8 (after the user try's answers, 2026-12-05: their 13B
    no longer switches once the lighter method is priced on the same work and batch, so 70B; it planned QLoRA on 16 until
    an eager stack's loss was scaled with the width, workload.eager_efficiency, and LoRA's cheaper compute won)."""
    path = tmp_path / "answers.yaml"
    path.write_text(yaml.safe_dump({
        "model": {"params": "70B"},
        "training": {"method": "finetune", "duration_days": 3, "current_strategy": "deepspeed-zero3", "deadline_days": 5,
                     "runs_per_month": 4},
        "cluster": {"gpu": "h100-sxm", "gpus": 32, "gpus_per_node": 8, "inter_node_gbps": 400},
        "budget": {"price_per_gpu_hour": 3, "currency": "USD", "limit": 8000, "monthly_limit": 60000}}), encoding="utf-8")
    name, draft = load_mapping(str(path))
    advice = advise(answers_from_mapping(draft, name), rules)
    assert advice.method_changed and advice.method == "lora"
    return name, draft, advice


def test_what_the_plan_switched_from_is_today_s_method_in_a_what_if(rules, tmp_path):
    """'what if training method = finetune?' said '(was qlora)' and re-priced today's own setup without its measured
    time (2.3 days against the measured 3.0): the answers ask for a full fine-tune, so nothing changes."""
    name, draft, advice = _planned_as_lora(tmp_path, rules)
    reply = ask("what if training method = finetune?", draft, advice, rules, name)
    text = reply.text()
    assert "already say training method = full fine-tune: the advice stays as it is" in text and "(was" not in text, text
    assert "training.duration_days" not in reply.change
    assert "a full fine-tune takes" in text and " and costs " in text  # and why the plan uses LoRA instead


@pytest.mark.parametrize("question", ["what if we don't use LoRA?", "如果不用 LoRA 呢？", "what if we use LoRA?"])
def test_a_what_if_on_the_method_the_plan_already_switched_to_answers_with_the_method_asked(rules, tmp_path, question):
    """'what if we don't use QLoRA?' read as 'use QLoRA' (the 'don't' dropped) and answered 'What if training method =
    qlora (was qlora) ... the answers already say so' over a table that changed. The answer is the full fine-tune the
    answers ask for, priced."""
    name, draft, advice = _planned_as_lora(tmp_path, rules)
    reply = ask(question, draft, advice, rules, name)
    text = reply.text()
    assert "3,796 USD" in text and not reply.change, text


def test_a_negated_value_is_never_read_as_the_change(base, rules):
    reply = asked(base, rules, "what if we train without fp16?")
    assert not reply.change and "instead of fp16" in reply.text()


def test_a_what_if_that_changes_the_fine_tuning_method_shows_it(rules, tmp_path):
    """'what if the deadline is 2 days?' on a full fine-tune planned as QLoRA went back to the full fine-tune on 64 GPUs,
    over budget; the table beside it had no method row, so the change of method went unsaid (user try, 2026-12-05)."""
    name, draft, advice = _planned_as_lora(tmp_path, rules)
    reply = ask("what if the deadline is 2 days?", draft, advice, rules, name)
    new = advise(answers_from_mapping(with_change(draft, reply.change), name), rules)
    assert (advice.method, new.method) == ("lora", "finetune")  # the case this test is about
    rows = {r[0]: r[1:] for r in reply.figures}
    assert rows["method"] == ("LoRA", "full fine-tune"), rows
    same = ask("what if the monthly budget is 70k?", draft, advice, rules, name)
    assert "method" not in {r[0] for r in same.figures}


@pytest.mark.parametrize("question", ["why not full fine-tune?", "why not a full finetune", "为什么不用全参数微调？"])
def test_why_not_the_method_asked_gives_the_reason_the_plan_switched(rules, tmp_path, question):
    """'why not full fine-tune?' repeated the generic 'How it was chosen' (user try, 2026-12-05)."""
    name, draft, advice = _planned_as_lora(tmp_path, rules)
    reply = ask(question, draft, advice, rules, name)
    assert reply.intent == "why_not" and "3,796 USD" in reply.text(), reply.text()


# ------------------------------------------------------------------------------ without / instead (user try 2026-12-05)


@pytest.mark.parametrize("question", ["don't use DeepSpeed", "we can't use deepspeed", "我们不能用 DeepSpeed", "plan it without DeepSpeed"])
def test_leaving_a_framework_out_plans_from_the_other_options_the_same_way(base, rules, question):
    name, draft, advice = base
    assert advice.plan.chosen.strategy.startswith("deepspeed-")
    reply = asked(base, rules, question, "zh" if "不" in question else "en")
    assert reply.intent == "without"
    plan_cell = dict((r[0], r[2]) for r in reply.figures)
    strategy, gpus = [x.strip() for x in re.split(r"[,，]", plan_cell[next(iter(plan_cell))])][:2]
    assert not strategy.startswith("deepspeed")
    # the same choice the advice makes, over the options that are left: the fastest-cheapest runnable non-DeepSpeed one
    from advisor.decision.decide import choose
    best = choose([o for o in advice.plan.options if not o.strategy.startswith("deepspeed")], advice.answers,
                  advice.plan.runs_per_month, rules.default.strategy if rules.default else None)
    assert best is not None and strategy == best.chosen.strategy and gpus.startswith(str(best.chosen.gpus))


def test_leaving_out_a_framework_the_plan_does_not_use_says_so(base, rules):
    reply = asked(base, rules, "不用FSDP", "zh")
    assert reply.intent == "without" and reply.lines[0].startswith("方案本来就不用 fsdp")


@pytest.mark.parametrize(("question", "strategy"), [("use FSDP instead", "fsdp"), ("we must use megatron", "megatron-3d"), ("只能用 FSDP", "fsdp")])
def test_a_framework_instead_is_the_plan_among_its_options_not_the_framework_run_today(base, rules, question, strategy):
    reply = asked(base, rules, question, "zh" if "只" in question else "en")
    assert reply.intent == "instead" and "training.current_strategy" not in reply.change
    assert reply.figures[0][2].startswith(strategy)


def test_a_plan_that_breaks_a_limit_today_keeps_says_so_in_words(base, rules):
    reply = asked(base, rules, "we must use megatron")
    assert [r for r in reply.figures if r[0] == "monthly limit"] == [("monthly limit", "within", "over")]
    assert "It goes over the monthly limit (500,000 CNY) that the recommended plan keeps within." in reply.lines


def test_why_not_a_framework_stays_a_why_question(base, rules):
    assert asked(base, rules, "why don't we use fsdp").intent == "why_not"
    assert asked(base, rules, "为什么不用FSDP", "zh").intent == "why_not"


def test_a_method_what_if_keeps_today_s_batch_so_the_methods_are_compared_on_the_same_training(rules):
    """User try 2026-12-05: 'what if we use lora' took LoRA's default 16 sequences against the full fine-tune's 64, and
    LoRA came out slower and dearer."""
    name, draft = load_mapping(str(EXAMPLES / "customer-service-finetune.yaml"))
    advice = advise(answers_from_mapping(draft, name), rules)
    assert advice.method == "lora" and advice.asked_method == "finetune"  # the plan itself is LoRA at the full fine-tune's batch
    seqs = advice.evaluation.context["workload"].global_batch_seqs
    assert seqs == 64
    reply = ask("what if we use qlora", draft, advice, rules, name)
    assert reply.change["training.global_batch_tokens"] == seqs * advice.answers.model.seq_len
    assert f"The global batch stays today's {seqs} sequences, so the two methods train the same way." in reply.lines


def _cannot_run_today(tmp_path, rules):
    path = tmp_path / "answers.yaml"
    path.write_text(yaml.safe_dump({
        "model": {"params": "7B"}, "training": {"tokens": "100B", "current_strategy": "ddp", "deadline_days": 6},
        "cluster": {"gpu": "a100-80gb", "gpus": 64, "inter_node_gbps": 200, "max_gpus": 64},
        "budget": {"price_per_gpu_hour": 10, "currency": "CNY"}}), encoding="utf-8")
    name, draft = load_mapping(str(path))
    advice = advise(answers_from_mapping(draft, name), rules)
    assert not advice.plan.today.runnable and advice.plan.deadline_met is False
    return name, draft, advice


@pytest.mark.parametrize("question", ["how long", "how much a month"])
def test_a_today_that_cannot_run_is_not_a_time_or_cost_to_beat(rules, tmp_path, question):
    """User try 2026-12-05: 'how long' said 'Today a run takes 7.5 days; the plan's run is 27% less' of a DDP that does not fit."""
    name, draft, advice = _cannot_run_today(tmp_path, rules)
    reply = ask(question, draft, advice, rules, name)
    text = reply.text()
    assert "Today's setup (ddp on 64 GPUs) cannot run this job: does not fit" in text
    assert "Today a run takes" not in text and "Today: " not in text
    rows = {r[0]: r[1] for r in reply.figures}
    assert rows["time per run"] == rows["cost per run"] == "cannot run"
    # the month only where it is asked (the answers give no runs a month or monthly ceiling: test_user_try6)
    assert rows.get("cost per month") == ("cannot run" if "month" in question else None), rows


def test_a_deadline_inside_the_point_but_not_the_range_is_at_risk_in_every_sentence(rules, tmp_path):
    name, draft, advice = _cannot_run_today(tmp_path, rules)
    text = ask("how long", draft, advice, rules, name).text()
    assert "That is inside the 6-day deadline, but at risk" in text and "misses the 6-day deadline" not in text


def test_two_methods_compare_side_by_side_on_the_same_batch(rules):
    """User try 2026-12-05: 'compare LoRA and QLoRA' was not understood."""
    name, draft = load_mapping(str(EXAMPLES / "customer-service-finetune.yaml"))
    advice = advise(answers_from_mapping(draft, name), rules)
    reply = ask("compare LoRA and QLoRA", draft, advice, rules, name)
    assert reply.intent == "compare" and reply.columns == ("LoRA", "QLoRA")
    assert ("method", "LoRA", "QLoRA") in reply.figures
    assert any(line.startswith("The global batch stays today's 64 sequences") for line in reply.lines)
    assert any("arXiv:2305.14314" in line for line in reply.lines)  # what QLoRA trades, cited


def test_zero_plus_plus_has_its_own_entry(base, rules):
    """User try 2026-12-05: 'what is ZeRO++' gave the plain ZeRO entry."""
    reply = asked(base, rules, "what is ZeRO++")
    assert "qwZ" in reply.text() and "arXiv:2306.10209" in reply.text()
    assert "qwZ" not in asked(base, rules, "what is ZeRO-3").text()


@pytest.mark.parametrize(("question", "said"), [
    ("what if the price is $3 per GPU hour", "gives $3 in USD, but this plan counts in CNY"),
    ("what if the price is €3", "gives €3 in EUR, but this plan counts in CNY"),
    ("what if price drops to 8 yuan", "What if price per GPU-hour = 8 CNY (was 10 CNY):"),
    ("what if the price is 8 per gpu-hour", "What if price per GPU-hour = 8 CNY (was 10 CNY):"),
])
def test_a_price_is_read_as_a_price_never_as_a_gpu_count(base, rules, question, said):
    """User try 2026-12-05: '$3 per GPU hour' was read as 3 GPUs; '€3' and '8 yuan' got the monthly-cost answer."""
    reply = asked(base, rules, question)
    assert said in reply.text() and "GPUs = " not in reply.text()
