"""``mask_steps``: mask the personal data of one day of canonical step rows.

Pipeline (per partition):

1. *collect*: walk every cell (JSON cells structurally, text cells whole); values under personal
   keys are masked whole and remembered as the episode's *known entities*; free-text strings are
   routed (``router.py``) and deduplicated;
2. *analyse* each unique string once: NER strings in worker processes (``n_workers``), single-token
   strings with pattern recognizers only;
3. *apply*: every string gets its detections plus the episode's known entities (names, emails, ...
   found anywhere in the episode, first/last names alone included), overlaps are resolved and
   Presidio's ``AnonymizerEngine`` replaces each span with a keyed pseudonym (custom operator);
4. *scan* the output (``scan/``, detectors of another family than the ones that masked) and
   *withhold* every episode in which anything is left, and every episode whose masking raised (a
   bug met by one hostile record never fails the day): its rows leave the masked table and its
   audit, and ``MaskResult.withheld`` names it with the reason (counts or the exception's type,
   never a value). The rest of the day is returned; the raw rows stay where they were, so masking
   the day again re-tries it.

The audit never holds a raw value; exceptions and logs neither.

Modules: this one drives a day (``Masker``, ``mask_steps``); ``phases.py`` holds its steps per
cell, string and episode (collect, analyse, known values, answers; a step that raises fails its
episode alone); ``episode.py`` holds what an episode knows (known values, NER votes),
``apply.py`` masks one string (phases 1 and 3), ``tables.py`` builds the audit and withheld
tables.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import pandas as pd
import pyarrow as pa
from presidio_anonymizer import AnonymizerEngine

from agentic_pipeline.masking.apply import (
    GUARD,
    Partition,
)
from agentic_pipeline.masking.detectors.id_shapes import DATE_TYPES, whole_id
from agentic_pipeline.masking.engine import (
    CHUNK_CHARS,
    DEFAULT_MODEL,
    MASK_ENTITIES,
    MAX_NER_CHARS,
    AnalyzerConfig,
)
from agentic_pipeline.masking.episode import Episode
from agentic_pipeline.masking.json_walker import (
    MAX_DEPTH,
    replace_in_cell,
)
from agentic_pipeline.masking.phases import (
    analyse,
    collect_cell,
    failure,
    known_answers,
    settle_known,
)
from agentic_pipeline.masking.pool import AnalyzerPool
from agentic_pipeline.masking.pseudonyms import DEV_MASKING_KEY, TOKEN_RE, Pseudonymizer, fold
from agentic_pipeline.masking.router import Route
from agentic_pipeline.masking.scan import (
    Leak,
    PIILeakError,
    compile_values,
    find_leaks,
)
from agentic_pipeline.masking.tables import (  # noqa: F401  (AUDIT_SCHEMA: public here too)
    AUDIT_SCHEMA,
    WITHHELD_SCHEMA,
    audit_table,
    clean_text,
    column_values,
    replace_columns,
    table_columns,
    take_rows,
    withheld_episodes,
)
from agentic_pipeline.masking.text_view import map_spans, text_view

logger = logging.getLogger(__name__)

MASK_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")


@dataclass
class MaskResult:
    """Masked table (same type and columns as the input, its rows in order minus the withheld
    episodes'), audit table (``row`` = the input row), withheld episodes and stats."""

    masked: Any
    audit: pa.Table
    stats: dict[str, Any]
    withheld: pa.Table = field(default_factory=WITHHELD_SCHEMA.empty_table)


class Masker:
    """Holds the key, the analyzer workers and the anonymizer; reuse it across partitions."""

    def __init__(
        self,
        key: str | bytes = DEV_MASKING_KEY,
        n_workers: int = 1,
        model_name: str = DEFAULT_MODEL,
        phone_regions: tuple[str, ...] = ("US", "GB"),
        min_score: float = 0.4,
        propagate_min_score: float = 0.6,
        max_depth: int = MAX_DEPTH,
        max_text_chars: int = 5_000_000,
        columns: tuple[str, ...] = MASK_COLUMNS,
        max_ner_chars: int = MAX_NER_CHARS,
    ) -> None:
        self.pseudonyms = Pseudonymizer(key)
        # the analysis runs in local worker processes (on Ray, each actor holds a whole Masker)
        self.pool = AnalyzerPool(
            AnalyzerConfig(
                model_name=model_name,
                phone_regions=tuple(phone_regions),
                entities=MASK_ENTITIES,
                min_score=min_score,
                max_ner_chars=max_ner_chars,
            ),
            n_workers=n_workers,
        )
        self.anonymizer = AnonymizerEngine()
        self.min_score = min_score
        self.propagate_min_score = propagate_min_score
        self.max_depth = max_depth
        self.max_text_chars = max_text_chars
        self.columns = columns
        self._operators: dict[str, Any] = {}

    def token(self, value: Any, entity_type: str) -> str:
        """Pseudonym of ``value``."""
        return self.pseudonyms.token(str(value), entity_type)

    def operators_for(self, entity_types: set[str]) -> dict[str, Any]:
        """Presidio custom operators (cached) for ``entity_types``."""
        missing = entity_types - self._operators.keys()
        if missing:
            self._operators.update(self.pseudonyms.operators(missing))
        return {et: self._operators[et] for et in entity_types}

    def close(self) -> None:
        """Stop worker processes."""
        self.pool.close()

    def __enter__(self) -> Masker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Detector credited in the audit for a value the final scan found and masking then masked.
SECOND_LINE = "second_line"
#: Rounds of the second line (mask what the scan finds, scan again) before an episode that
#: still leaks is withheld.
SECOND_LINE_ROUNDS = 3


def mask_leaks(
    table: Any,
    found: list[tuple[Leak, str]],
    masker: Masker,
    episodes: dict[str, Episode],
    episode_ids: list[str],
    mp: Partition,
) -> tuple[Any, int]:
    """Mask in place each value the final scan found (its keyed token, wherever its cell holds
    it, whatever its case or encoding), recording ``SECOND_LINE`` audit rows; returns the table and
    the number of replacements. A value that cannot be found in its cell's text stays, and the
    re-scan withholds its episode."""
    by_cell: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    for leak, value in found:
        value = value.strip()
        if len(value) < 2 or leak.column not in masker.columns:
            continue  # ids and lineage columns are never rewritten: such episodes are withheld
        et = leak.entity_type
        if et == "KNOWN_VALUE":
            ep = episodes.get(episode_ids[leak.row])
            et = ep.known.get(fold(value), ("PERSON", ""))[0] if ep else "PERSON"
        by_cell[(leak.column, leak.row)].setdefault(value, et)
    columns: dict[str, list[Any]] = {}
    replaced = 0
    for (col, row), values in sorted(by_cell.items()):
        cells = columns.setdefault(col, column_values(table, col, len(episode_ids)))
        text = cells[row]
        if not isinstance(text, str):
            continue
        # on the cell's folded text: a value written in other digits ("٤٥١٢", "４５１２") too
        rx = compile_values({fold(v) for v in values}, across_tokens=True)
        tokens: list[tuple[str, str]] = []
        replace = partial(_replace_values, rx=rx, values=values, masker=masker, out=tokens)
        cells[row] = replace_in_cell(text, replace)
        for et, token in tokens:
            mp.record(row, col, et, SECOND_LINE, 1.0, token)
        replaced += len(tokens)
    if not columns:
        return table, 0
    return replace_columns(table, columns), replaced


def _replace_values(
    part: str,
    rx: re.Pattern[str],
    values: dict[str, str],
    masker: Masker,
    out: list[tuple[str, str]],
) -> str:
    """``part`` with each match of ``rx`` outside tokens (in its normalised view, mapped back)
    replaced by its keyed token; ``out`` gets ``(type, token)`` per replacement. A match that
    runs across whole tokens has each of its pieces between them replaced (the tokens stay)."""
    view = text_view(part)
    folded = fold(view.text if view else part)
    hits = [(m.start(), m.end()) for m in rx.finditer(folded)]
    hits += _unbounded_hits(folded, values, hits)
    taken = [(t.start(), t.end()) for t in TOKEN_RE.finditer(part)]
    replaced_from = len(part)
    for a, b in sorted(map_spans(view, hits), reverse=True):
        inner = [(x, y) for x, y in taken if x < b and a < y]
        if b > replaced_from or any(x < a or y > b for x, y in inner):
            continue  # inside a token, or inside the groups a find to its right took
        if inner:
            part = _replace_pieces(part, a, b, inner, values, masker, out)
            replaced_from = a
            continue
        raw = part[a:b]
        et = next((t for v, t in values.items() if fold(v) == fold(raw)), None)
        et = et or next(iter(values.values()))
        if et not in DATE_TYPES and any(c.isdigit() for c in raw):  # an id printed in groups
            wa, wb = whole_id(part, a, b, et)
            if wb <= replaced_from and not any(x < wb and wa < y for x, y in taken):
                a, b = wa, wb
        token = masker.token(part[a:b], et)
        out.append((et, token))
        part = part[:a] + token + part[b:]
        replaced_from = a
    return part


#: A value with this many digits is masked where the scan found it inside a longer word.
_ID_DIGITS = 4


def _unbounded_hits(
    folded: str, values: dict[str, str], hits: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Where a value of ``_ID_DIGITS`` digits or more that no word-bounded find met stands in
    ``folded`` inside a longer word: the scan's bounds are its own ("<id>X", an id glued to a
    letter), and the value must go all the same."""
    out: list[tuple[int, int]] = []
    for value in values:
        fv = fold(value.strip())
        if sum(c.isdigit() for c in fv) < _ID_DIGITS:
            continue
        spans = [(m.start(), m.start() + len(fv)) for m in re.finditer(re.escape(fv), folded)]
        if not any(a < e and s < b for s, e in spans for a, b in hits):
            out += spans
    return out


def _replace_pieces(
    part: str,
    a: int,
    b: int,
    tokens: list[tuple[int, int]],
    values: dict[str, str],
    masker: Masker,
    out: list[tuple[str, str]],
) -> str:
    """``part`` with the pieces of ``part[a:b]`` between its ``tokens`` replaced by their keyed
    tokens, right to left, each of the type of the value found."""
    words = fold(" ".join(TOKEN_RE.sub(" ", part[a:b]).split()))
    et = next((t for v, t in values.items() if fold(" ".join(v.split())) == words), None)
    et = et or next(iter(values.values()))
    pieces, start = [], a
    for x, y in [*tokens, (b, b)]:
        piece = part[start:x]
        lead = len(piece) - len(piece.lstrip())
        if piece.strip():
            pieces.append((start + lead, start + lead + len(piece.strip())))
        start = y
    for s, e in reversed(pieces):
        token = masker.token(part[s:e], et)
        out.append((et, token))
        part = part[:s] + token + part[e:]
    return part


def mask_steps(
    table: pa.Table | pd.DataFrame,
    masker: Masker,
    scan: bool = True,
    on_leak: Literal["withhold", "raise"] = "withhold",
) -> MaskResult:
    """Mask the text columns of one day of canonical step rows (see module doc).

    When the final scan still finds personal data in an episode, that episode is withheld
    (``MaskResult.withheld``), or, with ``on_leak="raise"``, ``PIILeakError`` is raised for the
    whole table. An episode whose masking raised is withheld either way, with the stage and the
    exception's type as its reason (``stats["failed_episodes"]``). ``scan=False`` skips the scan.
    """
    t0 = time.perf_counter()
    n = table.num_rows if isinstance(table, pa.Table) else len(table)
    columns = [c for c in masker.columns if c in table_columns(table)]
    episode_ids = [str(e) if e is not None else "" for e in column_values(table, "episode_id", n)]
    steps = column_values(table, "step", n)
    ds = column_values(table, "ds", n)
    mp = Partition(masker)
    episodes: dict[str, Episode] = defaultdict(Episode)
    to_analyse: dict[str, Route] = {}
    # episodes whose masking raised, with where and the exception's type (never its message,
    # which may quote a value): they are withheld, the rest of the day goes on
    failed: dict[str, str] = {}
    n_strings = 0

    # phase 1: parse, collect known entities and the strings to analyse
    cells: dict[str, list[tuple[str, Any] | None]] = {}
    cell_texts: dict[str, list[str | None]] = {}  # each cell's clean text (phase 3 re-encodes JSON)
    for col in columns:
        plan: list[tuple[str, Any] | None] = []
        cell_texts[col] = []
        # a cell repeated in its episode (the task goal on every row) is parsed and collected
        # once: collecting is idempotent; its guard rows are recorded again on every row
        seen: dict[tuple[str, str], tuple[tuple[str, Any], int]] = {}
        for row, raw in enumerate(column_values(table, col, n)):
            try:
                text, unclean = clean_text(raw)
            except Exception as exc:  # noqa: BLE001 - one cell never fails the day
                failed.setdefault(episode_ids[row], failure(f"read {col}", exc))
                text, unclean = None, False
            cell_texts[col].append(text)
            if unclean:
                mp.record(row, col, "UNPARSEABLE", GUARD, 1.0, None)
            if text is None:
                plan.append(None)
                continue
            n_strings += 1
            ep = episodes[episode_ids[row]]
            if len(text) > masker.max_text_chars:
                plan.append(("huge", text))
                continue
            if len(text) > CHUNK_CHARS:
                mp.record(row, col, "CHUNKED", GUARD, 1.0, None)
            again = seen.get((episode_ids[row], text))
            if again is not None:
                if again[1]:
                    mp.record(row, col, "UNPARSEABLE", GUARD, 1.0, None)
                plan.append(again[0])
                continue
            n_guard = len(mp.records)
            try:
                plan.append(collect_cell(text, col, row, ep, mp, to_analyse, masker.max_depth))
            except Exception as exc:  # noqa: BLE001 - one cell never fails the day
                failed.setdefault(episode_ids[row], failure(f"collect {col}", exc))
                plan.append(None)
                continue
            seen[(episode_ids[row], text)] = (plan[-1], len(mp.records) - n_guard)
        cells[col] = plan
    t1 = time.perf_counter()

    # phase 2: analyse each unique string once
    failed_strings: dict[str, str] = {}
    ner = [s for s, r in to_analyse.items() if r is Route.NER]
    rx = [s for s, r in to_analyse.items() if r is Route.REGEX]
    for texts, use_ner in ((rx, False), (ner, True)):  # rx here while the workers start
        analyse(texts, use_ner, mp, failed_strings)
    t2 = time.perf_counter()

    # an id given in answer to the previous step's question ("Your member ID?" / "QX77120B")
    known_answers(cells.get("content"), episode_ids, steps, episodes, failed)

    # known entities: structured values + confident detections anywhere in the episode
    for eid, ep in episodes.items():
        for s in sorted((ep.texts | ep.label_texts.keys()) & failed_strings.keys()):
            failed.setdefault(eid, failed_strings[s])
        try:
            settle_known(ep, mp)
        except Exception as exc:  # noqa: BLE001 - one episode never fails the day
            failed.setdefault(eid, failure("known values", exc))

    # phase 3: apply
    out_cols: dict[str, list[str | None]] = {}
    for col in columns:
        out_cols[col] = out = []
        for row, item in enumerate(cells[col]):
            eid = episode_ids[row]
            if item is None or eid in failed:
                out.append(None)
                continue
            try:
                out.append(mp.apply_cell(item, cell_texts[col][row], episodes[eid], row, col))
            except Exception as exc:  # noqa: BLE001 - one cell never fails the day
                failed.setdefault(eid, failure(f"apply {col}", exc))
                out.append(None)
    t3 = time.perf_counter()

    masked = replace_columns(table, out_cols)
    leaks: list[Leak] = []
    second_line = 0
    if scan:
        known = {e: {v for v in ep.raw_found if v.strip()} for e, ep in episodes.items()}
        found = find_leaks(masked, known_values=known)  # every string column
        # the second line's finds are masked with their keyed tokens, then re-scanned: a cell
        # with new tokens may read differently ("<word> <digits>" once its neighbour is a token)
        for _ in range(SECOND_LINE_ROUNDS):
            if not found:
                break
            masked, replaced = mask_leaks(masked, found, masker, episodes, episode_ids, mp)
            second_line += replaced
            found = find_leaks(masked, known_values=known)
        leaks = [leak for leak, _ in found]
    if leaks and on_leak == "raise":
        raise PIILeakError(leaks)
    withheld = withheld_episodes(leaks, episode_ids, ds, failed)
    held = set(withheld.column("episode_id").to_pylist())
    kept_rows = [r for r in range(n) if episode_ids[r] not in held]
    records = [r for r in mp.records if episode_ids[r.row] not in held]
    if held:
        masked = take_rows(masked, kept_rows)
        logger.warning(
            "withheld %d of %d episodes: %d where the final scan found personal data, "
            "%d whose masking failed (%s)",
            len(held),
            len(episodes),
            len(held) - len(failed),
            len(failed),
            ", ".join(sorted(set(failed.values()))) or "-",
        )
    audit = audit_table(records, ds, episode_ids, steps)
    t4 = time.perf_counter()
    stats = {
        "rows": n,
        "episodes": len(episodes),
        "strings": n_strings,
        "unique_analysed": len(to_analyse),
        "ner_strings": len(ner),
        "regex_strings": len(rx),
        "entities": dict(Counter(r.entity_type for r in records)),
        "fields": dict(Counter(r.field.split(".", 1)[0] for r in records)),
        "detectors": dict(Counter(r.detector for r in records)),
        "leaks": len(leaks),
        # what the final scan found in the rows returned (0 unless withholding failed): the
        # blocking check trusts it for a stored day whose digest matches (scan/digest.py)
        "leaks_written": sum(1 for lk in leaks if episode_ids[lk.row] not in held),
        "second_line_masked": second_line,
        "withheld_episodes": len(held),
        "withheld_rows": n - len(kept_rows),
        "failed_episodes": len(failed),
        "leaks_by_detector": dict(Counter(lk.detector for lk in leaks)),
        "seconds": {"collect": t1 - t0, "analyse": t2 - t1, "apply": t3 - t2, "scan": t4 - t3},
    }
    return MaskResult(masked=masked, audit=audit, stats=stats, withheld=withheld)
