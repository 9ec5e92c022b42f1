"""The values of ``label: value`` lines whose label names personal data (``FieldLabelRecognizer``):
any type the JSON key rules know ("email", "phone", "street", "place of birth", "password"...),
as the JSON key rule masks the same value under the same key.

A person's name under a name label ("Payee: …") is the name model's to decide (it reads the label
as a feature): a person span reported here would only make Presidio drop the model's own spans
inside it (``remove_duplicates`` keeps the higher score of one type) before ``decide_persons``
drops every person span the model did not report."""

from __future__ import annotations

import re
from typing import Any

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.address_blocks import CONTACT_LABELS
from agentic_pipeline.masking.detectors.address_fields import address_data
from agentic_pipeline.masking.detectors.data_files import alternation
from agentic_pipeline.masking.detectors.dates import WHOLE_DATE_RE
from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.labels import LABEL_SCORE

#: A ``label: value`` line (also a YAML mapping line or a bullet): the label and the value.
#: Fields of one line separated by " | " ("Street: … | City: … | Plan: gold") are read one by one.
_FIELD_LINE = re.compile(
    r"(?m)(?:^|(?<=\|))[ \t]*(?:[-*•>][ \t]+)?(?:\*\*)?(?P<label>[^\W\d][\w'’ ./-]{0,38}?)(?:\*\*)?"
    r"[ \t]*[:=：](?:\*\*)?[ \t]*(?P<value>[^\n|]*?)[ \t]*(?=$|\|)"
)
#: The next field's label on the value's line ("SSN: <ssn> DOB: <date>", "Town of birth: <town>
#: Forename(s): <name>"): blanks, one to four words (the first of three letters or more), a colon
#: and a blank or the line's end; a unit or house word of an address, first or last ("Daire: 6",
#: "Cad. No: 9"), is none (``next_label``); or the next pair of a logfmt line ("email=<e-mail>
#: status=ok": the value ends before " status=").
_NEXT_LABEL = re.compile(
    r"[ \t]+(?P<first>[^\W\d_]{3,})[\w.'’/()-]*(?:[ \t][\w.'’/()-]+){0,3}[:：](?:[ \t]|$)"
    r"|[ \t]+[A-Za-z_][\w.-]{1,39}=(?=[^\s=])"
)


_UNIT_WORDS = frozenset(address_data()["unit_words"])
#: A phone or e-mail label after an address in the same field: "Address: <street>, <city>, Tel. …".
_CONTACT_AFTER = re.compile(rf"(?i)[ \t]*[,;][ \t]*(?:{alternation(CONTACT_LABELS)})(?![\w-])")


def next_label(value: str) -> int | None:
    """Where the next field's label starts in ``value`` (``_NEXT_LABEL``), if one does: a
    labelled line's value or a personal key's (``"surname": "<name>   First: <name>"``) ends
    there."""
    for m in _NEXT_LABEL.finditer(value):
        last = m.group().rstrip(":： \t").split()[-1].strip(".")
        if m.group("first") not in _UNIT_WORDS and last not in _UNIT_WORDS:  # "Cad. No: 54"
            return m.start()
    return None


def first_field(value: Any) -> Any:
    """A one-line value up to the next field's label written in it ("KT-51124   Next of kin:
    …", a form's line read as one key's value): the key names that first field. Not a string:
    as it is."""
    if not isinstance(value, str) or "\n" in value:
        return value
    cut = next_label(value)
    return value[:cut].strip() if cut else value


#: A ``key=value`` pair inside a line (a logfmt log line, a URL's query, a call's arguments):
#: the value up to a space, a quote or the next pair; quoted, up to its closing quote (then the
#: "=" may stand between blanks: ``#addressLine1 = "…"``).
_PAIR = re.compile(
    r"(?<![\w.-])(?P<label>[A-Za-z_][\w.-]{0,39})(?:=|[ \t]+=[ \t]+(?=\"))"
    r"(?:\"(?P<quoted>[^\"\n]{1,120})\""
    r"|(?P<value>[^\s\"',;|&<>(){}\[\]]{1,80}))"
)
#: A document's number key, and its line's document type that makes it an identity document's
#: (a KYC log's ``doc_type=passport doc_number=…``; an invoice's number is none).
_DOC_NUMBER_KEY = re.compile(r"(?i)doc(?:ument)?_?(?:number|no|num|nr)")
_ID_DOC_TYPE = re.compile(
    r"(?i)\bdoc(?:ument)?_?type=[\"']?(?:passport|id|id_?card|identity_?card|national_?id"
    r"|driver_?s?_?licen[cs]e|driving_?licen[cs]e|residence_?permit|visa)\b"
)


