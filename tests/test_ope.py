"""Off-policy estimators on a synthetic bandit whose true values are known."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from agentic_pipeline.selection import SelectionConfig, select_policies
from agentic_pipeline.selection.ope import (
    ESTIMATORS,
    LoggedData,
    OPEConfig,
    diagnostics_warning,
    estimator_intervals,
    evaluate_targets,
    identification,
    ope_estimates,
    softmax_target,
    split_target,
)

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
        for name in ESTIMATORS:
            assert row[f"ope_{name}"] == pytest.approx(truth, abs=0.06), (p, name)
            assert row[f"ope_{name}_low"] < row[f"ope_{name}"] < row[f"ope_{name}_high"]
        assert row["ope_estimate"] == row["ope_sndr"] and row["ope_estimator"] == "sndr"
        assert row["ope_ci_low"] < truth < row["ope_ci_high"]
        assert 0 < row["ope_ess"] <= (df["policy_id"] == p).sum()
        assert row["ope_max_weight"] == pytest.approx(1 / LOGGING[:, POLICIES == p].min())
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


def true_value(probs_per_tier: np.ndarray) -> float:
    """Value of a target giving ``probs_per_tier[tier]`` over the policies in each tier."""
    return float(TIER_P @ (probs_per_tier * MEANS).sum(axis=1))


def test_stochastic_targets_traffic_split_and_softmax() -> None:
    df = synthetic(6000, seed=3)
    data = LoggedData.prepare(df, OPEConfig(n_bootstrap=200), rng=np.random.default_rng(0))
    assert data.actions == ["a", "b", "c"]
    split = split_target(data.actions, df["task_type"].to_numpy(), {"*": {"a": 2, "c": 2}})
    assert np.allclose(split, [0.5, 0.0, 0.5])
    # a softmax over per-tier scores: the target's probabilities depend on the context
    scores = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0], [2.0, 0.5, 0.0]])
    tier = pd.Series([json.loads(c)["tier"] for c in df["context"]]).map(
        {t: i for i, t in enumerate(TIERS)}
    )
    soft = softmax_target(scores[tier.to_numpy()], temperature=0.5)
    truths = {
        "split": true_value(np.tile([0.5, 0.0, 0.5], (3, 1))),
        "softmax": true_value(softmax_target(scores, temperature=0.5)),
    }
    out = evaluate_targets(
        df, {"split": split, "softmax": soft}, OPEConfig(n_bootstrap=200), data=data
    ).set_index("target")
    for name, truth in truths.items():
        row = out.loc[name]
        assert row["n_episodes"] == len(df) and row["ope_identified"]
        for est in ESTIMATORS:
            assert row[f"ope_{est}"] == pytest.approx(truth, abs=0.05), (name, est)
        assert row["ope_ci_low"] <= truth <= row["ope_ci_high"], name
        assert row["ope_warning"] is None
    # a target that is not a distribution per row is refused
    with pytest.raises(ValueError, match="sum to 1"):
        evaluate_targets(df, {"bad": split * 2}, data=data)
    with pytest.raises(ValueError, match="shape"):
        evaluate_targets(df, {"bad": split[:10]}, data=data)


def test_no_reward_gives_a_binomial_interval_not_zero_width() -> None:
    rng = np.random.default_rng(0)
    n = 400
    weights = np.where(rng.random(n) < 0.1, 5.0, 0.0)
    rewards = np.zeros(n)  # no click at all among the rows the target weighs
    out = estimator_intervals(
        rewards, weights, np.zeros(n), np.zeros(n), (0.0, 1.0), 0.95, 200, rng
    )
    for name in ESTIMATORS:
        assert out[name] == 0.0 and out[f"{name}_low"] == 0.0
        assert out[f"{name}_high"] > 0.0, name
    # the rule of three: about 3 / ESS at 95% with zero successes
    assert out["ips_high"] == pytest.approx(3 / out["ess"], rel=0.5)


def test_rare_rewards_and_large_weights_keep_nominal_coverage() -> None:
    """Clicks at 1-3% and weights up to 20: the headline's 90% interval covers about 90%."""
    p_click = np.array([[0.01, 0.03], [0.02, 0.01]])  # (segment, action)
    logging = np.array([[0.95, 0.05], [0.5, 0.5]])
    target = np.array([[0.0, 1.0], [0.5, 0.5]])
    truth = 0.5 * (target * p_click).sum(axis=1).sum()
    hits, draws, config = 0, 80, OPEConfig(n_folds=2, n_bootstrap=200, confidence=0.9)
    for seed in range(draws):
        rng = np.random.default_rng(1000 + seed)
        n = 3000
        seg = rng.integers(0, 2, n)
        action = (rng.random(n) > logging[seg, 0]).astype(int)
        click = (rng.random(n) < p_click[seg, action]).astype(float)
        df = pd.DataFrame(
            {
                "policy_id": np.array(["x", "y"])[action],
                "task_type": "t",
                "propensity": logging[seg, action],
                "reward": click,
                "context": [json.dumps({"tier": f"s{s}"}) for s in seg],
            }
        )
        out = evaluate_targets(
            df, {"t": target[seg]}, OPEConfig(**{**config.__dict__, "reward_range": (0, 1)})
        )
        row = out.iloc[0]
        assert 0.0 <= row["ope_ci_low"] <= row["ope_estimate"] <= row["ope_ci_high"] <= 1.0
        hits += row["ope_ci_low"] <= truth <= row["ope_ci_high"]
    assert hits / draws >= 0.85


