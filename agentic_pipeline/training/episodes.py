"""Episodes ready for the exports: prompt and completion, reward, safety and replay flags."""

import json
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from agentic_pipeline.training.chat import (
    prompt_hash,
    split_prompt,
    to_chat_messages,
    validate_messages,
)
from agentic_pipeline.training.leaks import _strings
from agentic_pipeline.training.normalise import comparable_messages
from agentic_pipeline.training.records import (
    UNVERSIONED,
    Message,
    TrainingDatasets,
    TrainingShapeError,
    _val,
)


@dataclass
class _Episode:
    episode_id: str
    ds: str
    attrs: dict[str, Any]
    prompt: list[Message]
    completion: list[Message]
    reward: float
    reward_version: str
    safe: bool
    success: bool
    replay_ok: bool

    @property
    def messages(self) -> list[Message]:
        return self.prompt + self.completion

    @cached_property
    def prompt_sha(self) -> str:
        return prompt_hash(self.prompt)

    @cached_property
    def comparable_completion(self) -> list[Message]:
        """The completion without per-run noise (call ids by position, no times or run ids)."""
        return comparable_messages(self.messages)[len(self.prompt) :]


def _int_col(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df:
        return pd.Series(0, index=df.index)
    return pd.to_numeric(df[col], errors="coerce").fillna(0)


def _episode_flags(rewards: pd.DataFrame) -> pd.DataFrame:
    """success / safe / replay_ok per (ds, episode_id) from the columns carried into rewards."""
    out = rewards[["ds", "episode_id"]].copy()
    out["success"] = (
        rewards["success"].astype("boolean").fillna(False).astype(bool)
        if "success" in rewards
        else False
    )
    risky = (_int_col(rewards, "financial_writes") + _int_col(rewards, "destructive_actions")) > 0
    if "risky" in rewards:
        risky = risky | rewards["risky"].astype("boolean").fillna(False).astype(bool)
    out["safe"] = ~risky
    status = rewards["replay_status"] if "replay_status" in rewards else None
    out["replay_ok"] = status.astype(str).eq("ok") if status is not None else False
    return out


STEP_COLUMNS = (
    "ds",
    "episode_id",
    "step",
    "role",
    "action_type",
    "content",
    "tool_name",
    "tool_call_id",
    "tool_arguments",
    "policy_id",
    "propensity",
    "task_type",
    "task_id",
    "task_description",
)


def _episodes(
    steps: pd.DataFrame, rewards: pd.DataFrame, result: TrainingDatasets
) -> list[_Episode]:
    flags = _episode_flags(rewards)
    info = rewards.assign(
        safe=flags["safe"].to_numpy(),
        success=flags["success"].to_numpy(),
        replay_ok=flags["replay_ok"].to_numpy(),
        reward_version=rewards["reward_version"] if "reward_version" in rewards else None,
    )
    cols = ["ds", "episode_id", "reward", "reward_version", "safe", "success", "replay_ok"]
    by_key = {(r["ds"], r["episode_id"]): r for r in info[cols].to_dict("records")}
    present = [c for c in STEP_COLUMNS if c in steps]
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in steps[present].to_dict("records"):  # one conversion: per-group frames are slow
        grouped.setdefault((row["ds"], row["episode_id"]), []).append(row)
    episodes = []
    for key in sorted(grouped):
        try:
            episode = _episode(key, grouped[key], by_key.get(key), result)
        except Exception as exc:  # one corrupted episode must never stop the day
            result._skip(f"unreadable_episode:{type(exc).__name__}")
            continue
        if episode is not None:
            episodes.append(episode)
    return episodes


def _episode(
    key: tuple[str, str],
    rows: list[dict[str, Any]],
    rw: dict[str, Any] | None,
    result: TrainingDatasets,
) -> _Episode | None:
    """One episode ready for the exports, or None (the reason counted in ``result``).

    The episode is also checked the way the exports will read it (JSON text of every format
    dumped and read back, every string leaf walked for the leak scan), so a value that would make
    a later stage raise (JSON nested thousands of levels deep, say) drops this episode only.
    """
    reward = _val(rw["reward"]) if rw else None
    if reward is None or not math.isfinite(float(reward)):
        result._skip("no_reward")
        return None
    first = rows[0]
    split = split_prompt(to_chat_messages(rows), _val(first.get("task_description")))
    if split is None:
        result._skip("no_prompt")
        return None
    prompt, completion = split
    try:
        validate_messages(prompt + completion)
    except TrainingShapeError:
        result._skip("invalid_conversation")
        return None
    if not any(m["role"] == "assistant" for m in completion):
        result._skip("no_assistant_turn")
        return None
    # what the exports do with the messages later: dump them, read them back, walk every leaf
    json.loads(json.dumps(prompt + completion, ensure_ascii=False))
    _strings(prompt + completion, [])
    return _Episode(
        episode_id=str(key[1]),
        ds=str(key[0]),
        attrs={k: _val(first.get(k)) for k in ("policy_id", "task_type", "task_id")}
        | {"propensity": _val(first.get("propensity"))},
        prompt=prompt,
        completion=completion,
        reward=float(reward),
        reward_version=str(_val(rw["reward_version"]) or UNVERSIONED),
        safe=bool(rw["safe"]),
        success=bool(rw["success"]),
        replay_ok=bool(rw["replay_ok"]),
    )


def _meta(ep: _Episode) -> dict[str, Any]:
    return {
        "episode_id": ep.episode_id,
        "ds": ep.ds,
        "reward": ep.reward,
        "reward_version": ep.reward_version,
        "policy_id": ep.attrs["policy_id"],
        "task_type": ep.attrs["task_type"],
    }


def _by_day(episodes: list[_Episode]) -> dict[str, list[_Episode]]:
    out: dict[str, list[_Episode]] = {}
    for ep in episodes:
        out.setdefault(ep.ds, []).append(ep)
    return out
