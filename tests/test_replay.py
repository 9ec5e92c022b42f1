"""Replay facts: agreement with the simulator's truth, tau-bench figures, corrupted logs."""

import datetime as dt
import hashlib
import io
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from upath import UPath

from agentic_pipeline.demo import RETRY_SHARE, generate_episodes, write_landing
from agentic_pipeline.demo.truth import is_destructive, is_financial_write
from agentic_pipeline.environments.cassette import Cassette
from agentic_pipeline.ingest import DayIngestor, ingest_day
from agentic_pipeline.replay import COLUMNS, replay_day, to_arrow
from agentic_pipeline.risk import AIRLINE_RULES, CRM_RULES, detect_tool_set

DAY = dt.date(2026, 3, 2)
N_EPISODES = 300
SEED = 11
TAU_BENCH = Path(__file__).resolve().parents[2] / "shared/external/tau-bench"
FACTS = {
    "success": "success",
    "premature_finish": "premature_finish",
    "loop": "loop_detected",
    "financial_write": "financial_writes",
    "destructive": "destructive_actions",
    "human_takeover": "human_takeover",
}


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """A day of simulated logs in both formats, ingested, with the truth per episode."""
    root = tmp_path_factory.mktemp("sim")
    summary = write_landing(root, DAY, 1, N_EPISODES, seed=SEED, transition_share=0.4)
    assert summary["days"][0]["transition_format"] > 50
    result = ingest_day(root / "landing" / DAY.isoformat(), DAY.isoformat())
    assert result.stats.records_quarantined == 0
    # the same episodes as write_landing's (which retries some tasks)
    again = generate_episodes(DAY, N_EPISODES, SEED, retry_share=RETRY_SHARE)
    episodes = {e.record["episode_id"]: e for e in again}
    return result.steps.to_pandas(), episodes


def _mask(steps: pd.DataFrame, episodes: dict) -> pd.DataFrame:
    """Keyed pseudonyms for every planted personal value (and cus_ ids), consistently."""
    masked = steps.copy()
    values: dict[str, str] = {}
    for ep in episodes.values():
        for key, value in ep.customer.items():
            if isinstance(value, str) and len(value) > 3 and "@" not in value:
                digest = hashlib.sha256(f"k:{value}".encode()).hexdigest()[:8]
                values[value] = f"<{key.upper()}_{digest}>"
    pattern = re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))
    emails = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

    def token(value: str) -> str:
        return f"<EMAIL_ADDRESS_{hashlib.sha256(f'k:{value}'.encode()).hexdigest()[:8]}>"

    def mask(text):
        if not isinstance(text, str):
            return text
        text = pattern.sub(lambda m: values[m.group(0)], text)
        return emails.sub(lambda m: token(m.group(0)), text)

    for column in ("content", "tool_arguments", "task_description", "task_goal"):
        masked[column] = [mask(t) for t in masked[column]]
    return masked


def confusion(replayed: pd.DataFrame, episodes: dict) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for fact, column in FACTS.items():
        counts: Counter = Counter()
        for row in replayed.itertuples():
            truth = bool(episodes[row.episode_id].truth[fact])
            got = bool(getattr(row, column))
            counts[("TP" if got else "FN") if truth else ("FP" if got else "TN")] += 1
        out[fact] = counts
    return out


def _check_agreement(replayed: pd.DataFrame, episodes: dict, label: str) -> None:
    assert len(replayed) == len(episodes)
    table = confusion(replayed, episodes)
    print(f"\nconfusion counts ({label}, {len(replayed)} episodes):")
    for fact, c in table.items():
        agree = (c["TP"] + c["TN"]) / len(replayed)
        print(
            f"  {fact:17s} TP={c['TP']:3d} FP={c['FP']:3d} FN={c['FN']:3d} TN={c['TN']:3d}"
            f"  agreement={agree:.3f}"
        )
        assert agree >= 0.99, (fact, c)
        assert c["TP"] > 0, f"{fact} was never planted: the test proves nothing"
    for row in replayed.itertuples():  # counts, not just presence
        truth = episodes[row.episode_id].truth
        assert row.financial_writes == truth["financial_write"]
        assert row.destructive_actions == truth["destructive"]


def test_replay_facts_agree_with_the_simulator_truth(simulated):
    steps, episodes = simulated
    replayed = replay_day(steps)
    assert list(replayed.columns) == list(COLUMNS)
    assert set(replayed["replay_status"]) == {"ok"}
    assert set(replayed["success_source"]) == {"environment"}
    assert set(replayed["tool_set"]) == {"crm"}
    _check_agreement(replayed, episodes, "raw")


def test_replay_on_masked_rows_gives_the_same_facts(simulated):
    steps, episodes = simulated
    masked = _mask(steps, episodes)
    assert not masked["tool_arguments"].dropna().str.contains("@").any()
    replayed = replay_day(masked)
    _check_agreement(replayed, episodes, "masked")
    raw = replay_day(steps)
    facts = [c for c in COLUMNS if c not in ("first_message_chars",)]
    pd.testing.assert_frame_equal(replayed[facts], raw[facts])


