"""Off-policy evaluation of "always choose policy p for task type t" from logged propensities.

For an episode of task type ``t`` the logging policy chose ``policy_id`` with probability
``propensity``. For the deterministic target "always p" the importance weight is
``w = 1[policy_id == p] / propensity`` and we report:

- IPS: ``mean(w * r)``; SNIPS: ``sum(w * r) / sum(w)``;
- DM (direct method): mean prediction of policy p's Ridge reward model (``linear``) over the task
  type's contexts;
- DR (doubly robust): ``mean(q_p(x) + w * (r - q_p(x)))`` with ``q_p`` cross-fitted over K folds
  (each episode is predicted by models that never saw it);
- percentile-bootstrap intervals of DR and the effective sample size ``(sum w)^2 / sum w^2``.

The estimate is identified only where every episode of the task type has a propensity in (0, 1]
and the logging was not deterministic (not all propensities 1) and p was logged there; otherwise
DM is still given but ``ope_identified`` is False with a reason.

This is a small numpy implementation on purpose: the usual OPE libraries (Open Bandit Pipeline,
Vowpal Wabbit's estimators, SCOPE-RL, d3rlpy) are unmaintained for current pandas/numpy/sklearn or
pull in GPU and deep-learning stacks, for a few lines of arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from agentic_pipeline.selection.linear import ContextFeaturizer, fit_policy_models

#: The chosen estimate with its bootstrap interval, effective sample size and identifiability.
OPE_INTERVAL_COLUMNS = ("ope_estimate", "ope_ci_low", "ope_ci_high", "ope_ess", "ope_identified")
OPE_COLUMNS = [
    "task_type",
    "policy_id",
    "ope_ips",
    "ope_snips",
    "ope_dm",
    "ope_dr",
    *OPE_INTERVAL_COLUMNS,
    "ope_reason",
]


@dataclass(frozen=True)
class OPEConfig:
    """Settings of the off-policy estimators."""

    n_folds: int = 5
    n_bootstrap: int = 400
    confidence: float = 0.9
    ridge_alpha: float = 1.0


def identification(propensity: pd.Series) -> tuple[bool, str]:
    """Whether logged propensities identify off-policy values, with the reason if not."""
    p = pd.to_numeric(propensity, errors="coerce")
    n_missing = int(p.isna().sum())
    if n_missing:
        return False, f"propensity missing for {n_missing} of {len(p)} episodes: direct method only"
    if ((p <= 0) | (p > 1)).any():
        return False, "propensity outside (0, 1]: direct method only"
    if bool((p == 1).all()):
        return False, "deterministic logging (all propensities are 1): direct method only"
    return True, "identified: logged propensities"


def cross_fit_predictions(
    x: np.ndarray,
    rewards: np.ndarray,
    policies: np.ndarray,
    targets: list[str],
    n_folds: int,
    ridge_alpha: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Out-of-fold predictions ``q[i, j]`` of target policy ``targets[j]`` for each row ``i``."""
    n = len(rewards)
    q = np.full((n, len(targets)), np.nan)
    k = max(2, min(n_folds, n))
    folds = rng.permutation(n) % k
    for fold in range(k):
        test = folds == fold
        if not test.any():
            continue
        models = fit_policy_models(x[~test], rewards[~test], policies[~test], ridge_alpha)
        for j, target in enumerate(targets):
            if target in models:
                q[test, j] = models[target].predict(x[test])
    # a policy absent from the other folds: fall back to its full-data fit
    missing = np.isnan(q).any(axis=0)
    if missing.any():
        models = fit_policy_models(x, rewards, policies, ridge_alpha)
        for j in np.flatnonzero(missing):
            if targets[j] in models:
                rows = np.isnan(q[:, j])
                q[rows, j] = models[targets[j]].predict(x[rows])
    return q


def bootstrap_mean_ci(
    values: np.ndarray, n_bootstrap: int, confidence: float, rng: np.random.Generator
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``."""
    n = len(values)
    if n == 0:
        return np.nan, np.nan
    batch = max(1, 2_000_000 // max(n, 1))
    means = []
    for start in range(0, n_bootstrap, batch):
        size = min(batch, n_bootstrap - start)
        means.append(values[rng.integers(0, n, size=(size, n))].mean(axis=1))
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(np.concatenate(means), [tail, 1 - tail])
    return float(lo), float(hi)


def ope_estimates(
    window: pd.DataFrame,
    config: OPEConfig | None = None,
    featurizer: ContextFeaturizer | None = None,
    seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """OPE of "always p" per (task type, policy p logged in that task type): ``OPE_COLUMNS``."""
    config = config or OPEConfig()
    rng = np.random.default_rng(seed)
    if window.empty:
        return pd.DataFrame(columns=OPE_COLUMNS)
    featurizer = featurizer or ContextFeaturizer()
    x = featurizer.fit(window).transform(window)
    rewards = window["reward"].to_numpy(float)
    policies = window["policy_id"].astype(str).to_numpy()
    targets = sorted(pd.unique(policies).tolist())
    q = cross_fit_predictions(
        x, rewards, policies, targets, config.n_folds, config.ridge_alpha, rng
    )
    prop = pd.to_numeric(window["propensity"], errors="coerce").to_numpy(float)
    rows = []
    for task, idx in window.groupby("task_type", sort=True).indices.items():
        identified, reason = identification(window["propensity"].iloc[idx])
        r, a, pi = rewards[idx], policies[idx], prop[idx]
        for target in sorted(pd.unique(a).tolist()):
            qp = q[idx, targets.index(target)]
            row = {"task_type": task, "policy_id": target, "ope_dm": float(qp.mean())}
            row.update(ope_ips=np.nan, ope_snips=np.nan, ope_dr=np.nan, ope_estimate=np.nan)
            row.update(ope_ci_low=np.nan, ope_ci_high=np.nan, ope_ess=np.nan)
            if identified:
                w = np.where(a == target, 1.0 / np.where(np.isnan(pi), 1.0, pi), 0.0)
                dr_terms = qp + w * (r - qp)
                lo, hi = bootstrap_mean_ci(dr_terms, config.n_bootstrap, config.confidence, rng)
                row.update(
                    ope_ips=float(np.mean(w * r)),
                    ope_snips=float(np.sum(w * r) / np.sum(w)),
                    ope_dr=float(dr_terms.mean()),
                    ope_estimate=float(dr_terms.mean()),
                    ope_ci_low=lo,
                    ope_ci_high=hi,
                    ope_ess=float(w.sum() ** 2 / np.sum(w**2)),
                )
            row.update(ope_identified=identified, ope_reason=reason)
            rows.append(row)
    return pd.DataFrame(rows, columns=OPE_COLUMNS)
