"""Linear reward model: one scikit-learn Ridge per policy over context features.

Features (``ContextFeaturizer``) come from what is known when an episode starts: the task type
(one-hot), categorical keys of the ``context`` JSON (tier, channel; one-hot), the hour of day as
a cyclic pair (sin, cos) and ``first_message_chars`` (log1p, standardised, with a missing flag).
Each policy's model gives a per-context estimate and a LinUCB-style upper bound
``pred + alpha * sqrt(x^T A^-1 x)`` with ``A = X^T X + lambda I`` over that policy's episodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # imported where fitted: scikit-learn costs ~0.5 s of every CLI start
    from sklearn.linear_model import Ridge

from agentic_pipeline.jsonutil import safe_loads


def parse_context(context: pd.Series) -> pd.DataFrame:
    """The ``context`` JSON column as a frame (nulls, ``"{}"`` and bad JSON give empty rows)."""

    def load(text: object) -> dict:
        if isinstance(text, dict):
            return text
        if not isinstance(text, str) or not text.strip():
            return {}
        value = safe_loads(text)  # bad or too deeply nested JSON: an empty row
        return value if isinstance(value, dict) else {}

    records = [load(v) for v in context.tolist()]
    return pd.DataFrame.from_records(records, index=context.index, columns=None).reindex(
        index=context.index
    )


@dataclass
class ContextFeaturizer:
    """Turns episode rows (``task_type``, ``context``, ``first_message_chars``) into a matrix."""

    categorical: tuple[str, ...] = ("tier", "channel")
    cyclic: dict[str, float] = field(default_factory=lambda: {"hour": 24.0})
    numeric: tuple[str, ...] = ("first_message_chars",)
    categories_: dict[str, list[str]] = field(default_factory=dict, init=False)
    stats_: dict[str, tuple[float, float]] = field(default_factory=dict, init=False)

    def _frame(self, df: pd.DataFrame) -> pd.DataFrame:
        ctx = parse_context(df["context"]) if "context" in df else pd.DataFrame(index=df.index)
        out = pd.DataFrame(index=df.index)
        out["task_type"] = df["task_type"].astype("string") if "task_type" in df else pd.NA
        for key in self.categorical:
            out[key] = ctx[key].astype("string") if key in ctx else pd.NA
        for key in (*self.cyclic, *self.numeric):
            col = df[key] if key in df else ctx[key] if key in ctx else None
            out[key] = np.nan if col is None else pd.to_numeric(col, errors="coerce")
        return out

    def fit(self, df: pd.DataFrame) -> ContextFeaturizer:
        """Learn categories and numeric scaling from a window of episodes."""
        frame = self._frame(df)
        self.categories_ = {
            key: sorted(frame[key].dropna().unique().tolist())
            for key in ("task_type", *self.categorical)
        }
        for key in self.numeric:
            values = np.log1p(frame[key].clip(lower=0)).dropna()
            mean = float(values.mean()) if len(values) else 0.0
            std = float(values.std(ddof=0)) if len(values) > 1 else 1.0
            self.stats_[key] = (mean, std if std > 0 else 1.0)
        return self

    @property
    def feature_names(self) -> list[str]:
        """Column names of :meth:`transform`'s output."""
        names = [f"{k}={v}" for k, values in self.categories_.items() for v in values]
        for key in self.cyclic:
            names += [f"{key}_sin", f"{key}_cos"]
        for key in self.numeric:
            names += [f"log_{key}", f"{key}_missing"]
        return names

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Feature matrix (rows of ``df``); unseen categories and missing values give zeros."""
        frame = self._frame(df)
        blocks = []
        for key, values in self.categories_.items():
            col = frame[key].astype(object).where(frame[key].notna(), None).to_numpy()
            onehot = col[:, None] == np.array(values, dtype=object)[None, :]
            blocks.append(onehot.astype(float).reshape(len(frame), len(values)))
        for key, period in self.cyclic.items():
            angle = 2 * np.pi * frame[key].to_numpy(dtype=float) / period
            blocks.append(np.nan_to_num(np.column_stack([np.sin(angle), np.cos(angle)])))
        for key in self.numeric:
            mean, std = self.stats_.get(key, (0.0, 1.0))
            z = (np.log1p(frame[key].clip(lower=0).to_numpy(dtype=float)) - mean) / std
            missing = np.isnan(z)
            blocks.append(np.column_stack([np.where(missing, 0.0, z), missing.astype(float)]))
        return np.hstack(blocks) if blocks else np.zeros((len(frame), 0))


@dataclass
class PolicyModel:
    """A fitted Ridge for one policy plus the inverse design matrix for the LinUCB width."""

    ridge: Ridge
    a_inv: np.ndarray
    n: int

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted reward per row of ``x``."""
        return self.ridge.predict(x) if len(x) else np.zeros(0)

    def width(self, x: np.ndarray) -> np.ndarray:
        """``sqrt(x^T A^-1 x)`` per row (with the intercept column)."""
        x1 = np.hstack([np.ones((len(x), 1)), x])
        return np.sqrt(np.einsum("ij,jk,ik->i", x1, self.a_inv, x1).clip(min=0))


