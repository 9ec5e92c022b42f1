"""The parts of a name joined to what the name model masks (``names.joins``): particles between
and before a name's words, a first name after a surname written first, the halves of an
airline's ``SURNAME/GIVEN``; and the salutations of more European languages kept. The names are
invented for these tests."""

from __future__ import annotations

import pytest

KEY = "name-joins-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def masker():
    from agentic_pipeline.masking import Masker

    with Masker(key=KEY, n_workers=1) as m:
        yield m


@pytest.fixture
def _masked(masker):
    from conftest import masked_cells

    return lambda *texts: masked_cells(masker, *(("user", t) for t in texts))


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        (
            "Paciente: Remedios del Olmo Garaikoetxea, 71 años.",
            ["Remedios", " del ", "Garaikoetxea"],
            ", 71 años.",
        ),
        (
            "Aanmelding zwemclub\nvan der Plasschaert-Wiemers\nGroep B, dinsdag",
            ["van der", "Plasschaert"],
            "Groep B, dinsdag",
        ),
        (  # the first particle capitalised at the head of the line
            "Van der Spuy, Retha\nGroep C, woensdag",
            ["Van der", "Spuy", "Retha"],
            "Groep C, woensdag",
        ),
    ],
)
def test_name_particles_are_masked_with_the_name(text, gone, kept, _masked):
    (out,) = _masked(text)
    assert not any(g in out for g in gone), out
    assert kept in out


def test_a_particle_after_an_ordinary_word_stays(_masked):
    out = _masked(
        "Ayer leí el libro de Marisol Echegaray en el tren.",
        "Bericht van Anna Jansen over de planning.",
    )
    assert "Marisol" not in out[0] and "Echegaray" not in out[0]
    assert "el libro de " in out[0]
    assert out[1].startswith("Bericht van <PERSON_") and "Jansen" not in out[1]


def test_a_first_name_after_a_surname_written_first_is_masked(_masked):
    out = _masked(
        "Clinic list - Tue pm\n14:00 Quennell, Avelina (new patient)\n14:20 Ostrowe, Benedikt",
        "2 PATIENT NAME: ADEMIRIN, TOLUWANI\n3 PATIENT DOB: 03 11 1966",
    )
    for name in ("Quennell", "Avelina", "Ostrowe", "Benedikt", "ADEMIRIN", "TOLUWANI"):
        assert not any(name in o for o in out), name
    assert "(new patient)" in out[0]


def test_a_surname_first_after_an_id_at_a_list_lines_head_is_masked(_masked):
    """A provider roster's list: a bullet and an id, then "<SURNAME>, <GIVEN>" in capitals."""
    (out,) = _masked(
        "provider roster export:\n  - 1234567893 HALLGARTH, DULCINEA\n"
        "  - 1245319599 QUARRINGTON, ROSWITHA"
    )
    for name in ("HALLGARTH", "DULCINEA", "QUARRINGTON", "ROSWITHA"):
        assert name not in out, out


def test_a_surname_written_before_a_first_name_without_a_comma_is_masked(_masked):
    """A list of names surname first with no comma ("<Surname> <Given> — <phone>"): the word
    before a masked listed first name at the head of its line joins it, even a word of the
    list's language; a verb of an English line before a name stays."""
    volunteers, note = _masked(
        "Список волонтерів\nКовзаренко Тарас — +380 67 318 4402\nМірошник Ірина — +380 50 742 9931",
        "Call Tamsin — she has the keys",
    )
    for name in ("Ковзаренко", "Тарас", "Мірошник", "Ірина"):
        assert name not in volunteers, volunteers
    assert note.startswith("Call <PERSON_"), note


def test_a_lower_case_title_with_its_period_is_a_title_feature(nlp):
    from agentic_pipeline.masking.names.features import TextFeatures

    text = "Behandelaar: dr. Quellmoor\nPraktijk Zuid"
    tf = TextFeatures(text, nlp(text))
    i = tf.words.index("Quellmoor")
    assert "p1title" in tf.features(i)


def test_both_halves_of_an_airline_passenger_name_are_masked(_masked):
    (out,) = _masked("[planner] passenger: WINTERBOURNE/ISOLDE MS, seat 14C, fare class Y")
    assert "WINTERBOURNE" not in out and "ISOLDE" not in out
    assert "seat 14C, fare class Y" in out


@pytest.mark.parametrize(
    ("text", "word", "name"),
    [
        ("Dobrý den, tady Radovan Křepelka z Olomouce.", "Dobrý", "Křepelka"),
        ("Bună ziua, sunt Sorina Vlădărean de la recepție.", "Bună", "Vlădărean"),
    ],
)
def test_greetings_of_more_european_languages_stay(text, word, name, _masked):
    (out,) = _masked(text)
    assert out.startswith(word) and name not in out


@pytest.mark.parametrize(
    "text",
    [
        'Tenant: Rosalba "Bibi" Quartermaine-Oduya, Premises: flat 3',
        "Vandaag afscheid van onze buurvrouw Hendrika 'Riek' Zomerdijk (91).",
    ],
)
def test_a_nickname_in_quotes_is_masked_with_the_name_around_it(text, _masked):
    (out,) = _masked(text)
    for part in ("Rosalba", "Bibi", "Quartermaine", "Hendrika", "Riek", "Zomerdijk"):
        assert part not in out, out


