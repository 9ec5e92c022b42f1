"""Detectors of the final leak scan that the masking pass does not use (an independent family).

Masking finds personal data with Presidio (spaCy NER plus its recognizers), the shared strict
patterns of ``pii_patterns.py`` and the values it learnt from structured fields. A leak that all of
these missed would also pass a scan built from them, so the scan adds its own detectors here:

- phones: Google's ``phonenumbers`` metadata (already a Presidio dependency, offline) over every
  region, for numbers written like phones (``+``/``00`` prefix, parentheses, three or more groups)
  or with a phone word nearby;
- cards of 12 to 19 digits with separators, a card-issuer prefix (2221-2720, 3-6) and Luhn;
- IBAN-shaped strings: a country code with that country's IBAN length, check digits not required;
- emails with a looser pattern (any non-space local part and domain);
- national ids: checksummed formats that stand alone (UK NINO, Spanish DNI/NIE, Italian codice
  fiscale, Swiss AHV) and digit-heavy values right after an id word (passport, PESEL, BSN, INSEE,
  Steuer-ID, social security, national insurance, ...);
- dates right after a birth word;
- names from context, not from a model: the words after "my name is", "Mr", "Mrs", "Ms", "Dr",
  "Dear", or a ``name:`` label. A names list (e.g. the ``names-dataset`` package) was considered
  and left out on purpose: it is large, and its entries include everyday words (Will, May, Grace,
  Bill, Amber), so it would raise false alarms on ordinary text.

Precision matters as much as recall: one false alarm withholds a whole episode. So numbers that
are part of a decimal, an arithmetic expression, a date, a time or an amount, and ids of things
(item and order ids, flight numbers, reservation codes) are not reported; see
``benchmarks/leak_scan_precision.py`` for the false-alarm rate on real logs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import phonenumbers

from agentic_pipeline.masking.names.lexicon import read_words
from agentic_pipeline.pii_patterns import IBAN_LENGTHS as ALL_IBAN_LENGTHS
from agentic_pipeline.pii_patterns import luhn_valid

#: One finding: (start, end, entity type, detector).
Finding = tuple[int, int, str, str]

# ----------------------------------------------------------------------------------- helpers
_ARITHMETIC_RE = re.compile(r"[\d\s.,()+\-*/%^=x×÷]+")
_OPERATOR_RE = re.compile(r"[*/%^=×÷]|\d\s*[+]\s*[\d(]|\d\s+-\s+[\d(]|\)\s*[-+]")
_DATE_TIME_RE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4}|\d{1,2}:\d{2}"
)


def is_arithmetic(text: str) -> bool:
    """A whole string made of numbers and operators, with at least one operator (a calculator's
    input such as ``(113.71 + 20) * 2`` or ``1200 - 300``)."""
    t = text.strip()
    return bool(t) and bool(_ARITHMETIC_RE.fullmatch(t)) and bool(_OPERATOR_RE.search(t))


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def _near_before(text: str, start: int, rx: re.Pattern[str], window: int = 40) -> bool:
    """``rx`` occurs at most ``window`` characters before ``start`` on the same line (a key
    two lines up in flattened JSON is not context)."""
    before = text[max(0, start - window) : start]
    return rx.search(before[before.rfind("\n") + 1 :]) is not None


# ----------------------------------------------------------------------------------- phones
_PHONE_CANDIDATE_RE = re.compile(
    r"(?<![\w.,/+$€£¥-])(?:\+|00)?\(?\d[\d \t().\-/]{4,22}\d(?![\w])(?![.,]\d)"
)
_PHONE_WORDS_RE = re.compile(
    r"\b(?:phone|tel|tél|telephone|téléphone|telefon|telefono|teléfono|mobile|mobil|cell|"
    r"handy|portable|cellulare|móvil|fax|whatsapp|sms|call\s+me|reach\s+me|text\s+me|"
    r"contact\s+number|ring)\b",
    re.IGNORECASE,
)
_THOUSANDS_RE = re.compile(r"\d{1,3}(?:[ ,.]\d{3})+(?:[.,]\d{1,2})?")
#: The regions tried first (the project's users and the issue's locales); every other follows.
_FIRST_REGIONS = (
    "US",
    "CA",
    "GB",
    "IE",
    "DE",
    "FR",
    "ES",
    "IT",
    "NL",
    "BE",
    "PL",
    "CH",
    "AT",
    "PT",
    "SE",
    "DK",
    "NO",
    "FI",
    "CZ",
    "HU",
    "AU",
    "IN",
)
_ALL_REGIONS = _FIRST_REGIONS + tuple(
    sorted(r for r in phonenumbers.SUPPORTED_REGIONS if r not in _FIRST_REGIONS)
)


@lru_cache(maxsize=4096)
def _valid_somewhere(number: str) -> bool:
    """A valid phone number in some region (or, with a ``+`` prefix, a possible one)."""
    if number.startswith(("+", "00")):
        try:
            n = phonenumbers.parse("+" + number.lstrip("+")[2 if number.startswith("00") else 0 :])
        except phonenumbers.NumberParseException:
            return False
        return phonenumbers.is_possible_number(n)
    for region in _ALL_REGIONS:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(number, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


#: A thing's label right before a number: "SKU 8812-4471-09", "Order no. 0151 2345678".
_THING_LABEL_BEFORE_RE = re.compile(
    r"(?i)\b(?:order|item|product|sku|flight|booking|reservation|invoice|tracking|shipment|"
    r"parcel|serial|model|part)(?:[ \t]*(?:no\.?|nr\.?|number|#|id|ref(?:erence)?))?[ \t]*[:#]?"
    r"[ \t]*$"
)


def phone_findings(text: str) -> Iterator[Finding]:
    """Numbers written like phones, or next to a phone word, that are valid in some region; not
    a thing's number right after its label."""
    for m in _PHONE_CANDIDATE_RE.finditer(text):
        if _THING_LABEL_BEFORE_RE.search(text, max(0, m.start() - 30), m.start()):
            continue
        cand = m.group().strip(" ()-./") if not m.group().startswith("(") else m.group()
        digits = _digits(cand)
        if not 7 <= len(digits) <= 15 or cand.count("(") != cand.count(")"):
            continue
        if _DATE_TIME_RE.search(cand) or _THOUSANDS_RE.fullmatch(cand):
            continue
        if " - " in cand or re.search(r"\d\.\d+$", cand) and cand.count(".") == 1:
            continue  # an expression or a decimal, not a phone
        international = cand.startswith(("+", "00"))
        if not international and len(set(re.findall(r"[ \t.\-/]", cand))) > 1:
            continue  # mixed separators: "1157.86 3" (an amount, then a list number)
        groups = len(re.findall(r"\d+", cand))
        shaped = international or "(" in cand or groups >= 3
        if not shaped and not _near_before(text, m.start(), _PHONE_WORDS_RE):
            continue
        if _valid_somewhere(re.sub(r"[^\d+]", "", cand)):
            yield m.start(), m.start() + len(m.group()), "PHONE_NUMBER", "scan_phone"


# ----------------------------------------------------------------------------------- cards
_CARD_CANDIDATE_RE = re.compile(r"(?<![\w.,/-])[2-6]\d(?:[ -]?\d){10,17}(?![\w-])(?![.,]\d)")


_CARD_WORDS_RE = re.compile(
    r"\b(?:card|cc|visa|master\s?card|amex|american\s+express|discover|maestro|jcb|diners|"
    r"credit|debit|karte|carte|tarjeta|carta|kaart|karta)\b",
    re.IGNORECASE,
)


def card_findings(text: str) -> Iterator[Finding]:
    """12 to 19 digits (spaces or dashes allowed) with an issuer prefix and a valid Luhn. A bare
    run of digits of a length other than 15 or 16 (a tracking or order number) needs a card word
    before it."""
    for m in _CARD_CANDIDATE_RE.finditer(text):
        digits = _digits(m.group())
        bare = digits == m.group()
        if (
            bare
            and len(digits) not in (15, 16)
            and not _near_before(text, m.start(), _CARD_WORDS_RE)
        ):
            continue
        if digits[0] == "2" and not 2221 <= int(digits[:4]) <= 2720:
            continue  # no card range starts so (a date-based id such as 20261128-0001 does)
        if 12 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_valid(digits):
            yield m.start(), m.end(), "CREDIT_CARD", "scan_card"


# ----------------------------------------------------------------------------------- IBAN
#: The countries whose IBAN shapes the scan reports (lengths from the one ISO 13616 table).
IBAN_LENGTHS = {
    country: ALL_IBAN_LENGTHS[country]
    for country in (
        "AD AT BE BG CH CY CZ DE DK EE ES FI FR GB GI GR HR HU IE IS IT "
        "LI LT LU LV MC MT NL NO PL PT RO SE SI SK SM TR UA AE SA IL BR"
    ).split()
}
_IBAN_CANDIDATE_RE = re.compile(r"(?<![\w])([A-Z]{2})\d{2}(?:[ -]?[A-Z0-9]){11,30}(?![\w])")


def iban_findings(text: str) -> Iterator[Finding]:
    """IBAN-shaped: a known country code, two digits, and exactly that country's length (the
    check digits are not verified: a mistyped IBAN is still an account number)."""
    for m in _IBAN_CANDIDATE_RE.finditer(text):
        compact = re.sub(r"[ -]", "", m.group())
        want = IBAN_LENGTHS.get(m.group(1))
        if want and len(compact) == want and sum(c.isdigit() for c in compact) >= want // 2:
            yield m.start(), m.end(), "IBAN_CODE", "scan_iban"


# ----------------------------------------------------------------------------------- email
_LOOSE_EMAIL_RE = re.compile(
    r"(?<![^\s\"'<>(\[,;:])[^\s@\"'<>()\[\],;:]+@[^\s@\"'<>()\[\],;:]+"
    r"\.[^\W\d_]{2,}(?![\w.-]*@)"
)


def email_findings(text: str) -> Iterator[Finding]:
    """Anything shaped ``local@domain.tld`` (non-ASCII letters allowed on both sides)."""
    for m in _LOOSE_EMAIL_RE.finditer(text):
        yield m.start(), m.end(), "EMAIL_ADDRESS", "scan_email"


# ----------------------------------------------------------------------------------- national ids
_NINO_RE = re.compile(
    r"(?<![\w])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r"(?: ?\d{2}){3} ?[A-D](?![\w])"
)
_DNI_RE = re.compile(r"(?<![\w])([XYZ]|\d)(\d{7})-?([A-Z])(?![\w])")
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_CODICE_FISCALE_RE = re.compile(
    r"(?<![\w])[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z](?![\w])", re.IGNORECASE
)
_AHV_RE = re.compile(r"(?<![\w.])756[.]?\d{4}[.]?\d{4}[.]?\d{2}(?![\w])(?!\.\d)")
_ID_WORDS_RE = re.compile(
    r"\b(?:passport|passeport|reisepass|pasaporte|passaporto|paspoort|paszport|"
    r"national\s+(?:id|insurance|identity)|ni\s+number|nino|social\s+security|ssn|sin|"
    r"pesel|nip|bsn|burgerservicenummer|insee|n(?:°|o\.?|um[eé]ro)\s+de\s+s[eé]curit[eé]|"
    r"s[eé]curit[eé]\s+sociale|steuer-?id|steueridentifikationsnummer|personalausweis|"
    r"ausweis|identity\s+card|id\s+card|identity\s+(?:number|document)|dni|nie|nif|"
    r"codice\s+fiscale|carta\s+d'identit[aà]|ahv|avs|tax\s+id|tin|driver'?s?\s+licen[cs]e)\b"
    r"[^\w\n]{0,4}(?:(?:number|no\.?|nr\.?|num|n°|#|is|was|:)[^\w\n]{0,3}){0,3}",
    re.IGNORECASE,
)
_ID_VALUE_RE = re.compile(r"[A-Z0-9][A-Z0-9 .\-/]{4,22}[A-Z0-9]", re.IGNORECASE)


def _ean13_ok(digits: str) -> bool:
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(digits[:-1]))
    return (10 - total % 10) % 10 == int(digits[-1])


def national_id_findings(text: str) -> Iterator[Finding]:
    """Checksummed national ids anywhere, and digit-heavy values right after an id word."""
    for m in _NINO_RE.finditer(text):
        yield m.start(), m.end(), "NATIONAL_ID", "scan_national_id"
    for m in _DNI_RE.finditer(text):
        num = {"X": "0", "Y": "1", "Z": "2"}.get(m.group(1), m.group(1)) + m.group(2)
        if _DNI_LETTERS[int(num) % 23] == m.group(3):
            yield m.start(), m.end(), "NATIONAL_ID", "scan_national_id"
    for m in _CODICE_FISCALE_RE.finditer(text):
        yield m.start(), m.end(), "NATIONAL_ID", "scan_national_id"
    for m in _AHV_RE.finditer(text):
        if _ean13_ok(_digits(m.group())):
            yield m.start(), m.end(), "NATIONAL_ID", "scan_national_id"
    for w in _ID_WORDS_RE.finditer(text):
        v = _ID_VALUE_RE.match(text, w.end())
        if v is None:
            continue
        value = v.group()
        if sum(c.isdigit() for c in value) >= 5 and not _DATE_TIME_RE.fullmatch(value):
            yield v.start(), v.end(), "NATIONAL_ID", "scan_national_id"


# ----------------------------------------------------------------------------------- birth dates
_BIRTH_RE = re.compile(
    r"\b(?:date\s+of\s+birth|d\.?o\.?b\.?|born(?:\s+on)?|birth\s*date|birthday|"
    r"geboren(?:\s+am)?|né(?:e)?\s+le|nacid[oa]\s+el|nato\s+il|nata\s+il)\b[^\w\n]{0,4}"
    r"(?:is\s+|was\s+|on\s+)?",
    re.IGNORECASE,
)
_A_DATE_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|"
    r"(?:\d{1,2}\s+)?[A-Z][a-zé]{2,8}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Z][a-zé]{2,8}\.?,?\s+\d{4}"
)


def birth_date_findings(text: str) -> Iterator[Finding]:
    """A date written right after a birth word ("born on 12/03/1985", "DOB: 1985-03-12")."""
    for w in _BIRTH_RE.finditer(text):
        d = _A_DATE_RE.match(text, w.end())
        if d is not None:
            yield d.start(), d.end(), "DATE_OF_BIRTH", "scan_dob"


# ----------------------------------------------------------------------------------- names
_NAME_TRIGGER_RE = re.compile(
    r"\b(?:my\s+name\s+is|my\s+name's|name\s+is|call\s+me|"
    r"(?:first|last|full|given|family|sur|customer|passenger|contact|holder'?s?)\s*name\s*[:=]|"
    r"je\s+m'appelle|ich\s+hei(?:ße|sse)|mi\s+chiamo|me\s+llamo|mi\s+nombre\s+es|"
    # one space or tab, never a line break: a masked token leaves blanks, and a label alone on
    # its line ("First Name:" over "Last Name:", an empty form) has no value
    r"ik\s+heet|nazywam\s+się)[ \t]",
    re.IGNORECASE,
)
_TITLE_RE = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Doctor|Dear|Herr|Frau|Mme|Mlle|Madame|Monsieur"
    r"|Sr|Sra|Señor|Señora|Sig|Sig\.ra|Signor|Signora|Mevrouw|Meneer)"
    r"\.?\s"
)
_WORD_RE = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:[-'’][^\W\d_]+)*")
_NOT_NAMES = frozenset(
    {
        "a",
        "an",
        "the",
        "not",
        "is",
        "am",
        "on",
        "in",
        "at",
        "to",
        "and",
        "or",
        "of",
        "for",
        "with",
        "sir",
        "madam",
        "madame",
        "customer",
        "customers",
        "user",
        "users",
        "team",
        "agent",
        "all",
        "there",
        "everyone",
        "friend",
        "friends",
        "colleague",
        "colleagues",
        "valued",
        "support",
        "client",
        "member",
        "members",
        "guest",
        "passenger",
        "traveler",
        "traveller",
        "owner",
        "holder",
        "unknown",
        "none",
        "null",
        "n",
        "required",
        "optional",
        "string",
        "name",
        "here",
        "back",
        "anytime",
        "later",
        "now",
        "again",
        "please",
        "thanks",
        "thank",
        "you",
        "me",
        "but",
        "so",
        "as",
        "by",
        "from",
        "if",
        "when",
        "who",
        "that",
        "this",
        "it",
        "be",
        "was",
        "your",
        "my",
        "his",
        "her",
        "their",
        "our",
    }
)


#: Words that make the words after a salutation an addressee who is no one person ("Dear Acme
#: support", "Dear Hiring Manager", "Dear Parents"): ``addressees.txt``.
_ADDRESSEE_FILE = Path(__file__).parent / "addressees.txt"


@lru_cache(maxsize=1)
def _group_words() -> frozenset[str]:
    return read_words(_ADDRESSEE_FILE)


#: Words that address one person by what they are ("Dear Resident", "Dear Cousin <name>"):
#: ``forms_of_address.txt``.
_FORMS_OF_ADDRESS_FILE = Path(__file__).parent / "forms_of_address.txt"


@lru_cache(maxsize=1)
def _forms_of_address() -> frozenset[str]:
    return read_words(_FORMS_OF_ADDRESS_FILE)


def name_findings(text: str) -> Iterator[Finding]:
    """Words introduced as a name ("my name is ilse varnholt", "Dear Mr Øberg")."""
    for trig, capital_only in ((_NAME_TRIGGER_RE, False), (_TITLE_RE, True)):
        for t in trig.finditer(text):
            pos, words = t.end(), []
            while len(words) < 3:
                w = _WORD_RE.match(text, pos)
                if w is None or w.group().casefold() in _NOT_NAMES or len(w.group()) < 2:
                    break
                lower_intro = not capital_only and words and words[0].group()[0].islower()
                if (capital_only or words) and not lower_intro and not w.group()[0].isupper():
                    break
                words.append(w)
                gap = re.match(r"[ \t]+", text[w.end() :])
                if gap is None:
                    break
                pos = w.end() + gap.end()
            if capital_only and words and _TITLE_RE.match(text, words[0].start()):
                continue  # "Dear Mr" : the title's own match reports the name
            after = _WORD_RE.match(text, pos) if words else None
            addressee = [w.group() for w in words] + ([after.group()] if after else [])
            if any(w.casefold() in _group_words() for w in addressee):
                continue  # "Dear Hiring Manager", "Dear Acme support"
            words = [w for w in words if w.group().casefold() not in _forms_of_address()]
            if words:  # "Dear Cousin <name>": the name; "Dear Resident": none
                yield words[0].start(), words[-1].end(), "PERSON", "scan_name"


# ----------------------------------------------------------------------------------- all
_FOUR_DIGITS_RE = re.compile(r"(?:\d\D*){4}")


def independent_findings(text: str, numeric: bool = True) -> Iterator[Finding]:
    """Every finding of this module in ``text``; ``numeric=False`` (an arithmetic expression)
    skips the number detectors."""
    digits = _FOUR_DIGITS_RE.search(text) is not None  # every number detector needs 4 digits
    if digits:
        if numeric and not is_arithmetic(text):
            yield from phone_findings(text)
            yield from card_findings(text)
        yield from iban_findings(text)
        yield from national_id_findings(text)
        yield from birth_date_findings(text)
    if "@" in text:
        yield from email_findings(text)
    yield from name_findings(text)
