"""``raw_agent_logs`` and ``raw_quarantine``: one day of landing files, restricted zone."""

import pyarrow as pa
from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetOut,
    Failure,
    MetadataValue,
    Output,
    asset_check,
    multi_asset,
)

from agentic_pipeline.ingest import (
    BUDGET_REASON,
    IngestStats,
    MissingLandingError,
    ingest_day,
    landing_fingerprint,
)
from agentic_pipeline.schema import QUARANTINE_SCHEMA, STEP_SCHEMA
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, markdown_table
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource
from resources.io_manager import DayTables
from resources.retries import retry_transient

#: metadata key of ``raw_agent_logs``: {day: digest of its landing files' content}
LANDING_FINGERPRINTS = "landing_fingerprints"

PREVIEW_COLUMNS = (
    "episode_id",
    "step",
    "role",
    "action_type",
    "tool_name",
    "policy_id",
    "task_type",
)


def _preview(steps: pa.Table) -> MetadataValue:
    """First rows without any content column: ids, roles, tools and policy only."""
    head = steps.slice(0, 12).select(list(PREVIEW_COLUMNS)).to_pylist()
    return markdown_table(head)


def _merge(total: IngestStats, day: IngestStats) -> None:
    for name in (
        "files",
        "files_skipped",
        "files_refused",
        "bytes_read",
        "records_read",
        "records_accepted",
        "records_quarantined",
        "refused_by_budget",
        "episodes",
        "rows",
    ):
        setattr(total, name, getattr(total, name) + getattr(day, name))
    for name in ("records_by_format", "quarantine_reasons"):
        merged = getattr(total, name)
        for key, value in getattr(day, name).items():
            merged[key] = merged.get(key, 0) + value


@multi_asset(
    outs={
        "raw_agent_logs": AssetOut(
            description="Canonical step rows of every agent episode logged that day (raw, "
            "with personal data). One row per step with lineage to the source record.",
            metadata={"zone": "restricted"},
            kinds={"parquet", "pyarrow"},
        ),
        "raw_quarantine": AssetOut(
            description="Source records that could not be parsed, with file, line and reason.",
            metadata={"zone": "restricted"},
            kinds={"parquet", "pyarrow"},
        ),
    },
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    group_name="ingestion",
)
@retry_transient
def raw_agent_logs(context: AssetExecutionContext, data_root: DataRootResource):
    """Read the day's ``landing/YYYY-MM-DD/`` files, auto-detecting the three input formats.

    Days are ingested and written one at a time (a backfill never holds a range in memory); every
    landing folder is checked first, so a missing day fails the run before anything is written.
    """
    days = RunDays(context)
    missing = [ds for ds in days if not data_root.landing(ds).exists()]
    if missing:
        raise Failure(
            f"no landing folder for {', '.join(missing)}: expected files under "
            f"{data_root.landing_root()}/YYYY-MM-DD",
            allow_retries=False,
        )
    try:
        limits = data_root.ingest_limits()
    except ValueError as exc:  # a configuration error: retrying cannot fix it
        raise Failure(str(exc), allow_retries=False) from exc
    total, quarantines, head = IngestStats(), [], []
    # content of each day's landing files as ingested: the late-file sensor compares it
    fingerprints = {ds: landing_fingerprint(data_root.landing(ds)) for ds in days}

    def ingest(ds: str) -> pa.Table:
        try:
            result = ingest_day(
                data_root.landing(ds),
                ds,
                data_root.benchmark_policy_id,
                limits=limits,
                file_name_key=data_root.file_name_key(),
            )
        except MissingLandingError as exc:  # removed while the run was going
            raise Failure(f"landing folder for {ds} disappeared", allow_retries=False) from exc
        stats = result.stats
        assert stats.records_read == stats.records_accepted + stats.records_quarantined
        days.log(
            ds,
            f"{stats.records_read} records from {stats.files} files -> "
            f"{stats.episodes} episodes, {stats.rows} rows, "
            f"{stats.records_quarantined} quarantined, {stats.files_refused} files refused",
        )
        _merge(total, stats)
        quarantines.append((ds, result.quarantine))
        if not head:
            head.append(result.steps.slice(0, 12))
        return result.steps

    def step_metadata() -> dict:  # scanned by the helper: the preview holds ids from raw logs
        return {
            "dagster/row_count": total.rows,
            "dagster/column_schema": column_schema(STEP_SCHEMA),
            "episodes": total.episodes,
            "files_read": total.files,
            "files_skipped": total.files_skipped,
            "files_refused": total.files_refused,
            "bytes_read": total.bytes_read,
            "records_read": total.records_read,
            "records_accepted": total.records_accepted,
            "records_quarantined": total.records_quarantined,
            "refused_by_budget": total.refused_by_budget,
            "records_by_format": counts_md(total.records_by_format, "format", "records"),
            "preview": _preview(head[0] if head else STEP_SCHEMA.empty_table()),
            LANDING_FINGERPRINTS: MetadataValue.json(fingerprints),
        }

    yield Output(days.tables(ingest, step_metadata), output_name="raw_agent_logs")
    yield Output(
        DayTables(quarantines),
        output_name="raw_quarantine",
        metadata={
            "dagster/row_count": sum(t.num_rows for _, t in quarantines),
            "dagster/column_schema": column_schema(QUARANTINE_SCHEMA),
            "reasons": counts_md(total.quarantine_reasons, "reason", "records"),
        },
    )


