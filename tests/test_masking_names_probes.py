"""Fresh probes of the name model's known errors (issue #21, point 4): capitalised nouns of other
European languages taken for names, spaCy's organisation or place label on a person named in a
post, product words and chat abbreviations kept by the floor, and names after a clinical or
banking abbreviation, in capitals, or after a role word.

Every sentence and name here is invented for this test; none comes from a development corpus."""

from __future__ import annotations

import json

import pytest
from conftest import masked_user_texts

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names.build import _nlp
from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.floor import non_person_signal


@pytest.fixture(scope="module")
def masker():
    m = Masker(key="test-key-names-probes", n_workers=1)
    yield m
    m.close()


def _masked(masker, *texts: str) -> str:
    return json.dumps(masked_user_texts(masker, *texts), ensure_ascii=False)


def _leaked(masked: str, *words: str) -> list[str]:
    return [w for w in words if w in masked]


def _lost(masked: str, *words: str) -> list[str]:
    return [w for w in words if w not in masked]


# ------------------------------------------------------- nouns of other European languages stay
@pytest.mark.parametrize(
    "text, words",
    [
        (
            "Die Bestellung wurde gestern verschickt, die Rechnung folgt per Post.",
            ["Bestellung", "Rechnung"],
        ),
        ("Votre Commande est en route, merci pour votre Confiance.", ["Commande", "Confiance"]),
        ("La Fattura è stata inviata, grazie per la Collaborazione.", ["Fattura"]),
        ("Uw Levering is onderweg, de Factuur volgt per Mail.", ["Factuur"]),
        ("Su Factura está lista y la Entrega llega mañana.", ["Factura", "Entrega"]),
    ],
)
def test_capitalised_nouns_of_other_european_languages_stay(masker, text, words):
    assert _lost(_masked(masker, text), *words) == []


def test_a_name_among_german_nouns_still_goes(masker):
    out = _masked(masker, "Die Rechnung geht an Frau Henrike Obermaier-Lutz, Abteilung Einkauf.")
    assert _leaked(out, "Henrike", "Obermaier") == []
    assert _lost(out, "Rechnung", "Abteilung") == []


# ------------------------------------------------------- spaCy's organisations and places
def test_places_spacy_labels_stay(masker):
    out = _masked(
        masker,
        "We spent a week in Paris and loved it.",
        "Our offices are in Munich, Bavaria and in Austin, TX.",
    )
    assert _lost(out, "Paris", "Bavaria", "Austin") == []


def test_a_two_word_bank_after_a_preposition_stays(masker):
    out = _masked(masker, "My paycheck lands at Harrow Fargo on Fridays.")
    assert _lost(out, "Harrow Fargo") == []


def test_a_person_spacy_calls_a_place_in_a_post_goes(masker):
    """An unlisted name that spaCy calls a place, in a post, is a person by its context. A known
    miss until the model of feature version 18 (the world's name lists), and again from
    fresh-blind-13's joining the training (names-f26, probability 0.24 under the bar of 0.30) to
    names-f30 (0.48: word endings as features, fresh-blind-22 in the training)."""
    assert _leaked(_masked(masker, "so proud of Kaelani tonight, what a goal!!"), "Kaelani") == []


def test_the_entity_floor_judges_one_word_organisations_and_places_by_the_model():
    """The entity floor (off in the shipped model, measured in docs/names.md): a spaCy place or
    organisation entity of one word is a person when the model reaches the floor's bar and no
    signal says otherwise; one with a signal stays. The model's own bar is set out of reach, so
    that only the entity floor can find the name, whatever the shipped model learnt of it."""
    import dataclasses

    from agentic_pipeline.masking.names import default_model

    shipped = default_model()
    assert shipped.entity_floor is None
    text = "so proud of Vastrid tonight, what a goal!! Then on to Paris and the IBM office."
    doc = _nlp()(text)
    labels = {e.text: e.label_ for e in doc.ents}
    assert labels.get("Vastrid") in {"GPE", "LOC", "ORG", "NORP", "FAC"}, labels
    blind = dataclasses.replace(shipped, threshold=0.9999, extend=None)
    assert "Vastrid" not in [text[s:e] for s, e, _ in blind.spans(text, doc)]
    on = dataclasses.replace(blind, entity_floor=0.05)  # names-f30-deed5263a3: about 0.07
    found = [text[s:e] for s, e, _ in on.spans(text, doc)]
    assert "Vastrid" in found and "Paris" not in found and "IBM" not in found


