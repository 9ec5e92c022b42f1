"""The daily policy decision: guardrails, champion/challenger and the ``policy_selection`` table.

Per task type, over the trailing window of ``episode_rewards``:

1. a policy is eligible if it has at least ``min_samples`` episodes and the upper confidence
   bound of its risk rate (share of episodes with a financial write or destructive act) is
   within ``risk_budget``; a risky policy is never eligible, whatever its reward;
2. with no current default (cold start) the eligible policy ranked first by the bandit (highest
   probability of being best, then highest mean reward) is selected: there is no incumbent to
   protect, and a lower-bound ranking would favour whichever policy got more traffic;
3. otherwise the challenger is the eligible policy with the highest lower confidence bound; it
   replaces the current default (the champion) only if it is confidently better: its
   ``ci_low`` exceeds the champion's mean reward, or its probability of being best is at least
   ``prob_best_threshold``; otherwise the champion is kept and the reason recorded. A champion
   with risky episodes whose risk bound breaks the budget is replaced by the challenger (or by
   nothing); a champion is not dropped merely because its sample is too small to bound its risk.

Linear-model and off-policy estimates are reported next to the bandit statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from agentic_pipeline.selection.bandit import arm_posteriors, prob_best, risk_upper_bound
from agentic_pipeline.selection.linear import (
    ContextFeaturizer,
    linear_estimates,
    segment_choices,
)
from agentic_pipeline.selection.ope import (
    HEADLINE,
    OPE_DETAIL_COLUMNS,
    OPE_INTERVAL_COLUMNS,
    TARGET_COLUMNS,
    LoggedData,
    OPEConfig,
    evaluate_targets,
    ope_estimates,
    split_target,
)
from agentic_pipeline.selection.report import ARM_SUMMARY_COLUMNS, render_report

SELECTION_COLUMNS = [
    "ds",
    "task_type",
    *ARM_SUMMARY_COLUMNS,
    "linucb_upper",
    "ope_ips",
    "ope_snips",
    "ope_dr",
    *OPE_INTERVAL_COLUMNS,
    "risk_rate",
    "risk_upper",
    "eligible",
    "selected",
    "reason",
    "window_start",
    "window_end",
    "reward_version",
    # extras
    "ope_dm",
    "ope_reason",
    "n_risky",
    "is_default",
    "default_since",
    "ope_sndr",
    *OPE_DETAIL_COLUMNS,
]

_NON_FLOAT_TYPES = {
    **dict.fromkeys(
        ("ds", "task_type", "policy_id", "reason", "window_start", "window_end"), pa.string()
    ),
    "default_since": pa.string(),
    **dict.fromkeys(("reward_version", "ope_reason", "ope_estimator", "ope_warning"), pa.string()),
    **dict.fromkeys(("n_episodes", "n_risky"), pa.int64()),
    **dict.fromkeys(("ope_identified", "eligible", "selected", "is_default"), pa.bool_()),
}
#: ``policy_selection`` as stored (every other column is a float): fixed, so a day's column
#: types never depend on its values.
SELECTION_SCHEMA = pa.schema(
    [(c, _NON_FLOAT_TYPES.get(c, pa.float64())) for c in SELECTION_COLUMNS]
)

UNKNOWN = "unknown"


@dataclass(frozen=True)
class SelectionConfig:
    """Settings of the daily decision."""

    window_days: int = 14
    min_samples: int = 30
    confidence: float = 0.9
    ci_method: str = "posterior"  # or "bootstrap"
    prior_strength: float = 1.0
    prob_best_threshold: float = 0.95
    n_mc: int = 4000
    risk_budget: float = 0.05
    risk_confidence: float = 0.9
    ridge_alpha: float = 1.0
    linucb_alpha: float = 1.0
    segment_keys: tuple[str, ...] = ("tier", "channel")
    ope_folds: int = 5
    n_bootstrap: int = 1000
    #: the estimator reported as ``ope_estimate`` (ips, snips, dm, dr or sndr)
    ope_headline: str = HEADLINE
    #: diagnostics guard: an off-policy estimate below this effective sample size, or with a
    #: larger importance weight than ``ope_max_weight``, is flagged and never changes a default
    ope_min_ess: float = 30.0
    ope_max_weight: float = 50.0
    #: what the champion/challenger rule compares: the on-policy ``mean`` reward (bandit
    #: statistics) or the headline off-policy estimate (``ope``, for context-dependent logging)
    decide_on: str = "mean"
    #: target policies to evaluate off-policy: name -> task type (or "*") -> {policy: share}
    target_policies: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.decide_on not in ("mean", "ope"):
            raise ValueError(f"decide_on must be 'mean' or 'ope', not {self.decide_on!r}")

    def ope_config(self) -> OPEConfig:
        """The off-policy estimators' settings (the reward model's penalty is chosen by CV)."""
        return OPEConfig(
            n_folds=self.ope_folds,
            n_bootstrap=self.n_bootstrap,
            confidence=self.confidence,
            headline=self.ope_headline,
            min_ess=self.ope_min_ess,
            max_weight=self.ope_max_weight,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SelectionConfig:
        """Build from a plain dict (e.g. Dagster config); unknown keys are rejected."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"selection config: unknown keys {sorted(unknown)}")
        if "segment_keys" in data:
            data["segment_keys"] = tuple(data["segment_keys"])
        return cls(**data)


