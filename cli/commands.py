"""The commands ``simulate``, ``materialize``, ``report`` and ``export``."""

import argparse
import os
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cli.common import (
    DATA_DIR_ENV,
    NoDataError,
    UsageError,
    _check_landing,
    _check_zones_writable,
    _days,
    _ended_days,
    _parse_day,
    console,
    existing_data_root,
    one_line_error,
    prepare_data_root,
    require_masking_key,
    shown_days,
)

#: Runs launched by the UI carry this label of their code location; the CLI's in-process runs get
#: it too, so the UI lists them under the daily_pipeline job. (They have no code-location origin,
#: so the overview timeline, which groups launched runs by origin, does not show them.)
LOCATION_TAGS = {".dagster/repository": "__repository__@agentic_pipeline"}

# --- simulate ---------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    from agentic_pipeline.demo import write_landing
    from cli.dev import mark_demo_root

    root = prepare_data_root(args.data_dir)
    mark_demo_root(root)  # `make dev` masks simulated data with the development key
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


def _creatable(path: Path) -> bool:
    """``path`` is a folder or can become one (its nearest existing ancestor is a folder); if not,
    ``prepare_data_root`` says the data root cannot be written."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path.is_dir()


def cmd_materialize(args: argparse.Namespace) -> int:
    # arguments, days and the data root are checked before Dagster is loaded (a bad command line
    # is refused at once, and a refused day never leaves a failed run in the instance)
    start = _parse_day(args.start)
    end = _parse_day(args.end) if args.end else start
    days = _ended_days(start, end)
    candidate = Path(args.data_dir).expanduser().resolve()
    if args.select.strip() in ("*", "") and _creatable(candidate):
        _check_landing(candidate, days)  # before anything is created under a mistyped root
    root = prepare_data_root(args.data_dir)
    _check_zones_writable(root)
    if args.select.strip() in ("*", ""):
        require_masking_key("masking")
    from dagster import AssetKey, DagsterInstance

    from assets.definitions import build_definitions
    from assets.partitions import daily_partitions
    from cli.runs import run_days

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
    failed = [(ds, r) for ds, r in zip(days, results, strict=True) if not r.success]
    n_assets = {len({e.asset_key for e in r.get_asset_materialization_events()}) for r in results}
    assets = "/".join(str(n) for n in sorted(n_assets))
    console.print(
        f"materialized {len(results)} day(s), {assets} asset(s) each: "
        + ("[green]all ok[/green]" if not failed else f"[red]{len(failed)} failed[/red]")
        + f" (runs {results[0].run_id[:8]} .. {results[-1].run_id[:8]})"
    )
    if failed:
        table = Table(title="failed days")
        for column in ("day", "run", "assets materialized"):
            table.add_column(column)
        for ds, result in failed:
            done = len(result.get_asset_materialization_events())
            table.add_row(ds, result.run_id[:8], str(done))
        console.print(table)
    if args.select.strip() not in ("*", ""):
        console.print(f"selection: {', '.join(k.to_user_string() for k in keys)}")
    return 1 if any(not r.success for r in results) else 0


# --- report ---------------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from cli.report import print_report

    day = _parse_day(args.date).isoformat()
    root = existing_data_root(args.data_dir)  # read-only: never creates a data root
    if args.json:
        from cli.report import report_json

        text, code = report_json(str(root), day)
        print(text)
        return code
    # piped or captured output has no terminal width: give the decision table room to be read
    out = console if console.is_terminal else Console(width=140)
    return print_report(str(root), day, out)


# --- export ---------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    from agentic_pipeline.training import FORMAT_SUFFIXES, export_range, stored_days

    start = _parse_day(args.start)
    end = _parse_day(args.end) if args.end else start
    days = _days(start, end)  # validates the order
    suffix = FORMAT_SUFFIXES[args.format]
    if Path(args.out).suffix.lower() != suffix:
        raise UsageError(
            f"--out {args.out} does not end in {suffix}, the extension of --format "
            f"{args.format} ({'Parquet' if suffix == '.parquet' else 'JSON lines'})"
        )
    from agentic_pipeline.masking.keys import MissingMaskingKeyError, masking_key

    root = existing_data_root(args.data_dir)  # read-only: never creates a data root
    try:
        masking_key()  # no key: refused (exit 2) before the data is looked at
    except MissingMaskingKeyError:
        require_masking_key("export")
    found = stored_days(str(root), args.format, start.isoformat(), end.isoformat())
    if not found:
        raise NoDataError(
            f"no {args.format} dataset stored for {start} .. {end} under {root}: materialize "
            f"those days first (agentic-pipeline materialize --start {start} --end {end})"
        )
    require_masking_key("export")  # data leaving the pipeline: never under an unannounced dev key
    with console.status(f"exporting {args.format} from {start} to {end}"):
        count = export_range(str(root), start.isoformat(), end.isoformat(), args.format, args.out)
    missing = [ds for ds in days if ds not in found]
    console.print(
        f"wrote {count} {args.format} record(s) from {len(found)} day(s) to {args.out}"
        + (f"; no dataset stored for {shown_days(missing)}" if missing else ""),
        soft_wrap=True,
    )
    return 0
