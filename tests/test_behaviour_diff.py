"""The behaviour diff from logs alone: figures against hand counts on real retail logs, intervals,
pairing, flags, the divergence test, plain words."""

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from upath import UPath

from agentic_pipeline.ingest import DayIngestor
from agentic_pipeline.replay import replay_day
from agentic_pipeline.shadow import DiffSettings, behaviour_diff, describe_shift, largest_shifts

RETAIL = Path(__file__).resolve().parents[2] / "shared/external/tau-bench-retail"
FILES = sorted(RETAIL.glob("*-*_*.json"))
BASELINE = "tool-calling-none-0.1_range_0-100_user-none-llm_06232025"
PRECONDITIONS = "tool-calling-with-preconditions-none-0.1_range_0-100_user-none-llm_0626123715"
ASSERTIONS = "assertions-agent-none-0.1_range_0-100_6_18_2025"
TASKS = ["33", "34", "35", "39", "40"]
#: Retail writes that move money or cancel (the built-in catalogue's financial and destructive
#: tools), spelled out here so the count does not come from the code under test.
RISKY = {
    "cancel_pending_order",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "modify_pending_order_items",
    "modify_pending_order_payment",
}

#: Counted by hand from the three files, tasks 33, 34, 35, 39 and 40 (one trial each): reward,
#: assistant messages with text (replies), tool results starting "Error", and calls per tool.
HAND = {
    BASELINE: {
        "33": (1, 7, 1, {"find_user_id_by_name_zip": 1, "get_order_details": 3,
                         "get_user_details": 1, "modify_pending_order_items": 1,
                         "modify_user_address": 1, "think": 1}),
        "34": (0, 9, 3, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                         "get_order_details": 1, "get_product_details": 1, "get_user_details": 1,
                         "modify_pending_order_items": 2, "think": 2}),
        "35": (1, 9, 2, {"exchange_delivered_order_items": 1, "find_user_id_by_email": 2,
                         "get_order_details": 2, "get_product_details": 1, "get_user_details": 1,
                         "modify_pending_order_items": 1, "return_delivered_order_items": 1}),
        "39": (0, 7, 1, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                         "get_product_details": 1, "get_user_details": 1,
                         "list_all_product_types": 1}),
        "40": (1, 6, 0, {"find_user_id_by_email": 1, "get_order_details": 1,
                         "get_user_details": 1, "modify_pending_order_payment": 1}),
    },
    PRECONDITIONS: {
        "33": (1, 7, 1, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                         "get_order_details": 3, "get_user_details": 1, "modify_user_address": 1,
                         "think": 2}),
        "34": (1, 10, 2, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                          "get_order_details": 3, "get_user_details": 1,
                          "modify_pending_order_address": 1, "modify_pending_order_items": 1,
                          "think": 4}),
        "35": (1, 9, 1, {"find_user_id_by_email": 2, "get_order_details": 2,
                         "get_product_details": 1, "get_user_details": 1,
                         "modify_pending_order_items": 1, "return_delivered_order_items": 1,
                         "think": 1}),
        "39": (0, 5, 1, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                         "get_product_details": 1, "get_user_details": 1,
                         "list_all_product_types": 1, "modify_user_address": 1}),
        "40": (1, 7, 1, {"find_user_id_by_email": 1, "get_order_details": 1,
                         "get_user_details": 1, "modify_pending_order_payment": 2, "think": 2}),
    },
    ASSERTIONS: {
        "33": (0, 5, 0, {"find_user_id_by_name_zip": 4, "get_order_details": 1,
                         "get_user_details": 1}),
        "34": (0, 5, 0, {"cancel_pending_order": 1, "find_user_id_by_name_zip": 1,
                         "get_order_details": 2, "get_user_details": 1}),
        "35": (0, 4, 0, {"find_user_id_by_email": 1, "transfer_to_human_agents": 1}),
        "39": (0, 8, 0, {"find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
                         "get_product_details": 1, "get_user_details": 1,
                         "list_all_product_types": 1, "modify_user_address": 1}),
        "40": (1, 7, 0, {"find_user_id_by_email": 2, "get_order_details": 1,
                         "get_user_details": 1, "modify_pending_order_payment": 2}),
    },
}  # fmt: skip


