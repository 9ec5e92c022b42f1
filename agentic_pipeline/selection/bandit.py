"""Bandit statistics per (task type, policy): posterior intervals, LCB and probability best.

The mean reward of each arm has a normal-inverse-gamma posterior with a weak prior centred on the
task type's pooled mean (``prior_strength`` pseudo-episodes), so its marginal is a Student t.
Intervals come from that t (``method="posterior"``) or from a percentile bootstrap of the mean
(``method="bootstrap"``). The probability that each candidate is best is a seeded Monte Carlo
over the posteriors (Thompson sampling's allocation probability).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ARM_COLUMNS = [
    "task_type",
    "policy_id",
    "n_episodes",
    "mean_reward",
    "std_reward",
    "post_mean",
    "post_scale",
    "post_df",
    "ci_low",
    "ci_high",
]


def arm_posteriors(
    rewards: pd.DataFrame,
    confidence: float = 0.9,
    prior_strength: float = 1.0,
    method: str = "posterior",
    n_bootstrap: int = 1000,
    seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Posterior of the mean reward per (task type, policy) and a two-sided interval."""
    if method not in ("posterior", "bootstrap"):
        raise ValueError(f"unknown interval method {method!r}")
    g = rewards.groupby(["task_type", "policy_id"], sort=True)["reward"]
    arms = g.agg(n_episodes="size", mean_reward="mean", ss=lambda r: ((r - r.mean()) ** 2).sum())
    arms = arms.reset_index()
    task = rewards.groupby("task_type")["reward"].agg(mu0="mean", var0=lambda r: r.var(ddof=0))
    arms = arms.join(task, on="task_type")
    n, xbar = arms["n_episodes"].astype(float), arms["mean_reward"]
    kappa0, alpha0 = prior_strength, 1.0
    beta0 = alpha0 * arms["var0"].fillna(0.0).clip(lower=1e-12)
    kappa_n = kappa0 + n
    alpha_n = alpha0 + n / 2
    beta_n = beta0 + arms["ss"] / 2 + kappa0 * n * (xbar - arms["mu0"]) ** 2 / (2 * kappa_n)
    arms["post_mean"] = (kappa0 * arms["mu0"] + n * xbar) / kappa_n
    arms["post_scale"] = np.sqrt(beta_n / (alpha_n * kappa_n))
    arms["post_df"] = 2 * alpha_n
    arms["std_reward"] = np.sqrt(arms["ss"] / (n - 1).clip(lower=1))
    tail = (1 - confidence) / 2
    if method == "posterior":
        from scipy import stats  # here: scipy.stats costs ~1 s of every CLI start

        half = stats.t.ppf(1 - tail, arms["post_df"]) * arms["post_scale"]
        arms["ci_low"] = arms["post_mean"] - half
        arms["ci_high"] = arms["post_mean"] + half
    else:
        rng = np.random.default_rng(seed)
        bounds = []
        for _, r in g:
            values = r.to_numpy(float)
            means = values[rng.integers(0, len(values), (n_bootstrap, len(values)))].mean(axis=1)
            bounds.append(np.quantile(means, [tail, 1 - tail]))
        arms[["ci_low", "ci_high"]] = np.asarray(bounds).reshape(-1, 2)
    return arms[ARM_COLUMNS]


def prob_best(
    arms: pd.DataFrame,
    candidates: pd.Series,
    n_samples: int = 4000,
    seed: int | np.random.Generator | None = 0,
) -> pd.Series:
    """P(arm has the highest mean) among ``candidates`` within its task type; NaN elsewhere."""
    rng = np.random.default_rng(seed)
    out = pd.Series(np.nan, index=arms.index)
    for _, idx in arms[candidates].groupby("task_type", sort=True).groups.items():
        sub = arms.loc[idx]
        draws = sub["post_mean"].to_numpy() + sub["post_scale"].to_numpy() * rng.standard_t(
            sub["post_df"].to_numpy(), size=(n_samples, len(sub))
        )
        wins = np.bincount(draws.argmax(axis=1), minlength=len(sub))
        out.loc[idx] = wins / n_samples
    return out


def risk_upper_bound(
    n_risky: pd.Series | np.ndarray, n: pd.Series | np.ndarray, confidence: float = 0.95
) -> np.ndarray:
    """One-sided upper bound of a risk rate: the Jeffreys Beta(k + 1/2, n - k + 1/2) quantile.

    Even with no risky episode the bound only shrinks like ``1 / n``, so a policy needs enough
    clean episodes before it can be shown to be within a small risk budget.
    """
    from scipy import stats  # here: scipy.stats costs ~1 s of every CLI start

    k = np.asarray(n_risky, dtype=float)
    n = np.asarray(n, dtype=float)
    upper = stats.beta.ppf(confidence, k + 0.5, np.maximum(n - k, 0) + 0.5)
    return np.where((k >= n) | (n == 0), 1.0, upper)
