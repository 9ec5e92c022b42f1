"""Offline RL / GRPO rows (``training_rl``): prompt and completion as JSON text, episode and step
rewards (from :mod:`agentic_pipeline.rewards`), group advantages and lineage."""

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa

from agentic_pipeline.jsonutil import strict_json_dumps
from agentic_pipeline.rewards import COMPONENTS, RewardSpec, load_reward_spec
from agentic_pipeline.rewards import step_rewards as compute_step_rewards
from agentic_pipeline.training.chat import validate_messages
from agentic_pipeline.training.episodes import _Episode
from agentic_pipeline.training.records import _fail, _finite, _require, _validate_lineage
from agentic_pipeline.training.tools import _validate_tools

RL_KEYS = (
    "episode_id",
    "ds",
    "reward_version",
    "policy_id",
    "propensity",
    "task_type",
    "group_id",
    "prompt",
    "completion",
    "tools",
    "reward",
    "step_rewards",
    "returns",
    "group_advantage",
)


def validate_rl_row(row: Any) -> None:
    """An offline-RL / GRPO row: JSON-text prompt and completion, rewards, group and lineage."""
    _require(row, RL_KEYS, "rl")
    _validate_lineage(row, "rl")
    try:
        prompt, completion = json.loads(row["prompt"]), json.loads(row["completion"])
        tools = json.loads(row["tools"])
    except (TypeError, ValueError, RecursionError):
        _fail("rl", "prompt, completion and tools must be JSON text")
    validate_messages(prompt, "rl.prompt")
    if prompt[-1]["role"] != "user":
        _fail("rl.prompt", "the prompt must end with the user message")
    if completion:
        validate_messages(prompt + completion, "rl.prompt+completion")
    _validate_tools(tools, "rl.tools")
    if not _finite(row["reward"]) or not _finite(row["group_advantage"]):
        _fail("rl", "reward and group_advantage must be finite numbers")
    steps, returns = list(row["step_rewards"]), list(row["returns"])
    if len(steps) != len(returns) or not all(_finite(x) for x in steps + returns):
        _fail("rl", "step_rewards and returns must be equally long lists of finite numbers")
    if steps and not math.isclose(sum(steps), row["reward"], rel_tol=1e-6, abs_tol=1e-6):
        _fail("rl", "step rewards must sum to the episode reward")
    if not isinstance(row["group_id"], str) or not row["group_id"]:
        _fail("rl", "group_id must be a non-empty string")
    p = row["propensity"]
    if p is not None and not (isinstance(p, float) and math.isnan(p)) and not 0 < p <= 1:
        _fail("rl", "propensity must be in (0, 1] or null")


def _step_reward_lists(
    steps: pd.DataFrame,
    rewards: pd.DataFrame,
    step_rewards: pd.DataFrame | None,
    spec: RewardSpec | None,
) -> dict[tuple[str, str], tuple[list[int], list[float], list[float]]]:
    if step_rewards is None:
        if not all(c in rewards for c in COMPONENTS):
            # the reward is not decomposed: with every component 0, rewards.step_rewards puts the
            # whole reward on the terminal step (and discounts it back for the returns)
            rewards = rewards.assign(**dict.fromkeys(COMPONENTS, 0.0))
        if "reward_version" not in rewards:
            rewards = rewards.assign(reward_version=None)
        step_rewards = compute_step_rewards(steps, rewards, spec or load_reward_spec())
    out = {}
    sr = step_rewards.sort_values(["ds", "episode_id", "step"], kind="stable")
    for (d, e), g in sr.groupby(["ds", "episode_id"], sort=False):
        out[(str(d), str(e))] = (
            [int(s) for s in g["step"]],
            [float(x) for x in g["step_reward"]],
            [float(x) for x in g["return_to_go"]],
        )
    return out


def _advantages(rewards: pd.Series, keys: list[pd.Series]) -> pd.Series:
    grouped = rewards.groupby(keys)
    mean = grouped.transform("mean")
    std = grouped.transform("std", ddof=0).fillna(0.0)
    centered = rewards - mean
    return centered.where(~(std > 0), centered / std.where(std > 0, 1.0)).astype(float)


def _rl_rows(
    episodes: list[_Episode],
    tools: dict[tuple[str, str], list[dict]],
    step_lists: dict[tuple[str, str], tuple[list[int], list[float], list[float]]],
) -> list[dict]:
    rows = []
    for ep in episodes:
        steps, srs, rets = step_lists.get((ep.ds, ep.episode_id), ([], [], []))
        task_id = ep.attrs.get("task_id")
        rows.append(
            {
                "episode_id": ep.episode_id,
                "ds": ep.ds,
                "reward_version": ep.reward_version,
                "policy_id": ep.attrs["policy_id"],
                "propensity": ep.attrs["propensity"],
                "task_type": ep.attrs["task_type"],
                "task_id": task_id,
                "group_id": str(task_id or ep.attrs["task_type"]),
                "prompt": strict_json_dumps(ep.prompt, ensure_ascii=False),
                "completion": strict_json_dumps(ep.completion, ensure_ascii=False),
                "tools": strict_json_dumps(
                    tools.get((ep.ds, str(ep.attrs["task_type"])), []), ensure_ascii=False
                ),
                "reward": ep.reward,
                "success": ep.success,
                "safe": ep.safe,
                "replay_ok": ep.replay_ok,
                "steps": steps,
                "step_rewards": srs,
                "returns": rets,
            }
        )
    if rows:
        frame = pd.DataFrame(rows)[["ds", "group_id", "task_type", "reward"]]
        group_adv = _advantages(frame["reward"], [frame["ds"], frame["group_id"]])
        type_adv = _advantages(frame["reward"], [frame["ds"], frame["task_type"]])
        sizes = frame.groupby(["ds", "group_id"])["reward"].transform("size")
        for row, g, t, n in zip(rows, group_adv, type_adv, sizes, strict=True):
            row["group_size"] = int(n)
            row["group_advantage"] = float(g)
            row["task_type_advantage"] = float(t)
    return rows


RL_SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("ds", pa.string()),
        ("reward_version", pa.string()),
        ("policy_id", pa.string()),
        ("propensity", pa.float64()),
        ("task_type", pa.string()),
        ("task_id", pa.string()),
        ("group_id", pa.string()),
        ("prompt", pa.string()),
        ("completion", pa.string()),
        ("tools", pa.string()),
        ("reward", pa.float64()),
        ("success", pa.bool_()),
        ("safe", pa.bool_()),
        ("replay_ok", pa.bool_()),
        ("steps", pa.list_(pa.int32())),
        ("step_rewards", pa.list_(pa.float64())),
        ("returns", pa.list_(pa.float64())),
        ("group_size", pa.int64()),
        ("group_advantage", pa.float64()),
        ("task_type_advantage", pa.float64()),
    ]
)


def rl_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """The RL rows as an Arrow table with a fixed schema (empty days included)."""
    return pa.Table.from_pylist(list(rows), schema=RL_SCHEMA)
