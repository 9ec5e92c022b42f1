"""``agentic-pipeline``: the project's command line (DESIGN.md §7).

Every command takes ``--data-dir`` (default ``AGENTIC_PIPELINE_DATA_DIR``, else ``./data``).
``materialize`` runs in-process Dagster runs recorded in the instance under
``<data root>/dagster_home``, the same instance ``make dev`` shows.
"""

import argparse
import os
import signal
import sys
import threading
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from agentic_pipeline.storage import day_range

DATA_DIR_ENV = "AGENTIC_PIPELINE_DATA_DIR"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
DAGSTER_YAML = """\
# Local instance for the CLI and `make dev` (README "Operating it" has the production profile).
telemetry:
  enabled: false
# at most one masking step (Presidio + spaCy workers) at a time across all runs
concurrency:
  pools:
    default_limit: 1
"""

#: Runs launched by the UI carry this label of their code location; the CLI's in-process runs get
#: it too, so the UI lists them under the daily_pipeline job and on the overview timeline.
LOCATION_TAGS = {".dagster/repository": "__repository__@agentic_pipeline"}

#: The progress display replaces Dagster's per-event console log (the UI still has every event).
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

console = Console(stderr=False)


class UsageError(Exception):
    """A bad command line: printed without a traceback, exit code 2."""


def _parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _days(start: date, end: date) -> list[str]:
    try:
        return day_range(start, end)
    except ValueError:
        raise UsageError(f"--end {end} is before --start {start}") from None


def _ended_days(start: date, end: date, today: date | None = None) -> list[str]:
    """The days from ``start`` to ``end``, refusing any day that has not ended yet (UTC).

    A daily partition exists only once its day is over, so today and later days are refused here,
    before Dagster is loaded, instead of ending in an unknown-partition traceback.
    """
    days = _days(start, end)
    today = today or datetime.now(UTC).date()
    if end >= today:
        first_open = max(start, today)
        latest = (today - timedelta(days=1)).isoformat()
        raise UsageError(
            f"day {first_open} has not ended yet (UTC); a day can be materialized once it is "
            f"over: the latest is {latest} (use --end {latest})"
        )
    return days


def _check_landing(root: Path, days: list[str]) -> None:
    """Refuse days whose landing folder is missing or holds no log file, naming them."""
    from agentic_pipeline.ingest import LANDING_SUFFIXES

    def has_logs(ds: str) -> bool:
        folder = root / "landing" / ds
        return folder.is_dir() and any(
            p.name.endswith(LANDING_SUFFIXES) for p in folder.iterdir() if p.is_file()
        )

    empty = [ds for ds in days if not has_logs(ds)]
    if empty:
        shown = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        raise UsageError(
            f"no landing files for {shown} under {root / 'landing'}: put the day's "
            "*.jsonl, *.jsonl.gz or *.json files in landing/YYYY-MM-DD/ (or run `simulate`), "
            "or leave raw_agent_logs out of --select"
        )


def _check_zones_writable(root: Path) -> None:
    """Fail at once, before any run, when a zone of the data root cannot be written."""
    for zone in ("restricted", "warehouse"):
        folder = root / zone
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / f".write-probe-{os.getpid()}"
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise UsageError(
                f"{folder} is not writable ({exc.strerror}): fix its permissions and re-run"
            ) from None


def prepare_data_root(data_dir: str) -> Path:
    """Point the project and Dagster at ``data_dir``; create it and the instance home.

    The data root and ``dagster_home`` are private (0700, also when they already exist): the
    restricted zone holds raw personal data and the event log holds run metadata. Dagster creates
    its SQLite files with the process umask; inside a 0700 folder no other user can reach them,
    and the ones already there are set to 0600 as well.
    """
    root = Path(data_dir).expanduser().resolve()
    try:
        root.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        home = root / "dagster_home"
        home.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        for folder in (root, home):
            os.chmod(folder, PRIVATE_DIR_MODE)
        probe = home / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"data root {root} is not writable: {exc.strerror}") from exc
    if not (home / "dagster.yaml").exists():
        (home / "dagster.yaml").write_text(DAGSTER_YAML)
    for path in (home / "dagster.yaml", *home.rglob("*.db"), *home.rglob("*.db-*")):
        if path.is_file():
            os.chmod(path, PRIVATE_FILE_MODE)
    os.environ[DATA_DIR_ENV] = str(root)
    os.environ["DAGSTER_HOME"] = str(home)
    return root


