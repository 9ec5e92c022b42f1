"""High-precision PII patterns and the custom Presidio recognizers built on them.

The same compiled patterns serve the masking recognizers and the leak scan (``scan/``), so that
whatever the scan flags, masking also catches.

Decisions (documented for reviewers):

* ``USER_ID``: account handles shaped ``first_last_1234`` (tau-bench style, they embed the name) are
  masked.
* Customer/account ids of people (the simulator's CRM ids ``cus_1a2b3c4d``, ``CX-12345`` style CRM
  ids) are personal data: ``USER_ID`` with keyed pseudonyms, the same token in free text, tool
  arguments and results, so replay (the CRM sandbox is keyed by the same id throughout) still works.
* Payment-method ids (``credit_card_4421486``, ``gift_card_…``, ``certificate_…``, ``paypal_…``),
  reservation codes, order and item ids and flight numbers are ids of things; they are kept so
  replay and joins work (they also appear as JSON keys, which are never touched).
* ``CARD_LAST4``: the last four digits of a card when the context says so ("card ending in 7447",
  "my 7447 card", "last four 7447"); ``DATE_OF_BIRTH``: a date next to a birth word ("born",
  "birthday", "date of birth", "DOB", "geboren", "née", "nacido", "nato", "urodzony", ...). Other
  dates (bookings, timestamps) are kept.

Modules: this one holds the strict patterns, the context recognizers built on one regex (last
four, DOB, phone in context, US/UK street lines, customer ids) and the one list
of recognizers (``custom_recognizers``); ``numbers`` (phones, cards, IBANs, national
ids), ``detectors/streets`` (European streets, postcodes) and ``names`` (person names decided by
a trained model) hold the other families.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors import login_names
from agentic_pipeline.masking.detectors.addresses import street_types
from agentic_pipeline.masking.detectors.checked_ids import CheckedIdRecognizer
from agentic_pipeline.masking.detectors.dates import (
    BIRTH_YEAR_AFTER_RE,
    BIRTH_YEAR_RE,
    BIRTHDAY_AFTER_RE,
    BIRTHDAY_DAY_RE,
    BORN_ABBREVIATION_RE,
    DOB_AFTER_RE,
    DOB_ANSWER_RE,
    DOB_BEFORE_BORN_RE,
    DOB_RE,
    WHOLE_DATE_RE,
    birth_year_date,
    born_long_ago,
    past_year,
)
from agentic_pipeline.masking.detectors.dicom import DicomElementRecognizer
from agentic_pipeline.masking.detectors.hl7 import Hl7FieldRecognizer
from agentic_pipeline.masking.detectors.id_shapes import SORT_CODE, is_date
from agentic_pipeline.masking.detectors.numbers import (  # noqa: F401
    PHONE_CONTEXT_WORDS,
    PHONE_REGIONS,
    CardRecognizer,
    IbanShapeRecognizer,
    IntlPhoneRecognizer,
    NationalIdRecognizer,
)
from agentic_pipeline.masking.detectors.redacted import RedactedIdRecognizer
from agentic_pipeline.masking.detectors.streets import (  # noqa: F401
    EU_STREET_RES,
    POSTCODE_RES,
    StreetLineRecognizer,
)
from agentic_pipeline.masking.detectors.swift import SwiftFieldRecognizer
from agentic_pipeline.masking.detectors.vcard import VcardRecognizer
from agentic_pipeline.masking.detectors.vin import VinRecognizer
from agentic_pipeline.masking.detectors.x12 import X12ElementRecognizer
from agentic_pipeline.masking.detectors.xml_fields import XmlFieldRecognizer

# the recognizers of the other families, re-exported: ``recognizers`` is the masking package's
# one list of detectors
from agentic_pipeline.masking.names import (  # noqa: F401
    COMMON_WORDS,
    NameModelRecognizer,
    default_model,
    is_name_pair,
    listed_name,
    name_gazetteer,
    not_a_name_word,
)
from agentic_pipeline.masking.vocabulary import LW, UP
from agentic_pipeline.pii_patterns import (  # noqa: F401  (re-exported for the masking package)
    CARD_RE,
    EMAIL_RE,
    IBAN_RE,
    IPV4_RE,
    PHONE_RE,
    SSN_RE,
    STRICT_ENTITIES,
    USER_ID_RE,
    iban_ok,
    luhn_ok,
    strict_matches,
)

LAST4_RES = (
    re.compile(
        r"(?i)\b(?:card|visa|mastercard|amex|discover|ending|ends|last (?:four|4)(?: digits)?)"
        r"\b[^\d\n]{0,25}?(?<![\d-])(\d{4})(?![\d-])"
    ),
    re.compile(r"(?i)(?<![\w-])(\d{4})(?:\s+(?:visa|mastercard|amex|credit|debit))?\s+card\b"),
)
PHONE_CONTEXT_RE = re.compile(
    r"(?i)\b(?:reach me at|call me(?: at| on)?|text me(?: at| on)?|contact me at|phone|mobile|"
    r"cell|tel(?:ephone)?|number)\b[^\d\n]{0,20}?(?<![\w-])(?!\d{4}-\d\d?-\d\d?\b)(\+?\(?\d[\d\s().-]{8,18}\d(?:\s?x\d{1,5})?)"
    r"(?![\w-])"
)
#: Street-type words ("Lane", "Crescent"), data of ``detectors/addresses.yaml``, and the same in
#: capitals ("LANE", "ST": a mailing label's or a legacy system's line is written so).
_STREET_SUFFIX = "|".join(
    sorted({*street_types(), *(t.upper() for t in street_types())}, key=len, reverse=True)
)
#: A unit designator needs a word end ("United" is no "Unit") and a digit in its number.
_UNIT = (
    r"(?:Apt\.?|Apartment|Appartamento|Interno|Piso|Suite|Ste\.?|Unit|APT\.?|SUITE|STE\.?|UNIT|#)"
    r"(?![A-Za-z])"
    r"\s*[A-Za-z-]*\d[A-Za-z0-9-]*"
)
STREET_RE = re.compile(
    # maybe a unit before a slash: "3/27 Wattle Crescent" (Australia, New Zealand)
    # a range of house numbers: "15-17 Crown Street"
    # a direction before the name, an ordinal in it: "2210 SW 12th Ter" (Florida, Washington)
    # one line holds the number and the name ("07/14" ending a line is no house number)
    rf"\b(?:\d{{1,4}}[A-Za-z]?/)?\d{{1,6}}(?:[–-]\d{{1,5}}[A-Za-z]?)?[ \t]+"
    # a name's words in any Latin, Greek or Cyrillic letters: "41 Tōtara Street", "9 Peñasco Rd",
    # with Spanish and French particles inside: "4410 Vista del Mar Dr", "Ponce de Leon Blvd"
    rf"(?:(?:[NSEW]|NE|NW|SE|SW)\.?[ \t]+)?"
    rf"(?:(?:[{UP}][{UP}{LW}'-]*|\d{{1,3}}(?:st|nd|rd|th|ST|ND|RD|TH))\.?[ \t]+"
    rf"(?:(?:de|del|de la|la|las|los|el|du|des)[ \t]+(?=[{UP}]))?){{1,4}}"
    rf"(?:{_STREET_SUFFIX})\b\.?"
    # a quadrant after the type: "1207 Larch Hollow Ave NW" (Washington, Atlanta, Calgary)
    r"(?:[ \t](?:NE|NW|SE|SW|N|S|E|W)(?![\w'’-]))?"
    # a numbered street of its estate after the type: "Blk 12 Tampines Ave 4" (Singapore)
    rf"(?:[ \t]\d{{1,3}}[A-Za-z]?(?=,))?"
    rf"(?:,?\s+{_UNIT})?"
    rf"|\b{_UNIT}(?=\s|,|$)"
    # a British flat or studio before its street: "Flat 26h Dale Square"
    rf"|\b(?:Flat|Studio)\s+\d{{1,4}}[A-Za-z]?,?\s+(?:[{UP}][{UP}{LW}'-]*\.?\s+){{1,3}}"
    rf"(?:{_STREET_SUFFIX})\b\.?"
)


# --------------------------------------------------------------------------- recognizers
class StrictPatternRecognizer(LocalRecognizer):
    """Presidio recognizer reporting ``strict_matches`` (checksums included)."""

    ENTITIES = list(STRICT_ENTITIES)

    def __init__(self, score: float = 0.9) -> None:
        self.score = score
        super().__init__(supported_entities=list(self.ENTITIES), name="StrictPatternRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report every strict match of a requested entity type."""
        wanted = set(entities) if entities else set(self.ENTITIES)
        return [
            RecognizerResult(et, s, e, self.score)
            for s, e, et in strict_matches(text)
            if et in wanted
        ]


