"""Benchmarks: startup, end-to-end headless advice, TUI recompute, a what-if question, rule-engine scale.

Run:  python bench/run.py      (prints one line per figure; nothing is asserted here; a few minutes on 2 cores)
Targets from the issues: headless advice <= 150 ms, TUI recompute <= 16 ms, a what-if answer <= 50 ms, 10,000 rules <= 50 ms.
Issue 20's targets, each measured against its reference in the same run and printed as a ratio at the end:
TUI launch -> first question drawn <= 1.5x a minimal Textual app; keystroke recompute <= 16 ms; Enter -> next step
<= 100 ms; headless `advise` CPU <= 1.2x a program importing numpy and yaml and validating one constrained pydantic model
(same output); the decision search <= 100 ms at 16,384 GPUs; `sweep --gpus 8..131072` <= 1.0 s, text and json.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
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


FLOOR_AS_WORDED = ("import numpy, yaml\nfrom pydantic import BaseModel, Field\n"
                   "class M(BaseModel):\n    x: float = Field(gt=0)\nM(x=1.0)\n")
"""The floor program as issue 20 words it. numpy's import starts an OpenBLAS worker per core that spins for 50-110 ms
of CPU; advisor's cli.main keeps OpenBLAS to one thread, so against this floor advisor gains a setting the floor is
denied. Printed for reference; the target is judged against FLOOR."""
FLOOR = "import os\nos.environ.setdefault('OPENBLAS_NUM_THREADS', '1')\n" + FLOOR_AS_WORDED
"""Issue 20's floor for headless advice: numpy and yaml imported, one pydantic model with a constrained field defined and
validated — what any program on this stack pays before it does anything. It keeps OpenBLAS to one thread as advisor's
cli.main does (numpy's import otherwise starts a spinning worker per core, 50-110 ms of CPU): like for like, so the
ratio measures advisor's own work, not a setting the floor was denied."""

MINIMAL_TUI = """
import time
t0 = time.perf_counter()
from textual.app import App
from textual.widgets import Footer, Header, Input, Label
class Minimal(App):
    def compose(self):
        yield Header()
        yield Label("Step 1 of 12")
        yield Input(value="7B")
        yield Footer()
    def _display(self, screen, renderable):
        super()._display(screen, renderable)
        if renderable is not None and self.query(Label):
            print(f"{1e3 * (time.perf_counter() - t0):.1f}", flush=True)
            import os
            os._exit(0)
Minimal().run(headless=True, size=(80, 24))
"""
"""A minimal Textual app: a header, a label, an input and a footer, timed from its first import to its first frame."""

ADVISOR_TUI = """
import time
t0 = time.perf_counter()
import sys
from advisor.base.safeload import load_mapping
from advisor.knowledge.rules import load_rules
rules = load_rules()
answers, draft = None, None
if len(sys.argv) > 1:
    from advisor.inputs.answers import answers_from_mapping
    name, draft = load_mapping(sys.argv[1])
    answers = answers_from_mapping(draft, name)
from advisor.tui.app import AdvisorApp
from advisor.tui.question import QuestionScreen
shown = AdvisorApp._display
def _display(self, screen, renderable):
    shown(self, screen, renderable)
    if renderable is not None and isinstance(screen, QuestionScreen) and screen.query("#fields Input, #fields OptionList"):
        print(f"{1e3 * (time.perf_counter() - t0):.1f}", flush=True)
        import os
        os._exit(0)  # the first frame with the question written: not waiting for the estimate's worker
AdvisorApp._display = _display
AdvisorApp(rules=rules, answers=answers, draft=draft).run(headless=True, size=(80, 24))
"""
"""`advisor` (and, given a file, `advisor tui FILE`) as cli._run_tui does it — the rules, the answers file if any, the
app — timed to the first question drawn."""


def _child_cpu(args: list[str]) -> float:
    """CPU time (user + system) of one child process, in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1e3 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def _paired(first: list[str], second: list[str], n: int, measure) -> tuple[float, float]:
    """Medians of n alternating runs of two commands: paired, so a busy machine slows both alike."""
    a, b = [], []
    for _ in range(n):
        a.append(measure(first))
        b.append(measure(second))
    return statistics.median(a), statistics.median(b)


def _first_paint(args: list[str]) -> float:
    out = subprocess.run(args, check=True, capture_output=True, text=True, env={**os.environ, "TERM": "xterm-256color"})
    return float(out.stdout.strip().splitlines()[-1])


RESULTS: list[tuple[str, float, float, str]] = []
"""(what, figure, target, unit) for the closing table: a ratio's target is a ratio."""


def _target(what: str, value: float, target: float, unit: str) -> None:
    RESULTS.append((what, value, target, unit))


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
    print(f"advisor advise (process, e2e)      best {best:7.1f} ms   median {med:7.1f} ms   {best / bare:.2f}x bare import")
    advise_cmd = [py, "-m", "advisor.cli", "advise", str(EXAMPLE), "--format", "json"]
    floor_ms, advise_ms = _paired([py, "-c", FLOOR], advise_cmd, 11, _child_cpu)
    worded_ms, advise2_ms = _paired([py, "-c", FLOOR_AS_WORDED], advise_cmd, 7, _child_cpu)
    print(f"floor program (CPU)                median {floor_ms:7.1f} ms   numpy + yaml + one constrained pydantic model, one OpenBLAS thread")
    print(f"advisor advise --format json (CPU) median {advise_ms:7.1f} ms   {advise_ms / floor_ms:.2f}x the floor (target <= 1.2x)")
    print(f"  the floor as issue 20 words it   median {worded_ms:7.1f} ms   (OpenBLAS threads spinning): advise {advise2_ms / worded_ms:.2f}x it")
    _target("headless advise CPU / floor program", advise_ms / floor_ms, 1.2, "x")
    _tui_first_paint(py)

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
    from advisor.estimate import model as estimate_model

    def fresh(fn):
        """Each keystroke's recompute validates a new Answers object, so it never reuses the estimate of the last one."""
        def run():
            estimate_model._LAST = None
            return fn()
        return run

    best, med = _best(fresh(lambda: advise(answers, rules)), 50)
    print(f"recompute (TUI side panel)         best {best:7.1f} ms   median {med:7.1f} ms   target <= 16 ms")
    _target("keystroke recompute (in the worker)", med, 16.0, "ms")
    same = json.loads(subprocess.run(advise_cmd, check=True, capture_output=True, text=True).stdout) == json.loads(
        __import__("advisor.outputs.render", fromlist=["to_json"]).to_json(advise(answers, rules)))
    print(f"advise in a process and in process give the same JSON: {same}")

    _tui_steps(rules)
    _search_scale(rules)
    _ask_what_if(answers, rules)
    _rule_scale(10_000)
    _rule_pack_files(10_000, 50_000)
    _sweep_scale()
    _sweep_process(py)
    print("\nissue 20, measured in this run (ratios against a reference measured alongside):")
    for what, value, target, unit in RESULTS:
        mark = "ok " if value <= target else "MISS"
        shown = f"{value:.2f}x" if unit == "x" else f"{value:,.1f} {unit}"
        limit = f"{target:.2f}x" if unit == "x" else f"{target:,.0f} {unit}"
        print(f"  {mark} {what:<48} {shown:>10}   target <= {limit}   ({value / target:.2f} of the target)")


def _tui_first_paint(py: str) -> None:
    """Issue 20: launch to the first question drawn, against a minimal Textual app, paired runs in fresh processes."""
    minimal, ours = _paired([py, "-c", MINIMAL_TUI], [py, "-c", ADVISOR_TUI], 7, _first_paint)
    print(f"TUI: minimal Textual app, first paint    median {minimal:7.1f} ms")
    print(f"TUI: advisor, first question drawn       median {ours:7.1f} ms   {ours / minimal:.2f}x the minimal app (target <= 1.5x)")
    _target("TUI launch -> first question / minimal Textual app", ours / minimal, 1.5, "x")
    minimal, prefilled = _paired([py, "-c", MINIMAL_TUI], [py, "-c", ADVISOR_TUI, str(EXAMPLE)], 3, _first_paint)
    print(f"TUI: advisor tui EXAMPLE (file validated first) median {prefilled:7.1f} ms   {prefilled / minimal:.2f}x the minimal app")


def _tui_steps(rules) -> None:
    """Issue 20: Enter -> the next step drawn, in process at 80x24: from the key's arrival to the first frame written after
    the next step is rendered (the estimate follows in a worker). Pilot's own waits for idleness are not counted."""
    from advisor.inputs.answers import load_answers
    from advisor.tui.app import AdvisorApp
    from advisor.tui.question import QuestionScreen

    frames: list[float] = []
    rendered: list[float] = []
    shown, render = AdvisorApp._display, QuestionScreen.render_step

    def display(self, screen, renderable):
        shown(self, screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    async def render_step(self):
        await render(self)
        rendered.append(time.perf_counter())

    async def run() -> list[float]:
        app = AdvisorApp(rules=rules, answers=load_answers(EXAMPLE), cursor_blink=False)
        times = []
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            for _ in range(8):
                rendered.clear()
                t0 = time.perf_counter()
                await pilot.press("enter")
                await pilot.pause()
                after = [f for f in frames if rendered and f >= rendered[0]]
                if after:
                    times.append(1e3 * (after[0] - t0))
                await app.workers.wait_for_complete()
        return times

    AdvisorApp._display, QuestionScreen.render_step = display, render_step
    try:
        times = asyncio.run(run())
    finally:
        AdvisorApp._display, QuestionScreen.render_step = shown, render
    med = statistics.median(times)
    print(f"TUI: Enter -> next step drawn       best {min(times):7.1f} ms   median {med:7.1f} ms   target <= 100 ms")
    _target("Enter -> next step drawn", med, 100.0, "ms")


def _search_scale(rules) -> None:
    """Issue 20: the decision search at 16,384 GPUs (4,096 today, 4x): every whole-node count (2,048) priced, pruned,
    the rules run at the counts kept; in process."""
    import copy

    from advisor.base.safeload import load_mapping
    from advisor.decision.advice import advise
    from advisor.decision.search import candidate_counts as search_counts
    from advisor.inputs.answers import answers_from_mapping

    _name, raw = load_mapping(EXAMPLE)
    raw = copy.deepcopy(raw)
    raw["cluster"]["gpus"] = 4096
    a = answers_from_mapping(raw)
    from advisor.estimate import model as estimate_model

    def fresh(fn):
        def run():
            estimate_model._LAST = None  # no reuse of the previous run's estimate
            return fn()
        return run

    counts = search_counts(a)
    best, med = _best(fresh(lambda: search_counts(a)), 5)
    print(f"search: price 2,048 node counts, keep {counts.size:3d}  best {best:7.1f} ms   median {med:7.1f} ms")
    best, med = _best(fresh(lambda: advise(a, rules)), 5)
    print(f"search: advise at 16,384 GPUs        best {best:7.1f} ms   median {med:7.1f} ms   target <= 100 ms")
    _target("decision search (advise) at 16,384 GPUs", med, 100.0, "ms")


def _sweep_process(py: str) -> None:
    """Issue 20: `advisor sweep --gpus 8..131072` as a user runs it, text and json, with its peak memory against a small
    range's (peak memory should follow the points)."""
    def run(spec: str, fmt: str) -> tuple[float, float]:
        # Peak memory from /proc (VmHWM): ru_maxrss would carry this process's peak over into the child.
        code = ("import sys, time\nt0 = time.perf_counter()\nfrom advisor.cli import main\n"
                f"rc = main(['sweep', {str(EXAMPLE)!r}, '--gpus', {spec!r}, '--format', {fmt!r}])\n"
                "hwm = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
                "sys.stderr.write(f'{1e3 * (time.perf_counter() - t0):.1f} {hwm}\\n')\n")
        t0 = time.perf_counter()
        out = subprocess.run([py, "-c", code], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = 1e3 * (time.perf_counter() - t0)
        return wall, float(out.stderr.split()[-1]) / 1024.0

    for fmt in ("text", "json"):
        runs = [run("8..131072", fmt) for _ in range(3)]
        wall = statistics.median(r[0] for r in runs)
        print(f"sweep --gpus 8..131072 --format {fmt:<4} (process) median {wall:7.1f} ms   peak {runs[0][1]:6.1f} MiB   target <= 1000 ms")
        _target(f"sweep 8..131072 --format {fmt} (process)", wall, 1000.0, "ms")
    small = run("8..512", "text")
    print(f"sweep --gpus 8..512 (process)               {small[0]:7.1f} ms   peak {small[1]:6.1f} MiB")


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
    validation 0.5 s), `advisor rules check` ~5 s (2.3 s since the one-shot commands run without the cycle collector, issue 20; ~0.6 s with the pack's parse cached); the same pack as JSON text ~0.6 s; 50,000-leaf `any:` ~4.5 s;
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
