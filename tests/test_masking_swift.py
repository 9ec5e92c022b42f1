"""The parties of SWIFT MT payment fields (``detectors/swift.py``): the ordering customer's and the
beneficiary's account, name and address, found by the field's position; a company stays. Every
message, name and number is written for this test."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.detectors.swift import SwiftFieldRecognizer, swift_parties
from agentic_pipeline.schema import STEP_SCHEMA

FREE = (
    ":20:REF0099\n"
    ":50K:/40110099887766\n"
    "TAVISH ORMEROD\n"
    "3 WILLOWMERE CLOSE\n"
    "BRADFIELD BD7 4QQ\n"
    ":59:/77003311\n"
    "ILSABET VANTERPOOL\n"
    "22 MOORHEN ROW\n"
    ":70:SCHOOL FEES TERM 2\n"
    ":71A:SHA"
)


def _found(text: str) -> list[tuple[str, str]]:
    return [(et, text[s:e]) for s, e, et in swift_parties(text)]


def test_free_format_parties_give_account_name_and_address():
    assert _found(FREE) == [
        ("BANK_ACCOUNT", "40110099887766"),
        ("PERSON", "TAVISH ORMEROD"),
        ("STREET_ADDRESS", "3 WILLOWMERE CLOSE\nBRADFIELD BD7 4QQ"),
        ("BANK_ACCOUNT", "77003311"),
        ("PERSON", "ILSABET VANTERPOOL"),
        ("STREET_ADDRESS", "22 MOORHEN ROW"),
    ]


def test_structured_option_lines_are_masked_by_their_number():
    text = (
        ":50F:/55617798\n1/WENDELINA OKONKWO-BALE\n2/17 TEASEL WAY\n8/FLAT 7\n"
        "3/GB/NORBURY\n4/19790312\n:59:/99001122\nQUELLMARK SUPPLIES LTD\n4 DOCK ROAD"
    )
    found = _found(text)
    assert ("PERSON", "WENDELINA OKONKWO-BALE") in found
    assert ("STREET_ADDRESS", "17 TEASEL WAY") in found
    assert ("STREET_ADDRESS", "GB/NORBURY") in found
    assert ("DATE_OF_BIRTH", "19790312") in found
    assert ("STREET_ADDRESS", "FLAT 7") in found  # line 8 goes on with the line before it
    # a company beneficiary: its account is masked, its name and address stay
    assert ("BANK_ACCOUNT", "99001122") in found
    assert not any("QUELLMARK" in v or "DOCK" in v for _, v in found)


def test_an_account_and_bank_code_option_masks_the_account_only():
    assert _found(":59A:/31415926\nQUELGB2LXXX\n:70:RENT") == [("BANK_ACCOUNT", "31415926")]


def test_a_field_ends_at_the_end_of_its_text_block_and_other_fields_stay():
    text = ":59:/12121212\nMIRABEL DUNCOMBE\n-}\n{5:{CHK:ABCDEF}}"
    assert _found(text) == [("BANK_ACCOUNT", "12121212"), ("PERSON", "MIRABEL DUNCOMBE")]
    assert _found(":70:PAYMENT FOR GOODS\n:71A:OUR\n:32A:261204EUR100,00") == []
    # a tag inside a sentence is no field
    assert _found("the beneficiary line :59: was empty") == []


@pytest.mark.parametrize("entities", [[], ["PERSON"]])
def test_the_recognizer_reports_the_asked_types(entities):
    results = SwiftFieldRecognizer().analyze(FREE, entities)
    assert results and all(not entities or r.entity_type in entities for r in results)


def test_a_payment_message_in_a_tool_result_is_masked_through_the_masker():
    rows = [{"role": "tool", "content": json.dumps({"mt103": FREE})}]
    table = pa.Table.from_pylist(
        [{"ds": "2026-12-04", "episode_id": "e1", "step": i, **r} for i, r in enumerate(rows)],
        schema=STEP_SCHEMA,
    )
    masker = Masker(key="test-key-swift", n_workers=1)
    try:
        out = json.dumps(mask_steps(table, masker, scan=False).masked.to_pylist())
    finally:
        masker.close()
    for value in ("TAVISH", "ORMEROD", "WILLOWMERE", "VANTERPOOL", "77003311", "MOORHEN"):
        assert value not in out
    assert "SCHOOL FEES" in out
