"""Whose record a JSON object is: a person's (a bare ``id`` key there is that person's id) or a
thing's (a bare ``name`` key there names a product, a tool or a business), and among things a
product's; and whether an object holds a product's options. The words are data (``labels.yaml``):
``person_objects``, ``thing_fields``, ``product_fields`` and ``option_fields``."""

from __future__ import annotations

import re
from typing import Any

from agentic_pipeline.masking.detectors.bare_numbers import thing_key
from agentic_pipeline.masking.detectors.data_files import word_set
from agentic_pipeline.masking.detectors.id_shapes import id_value_ok
from agentic_pipeline.masking.detectors.key_rules import key_entity, normalize_key
from agentic_pipeline.masking.detectors.labels import GENERIC_LABELS, label_entity
from agentic_pipeline.masking.detectors.things import THING_WORD_IN

#: One token of letters, digits and ``-./`` (no time, no phone's "+", no code's "_").
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9./-]*")
#: Types of a sibling key that make an object a person's record.
_PERSON_FIELD_TYPES = frozenset({"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH"})


def generic_id_of_a_person(parent_key: str | None, keys: list[str]) -> bool:
    """Whether a bare ``id`` key of a JSON object names a person's id: the object sits under a
    key naming a person's record (``person_objects`` of ``labels.yaml``: ``customer``,
    ``passengers``...) or has a name, email, phone or birth date beside it. The ``id`` of a
    payment method, an order or a flight is a thing's."""
    if parent_key is not None:
        words = set(normalize_key(parent_key).split("_"))
        words |= {w[:-1] for w in words if w.endswith("s")}  # "members", "guests"
        if not words.isdisjoint(word_set("labels.yaml", "person_objects")):
            return True
    return any(
        key_entity(k) in _PERSON_FIELD_TYPES or label_entity(k) == "PERSON"
        for k in keys
        if normalize_key(k) not in GENERIC_LABELS
    )


def owner_id(parent_key: str | None) -> str | None:
    """The id type of a bare ``id`` under a key that names what the record is, when that thing's
    id is a personal identifier (``{"claims": [{"id": …}]}``: a claim's id is an insurance id,
    as "claim id" labels one); None for a thing's or a reference's id ("orders", "tickets")."""
    if parent_key is None:
        return None
    last = normalize_key(parent_key).split("_")[-1]
    singular = last[:-3] + "y" if last.endswith("ies") else last.removesuffix("s")
    for word in (last, singular):
        entity = label_entity(f"{word} id") if word else None
        if entity is not None and entity not in ("PERSON", "REFERENCE_ID"):
            return entity
    return None


def person_record(parent_key: str | None, keys: list[str]) -> bool:
    """Whether a JSON object's bare ``id`` is a person's: ``generic_id_of_a_person``, and the
    object is no thing's record (``name_of_a_thing``: {"id": …, "name": "Garden Hose"} under
    ``items``)."""
    return generic_id_of_a_person(parent_key, keys) and not name_of_a_thing(parent_key, keys)


def record_id_token(key: str, value: Any) -> bool:
    """A string of an id's shape with a letter or six digits ("QD4410273", "771305") under a key
    that names no thing, quantity or date ("dive card", "Clubkarte"): in a person's record
    (``person_record``), that person's id, as plain Presidio's patterns mask it in any string."""
    if not isinstance(value, str) or not _TOKEN.fullmatch(value) or not id_value_ok(value):
        return False
    letter_or_six = any(c.isalpha() for c in value) or sum(c.isdigit() for c in value) >= 6
    return letter_or_six and not thing_key(key) and not THING_WORD_IN.search(key)


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


#: Keys that say what kind of document or id an object holds ({"type": "passport", ...}).
_KIND_KEYS = frozenset({"type", "kind", "document_type", "doc_type", "id_type", "category"})
#: Keys that name the field whose value stands beside them ({"name": "dob", "value": …}).
_KEY_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*|[a-z]+(?:[A-Z][a-z0-9]*)+")
_FIELD_NAME_KEYS = frozenset({"name", "key", "field", "field_name", "label", "attribute"})


def typed_document(obj: dict) -> str | None:
    """The id type an object names under a kind key ({"type": "passport", "number": ...},
    {"kind": "driver licence", "value": ...}): a label of ``labels.yaml``'s ids, else None."""
    for k, v in obj.items():
        if isinstance(v, str) and normalize_key(str(k)) in _KIND_KEYS and len(v) <= 40:
            et = label_entity(v, ids_first=True)
            if et is not None and et != "PERSON":
                return et
    return None


def named_field(obj: dict) -> tuple[str, str] | None:
    """(name key, field name) of a field written as a name and a value ({"name": "dob",
    "value": …}, {"field": "Member ID", "value": …}: custom fields, form answers, headers),
    else None: the value is read as if under a key of that name. The name is a key's shape or a
    label ({"name": "<a person>", "value": 93} is a person's score)."""
    if "value" not in obj or len(obj) > 4:
        return None
    for k, v in obj.items():
        if normalize_key(str(k)) in _FIELD_NAME_KEYS and isinstance(v, str) and 0 < len(v) <= 60:
            keyish = _KEY_SHAPE.fullmatch(v) or key_entity(v) or label_entity(v, ids_first=True)
            return (str(k), v) if keyish else None
    return None
