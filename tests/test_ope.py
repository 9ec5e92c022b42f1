"""Off-policy estimators on a synthetic bandit whose true values are known."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from agentic_pipeline.selection.ope import OPEConfig, identification, ope_estimates

POLICIES = np.array(["a", "b", "c"])
TIERS = np.array(["gold", "silver", "bronze"])
# mean reward of each policy (columns) per tier (rows)
MEANS = np.array([[0.2, 0.6, 0.9], [0.5, 0.5, 0.3], [0.4, 0.7, 0.1]])
# logging probabilities per tier: depend on the context, so naive means are biased
LOGGING = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])
TIER_P = np.array([0.3, 0.4, 0.3])
TRUE_VALUE = dict(zip(POLICIES, TIER_P @ MEANS, strict=True))


def synthetic(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    tier = rng.choice(3, size=n, p=TIER_P)
    u = rng.random(n)[:, None]
    action = (u > np.cumsum(LOGGING[tier], axis=1)).sum(axis=1)
    reward = MEANS[tier, action] + rng.normal(0, 0.3, n)
    return pd.DataFrame(
        {
            "ds": "2026-11-28",
            "episode_id": [f"e{i}" for i in range(n)],
            "policy_id": POLICIES[action],
            "task_type": "refund",
            "propensity": LOGGING[tier, action],
            "reward": reward,
            "context": [json.dumps({"tier": TIERS[t]}) for t in tier],
            "first_message_chars": rng.integers(10, 400, n),
        }
    )


def test_estimators_recover_known_values() -> None:
    df = synthetic(6000, seed=1)
    out = ope_estimates(df, OPEConfig(n_bootstrap=200), seed=0).set_index("policy_id")
    naive = df.groupby("policy_id")["reward"].mean()
    for p, truth in TRUE_VALUE.items():
        row = out.loc[p]
        assert row["ope_identified"]
        for col in ("ope_ips", "ope_snips", "ope_dm", "ope_dr"):
            assert row[col] == pytest.approx(truth, abs=0.06), (p, col)
        assert row["ope_estimate"] == row["ope_dr"]
        assert row["ope_ci_low"] < truth < row["ope_ci_high"]
        assert 0 < row["ope_ess"] <= (df["policy_id"] == p).sum()
    # the logging is confounded by tier: the naive mean of c is far from its value
    assert abs(naive["c"] - TRUE_VALUE["c"]) > 0.1


def test_dr_interval_coverage_is_roughly_nominal() -> None:
    hits, draws = 0, 40
    for seed in range(draws):
        df = synthetic(600, seed=100 + seed)
        out = ope_estimates(df, OPEConfig(n_folds=3, n_bootstrap=200, confidence=0.9), seed=seed)
        row = out.set_index("policy_id").loc["b"]
        hits += row["ope_ci_low"] <= TRUE_VALUE["b"] <= row["ope_ci_high"]
    assert 0.75 <= hits / draws <= 1.0


def test_missing_propensities_give_unidentified_direct_method() -> None:
    df = synthetic(900, seed=2)
    df.loc[df.index[:10], "propensity"] = np.nan
    out = ope_estimates(df, OPEConfig(n_bootstrap=50), seed=0)
    assert not out["ope_identified"].any()
    assert out["ope_estimate"].isna().all() and out["ope_ips"].isna().all()
    assert out["ope_dm"].notna().all()
    assert out["ope_reason"].str.contains("missing").all()


def test_deterministic_logging_is_unidentified() -> None:
    ok, reason = identification(pd.Series([1.0, 1.0, 1.0]))
    assert not ok and "deterministic" in reason
    ok, reason = identification(pd.Series([0.0, 0.5]))
    assert not ok and "outside" in reason
    assert identification(pd.Series([0.5, 1.0]))[0]
