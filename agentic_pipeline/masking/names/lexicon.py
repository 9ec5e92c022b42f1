"""Name lists and word lists the name model reads: first and last names of 26 European and
North-American locales (Faker's person providers, a maintained offline list) and the common
words that are names in some locale but mostly ordinary words (``data/common_words.txt``).

Because the lists come from Faker, an evaluation corpus must not draw its names from Faker (it
would measure the list against itself).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path

from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    NAME_LOCALES,
    STOP_WORDS,
    VOCAB_ZIPF,
    bare_word,
    is_place_or_calendar,
    is_vocabulary,
)

DATA = Path(__file__).parent / "data"


def _read_words(path: Path) -> frozenset[str]:
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):
            words.update(line.split())
    return frozenset(words)


def read_lines(path: Path) -> frozenset[str]:
    """The non-empty, non-comment lines of a data file, stripped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))


#: Listed names that are mostly ordinary words ("Will", "Price", "Visa"): see the data file.
COMMON_WORDS = _read_words(DATA / "common_words.txt")


@lru_cache(maxsize=1)
def listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers (offline),
    common words included ("Guy", "Mark")."""
    firsts: set[str] = set()
    lasts: set[str] = set()
    for loc in NAME_LOCALES:
        try:
            prov = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except (ImportError, AttributeError):
            continue
        for attr, dest in (
            ("first_names", firsts),
            ("first_names_male", firsts),
            ("first_names_female", firsts),
            ("first_names_nonbinary", firsts),
            ("last_names", lasts),
            ("last_names_without_suffix", lasts),
        ):
            vals = getattr(prov, attr, ())
            for v in vals.keys() if isinstance(vals, dict) else vals:
                for part in str(v).split():
                    if len(part) >= 2:
                        dest.add(fold(part))
    return frozenset(firsts), frozenset(lasts)


@lru_cache(maxsize=1)
def name_gazetteer() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names) without the ``COMMON_WORDS``."""
    firsts, lasts = listed_names()
    return frozenset(firsts - COMMON_WORDS), frozenset(lasts - COMMON_WORDS)


@lru_cache(maxsize=1)
def _all_listed() -> frozenset[str]:
    firsts, lasts = listed_names()
    return firsts | lasts


def listed_name(word: str) -> bool:
    """``word`` is in the first- or last-name lists (common words included)."""
    w = fold(word)
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    return w in _all_listed()


def is_name_pair(first: str, last: str) -> bool:
    """A listed first name followed by a listed last name (no common word), any case."""
    firsts, lasts = name_gazetteer()
    return fold(first) in firsts and fold(last) in lasts


def listed_non_name(word: str) -> bool:
    """``word`` is an English stop word, a common word, or a place or calendar word."""
    f = bare_word(word)
    return f in STOP_WORDS or f in COMMON_WORDS or is_place_or_calendar(f)


def not_a_name_word(word: str, languages: tuple[str, ...] = ("en",)) -> bool:
    """``word`` is a stop word, a common word, a place or calendar word, or vocabulary of
    ``languages`` that no name list has."""
    f = bare_word(word)
    return listed_non_name(f) or (is_vocabulary(f, VOCAB_ZIPF, languages) and not listed_name(f))
