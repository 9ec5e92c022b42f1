"""Right to be forgotten: remove one person's episodes from every partition of every table.

The subject is given in clear once (an email, phone or user id); only its keyed pseudonyms are
kept. Episodes are found in the warehouse by pseudonym and in the restricted zone by the raw value,
then every Parquet table of both zones that has an ``episode_id`` (or ``logged_episode_id``) column
loses those episodes' rows, and quarantined records that quote the value are dropped. Aggregates
(replay facts, rewards, decisions) are recomputed by the caller from what remains. A receipt records
the pseudonyms, the partitions touched and the rows removed, never the value itself. The landing
files of the affected days are rewritten without the subject's records too, so that re-ingesting a
day cannot bring them back.
"""

import gzip
import json
import re
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.masking import pseudonym_for
from agentic_pipeline.storage import ZONES, DataRoot

EPISODE_COLUMNS = ("episode_id", "logged_episode_id")
TEXT_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
RECEIPTS_DIR = "erasure_receipts"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONE = re.compile(r"^\+?[\d\s().x-]{7,}$")


class UnknownSubjectError(LookupError):
    """No stored episode mentions the subject; nothing was changed."""


@dataclass
class ErasurePlan:
    """What an erasure will remove: episode ids per day, and the subject's pseudonyms."""

    pseudonyms: dict[str, str]
    episodes_by_day: dict[str, set[str]] = field(default_factory=dict)
    quarantine_days: set[str] = field(default_factory=set)

    @property
    def days(self) -> list[str]:
        return sorted(set(self.episodes_by_day) | self.quarantine_days)

    @property
    def n_episodes(self) -> int:
        return sum(len(v) for v in self.episodes_by_day.values())


@dataclass
class Receipt:
    receipt_id: str
    erased_at: str
    pseudonyms: dict[str, str]
    episodes_removed: int
    rows_removed: int
    partitions_touched: list[dict]
    rematerialized: list[dict] = field(default_factory=list)
    verified_clean: bool | None = None  # set once every table and file was scanned afterwards

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


def subject_kinds(value: str) -> list[str]:
    """The entity types a subject value may have been masked as."""
    value = value.strip()
    if _EMAIL.match(value):
        return ["EMAIL_ADDRESS"]
    if _PHONE.match(value) and sum(c.isdigit() for c in value) >= 7:
        return ["PHONE_NUMBER"]
    return ["USER_ID"]


def _contains_any(table: pa.Table, columns, needles: list[str], ignore_case: bool) -> pa.Array:
    mask = pa.array([False] * table.num_rows, pa.bool_())
    for col in columns:
        if col not in table.column_names:
            continue
        values = table.column(col).cast(pa.string()).fill_null("")
        for needle in needles:
            hit = pc.match_substring(values, needle, ignore_case=ignore_case)
            mask = pc.or_(mask, hit)
    return mask


def plan_erasure(root: DataRoot, subject: str, key: str) -> ErasurePlan:
    """Find the subject's episodes, day by day; raises ``UnknownSubjectError`` if there are none."""
    subject = subject.strip()
    if len(subject) < 4:
        raise ValueError("subject is too short to be matched safely")
    plan = ErasurePlan({kind: pseudonym_for(subject, kind, key) for kind in subject_kinds(subject)})
    tokens = list(plan.pseudonyms.values())
    searches = [
        ("warehouse", "masked_trajectories", tokens, False),
        ("restricted", "raw_agent_logs", [subject], True),
    ]
    for zone, asset, needles, ignore_case in searches:
        for ds in root.partitions(zone, asset):
            table = root.read_partition(zone, asset, ds, columns=["episode_id", *TEXT_COLUMNS])
            hits = table.filter(_contains_any(table, TEXT_COLUMNS, needles, ignore_case))
            ids = {str(e) for e in hits.column("episode_id").to_pylist() if e is not None}
            if ids:
                plan.episodes_by_day.setdefault(ds, set()).update(ids)
    for ds in root.partitions("restricted", "raw_quarantine"):
        table = root.read_partition("restricted", "raw_quarantine", ds, columns=["raw_record"])
        if pc.any(_contains_any(table, ["raw_record"], [subject], True)).as_py():
            plan.quarantine_days.add(ds)
    if not plan.episodes_by_day and not plan.quarantine_days:
        raise UnknownSubjectError("no stored episode or record mentions this subject")
    return plan


