"""Postal addresses whose ends the joiner used to drop (issue #21 point 3): a region code read
as the city in capitals, a table row's bars, a direction before a numbered street, a flat written
"m. 3", a floor and side before the postcode's line, a Hungarian floor and door, a unit after a
colon, a house's name before a locality, a Russian or Ukrainian town before or after its street,
and a label of an address followed by the words that say which. Each is masked as one span; a
sentence after a street, an e-mail's or an IP's label stay what they are.

Every street, city, postcode and sentence here is invented for this test (no corpus value).
"""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker

KEY = "address-tails-test-key-0123456789abcdef012"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _one_address(masker, text: str, parts: tuple[str, ...]) -> str:
    """``text`` masked with one address token and none of ``parts`` left in clear."""
    (out,) = masked_cells(masker, ("user", text))
    for value in parts:
        assert value not in out, (value, out)
    assert out.count("<STREET_ADDRESS_") == 1, out
    return out


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Ship to: 4418 QUARLING AVE APT 9, MERRIDALE CA 95822",
            ("QUARLING", "MERRIDALE", "95822"),
        ),
        ("4 HOME ADDRESS: 77 TENNOCK RD | ASHVALE | TX | 75211", ("TENNOCK", "ASHVALE", "75211")),
        ("Mailing: 3307 NE 14th Ter, Corvina, FL 33305", ("3307", "Corvina", "33305")),
        ("ul. Brzozowa 41 m. 7\n31-224 Kraków", ("Brzozowa", "m. 7", "31-224", "Kraków")),
        ("Søndervej 19, 3. tv.\n7100 Vejle", ("Søndervej", "tv", "7100", "Vejle")),
        (
            "Lakcím: 4093 Almásfalva, Fenyves utca 8. III/2.",
            ("4093", "Almásfalva", "Fenyves", "III/2"),
        ),
        (
            "Adres: Gazi Bulvarı No: 18 Daire: 6, 35210 Çamlıtepe/Kuzeyova",
            ("Gazi", "Daire: 6", "35210"),
        ),
        (
            "Please write to Thornbury Farm, Nether Ockley, Stowbridge SO21 7QX today.",
            ("Thornbury", "Nether Ockley", "SO21 7QX"),
        ),
        ("Пишите: г. Тверь, ул. Озёрная, д. 14, кв. 3", ("Тверь", "Озёрная", "14", "кв. 3")),
        ("вул. Каштанова, буд. 9, кв. 21, м. Львів", ("Каштанова", "буд. 9", "Львів")),
        ("Адрес проживания: пр. Тополиный, д. 5, кв. 40", ("Тополиный", "кв. 40")),
        ("Dirección de entrega: Calle Olmo 4, 2º B, 28013 Madrid", ("Olmo", "28013", "Madrid")),
    ],
)
def test_the_whole_address_is_one_span(masker, text, parts):
    _one_address(masker, text, parts)


def test_a_sentence_an_email_and_an_ip_after_their_labels_stay_theirs(masker):
    prose, email, ip = masked_cells(
        masker,
        ("user", "We met at 12 Oak Row. Springfield is lovely in spring."),
        ("user", "Adresse e-mail: quillon@example.org"),
        ("user", "Adresse IP: 10.1.2.3"),
    )
    assert "Springfield is lovely in spring." in prose
    assert "<EMAIL_ADDRESS_" in email and "<STREET_ADDRESS_" not in email
    assert "<IP_ADDRESS_" in ip and "<STREET_ADDRESS_" not in ip


@pytest.mark.parametrize(
    ("text", "address", "label"),
    [
        ("Bitte an Quendelweg 22, 80995 Obermarbach, Tel. 089 5550 4417", "Quendelweg", "Tel."),
        ("Write to Ranzgasse 5, 1120 Wiesthal, Tel.: +43 1 555 0931 please", "Ranzgasse", "Tel.:"),
        (
            "Anschrift: Morellenstr. 9, 45127 Kolbenau, Telefon 0201 5550 882",
            "Morellenstr",
            "Telefon",
        ),
        ("Address: 61 Tamsin Lane, Crowbury CB4 9TT; email olwen.p@example.net", "Tamsin", "email"),
    ],
)
def test_a_phone_or_email_label_after_an_address_ends_it(masker, text, address, label):
    (out,) = masked_cells(masker, ("user", text))
    assert address not in out and out.count("<STREET_ADDRESS_") == 1, out
    assert label in out, out  # the label stays in clear, outside the address's span


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Post it to 7 Sallowmere Court, Rathkeel, Dublin 18 by Monday.", ("Rathkeel", "18")),
        ("Send it to 31 Brackenfold Road, Dublin 6W.", ("Brackenfold", "6W")),
        ("She lives at 2 Corrib Heights, Lisnagarry, Co. Tullow.", ("Lisnagarry", "Tullow")),
    ],
)
def test_a_postal_district_or_county_closes_the_address(masker, text, parts):
    _one_address(masker, text, parts)


