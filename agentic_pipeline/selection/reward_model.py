"""The off-policy estimators' reward model: one ridge pooled over every policy, cross-fitted.

``q(x, a)`` predicts the reward of policy ``a`` in context ``x`` (``ope`` uses it for the direct
method and the doubly robust corrections); predictions are clipped to the reward's range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Ridge penalties tried by generalised cross-validation when ``ridge_alpha`` is None.
RIDGE_ALPHAS = tuple(float(a) for a in np.logspace(-2, 4, 13))


@dataclass
class PooledRewardModel:
    """One ridge over all policies: ``q(x, a) = b + x.beta + c_a + x.B_a``, clipped to a range.

    The context coefficients ``beta`` are shared by every policy; each policy's own intercept
    ``c_a`` and interactions ``B_a`` are penalised toward zero, so a policy with few rows gets the
    pooled prediction plus a small correction instead of a fit to its own handful of rows. The
    penalty is chosen by generalised (leave-one-out) cross-validation over ``RIDGE_ALPHAS`` unless
    ``alpha`` is given: with rare rewards it picks a strong one. Interactions are left out when
    ``n_actions * n_features`` exceeds ``max_interactions`` (many actions: intercepts only).
    """

    n_actions: int
    alpha: float | None = None
    max_interactions: int = 1000
    low: float = -np.inf
    high: float = np.inf

    def _design(self, x: np.ndarray, actions: np.ndarray) -> np.ndarray:
        onehot = np.zeros((len(x), self.n_actions))
        onehot[np.arange(len(x)), actions] = 1.0
        blocks = [x, onehot]
        if self.interactions:
            blocks.append((onehot[:, :, None] * x[:, None, :]).reshape(len(x), -1))
        return np.hstack(blocks)

    def fit(self, x: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> PooledRewardModel:
        """Fit on rows with context ``x``, logged action index ``actions`` and ``rewards``."""
        # imported here: scikit-learn costs ~0.5 s of every CLI start, most of which fit nothing
        from sklearn.linear_model import Ridge, RidgeCV

        self.interactions = self.n_actions * x.shape[1] <= self.max_interactions
        design = self._design(x, actions)
        if self.alpha is None and len(x) > 2:
            ridge = RidgeCV(alphas=RIDGE_ALPHAS).fit(design, rewards)
            self.alpha_ = float(ridge.alpha_)
        else:
            ridge = Ridge(alpha=self.alpha or 1.0).fit(design, rewards)
            self.alpha_ = float(self.alpha or 1.0)
        d = x.shape[1]
        coef = ridge.coef_
        self.intercept_ = float(ridge.intercept_)
        self.beta_ = coef[:d]
        self.action_ = coef[d : d + self.n_actions]
        inter = coef[d + self.n_actions :]
        self.inter_ = inter.reshape(self.n_actions, d) if self.interactions else None
        return self

    def predict_all(self, x: np.ndarray) -> np.ndarray:
        """``q[i, k]``: the predicted reward of action ``k`` in context ``i``, clipped."""
        q = self.intercept_ + (x @ self.beta_)[:, None] + self.action_[None, :]
        if self.inter_ is not None:
            q = q + x @ self.inter_.T
        return np.clip(q, self.low, self.high)


def cross_fit_rewards(
    x: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    n_actions: int,
    n_folds: int,
    alpha: float | None,
    reward_range: tuple[float, float],
    rng: np.random.Generator,
) -> np.ndarray:
    """Out-of-fold predictions ``q[i, k]`` of every action for each row ``i`` (pooled model)."""
    n = len(rewards)
    q = np.empty((n, n_actions))
    low, high = reward_range
    k = max(2, min(n_folds, n))
    folds = rng.permutation(n) % k
    for fold in range(k):
        test = folds == fold
        if not test.any():
            continue
        if (~test).sum() == 0:
            q[test] = float(np.mean(rewards))
            continue
        model = PooledRewardModel(n_actions, alpha, low=low, high=high)
        q[test] = model.fit(x[~test], actions[~test], rewards[~test]).predict_all(x[test])
    return q
