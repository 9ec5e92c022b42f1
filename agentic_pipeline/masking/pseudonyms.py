"""Keyed, consistent pseudonyms: ``<TYPE_3f9a1c2b...>`` = HMAC-SHA256(key, type + normalized value),
cut to ``TOKEN_HEX_CHARS`` hex digits.

The same value of the same entity type gets the same token in every episode and every day as long as
the key is the same, so joins and replay still work on masked data, while nobody without the key can
recompute (or dictionary-attack) the token of a value.

Width. Two values of one type that share a token are one person to every join, to linking and to
erasure, so the token keeps 96 bits of the HMAC (24 hex digits). By the birthday bound the chance
that any two of ``n`` distinct values of one type share a token is at most ``n^2 / 2^97``: about
6.3e-12 at ``n = 10^9`` (64 bits would give 2.7e-2 there, 32 bits a collision after ~10^5 values).
Masking also checks every token it makes against the values it has seen (``Pseudonymizer``) and
raises :class:`TokenCollisionError` rather than merge two people.

Data roots masked by older versions hold 8-digit (32-bit) tokens (``LEGACY_TOKEN_RE``): they are
refused by erasure with one line and re-masked from the raw zone (``docs/erasure.md``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache

from presidio_anonymizer.entities import OperatorConfig

from agentic_pipeline.masking.text_view import text_view

#: Development key: never use it for real data. Only ``keys.masking_key`` hands it out, and only in
#: explicit development mode (it announces it once; see ``keys.py``).
DEV_MASKING_KEY = "agentic-pipeline-dev-masking-key-NOT-FOR-PRODUCTION"
#: Hex digits of the HMAC kept in a token (96 bits; the collision bound is in the module doc).
TOKEN_HEX_CHARS = 24
#: Matches a token this module produced (used to skip already-masked text).
TOKEN_RE = re.compile(rf"<[A-Z][A-Z0-9_]*_[0-9a-f]{{{TOKEN_HEX_CHARS}}}>")
#: Hex digits of the tokens of older versions (32 bits: two people merged after ~10^5 values).
LEGACY_TOKEN_HEX_CHARS = 8
#: Matches a token of an older version (a data root masked before the width was raised).
LEGACY_TOKEN_RE = re.compile(rf"<[A-Z][A-Z0-9_]*_[0-9a-f]{{{LEGACY_TOKEN_HEX_CHARS}}}>")

#: Entries of a ``Pseudonymizer``'s cache (least recently used ones go first). Tokens are
#: deterministic HMACs, so an evicted one only costs its recomputation (a few microseconds); the
#: bound keeps a worker's memory flat over a day of any size (about 25 MB at most).
PSEUDONYM_CACHE_ENTRIES = 65_536

_DIGIT_TYPES = frozenset({"PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "CARD_LAST4", "US_BANK_NUMBER"})
_WS = re.compile(r"\s+")


class TokenCollisionError(RuntimeError):
    """Two different values of one entity type got the same token: masking stops rather than
    merge two people (the message holds the entity type only, never a value)."""


def token_entity_type(token: str) -> str:
    """The entity type of a token (``<EMAIL_ADDRESS_...>`` -> ``EMAIL_ADDRESS``)."""
    return token[1 : -(TOKEN_HEX_CHARS + 2)]


def is_dev_key(key: str | bytes) -> bool:
    """True when ``key`` is the public development key."""
    k = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
    return k == DEV_MASKING_KEY


def fold(text: str) -> str:
    """Case-insensitive form of ``text`` that keeps its length and letters: each character is
    lower-cased only when that gives one character (``ß`` stays ``ß``, where ``casefold`` makes
    it ``ss``; ``İ`` stays), and non-ASCII digits (full-width ``１``) become ASCII digits.
    Positions in ``fold(text)`` are positions in ``text``, so matches map back exactly."""
    if text.isascii():  # the same result: ASCII lower-cases one to one and has no other digits
        return text.lower()
    out = []
    for ch in text:
        low = ch.lower()
        if len(low) != 1:
            low = ch
        if not low.isascii() and low.isdigit():
            d = unicodedata.digit(low, None)
            low = str(d) if d is not None else low
        out.append(low)
    return "".join(out)


def normalize(value: str, entity_type: str) -> str:
    """Canonical form of a value before hashing (strip, ``fold``, digits-only for numbers)."""
    view = text_view(str(value))  # "%40", "&#64;", full-width: one value, one token
    text = unicodedata.normalize("NFKC", view.text if view else str(value)).strip()
    if entity_type in _DIGIT_TYPES:
        digits = "".join(ch for ch in text if ch.isdigit())
        if entity_type == "PHONE_NUMBER":
            if digits.startswith("00"):
                digits = digits[2:]
            if len(digits) == 11 and digits.startswith("1"):
                digits = digits[1:]  # NANP country code: +1 555... == 555...
        return digits or fold(text)
    if entity_type == "IBAN_CODE":
        return fold(text.replace(" ", ""))
    return fold(_WS.sub(" ", text))


def _key_bytes(key: str | bytes) -> bytes:
    return key if isinstance(key, bytes) else key.encode("utf-8")


def _digest(value: str, entity_type: str, key: bytes) -> str:
    msg = f"{entity_type}\x1f{normalize(value, entity_type)}".encode("utf-8", "surrogatepass")
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def pseudonym_for(value: str, entity_type: str, key: str | bytes) -> str:
    """The token that masking gives ``value`` of ``entity_type`` under ``key`` (used by erasure)."""
    return f"<{entity_type}_{_digest(value, entity_type, _key_bytes(key))[:TOKEN_HEX_CHARS]}>"


def value_hash(value: str, key: str | bytes = b"leak-scan") -> str:
    """Short keyed hash of a raw value, for leak reports (never the value itself)."""
    return hmac.new(
        _key_bytes(key), str(value).encode("utf-8", "surrogatepass"), hashlib.sha256
    ).hexdigest()[:16]


class Pseudonymizer:
    """Keyed pseudonym factory with a bounded LRU cache; also builds Presidio operators.

    Collision check: each token made is remembered with the full 256-bit HMAC of its normalized
    value (``_seen``, bounded like the cache); a token that comes back for a different full HMAC
    raises :class:`TokenCollisionError`. ``truncate`` is for tests only (a narrow token makes a
    collision reachable).
    """

    def __init__(
        self,
        key: str | bytes,
        max_cache: int = PSEUDONYM_CACHE_ENTRIES,
        truncate: int = TOKEN_HEX_CHARS,
    ) -> None:
        if not key:
            raise ValueError("masking key must not be empty")
        self._key = _key_bytes(key)
        self._cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._seen: OrderedDict[str, str] = OrderedDict()  # token -> full HMAC of its value
        self.max_cache = max(1, int(max_cache))
        self._truncate = truncate

    def token(self, value: str, entity_type: str) -> str:
        """Pseudonym of ``value`` (cached; the least recently used entry goes past the bound)."""
        k = (entity_type, value)
        tok = self._cache.get(k)
        if tok is None:
            digest = _digest(value, entity_type, self._key)
            tok = f"<{entity_type}_{digest[: self._truncate]}>"
            seen = self._seen.get(tok)
            if seen is not None and seen != digest:
                raise TokenCollisionError(
                    f"two different {entity_type} values got the same token: masking stopped "
                    "rather than merge two people (re-key or widen TOKEN_HEX_CHARS)"
                )
            self._seen[tok] = digest
            self._seen.move_to_end(tok)
            self._cache[k] = tok
            if len(self._cache) > self.max_cache:
                self._cache.popitem(last=False)
            if len(self._seen) > self.max_cache:
                self._seen.popitem(last=False)
        else:
            self._cache.move_to_end(k)
        return tok

    def operator(self, entity_type: str) -> Callable[[str], str]:
        """A one-argument function for Presidio's ``custom`` operator."""
        return lambda text: self.token(text, entity_type)

    def operators(self, entity_types: set[str] | list[str]) -> dict[str, OperatorConfig]:
        """``{entity_type: OperatorConfig("custom", {"lambda": ...})}`` for ``AnonymizerEngine``."""
        return {et: OperatorConfig("custom", {"lambda": self.operator(et)}) for et in entity_types}


@lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """``fold`` of one word, cached: the name and vocabulary tests fold the same words often."""
    return fold(word)
