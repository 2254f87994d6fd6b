"""Issue 11: random valid and invalid answer files through the CLI — exit 0 or 2, one stderr line on 2, no traceback,
bounded time, and on 0 a JSON with no NaN/Infinity whose cost is GPU-hours x price."""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stderr, redirect_stdout

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.cli import main
from advisor.decision.report import Report
from advisor.outputs.render import to_json

GPUS = ["a100-80gb", "a100-40gb", "h100-sxm", "h800", "mi300x", "a10", "l40s", "v100-32gb", "rtx4090", "nonsense"]
numbers = st.one_of(
    st.integers(-10, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["7B", "1.3b", "70e9", "1T", "300B",
    "seven", "", "1e999", "1e-320", "0.001", " 8 ", "010", "1:30", "∞"]), st.none(), st.booleans(), st.lists(st.integers(), max_size=2),
)
plausible = st.fixed_dictionaries({
    "model": st.fixed_dictionaries({"params": st.sampled_from(["125M", "1.3B", "7B", "13B", "70B", "175B"])},
                                   optional={"seq_len": st.sampled_from([1024, 2048, 8192, 32768, "32k"]),
                                             "active_params": st.sampled_from(["1B", "13B"]),
                                             "head_dim": st.sampled_from([64, 128, 256]),
                                             "sliding_window": st.sampled_from([128, 4096]),
                                             "sliding_window_layers_pct": st.sampled_from([50, 100])}),
    "training": st.fixed_dictionaries({}, optional={"tokens": st.sampled_from(["1B", "100B", "1T"]),
                                                    "duration_days": st.sampled_from([0.5, 3, 30]),
                                                    "deadline_days": st.sampled_from([1, 2, 10]),
                                                    "current_strategy": st.sampled_from(["ddp", "fsdp", "deepspeed-zero2", "megatron-3d"]),
                                                    "global_batch_tokens": st.sampled_from(["1M", "4M"])}),
    "cluster": st.fixed_dictionaries({"gpu": st.sampled_from(GPUS[:-1]), "gpus": st.sampled_from([1, 4, 8, 16, 64, 256, 1024])},
                                     optional={"inter_node_gbps": st.sampled_from([25, 200, 1600]),
                                               "cpu_memory_gb_per_node": st.sampled_from([256, 1024])}),
    "budget": st.fixed_dictionaries({"price_per_gpu_hour": st.sampled_from([0.5, 2, 10])},
                                    optional={"limit": st.sampled_from([1000, 10**6]), "monthly_limit": st.sampled_from([10**5, 10**7])}),
})


@st.composite
def answers_files(draw):
    data = draw(plausible)
    for _ in range(draw(st.integers(0, 2))):  # break a few things
        section = draw(st.sampled_from(["model", "training", "cluster", "budget", "team", "project", "extra"]))
        key = draw(st.sampled_from(["params", "tokens", "gpus", "gpu", "price_per_gpu_hour", "seq_len", "gpus_per_node",
                                    "deadline_days", "experience", "typo_key", "str"]))
        data.setdefault(section, {})
        if isinstance(data[section], dict):
            data[section][key] = draw(numbers | st.sampled_from(GPUS))
    if draw(st.booleans()):
        return json.dumps(data, allow_nan=True)
    return yaml.safe_dump(data)


def _run(tmp_path, text):
    f = tmp_path / "a.yaml"
    f.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["advise", str(f), "--format", "json"])
    return code, out.getvalue(), err.getvalue(), time.perf_counter() - start


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=answers_files())
def test_any_answers_file_gives_advice_or_one_clean_line(tmp_path, text):
    code, out, err, seconds = _run(tmp_path, text)
    assert code in (0, 2), (code, err, text)
    assert seconds < 5, (seconds, text)
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("advisor: "), (err, text)
        return

    def refuse(constant):
        raise AssertionError(f"JSON holds {constant}: {text}")

    d = json.loads(out, parse_constant=refuse)
    # The JSON keeps to its typed contract (advisor.decision.report), byte for byte as the validated report writes it
    # (advise writes the validated model with its own encoder).
    assert to_json(Report.model_validate(d)) == out, text
    e, price = d["estimate"], d["answers"]["budget"]["price_per_gpu_hour"]
    assert abs(e["cost"] - e["gpu_hours"] * price) <= 1e-6 * max(1.0, e["cost"]), text
    assert d["recommendation"]["gpus"] >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=answers_files())
def test_any_answers_file_renders_text_and_memo_in_both_languages(tmp_path, text):
    """Issue 12: the Chinese paths (blocked plans, conflicts, warnings) render as surely as the English ones."""
    f = tmp_path / "a.yaml"
    f.write_text(text)
    for lang in ("zh", "en"):
        for fmt in ("md", "text"):
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = main(["--lang", lang, "advise", str(f), "--format", fmt])
            assert code in (0, 2) and "internal error" not in err.getvalue(), (lang, fmt, err.getvalue(), text)
            assert code == 2 or out.getvalue().strip()
