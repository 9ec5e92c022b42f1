"""Issue #11, ingestion side: personal data in unmasked columns (3), bounded input (5), single
records never failing a day (6) and symlinks in landing (7)."""

import datetime as dt
import gzip
import json
import os
import tracemalloc
import uuid
import zlib

import pyarrow as pa
import pytest
from conftest import chat_episode, transitions, write_jsonl
from upath import UPath

from agentic_pipeline.formats import BenchmarkNaming
from agentic_pipeline.ingest import DayIngestor, IngestLimits, ingest_day
from agentic_pipeline.ingest.readers import _open, _SourceRecord
from agentic_pipeline.masking.mask import MASK_COLUMNS
from agentic_pipeline.pii_patterns import identifier_problem, strict_matches
from agentic_pipeline.schema import STEP_SCHEMA

DS = "2026-11-28"
MiB = 1 << 20


def _ingest(folder, **limits):
    result = ingest_day(folder, DS, limits=IngestLimits(**limits) if limits else None)
    stats = result.stats
    assert stats.records_read == stats.records_accepted + stats.records_quarantined
    assert result.quarantine.num_rows == stats.records_quarantined
    assert result.steps.schema == STEP_SCHEMA
    return result


def _reasons(result) -> list[str]:
    return [q["reason"] for q in result.quarantine.to_pylist()]


# --- 3. every column masked, scanned or harmless -----------------------------------------------


def test_timestamps_are_typed_and_unparseable_ones_quarantined(data_root):
    folder = data_root / "landing" / DS
    pii_started = chat_episode("t-bad-start", started_at="Maren Ostby, +1 415-555-0199")
    pii_ts = chat_episode("t-bad-ts")
    pii_ts["messages"][1]["ts"] = "maren.ostby@example.com"
    offset = chat_episode("t-offset", started_at="2026-11-28T12:15:00+02:00")
    offset["messages"][0]["ts"] = "2026-11-28T10:15:01"  # naive: taken as UTC
    write_jsonl(folder / "a.jsonl", [pii_started, pii_ts, offset])
    result = _ingest(folder)
    assert result.steps.schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert result.steps.schema.field("started_at").type == pa.timestamp("us", tz="UTC")
    rows = result.steps.to_pylist()
    assert {r["episode_id"] for r in rows} == {"t-offset"}
    assert rows[0]["started_at"] == dt.datetime(2026, 11, 28, 10, 15, tzinfo=dt.UTC)
    assert rows[0]["ts"] == dt.datetime(2026, 11, 28, 10, 15, 1, tzinfo=dt.UTC)
    assert sorted(_reasons(result)) == [
        "'started_at' is not an ISO-8601 timestamp",
        "'ts' is not an ISO-8601 timestamp",
    ]


def test_source_file_is_relative_and_a_personal_name_is_hashed(data_root):
    folder = data_root / "landing" / DS
    write_jsonl(folder / "2026-11-28.jsonl", [chat_episode("f4")])
    write_jsonl(folder / "maren.ostby@example.com.jsonl", [chat_episode("f1"), b"{bad"])
    write_jsonl(folder / "Maren Ostby 415-555-0199.jsonl", [chat_episode("f2")])
    write_jsonl(folder / "episodes-000.jsonl", [chat_episode("f3")])
    result = _ingest(folder)
    labels = dict(
        zip(
            result.steps.column("episode_id").to_pylist(),
            result.steps.column("source_file").to_pylist(),
            strict=True,
        )
    )
    assert labels["f3"] == "episodes-000.jsonl" and labels["f4"] == "2026-11-28.jsonl"
    for eid in ("f1", "f2"):
        assert labels[eid].startswith("file-") and labels[eid].endswith(".jsonl")
        assert identifier_problem(labels[eid]) is None
    assert labels["f1"] != labels["f2"]
    stored = " ".join(
        result.steps.column("source_file").to_pylist()
        + result.quarantine.column("source_file").to_pylist()
    )
    assert "maren" not in stored.lower() and "555" not in stored and str(folder) not in stored