def fit_policy_models(
    x: np.ndarray, rewards: np.ndarray, policies: np.ndarray, alpha: float = 1.0
) -> dict[str, PolicyModel]:
    """One Ridge per policy over the rows that policy logged."""
    from sklearn.linear_model import Ridge

    models: dict[str, PolicyModel] = {}
    for policy in pd.unique(policies):
        mask = policies == policy
        xp, rp = x[mask], rewards[mask]
        ridge = Ridge(alpha=alpha).fit(xp, rp)
        x1 = np.hstack([np.ones((len(xp), 1)), xp])
        a = x1.T @ x1 + alpha * np.eye(x1.shape[1])
        models[str(policy)] = PolicyModel(ridge, np.linalg.inv(a), int(mask.sum()))
    return models


@dataclass
class LinearResult:
    """Per (task type, policy) estimates and the per-context-segment decisions."""

    table: pd.DataFrame  # task_type, policy_id, linear_estimate, linucb_upper
    contexts: pd.DataFrame  # task_type, segment, value, n_contexts, policy_id, estimate


def segment_choices(contexts: pd.DataFrame, allowed: pd.DataFrame | None = None) -> pd.DataFrame:
    """Best policy per (task type, segment, value), among ``allowed`` (task_type, policy_id)."""
    cols = ["task_type", "segment", "value", "n_contexts", "best_policy", "best_estimate"]
    if allowed is not None:
        keys = ["task_type", "policy_id"]
        contexts = contexts.merge(allowed[keys].drop_duplicates(), on=keys)
    if contexts.empty:
        return pd.DataFrame(columns=cols)
    best = contexts.loc[contexts.groupby(["task_type", "segment", "value"])["estimate"].idxmax()]
    best = best.rename(columns={"policy_id": "best_policy", "estimate": "best_estimate"})
    return best[cols].reset_index(drop=True)


def linear_estimates(
    window: pd.DataFrame,
    featurizer: ContextFeaturizer | None = None,
    ridge_alpha: float = 1.0,
    ucb_alpha: float = 1.0,
    segment_keys: tuple[str, ...] = ("tier", "channel"),
) -> LinearResult:
    """Fit the per-policy models on ``window`` and evaluate each task type's contexts.

    A policy's estimate for a task type is its mean prediction over all of that task type's
    logged contexts (whichever policy served them), for the policies seen in that task type.
    """
    featurizer = featurizer or ContextFeaturizer()
    featurizer.fit(window)
    x = featurizer.transform(window)
    models = fit_policy_models(
        x, window["reward"].to_numpy(float), window["policy_id"].astype(str).to_numpy(), ridge_alpha
    )
    ctx = parse_context(window["context"]) if "context" in window else pd.DataFrame()
    rows, seg_rows = [], []
    for task, idx in window.groupby("task_type", sort=True).indices.items():
        xt = x[idx]
        policies = sorted(window["policy_id"].iloc[idx].astype(str).unique())
        preds = np.column_stack([models[p].predict(xt) for p in policies])
        widths = np.column_stack([models[p].width(xt) for p in policies])
        for j, p in enumerate(policies):
            rows.append(
                {
                    "task_type": task,
                    "policy_id": p,
                    "linear_estimate": float(preds[:, j].mean()),
                    "linucb_upper": float((preds[:, j] + ucb_alpha * widths[:, j]).mean()),
                }
            )
        for key in segment_keys:
            if key not in ctx:
                continue
            values = ctx[key].iloc[idx].astype("string").fillna("<missing>").to_numpy()
            for value in np.unique(values):
                seg = values == value
                means = preds[seg].mean(axis=0)
                seg_rows += [
                    {
                        "task_type": task,
                        "segment": key,
                        "value": str(value),
                        "n_contexts": int(seg.sum()),
                        "policy_id": p,
                        "estimate": float(means[j]),
                    }
                    for j, p in enumerate(policies)
                ]
    seg_cols = ["task_type", "segment", "value", "n_contexts", "policy_id", "estimate"]
    return LinearResult(
        pd.DataFrame(rows, columns=["task_type", "policy_id", "linear_estimate", "linucb_upper"]),
        pd.DataFrame(seg_rows, columns=seg_cols),
    )
