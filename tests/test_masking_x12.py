"""ASC X12 health-care segments pasted into a log: the personal elements are masked by their
position (``detectors/x12.py``); organisations, codes, amounts and dates of service stay. Every
value here is invented for this test."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.x12 import x12_elements

CLAIM = (
    "ST*837*0021*005010X222A1~\n"
    "BHT*0019*00*44120*20261103*1432*CH~\n"
    "NM1*85*2*LAKESHORE FAMILY CLINIC*****XX*1427093318~\n"
    "N3*12 HARBOR POINT DR~\n"
    "N4*PORT ELLWYN*MI*49501~\n"
    "PER*IC*BILLING OFFICE*TE*6165550142~\n"
    "NM1*IL*1*QUILLFEATHER*ANSELM*R***MI*XKJ882201377~\n"
    "N3*4471 BRAMBLEWICK CT*APT 3~\n"
    "N4*ORLEANDER*WV*26105~\n"
    "DMG*D8*19740918*M~\n"
    "REF*SY*512889034~\n"
    "SBR*P*18*GRP55190******CI~\n"
    "CLM*PCN7730041*245.00***11:B:1*Y*A*Y*Y~\n"
    "PER*IC*TAVISHA ONDRACEK*TE*3045550199~"
)


def test_each_personal_element_is_found_by_its_position():
    found = {(CLAIM[s:e], et) for s, e, et in x12_elements(CLAIM)}
    assert ("QUILLFEATHER*ANSELM*R", "PERSON") in found  # NM1-03..05 of a person (NM1-02 = 1)
    assert ("XKJ882201377", "INSURANCE_ID") in found  # NM1-09 after the qualifier MI
    assert ("4471 BRAMBLEWICK CT*APT 3~\nN4*ORLEANDER*WV*26105", "STREET_ADDRESS") in found
    assert ("19740918", "DATE_OF_BIRTH") in found
    assert ("512889034", "US_SSN") in found  # REF*SY
    assert ("GRP55190", "INSURANCE_ID") in found  # SBR-03
    assert ("PCN7730041", "REFERENCE_ID") in found  # CLM-01, the patient's control number
    assert ("TAVISHA ONDRACEK", "PERSON") in found and ("3045550199", "PHONE_NUMBER") in found
    assert ("1427093318", "US_NPI") in found  # a provider's NPI, even of an organisation
    values = {v for v, _ in found}
    # an organisation, its address, a contact that is a department, amounts and codes stay
    assert not values & {"LAKESHORE FAMILY CLINIC", "12 HARBOR POINT DR", "BILLING OFFICE"}
    assert not any("PORT ELLWYN" in v or "245.00" in v or "20261103" in v for v in values)


def test_separators_are_the_interchanges_own():
    isa = (
        "ISA|00|          |00|          |ZZ|SUBMITTER01    |ZZ|RECEIVER01     |261103|1432|^|"
        "00501|000000021|0|P|>!"
    )
    assert len(isa) == 106
    text = (
        isa + "GS|HC|S1|R1|20261103|1432|21|X|005010X222A1!NM1|QC|1|VARNHOLT|IMRE!DMG|D8|19880207"
    )
    found = {(text[s:e], et) for s, e, et in x12_elements(text)}
    assert found == {("VARNHOLT|IMRE", "PERSON"), ("19880207", "DATE_OF_BIRTH")}


@pytest.mark.parametrize(
    "text",
    [
        "See REF*SY in the companion guide for the SSN qualifier.",  # one segment id: no X12
        "NM1*IL*1*is how the subscriber loop starts",
        "Order REF*2231 and DMG*12 were shipped.",
    ],
)
def test_text_that_is_no_transaction_has_no_elements(text):
    assert x12_elements(text) == []


def test_a_pasted_claim_is_masked_through_the_masker():
    with Masker(key="x12-test-key-0123456789abcdef0123456789ab", n_workers=1) as masker:
        (out,) = masked_cells(masker, ("tool", "Clearing-house response:\n" + CLAIM))
    for value in ("QUILLFEATHER", "ANSELM", "BRAMBLEWICK", "ORLEANDER", "26105", "TAVISHA"):
        assert value not in out, out
    for value in ("XKJ882201377", "19740918", "512889034", "GRP55190", "PCN7730041"):
        assert value not in out, out
    assert "NM1*85*2*LAKESHORE FAMILY CLINIC*" in out and "N4*PORT ELLWYN*MI*49501~" in out
