"""Retention of raw personal data: raw days older than the allowed age are deleted.

That is the restricted zone (``raw_agent_logs``, ``raw_quarantine``) and the landing files they
were read from. Masked and derived data (the warehouse zone) stay. Every deletion is recorded in the
``retention_audit`` table (warehouse zone: asset, day, rows, when, by which run), which holds no
personal data.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pyarrow as pa
from upath import UPath

from agentic_pipeline.storage import DataRoot

__all__ = [
    "AUDIT_ASSET",
    "RETENTION_AUDIT_SCHEMA",
    "Deletion",
    "apply_retention",
    "expired",
    "expired_landing",
]

AUDIT_ASSET = "retention_audit"
RETENTION_AUDIT_SCHEMA = pa.schema(
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


def expired(root: DataRoot, today: date, keep_days: int) -> list[tuple[str, str]]:
    """(asset, day) of restricted partitions older than ``keep_days`` days before ``today``."""
    if keep_days < 1:
        raise ValueError("keep_days must be at least 1")
    cutoff = (today - timedelta(days=keep_days)).isoformat()
    return [
        (asset, ds)
        for asset in root.assets("restricted")
        for ds in root.partitions("restricted", asset)
        if ds < cutoff
    ]


def expired_landing(landing_root: UPath, today: date, keep_days: int) -> list[str]:
    """Landing days (raw files as producers wrote them) older than ``keep_days``."""
    if not landing_root.exists():
        return []
    cutoff = (today - timedelta(days=keep_days)).isoformat()
    return sorted(
        p.name for p in landing_root.iterdir() if p.is_dir() and _is_day(p.name) and p.name < cutoff
    )


def _is_day(name: str) -> bool:
    try:
        date.fromisoformat(name)
    except ValueError:
        return False
    return len(name) == 10


def apply_retention(
    root: DataRoot,
    today: date,
    keep_days: int,
    run_id: str,
    dry_run: bool = False,
    landing_root: UPath | None = None,
) -> list[Deletion]:
    """Delete expired restricted partitions and landing days; append them to ``retention_audit``.

    ``landing_root`` defaults to ``<root>/landing``; its expired day folders (the raw files) are
    deleted too, recorded as asset ``landing`` with the number of files.
    """
    deletions = []
    for asset, ds in expired(root, today, keep_days):
        rows = root.read_partition("restricted", asset, ds, columns=[]).num_rows
        if not dry_run:
            root.delete_partition("restricted", asset, ds)
        deletions.append(Deletion(asset, ds, rows))
    landing = landing_root if landing_root is not None else root.landing()
    for ds in expired_landing(landing, today, keep_days):
        folder = landing / ds
        files = sum(1 for p in folder.rglob("*") if p.is_file())
        if not dry_run:
            folder.fs.rm(folder.path, recursive=True)
        deletions.append(Deletion("landing", ds, files))
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
        schema=RETENTION_AUDIT_SCHEMA,
    )
    if root.has_partition("warehouse", AUDIT_ASSET, ds):
        new = pa.concat_tables([root.read_partition("warehouse", AUDIT_ASSET, ds), new])
    root.write_partition("warehouse", AUDIT_ASSET, ds, new)
