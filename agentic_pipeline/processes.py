"""Is a process still running? (used to find runs and workers whose owner died).

A pid alone is not enough: a killed process stays a zombie until its parent reaps it, and a pid
is reused after that. So a process is identified by its pid *and* its start time, read from
``/proc/<pid>/stat`` on Linux; elsewhere only ``kill(pid, 0)`` is available.
"""

import os
import signal
import sys
import threading
import time


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return text.rsplit(")", 1)[1].split()  # fields after the command name (it may hold spaces)


def process_start(pid: int) -> str | None:
    """An opaque start stamp of ``pid`` (clock ticks since boot on Linux), None if unknown."""
    if not sys.platform.startswith("linux"):
        return None
    fields = _stat_fields(pid)
    return fields[19] if fields else None  # field 22 of proc(5): starttime


def process_alive(pid: int, start: str | None = None) -> bool:
    """True while ``pid`` runs (a zombie counts as dead; with ``start``, a reused pid too)."""
    if pid <= 0:
        return False
    if sys.platform.startswith("linux"):
        fields = _stat_fields(pid)
        if fields is None or fields[0] in ("Z", "X"):
            return False
        return start is None or fields[19] == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def die_with_parent(
    owner: int | None = None, owner_start: str | None = None, every: float = 1.0
) -> None:
    """Kill this process (SIGKILL) once its parent is gone or ``owner`` has ended.

    A daemon thread compares the parent pid with the one seen now (an orphan is re-parented) and
    checks ``owner`` every ``every`` seconds; it works whatever thread started this process, which
    the kernel's ``PR_SET_PDEATHSIG`` does not (it fires when the *thread* that forked exits).
    """
    parent = os.getppid()

    def watchdog() -> None:
        while True:
            if os.getppid() != parent or (owner and not process_alive(owner, owner_start)):
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(every)

    threading.Thread(target=watchdog, name="parent-watchdog", daemon=True).start()
