"""Structure-aware walk over JSON values (tool arguments, tool results, goals, context).

Scalar leaves go to a visitor with the entity type a key-path rule gives them (``email`` ->
``EMAIL_ADDRESS``, ``first_name`` -> ``PERSON``, an id label of ``detectors/labels.yaml``: ``mrn``
-> its id type); values under a personal key (``"address": {...}``) inherit it (an email's only
with an "@"), and the city, region and unit of an object that holds a street or postcode are masked
with it. A bare number under a key that names no thing is typed by its own shape (a phone or card
written as an integer). Keys go to the visitor too, so a personal value used as a key is masked
like a value; schema keys stay as they are. A string that itself holds a JSON object or array is
decoded, walked and re-encoded. Subtrees deeper than ``max_depth`` go to the visitor's ``too_deep``
as a whole. A JSON object or a Python dict written inside a text (``embedded_structures``:
"observation: HTTP 200 {...}", a fenced block of a reply) is walked as one, the text around it as
text."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from agentic_pipeline.jsonutil import strict_json_dumps
from agentic_pipeline.masking.detectors.addresses import address_part, is_address_object
from agentic_pipeline.masking.detectors.bare_numbers import bare_number_entity
from agentic_pipeline.masking.detectors.checked_ids import own_label_id
from agentic_pipeline.masking.detectors.field_labels import first_field
from agentic_pipeline.masking.detectors.id_shapes import id_token, label_value_ok
from agentic_pipeline.masking.detectors.label_lists import form_id_label, id_word_set
from agentic_pipeline.masking.detectors.labels import (  # noqa: F401  (key_entity: public here)
    GENERIC_LABELS,
    id_value_ok,
    key_entity,
    label_entity,
    normalize_key,
)
from agentic_pipeline.masking.detectors.login_names import handle_under_key
from agentic_pipeline.masking.detectors.records import (
    name_of_a_thing,
    named_field,
    owner_id,
    person_record,
    product_options,
    product_record,
    record_id_token,
    typed_document,
)

MAX_DEPTH = 64

#: Inside an inherited address, these children are locations (masked, not propagated).
_ADDRESS_LOCATION_KEYS = frozenset(
    {"city", "town", "country", "country_code", "state", "province", "region", "county"}
)
#: Parts of a flat address object masked beside its street or postcode (a country stays).
_ADDRESS_PARTS = frozenset({"city", "region", "unit"})
#: A dict with one of these keys describes a function call: its ``name`` is a tool name.
_CALL_KEYS = frozenset({"arguments", "kwargs", "args", "parameters", "params", "function"})
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Types whose values hold digits: inherited by a nested object's scalar only when it has one
#: (``{"card": {"brand": "visa", "number": …}}``: the brand is no card number).
_DIGIT_TYPES = frozenset(
    {
        "CREDIT_CARD",
        "CARD_LAST4",
        "PHONE_NUMBER",
        "US_SSN",
        "IBAN_CODE",
        "BANK_ACCOUNT",
        "ABA_ROUTING_NUMBER",
        "DATE_OF_BIRTH",
        "ZIP_CODE",
        "TAX_ID",
        "MEDICAL_RECORD",
        "INSURANCE_ID",
        "US_NPI",
        "ID_DOCUMENT",
        "REFERENCE_ID",
        "VEHICLE_ID",
        "MEDICAL_LICENSE",
    }
)


@lru_cache(maxsize=8192)
def child_entity(key: str, inherited: str | None) -> str | None:
    """Entity of ``key``'s value given the entity inherited from the parent key."""
    own = key_entity(key)
    if own is not None:
        return own
    if inherited == "STREET_ADDRESS" and normalize_key(key) in _ADDRESS_LOCATION_KEYS:
        return "LOCATION"
    return inherited


def _no_digit(value: Any) -> bool:
    """A string without a digit (a scalar that cannot be a number's value)."""
    return isinstance(value, str) and not any(c.isdigit() for c in value)


#: A qualifier after an id label used as a key: one word or a bracket ("Member ID (primary)",
#: "Employee ID assigned"); the label before it names the value.
_QUALIFIER_AFTER = re.compile(r"(?:[ _-]+[A-Za-z]+|[ _]*\([^()]{1,30}\))[ _]*$")