@pytest.mark.parametrize(
    "field, value",
    [
        ("task_id", "Maren Ostby"),
        ("task_type", "12 Main Street, Springfield"),
        ("policy_id", "maren.ostby@example.com"),
        ("episode_id", "4155550199"),
        ("episode_id", "ep\u00e9-1"),
        ("tool_call_id", "+1 415 555 0199"),
        ("tool_name", "lookup maren"),
    ],
)
def test_identifier_columns_must_be_strict_identifiers(data_root, field, value):
    record = chat_episode("ok-1")
    if field == "task_id":
        record["task"]["id"] = value
    elif field == "tool_call_id":
        record["messages"][2]["tool_calls"][0]["id"] = value
        record["messages"][3]["tool_call_id"] = value
    elif field == "tool_name":
        record["messages"][2]["tool_calls"][0]["function"]["name"] = value
    else:
        record[field] = value
    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", [record, chat_episode("ok-2")])
    result = _ingest(folder)
    assert result.stats.records_accepted == 1
    (reason,) = _reasons(result)
    assert reason.startswith(f"'{field}' ")
    assert value not in reason


REAL_IDS = [
    "gpt-4o",
    "airline",
    "0",
    "49",
    str(uuid.UUID(int=0x123E4567E89B12D3A456426614174000)),
    "call_abc",
    "call_7sB5b8wjbLWZFFFVSFHBLtjR",
    "toolu_01A09q90qw90lq917835lq9",
    "meta-llama/Llama-3-8B-Instruct",
    "crm-efficient-v3",
    "task_update_contact_12345678",
    "gpt-4o-airline-task0-trial0",
    "0b6e2c1a-0000-4000-8000-000000000001:shadow:cand-1",
    "book_reservation",
    "functions.get_weather",
    "20261128-0001",
    "1234567890123456789",  # a snowflake id (19 digits) is longer than any phone number
]


@pytest.mark.parametrize("value", REAL_IDS)
def test_real_identifiers_pass(value):
    assert identifier_problem(value) is None


def test_simulated_days_lose_no_episode_to_the_id_and_timestamp_rules(tmp_path):
    from agentic_pipeline.demo import write_landing

    write_landing(tmp_path, dt.date(2026, 11, 28), 1, 150, seed=3)
    result = _ingest(tmp_path / "landing" / DS)
    assert result.stats.episodes == 150 and result.stats.records_quarantined == 0
    for col in ("started_at", "ts"):  # episodes carry started_at, transitions ts
        days = {t.date() for t in result.steps.column(col).to_pylist() if t is not None}
        assert days == {dt.date(2026, 11, 28)}, col


def test_unmasked_string_columns_hold_no_personal_data(data_root):
    """Every string column that masking copies through is clean after ingestion, whatever the
    landing day holds: the adversarial values all end up in the quarantine."""
    folder = data_root / "landing" / DS
    bad = []
    for i, (field, value) in enumerate(
        [
            ("started_at", "maren.ostby@example.com"),
            ("task_type", "Maren Ostby 12 Main Street"),
            ("policy_id", "+1 415 555 0199"),
            ("task_id", "maren.ostby@example.com"),
        ]
    ):
        record = chat_episode(f"adv-{i}")
        if field == "task_id":
            record["task"]["id"] = value
        else:
            record[field] = value
        bad.append(record)
    tr = transitions("adv-t")
    tr[0]["task_type"] = "Maren Ostby"
    write_jsonl(folder / "maren@example.com.jsonl", [chat_episode("clean"), *bad, *tr])
    result = _ingest(folder)
    assert result.stats.episodes == 1
    unmasked = [
        f.name
        for f in STEP_SCHEMA
        if pa.types.is_string(f.type) and f.name not in MASK_COLUMNS and f.name != "ds"
    ]
    for name in unmasked:
        for value in result.steps.column(name).to_pylist():
            if value is not None:
                assert not list(strict_matches(value)), name
                assert " " not in value and "@" not in value, name


# --- 5. bounded input ------------------------------------------------------------------------


