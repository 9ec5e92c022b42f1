"""Preloaded first into the analysis pool's fork server (``masking/pool.py``): from then on the fork
server dies with the process that started it.

The fork server leaves by itself only when it reads the end of its "alive" pipe, which it does
between requests, so not while it is still importing spaCy and Presidio for the workers. A run
killed during those seconds (more on a loaded machine) left the fork server and the
multiprocessing resource tracker running on after it. Importing this module anywhere else does
nothing: it acts only in a process started as a fork server.
"""

import sys

from agentic_pipeline.processes import die_with_parent

#: How often the fork server checks its parent (seconds): it costs one ``getppid`` call.
EVERY_SECONDS = 0.2


def in_fork_server() -> bool:
    """True in a process started by ``multiprocessing`` as its fork server (``python -c``)."""
    return sys.argv[:1] == ["-c"] and "multiprocessing.forkserver" in sys.modules


if in_fork_server():
    die_with_parent(every=EVERY_SECONDS)
