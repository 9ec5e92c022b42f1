"""High-precision PII patterns and the custom Presidio recognizers built on them.

The same compiled patterns serve the masking recognizers and the leak scan (``scan.py``), so that
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
  "my 7447 card", "last four 7447"); ``DATE_OF_BIRTH``: a date right after "born", "birthday",
  "date of birth", "DOB". Other dates (bookings, timestamps) are kept.
"""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

# --------------------------------------------------------------------------- strict patterns
from agentic_pipeline.pii_patterns import (  # noqa: E402,F401  (re-exported for the masking package)
    CARD_RE,
    EMAIL_RE,
    IBAN_RE,
    IPV4_RE,
    PHONE_RE,
    SSN_RE,
    USER_ID_RE,
    iban_ok,
    luhn_ok,
    strict_matches,
)

#: Month names (English abbreviations too) and those of the main European languages, as dates
#: of birth are written in them: "2. August 1955", "27 juillet 1935", "5 de julio de 1980".
MONTH_NAMES: tuple[str, ...] = tuple(
    """
january february march april may june july august september october november december
januar februar märz mai juni juli oktober dezember jänner
janvier février mars avril juin juillet août septembre octobre novembre décembre
enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
januari februari maart mei augustus
stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
""".split()
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|"
    + "|".join(sorted(set(MONTH_NAMES), key=len, reverse=True))
    + ")"
)
DATE_PATTERN = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}"
    rf"|{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|\.)? (?:of |de )?{_MONTH}\.?,? (?:de )?\d{{4}})"
)
#: Words that say a date is somebody's birth date, in English and the main European languages.
_BIRTH_WORDS = (
    r"born|birth\s?day|date of birth|birth\s?date|d\.?o\.?b\.?|geboren|geb\.|geburtsdatum|"
    r"geburtstag|née?|naissance|nacido|nacida|nací|nacimiento|cumpleaños|nato|nata|nascita|"
    r"geboortedatum|urodz\w*|ur\.|født|fødselsdato|född|födelsedatum|syntynyt"
)
DOB_RE = re.compile(rf"(?i)(?<!\w)(?:{_BIRTH_WORDS})(?!\w)[^\d\n]{{0,45}}?({DATE_PATTERN})")
#: The birth word after the date: "Ich bin am 2. August 1955 geboren."
DOB_AFTER_RE = re.compile(
    rf"(?i)(?<![\w/.-])({DATE_PATTERN})(?![\w/-])[^\d\n.]{{0,12}}?(?<!\w)"
    r"(?:geboren|born|née?|nato|nata|nacid[oa]|urodzon[ya])(?!\w)"
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
_STREET_SUFFIX = (
    "Street|St|Str|Avenue|Ave|Road|Rd|Drive|Dr|Lane|Ln|Boulevard|Blvd|Court|Ct|Way|Place|Pl|"
    "Terrace|"
    "Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Loop|Row|Crescent|Close|Alley|"
    "Bypass|Causeway|Center|Common|Corner|Cove|Creek|Crossing|Estates|Expressway|Extension|Falls|"
    "Ferry|Field|Fields|Flat|Flats|Ford|Forest|Fork|Forks|Fort|Freeway|Garden|Gardens|Gateway|"
    "Glen|Green|Grove|Harbor|Haven|Heights|Hill|Hills|Hollow|Island|Isle|Junction|Key|Knoll|"
    "Knolls|Lake|Lakes|Landing|Light|Lights|Manor|Meadow|Meadows|Mill|Mills|Mission|Mount|"
    "Mountain|Mountains|Neck|Orchard|Oval|Park|Pass|Path|Pike|Pine|Pines|Plain|Plains|Plaza|"
    "Point|Points|Port|Ports|Prairie|Radial|Ranch|Rapids|Rest|Ridge|Ridges|River|Route|Run|"
    "Shoal|Shoals|Shore|Shores|Skyway|Spring|Springs|Spur|Station|Stravenue|Stream|Summit|"
    "Throughway|Trace|Track|Tunnel|Turnpike|Union|Unions|Valley|Valleys|Via|Viaduct|View|Views|"
    "Village|Villages|Ville|Vista|Walk|Wall|Wells|Bridge|Brook|Brooks|Burg|Burgs|Canyon|Cape|"
    "Cliff|Cliffs|Club|Crest|Dale|Dam|Divide|Curve|Branch|Bluff|Bluffs|Bottom|Camp|Glens|Greens|"
    "Groves|Harbors|Mall|Motorway|Overpass|Parks|Inlet|Hwy|Heights"
)
#: A unit designator needs a word end ("United" is no "Unit") and a digit in its number.
_UNIT = (
    r"(?:Apt\.?|Apartment|Appartamento|Interno|Piso|Suite|Ste\.?|Unit|#)(?![A-Za-z])"
    r"\s*[A-Za-z-]*\d[A-Za-z0-9-]*"
)
STREET_RE = re.compile(
    rf"\b\d{{1,6}}\s+(?:[A-Z][A-Za-z'-]*\.?\s+){{1,4}}(?:{_STREET_SUFFIX})\b\.?"
    rf"(?:,?\s+{_UNIT})?"
    rf"|\b{_UNIT}(?=\s|,|$)"
    # a British flat or studio before its street: "Flat 26h Dale Square"
    rf"|\b(?:Flat|Studio)\s+\d{{1,4}}[A-Za-z]?,?\s+(?:[A-Z][A-Za-z'-]*\.?\s+){{1,3}}"
    rf"(?:{_STREET_SUFFIX})\b\.?"
)


# --------------------------------------------------------------------------- recognizers
class StrictPatternRecognizer(LocalRecognizer):
    """Presidio recognizer reporting ``strict_matches`` (checksums included)."""

    ENTITIES = [
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "CREDIT_CARD",
        "US_SSN",
        "IBAN_CODE",
        "IP_ADDRESS",
        "USER_ID",
    ]

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
        group: int = 1,
    ) -> None:
        self.entity = entity
        self.group = group
        self.regexes = regexes
        self.score = score
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
    """A date right after a birth keyword."""
    return ContextGroupRecognizer(
        "DATE_OF_BIRTH", (DOB_RE, DOB_AFTER_RE), 0.85, "DateOfBirthRecognizer"
    )


def street_address_recognizer() -> ContextGroupRecognizer:
    """US/UK-style street lines ("975 Sunset Drive, Suite 217") and unit designators."""
    return ContextGroupRecognizer(
        "STREET_ADDRESS", (STREET_RE,), 0.7, "StreetAddressRecognizer", group=0
    )


#: Score of a name found by its structure or context (self-introduction, title, listed name
#: pair, "call me X"): above spaCy's 0.85, because Presidio drops a detection contained in a
#: same-type one with an equal or higher score, and a spaCy span later found to be vocabulary
#: ("Marius Bang" with "Bang") would take the structural evidence with it.
NAME_EVIDENCE_SCORE = 0.9
#: A person introducing or signing as themselves: "this is Angelica Burgess", "my name is ...",
#: "Regards, Ann Lee". spaCy's small model misses names right after a greeting; this does not.
INTRO_RE = re.compile(
    r"(?:\b[Tt]his is|\b[Mm]y name is|\b[Nn]ame(?: is|:)|\bI'm|\bI am|\b[Rr]egards,|"
    r"\b[Ss]incerely,|\b[Cc]heers,|\b[Bb]est,)\s+"
    r"((?:Mr|Mrs|Ms|Dr)\.?\s+)?([A-ZÀ-ÖØ-ÞĀ-Ž][a-zA-Zß-öø-ÿĀ-ž'\u2019-]+"
    r"(?:[ \t]+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zA-Zß-öø-ÿĀ-ž'\u2019-]+){0,2})"
)


