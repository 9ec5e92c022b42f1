"""Personal fields of HL7 version 2 messages pasted into a log (a clinical tool's result, a ticket):
the patient's, next of kin's, guarantor's and insured's names, ids, birth dates, addresses and
phone numbers, and the clinicians' names and ids (``hl7.yaml``: segment, field number and data
type, and the id type codes of HL7 table 0203).

A segment is found where a line (HL7 ends segments with a carriage return) starts with a segment
id of ``hl7.yaml`` and the field separator. The separators are the message's own, read from its
MSH segment, else the standard ``|^~\\&``. A name in an HL7 field is written in capitals and
split by ``^`` ("FAMILY^GIVEN^M"): the name model, reading prose, does not take it, so the field's
position decides. Our own reader: a whole-message parser (``hl7``, ``hl7apy``) expects a message
that starts with MSH and is complete, where logs carry excerpts of a segment or two inside text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.span_finder import (
    SpanFinderRecognizer,
    first_to_last,
    separated_parts,
)

#: The standard separators: field, component, repetition (MSH-1 and MSH-2).
_DEFAULT = ("|", "^", "~")
_MSH = re.compile(r"(?:^|(?<=[\r\n]))[ \t]*MSH(?P<field>[^\w\s])(?P<comp>[^\w\s])(?P<rep>[^\w\s])")
#: Components of a name (family, given, middle, suffix) and of an XCN's name (after its id).
_NAME_COMPONENTS = range(0, 4)
_XCN_NAME_COMPONENTS = range(1, 5)
#: Components of an address: street, other designation, city, state, postcode, country.
_ADDRESS_COMPONENTS = range(0, 6)
#: The score of a field found by its position: as sure as a value under its label, ahead of the
#: pattern detectors that would take part of it ("555-0168" of "(740)555-0168").
SCORE = 0.95
#: The detector name recorded in the audit; its person spans are decided by position, not by the
#: name model (``names/recognizer.decide_persons``).
DETECTOR = "Hl7FieldRecognizer"
#: Whole-field types and the entity each is masked as.
_WHOLE = {"SSN": "US_SSN", "DLN": "US_DRIVER_LICENSE", "POLICY": "INSURANCE_ID"}


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, dict[int, str]], dict[str, str], str]:
    data = data_file("hl7.yaml")
    segments = {
        seg: {int(k): v for k, v in fields.items()} for seg, fields in data["segments"].items()
    }
    return segments, data["id_types"], data["default_id"]


@lru_cache(maxsize=8)
def _segment_re(field: str) -> re.Pattern[str]:
    ids = "|".join(sorted(_table()[0]))
    return re.compile(rf"(?:^|(?<=[\r\n]))[ \t]*(?P<id>{ids}){re.escape(field)}(?P<body>[^\r\n]*)")


def _id_type(text: str, parts: list[tuple[int, int]], index: int) -> str:
    _, id_types, default = _table()
    code = text[slice(*parts[index])].strip() if index < len(parts) else ""
    return id_types.get(code.upper(), default)


def _field_entities(
    text: str, start: int, end: int, kind: str, comp: str, rep: str
) -> Iterator[tuple[int, int, str]]:
    """(start, end, entity type) of the personal values of one field."""
    if kind in _WHOLE:
        first = next(separated_parts(text, start, end, comp))
        if first[1] > first[0]:
            yield first[0], first[1], _WHOLE[kind]
        return
    for r_start, r_end in separated_parts(text, start, end, rep):
        parts = list(separated_parts(text, r_start, r_end, comp))
        spans: list[tuple[tuple[int, int] | None, str]] = []
        if kind == "XPN":
            spans.append((first_to_last(parts, _NAME_COMPONENTS), "PERSON"))
        elif kind == "XCN":
            spans.append((first_to_last(parts, range(0, 1)), _id_type(text, parts, 12)))
            spans.append((first_to_last(parts, _XCN_NAME_COMPONENTS), "PERSON"))
        elif kind == "XAD":
            spans.append((first_to_last(parts, _ADDRESS_COMPONENTS), "STREET_ADDRESS"))
        elif kind == "XTN":  # the formatted number, else the whole (an e-mail, parts of one)
            whole = (r_start, r_end) if r_end > r_start else None
            spans.append((first_to_last(parts, range(0, 1)) or whole, "PHONE_NUMBER"))
        elif kind == "CX":
            spans.append((first_to_last(parts, range(0, 1)), _id_type(text, parts, 4)))
        elif kind == "DOB":
            spans.append((first_to_last(parts, range(0, 1)), "DATE_OF_BIRTH"))
        for span, entity in spans:
            if span is not None:
                yield span[0], span[1], entity


def hl7_fields(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of every personal value in the HL7 segments of ``text``."""
    if "|" not in text and "MSH" not in text:  # no segment with the standard or its own separator
        return []
    m = _MSH.search(text)
    field, comp, rep = (m.group("field"), m.group("comp"), m.group("rep")) if m else _DEFAULT
    segments = _table()[0]
    out = []
    for seg in _segment_re(field).finditer(text):
        wanted = segments[seg.group("id")]
        for number, (f_start, f_end) in enumerate(
            separated_parts(text, seg.start("body"), seg.end("body"), field), start=1
        ):
            kind = wanted.get(number)
            if kind is not None and f_end > f_start:
                out.extend(_field_entities(text, f_start, f_end, kind, comp, rep))
    return out


class Hl7FieldRecognizer(SpanFinderRecognizer):
    """The personal fields of HL7 v2 segments (``hl7_fields``)."""

    def __init__(self) -> None:
        entities = (
            {"PERSON", "STREET_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH", *_WHOLE.values()}
            | set(_table()[1].values())
            | {_table()[2]}
        )
        super().__init__(hl7_fields, entities, DETECTOR, SCORE)