def test_replay_is_deterministic_and_order_independent(simulated):
    steps, _ = simulated
    first = replay_day(steps)
    shuffled = steps.sample(frac=1.0, random_state=3).reset_index(drop=True)
    second = replay_day(shuffled)
    assert first.to_json(orient="records") == second.to_json(orient="records")

    def parquet_bytes(frame: pd.DataFrame) -> bytes:
        buf = io.BytesIO()
        pq.write_table(to_arrow(frame), buf)
        return buf.getvalue()

    assert parquet_bytes(first) == parquet_bytes(second)
    assert first["episode_id"].tolist() == sorted(first["episode_id"])


def test_risk_rules_reuse_the_crm_helpers(simulated):
    steps, _ = simulated
    calls = steps[steps["action_type"] == "tool_call"]
    for name, args in zip(calls["tool_name"], calls["tool_arguments"], strict=True):
        params = json.loads(args)
        assert CRM_RULES.is_financial_write(name, params) == is_financial_write(name, params)
        assert CRM_RULES.is_destructive(name) == is_destructive(name)
    assert AIRLINE_RULES.is_financial_write("send_certificate", {"amount": 100})
    assert AIRLINE_RULES.is_destructive("cancel_reservation")
    assert not AIRLINE_RULES.is_destructive("get_user_details")
    assert detect_tool_set("airline", ["think"]).tool_set == "airline"
    assert detect_tool_set("benchmark", ["get_reservation_details"]).tool_set == "airline"
    assert detect_tool_set("whatever", ["frobnicate"]).tool_set == "unknown"


@pytest.mark.skipif(not (TAU_BENCH / "gpt-4o-airline.json").exists(), reason="tau-bench absent")
def test_tau_bench_replays_with_logged_success_and_airline_risk():
    ingestor = DayIngestor("2026-03-02")
    ingestor.read_file(UPath(TAU_BENCH / "gpt-4o-airline.json"))
    result = ingestor.finish()
    assert result.stats.episodes == 200
    replayed = replay_day(result.steps.to_pandas())
    raw = json.loads((TAU_BENCH / "gpt-4o-airline.json").read_text())
    errors = sum(
        1
        for r in raw
        for m in r["traj"]
        if m["role"] == "tool" and (m.get("content") or "").startswith("Error")
    )
    print(
        "\ntau-bench:",
        dict(replayed["replay_status"].value_counts()),
        "success",
        int(replayed["success"].sum()),
        "errors",
        int(replayed["n_errors"].sum()),
        "retries",
        int(replayed["n_retries"].sum()),
        "loops",
        int(replayed["loop_detected"].sum()),
        "financial",
        int(replayed["financial_writes"].sum()),
        "destructive",
        int(replayed["destructive_actions"].sum()),
        "premature",
        int(replayed["premature_finish"].sum()),
        "takeover",
        int(replayed["human_takeover"].sum()),
    )
    assert errors == 73
    assert int(replayed["n_errors"].sum()) == 73
    assert int(replayed["success"].sum()) == 84
    assert set(replayed["success_source"]) == {"logged"}
    assert set(replayed["tool_set"]) == {"airline"}
    assert set(replayed["replay_status"]) == {"ok"}  # its reused call ids are sequential
    assert int(replayed["financial_writes"].sum()) == 8  # every send_certificate
    assert int(replayed["destructive_actions"].sum()) == 69  # every cancel_reservation
    # every identical call repeated without progress is a retry (or part of a loop)
    repeated = 0
    for r in raw:
        seen: Counter = Counter()
        for m in r["traj"]:
            if m["role"] == "user":
                seen.clear()
            for c in m.get("tool_calls") or []:
                key = (
                    c["function"]["name"],
                    json.dumps(json.loads(c["function"]["arguments"]), sort_keys=True),
                )
                repeated += seen[key] > 0
                seen[key] += 1
    assert repeated > 0
    assert int(replayed["n_retries"].sum()) >= repeated


# -- corrupted trajectories ---------------------------------------------------------------------


def _rows(*steps: dict) -> pd.DataFrame:
    base = {
        "ds": "2026-03-02",
        "episode_id": "ep-x",
        "policy_id": "p",
        "task_type": "update_contact",
        "task_goal": json.dumps({"customer_id": "cus_1", "fields": {"phone": "555"}}),
        "outcome_success": False,
    }
    return pd.DataFrame(
        [
            {
                **base,
                "step": i,
                "tool_name": None,
                "tool_call_id": None,
                "tool_arguments": None,
                "content": None,
                **s,
            }
            for i, s in enumerate(steps)
        ]
    )


USER = {"role": "user", "action_type": "message", "content": "hi"}


def call(cid, name="search_customer", args='{"email": "<E_1>"}'):
    return {
        "role": "assistant",
        "action_type": "tool_call",
        "tool_name": name,
        "tool_call_id": cid,
        "tool_arguments": args,
    }