@dataclass
class SelectionResult:
    """The ``policy_selection`` table, the JSON-able registry and the markdown report."""

    table: pd.DataFrame
    registry: dict[str, dict[str, Any]]
    report_md: str
    context_decisions: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: off-policy estimates of the configured target policies (``ope.TARGET_COLUMNS``)
    targets: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=TARGET_COLUMNS))


def _default_of(value: Any) -> str | None:
    """The policy id of a registry entry (a dict from a previous run) or a plain id."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = value.get("selected_policy") or value.get("policy_id") or value.get("selected")
    return None if value is None else str(value)


def _since_of(value: Any) -> str | None:
    """The day a registry entry's policy became the default (None for a plain id)."""
    if isinstance(value, dict):
        since = value.get("default_since") or value.get("decided_on")
        return None if since is None else str(since)
    return None


def json_value(value: Any) -> Any:
    """A table value as plain JSON: numpy scalars to Python, NaN and NA to None."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    if value is pd.NA:
        return None
    return value


def _f(x: float) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.3f}"


def _decide(
    sub: pd.DataFrame, champion: str | None, config: SelectionConfig
) -> tuple[str | None, str]:
    """The selected policy of one task type (or None) and the reason."""
    by_policy = sub.set_index("policy_id")
    elig = sub[sub["eligible"]]
    champ = by_policy.loc[champion] if champion in by_policy.index else None
    # a champion loses its seat on evidence of forbidden acts, not merely on a small sample
    champ_risky = champ is not None and bool(
        champ["n_risky"] > 0 and champ["risk_upper"] > config.risk_budget
    )
    if elig.empty:
        if champion is None:
            return None, "no eligible policy and no current default"
        if champ_risky:
            return None, (
                f"no eligible policy and current default {champion} exceeds the risk budget "
                f"(risk upper {_f(champ['risk_upper'])} > {config.risk_budget}): needs review"
            )
        where = "" if champ is not None else " (no episodes in window)"
        return champion, f"no eligible policy; keeping current default {champion}{where}"
    if champion is None:
        top = elig.assign(_pb=elig["prob_best"].fillna(-1.0))
        top = top.sort_values(["_pb", "mean_reward"], ascending=False).iloc[0]
        return str(top["policy_id"]), (
            f"no current default; best by the bandit ranking: prob_best {_f(top['prob_best'])}, "
            f"mean {_f(top['mean_reward'])}"
        )
    best = elig.sort_values(["ci_low", "mean_reward"], ascending=False).iloc[0]
    name = str(best["policy_id"])
    lcb = f"highest lower bound {_f(best['ci_low'])}"
    if name == champion:
        return name, f"current default has the {lcb}"
    if champ is None:
        return name, f"current default {champion} has no episodes in window; {lcb}"
    if champ_risky:
        return name, (
            f"current default {champion} exceeds the risk budget "
            f"(risk upper {_f(champ['risk_upper'])}); {lcb}"
        )
    beats_ci = best["ci_low"] > champ["mean_reward"]
    pb = best["prob_best"]
    beats_pb = bool(np.isfinite(pb) and pb >= config.prob_best_threshold)
    evidence = (
        f"{name} ci_low {_f(best['ci_low'])} vs {champion} mean {_f(champ['mean_reward'])}, "
        f"prob_best {_f(pb)} (threshold {config.prob_best_threshold})"
    )
    if beats_ci or beats_pb:
        return name, f"challenger confidently better than {champion}: {evidence}"
    return champion, f"keeping current default; challenger not confidently better: {evidence}"


def _weak(row: pd.Series) -> str | None:
    """The diagnostics warning of a row's off-policy estimate (None if it may be acted on)."""
    warning = row.get("ope_warning")
    return None if warning is None or pd.isna(warning) else str(warning)


