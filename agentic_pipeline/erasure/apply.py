"""Applying a plan: rows out of every Parquet table, records out of landing files, the receipt."""

import gzip
import json
import uuid
from collections import defaultdict
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.compute as pc
from upath import UPath

from agentic_pipeline.erasure.plan import _contains_any
from agentic_pipeline.erasure.subjects import EPISODE_COLUMNS, RECEIPTS_DIR, ErasurePlan, Receipt
from agentic_pipeline.storage import ZONES, DataRoot, atomic_write_bytes
from agentic_pipeline.storage.files import is_local


def apply_erasure(root: DataRoot, plan: ErasurePlan) -> Receipt:
    """Remove the planned episodes (and quoting quarantined records) from both zones."""
    needles = sorted(plan.clear_values)
    touched: list[dict] = []
    removed_rows = 0
    by_day = defaultdict(set, plan.episodes_by_day)
    for zone in ZONES:
        for asset in root.assets(zone):
            for ds in root.partitions(zone, asset):
                episodes = by_day.get(ds, set())
                quarantine = asset == "raw_quarantine" and ds in plan.quarantine_days
                if not episodes and not quarantine:
                    continue
                if not root.has_partition(zone, asset, ds):
                    continue
                table = root.read_partition(zone, asset, ds)
                drop = pa.array([False] * table.num_rows, pa.bool_())
                ids = pa.array(sorted(episodes), pa.string())
                for col in EPISODE_COLUMNS:
                    if col in table.column_names:
                        values = table.column(col).cast(pa.string())
                        drop = pc.or_(drop, pc.fill_null(pc.is_in(values, ids), False))
                if quarantine:
                    drop = pc.or_(drop, _contains_any(table, ["raw_record"], needles, True))
                n_drop = pc.sum(drop).as_py() or 0
                if n_drop:
                    root.write_partition(zone, asset, ds, table.filter(pc.invert(drop)))
                    touched.append({"zone": zone, "asset": asset, "ds": ds, "rows_removed": n_drop})
                    removed_rows += n_drop
    now = datetime.now(UTC)
    return Receipt(
        receipt_id=f"{now:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}",
        erased_at=now.isoformat(timespec="seconds"),
        pseudonyms=plan.pseudonyms,
        episodes_removed=plan.n_episodes,
        rows_removed=removed_rows,
        partitions_touched=touched,
        subject=plan.subject,
        linked=plan.linked,
        episodes=plan.episodes,
        linking_rounds=plan.rounds,
    )


def erase_from_landing(landing_root: UPath, plan: ErasurePlan) -> list[dict]:
    """Rewrite the landing files without the subject's records.

    Otherwise any re-ingestion of those days (a backfill, the late-file sensor, a key rotation)
    would bring the erased episodes back. A record goes when its episode is erased (every step
    of a transition episode, whatever it says) or when its text quotes one of the subject's
    identifying values in clear; every landing day is searched for those.
    """
    touched = []
    needles = [v.lower() for v in sorted(plan.clear_values)]
    days = (
        sorted(p.name for p in landing_root.iterdir() if p.is_dir())
        if landing_root.exists()
        else []
    )
    for ds in days:
        erased = plan.episodes_by_day.get(ds, set())
        if not erased and not needles:
            continue
        folder = landing_root / ds
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            removed = _rewrite_landing_file(path, erased, needles)
            if removed:
                touched.append(
                    {"zone": "landing", "asset": path.name, "ds": ds, "rows_removed": removed}
                )
    return touched


def _drop_record(value: object, text: str, erased: set[str], needles: list[str], stem: str) -> bool:
    lowered = text.lower()
    if any(n in lowered for n in needles):
        return True
    if isinstance(value, dict):
        ids = {str(value.get("episode_id"))}
        if "traj" in value:  # benchmark files: the id is derived from the file and the task
            ids.add(f"{stem}-task{value.get('task_id')}-trial{value.get('trial')}")
        return bool(ids & erased)
    return False


def _rewrite_landing_file(path: UPath, erased: set[str], needles: list[str]) -> int:
    name = path.name
    stem = name.split(".", 1)[0]
    raw = path.read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    if name.endswith(".json"):
        value = json.loads(raw)
        items = value if isinstance(value, list) else [value]
        kept = [
            v
            for v in items
            if not _drop_record(v, json.dumps(v, ensure_ascii=False), erased, needles, stem)
        ]
        removed = len(items) - len(kept)
        payload = json.dumps(
            kept if isinstance(value, list) else (kept[0] if kept else []),
            ensure_ascii=False,
            indent=1,
        ).encode()
    else:
        lines = raw.split(b"\n")
        kept_lines = []
        for line in lines:
            text = line.decode("utf-8", errors="replace")
            try:
                value = json.loads(text) if text.strip() else None
            except (json.JSONDecodeError, RecursionError):
                value = None
            if text.strip() and _drop_record(value, text, erased, needles, stem):
                continue
            kept_lines.append(line)
        removed = len(lines) - len(kept_lines)
        payload = b"\n".join(kept_lines)
    if not removed:
        return 0
    if name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    mode = path.stat().st_mode & 0o777 if is_local(path) else None  # the file keeps its mode
    atomic_write_bytes(path, payload, mode=mode)
    return removed


def write_receipt(root: DataRoot, receipt: Receipt) -> str:
    """Store the receipt as ``warehouse/erasure_receipts/<id>.json`` (atomically)."""
    final = root.root / "warehouse" / RECEIPTS_DIR / f"{receipt.receipt_id}.json"
    return str(root.atomic_write("warehouse", final, receipt.to_json().encode()))
