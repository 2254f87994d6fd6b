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
from advisor.base.i18n import language
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
    (_break(["intents", 0, "triggers", 0], "(unclosed"), "intents[0] compare.triggers[0]: not a valid regular expression"),
    (_break(["intents", 1, "requires_any"], ["gpus", "nope"]), "intents[1] why_not.requires_any: unknown slot 'nope'"),
    (_break(["intents", 2, "cases"], []), "intents[2] why.cases: must be a list"),
    (_break(["intents", 3, "example"], {"en": "what is {a}?"}), "intents[3] explain.example: must be {en: ..., zh: ...}"),
    (_break(["intents", 4, "tirggers"], ["x"]), "intents[4] what_if.tirggers: unknown key; did you mean 'triggers'?"),
    (_break(["intents", 4, "id"], "wat_if"), "intents[4] wat_if.id: no answer for intent 'wat_if'"),
    (_break(["slots", "gpus", "field"], "cluster.gpuz"), "slots.gpus.field: 'cluster.gpuz' is not an answers field"),
    (_break(["slots", "gpus", "cues", 0], "gpus"), "slots.gpus.cues[0]: must hold ({value}) once"),
    (_break(["slots", "gpus", "kind"], "colour"), "slots.gpus.kind: unknown kind 'colour'"),
    (_break(["terms", "mfu", "source"], _DELETE), "terms.mfu.source: is required"),
    (_break(["terms", "mfu", "text"], {"en": "x", "zh": ""}), "terms.mfu.text: must be {en: ..., zh: ...}"),
    (_break(["strategies", "ddpp"], ["ddpp"]), "strategies.ddpp: unknown strategy"),
    (_break(["intents", 0, "cases", 0, "slots"], {"colour": ["red"]}), "intents[0] compare.cases[0].slots.colour: not among the intent's slots"),
])
def test_a_bad_intents_file_is_refused_naming_the_file_the_id_and_the_key(mutate, expected):
    data = mutate(copy.deepcopy(_raw()))
    with pytest.raises(IntentLoadError) as exc:
        parse_intents(data, "intents.yaml")
    assert exc.value.msg.startswith("intents.yaml: ") and expected in exc.value.msg, exc.value.msg
    assert "\n" not in exc.value.msg


# ------------------------------------------------------------------------------ what if


def test_what_if_reruns_the_core_with_that_one_change_and_answers_with_the_difference(base, rules):
    name, draft, advice = base
    reply = asked(base, rules, "what if we get 128 GPUs?")
    assert reply.intent == "what_if" and reply.change["cluster.gpus"] == "128"
    # what stays: the runs a month (today's cadence) and the work of the measured run, said in the reply
    assert reply.change["training.runs_per_month"] == advice.plan.runs_per_month
    assert reply.change["training.duration_days"] is None and reply.change["training.tokens"].endswith("B")
    assert "Runs a month kept at today's 10." in reply.lines
    assert "The measured 3.0 days was on today's 64 GPUs; on another setup the run keeps its work" in reply.lines[2]
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
    ("what if the price is $3?", "price_per_gpu_hour is written in USD but currency is CNY"),
    ("what if we use MI3?", "cluster.gpu: unknown GPU 'MI3'; did you mean"),  # H100 now resolves (issue 24's aliases)
    ("why not 12 GPUs?", "cluster: gpus (12) spans several nodes"),
])
def test_an_out_of_range_value_gets_the_answers_own_one_line_error(base, rules, question, error):
    with pytest.raises(AnswerError) as exc:
        asked(base, rules, question)
    assert exc.value.msg.startswith(EXAMPLE + ": ") and error in exc.value.msg and "\n" not in exc.value.msg


def test_a_what_if_that_changes_nothing_says_so(base, rules):
    reply = asked(base, rules, "what if we get 64 GPUs?")
    assert any("already say so" in line for line in reply.lines)


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
    fired = [fr.rule.id for fr in advice.fired if fr.rule.then.score.get("fsdp")]
    assert fired and all(rid in reply.lines[-1] for rid in fired)
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
    assert code == 0 and out.startswith("假如 截止日期 = 10.0 天（原为 2.0 天）：")


def test_cli_out_of_range_is_one_stderr_line_and_exit_2(capsys, tmp_path):
    saved = tmp_path / "a.yaml"
    code, out, err = run(capsys, "ask", EXAMPLE, "what if we get -8 GPUs?", "--save", str(saved))
    assert code == 2 and out == "" and err.count("\n") == 1 and "cluster.gpus" in err and EXAMPLE in err
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
    assert "    answer: |-\n      What if most GPUs = 128 (was —):\n" in two.read_text()
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
    assert "deepspeed-zeropp" in json.dumps(reply["figures"]) and "past the deadline" not in " ".join(reply["answer"]), reply


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
