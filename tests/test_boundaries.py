"""Dependencies point UI -> core only: the core never imports Textual, and headless advice never loads it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "advisor"
CORE = [p for p in SRC.glob("*.py") if p.name not in ("cli.py",)]


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
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
