"""Issue #12, points 1, 2, 5, 6: recall on text the project never wrote, precision of the
episode-wide known values, Unicode-correct matching and account ids of people."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.apply import whole_words
from agentic_pipeline.masking.csv_cells import csv_table, tabular_values
from agentic_pipeline.masking.detectors.patterns import (
    CardRecognizer,
    IbanShapeRecognizer,
    IntlPhoneRecognizer,
    NationalIdRecognizer,
    StreetLineRecognizer,
    street_address_recognizer,
)
from agentic_pipeline.masking.episode import Episode
from agentic_pipeline.masking.names import build
from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.pseudonyms import fold, normalize, pseudonym_for
from agentic_pipeline.schema import STEP_SCHEMA

KEY = "test-key-outsider"


@pytest.fixture(scope="module")
def masker():
    m = Masker(key=KEY, n_workers=1)
    yield m
    m.close()


def _found(rec, text: str, entity: str | None = None) -> list[str]:
    return [
        text[r.start : r.end]
        for r in rec.analyze(text, [])
        if entity is None or r.entity_type == entity
    ]


def _table(rows: list[dict], episode: str = "ep1") -> pa.Table:
    base = {"ds": "2026-11-28", "episode_id": episode}
    return pa.Table.from_pylist(
        [{**base, "step": i, **r} for i, r in enumerate(rows)], schema=STEP_SCHEMA
    )


def _masked_text(masker, rows: list[dict]) -> str:
    out = mask_steps(_table(rows), masker, scan=False).masked
    return json.dumps(out.to_pylist(), ensure_ascii=False)


# ----------------------------------------------------------------------------- point 1: recall
@pytest.mark.parametrize(
    "text, phone",
    [
        ("you can call me on 0612 448 207 tomorrow", "0612 448 207"),
        ("my mobile is (07700)553419", "(07700)553419"),
        ("Tel: 05.61.72.44.18", "05.61.72.44.18"),
        ("reach the office at +44 20 7946 0321.", "+44 20 7946 0321"),
        ("Polish number 789 852 053 works", "789 852 053"),
        ("ask for a callback at 07339117728.", "07339117728"),
    ],
)
def test_international_phone_formats_are_found(text, phone):
    assert phone in _found(IntlPhoneRecognizer(), text)


@pytest.mark.parametrize(
    "text",
    [
        "the total is 113.71000000000004 dollars",
        "item 1008292230 and item 6454334990 are in stock",
        "calculate 2 * 150 + 3 * 200 = 900",
        "amount 1,234,567.89 EUR on 2024-05-15",
    ],
)
def test_floats_item_ids_and_arithmetic_are_not_phones_or_cards(text):
    assert _found(IntlPhoneRecognizer(), text) == []
    assert _found(CardRecognizer(), text) == []


def test_cards_of_12_to_19_digits_with_separators():
    rec = CardRecognizer()
    assert _found(rec, "Maestro 6759 6498 2643 8453") == ["6759 6498 2643 8453"]
    assert _found(rec, "card 3782-822463-10005 expired") == ["3782-822463-10005"]
    assert _found(rec, "my maestro card 675964982648") == ["675964982648"]  # 12 digits, context
    assert _found(rec, "reference 675964982648") == []  # 12 digits without a card word


def test_iban_shaped_numbers_even_with_wrong_check_digits():
    rec = IbanShapeRecognizer()
    assert _found(rec, "send it to DE00 3704 0044 0532 0130 00 please") == [
        "DE00 3704 0044 0532 0130 00"
    ]
    assert _found(rec, "IBAN GB00WEST12345698765432") == ["GB00WEST12345698765432"]
    assert _found(rec, "flight DE12 1234") == []  # wrong length for DE


@pytest.mark.parametrize(
    "text, value",
    [
        ("NI number AB 12 34 56 C", "AB 12 34 56 C"),  # UK NINO
        ("AHV 756.1234.5678.97", "756.1234.5678.97"),  # Swiss AHV
        ("numéro de sécurité sociale 1 84 12 76 451 089 46", "1 84 12 76 451 089 46"),  # INSEE
        ("mijn BSN is 111222333", "111222333"),  # Dutch BSN, context
        ("PESEL: 44051401359", "44051401359"),  # Polish PESEL
        ("Steuer-ID 12 345 678 901", "12 345 678 901"),  # German tax id
        ("Personalausweis T22000129", "T22000129"),  # German id card
        ("my passport number is X1234567", "X1234567"),
        ("codice fiscale RSSMRA85T10A562S", "RSSMRA85T10A562S"),
    ],
)
def test_national_ids_of_main_european_countries(text, value):
    assert value in _found(NationalIdRecognizer(), text)


def test_ids_of_things_are_not_national_ids():
    rec = NationalIdRecognizer()
    assert _found(rec, "order id #W2378156 with item id 1008292230, flight id HAT069") == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("Via Wibavessi 104, 48020 Czadezbaza", "Via Wibavessi 104"),
        ("Hauptstraße 3, 10115 Berlin", "Hauptstraße 3"),
        ("637 Bczopízevbrá 1006", "637 Bczopízevbrá 1006"),
        ("12, rue de la Paix, 75002 Paris", "12, rue de la Paix"),
        ("Gusti-Loos-Gasse 4-2, 1100 Wien", "Gusti-Loos-Gasse 4-2"),
        ("Keizersgracht 12a, 1015 CS Amsterdam", "Keizersgracht 12a"),
        ("P.O. Box 718, Rusubur", "P.O. Box 718"),
        ("> Guy Timveausc\n> Wsaccehaav 178\n> Schijf", "Wsaccehaav 178"),
        ("The bus station is on Λ. Ευφροσύνης 119", "Λ. Ευφροσύνης 119"),
        ("The restaurant is at 4707 40th Street", "4707 40th Street"),
    ],
)
def test_european_street_lines(text, value):
    assert value in _found(StreetLineRecognizer(), text, "STREET_ADDRESS")


@pytest.mark.parametrize(
    "text, postcode",
    [
        ("10 Downing Street, London SW1A 2AA", "SW1A 2AA"),
        ("Keizersgracht 12a, 1015 CS Amsterdam", "1015 CS"),
        ("Hauptstraße 3, 10115 Berlin", "10115"),
        ("ul. Długa 5, 00-950 Warszawa", "00-950"),
        ("Austin, TX 78701", "78701"),
        ("Toronto, ON M5V 3L9", "M5V 3L9"),
        ("Taccevbczabbe 108, Bibbajn, 4450", "4450"),
        ("Movie Street 5, OLLEZKAS, 830 51", "830 51"),
        ("Rzadbro\nCzech Republic 671 51\n", "671 51"),
    ],
)
def test_postcodes_of_europe_and_north_america(text, postcode):
    assert postcode in _found(StreetLineRecognizer(), text, "ZIP_CODE")


@pytest.mark.parametrize(
    "text",
    [
        "Flight 123\nTotal 45\nYou have 3 bags",
        "Step 3\nGate 12",
        "total amount 1500\nok",
    ],
)
def test_counts_and_labels_are_not_addresses(text):
    assert _found(StreetLineRecognizer(), text) == []


def test_unit_designator_is_not_a_word_prefix():
    """ "United" starts with "Unit": it was masked as a street address."""
    assert _found(street_address_recognizer(), "I'm from United Kingdom") == []
    assert _found(street_address_recognizer(), "Apt. 082, Suite 5") != []


def test_lower_case_and_non_english_names(masker):
    text = _masked_text(
        masker,
        [
            {
                "role": "user",
                "action_type": "message",
                "content": "cecilie søndergaard here, and my colleague Csanád Hezvnazðbbov.",
            }
        ],
    )
    for part in ("cecilie", "søndergaard", "Csanád", "Hezvnaz", "ðbbov"):
        assert part not in text, part


#: A letter whose lines hold one comma each, as a two-column table's would.
_LETTER = (
    "Dear Hiring Manager,\n\nPlease find my CV attached, as discussed on Monday.\n"
    "I can start in May, if that suits the team.\n\nKind regards,\nHalvard Quenby"
)


def test_a_letter_with_commas_is_no_table_and_its_salutation_no_person(masker):
    assert csv_table(_LETTER) is None and tabular_values(_LETTER) == []
    assert TextFeatures(_LETTER, build._nlp()(_LETTER)).csv is None  # the model's column feature
    table = "name,email\nHalvard Quenby,hq@example.org\nMarta Pennock,mp@example.org"
    assert csv_table(table) is not None
    text = _masked_text(masker, [{"role": "user", "action_type": "message", "content": _LETTER}])
    assert "Dear Hiring Manager," in text and "Kind regards," in text
    assert "Halvard" not in text and "Quenby" not in text


def test_names_in_tabular_tool_output(masker):
    csv_text = "name,email,city\nAnna Kowalska,anna@example.pl,Kraków\nJan Nowak,jan@x.pl,Gdańsk"
    assert ("Jan Nowak", "PERSON") in tabular_values(csv_text)
    text = _masked_text(
        masker,
        [
            {
                "role": "tool",
                "action_type": "tool_result",
                "tool_name": "read_file",
                "content": csv_text,
            },
            {"role": "assistant", "action_type": "message", "content": "Jan Nowak is in the file."},
        ],
    )
    assert "Nowak" not in text and "Kowalska" not in text
    assert "read_file" in text and "city" in text


def test_a_table_under_a_title_line_is_still_a_table():
    """An export often starts with a title ("Staff export Q2") above its header: the columns are
    read from the header under it, for the cells and for the name model's column feature."""
    text = "Quarterly staff export\nstaff_no;full_name;amount\n4471;Thorvald Ingrith;2310.55\n"
    header, rows = csv_table(text)
    assert header == ["staff_no", "full_name", "amount"]
    assert rows == [["4471", "Thorvald Ingrith", "2310.55"]]
    assert ("Thorvald Ingrith", "PERSON") in tabular_values(text)
    tf = TextFeatures(text, build._nlp()(text))
    assert tf.csv is not None and tf.csv[1] == header


