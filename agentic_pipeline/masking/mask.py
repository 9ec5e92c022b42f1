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
4. *scan* the output (``scan.py``, detectors of another family than the ones that masked) and
   *withhold* every episode in which anything is left: its rows leave the masked table and its
   audit, and ``MaskResult.withheld`` names it with the reason (counts, never a value). The rest of
   the day is returned; the raw rows stay where they were, so masking the day again re-tries it.

The audit never holds a raw value; exceptions and logs neither.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import logging
import re
import time
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

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
    key_entity,
    looks_like_json,
    parse_json,
    walk,
)
from agentic_pipeline.masking.pseudonyms import DEV_MASKING_KEY, TOKEN_RE, Pseudonymizer, fold
from agentic_pipeline.masking.ray_pool import RayAnalyzerPool, analyzer_pool
from agentic_pipeline.masking.recognizers import (
    COMMON_WORDS,
    PHONE_CONTEXT_WORDS,
    is_name_pair,
    name_gazetteer,
    not_a_name_word,
)
from agentic_pipeline.masking.refine import refine_spans
from agentic_pipeline.masking.router import Route, route
from agentic_pipeline.masking.scan import Leak, PIILeakError, compile_values, scan_for_leaks

logger = logging.getLogger(__name__)

MASK_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
JSON_COLUMNS = frozenset({"tool_arguments", "task_goal", "context"})
#: Known-entity types propagated to the episode's free text.
PROPAGATE = frozenset(
    {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "STREET_ADDRESS",
        "DATE_OF_BIRTH",
        "USER_ID",
        "CARD_LAST4",
        "CREDIT_CARD",
        "US_SSN",
        "IBAN_CODE",
        "ZIP_CODE",
        "BANK_ACCOUNT",
        "ID_DOCUMENT",
        "IP_ADDRESS",
    }
)
#: Types whose raw values the final scan searches for (short/ambiguous types left out).
SCAN_KNOWN = PROPAGATE - {"CARD_LAST4", "ZIP_CODE"}
_NAME_STOP = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "jr",
        "sr",
        "the",
        "and",
        "of",
        "van",
        "von",
        "de",
        "da",
        "del",
        "la",
        "le",
        "st",
    }
)
_NAME_SPLIT = re.compile(r"[\s,.]+")
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_GUARD = "guard"
#: snake_case / dotted identifiers are never person names (``"name": "book_reservation"``).
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:[_.:/-][a-z0-9]+)+$")

AUDIT_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("step", pa.int32()),
        ("row", pa.int64()),
        ("field", pa.string()),
        ("entity_type", pa.string()),
        ("detector", pa.string()),
        ("score", pa.float64()),
        ("pseudonym", pa.string()),
    ]
)


