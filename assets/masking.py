"""``masked_trajectories`` and ``pii_audit``: the day's steps with personal data pseudonymized.

Two lines of defence: ``mask_steps`` scans its own output (detectors of another family than the
ones that masked, plus every raw value it found) and withholds each episode in which something is
left: nothing of it is written to the warehouse, and ``withheld_episodes`` (restricted zone) names
it with the reason. The blocking check ``no_personal_data_in_masked`` reads what was stored and
fails the day when anything leaked or when the withheld share passes
``MaskingResource.max_withheld_share``. The scan runs once per day: masking records, per day, the
digest of the rows its final scan read and what it found in them (``leak_scan`` metadata); in the
same run, the check hashes the stored day and, when the bytes are those, takes that scan's result;
otherwise (another run, a day rewritten since, a finding) it scans the stored table itself. The
audit table is always scanned by the check. Metadata and logs carry counts only, never values.

A day is masked shard by shard, in order, by ``MaskingResource.build_shard_masker()``: in the run's
process with the local analysis pool, or, with a Ray address, whole shards on Ray actors
(``agentic_pipeline/masking/shards.py``); the bytes written are the same either way.
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
    DagsterEventType,
    Failure,
    MetadataValue,
    Output,
    asset_check,
    multi_asset,
)

from agentic_pipeline.masking import AUDIT_SCHEMA, WITHHELD_SCHEMA, scan_for_leaks
from agentic_pipeline.masking.keys import MissingMaskingKeyError, announce_dev_key
from agentic_pipeline.masking.ray_cluster import RayClusterError
from agentic_pipeline.masking.scan.digest import TableDigest, table_digest
from agentic_pipeline.schema import STEP_SCHEMA
from agentic_pipeline.storage import DataRoot
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, safe_metadata
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource
from resources.io_manager import DayReader, DayTables, Shards, SpooledShards
from resources.masking import MaskingResource, dev_mode_notice
from resources.retries import retry_transient

MASKING_POOL = "masking"
#: Metadata of ``masked_trajectories``: per day, the digest of the rows masking's final scan read
#: (``scan/digest.py``), their count, and the leaks it found in them.
LEAK_SCAN = "leak_scan"
#: The warehouse tables the masking stage writes, scanned whole by the blocking check.
GUARDED_TABLES = ("masked_trajectories", "pii_audit")


@multi_asset(
    outs={
        "masked_trajectories": AssetOut(
            description=dev_mode_notice()  # said once in the UI in development mode
            + "One row per step with personal data replaced by keyed "
            "pseudonyms such as <EMAIL_ADDRESS_3f9a1c2b>; same value, same token, every day.",
            metadata={"zone": "warehouse"},
            kinds={"presidio", "spacy", "parquet"},
        ),
        "pii_audit": AssetOut(
            description="What was masked where: episode, step, field path, entity type, "
            "detector, score and pseudonym. Never the raw value.",
            metadata={"zone": "warehouse"},
            kinds={"presidio", "spacy", "parquet"},
        ),
        "withheld_episodes": AssetOut(
            description="Episodes the final leak scan refused: ds, episode_id, rows, leaks and "
            "the reason (column, entity type and detector counts, never a value). Their raw "
            "rows stay in raw_agent_logs; re-materializing the day masks them again.",
            metadata={"zone": "restricted"},
            kinds={"presidio", "parquet"},
        ),
    },
    ins={"raw_agent_logs": AssetIn(metadata={"load": "by_day"})},
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    pool=MASKING_POOL,
    group_name="masking",
)
@retry_transient
def masked_trajectories(
    context: AssetExecutionContext,
    raw_agent_logs: DayReader,
    masking: MaskingResource,
):
    """Mask the free text and JSON of every step with Presidio, one day at a time; episodes the
    final scan still finds personal data in go to ``withheld_episodes`` instead."""
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
    withheld: dict[str, list[pa.Table]] = {}  # episode ids and reasons only: small
    totals: Counter = Counter()
    entities: Counter = Counter()
    fields: Counter = Counter()
    detectors: Counter = Counter()
    scanned: dict[str, TableDigest] = {}  # per day: the digest of the rows the final scan read
    leaks_written: Counter = Counter()  # per day: what it found in them (0: leaky episodes held)

    days = RunDays(context)
    days.require(raw_agent_logs, hint="materialize it first")

    def masked_shards(shard_masker, ds: str):
        offset = 0  # the audit's ``row`` counts within the day (shard order)
        # bounded memory: shards are read, masked (here or on Ray actors) and written in order
        for result in shard_masker.map(raw_agent_logs.iter_shards(ds)):
            stats = result.stats  # leaking episodes are withheld, not the day
            totals.update(
                rows=result.masked.num_rows,
                raw_rows=stats["rows"],
                strings=stats["strings"],
                episodes=stats["episodes"],
                withheld_episodes=stats["withheld_episodes"],
                withheld_rows=stats["withheld_rows"],
            )
            entities.update(stats["entities"])
            fields.update(stats["fields"])
            detectors.update(stats["detectors"])
            message = f"masked {result.masked.num_rows} rows, {result.audit.num_rows} detections"
            if stats["withheld_episodes"]:  # episode ids and counts only
                message += (
                    f"; withheld {stats['withheld_episodes']} of {stats['episodes']} "
                    "episodes (personal data left after masking or masking failed; reasons in "
                    "withheld_episodes)"
                )
            days.log(ds, message, warning=bool(stats["withheld_episodes"]))
            withheld.setdefault(ds, []).append(result.withheld)
            audit = result.audit
            if offset:
                rows = pc.add(audit.column("row"), pa.scalar(offset, pa.int64()))
                audit = audit.set_column(audit.schema.get_field_index("row"), "row", rows)
            offset += stats["rows"]
            audits.setdefault(ds, SpooledShards()).append(audit)
            masked = result.masked.cast(STEP_SCHEMA)
            scanned.setdefault(ds, TableDigest()).update(masked)
            leaks_written[ds] += stats["leaks_written"]
            yield masked

    def open_shard_masker():
        try:
            return masking.build_shard_masker()
        except RayClusterError as exc:  # a deployment error (key, token, head down): no retry
            raise Failure(str(exc), allow_retries=False) from None

    def masked_metadata() -> dict:
        return {
            "dagster/row_count": totals["rows"],
            "dagster/column_schema": column_schema(STEP_SCHEMA),
            "raw_rows": totals["raw_rows"],
            "episodes_seen": totals["episodes"],
            "withheld_episodes": totals["withheld_episodes"],
            "withheld_rows": totals["withheld_rows"],
            "strings_seen": totals["strings"],
            "by_entity_type": counts_md(dict(entities), "entity type", "masked"),
            "by_field": counts_md(dict(fields), "field", "masked"),
            "by_detector": counts_md(dict(detectors), "detector", "masked"),
            "masking_key": "development key" if dev_key else "production key",
            LEAK_SCAN: MetadataValue.json(
                {
                    ds: {"sha256": d.hexdigest(), "rows": d.rows, "leaks": leaks_written[ds]}
                    for ds, d in scanned.items()
                }
            ),
        }

    masked = days.tables(
        lambda ds, shard_masker: Shards(masked_shards(shard_masker, ds)),
        masked_metadata,
        using=open_shard_masker,  # one masker (pool or Ray actors) for every day of the run
    )
    yield Output(masked, output_name="masked_trajectories")
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
                "withheld_episodes": totals["withheld_episodes"],
            }
        ),
    )
    withheld_days = [
        (ds, pa.concat_tables(withheld.get(ds) or [WITHHELD_SCHEMA.empty_table()])) for ds in days
    ]
    yield Output(
        DayTables(withheld_days),
        output_name="withheld_episodes",
        metadata=safe_metadata(
            {
                "dagster/row_count": totals["withheld_episodes"],
                "dagster/column_schema": column_schema(WITHHELD_SCHEMA),
                "withheld_rows": totals["withheld_rows"],
                "episodes_seen": totals["episodes"],
            }
        ),
    )


@asset_check(
    asset=AssetKey("masked_trajectories"),
    partitions_def=daily_partitions,
    blocking=True,
    description="No string column of the stored masked_trajectories and pii_audit partitions "
    "holds personal data the leak scan finds (email, phone of any region, card with Luhn, SSN and "
    "other national ids, IBAN, IP, user id, a name in an introduction), and the share of the "
    "day's episodes withheld by masking is at most MaskingResource.max_withheld_share; "
    "downstream assets do not run otherwise.",
)
def no_personal_data_in_masked(
    context: AssetCheckExecutionContext, data_root: DataRootResource, masking: MaskingResource
) -> AssetCheckResult:
    root: DataRoot = data_root.root
    rows, by_kind, leaky_days, over_days = 0, Counter(), [], []
    n_withheld = n_episodes = 0
    recorded = _scans_in_this_run(context)
    scanned_by_masking = 0
    for ds in RunDays(context):  # one day, or every day of a single-run backfill
        day_leaks = 0
        written: set = set()
        for asset in GUARDED_TABLES:
            if not root.has_partition("warehouse", asset, ds):
                continue
            table = root.read_partition("warehouse", asset, ds)
            rows += table.num_rows
            if asset == "masked_trajectories" and _scanned_as_stored(recorded.get(ds), table):
                scanned_by_masking += table.num_rows  # the same bytes, scanned in this run
            else:
                leaks = scan_for_leaks(table)  # every string column, lineage and ids included
                by_kind.update(f"{asset}.{leak.column}:{leak.entity_type}" for leak in leaks)
                day_leaks += len(leaks)
            if asset == "masked_trajectories":
                written = set(table.column("episode_id").to_pylist())
        if day_leaks:
            leaky_days.append(ds)
        held = 0
        if root.has_partition("restricted", "withheld_episodes", ds):
            held = root.read_partition("restricted", "withheld_episodes", ds).num_rows
        n_withheld += held
        n_episodes += held + len(written)
        if held and held / (held + len(written)) > masking.max_withheld_share:
            over_days.append(ds)
    return AssetCheckResult(
        passed=not leaky_days and not over_days,
        metadata=safe_metadata(
            {
                "rows_scanned": rows,
                "rows_scanned_by_masking": scanned_by_masking,
                "leaks": sum(by_kind.values()),
                "days_with_leaks": ", ".join(leaky_days) or "none",
                "leaks_by_column_and_type": counts_md(dict(by_kind), "column:type", "leaks"),
                "withheld_episodes": n_withheld,
                "withheld_share": round(n_withheld / n_episodes, 4) if n_episodes else 0.0,
                "max_withheld_share": masking.max_withheld_share,
                "days_over_withheld_share": ", ".join(over_days) or "none",
            }
        ),
    )


def _scans_in_this_run(context: AssetCheckExecutionContext) -> dict[str, dict]:
    """Per day, the record of masking's final scan (``LEAK_SCAN``) attached to this run's
    materialization of ``masked_trajectories``; none when the check runs in another run (which
    may hold other code, or follow a rewrite of the day): then every table is scanned here."""
    records = context.instance.get_records_for_run(
        run_id=context.run.run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION
    ).records
    found: dict[str, dict] = {}
    for record in records:
        materialization = record.asset_materialization
        if materialization is None or materialization.asset_key != AssetKey("masked_trajectories"):
            continue
        value = materialization.metadata.get(LEAK_SCAN)
        days = getattr(value, "data", None)
        if isinstance(days, dict):
            found.update({ds: scan for ds, scan in days.items() if isinstance(scan, dict)})
    return found


def _scanned_as_stored(scan: dict | None, table: pa.Table) -> bool:
    """Masking's final scan read exactly the stored rows (same digest of every string column,
    ``scan/digest.py``) and found nothing in them: scanning them again would find the same."""
    return (
        scan is not None
        and scan.get("leaks") == 0
        and scan.get("rows") == table.num_rows
        and scan.get("sha256") == table_digest(table)
    )
