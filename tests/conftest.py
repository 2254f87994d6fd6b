"""Shared fixtures: the shipped rules (loaded once) and a minimal valid answers mapping."""

from __future__ import annotations

import contextlib
import contextvars
import copy
import gc
import io
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from advisor.knowledge.rules import RuleSet, load_rules

# Reports carry the date they were made (the memo's "Prepared" line): the tests pin it, as reproducible builds do, so
# golden memos do not change with the calendar. Subprocesses inherit it.
os.environ["SOURCE_DATE_EPOCH"] = "1796083200"  # 2026-12-01
os.environ.setdefault("ADVISOR_CACHE_DIR", str(Path(tempfile.gettempdir()) / "advisor-test-cache"))
"""Parsed rule packs are cached per user (issue 20): the tests keep theirs apart from the developer's."""

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DATA = Path(__file__).parent / "data"

MINIMAL: dict[str, Any] = {
    "model": {"params": "7B"},
    "training": {"tokens": "1T"},
    "cluster": {"gpu": "a100-80gb", "gpus": 64},
    "budget": {"price_per_gpu_hour": 2},
}


HEAVY = (
    "test_any_answers_file_gives_advice_or_one_clean_line",  # 2,000 random answer files
    "test_any_rule_pack_is_checked_or_refused_in_one_line",  # 1,000 random rule packs
    "test_any_answers_file_renders_text_and_memo_in_both_languages",
    "test_any_plan_writes_files_that_run_it",  # 500 random plans' launch files
    "test_every_field_of_every_step_is_on_screen_when_focused",  # every field of every step, at three sizes
    "test_megatron_core_accepts_every_megatron_layout",
    "test_launch_sh_runs_a_few_steps_on_cpu",  # issue 31: five torchrun launches, 2 CPU processes each (~10 s CPU apiece)
    "test_a_ten_thousand_rule_pack_loads",
)
"""The longest tests, ~30-45 s of CPU each: they run first, so that under pytest-xdist each worker starts on one while
the others share out the many short ones, instead of one worker finishing them alone at the end (issue 19)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the garbage collector off what collection loaded, and let it run less often: the modules, rules and Textual
    classes loaded by then live to the end, and the default threshold (700 allocations) re-scans them thousands of times
    while the property and TUI tests allocate. Measured on tests/test_properties.py + tests/test_tui.py in one process:
    45.6 s of CPU before, 35.3 s after (two runs each). Nothing a test asserts depends on when garbage is collected."""
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` starts two workers per core: the TUI tests spend about a third of their wall time waiting on Textual's
    timers and workers (measured: 82 s wall for 56 s CPU in test_tui_trust.py), and a second worker per core fills that
    wait. On two cores the suite took 3 min 50 s with two workers, 3 min 5 s with four."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def weight(item: pytest.Item) -> int:
        name = getattr(item, "originalname", item.name)
        return HEAVY.index(name) if name in HEAVY else len(HEAVY)

    items.sort(key=weight)  # longest first, in HEAVY's order; stable: the rest as collected


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`advisor ARGS` in this process: the exit code, stdout and stderr a subprocess would give, without starting Python
    and importing the package again (~0.5 s a call, the suite's time budget). The language set by --lang and the
    environment given do not leak into the next test. Tests of the process itself (closed stdin, a full stdout,
    Ctrl+C during imports) keep real subprocesses."""
    from advisor.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = contextvars.copy_context().run(main, list(args))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def rules() -> RuleSet:
    return load_rules()


@pytest.fixture
def minimal() -> dict[str, Any]:
    return copy.deepcopy(MINIMAL)


def with_(base: dict[str, Any], **sections: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` with the given section keys replaced (None deletes a key)."""
    out = copy.deepcopy(base)
    for section, values in sections.items():
        sec = out.setdefault(section, {})
        for k, v in values.items():
            if v is None:
                sec.pop(k, None)
            else:
                sec[k] = v
    return out


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path, monkeypatch):
    """The Q&A remembers its theme in a settings file: keep every test's in its own directory."""
    monkeypatch.setenv("ADVISOR_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def _english_unless_asked(monkeypatch):
    """Tests read English output unless they ask for another language: a developer's zh_CN locale must not change them."""
    from advisor.base.i18n import set_language

    monkeypatch.setenv("ADVISOR_LANG", "en")
    set_language("en")
    yield
    set_language("en")
