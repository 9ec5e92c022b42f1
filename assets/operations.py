"""Operations jobs: retention of raw personal data."""

import os
from datetime import UTC, datetime

from dagster import (
    AssetKey,
    AssetObservation,
    Config,
    DefaultScheduleStatus,
    OpExecutionContext,
    ScheduleDefinition,
    in_process_executor,
    job,
    op,
)

from agentic_pipeline.retention import apply_retention
from resources.data_root import DataRootResource

RETENTION_ENV = "AGENTIC_PIPELINE_RAW_RETENTION_DAYS"


class RetentionConfig(Config):
    """How long raw (restricted-zone) days are kept; ``today`` defaults to the run's UTC date."""

    keep_days: int = int(os.environ.get(RETENTION_ENV) or 30)
    today: str | None = None
    dry_run: bool = False


@op(description="Delete restricted-zone partitions older than keep_days; warehouse data stays.")
def apply_raw_retention(
    context: OpExecutionContext, config: RetentionConfig, data_root: DataRootResource
) -> None:
    today = (
        datetime.fromisoformat(config.today).date() if config.today else datetime.now(UTC).date()
    )
    deletions = apply_retention(
        data_root.root,
        today,
        config.keep_days,
        context.run_id,
        dry_run=config.dry_run,
        landing_root=data_root.landing_root(),
    )
    by_asset: dict[str, list[str]] = {}
    for d in deletions:
        by_asset.setdefault(d.asset, []).append(d.partition)
    for asset, days in sorted(by_asset.items()):
        if asset == "landing":
            context.log.info(f"retention: landing files of {len(days)} day(s) deleted")
            continue
        context.log_event(
            AssetObservation(
                asset_key=AssetKey(asset),
                metadata={
                    "retention_deleted_days": ", ".join(days),
                    "retention_deleted_count": len(days),
                    "keep_days": config.keep_days,
                    "dry_run": config.dry_run,
                },
            )
        )
        if not config.dry_run and asset != "landing":
            _wipe_partitions(context, asset, days)
        context.log.info(f"retention: {asset}: {len(days)} day(s) deleted ({days[0]}..{days[-1]})")
    if not deletions:
        context.log.info(f"retention: nothing older than {config.keep_days} days")


def _wipe_partitions(context: OpExecutionContext, asset: str, days: list[str]) -> None:
    """Mark the deleted days as missing in the UI where the instance storage supports it."""
    try:
        context.instance.wipe_asset_partitions(AssetKey(asset), days)
    except NotImplementedError:  # SQLite event logs (local `dagster dev`) cannot wipe partitions
        context.log.warning(
            f"retention: {asset}: files deleted; this instance's storage cannot mark the "
            "partitions as wiped, so the UI still lists them as materialized"
        )


@job(executor_def=in_process_executor, description="Delete expired raw personal data.")
def retention_job():
    apply_raw_retention()


retention_schedule = ScheduleDefinition(
    job=retention_job,
    cron_schedule="30 3 * * *",
    execution_timezone="UTC",
    default_status=DefaultScheduleStatus.RUNNING,
    description="At 03:30 UTC, delete raw days older than the retention period.",
)
