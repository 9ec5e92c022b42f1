"""Preloaded first into the analysis pool's fork server (``masking/pool.py``): from then on the fork
server dies with the process that started it.

The fork server leaves by itself only when it reads the end of its "alive" pipe, which it does
between requests, so not while it is still importing spaCy and Presidio for the workers. A run
killed during those seconds (more on a loaded machine) left the fork server and the
multiprocessing resource tracker running on after it. The owner is named in the environment
(``OWNER_ENV``, pid and start time) rather than read as the parent: an owner killed before this
module is imported has already handed its fork server to another parent. Importing this module
anywhere else does nothing: it acts only while the fork server imports it.
"""

import os
import sys

from agentic_pipeline.processes import die_with_parent, process_alive, process_start

#: How often the fork server checks its owner (seconds): it costs one ``/proc`` read.
EVERY_SECONDS = 0.2
#: The environment variable naming the pool's owner, ``<pid>:<start>`` (``name_owner``).
OWNER_ENV = "AGENTIC_PIPELINE_FORKSERVER_OWNER"


def name_owner() -> None:
    """Name this process the owner of the fork server it starts next (before it starts one)."""
    os.environ[OWNER_ENV] = f"{os.getpid()}:{process_start(os.getpid()) or ''}"


def in_fork_server() -> bool:
    """True while ``multiprocessing``'s fork server imports its preloaded modules (this one is
    then imported from ``multiprocessing.forkserver.main``)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if (
            code.co_name == "main"
            and frame.f_globals.get("__name__") == "multiprocessing.forkserver"
        ):
            return True
        frame = frame.f_back
    return False


def owner() -> tuple[int | None, str | None]:
    """The owner named in the environment when it is this process's parent (it started this fork
    server) or already gone (killed before this import); otherwise (a value inherited from some
    other process) none: the parent alone is then watched."""
    pid, _, start = os.environ.get(OWNER_ENV, "").partition(":")
    if not pid.isdigit():
        return None, None
    if int(pid) == os.getppid() or not process_alive(int(pid), start or None):
        return int(pid), start or None
    return None, None


if in_fork_server():
    die_with_parent(*owner(), every=EVERY_SECONDS)
