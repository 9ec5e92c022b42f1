"""Ingestion of the three input formats and the quarantine of malformed records."""

import gzip
import hashlib
import json
import shutil

import pytest
from conftest import chat_episode, transitions, write_jsonl

from agentic_pipeline.ingest import MissingLandingError, ingest_day

DS = "2026-11-28"


def _ingest(data_root):
    result = ingest_day(data_root / "landing" / DS, DS)
    stats = result.stats
    assert stats.records_read == stats.records_accepted + stats.records_quarantined
    assert result.quarantine.num_rows == stats.records_quarantined
    return result


def test_episode_jsonl_is_normalized_with_lineage(data_root):
    path = write_jsonl(data_root / "landing" / DS / "a.jsonl", [chat_episode()])
    result = _ingest(data_root)
    rows = result.steps.to_pylist()
    assert [(r["role"], r["action_type"]) for r in rows] == [
        ("system", "message"),
        ("user", "message"),
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "respond"),
    ]
    assert [r["step"] for r in rows] == list(range(5))
    call = rows[2]
    assert call["tool_name"] == "search_customer" and call["tool_call_id"] == "call_1"
    assert json.loads(call["tool_arguments"]) == {"email": "ann@example.com"}
    assert {r["policy_id"] for r in rows} == {"crm-v2"} and rows[0]["propensity"] == 0.25
    assert rows[0]["outcome_success"] is True and rows[0]["cost_usd"] == 0.002
    line = path.read_bytes().splitlines()[0]
    assert {r["source_sha256"] for r in rows} == {hashlib.sha256(line).hexdigest()}
    assert {r["source_index"] for r in rows} == {1}
    assert rows[0]["source_file"] == "a.jsonl" and rows[0]["ds"] == DS


def test_optional_fields_may_be_absent(data_root):
    minimal = {"episode_id": "m1", "messages": [{"role": "user", "content": "hello"}]}
    write_jsonl(data_root / "landing" / DS / "m.jsonl", [minimal])
    result = _ingest(data_root)
    assert result.stats.episodes == 1 and result.stats.records_quarantined == 0
    row = result.steps.to_pylist()[0]
    assert row["policy_id"] is None and row["propensity"] is None


def test_transition_jsonl_groups_steps_into_episodes(data_root):
    records = transitions()
    # out of order across two files: grouped and sorted by step
    write_jsonl(data_root / "landing" / DS / "t1.jsonl", [records[2], records[0]])
    write_jsonl(data_root / "landing" / DS / "t2.jsonl", [records[1]])
    result = _ingest(data_root)
    rows = result.steps.to_pylist()
    assert result.stats.records_accepted == 3 and result.stats.episodes == 1
    assert [(r["role"], r["action_type"]) for r in rows] == [
        ("assistant", "tool_call"),
        ("tool", "tool_result"),
        ("assistant", "respond"),
        ("user", "message"),
        ("assistant", "finish"),
    ]
    assert rows[0]["tool_call_id"] == rows[1]["tool_call_id"]
    assert rows[0]["task_description"] == "close case 7"
    assert rows[0]["logged_reward"] == 1.0
    assert {r["source_file"] for r in rows} == {"t1.jsonl", "t2.jsonl"}


def test_gzip_files_are_read(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    with gzip.open(folder / "e.jsonl.gz", "wt") as fh:
        for i in range(3):
            fh.write(json.dumps(chat_episode(f"g{i}")) + "\n")
    assert _ingest(data_root).stats.episodes == 3


def test_tau_bench_file_parses_every_episode(data_root, tau_bench_file):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    shutil.copy(tau_bench_file, folder)
    result = _ingest(data_root)
    assert result.stats.episodes == 200
    assert result.stats.records_quarantined == 0
    table = result.steps.to_pandas()
    assert set(table["policy_id"]) == {"gpt-4o"} and set(table["task_type"]) == {"airline"}
    assert (table["action_type"] == "tool_call").sum() == 1164
    assert (table["action_type"] == "tool_result").sum() == 1164
    per_episode = table.groupby("episode_id")["logged_reward"].first()
    assert (per_episode == 1.0).sum() == 84


MALFORMED = {
    "bad json": b'{"episode_id": "x", "messages": [',
    "not an object": b"[1, 2, 3]",
    "unknown shape": b'{"hello": "world"}',
    "missing episode_id": json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(),
    "bad role": json.dumps(
        {"episode_id": "r", "messages": [{"role": "robot", "content": "x"}]}
    ).encode(),
    "messages not list": json.dumps({"episode_id": "l", "messages": "hi"}).encode(),
    "tool result without call": json.dumps(
        {
            "episode_id": "o",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "nope", "content": "{}"},
            ],
        }
    ).encode(),
    "wrong type propensity": json.dumps(
        {"episode_id": "p", "propensity": "high", "messages": [{"role": "user", "content": "x"}]}
    ).encode(),
    "wrong type arguments": json.dumps(
        {
            "episode_id": "w",
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": 42}}
                    ],
                }
            ],
        }
    ).encode(),
    "non utf8": b'{"episode_id": "u", "messages": [{"role": "user", "content": "\xff\xfe"}]}',
    "transition bad step": json.dumps(
        {"episode_id": "t", "step": "one", "action": {"type": "finish"}}
    ).encode(),
    "transition bad action": json.dumps(
        {"episode_id": "t", "step": 0, "action": {"type": "dance"}}
    ).encode(),
    "duplicate episode": json.dumps(chat_episode("dup")).encode(),
    "lone surrogate": b'{"episode_id": "s", "messages": [{"role": "user", "content": "\\ud800"}]}',
    "huge integer": json.dumps(
        {
            "episode_id": "h",
            "usage": {"prompt_tokens": 1e20},
            "messages": [{"role": "user", "content": "x"}],
        }
    ).encode(),
    "email as episode id": json.dumps(
        {"episode_id": "ep-maren.ostby@example.com", "messages": [{"role": "user", "content": "x"}]}
    ).encode(),
    "deep nesting": b'{"episode_id": "d", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


