"""Preference pairs that mean something (issue #23) and duplicate conversations (issue #22).

A pair's two sides are compared without per-run noise (tool-call ids, date-times, run ids, JSON
spacing); the shared prefix is the prompt; pairs equal after that are dropped and counted.
Checked on the demo's simulated days and on the real tau-bench / tau2-bench files.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from test_training import replayed_from_steps, simulated_steps

from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.rewards import load_reward_spec, score_episodes
from agentic_pipeline.training import (
    build_training_datasets,
    validate_preference_pair,
)
from agentic_pipeline.training.normalise import comparable_messages, first_difference

EXTERNAL = Path(__file__).resolve().parents[2] / "shared" / "external"  # ../shared/external
TAU_FILES = {
    "tau-bench airline": "tau-bench/gpt-4o-airline.json",
    "tau-bench retail, tool-calling": "tau-bench-retail/"
    "tool-calling-none-0.1_range_0-100_user-none-llm_06232025.json",
    "tau-bench retail, preconditions": "tau-bench-retail/"
    "tool-calling-with-preconditions-none-0.1_range_0-100_user-none-llm_0626123715.json",
    "tau2 airline": "tau2-airline/airline_run1.json",
}
DAY = "2026-01-05"


def _call(call_id: str, name: str, args: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def _assert_pairs_differ(data) -> None:
    """Every exported pair differs in what the policy did, not only in per-run noise."""
    for rec in data.dpo_trl:
        validate_preference_pair(rec)
        prompt = rec["prompt"]
        chosen = comparable_messages(prompt + rec["chosen"])[len(prompt) :]
        rejected = comparable_messages(prompt + rec["rejected"])[len(prompt) :]
        assert chosen[0] != rejected[0], "a pair's first turns differ only in per-run noise"
        assert rec["metadata"]["prompt_messages"] == len(prompt)
    for rec in data.dpo_openai:
        validate_preference_pair(rec)
        context = rec["input"]["messages"]
        sides = [
            comparable_messages(context + rec[side])[-1]
            for side in ("preferred_output", "non_preferred_output")
        ]
        assert sides[0] != sides[1]


def test_comparable_messages_drop_per_run_noise_and_keep_what_was_said():
    def trajectory(call_id: str, when: str, request: str, args: str, email: str) -> list[dict]:
        return [
            {"role": "user", "content": f"Please update {email}, order placed on 2026-03-02"},
            {"role": "assistant", "content": None, "tool_calls": [_call(call_id, "find", args)]},
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": json.dumps({"at": when, "request": request, "id": "cus_9"}),
            },
            {"role": "assistant", "content": "Done."},
        ]

    a = trajectory(
        "call_13dc1cc564716dd900a3400c",
        "2026-11-01T10:00:00Z",
        "8b0e3c5e-4c1a-4bb4-9f0d-2f3d8c7e9a10",
        '{"q":"x"}',
        "<EMAIL_ADDRESS_3f9a1c2b4d5e6f70>",
    )
    b = trajectory(
        "d5cfdd9a-00ff-4e22-a7c8-e26ebee1c719-step0",
        "2026-11-01 17:42:03.123+02:00",
        "ffee0011ffee0011ffee",
        '{"q": "x"}',
        "<EMAIL_ADDRESS_3f9a1c2b4d5e6f70>",
    )
    assert a != b and comparable_messages(a) == comparable_messages(b)
    assert first_difference(comparable_messages(a), comparable_messages(b)) is None
    # another person, another day of the order, another argument: all still differ
    other = trajectory("c", "2026-11-01T10:00:00Z", "r", '{"q":"x"}', "<EMAIL_ADDRESS_0000aaaa>")
    assert first_difference(comparable_messages(a), comparable_messages(other)) == 0
    moved = [{**a[0], "content": a[0]["content"].replace("03-02", "03-09")}, *a[1:]]
    assert first_difference(comparable_messages(a), comparable_messages(moved)) == 0
    argued = trajectory("c", "t", "r", '{"q":"y"}', "<EMAIL_ADDRESS_3f9a1c2b4d5e6f70>")
    assert first_difference(comparable_messages(a), comparable_messages(argued)) == 1


@pytest.fixture(scope="module")
def demo_day(tmp_path_factory) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A simulated demo day of 150 episodes (as `make demo` writes them), ingested and scored."""
    steps = simulated_steps(tmp_path_factory.mktemp("demo"), days=1, episodes=150)
    return steps, score_episodes(replayed_from_steps(steps), load_reward_spec())


