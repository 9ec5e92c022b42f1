"""Off-policy evaluation of any target policy from logged propensities.

A target policy is given as probabilities per logged context: ``probs[i, k]`` is the
probability that the target chooses action ``actions[k]`` in the context of logged row ``i``
(a deterministic choice is a one-hot row, a traffic split a constant row, a softmax or Thompson
policy any distribution). Row ``i`` logged action ``a_i`` with propensity ``p_i`` and reward
``r_i``; the importance weight is ``w_i = probs[i, a_i] / p_i``. With a reward model ``q(x, a)``
(clipped to the reward's range) the estimators are:

- ``ips``: ``mean(w r)``; ``snips``: ``sum(w r) / sum(w)``;
- ``dm`` (direct method): ``mean(sum_a probs[i, a] q(x_i, a))``;
- ``dr`` (doubly robust): ``dm + mean(w (r - q(x, a)))``;
- ``sndr`` (self-normalised doubly robust): ``dm + sum(w (r - q(x, a))) / sum(w)``: the weights
  of the correction sum to one, so a few huge weights cannot run the estimate away.

The reward model (``reward_model.PooledRewardModel``) is one ridge regression over every
policy's rows: context features, the policy, and policy-by-context interactions shrunk toward
the pooled fit,
cross-fitted over K folds (no row is predicted by a model that saw it). Every estimate and
interval end is clipped to the reward range (the window's observed range unless configured).

Intervals (:func:`estimator_intervals`): a Poisson bootstrap over the logged rows recomputes
every estimator (the normalisations included); where the rewards are binary, or the rows the
target weighs show a single reward value, the interval is widened to contain the Wilson score
interval at the effective sample size ``(sum w)^2 / sum w^2``, so no reward is never a
zero-width interval and rare rewards keep their skewed upper tail. DM's interval also contains
DR's: its bootstrap holds the reward model fixed and so cannot see the model's bias.

Diagnostics per estimate: the effective sample size and the largest weight; an estimate whose
ESS is below ``min_ess`` or whose largest weight exceeds ``max_weight`` carries a warning
(``ope_warning``), and the decision never changes the default on it (``decide``).

This is a small numpy implementation on purpose: the usual OPE libraries (Open Bandit Pipeline,
Vowpal Wabbit's estimators, SCOPE-RL, d3rlpy) are unmaintained for current pandas/numpy/sklearn or
pull in GPU and deep-learning stacks, for a few lines of arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from agentic_pipeline.selection.linear import ContextFeaturizer
from agentic_pipeline.selection.reward_model import cross_fit_rewards

#: Poisson counts drawn at once by the bootstrap (rows x draws)
BOOTSTRAP_BATCH = 2_000_000
#: The estimators, in the order the tables show them.
ESTIMATORS = ("ips", "snips", "dm", "dr", "sndr")
#: The estimator reported as ``ope_estimate`` (chosen by measurement: docs/ope.md).
HEADLINE = "sndr"
#: The headline estimate with its interval, effective sample size and identifiability.
OPE_INTERVAL_COLUMNS = ("ope_estimate", "ope_ci_low", "ope_ci_high", "ope_ess", "ope_identified")
#: Every estimator's value and interval, the headline's name, largest weight and warning.
OPE_DETAIL_COLUMNS = (
    *(f"ope_{e}{s}" for e in ESTIMATORS for s in ("_low", "_high")),
    "ope_estimator",
    "ope_max_weight",
    "ope_warning",
)
OPE_COLUMNS = [
    "task_type",
    "policy_id",
    *(f"ope_{e}" for e in ESTIMATORS),
    *OPE_INTERVAL_COLUMNS,
    "ope_reason",
    *OPE_DETAIL_COLUMNS,
]


@dataclass(frozen=True)
class OPEConfig:
    """Settings of the off-policy estimators."""

    n_folds: int = 5
    n_bootstrap: int = 1000
    confidence: float = 0.9
    #: ridge penalty of the reward model; None: chosen by generalised cross-validation
    ridge_alpha: float | None = None
    headline: str = HEADLINE
    #: (low, high) of the reward; None: the observed range of the rewards evaluated
    reward_range: tuple[float, float] | None = None
    #: diagnostics guard: below this effective sample size an estimate is flagged
    min_ess: float = 30.0
    #: diagnostics guard: above this largest importance weight an estimate is flagged
    max_weight: float = 50.0

    def __post_init__(self) -> None:
        if self.headline not in ESTIMATORS:
            raise ValueError(f"unknown headline estimator {self.headline!r}: one of {ESTIMATORS}")


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


# -- estimators and intervals --------------------------------------------------------------------


def _wilson(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed over ``n`` (possibly fractional)."""
    if not n > 0:
        return 0.0, 1.0
    from scipy import stats  # here: scipy.stats costs ~1 s of every CLI start

    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    return float(max(centre - half, 0.0)), float(min(centre + half, 1.0))