def _file_counts(path: Path) -> dict[str, tuple]:
    """The same counts, read from the raw file without pipeline code (checks the table above)."""
    out = {}
    for episode in json.loads(path.read_text()):
        if str(episode["task_id"]) not in TASKS:
            continue
        traj = episode["traj"]
        tools = Counter(
            call["function"]["name"]
            for m in traj
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or []
        )
        replies = sum(
            1
            for m in traj
            if m["role"] == "assistant" and isinstance(m.get("content"), str) and m["content"]
        )
        errors = sum(
            1 for m in traj if m["role"] == "tool" and (m.get("content") or "").startswith("Error")
        )
        out[str(episode["task_id"])] = (int(episode["reward"] == 1), replies, errors, dict(tools))
    return out


@pytest.fixture(scope="module")
def retail_replayed() -> pd.DataFrame:
    if len(FILES) != 3:
        pytest.skip(f"the three tau-bench retail files are not in {RETAIL} (shared/ absent)")
    ingestor = DayIngestor("2026-05-04")
    for path in FILES:
        ingestor.read_file(UPath(path))
    return replay_day(ingestor.finish().steps.to_pandas())


def test_hand_counts_match_the_files():
    if len(FILES) != 3:
        pytest.skip(f"the three tau-bench retail files are not in {RETAIL} (shared/ absent)")
    for path in FILES:
        policy = path.stem
        assert _file_counts(path) == HAND[policy], policy


def _expected(policy: str) -> dict[str, float]:
    rows = HAND[policy].values()
    n = len(rows)
    calls = sum(sum(tools.values()) for *_, tools in rows)
    replies = sum(r[1] for r in rows)
    tools = sum((Counter(r[3]) for r in rows), Counter())
    out = {
        "success_rate": sum(r[0] for r in rows) / n,
        "tool_calls_per_episode": calls / n,
        "replies_per_episode": replies / n,
        "steps_per_episode": (calls + replies) / n,
        "error_rate": sum(r[2] for r in rows) / calls,
        "risky_writes_per_episode": sum(tools[t] for t in RISKY) / n,
        "action_share:reply": replies / (calls + replies),
    }
    for tool, count in tools.items():
        out[f"tool_per_episode:{tool}"] = count / n
        out[f"action_share:{tool}"] = count / (calls + replies)
    return out


def _jsd(a: Counter, b: Counter) -> float:
    p = {k: v / sum(a.values()) for k, v in a.items()}
    q = {k: v / sum(b.values()) for k, v in b.items()}
    total = 0.0
    for k in set(p) | set(q):
        m = (p.get(k, 0) + q.get(k, 0)) / 2
        for x in (p.get(k, 0), q.get(k, 0)):
            total += x * math.log2(x / m) / 2 if x else 0.0
    return total


def _actions(policy: str) -> Counter:
    rows = HAND[policy].values()
    counts = sum((Counter(r[3]) for r in rows), Counter())
    counts["reply"] = sum(r[1] for r in rows)
    return counts


def test_diff_figures_match_hand_counts_on_five_retail_tasks(retail_replayed):
    five = retail_replayed[retail_replayed["task_id"].astype(str).isin(TASKS)]
    assert len(five) == 15 and set(five["task_type"]) == {"retail"}
    diff = behaviour_diff(five, DiffSettings(baseline_policy=BASELINE, min_pairs=5))
    assert set(diff["baseline_policy"]) == {BASELINE}
    assert set(diff["other_policy"]) == {PRECONDITIONS, ASSERTIONS}
    assert diff["paired"].all() and set(diff["n_pairs"]) == {5}
    base = _expected(BASELINE)
    for other in (PRECONDITIONS, ASSERTIONS):
        rows = diff[diff["other_policy"] == other].set_index("metric")
        want = _expected(other)
        for metric in set(base) | set(want):
            if metric not in rows.index:  # a tool neither policy called here
                assert base.get(metric, 0) == want.get(metric, 0) == 0, metric
                continue
            row = rows.loc[metric]
            assert row["baseline"] == pytest.approx(base.get(metric, 0.0)), (other, metric)
            assert row["other"] == pytest.approx(want.get(metric, 0.0)), (other, metric)
            assert row["delta"] == pytest.approx(want.get(metric, 0.0) - base.get(metric, 0.0))
            assert row["delta_low"] <= row["delta"] + 1e-9 <= row["delta_high"] + 2e-9, metric
        jsd = rows.loc["action_divergence_jsd"]
        assert jsd["delta"] == pytest.approx(_jsd(_actions(BASELINE), _actions(other)))
        assert 0 <= jsd["p_value"] <= 1
    # the figures the issue names are all there, each with its interval
    names = set(diff["metric"])
    assert {"success_rate", "steps_per_episode", "error_rate", "risky_writes_per_episode"} <= names
    assert {"action_share:reply", "tool_per_episode:get_order_details"} <= names
    assert diff.loc[diff["metric"] != "action_divergence_jsd", "delta_low"].notna().all()


