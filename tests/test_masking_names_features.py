"""Issue #21: the name model's features of where a word stands (a chat line's speaker, a table's
header line and column, a word after a city) and the rules around the model (a name inside a
street line, lower-case words that no name list has). Each case is written so that it fails
when its mechanism is taken out. Every sentence and name is written for this test."""

from __future__ import annotations

import pytest

from agentic_pipeline.masking.csv_cells import csv_table
from agentic_pipeline.masking.names.features import TextFeatures, _csv_header
from agentic_pipeline.masking.names.model import load_model
from agentic_pipeline.masking.names.recognizer import DETECTOR, decide_persons, without_titles
from agentic_pipeline.masking.names.words import word_info
from agentic_pipeline.masking.vocabulary import english_compound, not_english, text_language


def _features(nlp, text: str, word: str) -> list[str]:
    tf = TextFeatures(text, nlp(text))
    i = tf.words.index(word)
    return tf.features(i)


@pytest.mark.parametrize(
    "text",
    [
        "[09:12] Oswy Quell: are we still on for the handover?",
        "2026-11-30 14:05 - Oswy Quell : the parcel left the depot",
        "9.05 pm Oswy Quell: on my way",
    ],
)
def test_the_speaker_of_a_time_stamped_chat_line_is_a_feature(nlp, text):
    assert "speaker" in _features(nlp, text, "Oswy")
    assert "speaker" in _features(nlp, text, "Quell")


def test_a_lower_case_listed_name_speaking_on_a_time_stamped_chat_line_is_a_candidate(nlp):
    text = "[21:03] yusra: running late, start without me\n[21:04] dorian: ok"
    tf = TextFeatures(text, nlp(text))
    speakers = {tf.words.index("yusra"), tf.words.index("dorian")}
    assert speakers <= set(tf.candidates())
    assert all("speaker" in tf.features(i) for i in speakers)
    # the same names in lower case inside a sentence are no candidates
    prose = "running late, yusra and i will start without dorian"
    tf = TextFeatures(prose, nlp(prose))
    assert tf.words.index("yusra") not in tf.candidates()


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("09:41 Meeting Room Four is booked: bring the slides", "Meeting"),
        ("12.50 Parking at Dock Road: paid by card", "Parking"),
        ("[08:00] Backup Job finished in 4 min", "Backup"),
    ],
)
def test_a_time_stamped_sentence_or_log_line_has_no_speaker(nlp, text, word):
    assert "speaker" not in _features(nlp, text, word)


def test_only_the_header_line_of_a_table_under_a_title_is_its_header(nlp):
    text = (
        "Volunteer Rota Export\n"
        "Volunteer,Shift,Station\n"
        "Oswy Quell,early,North Gate\n"
        "Tessaly Varno,late,Boathouse\n"
    )
    assert "csvheader" not in _features(nlp, text, "Rota")
    assert "csvheader" in _features(nlp, text, "Shift")
    tessaly = _features(nlp, text, "Tessaly")
    assert "csvheader" not in tessaly
    assert "csv=volunteer" in tessaly or "csv=<other>" in tessaly


@pytest.mark.parametrize(
    "text",
    [
        "Name,Team\nOswy Quell,Harbour\n",
        "Title line without commas\nName,Team\nOswy Quell,Harbour\nTessaly Varno,Depot\n",
        # one line of four after a header-like first line holds its comma: prose, no table
        "Hi all, quick one\nthe van is back\nkeys are in the box\nsee you, Oswy\nthanks\n",
        "Hi all, quick one\nthe van is back, keys in the box\nsee you, Oswy\nthanks\n",
    ],
)
def test_the_model_and_the_table_reader_agree_on_what_is_a_table(text):
    assert (_csv_header(text) is None) == (csv_table(text) is None)


def test_a_word_after_a_city_has_the_city_feature(nlp):
    assert "p1city" in _features(nlp, "Our flight lands at Eindhoven Tessaly at noon.", "Tessaly")
    assert "p1city" not in _features(nlp, "Our driver is Oswy Tessaly at noon.", "Tessaly")


def test_a_name_inside_a_street_line_is_part_of_the_street():
    text = "Deliver to Calle de Oswy Quell 45, bajo."
    street = (text.index("Calle"), text.index(","), "STREET_ADDRESS", 0.9, "StreetLine")
    person = (text.index("Oswy"), text.index(" 45"), "PERSON", 0.9, DETECTOR)
    assert decide_persons(text, [street, person]) == [street]


