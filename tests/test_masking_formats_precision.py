"""What the format readers of this change leave alone (a review's findings): XML names outside a
person's element, logins made of words, speakers that are a program's names or a log's prefix,
a file's name in Korean, vCard properties outside a card, a profile site's own pages, a section
dated "(b. …)"; and what they take whole (a folded vCard line, a chain of hyphenated names).
The sentences are written for these tests."""

from __future__ import annotations

import json

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.login_names import speaker_spans
from agentic_pipeline.masking.detectors.vcard import vcard_fields
from agentic_pipeline.masking.detectors.xml_fields import xml_fields
from agentic_pipeline.masking.names.fields import script_label_values, script_speaker_values


@pytest.fixture(scope="module")
def masker():
    with Masker(key=b"r" * 32, n_workers=1) as m:
        yield m


def test_xml_names_only_inside_a_persons_element_and_no_url_or_team_as_personal():
    config = (
        "<config><name>Primary Server</name><font><family>serif</family></font>"
        "<owner>platform-team</owner><wsa:Address>http://example.org/a</wsa:Address></config>"
    )
    assert xml_fields(config) == []
    person = "<Practitioner><name><family>Brennholt</family></name></Practitioner>"
    assert [person[a:b] for a, b, _ in xml_fields(person)] == ["Brennholt"]


def test_speakers_that_are_steps_errors_or_a_repeated_prefix_are_no_chat():
    assert speaker_spans("step_1: install the dependencies\nstep_2: run the tests") == []
    assert speaker_spans("KeyError: missing key here\nValueError: bad value here") == []
    log = "Ошибка сети: соединение сброшено\nОшибка сети: повтор через 5 с"
    assert script_speaker_values(log) == []
    assert script_label_values("파일 이름: 보고서") == []


def test_vcard_lines_outside_a_card_stay_and_a_folded_line_is_masked_whole():
    text = (
        "BEGIN:VCARD\nADR;TYPE=HOME:;;12 Long Meadow Crescent;Springfieldtown Ce\n ntre;IL;62701\n"
        "END:VCARD\nN: 42 samples\nFN: handler_main"
    )
    found = [(text[a:b], et) for a, b, et in vcard_fields(text)]
    assert found == [
        ("12 Long Meadow Crescent;Springfieldtown Ce\n ntre;IL;62701", "STREET_ADDRESS")
    ]


def test_site_pages_sections_and_hyphen_chains(masker):
    pages, section, chain = masked_cells(
        masker,
        ("user", "see x.com/home, x.com/search and t.me/botfather"),
        ("tool", "see section (b. 2021-05-03 amendment) of the lease"),
        ("user", "Signed: Ana-Maria-Quorvath Dobresku"),
    )
    assert pages == "see x.com/home, x.com/search and t.me/botfather"
    assert section == "see section (b. 2021-05-03 amendment) of the lease"
    assert "Ana" not in chain and "Maria" not in chain and "Quorvath" not in chain


def test_an_email_message_under_an_email_key_keeps_its_subject_and_body(masker):
    """An object under an email key is a message, not an address: its sender and recipients are
    masked, its subject and body are read as text."""
    message = {
        "inbound_email": {
            "sender": "tamsin.q@harbourlane.example",
            "subject": "Gutter overflowing above loading bay four",
            "body": "The downpipe at bay four is blocked again, water is reaching the pallets.",
            "reply_to": {"email": "desk-7@harbourlane.example"},
        }
    }
    (out,) = masked_cells(masker, ("tool", json.dumps(message)))
    email = json.loads(out)["inbound_email"]
    assert email["subject"] == message["inbound_email"]["subject"]
    assert email["body"] == message["inbound_email"]["body"]
    assert email["sender"].startswith("<EMAIL_ADDRESS_")
    assert email["reply_to"]["email"].startswith("<EMAIL_ADDRESS_")