# ------------------------------------------------------- false persons of the floor
@pytest.mark.parametrize(
    "text, words",
    [
        ("Check the Provider Directory before booking.", ["Provider Directory"]),
        ("Lic renewed on file for the plumber.", ["Lic"]),
        ("Bestsellers: Vacuum Cleaner, Glass Pitcher, Rice Cooker", ["Vacuum Cleaner", "Glass"]),
        ("pls chek it nw my card nt wrkng", ["pls chek"]),
    ],
)
def test_product_words_abbreviations_and_chat_words_stay(masker, text, words):
    assert _lost(_masked(masker, text), *words) == []


@pytest.mark.parametrize(
    "text, span, signal",
    [
        ("pls chek it nw my card nt wrkng", "pls chek", "lower"),
        ("Lic renewed on file for the plumber.", "Lic", "short"),
        ("Die Bestellung wurde gestern verschickt.", "Die Bestellung", "vocabulary"),
    ],
)
def test_non_person_signals_of_chat_words_abbreviations_and_foreign_articles(text, span, signal):
    doc = _nlp()(text)
    start = text.index(span)
    assert non_person_signal(TextFeatures(text, doc), start, start + len(span)) == signal


def test_a_lower_case_listed_name_and_a_short_listed_name_carry_no_such_signal():
    for text, span in (("ok ask maria about it", "maria"), ("Ask Ida about it", "Ida")):
        doc = _nlp()(text)
        start = text.index(span)
        assert non_person_signal(TextFeatures(text, doc), start, start + len(span)) is None


# ------------------------------------------------------- missed names
@pytest.mark.parametrize(
    "text, names",
    [
        ("Pt Zolani Abernathy-Quist presented with a cough.", ["Zolani", "Abernathy"]),
        ("my nurse Ottilie changed the dressing this morning", ["Ottilie"]),
        ("ACH CREDIT FROM DESMOND VANTERPOOL PAYROLL", ["DESMOND", "VANTERPOOL"]),
    ],
)
def test_names_after_abbreviations_role_words_and_in_capitals_go(masker, text, names):
    assert _leaked(_masked(masker, text), *names) == []


def test_a_name_in_capitals_after_a_payment_brand_goes(masker):
    """Read by its parts, a double-barrelled surname in capitals is a listed name."""
    out = _masked(masker, "ZELLE TO MARGUERITE ADEKUNBI-ROSS 03/14 -60.00")
    assert _leaked(out, "MARGUERITE", "ADEKUNBI") == []


def test_foreign_words_teach_the_model_vocabulary_around_kept_names():
    from agentic_pipeline.masking.names.augment import LabelledText, foreign_words
    from agentic_pipeline.masking.names.lexicon import listed_name

    text = "Please ask Rosalind Whitcombe to sign the form by Monday."
    a = text.index("Rosalind Whitcombe")
    item = LabelledText(text, [(a, a + 18, "PERSON")], "x", "d0")
    (out,) = foreign_words([item], "x", frozenset({"PERSON"}))
    ((s, e, kind),) = out.spans
    assert out.text[s:e] == "Rosalind Whitcombe" and kind == "PERSON"
    others = (out.text[:s] + out.text[e:]).split()
    assert others and not any(w in text.split() for w in others)
    assert not any(listed_name(w.strip(".,")) for w in others)
    assert others[0][0].isupper()  # the letter case of the word it replaced
