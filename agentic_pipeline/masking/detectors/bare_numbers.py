"""Phones and cards written as bare numbers in JSON, under keys the key rules do not know.

``{"contact_number": 4155550123}``, ``{"msisdn": "447700900123"}``, ``{"q": "+14155550123"}`` or a
row array ``[["Ann", 4155550123]]``: a JSON integer or digit string that libphonenumber validates
as a phone (or that is a Luhn-valid card number with an issuer prefix) is masked whatever its
key (issue #22), unless the key names a thing or a quantity (``item_id``, ``order_no``,
``amount``, ``timestamp``, ...): ids of things stay in clear for replay and joins.
"""

from __future__ import annotations

import re
from functools import lru_cache

import phonenumbers

from agentic_pipeline.pii_patterns import luhn_valid

#: Regions whose national numbers (no "+") are tried; "+" numbers are read in any region.
REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "PL", "IN", "CA", "AU")
#: Words of a key that names a thing, a quantity or a technical value, never a person's number.
_THING_WORDS = frozenset(
    """
    item items order orders product products variant variants sku flight flights reservation
    booking invoice tracking payment shipment
    page version count amount price total quantity qty size year timestamp time date epoch ts
    offset limit index idx seq port pid id ids uuid guid hash checksum code zip postcode postal
    balance cost fee rate score duration latency tokens bytes length width height weight
    """.split()
)
_NUMBER = re.compile(r"\+?\d{7,19}")


def _key_words(key: str | None) -> list[str]:
    if not key:
        return []
    key = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)
    return [w for w in re.split(r"[^a-z0-9]+", key.lower()) if w]


@lru_cache(maxsize=8192)
def thing_key(key: str | None) -> bool:
    """The key names a thing, a quantity or a technical value (``item_id``, ``orderNo``,
    ``amount``, ``ts``); ``contact_number`` and ``msisdn`` do not."""
    words = _key_words(key)
    return any(w in _THING_WORDS or w.endswith("id") and len(w) > 3 for w in words)


@lru_cache(maxsize=8192)
def _valid_phone(digits: str) -> bool:
    if digits.startswith("+"):
        try:
            return phonenumbers.is_valid_number(phonenumbers.parse(digits, None))
        except phonenumbers.NumberParseException:
            return False
    for region in REGIONS:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(digits, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _card(digits: str) -> bool:
    return (
        13 <= len(digits) <= 19
        and (digits[0] in "3456" or 2221 <= int(digits[:4]) <= 2720)
        and luhn_valid(digits)
        and len(set(digits)) >= 3
    )


def bare_number_entity(key: str | None, value: object) -> str | None:
    """``PHONE_NUMBER`` or ``CREDIT_CARD`` for a JSON integer or digit string that validates as
    one under a key that names no thing (see module doc), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    if not _NUMBER.fullmatch(text) or thing_key(key):
        return None
    digits = text.lstrip("+")
    if _card(digits):
        return "CREDIT_CARD"
    if len(digits) <= 15 and _valid_phone(text):
        return "PHONE_NUMBER"
    return None
