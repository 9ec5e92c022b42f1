"""PII masking library: real Presidio + spaCy (no mocks), small corpora."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from agentic_pipeline.masking import (
    DEV_MASKING_KEY,
    Masker,
    PIILeakError,
    is_dev_key,
    mask_steps,
    pseudonym_for,
    scan_for_leaks,
)
from agentic_pipeline.masking.engine import CHUNK_CHARS
from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS
from agentic_pipeline.masking.router import Route, route
from agentic_pipeline.schema import STEP_SCHEMA

_PAD = "0" * (TOKEN_HEX_CHARS - 8)  # test tokens: 8 digits written, padded to the width

REPO = Path(__file__).resolve().parents[1]
TAU = REPO.parent / "shared" / "external" / "tau-bench"
KEY = "test-key-123"


@pytest.fixture(scope="module")
def masker():
    m = Masker(key=KEY, n_workers=1)
    yield m
    m.close()


def _table(rows: list[dict]) -> pa.Table:
    base = {"ds": "2026-11-28", "episode_id": "ep1"}
    full = [{**base, "step": i, **r} for i, r in enumerate(rows)]
    return pa.Table.from_pylist(full, schema=STEP_SCHEMA)


def _crm_rows() -> list[dict]:
    record = {
        "customer": {
            "customer_id": "cus_0a1b2c3d",
            "first_name": "Priya",
            "last_name": "Castellano",
            "email": "priya.c@example.org",
            "phone": "+1 415-555-0134",
            "dob": "1984-02-29",
            "address": "41 Orchard Lane, Springfield, IL 62704",
            "card_number": "4111 1111 1111 1111",
            "tier": "gold",
            "balance": 120.5,
            "tags": [{"label": "vip", "since": "2021-01-01"}],
        }
    }
    return [
        {
            "role": "user",
            "action_type": "message",
            "content": "Hi, it's priya here, my mail is priya.c@example.org. Flight HAT069 on "
            "2024-05-20 please, reservation NO6JO3.",
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "search_customer",
            "tool_call_id": "call_abc123",
            "tool_arguments": json.dumps({"email": "priya.c@example.org"}),
        },
        {
            "role": "tool",
            "action_type": "tool_result",
            "tool_name": "search_customer",
            "tool_call_id": "call_abc123",
            "content": json.dumps(record),
        },
        {
            "role": "assistant",
            "action_type": "respond",
            "content": "Thanks Priya Castellano, I found your account (card ending in 1111).",
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "update_crm",
            "tool_call_id": "call_def456",
            "tool_arguments": json.dumps(
                {
                    "id": "cus_0a1b2c3d",
                    "fields": {"phone": "415 555 0199"},
                    "note": json.dumps({"comment": "Call Priya tomorrow"}),
                }
            ),
        },
    ]


# ----------------------------------------------------------------------------- unit level
def test_pseudonyms_are_keyed_normalized_and_consistent():
    a = pseudonym_for("  Priya.C@Example.org ", "EMAIL_ADDRESS", KEY)
    assert a == pseudonym_for("priya.c@example.org", "EMAIL_ADDRESS", KEY)
    assert a.startswith("<EMAIL_ADDRESS_") and len(a) == len("<EMAIL_ADDRESS_>") + TOKEN_HEX_CHARS
    assert a != pseudonym_for("priya.c@example.org", "EMAIL_ADDRESS", "other-key")
    assert pseudonym_for("(415) 555-0134", "PHONE_NUMBER", KEY) == pseudonym_for(
        "+1 415 555 0134", "PHONE_NUMBER", KEY
    )
    assert is_dev_key(DEV_MASKING_KEY) and not is_dev_key(KEY)


def test_key_rules_and_router():
    for k, et in [
        ("email", "EMAIL_ADDRESS"),
        ("firstName", "PERSON"),
        ("last_name", "PERSON"),
        ("address1", "STREET_ADDRESS"),
        ("billing_address", "STREET_ADDRESS"),
        ("dob", "DATE_OF_BIRTH"),
        ("card_number", "CREDIT_CARD"),
        ("ssn", "US_SSN"),
        ("iban", "IBAN_CODE"),
        ("user_id", "USER_ID"),
        ("phone", "PHONE_NUMBER"),
        ("X-User-Id", "USER_ID"),  # an HTTP header's own field
        ("x-contact-email", "EMAIL_ADDRESS"),
        # a birth word and a year word: a birth year, a date of birth's part
        ("birth_year", "DATE_OF_BIRTH"),
        ("yearOfBirth", "DATE_OF_BIRTH"),
        ("dogum_yili", "DATE_OF_BIRTH"),
    ]:
        assert key_entity(k) == et, k
    for k in (
        "flight_number",
        "date",
        "amount",
        "id",
        "customer_id",
        "payment_id",
        "status",
        "email_verified",
        "tool_name",
        "X-Request-Id",
        "xname",
        "x_name",  # a chart's axis, no HTTP header
        "year",
        "birth",
        "year_of_study",
    ):
        assert key_entity(k) is None, k
    assert route("") is Route.SKIP and route("economy") is Route.SKIP
    assert route("HAT069") is Route.SKIP and route("2024-05-20T10:00:00Z") is Route.SKIP
    assert route("tova_reyes_4417") is Route.REGEX and route("Hello there Mia") is Route.NER


def test_email_analysis_makes_no_network_call(tmp_path):
    code = textwrap.dedent("""
        import sys
        calls = []
        def hook(event, args):
            if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
                calls.append(event)
        sys.addaudithook(hook)
        from agentic_pipeline.masking.engine import TextAnalyzer
        spans = TextAnalyzer().analyze(["write to jane.doe@example.co.uk or bob@corp.io"], True)
        assert sum(s[2] == "EMAIL_ADDRESS" for s in spans[0]) >= 2, spans
        print("CALLS", len(calls))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "CALLS 0" in out.stdout


