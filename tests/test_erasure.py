"""Erasure of a person under the real masking key (issue #11, points 1, 2 and 8).

1. ``erase`` hashes with the value of ``AGENTIC_PIPELINE_MASKING_KEY`` (not its name) and finds the
   person from the warehouse after retention deleted the raw days;
2. a person given by one identifier is erased with every identifier linked to them in the stored
   data, without pulling in a stranger who shares their name;
8. without a key and without explicit development mode nothing is masked, erased or exported.
"""

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import write_jsonl
from dagster import AssetKey, DagsterEventType, DagsterInstance

from agentic_pipeline.demo import generate_episodes, write_landing
from agentic_pipeline.masking import DEV_MASKING_KEY, pseudonym_for
from agentic_pipeline.masking import keys as masking_keys
from agentic_pipeline.retention import apply_retention
from agentic_pipeline.storage import DataRoot
from cli.main import main as cli_main

KEY_ENV = masking_keys.MASKING_KEY_ENV
DEV_ENV = masking_keys.DEV_MODE_ENV
REAL_KEY = "s3cret-test-key-7f1c9a-e04b2d6c81f5"  # a real (non-development) key
DAY = dt.date(2026, 10, 5)


def _receipt(root: Path) -> tuple[dict, str]:
    (path,) = (root / "warehouse" / "erasure_receipts").glob("*.json")
    text = path.read_text()
    return json.loads(text), text


def _stored_text(root: Path, zone: str, asset: str) -> str:
    data = DataRoot(root)
    parts = []
    for ds in data.partitions(zone, asset):
        table = data.read_partition(zone, asset, ds)
        parts.extend(json.dumps(r, default=str) for r in table.to_pylist())
    return "\n".join(parts)


def _episode_ids(root: Path, zone: str, asset: str) -> set[str]:
    data = DataRoot(root)
    return {
        e
        for ds in data.partitions(zone, asset)
        for e in data.read_partition(zone, asset, ds, columns=["episode_id"])
        .column("episode_id")
        .to_pylist()
    }


# --- point 1: the key's value, and the warehouse alone ------------------------------------------


