"""Where a span stands in a text's layout (``names.layout``): the key of a form's field and the
title line above a form are no person when the name model also says so, whatever their language;
a chat's speakers and a name heading a record stay. Entities are set by hand on real spaCy
documents; every sentence and word here is written for this test."""

from __future__ import annotations

from name_docs import BLIND as _BLIND
from name_docs import person_doc as _doc
from name_docs import spans_found as _found

from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.floor import non_person_signal
from agentic_pipeline.masking.names.layout import (
    chat_speaker_values,
    form_heading,
    form_key,
    greeted,
    phone_list_keys,
)
from agentic_pipeline.masking.names.model import NameModel, default_model

#: A model that calls every candidate word a name.
_EAGER = NameModel(weights={}, intercept=12.0, threshold=0.3, propagate=0.85, veto=0.3)

_FORM = (
    "Pieteikums peldbaseina abonementam\n"
    "Pieteicējs: Ilgvars Strautkalns\n"
    "Dzimšanas datums: 14.09.1983\n"
    "Tālrunis: +371 2940 7715\n"
    "Adrese: Lāčplēša iela 88-4, Rēzekne"
)


def _signal(nlp, text: str, span: str) -> str | None:
    start = text.index(span)
    doc = _doc(nlp, text, span)
    return non_person_signal(TextFeatures(text, doc), start, start + len(span))


def test_a_forms_field_key_in_any_language_is_no_person(nlp):
    start = _FORM.index("Pieteicējs")
    assert form_key(_FORM, start, start + len("Pieteicējs"))
    assert _signal(nlp, _FORM, "Pieteicējs") == "form-key"
    assert _found(_BLIND, _FORM, _doc(nlp, _FORM, "Pieteicējs")) == []


def test_markdown_keys_of_an_agents_summary_make_a_form(nlp):
    """An agent's Markdown summary: keys in bold, a key in a nested bullet; the model puts the
    key below its propagation bar and no name list has it, so it is no person."""
    text = (
        "Done, here is the summary:\n- **Booking:** QWERTZ\n- **Fare:** Economy\n- **Legs:**\n"
        "  - Onward: Flight QA118 from BOS to DEN on June 3 at noon\n"
        "  - Voucher 1: $39\n  - Voucher 2: $201\n- **Total:** $240"
    )
    start = text.index("Onward")
    assert form_key(text, start, start + len("Onward"))
    assert form_key(text, text.index("Fare"), text.index("Fare") + 4)
    assert _found(_BLIND, text, _doc(nlp, text, "Onward")) == []


def test_a_forms_title_line_is_no_person(nlp):
    title = "Pieteikums peldbaseina"
    assert form_heading(_FORM, 0, len(title))
    assert _signal(nlp, _FORM, title) == "heading"
    assert _found(_BLIND, _FORM, _doc(nlp, _FORM, title)) == []


def test_the_value_of_a_field_is_no_key():
    start = _FORM.index("Ilgvars")
    assert not form_key(_FORM, start, start + len("Ilgvars Strautkalns"))


def test_a_chats_speakers_stay_when_they_come_back(nlp):
    text = (
        "Wennemar: kannst du die Kinder heute von der Schule holen?\n"
        "Tjorven: ja\n"
        "Wennemar: danke, dann gehe ich nach der Arbeit einkaufen"
    )
    assert not form_key(text, 0, len("Wennemar"))
    assert _found(_BLIND, text, _doc(nlp, text, "Tjorven")) == ["Tjorven"]


def test_speakers_of_one_line_each_stay_when_their_lines_are_sentences(nlp):
    text = (
        "Oheim: ich bringe morgen den großen Kuchen für das ganze Fest mit\n"
        "Jelka: super, dann kaufe ich die Getränke und noch ein paar Becher\n"
        "Smilla: ich komme leider erst spät am Abend nach der Arbeit"
    )
    start = text.index("Jelka")
    assert not form_key(text, start, start + len("Jelka"))
    assert _found(_BLIND, text, _doc(nlp, text, "Jelka")) == ["Jelka"]


def test_a_name_heading_a_record_stays_when_the_model_reads_a_name(nlp):
    text = "Brīvis Ozolkalns\nDzimis: 02.02.1977\nTālrunis: +371 2811 6043\nNodaļa: kardioloģija"
    doc = _doc(nlp, text, "Brīvis Ozolkalns")
    assert form_heading(text, 0, len("Brīvis Ozolkalns"))
    assert "Brīvis Ozolkalns" in _found(_EAGER, text, doc)
    assert _found(_BLIND, text, doc) == []  # the model's say decides: no name, no mask


def test_a_nickname_greeted_at_a_messages_start_keeps_the_floor(nlp):
    # a nickname that is a word of the text's language, after a greeting and before a comma
    text = "Oi Beto,\nte mando amanhã os documentos da casa nova."
    doc = _doc(nlp, text, "Oi Beto")
    assert greeted(text, 0, len("Oi Beto")) == len("Oi ")
    assert _found(_BLIND, text, doc) == ["Oi Beto"]  # the recognizer leaves the greeting out


def test_an_english_word_greeted_stays():
    for text, span in (("Dear Customer,\nyour parcel", "Customer"), ("Hello World!", "World")):
        start = text.index(span)
        assert greeted(text, start, start + len(span)) is None


def test_a_phone_list_of_people_keeps_its_unlisted_names(nlp):
    """A phone list's keys are people or roles. When the model reads one key as a person,
    spaCy's other one-word names there are people too, listed or not; a list of roles alone
    keeps its keys, as a form does."""
    people = "Rufnummern:\nGundula: 0176 4410 2297\nZbyszko: 0157 3302 8841\nPforte: 089 412 0077"
    assert [people[s:e] for s, e in phone_list_keys(people)] == ["Gundula", "Zbyszko", "Pforte"]
    doc = _doc(nlp, people, "Gundula", "Zbyszko")
    assert _found(default_model(), people, doc) == ["Gundula", "Zbyszko"]
    roles = "Telefony:\nKsięgarnia: 61 822 40 10\nPortiernia: 61 822 40 11\nKadry: 61 822 40 19"
    doc = _doc(nlp, roles, "Księgarnia", "Portiernia")
    assert _found(default_model(), roles, doc) == []


def test_a_time_stamped_chats_speakers_are_names_even_when_they_are_words():
    """Where a listed given name speaks in a time-stamped chat, every speaker is a person: a
    nickname that is also a word ("Sunny", "Bay") when it speaks twice; a system's or a bot's
    line stays, and so does a log's levels (no given name speaks)."""
    chat = (
        "[4/2/27, 7:41 PM] Sunny: anyone seen my blue scarf\n"
        "[4/2/27, 7:42 PM] Cosimo: check the car\n"
        "[4/2/27, 7:44 PM] Sunny: found it, ty\n"
        "[4/2/27, 7:45 PM] System: Cosimo changed the group photo"
    )
    log = "[07:41] Error: queue full\n[07:42] Warning: retrying\n[07:43] Error: queue full"
    found = [chat[a:b] for a, b in chat_speaker_values(chat)]
    assert sorted(set(found)) == ["Cosimo", "Sunny"] and len(found) == 3
    assert chat_speaker_values(log) == []
    assert chat_speaker_values(chat.replace("Cosimo", "Nightly")) == []  # no given name
