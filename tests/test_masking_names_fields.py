"""Names by their label (issue #21, point 4: names in forms and lists): a lower-case name after a
label that names a person ("Cardholder: <first> <last>"), and a name written surname first as a
labelled value ("From: <Last>, <First> <mail>", "Patient name: <LAST>, <FIRST>"), masked whole
through the real masking; a company or a pair of words under the same label stays. Every name
and sentence is written for this test."""

from __future__ import annotations

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names.fields import (
    field_last_first_values,
    label_before,
    last_first_value,
    last_first_values,
    person_field_key,
)


@pytest.fixture(scope="module")
def masker():
    m = Masker(key="test-key-fields", n_workers=1)
    yield m
    m.close()


def test_a_name_written_surname_first_is_found_only_as_a_person_labels_value():
    text = "From: Ferrant, Linnet <l.ferrant@example.org>\nSubject: Brisco, Odhran"
    (value,) = last_first_values(text)
    assert text[slice(*value)] == "Ferrant, Linnet"
    assert last_first_value(text, text.index("Subject")) is None  # no label of a person
    # more than a surname and a first name (and an initial) is no such value
    assert last_first_values("Name: Ferrant, Linnet, Brisco") == []
    assert last_first_values("Customer: Ferrant, linnet") == []
    # a full stop after a whole word ends a sentence; after an initial it belongs to the name
    text = "Payee: Ferrant, Linnet. Paid in May.\nOwner: Brisco, O. Paid."
    assert [text[slice(*v)] for v in last_first_values(text)] == ["Ferrant, Linnet", "Brisco, O."]


def test_names_by_their_label_are_masked_whole_and_companies_stay(masker):
    cells = masked_cells(
        masker,
        ("tool", "Cardholder: tamsen hollis\nStatus: active"),
        ("tool", "From: Ferrant, Linnet <l.ferrant@example.org>\nSubject: invoice 7"),
        ("tool", "Patient name: BRISCO, ODHRAN\nWard: 4 East"),
        ("tool", "Customer: NORTHWIND, LTD\nPlan: gold"),
        ("tool", "Payee: Quill, J.\nAmount: 40.00"),
        ("tool", "Contact: pending review\nPlan: basic"),
    )
    card, mail, patient, company, payee, pending = cells
    for name in ("tamsen", "hollis", "Ferrant", "Linnet", "BRISCO", "ODHRAN", "Quill"):
        assert name not in "".join(cells), name
    assert card.startswith("Cardholder: <PERSON_") and card.endswith(">\nStatus: active")
    assert mail.startswith("From: <PERSON_") and mail.count("<PERSON_") == 1
    assert patient.startswith("Patient name: <PERSON_") and patient.count("<PERSON_") == 1
    assert payee.startswith("Payee: <PERSON_") and "J." not in payee
    assert company == "Customer: NORTHWIND, LTD\nPlan: gold"
    assert pending == "Contact: pending review\nPlan: basic"


def test_a_labelled_name_before_a_sentence_and_a_card_label_in_french(masker):
    patient, card, team = masked_cells(
        masker,
        ("tool", "Patient: DRUMMORE, ILSABET. DOB on file, seen today."),
        ("tool", "Nom sur la carte : ysolde ferracci\nExpiration : 07/28"),
        ("tool", "Contact: Sales, Marketing\nPlan: basic"),
    )
    for name in ("DRUMMORE", "ILSABET", "ysolde", "ferracci"):
        assert name not in patient + card, name
    # the full stop ends the sentence, not the name: it stays, and the rest of the line with it
    assert patient.startswith("Patient: <PERSON_") and patient.endswith(
        ">. DOB on file, seen today."
    )
    assert card.startswith("Nom sur la carte : <PERSON_") and card.count("<PERSON_") == 1
    # two words a language has, written like "Last, First" under a person label: no person
    assert team == "Contact: Sales, Marketing\nPlan: basic"


