"""The plain-Presidio floor for identifiers (issue #21: never below plain Presidio).

Plain Presidio masks every span its analyzer reports, whatever its score: the weak patterns of
its default US recognizers (any run of 6-14 digits as a driver's licence at 0.01, 8-17 digits as
a bank number at 0.05, a letter and 8 digits as a passport at 0.1...) and every entity spaCy
finds (an id that spaCy reads as a DATE or an ORG). Our masking has a score bar
(``Masker.min_score``) and keeps dates, places and organisations in clear, so an id that only
these find stayed in clear where plain Presidio masked it: a record number after a label we do
not know, "Encounter #55120448", a VIN read as a date.

The floor keeps such a span, at the bar's score (masked where it stands, never propagated through
the episode), when it is one identifier-shaped token (``floor_shape``: five digits or more, or
letters and four digits or more, that is no year, date, amount or hash) and nothing says it is
something else:

* a quantity or an amount: a unit or a plural noun after it ("125000 pallets", "80000 miles"), a
  currency before it, a decimal part;
* a thing's id: a thing's word before it ("order 77120334", ``apply.plausible``), the value of a
  thing's key (``item_id``), or a value the episode's JSON holds under a thing's key
  (``apply``): the same vetoes as every loose id shape.

Which recognizers the floor reads is data (``presidio.yaml``: ``floor_recognizers``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from presidio_analyzer import RecognizerResult

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.id_shapes import (
    UNIT_AFTER,
    id_value_ok,
    is_compact_date,
    is_month,
    is_year,
)
from agentic_pipeline.masking.vocabulary import STOP_WORDS, zipf

#: Detector credited in the audit for a span kept by the floor.
FLOOR_DETECTOR = "PresidioFloor"
#: Type of an id that only a spaCy entity covers (no id recognizer named it).
FLOOR_TYPE = "ID_NUMBER"
#: One identifier token: letters and digits, maybe joined by ``-`` or ``/`` ("MRN-4471205",
#: "2019/044871").
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*")
_CURRENCY_BEFORE = re.compile(r"(?i)(?:[$€£¥₹]|\b(?:usd|eur|gbp|inr|chf|rs\.?))[ \t]?$")
#: A decimal part after the number: at most three digits ("120450.75"); a comma before a cell of
#: four digits or more, or of a date, is a CSV row's separator ("61830492,2020-03-17").
_DECIMAL_AFTER = re.compile(r"[.,]\d{1,3}(?![\d/-])")
_DECIMAL_BEFORE = re.compile(r"[.,]\d")
_WORD_AFTER = re.compile(r"[ \t]+([a-z]{4,})\b")
_HASH = re.compile(r"[0-9a-f]{7,}")
#: Short numbers over slashes: a ratio or a reading ("128/84" a blood pressure, "110/220"), no id.
_RATIO = re.compile(r"\d{1,3}/\d{1,3}")
#: Word frequency (Zipf scale) of a plural's singular for the plural to read as a unit.
_PLURAL_ZIPF = 3.0


@lru_cache(maxsize=1)
def floor_recognizers() -> frozenset[str]:
    """Plain Presidio's default recognizers whose low-score finds are identifiers."""
    return frozenset(data_file("presidio.yaml")["floor_recognizers"])


def floor_shape(value: str) -> bool:
    """One identifier's shape: 5-40 characters, five digits or more (or letters and four digits
    or more), no year ("FY2024", "1990s"), date ("20240318", "2026-03"), amount, ratio ("128/84"),
    lower-case hash or one digit repeated."""
    digits = "".join(c for c in value if c.isdigit())
    letters = sum(c.isalpha() for c in value)
    if not 5 <= len(value) <= 40 or not (len(digits) >= 5 or (letters and len(digits) >= 4)):
        return False
    if not id_value_ok(value) or is_year(digits) or is_compact_date(digits) or is_month(value):
        return False
    if _RATIO.fullmatch(value):
        return False
    if len(set(digits)) == 1:
        return False  # "11111", "00000000": a placeholder identifies nobody
    return not (letters and _HASH.fullmatch(value))


def quantity_or_amount(text: str, start: int, end: int) -> bool:
    """The number at ``text[start:end]`` is a quantity or an amount: a currency before it, a
    decimal part, a unit or a plural noun after it ("125000 pallets", "3000000 EUR")."""
    if _CURRENCY_BEFORE.search(text, max(0, start - 4), start):
        return True
    if _DECIMAL_AFTER.match(text, end) or (start >= 2 and _DECIMAL_BEFORE.match(text, start - 2)):
        return True
    if UNIT_AFTER.match(text, end):
        return True
    word = _WORD_AFTER.match(text, end)
    if word is None:
        return False
    w = word.group(1)  # a plural: its singular is a word ("pallets", "nurses"; not "does")
    plural = w.endswith("s") and not w.endswith(("ss", "us", "is"))
    return plural and w not in STOP_WORDS and zipf(w[:-1]) >= _PLURAL_ZIPF


def id_token(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole identifier token around ``text[start:end]`` ("MRN-4471205" around "4471205")."""
    for m in _TOKEN.finditer(text, max(0, start - 40), min(len(text), end + 40)):
        if m.start() <= start and end <= m.end():
            return m.start(), m.end()
    return start, end


def floor_results(
    text: str,
    results: Iterable[RecognizerResult],
    entities: Iterable[tuple[int, int]],
    min_score: float,
) -> list[RecognizerResult]:
    """``results`` at or above ``min_score``, plus the floor: the id-shaped tokens that a floor
    recognizer (below the bar) or a spaCy entity (``entities``: character spans of the entities
    plain Presidio masks) covers, at ``min_score``, unless they read as a quantity or an amount
    (module doc). A result at the bar over the same token wins in ``apply`` (higher score); when
    ``apply`` vetoes it (a bare number without a phone word), the floor span still masks."""
    results = list(results)
    kept = [r for r in results if r.score >= min_score]
    candidates: dict[tuple[int, int], str] = {}
    floor = floor_recognizers()
    for r in results:
        name = (r.recognition_metadata or {}).get("recognizer_name")
        if r.score < min_score and name in floor:
            candidates.setdefault(id_token(text, r.start, r.end), r.entity_type)
    for a, b in entities:
        for m in _TOKEN.finditer(text, a, b):  # the whole token, where the entity cuts it
            candidates.setdefault(id_token(text, m.start(), m.end()), FLOOR_TYPE)
    for (s, e), et in sorted(candidates.items()):
        if not floor_shape(text[s:e]) or quantity_or_amount(text, s, e):
            continue
        meta = {"recognizer_name": FLOOR_DETECTOR}
        kept.append(RecognizerResult(et, s, e, min_score, recognition_metadata=meta))
    return kept