def self_introduction_recognizer() -> ContextGroupRecognizer:
    """The name after "this is", "my name is", "I'm", or a sign-off ("Regards,")."""
    return ContextGroupRecognizer(
        "PERSON", (INTRO_RE,), NAME_EVIDENCE_SCORE, "SelfIntroductionRecognizer", group=2
    )


def custom_recognizers() -> list[LocalRecognizer]:
    """All our recognizers, to add to a Presidio registry."""
    return [
        StrictPatternRecognizer(),
        card_last4_recognizer(),
        phone_context_recognizer(),
        dob_recognizer(),
        street_address_recognizer(),
        self_introduction_recognizer(),
        *outsider_recognizers(),
    ]


# =========================================================================== outsider recall
# Detectors for text the project never wrote (issue #12). Each weak type gets a second method:
# phones = phonenumbers' matcher + context digits; cards = Presidio + our Luhn scan with
# separators and 12-digit Maestro in context; IBANs = mod-97 + IBAN-shaped with the country's
# length; national ids = strict formats + any id in context; streets = US/UK lines + European
# lines + postcodes; names = spaCy + self-introductions + titles + a first/last-name gazetteer.
#
# Dependencies, chosen on purpose:
# * ``phonenumbers`` (already installed and pinned as Presidio's own dependency): Google's
#   libphonenumber metadata knows the numbering plan of every region, offline. Not pulled in
#   again: we use the copy Presidio pins.
# * ``Faker`` (already a project dependency, pinned): its per-locale first/last-name tuples are a
#   maintained, offline name gazetteer for 15 European/North-American locales.
# * ``python-stdnum`` NOT used: national ids are accepted on format + context words, not on check
#   digits, because outsider data (and typos) carry ids with wrong check digits, and a checksum
#   adds nothing once a context word says "this is an id".
# * ``pyap``/``usaddress`` NOT used: pyap covers US/CA/GB only (unmaintained since 2020) and
#   usaddress is a US-only CRF parser needing an address-shaped input; the regex families below
#   cover the European formats too, at regex speed.

from functools import lru_cache  # noqa: E402

import phonenumbers  # noqa: E402

from agentic_pipeline.masking.pseudonyms import fold  # noqa: E402
from agentic_pipeline.masking.vocabulary import (  # noqa: E402
    FUNCTION_WORD_ZIPF,
    NATIONALITIES,
    VOCAB_ZIPF,
    countries,
    is_place,
    is_place_or_calendar,
    is_vocabulary,
)
from agentic_pipeline.pii_patterns import IBAN_LENGTHS, luhn_valid  # noqa: E402

#: Regions whose national formats (no "+") the phone matcher tries; international "+"/"00"
#: numbers are parsed whatever the region (libphonenumber reads the country code).
PHONE_REGIONS: tuple[str, ...] = (
    "US",
    "GB",
    "DE",
    "FR",
    "ES",
    "IT",
    "NL",
    "PL",
    "CH",
    "AT",
    "BE",
    "IE",
    "PT",
    "DK",
    "SE",
    "NO",
    "FI",
    "CZ",
    "SK",
    "HU",
    "GR",
    "RO",
    "CA",
    "AU",
    "IN",
    "ZA",
    "BR",
    "MX",
    "IL",
)
_PHONE_WORDS = (
    r"phone|telephone|tel|mobile|cell|cellphone|number|no|call|calls|reach|contact|text|sms|"
    r"fax|whatsapp|dial|hotline|callback|call back|ring|telefon|telefonnummer|handy|téléphone|"
    r"tél|portable|numéro|"
    r"teléfono|telefono|móvil|cellulare|numero|telefoon|nummer|mobiel|komórka|tel\.|nr|"
    r"answering|answer|landline|office|message|messages|registered|whatsapp"
)
_PHONE_CTX_RE = re.compile(rf"(?i)(?<!\w)(?:{_PHONE_WORDS})(?!\w)")
PHONE_CONTEXT_WORDS = _PHONE_CTX_RE
#: A phone label right after the number: "676 5178-Office", "0477 49 14 00 (mobile)".
_PHONE_AFTER_RE = re.compile(
    r"(?i)[ \t]*[-(/]?[ \t]*(?:office|fax|home|mobile|cell|work|tel|phone|landline)(?!\w)"
)
#: A digit run that may be a phone number: optional +, digits with the separators phones use.
_PHONE_CAND_RE = re.compile(r"(?<![\w.,/+-])(?:\+|00)?\(?\d[\d ().\-/]{4,20}\d(?![\w]|[.,]\d)")
_DATE_LIKE_RE = re.compile(r"^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$|^\d{4}-\d\d-\d\d")
_AMOUNT_LIKE_RE = re.compile(r"^\d{1,3}(?:[,.']\d{3})+(?:[.,]\d{1,2})?$|^\d+[.,]\d{1,2}$")
_SEPARATED_RE = re.compile(r"\d[ ().\-/]+\d")


def _ctx_before(text: str, start: int, rx: re.Pattern[str], width: int = 40) -> bool:
    return rx.search(text, max(0, start - width), start) is not None


