"""Bandit statistics, guardrails, champion/challenger and the policy_selection contract."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agentic_pipeline.selection import (
    SELECTION_COLUMNS,
    SelectionConfig,
    render_chart,
    render_report,
    select_policies,
)
from agentic_pipeline.selection.bandit import arm_posteriors, prob_best, risk_upper_bound
from agentic_pipeline.selection.linear import ContextFeaturizer, linear_estimates

DAY = "2026-11-28"
DAYS = [f"2026-11-{d:02d}" for d in range(22, 29)]


def window(
    arms: dict[tuple[str, str], tuple[int, float]],
    risk: dict[tuple[str, str], float] | None = None,
    sd: float = 0.3,
    seed: int = 0,
    propensity: float | None = None,
) -> pd.DataFrame:
    """``episode_rewards`` rows: ``arms`` maps (task type, policy) to (n, mean reward)."""
    rng = np.random.default_rng(seed)
    frames = []
    for (task, policy), (n, mean) in arms.items():
        risky = rng.random(n) < (risk or {}).get((task, policy), 0.0)
        tier = rng.choice(["gold", "silver"], n)
        frames.append(
            pd.DataFrame(
                {
                    "ds": rng.choice(DAYS, n),
                    "episode_id": [f"{task}-{policy}-{i}" for i in range(n)],
                    "policy_id": policy,
                    "task_type": task,
                    "propensity": propensity,
                    "reward": mean + rng.normal(0, sd, n),
                    "reward_version": "v1-test",
                    "financial_writes": risky.astype(int),
                    "destructive_actions": 0,
                    "risky": risky,
                    "context": [
                        json.dumps({"tier": t, "channel": "chat", "hour": 9}) for t in tier
                    ],
                    "first_message_chars": rng.integers(20, 300, n),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


CONFIG = SelectionConfig(n_mc=2000, n_bootstrap=100, ope_folds=3)


def selected(result, task: str) -> str | None:
    t = result.table
    chosen = t.loc[(t["task_type"] == task) & t["selected"], "policy_id"]
    assert len(chosen) <= 1
    return chosen.iloc[0] if len(chosen) else None


def test_bandit_picks_clearly_best_policy() -> None:
    w = window(
        {("refund", "a"): (200, 0.2), ("refund", "b"): (200, 0.6), ("refund", "c"): (200, 0.3)}
    )
    res = select_policies(w, DAY, CONFIG, None, seed=1)
    assert selected(res, "refund") == "b"
    row = res.table.set_index("policy_id").loc["b"]
    assert row["prob_best"] > 0.99 and row["ci_low"] < 0.6 < row["ci_high"]
    assert res.registry["refund"]["selected_policy"] == "b"
    assert res.table["prob_best"].sum() == pytest.approx(1.0)


def test_table_contract_and_registry_is_json() -> None:
    w = window(
        {
            ("refund", "a"): (60, 0.2),
            ("refund", "b"): (60, 0.4),
            ("update_contact", "a"): (60, 0.5),
            ("update_contact", "b"): (10, 0.9),
        },
        propensity=0.5,
    )
    w = pd.concat([w, w.assign(ds="2026-11-01", episode_id=w["episode_id"] + "-old")])
    res = select_policies(w, DAY, CONFIG, {"refund": None}, seed=0)
    t = res.table
    assert list(t.columns) == SELECTION_COLUMNS
    assert (t["ds"] == DAY).all() and (t["window_start"] == "2026-11-15").all()  # 14-day window
    assert t["n_episodes"].sum() == 190  # the old day is outside the 7-day window
    assert t.groupby("task_type")["selected"].sum().eq(1).all()
    small = t.set_index(["task_type", "policy_id"]).loc[("update_contact", "b")]
    assert not small["eligible"] and "at least 30 are needed" in small["reason"]
    assert t["ope_identified"].all() and t["ope_estimate"].notna().all()
    registry = json.loads(json.dumps(res.registry))
    assert registry["refund"]["reward_version"] == "v1-test"
    assert set(registry["refund"]) >= {
        "selected_policy",
        "estimate",
        "ci_low",
        "ci_high",
        "reason",
        "window_start",
        "window_end",
    }
    assert "# Policy selection" in res.report_md and "## refund" in res.report_md


def test_risky_policy_never_selected() -> None:
    w = window(
        {("refund", "safe"): (300, 0.3), ("refund", "risky"): (300, 0.9)},
        risk={("refund", "risky"): 0.08},
    )
    for defaults in (None, {"refund": "risky"}, {"refund": "safe"}):
        res = select_policies(w, DAY, CONFIG, defaults, seed=0)
        assert selected(res, "refund") == "safe"
        row = res.table.set_index("policy_id").loc["risky"]
        assert not row["eligible"] and "risk" in row["reason"]
        assert row["risk_rate"] > 0 and row["risk_upper"] > CONFIG.risk_budget


def test_nothing_eligible_keeps_default_unless_it_is_risky() -> None:
    w = window({("refund", "a"): (10, 0.3), ("refund", "b"): (10, 0.5)})
    res = select_policies(w, DAY, CONFIG, {"refund": "a", "booking": "x"}, seed=0)
    assert selected(res, "refund") == "a"
    assert "no eligible policy" in res.registry["refund"]["reason"]
    assert res.registry["booking"]["selected_policy"] == "x"  # no data: default kept
    risky = window({("refund", "a"): (100, 0.3)}, risk={("refund", "a"): 0.2})
    res = select_policies(risky, DAY, CONFIG, {"refund": "a"}, seed=0)
    assert selected(res, "refund") is None
    assert res.registry["refund"]["selected_policy"] is None
    assert "risk budget" in res.registry["refund"]["reason"]


def test_champion_kept_when_challenger_not_confidently_better() -> None:
    w = window({("refund", "champ"): (80, 0.50), ("refund", "chall"): (80, 0.53)}, sd=0.5)
    res = select_policies(w, DAY, CONFIG, {"refund": {"selected_policy": "champ"}}, seed=0)
    assert selected(res, "refund") == "champ"
    assert "not confidently better" in res.registry["refund"]["reason"]
    assert not res.registry["refund"]["changed"]
    strong = window({("refund", "champ"): (300, 0.2), ("refund", "chall"): (300, 0.6)})
    res = select_policies(strong, DAY, CONFIG, {"refund": "champ"}, seed=0)
    assert selected(res, "refund") == "chall" and res.registry["refund"]["changed"]
    assert "confidently better" in res.registry["refund"]["reason"]


def test_posterior_and_bootstrap_intervals_agree() -> None:
    w = window({("refund", "a"): (400, 0.4)})
    post = arm_posteriors(w, 0.9).iloc[0]
    boot = arm_posteriors(w, 0.9, method="bootstrap", n_bootstrap=2000, seed=0).iloc[0]
    assert post["ci_low"] == pytest.approx(boot["ci_low"], abs=0.01)
    assert post["ci_high"] == pytest.approx(boot["ci_high"], abs=0.01)
    assert prob_best(arm_posteriors(w), pd.Series([True]), 100).iloc[0] == 1.0


def test_risk_upper_bound() -> None:
    upper = risk_upper_bound(np.array([0, 0, 5, 10]), np.array([10, 1000, 100, 10]), 0.9)
    assert upper[0] > 0.05 > upper[1]
    assert 0.05 < upper[2] < 0.12 and upper[3] == 1.0


def test_linear_model_per_context() -> None:
    w = window({("refund", "a"): (300, 0.4), ("refund", "b"): (300, 0.4)}, sd=0.1)
    gold = w["context"].str.contains("gold")
    w.loc[gold & (w["policy_id"] == "a"), "reward"] += 0.3
    w.loc[~gold & (w["policy_id"] == "b"), "reward"] += 0.2
    res = linear_estimates(w, ContextFeaturizer(), ucb_alpha=1.0)
    est = res.table.set_index("policy_id")
    assert (est["linucb_upper"] > est["linear_estimate"]).all()
    seg = res.contexts[res.contexts["segment"] == "tier"].set_index(["value", "policy_id"])
    assert seg.loc[("gold", "a"), "estimate"] > seg.loc[("gold", "b"), "estimate"]
    assert seg.loc[("silver", "b"), "estimate"] > seg.loc[("silver", "a"), "estimate"]
    decision = select_policies(w, DAY, CONFIG, None, seed=0)
    assert decision.context_decisions["differs"].any()


def test_featurizer_tolerates_bad_context() -> None:
    df = pd.DataFrame(
        {
            "task_type": ["t", "t", "u"],
            "context": [None, "{}", "not json"],
            "first_message_chars": [None, 5, 10],
        }
    )
    x = ContextFeaturizer().fit(df).transform(df)
    assert x.shape[0] == 3 and np.isfinite(x).all()


def test_report_and_chart(tmp_path: Path) -> None:
    w = window(
        {("refund", "a"): (50, 0.2), ("refund", "b"): (50, 0.6), ("booking", "a"): (50, 0.5)},
        propensity=0.5,
    )
    res = select_policies(w, DAY, CONFIG, None, seed=0)
    path = render_chart(res.table, tmp_path / "chart.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = render_report(res.table)
    assert "## booking" in md and "| policy |" in md and "## Legend" in md
    empty = select_policies(w.iloc[:0], DAY, CONFIG, {"refund": "a"}, seed=0)
    assert empty.table.empty and empty.registry["refund"]["selected_policy"] == "a"