def test_demo_pairs_differ_beyond_call_ids_and_share_their_prefix(demo_day):
    """Issue #23: 127 of 233 demo DPO records differed only in a random tool-call id, and none
    found a shared prefix."""
    steps, rewards = demo_day
    data = build_training_datasets(steps, rewards)
    assert data.dpo_trl and len(data.dpo_trl) == len(data.dpo_openai)
    _assert_pairs_differ(data)
    shared = [r["metadata"]["shared_turns"] for r in data.dpo_openai]
    assert sum(k > 0 for k in shared) >= len(shared) / 4, "pairs of one task share a prefix"
    for rec in data.dpo_openai:
        k = rec["metadata"]["shared_turns"]
        # the input is the prompt up to the first user message, then the k shared turns
        assert len(rec["input"]["messages"]) == rec["metadata"]["prompt_messages"]
        assert rec["input"]["messages"][-1]["role"] in ("user", "tool") or k == 0
    dropped = {k: n for k, n in data.skipped.items() if k.startswith("pair_")}
    assert dropped, "the demo's retried tasks hold pairs equal but for noise or a user turn"


def test_duplicate_conversations_with_different_outcomes_are_dropped_and_counted(demo_day):
    """Issue #22: two episodes with the same text and different outcomes failed the day."""
    steps, rewards = demo_day
    good = rewards[rewards["success"] & rewards["replay_status"].eq("ok") & ~rewards["risky"]]
    original = good.sort_values("reward").iloc[-1]["episode_id"]
    mine = steps["episode_id"] == original
    steps = steps.assign(task_id=steps["task_id"].where(~mine, "duplicated-task"))
    copy = steps[
        mine
    ].assign(
        episode_id="duplicate-episode",  # the same text, logged again with other call ids
        tool_call_id=steps.loc[mine, "tool_call_id"].map(
            lambda v: f"call_other_{v[-6:]}" if isinstance(v, str) else v
        ),
    )
    steps = pd.concat([steps, copy], ignore_index=True)
    row = rewards[rewards["episode_id"] == original].assign(episode_id="duplicate-episode")
    row["reward"] = row["reward"] - 2.0  # same text, a worse outcome
    data = build_training_datasets(steps, pd.concat([rewards, row], ignore_index=True))
    assert data.skipped.get("pair_identical_after_normalising", 0) >= 1
    meta = [r["metadata"] for r in data.dpo_trl]
    pairs = {(m["episode_id"], m["rejected_episode_id"]) for m in meta}
    assert (original, "duplicate-episode") not in pairs
    _assert_pairs_differ(data)  # the day's other pairs are all there and valid


@pytest.mark.parametrize("name", sorted(TAU_FILES))
def test_real_tau_pairs_differ_beyond_noise(name, tmp_path):
    path = EXTERNAL / TAU_FILES[name]
    if not EXTERNAL.is_dir():
        pytest.skip(f"the shared external corpora are not at {EXTERNAL} (../shared/external)")
    landing = tmp_path / "landing" / DAY
    landing.mkdir(parents=True)
    shutil.copy(path, landing)
    steps = ingest_day(landing, DAY).steps.to_pandas()
    episodes = steps.groupby(["ds", "episode_id"]).first().reset_index()
    rewards = pd.DataFrame(
        {
            "ds": episodes["ds"],
            "episode_id": episodes["episode_id"],
            "policy_id": episodes["policy_id"],
            "task_type": episodes["task_type"],
            "reward": episodes["logged_reward"].astype(float),  # the benchmark's own reward
            "reward_version": "logged",
            "success": episodes["logged_reward"] > 0,
            "financial_writes": 0,
            "destructive_actions": 0,
            "replay_status": "ok",
        }
    )
    data = build_training_datasets(steps, rewards, config=config_for(name))
    _assert_pairs_differ(data)
    if name == "tau-bench airline":  # four trials per task: pairs exist
        assert len(data.dpo_openai) > 50


def config_for(name: str):
    """tau-bench retail and tau2 run each task once: pair different tasks of a task type on the
    chosen prompt so that those files give pairs too."""
    from agentic_pipeline.training import TrainingConfig

    return None if name == "tau-bench airline" else TrainingConfig(pair_across_tasks=True)
