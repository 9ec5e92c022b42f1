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
4. *scan* the output (``scan.py``) and raise ``PIILeakError`` if anything is left.

The audit never holds a raw value; exceptions and logs neither.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import logging
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import ConflictResolutionStrategy, RecognizerResult

from agentic_pipeline.masking.engine import (
    CHUNK_CHARS,
    DEFAULT_MODEL,
    MASK_ENTITIES,
    MAX_NER_CHARS,
    AnalyzerConfig,
    AnalyzerPool,
    Span,
)
from agentic_pipeline.masking.json_walker import (
    MAX_DEPTH,
    JsonError,
    dump_like,
    looks_like_json,
    parse_json,
    walk,
)
from agentic_pipeline.masking.pseudonyms import DEV_MASKING_KEY, TOKEN_RE, Pseudonymizer
from agentic_pipeline.masking.ray_pool import RayAnalyzerPool, analyzer_pool
from agentic_pipeline.masking.router import Route, route
from agentic_pipeline.masking.scan import PIILeakError, compile_values, scan_for_leaks

logger = logging.getLogger(__name__)

MASK_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
JSON_COLUMNS = frozenset({"tool_arguments", "task_goal", "context"})
#: Known-entity types propagated to the episode's free text.
PROPAGATE = frozenset({
    "PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS", "DATE_OF_BIRTH", "USER_ID",
    "CARD_LAST4", "CREDIT_CARD", "US_SSN", "IBAN_CODE", "ZIP_CODE", "BANK_ACCOUNT", "ID_DOCUMENT",
    "IP_ADDRESS",
})
#: Types whose raw values the final scan searches for (short/ambiguous types left out).
SCAN_KNOWN = PROPAGATE - {"CARD_LAST4", "ZIP_CODE"}
_NAME_STOP = frozenset({"mr", "mrs", "ms", "miss", "dr", "jr", "sr", "the", "and", "of", "van",
                        "von", "de", "da", "del", "la", "le", "st"})
_NAME_SPLIT = re.compile(r"[\s,.]+")
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_GUARD = "guard"
#: snake_case / dotted identifiers are never person names (``"name": "book_reservation"``).
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:[_.:/-][a-z0-9]+)+$")

AUDIT_SCHEMA = pa.schema([
    ("ds", pa.string()), ("episode_id", pa.string()), ("step", pa.int32()), ("row", pa.int64()),
    ("field", pa.string()), ("entity_type", pa.string()), ("detector", pa.string()),
    ("score", pa.float64()), ("pseudonym", pa.string()),
])