def _estimates_from_sums(s: np.ndarray) -> np.ndarray:
    """Estimators from column sums ``[n, w, w r, dm, w (r - q)]`` (any leading shape)."""
    n, sw, swr, sdm, sres = (s[..., j] for j in range(5))
    with np.errstate(invalid="ignore", divide="ignore"):
        dm = sdm / n
        return np.stack(
            [swr / n, swr / sw, dm, dm + sres / n, dm + np.where(sw > 0, sres / sw, 0.0)], axis=-1
        )


def estimator_intervals(
    rewards: np.ndarray,
    weights: np.ndarray,
    q_logged: np.ndarray,
    q_target: np.ndarray,
    reward_range: tuple[float, float],
    confidence: float,
    n_bootstrap: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Every estimator with its interval, the effective sample size and the largest weight.

    ``weights``: target probability of the logged action over its propensity; ``q_logged``: the
    reward model at the logged action; ``q_target``: its expectation under the target policy.
    """
    low, high = reward_range
    n = len(rewards)
    terms = np.column_stack(
        [np.ones(n), weights, weights * rewards, q_target, weights * (rewards - q_logged)]
    )
    point = _estimates_from_sums(terms.sum(axis=0))
    # Poisson bootstrap over the logged rows: every estimator from the same resamples, drawn in
    # batches of about BOOTSTRAP_BATCH counts so a large window stays small in memory
    batch = max(1, BOOTSTRAP_BATCH // max(n, 1))
    sums = [
        rng.poisson(1.0, size=(min(batch, n_bootstrap - start), n)).astype(float) @ terms
        for start in range(0, n_bootstrap, batch)
    ]
    boot = _estimates_from_sums(np.concatenate(sums))
    tail = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        lo_q, hi_q = np.nanquantile(boot, [tail, 1 - tail], axis=0)
    ess = float(weights.sum() ** 2 / np.sum(weights**2)) if np.any(weights > 0) else 0.0
    out: dict[str, float] = {"ess": ess, "max_weight": float(weights.max(initial=0.0))}
    span = high - low if high > low else 1.0
    weighed = rewards[weights > 0]
    binary = bool(np.isin(rewards, (low, high)).all())
    single_value = len(np.unique(weighed)) <= 1
    for j, name in enumerate(ESTIMATORS):
        est, lo, hi = float(point[j]), float(lo_q[j]), float(hi_q[j])
        if not np.isfinite(est):  # no weight on any row: nothing to estimate from
            out.update({name: np.nan, f"{name}_low": np.nan, f"{name}_high": np.nan})
            continue
        if binary or single_value:
            # rare or absent rewards: at least the Wilson interval at the effective size
            n_eff = float(n) if name == "dm" else ess
            p = min(max((est - low) / span, 0.0), 1.0)
            w_lo, w_hi = _wilson(p, n_eff, confidence)
            lo = min(lo, low + span * w_lo) if np.isfinite(lo) else low + span * w_lo
            hi = max(hi, low + span * w_hi) if np.isfinite(hi) else low + span * w_hi
        est = min(max(est, low), high)
        out[name] = est
        out[f"{name}_low"] = min(max(lo, low), est)
        out[f"{name}_high"] = max(min(hi, high), est)
    # the DM bootstrap holds the reward model fixed, so it ignores the model's own bias, which
    # the doubly robust correction measures: DM's interval also contains DR's
    if np.isfinite(out["dr"]):
        out["dm_low"] = min(out["dm_low"], out["dr_low"])
        out["dm_high"] = max(out["dm_high"], out["dr_high"])
    return out


def diagnostics_warning(ess: float, max_weight: float, config: OPEConfig) -> str | None:
    """Why an estimate is too weak to act on (tiny ESS or an extreme weight), or None."""
    problems = []
    if not ess >= config.min_ess:
        problems.append(f"effective sample size {ess:.1f} < {config.min_ess:g}")
    if max_weight > config.max_weight:
        problems.append(f"largest weight {max_weight:.1f} > {config.max_weight:g}")
    return "; ".join(problems) or None


# -- target policies -----------------------------------------------------------------------------


def deterministic_target(actions: Sequence[str], n: int, policy: str) -> np.ndarray:
    """``probs`` of "always ``policy``" for ``n`` rows."""
    probs = np.zeros((n, len(actions)))
    if policy in actions:
        probs[:, list(actions).index(policy)] = 1.0
    return probs


def split_target(
    actions: Sequence[str],
    task_types: np.ndarray,
    split: Mapping[str, Mapping[str, float]],
) -> np.ndarray:
    """``probs`` of a traffic split per task type (``"*"``: every other task type).

    Shares are normalised per task type; a task type without a split (and no ``"*"``) gets a
    row of NaN, which the estimators report as not evaluated.
    """
    index = {a: k for k, a in enumerate(actions)}
    probs = np.full((len(task_types), len(actions)), np.nan)
    for task in pd.unique(task_types):
        shares = split.get(str(task), split.get("*"))
        if not shares:
            continue
        total = float(sum(v for v in shares.values() if v > 0))
        if total <= 0:
            raise ValueError(f"traffic split for {task!r}: shares must be positive")
        row = np.zeros(len(actions))
        for policy, share in shares.items():
            if share < 0:
                raise ValueError(f"traffic split for {task!r}: negative share for {policy!r}")
            if policy in index:
                row[index[policy]] = share / total
        probs[task_types == task] = row
    return probs


def softmax_target(scores: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """``probs`` of a softmax over per-context action ``scores`` (rows: contexts)."""
    z = np.asarray(scores, float) / temperature
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


# -- the window ----------------------------------------------------------------------------------


@dataclass
class LoggedData:
    """A window's logged rows prepared once: actions, propensities and the reward model."""

    window: pd.DataFrame
    actions: list[str]
    action_index: np.ndarray
    rewards: np.ndarray
    propensity: np.ndarray
    q: np.ndarray
    reward_range: tuple[float, float]

    @classmethod
    def prepare(
        cls,
        window: pd.DataFrame,
        config: OPEConfig,
        featurizer: ContextFeaturizer | None = None,
        rng: np.random.Generator | None = None,
        actions: Sequence[str] | None = None,
    ) -> LoggedData:
        """Featurise ``window`` and cross-fit the pooled reward model over every action."""
        rng = rng or np.random.default_rng(0)
        featurizer = featurizer or ContextFeaturizer()
        x = featurizer.fit(window).transform(window)
        logged = window["policy_id"].astype(str).to_numpy()
        acts = list(actions) if actions is not None else sorted(pd.unique(logged).tolist())
        index = {a: k for k, a in enumerate(acts)}
        unknown = sorted(set(logged) - set(index))
        if unknown:
            raise ValueError(f"logged actions missing from the action list: {unknown[:5]}")
        a_idx = np.array([index[a] for a in logged], dtype=int)
        rewards = window["reward"].to_numpy(float)
        if config.reward_range is not None:
            reward_range = (float(config.reward_range[0]), float(config.reward_range[1]))
        else:
            reward_range = (float(rewards.min()), float(rewards.max()))
        q = cross_fit_rewards(
            x, a_idx, rewards, len(acts), config.n_folds, config.ridge_alpha, reward_range, rng
        )
        prop = pd.to_numeric(window["propensity"], errors="coerce").to_numpy(float)
        return cls(window, acts, a_idx, rewards, prop, q, reward_range)

    def evaluate(
        self,
        probs: np.ndarray,
        rows: np.ndarray,
        config: OPEConfig,
        rng: np.random.Generator,
        identified: bool = True,
    ) -> dict[str, float]:
        """Every estimator of the target over ``rows``; ``probs[j]`` belongs to row ``rows[j]``."""
        p, a = probs, self.action_index[rows]
        q = self.q[rows]
        q_target = np.einsum("ik,ik->i", p, q)
        if not identified:
            out = {e: np.nan for e in ESTIMATORS}
            out.update({f"{e}{s}": np.nan for e in ESTIMATORS for s in ("_low", "_high")})
            out.update(dm=float(q_target.mean()), ess=np.nan, max_weight=np.nan)
            return out
        weights = p[np.arange(len(rows)), a] / self.propensity[rows]
        return estimator_intervals(
            self.rewards[rows],
            weights,
            q[np.arange(len(rows)), a],
            q_target,
            self.reward_range,
            config.confidence,
            config.n_bootstrap,
            rng,
        )


def _row(estimates: dict[str, float], config: OPEConfig, identified: bool, reason: str) -> dict:
    """One OPE table row from :meth:`LoggedData.evaluate`'s output."""
    head = config.headline
    row = {f"ope_{k}": v for k, v in estimates.items() if k not in ("ess", "max_weight")}
    warning = diagnostics_warning(estimates["ess"], estimates["max_weight"], config)
    row.update(
        ope_estimate=estimates[head] if identified else np.nan,
        ope_ci_low=estimates[f"{head}_low"] if identified else np.nan,
        ope_ci_high=estimates[f"{head}_high"] if identified else np.nan,
        ope_ess=estimates["ess"],
        ope_max_weight=estimates["max_weight"],
        ope_estimator=head,
        ope_identified=identified,
        ope_reason=reason,
        ope_warning=warning if identified else None,
    )
    return row


def ope_estimates(
    window: pd.DataFrame,
    config: OPEConfig | None = None,
    featurizer: ContextFeaturizer | None = None,
    seed: int | np.random.Generator | None = 0,
    data: LoggedData | None = None,
) -> pd.DataFrame:
    """OPE of "always p" per (task type, policy p logged in that task type): ``OPE_COLUMNS``."""
    config = config or OPEConfig()
    rng = np.random.default_rng(seed)
    if window.empty:
        return pd.DataFrame(columns=OPE_COLUMNS)
    data = data or LoggedData.prepare(window, config, featurizer, rng)
    rows = []
    for task, idx in window.groupby("task_type", sort=True).indices.items():
        identified, reason = identification(window["propensity"].iloc[idx])
        logged = sorted(pd.unique(window["policy_id"].iloc[idx].astype(str)).tolist())
        for target in logged:
            probs = deterministic_target(data.actions, len(idx), target)
            estimates = data.evaluate(probs, idx, config, rng, identified)
            rows.append(
                {
                    "task_type": task,
                    "policy_id": target,
                    **_row(estimates, config, identified, reason),
                }
            )
    return pd.DataFrame(rows, columns=OPE_COLUMNS)


#: Columns of :func:`evaluate_targets`.
TARGET_COLUMNS = ["target", "task_type", "n_episodes", *OPE_COLUMNS[2:]]


def evaluate_targets(
    window: pd.DataFrame,
    targets: Mapping[str, np.ndarray],
    config: OPEConfig | None = None,
    featurizer: ContextFeaturizer | None = None,
    seed: int | np.random.Generator | None = 0,
    data: LoggedData | None = None,
) -> pd.DataFrame:
    """OPE of named target policies per task type: ``TARGET_COLUMNS``.

    ``targets[name]`` is a ``(len(window), len(data.actions))`` matrix of target probabilities
    per logged row (columns in ``data.actions`` order); rows of NaN are not evaluated.
    """
    config = config or OPEConfig()
    rng = np.random.default_rng(seed)
    if window.empty or not targets:
        return pd.DataFrame(columns=TARGET_COLUMNS)
    data = data or LoggedData.prepare(window, config, featurizer, rng)
    out = []
    for name, probs in targets.items():
        probs = np.asarray(probs, float)
        if probs.shape != (len(window), len(data.actions)):
            raise ValueError(
                f"target {name!r}: probabilities of shape {probs.shape}, expected "
                f"{(len(window), len(data.actions))} (rows x actions {data.actions})"
            )
        for task, idx in window.groupby("task_type", sort=True).indices.items():
            p = probs[idx]
            if np.isnan(p).any():
                continue
            total = p.sum(axis=1)
            if (p < 0).any() or (total > 1 + 1e-6).any():
                raise ValueError(
                    f"target {name!r}: probabilities per row must be non-negative and sum to 1"
                )
            identified, reason = identification(window["propensity"].iloc[idx])
            # a split naming a policy absent from the window leaves its rows short of 1: the
            # logs say nothing about that policy
            unknown = float(np.mean(1.0 - total))
            if unknown > 1e-6:
                identified = False
                reason = (
                    f"the target gives {unknown:.0%} of its probability to policies absent from "
                    "the window: not identified"
                )
            estimates = data.evaluate(p, idx, config, rng, identified)
            if unknown > 1e-6:
                estimates["dm"] = np.nan  # no reward model for a policy never logged
            row = _row(estimates, config, identified, reason)
            here = np.isin(np.arange(len(data.actions)), data.action_index[idx])
            elsewhere = float(p[:, ~here].sum(axis=1).mean())
            if identified and elsewhere > 1e-6:
                note = (
                    f"the target gives {elsewhere:.0%} to policies never logged in this task "
                    "type (unbiased only if the logging could have chosen them)"
                )
                row["ope_warning"] = "; ".join(filter(None, (row["ope_warning"], note)))
            out.append({"target": name, "task_type": task, "n_episodes": len(idx), **row})
    return pd.DataFrame(out, columns=TARGET_COLUMNS)
