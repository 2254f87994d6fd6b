"""Golden memos: the markdown decision memo for each shipped example, byte for byte.

Regenerate after an intended change with:  UPDATE_GOLDEN=1 python -m pytest tests/test_memo_golden.py
then read the diff before committing.
"""

from __future__ import annotations

import os
import re

import pytest

from advisor.decision.advice import advise
from advisor.inputs.answers import load_answers
from advisor.outputs.render import to_markdown

from .conftest import EXAMPLES

GOLDEN = EXAMPLES.parent / "tests" / "golden"
FIX = "UPDATE_GOLDEN=1 python -m pytest tests/test_memo_golden.py"


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_memo_matches_golden_file(example, rules):
    memo = to_markdown(advise(load_answers(example), rules))
    golden = GOLDEN / f"{example.stem}.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(memo)
    assert golden.exists(), f"no golden memo for {example.name}; run: {FIX}"
    assert memo == golden.read_text(), f"memo for {example.name} changed; if intended, run: {FIX}"


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_memo_has_every_section_and_well_formed_tables(example, rules):
    memo = to_markdown(advise(load_answers(example), rules))
    assert memo.index("## Executive summary") < memo.index("## Decision") < memo.index("# Engineering appendix")
    for heading in ("## Executive summary", "### Why", "## Decision", "## Context", "## Estimate", "## Options considered", "## Trade-offs",
                    "## Questions for the engineers", "## Pre-launch checklist", "## Assumptions", "## Appendix: answers"):
        assert heading in memo
    assert re.search(r"^- \[ \] ", memo, re.M), "checklist items are task-list boxes"
    for block in re.findall(r"(?:^\|.*\|\n)+", memo, re.M):
        rows = block.strip().splitlines()
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) == 1, f"ragged table:\n{block}"
