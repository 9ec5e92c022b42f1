"""The daily job, its schedule, and the late-file sensor."""

from datetime import UTC, datetime

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    AssetSelection,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SkipReason,
    build_schedule_from_partitioned_job,
    define_asset_job,
    in_process_executor,
    sensor,
)

from agentic_pipeline.ingest import landing_files
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource

LATE_FILE_LOOKBACK_DAYS = 31

daily_pipeline_job = define_asset_job(
    name="daily_pipeline",
    selection=AssetSelection.all(),
    executor_def=in_process_executor,  # one process per run: no ~5 s re-import per step
    # no op_retry_policy: it would retry bad data too; assets retry only transient errors
    # themselves (resources/retries.py)
    description="Every stage for one day: ingest, mask, replay, reward, select.",
)

daily_schedule = build_schedule_from_partitioned_job(
    daily_pipeline_job,
    hour_of_day=2,
    minute_of_hour=15,
    name="daily_pipeline_schedule",
    default_status=DefaultScheduleStatus.RUNNING,
    description="At 02:15 UTC, materialize every stage for the previous (complete) day.",
)


def _latest_materialization_ts(instance, ds: str) -> float | None:
    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("raw_agent_logs"), asset_partitions=[ds]), limit=1
    ).records
    return records[0].timestamp if records else None


def late_landing_days(instance, data_root: DataRootResource, now: datetime) -> dict[str, float]:
    """Days already materialized whose landing folder got a file after that materialization.

    Returns {day: newest file mtime}. Only the last ``LATE_FILE_LOOKBACK_DAYS`` days are looked at.
    """
    landing = data_root.landing_root()
    if not landing.exists():
        return {}
    valid = set(daily_partitions.get_partition_keys(current_time=now))
    days = sorted((p.name for p in landing.iterdir() if p.name in valid), reverse=True)
    late: dict[str, float] = {}
    for ds in days[:LATE_FILE_LOOKBACK_DAYS]:
        materialized_at = _latest_materialization_ts(instance, ds)
        if materialized_at is None:
            continue  # never materialized: the schedule or a backfill will pick it up
        files, _ = landing_files(data_root.landing(ds))
        newest = max((f.stat().st_mtime for f in files), default=0.0)
        if newest > materialized_at:
            late[ds] = newest
    return late


@sensor(
    job=daily_pipeline_job,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Re-runs a day (and everything downstream) when a file lands after it was "
    "materialized.",
)
def late_file_sensor(context: SensorEvaluationContext, data_root: DataRootResource):
    late = late_landing_days(context.instance, data_root, datetime.now(UTC))
    if not late:
        yield SkipReason("no late landing files")
        return
    for ds, newest in sorted(late.items()):
        yield RunRequest(
            run_key=f"late-{ds}-{newest:.3f}",
            partition_key=ds,
            tags={"agentic_pipeline/trigger": "late_file"},
        )