class IntlPhoneRecognizer(LocalRecognizer):
    """Phone numbers of any region: ``phonenumbers.PhoneNumberMatcher`` (VALID leniency) over the
    main regions, plus digit runs of 6-15 digits after a phone context word.

    A bare digit run without separators and without context (``1008292230``, an item id) is never
    a phone; neither are dates, amounts and floats."""

    def __init__(self, regions: tuple[str, ...] = PHONE_REGIONS) -> None:
        self.regions = regions
        super().__init__(supported_entities=["PHONE_NUMBER"], name="IntlPhoneRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report phone numbers (score 0.85 from the matcher, 0.75 from context)."""
        if entities and "PHONE_NUMBER" not in entities:
            return []
        out: dict[tuple[int, int], float] = {}
        for m in _PHONE_CAND_RE.finditer(text):
            raw = m.group().rstrip(" (-./").lstrip(" -./")
            if raw.startswith("(") and ")" not in raw:
                raw = raw[1:]
            s = m.start() + m.group().find(raw)
            e = s + len(raw)
            digits = sum(c.isdigit() for c in raw)
            if not 6 <= digits <= 15 or _DATE_LIKE_RE.match(raw) or _AMOUNT_LIKE_RE.match(raw):
                continue
            context = _ctx_before(text, s, _PHONE_CTX_RE) or _PHONE_AFTER_RE.match(text, e)
            intl = raw.startswith(("+", "00"))
            separated = _SEPARATED_RE.search(raw) is not None
            if context and digits >= 6:
                out[(s, e)] = 0.75
            if (intl or separated) and _valid_phone(raw, self.regions):
                out[(s, e)] = 0.85
            elif (
                raw.isdigit()
                and raw[0] == "0"
                and 9 <= digits <= 12
                and _valid_phone(raw, self.regions)
            ):
                out.setdefault((s, e), 0.6)  # a national number with its trunk prefix
        return [RecognizerResult("PHONE_NUMBER", s, e, sc) for (s, e), sc in sorted(out.items())]


@lru_cache(maxsize=4096)
def _valid_phone(raw: str, regions: tuple[str, ...]) -> bool:
    """True when libphonenumber finds a valid number spanning ``raw`` in one of ``regions``."""
    for region in ("ZZ",) if raw.startswith("+") else regions:
        for m in phonenumbers.PhoneNumberMatcher(raw, region, leniency=phonenumbers.Leniency.VALID):
            if len(m.raw_string) >= len(raw) - 2:
                return True
    if raw.startswith("00"):
        return _valid_phone("+" + raw[2:], regions)
    return False


# --------------------------------------------------------------------------- cards, IBANs
_CARD_CAND_RE = re.compile(r"(?<![\w.,-])\d(?:[ -]?\d){11,18}(?![\w-]|[.,]\d)")
_CARD_CTX_RE = re.compile(
    r"(?i)(?<!\w)(?:card|cards|visa|mastercard|maestro|amex|american express|discover|jcb|diners|"
    r"cc|pan|karte|kreditkarte|carte|tarjeta|carta|kaart|karta)(?!\w)"
)


class CardRecognizer(LocalRecognizer):
    """Card numbers of 12-19 digits, spaces or dashes allowed, Luhn-valid; 12-digit ones (Maestro)
    only after a card word. Never part of a float (``113.71000000000004``) or an amount."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["CREDIT_CARD"], name="CardRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report Luhn-valid card numbers."""
        if entities and "CREDIT_CARD" not in entities:
            return []
        out = []
        for m in _CARD_CAND_RE.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if not luhn_valid(digits) or len(set(digits)) < 3:
                continue
            if len(digits) == 12 and not _ctx_before(text, m.start(), _CARD_CTX_RE, 50):
                continue
            out.append(RecognizerResult("CREDIT_CARD", m.start(), m.end(), 0.9))
        return out


_IBAN_SHAPE_RE = re.compile(r"(?<![\w-])([A-Z]{2})(\d{2})((?:[ -]?[A-Z0-9]){11,30})(?![\w-])")


class IbanShapeRecognizer(LocalRecognizer):
    """IBAN-shaped account numbers: a known country code, two digits and the country's length,
    whatever the check digits (a typo or a fake IBAN is still somebody's account number)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["IBAN_CODE"], name="IbanShapeRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report IBAN-shaped strings of the right length for their country."""
        if entities and "IBAN_CODE" not in entities:
            return []
        out = []
        for m in _IBAN_SHAPE_RE.finditer(text):
            want = IBAN_LENGTHS.get(m.group(1))
            compact = re.sub(r"[ -]", "", m.group())
            if want is None or sum(c.isdigit() for c in compact) < 8:
                continue
            if len(compact) == want:
                out.append(RecognizerResult("IBAN_CODE", m.start(), m.end(), 0.85))
            elif len(compact) > want:  # an IBAN followed by more text: cut at the right length
                n, end = 0, m.start()
                while n < want and end < m.end():
                    n += text[end] not in " -"
                    end += 1
                out.append(RecognizerResult("IBAN_CODE", m.start(), end, 0.8))
        return out


# --------------------------------------------------------------------------- national ids
#: Strict national-id formats that are safe without context.
NATIONAL_ID_RES: tuple[re.Pattern[str], ...] = (
    # UK National Insurance number (NINO): two letters, six digits, A-D
    re.compile(
        r"(?<![\w-])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
        r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\w-])"
    ),
    # Swiss AHV/AVS number 756.xxxx.xxxx.xx
    re.compile(r"(?<![\w.-])756[. ]?\d{4}[. ]?\d{4}[. ]?\d{2}(?![\w]|[.-]\d)"),
    # French INSEE / NIR: sex, year, month, department, commune, order (+ key), spaced or not
    re.compile(
        r"(?<![\w.-])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3}"
        r"(?: ?\d{2})?(?![\w]|[.,-]\d)"
    ),
    # Italian codice fiscale
    re.compile(r"(?<![\w-])[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z](?![\w-])"),
    # Spanish DNI / NIE (number + letter)
    re.compile(r"(?<![\w-])(?:\d{8}|[XYZ]\d{7})-?[A-HJ-NP-TV-Z](?![\w-])"),
)
_ID_WORDS = (
    r"passport(?:\s+(?:number|no\.?|#))?|id\s+card|identity\s+(?:card|number)|personal\s+id|"
    r"(?:citizen|resident|voter|personal)\s+(?:id|number)|"
    r"national\s+(?:id|identity|insurance)(?:\s+(?:number|no\.?))?|nino|ni\s+number|"
    r"social\s+security(?:\s+number)?|ssn|sin|tax\s+(?:id|number|code)|tin|"
    r"steuer-?id|steueridentifikationsnummer|steuernummer|personalausweis(?:nummer)?|ausweis"
    r"(?:nummer)?|reisepass(?:nummer)?|sozialversicherungsnummer|passeport|"
    r"num[ée]ro\s+de\s+s[ée]curit[ée]\s+sociale|insee|nir|bsn|burgerservicenummer|sofinummer|"
    r"pesel|nip|ahv|avs|dni|nie|nif|codice\s+fiscale|pasaporte|passaporto|paspoort|"
    r"driver'?s?\s+licen[cs]e(?:\s+(?:number|no\.?))?|driving\s+licen[cs]e|licen[cs]e\s+number"
)
#: Ids of things (orders, items, flights...) are kept: no id word alone is person context.
ID_CONTEXT_RE = re.compile(
    rf"(?i)(?<!\w)(?:{_ID_WORDS})(?!\w)[^\w\n]{{0,4}}(?:(?:is|number|no|nr|ist|est|es|è|:)\W{{0,3}})?"
    r"((?=[A-Z0-9 .\-/]*\d)[A-Z0-9](?:[A-Z0-9.\-/]|\s(?=\d)){4,20}[A-Z0-9])(?![\w-])"
)


class NationalIdRecognizer(LocalRecognizer):
    """National ids of the main European countries (strict formats) and any id or passport
    number right after an id context word ("passport number", "PESEL", "BSN", "Steuer-ID")."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["ID_DOCUMENT"], name="NationalIdRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report strict-format ids (0.85) and ids in context (0.8)."""
        if entities and "ID_DOCUMENT" not in entities:
            return []
        out: dict[tuple[int, int], float] = {}
        for rx in NATIONAL_ID_RES:
            for m in rx.finditer(text):
                out[(m.start(), m.end())] = 0.85
        for m in ID_CONTEXT_RE.finditer(text):
            val = m.group(1)
            if sum(c.isdigit() for c in val) >= 5 and not _DATE_LIKE_RE.match(val):
                out.setdefault((m.start(1), m.end(1)), 0.8)
        return [RecognizerResult("ID_DOCUMENT", s, e, sc) for (s, e), sc in sorted(out.items())]