def test_estimates_stay_inside_the_reward_range() -> None:
    rng = np.random.default_rng(5)
    n = 300
    weights = np.where(rng.random(n) < 0.02, 400.0, 0.0)  # a few huge weights
    rewards = (rng.random(n) < 0.5).astype(float)
    q = np.full(n, 0.9)
    out = estimator_intervals(rewards, weights, q, q, (0.0, 1.0), 0.9, 200, rng)
    for name in ESTIMATORS:
        assert 0.0 <= out[f"{name}_low"] <= out[name] <= out[f"{name}_high"] <= 1.0, name


def test_diagnostics_guard_flags_tiny_ess_and_extreme_weights() -> None:
    config = OPEConfig(min_ess=30, max_weight=50)
    assert diagnostics_warning(500.0, 3.0, config) is None
    assert "effective sample size 4.0 < 30" in diagnostics_warning(4.0, 3.0, config)
    assert "largest weight 120.0 > 50" in diagnostics_warning(500.0, 120.0, config)


def _guard_window(n: int, seed: int) -> pd.DataFrame:
    """Policy ``rare`` is logged with propensity 0.005 and pays 1.0 (others 0.5 and 0.45)."""
    rng = np.random.default_rng(seed)
    policy = rng.choice(["base", "other", "rare"], size=n, p=[0.6, 0.395, 0.005])
    prop = np.select([policy == "base", policy == "other"], [0.6, 0.395], 0.005)
    mean = np.select([policy == "base", policy == "other"], [0.5, 0.45], 1.0)
    return pd.DataFrame(
        {
            "ds": "2026-11-28",
            "policy_id": policy,
            "task_type": "refund",
            "propensity": prop,
            "reward": mean + rng.normal(0, 0.05, n),
            "context": "{}",
            "financial_writes": 0,
            "destructive_actions": 0,
        }
    )


def test_decision_on_a_weak_estimate_keeps_the_default_and_says_so() -> None:
    df = _guard_window(4000, seed=7)
    assert (df["policy_id"] == "rare").sum() >= 10
    # a small sample cannot bound the risk rate below 5%: a budget that lets rare be eligible
    config = SelectionConfig(decide_on="ope", min_samples=10, n_bootstrap=100, risk_budget=0.2)
    res = select_policies(df, "2026-11-28", config, current_defaults={"refund": "base"})
    table = res.table.set_index("policy_id")
    assert table["eligible"].all()
    assert table.loc["rare", "ope_ci_low"] > table.loc["base", "ope_ci_high"]
    assert "largest weight 200.0 > 50" in table.loc["rare", "ope_warning"]
    entry = res.registry["refund"]
    assert entry["selected_policy"] == "base" and not entry["changed"]
    assert "weak off-policy estimate" in entry["reason"] and "rare" in entry["reason"]
    assert "off-policy estimate of rare is weak" in res.report_md
    assert "| policy | IPS | SNIPS | DM | DR | SNDR | ESS | max w | guard |" in res.report_md
    # with the guard relaxed, the same estimate would have changed the default
    loose = SelectionConfig(**{**config.__dict__, "ope_max_weight": 1000.0, "ope_min_ess": 1.0})
    res = select_policies(df, "2026-11-28", loose, current_defaults={"refund": "base"})
    assert res.registry["refund"]["selected_policy"] == "rare"


def test_target_naming_a_policy_absent_from_the_logs_is_not_identified() -> None:
    df = synthetic(900, seed=4).assign(risky=False)
    config = SelectionConfig(
        n_bootstrap=100, target_policies={"canary": {"refund": {"a": 0.5, "brand-new": 0.5}}}
    )
    res = select_policies(df, "2026-11-28", config)
    (row,) = res.targets.to_dict("records")
    assert row["target"] == "canary" and not row["ope_identified"]
    assert "50% of its probability to policies absent from the window" in row["ope_reason"]
    assert np.isnan(row["ope_estimate"]) and np.isnan(row["ope_dm"])
    assert "absent from the window" in res.report_md


def test_decide_on_ope_replaces_a_champion_over_the_risk_budget() -> None:
    df = _guard_window(4000, seed=8)
    risky = (df["policy_id"] == "other") & (np.arange(len(df)) % 5 == 0)
    df["financial_writes"] = risky.astype(int)  # a fifth of other's episodes are risky
    config = SelectionConfig(decide_on="ope", min_samples=10, n_bootstrap=100, risk_budget=0.2)
    res = select_policies(df, "2026-11-28", config, current_defaults={"refund": "other"})
    entry = res.registry["refund"]
    assert entry["selected_policy"] != "other" and entry["changed"]
    assert "exceeds the risk budget" in entry["reason"]