# ----------------------------------------------------------------------------- point 2: precision
def test_one_weak_ner_hit_is_not_an_episode_wide_value():
    ep = Episode()
    ep.texts = {
        "Please modify the Orchestra seat.",
        "Orchestra seats are sold out.",
        "Any Orchestra seat left?",
        "Orchestra is full",
    }
    ep.vote("Orchestra", "PERSON", "Please modify the Orchestra seat.")
    ep.settle_votes()
    assert "orchestra" not in ep.known  # one NER hit
    ep.vote("Orchestra", "PERSON", "Any Orchestra seat left?")
    ep.settle_votes()
    assert "orchestra" not in ep.known  # two of four strings: no agreement
    name = Episode()
    name.texts = {"Hi, I am Ulla.", "Thanks Ulla!", "Ulla again"}
    for t in sorted(name.texts)[:2]:
        name.vote("Ulla", "PERSON", t)
    name.settle_votes()
    assert "ulla" in name.known and "ulla" not in name.strong


def test_vocabulary_labels_products_and_item_ids_survive(masker):
    system = (
        "You are a helpful agent. Phone: ask the user. Salesperson notes are internal. "
        "You can modify the cabin class of a reservation, for example Orchestra seats."
    )
    rows = [
        {"role": "system", "action_type": "message", "content": system},
        {
            "role": "user",
            "action_type": "message",
            "content": "Hi, I'm Yubul Rossi, please modify my order #W2378156.",
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "get_product_details",
            "tool_call_id": "call_1",
            "tool_arguments": json.dumps({"item_id": "6454334990"}),
        },
        {
            "role": "tool",
            "action_type": "tool_result",
            "tool_name": "get_product_details",
            "tool_call_id": "call_1",
            "content": json.dumps(
                {
                    "name": "Desk Lamp",
                    "item_id": "6454334990",
                    "price": 153.23,
                    "total": 113.71000000000004,
                }
            ),
        },
        {
            "role": "assistant",
            "action_type": "message",
            "content": "The Desk Lamp (item 6454334990) costs 153.23; cabin and Phone stay.",
        },
    ]
    text = _masked_text(masker, rows)
    for kept in (
        "modify",
        "cabin",
        "Salesperson",
        "Orchestra",
        "Phone",
        "Desk Lamp",
        "6454334990",
        "W2378156",
        "153.23",
        "113.71000000000004",
    ):
        assert kept in text, kept
    assert "Yusuf" not in text and "Rossi" not in text