def test_a_name_above_a_phone_number_is_no_street():
    text = "Oswy Quell\n+44 20 7946 0321"
    street = (0, len(text), "STREET_ADDRESS", 0.9, "StreetLine")
    person = (0, text.index("\n"), "PERSON", 0.9, DETECTOR)
    assert person in decide_persons(text, [street, person])


def test_lower_case_words_no_name_list_has_are_a_person_only_after_a_person_label(nlp):
    model = load_model()
    weak = model.propagate - 0.01
    text = "plz verifyy the refund today"
    tf = TextFeatures(text, nlp(text))
    assert model.unlike_a_person(tf, 0, len("plz verifyy"), weak)
    labelled = "Cardholder: oswy quell"
    tf = TextFeatures(labelled, nlp(labelled))
    start = labelled.index("oswy")
    assert not model.unlike_a_person(tf, start, len(labelled), weak)


def test_a_double_barrelled_name_is_listed_and_capitalised_by_its_parts():
    _, shape, first, last, *_ = word_info("Vashti-Nowak")
    assert shape == "cap" and last  # "Nowak" is a listed surname, "Vashti" need not be
    _, shape, first, last, *_ = word_info("Oswy-Quell")
    assert shape == "cap" and not first and not last
    assert word_info("Check-In")[1] == "cap" and not any(word_info("Check-In")[2:4])


def test_a_person_label_before_its_colon_is_no_name_however_confident(nlp):
    model = load_model()
    text = "Payer: Oswy Quell"
    tf = TextFeatures(text, nlp(text))
    assert model.unlike_a_person(tf, 0, len("Payer"), 0.99)
    assert not model.unlike_a_person(tf, text.index("Oswy"), len(text), 0.99)


def test_capitals_under_a_label_only_a_person_fills_are_a_name(nlp):
    model = load_model()
    for label, kept in (("Nom", True), ("Nazwisko", True), ("Customer", False)):
        text = f"{label}: QUELLBRIDGE-TARVOSK"
        tf = TextFeatures(text, nlp(text))
        start = text.index("Q")
        assert model.unlike_a_person(tf, start, len(text), 0.99) is not kept, label


def _kept(text: str) -> str | None:
    """What of ``text``, read whole as a person span, ``without_titles`` keeps."""
    span = without_titles(text, (0, len(text), "PERSON", 0.9, DETECTOR))
    return None if span is None else text[span[0] : span[1]]


def test_a_person_span_loses_the_lower_case_words_at_its_edges_but_not_its_particles():
    kept = _kept
    assert kept("los papeles de Oswy Quell para") == "Oswy Quell"
    assert kept("van Tessaly Varno") == "Tessaly Varno"
    assert kept("Tessaly van der Quell") == "Tessaly van der Quell"
    assert kept("oswy quell") == "oswy quell"  # a name all in lower case stays whole


def test_a_title_a_name_list_has_leaves_the_span_when_seldom_a_given_name():
    """A salutation some name list has too ("Sayın", "Imam") is a title before a name when the
    given-name data records it seldom if at all; one that is a common given name ("Don") stays,
    since it may be the name."""
    kept = _kept
    assert kept("Sayın Oswy Quellbaran") == "Oswy Quellbaran"
    assert kept("Imam Tessaly Varno") == "Tessaly Varno"
    assert kept("Don Tessaly Varno") == "Don Tessaly Varno"


def test_an_english_closed_compound_that_no_list_has_is_a_feature(nlp):
    """ "Nightstand" splits into two frequent English words and wordfreq's small list lacks it: a
    product noun written closed; a listed name that splits ("Cantwell") has no such feature,
    nor a word the list has ("Keyboard") or one that splits into no two words ("Quellmark")."""
    assert english_compound("Nightstand") and english_compound("paperweight")
    assert not english_compound("Keyboard") and not english_compound("Quellmark")
    text = "Delivered: Nightstand (Oak, 2 drawers), shipped by Mara Cantwell"
    assert "encompound" in _features(nlp, text, "Nightstand")
    assert "encompound" not in _features(nlp, text, "Cantwell")


@pytest.mark.parametrize(
    "text, language",
    [
        ("Xin gửi lại cho tôi hóa đơn của tháng này nhé, cảm ơn anh", "vi"),
        ("Yarın sabah kargo ile gönderilecek, lütfen adresinizi kontrol edin", "tr"),
        ("Bitte schicken Sie mir die neue Rechnung bis morgen", "de"),
        ("Please send me the new invoice by tomorrow, thanks", None),
        ("Oswy Quell", None),  # too few words that start in lower case
    ],
)
def test_a_texts_language_is_read_from_its_lower_case_words(text, language):
    assert text_language(text.split()) == language


