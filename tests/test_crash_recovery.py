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
#: workers busy until it is killed (or interrupted: then it prints how it stopped). Ctrl-C raises
#: KeyboardInterrupt here whatever the suite was started from: a process started with SIGINT
#: ignored (a background job of a non-interactive shell: ``make test &``, ``nohup``, some CI
#: runners) passes that to its children, and Python then installs no handler, so the SIGINT of
#: the test did nothing and the test timed out (the fresh-clone failures after 2e9d97f).
BUSY_MASKER = """
import signal, sys, time
from multiprocessing import forkserver
from agentic_pipeline.masking.engine import AnalyzerConfig
from agentic_pipeline.masking.pool import AnalyzerPool

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, not inherited

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


#: Starts a two-worker pool in the background and prints the fork server's and the resource
#: tracker's pids as soon as they exist: the fork server is then still importing spaCy and
#: Presidio for the workers, and no worker has started.
STARTING_MASKER = """
import time
from multiprocessing import forkserver, resource_tracker
from agentic_pipeline.masking.engine import AnalyzerConfig
from agentic_pipeline.masking.pool import AnalyzerPool

pool = AnalyzerPool(AnalyzerConfig(), n_workers=2)
pool.start()
while forkserver._forkserver._forkserver_pid is None:
    time.sleep(0.01)
