"""The Presidio recognizer that reports the name model's person spans, and the step that lets the
model alone decide the person spans of a string.

``NameModelRecognizer`` reads the spaCy document Presidio already made (``nlp_artifacts.tokens``):
on strings routed without NER (no entity annotation) it reports nothing. ``decide_persons`` drops
the person spans of the other detectors (spaCy's own PERSON entities: the model reads their labels
as a feature and decides), keeping every other type and the names that a structure's position
decides (an HL7 name field, ``detectors/hl7.py``; a SWIFT party's name, ``detectors/swift.py``;
an XML name element, ``detectors/xml_fields.py``; a vCard's, ``detectors/vcard.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.address_fields import inline_place_values
from agentic_pipeline.masking.detectors.dicom import DETECTOR as DICOM_DETECTOR
from agentic_pipeline.masking.detectors.hl7 import DETECTOR as HL7_DETECTOR
from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.label_lists import id_words, label_entity, label_words
from agentic_pipeline.masking.detectors.labels import id_label_re
from agentic_pipeline.masking.detectors.swift import DETECTOR as SWIFT_DETECTOR
from agentic_pipeline.masking.detectors.vcard import DETECTOR as VCARD_DETECTOR
from agentic_pipeline.masking.detectors.x12 import DETECTOR as X12_DETECTOR
from agentic_pipeline.masking.detectors.xml_fields import DETECTOR as XML_DETECTOR
from agentic_pipeline.masking.names.fields import HONORIFICS_AFTER_NAME, POST_NOMINALS
from agentic_pipeline.masking.names.joins import particles_before
from agentic_pipeline.masking.names.lexicon import (
    given_name_bin,
    is_title,
    listed_name,
    not_a_name_word,
)
from agentic_pipeline.masking.names.model import NameModel, default_model
from agentic_pipeline.masking.names.words import is_role
from agentic_pipeline.masking.pseudonyms import fold_word as fold

#: The detector name recorded in the audit for a name the model found.
DETECTOR = "NameModelRecognizer"


class NameModelRecognizer(LocalRecognizer):
    """Person names decided by the trained name model (``model.py``)."""

    def __init__(self, model: NameModel | None = None) -> None:
        self._model = model
        super().__init__(supported_entities=["PERSON"], name=DETECTOR)

    def load(self) -> None:  # noqa: D102
        pass

    @property
    def model(self) -> NameModel:
        if self._model is None:
            self._model = default_model()
        return self._model

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """The model's person spans with their masking scores (see ``NameModel.score``)."""
        if entities and "PERSON" not in entities:
            return []
        doc = getattr(nlp_artifacts, "tokens", None)
        if doc is None or not doc.has_annotation("ENT_IOB"):
            return []  # a string analysed without NER: the model reads NER labels
        m = self.model
        return [
            RecognizerResult("PERSON", s, e, round(m.score(p), 4)) for s, e, p in m.spans(text, doc)
        ]


#: Detectors whose person spans a format's field position decides (an HL7 name field, a SWIFT
#: party's name line, an XML name element, a vCard's name, an X12 NM1's name, a DICOM PN): the
#: name model, reading prose, does not judge them.
_BY_POSITION = (
    HL7_DETECTOR,
    SWIFT_DETECTOR,
    XML_DETECTOR,
    VCARD_DETECTOR,
    X12_DETECTOR,
    DICOM_DETECTOR,
)


def decide_persons(text: str, spans: list) -> list:
    """The detections of ``text`` with only the model's person spans (sorted), none of them the
    value of a city, region or country key written inline (``{'city': 'Tarnby'}``) or the start
    of a street line on one line ("Calle del <Name> 45": a street named after a person; a name
    over a phone number on the next line is no street) or a word of an id label before its value
    ("Nomor polisi: <plate>": ``_in_an_id_label``), each without the titles it starts with
    ("Frau Adler": "Adler"), none made of titles alone."""
    places = inline_place_values(text) if ("=" in text or ":" in text) else set()
    values = {sp[0] for sp in spans if sp[2] != "PERSON"}
    streets = [
        (sp[0], sp[1])
        for sp in spans
        if sp[2] == "STREET_ADDRESS" and "\n" not in text[sp[0] : sp[1]]
    ]
    kept = (
        without_labels(text, without_titles(text, sp)) if sp[2] == "PERSON" else sp
        for sp in spans
        if sp[2] != "PERSON"
        or sp[4] in _BY_POSITION
        or (
            sp[4] == DETECTOR
            and (sp[0], sp[1]) not in places
            and not any(a <= sp[0] and sp[1] < b for a, b in streets)
            and not (values and _in_an_id_label(text, sp, values))
        )
    )
    return sorted(sp for sp in kept if sp is not None)


def _in_an_id_label(text: str, span: tuple, values: set[int]) -> bool:
    """``span`` opens an id label whose value starts where a value of another type was found
    (``values``: their starts): the label's words, no name ("Osobní číslo zaměstnance: <id>",
    "Biển số: <plate>")."""
    m = id_label_re().match(text, span[0])
    return m is not None and span[1] <= m.end("label") and m.start("value") in values


#: What follows a label: a colon or hash ("Last: ", "Acc #"), or its value with a digit after an
#: id word ("Hosp. No. H77…", "NINO: QQ 12…", "BSB 062-…"): three digits at least, so that a
#: speaker named like a label keeps the name ("Nino: 3 pm works").
_AFTER_LABEL = re.compile(r"\.?[ \t]*[:#：]")
_VALUE_AFTER_LABEL = re.compile(
    r"\.?[ \t]*(?:[:#]|(?i:no|nr|n°|num)\.?)?[ \t]*(?:[A-Z]{1,3}[ \t-]?)?\d(?:[ \t./-]?\d){2}"
)