class ContextGroupRecognizer(LocalRecognizer):
    """Reports group 1 of regexes whose surrounding text gives the context (last four, DOB)."""

    def __init__(
        self,
        entity: str,
        regexes: tuple[re.Pattern[str], ...],
        score: float,
        name: str,
        group: int | str = 1,
        keep: Callable[[str], bool] | None = None,
    ) -> None:
        self.entity = entity
        self.group = group
        self.regexes = regexes
        self.score = score
        self.keep = keep
        super().__init__(supported_entities=[entity], name=name)

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report the span of ``group`` of each match."""
        if entities and self.entity not in entities:
            return []
        g = self.group
        return [
            RecognizerResult(self.entity, m.start(g), m.end(g), self.score)
            for rx in self.regexes
            for m in rx.finditer(text)
            if self.keep is None or self.keep(m.group(g))
        ]


def card_last4_recognizer() -> ContextGroupRecognizer:
    """ "card ending in 7447", "my 7447 card", "last four digits 7447"."""
    return ContextGroupRecognizer("CARD_LAST4", LAST4_RES, 0.8, "CardLastFourRecognizer")


def phone_context_recognizer() -> ContextGroupRecognizer:
    """Digit runs right after "reach me at", "phone", "mobile", ... (any format, any region)."""
    return ContextGroupRecognizer(
        "PHONE_NUMBER", (PHONE_CONTEXT_RE,), 0.75, "PhoneContextRecognizer"
    )


def dob_recognizer() -> ContextGroupRecognizer:
    """A date right after a birth keyword or before one (a Chinese, Japanese or Korean one before
    its "born"), a year before "г.р." or alone right after a birth keyword, a day and month
    after a birthday word or an age being turned."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH",
        (
            DOB_RE,
            DOB_AFTER_RE,
            DOB_BEFORE_BORN_RE,
            BIRTH_YEAR_RE,
            BIRTH_YEAR_AFTER_RE,
            BIRTHDAY_DAY_RE,
        ),
        0.85,
        "DateOfBirthRecognizer",
    )