MAX_QUARANTINE_SHARE = 0.05


@asset_check(
    asset=AssetKey("raw_agent_logs"),
    partitions_def=daily_partitions,
    description="Completeness of the day: it has episodes and at most 5% of its source records "
    "were quarantined (warns, does not block).",
)
def raw_day_complete(context: AssetCheckExecutionContext, data_root: DataRootResource):
    root = data_root.root
    per_day = {}
    for ds in RunDays(context):  # one day, or every day of a single-run backfill
        steps = root.read_partition("restricted", "raw_agent_logs", ds, columns=["episode_id"])
        episodes = len(set(steps.column("episode_id").to_pylist()))
        quarantined = (
            root.read_partition("restricted", "raw_quarantine", ds, columns=[]).num_rows
            if root.has_partition("restricted", "raw_quarantine", ds)
            else 0
        )
        share = quarantined / max(1, episodes + quarantined)
        per_day[ds] = {"episodes": episodes, "quarantined": quarantined, "share": round(share, 4)}
    incomplete = [
        ds for ds, d in per_day.items() if d["episodes"] == 0 or d["share"] > MAX_QUARANTINE_SHARE
    ]
    return AssetCheckResult(
        passed=not incomplete,
        severity=AssetCheckSeverity.WARN,
        metadata={
            "episodes": sum(d["episodes"] for d in per_day.values()),
            "quarantined_records": sum(d["quarantined"] for d in per_day.values()),
            "incomplete_days": ", ".join(incomplete) or "none",
            "per_day": markdown_table([{"day": ds, **d} for ds, d in per_day.items()]),
        },
    )


@asset_check(
    asset=AssetKey("raw_agent_logs"),
    partitions_def=daily_partitions,
    blocking=True,
    description="No record of the day was refused by a day budget (a file over its fair share of "
    "max_day_bytes / max_day_records, the day's record or output limit): such records are good "
    "data the day could not take, so downstream assets do not run until the limits are raised "
    "(DataRootResource) or the day is split.",
)
def raw_day_within_budget(context: AssetCheckExecutionContext, data_root: DataRootResource):
    root = data_root.root
    refused: dict[str, int] = {}
    for ds in RunDays(context):
        if not root.has_partition("restricted", "raw_quarantine", ds):
            continue
        reasons = root.read_partition("restricted", "raw_quarantine", ds, columns=["reason"])
        n = sum(str(r).startswith(BUDGET_REASON) for r in reasons.column("reason").to_pylist())
        if n:
            refused[ds] = n
    days = ", ".join(f"{ds} ({n})" for ds, n in refused.items())
    if refused:  # raised, not returned: the step's one-line cause is what the CLI prints
        raise Failure(
            f"records refused by the day budget on {days}: raise the day limits of the "
            "data_root resource or split the day, then re-materialize",
            metadata={"refused_by_budget": sum(refused.values())},
            allow_retries=False,
        )
    return AssetCheckResult(passed=True, metadata={"refused_by_budget": 0})
