"""National ids found without a label by their check digits (``detectors/checked_ids.py``), and
labels as German, Dutch and the Nordic languages compound them (``labels.py``). Values invented
for these tests, their check digits computed."""

from __future__ import annotations

import pytest
from stdnum import luhn
from stdnum.cl import rut

from agentic_pipeline.masking.detectors.checked_ids import CheckedIdRecognizer, find_checked_ids
from agentic_pipeline.masking.detectors.label_lists import compound_head_at
from agentic_pipeline.masking.detectors.labels import IdLabelRecognizer


def _found(rec, text: str) -> list[tuple[str, str]]:
    return [(text[r.start : r.end], r.entity_type) for r in rec.analyze(text, [])]


@pytest.mark.parametrize(
    "text, value",
    [
        ("Referee for the fellowship: 17.408.223-5, on file since May.", "17.408.223-5"),
        ("Beneficiaire 93.07.14-215.09 a signé le bail.", "93.07.14-215.09"),
        ("Segurado 30127755 8 ZQ7 aguarda reembolso.", "30127755 8 ZQ7"),
        ("Sökande 791122-3183 har lämnat in blanketten.", "791122-3183"),
        ("ผู้สมัคร 3-1045-00278-15-3 ยื่นเอกสารแล้ว", "3-1045-00278-15-3"),
        ("申请人 330102198707142039 已提交材料", "330102198707142039"),
    ],
)
def test_a_national_id_with_its_check_digits_is_found_without_a_label(text, value):
    assert (value, "ID_DOCUMENT") in _found(CheckedIdRecognizer(), text)


def test_the_check_digit_decides_without_a_label():
    body = "17408223"
    wrong = next(d for d in "0123456789" if d != rut.calc_check_digit(body))
    assert find_checked_ids(f"Referee: {rut.format(body + wrong)}.") == []
    assert (
        find_checked_ids(
            f"Applicant 791122-318{(int(luhn.calc_check_digit('791122318')) + 1) % 10}"
        )
        == []
    )


def test_with_a_label_a_wrong_check_digit_still_counts():
    body = "17408223"
    wrong = next(d for d in "0123456789" if d != rut.calc_check_digit(body))
    value = rut.format(body + wrong)
    assert (value, "TAX_ID") in _found(IdLabelRecognizer(), f"RUT {value}")


@pytest.mark.parametrize(
    "text",
    [
        "Order 17408223 shipped; call 555-214-9087 before 2026-11-30.",
        "Invoice 20261130-0042 and build 4.17.2-9981 passed.",
        "Total 12.408.223,50 EUR was booked on 30.11.2026.",
        "Trace 330102198707142038 and 330102298707142039 failed.",
    ],
)
def test_digits_alone_dates_amounts_and_versions_are_no_checked_ids(text):
    assert find_checked_ids(text) == []


@pytest.mark.parametrize(
    "word, head",
    [
        ("Wunschkennzeichen", "kennzeichen"),
        ("Krankenversichertennummer", "versichertennummer"),
        ("Girokontonummer", "kontonummer"),
        ("Registration", None),  # an English word ends no compound
        ("Kennzeichen", None),  # the label itself: no compound
    ],
)
def test_a_label_may_end_a_compound(word, head):
    at = compound_head_at(word)
    assert (word[at:].lower() if at is not None else None) == head


@pytest.mark.parametrize(
    "text, value, entity",
    [
        ("Wunschkennzeichen: B-QX 4410", "B-QX 4410", "VEHICLE_ID"),
        ("Krankenversichertennummer: A771209345", "A771209345", "INSURANCE_ID"),
        ("NRIC/FIN: T7712093J", "T7712093J", "ID_DOCUMENT"),
        ("Cartão de Cidadão n.º: 30127755 8 ZQ7", "30127755 8 ZQ7", "ID_DOCUMENT"),
        ("Anställningsnummer: QX-4410", "QX-4410", "USER_ID"),
        ("Placas del vehículo: MXR-771-C", "MXR-771-C", "VEHICLE_ID"),
        ("Schülernummer: HB-12-4471", "HB-12-4471", "USER_ID"),
        ("Please pay to sort code 20-18-33 today", "20-18-33", "BANK_ACCOUNT"),
    ],
)
def test_labels_of_more_languages_compounds_and_two_labels_after_a_slash(text, value, entity):
    assert (value, entity) in _found(IdLabelRecognizer(), text)


@pytest.mark.parametrize(
    "text",
    [
        "Anmeldung am 12-03-24 im Büro.",  # a date, no bank label before it
        "The patient/doctor ratio was 1:4 on the ward.",
        "Postnummer 2400 and 20-18-33 without a bank word.",
    ],
)
def test_no_id_without_a_label_that_owns_the_value(text):
    assert _found(IdLabelRecognizer(), text) == []


def test_a_forms_record_keyed_by_these_labels_is_masked_through_the_masker():
    """A form turned into a JSON record: each key names its value's type (compound, slash and
    "n.º" keys), and an unlabelled checked id in its free text is masked too."""
    import json

    import pyarrow as pa

    from agentic_pipeline.masking import Masker, mask_steps
    from agentic_pipeline.schema import STEP_SCHEMA

    record = {
        "Wunschkennzeichen": "B-QX 4410",
        "NRIC/FIN": "T7712093J",
        "Cartão de Cidadão n.º": "30127755 8 ZQ7",
        "Kundennr.": "A-77120",
        "Schülernummer": "HB-12-4471",
        "note": "Referee 17.408.223-5 signed the form.",
    }
    row = {"ds": "2026-11-28", "episode_id": "ep1", "step": 0, "role": "tool"}
    row |= {"action_type": "tool_result", "content": json.dumps(record, ensure_ascii=False)}
    table = pa.Table.from_pylist(
        [{f.name: row.get(f.name) for f in STEP_SCHEMA}], schema=STEP_SCHEMA
    )
    masker = Masker(key="test-key-checked-ids", n_workers=1)
    try:
        out = json.loads(mask_steps(table, masker, scan=False).masked.column("content")[0].as_py())
    finally:
        masker.close()
    for key, value in record.items():
        if key != "note":
            assert value not in out[key] and out[key].startswith("<"), key
    assert "17.408.223-5" not in out["note"] and "signed the form" in out["note"]
