"""Issue #21 point 3: postal addresses of more countries' forms masked whole, one span each: house
numbers with a staircase and door or a storey, street words written before the name, localities
with a number, streets without a number before a fine postcode, Eircodes after house names,
addresses in lower case or capitals over two lines, a fixed-width table's address column; and
what stays in clear beside them.

Every street, city, postcode and sentence here is invented for this test (no corpus value).
"""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.address_parts import fine_postcode

KEY = "address-forms-test-key-0123456789abcdef0123"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


@pytest.mark.parametrize(
    ("text", "parts", "after"),
    [
        # an Austrian house, staircase and door, a postcode before its city
        ("Unterkunft: Hollergasse 118/4/12, 1150 Krenfeld\nGeboren: 1950", ("118", "Krenfeld"), ""),
        # a Dutch storey in Roman numerals after the house number
        (
            "De pas gaat naar Wilgengracht 14-III, 1015 KJ Veerdam. Vragen?",
            ("Wilgengracht", "III", "1015 KJ", "Veerdam"),
            ". Vragen?",
        ),
        # a Dutch street of one word and a house number with its letter
        (
            "Adres gehuurde: Wieldrecht 27B, 4512 KT Haarveld\nIngangsdatum: 1 maart 2027",
            ("Wieldrecht", "27B", "4512", "Haarveld"),
            "",
        ),
        # a Polish estate ("os.") and a flat after a slash
        (
            "Adres: os. Jaskrawe Wzgórze 12/7, 30-214 Nowa Brzezinka\nTel.: 5",
            ("os.", "Jaskrawe", "12/7", "30-214", "Brzezinka"),
            "",
        ),
        # a Greek street word in Latin letters, a postcode in two groups
        (
            "Deliveries now go to Odos Pelargonion 17, 114 73 Thalassia. Ring twice.",
            ("Odos", "Pelargonion", "114 73", "Thalassia"),
            ". Ring twice.",
        ),
        # a German street abbreviation after a month in a bank statement's cell
        (
            "01.12.2026;Ilse Brand;Miete Januar Birkenlohstr. 12, 04275 Eschenau;-700,00",
            ("Birkenlohstr", "04275", "Eschenau"),
            "",
        ),
        # a Kenyan post-office box with its office's code, the house and estate before it
        (
            "To: Amani, House No. 9, Mvule Gardens, Kivari, P.O. Box 40412-00100, Mbarani\nFrom: x",
            ("House No. 9", "Mvule", "Kivari", "40412", "00100", "Mbarani"),
            "",
        ),
        # an Indian door number, cross road, a locality with its stage, city and PIN
        (
            "Bill to: Lakshmi, No. 17, 5th Cross, Hemavathi 2nd Stage, Kolmur 570012\nPhone: 5",
            ("No. 17", "5th Cross", "Hemavathi", "2nd Stage", "Kolmur", "570012"),
            "",
        ),
        # a plot, a street without a number, an estate's phase, city and postcode
        (
            "The card was sent to Plot 12, Ozebe Close, Akinwale Phase 2, Oduwa 101287. Thanks",
            ("Plot 12", "Ozebe", "Akinwale", "Phase 2", "Oduwa", "101287"),
            ". Thanks",
        ),
        # a flat before a street without a street-type word, a district and the city-state
        (
            "The movers will arrive at Flat 802, 19 Larkway, Tai Wan Heights, Hong Kong at 9 am.",
            ("Flat 802", "Larkway", "Tai Wan", "Hong Kong"),
            " at 9 am.",
        ),
        # Argentina's short postcode before its city, a floor between
        (
            "Ya estoy en Avenida Ombúes 2417, piso 3, C1123 Villa Serrana. Abrazos",
            ("Ombúes", "piso 3", "C1123", "Serrana"),
            ". Abrazos",
        ),
        # a British house name and a street without a number before a full postcode
        (
            "His address is The Mill House, Sandpit Lane, Great Orwelby, Kesterby NR12 4LT.",
            ("Mill House", "Sandpit", "Orwelby", "Kesterby", "NR12"),
            ".",
        ),
        # a house's name before a numbered street, a flat before a house's name
        (
            "Return to The Malthouse, 3 Coopers Yard, Hythe CT21 4QS please",
            ("Malthouse", "Coopers", "Hythe", "CT21"),
            " please",
        ),
        ("Post: Gorsebank, 12 Gull Terrace, Looe PL13 1AB", ("Gorsebank", "Gull", "PL13"), ""),
        (
            "Note: Unit 3B, Brantwood House, Quarry Road, Kendal LA9 4RT",
            ("3B", "Brantwood", "Quarry", "LA9"),
            "",
        ),
        # an Irish house name and townland before the county and an Eircode
        (
            "Mr Fiachra Dunleavy\nTeach Bán, Glenmoy, Co. Ardlow, V23 K7P2\n\nDear Mr Dunleavy,",
            ("Teach", "Glenmoy", "Ardlow", "V23"),
            "\n\nDear Mr <",
        ),
        # a flat before a street in lower case, a lower-case UK postcode
        (
            "post the keys to flat 29, 9 thornbury rise, kelsford kf4 2pq when ur back",
            ("flat 29", "thornbury", "kelsford", "kf4"),
            " when ur back",
        ),
        # capitals, a locality after the street, the city and PIN on the next line
        (
            "Beneficiary block:\n7 TULSI NAGAR, KORAVALLI\nVENRAPUR 625014\nPurpose: GIFT",
            ("TULSI", "KORAVALLI", "VENRAPUR", "625014"),
            "\nPurpose: GIFT",
        ),
        # a numbered street, the house's number, the streets it lies between, a state's
        # abbreviation after the city
        (
            "Dirección: Calle 47 No. 312 x 60 y 62, Centro, 97148 Tixbalam, Yuc.\nTeléfono: 5",
            ("Calle 47", "312", "x 60 y 62", "Centro", "97148", "Tixbalam", "Yuc."),
            "\nTeléfono: 5",
        ),
        # Latvian and Lithuanian postcodes after the country's letters, a street word after
        # the name ("iela", "g.")
        (
            "Adrese: Zvaigžņu iela 14, LV-1048 Ozolmala\nTālr.: 5",
            ("Zvaigžņu", "14", "LV-1048", "Ozolmala"),
            "\nTālr.: 5",
        ),
        ("Adresas: Liepų g. 7, LT-01123 Berželiai", ("Liepų", "g. 7", "01123", "Berželiai"), ""),
        # a preposition and article opening the street's name, German and Dutch, the postcode
        # after a comma or on the next line
        (
            "Anschrift: Unter den Eichen 4, 31157 Tarnau\nTel.: 5",
            ("Eichen", "31157", "Tarnau"),
            "\nTel.: 5",
        ),
        ("Adres: Aan de Vaart 12\n7411 Doren\nTel: 5", ("Vaart", "7411", "Doren"), "\nTel: 5"),
        # a quadrant after the street type
        (
            "Ship it to 418 Corvell Ridge Rd NW, Tarnby, GA 30468 please.",
            ("Corvell", " NW", "Tarnby", "30468"),
            " please.",
        ),
        # a Serbian boulevard named after a king, his title in the genitive
        (
            "Стан: Булевар краља Петра 118, 11000 Београд\nТел: 5",
            ("краља", "Петра", "118", "11000"),
            "\nТел: 5",
        ),
    ],
)
def test_an_address_of_another_form_is_one_span(masker, text, parts, after):
    (out,) = masked_cells(masker, ("user", text))
    for value in parts:
        assert value not in out, (value, out)
    assert out.count("<STREET_ADDRESS_") == 1, out
    assert after in out


