"""``python -m benchmarks.masking_eval``: the development-corpus masking benchmark (run.py)."""

import sys

from .run import main

sys.exit(main())
