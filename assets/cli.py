"""``agentic-pipeline``: the project's command line (DESIGN.md §7).

Every command takes ``--data-dir`` (default ``AGENTIC_PIPELINE_DATA_DIR``, else ``./data``).
``materialize`` runs in-process Dagster runs recorded in the instance under
``<data root>/dagster_home``, the same instance ``make dev`` shows.
"""

import argparse
import os
import sys
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


def run_days(job, instance, runs: list, tags: dict[str, str], verb: str) -> list:
    """One in-process run per ``(day, asset keys)`` with a progress bar; step failures printed.

    Returns the ``ExecuteInProcessResult`` of each run, in order.
    """
    results = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        task = progress.add_task(verb, total=len(runs))
        for ds, keys in runs:
            progress.update(task, description=f"{verb} {ds}")
            result = job.execute_in_process(
                run_config=QUIET_RUN_CONFIG,
                instance=instance,
                partition_key=ds,
                asset_selection=keys,
                raise_on_error=False,
                tags=tags,
            )
            for event in result.all_events if not result.success else []:
                if event.is_step_failure:
                    from resources.retries import failure_cause

                    cause = escape(failure_cause(event.step_failure_data.error))  # one line
                    progress.console.print(f"[red]{ds} {event.step_key}: {cause}")
            results.append(result)
            progress.advance(task)
    return results


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
        remaining_mentions,
        write_receipt,
    )
    from agentic_pipeline.storage import DataRoot
    from assets.definitions import build_definitions
    from resources.masking import masking_resource_from_env

    root = DataRoot(root_path)
    key = masking_resource_from_env().resolved_key()
    try:
        plan = plan_erasure(root, args.subject, key)
    except (UnknownSubjectError, ValueError) as exc:
        raise UsageError(f"{exc}; nothing was changed") from None
    console.print(f"erasing {plan.n_episodes} episode(s) over {len(plan.days)} day(s)")
    receipt = apply_erasure(root, plan, args.subject)
    defs = build_definitions(str(root_path))
    landing_root = defs.resources["data_root"].landing_root()
    receipt.partitions_touched += erase_from_landing(landing_root, plan, args.subject)
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
    leftovers = remaining_mentions(root, args.subject, plan.pseudonyms, landing_root)
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
    era.add_argument("--subject", required=True, help="an email, phone number or user id")
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
