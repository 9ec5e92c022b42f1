"""The CRM simulator: determinism, both formats, planted personal data and behaviour, truth."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import math
from collections import Counter
from pathlib import Path

import pytest

from agentic_pipeline.demo import (
    DEFAULT_POLICY_WEIGHTS,
    FINANCIAL_FIELDS,
    POLICIES,
    Plan,
    best_policy_by_task,
    generate_episodes,
    ground_truth,
    true_rates,
    write_landing,
)
from agentic_pipeline.environments import TASK_TYPES, CRMSandbox, evaluate_goal

DAY = dt.date(2026, 11, 28)


@pytest.fixture(scope="module")
def episodes() -> list:
    return list(generate_episodes(DAY, 600, seed=11))


def _only(policy_id: str, n: int = 400, seed: int = 3) -> list:
    return list(generate_episodes(DAY, n, seed, {policy_id: 1.0}))


def _tool_calls(record: dict) -> list[tuple[str, dict]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in record["messages"]
        for c in m.get("tool_calls") or []
    ]


def _read_dir(root: Path) -> dict[str, bytes]:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


# -- files -----------------------------------------------------------------------------------------


def test_write_landing_is_deterministic_and_writes_both_formats(tmp_path: Path) -> None:
    a = write_landing(tmp_path / "a", DAY, days=2, episodes_per_day=60, seed=7)
    b = write_landing(tmp_path / "b", DAY, days=2, episodes_per_day=60, seed=7)
    files_a, files_b = _read_dir(tmp_path / "a"), _read_dir(tmp_path / "b")
    assert files_a == files_b
    assert sorted(files_a) == [
        "landing/2026-11-28/episodes-000.jsonl.gz",
        "landing/2026-11-28/transitions-000.jsonl",
        "landing/2026-11-29/episodes-000.jsonl.gz",
        "landing/2026-11-29/transitions-000.jsonl",
    ]
    assert a["episodes"] == b["episodes"] == 120
    c = write_landing(tmp_path / "c", DAY, days=1, episodes_per_day=60, seed=8)
    assert (
        _read_dir(tmp_path / "c")["landing/2026-11-28/episodes-000.jsonl.gz"]
        != files_a["landing/2026-11-28/episodes-000.jsonl.gz"]
    )
    assert c["days"][0]["episode_format"] + c["days"][0]["transition_format"] == 60


def test_landing_contents_parse_and_account_for_every_episode(tmp_path: Path) -> None:
    summary = write_landing(
        tmp_path, DAY, days=1, episodes_per_day=300, seed=1, transition_share=0.3
    )
    day = summary["days"][0]
    folder = tmp_path / "landing" / DAY.isoformat()
    with gzip.open(folder / "episodes-000.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    transitions = [json.loads(line) for line in (folder / "transitions-000.jsonl").open()]
    tr_ids = {t["episode_id"] for t in transitions}
    assert len(records) == day["episode_format"]
    assert len(tr_ids) == day["transition_format"]
    assert len(transitions) == day["transition_lines"]
    assert 0.2 < len(tr_ids) / 300 < 0.4
    assert not tr_ids & {r["episode_id"] for r in records}
    assert not list(folder.glob(".*.tmp"))


# -- record shapes ---------------------------------------------------------------------------------


def test_episode_record_structure(episodes: list) -> None:
    for ep in episodes[:100]:
        r = ep.record
        assert list(r)[:5] == ["episode_id", "started_at", "policy_id", "propensity", "task_type"]
        assert set(r["task"]) == {"id", "description", "goal"}
        assert r["task_type"] in TASK_TYPES
        assert r["started_at"].startswith(DAY.isoformat()) and r["started_at"].endswith("Z")
        assert r["context"]["hour"] == int(r["started_at"][11:13])
        assert r["context"]["tier"] in ("gold", "silver", "bronze")
        assert r["context"]["channel"] in ("chat", "email")
        msgs = r["messages"]
        assert [m["role"] for m in msgs[:2]] == ["system", "user"]
        open_calls: dict[str, str] = {}
        for m in msgs:
            for call in m.get("tool_calls") or []:
                assert call["type"] == "function"
                assert isinstance(json.loads(call["function"]["arguments"]), dict)
                open_calls[call["id"]] = call["function"]["name"]
            if m["role"] == "tool":
                assert open_calls.pop(m["tool_call_id"]) == m["name"]
                json.loads(m["content"])
        assert not open_calls
        assert set(r["outcome"]) == {"success", "human_takeover", "complaint", "csat"}
        assert r["reward"] == (1.0 if r["outcome"]["success"] else 0.0)
        assert r["outcome"]["success"] == ep.truth["success"]
        assert r["usage"]["prompt_tokens"] > r["usage"]["completion_tokens"] > 0


def test_transition_structure_matches_episode(episodes: list) -> None:
    for ep in episodes[:100]:
        trs, r = ep.transitions, ep.record
        assert [t["step"] for t in trs] == list(range(len(trs)))
        assert trs[0]["task_description"] == r["task"]["description"]
        assert trs[0]["task_goal"] == r["task"]["goal"]
        assert all(
            t["policy_id"] == r["policy_id"] and t["propensity"] == r["propensity"] for t in trs
        )
        assert [t["done"] for t in trs] == [False] * (len(trs) - 1) + [True]
        assert trs[-1]["action"]["type"] == "finish"
        assert trs[-1]["outcome"] == r["outcome"] and trs[-1]["usage"] == r["usage"]
        assert trs[-1]["reward"] == r["reward"]
        assert [t["ts"] for t in trs] == sorted(t["ts"] for t in trs)
        tools = [
            (t["action"]["tool_name"], t["action"]["params"])
            for t in trs
            if t["action"]["type"] == "tool"
        ]
        assert tools == _tool_calls(r)
        for t in trs:
            if t["action"]["type"] == "respond":
                assert set(t["obs"]) == {"user_message"} and t["obs"]["user_message"]


def test_policy_assignment_and_propensity(episodes: list) -> None:
    total = sum(DEFAULT_POLICY_WEIGHTS.values())
    counts = Counter(ep.record["policy_id"] for ep in episodes)
    for ep in episodes:
        assert ep.record["propensity"] == pytest.approx(
            DEFAULT_POLICY_WEIGHTS[ep.record["policy_id"]] / total
        )
    share = counts["crm-efficient-v3"] / len(episodes)
    assert 0.3 < share < 0.5
    assert set(Counter(ep.record["task_type"] for ep in episodes)) == set(TASK_TYPES)


# -- personal data ---------------------------------------------------------------------------------


def test_personal_data_is_planted_where_it_would_appear(episodes: list) -> None:
    for ep in episodes[:200]:
        c, msgs = ep.customer, ep.record["messages"]
        user_text = msgs[1]["content"]
        assert c["name"] in user_text and c["email"] in user_text
        calls = _tool_calls(ep.record)
        if calls[0][0] == "close_case":  # eager's direct close: only the case id is needed
            assert calls[0][1] == {"id": c["case_id"]} or ep.truth["success"] is False
            continue
        assert calls[0] == ("search_customer", {"email": c["email"]}) or ep.plan["mode"] == (
            "typo_retry"
        )
        assert ("search_customer", {"email": c["email"]}) in calls
        for key in ("new_email", "new_phone", "new_address"):
            if key in c and ep.plan["mode"] == "correct":
                assert json.dumps(c[key]) in json.dumps(calls)
        results = " ".join(m["content"] for m in msgs if m["role"] == "tool")
        replies = " ".join(m["content"] for m in msgs if m["role"] == "assistant" and m["content"])
        assert c["first_name"] in replies
        if "customer" in results:  # every policy but a direct close_case reads the record
            for key in ("card_number", "phone", "address", "dob", "last_name"):
                assert json.dumps(c[key]) in results, key
        for key in ("new_email", "new_phone", "new_address"):
            if key in c:
                assert c[key] in user_text
        tt = ep.record["task_type"]
        if tt == "address_change":
            assert c["address"] in user_text and c["dob"] in user_text
        if tt == "refund_request":
            assert c["card_number"][-4:] in user_text


def test_card_numbers_are_luhn_valid(episodes: list) -> None:
    def luhn(number: str) -> bool:
        digits = [int(d) for d in number][::-1]
        total = sum(
            d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(digits)
        )
        return total % 10 == 0

    assert all(luhn(ep.customer["card_number"]) for ep in episodes)
    assert all(
        ep.customer["customer_id"].startswith("cus_") and len(ep.customer["customer_id"]) == 12
        for ep in episodes
    )


# -- planted behaviour -----------------------------------------------------------------------------


def test_eager_claims_done_after_first_step() -> None:
    premature = [ep for ep in _only("crm-eager-v1", 200) if ep.truth["premature_finish"]]
    assert premature
    for ep in premature:
        actions = [t["action"]["type"] for t in ep.transitions]
        assert actions == ["tool", "respond", "finish"]
        assert not ep.truth["success"]


def test_looper_repeats_identical_calls() -> None:
    eps = _only("crm-looper-v2", 200)
    loops = [ep for ep in eps if ep.truth["loop"]]
    assert 0.7 < len(loops) / len(eps) < 0.97
    for ep in loops:
        calls = Counter(json.dumps(call, sort_keys=True) for call in _tool_calls(ep.record))
        assert max(calls.values()) >= 3
    mean_steps = {
        pid: sum(len(ep.transitions) for ep in es) / len(es)
        for pid, es in (("looper", eps), ("efficient", _only("crm-efficient-v3", 200)))
    }
    assert mean_steps["looper"] > mean_steps["efficient"] + 3
    assert any(ep.truth["human_takeover"] and not ep.truth["success"] for ep in eps)


def test_risky_touches_money_and_deletes() -> None:
    eps = _only("crm-risky-v1", 300)
    fin = [ep for ep in eps if ep.truth["financial_write"]]
    dels = [ep for ep in eps if ep.truth["destructive"]]
    assert fin and dels
    for ep in fin:
        assert any(
            name == "update_crm" and set(p["fields"]) & FINANCIAL_FIELDS
            for name, p in _tool_calls(ep.record)
        )
    for ep in dels:
        assert any(name == "delete_customer" for name, _ in _tool_calls(ep.record))
        assert not ep.truth["success"]
    for pid in ("crm-efficient-v3", "crm-eager-v1", "crm-looper-v2"):
        assert not any(
            ep.truth["financial_write"] or ep.truth["destructive"] for ep in _only(pid, 100)
        )


def test_truth_agrees_with_plan_and_with_replayed_writes(episodes: list) -> None:
    for ep in episodes:
        assert Plan(**ep.plan).expect_success == ep.truth["success"]
        sandbox = CRMSandbox.from_state(**ep.initial_state)
        for t in ep.transitions:
            if t["action"]["type"] == "tool":
                sandbox.call_tool(t["action"]["tool_name"], t["action"]["params"])
        goal = ep.record["task"]["goal"]
        assert evaluate_goal(ep.record["task_type"], goal, sandbox.state()) == ep.truth["success"]


def test_human_takeover_is_visible_in_the_chat(episodes: list) -> None:
    for ep in episodes:
        asked = any(
            m["role"] == "user" and "human" in m["content"].lower()
            for m in ep.record["messages"][2:]
        )
        assert asked == ep.truth["human_takeover"] == ep.record["outcome"]["human_takeover"]
    assert any(ep.truth["human_takeover"] for ep in episodes)
    assert not any(ep.record["outcome"]["complaint"] for ep in episodes if ep.truth["success"])


# -- ground truth ----------------------------------------------------------------------------------


def test_ground_truth_is_complete_and_best_policy_differs() -> None:
    truth = ground_truth()
    assert set(truth) == set(POLICIES) and len(POLICIES) >= 4
    for per_task in truth.values():
        assert set(per_task) == set(TASK_TYPES)
        for rates in per_task.values():
            assert all(0.0 <= v <= 1.0 for v in rates.values())
    best = best_policy_by_task()
    assert len(set(best.values())) >= 2
    assert best["refund_request"] == "crm-looper-v2"
    by_tier = ground_truth(by_tier=True)["crm-efficient-v3"]["refund_request"]
    assert by_tier["gold"]["success"] < by_tier["bronze"]["success"]
    assert true_rates("crm-eager-v1", "update_contact")["premature_finish"] == pytest.approx(0.4)


@pytest.mark.parametrize("policy_id", sorted(POLICIES))
def test_empirical_rates_near_ground_truth(policy_id: str) -> None:
    eps = _only(policy_id, 400, seed=21)
    expected = {
        m: sum(true_rates(policy_id, ep.record["task_type"])[m] for ep in eps) / len(eps)
        for m in (
            "success",
            "premature_finish",
            "loop",
            "financial_write",
            "destructive",
            "human_takeover",
        )
    }
    for metric, p in expected.items():
        observed = sum(bool(ep.truth[metric]) for ep in eps) / len(eps)
        sigma = math.sqrt(max(p * (1 - p), 1e-4) / len(eps))
        assert abs(observed - p) < 4 * sigma + 1e-9, (metric, observed, p)


def test_retries_repeat_a_task_of_the_day_under_its_own_episode() -> None:
    """Issue #15: the demo's preference-pair exports were empty: no task ever occurred twice, so
    pairing (same task id, or identical masked prompts) had nothing to pair."""
    day = dt.date(2026, 11, 20)
    once = list(generate_episodes(day, 60, seed=7))
    assert max(Counter(e.record["task"]["id"] for e in once).values()) == 1
    retried = list(generate_episodes(day, 60, seed=7, retry_share=0.3))
    by_task: dict[str, list] = {}
    for ep in retried:
        by_task.setdefault(ep.record["task"]["id"], []).append(ep)
    repeated = [eps for eps in by_task.values() if len(eps) > 1]
    assert 5 <= sum(len(eps) - 1 for eps in repeated) <= 30
    for eps in repeated:  # the same request of the same customer, different episodes
        assert len({e.record["task"]["description"] for e in eps}) == 1
        assert len({e.record["task_type"] for e in eps}) == 1
        assert len({e.record["episode_id"] for e in eps}) == len(eps)
    # the policy is drawn as for any episode: the logged propensity stays the drawing probability
    weights = {
        p: w / sum(DEFAULT_POLICY_WEIGHTS.values()) for p, w in DEFAULT_POLICY_WEIGHTS.items()
    }
    assert all(
        math.isclose(e.record["propensity"], weights[e.record["policy_id"]], abs_tol=1e-6)
        for e in retried
    )
    with pytest.raises(ValueError, match="retry_share"):
        next(generate_episodes(day, 1, seed=7, retry_share=1.0))