def _gzip_stream(parts) -> bytes:
    """gzip of the concatenated byte strings yielded by ``parts``, compressed as a stream."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [compressor.compress(p) for p in parts]
    out.append(compressor.flush())
    return b"".join(out)


def _good_lines(prefix: str, n: int) -> bytes:
    return b"".join(json.dumps(chat_episode(f"{prefix}{i}")).encode() + b"\n" for i in range(n))


def _peak_while(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_one_huge_line_is_skipped_without_being_held(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    line = (b"a" * MiB for _ in range(48))  # one 48 MiB line, about 48 KiB compressed
    payload = _gzip_stream([_good_lines("h", 3), b'{"x": "', *line, b'"}\n', _good_lines("k", 2)])
    (folder / "one-line.jsonl.gz").write_bytes(payload)
    result, peak = _peak_while(lambda: _ingest(folder, max_record_bytes=MiB))
    assert result.stats.episodes == 5  # lines before and after the long one are kept
    (row,) = result.quarantine.to_pylist()
    assert row["reason"] == f"record exceeds the {MiB}-byte limit" and row["source_index"] == 4
    assert len(row["source_sha256"]) == 64 and len(row["raw_record"]) <= 20_000
    assert peak < 12 * MiB, peak


def test_a_gzip_bomb_stops_at_the_expansion_limit(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    lines = (b"\n" * MiB for _ in range(256))  # 256 MiB of empty lines from ~260 KiB
    (folder / "bomb.jsonl.gz").write_bytes(_gzip_stream([_good_lines("b", 4), *lines]))
    (folder / "z-next.jsonl").write_bytes(_good_lines("n", 2))
    result, peak = _peak_while(lambda: _ingest(folder, max_file_bytes=8 * MiB))
    assert result.stats.episodes == 2  # the bomb is refused whole; the next file is read
    (row,) = result.quarantine.to_pylist()
    assert row["reason"].startswith(f"file expands beyond the {8 * MiB}-byte file limit")
    assert row["source_file"] == "bomb.jsonl.gz"
    assert result.stats.bytes_read == (folder / "z-next.jsonl").stat().st_size
    assert result.stats.refused_by_budget == 0  # a bomb is bad input, not good data refused
    assert peak < 12 * MiB, peak


def test_day_record_limit_quarantines_the_overflow_and_counts_add_up(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    for name in ("a", "b", "c"):
        (folder / f"{name}.jsonl").write_bytes(_good_lines(name, 10))
    result = _ingest(folder, max_day_records=15)
    # smallest first (equal sizes: by name): a fits in the 15 records, b and c not in the 5 left
    assert result.stats.episodes == 10
    rows = result.quarantine.to_pylist()
    assert [(r["source_file"], r["source_index"]) for r in rows] == [("b.jsonl", 0), ("c.jsonl", 0)]
    assert all(r["reason"].startswith("day budget: does not fit what is left") for r in rows)
    assert result.stats.refused_by_budget == 2
    s = result.stats
    assert s.records_read == s.records_accepted + s.records_quarantined


def test_day_byte_limit_cuts_the_day(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(_good_lines("a", 40))
    (folder / "b.jsonl").write_bytes(_good_lines("b", 2))
    size = (folder / "a.jsonl").stat().st_size
    result = _ingest(folder, max_day_bytes=size // 2)
    assert result.stats.episodes == 2  # the small file is read whatever the large one holds
    assert result.stats.bytes_read == (folder / "b.jsonl").stat().st_size
    (reason,) = _reasons(result)
    assert reason.startswith("day budget: does not fit") and "refused whole" in reason


def test_a_json_file_over_its_limit_is_refused(data_root, tau_bench_file):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    (folder / "gpt-4o-airline.json").write_bytes(tau_bench_file.read_bytes())
    result = _ingest(folder, max_json_file_bytes=MiB)
    assert result.stats.episodes == 0 and result.stats.bytes_read == MiB
    assert _reasons(result) == [f"JSON file exceeds the {MiB}-byte limit: the file is not read"]


def test_an_episode_that_expands_by_repetition_is_quarantined(data_root):
    """Episode attributes repeat on every row: a 100 KB description over 2,000 one-word messages
    is a 170 KB record but 200 MB of rows."""
    folder = data_root / "landing" / DS
    wide = chat_episode("wide")
    wide["task"]["description"] = "x " * 50_000
    wide["messages"] = [{"role": "user", "content": "hi"}] * 2_000
    write_jsonl(folder / "a.jsonl", [wide, chat_episode("ok")])
    result = _ingest(folder)
    assert result.stats.episodes == 1 and result.steps.nbytes < MiB
    assert _reasons(result) == [f"episode expands beyond the {16 * MiB}-byte limit"]


def test_day_output_limit_quarantines_the_episodes_over_it(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(_good_lines("a", 10))
    one = _ingest(folder).steps.nbytes // 10
    result = _ingest(folder, max_day_output_bytes=3 * one)
    assert 0 < result.stats.episodes < 10
    assert set(_reasons(result)) == {f"day budget: day output limit ({3 * one}) reached"}


def test_quarantine_raw_text_has_a_budget(data_root):
    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", [b"{bad json " + b"x" * 5_000] * 10)
    result = _ingest(folder, max_quarantine_raw_bytes=12_000)
    raws = result.quarantine.column("raw_record").to_pylist()
    assert result.stats.records_quarantined == 10
    assert sum(r is not None for r in raws) == 2 and sum(len(r) for r in raws if r) <= 12_000


def test_limits_must_be_positive_and_are_all_on_the_resource():
    from dataclasses import fields

    from resources import DataRootResource

    with pytest.raises(ValueError, match="max_day_records"):
        IngestLimits(max_day_records=0)
    resource = DataRootResource(path="/tmp/x", max_record_bytes=1234)
    assert resource.ingest_limits() == IngestLimits(max_record_bytes=1234)
    assert {f.name for f in fields(IngestLimits)} <= set(DataRootResource.model_fields)


# --- 6. a bad record never fails a day -------------------------------------------------------


def test_records_that_used_to_fail_the_day_are_quarantined(data_root):
    folder = data_root / "landing" / DS
    huge_int = b'{"episode_id": "i", "reward": ' + b"9" * 5_001 + b', "messages": []}'
    surrogate_id = b'{"episode_id": "\\ud800", "messages": [{"role": "user", "content": "x"}]}'
    trs = transitions("sur")
    trs[1]["action"]["reply"] = "\ud800"
    write_jsonl(
        folder / "a.jsonl",
        [huge_int, surrogate_id, *(json.dumps(t).encode() for t in trs), chat_episode("ok")],
    )
    result = _ingest(folder)
    assert result.stats.episodes == 1
    reasons = _reasons(result)
    assert "invalid JSON: number too long" in reasons
    assert any(r.startswith("'episode_id' is not a strict identifier") for r in reasons)
    assert reasons.count("value not representable (UnicodeEncodeError)") == len(trs)


def test_a_bad_array_element_costs_only_the_elements_from_it_on(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    elements = [json.dumps({"task_id": i, "trial": 0, "reward": 1.0, "traj": []}) for i in range(3)]
    huge = '{"task_id": 9, "reward": ' + "9" * 5_001 + "}"
    (folder / "gpt-4o-airline.json").write_text(
        "[" + ",".join([elements[0], huge, elements[1]]) + "]"
    )
    (folder / "b.jsonl").write_bytes(_good_lines("b", 1))
    result = _ingest(folder)
    reasons = _reasons(result)
    assert "'messages' is empty" in reasons[0]  # element 0 is parsed on its own
    assert reasons[1].startswith("invalid JSON file: bad element")
    assert result.stats.episodes == 1  # the other file is read


def test_an_unexpected_exception_quarantines_one_record(data_root):
    """A decoded value too deep to re-encode (JSON text cannot carry it on this Python, a reader
    of another format could) quarantines its record with the exception type, not the day."""
    goal: list = []
    node = goal
    for _ in range(5_000):
        node.append([])
        node = node[0]
    record = {**chat_episode("deep"), "task": {"goal": goal}}
    ingestor = DayIngestor(DS)
    ingestor._take(_SourceRecord("a.jsonl", 1, "0" * 64, "{}", value=record), _NAMING, "a")
    folder = data_root / "landing" / DS
    write_jsonl(folder / "b.jsonl", [chat_episode("fine")])
    ingestor.read_file(UPath(folder / "b.jsonl"))
    result = ingestor.finish()
    assert result.stats.episodes == 1 and result.stats.records_read == 2
    assert _reasons(result) == ["record nested too deeply (RecursionError)"]


_NAMING = BenchmarkNaming("p", "t")


def test_an_empty_or_all_quarantined_day_has_the_fixed_schema(data_root):
    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", [b"{bad"])
    assert _ingest(folder).steps.schema == STEP_SCHEMA


# --- 7. symlinks in landing ------------------------------------------------------------------


def test_symlinks_and_files_outside_landing_are_refused_unread(data_root, tmp_path):
    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", [chat_episode("inside")])
    outside = write_jsonl(tmp_path / "elsewhere" / "x.jsonl", [chat_episode("outside")])
    os.symlink("/etc/passwd", folder / "passwd.jsonl")
    os.symlink(outside, folder / "outside.jsonl")
    os.symlink(folder / "a.jsonl", folder / "again.jsonl")  # even one pointing inside
    os.symlink(tmp_path / "missing", folder / "dangling.jsonl")
    result = _ingest(folder)
    assert result.stats.files == 1 and result.stats.files_refused == 4
    assert result.steps.column("episode_id").unique().to_pylist() == ["inside"]
    rows = result.quarantine.to_pylist()
    assert {r["reason"] for r in rows} == {"refused file: a symbolic link"}
    assert all(r["raw_record"] is None for r in rows)
    assert "root:" not in json.dumps(rows)


def test_a_symlinked_landing_day_is_refused(data_root, tmp_path):
    real = tmp_path / "elsewhere"
    write_jsonl(real / "a.jsonl", [chat_episode("outside")])
    (data_root / "landing").mkdir(exist_ok=True)
    os.symlink(real, data_root / "landing" / DS)
    result = _ingest(data_root / "landing" / DS)
    assert result.stats.episodes == 0 and result.stats.files_refused == 1
    assert _reasons(result) == ["refused file: the landing folder is a symbolic link"]


def test_a_file_swapped_for_a_symlink_after_listing_is_not_followed(tmp_path):
    os.symlink("/etc/passwd", tmp_path / "late.jsonl")
    with pytest.raises(OSError):
        _open(UPath(tmp_path / "late.jsonl"))


def test_gzip_test_helper_round_trips():
    assert gzip.decompress(_gzip_stream([b"a", b"b"])) == b"ab"


# --- the asset: limits on the resource, refusals and personal data in the event log ----------


def test_asset_takes_limits_from_the_resource_and_keeps_the_event_log_clean(data_root):
    from dagster import DagsterInstance, materialize

    from agentic_pipeline.storage import DataRoot
    from assets.ingestion import raw_agent_logs
    from resources import DataRootResource, PartitionedParquetIOManager

    folder = data_root / "landing" / DS
    adversarial = chat_episode("adv", task_type="Maren Ostby 12 Main Street")
    write_jsonl(
        folder / "maren.ostby@example.com.jsonl",
        [chat_episode("e0"), chat_episode("e1"), adversarial, chat_episode("e3")],
    )
    os.symlink("/etc/passwd", folder / "passwd.jsonl")
    resources = {
        "data_root": DataRootResource(path=str(data_root), max_day_records=4),
        "io_manager": PartitionedParquetIOManager(path=str(data_root)),
    }
    with DagsterInstance.ephemeral() as instance:
        result = materialize(
            [raw_agent_logs], resources=resources, partition_key=DS, instance=instance
        )
        assert result.success
        logs = " ".join(
            str(e.message) + str(getattr(e.dagster_event, "event_specific_data", ""))
            for e in instance.all_logs(result.run_id)
        )
    mats = {
        m.asset_key.path[-1]: m.metadata
        for m in (
            e.event_specific_data.materialization for e in result.get_asset_materialization_events()
        )
    }
    meta = mats["raw_agent_logs"]
    assert meta["files_refused"].value == 1 and meta["records_read"].value == 5
    assert meta["records_accepted"].value == 2 and meta["records_quarantined"].value == 3
    reasons = mats["raw_quarantine"]["reasons"].value
    assert "refused file" in reasons and "day record limit (4) reached" in reasons
    assert "task_type' is not a strict identifier" in reasons
    for secret in ("maren", "Maren", "Main Street", "/bin/"):
        assert secret not in logs, logs[max(0, logs.find(secret) - 300) : logs.find(secret) + 100]
    steps = DataRoot(data_root).read_partition("restricted", "raw_agent_logs", DS)
    assert steps.schema.field("started_at").type == pa.timestamp("us", tz="UTC")
    assert set(steps.column("source_file").to_pylist()) == {steps.column("source_file")[0].as_py()}
    assert steps.column("source_file")[0].as_py().startswith("file-")