def test_who_did_something_is_a_person_label_and_a_system_or_team_stays(masker):
    reviewed, caller, created, updated = masked_cells(
        masker,
        ("tool", "Reviewed by: ysolt okonedo\nStatus: closed"),
        ("tool", "Caller: Okonedo, Ysolt\nQueue: 3"),
        ("tool", "Created by: Support, Billing\nStatus: open"),
        ("tool", "Updated by: system\nStatus: open"),
    )
    for name in ("ysolt", "okonedo", "Okonedo", "Ysolt"):
        assert name not in reviewed + caller, name
    assert reviewed.startswith("Reviewed by: <PERSON_") and reviewed.count("<PERSON_") == 1
    assert caller.startswith("Caller: <PERSON_") and caller.count("<PERSON_") == 1
    assert created == "Created by: Support, Billing\nStatus: open"
    assert updated == "Updated by: system\nStatus: open"


def test_a_person_key_of_a_structured_field_in_any_main_language():
    for key in ("Vorname", "Familienname", "Nazwisko", "Imię", "Cognome", "claimant", "Förnamn"):
        assert person_field_key(key), key
    for key in ("insuredName", "accountHolder", "insured_name"):
        assert person_field_key(key), key
    # a key that only ends with a person label, or one whose value is a company as often
    for key in ("product_name", "companyName", "date_to", "identity_provider", "data_owner"):
        assert not person_field_key(key), key
    for key in ("customer", "provider", "contact", "from", "Kunde", "status", "Ville"):
        assert not person_field_key(key), key


def test_a_value_under_a_person_key_is_read_after_its_label(masker):
    """A one-word name under "Vorname" gets no name analysis alone (no spaces, no NER); read as
    "Vorname: <value>", the name model masks it, and wherever the episode repeats it."""
    record, other_language, things, note = masked_cells(
        masker,
        ("tool", '{"Familienname": "Quastorff", "Vorname": "Wendeline", "Ort": "Kiel"}'),
        ("tool", '{"Nazwisko": "Zawałek-Frost", "Imię": "Brygida", "miasto": "Gdańsk"}'),
        ("tool", '{"product_name": "Desk Lamp", "seller": "Lampworks Store", "qty": 2}'),
        ("user", "Wendeline Quastorff here, did the lamp ship?"),
    )
    for name in ("Quastorff", "Wendeline", "Zawałek", "Brygida"):
        assert name not in record + other_language + note, name
    assert '"Ort": "Kiel"' in record and '"miasto": "Gdańsk"' in other_language
    assert things == '{"product_name": "Desk Lamp", "seller": "Lampworks Store", "qty": 2}'


def test_a_company_under_a_key_shared_with_people_stays(masker):
    """ "customer", "provider" or "contact" hold companies and teams as often as people: their
    values are not read as labelled names, and nothing of them is masked in the episode."""
    record, note = masked_cells(
        masker,
        ("tool", '{"provider": "Brightwell Mutual", "contact": "Sales", "customer": "Halvane"}'),
        ("user", "Is Brightwell Mutual still my insurer? Sales never called back."),
    )
    assert record == '{"provider": "Brightwell Mutual", "contact": "Sales", "customer": "Halvane"}'
    assert "Brightwell Mutual" in note and "Sales" in note


def test_a_label_before_a_quoted_value_in_a_log_line():
    line = "charge ok amount=12.00 cardholder='OSWY PELLERIN'"
    assert label_before(line, line.index("OSWY")) == "cardholder"
    line = 'request {"holder": "Mirabeth Fennimore", "iban": "..."}'
    assert label_before(line, line.index("Mirabeth")) == "holder"


def test_names_after_class_list_and_transfer_labels_of_chinese_and_korean(masker):
    """A class list's pupil and parent on one line, parted by ideographic spaces, and a Korean
    transfer's sender and recipient: each name by its label; the phone label stays."""
    class_list, transfer = masked_cells(
        masker,
        ("user", "学生：周梓萱\u3000家长：卢嘉禾\n班主任：赵敏"),
        ("user", "입금 확인\n보낸 분: 임하준\n받는 분: 윤채원\n금액: 30,000원"),
    )
    for name in ("周梓萱", "卢嘉禾", "赵敏"):
        assert name not in class_list, class_list
    assert "임하준" not in transfer and "윤채원" not in transfer and "금액" in transfer


