"""Issue 23 item 8: the rule trace is a tree (every leaf of all / any / not with its fact's value and outcome), in the
JSON report and the memo's appendix; and rule tests can give facts directly, validated against the vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.base.errors import RuleLoadError
from advisor.decision.advice import advise
from advisor.decision.report import TraceNode
from advisor.decision.ruletests import load_cases, run_case
from advisor.inputs.answers import load_answers
from advisor.knowledge.rules import Problems, explain, parse_pack
from advisor.outputs.render import condition_tree, to_markdown

from .conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


def _leaves(when) -> int:
    if when == "always":
        return 1
    for key in ("all", "any"):
        if key in when:
            return sum(_leaves(c) for c in when[key])
    if "not" in when:
        return _leaves(when["not"])
    return 1


def _tree_leaves(node: dict) -> int:
    return sum(_tree_leaves(c) for c in node["children"]) if node["op"] in ("all", "any", "not") else 1


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_the_tree_agrees_with_the_rule_and_holds_every_leaf(rules, path):
    advice = advise(load_answers(path), rules)
    facts = advice.facts
    for rule in rules.rules:
        tree = explain(rule.when, facts)
        assert tree["result"] == rule.test(facts, []), rule.id
        assert _tree_leaves(tree) == _leaves(rule.when), rule.id
    report = advice.report()
    assert report.fired_rules and all(fr.tree is not None and fr.tree.result for fr in report.fired_rules)


def _pack(when: dict) -> list:
    rule = {"id": "r-test", "title": {"en": "t", "zh": "t"}, "source": "seed:K13", "priority": 5, "when": when,
            "then": {"rationale": {"en": "x", "zh": "x"}}}
    rules, _default = parse_pack({"rules": [rule]}, "<test>", Problems())
    return rules


def test_a_short_circuited_leaf_is_in_the_tree_but_not_in_the_flat_trace():
    (rule,) = _pack({"any": [{"fact": "gpus", "op": "lt", "value": 64}, {"not": {"fact": "multi_tenant", "op": "eq", "value": True}},
                             {"fact": "gpus", "op": "gt", "value": {"fact": "today_gpus"}}]})
    facts = {"gpus": 8, "multi_tenant": True, "today_gpus": None}
    trace: list = []
    assert rule.test(facts, trace) and len(trace) == 1  # any() stopped at the first leaf
    tree = explain(rule.when, facts)
    assert tree["result"] and [c["result"] for c in tree["children"]] == [True, False, False]
    assert tree["children"][1]["children"][0] == {"op": "eq", "fact": "multi_tenant", "seen": True, "value": True, "result": True}
    assert tree["children"][2]["value"] == {"fact": "today_gpus", "seen": None}
    assert condition_tree(TraceNode.model_validate(tree)) == [
        "✓ any of",
        "  ✓ gpus (8) < 64",
        "  ✗ not",
        "    ✓ multi_tenant (true) = true",
        "  ✗ gpus (8) > today_gpus (unknown)",
    ]


def test_the_json_report_and_the_memo_carry_the_tree(rules):
    advice = advise(load_answers(EXAMPLES / "customer-service.yaml"), rules)
    fired = advice.to_dict()["fired_rules"]
    assert all(fr["conditions"] and fr["tree"]["result"] for fr in fired)  # the flat trace stays as it was
    memo = to_markdown(advice)
    assert "### Why each rule fired" in memo
    first = advice.fired[0]
    assert f"\n{first.rule.id}\n  ✓ " in memo


# ---------------------------------------------------------------- rule tests that give facts


def test_the_shipped_facts_cases_run_without_the_estimate(rules):
    cases = [c for c in load_cases() if "facts" in c]
    assert len(cases) >= 5
    for case in cases:
        result = run_case(case, rules)
        assert result.ok and result.advice is None and result.fired, (case["note"], result.detail)


def _case_file(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "cases.yaml"
    f.write_text("cases:\n  - note: n\n" + body, encoding="utf-8")
    return f


@pytest.mark.parametrize("body, message", [
    ("    facts: {gpuss: 8}\n    expect: {fired: [k13-ddp-under-64]}\n", "unknown fact 'gpuss'; did you mean 'gpus'?"),
    ("    facts: {gpus: many}\n    expect: {}\n", "'gpus' is a number"),
    ("    facts: {multi_tenant: 1}\n    expect: {}\n", "'multi_tenant' is true or false"),
    ("    facts: {experience: expret}\n    expect: {}\n", "did you mean 'expert'?"),
    ("    facts: {gpus: 8}\n    expect: {strategy: ddp}\n", "expect.strategy: the choice decides it"),
    ("    facts: {gpus: 8}\n    answers: {model: {params: 7B}}\n    expect: {}\n", "give answers (the whole pipeline) or facts"),
    ("    facts: []\n    expect: {}\n", "expected a mapping of fact names"),
])
def test_facts_in_a_case_are_checked_against_the_vocabulary(tmp_path, body, message):
    with pytest.raises(RuleLoadError) as err:
        load_cases([_case_file(tmp_path, body)])
    assert message in err.value.msg


def test_a_facts_case_that_expects_wrongly_fails(tmp_path, rules):
    (case,) = load_cases([_case_file(tmp_path, "    facts: {gpus: 8}\n    expect: {fired: [k13-deepspeed-over-256], excluded: [ddp]}\n")])
    result = run_case(case, rules)
    assert not result.ok and "'k13-deepspeed-over-256' did not fire" in result.detail and "'ddp' is not excluded" in result.detail
