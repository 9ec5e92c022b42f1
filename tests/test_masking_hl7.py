"""HL7 version 2 segments pasted into a log: the personal fields are masked by their position
(``detectors/hl7.py``), codes, facilities and observations stay. Every value here is invented
for this test."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.hl7 import hl7_fields

MESSAGE = (
    "MSH|^~\\&|LABSYS|RIVERTON|EHR|RIVERTON|202604011030||ORU^R01|M7781|P|2.5.1\r"
    "PID|1||50211873^^^RIV^MR~521-44-9087^^^SSA^SS||QUARRINGTON^ODELIA^M||19650214|F|||"
    "77 Larch Hollow Rd^^Tamsford^OH^43920^USA||(740)555-0168^PRN^PH\r"
    "NK1|1|QUARRINGTON^CORWIN|SPO||(740)555-0177\r"
    "PV1|1|I|W2^214^B||||1093847562^OSTRANDER^SABELINE^R^^DR^MD|||CAR\r"
    "OBX|1|NM|GLU^Glucose||5.4|mmol/L|||||F|||||2231^YELLAND^OSWIN"
)


def test_each_personal_field_is_found_by_its_position():
    found = {(MESSAGE[s:e], et) for s, e, et in hl7_fields(MESSAGE)}
    assert ("50211873", "MEDICAL_RECORD") in found  # PID-3, type code MR
    assert ("521-44-9087", "US_SSN") in found  # PID-3's second repetition, type code SS
    assert ("QUARRINGTON^ODELIA^M", "PERSON") in found  # PID-5
    assert ("19650214", "DATE_OF_BIRTH") in found  # PID-7
    assert ("77 Larch Hollow Rd^^Tamsford^OH^43920^USA", "STREET_ADDRESS") in found  # PID-11
    assert ("QUARRINGTON^CORWIN", "PERSON") in found  # NK1-2
    assert ("OSTRANDER^SABELINE^R", "PERSON") in found  # PV1-7, the attending doctor
    assert ("YELLAND^OSWIN", "PERSON") in found  # OBX-16, the responsible observer
    values = {v for v, _ in found}
    assert not values & {"RIVERTON", "GLU^Glucose", "5.4", "CAR", "F", "202604011030"}


def test_separators_are_the_messages_own():
    text = "MSH#@*%&#LAB#X\nPID#1##7731@@@H@MR##YELLAND@CORWIN"
    found = {(text[s:e], et) for s, e, et in hl7_fields(text)}
    assert found == {("7731", "MEDICAL_RECORD"), ("YELLAND@CORWIN", "PERSON")}


@pytest.mark.parametrize(
    "text",
    [
        "The PID| prefix is what our parser looks for.",
        "a|b|c\nx|y|z",
        "PIDX|1||NOT^A^SEGMENT",
    ],
)
def test_text_that_is_no_segment_has_no_fields(text):
    assert hl7_fields(text) == []


def test_a_pasted_message_is_masked_through_the_masker():
    with Masker(key="hl7-test-key-0123456789abcdef0123456789ab", n_workers=1) as masker:
        (out,) = masked_cells(masker, ("tool", "Lab feed excerpt:\n" + MESSAGE))
    for value in ("QUARRINGTON", "ODELIA", "CORWIN", "OSTRANDER", "SABELINE", "YELLAND", "OSWIN"):
        assert value not in out, out
    for value in ("50211873", "521-44-9087", "19650214", "Larch Hollow", "555-0168", "1093847562"):
        assert value not in out, out
    assert "GLU^Glucose||5.4|mmol/L" in out and out.startswith("Lab feed excerpt:\nMSH|^~\\&|")
