"""Running days: one in-process run per day, a progress bar, pool waits and clean stops."""

import os
import signal
import sys
import threading
import time
import uuid

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli.common import DATA_DIR_ENV, console
from cli.housekeeping import job_pools, owner_tags, pending_claims, pool_holders, release_dead_runs

#: The progress display replaces Dagster's per-event console log (the UI still has every event).
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

#: After SIGINT/SIGTERM, how long the running step has to stop (Dagster interrupts it at once; the
#: masking step kills its busy workers within 3 s) before the CLI marks the run canceled, frees
#: its slots and exits (seconds).
STOP_GRACE_SECONDS = 6.0
#: How often a run waiting for a concurrency pool checks again (seconds).
POOL_POLL_SECONDS = 1.0


class _RunStopper:
    """SIGINT/SIGTERM during ``run_days``: stop the current run cleanly, then exit 130/143.

    The handlers only record the signal; a watcher thread learns it through the signal wakeup fd
    (Dagster swaps the handlers while a run executes, the wakeup fd stays) and marks the run
    CANCELING. Dagster interrupts the running step at once (its cleanup runs: the masker kills its
    workers), but an in-process run may not end there: a run waiting for a pool slot only records
    the signal, and under load Dagster may end the step as a failure before CANCELING is
    recorded (the run is then recorded as canceled after all). So once
    the step had its grace (or at once when the run waits for a slot, or on a second signal) the
    run is marked canceled, its slots are freed and the process exits with one line. Writes are
    crash-safe (``storage``), so stopping between two steps loses nothing but the run.
    """

    def __init__(self, instance, progress: Progress) -> None:
        self.instance, self.progress = instance, progress
        self.signum: int | None = None
        self.run_id: str | None = None
        self.ds: str | None = None
        self.run_done = threading.Event()
        self.signalled = threading.Event()
        self._closing = False
        self._exit_lock = threading.Lock()

    def __enter__(self) -> "_RunStopper":
        self._active = threading.current_thread() is threading.main_thread()
        if not self._active:  # signals reach the main thread only: nothing to watch
            return self
        self._read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        self._write_fd = write_fd
        self._old_wakeup = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        self._old_handlers = {
            sig: signal.signal(sig, self._record) for sig in (signal.SIGINT, signal.SIGTERM)
        }
        self._thread = threading.Thread(target=self._watch, name="run-stopper", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing = True
        if not self._active:
            return
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(self._old_wakeup)
        os.close(self._write_fd)  # ends the watcher
        self._thread.join(2)
        os.close(self._read_fd)

    def _record(self, signum: int, frame) -> None:
        self.signum = self.signum or signum

    def start(self, run_id: str, ds: str) -> None:
        self.run_id, self.ds = run_id, ds
        self.run_done.clear()

    def finish(self) -> None:
        self.run_done.set()

    def _watch(self) -> None:
        import select

        seen = 0
        while not self._closing:
            ready, _, _ = select.select([self._read_fd], [], [], 0.5)
            if not ready:
                continue
            data = os.read(self._read_fd, 64)
            if not data:
                return
            for signum in data:
                if signum not in (signal.SIGINT, signal.SIGTERM):
                    continue
                seen += 1
                self.signum = self.signum or signum
                self.signalled.set()
                if seen == 1:
                    threading.Thread(target=self._stop_run, daemon=True).start()
                else:  # a second Ctrl-C: no more waiting
                    self.hard_stop()

    def _stop_run(self) -> None:
        run_id = self.run_id
        if run_id is None or self.run_done.is_set():
            return  # between runs: run_days stops before the next one
        run = self.instance.get_run_by_id(run_id)
        if run is not None and not run.is_finished:
            self.instance.report_run_canceling(run, f"stop requested ({self.signal_name})")
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while not self.run_done.wait(0.5):
            if time.monotonic() > deadline or self._waiting_for_slot(run_id):
                self.hard_stop()

    def _waiting_for_slot(self, run_id: str) -> bool:
        return bool(pending_claims(self.instance, run_id))

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name if self.signum else "signal"

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def release(self) -> str:
        """Cancel the current run if it is not finished and free its slots; its final status."""
        from dagster import DagsterRunStatus

        if self.run_id is None:
            return "not started"
        run = self.instance.get_run_by_id(self.run_id)
        # a run the signal stopped is canceled, also when Dagster saw the interrupt first and
        # ended the step (and the run) as a failure before CANCELING was recorded
        stopped = run is not None and (
            not run.is_finished or run.status == DagsterRunStatus.FAILURE
        )
        if stopped:
            self.instance.report_run_canceled(run, f"stopped by {self.signal_name}")
        self.instance.event_log_storage.free_concurrency_slots_for_run(self.run_id)
        run = self.instance.get_run_by_id(self.run_id)
        return run.status.value.lower() if run is not None else "unknown"

    def message(self, status: str, not_run: int | None = None) -> str:
        where = f"run {self.run_id[:8]} of {self.ds} {status}" if self.run_id else "no run started"
        rest = f", {not_run} day(s) not run" if not_run is not None else ""
        return f"stopped by {self.signal_name}: {where}{rest}"

    def hard_stop(self) -> None:
        """The run did not stop by itself: mark it canceled, free its slots, exit now."""
        if not self._exit_lock.acquire(blocking=False) or self.run_done.is_set():
            return  # the main thread ends the run (or already does)
        try:
            line = self.message(self.release())
        except Exception as exc:  # the instance is unreachable: still exit
            line = f"stopped by {self.signal_name} ({type(exc).__name__} while cleaning up)"
        self.progress.stop()
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        os._exit(self.exit_code)


def _wait_for_pools(instance, pools: set[str], stopper: _RunStopper, progress, task, label) -> bool:
    """Wait, visibly, until every pool in ``pools`` has a free slot; False when interrupted.

    Runs of dead CLI processes are released on every check, so a killed run never blocks.
    """
    announced = False
    while True:
        busy = {pool: pool_holders(instance, pool) for pool in sorted(pools)}
        busy = {pool: runs for pool, runs in busy.items() if runs}
        if busy and release_dead_runs(instance):
            continue
        if not busy:
            return True
        if stopper.signum:
            return False
        pool, holders = next(iter(busy.items()))
        text = f"{label}: waiting for the {pool} pool (held by run {holders[0][:8]})"
        progress.update(task, description=text)
        if not announced:
            progress.console.print(text)
            announced = True
        stopper.signalled.wait(POOL_POLL_SECONDS)


def _split_keys(keys) -> tuple[list, set]:
    """(asset keys, asset check keys) of a run's ``keys``."""
    from dagster import AssetCheckKey

    checks = {k for k in keys if isinstance(k, AssetCheckKey)}
    return [k for k in keys if not isinstance(k, AssetCheckKey)], checks


def checks_of(defs, asset_names) -> list:
    """The asset check keys of the assets named ``asset_names``, sorted."""
    graph = defs.resolve_asset_graph()
    names = set(asset_names)
    return sorted(
        (k for k in graph.asset_check_keys if k.asset_key.to_user_string() in names),
        key=lambda k: k.to_user_string(),
    )


def run_days(job, instance, runs: list, tags: dict[str, str], verb: str) -> list:
    """One in-process run per ``(day, keys)`` with a progress bar; step failures printed.

    ``keys`` are asset keys (each asset's checks run with it); a run whose keys hold asset check
    keys runs exactly those checks and assets (with no asset, the checks alone: after an asset's
    day was rewritten outside a run, its checks are re-run against the new data).

    Before the first run, what killed runs left behind is given back (their pool slots, their
    half-written days). A run that needs a busy pool waits visibly. SIGINT/SIGTERM stop the
    current run cleanly and exit 130/143 with one line (``_RunStopper``).
    Returns the ``ExecuteInProcessResult`` of each run, in order.
    """
    from agentic_pipeline.storage import DataRoot

    released = release_dead_runs(instance)
    if released:
        console.print(
            f"[yellow]released {len(released)} run(s) left by a killed process:[/yellow] "
            + ", ".join(r[:8] for r in released)
        )
    if os.environ.get(DATA_DIR_ENV):
        repaired = DataRoot(os.environ[DATA_DIR_ENV]).recover()
        if repaired:
            console.print(f"[yellow]repaired {len(repaired)} half-written partition(s)[/yellow]")
    tags = {**tags, **owner_tags()}
    results = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress, _RunStopper(instance, progress) as stop:
        task = progress.add_task(verb, total=len(runs))
        for ds, keys in runs:
            if stop.signum:
                break
            label = f"{verb} {ds}"
            if not _wait_for_pools(instance, job_pools(job, keys), stop, progress, task, label):
                break
            progress.update(task, description=label)
            run_id = str(uuid.uuid4())
            stop.start(run_id, ds)
            assets, checks = _split_keys(keys)
            target = (
                job.get_subset(asset_selection=set(assets), asset_check_selection=checks)
                if checks
                else job
            )
            result = target.execute_in_process(
                run_config=QUIET_RUN_CONFIG,
                instance=instance,
                partition_key=ds,
                asset_selection=assets,
                raise_on_error=False,
                run_id=run_id,
                tags=tags,
            )
            stop.finish()
            results.append(result)
            if stop.signum:
                break
            for event in result.all_events if not result.success else []:
                if event.is_step_failure:
                    from resources.retries import failure_cause

                    cause = escape(failure_cause(event.step_failure_data.error))  # one line
                    progress.console.print(f"[red]{ds} {event.step_key}: {cause}")
            progress.advance(task)
    if stop.signum and stop._exit_lock.acquire(timeout=30):
        status = stop.release()
        console.print(f"[red]{stop.message(status, len(runs) - len(results))}[/red]")
        raise SystemExit(stop.exit_code)
    return results
