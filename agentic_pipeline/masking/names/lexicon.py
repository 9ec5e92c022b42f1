"""Name lists and word lists the name model reads: first and last names of 26 European and
North-American locales (Faker's person providers, a maintained offline list; the women's forms
of surnames included) and those of 23 locales of Africa, South Asia, Latin America, Turkey,
Indonesia and Oceania that are no frequent word, and the common words that are names in some
locale but mostly ordinary words (``data/common_words.txt``).

Because the lists come from Faker, an evaluation corpus must not draw its names from Faker (it
would measure the list against itself).
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from pathlib import Path

from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    NAME_LOCALES,
    STOP_WORDS,
    VOCAB_ZIPF,
    WORLD_NAME_LOCALES,
    bare_word,
    is_place_or_calendar,
    is_vocabulary,
)

DATA = Path(__file__).parent / "data"


def read_words(path: Path) -> frozenset[str]:
    """The words of a data file's non-comment lines (several to a line)."""
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
COMMON_WORDS = read_words(DATA / "common_words.txt")


#: The name attributes of Faker's person providers, and where each goes.
_NAME_ATTRIBUTES = (
    ("first_names", 0),
    ("first_names_male", 0),
    ("first_names_female", 0),
    ("first_names_nonbinary", 0),
    ("last_names", 1),
    ("last_names_without_suffix", 1),
    ("last_names_male", 1),
    ("last_names_female", 1),
    ("male_last_names", 1),
    ("unisex_last_names", 1),
)
#: Polish surnames in -ski, -cki, -dzki take -a for a woman ("Kowalska"): Faker's pl_PL lists the
#: men's forms and derives the women's when it draws a name.
_POLISH_FEMININE = re.compile(r"(?:sk|ck|dzk)i$")


def _locale_names(locale: str) -> tuple[set[str], set[str]]:
    """(first names, last names) of one Faker locale, folded, each word of 2+ characters."""
    out: tuple[set[str], set[str]] = (set(), set())
    try:
        prov = importlib.import_module(f"faker.providers.person.{locale}").Provider
    except (ImportError, AttributeError):
        return out
    for attr, dest in _NAME_ATTRIBUTES:
        vals = getattr(prov, attr, ())
        if not isinstance(vals, dict | list | tuple):  # a locale's computed attribute
            continue
        for v in vals.keys() if isinstance(vals, dict) else vals:
            out[dest].update(fold(p) for p in str(v).split() if len(p) >= 2)
    if locale == "pl_PL":
        out[1].update(n[:-1] + "a" for n in list(out[1]) if _POLISH_FEMININE.search(n))
    return out


@lru_cache(maxsize=1)
def listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers of Europe and
    North America (``NAME_LOCALES``, offline), common words included ("Guy", "Mark"), and those
    of the other continents' locales (``WORLD_NAME_LOCALES``) that are no frequent word of a
    main European language ("Blessing", "Santa" stay words)."""
    firsts: set[str] = set()
    lasts: set[str] = set()
    for loc in NAME_LOCALES:
        f, la = _locale_names(loc)
        firsts |= f
        lasts |= la
    for loc in WORLD_NAME_LOCALES:
        f, la = _locale_names(loc)
        firsts |= {w for w in f if w.isalpha() and not is_vocabulary(w)}
        lasts |= {w for w in la if w.replace("-", "").isalpha() and not is_vocabulary(w)}
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
