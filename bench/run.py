"""Benchmarks: startup, end-to-end headless advice, TUI recompute, a what-if question, rule-engine scale.

Run:  python bench/run.py      (prints one line per figure; nothing is asserted here)
Targets from the issues: headless advice <= 150 ms, TUI recompute <= 16 ms, a what-if answer <= 50 ms, 10,000 rules <= 50 ms.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "customer-service.yaml"


def _best(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3, statistics.median(times) * 1e3


def _proc(args: list[str]) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    py = sys.executable
    # Byte-compile first: with PYTHONDONTWRITEBYTECODE set (as on some CI images) every run would recompile advisor's
    # sources, which a pip-installed advisor never does.
    subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "src" / "advisor")], check=True, env={**__import__("os").environ, "PYTHONDONTWRITEBYTECODE": ""})
    best, med = _best(lambda: _proc([py, "-c", "pass"]), 5)
    print(f"python interpreter start           best {best:7.1f} ms   median {med:7.1f} ms")
    bare, med = _best(lambda: _proc([py, "-c", "import pydantic, numpy, yaml"]), 7)
    print(f"bare import pydantic, numpy, yaml  best {bare:7.1f} ms   median {med:7.1f} ms")
    base, med = _best(lambda: _proc([py, "-c", "import numpy, yaml; from pydantic import BaseModel"]), 7)
    print(f"... plus pydantic.BaseModel        best {base:7.1f} ms   median {med:7.1f} ms   ({base / bare:.2f}x bare: the floor for any pydantic model)")
    best, med = _best(lambda: _proc([py, "-m", "advisor.cli", "--version"]), 5)
    print(f"advisor --version (startup)        best {best:7.1f} ms   median {med:7.1f} ms")
    best, med = _best(lambda: _proc([py, "-m", "advisor.cli", "advise", str(EXAMPLE), "--format", "json"]), 7)
    print(f"advisor advise (process, e2e)      best {best:7.1f} ms   median {med:7.1f} ms   {best / bare:.2f}x bare import (target <= 1.3x)")

    from advisor.advice import advise
    from advisor.answers import load_answers
    from advisor.render import to_markdown
    from advisor.rules import load_rules

    t0 = time.perf_counter()
    rules = load_rules()
    print(f"load shipped rules ({len(rules.rules)} rules)         {1e3 * (time.perf_counter() - t0):7.1f} ms")
    answers = load_answers(EXAMPLE)
    best, med = _best(lambda: to_markdown(advise(answers, rules)), 20)
    print(f"advise + memo in process           best {best:7.1f} ms   median {med:7.1f} ms")
    best, med = _best(lambda: advise(answers, rules), 50)
    print(f"recompute (TUI side panel)         best {best:7.1f} ms   median {med:7.1f} ms   target <= 16 ms")

    _ask_what_if(answers, rules)
    _rule_scale(10_000)
    _sweep_scale()


def _ask_what_if(answers, rules) -> None:
    """Issue 21: one what-if question answered in process — read, one re-run of the core, the difference worded."""
    from advisor.advice import advise
    from advisor.ask import ask, load_intents
    from advisor.safeload import load_mapping

    name, draft = load_mapping(EXAMPLE)
    advice = advise(answers, rules)
    t0 = time.perf_counter()
    load_intents()
    print(f"load intents (first question)      {1e3 * (time.perf_counter() - t0):7.1f} ms")
    best, med = _best(lambda: ask("what if we get 128 GPUs?", draft, advice, rules, name), 30)
    print(f"ask: what-if answer in process     best {best:7.1f} ms   median {med:7.1f} ms   target <= 50 ms")
    best, med = _best(lambda: ask("如果截止日期是 10 天呢？", draft, advice, rules, name), 30)
    print(f"ask: 中文 what-if in process        best {best:7.1f} ms   median {med:7.1f} ms   target <= 50 ms")


def _sweep_scale() -> None:
    import numpy as np

    from advisor.answers import STRATEGIES, load_answers
    from advisor.sweep import sweep

    answers = load_answers(EXAMPLE)
    gpus = np.arange(1, 12_501, dtype=float) * 8  # 12,500 GPU counts x 8 strategies = 100,000 configurations
    best, med = _best(lambda: sweep(answers, gpus), 3)
    print(f"sweep {gpus.size * len(STRATEGIES):,} configurations     best {best:7.1f} ms   median {med:7.1f} ms   target <= 500 ms")


def _rule_scale(n: int) -> None:
    from advisor.facts import compute_facts
    from advisor.answers import load_answers
    from advisor.rules import Problems, RuleSet, parse_pack

    ops = [("gpus", "gt", 64), ("params_b", "ge", 7), ("multi_tenant", "eq", True), ("experience", "in", ["none", "some"])]
    raw = []
    for i in range(n):
        f1, o1, v1 = ops[i % 4]
        f2, o2, v2 = ops[(i + 1) % 4]
        raw.append({
            "id": f"r{i:05d}", "source": "seed:K13", "priority": 1 + i % 100,
            "when": {"any": [{"fact": f1, "op": o1, "value": v1}, {"not": {"fact": f2, "op": o2, "value": v2}}]},
            "title": {"en": f"rule {i}", "zh": f"规则 {i}"},
            "then": {"score": {"ddp": 1}, "rationale": {"en": "{gpus} GPUs", "zh": "{gpus} 张 GPU"}},
        })
    t0 = time.perf_counter()
    rules, _ = parse_pack({"rules": raw}, "bench.yaml", Problems())
    ruleset = RuleSet(rules=rules, default=None, files=["bench.yaml"])
    load_ms = 1e3 * (time.perf_counter() - t0)
    facts = compute_facts(load_answers(EXAMPLE)).facts

    def evaluate() -> int:
        fired = 0
        for rule in ruleset.rules:
            trace: list = []
            if rule.test(facts, trace):
                fired += 1
        return fired

    best, med = _best(evaluate, 10)
    print(f"rule engine: validate+compile {n:,} rules {load_ms:7.1f} ms")
    print(f"rule engine: evaluate {n:,} rules        best {best:7.1f} ms   median {med:7.1f} ms   target <= 50 ms")


if __name__ == "__main__":
    main()
