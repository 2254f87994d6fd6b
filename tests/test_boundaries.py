"""Dependencies point UI -> core only, and each stage of the pipeline imports only the stages below it.

The core never imports Textual, headless advice never loads it, and the layer contract in pyproject.toml
(``[tool.importlinter]``) holds: checked here with import-linter's own engine when it is installed (CI installs it).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "advisor"
CORE_STAGES = ("base", "knowledge", "inputs", "estimate", "decision", "outputs")
CORE = sorted(p for stage in CORE_STAGES for p in (SRC / stage).rglob("*.py"))


def test_the_core_stages_hold_every_module():
    """A module dropped at the top of the package escapes the layer contract: only the entry points live there."""
    assert sorted(p.name for p in SRC.glob("*.py")) == ["__init__.py", "__main__.py", "_entry.py", "cli.py"]
    assert len(CORE) > 30


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(SRC)))
def test_core_modules_import_no_ui(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
            if node.level and (node.module or "").startswith("tui"):
                names = ["advisor.tui"]
        for name in names:
            assert not name.startswith(("textual", "rich", "advisor.tui")), f"{path.name} imports {name}"


def test_headless_advice_does_not_load_textual():
    code = (
        "import sys, io, contextlib\n"
        "from advisor.cli import main, tune_process\n"
        "tune_process()  # as the console script does (advisor._entry)\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['advise', {str(SRC.parents[1] / 'examples' / 'customer-service.yaml')!r}, '--format', 'md']) == 0\n"
        "bad = [m for m in sys.modules if m.startswith(('textual', 'rich', 'advisor.tui', 'importlib.metadata'))]\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


HEAVY = ("numpy", "pydantic", "yaml", "importlib.metadata", "textual_plotext", "markdown_it", "advisor.estimate",
         "advisor.decision", "advisor.outputs.render", "advisor.outputs.ask", "advisor.inputs.answers", "advisor.knowledge.catalog")
"""What neither `advisor --version` nor the guided Q&A's first question needs (issue 20: the estimate, the answers model
and the YAML reader load after the first paint)."""

FIRST_PAINT = """
import json, os, sys
HEAVY = {heavy!r}
def heavy():
    # (a module without a file is advisor.cli's stand-in for pydantic's plugin loader, not pydantic)
    return sorted({{m.split(".")[0] if not m.startswith("advisor") else m for m, mod in list(sys.modules.items())
                    if m.startswith(HEAVY) and getattr(mod, "__file__", None)}})
from advisor.cli import main, tune_process
tune_process()  # as the console script does (advisor._entry)
try:
    main(["--version"])
except SystemExit:
    pass
seen = {{"version": heavy()}}
from advisor.knowledge.rules import load_rules
from advisor.tui.app import AdvisorApp
from advisor.tui.question import QuestionScreen
shown = AdvisorApp._display
def _display(self, screen, renderable):
    shown(self, screen, renderable)
    if renderable is not None and isinstance(screen, QuestionScreen) and screen.query("#fields Input, #fields OptionList"):
        seen["first question"] = heavy()
        print(json.dumps(seen), flush=True)
        os._exit(0)
AdvisorApp._display = _display
AdvisorApp(rules=load_rules()).run(headless=True, size=(80, 24))
"""


def test_version_and_the_first_question_load_nothing_heavy():
    """`advisor --version`, then the guided Q&A up to its first question drawn (as `advisor` opens it: the rules, then
    the app), in one fresh process: no numpy, pydantic, YAML reader or estimate yet. The parsed-file cache is warmed
    first, as any earlier run leaves it (a cold cache reads the shipped YAML once)."""
    from advisor.base.safeload import parse_trusted_cached
    from advisor.knowledge.rules import load_rules

    load_rules()
    parse_trusted_cached(SRC / "data" / "gpus.yaml")
    proc = subprocess.run([sys.executable, "-c", FIRST_PAINT.format(heavy=HEAVY)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"version": [], "first question": []}


def test_stages_import_only_downward():
    """import-linter's layer contract (pyproject.toml): e.g. the estimate never imports the decision or a renderer."""
    pytest.importorskip("importlinter")
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"],
        capture_output=True, text=True, timeout=120, cwd=SRC.parents[1],
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


TUI_SCREENS = sorted(p for p in (SRC / "tui").glob("*.py") if p.name not in ("app.py", "__init__.py"))


@pytest.mark.parametrize("path", TUI_SCREENS, ids=lambda p: p.name)
def test_screens_neither_import_the_app_nor_assign_its_state(path):
    """Issue 23 item 7: screens send messages up (advisor.tui.messages) and read the session through advisor.tui.state;
    the import circle app <-> question <-> results is gone, and no screen writes ``self.app.x = ...``."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module != "advisor.tui.app", f"{path.name} imports the app"
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                text = ast.unparse(target)
                assert not text.startswith(("self.app.", "app.", "self.state.", "state.")), f"{path.name}: {text} = ..."


def test_the_first_question_needs_neither_numpy_nor_the_core():
    """Issue 20: launch to the first question drawn was 2.7x a minimal Textual app; numpy, the estimate, the report
    models, the plots and markdown now load after the first paint (the estimate warms up in a worker)."""
    code = (
        "import sys\n"
        "import advisor.tui.app\n"
        "heavy = ('numpy', 'markdown_it', 'textual_plotext', 'advisor.decision', 'advisor.estimate', 'advisor.outputs.render',"
        " 'advisor.tui.results')\n"
        "bad = sorted(m for m in sys.modules if m.startswith(heavy))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_records_are_structs_not_dataclasses():
    """Issue 20: on Python 3.11 each dataclass costs ~1 ms of generated-code exec when its module is imported (28 on
    the path of one `advise`: a tenth of its CPU beyond the libraries); a msgspec Struct is defined in microseconds.
    Textual's messages (tui/messages.py) stay dataclasses, as Textual defines them."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "messages.py" and path.parent.name == "tui":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert not found, found
