"""``key=value`` pairs inside log lines and URLs, and ids by labels of more languages and shapes
(``detectors/field_labels.py``, ``labels.yaml``). The values are invented for these tests."""

from __future__ import annotations

import json

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker


@pytest.fixture(scope="module")
def masker():
    with Masker(key=b"p" * 32, n_workers=1) as m:
        yield m


def test_personal_keys_inside_log_lines_and_query_strings(masker):
    logfmt, query = masked_cells(
        masker,
        (
            "tool",
            "ts=2026-11-03 level=info doc_type=passport doc_number=X71Q3P9Z2 "
            'email="a.b@example.org" retries=3 password=hunter22',
        ),
        ("tool", "GET /ipn?status=Completed&address_street=17+Old+Quarry+Lane&amount=12.50"),
    )
    assert "X71Q3P9Z2" not in logfmt and "a.b@example.org" not in logfmt
    assert "hunter22" not in logfmt and "retries=3" in logfmt and "doc_type=passport" in logfmt
    assert "Quarry" not in query and "status=Completed&" in query and "&amount=12.50" in query


def test_ids_under_labels_of_more_languages_and_shapes(masker):
    client, tax, polish, plate, request, born = masked_cells(
        masker,
        ("tool", "Numéro client : 6.412.907.55\nTotal : 1.234,50 €"),
        ("tool", "Identifikationsnummer: 58 302 174 964"),
        ("tool", "dowód osobisty, seria i nr: AZB 512378"),
        ("user", "mobil sudah sampai (plat B 7712 QWE)"),
        ("tool", "Agent : j'ai besoin du numéro de votre passeport.\nUsager : 22BE71504"),
        ("user", "Their daughter Ines (b. 3 Sept 1899) lived here. Plan b. 3 May 2026 stays."),
    )
    assert "6.412.907.55" not in client and "1.234,50" in client
    assert "302 174" not in tax
    assert "512378" not in polish and "AZB" not in polish
    assert "7712" not in plate and "QWE" not in plate
    assert "22BE71504" not in request
    assert "1899" not in born and "Plan b. 3 May 2026 stays." in born


def test_an_object_inside_a_text_inside_a_json_value_is_read_by_its_keys(masker):
    """A tool result's "note" holds an HTTP status line and the JSON body after it: the body's
    keys type its values as they do in a text cell, and the status line stays."""
    body = {"userName": "qorvane77", "extension": {"staffNumber": "QX-55120", "team": "Sales"}}
    note = json.dumps({"note": f"POST /api/v2/staff  201 Created\n{json.dumps(body)}", "pri": 2})
    (masked,) = masked_cells(masker, ("tool", note))
    inner = json.loads(masked)["note"]
    assert inner.startswith("POST /api/v2/staff  201 Created\n")
    assert "qorvane77" not in inner and "QX-55120" not in inner
    assert json.loads(inner[inner.index("{") :])["extension"]["team"] == "Sales"


def test_ids_of_staff_and_dispute_columns_registers_with_a_region_and_credentials(masker):
    """A table's "<role>_id" and "dispute_id" columns, a Brazilian council's register with its
    state ("CRM-SP"), a practitioner's credential before "#", an Irish PPS number and a Spanish
    health card's regional code."""
    staff, disputes, register, credential, pps, card = masked_cells(
        masker,
        ("tool", "courier_id|name|zone\nCQ55021|Ilse Vandermolt|North\nCQ66130|Bram Tesk|South"),
        ("tool", "dispute_id,cardholder,amount\nDQ-55120331,Orla Venn,12.50"),
        ("user", "Receita assinada por Dr. Aurelio Quintas, CRM-SP 551207."),
        ("user", "Massage with Orla Venn, LMT #330184 on Friday."),
        ("user", "Applicant 2 — PPS 7712345TA"),
        ("user", "Paciente: Lia Monte  CIPA/TSI: QRTX7712345580"),
    )
    assert "CQ55021" not in staff and "CQ66130" not in staff and "North" in staff
    assert "DQ-55120331" not in disputes and "12.50" in disputes
    assert "551207" not in register and "330184" not in credential
    assert "7712345TA" not in pps and "QRTX7712345580" not in card


def test_an_unquoted_personal_value_of_a_logfmt_line_ends_before_the_next_pair(masker):
    """``email=<e-mail> status=ok``: the e-mail is masked and the pairs after it stay."""
    (out,) = masked_cells(masker, ("tool", "WARN notify email=rudo.b@quillnet.org status=ok n=2"))
    assert "rudo.b@quillnet.org" not in out and out.endswith(" status=ok n=2"), out