# --------------------------------------------------------------------------- streets, postcodes
_UP = "A-ZÀ-ÖØ-ÞĀ-Žƀ-ɏΆ-ΏΑ-ΩА-Я"  # upper-case Latin (accented too), Greek, Cyrillic
_LW = "a-zß-öø-ÿĀ-žƀ-ɏά-ώа-яё"
_WORD = rf"[{_UP}{_LW}][{_UP}{_LW}'’.-]*"
#: A word of a street name after an address word: capitalised, or a lower-case particle ("Via
#: della Spiga"); never a sentence's end ("the weekend. I'll") nor "is"/"of".
_STREET_WORD = (
    rf"(?:[{_UP}][{_UP}{_LW}'’-]*\.?|(?:de|del|della|delle|di|da|do|dos|das|du|des|la|le|les|"
    r"el|los|las|van|von|der|den|am|an|im|nad|pod|na|u|y|e|i)(?![\w'’]))"
)
_HOUSE = r"\d{1,5}(?:\s?[a-zA-Z](?![\w]))?(?:\s?[/-]\s?\d{1,4}[a-zA-Z]?)?"
_EU_PREFIX = (
    r"Via|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Strada|Contrada|Borgo|Canale|Incrocio|Rotonda|"
    r"Salita|Stretto|Calle|C/|Avenida|Avda\.?|Trg|"
    r"Av\.|Paseo|Plaza|Camino|Carrer|Carretera|Rambla|Ronda|Travesía|Rua|Travessa|Largo|Rue|rue|"
    r"Avenue|avenue|Boulevard|boulevard|Bd|bd|Chemin|chemin|Allée|allée|Impasse|impasse|Quai|quai|"
    r"Place|place|Route|route|Cours|cours|Square|square|ul\.|ulica|Ulica|al\.|Aleja|aleja|pl\.|"
    r"Plac|plac|Am|An der|Auf dem|Im|Zum|Zur|Rynek|Náměstí|náměstí|Ulice|Straße|Strasse"
)
_EU_SUFFIX = (
    r"straße|strasse|str\.|weg|gasse|allee|platz|ring|damm|ufer|chaussee|steig|pfad|markt|"
    r"straat|laan|plein|gracht|kade|singel|dijk|hof|dreef|veld|pad|baan|steeg|plantsoen|gade|vej|"
    r"gatan|vägen|gata|veien|"
    r"vegen|tie|katu|utca|út|tér|ská|ova|ní|cká|boulevard|park|kai|berg|feld|garten"
)
#: First words of a "Word 12" line that is not a street.
_NOT_STREET = (
    "Flight|Seat|Gate|Room|Order|Item|Total|Step|Page|Chapter|Table|Figure|Version|Terminal|"
    "Platform|Level|Floor|Row|Section|Day|Week|Year|Option|Question|Line|Part|Phase|Round|Trial|"
    "Task|Episode|Batch|Number|Case|Price|Amount|Quantity|Score|Rating|Bags|Passengers|Adults|"
    "Children|Nights|Hours|Minutes|Reservation|Ticket|Train|Bus|Bay|Stage|Level|Grade"
)
_NOT_STREET_WORDS = frozenset(w.lower() for w in _NOT_STREET.split("|"))
EU_STREET_RES: tuple[re.Pattern[str], ...] = (
    # "Via Roma 12", "Calle de Alcalá 3", "ul. Długa 5", "Avenida Noruega 42"
    re.compile(rf"(?<!\w)(?:{_EU_PREFIX})\s+(?:{_WORD}\s+){{0,4}}?{_WORD},?\s+{_HOUSE}(?!\w)"),
    # "12, rue de la Paix", "3 bis avenue Foch"
    re.compile(
        rf"(?<![\w.,])\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|chemin|"
        rf"allée|impasse|place|quai|route|cours)\s+(?:{_WORD}\s+){{0,4}}{_WORD}(?!\w)",
        re.IGNORECASE,
    ),
    # "Hauptstraße 3", "Mattenstrasse 108", "Keizersgracht 12a", "Karu põik 61"
    re.compile(
        rf"(?<!\w)(?:[{_UP}]{_WORD}[ \t]+)?[{_UP}][{_UP}{_LW}'-]*(?i:{_EU_SUFFIX})\s+{_HOUSE}"
        r"(?!\w)"
    ),
    # post-office boxes
    re.compile(
        r"(?i)(?<!\w)(?:P\.?\s?O\.?\s?Box|Postfach|Boîte postale|BP|Apartado"
        r"(?: de correos)?|Casella postale|Skrytka pocztowa)\s+\d{1,6}(?!\w)"
    ),
    # "3212 40th Street"
    re.compile(
        r"(?<![\w.,])\d{1,6}\s+\d{1,3}(?:st|nd|rd|th)\s+(?:Street|St|Avenue|Ave|Road|Rd|"
        r"Drive|Dr|Lane|Ln|Boulevard|Blvd|Place|Pl|Way|Terrace|Court|Ct)\b\.?"
    ),
    # a line that is only a street and a house number ("Plattebaan 178", "Bem rakpart 86.")
    re.compile(
        rf"(?m)^[> \t]*((?!(?:{_NOT_STREET})\b)[{_UP}][{_LW}'’-]{{2,}}"
        rf"(?:[ \t]+[{_UP}{_LW}][{_LW}'’.-]*){{0,3}}[ \t]+\d{{1,4}}[a-z]?\.?)[ \t]*$"
    ),
    # "Slovenčeva 93, Fala": a capitalised word and a house number before ", City"
    re.compile(
        rf"(?<![\w.,])[{_UP}][{_LW}'’-]{{2,}}(?: [{_UP}][{_LW}'’-]+)? \d{{1,4}}[a-z]?"
        rf"(?=, [{_UP}])"
    ),
    # "637 Strojírenská 1006": number, one to three capitalised words, number
    re.compile(
        rf"(?<![\w.,])\d{{1,5}}[ \t]+(?:[{_UP}][{_LW}'’-]+[ \t]+){{1,3}}\d{{1,5}}[a-z]?"
        r"(?![\w.,])"
    ),
    # "Karu põik 61" / "Hoog St 5": capitalised word(s) then a house number, after an address word
    re.compile(
        rf"(?i:(?<!\w)(?:address|adresse|indirizzo|dirección|adres|live at|lives at|"
        rf"living at|live on|lives on|is on|is at|located at|corner of|ship to|shipped to|"
        rf"deliver to|delivered to|send it to|post it to|mail it to|moved to|move to|"
        rf"drops? (?:you|me|us) off at|pick (?:you|me|us) up at|"
        rf"wohne in der|wohnhaft)"
        rf"\b:?\s+)"
        rf"((?:{_STREET_WORD}[ \t]+){{1,4}}{_HOUSE})(?!\w)"
    ),
    # a street word after the name: "Wesselényi u. 79.", "Csabai kapu 38", "Dunajska cesta 5"
    re.compile(
        rf"(?<!\w)[{_UP}][{_LW}'’-]+(?:[ \t]+[{_UP}][{_LW}'’-]+)?[ \t]+(?:u\.|utca|út|tér|"
        rf"körút|krt\.|rakpart|sétány|köz|kapu|cesta|ulica)[ \t]+{_HOUSE}\.?(?!\w)"
    ),
)
#: The families of ``EU_STREET_RES`` without a street word of their own ("words + house
#: number") and the "-ring"/"-weg" suffix family ("During 2019" ends in "ring"): their words are
#: checked by ``_street_words`` (positions in ``EU_STREET_RES``; new families go at its end).
_WORD_NUMBER_RES = frozenset({2, 5, 6, 7, 8})
_LETTERS_RE = re.compile(rf"[{_UP}{_LW}]+")


def _street_words(span: str) -> bool:
    """The words of a "words + number" street candidate can name a street: none is a month or
    weekday ("May 27"), a country or nationality ("Australia 2405"), a capitalised English stop
    word ("During 2019", "Of The 70s") or a non-street label ("Size 10"), and they are not all
    common English vocabulary."""
    words = _LETTERS_RE.findall(span)
    if not words:
        return False
    for w in words:
        f = fold(w)
        if is_place_or_calendar(w) or f in _NOT_STREET_WORDS:
            return False
        if w[0].isupper() and f in _STOP:
            return False
    return not all(is_vocabulary(w) for w in words)


