"""Behaviour diff between policies, from logs alone: what changes when one agent replaces another.

Input: ``replayed_episodes`` rows (and, when given, the ``reward`` of ``episode_rewards``) of one
or more days, any input format. Per ``(ds, task_type)`` the *baseline* policy (configured, else
the one with most episodes) is compared with every other policy on:

- the action distribution (each tool, ``reply``, ``finish``): the share of each action, and the
  Jensen-Shannon divergence between the two distributions (base 2: 0 same, 1 disjoint);
- tool calls per episode of each tool, and in total; steps and replies per episode, steps to
  completion (successful episodes); error and retry rates per tool call; loop rate; risky
  (financial or destructive) writes; premature finishes, false success claims, hand-overs;
  success rate and mean reward; latency, tokens, cost and duration where logged.

Every figure is a ratio of sums over units (``Metric``). When both policies ran at least
``min_pairs`` of the same tasks (``task_id``), the comparison is *paired*: units are the shared
tasks, each policy's episodes of a task averaged, and one bootstrap resample of tasks serves both
policies. Otherwise units are episodes, resampled independently per policy. The interval is the
percentile bootstrap interval of the difference (other - baseline); a figure is ``flagged`` when
that interval excludes 0. For the divergence, "no change" is a permutation null (policy labels
swapped within tasks when paired, shuffled otherwise): it is flagged when its permutation p-value
is below 1 - confidence. Every computation is vectorised over the resamples (numpy).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = [
    "DIFF_SCHEMA",
    "METRICS",
    "DiffSettings",
    "Metric",
    "behaviour_diff",
    "bounded",
    "describe_shift",
    "largest_shifts",
]

Column = Callable[[pd.DataFrame], np.ndarray]


def _col(name: str) -> Column:
    return lambda f: pd.to_numeric(f[name], errors="coerce").fillna(0).to_numpy(float)


def _flag(name: str) -> Column:
    return lambda f: f[name].astype("boolean").fillna(False).to_numpy(float)


def _known(*names: str) -> Column:
    return lambda f: f[list(names)].notna().any(axis=1).to_numpy(float)


def _ones(f: pd.DataFrame) -> np.ndarray:
    return np.ones(len(f))


def _risky(f: pd.DataFrame) -> np.ndarray:
    return _col("financial_writes")(f) + _col("destructive_actions")(f)


@dataclass(frozen=True)
class Metric:
    """A figure as the ratio of two per-episode sums, and how to say it in words."""

    name: str
    words: str
    numerator: Column
    denominator: Column = _ones
    #: Columns it needs (the metric is left out when one is missing).
    needs: tuple[str, ...] = ()


METRICS: tuple[Metric, ...] = (
    Metric("success_rate", "success rate", _flag("success"), needs=("success",)),
    Metric("reward_mean", "mean reward", _col("reward"), _known("reward"), ("reward",)),
    Metric("steps_per_episode", "steps per episode", _col("n_steps"), needs=("n_steps",)),
    Metric("replies_per_episode", "replies (turns) per episode", _col("n_responds"),
           needs=("n_responds",)),
    Metric("steps_to_completion", "steps to completion",
           lambda f: _col("n_steps")(f) * _flag("success")(f), _flag("success"),
           ("n_steps", "success")),
    Metric("tool_calls_per_episode", "tool calls per episode", _col("n_tool_calls"),
           needs=("n_tool_calls",)),
    Metric("error_rate", "share of tool calls that failed", _col("n_errors"),
           _col("n_tool_calls"), ("n_errors", "n_tool_calls")),
    Metric("retry_rate", "share of tool calls that were retries", _col("n_retries"),
           _col("n_tool_calls"), ("n_retries", "n_tool_calls")),
    Metric("loop_rate", "share of episodes with a loop", _flag("loop_detected"),
           needs=("loop_detected",)),
    Metric("risky_writes_per_episode", "risky writes per episode", _risky,
           needs=("financial_writes", "destructive_actions")),
    Metric("risky_episode_rate", "share of episodes with a risky write",
           lambda f: (_risky(f) > 0).astype(float), needs=("financial_writes",
                                                            "destructive_actions")),
    Metric("financial_writes_per_episode", "financial writes per episode",
           _col("financial_writes"), needs=("financial_writes",)),
    Metric("destructive_actions_per_episode", "destructive actions per episode",
           _col("destructive_actions"), needs=("destructive_actions",)),
    Metric("writes_per_episode", "writes per episode", _col("n_writes"), needs=("n_writes",)),
    Metric("premature_finish_rate", "premature finish rate", _flag("premature_finish"),
           needs=("premature_finish",)),
    Metric("false_success_claim_rate", "false success claim rate",
           _flag("false_success_claim"), needs=("false_success_claim",)),
    Metric("human_takeover_rate", "hand-over rate", _flag("human_takeover"),
           needs=("human_takeover",)),
    Metric("latency_ms_mean", "latency per episode (ms)", _col("latency_ms"),
           _known("latency_ms"), ("latency_ms",)),
    Metric("tokens_per_episode", "tokens per episode",
           lambda f: _col("prompt_tokens")(f) + _col("completion_tokens")(f),
           _known("prompt_tokens", "completion_tokens"), ("prompt_tokens", "completion_tokens")),
    Metric("cost_usd_mean", "cost per episode (USD)", _col("cost_usd"), _known("cost_usd"),
           ("cost_usd",)),
    Metric("duration_s_mean", "duration per episode (s)", _col("duration_s"),
           _known("duration_s"), ("duration_s",)),
)  # fmt: skip
DIVERGENCE = "action_divergence_jsd"
SHARE, PER_EPISODE = "action_share:", "tool_per_episode:"

DIFF_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("task_type", pa.string()),
        ("baseline_policy", pa.string()),
        ("other_policy", pa.string()),
        ("metric", pa.string()),
        ("words", pa.string()),
        ("baseline", pa.float64()),
        ("other", pa.float64()),
        ("delta", pa.float64()),
        ("delta_low", pa.float64()),
        ("delta_high", pa.float64()),
        ("p_value", pa.float64()),
        ("flagged", pa.bool_()),
        ("paired", pa.bool_()),
        ("n_pairs", pa.int64()),
        ("n_baseline", pa.int64()),
        ("n_other", pa.int64()),
        ("confidence", pa.float64()),
    ]
)


@dataclass(frozen=True)
class DiffSettings:
    baseline_policy: str | None = None
    confidence: float = 0.95
    n_bootstrap: int = 1000
    #: Shared tasks needed for a paired comparison.
    min_pairs: int = 5
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.5 < self.confidence < 1:
            raise ValueError("behaviour diff: confidence must be in (0.5, 1)")
        if self.n_bootstrap < 0 or self.min_pairs < 1:
            raise ValueError("behaviour diff: n_bootstrap >= 0 and min_pairs >= 1")


def _action_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per episode: calls of each tool, ``reply`` and ``finish`` (columns), from replay facts."""
    tools = [json.loads(t) if isinstance(t, str) and t else {} for t in frame["tool_counts"]]
    counts = pd.DataFrame.from_records(tools, index=frame.index).fillna(0.0)
    counts = counts.rename(columns=lambda c: c or "<unnamed>")
    replies = _col("n_responds")(frame)
    finishes = _col("n_steps")(frame) - _col("n_tool_calls")(frame) - replies
    counts["reply"] = replies
    counts["finish"] = np.clip(finishes, 0, None)
    return counts.astype(float)


