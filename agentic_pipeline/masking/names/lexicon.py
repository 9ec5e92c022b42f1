"""Name lists and word lists the name model reads: first and last names of 26 European and
North-American locales (Faker's person providers, a maintained offline list; the women's forms
of surnames included); those of 48 locales of Africa, Asia, Latin America, Turkey, Indonesia and
Oceania (names in Cyrillic, Arabic, Hebrew, Indic, Thai, Korean, Japanese and Chinese letters
among them), the given names of many countries (``nomquamgender``'s data) and the
surnames of the United States census (the ``names`` package's data) that are no frequent word;
and the common words that are names in some locale but mostly ordinary words
(``data/common_words.txt``).

Because the lists come from Faker and those data sets, an evaluation corpus must not draw its
names from them (it would measure the lists against themselves).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from agentic_pipeline.masking.detectors.label_lists import unaccented
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    NAME_LOCALES,
    STOP_WORDS,
    VOCAB_ZIPF,
    WORD_LANGUAGES,
    WORLD_NAME_LOCALES,
    bare_word,
    is_place_or_calendar,
    is_vocabulary,
    vocabulary_of,
    zipf,
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


#: Lower-case words between the words of one person's name ("van", "de la", "bin", "بن"):
#: ``data/name_particles.txt``.
NAME_PARTICLES = read_lines(DATA / "name_particles.txt")
#: Titles, forms of address, salutations and greetings before a name, in the main European
#: languages (``data/titles.txt``).
TITLES = read_lines(DATA / "titles.txt")


def is_title(word: str) -> bool:
    """``word`` is a title or form of address ("Mr.", "Frau", "Mme", "Pani", "Nurse")."""
    return fold(word).rstrip(".") in TITLES


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


#: A given name of ``nomquamgender``'s data counts when this many of its sources list it...
GIVEN_NAME_SOURCES = 5
#: ... this many times in all (fewer is mostly noise of its scraped sources: "the", "bed").
GIVEN_NAME_COUNT = 50
#: A given name of ``nomquamgender``'s JSON: the name, its number of sources, its count.
_GIVEN_NAME_ENTRY = re.compile(r'"([^\W\d_]+)": \[(\d+), (\d+),')
#: A name of those data sets that is also a word from this Zipf frequency (below ``VOCAB_ZIPF``)
#: in a main European language is listed only when it is a frequent name: given this many
#: times in ``nomquamgender``'s sources ("Archie", "Rex"; not "Jetty", "Utopia")...
WORD_NAME_COUNT = 1000
#: ... or among this many most frequent surnames of the census ("Hitchcock"; not "Cellar").
WORD_SURNAME_RANK = 2000
_WORD_NAME_ZIPF = 3.0
#: A given name given this many times in ``nomquamgender``'s sources, even a word ("Lucky",
#: "Blessing", "Page"), is a first name right before a masked name (``joins.with_name_parts``).
GIVEN_BEFORE_A_NAME_COUNT = 3000
#: An English word this frequent (Zipf) is a function word or a modal verb ("will", "may").
FUNCTION_WORD_ZIPF = 5.5


def _package_file(dist: str, path: str) -> Path:
    """A data file inside an installed distribution, found without importing its code."""
    return Path(str(importlib.metadata.distribution(dist).locate_file(path)))


@lru_cache(maxsize=1)
def _given_names() -> dict[str, int]:
    """Given names of many countries from ``nomquamgender`` (MIT; a research data set of about
    720,000 given names compiled from 36 national and scientific sources), those listed by
    ``GIVEN_NAME_SOURCES`` sources and ``GIVEN_NAME_COUNT`` times or more (about 42,000), with
    their counts. Read from its JSON file with a regex: its module loads pandas and the whole
    file as a dict."""
    text = _package_file("nomquamgender", "nomquamgender/name_data.json").read_text("utf-8")
    return {
        fold(name): int(count)
        for name, sources, count in _GIVEN_NAME_ENTRY.findall(text)
        if int(sources) >= GIVEN_NAME_SOURCES and int(count) >= GIVEN_NAME_COUNT
    }


@lru_cache(maxsize=1)
def _census_surnames() -> dict[str, int]:
    """The 88,799 surnames of the 1990 United States census (public domain) with their ranks,
    as the ``names`` package (MIT) ships them: a surname, its frequencies and its rank a line.
    Read once: the name lists and ``surnames_after_a_first_name`` both ask for it."""
    lines = _package_file("names", "names/dist.all.last").read_text("ascii").splitlines()
    return {fold(parts[0]): int(parts[3]) for ln in lines if len(parts := ln.split()) == 4}


def _names_not_words(names: dict[str, int], frequent: Callable[[int], bool]) -> set[str]:
    """The ``names`` that are no frequent word of a main European language (``VOCAB_ZIPF``), no
    common, place or calendar word ("may") and, if they are a word from ``_WORD_NAME_ZIPF``,
    that are ``frequent`` names by their number."""
    words = vocabulary_of(names, _WORD_NAME_ZIPF)
    common = vocabulary_of(words, VOCAB_ZIPF)
    return {
        n
        for n in names
        if (n not in words or n not in common and frequent(names[n])) and not listed_non_name(n)
    }


@lru_cache(maxsize=1)
def listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers of Europe and
    North America (``NAME_LOCALES``, offline), common words included ("Guy", "Mark"); and, where
    they are no frequent word of a main European language ("Blessing", "Santa" stay words), those
    of Faker's other continents' locales (``WORLD_NAME_LOCALES``), the given names of many
    countries (``_given_names``) and the surnames of the United States census
    (``_census_surnames``); each also without its accents (``_unaccented_forms``)."""
    firsts: set[str] = set()
    lasts: set[str] = set()
    for loc in NAME_LOCALES:
        f, la = _locale_names(loc)
        firsts |= f
        lasts |= la
    more_firsts: set[str] = set()
    more_lasts: set[str] = set()
    for loc in WORLD_NAME_LOCALES:
        f, la = _locale_names(loc)
        more_firsts |= {w for w in f if w.isalpha()}
        more_lasts |= {w for w in la if w.replace("-", "").isalpha()}
    firsts |= more_firsts - vocabulary_of(more_firsts - firsts)
    lasts |= more_lasts - vocabulary_of(more_lasts - lasts)
    firsts |= _names_not_words(_given_names(), lambda count: count >= WORD_NAME_COUNT)
    lasts |= _names_not_words(_census_surnames(), lambda rank: rank <= WORD_SURNAME_RANK)
    return frozenset(firsts | _unaccented_forms(firsts)), frozenset(
        lasts | _unaccented_forms(lasts)
    )


