"""Applying a plan, one item at a time: a day of a table, a landing file; and the receipt.

Every item is idempotent (a day already without the subject's rows is left untouched; a landing file
already without their records is not rewritten), so an erasure killed anywhere is finished by
running it again (``job.run_erasure`` journals which items are done). Each item checks that the
other people's rows or records are all still there afterwards.
"""

import re
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc
from upath import UPath

from agentic_pipeline.erasure.forms import clear_pattern
from agentic_pipeline.erasure.landing import erase_landing_file
from agentic_pipeline.erasure.subjects import EPISODE_COLUMNS, RECEIPTS_DIR, ErasurePlan, Receipt
from agentic_pipeline.ingest import IngestLimits
from agentic_pipeline.storage import ZONES, DataRoot


class TableCheckError(RuntimeError):
    """A rewritten day did not keep every other person's rows: the erasure stops there."""


def contains_any(table: pa.Table, columns, values: list[str]) -> pa.Array:
    """Rows whose ``columns`` hold one of ``values`` in clear, in any normal form
    (``forms.clear_pattern``, case ignored)."""
    mask = pa.array([False] * table.num_rows, pa.bool_())
    patterns = [clear_pattern(v) for v in values]
    for col in columns:
        if col not in table.column_names:
            continue
        text = table.column(col).cast(pa.string()).fill_null("")
        for pattern in patterns:
            mask = pc.or_(mask, pc.match_substring_regex(text, pattern, ignore_case=True))
    return mask


def contains_literal(table: pa.Table, columns, needles: list[str]) -> pa.Array:
    """Rows whose ``columns`` hold one of ``needles`` (tokens) as a substring."""
    mask = pa.array([False] * table.num_rows, pa.bool_())
    for col in columns:
        if col not in table.column_names:
            continue
        text = table.column(col).cast(pa.string()).fill_null("")
        for needle in needles:
            mask = pc.or_(mask, pc.match_substring(text, needle))
    return mask


def table_items(root: DataRoot, plan: ErasurePlan) -> Iterator[tuple[str, str, str]]:
    """``(zone, asset, day)`` of every stored day the plan touches, in a fixed order."""
    days = set(plan.episodes_by_day)
    for zone in ZONES:
        for asset in root.assets(zone):
            for ds in root.partitions(zone, asset):
                quarantine = asset == "raw_quarantine" and ds in plan.quarantine_days
                if ds in days or quarantine:
                    yield zone, asset, ds


def erase_from_day(root: DataRoot, plan: ErasurePlan, zone: str, asset: str, ds: str) -> dict:
    """Remove the plan's episodes (and quarantined records quoting the subject) from one day."""
    if not root.has_partition(zone, asset, ds):
        return {"zone": zone, "asset": asset, "ds": ds, "rows_removed": 0}
    table = root.read_partition(zone, asset, ds)
    drop = pa.array([False] * table.num_rows, pa.bool_())
    ids = pa.array(sorted(plan.episodes_by_day.get(ds, set())), pa.string())
    id_cols = [c for c in EPISODE_COLUMNS if c in table.column_names]
    for col in id_cols:
        values = table.column(col).cast(pa.string())
        drop = pc.or_(drop, pc.fill_null(pc.is_in(values, ids), False))
    if asset == "raw_quarantine" and ds in plan.quarantine_days:
        drop = pc.or_(drop, contains_any(table, ["raw_record"], sorted(plan.clear_values)))
    n_drop = pc.sum(drop).as_py() or 0
    if n_drop:
        kept = table.filter(pc.invert(drop))
        root.write_partition(zone, asset, ds, kept)
        after = root.read_partition(zone, asset, ds, columns=id_cols or None)
        others = _episode_set(kept, id_cols)
        if after.num_rows != table.num_rows - n_drop or _episode_set(after, id_cols) != others:
            raise TableCheckError(
                f"{zone}/{asset} ds={ds}: other people's rows changed ({after.num_rows} rows "
                f"after, {table.num_rows - n_drop} expected)"
            )
    return {"zone": zone, "asset": asset, "ds": ds, "rows_removed": n_drop}


def _episode_set(table: pa.Table, columns: list[str]) -> set:
    return {(c, v) for c in columns for v in table.column(c).to_pylist()}


def landing_items(landing_root: UPath) -> Iterator[tuple[str, UPath]]:
    """``(day, file)`` of every landing file (every day is searched: a value may be anywhere)."""
    if not landing_root.exists():
        return
    for day in sorted(p for p in landing_root.iterdir() if p.is_dir()):
        for path in sorted(day.iterdir(), key=lambda p: p.name):
            if path.name.startswith(".") or not path.is_file() or path.is_symlink():
                continue
            yield day.name, path


def erase_from_landing_file(
    ds: str,
    path: UPath,
    plan: ErasurePlan,
    matcher: re.Pattern | None,
    limits: IngestLimits,
    label: str,
) -> dict:
    """One landing file without the subject's records (``landing.erase_landing_file``);
    ``label`` names the file in the receipt (``ingest.source_file_label``: no personal name)."""
    outcome = erase_landing_file(path, plan.episodes_by_day.get(ds, set()), matcher, limits)
    item = {"zone": "landing", "asset": label, "ds": ds, "rows_removed": outcome.removed}
    if outcome.records:
        item["other_records_kept"] = outcome.records - outcome.removed
    if outcome.unsearched:
        item["records_not_searched"] = outcome.unsearched
    if outcome.skipped:
        item["skipped"] = outcome.skipped
    return item


def write_receipt(root: DataRoot, receipt: Receipt) -> str:
    """Store the receipt as ``warehouse/erasure_receipts/<id>.json`` (atomically)."""
    final = root.root / "warehouse" / RECEIPTS_DIR / f"{receipt.receipt_id}.json"
    return str(root.atomic_write("warehouse", final, receipt.to_json().encode()))
