"""Issue #12, point 1 (streets), by class of miss seen on outsider-written text, each on
hand-made text of the same shape (not the corpus's values): French street lines that ran on into
the sentence, street names with a separate street-type word, postcodes after a two-letter region.
(The person-name precision cases live in ``test_masking_names.py``.)"""

from __future__ import annotations

from agentic_pipeline.masking.detectors.patterns import StreetLineRecognizer


def _found(rec, text: str, entity: str) -> list[str]:
    """Distinct values found (several street families may report the same line)."""
    return sorted({text[r.start : r.end] for r in rec.analyze(text, []) if r.entity_type == entity})


def test_french_street_lines_stop_at_lower_case_words():
    rec = StreetLineRecognizer()
    text = "It refers to 12 Rue de Brévin street in Sfax, on this street."
    assert _found(rec, text, "STREET_ADDRESS") == ["12 Rue de Brévin"]
    text = "Send it to 65 Rue de l'Etoile Noire, Cite Patis"
    assert _found(rec, text, "STREET_ADDRESS") == ["65 Rue de l'Etoile Noire"]


def test_street_type_word_standing_alone_and_region_postcodes():
    rec = StreetLineRecognizer()
    assert _found(rec, "Address: Kieler Platz 23, Caan", "STREET_ADDRESS") == ["Kieler Platz 23"]
    assert _found(rec, "It is at Oude Baan 47", "STREET_ADDRESS") == ["Oude Baan 47"]
    assert _found(rec, "Jan Smit\nHaaren NB 5076 PB\n", "ZIP_CODE") == ["5076 PB"]
    assert _found(rec, "x\n  Pécs BA 7755", "ZIP_CODE") == ["7755"]
    assert _found(rec, "I bought Model XR 2000 yesterday", "ZIP_CODE") == []


def test_a_whole_address_line_is_a_street_even_with_vocabulary_words():
    rec = StreetLineRecognizer()
    text = "The parcel went to Libertad 4410, Villa Nueva, 30565 today."
    assert _found(rec, text, "STREET_ADDRESS") == ["Libertad 4410"]
    assert _found(rec, "It was May 27, Paris, 2024", "STREET_ADDRESS") == []
    assert _found(rec, "Size 10, Blue, 4400", "STREET_ADDRESS") == []