def result(cid, content='{"customer": {"customer_id": "cus_1", "email": "<E_1>"}}'):
    return {"role": "tool", "action_type": "tool_result", "tool_call_id": cid, "content": content}


REPLY = {"role": "assistant", "action_type": "respond", "content": "All done!"}

CORRUPTED = {
    "missing result mid-episode": (_rows(USER, call("a"), REPLY), "diverged", "missing_result"),
    "log ends after a call": (_rows(USER, call("a")), "incomplete", "truncated"),
    "duplicated call ids": (
        _rows(
            USER, call("a"), call("a", "get_customer", '{"id": "cus_1"}'), result("a"), result("a")
        ),
        "diverged",
        "duplicate_call_id",
    ),
    "results out of order": (
        _rows(
            USER,
            call("a"),
            call("b", "get_customer", '{"id": "cus_1"}'),
            result("b", '{"customer": {"customer_id": "cus_1"}, "cases": []}'),
            result("a"),
        ),
        "diverged",
        "out_of_order",
    ),
    "result before its call": (
        _rows(USER, result("a"), call("a"), REPLY),
        "diverged",
        "out_of_order",
    ),
    "result for a call that never happened": (
        _rows(USER, call("a"), result("a"), result("zzz")),
        "diverged",
        "orphan_result",
    ),
    "unparsable arguments": (
        _rows(USER, call("a", args='{"email": '), result("a", '{"error": "bad"}')),
        "diverged",
        "unparsable_arguments",
    ),
    "nameless call without id": (
        _rows(USER, {"role": "assistant", "action_type": "tool_call"}, REPLY),
        "diverged",
        "unnamed_tool",
    ),
    "no agent action": (_rows(USER), "incomplete", "truncated"),
}


@pytest.mark.parametrize("case", sorted(CORRUPTED))
def test_corrupted_trajectories_get_a_status_and_reason(case):
    rows, status, kind = CORRUPTED[case]
    out = replay_day(rows)
    assert len(out) == 1
    row = out.iloc[0]
    assert row["replay_status"] == status, row["status_reason"]
    assert kind in row["status_reason"]
    assert "<E_1>" not in row["status_reason"]  # reasons never quote content


def test_garbage_rows_never_crash():
    rows = pd.DataFrame(
        [
            {
                "ds": "d",
                "episode_id": "g",
                "step": None,
                "action_type": "tool_result",
                "tool_call_id": 7,
                "content": 3.5,
                "task_goal": "{not json",
            },
            {
                "ds": "d",
                "episode_id": "g",
                "step": 1,
                "action_type": "tool_call",
                "tool_name": 12,
                "tool_arguments": "[1, 2]",
                "task_type": "close_case",
            },
        ]
    )
    out = replay_day(rows)
    assert out.iloc[0]["replay_status"] in ("diverged", "incomplete")
    assert replay_day(pd.DataFrame()).empty
    assert to_arrow(replay_day(pd.DataFrame())).num_rows == 0


def test_retries_and_loops_are_defined_by_progress():
    tape_rows = _rows(
        USER,
        call("a"),
        result("a", '{"error": "customer not found"}'),
        call("b", args='{"email": "<E_2>"}'),
        result("b"),  # retry after an error
        call("c", "get_customer", '{"id": "cus_1"}'),
        result("c", "{}"),
        call("d", "get_customer", '{"id": "cus_1"}'),
        result("d", "{}"),  # identical: retry
        call("e", "get_customer", '{"id": "cus_1"}'),
        result("e", "{}"),  # third: loop
    )
    row = replay_day(tape_rows).iloc[0]
    assert row["n_errors"] == 1 and row["n_retries"] == 3 and bool(row["loop_detected"])
    spaced = _rows(
        USER,
        call("c", "get_customer", '{"id": "cus_1"}'),
        result("c", "{}"),
        USER,
        call("d", "get_customer", '{"id": "cus_1"}'),
        result("d", "{}"),
        USER,
        call("e", "get_customer", '{"id": "cus_1"}'),
        result("e", "{}"),
    )
    row = replay_day(spaced).iloc[0]
    assert row["n_retries"] == 0 and not bool(row["loop_detected"])


def test_cassette_answers_in_order():
    tape = Cassette.from_steps(_rows(USER, call("a"), result("a"), REPLY).to_dict("records"))
    assert [a.type for a in tape.actions] == ["tool", "respond"]
    assert tape.actions[0].answered and not tape.issues
    assert isinstance(pa.table({"x": [1]}), pa.Table)


def test_an_unknown_tool_alone_never_diverges_and_is_counted_as_inferred():
    rows = _rows(USER, call("a"), result("a"), call("b", "launch_rockets", "{}"), result("b"))
    row = replay_day(rows).iloc[0]
    assert row["replay_status"] == "ok", row["status_reason"]
    assert row["tool_set"] == "crm" and row["unknown_tools"] == 1
    assert json.loads(row["inferred_effects"]) == {"launch_rockets": "write"}
    assert row["n_writes"] == 1
