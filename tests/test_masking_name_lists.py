"""The name lists beyond Faker's: the given names of many countries (nomquamgender's data) and
the surnames of the US census (the ``names`` package's data), without frequent words; and the
fast vocabulary check that filters them."""

from __future__ import annotations

import pytest

from agentic_pipeline.masking.names.lexicon import (
    _census_surnames,
    _given_names,
    listed_names,
)
from agentic_pipeline.masking.vocabulary import is_vocabulary, vocabulary_of


@pytest.mark.parametrize("name", ["yusra", "zinovia", "eulalie", "solenne"])
def test_given_names_of_many_countries_are_listed(name):
    firsts, _ = listed_names()
    assert name in _given_names()
    assert name in firsts


@pytest.mark.parametrize("name", ["thackeray", "quimby", "winterbottom"])
def test_census_surnames_are_listed(name):
    _, lasts = listed_names()
    assert name in _census_surnames()
    assert name in lasts


def test_frequent_words_of_the_data_sets_stay_words():
    """The research data set lists "the" and "hope" as given names; a frequent word of a main
    European language that Faker does not list as a name is left out."""
    firsts, lasts = listed_names()
    assert {"the", "hope"} <= _given_names().keys()
    assert "the" not in firsts and "hope" not in firsts
    assert "bed" not in _given_names()  # too few sources: noise of the data set is left out


def test_a_rarer_word_is_a_name_only_when_it_is_a_frequent_name():
    """A word of Zipf 3 to 4 ("jetty", "cellar") that the data sets list as a name is no name;
    one that is a frequent name there ("archie") is."""
    firsts, lasts = listed_names()
    assert "jetty" in _given_names() and "cellar" in _census_surnames()
    assert "jetty" not in firsts and "cellar" not in lasts
    assert "archie" in firsts


def test_a_frequent_census_surname_that_is_a_word_joins_a_masked_first_name_only():
    from agentic_pipeline.masking.names.lexicon import listed_name, surnames_after_a_first_name

    assert not listed_name("sterling")
    assert "sterling" in surnames_after_a_first_name()


def test_vocabulary_of_agrees_with_is_vocabulary():
    words = ["kitchen", "fenster", "gracias", "zinovia", "quimby", "maison", "a", "ordinateur"]
    assert vocabulary_of(words) == {w for w in words if is_vocabulary(w)}


def test_a_frequent_given_name_that_is_a_word_joins_a_masked_name_only():
    """ "Lucky", "Blessing" are words (not listed alone) and frequent given names: right before a
    masked name they are its first name; a modal verb as frequent as "will" never is."""
    from agentic_pipeline.masking.names.lexicon import given_names_before_a_name, listed_name

    assert not listed_name("lucky") and not listed_name("blessing")
    assert {"lucky", "blessing"} <= given_names_before_a_name()
    assert "will" not in given_names_before_a_name()


def test_a_given_name_before_a_masked_surname_is_masked_with_it():
    from conftest import masked_cells

    from agentic_pipeline.masking import Masker

    with Masker(key="given-before-test-key-0123456789abcdef", n_workers=1) as m:
        (out,) = masked_cells(m, ("user", "Lucky Adebanjo-Ukwu rang about the grout order."))
    assert "Lucky" not in out and "Adebanjo" not in out
    assert out.endswith(" rang about the grout order.")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Nwachinemere, Ifeoma T. — bed 4, seen 08:10", "— bed 4, seen 08:10"),
        ("Thanks, Ifeoma! See you at eight.", "Thanks, "),
        ("Enugu, Ifeoma and I will call you.", "Enugu, "),
    ],
)
def test_a_surname_written_first_before_a_masked_first_name(text, kept):
    """ "<Surname>, <First>" at a line's start: the surname is masked with the first name; a word
    or a city before the comma is none."""
    from conftest import masked_cells

    from agentic_pipeline.masking import Masker

    with Masker(key="surname-first-test-key-0123456789abcdef", n_workers=1) as m:
        (out,) = masked_cells(m, ("user", text))
    assert "Ifeoma" not in out and kept in out
    assert "Nwachinemere" not in out


def test_names_are_listed_without_their_accents_unless_that_is_a_word():
    firsts, lasts = listed_names()
    for accented in ("bączkiewicz", "demiańczuk", "dostálová"):
        assert accented in firsts | lasts
    assert {"baczkiewicz", "demianczuk", "dostalova"} <= firsts | lasts
    assert "bar" not in lasts and "bar" not in firsts  # an unaccented form that is a word