def apply_erasure(root: DataRoot, plan: ErasurePlan, subject: str) -> Receipt:
    """Remove the planned episodes from every table of both zones; return the receipt."""
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
                    drop = pc.or_(drop, _contains_any(table, ["raw_record"], [subject], True))
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
    )


def erase_from_landing(landing_root: UPath, plan: ErasurePlan, subject: str) -> list[dict]:
    """Rewrite the landing files of the planned days without the subject's records.

    Otherwise any re-ingestion of those days (a backfill, the late-file sensor, a key rotation)
    would bring the erased episodes back. A record goes when its episode is erased (every step
    of a transition episode, whatever it says) or when its text mentions the subject.
    """
    touched = []
    needle = subject.lower()
    for ds in plan.days:
        erased = plan.episodes_by_day.get(ds, set())
        folder = landing_root / ds
        if not folder.exists():
            continue
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            removed = _rewrite_landing_file(path, erased, needle)
            if removed:
                touched.append(
                    {"zone": "landing", "asset": path.name, "ds": ds, "rows_removed": removed}
                )
    return touched


def _drop_record(value: object, text: str, erased: set[str], needle: str, stem: str) -> bool:
    if needle in text.lower():
        return True
    if isinstance(value, dict):
        ids = {str(value.get("episode_id"))}
        if "traj" in value:  # benchmark files: the id is derived from the file and the task
            ids.add(f"{stem}-task{value.get('task_id')}-trial{value.get('trial')}")
        return bool(ids & erased)
    return False


def _rewrite_landing_file(path: UPath, erased: set[str], needle: str) -> int:
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
            if not _drop_record(v, json.dumps(v, ensure_ascii=False), erased, needle, stem)
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
            if text.strip() and _drop_record(value, text, erased, needle, stem):
                continue
            kept_lines.append(line)
        removed = len(lines) - len(kept_lines)
        payload = b"\n".join(kept_lines)
    if not removed:
        return 0
    if name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    staging = path.parent / f".{name}.erasure-{uuid.uuid4().hex[:8]}"
    staging.write_bytes(payload)
    staging.rename(path)
    return removed


def write_receipt(root: DataRoot, receipt: Receipt) -> str:
    """Store the receipt as ``warehouse/erasure_receipts/<id>.json`` (atomically)."""
    folder = root.root / "warehouse" / RECEIPTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{receipt.receipt_id}.json"
    staging = folder / f".{receipt.receipt_id}.json.tmp"
    staging.write_text(receipt.to_json())
    staging.rename(final)
    return str(final)


def remaining_mentions(
    root: DataRoot, subject: str, pseudonyms: dict[str, str], landing_root: UPath | None = None
) -> list[str]:
    """Tables and files that still mention the subject or its pseudonyms (should be none).

    Every Parquet file of both zones is scanned (``rl.parquet`` of the training exports too),
    every JSON/JSONL/markdown file except the erasure receipts themselves, and the landing files.
    """
    found = []
    needles = [subject, *pseudonyms.values()]
    lowered = [n.lower() for n in needles]
    for zone in ZONES:
        base = root.root / zone
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            if RECEIPTS_DIR in path.parts or not path.is_file():
                continue
            if path.suffix == ".parquet":
                with path.open("rb") as fh:
                    table = pq.read_table(fh)
                text_cols = [
                    f.name
                    for f in table.schema
                    if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
                ]
                hit = pc.any(_contains_any(table, text_cols, needles, True)).as_py()
            elif path.suffix in (".json", ".jsonl", ".md"):
                text = path.read_text(errors="replace").lower()
                hit = any(n in text for n in lowered)
            else:
                continue
            if hit:
                found.append(str(path.relative_to(root.root)))
    landing = landing_root if landing_root is not None else root.landing()
    if landing.exists():
        for path in sorted(p for p in landing.rglob("*") if p.is_file()):
            raw = path.read_bytes()
            if path.name.endswith(".gz"):
                raw = gzip.decompress(raw)
            if subject.lower() in raw.decode("utf-8", errors="replace").lower():
                found.append(f"landing/{path.parent.name}/{path.name}")
    return found