def test_a_number_of_things_after_a_town_stays(masker):
    (out,) = masked_cells(masker, ("user", "Flat at 9 Kiln Road, Ostmere 3 bedrooms, fully let"))
    assert "3 bedrooms" in out, out


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("paczka na ul. Jarzębinowa 9/4, Olszowiec — będę za 10 min", ("Jarzębinowa", "Olszowiec")),
        ("Am Quittenhang 4 · 37299 Steinfurtel", ("Quittenhang", "37299", "Steinfurtel")),
        ("Szállítási cím: 7643 Kisbárod, Rigó utca 18. 3/1.", ("7643", "Kisbárod", "Rigó", "3/1")),
        ("trvale bytom Ostružinová 45/3, 917 04 Dolná Lúka, je", ("Ostružinová", "917 04", "Lúka")),
        ("c/o Ketilsdóttir, Hlíðarvegur 14, 230 Sandvík, Iceland", ("Hlíðarvegur", "Sandvík")),
        (
            "Str. Brânduşei nr. 7, bl. P23, sc. 1, ap. 14, Sector 2, Vâlcele",
            ("Brânduşei", "P23", "Sector 2", "Vâlcele"),
        ),
        ("Subject: Re: Deposit — Flat 7, 33 Marlowe Road", ("Flat 7", "Marlowe")),
        ("Residenza: Corso Garibaldi 88, 10121 Vellatorre TO", ("Garibaldi", "Vellatorre", "TO")),
        ('ui.input #addressLine1 = "Flat 6B, 4 Harbourside Way"', ("Flat 6B", "Harbourside")),
    ],
)
def test_more_address_forms_are_one_span(masker, text, parts):
    """A city before a dash that opens the next clause, a middle dot between parts, a Hungarian
    postcode and city before the street with the floor and door after it, a Slovak postcode of
    two groups, an Icelandic street, Romanian block, staircase and flat with the sector and city
    after them, a flat before its street on one line, an address line under a key with blanks
    around "="."""
    _one_address(masker, text, parts)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Our client lives at The Quern Bothy, Mill Lane, Dunford DE7 2QX", ("Quern", "Mill")),
        ("address updated to The Barley Store, Sheep Lane, Wenbury OX7 4QS.", ("Barley", "Sheep")),
        ("We have you at Top Floor Left, 22 Dalmore Road, Glasgow G13 9UP.", ("Top Floor", "22")),
        ("Basement Flat, 316 Arden Grove, Bristol BS6 7QX", ("Basement", "Arden")),
        (
            "送付先： 〒530-0012 大阪府大阪市北区芝田1丁目4番7号 芝田ハイツ905",
            ("530-0012", "芝田ハイツ905"),
        ),
    ],
)
def test_a_house_before_a_named_street_a_british_floor_and_a_japanese_block(masker, text, parts):
    """A house's name before a street without a number, when a postcode fine enough to name the
    street closes the line; a British flat named by its floor; a Japanese address written with
    its block words (chōme, ban, gō) and its building's room."""
    _one_address(masker, text, parts)


def test_a_floor_named_in_a_sentence_is_no_address(masker):
    (out,) = masked_cells(masker, ("user", "The meeting is on the Ground Floor, room 4, at noon."))
    assert "Ground Floor" in out and "<STREET_ADDRESS_" not in out, out


