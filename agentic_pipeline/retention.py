"""Retention of raw personal data: restricted-zone days older than the allowed age are deleted.

Masked and derived data (the warehouse zone) stay. Every deletion is recorded in the
``retention_audit`` table (warehouse zone: asset, day, rows, when, by which run), which holds no
personal data.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pyarrow as pa

from agentic_pipeline.storage import DataRoot

AUDIT_ASSET = "retention_audit"
AUDIT_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),  # the day the retention ran
        ("asset", pa.string()),
        ("partition", pa.string()),  # the deleted day
        ("rows", pa.int64()),
        ("deleted_at", pa.string()),
        ("run_id", pa.string()),
        ("keep_days", pa.int64()),
    ]
)


@dataclass(frozen=True)
class Deletion:
    asset: str
    partition: str
    rows: int


def restricted_assets(root: DataRoot) -> list[str]:
    """Every asset stored in the restricted zone."""
    base = root.root / "restricted"
    if not base.exists():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def expired(root: DataRoot, today: date, keep_days: int) -> list[tuple[str, str]]:
    """(asset, day) of restricted partitions older than ``keep_days`` days before ``today``."""
    if keep_days < 1:
        raise ValueError("keep_days must be at least 1")
    cutoff = (today - timedelta(days=keep_days)).isoformat()
    return [
        (asset, ds)
        for asset in restricted_assets(root)
        for ds in root.partitions("restricted", asset)
        if ds < cutoff
    ]


def apply_retention(
    root: DataRoot, today: date, keep_days: int, run_id: str, dry_run: bool = False
) -> list[Deletion]:
    """Delete expired restricted partitions and append them to ``retention_audit``."""
    deletions = []
    for asset, ds in expired(root, today, keep_days):
        rows = root.read_partition("restricted", asset, ds, columns=[]).num_rows
        if not dry_run:
            root.delete_partition("restricted", asset, ds)
        deletions.append(Deletion(asset, ds, rows))
    if deletions and not dry_run:
        _append_audit(root, today.isoformat(), deletions, run_id, keep_days)
    return deletions


def _append_audit(
    root: DataRoot, ds: str, deletions: list[Deletion], run_id: str, keep_days: int
) -> None:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    new = pa.Table.from_pylist(
        [
            {
                "ds": ds,
                "asset": d.asset,
                "partition": d.partition,
                "rows": d.rows,
                "deleted_at": now,
                "run_id": run_id,
                "keep_days": keep_days,
            }
            for d in deletions
        ],
        schema=AUDIT_SCHEMA,
    )
    if root.has_partition("warehouse", AUDIT_ASSET, ds):
        new = pa.concat_tables([root.read_partition("warehouse", AUDIT_ASSET, ds), new])
    root.write_partition("warehouse", AUDIT_ASSET, ds, new)
