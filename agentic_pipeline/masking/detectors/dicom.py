"""Personal data elements of a DICOM header dumped into a log (an imaging tool's result, a PACS
ticket): every person name (value representation ``PN``: the patient, the referring and reading
physicians, the operator), and the patient's ids, birth date, address and phone numbers, the
accession number (``dicom.yaml``, after PS3.15's basic de-identification profile).

Three dump layouts are read, one element a line:
  DCMTK's ``dcmdump``:  ``(0010,0010) PN [Name^Given]   #  10, 1 PatientName``
  pydicom's ``print``:  ``(0010, 0010) Patient's Name   PN: 'Name^Given'``
  a keyword and its value, without the value representation:
                        ``(0010,0030) PatientBirthDate   19610722``
A name here is decided by its value representation (without one, by its tag: ``person_tags``
of ``dicom.yaml``), not by the name model
(``names/recognizer.decide_persons``). Our own reader: ``pydicom`` reads DICOM files, not the text
of a dump.
"""

from __future__ import annotations

import re
from functools import cache

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.span_finder import SpanFinderRecognizer

DETECTOR = "DicomElementRecognizer"
#: As sure as a value under its label (``hl7.SCORE``).
SCORE = 0.95
_TAG = r"\((?P<group>[0-9A-Fa-f]{4}),[ ]?(?P<element>[0-9A-Fa-f]{4})\)[ \t]++"
#: ``(gggg,eeee) VR [value]`` (dcmdump) or ``(gggg, eeee) Keyword text  VR: value`` (pydicom).
_ELEMENT = re.compile(
    rf"(?m){_TAG}(?:(?P<vr>[A-Z]{{2}})[ \t]++\[(?P<bracketed>[^\]\r\n]*+)\]"
    r"|[^\r\n:]*?[ \t](?P<vr2>[A-Z]{2}):[ \t]*+(?P<value>[^\r\n]*+)"
    r"|[A-Z][A-Za-z']*+[ \t]{2,}+(?P<plain>[^\r\n]*+))"
)


@cache
def _tags() -> dict[str, str]:
    return {k.upper(): v for k, v in data_file("dicom.yaml")["tags"].items()}


@cache
def _person_tags() -> frozenset[str]:
    return frozenset(k.upper() for k in data_file("dicom.yaml")["person_tags"])


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` without the blanks around it and one pair of quotes (pydicom)."""
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t":
        end -= 1
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "'\"":
        start, end = start + 1, end - 1
    return start, end


def dicom_elements(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of the personal elements of the dump lines of ``text``."""
    if "(" not in text or "," not in text:
        return []
    out = []
    for m in _ELEMENT.finditer(text):
        tag = f"{m.group('group')},{m.group('element')}".upper()
        vr = m.group("vr") or m.group("vr2")
        if m.group("plain") is not None:
            vr = "PN" if tag in _person_tags() else None
        kind = "PERSON" if vr == "PN" else _tags().get(tag)
        if kind is None:
            continue
        group = "bracketed" if m.group("vr") else "value" if m.group("vr2") else "plain"
        start, end = _unquoted(text, m.start(group), m.end(group))
        if end > start and text[start:end] not in ("(no value available)", "None"):
            out.append((start, end, kind))
    return out


class DicomElementRecognizer(SpanFinderRecognizer):
    """The personal elements of a DICOM dump (``dicom_elements``)."""

    def __init__(self) -> None:
        super().__init__(dicom_elements, {"PERSON", *_tags().values()}, DETECTOR, SCORE)