WITHHELD_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("rows", pa.int64()),
        ("leaks", pa.int64()),
        ("reason", pa.string()),
    ]
)


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
        ray_address: str | None = None,
        ray_workers: int = 0,
    ) -> None:
        self.pseudonyms = Pseudonymizer(key)  # the key stays here: Ray actors only detect spans
        # the local process pool, or Ray actors when a Ray address is given (or RAY_ADDRESS)
        self.pool: AnalyzerPool | RayAnalyzerPool = analyzer_pool(
            AnalyzerConfig(
                model_name=model_name,
                phone_regions=tuple(phone_regions),
                entities=MASK_ENTITIES,
                min_score=min_score,
                max_ner_chars=max_ner_chars,
            ),
            n_workers=n_workers,
            address=ray_address,
            ray_workers=ray_workers,
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

    known: dict[str, tuple[str, str]] = field(default_factory=dict)  # fold -> (type, det)
    strong: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    matcher: re.Pattern[str] | None = None
    strong_matcher: re.Pattern[str] | None = None
    raw_found: set[str] = field(default_factory=set)
    #: weak (NER-only) values -> the distinct strings that tagged them; two make them known
    weak_votes: dict[str, set[str]] = field(default_factory=dict)
    weak_types: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: values of bare ``name`` keys: a name detection covering one is a structured person name
    name_fields: set[str] = field(default_factory=set)

    def add_known(self, value: str, entity_type: str, detector: str, strong: bool = True) -> None:
        """Remember ``value`` (and name parts / date spellings) for propagation.

        Only strong evidence makes an episode-wide value: a structured field, a high-precision
        recognizer, or repeated NER agreement (``vote``); one weak NER hit never does."""
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
        self.known.setdefault(fold(value), (entity_type, detector))
        if entity_type == "PERSON":
            for part in _NAME_SPLIT.split(value):
                if len(part) >= 2 and fold(part) not in _NAME_STOP | COMMON_WORDS:
                    self.known.setdefault(fold(part), ("PERSON", detector))
        elif entity_type == "STREET_ADDRESS" and "," in value:
            for part in value.split(","):
                part = part.strip()
                if len(part) >= 6 and any(c.isdigit() for c in part):
                    self.known.setdefault(fold(part), ("STREET_ADDRESS", detector))
        elif entity_type == "DATE_OF_BIRTH":
            for alt in _date_variants(value):
                self.known.setdefault(fold(alt), ("DATE_OF_BIRTH", detector))

    def vote(self, value: str, entity_type: str, source: str) -> None:
        """A weak (NER) detection of ``value`` in the string ``source`` (see ``settle_votes``)."""
        key = fold(value.strip())
        self.weak_votes.setdefault(key, set()).add(source)
        self.weak_types.setdefault(key, (value.strip(), entity_type))

    def settle_votes(self, min_votes: int = 2, min_share: float = 0.6) -> None:
        """Weak values become known when NER tagged them in ``min_votes`` distinct strings and in
        at least ``min_share`` of the free-text strings of the episode that contain them: spaCy
        tags "Houston" or "JFK" as a person in a few of many sentences, a real name in most."""
        free = [fold(t) for t in sorted(self.texts) if route(t) is Route.NER]
        for key in sorted(self.weak_votes):
            votes = self.weak_votes[key]
            if len(votes) < min_votes or key in self.known:
                continue
            rx = re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")
            containing = sum(1 for t in free if rx.search(t))
            if len(votes) >= min_share * max(containing, 1):
                value, et = self.weak_types[key]
                self.add_known(value, et, "known_entity", strong=False)


def _date_variants(value: str) -> list[str]:
    try:
        d = dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return []
    month = d.strftime("%B")
    return [
        f"{month} {d.day}, {d.year}",
        f"{month} {d.day} {d.year}",
        f"{d.day} {month} {d.year}",
        f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{d.month}/{d.day}/{d.year}",
        f"{d.day:02d}/{d.month:02d}/{d.year}",
        f"{d.strftime('%b')} {d.day}, {d.year}",
    ]


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
            if entity == "PERSON" and isinstance(value, str) and _free_name(path, value):
                _queue(value, self.ep, self.to_analyse)
                self.ep.name_fields.add(value)
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


_BARE_NAME_KEY = re.compile(r"(?i)(?:^|\.)name$")


def _free_name(path: str, value: str) -> bool:
    """A ``PERSON`` key-rule leaf whose value is analysed as text instead of masked whole: an
    identifier (``"name": "book_reservation"``), or the value of a bare ``name`` key, which names
    products, tools and places as often as people ("Desk Lamp"); NER and the name recognizers
    decide there, and such a value never becomes an episode-wide known value by its key alone."""
    return bool(_IDENTIFIER.match(value) or _BARE_NAME_KEY.search(path))


def _listed_name(value: str) -> bool:
    """Some word of ``value`` is a first or last name of the gazetteer ("Desk Lamp" is not)."""
    firsts, lasts = name_gazetteer()
    return any(fold(w) in firsts or fold(w) in lasts for w in _NAME_SPLIT.split(value) if w)


def _queue(text: str, ep: _Episode, to_analyse: dict[str, Route]) -> None:
    r = route(text)
    if r is not Route.SKIP:
        to_analyse.setdefault(text, r)
        ep.texts.add(text)
        if r is Route.NER and "\n" in text:
            for value, et in tabular_values(text):
                ep.add_known(value, et, "key_rule")


_DELIMS = (",", "\t", ";", "|")


def tabular_values(text: str) -> list[tuple[str, str]]:
    """Cells of CSV-like text (a header line and rows, returned by a tool) whose column header
    names personal data (``name``, ``email``, ``phone``, ...): ``[(value, entity_type)]``.
    NER is weak on such text; the header is a structured field."""
    import csv

    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return []
    for delim in _DELIMS:
        n = lines[0].count(delim)
        if n < 1 or sum(ln.count(delim) == n for ln in lines[1:]) < max(1, (len(lines) - 1) // 2):
            continue
        rows = list(csv.reader(lines, delimiter=delim))
        header = [key_entity(h.strip()) for h in rows[0]]
        if not any(header):
            return []
        out = []
        for row in rows[1:]:
            for et, cell in zip(header, row, strict=False):
                cell = cell.strip()
                if et in PROPAGATE and cell and not TOKEN_RE.fullmatch(cell):
                    out.append((cell, et))
        return out
    return []


class _Applier:
    """Phase-2 visitor: replace leaves, recording the audit."""

    def __init__(self, mp: _Partition, ep: _Episode, row: int, column: str) -> None:
        self.mp, self.ep, self.row, self.column = mp, ep, row, column

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        fld = f"{self.column}.{path}"
        if entity is not None:
            if isinstance(value, str) and (not value.strip() or TOKEN_RE.fullmatch(value)):
                return value
            if entity == "PERSON" and isinstance(value, str) and _free_name(path, value):
                return self.mp.mask_text(value, self.ep, self.row, fld)  # a tool/product name
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
        spans: list[Span] = [
            _whole_words(text, s)
            for s in self.analysis.get(text, ())
            if s[3] >= m.min_score and plausible(text, s)
        ]
        is_ner = route(text) is Route.NER
        if is_ner and len(text) > m.pool.config.max_ner_chars:  # NER read only its start
            self.record(row, fld, "NER_LIMITED", _GUARD, 1.0, None)
        matcher = ep.matcher if is_ner else ep.strong_matcher
        if matcher is not None:
            detected = {(s[0], s[1]) for s in spans}
            folded = fold(text)  # same length as text: positions carry over
            for hit in matcher.finditer(folded):
                if (hit.start(), hit.end()) in detected:
                    continue  # the recognizer's own detection keeps the credit in the audit
                et, _ = ep.known.get(hit.group(), ("PERSON", "known_entity"))
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
            text=text,
            analyzer_results=results,
            operators=m.operators_for({sp[2] for sp in chosen}),
            conflict_resolution=ConflictResolutionStrategy.MERGE_SIMILAR_OR_CONTAINED,
            merge_entities_with_spaces=False,
        )
        for s, e, et, sc, det in chosen:
            raw = text[s:e]
            self.record(row, fld, et, det, sc, m.token(raw, et))
            # searched by the final scan only when it is an episode-wide value: a low-score
            # detection (a lone capitalised gazetteer name) is masked where it stands only
            strong = det != "SpacyRecognizer" and fold(raw) in ep.strong
            if et in SCAN_KNOWN and strong:  # NER finds are not searched in ids and enums
                ep.raw_found.add(raw)
        return out.text


_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "our", "your", "my", "its"})
#: Entity types made of words: a span of these is widened to whole words.
_WORD_TYPES = frozenset({"PERSON", "STREET_ADDRESS", "LOCATION"})
#: Detectors whose phone numbers need no further context check (``IntlPhoneRecognizer`` applies
#: its own: context words, separators, or a national trunk prefix valid in its region).
_TRUSTED_PHONE = frozenset({"known_entity", "key_rule", "IntlPhoneRecognizer"})


