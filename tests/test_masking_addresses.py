"""Issue #21 point 3: postal addresses masked whole (street, unit, city, region, postcode) in
prose, address blocks, ``label: value`` lines, CSV/TSV rows and JSON objects with address keys;
a city, region or country named alone stays in clear, in prose and under a lone ``city`` key.

Every street, city, postcode and sentence here is invented for this test (no corpus value).
"""

import json

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.addresses import (
    address_part,
    field_block_spans,
    is_address_object,
    join_addresses,
    table_spans,
)

KEY = "addresses-test-key-0123456789abcdef01234567"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _masked(masker, *cells: tuple[str, str]) -> list[str]:
    return masked_cells(masker, *cells)


def _gone(out: str, *raw: str) -> None:
    for value in raw:
        assert value not in out, (value, out)


# ------------------------------------------------------------------------------------- prose
@pytest.mark.parametrize(
    ("text", "parts", "after"),
    [
        # a city closing its clause before a lower-case word
        (
            "The tenant, residing at 48 Corvell Street, Dunmere, filed a claim.",
            ("Corvell", "Dunmere"),
            ", filed a claim.",
        ),
        # a city and a country code at the end of a sentence
        ("Her address is 71 Quintrell Road, Harwick, USA.", ("Quintrell", "Harwick", "USA"), "."),
        # a city with lower-case particles, a region code and a postcode
        (
            "Write to 22 Fenwick Close, Villa de la Torre, MZ 31280 soon.",
            ("Fenwick", "Villa", "Torre", "MZ", "31280"),
            " soon.",
        ),
        # a unit, a city on the next line, a state, a ZIP+4 and a country line
        (
            "Postal: 12 Garnet Lane, Apt 5\nBrookhollow, WI 53001-2210\nUnited States",
            ("Garnet", "Apt 5", "Brookhollow", "WI", "53001", "United States"),
            "",
        ),
        # a block: a unit line over the street line, the city and a UK postcode under it
        (
            "Ship to:\nOrla Brannick\nFlat 3, Rowan House\n14 Kestrel Mews\nBrookhollow\nBK4 2PL"
            "\n\nThanks",
            ("Flat 3", "Rowan", "Kestrel", "Brookhollow", "BK4"),
            "\n\nThanks",
        ),
        # a Canadian postcode after the city
        (
            "Send the card to 305 Tamarel Drive, Ossington, ON K2P 1L4 by Friday.",
            ("Tamarel", "Ossington", "K2P", "1L4"),
            " by Friday.",
        ),
        # an Indian PIN in two groups
        (
            "Courier it to 14 Varsha Nagar, Kelmore, 560 087 please.",
            ("Varsha", "Kelmore", "560 087"),
            " please.",
        ),
        # a street without a street-type word, closed by a state code
        (
            "and her address is 555 Larkfield, Brookhollow, NY.",
            ("555", "Larkfield", "Brookhollow"),
            ".",
        ),
        # a street without a street-type word after an address cue, closed by its city
        ("It's at 789 Larkfield, Tarnby. See you there!", ("789", "Larkfield", "Tarnby"), "!"),
        # a street name without a house number before "City, ST ZIP"
        ("Branch: Kestrel Street, Halloway, NV 89012\nTotal: 5", ("Kestrel", "Halloway"), ""),
    ],
)
def test_an_address_in_prose_is_one_span(masker, text, parts, after):
    (out,) = _masked(masker, ("user", text))
    _gone(out, *parts)
    assert out.count("<STREET_ADDRESS_") == 1, out
    assert out.endswith(after) or not after


@pytest.mark.parametrize(
    "text",
    [
        "We flew from Chicago to Denver and then on to Paris.",
        "Product designer, based in Portland, OR. Loves hiking.",
        "Let us meet at the bakery on Kestrel Street at noon.",
        "How about the cafe on Kestrel Avenue at 7 PM?",
        "Come at 5 PM, Denver is lovely then.",
        "The conference is in Berlin, Germany, in May.",
        "I studied at the University of Lornbury, 2019 graduate.",
        "In 2019 Tesla, Ford, GM and others sold 300 Widgets, Gadgets, and more.",
    ],
)
def test_a_place_named_alone_stays(masker, text):
    (out,) = _masked(masker, ("user", text))
    assert out == text


def test_a_street_followed_by_a_sentence_keeps_the_sentence(masker):
    (out,) = _masked(masker, ("user", "I left it at 12 Oakhurst Row, Monday is fine."))
    assert "Oakhurst" not in out and out.endswith(", Monday is fine.")


