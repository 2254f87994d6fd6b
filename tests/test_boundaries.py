"""Dependencies point UI -> core only, and each stage of the pipeline imports only the stages below it.

The core never imports Textual, headless advice never loads it, and the layer contract in pyproject.toml
(``[tool.importlinter]``) holds: checked here with import-linter's own engine when it is installed (CI installs it).
"""

from __future__ import annotations

import ast
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
        "from advisor.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['advise', {str(SRC.parents[1] / 'examples' / 'customer-service.yaml')!r}, '--format', 'md']) == 0\n"
        "bad = [m for m in sys.modules if m.startswith(('textual', 'rich', 'advisor.tui'))]\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_stages_import_only_downward():
    """import-linter's layer contract (pyproject.toml): e.g. the estimate never imports the decision or a renderer."""
    pytest.importorskip("importlinter")
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"],
        capture_output=True, text=True, timeout=120, cwd=SRC.parents[1],
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout
