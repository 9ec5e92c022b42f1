"""High-precision patterns of personal data, shared by ingestion, masking and the leak scan.

Plain regular expressions with checksums (Luhn for cards, mod-97 for IBANs): no Presidio or spaCy
import, so ingestion can use them without loading the NLP stack.
"""

import re
from collections.abc import Iterator

EMAIL_RE = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
PHONE_RE = re.compile(
    r"(?<![\w+])(?:(?:\+|00)\d{1,3}[\s.-]?|1[\s.-])?"
    r"(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
    r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w])"
    r"|(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){1,2}(?:[\s.-]?\d{2,4}){2,4}(?![\w])"
)
#: Not inside a decimal number: ``113.71000000000004`` (a float artefact) passes Luhn.
CARD_RE = re.compile(r"(?<![\w/-])(?<!\d[.,])\d(?:[ -]?\d){12,18}(?![\w-])(?![.,]\d)")
#: An SSN's shape whatever its area: the numbers the SSA never issues (area 000 or 666, group 00,
#: serial 0000) are typed into forms, tests and errors all the same, and 9xx are ITINs, as
#: personal (issue #21: ids with a bad check count).
SSN_RE = re.compile(r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])")
IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
IPV4_RE = re.compile(
    r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w.])"
)
USER_ID_RE = re.compile(
    r"(?<![\w])(?!(?:credit|gift|debit)_card_|certificate_|paypal_|call_)[a-z]+_[a-z]+_\d{4}(?![\w])"
)


#: IBAN length per country (ISO 13616 registry, SEPA and neighbours).
IBAN_LENGTHS = {
    "AD": 24,
    "AT": 20,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "CH": 21,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "EE": 20,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IS": 26,
    "IT": 27,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "ME": 22,
    "MK": 19,
    "MT": 31,
    "NL": 18,
    "NO": 15,
    "PL": 28,
    "PT": 25,
    "RO": 24,
    "RS": 22,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "TR": 26,
    "UA": 29,
    "VA": 22,
    "XK": 20,
    "AL": 28,
    "AZ": 28,
    "BH": 22,
    "BR": 29,
    "GE": 22,
    "IL": 23,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "MD": 24,
    "MU": 30,
    "PK": 24,
    "PS": 29,
    "QA": 29,
    "SA": 24,
    "TN": 24,
    "AE": 23,
    "EG": 29,
}


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits (no length rule: callers have their own)."""
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def luhn_ok(number: str) -> bool:
    """Luhn checksum of the digits in ``number``, which must be 13 to 19 digits long."""
    digits = "".join(c for c in number if c.isdigit())
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


def iban_ok(value: str) -> bool:
    """ISO 13616 mod-97 check."""
    s = value.replace(" ", "").upper()
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    try:
        return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1
    except ValueError:
        return False


#: The entity types ``strict_matches`` reports, in its order.
STRICT_ENTITIES = (
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "US_SSN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "USER_ID",
)


def strict_matches(text: str) -> Iterator[tuple[int, int, str]]:
    """High-precision matches ``(start, end, entity_type)``: shared by recognizers and the scan."""
    for m in EMAIL_RE.finditer(text):
        yield m.start(), m.end(), "EMAIL_ADDRESS"
    for m in PHONE_RE.finditer(text):
        yield m.start(), m.end(), "PHONE_NUMBER"
    for m in CARD_RE.finditer(text):
        if luhn_ok(m.group()):
            yield m.start(), m.end(), "CREDIT_CARD"
    for m in SSN_RE.finditer(text):
        yield m.start(), m.end(), "US_SSN"
    for m in IBAN_RE.finditer(text):
        if iban_ok(m.group()):
            yield m.start(), m.end(), "IBAN_CODE"
    for m in IPV4_RE.finditer(text):
        yield m.start(), m.end(), "IP_ADDRESS"
    for m in USER_ID_RE.finditer(text):
        yield m.start(), m.end(), "USER_ID"


#: Identifier and label columns (episode, task and tool-call ids, tool names, policy ids, task
#: types, source file labels) are kept verbatim downstream, so they must look like machine ids:
#: ASCII letters and digits plus ``_ . : / -``, starting with a letter or digit, at most 160
#: characters. This refuses whitespace (names, street addresses), ``@`` (emails) and ``+``.
IDENTIFIER_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,159}")
#: A bare run of 7 to 15 digits (E.164's longest) reads as a phone number without separators;
#: separated numbers are ``PHONE_RE``'s. Dates and date-based ids (``20261128-0001``) pass.
_PHONE_LIKE_RE = re.compile(r"[0-9]{7,15}")


def identifier_problem(value: str) -> str | None:
    """Why ``value`` is not a safe identifier (a reason without the value), or ``None``.

    Real ids pass: uuids, ``call_…``/``toolu_…``, ``gpt-4o``, ``airline``, small integers,
    ``meta-llama/Llama-3-8B``. A value made only of 7 to 15 digits is refused as phone-like, and
    so is anything :func:`strict_matches` finds.
    """
    if not IDENTIFIER_RE.fullmatch(value):
        return "is not a strict identifier"  # the rule is in the README; no colon in a reason
    if _PHONE_LIKE_RE.fullmatch(value):
        return "looks like a phone number"
    kinds = sorted({kind for _, _, kind in strict_matches(value)})
    if kinds:
        return f"looks like personal data ({', '.join(kinds)})"
    return None
