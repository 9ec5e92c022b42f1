"""The predefined Presidio recognizers masking runs, and the personal types they report.

Plain Presidio's default English set is always loaded (``load_predefined_recognizers``), plus the
country recognizers of ``presidio.yaml`` instantiated for English text. Every type they report is
masked except the non-personal ones listed there (dates, places, organisations, URLs, uuids): a
type is never dropped to gain precision (issue #21).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml
from presidio_analyzer import EntityRecognizer
from presidio_analyzer import predefined_recognizers as predefined

from agentic_pipeline.pii_patterns import STRICT_ENTITIES

LANGUAGE = "en"
#: Types of plain Presidio's default English set (``default_recognizers.yaml`` with
#: ``enabled: true`` for English, spaCy's PERSON included).
DEFAULT_TYPES = (
    "CREDIT_CARD",
    "CRYPTO",
    "EMAIL_ADDRESS",
    "IBAN_CODE",
    "IP_ADDRESS",
    "MAC_ADDRESS",
    "MEDICAL_LICENSE",
    "PERSON",
    "PHONE_NUMBER",
    "UK_NHS",
    "US_BANK_NUMBER",
    "US_DRIVER_LICENSE",
    "US_ITIN",
    "US_PASSPORT",
    "US_SSN",
)


@lru_cache(maxsize=1)
def _config() -> dict:
    text = resources.files(__package__).joinpath("presidio.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def not_personal_types() -> frozenset[str]:
    """Types reported by Presidio that are kept in clear (dates, places, organisations...)."""
    return frozenset(_config()["not_personal"])


def country_recognizers() -> list[EntityRecognizer]:
    """The country recognizers of ``presidio.yaml``, each for English text."""
    return [
        getattr(predefined, name)(supported_language=LANGUAGE)
        for name in _config()["country_recognizers"]
    ]


#: Types of our own detectors (``detectors/patterns.py``, the key rules and ``labels.yaml``'s ids).
OWN_TYPES = (
    *STRICT_ENTITIES,  # email, phone, card, SSN, IBAN, IP, user id
    "CARD_LAST4",
    "DATE_OF_BIRTH",
    "STREET_ADDRESS",
    "ID_DOCUMENT",
    "ZIP_CODE",
    "BANK_ACCOUNT",
    "PERSON",
)


@lru_cache(maxsize=1)
def masked_types() -> tuple[str, ...]:
    """Every type masking replaces in free text: the predefined recognizers' personal types,
    our detectors' and the id labels' types, sorted."""
    from agentic_pipeline.masking.detectors.labels import id_labels

    return tuple(sorted(set(predefined_types()) | set(OWN_TYPES) | set(id_labels().values())))


@lru_cache(maxsize=1)
def predefined_types() -> tuple[str, ...]:
    """Every personal type of the default set and the country recognizers, sorted."""
    types = set(DEFAULT_TYPES)
    for rec in country_recognizers():
        types.update(rec.supported_entities)
    return tuple(sorted(types - not_personal_types()))