def test_all_retail_tasks_paired_and_plain_words(retail_replayed):
    diff = behaviour_diff(retail_replayed[retail_replayed["task_type"] == "retail"])
    assert set(diff["baseline_policy"]) == {BASELINE}  # most episodes, then the name
    assertions = diff[diff["other_policy"] == ASSERTIONS]
    assert set(assertions["n_pairs"]) == {66}  # 34 of its episodes are empty (quarantined)
    success = assertions[assertions["metric"] == "success_rate"].iloc[0]
    assert success["flagged"] and success["delta_high"] < 0
    shifts = largest_shifts(diff, 3)
    assert len(shifts) == 3 and shifts["flagged"].all()
    sentence = describe_shift(success)
    assert sentence.startswith("retail: success rate fell from ")
    assert "paired on 66 tasks" in sentence and "95% interval" in sentence


def _episodes(policy: str, n: int, success: float, tools: dict[str, int], task_ids=None):
    rng = np.random.default_rng(len(policy) + n)
    rows = []
    for i in range(n):
        rows.append(
            {
                "ds": "2026-06-01",
                "episode_id": f"{policy}-{i}",
                "policy_id": policy,
                "task_type": "support",
                "task_id": None if task_ids is None else task_ids[i],
                "success": bool(rng.random() < success),
                "n_steps": sum(tools.values()) + 2,
                "n_tool_calls": sum(tools.values()),
                "n_responds": 2,
                "n_errors": 0,
                "n_retries": 0,
                "tool_counts": json.dumps(tools),
            }
        )
    return rows


def test_flags_only_where_the_interval_excludes_no_change():
    same = pd.DataFrame(
        _episodes("a", 200, 0.7, {"lookup": 2}) + _episodes("b", 200, 0.7, {"lookup": 2})
    )
    diff = behaviour_diff(same).set_index("metric")
    assert not diff["flagged"].any()
    assert not diff.loc["action_divergence_jsd", "flagged"]  # same distribution: no divergence
    moved = pd.DataFrame(
        _episodes("a", 200, 0.9, {"lookup": 2}) + _episodes("b", 200, 0.3, {"refund": 2})
    )
    diff = behaviour_diff(moved).set_index("metric")
    assert not diff["paired"].any()  # no task ids: episodes resampled per policy
    assert diff.loc["success_rate", "flagged"] and diff.loc["success_rate", "delta"] < -0.4
    assert diff.loc["action_divergence_jsd", "flagged"]
    assert diff.loc["action_divergence_jsd", "p_value"] < 0.01


def test_pairing_by_task_narrows_the_interval_of_correlated_outcomes():
    tasks = [f"t{i}" for i in range(120)]
    hard = {t: i % 2 == 0 for i, t in enumerate(tasks)}  # half of the tasks fail for everyone
    rows = []
    for policy, extra in (("a", 0), ("b", 1)):
        for i, t in enumerate(tasks):
            rows.append(
                {"ds": "2026-06-01", "episode_id": f"{policy}{i}", "policy_id": policy,
                 "task_type": "support", "task_id": t,
                 "success": (not hard[t]) and not (extra and i % 10 == 1),
                 "n_steps": 3, "n_tool_calls": 1, "n_responds": 2, "tool_counts": "{}"}
            )  # fmt: skip
    frame = pd.DataFrame(rows)
    paired = behaviour_diff(frame).set_index("metric").loc["success_rate"]
    unpaired = behaviour_diff(frame.assign(task_id=None)).set_index("metric").loc["success_rate"]
    assert paired["paired"] and not unpaired["paired"]
    assert paired["delta"] == pytest.approx(unpaired["delta"])
    width = paired["delta_high"] - paired["delta_low"]
    assert width < 0.6 * (unpaired["delta_high"] - unpaired["delta_low"])
    assert paired["flagged"] and not unpaired["flagged"]
