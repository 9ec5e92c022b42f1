"""Episode rewards, step rewards and reward-hacking signals on hand-built frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from agentic_pipeline.rewards import (
    COMPONENTS,
    DEFAULT_SPEC_PATH,
    RewardSpec,
    load_reward_spec,
    reward_bounds,
    reward_hacking_signals,
    score_episodes,
    step_rewards,
)

DS = "2026-11-28"


def episode(episode_id: str, **overrides: object) -> dict:
    """A clean, cheap, successful episode; ``overrides`` change any field."""
    row = {
        "ds": DS,
        "episode_id": episode_id,
        "policy_id": "crm-v1",
        "task_type": "update_contact",
        "propensity": 0.5,
        "replay_status": "ok",
        "success": True,
        "success_source": "environment",
        "n_steps": 6,
        "n_tool_calls": 2,
        "n_errors": 0,
        "n_retries": 0,
        "loop_detected": False,
        "premature_finish": False,
        "financial_writes": 0,
        "destructive_actions": 0,
        "human_takeover": False,
        "complaint": None,
        "csat": None,
        "prompt_tokens": 2000,
        "completion_tokens": 200,
        "latency_ms": 3000.0,
        "cost_usd": 0.01,
        "duration_s": 20.0,
        "context": '{"tier": "gold", "channel": "chat", "hour": 14}',
        "first_message_chars": 80,
    }
    row.update(overrides)
    return row


@pytest.fixture(scope="module")
def spec() -> RewardSpec:
    return load_reward_spec()


def score(spec: RewardSpec, *rows: dict) -> pd.DataFrame:
    return score_episodes(pd.DataFrame(list(rows)), spec).set_index("episode_id")


def test_default_spec_loads_and_versions(spec: RewardSpec) -> None:
    assert spec.label == "v1"
    assert spec.version.startswith("v1-") and len(spec.version) == len("v1-") + 8
    assert RewardSpec.from_dict(spec.to_dict()) == spec
    assert load_reward_spec(DEFAULT_SPEC_PATH).version == spec.version


def test_changing_one_weight_changes_version(spec: RewardSpec, tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_SPEC_PATH.read_text())
    data["penalties"]["per_retry"] = 0.06
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data))
    changed = RewardSpec.from_yaml(path)
    assert changed.label == spec.label
    assert changed.version != spec.version
    assert spec.with_weights(loop=0.31).version != spec.version


def test_spec_rejects_soft_forbidden_acts_and_unknown_keys(spec: RewardSpec) -> None:
    with pytest.raises(ValueError, match="forbidden act"):
        spec.with_weights(financial_write=0.5)
    with pytest.raises(ValueError, match="unknown"):
        RewardSpec.from_dict({"weights": {"succes": 1.0}})


def test_components_sum_to_reward(spec: RewardSpec) -> None:
    rows = [
        episode("a"),
        episode("b", success=False, loop_detected=True, n_retries=4, complaint=True, csat=1.0),
        episode("c", human_takeover=True, n_steps=40, premature_finish=True, csat=5.0),
        episode("d", financial_writes=2, destructive_actions=1, complaint=None, csat=None),
    ]
    out = score_episodes(pd.DataFrame(rows), spec)
    assert (out[list(COMPONENTS)].sum(axis=1) == out["reward"]).all()
    assert (out["reward_version"] == spec.version).all()
    low, high = reward_bounds(spec)
    assert out["reward"].between(low, high).all()
    assert out["risky"].tolist() == [False, False, False, True]
    for col in ("ds", "policy_id", "task_type", "propensity", "context", "first_message_chars"):
        assert col in out


def test_financial_write_is_hard_negative_whatever_else(spec: RewardSpec) -> None:
    best_otherwise = episode(
        "fw",
        financial_writes=1,
        csat=5.0,
        n_tool_calls=0,
        prompt_tokens=0,
        completion_tokens=0,
        latency_ms=0.0,
        cost_usd=0.0,
    )
    out = score(spec, best_otherwise, episode("destr", destructive_actions=1, csat=5.0))
    assert (out["reward"] < 0).all()
    assert out.loc["fw", "r_risk"] == -spec.w_risk * spec.financial_write


def test_loop_is_penalised(spec: RewardSpec) -> None:
    out = score(spec, episode("ok"), episode("loop", loop_detected=True))
    assert out.loc["loop", "r_penalty"] == pytest.approx(-spec.loop)
    assert out.loc["loop", "reward"] < out.loc["ok", "reward"]


def test_efficient_success_beats_slow_success(spec: RewardSpec) -> None:
    slow = episode(
        "slow",
        n_steps=35,
        n_tool_calls=15,
        n_retries=3,
        prompt_tokens=40000,
        completion_tokens=4000,
        latency_ms=60000.0,
        cost_usd=0.3,
    )
    out = score(spec, episode("fast"), slow)
    assert out.loc["fast", "reward"] > out.loc["slow", "reward"]
    assert out.loc["slow", "r_cost"] >= -spec.w_cost * spec.max_cost


def test_takeover_complaint_csat_and_nulls(spec: RewardSpec) -> None:
    out = score(
        spec,
        episode("base"),
        episode("bad", human_takeover=True, complaint=True, csat=1.0),
        episode("happy", csat=5.0),
    )
    assert out.loc["base", ["r_takeover", "r_complaint", "r_csat"]].eq(0).all()
    assert out.loc["bad", "r_takeover"] == -spec.human_takeover
    assert out.loc["bad", "r_complaint"] == -spec.complaint
    assert out.loc["bad", "r_csat"] == pytest.approx(-spec.csat_weight)
    assert out.loc["happy", "r_csat"] == pytest.approx(spec.csat_weight)


def steps_frame() -> pd.DataFrame:
    rows = []
    layout = {
        "a": [
            "message",
            "message",
            "tool_call",
            "tool_result",
            "tool_call",
            "tool_result",
            "respond",
            "finish",
        ],
        "b": ["message", "respond"],
        "c": ["system", "message"],  # no agent action at all
    }
    roles = {"message": "user", "tool_result": "tool", "system": "system"}
    for eid, actions in layout.items():
        for i, act in enumerate(actions):
            rows.append(
                {
                    "ds": DS,
                    "episode_id": eid,
                    "step": i,
                    "role": roles.get(act, "assistant"),
                    "action_type": "message" if act == "system" else act,
                    "tool_name": "get_customer" if act == "tool_call" else None,
                    "content": "x",
                }
            )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3)  # order must not matter


def test_step_rewards_sum_to_episode_reward_and_discount(spec: RewardSpec) -> None:
    er = score_episodes(
        pd.DataFrame(
            [episode("a"), episode("b", success=False, loop_detected=True), episode("c", csat=4.0)]
        ),
        spec,
    )
    out = step_rewards(steps_frame(), er, spec)
    sums = out.groupby("episode_id")["step_reward"].sum()
    expected = er.set_index("episode_id")["reward"]
    np.testing.assert_allclose(sums.sort_index(), expected.loc[sums.sort_index().index], atol=1e-12)
    a = out[out["episode_id"] == "a"].sort_values("step")
    r = a["step_reward"].to_numpy()
    g = np.array(
        [sum(spec.gamma ** (j - i) * r[j] for j in range(i, len(r))) for i in range(len(r))]
    )
    np.testing.assert_allclose(a["return_to_go"], g, atol=1e-12)
    # non-action steps carry no cost; the terminal step carries the outcome
    assert (a.loc[a["action_type"].isin(["message", "tool_result"]), "step_reward"] == 0).all()
    assert a["step_reward"].iloc[-1] > 0.5
    assert set(out.columns) >= {"role", "action_type", "tool_name", "reward_version"}


def test_reward_hacking_signals() -> None:
    spec = load_reward_spec()
    rows = [episode(f"g{i}", policy_id="good", n_steps=6) for i in range(10)]
    rows += [
        episode(f"h{i}", policy_id="hacky", n_steps=2, premature_finish=i < 8) for i in range(10)
    ]
    rows += [
        episode(
            f"r{i}",
            policy_id="good",
            task_type="refund",
            success=False,
            human_takeover=i < 3,
            complaint=i == 0,
        )
        for i in range(5)
    ]
    replayed = pd.DataFrame(rows)
    out = reward_hacking_signals(replayed, score_episodes(replayed, spec))
    row = out.set_index(["policy_id", "task_type"])
    assert row.loc[("hacky", "update_contact"), "early_end_rate"] == 1.0
    assert "ends_early" in row.loc[("hacky", "update_contact"), "flags"]
    assert row.loc[("good", "update_contact"), "flags"] == ""
    assert row.loc[("good", "update_contact"), "traffic_share"] == 0.5
    assert row.loc[("good", "refund"), "task_mix_share"] == pytest.approx(5 / 15)
    assert row.loc[("good", "refund"), "unresolved_rate"] == pytest.approx(2 / 5)
    assert row.loc[("good", "refund"), "takeover_rate"] == pytest.approx(3 / 5)
    assert row.loc[("good", "refund"), "complaint_rate"] == pytest.approx(1 / 5)
