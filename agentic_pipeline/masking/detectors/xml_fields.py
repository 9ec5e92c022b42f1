"""Personal values of XML pasted into a log (a FHIR or CDA resource, a SOAP body, an ISO 20022
payment, a vendor's export): an element's text under a name the JSON key rules know
(``<LastName>…</LastName>``, ``<email>…</email>``), the ``value`` attribute of such an element
(CDA's ``<birthTime value="…"/>``), and the name parts of FHIR and CDA (``<given>``,
``<family>``). The element's name decides, as a JSON key does (``key_rules.key_entity``); a name
in one is decided by its place, not by the name model (``names/recognizer.decide_persons``).

Regexes over the text, not an XML parser: logs carry fragments of a document (cut at a length
limit, inside a JSON string, with ``...`` in between) that a parser rejects."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.span_finder import SpanFinderRecognizer

#: The detector name recorded in the audit; its person spans are decided by position.
DETECTOR = "XmlFieldRecognizer"
#: As sure as a value under its label.
SCORE = 0.9
#: The types masked under their element's name; a place alone (a city) is not.
ENTITIES = frozenset(
    {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "DATE_OF_BIRTH",
        "USER_ID",
        "US_SSN",
        "IBAN_CODE",
        "BANK_ACCOUNT",
        "ID_DOCUMENT",
        "STREET_ADDRESS",
        "ZIP_CODE",
        "CREDIT_CARD",
    }
)
#: Name parts of FHIR's ``HumanName`` and CDA's ``<name>``: no JSON key rule reads "given" alone.
_NAME_PARTS = {"given": "PERSON", "family": "PERSON"}
#: An element with text and its closing tag on one line (a namespace prefix allowed).
_ELEMENT = re.compile(
    r"<(?:[\w-]+:)?(?P<k>[A-Za-z_][\w.-]{0,39})(?:[ \t][^<>\n]{0,120})?>"
    r"[ \t]*(?P<v>[^<>\n]{1,160}?)[ \t]*</(?:[\w-]+:)?(?P=k)>"
)
#: An element whose ``value`` attribute holds the datum (``<birthTime value="19610722"/>``).
_VALUE_ATTRIBUTE = re.compile(
    r"<(?:[\w-]+:)?(?P<k>[A-Za-z_][\w.-]{0,39})[ \t][^<>\n]{0,80}?"
    r"\bvalue=\"(?P<v>[^\"<>\n]{1,80})\""
)


def _entity(key: str) -> str | None:
    et = _NAME_PARTS.get(key.lower()) or key_entity(key)
    return et if et in ENTITIES else None


def xml_fields(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of the personal values of XML elements in ``text``."""
    if "</" not in text and "value=" not in text:
        return []
    out = []
    for rx in (_ELEMENT, _VALUE_ATTRIBUTE):
        for m in rx.finditer(text):
            et = _entity(m.group("k"))
            if et is not None and m.group("v").strip():
                out.append((m.start("v"), m.end("v"), et))
    return out


class XmlFieldRecognizer(SpanFinderRecognizer):
    """The personal values of XML elements (``xml_fields``)."""

    def __init__(self) -> None:
        super().__init__(xml_fields, ENTITIES, DETECTOR, SCORE)