def without_labels(text: str, span: tuple | None) -> tuple | None:
    """``span`` without the label words (``label_lists.label_words``) that no name list has at
    its end before a colon, an id word or a value with a digit (``_label_ends``: "<First> Last:
    <Last>", the next field's label; "<First> <Last> Sort code 20-…"; a chat's "<First> Green:"
    keeps its surname), None when it is made of label words before a value with a digit
    ("NINO: QQ 12…", "Hosp. No. H77…": a label, not a name) or that is a field's label before
    its colon ("Adresa:", "Email:": ``key_rules.key_entity``)."""
    if span is None:
        return None
    start, end = span[0], span[1]
    field = text[start:end]
    if _AFTER_LABEL.match(text, end) and key_entity(field) is not None:
        # a field's label ("Adresa:", "Email:"), the JSON key rules' own; one that is a name too
        # only before an id ("NINO: QQ 12…", not a speaker's "Nino: 3 pm works")
        if not listed_name(field) or _VALUE_AFTER_LABEL.match(text, end):
            return None
    words = list(_SPAN_WORDS.finditer(text, start, end))
    labels = label_words()
    if words and all(fold(w.group()) in labels for w in words):
        return None if _VALUE_AFTER_LABEL.match(text, end) else span
    while len(words) > 1 and fold(last := words[-1].group()) in labels and not listed_name(last):
        if not _label_ends(text, end):
            break
        words.pop()
        end = words[-1].end()
    return (start, end, *span[2:])


@lru_cache(maxsize=1)
def _id_word_after() -> re.Pattern[str]:
    """An id word after a label ("Sort| code", "Member| no.")."""
    return re.compile(rf"(?i)[ \t]+(?:{id_words()})")


def _label_ends(text: str, end: int) -> bool:
    """What follows ``end`` makes the word before it a label: a colon or hash, an id word
    ("<First> <Last> Sort code 20-…"), or a value with a digit ("<Last> PID C-33…")."""
    return any(rx.match(text, end) for rx in (_AFTER_LABEL, _VALUE_AFTER_LABEL, _id_word_after()))


_SPAN_WORDS = re.compile(r"[^\W\d_]+(?:['’.-][^\W\d_]+)*")
_FIRST_WORD = re.compile(r"(\S+)[ \t]+")
_LAST_WORD = re.compile(r"[ \t]+(\S+)$")


def without_titles(text: str, span: tuple) -> tuple | None:
    """``span`` past the titles, salutations, greetings and roles it starts with, and before the
    roles it ends with (``words.is_title`` and ``is_role``: spaCy's "Bonjour Mme Charbonneau",
    "Producer Ines Vidal", the model's "holder Ines Vidal"), so that they stay in clear before the
    name's token; None when nothing else is left (spaCy's "Dear Madam") or when what a role ends is
    vocabulary that no name list has (a job title: "Claims Adjuster", "Sales Director"). A word that
    a name list has ("Don", "Rose", "Hunter") stays in the span unless it is written in lower case
    ("account holder"). A span with a capital loses the lower-case words at its edges (spaCy's "los
    datos de <First> <Last> para", "van <First> <Last>"); a name's particles between its words stay,
    and so do those that open it at the head of its line or after a title
    (``joins.particles_before``)."""
    start, end = span[0], span[1]
    while (m := _FIRST_WORD.match(text, start, end)) and m.end() < end and _title(m.group(1)):
        start = m.end()
    # a role, a field's key, an honorific or a degree after the name ("<name> Donor ID", "<name>
    # DOB", "<name> Hanım", "<name> MRCVS") is no part of it
    while (m := _LAST_WORD.search(text, start, end)) and m.start() > start:
        word = m[1].rstrip(".,:")
        after = is_role(word) or _key_word(word) or fold(word) in HONORIFICS_AFTER_NAME
        after = after or word in POST_NOMINALS  # "<name> BDS": a degree, no part of the name
        if listed_name(word) or not after:
            break
        end = m.start()
        if is_role(word) and all(not_a_name_word(w) for w in _SPAN_WORDS.findall(text, start, end)):
            return None  # "Claims Adjuster": a job title
    if any(c.isupper() for c in text[start:end]):
        head = start
        while (m := _FIRST_WORD.match(text, start, end)) and m.end() < end and m[1].islower():
            start = m.end()
        # but a name's own particles at the head of its line or after a title ("van der <Last>")
        start = max(head, particles_before(text, start, end))
        while (m := _LAST_WORD.search(text, start, end)) and m.start() > start and m[1].islower():
            end = m.start()
    return None if _title(text[start:end]) else (start, end, *span[2:])


def _key_word(word: str) -> bool:
    """``word`` names a field of personal data or an id ("DOB", "Phone", "MRN", "ID")."""
    return key_entity(word) is not None or label_entity(word, ids_first=True) is not None


def _title(word: str) -> bool:
    """A title, salutation, greeting or role that is no name ("Mme", "Producer", "holder"): one
    that a name list has too is a title when written in lower case, or when the given-name data
    records it seldom if at all (Turkish "Sayın", "Herra", "Imam"; not "Don", "Judge")."""
    if not (is_title(word) or is_role(word)):
        return False
    bare = word.rstrip(".,")
    return word.islower() or not listed_name(bare) or given_name_bin(bare) <= 1