def _decide_ope(
    sub: pd.DataFrame, champion: str | None, config: SelectionConfig
) -> tuple[str | None, str]:
    """``decide_on="ope"``: the champion/challenger rule on the headline off-policy estimate.

    Only eligible policies with an identified estimate that passes the diagnostics guard (no
    tiny effective sample size, no extreme weight) may become the default; a challenger that
    would win on a flagged estimate leaves the default unchanged, and the reason says so.
    """
    by_policy = sub.set_index("policy_id")
    champ = by_policy.loc[champion] if champion in by_policy.index else None
    if champ is not None and bool(
        champ["n_risky"] > 0 and champ["risk_upper"] > config.risk_budget
    ):  # a champion over the risk budget is replaced by the bandit rule's guardrails
        chosen, reason = _decide(sub, champion, config)
        return chosen, f"bandit rule: {reason}"
    scored = sub[sub["eligible"] & sub["ope_identified"].eq(True) & sub["ope_estimate"].notna()]
    if scored.empty:
        chosen, reason = _decide(sub, champion, config)
        return chosen, f"no identified off-policy estimate: bandit rule: {reason}"
    top = scored.sort_values(["ope_ci_low", "ope_estimate"], ascending=False).iloc[0]
    name = str(top["policy_id"])
    evidence = (
        f"{name} OPE {_f(top['ope_estimate'])} [{_f(top['ope_ci_low'])}, "
        f"{_f(top['ope_ci_high'])}] ({top['ope_estimator']})"
    )
    warning = _weak(top)
    if name == champion:
        return name, f"current default has the highest off-policy lower bound: {evidence}"
    if warning:
        if champion is not None:
            return champion, (
                f"keeping current default {champion}: challenger {evidence} rests on a weak "
                f"off-policy estimate ({warning}); not changing the default on it"
            )
        sound = scored[[_weak(r) is None for _, r in scored.iterrows()]]
        if sound.empty:
            chosen, reason = _decide(sub, champion, config)
            return chosen, (
                f"every off-policy estimate is weak (best: {evidence}: {warning}); "
                f"bandit rule: {reason}"
            )
        top = sound.sort_values(["ope_ci_low", "ope_estimate"], ascending=False).iloc[0]
        return str(top["policy_id"]), (
            f"no current default; highest sound off-policy lower bound "
            f"{_f(top['ope_ci_low'])} ({name} was higher on a weak estimate: {warning})"
        )
    if champion is None:
        return name, f"no current default; highest off-policy lower bound: {evidence}"
    champ_value = np.nan if champ is None else champ["ope_estimate"]
    if champ is None or not np.isfinite(champ_value) or top["ope_ci_low"] > champ_value:
        return name, f"challenger confidently better than {champion} off-policy: {evidence} vs " + (
            f"{champion} {_f(champ_value)}"
        )
    return champion, (
        f"keeping current default; challenger not confidently better off-policy: {evidence} "
        f"vs {champion} {_f(champ_value)}"
    )