#: Postcodes, each with the context that makes it one (a city after it, or a comma/state before).
_CITY = rf"(?=,?\s+[{_UP}][{_LW}'’-]+)"
POSTCODE_RES: tuple[re.Pattern[str], ...] = (
    # UK
    re.compile(r"(?<![\w-])(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}(?![\w-])"),
    # Canada
    re.compile(
        r"(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d"
        r"(?![\w-])"
    ),
    # Netherlands, before the city
    re.compile(rf"(?<![\w-])[1-9]\d{{3}} ?(?!SA|SD|SS)[A-Z]{{2}}(?![\w-]){_CITY}"),
    # DE/FR/IT/ES/FI/... five digits before the city ("10115 Berlin", "75001 Paris")
    re.compile(rf"(?<![\w.,/-])\d{{5}}(?![\w.,/-]){_CITY}"),
    # PL "00-950 Warszawa", PT "1000-001 Lisboa"
    re.compile(
        rf"(?<![\w.,/-])\d{{2}}-\d{{3}}(?![\w-]){_CITY}|(?<![\w.,/-])\d{{4}}-\d{{3}}(?![\w-])"
    ),
    # CH/AT/BE/DK/NO four digits before the city, after a comma or line break
    re.compile(rf"(?:(?<=, )|(?<=,)|(?<=\n))[1-9]\d{{3}}(?![\w.,/-]){_CITY}"),
    # a postcode closing an address line: "Zürich, 8021", "MARSEILLE, 13001", "Fala, 2343"
    re.compile(
        rf"(?<=[{_UP}{_LW}], )(?:\d{{4,5}}|\d{{4,5}}-\d{{3}}|\d{{2}}-\d{{3}}|\d{{3}} \d{{2}}|"
        r"[1-9]\d{3} ?[A-Z]{2})"
        r"(?=$|[\s,;?!)\"]|\.(?!\d))"
    ),
    # a postcode after a country or county name at the end of a line ("Australia 4671")
    re.compile(
        rf"(?<![\w-])[{_UP}][{_LW}]+ (\d{{4,5}}|\d{{3}} \d{{2}}|[1-9]\d{{3}} ?[A-Z]{{2}}|"
        r"\d{2}-\d{3}|\d{4,5}-\d{3})"
        r"(?=[ \t]*$|[ \t]*\n)",
        re.MULTILINE,
    ),
    # a postcode after its name: "my zip code is 5211", "PLZ: 10115", "code postal 75001"
    re.compile(
        r"(?i:(?<!\w)(?:zip(?:\s?code)?|post(?:al)?\s?code|postcode|plz|postleitzahl|"
        r"code\s+postal|c[oó]digo\s+postal|cap|c\.p\.)(?:\s+(?:is|was|ist|est|es|è))?)"
        r"\W{0,3}(\d{3,5}(?:[- ]\d{2,4})?|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|"
        r"[1-9]\d{3} ?[A-Z]{2})(?![\w-])"
    ),
    # US ZIP after a state code ("Austin, TX 78701") or a city and comma ("Seattle, 98101")
    re.compile(r"(?<=[A-Z]{2} )\d{5}(?:-\d{4})?(?![\w-])|(?<=, )\d{5}(?:-\d{4})?(?=$|[\s,.;)])"),
    # Australian postcode after a state ("CAMPVALE NSW 2318")
    re.compile(
        r"(?<=\b(?:NSW|VIC|QLD|TAS|ACT) )\d{4}(?![\w-])|(?<=\b(?:WA|SA|NT) )\d{4}(?=[ \t]*$)", re.M
    ),
)


class StreetLineRecognizer(LocalRecognizer):
    """European street lines and postcodes (US/UK lines are ``street_address_recognizer``)."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=["STREET_ADDRESS", "ZIP_CODE"], name="StreetLineRecognizer"
        )

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report street lines (0.7) and postcodes (0.6)."""
        out = []
        if not entities or "STREET_ADDRESS" in entities:
            for i, rx in enumerate(EU_STREET_RES):
                for m in rx.finditer(text):
                    g = 1 if rx.groups else 0
                    if i in _WORD_NUMBER_RES and not _street_words(m.group(g)):
                        continue
                    out.append(RecognizerResult("STREET_ADDRESS", m.start(g), m.end(g), 0.7))
        if not entities or "ZIP_CODE" in entities:
            for rx in POSTCODE_RES:
                for m in rx.finditer(text):
                    g = 1 if rx.groups else 0
                    out.append(RecognizerResult("ZIP_CODE", m.start(g), m.end(g), 0.6))
        return out


# --------------------------------------------------------------------------- names
#: Faker locales whose name lists make the gazetteer (Europe and North America).
NAME_LOCALES = (
    "en_US",
    "en_GB",
    "en_IE",
    "de_DE",
    "de_AT",
    "de_CH",
    "fr_FR",
    "fr_CH",
    "es_ES",
    "it_IT",
    "nl_NL",
    "pl_PL",
    "da_DK",
    "sv_SE",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "sk_SK",
    "hu_HU",
    "pt_PT",
    "is_IS",
    "et_EE",
    "sl_SI",
    "hr_HR",
    "el_GR",
    "ro_RO",
)
#: Words that are names in some locale but far more often ordinary words or labels: never a name
#: alone from the gazetteer.
COMMON_WORDS = frozenset(
    """
a an the and or of to in on at by for with from as is are was be been this that it its my your
our their his her me you we they he she him them i not no yes all any can will may june april
august rose grant page hope joy faith guy bill mark will may art dean lane wood street park hill
king brown white black green young long short price case call cabin seat flight order item
modify cancel change book booking phone email name address salesperson orchestra manager user
agent assistant customer system tool policy status date time total amount payment card number
new san los las fort west east north south saint gift check basic economy business first last
gold silver platinum premium regular express standard delivery return exchange refund travel
visa mastercard amex paypal
""".split()
)


@lru_cache(maxsize=1)
def _listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers (offline),
    common words included ("Guy", "Mark")."""
    import importlib

    firsts: set[str] = set()
    lasts: set[str] = set()
    for loc in NAME_LOCALES:
        try:
            prov = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except (ImportError, AttributeError):
            continue
        for attr, dest in (
            ("first_names", firsts),
            ("first_names_male", firsts),
            ("first_names_female", firsts),
            ("first_names_nonbinary", firsts),
            ("last_names", lasts),
            ("last_names_without_suffix", lasts),
        ):
            vals = getattr(prov, attr, ())
            for v in vals.keys() if isinstance(vals, dict) else vals:
                for part in str(v).split():
                    if len(part) >= 2:
                        dest.add(fold(part))
    return frozenset(firsts), frozenset(lasts)


@lru_cache(maxsize=1)
def name_gazetteer() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers (offline),
    without the ``COMMON_WORDS``.

    Faker is used here as a *public name list*. An evaluation corpus of names must therefore not
    be drawn from Faker (it would measure this list against itself): the outsider benchmark's
    multi-locale corpus has to take its names from another source."""
    firsts, lasts = _listed_names()
    return frozenset(firsts - COMMON_WORDS), frozenset(lasts - COMMON_WORDS)


def is_name_pair(first: str, last: str) -> bool:
    """A listed first name followed by a listed last name or a surname ending, any case."""
    firsts, lasts = name_gazetteer()
    a, b = fold(first), fold(last)
    return (
        a in firsts
        and b not in COMMON_WORDS
        and (b in lasts or _SURNAME_END_RE.search(b) is not None)
    )


@lru_cache(maxsize=1)
def _all_names() -> frozenset[str]:
    firsts, lasts = name_gazetteer()
    return firsts | lasts


@lru_cache(maxsize=1)
def _all_listed() -> frozenset[str]:
    firsts, lasts = _listed_names()
    return firsts | lasts


def listed_name(word: str) -> bool:
    """``word`` is in the first- or last-name lists (common words included)."""
    w = fold(word)
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    return w in _all_listed()


def not_a_name_word(word: str, languages: tuple[str, ...] = ("en",), calendar: bool = True) -> bool:
    """``word`` is common vocabulary of ``languages`` that no name list has, a place or
    nationality, a calendar word (unless ``calendar`` is false: "Mai", "Jan" in a name's
    context), or a stop word: it cannot be (part of) a person name by itself."""
    f = fold(word).strip("'’.-")
    if f.endswith(("'s", "’s")):
        f = f[:-2]
    return (
        f in _STOP
        or f in COMMON_WORDS
        or (is_place_or_calendar(f) if calendar else is_place(f))
        or (is_vocabulary(f, VOCAB_ZIPF, languages) and not listed_name(f))
    )