#: Keys that name a person's given name and surname only as a pair ("first" alone is a rank,
#: "family" alone a product's or a font's): "first"/"last", and FHIR's "given"/"family".
_NAME_PAIRS = (frozenset({"first", "last"}), frozenset({"given", "family"}))
_NAME_PARTS = frozenset({"first", "last", "middle", "given", "family"})


def _words(value: Any) -> bool:
    """A string with letters and no digit, or a list of them (FHIR's ``"given": [...]``): a
    name's shape."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) and _words(v) for v in value)
    return _no_digit(value) and any(c.isalpha() for c in value)


def _capitalised(value: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    return all(isinstance(v, str) and v.strip()[:1].isupper() for v in values)


def _name_pair(obj: dict) -> bool:
    """``obj`` has "first" and "last" keys (or "given" and "family") whose values are
    capitalised words (a person's given name and surname; not a page's ``"first": "true"`` or a
    range's numbers)."""
    values = {normalize_key(str(k)): v for k, v in obj.items()}
    return any(
        pair <= values.keys() and all(_words(values[k]) and _capitalised(values[k]) for k in pair)
        for pair in _NAME_PAIRS
    )


def label_id(key: str, value: Any) -> str | None:
    """The id type of a scalar (or list of scalars) under an id label used as a key
    (``"mrn": "00451288"``, ``"account_numbers": [...]``, ``"rfc"`` over an RFC's shape) whose
    values have an id's shape. Never inherited by a nested object (``"account": {...}``)."""
    if isinstance(value, str) and (own := own_label_id(str(key), value)):
        return own
    et = label_entity(str(key), ids_first=True)
    if et is None and (head := _QUALIFIER_AFTER.sub("", str(key))) != str(key):
        et = label_entity(head, ids_first=True)  # "Member ID (primary)", "Staff No assigned"
    if et is None or et == "PERSON":
        return None
    printed = value.strip() if isinstance(value, str) else ""  # a list printed into a string
    items = _PRINTED_LIST.findall(printed) if printed[:1] + printed[-1:] == "[]" else []
    values = value if isinstance(value, list) else items or [value]
    if not values or any(isinstance(v, dict | list | bool) or v is None for v in values):
        return None
    return et if all(label_value_ok(et, str(first_field(v))) for v in values) else None


#: The items of a list printed into a string ("[1HGCM82633A004352, 7XKR219]"), quotes stripped.
_PRINTED_LIST = re.compile(r"(?:(?<=^\[)|(?<=,)) *['\"]?([^,\[\]'\"]+?)['\"]? *(?=,|\]$)")


def _id_scalar(value: Any) -> bool:
    """A string or number (no bool) with an id's shape."""
    return isinstance(value, str | int) and not isinstance(value, bool) and id_value_ok(str(value))


def _value_key(key: Any, value: Any) -> bool:
    """A "value" key over a scalar of an id's shape ({"kind": "passport", "value": ...})."""
    return isinstance(key, str) and normalize_key(key) == "value" and _id_scalar(value)


def _bare_id_word(key: str, value: Any) -> bool:
    """A key that is an id word alone ("number", "no", "nr") over a scalar of an id's shape."""
    return normalize_key(key) in id_word_set() and _id_scalar(value)


_LAST_KEY = re.compile(
    r"(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[(\"(?:[^\"\\\\]|\\\\.)*\")\])(?:\[\d+\])*$"
)


def last_key(path: str) -> str | None:
    """The key a leaf's ``path`` ends in, list indices skipped (``$.rows[0][2]`` -> ``rows``)."""
    m = _LAST_KEY.search(path)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else json.loads(m.group(2))


def child_path(path: str, key: object) -> str:
    """JSONPath-like path of a child: ``$.a.b``, ``$.a[0]``, ``$['odd key']``; a Python dict's
    key of another type (``...``, a tuple) by its text."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    key = key if isinstance(key, str) else str(key)
    if _IDENT.match(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


class JsonError(ValueError):
    """The text is not JSON we can walk (syntax, or nesting beyond the parser's limit)."""


def looks_like_json(text: str) -> bool:
    """Cheap test before trying ``json.loads``: an object or an array."""
    s = text.strip()
    return len(s) >= 2 and ((s[0] == "{" and s[-1] == "}") or (s[0] == "[" and s[-1] == "]"))


def parse_json(text: str) -> Any:
    """``json.loads`` raising ``JsonError`` (never with the text) on any failure."""
    try:
        return json.loads(text)
    except RecursionError:
        raise JsonError("nesting too deep for the JSON parser") from None
    except ValueError as exc:
        raise JsonError(f"invalid JSON at char {getattr(exc, 'pos', '?')}") from None


def parse_python_literal(text: str) -> Any:
    """A Python ``repr`` of a dict or list (``{'street': '12 Oak Row'}``, as tools built on
    Python print their results), read safely with ``ast.literal_eval``; ``JsonError`` when it is
    not one (never with the text)."""
    import ast

    if "'" not in text and "None" not in text and "True" not in text and "False" not in text:
        raise JsonError("not a Python literal")
    try:
        obj = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise JsonError("not a Python literal") from None
    if not isinstance(obj, dict | list):
        raise JsonError("not a Python dict or list")
    return obj


def parse_structure(text: str) -> tuple[str, Any] | None:
    """``("json", obj)`` or ``("python", obj)`` for a text that is a JSON value or a Python
    dict's or list's ``repr``; None when it is neither."""
    try:
        return "json", parse_json(text)
    except JsonError:
        pass
    try:
        return "python", parse_python_literal(text)
    except JsonError:
        return None


#: Where a JSON object or a Python dict may begin inside a text: a brace, then a quoted key.
_EMBEDDED_START = re.compile(r"\{\s*[\"']")
#: Starts tried per text, and the longest object read inside a text: a hostile text of many
#: braces costs a few bounded scans, no more.
_EMBEDDED_TRIES = 16
_EMBEDDED_MAX_CHARS = 100_000


def _closing_brace(text: str, start: int) -> int | None:
    """The end of the bracketed structure opening at ``start``, quotes and escapes honoured."""
    depth, quote, i = 0, "", start
    while i < min(len(text), start + _EMBEDDED_MAX_CHARS):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def embedded_structures(text: str) -> list[tuple[int, int, str, Any]]:
    """The JSON objects and Python dicts written inside a text, in order, not overlapping:
    ``(start, end, kind, parsed)`` (``kind`` as ``parse_structure``'s)."""
    out: list[tuple[int, int, str, Any]] = []
    pos = 0
    for _ in range(_EMBEDDED_TRIES):
        m = _EMBEDDED_START.search(text, pos)
        if m is None:
            break
        end = _closing_brace(text, m.start())
        parsed = parse_structure(text[m.start() : end]) if end is not None else None
        if end is None or parsed is None or not isinstance(parsed[1], dict):
            pos = m.start() + 1
            continue
        out.append((m.start(), end, *parsed))
        pos = end
    return out


def text_pieces(text: str, inner: list[tuple[int, int, str, Any]]) -> list[str]:
    """The parts of ``text`` around its ``embedded_structures`` (all of it when none)."""
    cuts = [0, *(x for a, b, *_ in inner for x in (a, b)), len(text)]
    return [text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2)]


def rejoin(pieces: list[str], objects: list[str]) -> str:
    """A text's parts around its ``embedded_structures`` (``text_pieces``) and those structures
    written back between them, in order."""
    return "".join(x for pair in zip(pieces, [*objects, ""], strict=True) for x in pair)


def written_back(new: Any, old: Any, kind: str, original: str) -> str:
    """``original`` (a structure of ``kind`` that parsed to ``old``) as it reads with ``new``:
    itself when nothing changed, else JSON with its separators or a Python repr."""
    if new == old:
        return original
    return dump_like(new, original) if kind == "json" else repr(new)


def dump_like(obj: Any, original: str) -> str:
    """Re-encode ``obj`` with the separators the original text used (compact or spaced)."""
    compact = (
        '":"' in original or '","' in original or ('": ' not in original and '", ' not in original)
    )
    seps = (",", ":") if compact else (", ", ": ")
    return strict_json_dumps(obj, ensure_ascii=False, separators=seps)


def whole_structure(text: str) -> tuple[str, dict | list] | None:
    """A cell that is one object or array as a whole, JSON or a Python repr: ``(kind, value)``
    with ``kind`` as ``parse_structure`` gives it; None for any other text."""
    parsed = parse_structure(text) if looks_like_json(text) else None
    if parsed is not None and isinstance(parsed[1], dict | list):
        return parsed
    return None


def structures_in(text: str) -> tuple[list[str], list[Any]]:
    """How the masking reads a cell's text: its plain-text parts and the structures it holds.
    A JSON value or a Python dict's or list's repr is one structure and no text; a text with
    objects written inside it (``embedded_structures``) is the text around them and them; any
    other text is itself."""
    whole = whole_structure(text)
    if whole is not None:
        return [], [whole[1]]
    inner = embedded_structures(text)
    return text_pieces(text, inner), [obj for *_, obj in inner]


def replace_leaves(obj: Any, replace: Callable[[str], str]) -> Any:
    """``obj`` with ``replace`` applied to every string leaf and key, and to every number leaf
    (a number that ``replace`` changes becomes its token, a string)."""
    if isinstance(obj, dict):
        return {replace(k): replace_leaves(v, replace) for k, v in obj.items()}
    if isinstance(obj, list):
        return [replace_leaves(v, replace) for v in obj]
    if isinstance(obj, str):
        return replace(obj)
    if isinstance(obj, int | float) and not isinstance(obj, bool):
        new = replace(str(obj))
        return obj if new == str(obj) else new
    return obj


def replace_in_cell(text: str, replace: Callable[[str], str]) -> str:
    """``text`` with ``replace`` applied where the masking reads it (``structures_in``): leaf by
    leaf in a JSON value or a Python repr (written back as such when something changed, so a
    value written with escapes is found decoded), and in the objects inside a text and the text
    around them."""
    whole = whole_structure(text)
    if whole is not None:
        kind, obj = whole
        return written_back(replace_leaves(obj, replace), obj, kind, text)
    inner = embedded_structures(text)
    pieces = [replace(p) for p in text_pieces(text, inner)]
    return rejoin(pieces, [replace_in_cell(text[a:b], replace) for a, b, *_ in inner])


class Visitor(Protocol):
    """Callbacks of ``walk``."""

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        """A scalar (str, int, float; not bool/None): return its replacement."""

    def too_deep(self, path: str, subtree: Any) -> Any:
        """A subtree below ``max_depth``: return its replacement."""

    def bad_json(self, path: str, text: str) -> Any:
        """A string that looked like JSON but could not be parsed: return its replacement."""

    # optional: ``key(parent_path, key) -> str``, the replacement of a dict key (else unchanged);
    # ``product_name(value)``, told the value of a product's record's bare ``name`` key;
    # ``product_option(word)``, told each key and untyped value of a product's options


def walk(
    obj: Any,
    visitor: Visitor,
    path: str = "$",
    entity: str | None = None,
    depth: int = 0,
    max_depth: int = MAX_DEPTH,
    key: str | None = None,
) -> Any:
    """Return a copy of ``obj`` with every leaf replaced by the visitor's answer.

    Keys go to the visitor's ``key`` method when it has one (a personal value used as a key is
    masked like a value); a scalar that no key rule types is typed by its own shape under a key
    that names no thing (a phone or card written as a bare number, ``detectors/bare_numbers.py``).
    """
    if depth > max_depth:
        return visitor.too_deep(path, obj)
    if isinstance(obj, dict):
        is_call = not _CALL_KEYS.isdisjoint(obj.keys())
        # a city, region or unit beside a street or postcode is part of a personal address; a
        # city alone (a flight's origin, a store search) is not (``detectors/addresses.py``)
        address = is_address_object(obj.keys())
        rename = getattr(visitor, "key", None)
        out = {}
        person = None  # whether a bare "id" key here is a person's (decided once, when met)
        typed: str | None | bool = False  # the id type a kind key names (decided once, when met)
        option = getattr(visitor, "product_option", None) if product_options(key) else None
        name_pair = _name_pair(obj)  # {"first": …, "last": …}, {"given": …}: names, by the pair
        named = named_field(obj)  # {"name": "dob", "value": …}: the value under its field's name
        for k, v in obj.items():
            ks = str(k)  # a Python dict's key may be a number or ``...``
            if named is not None and k in ("value", named[0]):
                ks = named[1] if k == "value" else "field"  # the field's name names no one
            ent = None if is_call and k == "name" else child_entity(ks, entity) or label_id(ks, v)
            if ent is None and name_pair and normalize_key(ks) in _NAME_PARTS and _words(v):
                ent = "PERSON"
            if ent is None and isinstance(k, str) and handle_under_key(k, v):
                ent = "USER_ID"  # "user": "U07ZT3RQ9"
            if ent in _DIGIT_TYPES and ent == entity and _no_digit(v) and key_entity(ks) is None:
                ent = None  # inherited: "brand": "visa" under "card", "type": "mobile"
            if ent == "EMAIL_ADDRESS" == entity and isinstance(v, str) and "@" not in v:
                ent = key_entity(ks)  # an email message's "subject" and "body" under "inbox"
            if ent == "PERSON" and isinstance(k, str) and normalize_key(k) == "name":
                # a product's or a tool's name: read as text (the name model), not masked whole
                keys = [str(x) for x in obj]
                ent = None if name_of_a_thing(key, keys) else ent
                product = getattr(visitor, "product_name", None)
                if ent is None and product and product_record(key, keys):
                    product(v)  # a product's name, wherever the episode writes it
            generic = normalize_key(ks) in GENERIC_LABELS
            loose = (generic or form_id_label(ks)) and id_token(first_field(v))
            if ent is None and loose:  # "U0QWERTYUI", "Lodge ID": a person's record's, if one
                ent, generic = "USER_ID", True
            # a bare id word of a person's record ({"customer": {"number": ...}}) is that id
            id_word = ent is None and isinstance(k, str) and _bare_id_word(k, v)
            if id_word or _value_key(k, v):
                typed = typed_document(obj) if typed is False else typed
                if typed is not None:
                    ent, id_word = typed, False  # {"type": "passport", "number": ...}
            # and so is an id-shaped string under a key that names no thing ("dive card": …)
            id_word = id_word or ent is None and record_id_token(ks, v)
            if (ent is not None and generic) or id_word:
                if person is None:
                    person = person_record(key, [str(x) for x in obj])
                ent = (ent or "USER_ID") if person else owner_id(key)  # {"claims": [{"id"
            if ent is None and address and address_part(ks) in _ADDRESS_PARTS:
                ent = "LOCATION"
            if option is not None:  # "material": "glass" of a product's options
                option(ks)
                if ent is None and isinstance(v, str):
                    option(v)
            new_key = rename(path, k) if rename is not None and isinstance(k, str) else k
            cpath = child_path(path, new_key)  # the audit's path: the masked key, never a value
            out[new_key] = walk(v, visitor, cpath, ent, depth + 1, max_depth, key=ks)
        return out
    if isinstance(obj, list):
        return [
            walk(v, visitor, child_path(path, i), entity, depth + 1, max_depth, key=key)
            for i, v in enumerate(obj)
        ]
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, str) and entity is None and looks_like_json(obj):
        try:
            inner = parse_json(obj)
        except JsonError:
            return visitor.bad_json(path, obj)
        new = walk(inner, visitor, path, None, depth + 1, max_depth, key=key)
        return written_back(new, inner, "json", obj)
    if isinstance(obj, str) and entity is None and "{" in obj:
        # a text with objects written inside it ("POST /users 201\n{...}" under "note"): its
        # objects walked by their keys, the text around them a leaf each, as in a text cell
        inner_objects = embedded_structures(obj)
        if inner_objects:
            pieces = [visitor.leaf(path, p, None) for p in text_pieces(obj, inner_objects)]
            objects = [
                written_back(
                    walk(parsed, visitor, path, None, depth + 1, max_depth, key=key),
                    parsed,
                    kind,
                    obj[a:b],
                )
                for a, b, kind, parsed in inner_objects
            ]
            return rejoin(pieces, objects)
    if entity is None:
        entity = bare_number_entity(key, obj)
    return visitor.leaf(path, obj, entity)