def _row_reason(row: pd.Series, config: SelectionConfig) -> str:
    """Why a policy is or is not eligible, in plain words."""
    if row["n_episodes"] < config.min_samples:
        return (
            f"not eligible: only {row['n_episodes']} episodes in the window, at least "
            f"{config.min_samples} are needed to trust its mean"
        )
    if row["risk_upper"] > config.risk_budget:
        return (
            f"not eligible: too risky: {row['n_risky']} of {row['n_episodes']} episodes made a "
            f"financial write or destructive act; the risk could be as high as "
            f"{_f(row['risk_upper'])}, above the budget {config.risk_budget}"
        )
    return (
        f"eligible ({row['n_episodes']} episodes, risk at most {_f(row['risk_upper'])} "
        f"within the budget {config.risk_budget}); not selected"
    )


def select_policies(
    rewards_window: pd.DataFrame,
    day: str,
    config: SelectionConfig | None = None,
    current_defaults: dict[str, Any] | None = None,
    seed: int = 0,
) -> SelectionResult:
    """Decide the default policy per task type on ``day`` over its trailing window.

    ``rewards_window`` is ``episode_rewards`` (any days; rows outside the window ending on
    ``day`` are ignored). ``current_defaults`` maps task type to a policy id or to the previous
    registry entry. The result's table has ``SELECTION_COLUMNS``, exactly one ``selected`` row
    per task type unless nothing may be selected (the registry then says why).
    """
    config = config or SelectionConfig()
    defaults = {k: _default_of(v) for k, v in (current_defaults or {}).items()}
    since = {k: _since_of(v) for k, v in (current_defaults or {}).items()}
    end = date.fromisoformat(day)
    start = (end - timedelta(days=config.window_days - 1)).isoformat()
    window = rewards_window
    if "ds" in window:
        window = window[(window["ds"].astype(str) >= start) & (window["ds"].astype(str) <= day)]
    window = window[window["reward"].notna()].reset_index(drop=True)
    data_days = sorted(window["ds"].astype(str).unique()) if "ds" in window else []
    # both are optional in the logs: an episode without them is decided under "unknown"
    for col in ("policy_id", "task_type"):
        window[col] = window[col].astype(object).where(window[col].notna(), UNKNOWN).astype(str)
    version_col = window.get("reward_version", pd.Series(dtype=object))
    versions = sorted(version_col.dropna().astype(str).unique())
    reward_version = "+".join(versions) if versions else None
    ss_ci, ss_pb, ss_ope = np.random.SeedSequence(seed).spawn(3)

    targets = pd.DataFrame(columns=TARGET_COLUMNS)
    if window.empty:
        table = pd.DataFrame(columns=SELECTION_COLUMNS)
        contexts = pd.DataFrame()
    else:
        table = arm_posteriors(
            window,
            config.confidence,
            config.prior_strength,
            config.ci_method,
            config.n_bootstrap,
            np.random.default_rng(ss_ci),
        )
        risky = (
            window["risky"].astype(bool)
            if "risky" in window
            else (window["financial_writes"] + window["destructive_actions"]) > 0
        )
        n_risky = risky.groupby([window["task_type"], window["policy_id"]]).sum().rename("n_risky")
        table = table.join(n_risky, on=["task_type", "policy_id"])
        table["risk_rate"] = table["n_risky"] / table["n_episodes"]
        table["risk_upper"] = risk_upper_bound(
            table["n_risky"], table["n_episodes"], config.risk_confidence
        )
        table["eligible"] = (table["n_episodes"] >= config.min_samples) & (
            table["risk_upper"] <= config.risk_budget
        )
        table["is_default"] = table["policy_id"].eq(table["task_type"].map(defaults))
        over_budget = (table["n_risky"] > 0) & (table["risk_upper"] > config.risk_budget)
        candidates = table["eligible"] | (table["is_default"] & ~over_budget)
        table["prob_best"] = prob_best(table, candidates, config.n_mc, np.random.default_rng(ss_pb))
        featurizer = ContextFeaturizer()
        linear = linear_estimates(
            window, featurizer, config.ridge_alpha, config.linucb_alpha, config.segment_keys
        )
        table = table.merge(linear.table, on=["task_type", "policy_id"], how="left")
        ope_config = config.ope_config()
        ope_rng = np.random.default_rng(ss_ope)
        logged = LoggedData.prepare(window, ope_config, featurizer, ope_rng)
        ope = ope_estimates(window, ope_config, featurizer, ope_rng, data=logged)
        table = table.merge(ope, on=["task_type", "policy_id"], how="left")
        contexts = linear.contexts
        if config.target_policies:
            tasks = window["task_type"].to_numpy()
            probs = {
                name: split_target(logged.actions, tasks, split)
                for name, split in sorted(config.target_policies.items())
            }
            targets = evaluate_targets(window, probs, ope_config, seed=ope_rng, data=logged)

    table["ds"] = day
    table["window_start"] = start
    table["window_end"] = day
    table["reward_version"] = reward_version
    table["selected"] = False
    table["default_since"] = pd.Series([None] * len(table), index=table.index, dtype=object)
    table["reason"] = [_row_reason(r, config) for _, r in table.iterrows()]

    registry: dict[str, dict[str, Any]] = {}
    for task in sorted(set(table["task_type"]) | set(defaults)):
        sub = table[table["task_type"] == task]
        decide = _decide_ope if config.decide_on == "ope" else _decide
        chosen, reason = decide(sub, defaults.get(task), config)
        mask = (table["task_type"] == task) & (table["policy_id"] == chosen)
        table.loc[mask, "selected"] = True
        table.loc[mask, "reason"] = "selected: " + reason
        replaced = (table["task_type"] == task) & table["is_default"] & ~mask
        if replaced.any():
            table.loc[replaced, "reason"] = table.loc[replaced, "reason"] + "; default replaced"
        row = table[mask].iloc[0] if mask.any() else None
        previous = defaults.get(task)
        changed = chosen != previous
        # a kept default carries the day it became the default; a new one starts today
        if chosen is None:
            default_since = None
        else:
            default_since = day if changed else (since.get(task) or day)
        table.loc[mask, "default_since"] = default_since
        entry = {
            "task_type": task,
            "selected_policy": chosen,
            "previous_default": previous,
            "previous_default_since": since.get(task) if previous else None,
            "changed": changed,
            "default_since": default_since,
            "n_episodes": None if row is None else row["n_episodes"],
            "estimate": None if row is None else row["mean_reward"],
            "ci_low": None if row is None else row["ci_low"],
            "ci_high": None if row is None else row["ci_high"],
            "prob_best": None if row is None else row["prob_best"],
            "ope_estimate": None if row is None else row["ope_estimate"],
            "ope_estimator": None if row is None else row["ope_estimator"],
            "ope_warning": None if row is None else row["ope_warning"],
            "decided_on_estimate": config.decide_on,
            "reason": reason,
            "decided_on": day,
            "window_start": start,
            "window_end": day,
            "window_data_days": len(data_days),
            "window_first_data_day": data_days[0] if data_days else None,
            "window_last_data_day": data_days[-1] if data_days else None,
            "reward_version": reward_version,
        }
        registry[str(task)] = {k: json_value(v) for k, v in entry.items()}

    if not contexts.empty:
        # per context segment, the linear model's best among the eligible policies
        allowed = table.loc[table["eligible"] | table["selected"], ["task_type", "policy_id"]]
        contexts = segment_choices(contexts, allowed)
        chosen_map = {t: e["selected_policy"] for t, e in registry.items()}
        contexts["selected_policy"] = contexts["task_type"].map(chosen_map)
        contexts["differs"] = contexts["best_policy"] != contexts["selected_policy"]

    table = table.reindex(columns=SELECTION_COLUMNS)
    table = table.sort_values(["task_type", "policy_id"]).reset_index(drop=True)
    table = table.astype({"eligible": bool, "selected": bool, "is_default": bool})
    report = render_report(table, contexts, registry, targets)
    return SelectionResult(table, registry, report, contexts, targets)
