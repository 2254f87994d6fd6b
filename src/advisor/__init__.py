"""advisor: a rule-based distributed-training advisor.

The domain core (answers, catalog, estimate, rules, advice, render, io) imports no UI code;
the Textual app in ``advisor.tui`` and the CLI in ``advisor.cli`` are thin front ends over it.
"""

__version__ = "0.1.0"