print("PIDS", forkserver._forkserver._forkserver_pid, resource_tracker._resource_tracker._pid,
      flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _described(pids: list[int]) -> dict[int, str]:
    """The command lines of the processes of ``pids`` still running (for failure messages)."""
    out = {}
    for pid in pids:
        if _alive(pid):
            try:
                with open(f"/proc/{pid}/cmdline") as fh:
                    out[pid] = fh.read().replace("\0", " ")[:200]
            except FileNotFoundError:
                continue
    return out


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
def test_a_fork_server_still_importing_dies_with_its_killed_parent():
    """SIGKILL the pool's owner while its fork server is still importing the analyzers (maybe
    before it has imported the guard: it then knows its owner from the environment, not as its
    parent): the fork server and the resource tracker are gone within seconds (they used to run
    on until the imports were over, 7-8 s here and longer on a loaded machine)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTING_MASKER], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    pids: list[int] = []
    try:
        line = proc.stdout.readline()
        assert line.startswith("PIDS"), line
        pids = [int(p) for p in line.split()[1:]]
        assert all(_alive(p) for p in pids)
        proc.kill()
        proc.wait(10)
        assert _wait_gone(pids, 5.0) == [], _described(pids)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _described(pids):
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


# --- the CLI: runs killed, interrupted or waiting ------------------------------------------

DAY = "2026-11-20"
CLI = [sys.executable, "-m", "cli"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DAGSTER_")}
    env.pop("AGENTIC_PIPELINE_MASKING_KEY", None)
    env.update(
        AGENTIC_PIPELINE_DATA_DIR=str(data_dir),
        AGENTIC_PIPELINE_DEV_MODE="1",
        PYTHONWARNINGS="ignore",
        COLUMNS="200",
    )
    return env


def _simulate(data_dir: Path, episodes: int) -> Path:
    subprocess.run(
        [*CLI, "simulate", "--start", DAY, "--days", "1", "--episodes-per-day", str(episodes)],
        cwd=REPO,
        env=_env(data_dir),
        check=True,
        capture_output=True,
        timeout=120,
    )
    return data_dir


@pytest.fixture
def simulated_day(tmp_path) -> Path:
    return _simulate(tmp_path / "data", 5)


@pytest.fixture
def busy_day(tmp_path) -> Path:
    """A day whose masking outlasts the seconds a test waits before it signals the CLI (five
    episodes were sometimes masked, and the run finished, before a SIGTERM 2 s in arrived)."""
    return _simulate(tmp_path / "data", 300)


def _instance(data_dir: Path):
    from dagster import DagsterInstance
    from dagster._core.instance.ref import InstanceRef

    return DagsterInstance.from_ref(InstanceRef.from_dir(str(data_dir / "dagster_home")))


def _materialize(data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*CLI, "materialize", "--start", DAY],
        cwd=REPO,
        env=_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _masking_holders(instance) -> list[str]:
    return [
        slot.run_id
        for slot in instance.event_log_storage.get_concurrency_info("masking").claimed_slots
    ]


def _wait_for_masking_slot(instance, proc: subprocess.Popen, seconds: float = 180) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        holders = _masking_holders(instance)
        if holders:
            return holders[0]
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before masking: {proc.stderr.read()[-3000:]}")
        time.sleep(0.2)
    raise AssertionError("masking never started")


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _leftovers(data_dir: Path) -> list[str]:
    marks = (".tmp-", ".ready-", ".trash-", ".deleted-")
    return [str(p) for p in data_dir.rglob("*") if p.is_dir() and any(m in p.name for m in marks)]


@pytest.mark.slow
def test_cli_killed_during_masking_leaves_nothing_held(simulated_day):
    """SIGKILL the CLI mid-masking: its workers die, and the next run frees the dead run's
    slot (the old CLI waited for it silently for ever), marks it failed and succeeds."""
    from dagster import DagsterRunStatus

    from agentic_pipeline.storage import DataRoot

    instance = _instance(simulated_day)
    first = _materialize(simulated_day)
    try:
        run_id = _wait_for_masking_slot(instance, first)
        deadline = time.monotonic() + 20  # let the masker start its worker processes
        while len(_descendants(first.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = _descendants(first.pid)
        assert workers, "the masking step started no worker process"
        first.kill()
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    # the broken state the kill leaves: the dead run holds the only masking slot
    assert _masking_holders(instance) == [run_id]
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.STARTED
    assert _wait_gone(workers, 10.0) == [], f"outlived the killed CLI: {_described(workers)}"

    second = _materialize(simulated_day)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, out[-2000:] + err[-3000:]
    assert "released 1 run(s) left by a killed process" in out
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE
    assert _masking_holders(instance) == []
    assert _leftovers(simulated_day) == []
    root = DataRoot(simulated_day)
    assert root.read_partition("warehouse", "masked_trajectories", DAY).num_rows > 0


@pytest.mark.slow
def test_cli_stops_cleanly_on_sigterm_during_masking(busy_day):
    """SIGTERM mid-masking: the run is canceled in the instance, its slot freed, its workers
    stopped; the CLI exits 143 with one line (the old CLI ran on, or hung in a slot wait)."""
    from dagster import DagsterRunStatus

    instance = _instance(busy_day)
    proc = _materialize(busy_day)
    try:
        run_id = _wait_for_masking_slot(instance, proc)
        time.sleep(2)
        workers = _descendants(proc.pid)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, out[-2000:] + err[-3000:]
    assert elapsed < 20
    lines = [line for line in out.splitlines() if line.startswith("stopped by")]
    assert lines == [f"stopped by SIGTERM: run {run_id[:8]} of {DAY} canceled"] or lines == [
        f"stopped by SIGTERM: run {run_id[:8]} of {DAY} canceled, 0 day(s) not run"
    ], out[-2000:]
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.CANCELED
    assert _masking_holders(instance) == []
    assert _wait_gone(workers, 10.0) == []


def _fake_holder(instance, owner_pid: int) -> str:
    """A STARTED run owned by ``owner_pid`` on this host that holds the masking slot."""
    import socket
    import uuid

    from dagster import DagsterRun, DagsterRunStatus

    from agentic_pipeline.processes import process_start
    from cli.housekeeping import HOST_TAG, PID_START_TAG, PID_TAG

    run_id = str(uuid.uuid4())
    tags = {
        PID_TAG: str(owner_pid),
        PID_START_TAG: process_start(owner_pid) or "",
        HOST_TAG: socket.gethostname(),
    }
    instance.add_run(
        DagsterRun(
            job_name="daily_pipeline", run_id=run_id, status=DagsterRunStatus.STARTED, tags=tags
        )
    )
    storage = instance.event_log_storage
    storage.initialize_concurrency_limit_to_default("masking")
    assert storage.claim_concurrency_slot("masking", run_id, "masked_trajectories").is_claimed
    return run_id


def test_release_dead_runs_frees_the_slot_of_a_dead_owner_only(tmp_path):
    from dagster import DagsterRunStatus

    from cli.common import prepare_data_root
    from cli.housekeeping import release_dead_runs

    data_dir = tmp_path / "data"
    prepare_data_root(str(data_dir))
    instance = _instance(data_dir)
    live = _fake_holder(instance, os.getpid())
    assert release_dead_runs(instance) == []  # its owner (this process) runs
    assert _masking_holders(instance) == [live]

    instance.event_log_storage.free_concurrency_slots_for_run(live)
    dead_owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    dead = _fake_holder(instance, dead_owner.pid)
    dead_owner.kill()  # not reaped yet: a zombie must count as dead
    assert _wait_gone([dead_owner.pid], 5.0) == []
    assert release_dead_runs(instance) == [dead]
    dead_owner.wait()
    assert instance.get_run_by_id(dead).status == DagsterRunStatus.FAILURE
    assert _masking_holders(instance) == []


@pytest.mark.slow
def test_cli_waiting_for_a_busy_pool_says_so_and_stops_on_sigint(simulated_day):
    """A live run holds the masking slot: the CLI shows it waits (and for which run) and
    Ctrl-C stops it at once with one line (the old CLI hung silently and ignored it)."""
    from cli.common import prepare_data_root

    prepare_data_root(str(simulated_day))
    instance = _instance(simulated_day)
    holder = _fake_holder(instance, os.getpid())
    proc = _materialize(simulated_day)
    try:
        seen = ""
        deadline = time.monotonic() + 180
        while "waiting for the masking pool" not in seen and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
        assert f"waiting for the masking pool (held by run {holder[:8]})" in seen, seen[-2000:]
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out[-2000:] + err[-3000:]
    assert [ln for ln in out.splitlines() if ln.startswith("stopped by")] == [
        "stopped by SIGINT: no run started, 1 day(s) not run"
    ]
    assert _masking_holders(instance) == [holder]  # the live holder keeps its slot


def test_a_run_marked_failed_by_hand_gives_its_slot_back(tmp_path):
    """Marking a dead run failed (UI, instance) used to leave its slot held for ever."""
    from cli.common import prepare_data_root
    from cli.housekeeping import release_dead_runs

    data_dir = tmp_path / "data"
    prepare_data_root(str(data_dir))
    instance = _instance(data_dir)
    run_id = _fake_holder(instance, os.getpid())  # its owner is alive: only the status says done
    instance.report_run_failed(instance.get_run_by_id(run_id), "marked failed by hand")
    assert _masking_holders(instance) == [run_id]
    assert release_dead_runs(instance) == [run_id]
    assert _masking_holders(instance) == []
