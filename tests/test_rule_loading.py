"""Rule packs are validated completely at load; errors name file, rule id and key, and suggest a fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import STRATEGIES, answers_from_mapping
from advisor.base.errors import RuleLoadError
from advisor.knowledge.rules import Problems, load_rules

from .conftest import DATA, MINIMAL

BAD = {
    "bad_unknown_operator.yaml": ["rule 'bulk-scale'", "when.all[0].op", "unknown operator 'greter_than'", "did you mean 'gt'"],
    "bad_unknown_fact.yaml": ["rule 'typo-fact'", "when.all[0].fact", "unknown fact 'gpu_count'", "did you mean"],
    "bad_value_type.yaml": ["rule 'text-for-number'", "when.all[0].value", "'gpus' is a number"],
    "bad_unknown_key.yaml": ["rule 'extra-key'", "unknown key 'priorty'", "did you mean 'priority'"],
    "bad_strategy.yaml": ["rule 'bad-strategy'", "then.score.deepspeed-zero4", "unknown strategy", "did you mean"],
    "bad_source.yaml": ["rule 'bad-source'", "source", "K1 to K21"],
    "bad_template.yaml": ["rule 'bad-template'", "then.rationale", "unknown fact '{gpu_count}'"],
    "bad_op_for_type.yaml": ["rule 'lt-on-bool'", "'lt' does not apply to bool fact 'multi_tenant'"],
    "bad_choice.yaml": ["rule 'bad-choice'", "'expret' is not a value of 'experience'", "did you mean 'expert'"],
    "bad_priority.yaml": ["rule 'bad-priority'", "priority", "whole number from 1 to 1000"],
    "bad_no_effect.yaml": ["rule 'no-effect'", "then", "has no effect"],
    "bad_exclude_without_reason.yaml": ["rule 'exclude-silent'", "then.rationale", "required with exclude"],
    "bad_duplicate_id.yaml": ["rule 'twice'", "used twice"],
    "bad_condition_shape.yaml": ["rule 'two-groups'", "exactly one of all / any / not"],
    "bad_not_a_list.yaml": ["rules: expected a list of rules"],
    "bad_yaml_duplicate_key.yaml": ["duplicate key 'title'", "line 4"],
    # an unquoted ' #5046' cut the Chinese text at a YAML comment in every report (user try 9)
    "bad_text_cut_by_comment.yaml": ["rule 'cut-text'", "then.rationale.zh", "'（' is never closed", "quote the text"],
}


def _pack(tmp_path: Path, name: str) -> Path:
    d = tmp_path / "pack"
    d.mkdir()
    shutil.copy(DATA / "rules" / name, d / name)
    return d


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_broken_rule_file_is_refused_at_load(tmp_path, name):
    d = _pack(tmp_path, name)
    with pytest.raises(RuleLoadError) as err:
        load_rules([d], include_shipped=False)
    msg = str(err.value)
    assert name in msg
    assert "\n" not in msg
    for needle in BAD[name]:
        assert needle in msg, msg


def test_every_fixture_is_covered():
    assert sorted(p.name for p in (DATA / "rules").glob("bad_*.yaml")) == sorted(BAD)


def test_collect_mode_lists_every_problem_in_every_file(tmp_path):
    d = tmp_path / "all"
    shutil.copytree(DATA / "rules", d)
    problems = Problems(collect=True)
    load_rules([d], problems, include_shipped=False)
    files_with_problems = {name for name in BAD if any(name in m for m in problems.items)}
    assert files_with_problems == set(BAD)


def test_the_shipped_rules_have_no_problems():
    problems = Problems(collect=True)
    ruleset = load_rules(problems=problems)
    assert problems.items == []
    assert len(ruleset.rules) >= 40
    assert ruleset.default is None  # the choice is the cost search; a pack may still name a default (below)


def test_a_packs_default_outcome_is_reached_when_no_rule_scores(tmp_path):
    """Issue 13: the default outcome must be reachable, not decoration: with no scoring rule it is the reason given."""
    from advisor.decision.advice import advise
    from advisor.inputs.answers import answers_from_mapping

    pack = tmp_path / "site"
    pack.mkdir()
    (pack / "site.yaml").write_text(
        "default:\n  strategy: ddp\n  rationale: {en: 'Site default: DDP unless a rule says otherwise.', zh: '本站默认：除非规则另有说明，用 DDP。'}\n"
        "  source: 'internal: platform policy'\nrules:\n  - id: site-note\n    title: {en: Site note, zh: 站点说明}\n"
        "    source: 'internal: platform policy'\n    priority: 1\n    when: always\n"
        "    then: {checklist: [{en: Book the nodes., zh: 预订节点。}]}\n", encoding="utf-8")
    rules = load_rules([pack], include_shipped=False)
    a = answers_from_mapping({"model": {"params": "1.3B"}, "training": {"tokens": "26B"}, "cluster": {"gpu": "a100-80gb", "gpus": 8},
                              "budget": {"price_per_gpu_hour": 2}})
    advice = advise(a, rules)
    assert advice.default_used and advice.strategy == "ddp"
    assert any(r["rule"] == "default" and "Site default" in r["text"] for r in advice.rationale())


def test_for_each_makes_one_rule_per_strategy_each_validated(tmp_path):
    pack = tmp_path / "each"
    pack.mkdir()
    (pack / "each.yaml").write_text(
        "rules:\n  - id: slow\n    for_each: strategy\n    title: {en: '<strategy> is slow', zh: '<strategy> 很慢'}\n"
        "    source: 'internal: test'\n    priority: 5\n    when: {fact: hours.<strategy>, op: gt, value: 1000}\n"
        "    then: {score: {<strategy>: -1}, rationale: {en: '<strategy> takes {hours.<strategy>:,.0f} h', zh: '<strategy> 需要 {hours.<strategy>:,.0f} 小时'}}\n",
        encoding="utf-8")
    rules = load_rules([pack], include_shipped=False)
    assert sorted(r.id for r in rules.rules) == sorted(f"slow-{s}" for s in STRATEGIES)
    fsdp = next(r for r in rules.rules if r.id == "slow-fsdp")
    assert fsdp.then.score == {"fsdp": -1.0} and fsdp.title.en == "fsdp is slow"
    (pack / "each.yaml").write_text((pack / "each.yaml").read_text().replace("hours.<strategy>, op", "hour.<strategy>, op"))
    problems = Problems(collect=True)
    load_rules([pack], problems, include_shipped=False)
    assert any("rule 'slow-ddp'" in p and "hour.ddp" in p for p in problems.items), problems.items
    (pack / "each.yaml").write_text((pack / "each.yaml").read_text().replace("for_each: strategy", "for_each: gpu"))
    problems = Problems(collect=True)
    load_rules([pack], problems, include_shipped=False)
    assert any("for_each" in p and "strategy" in p for p in problems.items), problems.items


def test_rules_are_ordered_by_priority_then_id(rules):
    keys = [(-r.priority, r.id) for r in rules.rules]
    assert keys == sorted(keys)


def test_an_extra_pack_adds_rules_and_overrides_by_id(tmp_path, rules):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "site.yaml").write_text(
        """