# ----------------------------------------------------------------------------- point 5: Unicode
def test_fold_keeps_length_and_letters():
    for s in ("Hauptstraße", "İstanbul", "Ｔｅｌ １２３", "e\u0301cole", "ÆØÅ"):
        assert len(fold(s)) == len(s)
    assert fold("Hauptstraße") == "hauptstraße"  # casefold() would give "hauptstrasse"
    assert fold("１２３") == "123"
    assert normalize("Hauptstraße 3", "STREET_ADDRESS") != normalize(
        "Hauptstrasse 3", "STREET_ADDRESS"
    )


def test_german_street_from_a_json_field_is_found_in_free_text(masker):
    rows = [
        {
            "role": "tool",
            "action_type": "tool_result",
            "tool_name": "get_user",
            "content": json.dumps({"address": "Große Straße 3", "email": "k@example.de"}),
        },
        {
            "role": "user",
            "action_type": "message",
            "content": "Please ship to GROßE STRAßE 3 or große straße 3, thanks.",
        },
    ]
    text = _masked_text(masker, rows)
    assert "Straße 3" not in text and "STRAßE 3" not in text and "straße 3" not in text


def test_spans_are_widened_to_whole_words():
    text = "Dear Hezvnazðbbov, hello"
    s = text.index("Hezvnaz")
    assert whole_words(text, (s, s + 7, "PERSON", 0.8, "x"))[:2] == (s, s + 12)
    combining = "Mr Rene\u0301 Dupont"
    s = combining.index("Rene")
    assert whole_words(combining, (s, s + 4, "PERSON", 0.8, "x"))[1] == s + 5
    assert whole_words(text, (s, s + 3, "PHONE_NUMBER", 0.8, "x"))[:2] == (s, s + 3)
    account = "sent to QR1330000121212 today"  # an id cut inside its token: the whole token
    s = account.index("QR")
    assert whole_words(account, (s, s + 9, "MEDICAL_LICENSE", 1.0, "x"))[:2] == (s, s + 15)
    # capitals glued by a hyphen to a number found as a phone: the id's last part, with it
    member = "card 6612-380-417-QW, valid"
    s = member.index("6612")
    assert member[slice(*whole_words(member, (s, s + 12, "PHONE_NUMBER", 0.6, "x"))[:2])] == (
        "6612-380-417-QW"
    )
    assert whole_words("ring 0161 496 0412-Mon", (5, 18, "PHONE_NUMBER", 0.6, "x"))[1] == 18