# ----------------------------------------------------------------------------- mask_steps
def test_mask_steps_structure_consistency_and_audit(masker):
    table = _table(_crm_rows())
    res = mask_steps(table, masker)
    out = res.masked
    assert out.schema == table.schema and out.num_rows == table.num_rows
    for col in ("tool_call_id", "tool_name", "role", "action_type", "step", "episode_id"):
        assert out.column(col).to_pylist() == table.column(col).to_pylist()
    content = out.column("content").to_pylist()
    args = out.column("tool_arguments").to_pylist()
    everything = json.dumps(out.to_pylist())
    for raw in (
        "priya",
        "Castellano",
        "example.org",
        "0134",
        "0199",
        "1984-02-29",
        "41 Orchard Lane",
        "4111",
        "Springfield",
    ):
        assert raw.lower() not in everything.lower(), raw
    email_tok = pseudonym_for("priya.c@example.org", "EMAIL_ADDRESS", KEY)
    assert email_tok in content[0] and email_tok in args[1] and email_tok in content[2]
    result = json.loads(content[2])["customer"]
    # customer ids of people get the same keyed pseudonym everywhere (issue #12, point 6)
    cid_tok = pseudonym_for("cus_0a1b2c3d", "USER_ID", KEY)
    assert result["customer_id"] == cid_tok and result["tier"] == "gold"
    assert "cus_0a1b2c3d" not in everything
    assert result["balance"] == 120.5
    assert result["tags"] == [{"label": "vip", "since": "2021-01-01"}]
    assert result["first_name"] == pseudonym_for("Priya", "PERSON", KEY)
    assert result["first_name"] in content[0]  # first name alone, lower case, propagated
    for kept in ("HAT069", "2024-05-20", "NO6JO3"):
        assert kept in content[0]
    call = json.loads(args[4])
    assert call["id"] == cid_tok and "Priya" not in call["note"]
    assert json.loads(call["note"])["comment"].startswith("Call <PERSON_")
    audit = res.audit
    assert set(audit.column_names) >= {
        "ds",
        "episode_id",
        "step",
        "field",
        "entity_type",
        "detector",
        "score",
        "pseudonym",
    }
    audit_text = json.dumps(audit.to_pylist())
    assert "priya" not in audit_text.lower() and "0134" not in audit_text
    fields = set(audit.column("field").to_pylist())
    assert "tool_arguments.$.email" in fields and "content.$.customer.email" in fields
    assert "tool_arguments.$.note.comment" in fields
    detectors = set(audit.column("detector").to_pylist())
    assert {"key_rule", "known_entity"} <= detectors
    assert res.stats["entities"]["EMAIL_ADDRESS"] >= 3 and res.stats["fields"]["content"] > 0


def test_same_value_same_token_across_calls_and_pandas(masker):
    df = _table(_crm_rows()).to_pandas()
    res = mask_steps(df, masker)
    assert isinstance(res.masked, pd.DataFrame) and len(res.masked) == len(df)
    again = mask_steps(_table(_crm_rows()[:2]), masker)  # another partition, no CRM record
    tok = pseudonym_for("priya.c@example.org", "EMAIL_ADDRESS", KEY)
    assert tok in again.masked.column("content")[0].as_py() and tok in res.masked["content"].iloc[0]
    assert tok in again.masked.column("tool_arguments")[1].as_py()


