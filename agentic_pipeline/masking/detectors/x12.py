"""Personal elements of ASC X12 health-care transactions pasted into a log (an 837 claim, an 835
remittance, an 834 enrolment, a 270/271 eligibility check in a clearing-house tool's result): the
names of the people of ``NM1`` segments, their ids, their addresses (``N3`` and ``N4`` after a
person's ``NM1``, masked as one address), birth dates (``DMG``), the personal references
(``REF``), contacts (``PER``), claims' control numbers and group numbers (``x12.yaml``).

Segments end at the terminator (``~`` by default) or a line break, elements are parted by ``*``;
an ``ISA`` header declares its own separators, which are then read from it. A text is read as
X12 when two segments of ``x12.yaml``'s ``segment_ids`` are in it. A name here is decided by its
element, not by the name model (``names/recognizer.decide_persons``): "DOE*JANE*Q" is no prose.
Our own reader: the X12 parsers on the package index (``pyx12``, ``badx12``) read a whole
interchange from its ``ISA`` on and reject an excerpt of a few segments, which is what a log holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.span_finder import (
    SpanFinderRecognizer,
    first_to_last,
    separated_parts,
)

DETECTOR = "X12ElementRecognizer"
#: As sure as a value under its label (``hl7.SCORE``).
SCORE = 0.95
#: ISA is 106 characters: the element separator follows "ISA", the segment terminator ends it.
_ISA = re.compile(r"ISA(?P<el>[^\w\s])")
_ISA_LENGTH = 106
_DEFAULT = ("*", "~")


@cache
def _table() -> dict:
    data = data_file("x12.yaml")
    ids = {
        str(k): (v, False) if isinstance(v, str) else (v["type"], bool(v.get("any")))
        for k, v in data["nm1_ids"].items()
    }
    return {
        **data,
        "nm1_ids": ids,
        "ref_ids": {str(k): v for k, v in data["ref_ids"].items()},
        "segment_ids": frozenset(data["segment_ids"]),
    }


def _separators(text: str) -> tuple[str, str]:
    """The element separator and segment terminator: the ``ISA`` header's, else the defaults."""
    m = _ISA.search(text)
    if m and len(text) >= m.start() + _ISA_LENGTH:
        term = text[m.start() + _ISA_LENGTH - 1]
        if not term.isalnum() and term != m.group("el"):
            return m.group("el"), term
    return _DEFAULT


@cache
def _segment_re(el: str, term: str) -> re.Pattern[str]:
    stops = re.escape(term) + r"\r\n"
    return re.compile(
        rf"(?:^|(?<=[{stops}]))[ \t]*(?P<id>[A-Z][A-Z0-9]{{1,2}}){re.escape(el)}"
        rf"(?P<body>[^{stops}]*)"
    )


def _value(text: str, elements: list[tuple[int, int]], number: int) -> str:
    """Element ``number`` (1-based, as the standard counts) without its blanks; "" past the end."""
    return text[slice(*elements[number - 1])].strip() if number <= len(elements) else ""


def _segments(text: str) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """(segment id, its elements) of each segment of ``text``."""
    el, term = _separators(text)
    for m in _segment_re(el, term).finditer(text):
        yield m.group("id"), list(separated_parts(text, m.start("body"), m.end("body"), el))


def x12_elements(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of every personal element of the X12 segments of ``text``."""
    if "NM1" not in text and "DMG" not in text and "REF" not in text:
        return []
    table = _table()
    segments = [s for s in _segments(text) if s[0] in table["segment_ids"]]
    if len({s[0] for s in segments}) < 2:
        return []
    out: list[tuple[int, int, str]] = []
    person = False  # the last NM1 names a person: the N3 and N4 after it are theirs
    street: tuple[int, int] | None = None  # a person's N3, waiting for its N4
    for seg, els in segments:
        if seg != "N4" and street is not None:
            out.append((*street, "STREET_ADDRESS"))
            street = None
        if seg == "NM1":
            person = _value(text, els, 2) == table["person_qualifier"]
            out.extend(_party(text, els, person))
        elif seg == "N3" and person:
            street = first_to_last(els, range(0, 2))  # N3-01, N3-02
        elif seg == "N4" and person:
            place = first_to_last(els, range(0, 4))  # N4-01 to N4-04
            whole = (street[0], place[1]) if street and place else street or place
            if whole is not None:
                out.append((*whole, "STREET_ADDRESS"))
            street = None
        elif seg == "PER":
            out.extend(_contact(text, els))
        else:
            out.extend(_reference(text, seg, els))
    if street is not None:
        out.append((*street, "STREET_ADDRESS"))
    return out


def _party(text: str, els: list[tuple[int, int]], person: bool) -> Iterator[tuple[int, int, str]]:
    """An ``NM1``'s person name (elements 3 to 7) and its id (element 9, typed by element 8)."""
    name = first_to_last(els, range(2, 7)) if person else None  # NM1-03 to NM1-07
    if name is not None:
        yield (*name, "PERSON")
    kind, any_entity = _table()["nm1_ids"].get(_value(text, els, 8), (None, False))
    if kind is not None and (person or any_entity) and _value(text, els, 9):
        yield (*els[8], kind)


def _reference(text: str, seg: str, els: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
    """A birth date (``DMG``), a personal reference (``REF``), a claim's control number and an
    insured's group number."""
    table = _table()
    first, second = _value(text, els, 1), _value(text, els, 2)
    if seg == "DMG" and first in ("D8", "RD8") and second:
        yield (*els[1], "DATE_OF_BIRTH")
    elif seg == "REF" and first in table["ref_ids"] and second:
        yield (*els[1], table["ref_ids"][first])
    elif seg in table["control_numbers"] and first:
        yield (*els[0], "REFERENCE_ID")
    elif seg == table["group_number"] and _value(text, els, 3):
        yield (*els[2], "INSURANCE_ID")


def _contact(text: str, els: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
    """A ``PER`` segment's name (element 2), unless it is made of common words ("BILLING
    DEPARTMENT"), and its numbers (elements 4, 6, 8, each typed by the qualifier before it)."""
    from agentic_pipeline.masking.names.lexicon import listed_name
    from agentic_pipeline.masking.vocabulary import is_vocabulary

    numbers = _table()["per_numbers"]
    words = re.findall(r"[^\W\d_]+", _value(text, els, 2))
    if words and any(listed_name(w) or not is_vocabulary(w, 3.0) for w in words):
        yield (*els[1], "PERSON")
    for n in (4, 6, 8):
        kind = numbers.get(_value(text, els, n - 1))
        if kind is not None and _value(text, els, n):
            yield (*els[n - 1], kind)


class X12ElementRecognizer(SpanFinderRecognizer):
    """The personal elements of X12 health-care segments (``x12_elements``)."""

    def __init__(self) -> None:
        t = _table()
        entities = {"PERSON", "STREET_ADDRESS", "DATE_OF_BIRTH", "PHONE_NUMBER", "EMAIL_ADDRESS"}
        entities |= {k for k, _ in t["nm1_ids"].values()} | set(t["ref_ids"].values())
        entities |= {"INSURANCE_ID", "REFERENCE_ID"}
        super().__init__(x12_elements, entities, DETECTOR, SCORE)