# -------------------------------------------------------------------------------- structured
def test_csv_rows_with_address_columns_are_masked_row_by_row(masker):
    table = (
        "name,street,city,state,zip,plan\n"
        "Ada Vellery,12 Garnet Lane,Brookhollow,WI,53001,gold\n"
        'Bo Renfrow,"7 Millcote Rd, Apt 2",Tarnby,OR,97001,basic\n'
    )
    (out,) = _masked(masker, ("tool", table))
    _gone(out, "Garnet", "Brookhollow", "53001", "Millcote", "Tarnby", "97001", ",WI,", ",OR,")
    assert out.startswith("name,street,city,state,zip,plan\n")
    assert out.count("<STREET_ADDRESS_") == 2 and ",gold\n" in out and ",basic" in out


def test_a_city_column_without_a_street_stays(masker):
    table = "store,city,opens\nNorth Hall,Brookhollow,09:00\nQuay Kiosk,Tarnby,10:00\n"
    (out,) = _masked(masker, ("tool", table))
    assert "Brookhollow" in out and "Tarnby" in out


def test_address_label_lines_of_one_block(masker):
    text = (
        "Customer record\nStreet: 12 Garnet Lane\nCity: Brookhollow\nState: WI\nZip: 53001\n"
        "Country: Canada\n"
    )
    lone = "Weather report\nCity: Tarnby\nForecast: rain\n"
    out, kept = _masked(masker, ("tool", text), ("tool", lone))
    _gone(out, "Garnet", "Brookhollow", "53001", "State: WI")
    assert "Country: Canada" in out  # a country alone identifies nobody
    assert kept == lone


def test_json_address_objects_are_masked_and_a_city_alone_stays(masker):
    flat = {"street": "12 Garnet Lane", "city": "Brookhollow", "state": "WI", "zip": "53001"}
    nested = {
        "order_id": "#W4410021",
        "shipping_address": {"address1": "7 Millcote Rd", "city": "Tarnby", "postcode": "97001"},
    }
    flight = {"origin": {"city": "Brookhollow", "airport": "BKH"}, "destination": "Tarnby"}
    search = {"city": "Tarnby", "checkin": "2026-12-04", "guests": 2}
    py_repr = str({"address1": "3 Quillet Way", "city": "Ossington", "zip": "30144"})
    a, b, c, d, e = _masked(
        masker,
        ("tool", json.dumps(flat)),
        ("tool", json.dumps(nested)),
        ("tool", json.dumps(flight)),
        ("tool", json.dumps(search)),
        ("tool", py_repr),
    )
    _gone(a, "Garnet", "Brookhollow", '"WI"', "53001")
    _gone(b, "Millcote", "Tarnby", "97001")
    assert "#W4410021" in b  # the order's id is a thing's id: kept for replay
    assert json.loads(c) == flight and json.loads(d) == search  # a city alone stays
    _gone(e, "Quillet", "Ossington", "30144")


def test_an_address_dict_printed_inside_text(masker):
    text = (
        "lookup returned {'name': 'Ada Vellery', 'street': '12 Garnet Lane', 'city': "
        "'Brookhollow', 'zip': '53001'} and the hub {'city': 'Tarnby', 'bay': 4}"
    )
    (out,) = _masked(masker, ("tool", text))
    _gone(out, "Garnet", "Brookhollow", "53001")
    assert out.endswith("the hub {'city': 'Tarnby', 'bay': 4}")


def test_a_shipping_city_alone_is_a_thing_context_and_stays(masker):
    """Decision: an order's city without a street or postcode (a warehouse, a dispatch hub) is
    no personal address; the same city inside the recipient's address object is masked."""
    order = {"order_id": "#W5512", "dispatch": {"city": "Tarnby", "hub": "T2"}}
    (out,) = _masked(masker, ("tool", json.dumps(order)))
    assert json.loads(out) == order


# ------------------------------------------------------------------------------ unit helpers
def test_address_keys_and_objects():
    assert address_part("billingCity") == "city"
    assert address_part("shipping_zip") == "postcode"
    assert address_part("Address Line 1") == "street"
    assert address_part("email_address") is None and address_part("origin") is None
    assert is_address_object(["address1", "city", "zip"])
    assert not is_address_object(["city", "country"])  # no street, no postcode
    assert not is_address_object(["street"])  # one part alone


def test_table_and_block_spans_are_cell_exact():
    text = "id\tstreet\tcity\tzip\n1\t9 Brannock Ave\tHollin\t40213\n"
    ((s, e, *_),) = table_spans(text)
    assert text[s:e] == "9 Brannock Ave\tHollin\t40213"
    block = "Address: 9 Brannock Ave\nPostcode: 40213\n\nCity: Hollin"
    assert [block[s:e] for s, e, *_ in field_block_spans(block)] == ["9 Brannock Ave", "40213"]


def test_joining_needs_a_street_or_a_postcode():
    text = "Tarnby, OR is lovely; 40 Brannock Avenue, Hollin, KY 40213 is mine."
    street = text.index("40 Brannock")
    spans = [(street, street + len("40 Brannock Avenue"), "STREET_ADDRESS", 0.7, "t")]
    ((s, e, *_),) = join_addresses(text, spans)
    assert text[s:e] == "40 Brannock Avenue, Hollin, KY 40213"