def _document_number(text: str, m: re.Match[str]) -> str | None:
    """``ID_DOCUMENT`` for a document number whose line names an identity document's type."""
    if not _DOC_NUMBER_KEY.fullmatch(m.group("label")):
        return None
    end = text.find("\n", m.end())
    line = text[text.rfind("\n", 0, m.start()) + 1 : end if end >= 0 else len(text)]
    return "ID_DOCUMENT" if _ID_DOC_TYPE.search(line) else None


#: Types masked only under their label (a place is no personal data alone, a place of birth or a
#: home town under its label is): reported whether or not the analysis asks for them.
LABEL_ONLY_TYPES = frozenset({"LOCATION"})


class FieldLabelRecognizer(LocalRecognizer):
    """The value of a ``label: value`` line whose label names personal data of a type the JSON
    key rules know ("email", "phone", "street", "date of birth", "place of birth", "password"...),
    as the JSON key rule masks it (no person: see the module doc)."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=[
                "EMAIL_ADDRESS",
                "PHONE_NUMBER",
                "STREET_ADDRESS",
                "DATE_OF_BIRTH",
                "USER_ID",
                "CREDENTIAL",
                "ID_DOCUMENT",
                "US_SSN",
                "IBAN_CODE",
                "BANK_ACCOUNT",
                *sorted(LABEL_ONLY_TYPES),
            ],
            name="FieldLabelRecognizer",
        )

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report the values of personal ``label: value`` lines."""
        if ":" not in text and "=" not in text and "：" not in text:
            return []
        out = self._pairs(text, entities) if "=" in text else []
        for m in _FIELD_LINE.finditer(text):
            value = m.group("value").strip("* \t")
            if not value or len(value) > 120:
                continue
            et = key_entity(m.group("label").strip())
            if et not in self.supported_entities:
                continue
            if entities and et not in entities and et not in LABEL_ONLY_TYPES:
                continue
            start = m.start("value") + m.group("value").find(value)
            if (nxt := next_label(value)) is not None:
                value = value[:nxt]  # "SSN: <ssn> DOB: <date>": a form on one line
            if et == "STREET_ADDRESS" and (contact := _CONTACT_AFTER.search(value)):
                value = value[: contact.start()]
            if et == "DATE_OF_BIRTH" and (date := WHOLE_DATE_RE.search(value)) is not None:
                start, value = start + date.start(1), date.group(1)  # "<date> (age 65+)"
            if et == "CREDENTIAL" and (" " in value or len(value) < 4):
                continue  # "Password: see the vault", "PIN: n/a": no secret written here
            out.append(RecognizerResult(et, start, start + len(value), LABEL_SCORE))
        return out

    def _pairs(self, text: str, entities: list[str]) -> list[RecognizerResult]:
        """The values of ``key=value`` pairs inside lines whose key names personal data
        (``doc_number=…``, ``address_street=4+Quarry+Lane``, ``email="…"``)."""
        out = []
        for m in _PAIR.finditer(text):
            et = key_entity(m.group("label")) or _document_number(text, m)
            if et not in self.supported_entities or et in LABEL_ONLY_TYPES:
                continue
            if entities and et not in entities:
                continue
            group = "quoted" if m.group("quoted") is not None else "value"
            value = m.group(group)
            if et == "CREDENTIAL" and len(value) < 4:
                continue
            if et == "STREET_ADDRESS" and not any(c.isalpha() for c in value):
                continue  # "addr=0.0.0.0:8080": a socket's address
            out.append(RecognizerResult(et, m.start(group), m.end(group), LABEL_SCORE))
        return out
