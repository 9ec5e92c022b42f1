"""The predefined Presidio recognizers masking runs, and the personal types they report.

Plain Presidio's default English set is always loaded (``load_predefined_recognizers``), plus the
country recognizers of ``presidio.yaml`` instantiated for English text. Every type they report is
masked except the non-personal ones listed there (dates, places, organisations, URLs, uuids): a
type is never dropped to gain precision (issue #21).
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as sre  # the parser of ``re`` (``sre_parse`` before Python 3.11)
from re import _parser as sre_parser
from typing import Any

from presidio_analyzer import EntityRecognizer, PatternRecognizer, RecognizerResult
from presidio_analyzer import predefined_recognizers as predefined

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.id_floor import FLOOR_TYPE
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


def not_personal_types() -> frozenset[str]:
    """Types reported by Presidio that are kept in clear (dates, places, organisations...)."""
    return frozenset(data_file("presidio.yaml")["not_personal"])


def country_recognizers() -> list[EntityRecognizer]:
    """The country recognizers of ``presidio.yaml``, each for English text."""
    return [
        getattr(predefined, name)(supported_language=LANGUAGE)
        for name in data_file("presidio.yaml")["country_recognizers"]
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
    FLOOR_TYPE,  # an id only a spaCy entity covers (``id_floor.py``)
)


@lru_cache(maxsize=1)
def masked_types() -> tuple[str, ...]:
    """Every type masking replaces in free text: the predefined recognizers' personal types,
    our detectors' and the id labels' types, sorted."""
    from agentic_pipeline.masking.detectors.label_lists import id_labels

    return tuple(sorted(set(predefined_types()) | set(OWN_TYPES) | set(id_labels().values())))


@lru_cache(maxsize=1)
def predefined_types() -> tuple[str, ...]:
    """Every personal type of the default set and the country recognizers, sorted."""
    types = set(DEFAULT_TYPES)
    for rec in country_recognizers():
        types.update(rec.supported_entities)
    return tuple(sorted(types - not_personal_types()))


# --------------------------------------------------------------------------- texts without digits
#: A character that can be a digit for the ``regex`` module (Presidio's), whose ``\d`` reads its
#: own Unicode tables: an ASCII digit, or any character outside ASCII.
_MAYBE_DIGIT = re.compile(r"[0-9]|[^\x00-\x7f]")
#: Flags that leave a pattern's syntax as ``re`` reads it.
_PLAIN_FLAGS = int(re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.UNICODE)
#: A ``{`` that is not a plain ``{m,n}`` quantifier: ``re`` reads it as a literal, the ``regex``
#: module maybe as a fuzzy-matching constraint (``{e<=1}``), so such a pattern is not analysed.
_ODD_BRACE = re.compile(r"\{(?!\d*(?:,\d*)?\})")


def needs_digit(pattern: str, flags: int = 0) -> bool:
    """Whether no match of ``pattern`` is possible in a text without a digit: every way through it
    takes a digit (``[0-9]``, ``\\d``, a digit literal), or a positive lookaround needs one.

    False whenever unsure: a pattern ``re`` cannot parse or could read otherwise than ``regex``,
    unknown flags, a construct not analysed here."""
    if int(flags) & ~_PLAIN_FLAGS or _ODD_BRACE.search(pattern):
        return False
    try:
        tree = sre_parser.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return False
    return _sequence_needs_digit(tree)


def _sequence_needs_digit(items: Any) -> bool:
    return any(_item_needs_digit(op, av) for op, av in items)


def _item_needs_digit(op: Any, av: Any) -> bool:
    if op is sre.LITERAL:
        return 0x30 <= av <= 0x39
    if op is sre.IN:
        return bool(av) and all(_digit_only(o, a) for o, a in av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _, sub = av
        return low >= 1 and _sequence_needs_digit(sub)
    if op is sre.SUBPATTERN:
        return _sequence_needs_digit(av[-1])
    if op is sre.ATOMIC_GROUP:
        return _sequence_needs_digit(av)
    if op is sre.BRANCH:
        return all(_sequence_needs_digit(branch) for branch in av[1])
    if op is sre.ASSERT:  # a positive lookahead or lookbehind reads the text too
        return _sequence_needs_digit(av[1])
    return False  # anchors, negative lookarounds, backreferences, conditionals, ...


def _digit_only(op: Any, av: Any) -> bool:
    """A member of a character set that matches digits only (``NEGATE`` is no such member)."""
    if op is sre.LITERAL:
        return 0x30 <= av <= 0x39
    if op is sre.RANGE:
        return 0x30 <= av[0] and av[1] <= 0x39
    return op is sre.CATEGORY and av is sre.CATEGORY_DIGIT


class _DigitFreeShortcut:
    """``analyze`` of a pattern recognizer whose every pattern needs a digit: a text without one
    gets the empty result at once instead of every pattern searched through it (the same result:
    no match is possible there)."""

    def __init__(self, analyze: Any) -> None:
        self.analyze = analyze

    def __call__(
        self,
        text: str,
        entities: list[str],
        nlp_artifacts: Any = None,
        regex_flags: int | None = None,
    ) -> list[RecognizerResult]:
        if not regex_flags and _MAYBE_DIGIT.search(text) is None:  # the analysed flags
            return []
        return self.analyze(text, entities, nlp_artifacts, regex_flags)


def skip_digit_free_texts(recognizer: EntityRecognizer) -> bool:
    """Give a Presidio pattern recognizer (its own ``analyze``, not a subclass's) whose patterns
    all need a digit the shortcut of ``_DigitFreeShortcut``; whether it got it. About a third of
    the characters of a day of agent logs are in strings without a digit."""
    if not isinstance(recognizer, PatternRecognizer) or not recognizer.patterns:
        return False
    if type(recognizer).analyze is not PatternRecognizer.analyze:
        return False
    flags = recognizer.global_regex_flags or 0
    if not all(needs_digit(p.regex, flags) for p in recognizer.patterns):
        return False
    recognizer.analyze = _DigitFreeShortcut(recognizer.analyze)
    return True
