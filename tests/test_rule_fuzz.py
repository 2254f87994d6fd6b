"""Issue 11: random rule packs, valid and broken, through `rules check` and `advise --rules` — never a traceback,
never a hang: `rules check` exits 0 (no problems) or 1 (problems listed) or 2 (a file it cannot read), and `advise`
exits 0 or 2 with one stderr line; a pack `rules check` passes is one `advise` accepts."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from advisor.cli import main

ANSWERS = Path(__file__).resolve().parent.parent / "examples" / "customer-service.yaml"
FACTS = ["gpus", "params_b", "multi_node", "experience", "fits.ddp", "memory_gb.fsdp", "hours.ddp", "best_days",
         "deadline_days", "nope", "fits", "fits.nonsense"]
OPS = ["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "contains", "regex", "eval", ["eq"], None]
junk = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                 st.none(), st.booleans(), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))
values = st.one_of(st.integers(0, 10**4), st.booleans(), st.sampled_from(["expert", "some", "ampere", "x"]),
                   st.lists(st.sampled_from(["expert", "some"]), max_size=2), st.fixed_dictionaries({"fact": st.sampled_from(FACTS)}), junk)
leaf = st.fixed_dictionaries({"fact": st.sampled_from(FACTS), "op": st.sampled_from(OPS), "value": values})
condition = st.recursive(leaf, lambda inner: st.one_of(
    st.fixed_dictionaries({"all": st.lists(inner, max_size=3)}),
    st.fixed_dictionaries({"any": st.lists(inner, max_size=3)}),
    st.fixed_dictionaries({"not": inner}),
), max_leaves=6) | st.sampled_from(["always", "sometimes", None, 3])
templates = st.one_of(st.sampled_from(["plain text", "{gpus} GPUs", "{params_b:.1f}B", "{nope}", "{gpus:.999999999f}", "{gpus!r}",
                             "{memory_gb.fsdp:,.1f} GB", "{", "}", "{0}", "{gpus.__class__}", "{{literal}}"]).flatmap(
    lambda t: st.sampled_from([t, {"en": t, "zh": t}, {"en": t}, {"en": t, "zh": "{gpus}"}, {"en": t, "fr": t}])))
outcome = st.fixed_dictionaries({}, optional={
    "score": st.dictionaries(st.sampled_from(["ddp", "fsdp", "deepspeed-zero2", "megatron-3d", "tensorflow"]),
                             st.one_of(st.integers(-20, 20), st.floats(allow_nan=True, allow_infinity=True), junk), max_size=3),
    "rationale": templates, "questions": st.lists(templates, max_size=2), "checklist": st.one_of(st.lists(templates, max_size=2), junk),
    "warning": templates, "block": st.booleans(),
})
rule = st.fixed_dictionaries(
    {"id": st.one_of(st.sampled_from(["r-one", "r-two", "r-one"]), junk), "when": condition, "then": st.one_of(outcome, junk)},
    optional={"title": st.one_of(templates, junk), "source": st.one_of(st.lists(st.sampled_from(["seed:K1", "seed:K99", "doc"]), max_size=2), junk),
              "priority": st.one_of(st.integers(-5, 200), junk), "typo_key": junk},
)
packs = st.fixed_dictionaries({"pack": st.sampled_from(["fuzz", "memory"]), "rules": st.one_of(st.lists(rule, max_size=4), junk)},
                              optional={"description": junk, "extra": junk})

good_leaf = st.sampled_from([
    {"fact": "gpus", "op": "ge", "value": 64}, {"fact": "multi_node", "op": "eq", "value": True},
    {"fact": "experience", "op": "in", "value": ["none", "some"]}, {"fact": "fits.ddp", "op": "eq", "value": False},
    {"fact": "memory_gb.fsdp", "op": "gt", "value": 10}, {"fact": "params_b", "op": "lt", "value": {"fact": "gpus"}},
])
good_condition = st.recursive(good_leaf, lambda inner: st.one_of(
    st.fixed_dictionaries({"all": st.lists(inner, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"any": st.lists(inner, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"not": inner})), max_leaves=5)
good_text = st.sampled_from(["plain text", "{gpus} GPUs", "{params_b:.1f}B", "{memory_gb.fsdp:,.1f} GB", "{{literal}}"]).map(
    lambda t: {"en": t, "zh": t.replace("GPUs", "张 GPU")})
good_rule = st.builds(
    lambda i, when, score, text, qs: {"id": f"fuzz-{i}", "title": {"en": "A fuzzed rule", "zh": "模糊测试规则"}, "source": ["seed:K1"], "priority": 50,
                                      "when": when, "then": {"score": score, "rationale": text, "questions": qs}},
    st.integers(0, 10**6), good_condition,
    st.dictionaries(st.sampled_from(["ddp", "fsdp", "deepspeed-zero2", "megatron-3d"]), st.integers(-5, 5), max_size=2),
    good_text, st.lists(good_text, max_size=2))


@st.composite
def mostly_good_packs(draw):
    """A valid pack with none, one or two things broken: most inputs get past the first check."""
    rules = draw(st.lists(good_rule, min_size=1, max_size=4, unique_by=lambda r: r["id"]))
    pack = {"pack": "fuzz", "description": "fuzz", "rules": rules}
    for _ in range(draw(st.integers(0, 2))):
        r = draw(st.sampled_from(rules))
        where = draw(st.sampled_from(["when", "then", "id", "priority", "source", "title", "leaf", "typo"]))
        if where == "leaf":
            r["when"] = draw(leaf)
        elif where == "then":
            r["then"] = draw(outcome)
        elif where == "typo":
            r[draw(st.sampled_from(["wehn", "thne", "prority"]))] = r.pop(draw(st.sampled_from(["when", "then", "priority"])), 1)
        else:
            r[where] = draw(junk | condition)
    return pack


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue(), time.perf_counter() - start


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pack=packs | mostly_good_packs() | mostly_good_packs(), as_json=st.booleans())
def test_any_rule_pack_is_checked_or_refused_in_one_line(tmp_path, pack, as_json):
    d = tmp_path / "pack"
    d.mkdir(exist_ok=True)
    for old in d.iterdir():
        old.unlink()
    text = yaml.safe_dump(pack, allow_unicode=True) if not as_json else __import__("json").dumps(pack)
    (d / ("fuzz.json" if as_json else "fuzz.yaml")).write_text(text)

    code, out, err, seconds = _cli("rules", "check", str(d))
    assert code in (0, 1, 2), (code, err, text)
    assert seconds < 5 and "Traceback" not in out + err
    assert err.count("\n") == 1, (err, text)

    code2, out2, err2, seconds2 = _cli("--rules", str(d), "advise", str(ANSWERS), "--format", "json")
    assert code2 in (0, 2), (code2, err2, text)
    assert seconds2 < 5 and "Traceback" not in err2
    if code2 == 2:
        assert err2.count("\n") == 1 and err2.startswith("advisor: "), (err2, text)
    if code == 0:
        assert code2 == 0, (err2, text)  # what check passes, advise runs
    assert len(out2) < 2_000_000
    event(f"check {code}, advise {code2}")
