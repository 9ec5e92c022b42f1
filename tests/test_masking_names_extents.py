"""Where a person's name ends: an organisation word ends it ("<NAME> - Bakery <NAME>": the
bakery's name is no person), a particle or a lower-case word neither ends nor starts one, and a
span of lower-case vocabulary below the propagation bar is no person (issue #21: words masked).

Entities are set by hand on real spaCy documents, as in ``test_masking_names_floor.py``; every
sentence and name is written for this test."""

from __future__ import annotations

import pytest
from name_docs import BLIND as _BLIND
from name_docs import person_doc as _doc
from name_docs import spans_found as _found

from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.floor import (
    non_person_signal,
    organisation_before,
    organisation_word,
    person_extents,
)
from agentic_pipeline.masking.names.model import NameModel

#: Every probability 0.5: above the masking bar, below the propagation bar.
_MIDDLING = NameModel(weights={}, intercept=0.0, threshold=0.3, propagate=0.85, veto=0.3)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Klinik", True),
        ("Tierklinik", True),  # a compound ending in an organisation word
        ("Tanzschule", True),
        ("Ecole", True),  # accents aside ("école")
        ("Ltd.", True),
        ("Fairbank", False),  # "bank" is too short to end a compound
        ("Ingolf", False),
    ],
)
def test_organisation_words(word, expected):
    assert organisation_word(word) is expected


def test_an_organisation_word_before_a_span_makes_it_the_organisation_s_name():
    text = "Thanks to Bäckerei Holmgaard and Stiftung zur Kessing for the cake."
    assert organisation_before(text, text.index("Holmgaard"))
    assert organisation_before(text, text.index("Kessing"))  # stop words between
    assert not organisation_before(text, text.index("Bäckerei"))
    assert not organisation_before("Bäckerei, Holmgaard", len("Bäckerei, "))  # a mark parts them
    # a legal form that is also a lower-case word ("AS", "as") counts only capitalised
    text = "It rained, just as Ingolf Kessing said."
    assert not organisation_before(text, text.index("Ingolf"))


def test_a_spacy_person_after_an_organisation_word_is_no_person(nlp):
    text = "The order went to Colegio Bertil Ulvestad on Monday."
    doc = _doc(nlp, text, "Bertil Ulvestad")
    assert non_person_signal(TextFeatures(text, doc), *_at(text, "Bertil Ulvestad")) == "company"
    assert _found(_BLIND, text, doc) == []


def test_a_span_is_cut_at_its_organisation_word(nlp):
    text = "Ingolf Kessing - Tierklinik Ulvestad"
    assert _found(_BLIND, text, _doc(nlp, text, text)) == ["Ingolf Kessing"]
    # a span it ends after a space is a company's name; words after it leave the words before
    # it to be judged alone
    text = "Ingolf Kessing Holdings"
    assert person_extents(text, [(0, len(text), 0.9)]) == []
    text = "Ingolf Kessing Holdings Staff"
    assert person_extents(text, [(0, len(text), 0.9)]) == [(0, 14, 0.9)]


def test_a_span_ends_before_a_field_s_label():
    """A key of personal data ("DOB", "Phone", "Surname") that ends a span is the next field's
    label, no part of the name."""
    text = "Ingolf Kessing DOB"
    assert person_extents(text, [(0, len(text), 0.9)]) == [(0, 14, 0.9)]
    text = "Ingolf Kessing Geburtsdatum"
    assert person_extents(text, [(0, len(text), 0.9)]) == [(0, 14, 0.9)]
    text = "Ingolf Kessing Surname"
    assert person_extents(text, [(0, len(text), 0.9)]) == [(0, 14, 0.9)]
    text = "Ingolf Kessing"
    assert person_extents(text, [(0, len(text), 0.9)]) == [(0, 14, 0.9)]


def test_particles_and_lower_case_words_at_a_span_s_edges_are_no_part_of_the_name(nlp):
    text = "Our teacher Brunhilde Eskeland von der Tanzschule Rheinblick was proud."
    doc = _doc(nlp, text, "Brunhilde Eskeland von der", "Tanzschule Rheinblick")
    assert _found(_BLIND, text, doc) == ["Brunhilde Eskeland"]
    text = "so happy for Ingolf today"
    assert _found(_BLIND, text, _doc(nlp, text, "for Ingolf")) == ["Ingolf"]
    text = "Mr van Kessing called."
    assert person_extents(text, [(3, 14, 0.9)]) == [(3, 14, 0.9)]  # a particle starts one


def test_lower_case_vocabulary_below_the_propagation_bar_is_no_person(nlp):
    text = "Trabajamos juntos durante dos veranos en el taller."
    assert not [s for s in _found(_MIDDLING, text, _doc(nlp, text, "durante dos")) if s.islower()]
    text = "Paciente: durante"  # after a person label it is one
    assert _found(_MIDDLING, text, _doc(nlp, text, "durante")) == ["durante"]
    text = "ring tía durante tonight"  # and after a title or kinship word
    assert any("durante" in f for f in _found(_MIDDLING, text, _doc(nlp, text, "durante")))


def _at(text: str, value: str) -> tuple[int, int]:
    start = text.index(value)
    return start, start + len(value)
