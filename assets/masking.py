"""``masked_trajectories`` and ``pii_audit``: the day's steps with personal data pseudonymized.

Two lines of defence: ``mask_steps`` scans its own output (patterns plus every raw value it found)
and raises before anything is written; the blocking check ``no_personal_data_in_masked`` scans what
was stored and stops downstream assets. Metadata and logs carry counts only, never values.
"""

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc
from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    AssetOut,
    BackfillPolicy,
    Failure,
    Output,
    asset_check,
    multi_asset,
)

from agentic_pipeline.masking import AUDIT_SCHEMA, PIILeakError, mask_steps, scan_for_leaks
from agentic_pipeline.masking.keys import MissingMaskingKeyError, announce_dev_key
from agentic_pipeline.schema import STEP_SCHEMA
from agentic_pipeline.storage import DataRoot
from assets.metadata import column_schema, counts_md, safe_metadata
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource
from resources.io_manager import DayReader, DayTables, Shards, SpooledShards
from resources.masking import MaskingResource
from resources.retries import retry_transient

MASKING_POOL = "masking"
#: The warehouse tables the masking stage writes, scanned whole by the blocking check.
GUARDED_TABLES = ("masked_trajectories", "pii_audit")


@multi_asset(
    outs={
        "masked_trajectories": AssetOut(
            description="One row per step (DESIGN.md §6) with personal data replaced by keyed "
            "pseudonyms such as <EMAIL_ADDRESS_3f9a1c2b>; same value, same token, every day.",
            metadata={"zone": "warehouse"},
        ),
        "pii_audit": AssetOut(
            description="What was masked where: episode, step, field path, entity type, "
            "detector, score and pseudonym. Never the raw value.",
            metadata={"zone": "warehouse"},
        ),
    },
    ins={"raw_agent_logs": AssetIn(metadata={"load": "by_day"})},
    partitions_def=daily_partitions,
    backfill_policy=BackfillPolicy.single_run(),
    pool=MASKING_POOL,
    group_name="masking",
)
@retry_transient
def masked_trajectories(
    context: AssetExecutionContext,
    raw_agent_logs: DayReader,
    masking: MaskingResource,
    data_root: DataRootResource,
):
    """Mask the free text and JSON of every step with Presidio, one day at a time."""
    try:
        dev_key = masking.uses_dev_key()
    except MissingMaskingKeyError as exc:  # a configuration error: retrying cannot fix it
        raise Failure(str(exc), allow_retries=False) from None
    if dev_key:  # loud once per process (the CLI prints it before its day runs), quiet after
        notice = announce_dev_key()
        if notice:
            context.log.warning(notice)
        else:
            context.log.info("masking with the development key (development mode)")
    audits: dict[str, SpooledShards] = {}  # kept as compressed Parquet until written
    totals: Counter = Counter()
    entities: Counter = Counter()
    fields: Counter = Counter()
    detectors: Counter = Counter()

    if raw_agent_logs.missing:
        raise Failure(
            f"raw_agent_logs has no partition for {', '.join(raw_agent_logs.missing)}: "
            "materialize it first",
            allow_retries=False,
        )

    def masked_shards(masker, ds: str):
        offset = 0  # the audit's ``row`` counts within the day (shard order)
        for raw in raw_agent_logs.iter_shards(ds):  # bounded memory: one shard at a time
            try:
                result = mask_steps(raw, masker)
            except PIILeakError as exc:  # the message holds counts only
                # the days already masked keep their audit beside them; this day writes none
                for done, spool in audits.items():
                    if done != ds:
                        data_root.root.write_partition_shards("warehouse", "pii_audit", done, spool)
                message = f"{ds}: masking left personal data, nothing written: {exc}"
                raise Failure(message, allow_retries=False) from None
            stats = result.stats
            totals.update(rows=raw.num_rows, strings=stats["strings"])
            entities.update(stats["entities"])
            fields.update(stats["fields"])
            detectors.update(stats["detectors"])
            context.log.info(
                f"{ds}: masked {raw.num_rows} rows, {result.audit.num_rows} detections"
            )
            audit = result.audit
            if offset:
                rows = pc.add(audit.column("row"), pa.scalar(offset, pa.int64()))
                audit = audit.set_column(audit.schema.get_field_index("row"), "row", rows)
            offset += raw.num_rows
            audits.setdefault(ds, SpooledShards()).append(audit)
            yield result.masked.cast(STEP_SCHEMA)

    @retry_transient  # runs inside the IO manager's handle_output (a dead NER worker: retried)
    def masked_days():
        with masking.build_masker() as masker:
            for ds in context.partition_keys:
                yield ds, Shards(masked_shards(masker, ds))

    def masked_metadata() -> dict:
        return safe_metadata(
            {
                "dagster/row_count": totals["rows"],
                "dagster/column_schema": column_schema(STEP_SCHEMA),
                "strings_seen": totals["strings"],
                "by_entity_type": counts_md(dict(entities), "entity type", "masked"),
                "by_field": counts_md(dict(fields), "field", "masked"),
                "by_detector": counts_md(dict(detectors), "detector", "masked"),
                "masking_key": "development key" if dev_key else "production key",
            }
        )

    yield Output(DayTables(masked_days(), masked_metadata), output_name="masked_trajectories")
    audit_rows = sum(spool.num_rows for spool in audits.values())
    audit_days = [(ds, Shards(spool)) for ds, spool in audits.items()]
    yield Output(
        DayTables(audit_days),
        output_name="pii_audit",
        metadata=safe_metadata(
            {
                "dagster/row_count": audit_rows,
                "dagster/column_schema": column_schema(AUDIT_SCHEMA),
                "by_entity_type": counts_md(dict(entities), "entity type", "masked"),
            }
        ),
    )


@asset_check(
    asset=AssetKey("masked_trajectories"),
    partitions_def=daily_partitions,
    blocking=True,
    description="No string column of the stored masked_trajectories and pii_audit partitions "
    "holds an email, phone, card (Luhn), SSN, IBAN, IP or user-id pattern; downstream assets do "
    "not run otherwise.",
)
def no_personal_data_in_masked(
    context: AssetCheckExecutionContext, data_root: DataRootResource
) -> AssetCheckResult:
    root: DataRoot = data_root.root
    rows, by_kind, leaky_days = 0, Counter(), []
    for ds in context.partition_keys:  # one day, or every day of a single-run backfill
        day_leaks = 0
        for asset in GUARDED_TABLES:
            if not root.has_partition("warehouse", asset, ds):
                continue
            table = root.read_partition("warehouse", asset, ds)
            leaks = scan_for_leaks(table)  # every string column, lineage and ids included
            rows += table.num_rows
            by_kind.update(f"{asset}.{leak.column}:{leak.entity_type}" for leak in leaks)
            day_leaks += len(leaks)
        if day_leaks:
            leaky_days.append(ds)
    return AssetCheckResult(
        passed=not leaky_days,
        metadata=safe_metadata(
            {
                "rows_scanned": rows,
                "leaks": sum(by_kind.values()),
                "days_with_leaks": ", ".join(leaky_days) or "none",
                "leaks_by_column_and_type": counts_md(dict(by_kind), "column:type", "leaks"),
            }
        ),
    )
