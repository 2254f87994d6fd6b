"""``python -m advisor``: the same program as the ``advisor`` console script (for a venv whose bin/ is not on PATH)."""

import sys

from advisor._entry import main

sys.exit(main())