_NAME_TOKEN = rf"[{_UP}{_LW}][{_UP}{_LW}'’-]*"
#: Two words on one line (a name is never split over a line break: "Reykjavík\nIceland").
_NAME_PAIR_RE = re.compile(rf"(?<![\w@.])({_NAME_TOKEN})[ \t]+({_NAME_TOKEN})(?![\w@])")
#: Surname endings common in Europe (patronymics and family-name suffixes).
_SURNAME_END_RE = re.compile(
    r"(?:sson|sdóttir|dóttir|dottir|sen|ssen|ová|ski|ska|cki|cka|dzki|wicz|icz|escu|opoulos|"
    r"akis|idis|ić|ič|vić|enko|chuk|ovich|ovna|ová|sdatter|ov|ev|ova|eva|yev|vich|dze|shvili|"
    r"oğlu|oglu)$"
)
#: English titles in any case ("ms. Naile"), the others capitalised.
_TITLE_RE = re.compile(
    rf"(?<!\w)(?:(?i:mr|mrs|ms|miss|mx|dr|prof)|Herr|Frau|Hr|Fr|M|Mme|Mlle|Sr|Sra|Srta|Sig|"
    rf"Sig\.ra|Dott|Pan|Pani|Dhr|Mevr)\.?[ \t]+((?:[{_UP}][{_LW}'’-]+)"
    rf"(?:[ -][{_UP}][{_LW}'’-]+){{0,2}})"
)
_TITLE_WORDS = frozenset(
    "mr mrs ms miss mx dr prof herr frau hr fr m mme mlle sr sra srta sig dott pan pani dhr mevr "
    "sir madam lady lord".split()
)


_NAME_SINGLE_RE = re.compile(
    rf"(?<![\w@.#/_-])([{_UP}][{_LW}]+(?:['’](?!s\b)[{_UP}{_LW}][{_LW}]+)?(?:-[{_UP}][{_LW}]+)?)"
    r"(?![\w@_-])"
)
_LAST_FIRST_RE = re.compile(rf"(?<![\w@.])([{_UP}][{_LW}'’-]+), ([{_UP}][{_LW}'’-]+)(?![\w@])")
#: A single capitalised word after these is more often a place ("flight to Houston").
_PLACE_BEFORE_RE = re.compile(
    r"(?i)(?:\b(?:from|to|in|via|into|near|at the|of the)|\b\d{4,5}|\b[A-Z]{2} ?\d{3,4})\s+$"
)  # ... or after a postcode: "28001 Sevilla"
#: A capitalised pair followed by one of these is an organisation ("Eden Lawn Service").
_ORG_NEXT_RE = re.compile(
    r"\s+(?:&|(?:and Sons|Bros|Service|Services|Inc|Ltd|LLC|GmbH|AG|SA|Company|Co|Corp|"
    r"Corporation|Group|Bank|"
    r"Club|Hotel|Restaurant|Airlines?|Foundation|Institute|University|School|Partners)\b)"
)
#: After a name at the start of a sentence: a possessive, a comma, a speaker's colon or a verb
#: that has a person as subject.
_NAME_FOLLOW_RE = re.compile(
    r"'s\b|’s\b|,|:[ \t]*\S| (?:is|was|has|had|said|says|shouted|asked|told|wrote|spent|began|"
    r"lives|lived|works|worked|went|studied|grew|moved|joined|replied|answered)\b"
)
#: Words before a name that start a sentence without being part of it ("Hi Anna", "Dear Ann").
_GREETINGS = frozenset(
    "hi hello hey dear dearest thanks thank bye goodbye welcome congratulations cheers howdy "
    "morning evening sorry yes no ok okay well".split()
)
#: The capitalised word right after a word (same line, one space) and right before it.
_NEXT_WORD_RE = re.compile(rf"[ \t]([{_UP}][{_UP}{_LW}'’-]*)")
_PREV_WORD_RE = re.compile(rf"([{_UP}][{_UP}{_LW}'’-]*)[ \t]$")


def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


_STOP = _stop_words()


def _sentence_start(text: str, pos: int) -> bool:
    """``pos`` opens a sentence, a line or a quotation."""
    before = text[max(0, pos - 80) : pos].rstrip(" \t")
    return not before or before[-1] in ".!?:\n\"'>“(*-"


def _in_proper_noun(text: str, start: int, end: int) -> bool:
    """The word at ``[start, end)`` stands beside another capitalised word that is no listed
    name: part of a company, place or title ("Bennett Brothers", "Labor Day", "New York",
    "Amazon Alexa", "Power Source"). A greeting or title before it does not count."""
    word = text[start:end]
    nxt = _NEXT_WORD_RE.match(text, end)
    if nxt and (
        not listed_name(nxt.group(1))
        and fold(nxt.group(1)) not in _TITLE_WORDS
        or is_place_or_calendar(f"{word} {nxt.group(1)}")  # "Costa Rica"
    ):
        return True
    prev = _PREV_WORD_RE.search(text, max(0, start - 40), start)
    if prev is None:
        return False
    if is_place_or_calendar(f"{prev.group(1)} {word}"):
        return True
    p = fold(prev.group(1)).rstrip(".")
    return not (p in _GREETINGS or p in _TITLE_WORDS or listed_name(prev.group(1)))


