"""Phone, card, IBAN and national-id recognizers for text the project never wrote (issue #12).

Each weak type gets a second method beside Presidio's: phones = ``phonenumbers``' matcher over
the main regions + digits after a phone word; cards = a Luhn scan with separators and 12-digit
Maestro numbers after a card word; IBANs = IBAN-shaped strings of the country's length whatever
their check digits; national ids = strict formats of the main European countries + any id after an
id word.

Dependencies, chosen on purpose:

* ``phonenumbers`` (already installed and pinned as Presidio's own dependency): Google's
  libphonenumber metadata knows the numbering plan of every region, offline.
* ``python-stdnum`` not used here: national ids are accepted on format + context words, not on
  check digits, because outsider data (and typos) carry ids with wrong check digits, and a
  checksum adds nothing once a context word says "this is an id". Ids found without any word
  need their check digits: ``checked_ids.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import phonenumbers
from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.label_lists import document_label_alternation
from agentic_pipeline.masking.detectors.labels import ends_with_id_label
from agentic_pipeline.pii_patterns import IBAN_LENGTHS, luhn_valid

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
    r"answering|answer|landline|office|message|messages|registered|whatsapp|"
    r"pager|beeper|bleep|sími|síma|símanúmer|tlf|puhelin|gsm"  # a ward's pager, Nordic phones
)
_PHONE_CTX_RE = re.compile(rf"(?i)(?<!\w)(?:{_PHONE_WORDS})(?!\w)")
PHONE_CONTEXT_WORDS = _PHONE_CTX_RE
#: A phone label right after the number: "581 2209-Office", "0488 31 27 90 (mobile)".
_PHONE_AFTER_RE = re.compile(
    r"(?i)[ \t]*[-(/]?[ \t]*(?:office|fax|home|mobile|cell|work|tel|phone|landline)(?!\w)"
)
#: A digit run that may be a phone number: optional +, digits with the separators phones use.
#: (a comma right after a word may touch it: "+354 581 2209-Office,447 1163-Fax")
_PHONE_CAND_RE = re.compile(
    r"(?:(?<![\w.,/+-])|(?<=[^\W\d_],))(?:\+|00)?\(?\d[\d ().\-/]{4,20}\d(?![\w]|[.,]\d)"
)
_DATE_LIKE_RE = re.compile(r"^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$|^\d{4}-\d\d-\d\d")
_AMOUNT_LIKE_RE = re.compile(r"^\d{1,3}(?:[,.']\d{3})+(?:[.,]\d{1,2})?$|^\d+[.,]\d{1,2}$")
_SEPARATED_RE = re.compile(r"\d[ ().\-/]+\d")


def _ctx_before(text: str, start: int, rx: re.Pattern[str], width: int = 40) -> bool:
    return rx.search(text, max(0, start - width), start) is not None


#: Phone words that only say "number": phone context unless an id's label or a thing's word
#: stands right before them ("order number 55012345", "identification no. 987654321").
_NUMBER_WORDS = frozenset({"number", "no", "nr", "nr.", "numéro", "numero", "nummer"})


def phone_context_before(text: str, start: int, width: int = 40) -> bool:
    """A phone word in the ``width`` characters before ``start`` (``_PHONE_CTX_RE``), other
    than a bare "number" that numbers an id or a thing."""
    for m in _PHONE_CTX_RE.finditer(text, max(0, start - width), start):
        if m.group().lower() not in _NUMBER_WORDS or not ends_with_id_label(text[: m.start()]):
            return True
    return False


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
            context = phone_context_before(text, s) or _PHONE_AFTER_RE.match(text, e)
            if not context and ends_with_id_label(text[max(0, s - 60) : s]):
                continue  # "SKU 8812-4471-09", "policy no. 0151 2345678": another label's value
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
_CARD_CAND_RE = re.compile(r"(?<![\w.,/-])\d(?:[ -]?\d){11,18}(?![\w-]|[.,]\d)")
_CARD_CTX_RE = re.compile(
    r"(?i)(?<!\w)(?:card|cards|visa|mastercard|maestro|amex|american express|discover|jcb|diners|"
    r"cc|pan|karte|kreditkarte|carte|tarjeta|carta|kaart|karta)(?!\w)"
)


#: The detector name of a card number that fails Luhn (``apply.plausible`` vetoes it after a
#: thing's label: "order 4412 9981 2231 0098").
CARD_SHAPE = "CardShapeRecognizer"
#: A card number as cards print it: four groups of four digits (a fifth of one to three), or
#: Amex's 4-6-5, one separator throughout, first digit 2-6 (the card networks' industry digits).
_CARD_GROUPS_RE = re.compile(
    r"[2-6]\d{3}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|3\d{3}([ -])\d{6}\2\d{5}"
)


class CardRecognizer(LocalRecognizer):
    """Card numbers of 12-19 digits, spaces or dashes allowed, Luhn-valid; 12-digit ones (Maestro)
    only after a card word. A number that fails Luhn is a card too (score 0.6: a typo or a fake
    card number is still somebody's card, and plain Presidio masks it as a date by spaCy) when it
    is printed in card groups or has 13-19 digits after a card word. Never part of a float
    (``113.71000000000004``) or an amount."""

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
            if len(set(digits)) < 3:
                continue
            after_card_word = _ctx_before(text, m.start(), _CARD_CTX_RE, 50)
            if len(digits) == 12 and not after_card_word:
                continue
            if luhn_valid(digits):
                out.append(RecognizerResult("CREDIT_CARD", m.start(), m.end(), 0.9))
            elif _CARD_GROUPS_RE.fullmatch(m.group()) or (after_card_word and len(digits) >= 13):
                meta = {"recognizer_name": CARD_SHAPE, "recognizer_identifier": self.id}
                out.append(RecognizerResult("CREDIT_CARD", m.start(), m.end(), 0.6, None, meta))
        return out


_IBAN_SHAPE_RE = re.compile(r"(?<![\w-])([A-Z]{2})(\d{2})((?:[ -]?[A-Z0-9]){11,30})(?![\w-])")


class IbanShapeRecognizer(LocalRecognizer):
    """IBAN-shaped account numbers: a known country code, two digits and the country's length,
    whatever the check digits (a typo or a fake IBAN is still somebody's account number); and,
    as ``BANK_ACCOUNT``, the same shape with a country code that has no IBAN ("US13300012..."),
    when it holds at least 12 digits and no lower-case letter."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=["IBAN_CODE", "BANK_ACCOUNT"], name="IbanShapeRecognizer"
        )

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report IBAN-shaped strings of the right length for their country."""
        if entities and "IBAN_CODE" not in entities and "BANK_ACCOUNT" not in entities:
            return []
        out = []
        for m in _IBAN_SHAPE_RE.finditer(text):
            want = IBAN_LENGTHS.get(m.group(1))
            compact = re.sub(r"[ -]", "", m.group())
            if want is None:
                wanted = not entities or "BANK_ACCOUNT" in entities
                if wanted and sum(c.isdigit() for c in compact) >= 12:
                    out.append(RecognizerResult("BANK_ACCOUNT", m.start(), m.end(), 0.75))
                continue
            if sum(c.isdigit() for c in compact) < 8:
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
#: A person's document label of ``labels.yaml`` and its value. Ids of things (orders, items,
#: flights...) are kept: no id word alone is person context.
ID_CONTEXT_RE = re.compile(
    rf"(?i)(?<!\w)(?:{document_label_alternation()})(?!\w)[^\w\n]{{0,4}}"
    r"(?:(?:(?:is|number|no|nr|ist|est|es|è|jest)(?!\w)|:)\W{0,3})?"
    r"((?=[A-Z0-9 .\-/]*\d)[A-Z0-9](?:[A-Z0-9.\-/]|\s(?=\d)){4,20}[A-Z0-9])(?![\w-])"
)


def _sentence_or_date(value: str) -> bool:
    """A value after an id word that is a date, or a sentence going on ("expires 2031-05-01"
    after "passport": a lower-case word first), not an id ("AB 12 34 56 C", "PAE 441209")."""
    chunks = value.split()
    first = chunks[0]
    if len(chunks) > 1 and first.isalpha() and not first.isupper():
        return True
    return any(_DATE_LIKE_RE.match(c) for c in chunks)


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
            if sum(c.isdigit() for c in val) >= 5 and not _sentence_or_date(val):
                out.setdefault((m.start(1), m.end(1)), 0.8)
        return [RecognizerResult("ID_DOCUMENT", s, e, sc) for (s, e), sc in sorted(out.items())]