def _is_word_char(ch: str) -> bool:
    """Letters, digits and combining marks (``e`` + U+0301 is one letter)."""
    return ch.isalnum() or unicodedata.category(ch).startswith("M")


def _whole_words(text: str, span: Span) -> Span:
    """Widen a word-typed span that starts or ends inside a word to the whole word, so a name is
    never cut in half ("Bernhar" + "ðsson")."""
    s, e, et, sc, det = span
    if et not in _WORD_TYPES:
        return span
    if det == "SpacyRecognizer" and "\n" in text[s:e]:  # "Jenny\nAddress": cut at the line
        first = text[s:e].strip("\n").split("\n", 1)[0]
        s = text.index(first, s) if first else s
        e = s + len(first)
    while s > 0 and _is_word_char(text[s - 1]) and _is_word_char(text[s]):
        s -= 1
    while e < len(text) and _is_word_char(text[e]) and _is_word_char(text[e - 1]):
        e += 1
    return (s, e, et, sc, det)


def plausible(text: str, span: Span) -> bool:
    """Precision filter on detections: a spaCy PERSON must not be a lower-case word, common
    vocabulary, a field label ("Phone:") or an identifier; a phone number written as a bare digit
    run (an item or order id) needs a phone word before it."""
    s, e, et, _, det = span
    value = text[s:e]
    if et == "PERSON" and det == "SpacyRecognizer":
        words = [w for w in _NAME_SPLIT.split(value) if w]
        if not words or _IDENTIFIER.match(value) or fold(words[0]) in _DETERMINERS:
            return False  # "The Desk Lamp" is a thing
        if all(w.islower() for w in words) and not (
            len(words) == 2 and is_name_pair(words[0], words[1])
        ):
            return False  # lower-case: a name only as a listed first name + surname
        if all(fold(w) in COMMON_WORDS for w in words) or (value.isupper() and len(value) <= 4):
            return False  # vocabulary, or a code such as an airport ("JFK")
        if text[e : e + 1] == ":" and len(words) == 1 and not_a_name_word(words[0]):
            return False  # a field label ("Phone:"); a speaker ("Tom: ...") stays a name
    if et == "PHONE_NUMBER" and det not in _TRUSTED_PHONE and value.isdigit():
        return PHONE_CONTEXT_WORDS.search(text, max(0, s - 40), s) is not None
    return True


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


