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

import datetime as dt
import re
from collections.abc import Callable

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors import login_names
from agentic_pipeline.masking.detectors.addresses import street_types
from agentic_pipeline.masking.detectors.checked_ids import CheckedIdRecognizer
from agentic_pipeline.masking.detectors.dicom import DicomElementRecognizer
from agentic_pipeline.masking.detectors.hl7 import Hl7FieldRecognizer
from agentic_pipeline.masking.detectors.key_rules import BIRTH_WORDS
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
from agentic_pipeline.masking.vocabulary import MONTHS
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

#: Month names of the main European languages (``vocabulary.MONTHS``' words of four letters or
#: more and the short "may", "mai", "maj", "mei"), and those that are names or words as often
#: (the French and Nordic "mars", the Norwegian "desember"), the Catalan and Indonesian ones
#: that the others lack, with the Polish genitive, as dates
#: of birth are written in them: "2. August 1955", "5 de julio de 1980", "7 de março de 1931",
#: "3 mars 1950", "12 marca 1990".
MONTH_NAMES: tuple[str, ...] = (
    *sorted(m for m in MONTHS if len(m) > 3 or m in ("may", "mai", "maj", "mei")),
    *"""
mars desember
gener febrer març maig juny juliol agost setembre octubre desembre maret agustus oktober
stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
""".split(),
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|"
    + "|".join(sorted(set(MONTH_NAMES), key=len, reverse=True))
    + ")"
)
#: A date: ISO and year-first with slashes or dots ("1961/07/22", Korean "1961. 7. 22."), day or
#: month first, with a month's name (also "22-Jul-1961") or a Roman month ("22 VII 1961",
#: Polish and Czech), with spaced dots ("22. 7. 1961", Czech
#: and German), with the year, month and day signs of Japanese, Chinese and Korean (a Japanese
#: era's year too: "平成3年8月14日"), and the
#: arguments of a Python ``datetime.date(1961, 7, 22)`` written by ``repr``.
DATE_PATTERN = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{4}\.\d{1,2}\.\d{1,2}"
    r"|(?<=date\()\d{4}, ?\d{1,2}, ?\d{1,2}(?=\))|(?<=datetime\()\d{4}, ?\d{1,2}, ?\d{1,2}"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}\. \d{1,2}\. \d{4}"
    rf"|{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|\.)? (?:of |de )?{_MONTH}\.?,? (?:de )?\d{{4}}"
    rf"|\d{{1,2}}-{_MONTH}\.?-\d{{2,4}}|\d{{1,2}}/{_MONTH}\.?/\d{{2,4}}"
    r"|\d{4}\. ?\d{1,2}\. ?\d{1,2}\.?(?=\s|$)"
    r"|\d{1,2}[ .](?:I{1,3}|IV|VI{0,3}|IX|XI{0,2})[ .]\d{4}"  # a Roman month: "9 III 1984"
    r"|\d{4} ?年 ?\d{1,2} ?月 ?\d{1,2} ?日|\d{4}년 ?\d{1,2}월 ?\d{1,2}일"
    r"|(?:明治|大正|昭和|平成|令和) ?(?:\d{1,2}|元) ?年 ?\d{1,2} ?月 ?\d{1,2} ?日)"
)
#: A date right after a birth word.
DOB_RE = re.compile(rf"(?i)(?<!\w)(?:{BIRTH_WORDS})(?!\w)[^\d\n]{{0,45}}?({DATE_PATTERN})")
#: "b." (born) in brackets or after a comma before a date ("(b. 3 May 1880)", "<name>, b. 3 May
#: 1880"): a birth date when its year is ``ADULT_AGE`` years back at least ("(b. 2021-05-03
#: amendment)" is a section's).
BORN_ABBREVIATION_RE = re.compile(rf"(?:(?<=\()|(?<=, ))b\.[ \t]?({DATE_PATTERN})", re.IGNORECASE)
#: A birth date asked for and given on the next line ("What is your date of birth?" / "Caller:
#: 9 May 2015"), as a call or chat transcript writes it: the birth word in the question's own
#: clause (not "Happy birthday! Shall I book…?"), a date of a past year (``past_year``).
DOB_ANSWER_RE = re.compile(
    rf"(?i)(?<!\w)(?:{BIRTH_WORDS})(?!\w)[^\n?.!]{{0,60}}\?(?:[ \t]*\r?\n){{1,2}}[^\d\n]{{0,30}}?"
    rf"(?<![\w/.-])({DATE_PATTERN})(?![\w/-])"
)


def _date_before(words: str) -> re.Pattern[str]:
    """A date (group 1) and, a few characters on in its sentence, one of ``words`` (a regex
    alternation)."""
    return re.compile(
        rf"(?i)(?<![\w/.-])({DATE_PATTERN})(?![\w/-])[^\d\n.]{{0,12}}?(?<!\w)(?:{words})(?!\w)"
    )