class NameGazetteerRecognizer(LocalRecognizer):
    """Person names spaCy misses: "cecilie josefsen", "Csanád Bernharðsson" (a listed name next
    to a last name or a capitalised word that is no vocabulary, any case), "Kordus, Anna", a
    capitalised name after a title ("Frau Müller", "ms. Naile") and single listed names."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name="NameGazetteerRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report gazetteer name pairs and titled names (``NAME_EVIDENCE_SCORE``) and single
        capitalised gazetteer names (0.55: masked where they stand, never propagated; at a
        sentence start only before "'s", a comma, a colon or a verb like "is", "said")."""
        if entities and "PERSON" not in entities:
            return []
        ents = getattr(nlp_artifacts, "entities", None) or ()
        # spaCy's non-person entities (places, organisations, products) veto a gazetteer hit:
        # "Houston", "York" and "Atlanta" are surnames too
        places = [(e.start_char, e.end_char) for e in ents if e.label_ in ("GPE", "LOC")]
        # the small model often labels unknown names FAC, ORG or NORP: those veto single words
        others = [
            (e.start_char, e.end_char)
            for e in ents
            if e.label_ in ("GPE", "LOC", "FAC", "ORG", "NORP", "PRODUCT")
        ]
        out = self._pairs(text, places)
        out += self._last_first(text)
        out += self._singles(text, others, out)
        for m in _TITLE_RE.finditer(text):
            if not not_a_name_word(m.group(1).split()[0]):
                out.append(RecognizerResult("PERSON", m.start(1), m.end(1), NAME_EVIDENCE_SCORE))
        return out

    @staticmethod
    def _pairs(text: str, places: list[tuple[int, int]]) -> list[RecognizerResult]:
        """Two words: both lower-case and a listed first + last name, or both capitalised with
        one listed name and the other no vocabulary ("Guy Migneault", "Gauthier Chenard")."""
        firsts, lasts = name_gazetteer()
        all_firsts, all_lasts = _listed_names()
        out, pos = [], 0
        while (m := _NAME_PAIR_RE.search(text, pos)) is not None:
            wa, wb = m.group(1), m.group(2)
            a, b = fold(wa), fold(wb)
            upper = wa[0].isupper() and wb[0].isupper()
            lower = wa.islower() and wb.islower()
            surname = b in lasts or _SURNAME_END_RE.search(b) is not None
            listed = a in firsts and b in lasts  # both listed: no spaCy veto needed
            ok = False
            if b in COMMON_WORDS or _ORG_NEXT_RE.match(text, m.end()):
                ok = False
            elif lower:  # "cecilie josefsen"; not "julio de" (a month and a particle)
                ok = (
                    a in firsts
                    and surname
                    and len(b) > 2
                    and b not in _STOP
                    and not is_place_or_calendar(a)
                    and not is_place_or_calendar(b)
                )
            elif upper and not is_place_or_calendar_pair(wa, wb):
                vetoed = any(s < m.end() and m.start() < e for s, e in places)
                b_word = not not_a_name_word(wb)  # b could be a name
                nxt = _NEXT_WORD_RE.match(text, m.end())
                if (
                    (a in _STOP and not surname)
                    or (len(wa) > 1 and wa.isupper() != wb.isupper())  # "My IBAN", "USB Power"
                    or (nxt is not None and _vocab(nxt.group(1), VOCAB_ZIPF))  # "... Source"
                    or (
                        _THE_BEFORE.search(text, max(0, m.start() - 6), m.start())
                        and is_vocabulary(wb, _PAIR_VOCAB_ZIPF, ("en",))
                    )
                ):
                    ok = False  # "the Jolly Farmer" ("Else Kowalczyk" is a name)
                elif is_vocabulary(wa, FUNCTION_WORD_ZIPF):  # "Die Buchung", "New York"
                    ok = a in all_firsts and surname
                elif a in all_firsts and a not in _TITLE_WORDS:  # "Guy Migneault", "Maciej Sus"
                    ok = surname or b in firsts or b_word or not _vocab(wb, _PAIR_VOCAB_ZIPF)
                elif not not_a_name_word(wa):
                    ok = (
                        (a in all_lasts and b_word and not listed_name(wb))  # "Gauthier Chenard"
                        or (b in lasts and not is_vocabulary(wb, 4.5))  # "Itamar Cohen"
                        or _SURNAME_END_RE.search(b) is not None  # "Csanád Bernharðsson"
                    )
                ok = ok and (listed or not vetoed)
            if ok:
                out.append(RecognizerResult("PERSON", m.start(), m.end(), NAME_EVIDENCE_SCORE))
                pos = m.end()
            else:
                pos = m.start(2)
        return out

    @staticmethod
    def _last_first(text: str) -> list[RecognizerResult]:
        """ "Kordus, Anna" in lists and forms: a word that can be a name (no vocabulary, no
        possessive: "Service, Eden" and "Brannam's, Anna" are not) and a listed first name."""
        firsts, _ = name_gazetteer()
        out = []
        for m in _LAST_FIRST_RE.finditer(text):
            last = m.group(1)
            if last.endswith(("'s", "’s")) or not_a_name_word(last):
                continue
            if fold(m.group(2)) in firsts:
                out.append(RecognizerResult("PERSON", m.start(1), m.end(2), NAME_EVIDENCE_SCORE))
        return out

    @staticmethod
    def _singles(
        text: str, others: list[tuple[int, int]], found: list[RecognizerResult]
    ) -> list[RecognizerResult]:
        """Single capitalised listed names, not part of a longer proper noun."""
        all_names = _all_names()
        out = []
        for m in _NAME_SINGLE_RE.finditer(text):
            word = m.group(1)
            f = fold(word)
            s, e = m.start(1), m.end(1)
            if word.isupper() or f in COMMON_WORDS or f in _STOP or f not in all_names:
                continue
            if any(a < e and s < b for a, b in others) or _PLACE_BEFORE_RE.search(
                text, max(0, s - 12), s
            ):
                continue
            if any(r.start <= s < r.end for r in found):
                continue
            if is_place_or_calendar(word) or _in_proper_noun(text, s, e):
                continue
            if (
                _THE_BEFORE.search(text, max(0, s - 6), s)
                and not _LOWER_NEXT.match(text, e)
                or _OWNED_NEXT.match(text, e)
            ):
                continue  # "The Wall", "The Fox" ("the Lauritsen novel" is a name); "Walt's IGA"
            if _sentence_start(text, s) and not _NAME_FOLLOW_RE.match(text, e):
                continue
            out.append(RecognizerResult("PERSON", s, e, 0.55))
        return out


#: One capitalised name word ("Rościsław", "DeRose", "Anne-Marie"), without a possessive.
_W = rf"[{_UP}][{_LW}]+(?:[{_UP}][{_LW}]+)?(?:-[{_UP}][{_LW}]+)?"
#: Contexts that say the next (or previous) capitalised word is a person: a greeting or
#: vocative, being called or named, a credit, a speaker's label, a verb of speech, a person's
#: possessions, an action aimed at somebody, a person verb after a sentence's first word.
_NAME_CONTEXT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"(?<!\w)(?:Hi|Hello|Hey|Dear|Dearest|Thanks|Thank you|Bye|Goodbye|Welcome|"
        rf"Congratulations|Cheers|Howdy|Good (?:morning|evening|afternoon))"
        rf",?[ \t]+({_W})(?![\w'’-])"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:call me|called|named(?: (?:him|her|them|it|me))?|name is|name's|"
        rf"(?:my|his|her|their|your|partner's|wife's|husband's|child's|son's|daughter's) name|"
        rf"(?:last|first|given|family|maiden|middle) name(?: is| was)?|surname(?: is| was)?))"
        rf"\W{{0,3}}({_W})(?![\w-])"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:starring|featuring|directed by|written by|produced by|played by|"
        rf"sung by|performed by|composed by|authored by|signed by|sent by|from the desk of))"
        rf"[ \t]+({_W})(?![\w-])"
    ),
    re.compile(rf"(?m)^[> \t]*({_W})[ \t]*:[ \t]*[\"“]"),
    re.compile(
        rf"(?<![\w@.])({_W})[ \t]+(?:said|says|asked|replied|wrote|writes|shouted|told|"
        rf"whispered|explained|answered|yelled|exclaimed)(?!\w)"
    ),
    re.compile(
        rf"(?<![\w@.])({_W})['’]s[ \t]+(?:address|phone|email|e-mail|number|birthday|wife|"
        rf"husband|mother|father|son|daughter|brother|sister|friend|family|account|card|"
        rf"passport|mobile|home|parents|children|child|kid|kids|baby|dad|mom|mum|boss|partner|"
        rf"name|signature|car|dog|cat|birth)(?!\w)"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:shouted|yelled|smiled|waved|looked|pointed|laughed|nodded|winked|"
        rf"stared|glared|screamed) at)[ \t]+({_W})(?![\w-])"
    ),
    re.compile(
        rf"(?:^|(?<=[.!?][ \t])|(?<=\n))[> \t]*({_W})[ \t]+(?:is from|was born|lives|lived|"
        r"spent|began|works|worked|studied|grew up|moved|went to|is very|was very)(?!\w)",
        re.MULTILINE,
    ),
    re.compile(rf",[ \t]+({_W})!"),
    # a person's field label: "Customer: Cazares, Calquín", "Passenger: Anna Lind"
    re.compile(
        rf"(?i:(?<!\w)(?:customer|passenger|guest|client|patient|traveller|traveler|"
        rf"account holder|cardholder|card holder|holder|full name|contact person|recipient|"
        rf"addressee|attn|attention|beneficiary))[ \t]*:[ \t]*({_W})(?:,?[ \t]+({_W}))?"
    ),
    # what is booked or ordered for somebody: "Booking for Gregorina Tórrez:"
    re.compile(
        rf"(?i:(?<!\w)(?:booking|reservation|ticket|tickets|order|seat|room|table|refund|"
        rf"invoice|receipt|parcel|package|appointment)[ \t]+for)[ \t]+({_W})"
        rf"(?:[ \t]+({_W}))?(?![\w-])"
    ),
    # a name before its e-mail address: "Bartele Exterkate (b.ex@example.nl)"
    re.compile(rf"(?<![\w@.])({_W})(?:[ \t]+({_W}))?[ \t]*[(<][\w.+-]+@"),
    # a vocative opening a sentence: "Szemere, can I please speak to your boss?"
    re.compile(
        rf"(?:^|(?<=[.!?][ \t])|(?<=\n))({_W}),[ \t]+(?:can|could|would|will|please|do|did|have|"
        r"are|is|I|we|you|thank|thanks|listen|look|come|wait|stop|remember)(?!\w)",
        re.MULTILINE,
    ),
    # after a verb of speech: "..., says Kuivanen."
    re.compile(
        rf"(?<!\w)(?:says|said|asks|asked|writes|wrote|adds|added|explains|explained|replies|"
        rf"replied|according to)[ \t]+({_W})(?![\w-])"
    ),
    # a role before a name: "songwriter Ömür Bischoff", "my colleague Anna"
    re.compile(
        rf"(?i:(?<!\w)(?:songwriter|singer|actor|actress|author|writer|poet|composer|painter|"
        rf"artist|director|producer|founder|ceo|chairman|chairwoman|president|professor|"
        rf"colleague|coworker|co-worker|friend|boyfriend|girlfriend|fiancée?|wife|husband|son|"
        rf"daughter|mother|father|brother|sister|uncle|aunt|cousin|nephew|niece|grandson|"
        rf"granddaughter|grandmother|grandfather|kid|child|baby|partner|spouse|"
        rf"neighbou?r|guardian|passenger|traveller|traveler|"
        rf"customer|client|patient|tenant|landlord|employee|manager|assistant|secretary|"
        rf"commenter|reader|member|fan|blogger|reporter|journalist|spokesperson|spokesman|"
        rf"spokeswoman|analyst|critic|editor|coach|player|captain|pilot|officer|agent))"
        rf"[ \t]+({_W})(?![\w-])"
    ),
    # a person added or named in a role: "add Isolda Marrero as guardian"
    re.compile(
        rf"(?<![\w@.])({_W})(?:[ \t]+{_W})?[ \t]+as[ \t]+(?:(?:an?|the|my|our|his|her)[ \t]+)?"
        r"(?:guardian|passenger|traveller|traveler|beneficiary|contact|driver|authori[sz]ed user|"
        r"emergency contact|co-?signer|account holder|cardholder|card holder)(?!\w)"
    ),
)
#: A speaker's label at a line's start ("Lahual: What a ..."): a name when it labels two lines.
_SPEAKER_RE = re.compile(rf"(?m)^[> \t]*({_W})[ \t]*:")

