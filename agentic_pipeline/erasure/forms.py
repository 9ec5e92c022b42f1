"""Normal forms of a subject's identifiers: one person, however a value was written.

A value is linked and searched in every form it may have been written in:

- phones (``phonenumbers``): with and without the country code, the trunk ``0`` and the
  extension; the digits may be separated by spaces, dots, dashes, slashes or parentheses;
- emails: case-folded (masking folds them before hashing; searches ignore case);
- card numbers, SSNs and other digit identifiers: digits only, any separators between them;
- other ids: as given, whole words, case ignored.

``token_forms`` gives the strings whose pseudonyms are looked for in the warehouse;
``clear_pattern`` a regular expression (Python ``re`` and RE2 alike, so Arrow's
``match_substring_regex`` runs it on whole columns) that finds the clear value in raw rows,
quarantined records and landing files.
"""

import re

import phonenumbers

from agentic_pipeline.pii_patterns import luhn_valid

_SEP = r"[\s().\-/]*"
_DIGIT_SEP = r"[\s\-]*"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_EXTENSION = re.compile(r"(?i)\b(?:ext|extension|x)\.?\s*(?=\d)|(?<=\d)x(?=\d)")


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isdigit())


def _phone(value: str) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(value, None if value.strip().startswith("+") else "US")
    except phonenumbers.NumberParseException:
        return None


def phone_forms(value: str) -> list[str]:
    """Digit strings of a phone number with and without country code, trunk 0 and extension."""
    forms = {_digits(value)}
    number = _phone(value)
    if number is not None and number.national_number:
        nsn = "0" * (number.number_of_leading_zeros or 1) if number.italian_leading_zero else ""
        nsn += str(number.national_number)
        cc = str(number.country_code)
        bases = {nsn, cc + nsn, "0" + nsn, "00" + cc + nsn}
        forms |= bases
        if number.extension:
            forms |= {b + number.extension for b in bases}
    return sorted(f for f in forms if len(f) >= 7)


def token_forms(value: str, entity_type: str) -> list[str]:
    """The spellings of ``value`` whose pseudonyms the warehouse may hold for ``entity_type``."""
    if entity_type == "PHONE_NUMBER":
        return phone_forms(value) or [value]
    if entity_type in ("CREDIT_CARD", "US_SSN", "BANK_ACCOUNT"):
        return [_digits(value) or value]
    return [value]


def _spaced(digits: str, sep: str) -> str:
    return sep.join(digits)


def clear_pattern(value: str) -> str:
    """A regular expression finding ``value`` in clear text in any of its normal forms."""
    value = value.strip()
    if _EMAIL.match(value):
        return re.escape(value)
    digits = _digits(value)
    if len(digits) >= 7 and not re.search(r"[^\W\d_]", _EXTENSION.sub("", value)):
        number = _phone(value)
        if (
            number is not None
            and number.national_number
            and not (12 <= len(digits) <= 19 and luhn_valid(digits))
        ):
            nsn = str(number.national_number)
            cc = str(number.country_code)
            return (
                rf"(?:^|[^0-9])(?:(?:\+|00)?{_spaced(cc, _DIGIT_SEP)}{_SEP})?(?:0{_SEP})?"
                rf"{_spaced(nsn, _SEP)}(?:[^0-9]|$)"
            )
        return rf"(?:^|[^0-9]){_spaced(digits, _DIGIT_SEP)}(?:[^0-9]|$)"
    return rf"(?:^|[^A-Za-z0-9_]){re.escape(value)}(?:[^A-Za-z0-9_]|$)"


def clear_regex(values: list[str]) -> re.Pattern | None:
    """One case-insensitive pattern for all ``values`` (``None`` when there are none)."""
    if not values:
        return None
    return re.compile("|".join(f"(?:{clear_pattern(v)})" for v in sorted(values)), re.IGNORECASE)