def _unaccented_forms(names: set[str]) -> set[str]:
    """The names written without their accents, as capitals and keyboards often write them
    ("BACZKIEWICZ", "Dostalova"), and with the letters Unicode does not decompose in Latin ones
    (``ascii_form``: "Paweł" of "pawel"), that are no word of a main European language ("bär"
    is no "bar")."""
    forms = {f for n in names for f in (unaccented(n), ascii_form(n)) if f != n} - names
    return forms - vocabulary_of(forms)


#: Letters that have no accent to strip, in the Latin letters a keyboard writes them with.
_LATIN = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe"})


def ascii_form(word: str) -> str:
    """``word`` (folded) without accents and with "ł", "ø", "đ", "ð", "þ", "æ", "œ" in Latin
    letters: how a name list drawn from ASCII sources writes it ("bolesław" as "boleslaw")."""
    return unaccented(word).translate(_LATIN)


@lru_cache(maxsize=1)
def given_names_before_a_name() -> frozenset[str]:
    """The first names, and the given names given ``GIVEN_BEFORE_A_NAME_COUNT`` times or more
    even where they are frequent words: a given name right before a masked name is no word. An
    English word as frequent as a modal verb is none ("Will <First> <Last> come?")."""
    frequent = {n for n, count in _given_names().items() if count >= GIVEN_BEFORE_A_NAME_COUNT}
    names = listed_names()[0] | (frequent - STOP_WORDS)
    return frozenset(n for n in names if zipf(n, ("en",)) < FUNCTION_WORD_ZIPF)


@lru_cache(maxsize=65536)
def given_name_bin(word: str) -> int:
    """How often ``_given_names`` records ``word`` as a given name, whether or not it is a word:
    0 when it is not among them (``GIVEN_NAME_SOURCES`` and ``GIVEN_NAME_COUNT`` bars), 1 under
    1,000 times, 2 under 10,000, 3 more."""
    count = _given_names().get(bare_word(word), 0)
    return 0 if not count else 1 if count < 1000 else 2 if count < 10000 else 3


@lru_cache(maxsize=1)
def surnames_after_a_first_name() -> frozenset[str]:
    """The last names, and the census's ``WORD_SURNAME_RANK`` most frequent surnames even where
    they are frequent words ("Sterling", "Bishop"): a surname right after a first name that is
    masked is no word (``joins.with_name_parts``)."""
    frequent = {n for n, rank in _census_surnames().items() if rank <= WORD_SURNAME_RANK}
    return frozenset(listed_names()[1] | (frequent - STOP_WORDS))


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
    return w in _all_listed() or ascii_form(w) in _all_listed()


def listed_not_word(word: str) -> bool:
    """A listed name that no language has as a word: in capitals it is a form's or a list's
    name ("NAKAMURA"), not a code or a header."""
    return listed_name(word) and not is_vocabulary(word, languages=WORD_LANGUAGES)


#: A word of a span, with its inner apostrophes and hyphens ("D'Quennith", "Ulla-Brit").
SPAN_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def name_like_span(span: str) -> bool:
    """A word of ``span`` is an initial ("J.") or a listed name that no language has as a word
    (``listed_not_word``)."""
    return any(len(w) == 1 or listed_not_word(w) for w in SPAN_WORD.findall(span))


def is_name_pair(first: str, last: str) -> bool:
    """A listed first name followed by a listed last name (no common word), any case."""
    firsts, lasts = name_gazetteer()
    return fold(first) in firsts and fold(last) in lasts


def listed_non_name(word: str) -> bool:
    """``word`` is an English stop word, a common word, or a place or calendar word."""
    f = bare_word(word)
    return f in STOP_WORDS or f in COMMON_WORDS or is_place_or_calendar(f)


def not_a_name_word(
    word: str, languages: tuple[str, ...] = ("en",), threshold: float = VOCAB_ZIPF
) -> bool:
    """``word`` is a stop word, a common word, a place or calendar word, or vocabulary of
    ``languages`` (from Zipf ``threshold``) that no name list has."""
    f = bare_word(word)
    return listed_non_name(f) or (is_vocabulary(f, threshold, languages) and not listed_name(f))
