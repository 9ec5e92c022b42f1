"""What one word is, for the name model and its floor: its shape, name lists and frequencies
(``word_info``), whether it is a word at all, its kind as a neighbour, titles and roles, and the
words of a #tag."""

from __future__ import annotations

import re
from functools import lru_cache

from agentic_pipeline.masking.names.fields import PERSON_LABELS
from agentic_pipeline.masking.names.lexicon import (
    COMMON_WORDS,
    DATA,
    ascii_form,
    listed_names,
    read_lines,
)
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    OTHER_LANGUAGES,
    STOP_WORDS,
    is_place_or_calendar,
    zipf,
)

#: A neighbour word this frequent in English (and no listed name) is a feature by identity.
CONTEXT_WORD_ZIPF = 3.5
HAS_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=65536)
def word_info(word: str) -> tuple[str, str, bool, bool, bool, int, int, bool]:
    """(folded word, shape, first-name listed, last-name listed, common word, English Zipf bin,
    other-languages Zipf bin, place or calendar word) of one token text, cached."""
    f = fold(word)
    firsts, lasts = listed_names()
    if len(word) <= 2 and word[:1].isupper() and word[1:] in ("", "."):
        shape = "init"
    elif word.isupper() and len(word) > 1:
        shape = "upper"
    elif word[:1].isupper():
        # a double-barrelled name is capitalised part by part ("Nakamura-Little")
        rest = "".join(p[1:] for p in word.split("-"))
        shape = "cap" if rest == rest.lower() else "mixed"
    elif word.islower():
        shape = "lower"
    else:
        shape = "other"
    bare = f.strip("'’.-")
    # a double-barrelled name is listed by its parts ("Marlow-Nowak", "Jean-Baptiste")
    parts = [bare, *(p for p in bare.split("-") if len(p) > 2)] if "-" in bare else [bare]
    parts += [a for p in parts if (a := ascii_form(p)) != p]  # "bolesław" listed as "boleslaw"
    return (
        f,
        shape,
        any(p in firsts for p in parts),
        any(p in lasts for p in parts),
        bare in COMMON_WORDS,
        _english_bin(bare) if len(bare) > 1 else 9,
        min(7, int(zipf(bare, OTHER_LANGUAGES))) if len(bare) > 1 else 9,
        is_place_or_calendar(bare),
    )


def _english_bin(bare: str) -> int:
    """The English Zipf bin of a folded word, or of its singular when the plural is too rare for
    the frequency list ("baggages", "carers"; names end in -s as often, but the list lacks only
    rare plurals of frequent nouns)."""
    z = zipf(bare, ("en",))
    if z == 0 and len(bare) > 4 and bare.endswith("s"):
        z = zipf(bare[:-2] if bare.endswith(("ses", "xes", "ches", "shes")) else bare[:-1], ("en",))
    return min(7, int(z))


@lru_cache(maxsize=65536)
def wordlike(text: str) -> bool:
    """Letters, and no digit or underscore."""
    return any(c.isalpha() for c in text) and HAS_DIGIT.search(text) is None and "_" not in text


@lru_cache(maxsize=65536)
def context_word(w: str) -> str:
    """A neighbour as a feature value: frequent vocabulary and punctuation by identity, other
    words by kind (``<name>`` listed, ``<Cap>``, ``<UP>``, ``<low>``), digits as ``<num>``."""
    if not wordlike(w):
        if HAS_DIGIT.search(w):
            return "<num>"
        return w[:3] if len(w) <= 3 else "<sym>"
    f, shape, first, last, _, zen, _, _ = word_info(w)
    # by its own frequency: a rare plural reads as its singular in ``zen``, but a feature
    # naming it would put a rare word in the model file
    frequent = zen >= CONTEXT_WORD_ZIPF and zen != 9 and zipf(f.strip("'’.-"), ("en",)) > 0
    if f in STOP_WORDS or (frequent and not (first or last)):
        return f
    if first or last:
        return "<name>"
    return {"cap": "<Cap>", "upper": "<UP>", "mixed": "<Cap>", "init": "<init>"}.get(shape, "<low>")


#: Occupations and roles written before a name (``data/roles.txt``), and the one-word person
#: labels.
ROLES = read_lines(DATA / "roles.txt") | {w for w in PERSON_LABELS if " " not in w}


def is_role(word: str) -> bool:
    """``word`` is an occupation or a role written before a name ("Producer", "holder",
    "Antragstellerin"): no part of the name, but no sign that the next word is one either."""
    return fold(word).strip(".,:;") in ROLES


_CAMEL_PART = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")


def tag_words(body: str) -> list[str]:
    """The words of a #tag's ``body`` as the floor reads them (a tag names a person as often as a
    topic: "#MarlowQuint", "#Quint"): its capitalised parts ("MarlowQuint" -> Marlow, Quint); a
    tag all in lower case only when it is a listed name as a whole ("#marlow"), since its words
    cannot be told apart ("#budgetnight"); none when it holds a digit or an underscore."""
    if HAS_DIGIT.search(body) or "_" in body or not wordlike(body):
        return []
    if body.islower():
        firsts, lasts = listed_names()
        return [body] if fold(body) in firsts or fold(body) in lasts else []
    return _CAMEL_PART.findall(body)
