"""Personal values of XML pasted into a log (a FHIR or CDA resource, a SOAP body, an ISO 20022
payment, a vendor's export): an element's text under a name the JSON key rules know
(``<LastName>…</LastName>``, ``<email>…</email>``), the ``value`` attribute of such an element
(CDA's ``<birthTime value="…"/>``), and the name parts of FHIR and CDA (``<given>``,
``<family>``); a name element only inside a person's (``<patient>``, ``<Practitioner>``…), an
address that is no URL, a login shaped like one. The element's name decides, as a JSON key does
(``key_rules.key_entity``); a name in one is decided by its place, not by the name model
(``names/recognizer.decide_persons``).

Regexes over the text, not an XML parser: logs carry fragments of a document (cut at a length
limit, inside a JSON string, with ``...`` in between) that a parser rejects."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.login_names import login_name
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
    r"[ \t]*+(?P<v>[^<>\n]{1,160}?)[ \t]*+</(?:[\w-]+:)?(?P=k)>"
)
#: An element whose ``value`` attribute holds the datum (``<birthTime value="19610722"/>``).
_VALUE_ATTRIBUTE = re.compile(
    r"<(?:[\w-]+:)?(?P<k>[A-Za-z_][\w.-]{0,39})[ \t][^<>\n]{0,80}?"
    r"\bvalue=\"(?P<v>[^\"<>\n]{1,80})\""
)


#: A person's element around a name ("<patient>", "<Practitioner>", "<HumanName>", "<contact>"):
#: a bare ``<name>`` or a name part counts only after one (a server's or a font's does not).
_PERSON_ELEMENT = re.compile(
    r"(?i)<(?:[\w-]+:)?(?:patient|person|practitioner|humanname|contact|guardian|subject"
    r"|customer|employee|member|insured|beneficiary|relatedperson|assignedperson)\b"
)
#: How far before a name a person's element may open.
_PERSON_WINDOW = 400


def _entity(text: str, key: str, start: int, value: str) -> str | None:
    """The type of the value of element ``key`` at ``start``, if personal."""
    low = key.lower()
    et = _NAME_PARTS.get(low) or key_entity(key)
    if et not in ENTITIES:
        return None
    if (low in _NAME_PARTS or low == "name") and not _PERSON_ELEMENT.search(
        text, max(0, start - _PERSON_WINDOW), start
    ):
        return None  # "<name>Primary Server</name>", a font's "<family>"
    if et == "STREET_ADDRESS" and ("://" in value or not any(c.isalpha() for c in value)):
        return None  # "<wsa:Address>http://…</wsa:Address>", "<addr>10.0.0.1</addr>"
    if et == "USER_ID" and not login_name(value):
        return None  # "<owner>platform-team</owner>"
    return et


def xml_fields(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of the personal values of XML elements in ``text``."""
    if "</" not in text and "value=" not in text:
        return []
    out = []
    for rx in (_ELEMENT, _VALUE_ATTRIBUTE):
        for m in rx.finditer(text):
            value = m.group("v")
            et = _entity(text, m.group("k"), m.start(), value)
            if et is not None and value.strip():
                out.append((m.start("v"), m.end("v"), et))
    return out


class XmlFieldRecognizer(SpanFinderRecognizer):
    """The personal values of XML elements (``xml_fields``)."""

    def __init__(self) -> None:
        super().__init__(xml_fields, ENTITIES, DETECTOR, SCORE)
