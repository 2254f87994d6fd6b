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

    from advisor.decision.advice import advise
    from advisor.inputs.answers import load_answers
    from advisor.outputs.render import to_markdown
    from advisor.knowledge.rules import load_rules

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
    _rule_pack_files(10_000, 50_000)
    _sweep_scale()


def _ask_what_if(answers, rules) -> None:
    """Issue 21: one what-if question answered in process — read, one re-run of the core, the difference worded."""
    from advisor.decision.advice import advise
    from advisor.outputs.ask import ask, load_intents
    from advisor.base.safeload import load_mapping

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

    from advisor.inputs.answers import STRATEGIES, load_answers
    from advisor.outputs.sweep import sweep

    answers = load_answers(EXAMPLE)
    gpus = np.arange(1, 12_501, dtype=float) * 8  # 12,500 GPU counts x 8 strategies = 100,000 configurations
    best, med = _best(lambda: sweep(answers, gpus), 3)
    print(f"sweep {gpus.size * len(STRATEGIES):,} configurations     best {best:7.1f} ms   median {med:7.1f} ms   target <= 500 ms")


def _rule_scale(n: int) -> None:
    from advisor.decision.facts import compute_facts
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import Problems, RuleSet, parse_pack

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


def _rule_pack_files(n: int, leaves: int) -> None:
    """Issue 19: a 10,000-rule pack written as a YAML file (1.9 MB, no anchors) was refused as an 'alias bomb' after
    6 s; so was one `any:` of 50,000 leaves. Both now load: the time to read, validate and compile each from its file,
    in process and as `advisor rules check` (a fresh process), and the evaluation of the 10,000 rules on real facts.

    Measured on the 2-core development machine, shared with other jobs (load average 5-7), 2026-12-03:
    read + validate + compile 10,000 rules from YAML ~4.7 s CPU (YAML composition 2.3 s, construction 1.9 s,
    validation 0.5 s), `advisor rules check` ~5 s; the same pack as JSON text ~0.6 s; 50,000-leaf `any:` ~4.5 s;
    evaluating the 10,000 rules ~10-20 ms (target <= 50 ms). Figures vary with the machine's load: rerun to see yours.
    """
    import shutil
    import tempfile

    from advisor.decision.facts import compute_facts
    from advisor.inputs.answers import load_answers
    from advisor.knowledge.rules import Problems, load_rules

    tmp = Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    try:
        pack = tmp / "big"
        pack.mkdir()
        (pack / "p.yaml").write_text("rules:\n" + "".join(
            f"- {{id: r-{i:05d}, title: {{en: R{i}, zh: R{i}}}, source: seed:K13, priority: {1 + i % 1000}, "
            f"when: {{all: [{{fact: gpus, op: ge, value: {i}}}]}}, then: {{score: {{ddp: 1}}}}}}\n" for i in range(n)), encoding="utf-8")
        size = (pack / "p.yaml").stat().st_size
        t0, c0 = time.perf_counter(), time.process_time()
        ruleset = load_rules([pack], Problems(), include_shipped=False)
        load_ms, cpu_ms = 1e3 * (time.perf_counter() - t0), 1e3 * (time.process_time() - c0)
        print(f"rule pack file: {len(ruleset.rules):,} rules, {size / 1e6:.1f} MB YAML, read+validate+compile {load_ms:8.1f} ms   (CPU {cpu_ms:.0f} ms)")
        check = [sys.executable, "-m", "advisor.cli", "rules", "check", str(pack)]
        best, med = _best(lambda: subprocess.run(check, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), 3)
        print(f"rule pack file: advisor rules check (process)      best {best:8.1f} ms   median {med:7.1f} ms")
        facts = compute_facts(load_answers(EXAMPLE)).facts

        def evaluate() -> int:
            return sum(1 for rule in ruleset.rules if rule.test(facts, []))

        best, med = _best(evaluate, 10)
        print(f"rule pack file: evaluate {len(ruleset.rules):,} rules               best {best:8.1f} ms   median {med:7.1f} ms   target <= 50 ms")
        wide = tmp / "wide"
        wide.mkdir()
        any_of = ", ".join(f"{{fact: gpus, op: eq, value: {i}}}" for i in range(leaves))
        (wide / "p.yaml").write_text("rules:\n- {id: r-any, title: {en: t, zh: t}, source: seed:K13, priority: 10, "
                                     f"when: {{any: [{any_of}]}}, then: {{score: {{ddp: 1}}}}}}\n", encoding="utf-8")
        t0, c0 = time.perf_counter(), time.process_time()
        load_rules([wide], Problems(), include_shipped=False)
        print(f"rule pack file: one any: of {leaves:,} leaves, read+validate+compile {1e3 * (time.perf_counter() - t0):8.1f} ms   "
              f"(CPU {1e3 * (time.process_time() - c0):.0f} ms)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