def born_abbreviation_recognizer() -> ContextGroupRecognizer:
    """A date after "(b." or ", b." of a year ``ADULT_AGE`` years back at least."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH",
        (BORN_ABBREVIATION_RE,),
        0.85,
        "BornAbbreviationRecognizer",
        keep=born_long_ago,
    )


def dob_answer_recognizer() -> ContextGroupRecognizer:
    """A date of a past year on the line that answers a question asking for a birth date ("When
    is the birthday party?" / "14 June" of this year is a party's), or right before a birthday
    word ("hat am 4. Mai 2018 Geburtstag": the day of a party this year stays)."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH",
        (DOB_ANSWER_RE, BIRTHDAY_AFTER_RE),
        0.85,
        "DateOfBirthAnswerRecognizer",
        keep=past_year,
    )


def old_date_recognizer() -> ContextGroupRecognizer:
    """A whole date of a year at least ``ADULT_AGE`` years back, without a birth word ("Patient:
    …, 1961-12-01", a passenger's ``"1957-10-19"``), as ``DATE_OF_BIRTH`` at a lower score. In the
    development corpora 868 of 870 such dates were somebody's birth date (forms, notes,
    passengers' records; the two others followed "since"; dates of orders, flights, visits and
    incidents are recent), and plain Presidio masks every date. The year is read against the
    clock: a date turns old on its year's change."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH", (WHOLE_DATE_RE,), 0.6, "OldDateRecognizer", keep=birth_year_date
    )


def street_address_recognizer() -> ContextGroupRecognizer:
    """US/UK-style street lines ("418 Harrow Lane, Suite 12") and unit designators."""
    return ContextGroupRecognizer(
        "STREET_ADDRESS", (STREET_RE,), 0.7, "StreetAddressRecognizer", group=0
    )


def custom_recognizers() -> list[LocalRecognizer]:
    """All our recognizers, to add to a Presidio registry."""
    return [
        StrictPatternRecognizer(),
        card_last4_recognizer(),
        phone_context_recognizer(),
        dob_recognizer(),
        dob_answer_recognizer(),
        born_abbreviation_recognizer(),
        old_date_recognizer(),
        street_address_recognizer(),
        *outsider_recognizers(),
    ]


# --------------------------------------------------------------------------- account ids
#: Customer/account ids of people: the simulator's CRM ids (``cus_1a2b3c4d``) and ``CX-12345``
#: style CRM ids. They are pseudonymized with keyed tokens, the same token each time, so replay
#: (the CRM sandbox is keyed by the same id in goal, arguments and results) still works.
CUSTOMER_ID_RE = re.compile(r"(?<![\w-])(?:cus_[0-9a-zA-Z]{6,24}|CX-\d{3,12})(?![\w-])")


def customer_id_recognizer() -> ContextGroupRecognizer:
    """CRM customer ids of people (``cus_…``, ``CX-…``) as ``USER_ID``."""
    return ContextGroupRecognizer(
        "USER_ID", (CUSTOMER_ID_RE,), 0.9, "CustomerIdRecognizer", group=0
    )


#: A British or Irish sort code written before its account's eight digits, with no label, as a
#: statement's or a standing order's line writes them ("20-18-33 41902266"); one that reads as
#: a date is none (``id_shapes.is_date``).
SORT_CODE_BEFORE_ACCOUNT_RE = re.compile(
    rf"(?<![\w-])({SORT_CODE.pattern})(?=[ \t]+\d{{8}}(?![\d.,]))"
)


def sort_code_recognizer() -> ContextGroupRecognizer:
    """Sort codes before an account number (``SORT_CODE_BEFORE_ACCOUNT_RE``) as bank account
    data, the type a sort code after its label gets (``labels.yaml``)."""
    return ContextGroupRecognizer(
        "BANK_ACCOUNT",
        (SORT_CODE_BEFORE_ACCOUNT_RE,),
        0.6,
        "SortCodeRecognizer",
        keep=lambda code: not is_date(code),
    )


#: An Indian bank branch's IFSC: the bank's four letters, a zero, the branch's six letters or
#: digits ("KKBK0FHRTWQ"; RBI), with no label: one digit only, so the labels' id shape
#: (``id_shapes.id_value_ok``) does not take it.
IFSC_RE = re.compile(r"(?<![\w-])[A-Z]{4}0[A-Z0-9]{6}(?![\w-])")


def ifsc_recognizer() -> ContextGroupRecognizer:
    """IFSC codes (``IFSC_RE``) as bank account data, as a sort code."""
    return ContextGroupRecognizer("BANK_ACCOUNT", (IFSC_RE,), 0.6, "IfscRecognizer", group=0)


#: A social-media handle in text ("thanks @fern_walker88"), with the dots and hyphens that
#: payment, chat and code platforms allow inside ("@fern-walker-88", "@f.walker", "@j-walker"),
#: in any script (a Weibo or VK user's handle in Chinese or Cyrillic letters):
#: an account name, masked where it stands. Not an email's second half (no word character or
#: dot before the "@"). A Matrix user's server, a Reddit user and a social profile's address
#: (the name after "linkedin.com/in/", "x.com/"; not a repository's path) too.
SOCIAL_HANDLE_RE = re.compile(
    r"(?<![\w.@/])@[^\W\d_](?:\w{1,29}|(?=[.-]\w))(?:[.-]\w+)*(?![\w@])"
    r"(?::[a-z0-9-]+(?:\.[a-z0-9-]+)+)?"  # a Matrix user's server ("@fern:matrix.example.org")
    r"|(?<![\w/])u/[A-Za-z0-9_-]{3,20}(?![\w/])"  # a Reddit user ("u/fern_walker")
    # a profile's address ("linkedin.com/in/fern-walker", "x.com/fern_walker")
    r"|(?i:(?<=linkedin\.com/in/)|(?<=twitter\.com/)|(?<=[\s/(]x\.com/)|(?<=instagram\.com/)"
    r"|(?<=facebook\.com/)|(?<=tiktok\.com/@)|(?<=t\.me/)|(?<=medium\.com/@))"
    r"(?!(?:home|search|help|explore|settings|login|signup|share|intent|hashtag|messages"
    r"|notifications|groups|pages|events|watch|policies|privacy|about|botfather)(?![\w.-]))"
    r"[A-Za-z0-9][\w.-]{1,38}[A-Za-z0-9](?![\w/-])"
)


def social_handle_recognizer() -> ContextGroupRecognizer:
    """``@handles`` in text as ``USER_ID``."""
    return ContextGroupRecognizer(
        "USER_ID", (SOCIAL_HANDLE_RE,), 0.5, "SocialHandleRecognizer", group=0
    )


def login_name_recognizer() -> ContextGroupRecognizer:
    """Login names found by where they stand (``detectors/login_names.py``) as ``USER_ID``."""
    return ContextGroupRecognizer(
        login_names.ENTITY,
        login_names.login_name_regexes(),
        login_names.SCORE,
        "LoginNameRecognizer",
        group="handle",
        keep=login_names.handle_value,
    )


class ChatNickRecognizer(LocalRecognizer):
    """IRC-style chat speakers ("<quietfern> on my way") and speakers shaped like login names
    without a time stamp ("fern_77: on my way") as ``USER_ID`` (``login_names.nick_spans``,
    ``login_names.speaker_spans``): a text of two such lines at least; and the login names of
    social posts by where they stand (``login_names.social_spans``)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=[login_names.ENTITY], name="ChatNickRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report each speaker of a chat transcript's lines."""
        if entities and login_names.ENTITY not in entities:
            return []
        spans = login_names.nick_spans(text) + login_names.speaker_spans(text)
        spans += login_names.social_spans(text)
        return [RecognizerResult(login_names.ENTITY, a, b, login_names.SCORE) for a, b in spans]