# --- simulate ---------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    from agentic_pipeline.simulator import write_landing

    root = prepare_data_root(args.data_dir)
    start = _parse_day(args.start)
    with console.status(f"simulating {args.days} day(s) x {args.episodes_per_day} episodes"):
        summary = write_landing(
            root,
            start,
            args.days,
            args.episodes_per_day,
            seed=args.seed,
            transition_share=args.transition_share,
        )
    console.print(
        f"[green]wrote {len(summary['files'])} landing file(s), {summary['episodes']} episodes "
        f"over {len(summary['days'])} day(s) under {root / 'landing'}[/green]"
    )
    return 0


# --- running days ----------------------------------------------------------------------------


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
    crash-safe (``storage.py``), so stopping between two steps loses nothing but the run.
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
        from assets.housekeeping import pending_claims

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
    from assets.housekeeping import pool_holders, release_dead_runs

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


def run_days(job, instance, runs: list, tags: dict[str, str], verb: str) -> list:
    """One in-process run per ``(day, asset keys)`` with a progress bar; step failures printed.

    Before the first run, what killed runs left behind is given back (their pool slots, their
    half-written days). A run that needs a busy pool waits visibly. SIGINT/SIGTERM stop the
    current run cleanly and exit 130/143 with one line (``_RunStopper``).
    Returns the ``ExecuteInProcessResult`` of each run, in order.
    """
    from agentic_pipeline.storage import DataRoot
    from assets.housekeeping import job_pools, owner_tags, release_dead_runs

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
            result = job.execute_in_process(
                run_config=QUIET_RUN_CONFIG,
                instance=instance,
                partition_key=ds,
                asset_selection=keys,
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


# --- the masking key --------------------------------------------------------------------------


def require_masking_key(purpose: str) -> str:
    """The masking key (``agentic_pipeline.masking.keys``), or a one-line refusal.

    In development mode the notice about the public key is printed once, loudly.
    """
    from agentic_pipeline.masking.keys import MissingMaskingKeyError, announce_dev_key, masking_key
    from agentic_pipeline.masking.pseudonyms import is_dev_key

    try:
        key = masking_key()
    except MissingMaskingKeyError as exc:
        raise UsageError(f"{purpose} refused, {exc}") from None
    if is_dev_key(key):
        notice = announce_dev_key()
        if notice:
            console.print(
                f"[bold black on yellow] WARNING [/] [bold yellow]{notice}[/]", soft_wrap=True
            )
    return key


# --- materialize ------------------------------------------------------------------------------


def resolve_selection(defs, selection: str):
    """Asset keys for ``selection`` (``*``, ``a,b`` or Dagster's selection syntax).

    A multi-asset cannot run half of itself, so every key of a touched multi-asset is included.
    """
    from dagster import AssetKey, AssetSelection

    graph = defs.resolve_asset_graph()
    text = selection.strip()
    if text in ("*", ""):
        keys = set(graph.get_all_asset_keys())
    elif all(part.strip().replace("_", "").isalnum() for part in text.split(",")):
        keys = {AssetKey(part.strip()) for part in text.split(",")}
        unknown = keys - set(graph.get_all_asset_keys())
        if unknown:
            raise UsageError(f"unknown asset(s): {', '.join(k.to_user_string() for k in unknown)}")
    else:
        try:
            keys = set(AssetSelection.from_string(text).resolve(graph))
        except Exception as exc:  # Dagster raises several types for a bad selection string
            reason = one_line_error(exc)
            raise UsageError(f"--select {text!r} is not a valid selection ({reason})") from None
    if not keys:
        raise UsageError(
            f"--select {text!r} matches no asset; known assets: "
            + ", ".join(sorted(k.to_user_string() for k in graph.get_all_asset_keys()))
        )
    for assets_def in defs.assets or []:
        own = set(getattr(assets_def, "keys", []))
        if own & keys:
            keys |= own
    return sorted(keys, key=lambda k: k.to_user_string())


def cmd_materialize(args: argparse.Namespace) -> int:
    # arguments, days and the data root are checked before Dagster is loaded (a bad command line
    # is refused at once, and a refused day never leaves a failed run in the instance)
    start = _parse_day(args.start)
    end = _parse_day(args.end) if args.end else start
    days = _ended_days(start, end)
    root = prepare_data_root(args.data_dir)
    _check_zones_writable(root)
    if args.select.strip() in ("*", ""):
        _check_landing(root, days)
        require_masking_key("masking")
    from dagster import AssetKey, DagsterInstance

    from assets.definitions import build_definitions
    from assets.partitions import daily_partitions

    first = daily_partitions.start.date()
    if start < first:
        raise UsageError(
            f"--start {start} is before the partitions' start date {first} "
            "(set AGENTIC_PIPELINE_START_DATE to backfill earlier days)"
        )
    defs = build_definitions(os.environ[DATA_DIR_ENV])
    keys = resolve_selection(defs, args.select)
    if AssetKey("raw_agent_logs") in keys:
        _check_landing(root, days)
    if any(k.to_user_string() == "masked_trajectories" for k in keys):
        require_masking_key("masking")  # before any run starts
    job = defs.resolve_job_def("daily_pipeline")
    instance = DagsterInstance.get()
    runs = [(ds, keys) for ds in days]
    tags = {**LOCATION_TAGS, "agentic_pipeline/trigger": "cli"}
    results = run_days(job, instance, runs, tags, "materializing")
    summary = Table(title="materialized")
    for column in ("day", "run", "status", "assets"):
        summary.add_column(column)
    for ds, result in zip(days, results, strict=True):
        status = "[green]ok[/green]" if result.success else "[red]failed[/red]"
        n_assets = len(result.get_asset_materialization_events())
        summary.add_row(ds, result.run_id[:8], status, str(n_assets))
    console.print(summary)
    console.print(f"selection: {', '.join(k.to_user_string() for k in keys)}")
    return 1 if any(not r.success for r in results) else 0


# --- report ---------------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from assets.report import print_report

    root = prepare_data_root(args.data_dir)
    day = _parse_day(args.date).isoformat()
    if args.json:
        from assets.report import report_json

        text, code = report_json(str(root), day)
        print(text)
        return code
    # piped or captured output has no terminal width: give the decision table room to be read
    out = console if console.is_terminal else Console(width=140)
    return print_report(str(root), day, out)


# --- export ---------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    from agentic_pipeline.training import export_range

    root = prepare_data_root(args.data_dir)
    start = _parse_day(args.start)
    end = _parse_day(args.end) if args.end else start
    _days(start, end)  # validates the order
    require_masking_key("export")  # data leaving the pipeline: never under an unannounced dev key
    with console.status(f"exporting {args.format} from {start} to {end}"):
        count = export_range(str(root), start.isoformat(), end.isoformat(), args.format, args.out)
    console.print(f"wrote {count} {args.format} record(s) to {args.out}", soft_wrap=True)
    return 0


# --- erase ----------------------------------------------------------------------------------


def _downstream_of_masked(defs):
    from dagster import AssetSelection

    masked = AssetSelection.assets("masked_trajectories")
    graph = defs.resolve_asset_graph()
    return sorted(
        masked.downstream().resolve(graph) - masked.resolve(graph), key=lambda k: k.to_user_string()
    )


def cmd_erase(args: argparse.Namespace) -> int:
    root_path = prepare_data_root(args.data_dir)
    from dagster import AssetKey, AssetMaterialization, DagsterInstance

    from agentic_pipeline.erasure import (
        UnknownSubjectError,
        apply_erasure,
        erase_from_landing,
        plan_erasure,
        verify_erasure,
        write_receipt,
    )
    from agentic_pipeline.storage import DataRoot
    from assets.definitions import build_definitions

    root = DataRoot(root_path)
    key = require_masking_key("erasure")  # the same key masking used, from the variable's value
    try:
        plan = plan_erasure(root, args.subject, key)
    except (UnknownSubjectError, ValueError) as exc:
        raise UsageError(f"{exc}; nothing was changed") from None
    console.print(
        f"erasing {plan.n_episodes} episode(s) over {len(plan.days)} day(s); "
        f"{len(plan.linked)} identifier(s) linked to the subject"
    )
    receipt = apply_erasure(root, plan)
    defs = build_definitions(str(root_path))
    landing_root = defs.resources["data_root"].landing_root()
    receipt.partitions_touched += erase_from_landing(landing_root, plan)
    job = defs.resolve_job_def("daily_pipeline")
    instance = DagsterInstance.get()
    for part in receipt.partitions_touched:
        if part["asset"] in (
            "raw_agent_logs",
            "raw_quarantine",
            "masked_trajectories",
            "pii_audit",
        ):
            instance.report_runless_asset_event(
                AssetMaterialization(
                    AssetKey(part["asset"]),
                    partition=part["ds"],
                    metadata={
                        "erasure_receipt": receipt.receipt_id,
                        "rows_removed": part["rows_removed"],
                    },
                )
            )
    downstream = _downstream_of_masked(defs)
    stored = set(root.partitions("warehouse", "policy_selection"))
    later = sorted(
        {
            (date.fromisoformat(d) + timedelta(days=i)).isoformat()
            for d in plan.days
            for i in range(1, defs.resources["selection"].window_days)
        }
        & stored - set(plan.days)
    )
    runs = [
        (ds, downstream)
        for ds in plan.days
        if root.has_partition("warehouse", "masked_trajectories", ds)
    ]
    runs += [(ds, [AssetKey("policy_selection")]) for ds in later]
    tags = {
        "agentic_pipeline/trigger": "erasure",
        "agentic_pipeline/erasure_receipt": receipt.receipt_id,
    }
    results = run_days(job, instance, runs, tags, "re-materializing")
    receipt.rematerialized = [
        {
            "ds": ds,
            "run_id": r.run_id,
            "success": r.success,
            "assets": [k.to_user_string() for k in keys],
        }
        for (ds, keys), r in zip(runs, results, strict=True)
    ]
    failed = sum(not r.success for r in results)
    receipt.verification = verify_erasure(root, plan, landing_root)
    leftovers = receipt.verification["leftovers"]
    receipt.verified_clean = not leftovers and not failed
    path = write_receipt(root, receipt)
    console.print(
        f"removed {receipt.rows_removed} rows of {receipt.episodes_removed} episode(s) "
        f"from {len(receipt.partitions_touched)} partition(s); receipt: {path}",
        soft_wrap=True,
    )
    if leftovers or failed:
        console.print(
            f"[red]erasure incomplete[/red]: {failed} failed run(s); still mentioned "
            f"in: {', '.join(leftovers) or 'none'}",
            soft_wrap=True,
        )
        return 1
    return 0


# --- main ------------------------------------------------------------------------------------


def _day_arg(text: str) -> str:
    """An argparse type: a ``YYYY-MM-DD`` day, refused at parse time (before anything loads)."""
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentic-pipeline")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "unknown"


class _HelpFormatter(argparse.HelpFormatter):
    """Shows an option's default in its help when it has a meaningful one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    formatter = _HelpFormatter
    parser = argparse.ArgumentParser(
        prog="agentic-pipeline",
        description="Simulate, materialize, report, export and erase agent-log data "
        "(every command takes --data-dir).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=os.environ.get(DATA_DIR_ENV) or "data",
        help="data root (from $AGENTIC_PIPELINE_DATA_DIR when set)",
    )
    common.add_argument(
        "--debug", action="store_true", help="print the full traceback of an unexpected error"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, parents=[common], help=help, description=help, formatter_class=formatter
        )

    sim = command("simulate", "write simulated landing files (landing/YYYY-MM-DD/)")
    sim.add_argument(
        "--start", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="first day"
    )
    sim.add_argument("--days", type=_positive_int, default=7, help="number of days")
    sim.add_argument("--episodes-per-day", type=_positive_int, default=200, help="episodes per day")
    sim.add_argument("--seed", type=int, default=0, help="random seed (same seed, same bytes)")
    sim.add_argument(
        "--transition-share",
        type=_share,
        default=0.3,
        help="share of episodes written as transition JSONL (0..1)",
    )
    sim.set_defaults(func=cmd_simulate)

    mat = command("materialize", "materialize days in-process, recorded in the Dagster instance")
    mat.add_argument(
        "--start", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="first day"
    )
    mat.add_argument(
        "--end", type=_day_arg, metavar="YYYY-MM-DD", help="last day (default: --start)"
    )
    mat.add_argument(
        "--select",
        default="*",
        help="assets: '*', comma-separated keys, or Dagster selection syntax "
        "(e.g. 'key:episode_rewards+')",
    )
    mat.set_defaults(func=cmd_materialize)

    exp = command("export", "concatenate training datasets of several days into one file")
    exp.add_argument(
        "--start", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="first day"
    )
    exp.add_argument(
        "--end", type=_day_arg, metavar="YYYY-MM-DD", help="last day (default: --start)"
    )
    exp.add_argument(
        "--format", required=True, choices=["sft", "dpo", "dpo-openai", "rl"], help="dataset"
    )
    exp.add_argument("--out", required=True, help="output file (JSONL, or Parquet for rl)")
    exp.set_defaults(func=cmd_export)

    era = command("erase", "erase one person's episodes everywhere (right to be forgotten)")
    era.add_argument(
        "--subject",
        required=True,
        action="append",
        help="an identifier of the person: email, phone, card, user or customer id; repeat it to "
        "give several (a name counts only together with another identifier)",
    )
    era.set_defaults(func=cmd_erase)

    rep = command("report", "print the policy decision stored for a day")
    rep.add_argument("--date", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="the day")
    rep.add_argument("--json", action="store_true", help="print the decision as JSON (for scripts)")
    rep.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every error is one line on the terminal (``--debug`` for a traceback)."""
    args = build_parser().parse_args(argv)
    quiet_dagster_warnings()
    try:
        return args.func(args)
    except UsageError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True, markup=True, highlight=False)
        return 2
    except KeyboardInterrupt:
        console.print("[red]interrupted[/red]")
        return 130
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        console.print(
            f"[red]error:[/red] {one_line_error(exc)} (re-run with --debug for the traceback)",
            soft_wrap=True,
            highlight=False,
        )
        return 1


def quiet_dagster_warnings() -> None:
    """Hide Dagster's beta/preview notices for features this project uses on purpose."""
    import warnings

    for pattern in ("dagster", "dagster._core"):
        warnings.filterwarnings("ignore", category=UserWarning, module=pattern)
    warnings.filterwarnings("ignore", message=".*is currently in (beta|preview).*")
    warnings.filterwarnings("ignore", message="Asset job .* varying BackfillPolicies")


def one_line_error(exc: BaseException) -> str:
    """``Type: first line of the message``, without the chained causes Dagster wraps around."""
    while exc.__cause__ is not None and not str(exc).strip():
        exc = exc.__cause__
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0].strip()}" if lines else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
