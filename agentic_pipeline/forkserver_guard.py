"""Preloaded first into the analysis pool's fork server (``masking/pool.py``): from then on the fork
server dies with the process that started it.

The fork server leaves by itself only when it reads the end of its "alive" pipe, which it does
between requests, so not while it is still importing spaCy and Presidio for the workers. A run
killed during those seconds (more on a loaded machine) left the fork server and the
multiprocessing resource tracker running on after it. The owner is named in the environment
(``OWNER_ENV``, pid and start time) rather than read as the parent: an owner killed before this
module is imported has already handed its fork server to another parent. Importing this module
anywhere else does nothing: it acts only in a process started as a fork server.
"""

import os
import sys

from agentic_pipeline.processes import die_with_parent, process_start

#: How often the fork server checks its owner (seconds): it costs one ``/proc`` read.
EVERY_SECONDS = 0.2
#: The environment variable naming the pool's owner, ``<pid>:<start>`` (``name_owner``).
OWNER_ENV = "AGENTIC_PIPELINE_FORKSERVER_OWNER"


def name_owner() -> None:
    """Name this process the owner of the fork server it starts next (before it starts one)."""
    os.environ[OWNER_ENV] = f"{os.getpid()}:{process_start(os.getpid()) or ''}"


def in_fork_server() -> bool:
    """True in a process started by ``multiprocessing`` as its fork server (``python -c``)."""
    return sys.argv[:1] == ["-c"] and "multiprocessing.forkserver" in sys.modules


if in_fork_server():
    _pid, _, _start = os.environ.get(OWNER_ENV, "").partition(":")
    die_with_parent(int(_pid) if _pid.isdigit() else None, _start or None, every=EVERY_SECONDS)
