"""Verification: every table and file scanned afterwards for what is left of the subject."""

import gzip
from collections.abc import Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.erasure.linking import _found, _is_subjects, _matcher, _warehouse_episodes
from agentic_pipeline.erasure.plan import _contains_any
from agentic_pipeline.erasure.subjects import (
    COMBINED,
    GENERIC,
    IDENTIFYING,
    RECEIPTS_DIR,
    ErasurePlan,
)
from agentic_pipeline.storage import ZONES, DataRoot


def remaining_mentions(
    root: DataRoot,
    subject: str | Iterable[str],
    pseudonyms: Mapping[str, str] | Iterable[str],
    landing_root: UPath | None = None,
) -> list[str]:
    """Tables and files that still mention one of the values or pseudonyms (should be none).

    Every Parquet file of both zones is scanned (``rl.parquet`` of the training exports too),
    every JSON/JSONL/markdown file except the erasure receipts themselves, and the landing files.
    """
    found = []
    values = [subject] if isinstance(subject, str) else list(subject)
    tokens = list(pseudonyms.values()) if isinstance(pseudonyms, Mapping) else list(pseudonyms)
    needles = [n for n in dict.fromkeys([*values, *tokens]) if n]
    if not needles:
        return []
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
            text = raw.decode("utf-8", errors="replace").lower()
            if any(n in text for n in lowered):
                found.append(f"landing/{path.parent.name}/{path.name}")
    return found


def verify_erasure(root: DataRoot, plan: ErasurePlan, landing_root: UPath | None = None) -> dict:
    """Scan everything for every identifier of the plan after the erasure.

    ``leftovers`` (must be empty for a clean erasure): files that still hold an identifying
    pseudonym, customer id or identifying value in clear, and episodes of ``masked_trajectories``
    that still hold the subject's full name with their address or birth date. Generic identifiers
    (first names, cities, ...) are shared with other people: the files still holding them are
    counted, not held against the erasure.
    """
    identifying = plan.needles((IDENTIFYING,))
    leftovers = remaining_mentions(root, sorted(plan.clear_values), identifying, landing_root)
    combined = plan.needles((COMBINED,))
    matcher = _matcher(identifying + combined, plan.identifiers)
    still = sorted(
        f"warehouse/masked_trajectories/ds={ds} episode {ep}"
        for (ds, ep), cells in _warehouse_episodes(root).items()
        if _is_subjects(_found(cells, matcher), plan.identifiers)
    )
    generic = plan.needles((GENERIC,))
    generic_files = remaining_mentions(root, [], generic, landing_root) if generic else []
    return {
        "leftovers": [*leftovers, *still],
        "identifiers_scanned": {
            IDENTIFYING: len(identifying),
            COMBINED: len(combined),
            GENERIC: len(generic),
        },
        "files_with_generic_identifiers": len(generic_files),
    }