def test_a_first_and_last_pair_of_keys_holds_a_persons_names(masker):
    """{"first": .., "last": ..} with capitalised words is a person's given name and surname,
    "given_names" too; a page's or a range's "first" and "last" stay."""
    people, page, numbers = masked_cells(
        masker,
        (
            "tool",
            '{"passengers": [{"first": "Ilse", "last": "Vandermolt", "given_names": "ORLA"}]}',
        ),
        ("tool", '{"page": {"first": "true", "last": "false"}}'),
        ("tool", '{"range": {"first": 10, "last": 20}}'),
    )
    assert "Ilse" not in people and "Vandermolt" not in people and "ORLA" not in people
    assert '"first": "true"' in page and '"last": 20' in numbers


def test_fhirs_given_and_family_pair_holds_a_persons_names(masker):
    """FHIR's HumanName: "family" and "given" (a list), capitalised words; a font's "family"
    alone stays."""
    patient, font = masked_cells(
        masker,
        ("tool", '{"name": [{"family": "Quellmoor", "given": ["Ysolde", "Mara"]}]}'),
        ("tool", '{"style": {"family": "Inter", "weight": 400}}'),
    )
    assert "Quellmoor" not in patient and "Ysolde" not in patient and "Mara" not in patient
    assert '"family": "Inter"' in font


def test_degrees_after_a_name_stay_in_clear(masker):
    """Degrees and registrations written after a name are no part of it (one token per person,
    the letters after it)."""
    dentist, vet = masked_cells(
        masker,
        ("user", "associate dentists: Orla Venn BDS, on Mondays"),
        ("user", "Ilse Vandermolt MRCVS is the vet on call"),
    )
    assert "Orla" not in dentist and "Venn" not in dentist and "> BDS," in dentist, dentist
    assert "Vandermolt" not in vet and "> MRCVS is" in vet, vet


def test_a_name_written_surname_first_alone_in_a_lists_field():
    """ "<Last>, <First>" with no label, alone between a line's start (maybe a bed's or a slot's
    code), a column gap and the line's end, is a name when its second word is a given name; a
    place and its region written the same way stay."""
    text = (
        "ID CHECK\nQUARLEBY, TESS  123-45-6789  MATCH\n10:00  Dorrington, Ada  chair 2\n"
        "B3 Pennyworth, Kolawole  acct 44121\nParis, Texas  open"
    )
    found = [text[a:b] for a, b in field_last_first_values(text)]
    assert found == ["QUARLEBY, TESS", "Dorrington, Ada", "Pennyworth, Kolawole"]
    assert field_last_first_values("Sent to Quarleby, Tess and others") == []
    assert field_last_first_values("Thanks for the tea.\nGroetjes, Femke") == []


def test_shops_in_a_payee_column_and_a_care_home_in_prose_stay(masker):
    """A payee column holds shops as often as people: a word that no given-name list has before a
    kind of business is the shop's name ("<word> Espresso Bar", "<word> Outdoor"), and a care
    home's "Manor" is no surname; the person beside them is masked."""
    statement, note = masked_cells(
        masker,
        (
            "tool",
            '"date"\t"payee"\t"amount"\n"03/04"\t"Quillon Espresso Bar"\t"-4.10"\n'
            '"03/05"\t"refund Harrowgale Outdoor"\t"30.00"\n"03/06"\t"Tamsin Ferrebee"\t"-20.00"',
        ),
        ("tool", "Family prefers Maplecrest Manor near Dayton; spoke with Odalys Pennywick."),
    )
    assert "Quillon Espresso Bar" in statement and "Harrowgale Outdoor" in statement, statement
    assert "Ferrebee" not in statement, statement
    assert "Maplecrest Manor" in note and "Pennywick" not in note, note


def test_car_makers_before_their_models_stay(masker):
    """Car makers that no name list has are organisation words: "<maker> <model>" in a report or a
    parking list is no person, and the plate beside it is masked."""
    (note,) = masked_cells(
        masker,
        ("user", "a grey Mazda Tribute and a white Toyota Sienna, plate QWX-5520, block the lane"),
    )
    assert "Mazda Tribute" in note and "Toyota Sienna" in note and "QWX-5520" not in note, note