#: A list of three or more capitalised words after a colon ("They had 3: A, B and C").
_NAME_LIST_RE = re.compile(
    rf":[ \t]*((?:{_W},[ \t]+){{1,12}}{_W},?[ \t]+(?:and|&)[ \t]+{_W})(?![\w-])"
)


class NameContextRecognizer(LocalRecognizer):
    """A capitalised word that no name list has, found by its context: "Hi Rościsław", "call me
    Kuyra", "starring Bjelajac", "Kolos: \\"Who are you?\\"", "Sulimat's address", "shouted at
    Max", "Hideko is from ...". The word must not be vocabulary, a place or a calendar word."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name="NameContextRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report names in context (``NAME_EVIDENCE_SCORE``: episode-wide values) and lists of
        names (0.55: masked where they stand)."""
        if entities and "PERSON" not in entities:
            return []
        ents = getattr(nlp_artifacts, "entities", None) or ()
        places = [(e.start_char, e.end_char) for e in ents if e.label_ in ("GPE", "LOC")]
        others = [
            (e.start_char, e.end_char)
            for e in ents
            if e.label_ in ("GPE", "LOC", "FAC", "ORG", "NORP", "PRODUCT")
        ]
        out: dict[tuple[int, int], float] = {}
        for rx in _NAME_CONTEXT_RES:
            for m, g in ((m, g) for m in rx.finditer(text) for g in range(1, rx.groups + 1)):
                if m.group(g) is None:
                    continue
                s, e = m.start(g), m.end(g)
                word = m.group(g)
                if (s, e) in out or fold(word) in _TITLE_WORDS:
                    continue
                if is_place(word) or (
                    not_a_name_word(word, calendar=False)
                    and not (listed_name(word) and fold(word) not in _STOP)
                ):
                    continue  # "Mark is very reliable": a listed name in context is one
                if not listed_name(word) and any(a < e and s < b for a, b in places):
                    continue
                out[(s, e)] = NAME_EVIDENCE_SCORE
        labels = [(m.start(1), m.end(1), m.group(1)) for m in _SPEAKER_RE.finditer(text)]
        if len(labels) >= 2:
            counts: dict[str, int] = {}
            for _, _, w in labels:
                counts[w] = counts.get(w, 0) + 1
            for s, e, w in labels:
                if counts[w] >= 2 and not not_a_name_word(w) and fold(w) not in _TITLE_WORDS:
                    out.setdefault((s, e), NAME_EVIDENCE_SCORE)
        for m in _NAME_LIST_RE.finditer(text):  # "They had 3: Takaya, Hideko and Minik"
            items = list(re.finditer(_W, m.group(1)))
            if len(items) < 3 or any(not_a_name_word(w.group()) for w in items):
                continue
            if any(a < m.end(1) and m.start(1) < b for a, b in others):
                continue
            for w in items:
                out.setdefault((m.start(1) + w.start(), m.start(1) + w.end()), 0.55)
        return [RecognizerResult("PERSON", s, e, sc) for (s, e), sc in sorted(out.items())]


def is_place_or_calendar_pair(a: str, b: str) -> bool:
    """Both words together are a country or a date ("Costa Rica", "May Monday"), or either is a
    country or nationality ("Jan" and "June" are first names too)."""
    places = countries() | NATIONALITIES
    return is_place_or_calendar(f"{a} {b}") or fold(a) in places or fold(b) in places


_THE_BEFORE = re.compile(r"(?i)(?<!\w)(?:the|a|an)[ \t]+$")
#: A possessive followed by a capitalised word: a business named after its owner.
_OWNED_NEXT = re.compile(rf"['’]s[ \t]+[{_UP}]")
_LOWER_NEXT = re.compile(rf"[ \t]+[{_LW}]")
#: After a listed first name, a second word is a surname unless it is this frequent in English
#: ("Rose Garden", "Bennett Brothers"; "Maciej Sus" is a name).
_PAIR_VOCAB_ZIPF = 3.5


def _vocab(word: str, threshold: float) -> bool:
    """An unlisted English word ("Garden" in "Rose Garden"; "Sus" is Spanish, and a surname)."""
    return is_vocabulary(word, threshold, ("en",)) and not listed_name(word)


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


def outsider_recognizers() -> list[LocalRecognizer]:
    """The recognizers added for text the project never wrote (issue #12)."""
    return [
        IntlPhoneRecognizer(),
        CardRecognizer(),
        IbanShapeRecognizer(),
        NationalIdRecognizer(),
        StreetLineRecognizer(),
        NameGazetteerRecognizer(),
        NameContextRecognizer(),
        customer_id_recognizer(),
    ]