def test_malformed_records_are_quarantined_with_reasons(data_root):
    good = json.dumps(chat_episode("dup")).encode()
    write_jsonl(data_root / "landing" / DS / "bad.jsonl", [good, *MALFORMED.values()])
    result = _ingest(data_root)
    assert result.stats.records_read == 1 + len(MALFORMED)
    assert result.stats.records_accepted == 1
    quarantine = result.quarantine.to_pylist()
    assert len(quarantine) == len(MALFORMED)
    assert all(q["reason"] for q in quarantine)
    # every malformed line is accounted for, by its line number
    assert sorted(q["source_index"] for q in quarantine) == list(range(2, 2 + len(MALFORMED)))
    reasons = " | ".join(q["reason"] for q in quarantine)
    for expected in (
        "invalid JSON",
        "expected an object",
        "unrecognized record shape",
        "missing episode_id",
        "unknown role",
        "must be a list",
        "call that never happened",
        "must be a number",
        "arguments must be a JSON string",
        "not valid UTF-8",
        "non-negative integer",
        "action.type",
        "duplicate episode_id",
    ):
        assert expected in reasons, expected
    # reasons never quote record content
    assert "ann@example.com" not in reasons


def test_truncated_gzip_keeps_what_was_read_and_quarantines_the_rest(data_root):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    noise = [hashlib.sha256(str(i).encode()).hexdigest() * 20 for i in range(50)]  # incompressible
    payload = gzip.compress(
        b"".join(
            json.dumps(chat_episode(f"z{i}", note=noise[i])).encode() + b"\n" for i in range(50)
        )
    )
    (folder / "cut.jsonl.gz").write_bytes(payload[: len(payload) // 2])
    result = _ingest(data_root)
    assert result.stats.records_quarantined == 1
    assert "truncated gzip" in result.quarantine.to_pylist()[0]["reason"]
    assert 0 < result.stats.episodes < 50


def test_duplicate_transition_steps_and_mixed_duplicates_are_quarantined(data_root):
    records = transitions("dupe")
    write_jsonl(data_root / "landing" / DS / "t.jsonl", [*records, records[1]])
    write_jsonl(data_root / "landing" / DS / "e.jsonl", [chat_episode("dupe")])
    result = _ingest(data_root)
    reasons = [q["reason"] for q in result.quarantine.to_pylist()]
    # the repeated step, then the 3 transitions of an episode id already taken by a chat episode
    assert reasons.count("duplicate step number in transition episode") == 1
    assert reasons.count("duplicate episode_id in this day") == 3
    assert result.stats.episodes == 1


def test_missing_landing_folder_is_a_clear_error(data_root):
    with pytest.raises(MissingLandingError, match="no landing folder"):
        ingest_day(data_root / "landing" / "2020-01-01", "2020-01-01")


def test_unknown_files_are_counted_not_read(data_root):
    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", [chat_episode()])
    (folder / "notes.txt").write_text("not a log")
    result = _ingest(data_root)
    assert result.stats.files == 1 and result.stats.files_skipped == 1


def test_landing_through_an_fsspec_url():
    """The landing folder may be any fsspec/UPath URL, here an in-memory filesystem."""
    from upath import UPath

    folder = UPath("memory://agentic-landing/landing") / DS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.jsonl").write_text(json.dumps(chat_episode("mem-1")) + "\n")
    with gzip.open((folder / "b.jsonl.gz").open("wb"), "wt") as fh:
        fh.write(json.dumps(chat_episode("mem-2")) + "\n")
    result = ingest_day(folder, DS)
    assert result.stats.episodes == 2 and result.stats.records_quarantined == 0
    assert result.steps.column("source_file").to_pylist()[0] == "a.jsonl"
