"""Personal values of XML pasted into a log (``detectors/xml_fields.py``): elements named like the
JSON keys, FHIR and CDA name parts, a ``value`` attribute, ISO 20022 address parts. The values are
invented for these tests."""

from __future__ import annotations

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.xml_fields import xml_fields


@pytest.fixture(scope="module")
def masker():
    with Masker(key=b"x" * 32, n_workers=1) as m:
        yield m


def test_elements_named_like_personal_keys_and_name_parts():
    text = (
        "<ns:patient><ns:name><ns:given>Odalys</ns:given><ns:family>Brennholt</ns:family>"
        '</ns:name><birthTime value="19630411"/><gender value="F"/>'
        "<email>o.b@example.org</email><status>active</status></ns:patient>"
    )
    found = {(text[a:b], et) for a, b, et in xml_fields(text)}
    assert found == {
        ("Odalys", "PERSON"),
        ("Brennholt", "PERSON"),
        ("19630411", "DATE_OF_BIRTH"),
        ("o.b@example.org", "EMAIL_ADDRESS"),
    }


def test_xml_names_dates_and_payment_addresses_are_masked(masker):
    cda, vendor, payment = masked_cells(
        masker,
        (
            "tool",
            "<patient><name><given>Odalys</given><family>Brennholt</family></name>\n"
            '<birthTime value="19630411"/></patient>',
        ),
        ("tool", "<LastName>Quenneville</LastName><FirstName>Darius</FirstName><State>FL</State>"),
        (
            "tool",
            "<PstlAdr><StrtNm>Rue des Lilas</StrtNm><BldgNb>12</BldgNb><PstCd>69003</PstCd>"
            "<TwnNm>Lyon</TwnNm><Ctry>FR</Ctry></PstlAdr>",
        ),
    )
    # in an episode of its own: a value masked once is masked everywhere in its episode
    (other,) = masked_cells(
        masker, ("tool", '<Amt Ccy="EUR" value="120.00"/><city>Lyon</city><status>paid</status>')
    )
    assert "Odalys" not in cda and "Brennholt" not in cda and "19630411" not in cda
    assert "Quenneville" not in vendor and "Darius" not in vendor and "<State>FL</State>" in vendor
    assert "Lilas" not in payment and "69003" not in payment and "<Ctry>FR</Ctry>" in payment
    assert other == '<Amt Ccy="EUR" value="120.00"/><city>Lyon</city><status>paid</status>'


def test_a_vcards_name_address_and_birthday_are_masked(masker):
    card = (
        "BEGIN:VCARD\nVERSION:3.0\nN:Vandermolst;Lotte;;;\nFN:Lotte Vandermolst\n"
        "ADR;TYPE=HOME:;;Kerkstraat 9;Gent;;9000;België\nBDAY:1984-07-02\nEND:VCARD"
    )
    (out,) = masked_cells(masker, ("tool", card))
    for value in ("Vandermolst", "Lotte", "Kerkstraat", "Gent", "9000", "België", "1984"):
        assert value not in out, value
    assert out.startswith("BEGIN:VCARD\nVERSION:3.0\nN:<PERSON_") and "ADR;TYPE=HOME:;;<" in out