def _features(frame: pd.DataFrame) -> tuple[np.ndarray, list[tuple[str, str, int, int]], list[str]]:
    """Per-episode matrix: (numerator, denominator) columns of every metric, then action counts.

    Returns the matrix, the metric layout ``(name, words, num column, den column)`` and the
    action names (the last ``len(actions)`` columns)."""
    columns: list[np.ndarray] = []
    layout: list[tuple[str, str, int, int]] = []
    for metric in METRICS:
        if not all(c in frame for c in metric.needs):
            continue
        columns += [metric.numerator(frame), metric.denominator(frame)]
        layout.append((metric.name, metric.words, len(columns) - 2, len(columns) - 1))
    actions = _action_counts(frame) if "tool_counts" in frame else pd.DataFrame(index=frame.index)
    matrix = np.column_stack([*columns, actions.to_numpy()]) if len(frame) else np.zeros((0, 0))
    return matrix, layout, list(actions.columns)


def _units(
    x: np.ndarray, a: pd.DataFrame, b: pd.DataFrame, min_pairs: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Unit matrices of the two policies: per-task means when paired, else episodes."""
    if "task_id" in a and "task_id" in b:
        shared = sorted(
            set(a["task_id"].dropna().astype(str)) & set(b["task_id"].dropna().astype(str))
        )
        if len(shared) >= min_pairs:
            order = {t: i for i, t in enumerate(shared)}

            def means(frame: pd.DataFrame) -> np.ndarray:
                keep = frame["task_id"].astype(str).isin(order)
                rows = x[frame.index[keep]]
                idx = frame.loc[keep, "task_id"].astype(str).map(order).to_numpy()
                sums = np.zeros((len(shared), x.shape[1]))
                np.add.at(sums, idx, rows)
                return sums / np.bincount(idx, minlength=len(shared))[:, None]

            return means(a), means(b), True
    return x[a.index], x[b.index], False


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _jsd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence (base 2) of count rows (last axis); NaN where a row is empty."""
    p = _ratio(p, p.sum(axis=-1, keepdims=True))
    q = _ratio(q, q.sum(axis=-1, keepdims=True))
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(a > 0, a * np.log2(np.where(a > 0, a, 1) / np.where(m > 0, m, 1)), 0)
        return terms.sum(axis=-1)

    return (kl(p) + kl(q)) / 2


def _rng(settings: DiffSettings, *parts: str) -> np.random.Generator:
    text = ":".join([str(settings.seed), *parts])
    return np.random.default_rng(int(hashlib.sha256(text.encode()).hexdigest()[:16], 16))


def _weights(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    if n == 0 or size == 0:
        return np.zeros((size, n))
    return rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)


def _compare(
    ua: np.ndarray,
    ub: np.ndarray,
    paired: bool,
    layout: list[tuple[str, str, int, int]],
    actions: list[str],
    settings: DiffSettings,
    rng: np.random.Generator,
) -> list[dict]:
    """Rows of one (baseline, other) comparison from their unit matrices."""
    b = settings.n_bootstrap
    wa = _weights(rng, len(ua), b)
    wb = wa if paired else _weights(rng, len(ub), b)
    sa, sb = ua.sum(axis=0), ub.sum(axis=0)
    ba, bb = wa @ ua, wb @ ub  # resampled sums, one row per resample
    tail = (1 - settings.confidence) / 2
    out = []

    def row(metric: str, words: str, va: float, vb: float, deltas: np.ndarray) -> None:
        delta = vb - va
        low = high = p = None
        finite = deltas[np.isfinite(deltas)]
        if len(finite) and np.isfinite(delta) and min(len(ua), len(ub)) >= 2:
            low, high = np.quantile(finite, [tail, 1 - tail])
            p = min(1.0, 2 * min(np.mean(finite <= 0), np.mean(finite >= 0)))
        flagged = low is not None and (low > 0 or high < 0)
        out.append(
            dict(
                metric=metric,
                words=words,
                baseline=va,
                other=vb,
                delta=delta,
                delta_low=low,
                delta_high=high,
                p_value=p,
                flagged=bool(flagged),
            )
        )

    for name, words, num, den in layout:
        if sa[den] <= 0 and sb[den] <= 0:
            continue
        va, vb = _ratio(sa[num], sa[den]), _ratio(sb[num], sb[den])
        row(
            name,
            words,
            float(va),
            float(vb),
            _ratio(bb[:, num], bb[:, den]) - _ratio(ba[:, num], ba[:, den]),
        )
    first = ua.shape[1] - len(actions)
    ca, cb = sa[first:], sb[first:]
    ta, tb = ba[:, first:], bb[:, first:]
    for i, action in enumerate(actions):
        if ca[i] == 0 and cb[i] == 0:
            continue
        share_a = _ratio(ta[:, i], ta.sum(axis=1))
        share_b = _ratio(tb[:, i], tb.sum(axis=1))
        row(
            f"{SHARE}{action}",
            f"share of actions that are {action}",
            float(_ratio(ca[i], ca.sum())),
            float(_ratio(cb[i], cb.sum())),
            share_b - share_a,
        )
    n_a, n_b = len(ua), len(ub)
    for i, action in enumerate(actions):
        if action in ("reply", "finish") or (ca[i] == 0 and cb[i] == 0):
            continue
        per_a, per_b = ta[:, i] / wa.sum(axis=1).clip(1), tb[:, i] / wb.sum(axis=1).clip(1)
        row(
            f"{PER_EPISODE}{action}",
            f"{action} calls per episode",
            ca[i] / max(n_a, 1),
            cb[i] / max(n_b, 1),
            per_b - per_a,
        )
    if actions and ca.sum() > 0 and cb.sum() > 0:
        out.append(_divergence(ua[:, first:], ub[:, first:], ta, tb, paired, settings, rng))
    return out


def _divergence(
    xa: np.ndarray,
    xb: np.ndarray,
    ta: np.ndarray,
    tb: np.ndarray,
    paired: bool,
    settings: DiffSettings,
    rng: np.random.Generator,
) -> dict:
    """The JSD row: bootstrap interval, permutation p-value against "no change"."""
    observed = float(_jsd(xa.sum(axis=0), xb.sum(axis=0)))
    tail = (1 - settings.confidence) / 2
    boot = _jsd(ta, tb)
    boot = boot[np.isfinite(boot)]
    enough = len(boot) and min(len(xa), len(xb)) >= 2
    low, high = np.quantile(boot, [tail, 1 - tail]) if enough else (None, None)
    n_perm = settings.n_bootstrap
    if paired:
        swap = rng.integers(0, 2, size=(n_perm, len(xa))).astype(float)
        pa_, pb_ = swap @ xa + (1 - swap) @ xb, swap @ xb + (1 - swap) @ xa
    else:
        pooled = np.vstack([xa, xb])
        labels = np.zeros((n_perm, len(pooled)))
        for r in range(n_perm):
            labels[r, rng.permutation(len(pooled))[: len(xa)]] = 1.0
        pa_, pb_ = labels @ pooled, (1 - labels) @ pooled
    null = _jsd(pa_, pb_)
    p = float((1 + np.sum(null >= observed - 1e-12)) / (1 + n_perm)) if n_perm else None
    return dict(
        metric=DIVERGENCE,
        words="divergence of the action distribution (JSD)",
        baseline=0.0,
        other=observed,
        delta=observed,
        delta_low=low,
        delta_high=high,
        p_value=p,
        flagged=p is not None and p < 1 - settings.confidence,
    )


def _baseline(group: pd.DataFrame, configured: str | None) -> str:
    counts = group["policy_id"].value_counts()
    if configured is not None and configured in counts.index:
        return configured
    return sorted(counts.index, key=lambda p: (-counts[p], p))[0]


def behaviour_diff(episodes: pd.DataFrame, settings: DiffSettings | None = None) -> pd.DataFrame:
    """One row per (ds, task type, other policy, metric); see the module docstring."""
    settings = settings or DiffSettings()
    rows: list[dict] = []
    if len(episodes):
        frame = episodes.reset_index(drop=True)
        frame = frame[frame["policy_id"].notna()].reset_index(drop=True)
        matrix, layout, actions = _features(frame)
        keys = frame[["ds", "task_type"]].astype(str)
        for (ds, task_type), group in frame.groupby([keys["ds"], keys["task_type"]], sort=True):
            base = _baseline(group, settings.baseline_policy)
            a = group[group["policy_id"] == base]
            for other in sorted(set(group["policy_id"].astype(str)) - {base}):
                b = group[group["policy_id"] == other]
                ua, ub, paired = _units(matrix, a, b, settings.min_pairs)
                rng = _rng(settings, ds, task_type, base, other)
                n_a = int(a["task_id"].astype(str).isin(_shared(a, b)).sum()) if paired else len(a)
                n_b = int(b["task_id"].astype(str).isin(_shared(a, b)).sum()) if paired else len(b)
                for r in _compare(ua, ub, paired, layout, actions, settings, rng):
                    rows.append(
                        dict(
                            ds=ds,
                            task_type=task_type,
                            baseline_policy=base,
                            other_policy=other,
                            **r,
                            paired=paired,
                            n_pairs=len(ua) if paired else 0,
                            n_baseline=n_a,
                            n_other=n_b,
                            confidence=settings.confidence,
                        )
                    )
    table = pa.Table.from_pylist(
        [
            {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in r.items()}
            for r in rows
        ],
        schema=DIFF_SCHEMA,
    )
    return table.to_pandas()


def _shared(a: pd.DataFrame, b: pd.DataFrame) -> set[str]:
    return set(a["task_id"].dropna().astype(str)) & set(b["task_id"].dropna().astype(str))


def bounded(metric: str) -> bool:
    """Rates and shares live in 0..1: their change is read in points."""
    return metric.endswith("_rate") or metric.startswith(SHARE)


def relative_shift(row: pd.Series) -> float:
    """Size of a shift on one scale: the divergence itself; the change in points of a rate or
    share; the change relative to the larger value of any other figure."""
    if row["metric"] == DIVERGENCE:
        return float(row["delta"])
    if bounded(row["metric"]):
        return abs(float(row["delta"]))
    scale = max(abs(row["baseline"]), abs(row["other"]), 1e-9)
    return abs(float(row["delta"])) / scale


def largest_shifts(diff: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The ``n`` flagged figures that moved most (:func:`relative_shift`), tool counts and
    action shares of one tool counted once (as the share)."""
    flagged = diff[diff["flagged"].astype(bool) & diff["delta"].notna()]
    flagged = flagged[~flagged["metric"].str.startswith(PER_EPISODE)]
    if flagged.empty:
        return flagged
    score = flagged.apply(relative_shift, axis=1)
    return (
        flagged.assign(shift=score)
        .sort_values(["shift", "metric"], ascending=[False, True])
        .head(n)
    )


def _num(value: float, metric: str, change: bool = False) -> str:
    if bounded(metric):
        return f"{100 * value:+.1f} points" if change else f"{100 * value:.1f}%"
    sign = "+" if change else ""
    return f"{value:{sign}.3g}" if abs(value) < 1000 else f"{value:{sign},.0f}"


def describe_shift(row: pd.Series | dict) -> str:
    """One shift in plain words, e.g. ``retail: success rate fell from 73.0% (tool-calling) to
    35.0% (assertions-agent), 95% interval of the change -51.0%..-25.0%, paired on 66 tasks``."""
    metric = row["metric"]
    level = f"{100 * row['confidence']:.0f}%"
    pairing = (
        f"paired on {row['n_pairs']} tasks"
        if row["paired"]
        else (f"{row['n_baseline']} vs {row['n_other']} episodes")
    )
    if metric == DIVERGENCE:
        return (
            f"{row['task_type']}: the actions of {row['other_policy']} diverge from "
            f"{row['baseline_policy']}'s (JSD {row['delta']:.3f}, permutation p="
            f"{row['p_value']:.3f}, {pairing})"
        )
    verb = "rose" if row["delta"] > 0 else "fell"
    low, high = _num(row["delta_low"], metric, True), _num(row["delta_high"], metric, True)
    return (
        f"{row['task_type']}: {row['words']} {verb} from {_num(row['baseline'], metric)} "
        f"({row['baseline_policy']}) to {_num(row['other'], metric)} ({row['other_policy']}): "
        f"{_num(row['delta'], metric, True)}, {level} interval {low} to {high}, {pairing}"
    )