def test_erase_uses_the_key_value_and_finds_the_person_after_retention(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv(KEY_ENV, REAL_KEY)
    monkeypatch.delenv(DEV_ENV, raising=False)
    root = tmp_path / "data"
    write_landing(root, DAY, 1, 3, seed=5, transition_share=0.0)
    person = next(  # a customer whose CRM record (phone, card) the agent looked up
        ep.customer
        for ep in generate_episodes(DAY, 3, seed=5)
        if ep.customer["card_number"] in json.dumps(ep.record["messages"])
    )
    assert cli_main(["materialize", "--start", DAY.isoformat(), "--data-dir", str(root)]) == 0
    email_token = pseudonym_for(person["email"], "EMAIL_ADDRESS", REAL_KEY)
    masked = _stored_text(root, "warehouse", "masked_trajectories")
    assert email_token in masked  # masking used the variable's value
    assert pseudonym_for(person["email"], "EMAIL_ADDRESS", KEY_ENV) not in masked

    # retention: the raw days and landing files are gone, the warehouse stays
    deleted = apply_retention(DataRoot(root), DAY + dt.timedelta(days=40), 30, "test-run")
    assert {d.asset for d in deleted} >= {"raw_agent_logs", "landing"}
    assert DataRoot(root).partitions("restricted", "raw_agent_logs") == []

    capsys.readouterr()
    assert cli_main(["erase", "--subject", person["email"], "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert person["email"] not in out
    receipt, text = _receipt(root)
    assert receipt["pseudonyms"]["EMAIL_ADDRESS"] == email_token
    linked = {(x["entity_type"], x["pseudonym"]) for x in receipt["linked"]}
    assert ("PHONE_NUMBER", pseudonym_for(person["phone"], "PHONE_NUMBER", REAL_KEY)) in linked
    assert ("CREDIT_CARD", pseudonym_for(person["card_number"], "CREDIT_CARD", REAL_KEY)) in linked
    masked = _stored_text(root, "warehouse", "masked_trajectories")
    audit = _stored_text(root, "warehouse", "pii_audit")
    for _, token in linked | {("EMAIL_ADDRESS", email_token)}:
        if token.startswith("<"):
            assert token not in masked and token not in audit
    assert receipt["verified_clean"] is True
    for value in (person["email"], person["phone"], person["card_number"], person["name"]):
        assert value not in text


# --- point 2: a person, not a string -------------------------------------------------------------

DAYS = [dt.date(2026, 10, 6), dt.date(2026, 10, 7)]
SAME_PERSON = ("first_name", "last_name", "phone", "card_number", "customer_id", "address", "dob")


def _as(record: dict, old: dict, new: dict, fields) -> dict:
    """``record`` with ``old``'s values of ``fields`` replaced by ``new``'s, everywhere."""
    text = json.dumps(record)
    for f in fields:
        text = text.replace(json.dumps(str(old[f]))[1:-1], json.dumps(str(new[f]))[1:-1])
    return json.loads(text)


@pytest.fixture(scope="module")
def two_days(tmp_path_factory):
    """Day 1: Ann writes from her email. Day 2: Ann again, from another email but with her name,
    phone, card, customer id and address; and a stranger who is also called Ann (same name)."""
    root = tmp_path_factory.mktemp("person") / "data"
    ann_ep, filler = generate_episodes(DAYS[0], 2, seed=21)
    again, namesake = generate_episodes(DAYS[1], 2, seed=21)
    ann = ann_ep.customer
    second = _as(again.record, again.customer, ann, SAME_PERSON)
    stranger = _as(namesake.record, namesake.customer, ann, ("first_name", "last_name"))
    write_jsonl(root / "landing" / DAYS[0].isoformat() / "e.jsonl", [ann_ep.record, filler.record])
    write_jsonl(root / "landing" / DAYS[1].isoformat() / "e.jsonl", [second, stranger])
    start, end = DAYS[0].isoformat(), DAYS[1].isoformat()
    assert cli_main(["materialize", "--start", start, "--end", end, "--data-dir", str(root)]) == 0
    people = {
        "ann": ann,
        "ann_second_email": again.customer["email"],
        "stranger": namesake.customer,
        "ann_episodes": {ann_ep.record["episode_id"], second["episode_id"]},
        "kept": {filler.record["episode_id"], stranger["episode_id"]},
    }
    return root, people


def test_a_name_alone_cannot_be_erased(two_days, capsys):
    root, people = two_days
    name = f"{people['ann']['first_name']} {people['ann']['last_name']}"
    before = sorted((p, p.stat().st_mtime) for p in (root / "warehouse").rglob("*.parquet"))
    assert cli_main(["erase", "--subject", name, "--data-dir", str(root)]) == 2
    assert "alone does not identify" in capsys.readouterr().out
    after = sorted((p, p.stat().st_mtime) for p in (root / "warehouse").rglob("*.parquet"))
    assert before == after


def test_erasing_by_email_erases_the_person_everywhere_but_not_a_namesake(two_days):
    root, people = two_days
    ann, stranger = people["ann"], people["stranger"]
    assert cli_main(["erase", "--debug", "--subject", ann["email"], "--data-dir", str(root)]) == 0
    for zone, asset in (
        ("restricted", "raw_agent_logs"),
        ("warehouse", "masked_trajectories"),
        ("warehouse", "pii_audit"),
        ("warehouse", "replayed_episodes"),
    ):
        assert _episode_ids(root, zone, asset) == people["kept"], asset
    landing = "".join(p.read_text() for p in (root / "landing").rglob("*.jsonl"))
    for value in (ann["email"], people["ann_second_email"], ann["phone"], ann["card_number"]):
        assert value not in landing
    assert stranger["email"] in landing and ann["first_name"] in landing  # the namesake stays

    receipt, text = _receipt(root)
    key = DEV_MASKING_KEY  # tests run in explicit development mode (conftest)
    linked = {x["pseudonym"]: x for x in receipt["linked"]}
    phone = pseudonym_for(ann["phone"], "PHONE_NUMBER", key)
    card = pseudonym_for(ann["card_number"], "CREDIT_CARD", key)
    second_email = pseudonym_for(people["ann_second_email"], "EMAIL_ADDRESS", key)
    customer = pseudonym_for(ann["customer_id"], "USER_ID", key)  # customer ids are masked
    first_name = pseudonym_for(ann["first_name"], "PERSON", key)
    assert {phone, card, second_email, customer, first_name} <= set(linked)
    assert linked[phone]["strength"] == "identifying"
    assert linked[first_name]["strength"] == "generic"  # shared by strangers: links nobody
    assert "same record as" in linked[second_email]["reason"]
    assert pseudonym_for(stranger["phone"], "PHONE_NUMBER", key) not in linked
    for value in (*ann.values(), people["ann_second_email"], stranger["email"]):
        if isinstance(value, str) and len(value) > 3:
            assert value not in text
    assert receipt["episodes_removed"] == 2
    assert receipt["verification"]["leftovers"] == []
    assert receipt["verified_clean"] is True
    masked = _stored_text(root, "warehouse", "masked_trajectories")
    assert first_name in masked  # the namesake keeps her (shared) first-name token
    for token in (phone, card, second_email, pseudonym_for(ann["email"], "EMAIL_ADDRESS", key)):
        assert token not in masked


# --- point 8: no key, no masking ----------------------------------------------------------------


def test_the_key_comes_from_the_variable_value_or_explicit_dev_mode():
    assert masking_keys.masking_key({KEY_ENV: REAL_KEY}) == REAL_KEY
    assert masking_keys.masking_key({DEV_ENV: "1"}) == DEV_MASKING_KEY
    for env in ({}, {DEV_ENV: "0"}, {KEY_ENV: DEV_MASKING_KEY}, {KEY_ENV: ""}):
        with pytest.raises(masking_keys.MissingMaskingKeyError, match=KEY_ENV):
            masking_keys.masking_key(env)


def test_landing_file_labels_are_keyed_with_the_same_key(monkeypatch):
    """Ingestion's hashed file names use the masking key resolved like masking resolves it."""
    from resources.data_root import DataRootResource

    resource = DataRootResource(path="unused")
    monkeypatch.setenv(KEY_ENV, REAL_KEY)
    assert resource.file_name_key() == masking_keys.masking_key() == REAL_KEY
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.setenv(DEV_ENV, "1")
    assert resource.file_name_key() == DEV_MASKING_KEY
    monkeypatch.delenv(DEV_ENV)
    assert resource.file_name_key() is None  # ingestion's own key; masking then refuses the day


def test_without_key_nothing_is_masked_erased_or_exported(data_root, monkeypatch, capsys):
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv(DEV_ENV, raising=False)
    write_landing(data_root, DAY, 1, 2, seed=1)
    args = ["--data-dir", str(data_root)]
    assert cli_main(["materialize", "--start", DAY.isoformat(), *args]) == 2
    out = capsys.readouterr().out
    assert KEY_ENV in out and DEV_ENV in out and len(out.strip().splitlines()) == 1
    with DagsterInstance.from_config(str(data_root / "dagster_home")) as instance:
        assert instance.get_runs() == []  # refused before anything ran
    assert cli_main(["erase", "--subject", "someone@example.com", *args]) == 2
    assert KEY_ENV in capsys.readouterr().out
    out_file = data_root / "export.jsonl"
    assert (
        cli_main(
            ["export", "--start", DAY.isoformat(), "--format", "sft", "--out", str(out_file), *args]
        )
        == 2
    )
    assert not out_file.exists()

    # the asset itself (a schedule, the UI) fails once, without retries, naming the variable
    from assets.definitions import build_definitions

    defs = build_definitions(str(data_root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance,
            partition_key=DAY.isoformat(),
            asset_selection=[
                AssetKey("raw_agent_logs"),
                AssetKey("raw_quarantine"),
                AssetKey("masked_trajectories"),
                AssetKey("pii_audit"),
                AssetKey("withheld_episodes"),
            ],
            raise_on_error=False,
        )
        assert not result.success
        failures = [e for e in result.all_events if e.event_type == DagsterEventType.STEP_FAILURE]
        assert len(failures) == 1
        assert KEY_ENV in failures[0].step_failure_data.error.message
        assert not any(
            e.event_type == DagsterEventType.STEP_UP_FOR_RETRY for e in result.all_events
        )
    assert DataRoot(data_root).partitions("warehouse", "masked_trajectories") == []


def test_development_mode_is_announced_once_per_command(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv(DEV_ENV, "1")
    monkeypatch.setattr(masking_keys, "_announced", False)
    root = tmp_path / "data"
    write_landing(root, DAY, 2, 2, seed=2)
    end = (DAY + dt.timedelta(days=1)).isoformat()
    code = cli_main(
        [
            "materialize",
            "--start",
            DAY.isoformat(),
            "--end",
            end,
            "--select",
            "raw_agent_logs,masked_trajectories",
            "--data-dir",
            str(root),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    said = (captured.out + captured.err).lower()
    assert said.count("development key") == 1  # one loud notice for the command, not one per day
    assert "public development key" in said and DEV_ENV.lower() in said


# --- linking rules on a hand-made warehouse (no masking run needed) ------------------------------


def _tok(value: str, kind: str) -> str:
    return pseudonym_for(value, kind, REAL_KEY)


def _warehouse(root: Path, episodes: dict[str, list[dict]]) -> DataRoot:
    import pyarrow as pa

    rows = [
        {"episode_id": ep, "step": i, "content": json.dumps(cell)}
        for ep, cells in episodes.items()
        for i, cell in enumerate(cells)
    ]
    data = DataRoot(root)
    data.write_partition(
        "warehouse", "masked_trajectories", "2026-10-08", pa.Table.from_pylist(rows)
    )
    return data


def test_linking_stays_inside_the_subjects_record(tmp_path):
    from agentic_pipeline.erasure import plan_erasure

    email = _tok("ann@example.com", "EMAIL_ADDRESS")
    phone = _tok("4155550134", "PHONE_NUMBER")
    agent = _tok("agent.bob@acme.example", "EMAIL_ADDRESS")
    other_phone = _tok("2125550199", "PHONE_NUMBER")
    data = _warehouse(
        tmp_path,
        {
            # Ann's record holds her phone and her agent's email; a search lists another customer
            "ep-1": [
                {"customer": {"email": email, "phone": phone, "agent_email": agent}},
                {"results": [{"email": email}, {"phone": other_phone}]},
            ],
            "ep-2": [{"caller": {"phone": phone}}],  # Ann again, by phone only
            "ep-3": [{"customer": {"phone": other_phone}}],  # the other customer
            "ep-4": [{"agent": {"email": agent}}],  # the agent's own episode
        },
    )
    plan = plan_erasure(data, "ann@example.com", REAL_KEY)
    assert plan.episodes_by_day == {"2026-10-08": {"ep-1", "ep-2"}}
    linked = {x["pseudonym"] for x in plan.linked}
    assert phone in linked and agent not in linked and other_phone not in linked


def test_a_name_counts_with_a_birth_date_but_not_alone(tmp_path):
    from agentic_pipeline.erasure import plan_erasure

    name = _tok("Ann Lee", "PERSON")
    dob = _tok("1980-04-02", "DATE_OF_BIRTH")
    data = _warehouse(
        tmp_path,
        {
            "ep-1": [{"passenger": {"name": name, "dob": dob}}],
            "ep-2": [{"passenger": {"name": name, "dob": _tok("1991-01-01", "DATE_OF_BIRTH")}}],
        },
    )
    with pytest.raises(ValueError, match="alone does not identify"):
        plan_erasure(data, "Ann Lee", REAL_KEY)
    plan = plan_erasure(data, ["Ann Lee", "1980-04-02"], REAL_KEY)
    assert plan.episodes_by_day == {"2026-10-08": {"ep-1"}}


def test_a_customer_id_kept_in_clear_finds_the_person(tmp_path):
    from agentic_pipeline.erasure import plan_erasure

    email = _tok("ann@example.com", "EMAIL_ADDRESS")
    data = _warehouse(
        tmp_path,
        {
            "ep-1": [{"customer": {"customer_id": "cus_ann00042", "email": email}}],
            "ep-2": [{"customer_id": "cus_ann000421"}],  # another customer, a longer id
            "ep-3": [{"note": f"wrote from {email}"}],  # Ann's email, in free text
        },
    )
    plan = plan_erasure(data, "cus_ann00042", REAL_KEY)
    assert plan.episodes_by_day == {"2026-10-08": {"ep-1", "ep-3"}}
    assert [x["entity_type"] for x in plan.linked] == ["EMAIL_ADDRESS"]
    assert plan.pseudonyms == {
        "CUSTOMER_ID": pseudonym_for("cus_ann00042", "CUSTOMER_ID", REAL_KEY)
    }


def test_linked_values_are_recovered_from_raw_rows_to_find_unmasked_days(tmp_path):
    import pyarrow as pa

    from agentic_pipeline.erasure import plan_erasure

    ann = {"email": "ann@example.com", "phone": "+1 415 555 0134"}
    masked = {
        "email": _tok(ann["email"], "EMAIL_ADDRESS"),
        "phone": _tok(ann["phone"], "PHONE_NUMBER"),
    }
    data = _warehouse(tmp_path, {"ep-1": [{"customer": masked}]})
    raw = [
        ("2026-10-08", "ep-1", json.dumps({"customer": ann})),
        ("2026-10-09", "ep-9", f"please call me back at {ann['phone']}"),  # not masked yet
        ("2026-10-09", "ep-8", "someone else entirely"),
    ]
    for day in ("2026-10-08", "2026-10-09"):
        rows = [{"episode_id": ep, "step": 0, "content": c} for ds, ep, c in raw if ds == day]
        data.write_partition("restricted", "raw_agent_logs", day, pa.Table.from_pylist(rows))
    plan = plan_erasure(data, ann["email"], REAL_KEY)
    assert plan.episodes_by_day == {"2026-10-08": {"ep-1"}, "2026-10-09": {"ep-9"}}
    assert ann["phone"] in plan.clear_values  # in memory only, never in the receipt
    assert {e["episode_id"] for e in plan.episodes} == {"ep-1", "ep-9"}


def test_the_rematerialization_plan_is_plain_python_over_names_and_the_window():
    """Erased days re-run what is downstream of masking (where it is still stored); the stored
    selection days whose look-back window covers an erased day re-run the selection alone."""
    from agentic_pipeline.erasure import rematerialization_runs

    runs = rematerialization_runs(
        ["2026-11-03", "2026-11-01"],
        ["episode_rewards", "policy_selection"],
        masked_days=["2026-11-01"],  # 11-03 lost its masked partition: nothing to re-run there
        selection_days=["2026-11-01", "2026-11-02", "2026-11-04", "2026-11-05", "2026-11-09"],
        selection_asset="policy_selection",
        window_days=3,
    )
    assert runs == [
        ("2026-11-01", ["episode_rewards", "policy_selection"]),
        ("2026-11-02", ["policy_selection"]),
        ("2026-11-04", ["policy_selection"]),
        ("2026-11-05", ["policy_selection"]),
    ]


def test_a_rewritten_landing_file_keeps_its_mode(tmp_path):
    from upath import UPath

    from agentic_pipeline.erasure import erase_landing_file
    from agentic_pipeline.ingest import IngestLimits

    path = tmp_path / "episodes.jsonl"
    path.write_text('{"episode_id": "e1", "x": 1}\n{"episode_id": "e2", "x": 2}\n')
    path.chmod(0o600)
    assert erase_landing_file(UPath(path), {"e1"}, None, IngestLimits()).removed == 1
    assert path.stat().st_mode & 0o777 == 0o600
    assert '"e1"' not in path.read_text() and '"e2"' in path.read_text()