def test_a_word_of_a_texts_own_language_has_its_frequency_there_as_a_feature(nlp):
    """In a Vietnamese line, the lower-case "anh" ("you", to a man) has its Vietnamese frequency
    as a feature, a capitalised name none; in an English line no word has one."""
    text = "Oswy Quell gửi lời cảm ơn anh vì đã giúp đỡ trong tuần này"
    assert any(f.startswith("ztl=") for f in _features(nlp, text, "anh"))
    assert not any(f.startswith("ztl=") for f in _features(nlp, text, "Quell"))
    english = "Oswy Quell thanked the team for the help this week"
    assert not any(f.startswith("ztl=") for f in _features(nlp, english, "Quell"))


def test_a_capitalised_unlisted_word_has_its_frequency_in_a_word_language(nlp):
    """A capitalised word no name list has, opening a Spanish line, has its Spanish frequency as
    a feature; in a Vietnamese line (whose frequent words are names as often) it has none."""
    spanish = "Saludos cordiales desde la oficina de la calle mayor, con cariño para todos"
    assert text_language(spanish.split()) == "es"
    assert any(f.startswith("ztlcap=") for f in _features(nlp, spanish, "Saludos"))
    vietnamese = "Oswy Quell gửi lời cảm ơn anh vì đã giúp đỡ trong tuần này"
    assert not any(f.startswith("ztlcap=") for f in _features(nlp, vietnamese, "Oswy"))


def test_capitals_among_lower_case_words_are_told_from_a_line_in_capitals(nlp):
    """ "LAX" in a mixed-case line reads as a code; a word of a line all in capitals does not."""
    assert "upper|linelower" in _features(nlp, "Change of planes at LAX tomorrow", "LAX")
    assert "upper|lineupper" in _features(nlp, "SURNAME: QUELLMARK\nGIVEN: OSWY", "QUELLMARK")


def test_a_rare_plural_of_a_frequent_noun_has_the_nouns_frequency():
    """wordfreq's small list lacks rare plurals ("teaspoons"): the singular's bin stands in."""
    assert word_info("Teaspoons")[5] >= 3 and word_info("Quellmarks")[5] == 0


def test_capitals_in_brackets_that_abbreviate_the_words_before_are_no_name():
    """Schwartz and Hearst's test: each letter found in order in the words before the bracket,
    the first at a word's start; a listed name among those words makes them a person's
    initials."""
    from agentic_pipeline.masking.names.layout import abbreviation_in_brackets

    def abbreviates(text: str, short: str) -> bool:
        i = text.index(f"({short})") + 1
        return abbreviation_in_brackets(text, i, i + len(short))

    assert abbreviates("a stopover in Quellport Harbour (QPH) tonight", "QPH")
    assert abbreviates("ask the Records Retention Office (RRO) first", "RRO")
    assert not abbreviates("signed by Hana Lee (HL) today", "HL")
    assert not abbreviates("flying from Quellport (ZRH) today", "ZRH")
    assert not abbreviates("the Records Office (rro)", "rro")
    assert abbreviates("the Human Resources (HR) team", "HR")
    assert not abbreviates("shipped from logistics (LI) today", "LI")  # two letters: initials


def test_a_text_in_a_language_without_a_word_list_is_foreign_and_english_is_not():
    """Basque and Welsh have no word list here (``text_language`` names neither); fewer than a
    quarter of their longer lower-case words are English ones, so the text is foreign; an
    English note and a short line are not."""
    basque = "Gaur goizean bilera izan dugu eta hurrengo asteko egutegia adostu dugu denon artean"
    welsh = "Bydd y cyfarfod nesaf yn cael ei gynnal yn y neuadd ar ôl y gwasanaeth bore dydd Sul"
    english = "We met this morning and agreed on the schedule for the next two weeks with everyone"
    assert text_language(basque.split()) is None and not_english(basque.split())
    assert not_english(welsh.split())
    assert not not_english(english.split()) and not not_english("ok see you".split())


def test_a_name_with_letters_unicode_does_not_decompose_is_listed_by_its_latin_form():
    """Name lists drawn from ASCII sources write "ł", "ø" and "đ" as "l", "o" and "d": a
    Polish or Serbian given name written with them is listed all the same."""
    for word in ("Mirosław", "Wiesław", "Đorđe"):
        assert word_info(word)[2], word
    assert not word_info("Łódź")[2]
