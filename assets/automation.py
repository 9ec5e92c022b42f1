"""The daily job, its schedule, the late-file sensor, and decisions that follow their inputs.

Declarative automation keeps the chain of decisions current: ``policy_selection`` of day D reads
its own day D-1 (a self-dependency) and ``training_datasets`` reads the day's decision, so when a
day's inputs change after the fact (the late-file sensor re-runs a day, a backfill or the CLI
re-materializes earlier days, an erasure re-materializes what it touched), the decisions of the
following days and their training files are stale. ``FOLLOWS_ITS_INPUTS`` requests them again;
the ``decisions_follow_inputs`` sensor evaluates it every 30 seconds in the Dagster daemon and
launches what it requests as a backfill, which runs a self-dependent asset one day at a time in
day order. The UI shows each evaluation on the asset's *Automation* tab and the requested runs
under the sensor.
"""

from datetime import UTC, datetime

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    AssetSelection,
    AutomationCondition,
    AutomationConditionSensorDefinition,
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

from agentic_pipeline.ingest import landing_files, landing_fingerprint
from assets.ingestion import LANDING_FINGERPRINTS
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource

LATE_FILE_LOOKBACK_DAYS = 31
#: the assets whose days follow their inputs (see the module docstring)
FOLLOWING_ASSETS = ("policy_selection", "training_datasets")

#: Re-run a day once one of its input days was updated by another run (not by the run that also
#: updated this day), when no input is missing or being written and the day is not running.
FOLLOWS_ITS_INPUTS = (
    AutomationCondition.any_deps_updated().since_last_handled()
    & ~AutomationCondition.any_deps_missing()
    & ~AutomationCondition.any_deps_in_progress()
    & ~AutomationCondition.in_progress()
).with_label("re-run when an input day changed")

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


def _latest_materialization(instance, ds: str) -> tuple[float, str | None] | None:
    """(timestamp, recorded landing fingerprint) of the newest ``raw_agent_logs`` of ``ds``."""
    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("raw_agent_logs"), asset_partitions=[ds]), limit=1
    ).records
    if not records:
        return None
    materialization = records[0].asset_materialization
    entry = (materialization.metadata if materialization else {}).get(LANDING_FINGERPRINTS)
    recorded = getattr(entry, "value", None) or {}
    return records[0].timestamp, recorded.get(ds) if isinstance(recorded, dict) else None


def late_landing_days(instance, data_root: DataRootResource, now: datetime) -> dict[str, str]:
    """Days already materialized whose landing files changed content since that materialization.

    Returns {day: fingerprint of the files now}. The fingerprint (size and sha256 of every file)
    recorded by ingestion is compared, so re-writing byte-identical files triggers nothing. A
    materialization without a fingerprint (older code) falls back to file modification times.
    Only the last ``LATE_FILE_LOOKBACK_DAYS`` days are looked at.
    """
    landing = data_root.landing_root()
    if not landing.exists():
        return {}
    valid = set(daily_partitions.get_partition_keys(current_time=now))
    days = sorted((p.name for p in landing.iterdir() if p.name in valid), reverse=True)
    late: dict[str, str] = {}
    for ds in days[:LATE_FILE_LOOKBACK_DAYS]:
        latest = _latest_materialization(instance, ds)
        if latest is None:
            continue  # never materialized: the schedule or a backfill will pick it up
        materialized_at, recorded = latest
        current = landing_fingerprint(data_root.landing(ds))
        if recorded is not None:
            if current != recorded:
                late[ds] = current
            continue
        files, _ = landing_files(data_root.landing(ds))
        if max((f.stat().st_mtime for f in files), default=0.0) > materialized_at:
            late[ds] = current
    return late


@sensor(
    job=daily_pipeline_job,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Re-runs a day (and everything downstream) when the content of its landing files "
    "changed after it was materialized (size and sha256, not modification times).",
)
def late_file_sensor(context: SensorEvaluationContext, data_root: DataRootResource):
    late = late_landing_days(context.instance, data_root, datetime.now(UTC))
    if not late:
        yield SkipReason("no late landing files")
        return
    for ds, fingerprint in sorted(late.items()):
        yield RunRequest(
            run_key=f"late-{ds}-{fingerprint[:16]}",  # one run per new content of the day
            partition_key=ds,
            tags={"agentic_pipeline/trigger": "late_file"},
        )


decisions_follow_inputs = AutomationConditionSensorDefinition(
    "decisions_follow_inputs",
    target=AssetSelection.assets(*FOLLOWING_ASSETS),
    default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    emit_backfills=True,  # several days of a self-dependent asset: one backfill, in day order
    description="Re-runs the policy decisions and training files of the days after a day whose "
    "inputs changed (late file, backfill, erasure), in day order, until the chain is current.",
)