#: The birth word after the date: "Ich bin am 2. August 1955 geboren."
DOB_AFTER_RE = _date_before(r"geboren|born|née?|nato|nata|nacid[oa]|urodzon[ya]")
#: A birth year before the Russian or Ukrainian abbreviation of "year of birth" ("1952 г.р.",
#: "1952 р.н.").
BIRTH_YEAR_RE = re.compile(r"(?<![\w.])((?:19|20)\d\d)[ \t]?(?:г\.[ \t]?р\.|р\.[ \t]?н\.)")
#: A birthday word right after a date ("am 4. Mai 2018 Geburtstag"): a birth date when its year
#: is past (``dob_answer_recognizer``).
BIRTHDAY_AFTER_RE = _date_before(
    r"birthday|geburtstag|cumpleaños|compleanno|anniversaire|verjaardag|urodziny|aniversário"
    r"|födelsedag|fødselsdag|bursdag|syntymäpäivä|születésnap|doğum günü"
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
#: Street-type words ("Lane", "Crescent"), data of ``detectors/addresses.yaml``.
_STREET_SUFFIX = "|".join(sorted(street_types(), key=len, reverse=True))
#: A unit designator needs a word end ("United" is no "Unit") and a digit in its number.
_UNIT = (
    r"(?:Apt\.?|Apartment|Appartamento|Interno|Piso|Suite|Ste\.?|Unit|#)(?![A-Za-z])"
    r"\s*[A-Za-z-]*\d[A-Za-z0-9-]*"
)
STREET_RE = re.compile(
    # maybe a unit before a slash: "3/27 Wattle Crescent" (Australia, New Zealand)
    # a range of house numbers: "15-17 Crown Street"
    # a direction before the name, an ordinal in it: "2210 SW 12th Ter" (Florida, Washington)
    rf"\b(?:\d{{1,4}}[A-Za-z]?/)?\d{{1,6}}(?:[–-]\d{{1,5}}[A-Za-z]?)?\s+"
    rf"(?:(?:[NSEW]|NE|NW|SE|SW)\.?\s+)?(?:(?:[A-Z][A-Za-z'-]*|\d{{1,3}}(?:st|nd|rd|th))\.?\s+){{1,4}}"
    rf"(?:{_STREET_SUFFIX})\b\.?"
    # a quadrant after the type: "1207 Larch Hollow Ave NW" (Washington, Atlanta, Calgary)
    r"(?:[ \t](?:NE|NW|SE|SW|N|S|E|W)(?![\w'’-]))?"
    # a numbered street of its estate after the type: "Blk 12 Tampines Ave 4" (Singapore)
    rf"(?:[ \t]\d{{1,3}}[A-Za-z]?(?=,))?"
    rf"(?:,?\s+{_UNIT})?"
    rf"|\b{_UNIT}(?=\s|,|$)"
    # a British flat or studio before its street: "Flat 26h Dale Square"
    rf"|\b(?:Flat|Studio)\s+\d{{1,4}}[A-Za-z]?,?\s+(?:[A-Z][A-Za-z'-]*\.?\s+){{1,3}}"
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
    """A date right after a birth keyword or before one, a year before "г.р."."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH", (DOB_RE, DOB_AFTER_RE, BIRTH_YEAR_RE), 0.85, "DateOfBirthRecognizer"
    )


def born_abbreviation_recognizer() -> ContextGroupRecognizer:
    """A date after "(b." or ", b." of a year ``ADULT_AGE`` years back at least."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH",
        (BORN_ABBREVIATION_RE,),
        0.85,
        "BornAbbreviationRecognizer",
        keep=_born_long_ago,
    )


_ANY_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _born_long_ago(date: str) -> bool:
    """The date's year is ``ADULT_AGE`` years back at least (a genealogy's 1880 too)."""
    m = _ANY_YEAR.search(date)
    return m is not None and int(m.group()) <= dt.date.today().year - ADULT_AGE


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


def past_year(date: str) -> bool:
    """The date's year is before this one."""
    year = _year(date)
    return year is not None and year < dt.date.today().year


#: A whole date (day, month and a four-digit year) standing alone, not part of a version, a time
#: or a longer number (a colon after it only before a space: "…, 1961-12-01: seen for…"); a
#: date written with the day sign ends there ("1961年12月1日生").
WHOLE_DATE_RE = re.compile(
    rf"(?<![\w/.:-])({DATE_PATTERN})(?:(?<=[日일])|(?![\w/-]|:\S|\.\d))", re.IGNORECASE
)
_YEAR = re.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
#: The youngest age whose whole date of birth is masked without a birth word.
ADULT_AGE = 16


def _year(date: str) -> int | None:
    """The four-digit year written in ``date`` (1900 to 2099), if any."""
    m = _YEAR.search(date)
    return int(m.group()) if m is not None else None


def _birth_year_date(date: str) -> bool:
    """The date's year makes it the birth date of somebody at least ``ADULT_AGE`` years old
    (1900 to this year minus ``ADULT_AGE``)."""
    year = _year(date)
    return year is not None and 1900 <= year <= dt.date.today().year - ADULT_AGE


def old_date_recognizer() -> ContextGroupRecognizer:
    """A whole date of a year at least ``ADULT_AGE`` years back, without a birth word ("Patient:
    …, 1961-12-01", a passenger's ``"1957-10-19"``), as ``DATE_OF_BIRTH`` at a lower score. In the
    development corpora 868 of 870 such dates were somebody's birth date (forms, notes,
    passengers' records; the two others followed "since"; dates of orders, flights, visits and
    incidents are recent), and plain Presidio masks every date. The year is read against the
    clock: a date turns old on its year's change."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH", (WHOLE_DATE_RE,), 0.6, "OldDateRecognizer", keep=_birth_year_date
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


#: A social-media handle in text ("thanks @fern_walker88"), with the dots and hyphens that
#: payment, chat and code platforms allow inside ("@fern-walker-88", "@f.walker", "@j-walker"):
#: an account name, masked where it stands. Not an email's second half (no word character or
#: dot before the "@"). A Matrix user's server, a Reddit user and a social profile's address
#: (the name after "linkedin.com/in/", "x.com/"; not a repository's path) too.
SOCIAL_HANDLE_RE = re.compile(
    r"(?<![\w.@/])@[A-Za-z](?:[A-Za-z0-9_]{1,29}|(?=[.-]\w))(?:[.-][A-Za-z0-9_]+)*(?![\w@])"
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
    ``login_names.speaker_spans``): a text of two such lines at least."""

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
