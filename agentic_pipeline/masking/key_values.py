"""How the key rules read a value under a JSON key that names personal data: a bare number
that may be a thing's id, a name that may be a tool's or a product's, a person's key in words
read as a labelled field, and a value that other labelled fields follow in the same string."""

from __future__ import annotations

import re
from typing import Any

from agentic_pipeline.masking.detectors.address_fields import ADDRESS_TYPES
from agentic_pipeline.masking.detectors.field_labels import next_label
from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.names.fields import person_field_key

#: snake_case / dotted identifiers are never person names (``"name": "book_reservation"``).
IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:[_.:/-][a-z0-9]+)+$")
_BARE_NAME_KEY = re.compile(r"(?i)(?:^|\.)name$")
_DIGITS = re.compile(r"\d{5,19}")


def bare_number(value: Any, entity: str) -> bool:
    """A phone or card written as bare digits (``4155550123``, ``"9832717871"``): one a thing's
    id can look like."""
    return (
        entity in ("PHONE_NUMBER", "CREDIT_CARD")
        and not isinstance(value, bool)
        and isinstance(value, int | str)
        and _DIGITS.fullmatch(str(value).strip()) is not None
    )


def free_name(path: str, value: str) -> bool:
    """A ``PERSON`` key-rule leaf whose value is analysed as text instead of masked whole: an
    identifier (``"name": "book_reservation"``), or the value of a bare ``name`` key, which names
    products, tools and places as often as people ("Desk Lamp"); NER and the name recognizers
    decide there, and such a value never becomes an episode-wide known value by its key alone."""
    return bool(IDENTIFIER.match(value) or _BARE_NAME_KEY.search(path))


#: The longest value read as a labelled field (words): a longer one is prose, analysed alone.
LABELLED_FIELD_WORDS = 6


def labelled_field(key: str | None, value: str) -> str | None:
    """``"<key>: <value>"`` when ``key`` names a person in words that the key rules do not mask
    whole ("Vorname", "Nazwisko", "claimant", "Beneficiary"), for a one-line value of a few
    words, else None. The name model reads the value after its label, as it reads a form's line
    ("Vorname: <name>"): a one-word value alone would get no name analysis at all, and a
    person's name under such a key is masked wherever the episode writes it."""
    if not key or "\n" in value or not 0 < len(value.split()) <= LABELLED_FIELD_WORDS:
        return None
    if key_entity(key) is not None or not person_field_key(key):
        return None
    return f"{key}: {value.strip()}"


def key_value_end(value: Any, entity: str | None) -> int | None:
    """Where a personal key's one-line value ends when other labelled fields follow it in the
    same string (``"surname": "<name>   First: <name>   Middle initial: <letter>"``): the key
    names the first value only, the rest is text. Not an address's: "No: 54", "(GPS: …)" are
    parts of it."""
    address = entity in ADDRESS_TYPES or entity == "LOCATION"  # its parts hold labels
    if entity is None or address or not isinstance(value, str) or "\n" in value:
        return None
    cut = next_label(value)
    return cut if cut and value[:cut].strip() else None
