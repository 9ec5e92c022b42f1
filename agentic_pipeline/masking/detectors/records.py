"""Whose record a JSON object is: a person's (a bare ``id`` key there is that person's id) or a
thing's (a bare ``name`` key there names a product, a tool or a business), and among things a
product's; and whether an object holds a product's options. The words are data (``labels.yaml``):
``person_objects``, ``thing_fields``, ``product_fields`` and ``option_fields``."""

from __future__ import annotations

from agentic_pipeline.masking.detectors.data_files import word_set
from agentic_pipeline.masking.detectors.key_rules import key_entity, normalize_key
from agentic_pipeline.masking.detectors.labels import GENERIC_LABELS, label_entity

#: Types of a sibling key that make an object a person's record.
_PERSON_FIELD_TYPES = frozenset({"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH"})


def generic_id_of_a_person(parent_key: str | None, keys: list[str]) -> bool:
    """Whether a bare ``id`` key of a JSON object names a person's id: the object sits under a
    key naming a person's record (``person_objects`` of ``labels.yaml``: ``customer``,
    ``passengers``...) or has a name, email, phone or birth date beside it. The ``id`` of a
    payment method, an order or a flight is a thing's."""
    if parent_key is not None:
        words = set(normalize_key(parent_key).split("_"))
        if not words.isdisjoint(word_set("labels.yaml", "person_objects")):
            return True
    return any(
        key_entity(k) in _PERSON_FIELD_TYPES or label_entity(k) == "PERSON"
        for k in keys
        if normalize_key(k) not in GENERIC_LABELS
    )


def name_of_a_thing(parent_key: str | None, keys: list[str]) -> bool:
    """Whether a bare ``name`` key of a JSON object names a thing (a product, a tool, a company),
    not a person: the object is no person's record (``generic_id_of_a_person``) and it sits under
    a key of ``thing_fields`` (``labels.yaml``: ``items``, ``product``...) or has one beside it
    (``sku``, ``price``, ``product_id``). Its value is then read as text: the name model still
    finds a person's name in it (and ``product_record`` says whether it names a product)."""
    others = [k for k in keys if normalize_key(k) != "name"]
    if generic_id_of_a_person(parent_key, others):
        return False
    return _has_field(parent_key, others, "thing_fields")


def product_record(parent_key: str | None, keys: list[str]) -> bool:
    """Whether a thing's record (``name_of_a_thing``) is a product's: it sits under a key of
    ``product_fields`` (``labels.yaml``: ``items``, ``products``, ``variants``...) or has one
    beside it (``sku``, ``price``, ``product_id``). A review's, a room's or a company's record is
    a thing's, not a product's: a person may be named there."""
    return _has_field(parent_key, [k for k in keys if normalize_key(k) != "name"], "product_fields")


def product_options(parent_key: str | None) -> bool:
    """Whether a JSON object sits under a key of ``option_fields`` (``labels.yaml``: ``options``,
    ``attributes``, ``specs``...): its keys and values are a product's attributes ("material":
    "glass", "armrest": "adjustable")."""
    if parent_key is None:
        return False
    return normalize_key(parent_key) in word_set("labels.yaml", "option_fields")


def _has_field(parent_key: str | None, keys: list[str], words: str) -> bool:
    """``parent_key`` or one of ``keys`` has a word of the list ``words`` of ``labels.yaml``."""
    fields = word_set("labels.yaml", words)
    return any(
        not fields.isdisjoint(normalize_key(k).split("_"))
        for k in ([parent_key] if parent_key else []) + keys
    )