def test_bad_input_is_recorded_not_fatal(masker):
    deep = "x"
    for _ in range(100):
        deep = {"a": [deep]}
    huge = ("lorem ipsum dolor " * (CHUNK_CHARS // 9)) + " contact: zed.q@example.com"
    rows = [
        {"role": "user", "action_type": "message", "content": ""},
        {"role": "tool", "action_type": "tool_result", "content": huge},
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "t",
            "tool_arguments": "{not json, email bo@example.net",
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "t",
            "tool_arguments": json.dumps(deep),
        },
        {
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "t",
            "tool_arguments": "[" * 5000 + "]" * 5000,
        },
        {
            "role": "user",
            "action_type": "message",
            "content": "Bonjour, je m'appelle Élodie Durand, écrivez à elodie@example.fr 你好",
        },
        {"role": "user", "action_type": "message", "content": None},
    ]
    res = mask_steps(_table(rows), masker)
    content = res.masked.column("content").to_pylist()
    args = res.masked.column("tool_arguments").to_pylist()
    assert content[0] == "" and content[6] is None
    assert "zed.q@example.com" not in content[1] and "<EMAIL_ADDRESS_" in content[1]
    assert "bo@example.net" not in args[2] and "elodie@example.fr" not in content[5]
    guard = [r for r in res.audit.to_pylist() if r["detector"] == "guard"]
    kinds = {(r["row"], r["entity_type"]) for r in guard}
    assert {(1, "CHUNKED"), (2, "UNPARSEABLE"), (3, "TRUNCATED"), (4, "UNPARSEABLE")} <= kinds

    df = pd.DataFrame(
        {
            "episode_id": ["e"],
            "step": [0],
            "content": ["bad \ud800 tom@example.com"],
            "tool_arguments": [b"\xff\xfe{}"],
        },
        dtype=object,
    )
    res = mask_steps(df, masker)
    assert "tom@example.com" not in res.masked["content"].iloc[0]
    assert {"UNPARSEABLE"} <= set(res.audit.column("entity_type").to_pylist())


def test_scan_finds_leaks_without_revealing_them():
    table = _table(
        [
            {
                "role": "user",
                "action_type": "message",
                "content": "card 4111 1111 1111 1111, ssn 123-45-6789, ip 10.1.2.3, "
                "a@b.io, user tova_reyes_4417, Mr Wojciechowski",
            },
            {"role": "user", "action_type": "message", "content": f"<PERSON_0123abcd{_PAD}> ok"},
        ]
    )
    leaks = scan_for_leaks(table, known_values={"ep1": ["Wojciechowski"]})
    kinds = {lk.entity_type for lk in leaks}
    expected = {"CREDIT_CARD", "US_SSN", "IP_ADDRESS", "EMAIL_ADDRESS", "USER_ID", "KNOWN_VALUE"}
    assert expected <= kinds
    assert all(lk.row == 0 for lk in leaks)
    err = PIILeakError(leaks)
    text = str(err) + " ".join(str(lk) for lk in leaks)
    for raw in ("4111", "6789", "10.1.2.3", "a@b.io", "mia_li", "Wojciechowski"):
        assert raw not in text


# ----------------------------------------------------------------------------- labeled corpora
def test_recall_on_small_labeled_corpora():
    from agentic_pipeline.demo import generate_episodes
    from benchmarks.masking_eval.evaluation import (
        HIGH_RECALL,
        ZERO_LEAK,
        episodes_corpus,
        measure_recall,
        tau_bench_corpus,
    )

    day = dt.date(2026, 11, 28)
    corpora = [episodes_corpus(generate_episodes(day, 12, 3), day)]
    if (TAU / "gpt-4o-airline.json").exists():
        corpora.append(
            tau_bench_corpus(TAU / "gpt-4o-airline.json", TAU / "airline-users.json", limit=6)
        )
    with Masker(key=KEY, n_workers=2) as m:
        for corpus in corpora:
            res = mask_steps(corpus.table, m)
            figures = measure_recall(corpus.table, res.masked, corpus.planted)
            assert figures, "corpus has no planted values"
            for et in ZERO_LEAK:
                assert figures.get(et, {"leaked": 0})["leaked"] == 0, (et, figures[et])
            for et in HIGH_RECALL:
                if et in figures:
                    assert figures[et]["recall"] >= 0.98, (et, figures[et])
    if len(corpora) == 1:
        pytest.skip(f"tau-bench data not found at {TAU}: only the simulated corpus was checked")


def test_self_introduced_name_without_a_record_is_masked_everywhere(masker):
    """A name only ever given in a greeting (no CRM record read) is masked and propagated."""
    rows = [
        {
            "ds": "2026-11-29",
            "episode_id": "intro",
            "step": 0,
            "role": "user",
            "action_type": "message",
            "content": "Hello! this is Angelica Burgess. My login issue (case_c806cd) is sorted.",
        },
        {
            "ds": "2026-11-29",
            "episode_id": "intro",
            "step": 1,
            "role": "assistant",
            "action_type": "respond",
            "content": "All done, Angelica: case case_c806cd is closed.",
        },
    ]
    result = mask_steps(_table(rows), masker)
    texts = result.masked.column("content").to_pylist()
    assert not any("Angelica" in t or "Burgess" in t for t in texts)
    assert "case_c806cd" in texts[0] and "case_c806cd" in texts[1]  # ids are kept


def test_known_value_scan_reads_json_values_not_keys():
    """A customer surnamed "Case" does not turn the JSON key "case" into a leak."""
    rows = pa.Table.from_pylist(
        [
            {
                "episode_id": "e",
                "content": '{"case": {"case_id": "case_42a5e9", "status": "closed"}}',
            },
            {"episode_id": "e", "content": '{"note": "called Mr Case back"}'},
        ]
    )
    leaks = scan_for_leaks(rows, known_values={"e": ["Case"]}, columns=["content"])
    assert [leak.row for leak in leaks if leak.detector == "known_value"] == [1]
    assert {leak.row for leak in leaks} == {1}  # "Mr Case" is also a name in context


def test_a_span_only_spacy_calls_a_person_is_masked_where_it_stands(masker):
    """The name model's floor keeps spaCy's PERSON entities that carry no non-person signal
    (never below plain Presidio), but a product heading spaCy alone calls a person is not
    repeated through the episode."""
    from conftest import masked_cells

    heading, question = masked_cells(
        masker,
        ("assistant", "### Rice Cooker (Product ID: 5512093345)\n- **Large, Steel**: $45"),
        ("user", "Does the rice cooker come with a lid?"),
    )
    assert "Rice Cooker" not in heading  # what plain Presidio would mask too
    assert question == "Does the rice cooker come with a lid?"


def test_a_birth_date_after_a_casual_birthday_word(masker):
    from conftest import masked_cells

    (out,) = masked_cells(masker, ("user", "my bday is 2/9/88, and the party is on 3/9/24"))
    assert "2/9/88" not in out and "<DATE_OF_BIRTH_" in out and "3/9/24" in out


def test_a_number_the_episode_uses_as_a_things_id_stays_where_it_looks_like_a_phone(masker):
    """A shop's catalog maps product names to ids that validate as phones; the id the episode
    also uses under ``product_id`` is the product's and stays in clear everywhere (replay needs
    it), while a contact list's numbers, never a thing's id, are masked."""
    from conftest import masked_cells

    catalog = json.dumps({"Garden Trowel": "7730412295", "Desk Fan": "2144401873"})
    details = json.dumps({"product_id": "2144401873", "name": "Desk Fan", "price": 30})
    out_catalog, out_details = masked_cells(masker, ("tool", catalog), ("tool", details))
    assert json.loads(out_catalog)["Desk Fan"] == "2144401873"
    assert json.loads(out_details)["product_id"] == "2144401873"
    contacts = json.dumps({"Mom": "4155550123", "Dad": "4155550199"})
    out_contacts, said = masked_cells(masker, ("tool", contacts), ("user", "call 4155550123"))
    assert "4155550123" not in out_contacts + said and "4155550199" not in out_contacts


def test_a_whole_date_of_an_adult_is_a_birth_date_without_a_birth_word(masker):
    """Plain Presidio masks every date; we keep dates of orders and visits, and mask a whole
    date old enough to be an adult's birth date even when no birth word stands before it."""
    from conftest import masked_cells

    note, form, recent = masked_cells(
        masker,
        ("tool", "Visit note. Pt: Corvin Ashdale, 17 October 1958, seen for a cough."),
        ("user", "Abonnent: Ilka Brenner (geb. am Rand vermerkt: 02.11.1973)"),
        ("user", "My order from 2026-03-02 arrived on 03/05/2026, a day late."),
    )
    assert "1958" not in note and "<DATE_OF_BIRTH_" in note and note.endswith("cough.")
    assert "1973" not in form
    assert recent == "My order from 2026-03-02 arrived on 03/05/2026, a day late."


def test_presidio_context_words_raise_weak_patterns_as_whole_words():
    """Presidio's context enhancer works on our NER-only engine (its keywords come from the
    lower-cased tokens when spaCy has no lemmas) and counts a context word only whole."""
    from agentic_pipeline.masking.engine import build_analyzer

    analyzer = build_analyzer()

    def score(text: str, entity: str) -> float:
        found = analyzer.analyze(text, language="en", entities=[entity])
        return max((r.score for r in found), default=0.0)

    assert score("wire it to my bank 00123456789 today", "US_BANK_NUMBER") >= 0.4
    assert score("wire it to 00123456789 today", "US_BANK_NUMBER") < 0.4
    assert score("the policy covers up to 1000000 dollars", "US_DRIVER_LICENSE") < 0.4
