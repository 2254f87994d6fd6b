"""The choice's policy: the thresholds that decide when one option is worth more than another, each stated once.

None is a published figure: they are advisor's resolution and taste, set against the estimate's own uncertainty (its
MFU bands span about ±20%), and every sentence that states one reads it from here (tests/test_i18n.py fails on a
literal that restates them). ``decide`` applies them; ``search`` prunes with them; ``explain`` words them.
"""

from __future__ import annotations

COST_TIE = 0.05
"""Costs within 5% are treated as equal: below the model's resolution (its own MFU bands span ±20%), so they never
justify a change of framework or GPU count. advisor's policy, not a published figure."""

SAME_FIGURE = 0.0005
"""Two costs (or times) within 0.05% of each other read the same at the precision advisor prints them (four figures):
neither is named as the lower one (advisor's convention, not a published figure)."""

CHEAPER_WORTH_SAYING = 0.10
"""A cheaper-but-slower option is reported as a trade-off only past a 10% saving (advisor's policy)."""

CHEAPER_SLOWER_STRETCH = 2.0
"""A cheaper-but-slower option is a trade a PM would weigh only while it takes at most twice the plan's time and does
not give up a deadline the plan meets: '8 GPUs, 3,288.6 days instead of 30.8' is not a trade but a different project
(advisor's policy; issue 23)."""

FASTER_WORTH_SAYING = 0.10
"""A faster option at about the same cost (within COST_TIE) is named only past a 10% shorter run (advisor's policy)."""

SWITCH_MIN_GAIN = COST_TIE
"""What an option that is cheaper and no slower (or faster for no more) must gain, in cost or in time, before the choice
moves to it from the option its objective picked: 5%, the same resolution as COST_TIE (below it the estimate cannot
tell the two apart, so a switch of framework or GPU count for less would buy a difference the model cannot see).
advisor's policy, not a published figure."""

SEARCH_GROWTH = 4
"""Without cluster.max_gpus, a deadline may look up to 4x today's GPUs — the range of the memo's what-if table."""