def outsider_recognizers() -> list[LocalRecognizer]:
    """The recognizers added for text the project never wrote (issue #12)."""
    return [
        IntlPhoneRecognizer(),
        CardRecognizer(),
        IbanShapeRecognizer(),
        NationalIdRecognizer(),
        CheckedIdRecognizer(),
        StreetLineRecognizer(),
        NameModelRecognizer(),
        customer_id_recognizer(),
        sort_code_recognizer(),
        ifsc_recognizer(),
        social_handle_recognizer(),
        login_name_recognizer(),
        ChatNickRecognizer(),
        Hl7FieldRecognizer(),
        X12ElementRecognizer(),
        DicomElementRecognizer(),
        XmlFieldRecognizer(),
        VcardRecognizer(),
        SwiftFieldRecognizer(),
        RedactedIdRecognizer(),
        VinRecognizer(),
    ]


def warm_up() -> None:
    """Load the name lists, word frequencies, the city list and the name model now: in the fork
    server that starts the analyzer workers (it imports ``engine``, hence this module), so each
    worker inherits them instead of loading them again."""
    from agentic_pipeline.masking.vocabulary import cities, zipf

    name_gazetteer()
    listed_name("anna")
    zipf("the")
    cities()
    try:
        default_model()
    except (OSError, ValueError):
        pass  # no or a stale model file (while it is rebuilt): the recognizer raises on use


warm_up()
