"""Long-horizon episode rewards, per-step rewards and reward-hacking signals.

An episode's reward is the sum of named components (``COMPONENTS``), each computed from the
``replayed_episodes`` table with the weights of a :class:`RewardSpec` (default:
``reward_spec.yaml`` next to this module)::

    reward = r_success + r_cost + r_risk + r_penalty + r_takeover + r_complaint + r_csat

Financial writes and destructive acts are hard negatives: the spec is validated so that any such
act makes the episode's reward negative whatever else happened.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import yaml

from agentic_pipeline.tables import conform

__all__ = [
    "COMPONENTS",
    "DEFAULT_SPEC_PATH",
    "EPISODE_REWARDS_SCHEMA",
    "RewardSpec",
    "STEP_REWARDS_SCHEMA",
    "episode_rewards_table",
    "load_reward_spec",
    "reward_bounds",
    "reward_components",
    "reward_hacking_signals",
    "score_episodes",
    "step_rewards",
    "step_rewards_table",
]

DEFAULT_SPEC_PATH = Path(__file__).with_name("reward_spec.yaml")

COMPONENTS = (
    "r_success",
    "r_cost",
    "r_risk",
    "r_penalty",
    "r_takeover",
    "r_complaint",
    "r_csat",
)

#: Columns carried from ``replayed_episodes`` into ``episode_rewards`` when present.
CARRIED = (
    "success",
    "financial_writes",
    "destructive_actions",
    "context",
    "first_message_chars",
    "replay_status",
    "success_source",
)

#: ``episode_rewards`` as stored: fixed, so a day's column types never depend on its values (a
#: day where one episode lacks a user message must not turn ``first_message_chars`` into floats).
EPISODE_REWARDS_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("policy_id", pa.string()),
        ("task_type", pa.string()),
        ("propensity", pa.float64()),
        ("reward", pa.float64()),
        ("reward_version", pa.string()),
        *((c, pa.float64()) for c in COMPONENTS),
        ("success", pa.bool_()),
        ("financial_writes", pa.int64()),
        ("destructive_actions", pa.int64()),
        ("context", pa.string()),
        ("first_message_chars", pa.int64()),
        ("replay_status", pa.string()),
        ("success_source", pa.string()),
        ("risky", pa.bool_()),
    ]
)
#: ``step_rewards`` as stored.
STEP_REWARDS_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("step", pa.int32()),
        ("role", pa.string()),
        ("action_type", pa.string()),
        ("tool_name", pa.string()),
        ("step_reward", pa.float64()),
        ("return_to_go", pa.float64()),
        ("reward_version", pa.string()),
    ]
)


def episode_rewards_table(rewards: pd.DataFrame) -> pa.Table:
    """:func:`score_episodes` output with :data:`EPISODE_REWARDS_SCHEMA`."""
    return conform(rewards, EPISODE_REWARDS_SCHEMA)


def step_rewards_table(steps: pd.DataFrame) -> pa.Table:
    """:func:`step_rewards` output with :data:`STEP_REWARDS_SCHEMA`."""
    return conform(steps, STEP_REWARDS_SCHEMA)


#: Step action types that the agent chose (they carry a per-step cost share).
AGENT_ACTIONS = ("tool_call", "respond", "finish")

# YAML section -> {yaml key: dataclass field}
_YAML_LAYOUT: dict[str, dict[str, str]] = {
    "weights": {"success": "w_success", "cost": "w_cost", "risk": "w_risk"},
    "cost": {
        "per_tool_call": "cost_per_tool_call",
        "per_1k_tokens": "cost_per_1k_tokens",
        "per_second_latency": "cost_per_second_latency",
        "per_usd": "cost_per_usd",
        "max_penalty": "max_cost",
    },
    "risk": {
        "financial_write": "financial_write",
        "destructive_action": "destructive_action",
        "max_counted_acts": "max_risk_acts",
    },
    "penalties": {
        "loop": "loop",
        "per_retry": "per_retry",
        "max_counted_retries": "max_retries",
        "premature_finish": "premature_finish",
        "step_budget": "step_budget",
        "per_step_over_budget": "per_step_over_budget",
        "max_counted_steps_over": "max_steps_over",
    },
    "csat": {"weight": "csat_weight", "center": "csat_center", "half_range": "csat_half_range"},
}
_YAML_TOP = {"human_takeover": "human_takeover", "complaint": "complaint", "gamma": "gamma"}


@dataclass(frozen=True)
class RewardSpec:
    """Weights of the episode reward. All penalties are positive numbers that are subtracted."""

    label: str = "v1"
    w_success: float = 1.0
    w_cost: float = 1.0
    w_risk: float = 1.0
    cost_per_tool_call: float = 0.01
    cost_per_1k_tokens: float = 0.002
    cost_per_second_latency: float = 0.002
    cost_per_usd: float = 1.0
    max_cost: float = 0.5
    financial_write: float = 2.0
    destructive_action: float = 2.0
    max_risk_acts: int = 3
    loop: float = 0.3
    per_retry: float = 0.05
    max_retries: int = 10
    premature_finish: float = 0.3
    step_budget: int = 20
    per_step_over_budget: float = 0.02
    max_steps_over: int = 25
    human_takeover: float = 0.5
    complaint: float = 0.5
    csat_weight: float = 0.2
    csat_center: float = 3.0
    csat_half_range: float = 2.0
    gamma: float = 0.99
    #: Version of the tool catalogue the facts were derived with ("" = not attached).
    catalogue: str = ""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name not in ("label", "catalogue") and (not np.isfinite(value) or value < 0):
                raise ValueError(f"reward spec: {f.name} must be a finite number >= 0, got {value}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"reward spec: gamma must be in (0, 1], got {self.gamma}")
        if self.csat_half_range <= 0:
            raise ValueError("reward spec: csat.half_range must be > 0")
        top = self.max_positive_reward
        for name in ("financial_write", "destructive_action"):
            if self.w_risk * getattr(self, name) <= top:
                raise ValueError(
                    f"reward spec: risk.{name} * weights.risk must exceed the largest positive "
                    f"reward ({top:g}) so that a forbidden act is always a net negative"
                )

    @property
    def max_positive_reward(self) -> float:
        """Largest positive reward an episode can earn (success + best CSAT)."""
        return self.w_success + self.csat_weight

    @property
    def content_hash(self) -> str:
        """Short hash of every weight (stable across key order and formatting)."""
        weights = {k: v for k, v in asdict(self).items() if k != "catalogue"}
        payload = json.dumps(weights, sort_keys=True, default=float)
        return hashlib.sha256(payload.encode()).hexdigest()[:8]

    @property
    def version(self) -> str:
        """Human label plus content hash, e.g. ``v1-3f9a1c2b``; with the tool catalogue's
        version appended when attached (``v1-3f9a1c2b+catalogue-v1-0c1d2e3f``)."""
        base = f"{self.label}-{self.content_hash}"
        return f"{base}+catalogue-{self.catalogue}" if self.catalogue else base

    def with_catalogue(self, catalogue_version: str) -> RewardSpec:
        """This spec tied to a tool catalogue version (a catalogue change changes the version)."""
        return replace(self, catalogue=catalogue_version)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RewardSpec:
        """Build a spec from the nested YAML layout; unknown keys are rejected."""
        data = dict(data or {})
        kwargs: dict[str, Any] = {}
        if "version" in data:
            kwargs["label"] = str(data.pop("version"))
        for section, mapping in _YAML_LAYOUT.items():
            values = data.pop(section, None) or {}
            unknown = set(values) - set(mapping)
            if unknown:
                raise ValueError(f"reward spec: unknown keys in {section}: {sorted(unknown)}")
            kwargs.update({mapping[k]: v for k, v in values.items()})
        for key, name in _YAML_TOP.items():
            if key in data:
                kwargs[name] = data.pop(key)
        if data:
            raise ValueError(f"reward spec: unknown keys: {sorted(data)}")
        types = {f.name: f.type for f in fields(cls)}
        for name, value in kwargs.items():
            kwargs[name] = (
                str(value)
                if name == "label"
                else int(value)
                if types[name] in ("int", int)
                else float(value)
            )
        return cls(**kwargs)

    @classmethod
    def from_yaml(cls, path: str | Path) -> RewardSpec:
        """Load a spec from a YAML file."""
        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(yaml.safe_load(fh) or {})

    def to_dict(self) -> dict[str, Any]:
        """The nested YAML layout of this spec (round-trips through :meth:`from_dict`)."""
        out: dict[str, Any] = {"version": self.label}
        for section, mapping in _YAML_LAYOUT.items():
            out[section] = {k: getattr(self, name) for k, name in mapping.items()}
        out.update({k: getattr(self, name) for k, name in _YAML_TOP.items()})
        return out

    def with_weights(self, **changes: Any) -> RewardSpec:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def load_reward_spec(path: str | Path | None = None) -> RewardSpec:
    """Load the spec at ``path``, or the packaged default ``reward_spec.yaml``."""
    return RewardSpec.from_yaml(path if path is not None else DEFAULT_SPEC_PATH)


def _num(df: pd.DataFrame, col: str, default: float = 0.0) -> pd.Series:
    if col not in df:
        return pd.Series(default, index=df.index, dtype=float)
    return pd.to_numeric(df[col], errors="coerce").astype(float).fillna(default)


def _flag(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df:
        return pd.Series(False, index=df.index)
    return df[col].astype("boolean").fillna(False).astype(bool)


def reward_components(replayed: pd.DataFrame, spec: RewardSpec) -> pd.DataFrame:
    """The reward components of each episode (same index as ``replayed``)."""
    s = spec
    success = _flag(replayed, "success")
    tokens = _num(replayed, "prompt_tokens") + _num(replayed, "completion_tokens")
    raw_cost = (
        s.cost_per_tool_call * _num(replayed, "n_tool_calls").clip(lower=0)
        + s.cost_per_1k_tokens * tokens.clip(lower=0) / 1000.0
        + s.cost_per_second_latency * _num(replayed, "latency_ms").clip(lower=0) / 1000.0
        + s.cost_per_usd * _num(replayed, "cost_usd").clip(lower=0)
    )
    fin = _num(replayed, "financial_writes").clip(0, s.max_risk_acts)
    destr = _num(replayed, "destructive_actions").clip(0, s.max_risk_acts)
    steps_over = (_num(replayed, "n_steps") - s.step_budget).clip(0, s.max_steps_over)
    penalty = (
        s.loop * _flag(replayed, "loop_detected")
        + s.per_retry * _num(replayed, "n_retries").clip(0, s.max_retries)
        + s.premature_finish * _flag(replayed, "premature_finish")
        + s.per_step_over_budget * steps_over
    )
    csat = _num(replayed, "csat", np.nan)
    r_csat = (s.csat_weight * ((csat - s.csat_center) / s.csat_half_range).clip(-1, 1)).fillna(0.0)
    out = pd.DataFrame(
        {
            "r_success": s.w_success * success.astype(float),
            "r_cost": -s.w_cost * raw_cost.clip(upper=s.max_cost),
            "r_risk": -s.w_risk * (s.financial_write * fin + s.destructive_action * destr),
            "r_penalty": -penalty.astype(float),
            "r_takeover": -s.human_takeover * _flag(replayed, "human_takeover").astype(float),
            "r_complaint": -s.complaint * _flag(replayed, "complaint").astype(float),
            "r_csat": r_csat,
        },
        index=replayed.index,
    )
    return out + 0.0  # normalise -0.0 to 0.0


def score_episodes(replayed: pd.DataFrame, spec: RewardSpec) -> pd.DataFrame:
    """The ``episode_rewards`` table: one row per episode, ``reward`` == sum of components."""
    comps = reward_components(replayed, spec)
    keys = ["ds", "episode_id", "policy_id", "task_type", "propensity"]
    out = pd.DataFrame(index=replayed.index)
    for col in keys:
        out[col] = replayed[col] if col in replayed else None
    out["propensity"] = pd.to_numeric(out["propensity"], errors="coerce").astype(float)
    out["reward"] = comps.sum(axis=1).astype(float)
    out["reward_version"] = spec.version
    out[list(COMPONENTS)] = comps
    for col in CARRIED:
        if col in replayed:
            out[col] = replayed[col]
    out["success"] = _flag(replayed, "success")
    out["financial_writes"] = _num(replayed, "financial_writes").astype("int64")
    out["destructive_actions"] = _num(replayed, "destructive_actions").astype("int64")
    out["risky"] = (out["financial_writes"] + out["destructive_actions"]) > 0
    return out.reset_index(drop=True)


def reward_bounds(spec: RewardSpec) -> tuple[float, float]:
    """The lowest and highest episode reward the spec allows (for a data-quality check)."""
    s = spec
    low = -(
        s.w_cost * s.max_cost
        + s.w_risk * s.max_risk_acts * (s.financial_write + s.destructive_action)
        + s.loop
        + s.per_retry * s.max_retries
        + s.premature_finish
        + s.per_step_over_budget * s.max_steps_over
        + s.human_takeover
        + s.complaint
        + s.csat_weight
    )
    return float(low), float(s.max_positive_reward)


def step_rewards(
    steps: pd.DataFrame, episode_rewards: pd.DataFrame, spec: RewardSpec
) -> pd.DataFrame:
    """Per-step rewards and discounted return-to-go (``spec.gamma``).

    The episode's cost term is shared equally by the agent's action steps (tool calls, replies,
    finish); the terminal step also gets every outcome term (success, risk, penalties, takeover,
    complaint, CSAT). Per episode, the step rewards sum to the episode reward. Steps of episodes
    without a reward row are dropped.
    """
    cols = ["ds", "episode_id", "step", "role", "action_type", "tool_name"]
    out_cols = [*cols, "step_reward", "return_to_go", "reward_version"]
    st = steps[[c for c in cols if c in steps]].copy()
    for c in cols:
        if c not in st:
            st[c] = None
    er = episode_rewards[["ds", "episode_id", "reward", "reward_version", *COMPONENTS]]
    st = st.merge(er, on=["ds", "episode_id"], how="inner", validate="many_to_one")
    if st.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in out_cols})
    st = st.sort_values(["ds", "episode_id", "step"], kind="stable").reset_index(drop=True)
    keys = [st["ds"], st["episode_id"]]
    is_last = ~st.duplicated(["ds", "episode_id"], keep="last")
    is_action = st["action_type"].isin(AGENT_ACTIONS)
    n_actions = is_action.groupby(keys).transform("sum")
    # the last action step (or the terminal step if there is none) takes the rounding remainder
    carrier = is_action | (n_actions.eq(0) & is_last)
    n_carriers = carrier.groupby(keys).transform("sum")
    share = np.where(carrier, st["r_cost"] / n_carriers.clip(lower=1), 0.0)
    outcome = st[[c for c in COMPONENTS if c != "r_cost"]].sum(axis=1)
    reward = share + np.where(is_last, outcome, 0.0)
    # exact per-episode sum: give the terminal step whatever rounding is left
    residual = st["reward"] - pd.Series(reward).groupby(keys).transform("sum")
    reward = reward + np.where(is_last, residual, 0.0)
    st["step_reward"] = reward
    from_end = st.groupby(["ds", "episode_id"], sort=False).cumcount(ascending=False)
    st["return_to_go"] = _discounted_return(reward, from_end.to_numpy(), spec.gamma)
    return st[out_cols]


def _discounted_return(rewards: np.ndarray, from_end: np.ndarray, gamma: float) -> np.ndarray:
    """Return-to-go for rows sorted by episode then step; ``from_end`` is 0 on terminal steps."""
    g = np.zeros_like(rewards, dtype=float)
    last = from_end == 0
    g[last] = rewards[last]
    for d in range(1, int(from_end.max(initial=0)) + 1):
        idx = np.flatnonzero(from_end == d)
        g[idx] = rewards[idx] + gamma * g[idx + 1]
    return g


def reward_hacking_signals(replayed: pd.DataFrame, rewards: pd.DataFrame) -> pd.DataFrame:
    """Per (policy, task type) signals of a policy gaming the reward.

    Columns: ``n``, ``success_rate``, ``mean_reward``, ``takeover_rate``, ``complaint_rate``
    (over episodes where a complaint flag is logged), ``traffic_share`` (share of the task
    type's episodes this policy got), ``task_mix_share`` (share of this policy's episodes that
    are of this task type), ``early_end_rate`` (premature finish or ``n_steps <= 2``),
    ``unresolved_rate`` (not successful and no human takeover), and ``flags``: high success
    paired with an early-end, takeover or complaint rate well above the task type's average.
    """
    df = replayed.copy()
    df["success"] = _flag(df, "success")
    df["human_takeover"] = _flag(df, "human_takeover")
    df["complaint"] = df["complaint"].astype("boolean") if "complaint" in df else pd.NA
    df["early_end"] = _flag(df, "premature_finish") | (_num(df, "n_steps", np.nan) <= 2)
    df["unresolved"] = ~df["success"] & ~df["human_takeover"]
    if rewards is not None and "reward" in rewards:
        df = df.merge(rewards[["ds", "episode_id", "reward"]], on=["ds", "episode_id"], how="left")
    else:
        df["reward"] = np.nan
    df["complaint_f"] = df["complaint"].astype("Float64").astype(float)
    g = df.groupby(["policy_id", "task_type"], dropna=False)
    out = g.agg(
        n=("episode_id", "size"),
        success_rate=("success", "mean"),
        mean_reward=("reward", "mean"),
        takeover_rate=("human_takeover", "mean"),
        complaint_rate=("complaint_f", "mean"),
        early_end_rate=("early_end", "mean"),
        unresolved_rate=("unresolved", "mean"),
    ).reset_index()
    out["traffic_share"] = out["n"] / out.groupby("task_type", dropna=False)["n"].transform("sum")
    out["task_mix_share"] = out["n"] / out.groupby("policy_id", dropna=False)["n"].transform("sum")
    task = df.groupby("task_type", dropna=False).agg(
        t_success=("success", "mean"),
        t_early=("early_end", "mean"),
        t_takeover=("human_takeover", "mean"),
        t_complaint=("complaint_f", "mean"),
    )
    out = out.join(task, on="task_type")
    margin = 0.1
    high_success = out["success_rate"] >= out["t_success"]
    flags = {
        "ends_early": out["early_end_rate"] > out["t_early"] + margin,
        "more_takeovers": out["takeover_rate"] > out["t_takeover"] + margin,
        "more_complaints": out["complaint_rate"].fillna(0) > out["t_complaint"].fillna(0) + margin,
    }
    flag_text = pd.Series("", index=out.index)
    for name, mask in flags.items():
        flag_text = flag_text.where(~(mask & high_success), flag_text + name + ";")
    out["flags"] = flag_text.str.rstrip(";")
    cols = [
        "policy_id",
        "task_type",
        "n",
        "success_rate",
        "mean_reward",
        "takeover_rate",
        "complaint_rate",
        "traffic_share",
        "task_mix_share",
        "early_end_rate",
        "unresolved_rate",
        "flags",
    ]
    return out[cols].sort_values(["task_type", "policy_id"]).reset_index(drop=True)