rules:
  - id: k13-ddp-under-64
    title: {en: Our site forbids DDP, zh: 本站禁用 DDP}
    source: "internal: platform policy 2026/3"
    priority: 99
    when: {all: []}
    then:
      exclude: [ddp]
      rationale: {en: "Site policy: every job runs under FSDP.", zh: "本站规定：所有作业都用 FSDP。"}
  - id: site-checklist
    title: {en: Site checklist, zh: 本站检查项}
    source: "internal: platform policy 2026/3"
    priority: 1
    when: {all: []}
    then: {checklist: [{en: "Book the cluster in the site calendar.", zh: "在站点日历中预订集群。"}]}
"""
    )
    merged = load_rules([d])
    assert len(merged.rules) == len(rules.rules) + 1
    small = dict(MINIMAL, model={"params": "1.3B"}, cluster={"gpu": "a100-80gb", "gpus": 8})
    advice = advise(answers_from_mapping(small), merged)
    assert advice.strategy != "ddp"
    assert "Site policy" in advice.why_not("ddp")[0]
    assert any("site calendar" in c["text"] for c in advice.checklist)


def test_a_missing_rules_directory_is_a_clear_error(tmp_path):
    with pytest.raises(RuleLoadError, match="no such rules directory"):
        load_rules([tmp_path / "nope"])


def test_excluding_every_fitting_strategy_is_blocked_not_misreported(tmp_path, rules):
    d = tmp_path / "strict"
    d.mkdir()
    from advisor.inputs.answers import STRATEGIES

    (d / "strict.yaml").write_text(
        "rules:\n  - id: forbid-all\n    title: {en: Forbid all, zh: 全部禁用}\n    source: 'internal: test policy'\n    priority: 1\n"
        "    when: {all: []}\n    then:\n      exclude: [" + ", ".join(STRATEGIES) + "]\n      rationale: {en: forbidden, zh: 禁用}\n"
    )
    advice = advise(answers_from_mapping(MINIMAL), load_rules([d]))
    assert advice.facts[f"fits.{advice.strategy}"]
    assert advice.warnings[0]["blocking"] and "excluded every strategy that fits" in advice.warnings[0]["text"]


# ------------------------------------------------------------------------------ the parsed-pack cache (issue 20)

CACHE_PACK = """rules:
- id: cache-a
  title: {en: A, zh: A}
  source: seed:K13
  priority: 10
  when: {all: [{fact: gpus, op: ge, value: 8}]}
  then: {score: {ddp: 1}}