# ----------------------------------------------------------------------------- point 6: ids
def test_customer_ids_get_one_keyed_pseudonym_everywhere(masker):
    rows = [
        {
            "role": "user",
            "action_type": "message",
            "content": "My customer id is cus_0a1b2c3d, old CRM id CX-48213.",
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "get_customer",
            "tool_call_id": "call_1",
            "tool_arguments": json.dumps({"customer_id": "cus_0a1b2c3d"}),
        },
        {
            "role": "tool",
            "action_type": "tool_result",
            "tool_name": "get_customer",
            "tool_call_id": "call_1",
            "content": json.dumps(
                {"customer_id": "cus_0a1b2c3d", "legacy": "CX-48213", "tier": "gold"}
            ),
        },
    ]
    out = mask_steps(_table(rows), masker, scan=False).masked
    text = json.dumps(out.to_pylist())
    cus, cx = (pseudonym_for(v, "USER_ID", KEY) for v in ("cus_0a1b2c3d", "CX-48213"))
    assert "cus_0a1b2c3d" not in text and "CX-48213" not in text
    assert cus in out.column("content")[0].as_py() and cx in out.column("content")[0].as_py()
    assert json.loads(out.column("tool_arguments")[1].as_py())["customer_id"] == cus
    assert json.loads(out.column("content")[2].as_py()) == {
        "customer_id": cus,
        "legacy": cx,
        "tier": "gold",
    }
    # join columns stay in clear
    assert out.column("tool_call_id").to_pylist() == [None, "call_1", "call_1"]
    assert set(out.column("episode_id").to_pylist()) == {"ep1"}


