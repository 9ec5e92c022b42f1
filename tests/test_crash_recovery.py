"""Crash recovery (issue #11, point 4): runs killed at chosen points leave nothing behind.

Real processes are killed with real signals: a masker's workers must die with their parent, and a
CLI run killed with SIGKILL must leave no concurrency slot, no orphan worker and no half-written
day, while SIGINT/SIGTERM stop a run cleanly.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Starts a masker with two workers, prints the worker and fork-server pids, then keeps the
#: workers busy until it is killed (or interrupted: then it prints how it stopped).
BUSY_MASKER = """
import sys, time
from multiprocessing import forkserver
from agentic_pipeline.masking.engine import AnalyzerConfig, AnalyzerPool

texts = [f"Hello, I am Ann Lee number {i} and I live at 12 Oak Street in Springfield." * 20
         for i in range(64)]
pool = AnalyzerPool(AnalyzerConfig(), n_workers=2)
try:
    pool.analyze(texts[:8], use_ner=True)
    pids = pool.worker_pids() + [forkserver._forkserver._forkserver_pid]
    print("PIDS", *pids, flush=True)
    while True:
        pool.analyze(texts, use_ner=True)
except KeyboardInterrupt:
    t0 = time.monotonic()
    pool.close()
    print(f"CLOSED {time.monotonic() - t0:.1f}", flush=True)
    sys.exit(130)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return []
        time.sleep(0.2)
    return [p for p in pids if _alive(p)]


def _start_busy_masker() -> tuple[subprocess.Popen, list[int]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", BUSY_MASKER],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line.startswith("PIDS"):
        proc.kill()
        raise AssertionError(f"masker did not start: {line}{proc.stderr.read()[-3000:]}")
    pids = [int(p) for p in line.split()[1:]]
    assert len(pids) == 3 and all(_alive(p) for p in pids)
    time.sleep(1.0)  # the workers are busy with the next batch
    return proc, pids


@pytest.mark.slow
def test_masking_workers_die_with_their_killed_parent():
    """SIGKILL the masking process mid-batch: its workers and fork server are gone within
    seconds (they used to survive for 13 minutes and more, holding ~550 MB)."""
    proc, pids = _start_busy_masker()
    try:
        proc.kill()
        proc.wait(10)
        assert _wait_gone(pids, 8.0) == []
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_interrupted_masking_stops_its_busy_workers():
    """Ctrl-C while a batch is in flight: close() kills the busy workers within its grace."""
    proc, pids = _start_busy_masker()
    try:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err[-3000:]
        assert "CLOSED" in out
        assert _wait_gone(pids[:2], 5.0) == []
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