def test_a_quoted_word_beside_no_name_stays(_masked):
    (out,) = _masked("I love the 'Biscuit' brand of dog treats.")
    assert out == "I love the 'Biscuit' brand of dog treats."


def test_the_display_names_of_a_chat_export_are_masked_and_a_day_stays(_masked):
    (out,) = _masked(
        "Brightwell, Oyinda  3:14 PM\nCan someone sign off the rota?\n"
        "Haddad, Samir  3:16 PM\non it\nYesterday 11:51 PM\nthanks all"
    )
    for name in ("Brightwell", "Oyinda", "Haddad", "Samir"):
        assert name not in out, out
    assert "Yesterday 11:51 PM" in out and "3:14 PM" in out


def test_a_product_version_or_a_meeting_before_a_time_is_no_chat_header(_masked):
    text = "Upgraded to Python 3.11\nStandup 9:30 AM\nUbuntu 22.04\nall green"
    (out,) = _masked(text)
    assert out == text


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Patient: Çelikkaya, Ayşegül", ("Çelikkaya", "Ayşegül")),
        ("From: Kılıçoğlu, Barış", ("Kılıçoğlu", "Barış")),
    ],
)
def test_turkish_names_written_surname_first_stay_masked(_masked, text, names):
    """Turkish is not among the languages whose words are vocabulary for the floor: many of its
    given names and surnames are its words and in no name list."""
    (out,) = _masked(text)
    assert not any(n in out for n in names), out


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "Ward 3 Bed 2 — Kestlebury, Juliet (MRN 0048812), post-op day 1",
            ["Kestlebury", "Juliet"],
        ),
        ("| Resident | Drug |\n|---|---|\n| Quaresma, Ermelinda | Lisinopril 10mg |", ["Quaresma"]),
        ("Ines Vidal-Ramos and Anna-Lena Berg met at the stand.", ["Vidal", "Ramos", "Lena"]),
        ("Adoption form\nOrla Fitzmaurice-Quennell\nRiverside Shelter", ["Quennell"]),
        ("WARD 4\nBed 2  HARGREAVE, Thomas J.  MRN 0071234", ["HARGREAVE", "Thomas"]),
    ],
)
def test_surnames_first_after_a_dash_or_bar_and_hyphenated_halves_are_masked(_masked, text, names):
    (line,) = _masked(text)
    assert "<PERSON_" in line and not any(n in line for n in names), line


def test_hyphenated_words_beside_a_name_stay(_masked):
    (line,) = _masked("Orla Brennan-Okafor ordered two T-shirts and a Wi-Fi pass.")
    assert "ordered two T-shirts and a Wi-Fi pass." in line and "Okafor" not in line


def test_both_halves_of_an_airline_name_are_one_span_even_when_one_is_unlisted(_masked):
    """``SURNAME/GIVEN`` is one person whichever half the model is unsure of (an unlisted
    surname, a given name that is also a city); airport pairs stay."""
    (out,) = _masked("I see booking QZT4RP for OKAFORIEKE/UZOMA and OKAFORIEKE/ONYINYECHI.")
    assert "OKAFORIEKE" not in out and "UZOMA" not in out and "ONYINYECHI" not in out, out
    assert out.count("<PERSON_") == 2, out
    (out,) = _masked("Flights: LHR/JFK and CDG/AMS on Monday")
    assert "LHR/JFK" in out and "CDG/AMS" in out, out


def test_a_given_name_in_capitals_after_a_surname_written_first(_masked):
    (out,) = _masked("DRIVER: WOJTASZEK-ABARO, HELENA   CLASS: B")
    assert "HELENA" not in out and "WOJTASZEK" not in out and "CLASS: B" in out, out


def test_a_particle_and_a_surname_ending_a_field_after_a_name_join_it(_masked):
    """A name of two words, then "de" and a capitalised word before the field's end: the third
    surname is the name's; a place after "in" in a sentence stays."""
    out = _masked(
        "Cadastro / Edvânia Barreto de Aguiar / CPF pendente",
        "We met Carla Nunes in Porto, then left.",
    )
    assert "Aguiar" not in out[0] and " de " not in out[0] and "CPF pendente" in out[0], out
    assert "in Porto, then left." in out[1]


def test_a_titled_names_last_word_before_the_comma_is_masked_though_it_is_a_word(_masked):
    """A salutation's title opens a name that runs to the comma or the line's end: its last
    surname is masked though it is a word of its language ("Prazeres": pleasures); the line
    after it stays."""
    pt, es = _masked(
        "Prezada Sra. Jandira Coutinho Prazeres,\n\nSeu cadastro foi atualizado.",
        "Estimado Sr. Eusebio Larrañaga Palacios\nSu cita queda confirmada.",
    )
    assert "Prazeres" not in pt and "Coutinho" not in pt, pt
    assert pt.endswith(",\n\nSeu cadastro foi atualizado."), pt
    assert "Palacios" not in es and es.endswith("\nSu cita queda confirmada."), es
