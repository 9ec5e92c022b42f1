"""Cells repeated on many rows (an episode's task goal on each of its steps) are prepared, scanned
and masked once, and every row still gets its own findings and audit rows."""

import json

import pyarrow as pa

from agentic_pipeline.masking.scan import find_leaks, scan_for_leaks


def _day() -> pa.Table:
    goal_a = json.dumps({"note": "reach me at odile.brankov@example.net", "seat": "12A"})
    goal_b = "Passenger Quillon Ardsey asks for a refund"
    return pa.table(
        {
            "episode_id": ["a", "a", "a", "b", "b"],
            "task_goal": [goal_a, goal_a, goal_a, goal_b, goal_b],
            "content": ["Quillon Ardsey", "ok", "Quillon Ardsey", "Quillon Ardsey", None],
        }
    )


def test_a_repeated_cell_is_reported_on_every_row():
    leaks = scan_for_leaks(_day())
    emails = [(lk.column, lk.row) for lk in leaks if lk.entity_type == "EMAIL_ADDRESS"]
    per_row = [emails.count(("task_goal", row)) for row in range(5)]
    assert per_row[0] >= 1 and per_row == [per_row[0]] * 3 + [0, 0]  # each detector, each row
    assert len({lk.value_hash for lk in leaks if lk.entity_type == "EMAIL_ADDRESS"}) == 1


def test_known_values_stay_with_their_episode_in_a_cell_both_episodes_hold():
    found = find_leaks(_day(), known_values={"b": {"Quillon Ardsey"}, "a": set()})
    known = [(lk.column, lk.row) for lk, _ in found if lk.detector == "known_value"]
    # the same cell text in episode a is not searched for episode b's values
    assert known == [("task_goal", 3), ("task_goal", 4), ("content", 3)]
    every_row = find_leaks(_day(), known_values={"Quillon Ardsey"})
    rows = [(lk.column, lk.row) for lk, _ in every_row if lk.detector == "known_value"]
    assert rows == [
        ("task_goal", 3),
        ("task_goal", 4),
        ("content", 0),
        ("content", 2),
        ("content", 3),
    ]