@pytest.mark.parametrize(
    ("text", "parts", "kept"),
    [
        # a town's 3-4 digit postcode, then a stop word that goes on with the sentence
        (
            "Post the cheque to 41 Tōtara Street, Ōrewaiti 5512 by noon, thanks.",
            ("Ōrewaiti", "5512"),
            "by noon",
        ),
        (
            "Her flat is 9 Rimu Lane, Wāhorua 9305 and she has 2 cats.",
            ("Wāhorua", "9305"),
            "and she",
        ),
        # a lower-case word after a 4-digit postcode is no Dutch postcode's letters ("1234 AB")
        (
            "Courier it to 18 Kowhai Road, Pūkahu, Tāmarau 2022 by Friday.",
            ("Tāmarau", "2022"),
            "by Friday",
        ),
    ],
)
def test_a_weak_postcode_before_the_rest_of_the_sentence(masker, text, parts, kept):
    out = _one_address(masker, text, parts)
    assert kept in out, out


def test_a_weak_postcode_before_a_noun_is_not_joined(masker):
    (out,) = masked_cells(
        masker, ("user", "The depot at 5 Miro Road, Taupōiti 3330 employs 40 people.")
    )
    assert "3330 employs 40 people" in out, out


@pytest.mark.parametrize(
    "text",
    [
        "Exam slot confirmed.\nAddress we hold: 2290 Birchmont Ave, Apt 4, Rochester,"
        " MN 55901\nLicensing Office",
        "Address: 61 Quenby Lane, Hartwell, Tarnby TN4 8PL\nCustomer Care Team",
    ],
)
def test_the_line_after_a_whole_labelled_address_is_not_its_city(masker, text):
    (out,) = masked_cells(masker, ("assistant", text))
    assert "Birchmont" not in out and "Quenby" not in out, out
    assert out.endswith(("\nLicensing Office", "\nCustomer Care Team")), out


def test_a_country_on_the_line_after_a_whole_address_is_joined(masker):
    (out,) = masked_cells(
        masker, ("user", "Deliver to 9 Rowan Close, Hartwell, Tarnby TN4 8PL\nUnited Kingdom")
    )
    assert "United Kingdom" not in out and out.count("<STREET_ADDRESS_") == 1, out


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a house number before an ordinal street, after a spaced dash
        (
            "New address — 42, 6th Main Road, Kalyanpura, Devanahalli 560038 — from Monday.",
            ("42,", "6th"),
        ),
        ("Flat 7, 14, 2nd Cross, Jayapuram, Mysuru 570014", ("Flat 7", "14,", "2nd Cross")),
    ],
)
def test_a_house_number_before_an_ordinal_street_joins_the_address(masker, text, parts):
    _one_address(masker, text, parts)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a city whose name ends in a word that is also a label ("Bay 4")
        (
            "Home: 12 Larch Hollow St, Cedar Bay, WA 98411 (since May).",
            ("Cedar Bay", "98411"),
        ),
        # a region written with the word that says it is one
        (
            "Contact: 21 Mbanefo Close, Nsukka, Ekwuru State / mail on file",
            ("Nsukka", "Ekwuru State"),
        ),
        # a Romanian county after its prefix
        (
            "adresă Strada Teilor nr. 14, bl. 7, ap. 12, Curtea Nouă, jud. Vâlceni",
            ("Teilor", "Curtea Nouă", "jud.", "Vâlceni"),
        ),
        # a Maltese street named after its prefix word, the house number before it
        (
            "Ibagħtu lil 41, Triq il-Kappillan, Ħal Qormenti QRT 2210.",
            ("41,", "Kappillan", "QRT 2210"),
        ),
    ],
)
def test_an_address_with_a_named_region_or_a_prefixed_street_is_one_span(masker, text, parts):
    _one_address(masker, text, parts)


def test_a_bay_with_its_number_stays_a_label(masker):
    (out,) = masked_cells(masker, ("user", "Loading Bay 4 is closed; use Bay 12, Dock Road."))
    assert "Loading Bay 4" in out and "Bay 12" in out, out


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Recapito: Via Lorenzo dalle Fonti Chiare 27, 40137 Bologna",
            ("Lorenzo", "Fonti", "27", "40137"),
        ),
        ("Heimilisfang: Álfabraut 41, íbúð 0304, Grástaðavík", ("Álfabraut", "0304")),
    ],
)
def test_an_italian_street_with_dalle_and_an_icelandic_flat_are_one_span(masker, text, parts):
    _one_address(masker, text, parts)
