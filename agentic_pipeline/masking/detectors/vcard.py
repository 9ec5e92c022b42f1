"""Personal properties of a vCard pasted into a log (a contact exported by a CRM or a phone, an
attachment's text): the name (``N``, ``FN``, ``NICKNAME``), the postal address (``ADR``, masked
whole from its street to its country), the birth date (``BDAY``). A property is a line
``NAME;PARAM=…:value`` (RFC 6350); ``ADR`` and ``N`` part their value with ``;``. Phone numbers and
e-mail addresses have their own detectors. A name here is decided by its property, not by the
name model (``names/recognizer.decide_persons``)."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.span_finder import SpanFinderRecognizer

DETECTOR = "VcardRecognizer"
SCORE = 0.95
#: A card, from its first line to its last.
_CARD = re.compile(r"(?s)BEGIN:VCARD\r?\n.*?(?:END:VCARD|\Z)")
#: A property line: its name (maybe a group before a dot), parameters, and value, with the lines
#: folded into it (RFC 6350: a continuation line starts with a space or a tab).
_PROPERTY = re.compile(
    r"(?m)^(?:[\w-]+\.)?(?P<name>ADR|N|FN|NICKNAME|BDAY)(?:;[^:\r\n]*)?:"
    r"(?P<value>[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)"
)
_TYPES = {
    "ADR": "STREET_ADDRESS",
    "N": "PERSON",
    "FN": "PERSON",
    "NICKNAME": "PERSON",
    "BDAY": "DATE_OF_BIRTH",
}


def vcard_fields(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of the personal values of the property lines of each card
    (``BEGIN:VCARD`` to ``END:VCARD``): the value from its first to its last non-empty part
    (``;`` parts of ``ADR`` and ``N``), folded lines included."""
    if "BEGIN:VCARD" not in text:
        return []
    out = []
    for card in _CARD.finditer(text):
        for m in _PROPERTY.finditer(text, card.start(), card.end()):
            value, start = m.group("value"), m.start("value")
            parts = [
                (p.start(), p.end()) for p in re.finditer(r"[^;]+", value) if p.group().strip()
            ]
            if parts:
                out.append((start + parts[0][0], start + parts[-1][1], _TYPES[m.group("name")]))
    return out


class VcardRecognizer(SpanFinderRecognizer):
    """The personal properties of vCards (``vcard_fields``)."""

    def __init__(self) -> None:
        super().__init__(vcard_fields, set(_TYPES.values()), DETECTOR, SCORE)