def test_a_fixed_width_table_column_and_a_country_after_the_city(masker):
    table = (
        "ref     recipient          address                                  phone\n"
        "P-1     Ilse Brandor       Meerstraatje 9, 8400 Oostvelde, Belgium  +32 9 555 10 10\n"
        "P-2     Maelle Durandin    4 Rue des Lavandiers, L-2786 Weilerbach  +352 555 000 111\n"
    )
    (out,) = masked_cells(masker, ("tool", table))
    for value in ("Meerstraatje", "8400", "Oostvelde", "Belgium", "Lavandiers", "Weilerbach"):
        assert value not in out, (value, out)
    # one token per address, starting in its column (the consignee's name is no part of it)
    assert out.count("<STREET_ADDRESS_") == 2, out
    assert out.count("    <STREET_ADDRESS_") == 2, out
    assert "recipient" in out


@pytest.mark.parametrize(
    "text",
    [
        "Room 4, Hong Kong at 8 am, then Phase 2, Lagos office.",
        "She visited Sector 5, Block 7, Noida and then Delhi.",
        "The Old Mill is a pub in Sandpit Lane, it serves lunch.",
        "Meeting notes: No. 3, Agenda, Berlin, Germany.",
        "Costs: 45 Widgets, Lyon, France and 12 Gadgets, Madrid, Spain.",
        "In den Jahren 2019 und 2020 waren wir oft in Tarnau.",
    ],
)
def test_places_and_numbers_without_an_address_stay(masker, text):
    (out,) = masked_cells(masker, ("user", text))
    assert out == text


def test_fine_postcodes():
    assert fine_postcode("V23 K7P2") == "dwelling"
    assert fine_postcode("NR12 4LT") == "street"
    assert fine_postcode("1015 KJ") == "street"
    assert fine_postcode("K2P 1L4") == "street"
    assert fine_postcode("97001") == ""


def test_a_date_or_a_tax_id_before_an_address_is_no_part_of_it(masker):
    """A date of two slashes is no house number ("11/12/26"), nor a tax id's groups a house's."""
    statement = "Date,Description,Amount\n03/11/2026,DEBIT CARD BARROW OIL 6178,-41.10\n"
    form = "Recipient: Ada Vellery, TIN 412-55-9087, 88 Corvell Ave, Tarnby, FL 33190, box 7"
    line, out = masked_cells(masker, ("tool", statement), ("user", form))
    assert "<STREET_ADDRESS_" not in line and "03/11/2026,DEBIT CARD BARROW OIL" in line, line
    assert out.count("<STREET_ADDRESS_") == 1 and "TIN <" in out, out
    for value in ("Corvell", "Tarnby", "33190"):
        assert value not in out, (value, out)


def test_units_written_in_lower_case_and_a_postcode_and_city_before_the_street():
    texts = [
        "Nuovo indirizzo: Via Brindisi 18, scala C, int. 4, 70121 Bari",
        "Send it to 6722 Szeged, Petőfi utca 9. 2. em. 4. ajtó please",
        "A piano, a portal and a puerta.",
    ]
    with Masker(key=b"a" * 32, n_workers=1) as m:
        italian, hungarian, words = masked_cells(m, *(("user", t) for t in texts))
    assert "scala" not in italian and "Bari" not in italian
    assert "6722" not in hungarian and "Szeged" not in hungarian and "ajtó" not in hungarian
    assert hungarian.endswith(" please") and words == texts[2]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Thanks, 12 Gull Terrace, Looe PL13 1AB is fine", "Thanks, <"),
        ("Hi Tom, 12 Gull Terrace, Looe PL13 1AB works", "Hi <PERSON_"),
    ],
)
def test_a_greeting_or_a_person_before_an_address_is_no_house(masker, text, kept):
    (out,) = masked_cells(masker, ("user", text))
    assert out.startswith(kept) and "Gull" not in out, out