def mask_steps(
    table: pa.Table | pd.DataFrame,
    masker: Masker,
    scan: bool = True,
    on_leak: Literal["withhold", "raise"] = "withhold",
) -> MaskResult:
    """Mask the text columns of one day of canonical step rows (see module doc).

    When the final scan still finds personal data in an episode, that episode is withheld
    (``MaskResult.withheld``), or, with ``on_leak="raise"``, ``PIILeakError`` is raised for the
    whole table. ``scan=False`` skips the scan.
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
            mp.analysis[s] = refine_spans(s, spans)
    t2 = time.perf_counter()

    # known entities: structured values + confident detections anywhere in the episode
    # (added in a fixed order: strong first, then by score, value and type; ``ep.texts`` is a set
    # whose order changes with the process's hash seed, and the first addition of a value wins)
    for ep in episodes.values():
        for s in sorted(ep.texts):  # sorted: which detector a value is credited to is stable
            for span in mp.analysis.get(s, ()):
                if span[3] < masker.propagate_min_score or not plausible(s, span):
                    continue
                a, b, et, _, det = _whole_words(s, span)
                whole_field = (
                    s in ep.name_fields
                    and et == "PERSON"
                    and b - a >= 0.8 * len(s)
                    and _listed_name(s[a:b])
                )
                if det == "SpacyRecognizer" and not whole_field:
                    ep.vote(s[a:b], et, s)
                else:
                    ep.add_known(s[a:b], et, "known_entity")
        ep.settle_votes()
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
    leaks = []
    if scan:
        known = {e: {v for v in ep.raw_found if v.strip()} for e, ep in episodes.items()}
        leaks = scan_for_leaks(masked, known_values=known)  # every string column
    if leaks and on_leak == "raise":
        raise PIILeakError(leaks)
    withheld = withheld_episodes(leaks, episode_ids, ds)
    held = set(withheld.column("episode_id").to_pylist())
    kept_rows = [r for r in range(n) if episode_ids[r] not in held]
    records = [r for r in mp.records if episode_ids[r.row] not in held]
    if held:
        masked = _take_rows(masked, kept_rows)
        logger.warning(
            "withheld %d of %d episodes: the final scan found personal data",
            len(held),
            len(episodes),
        )
    audit = _audit_table(records, ds, episode_ids, steps)
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
        "withheld_episodes": len(held),
        "withheld_rows": n - len(kept_rows),
        "leaks_by_detector": dict(Counter(lk.detector for lk in leaks)),
        "seconds": {"collect": t1 - t0, "analyse": t2 - t1, "apply": t3 - t2, "scan": t4 - t3},
    }
    return MaskResult(masked=masked, audit=audit, stats=stats, withheld=withheld)


def withheld_episodes(leaks: list[Leak], episode_ids: list[str], ds: list[Any]) -> pa.Table:
    """One row per episode with a leak: its row and leak counts and the reason, made of column,
    entity type and detector counts (never a value). Sorted by episode id."""
    by_episode: dict[str, Counter] = defaultdict(Counter)
    for lk in leaks:
        by_episode[episode_ids[lk.row]][f"{lk.column}:{lk.entity_type}/{lk.detector}"] += 1
    rows = Counter(episode_ids)
    first_ds: dict[str, Any] = {}
    for e, d in zip(episode_ids, ds, strict=True):
        first_ds.setdefault(e, d)
    eps = sorted(by_episode)
    return pa.table(
        {
            "ds": [None if first_ds[e] is None else str(first_ds[e]) for e in eps],
            "episode_id": eps,
            "rows": [rows[e] for e in eps],
            "leaks": [sum(by_episode[e].values()) for e in eps],
            "reason": [
                "final scan found personal data: "
                + ", ".join(f"{k}={v}" for k, v in sorted(by_episode[e].items()))
                for e in eps
            ],
        },
        schema=WITHHELD_SCHEMA,
    )


def _take_rows(table: Any, rows: list[int]) -> Any:
    if isinstance(table, pa.Table):
        return table.take(pa.array(rows, pa.int64()))
    return table.iloc[rows]


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

    return pa.table(
        {
            "ds": [None if ds[r.row] is None else str(ds[r.row]) for r in records],
            "episode_id": [eps[r.row] for r in records],
            "step": [step(r.row) for r in records],
            "row": [r.row for r in records],
            "field": [r.field for r in records],
            "entity_type": [r.entity_type for r in records],
            "detector": [r.detector for r in records],
            "score": [float(r.score) for r in records],
            "pseudonym": [r.pseudonym for r in records],
        },
        schema=AUDIT_SCHEMA,
    )