@dataclass
class MaskResult:
    """Masked table (same type, columns, rows and order as the input), audit table and stats."""

    masked: Any
    audit: pa.Table
    stats: dict[str, Any]


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
        ray_address: str | None = None,
        ray_workers: int = 0,
    ) -> None:
        self.pseudonyms = Pseudonymizer(key)  # the key stays here: Ray actors only detect spans
        # the local process pool, or Ray actors when a Ray address is given (or RAY_ADDRESS)
        self.pool: AnalyzerPool | RayAnalyzerPool = analyzer_pool(
            AnalyzerConfig(model_name=model_name, phone_regions=tuple(phone_regions),
                           entities=MASK_ENTITIES, min_score=min_score,
                           max_ner_chars=max_ner_chars),
            n_workers=n_workers, address=ray_address, ray_workers=ray_workers,
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


# --------------------------------------------------------------------------- per-partition state
@dataclass
class _Record:
    row: int
    field: str
    entity_type: str
    detector: str
    score: float
    pseudonym: str | None


@dataclass
class _Episode:
    """Known entities of one episode. ``strong`` ones (key rules, pattern detections) are matched in
    every string; ``weak`` ones (NER detections) only in free text, so that an NER false positive
    never rewrites an enum or an id."""

    known: dict[str, tuple[str, str]] = field(default_factory=dict)  # casefold -> (type, det)
    strong: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    matcher: re.Pattern[str] | None = None
    strong_matcher: re.Pattern[str] | None = None
    raw_found: set[str] = field(default_factory=set)

    def add_known(self, value: str, entity_type: str, detector: str, strong: bool = True) -> None:
        """Remember ``value`` (and name parts / date spellings) for propagation."""
        before = len(self.known)
        self._add(value, entity_type, detector)
        if strong and len(self.known) > before:  # the keys just added are the dict's last ones
            self.strong.update(itertools.islice(reversed(self.known), len(self.known) - before))

    def _add(self, value: str, entity_type: str, detector: str) -> None:
        value = value.strip()
        if entity_type not in PROPAGATE or len(value) < 2:
            return
        if entity_type in ("CARD_LAST4",) and not re.fullmatch(r"\d{4}", value):
            return
        self.known.setdefault(value.casefold(), (entity_type, detector))
        if entity_type == "PERSON":
            for part in _NAME_SPLIT.split(value):
                if len(part) >= 2 and part.casefold() not in _NAME_STOP:
                    self.known.setdefault(part.casefold(), ("PERSON", detector))
        elif entity_type == "STREET_ADDRESS" and "," in value:
            for part in value.split(","):
                part = part.strip()
                if len(part) >= 6 and any(c.isdigit() for c in part):
                    self.known.setdefault(part.casefold(), ("STREET_ADDRESS", detector))
        elif entity_type == "DATE_OF_BIRTH":
            for alt in _date_variants(value):
                self.known.setdefault(alt.casefold(), ("DATE_OF_BIRTH", detector))


def _date_variants(value: str) -> list[str]:
    try:
        d = dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return []
    month = d.strftime("%B")
    return [f"{month} {d.day}, {d.year}", f"{month} {d.day} {d.year}", f"{d.day} {month} {d.year}",
            f"{d.month:02d}/{d.day:02d}/{d.year}", f"{d.month}/{d.day}/{d.year}",
            f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.strftime('%b')} {d.day}, {d.year}"]


def _clean_text(value: Any) -> tuple[str | None, bool]:
    """A str for any cell value; the flag says the value was not clean text."""
    if value is None:
        return None, False
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace"), True
    if not isinstance(value, str):
        if isinstance(value, float) and value != value:  # NaN from pandas
            return None, False
        return str(value), False
    if _SURROGATES.search(value):
        return _SURROGATES.sub("\ufffd", value), True
    return value, False


class _Collector:
    """Phase-1 visitor: gather known entities and strings to analyse."""

    def __init__(self, ep: _Episode, to_analyse: dict[str, Route]) -> None:
        self.ep = ep
        self.to_analyse = to_analyse

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        if entity is not None:
            if entity == "PERSON" and isinstance(value, str) and _IDENTIFIER.match(value):
                _queue(value, self.ep, self.to_analyse)
            elif isinstance(value, str | int | float):
                self.ep.add_known(str(value), entity, "key_rule")
        elif isinstance(value, str):
            _queue(value, self.ep, self.to_analyse)
        return value

    def too_deep(self, path: str, subtree: Any) -> Any:
        return subtree

    def bad_json(self, path: str, text: str) -> Any:
        _queue(text, self.ep, self.to_analyse)
        return text


def _queue(text: str, ep: _Episode, to_analyse: dict[str, Route]) -> None:
    r = route(text)
    if r is not Route.SKIP:
        to_analyse.setdefault(text, r)
        ep.texts.add(text)


class _Applier:
    """Phase-2 visitor: replace leaves, recording the audit."""

    def __init__(self, mp: _Partition, ep: _Episode, row: int, column: str) -> None:
        self.mp, self.ep, self.row, self.column = mp, ep, row, column

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        fld = f"{self.column}.{path}"
        if entity is not None:
            if isinstance(value, str) and (not value.strip() or TOKEN_RE.fullmatch(value)):
                return value
            if entity == "PERSON" and isinstance(value, str) and _IDENTIFIER.match(value):
                return self.mp.mask_text(value, self.ep, self.row, fld)  # e.g. a tool name
            tok = self.mp.masker.token(value, entity)
            self.mp.record(self.row, fld, entity, "key_rule", 1.0, tok)
            if entity in SCAN_KNOWN:
                self.ep.raw_found.add(str(value))
            return tok
        if isinstance(value, str):
            return self.mp.mask_text(value, self.ep, self.row, fld)
        return value

    def too_deep(self, path: str, subtree: Any) -> Any:
        tok = self.mp.masker.token(f"{self.column}.{path}", "TRUNCATED")
        self.mp.record(self.row, f"{self.column}.{path}", "TRUNCATED", _GUARD, 1.0, tok)
        return tok

    def bad_json(self, path: str, text: str) -> Any:
        self.mp.record(self.row, f"{self.column}.{path}", "UNPARSEABLE", _GUARD, 1.0, None)
        return self.mp.mask_text(text, self.ep, self.row, f"{self.column}.{path}")


class _Partition:
    """State of one ``mask_steps`` call."""

    def __init__(self, masker: Masker) -> None:
        self.masker = masker
        self.records: list[_Record] = []
        self.analysis: dict[str, list[Span]] = {}

    def record(self, row: int, fld: str, et: str, det: str, score: float, tok: str | None) -> None:
        self.records.append(_Record(row, fld, et, det, score, tok))

    def mask_text(self, text: str, ep: _Episode, row: int, fld: str) -> str:
        """Mask one free-text string with its detections and the episode's known entities."""
        if not text or not text.strip():
            return text
        m = self.masker
        spans: list[Span] = [s for s in self.analysis.get(text, ()) if s[3] >= m.min_score]
        is_ner = route(text) is Route.NER
        if is_ner and len(text) > m.pool.config.max_ner_chars:  # NER read only its start
            self.record(row, fld, "NER_LIMITED", _GUARD, 1.0, None)
        matcher = ep.matcher if is_ner else ep.strong_matcher
        if matcher is not None:
            detected = {(s[0], s[1]) for s in spans}
            for hit in matcher.finditer(text):
                if (hit.start(), hit.end()) in detected:
                    continue  # the recognizer's own detection keeps the credit in the audit
                et, _ = ep.known.get(hit.group().casefold(), ("PERSON", "known_entity"))
                spans.append((hit.start(), hit.end(), et, 1.0, "known_entity"))
        if not spans:
            return text
        taken = [(t.start(), t.end()) for t in TOKEN_RE.finditer(text)]  # sorted, disjoint
        chosen: list[Span] = []
        for sp in sorted(spans, key=_priority):
            for a, b in _uncovered(text, sp[0], sp[1], taken):
                chosen.append((a, b, *sp[2:]))
                bisect.insort(taken, (a, b))
        if not chosen:
            return text
        chosen.sort()
        results = [RecognizerResult(et, s, e, sc) for s, e, et, sc, _ in chosen]
        out = m.anonymizer.anonymize(
            text=text, analyzer_results=results,
            operators=m.operators_for({sp[2] for sp in chosen}),
            conflict_resolution=ConflictResolutionStrategy.MERGE_SIMILAR_OR_CONTAINED,
            merge_entities_with_spaces=False,
        )
        for s, e, et, sc, det in chosen:
            raw = text[s:e]
            self.record(row, fld, et, det, sc, m.token(raw, et))
            strong = det != "SpacyRecognizer" and (
                det != "known_entity" or raw.casefold() in ep.strong)
            if et in SCAN_KNOWN and strong:  # NER finds are not searched in ids and enums
                ep.raw_found.add(raw)
        return out.text


def _priority(span: Span) -> tuple[float, int, str, str, int, int]:
    """Total order of detections (first wins): score, length, entity type, detector, start, end.

    Without the last four keys, tied detections kept their input order and the audit (which type
    and detector a replacement is credited to) could differ between runs."""
    start, end, entity_type, score, detector = span
    return (-score, -(end - start), entity_type, detector, start, end)


def _uncovered(
    text: str, start: int, end: int, taken: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Pieces of ``[start, end)`` not covered by ``taken`` (whitespace-trimmed, >= 2 chars), so a
    lower-priority span that partly overlaps a better one still masks the rest.

    ``taken`` holds disjoint intervals sorted by start: only the ones overlapping ``[start, end)``
    are looked at (bisection), so a string with thousands of detections stays linear.
    """
    j = bisect.bisect_left(taken, (end,)) - 1  # the last interval starting before ``end``
    overlapping = []
    while j >= 0 and taken[j][1] > start:  # disjoint and sorted: their ends increase too
        overlapping.append(taken[j])
        j -= 1
    pieces, pos = [], start
    for s, e in reversed(overlapping):
        if s > pos:
            pieces.append((pos, s))
        pos = max(pos, e)
    if pos < end:
        pieces.append((pos, end))
    out = []
    for a, b in pieces:
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if b - a >= 2:
            out.append((a, b))
    return out


def _table_columns(table: Any) -> list[str]:
    return list(table.column_names if isinstance(table, pa.Table) else table.columns)


def _get(table: Any, name: str, n: int) -> list[Any]:
    if name not in _table_columns(table):
        return [None] * n
    if isinstance(table, pa.Table):
        return table.column(name).to_pylist()
    return [None if (isinstance(v, float) and v != v) else v for v in table[name].tolist()]


def mask_steps(table: pa.Table | pd.DataFrame, masker: Masker, scan: bool = True) -> MaskResult:
    """Mask the text columns of one day of canonical step rows (see module doc).

    Raises ``PIILeakError`` when the final scan still finds personal data (``scan=False`` skips it).
    """
    t0 = time.perf_counter()
    n = table.num_rows if isinstance(table, pa.Table) else len(table)
    columns = [c for c in masker.columns if c in _table_columns(table)]
    episode_ids = [str(e) if e is not None else "" for e in _get(table, "episode_id", n)]
    steps = _get(table, "step", n)
    ds = _get(table, "ds", n)
    mp = _Partition(masker)
    episodes: dict[str, _Episode] = defaultdict(_Episode)
    to_analyse: dict[str, Route] = {}
    n_strings = 0

    # phase 1: parse, collect known entities and the strings to analyse
    cells: dict[str, list[tuple[str, Any] | None]] = {}
    for col in columns:
        plan: list[tuple[str, Any] | None] = []
        for row, raw in enumerate(_get(table, col, n)):
            text, unclean = _clean_text(raw)
            if unclean:
                mp.record(row, col, "UNPARSEABLE", _GUARD, 1.0, None)
            if text is None:
                plan.append(None)
                continue
            n_strings += 1
            ep = episodes[episode_ids[row]]
            if len(text) > masker.max_text_chars:
                plan.append(("huge", text))
                continue
            if len(text) > CHUNK_CHARS:
                mp.record(row, col, "CHUNKED", _GUARD, 1.0, None)
            if (col in JSON_COLUMNS or looks_like_json(text)) and text.strip():
                try:
                    obj = parse_json(text)
                except JsonError:
                    if col in JSON_COLUMNS:
                        mp.record(row, col, "UNPARSEABLE", _GUARD, 1.0, None)
                    obj = None
                else:
                    if isinstance(obj, dict | list):
                        walk(obj, _Collector(ep, to_analyse), max_depth=masker.max_depth)
                        plan.append(("json", obj))
                        continue
            _queue(text, ep, to_analyse)
            plan.append(("text", text))
        cells[col] = plan
    t1 = time.perf_counter()

    # phase 2: analyse each unique string once
    ner = [s for s, r in to_analyse.items() if r is Route.NER]
    rx = [s for s, r in to_analyse.items() if r is Route.REGEX]
    for texts, use_ner in ((ner, True), (rx, False)):
        for s, spans in zip(texts, masker.pool.analyze(texts, use_ner), strict=True):
            mp.analysis[s] = spans
    t2 = time.perf_counter()

    # known entities: structured values + confident detections anywhere in the episode
    for ep in episodes.values():
        for s in ep.texts:
            for a, b, et, sc, det in mp.analysis.get(s, ()):
                if sc >= masker.propagate_min_score:
                    ep.add_known(s[a:b], et, "known_entity", strong=det != "SpacyRecognizer")
        ep.matcher = compile_values(ep.known.keys())
        ep.strong_matcher = compile_values(ep.strong)

    # phase 3: apply
    out_cols: dict[str, list[str | None]] = {}
    for col in columns:
        new: list[str | None] = []
        for row, item in enumerate(cells[col]):
            if item is None:
                new.append(None)
                continue
            kind, val = item
            ep = episodes[episode_ids[row]]
            if kind == "huge":
                tok = masker.token(val, "TRUNCATED")
                mp.record(row, col, "TRUNCATED", _GUARD, 1.0, tok)
                new.append(tok)
            elif kind == "json":
                masked = walk(val, _Applier(mp, ep, row, col), max_depth=masker.max_depth)
                raw = _get_cell_text(table, col, row)
                unchanged = masked == val and raw is not None
                new.append(raw if unchanged else dump_like(masked, raw or ""))
            else:
                new.append(mp.mask_text(val, ep, row, col))
        out_cols[col] = new
    t3 = time.perf_counter()

    masked = _replace_columns(table, out_cols)
    audit = _audit_table(mp.records, ds, episode_ids, steps)
    leaks = []
    if scan:
        known = {e: {v for v in ep.raw_found if v.strip()} for e, ep in episodes.items()}
        leaks = scan_for_leaks(masked, known_values=known)  # every string column
    t4 = time.perf_counter()
    stats = {
        "rows": n, "episodes": len(episodes), "strings": n_strings,
        "unique_analysed": len(to_analyse), "ner_strings": len(ner), "regex_strings": len(rx),
        "entities": dict(Counter(r.entity_type for r in mp.records)),
        "fields": dict(Counter(r.field.split(".", 1)[0] for r in mp.records)),
        "detectors": dict(Counter(r.detector for r in mp.records)),
        "leaks": len(leaks),
        "seconds": {"collect": t1 - t0, "analyse": t2 - t1, "apply": t3 - t2, "scan": t4 - t3},
    }
    if leaks:
        raise PIILeakError(leaks)
    return MaskResult(masked=masked, audit=audit, stats=stats)


def _get_cell_text(table: Any, col: str, row: int) -> str | None:
    v = table.column(col)[row].as_py() if isinstance(table, pa.Table) else table[col].iloc[row]
    text, _ = _clean_text(v)
    return text


def _replace_columns(table: Any, new: dict[str, list[str | None]]) -> Any:
    if isinstance(table, pa.Table):
        for col, values in new.items():
            idx = table.column_names.index(col)
            old = table.schema.field(idx)
            typ = old.type if pa.types.is_large_string(old.type) else pa.string()
            table = table.set_column(idx, old.with_type(typ), pa.array(values, typ))
        return table
    out = table.copy()
    for col, values in new.items():
        out[col] = pd.Series(values, index=out.index, dtype=object)
    return out


def _audit_table(
    records: list[_Record], ds: list[Any], eps: list[str], steps: list[Any]
) -> pa.Table:
    def step(r: int) -> int | None:
        v = steps[r]
        return None if v is None else int(v)

    return pa.table({
        "ds": [None if ds[r.row] is None else str(ds[r.row]) for r in records],
        "episode_id": [eps[r.row] for r in records],
        "step": [step(r.row) for r in records],
        "row": [r.row for r in records],
        "field": [r.field for r in records],
        "entity_type": [r.entity_type for r in records],
        "detector": [r.detector for r in records],
        "score": [float(r.score) for r in records],
        "pseudonym": [r.pseudonym for r in records],
    }, schema=AUDIT_SCHEMA)
