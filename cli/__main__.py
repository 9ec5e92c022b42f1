"""``python -m cli``: the same as the ``agentic-pipeline`` script."""

import sys

from cli.main import main

sys.exit(main())