def test_a_line_of_prose_after_a_pipe_table_is_no_row():
    """A reply written under a pasted table ("Assistant: …") is no cell of its first column."""
    text = (
        "Pasted into the chat:\n| Name | Joined | Phone |\n|---|---|---|\n"
        "| Orrin Vale | 2019 | 07700 900555 |\nAssistant: shall I text these members?"
    )
    values = [v for v, _ in tabular_values(text)]
    assert "Orrin Vale" in values and not any("Assistant" in v for v in values), values


@pytest.mark.parametrize(
    "form",
    [
        "Please send me:\n\n*   First Name:\n*   Last Name:\n*   Date of Birth (YYYY-MM-DD):",
        "First Name:\nLast Name:\nEmail:",
    ],
)
def test_an_empty_forms_labels_are_no_names(masker, form):
    """An agent asking for a passenger's details lists the labels alone: a bulleted list is no
    table whose first line is a header, and a label alone on its line has no value."""
    from conftest import masked_cells

    (out,) = masked_cells(masker, ("assistant", form))
    assert out == form, out


def test_a_name_cell_with_an_unquoted_comma_is_read_whole():
    """An export that writes "<Surname>, <Given>" without quotes: the cells after the one name
    column start with the space after the comma; the row is read with that cell whole, so the
    columns after it keep their headers. A row whose extra cell has no space stays as read."""
    text = (
        "staff_no,name,born\n30418,Brackmoorel, Ilse,1986-04-02\n30422,Quirke, Ysmaine,1990-01-17\n"
    )
    header, rows = csv_table(text)
    assert rows == [
        ["30418", "Brackmoorel, Ilse", "1986-04-02"],
        ["30422", "Quirke, Ysmaine", "1990-01-17"],
    ]
    found = tabular_values(text)
    assert ("Brackmoorel, Ilse", "PERSON") in found and ("1990-01-17", "DATE_OF_BIRTH") in found
    ragged = "sku,name,price\nA1,Kettle,12,50\nA2,Toaster,20,00\n"
    assert csv_table(ragged) is None or csv_table(ragged)[1][0][1] == "Kettle"
    # a Markdown table's cells all start with a space: an extra one joins nothing
    pipes = (
        "| no | name | city |\n|---|---|---|\n"
        "| 1 | Ilse Quell | Zuidmoor | x |\n| 2 | Bo Quin | Ostmoor |"
    )
    assert csv_table(pipes)[1][0][1].strip() == "Ilse Quell"


def test_an_unquoted_name_cell_is_found_by_its_space_when_no_header_names_it():
    """No header names the column of names ("rota_slot"): the one column after which each
    longer row's extra cells, and only those, start with a space and a letter is read whole,
    so the npi column keeps its header and its values are masked as NPIs."""
    text = (
        "day,unit,rota_slot,npi,bleep\n"
        "Mon,Renal,Hawtrey-Quine, Odile,1487305526,4410\n"
        "Tue,Renal,Vorstman, Iain,1215086379,4412\n"
    )
    header, rows = csv_table(text)
    assert [r[2] for r in rows] == ["Hawtrey-Quine, Odile", "Vorstman, Iain"]
    assert ("1215086379", "US_NPI") in tabular_values(text)
    # more spaced cells than extra ones: no column is sure, the rows stay as read (ragged: no
    # table), where one spaced cell per extra one would have been joined
    assert csv_table("day,a,b,c\nMon,Xa, Yb, Zc,1\nTue,Qa, Rb, Sc,2\n") is None
    assert csv_table("day,a,b,c\nMon,Xa, Yb,Zc,1\nTue,Qa, Rb,Sc,2\n")[1][0][1] == "Xa, Yb"


def test_the_number_column_of_a_list_of_people_holds_their_ids():
    """A table with a column of names: its column headed by a number word alone ("Nr.", "No",
    "#") holds the people's ids; a row's small number, a year and the same column of a table
    of things stay."""
    people = (
        "Nr. | Name | Geburtsdatum\n8812 | Ilse Quarm | 02.03.1990\n2 | Bo Tamberlyn | 05.06.1991\n"
    )
    found = tabular_values(people)
    assert ("8812", "USER_ID") in found and not any(v == "2" for v, _ in found)
    assert tabular_values("#,Item,Qty\n5521,Kettle,2\n") == []
    assert ("2019", "USER_ID") not in tabular_values("No,Name\n2019,Ilse Quarm\n")