"""


def _cache_pack(tmp_path: Path, text: str) -> Path:
    d = tmp_path / "pack"
    d.mkdir(exist_ok=True)
    (d / "p.yaml").write_text(text, encoding="utf-8")
    return d


def test_a_cached_pack_is_used_only_for_exactly_the_text_it_was_parsed_from(tmp_path, monkeypatch):
    """The second load reads the cache; an edit of the same size, its mtime put back, is parsed afresh (never stale)."""
    import os

    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    d = _cache_pack(tmp_path, CACHE_PACK)
    first = load_rules([d], include_shipped=False)
    assert [r.id for r in first.rules] == ["cache-a"]
    assert list((tmp_path / "cache").glob("*.marshal")), "the parsed pack is cached"
    assert [r.id for r in load_rules([d], include_shipped=False).rules] == ["cache-a"]
    st = (d / "p.yaml").stat()
    edited = CACHE_PACK.replace("cache-a", "cache-b")
    assert len(edited) == len(CACHE_PACK)
    (d / "p.yaml").write_text(edited, encoding="utf-8")
    os.utime(d / "p.yaml", ns=(st.st_atime_ns, st.st_mtime_ns))
    assert [r.id for r in load_rules([d], include_shipped=False).rules] == ["cache-b"]


def test_a_broken_or_unwritable_cache_falls_back_to_parsing(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("x", encoding="utf-8")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(blocked / "cache"))  # cannot be created: a file is in the way
    d = _cache_pack(tmp_path, CACHE_PACK)
    assert [r.id for r in load_rules([d], include_shipped=False).rules] == ["cache-a"]
    cache = tmp_path / "cache"
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(cache))
    load_rules([d], include_shipped=False)
    for entry in [*cache.glob("*.marshal"), *cache.glob("*.msgpack")]:
        entry.write_bytes(b"\x00garbage")
    assert [r.id for r in load_rules([d], include_shipped=False).rules] == ["cache-a"]


def test_a_bad_pack_is_refused_the_same_way_with_a_cache(tmp_path, monkeypatch):
    """Errors are never cached: validation runs on every load, so the second load names the same problem."""
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    d = _cache_pack(tmp_path, CACHE_PACK.replace("op: ge", "op: bogus"))
    msgs = []
    for _ in range(2):
        with pytest.raises(RuleLoadError) as err:
            load_rules([d], include_shipped=False)
        msgs.append(str(err.value))
    assert "bogus" in msgs[0] and msgs[0] == msgs[1]


def _no_validation(monkeypatch):
    from advisor.knowledge import rules as rules_module

    def refuse(*args, **kwargs):
        raise AssertionError("validated afresh")

    monkeypatch.setattr(rules_module, "parse_pack", refuse)


def test_a_validated_pack_is_kept_and_read_back_as_it_was_validated(tmp_path, monkeypatch):
    """Issue 20: a pack that validated is kept (without its compiled conditions) and the next run reads it back
    instead of validating it again: the same rules, field for field, whose conditions hold where the fresh ones do."""
    from advisor.knowledge import rules as rules_module

    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    rules_module._SHIPPED_PACKS.clear()
    fresh = load_rules()
    assert len(list((tmp_path / "cache").glob("*-pack.msgpack"))) == len(fresh.files)
    rules_module._SHIPPED_PACKS.clear()
    _no_validation(monkeypatch)
    kept = load_rules()
    without_test = lambda rs: [repr(r).split(", test=")[0] for r in rs.rules]  # noqa: E731
    assert without_test(kept) == without_test(fresh) and repr(kept.default) == repr(fresh.default)
    for facts in ({"gpus": 8}, {"gpus": 512, "params": 70e9, "deadline_days": 2}):
        assert [r.test(facts, None) for r in kept.rules] == [r.test(facts, None) for r in fresh.rules]
    rules_module._SHIPPED_PACKS.clear()


def test_a_pack_kept_by_another_validator_is_validated_again(tmp_path, monkeypatch):
    from advisor.knowledge import rules as rules_module

    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    d = _cache_pack(tmp_path, CACHE_PACK)
    load_rules([d], include_shipped=False)
    monkeypatch.setattr(rules_module, "_validator_stamp", lambda: (0,))  # the validator's code changed
    calls = []
    real = rules_module.parse_pack
    monkeypatch.setattr(rules_module, "parse_pack", lambda *a: calls.append(1) or real(*a))
    assert [r.id for r in load_rules([d], include_shipped=False).rules] == ["cache-a"] and calls == [1]


def test_a_kept_pack_read_under_another_name_names_the_file_it_was_given_as(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    d = _cache_pack(tmp_path, CACHE_PACK)
    assert load_rules([d], include_shipped=False).rules[0].file == str(d / "p.yaml")
    monkeypatch.chdir(tmp_path)
    assert load_rules([Path("pack")], include_shipped=False).rules[0].file == str(Path("pack") / "p.yaml")
