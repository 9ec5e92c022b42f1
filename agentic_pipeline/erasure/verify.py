"""Verification: every table and file scanned afterwards for what is left of the subject.

The search is by person, not by spelling: the subject's pseudonyms (every normal form of each given
value was hashed, ``forms.token_forms``), and their values in clear in every normal form
(``forms.clear_pattern``: phones with or without country code and extension, any separators;
emails in any case; card numbers with or without separators). Landing files are read through the
ingestion's bounded readers; a file that cannot be searched is listed under ``skipped``, and the
erasure is then not verified clean.
"""

import re
from collections.abc import Callable, Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.erasure.apply import contains_any, contains_literal, landing_items
from agentic_pipeline.erasure.forms import clear_regex
from agentic_pipeline.erasure.landing import search_landing_file
from agentic_pipeline.erasure.linking import _found, _is_subjects, _matcher, _warehouse_episodes
from agentic_pipeline.erasure.subjects import (
    COMBINED,
    GENERIC,
    IDENTIFYING,
    RECEIPTS_DIR,
    ErasurePlan,
)
from agentic_pipeline.ingest import IngestLimits
from agentic_pipeline.storage import ZONES, DataRoot

#: Folders of the zones that hold the erasure's own records, not data.
JOURNALS_DIR = ".erasure_jobs"


def _zone_files(root: DataRoot) -> Iterable[UPath]:
    for zone in ZONES:
        base = root.root / zone
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            if RECEIPTS_DIR in path.parts or JOURNALS_DIR in path.parts or not path.is_file():
                continue
            if any(part.startswith(".") for part in path.relative_to(base).parts[:-1]):
                continue  # staging and trash folders of the storage layer
            yield path


def remaining_mentions(
    root: DataRoot,
    subject: str | Iterable[str],
    pseudonyms: Mapping[str, str] | Iterable[str],
    landing_root: UPath | None = None,
    limits: IngestLimits | None = None,
    skipped: list[dict] | None = None,
    label: Callable[[str], str] = str,
) -> list[str]:
    """Tables and files that still mention one of the values (in any normal form) or pseudonyms.

    Every Parquet file of both zones is scanned (``rl.parquet`` of the training exports too),
    every JSON/JSONL/markdown file except the erasure's own receipts and journals, and the landing
    files. What cannot be read is appended to ``skipped`` with the reason; ``label`` gives the name
    a landing file is listed under (``ingest.source_file_label``).
    """
    found: list[str] = []
    skipped = skipped if skipped is not None else []
    values = [subject] if isinstance(subject, str) else list(subject)
    tokens = list(pseudonyms.values()) if isinstance(pseudonyms, Mapping) else list(pseudonyms)
    values = [v for v in dict.fromkeys(values) if v]
    tokens = [t for t in dict.fromkeys(tokens) if t]
    if not values and not tokens:
        return []
    clear = clear_regex(values)
    literal = re.compile("|".join(re.escape(t) for t in tokens)) if tokens else None
    for path in _zone_files(root):
        where = str(path.relative_to(root.root))
        if path.suffix == ".parquet":
            try:
                with path.open("rb") as fh:
                    table = pq.read_table(fh)
            except (OSError, pa.ArrowException) as exc:
                skipped.append({"file": where, "reason": f"unreadable Parquet ({exc})"[:300]})
                continue
            cols = [
                f.name
                for f in table.schema
                if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            ]
            hit = pc.any(
                pc.or_(contains_any(table, cols, values), contains_literal(table, cols, tokens))
            ).as_py()
        elif path.suffix in (".json", ".jsonl", ".md"):
            text = path.read_text(errors="replace")
            hit = bool((clear and clear.search(text)) or (literal and literal.search(text)))
        else:
            continue
        if hit:
            found.append(where)
    landing = landing_root if landing_root is not None else root.landing()
    matcher = _join(clear, literal)
    for ds, path in landing_items(landing) if matcher is not None else []:
        outcome = search_landing_file(path, matcher, limits or IngestLimits())
        name = f"landing/{ds}/{label(path.name)}"
        if outcome.skipped:
            skipped.append({"file": name, "reason": outcome.skipped})
        if outcome.removed:
            found.append(name)
        if outcome.unsearched:
            skipped.append(
                {
                    "file": name,
                    "reason": f"{outcome.unsearched} record(s) over the record limit not searched",
                }
            )
    return found


def _join(*patterns: re.Pattern | None) -> re.Pattern | None:
    parts = [p for p in patterns if p is not None]
    if not parts:
        return None
    return re.compile("|".join(f"(?:{p.pattern})" for p in parts), re.IGNORECASE)


def verify_erasure(
    root: DataRoot,
    plan: ErasurePlan,
    landing_root: UPath | None = None,
    limits: IngestLimits | None = None,
    label: Callable[[str], str] = str,
) -> dict:
    """Scan everything for every identifier of the plan after the erasure.

    ``leftovers`` (must be empty for a clean erasure): files that still hold an identifying
    pseudonym, customer id or identifying value in clear (any normal form), and episodes of
    ``masked_trajectories`` that still hold the subject's full name with their address or birth
    date. ``skipped``: what could not be searched. Generic identifiers (first names, cities, ...)
    are shared with other people: the files still holding them are counted, not held against
    the erasure.
    """
    identifying = plan.needles((IDENTIFYING,))
    skipped: list[dict] = []
    leftovers = remaining_mentions(
        root, sorted(plan.clear_values), identifying, landing_root, limits, skipped, label
    )
    combined = plan.needles((COMBINED,))
    matcher = _matcher(identifying + combined, plan.identifiers)
    still = sorted(
        f"warehouse/masked_trajectories/ds={ds} episode {ep}"
        for (ds, ep), cells in _warehouse_episodes(root).items()
        if _is_subjects(_found(cells, matcher), plan.identifiers)
    )
    generic = plan.needles((GENERIC,))
    generic_files = (
        remaining_mentions(root, [], generic, landing_root, limits, [], label) if generic else []
    )
    return {
        "leftovers": [*leftovers, *still],
        "skipped": skipped,
        "identifiers_scanned": {
            IDENTIFYING: len(identifying),
            COMBINED: len(combined),
            GENERIC: len(generic),
        },
        "clear_values_scanned": len(plan.clear_values),
        "files_with_generic_identifiers": len(generic_files),
    }
