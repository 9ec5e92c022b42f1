"""Training datasets from masked trajectories: SFT, preference pairs (DPO) and offline RL / GRPO.

Everything here works on the canonical step rows of ``masked_trajectories`` (see ``schema``) and
the ``episode_rewards`` table; nothing imports a trainer library. Per day it builds:

- **SFT** (``sft.jsonl``): OpenAI chat fine-tuning records ``{"messages", "tools", "metadata"}``
  from successful, safe episodes (no financial write or destructive act, ``replay_status`` ok) whose
  reward is at least the day's ``sft_quantile`` reward, of the day's selected policy per task type
  (all policies of a task type when ``policy_selection`` has no decision for it).
- **Preference pairs**: TRL (``dpo_trl.jsonl``: ``prompt``/``chosen``/``rejected`` message lists)
  and OpenAI preference fine-tuning (``dpo_openai.jsonl``: ``input``/``preferred_output``/
  ``non_preferred_output``).
- **Offline RL / GRPO** rows (``rl.parquet``): prompt and completion as JSON text, episode reward,
  per-step rewards and returns, policy and propensity, ``group_id`` and ``group_advantage``.

Prompts. An episode's prompt is its messages up to and including the first user message. Logs
without a user turn before the agent's first action (transition logs) get one synthesised from the
(masked) ``task_description``; episodes with neither are skipped.

Pairing (documented decision). Pairs are formed per day inside a group: the ``task_id`` when it
occurs more than once that day (repeated trials, as in tau-bench), else the ``task_type``. Inside a
``task_id`` group the two trajectories answer the same task, so the pair uses the *chosen*
episode's prompt even when the users phrased it differently (``prompt_match`` says
``identical`` or ``same_task``). Inside a ``task_type`` group the tasks differ, so by default only
episodes whose prompts are identical after masking are paired; ``pair_across_tasks=True`` pairs
them anyway on the chosen prompt (``prompt_match="same_task_type"``, weaker data). Either way both
sides of a pair share one prompt. The chosen side must be safe and replayed ``ok``; the reward gap
must exceed ``dpo_margin``. OpenAI's preference format trains one assistant turn, so its record is
the first turn where the two completions differ, after their common prefix (pairs that only
diverge in a tool or user message have no OpenAI record).

Every record carries lineage (``episode_id``, ``ds``, ``reward_version``), and every export is
scanned with the masking package's leak scan before it is written.
"""

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.jsonutil import strict_json_dumps, strict_json_dumps_counted
from agentic_pipeline.rewards import COMPONENTS, RewardSpec, load_reward_spec
from agentic_pipeline.rewards import step_rewards as compute_step_rewards
from agentic_pipeline.storage import PART_FILE, DataRoot, day_range
from agentic_pipeline.tables import conform

ASSET_NAME = "training_datasets"
SFT_FILE = "sft.jsonl"
DPO_TRL_FILE = "dpo_trl.jsonl"
DPO_OPENAI_FILE = "dpo_openai.jsonl"
RL_FILE = "rl.parquet"
#: export format -> file of a day folder
FORMAT_FILES = {
    "sft": SFT_FILE,
    "dpo": DPO_TRL_FILE,
    "dpo-openai": DPO_OPENAI_FILE,
    "rl": RL_FILE,
}
LINEAGE_KEYS = ("episode_id", "ds", "reward_version")
UNVERSIONED = "unversioned"

Message = dict[str, Any]


class TrainingShapeError(ValueError):
    """A training record does not have the expected shape (the message never quotes content)."""


@dataclass(frozen=True)
class TrainingConfig:
    """How the datasets are selected."""

    sft_quantile: float = 0.5  # keep SFT episodes with reward >= this quantile of the day
    sft_policies: str = "selected"  # "selected" | "eligible" | "all" (from policy_selection)
    dpo_margin: float = 0.1  # chosen reward - rejected reward must exceed this
    pair_across_tasks: bool = False  # pair different tasks of a task type on the chosen prompt
    max_pairs_per_group: int = 16

    def __post_init__(self) -> None:
        if not 0.0 <= self.sft_quantile <= 1.0:
            raise ValueError("sft_quantile must be in [0, 1]")
        if self.sft_policies not in ("selected", "eligible", "all"):
            raise ValueError("sft_policies must be 'selected', 'eligible' or 'all'")
        if self.dpo_margin < 0 or self.max_pairs_per_group < 1:
            raise ValueError("dpo_margin must be >= 0 and max_pairs_per_group >= 1")


@dataclass
class TrainingDatasets:
    """The records of one or more days, plus counts of what was skipped and why."""

    sft: list[dict] = field(default_factory=list)
    dpo_trl: list[dict] = field(default_factory=list)
    dpo_openai: list[dict] = field(default_factory=list)
    rl: list[dict] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    #: Non-finite numbers written as JSON ``null`` by :func:`day_files` (strict JSON).
    nonfinite_to_null: int = 0

    def by_format(self) -> dict[str, list[dict]]:
        return {"sft": self.sft, "dpo": self.dpo_trl, "dpo-openai": self.dpo_openai, "rl": self.rl}

    def _skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


# --- messages ---------------------------------------------------------------------------------


def _val(value: Any) -> Any:
    """``None`` for missing values (None, NaN, pd.NA), else the value."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _rows(steps: pd.DataFrame | Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = steps.to_dict("records") if isinstance(steps, pd.DataFrame) else list(steps)
    return sorted(rows, key=lambda r: int(r.get("step") or 0))


def to_chat_messages(steps: pd.DataFrame | Iterable[Mapping[str, Any]]) -> list[Message]:
    """OpenAI chat messages of one episode's canonical step rows (sorted by ``step``).

    Consecutive assistant ``tool_call`` rows (and a ``respond`` row followed by tool calls) become
    one assistant message with ``tool_calls``; ``tool_result`` rows become ``tool`` messages;
    ``finish`` rows keep their text as an assistant message and are dropped without text.
    """
    messages: list[Message] = []
    for row in _rows(steps):
        role, kind = _val(row.get("role")), _val(row.get("action_type"))
        content = _val(row.get("content"))
        if role in ("system", "user"):
            messages.append({"role": role, "content": "" if content is None else str(content)})
        elif kind == "tool_call":
            args = _val(row.get("tool_arguments"))
            call = {
                "id": str(_val(row.get("tool_call_id")) or f"call_{row.get('step')}"),
                "type": "function",
                "function": {
                    "name": str(_val(row.get("tool_name"))),
                    "arguments": "{}" if args is None else str(args),
                },
            }
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "tool_result" or role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": str(_val(row.get("tool_call_id"))),
                    "content": "" if content is None else str(content),
                }
            )
        elif kind == "finish" and not content:
            continue
        else:  # respond, or finish with text
            messages.append({"role": "assistant", "content": content or None})
    return [m for m in messages if m["role"] != "assistant" or m["content"] or m.get("tool_calls")]


def split_prompt(
    messages: Sequence[Message], task_description: str | None = None
) -> tuple[list[Message], list[Message]] | None:
    """(prompt, completion): the prompt ends with the first user message.

    Without a user message before the first non-system message, a user turn holding
    ``task_description`` is inserted after the system messages; ``None`` if there is none.
    """
    msgs = [dict(m) for m in messages]
    first = next((i for i, m in enumerate(msgs) if m["role"] != "system"), len(msgs))
    if first == len(msgs) or msgs[first]["role"] != "user":
        if not task_description:
            return None
        msgs.insert(first, {"role": "user", "content": str(task_description)})
    return msgs[: first + 1], msgs[first + 1 :]


def prompt_hash(prompt: Sequence[Message]) -> str:
    """Stable hash of a message list (the pair's shared prompt)."""
    text = json.dumps(list(prompt), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --- tools ------------------------------------------------------------------------------------


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _merge_types(types: set[str]) -> str | list[str]:
    if {"integer", "number"} <= types:
        types = types - {"integer"}
    ordered = sorted(types)
    return ordered[0] if len(ordered) == 1 else ordered


def _tool_calls(messages: Iterable[Message]) -> Iterable[dict]:
    for m in messages:
        if m.get("role") == "assistant":
            yield from m.get("tool_calls") or []


def infer_tools(episodes: Iterable[Sequence[Message]]) -> list[dict]:
    """JSON-schema function definitions inferred from every tool call in ``episodes``.

    ``episodes`` are chat message lists. Property types come from the argument values (several
    types give a list of types); ``required`` lists the keys present in every call of the tool.
    """
    seen: dict[str, dict[str, Any]] = {}
    for messages in episodes:
        for call in _tool_calls(messages):
            fn = call.get("function") or {}
            name = fn.get("name")
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (TypeError, ValueError, RecursionError):  # RecursionError: nested too deep
                continue
            if not name or not isinstance(args, dict):
                continue
            info = seen.setdefault(name, {"calls": 0, "types": {}, "counts": {}})
            info["calls"] += 1
            for key, value in args.items():
                info["types"].setdefault(key, set()).add(_json_type(value))
                info["counts"][key] = info["counts"].get(key, 0) + 1
    tools = []
    for name in sorted(seen):
        info = seen[name]
        props = {k: {"type": _merge_types(t)} for k, t in sorted(info["types"].items())}
        required = sorted(k for k, n in info["counts"].items() if n == info["calls"])
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": f"{name} (schema inferred from {info['calls']} logged calls)",
                    "parameters": {"type": "object", "properties": props, "required": required},
                },
            }
        )
    return tools


# --- validators -------------------------------------------------------------------------------


def _fail(where: str, what: str) -> None:
    raise TrainingShapeError(f"{where}: {what}")


def _check_tool_call(call: Any, where: str) -> str:
    if not isinstance(call, dict) or call.get("type") != "function":
        _fail(where, "tool call must be an object with type 'function'")
    if not isinstance(call.get("id"), str) or not call["id"]:
        _fail(where, "tool call without an id")
    fn = call.get("function")
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        _fail(where, "tool call without a function name")
    if not isinstance(fn.get("arguments"), str):
        _fail(where, "tool call arguments must be a JSON string")
    try:
        parsed = json.loads(fn["arguments"])
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        parsed = None
    if not isinstance(parsed, dict):
        _fail(where, "tool call arguments must parse to a JSON object")
    return call["id"]


def validate_messages(messages: Any, where: str = "messages", require_user: bool = True) -> None:
    """A chat conversation: optional leading system messages, then a user message first;
    every assistant tool call answered by a ``tool`` message with its id before the next
    non-tool message (calls of the final assistant message may stay open)."""
    if not isinstance(messages, list) or not messages:
        _fail(where, "must be a non-empty list of messages")
    pending: set[str] = set()
    seen_non_system = False
    for i, m in enumerate(messages):
        at = f"{where}[{i}]"
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "tool"):
            _fail(at, "unknown role")
        role = m["role"]
        if role == "system":
            if seen_non_system:
                _fail(at, "system message after the conversation started")
        elif not seen_non_system and require_user and role != "user":
            _fail(at, "the first non-system message must be a user message")
        if role != "system":
            seen_non_system = True
        if role == "tool":
            call_id = m.get("tool_call_id")
            if call_id not in pending:
                _fail(at, "tool message does not answer an open tool call")
            pending.discard(call_id)
            if not isinstance(m.get("content"), str):
                _fail(at, "tool content must be a string")
            continue
        if pending:
            _fail(at, "tool call left unanswered before the next message")
        if role in ("system", "user") and not isinstance(m.get("content"), str):
            _fail(at, f"{role} content must be a string")
        if role == "assistant":
            content, calls = m.get("content"), m.get("tool_calls")
            if content is not None and not isinstance(content, str):
                _fail(at, "assistant content must be a string or null")
            if calls is not None and (not isinstance(calls, list) or not calls):
                _fail(at, "tool_calls must be a non-empty list")
            if not content and not calls:
                _fail(at, "assistant message without content or tool calls")
            ids = [_check_tool_call(c, at) for c in calls or []]
            if len(set(ids)) != len(ids):
                _fail(at, "duplicate tool call ids")
            pending = set(ids)


def _validate_tools(tools: Any, where: str) -> None:
    if not isinstance(tools, list):
        _fail(where, "tools must be a list")
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            _fail(f"{where}[{i}]", "tool must be {type: function, function: {name, ...}}")
        if not isinstance(fn.get("parameters"), dict) or fn["parameters"].get("type") != "object":
            _fail(f"{where}[{i}]", "tool parameters must be a JSON schema of type object")


def _validate_lineage(meta: Any, where: str) -> None:
    if not isinstance(meta, dict):
        _fail(where, "metadata must be an object")
    for key in LINEAGE_KEYS:
        if not isinstance(meta.get(key), str) or not meta[key]:
            _fail(where, f"lineage key {key!r} missing")


def _require(record: Any, keys: Iterable[str], where: str) -> None:
    if not isinstance(record, dict):
        _fail(where, "record must be an object")
    missing = [k for k in keys if k not in record]
    if missing:
        _fail(where, f"missing keys {missing}")


def validate_sft_record(record: Any) -> None:
    """An OpenAI chat fine-tuning record with tools and lineage metadata."""
    _require(record, ("messages", "tools", "metadata"), "sft")
    validate_messages(record["messages"], "sft.messages")
    if not any(m["role"] == "assistant" for m in record["messages"]):
        _fail("sft.messages", "no assistant message to learn from")
    _validate_tools(record["tools"], "sft.tools")
    _validate_lineage(record["metadata"], "sft.metadata")
    for key in ("reward", "policy_id", "task_type"):
        if key not in record["metadata"]:
            _fail("sft.metadata", f"missing {key!r}")


def _validate_pair_meta(meta: Any, where: str) -> None:
    _validate_lineage(meta, where)
    for key in ("rejected_episode_id", "chosen_reward", "rejected_reward", "prompt_sha256"):
        if key not in meta:
            _fail(where, f"missing {key!r}")
    if not meta["chosen_reward"] > meta["rejected_reward"]:
        _fail(where, "chosen reward must exceed rejected reward")
    if meta["episode_id"] == meta["rejected_episode_id"]:
        _fail(where, "a pair needs two different episodes")


def validate_preference_pair(record: Any) -> None:
    """A TRL (``prompt``/``chosen``/``rejected``) or OpenAI (``input``/``preferred_output``/
    ``non_preferred_output``) preference pair whose two sides share one prompt."""
    if isinstance(record, dict) and "input" in record:
        _require(record, ("input", "preferred_output", "non_preferred_output", "metadata"), "dpo")
        meta = record["metadata"]
        _validate_pair_meta(meta, "dpo.metadata")
        inp = record["input"]
        _require(inp, ("messages", "tools"), "dpo.input")
        _validate_tools(inp["tools"], "dpo.input.tools")
        context = inp["messages"]
        n = meta.get("prompt_messages")
        if not isinstance(n, int) or not isinstance(context, list) or len(context) < n:
            _fail("dpo.metadata", "prompt_messages must count the shared prompt")
        if prompt_hash(context[:n]) != meta["prompt_sha256"]:
            _fail("dpo.input", "input does not start with the shared prompt")
        if context[-1].get("role") == "assistant":
            _fail("dpo.input", "input must not end with an assistant message")
        outputs = []
        for side in ("preferred_output", "non_preferred_output"):
            out = record[side]
            if not isinstance(out, list) or len(out) != 1 or out[0].get("role") != "assistant":
                _fail(f"dpo.{side}", "must be a list of exactly one assistant message")
            validate_messages(context + out, f"dpo.input+{side}")
            outputs.append(out)
        if outputs[0] == outputs[1]:
            _fail("dpo", "preferred and non-preferred outputs are identical")
        return
    _require(record, ("prompt", "chosen", "rejected", "metadata"), "dpo")
    meta = record["metadata"]
    _validate_pair_meta(meta, "dpo.metadata")
    prompt = record["prompt"]
    validate_messages(prompt, "dpo.prompt")
    if prompt[-1]["role"] != "user":
        _fail("dpo.prompt", "the prompt must end with the user message")
    if prompt_hash(prompt) != meta["prompt_sha256"]:
        _fail("dpo.prompt", "prompt does not match the pair's shared prompt hash")
    for side in ("chosen", "rejected"):
        completion = record[side]
        if not isinstance(completion, list) or not completion:
            _fail(f"dpo.{side}", "must be a non-empty list of messages")
        if completion[0].get("role") != "assistant":
            _fail(f"dpo.{side}", "must start with an assistant message")
        validate_messages(prompt + completion, f"dpo.prompt+{side}")
    if record["chosen"] == record["rejected"]:
        _fail("dpo", "chosen and rejected are identical")
    if "tools" in record:
        _validate_tools(record["tools"], "dpo.tools")


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


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


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


# --- building ---------------------------------------------------------------------------------


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


def _sft_policy_filter(
    selection: pd.DataFrame | None, mode: str
) -> dict[tuple[str, str], set[str]]:
    """(ds, task_type) -> allowed policy ids. Task types without any selected (or eligible)
    policy, e.g. at cold start, are absent and so allow every policy; a selection without a
    ``ds`` column applies to every day (key ``("*", task_type)``)."""
    if selection is None or selection.empty or mode == "all":
        return {}
    column = "selected" if mode == "selected" else "eligible"
    allowed: dict[tuple[str, str], set[str]] = {}
    for row in selection.to_dict("records"):
        if bool(_val(row.get(column))):
            key = (str(_val(row.get("ds")) or "*"), str(row["task_type"]))
            allowed.setdefault(key, set()).add(str(row["policy_id"]))
    return allowed


def _step_reward_lists(
    steps: pd.DataFrame,
    rewards: pd.DataFrame,
    step_rewards: pd.DataFrame | None,
    spec: RewardSpec | None,
) -> dict[tuple[str, str], tuple[list[int], list[float], list[float]]]:
    if step_rewards is None:
        if all(c in rewards for c in COMPONENTS):
            step_rewards = compute_step_rewards(steps, rewards, spec or load_reward_spec())
        else:  # no components: the whole reward lands on the terminal step
            gamma = (spec or load_reward_spec()).gamma
            out = {}
            reward_of = {
                (str(d), str(e)): float(r)
                for d, e, r in rewards[["ds", "episode_id", "reward"]].itertuples(index=False)
            }
            for (d, e), g in steps.groupby(["ds", "episode_id"], sort=False):
                key = (str(d), str(e))
                if key not in reward_of:
                    continue
                n = len(g)
                sr = [0.0] * (n - 1) + [reward_of[key]]
                rtg = [reward_of[key] * gamma ** (n - 1 - i) for i in range(n)]
                out[key] = (sorted(int(s) for s in g["step"]), sr, rtg)
            return out
    out = {}
    sr = step_rewards.sort_values(["ds", "episode_id", "step"], kind="stable")
    for (d, e), g in sr.groupby(["ds", "episode_id"], sort=False):
        out[(str(d), str(e))] = (
            [int(s) for s in g["step"]],
            [float(x) for x in g["step_reward"]],
            [float(x) for x in g["return_to_go"]],
        )
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


def _group_key(ep: _Episode, repeated: set[tuple[str, str]]) -> tuple[str, str, str]:
    task_id = ep.attrs.get("task_id")
    if task_id and (ep.ds, str(task_id)) in repeated:
        return (ep.ds, "task", f"{ep.attrs.get('task_type')}/{task_id}")
    return (ep.ds, "task_type", str(ep.attrs.get("task_type")))


def _divergent_turn(
    chosen: list[Message], rejected: list[Message]
) -> tuple[int, Message, Message] | None:
    """First index where the completions differ, if both have an assistant message there."""
    k = 0
    while k < min(len(chosen), len(rejected)) and chosen[k] == rejected[k]:
        k += 1
    if k < len(chosen) and k < len(rejected):
        if chosen[k]["role"] == "assistant" and rejected[k]["role"] == "assistant":
            return k, chosen[k], rejected[k]
    return None


def _pair_candidates(
    members: list[_Episode], kind: str, config: TrainingConfig
) -> list[tuple[float, str, str, _Episode, _Episode, str]]:
    """(-gap, chosen id, rejected id, chosen, rejected, prompt_match) of one group.

    Only the ``max_pairs_per_group`` best safe episodes and worst episodes of each prompt bucket
    are compared (the largest gaps are among them), so a big group stays cheap.
    """
    buckets: dict[str, list[_Episode]] = {}
    for ep in members:
        exact = kind == "task_type" and not config.pair_across_tasks
        buckets.setdefault(ep.prompt_sha if exact else "", []).append(ep)
    k = config.max_pairs_per_group
    out = []
    for bucket in buckets.values():
        good = [e for e in bucket if e.safe and e.replay_ok]
        chosen = sorted(good, key=lambda e: (-e.reward, e.episode_id))[:k]
        rejected = sorted(bucket, key=lambda e: (e.reward, e.episode_id))[:k]
        for c in chosen:
            for r in rejected:
                gap = c.reward - r.reward
                if r is c or gap <= config.dpo_margin:
                    continue
                match = "identical" if c.prompt_sha == r.prompt_sha else f"same_{kind}"
                out.append((-gap, c.episode_id, r.episode_id, c, r, match))
    return out


def _pairs(
    episodes: list[_Episode],
    tools: dict[tuple[str, str], list[dict]],
    config: TrainingConfig,
    result: TrainingDatasets,
) -> None:
    counts: dict[tuple[str, str], int] = {}
    for ep in episodes:
        if ep.attrs.get("task_id"):
            key = (ep.ds, str(ep.attrs["task_id"]))
            counts[key] = counts.get(key, 0) + 1
    repeated = {k for k, n in counts.items() if n > 1}
    groups: dict[tuple[str, str, str], list[_Episode]] = {}
    for ep in episodes:
        groups.setdefault(_group_key(ep, repeated), []).append(ep)
    for (ds, kind, group_id), members in sorted(groups.items()):
        candidates = _pair_candidates(members, kind, config)
        candidates.sort(key=lambda t: t[:3])
        for _, _, _, c, r, match in candidates[: config.max_pairs_per_group]:
            day_tools = tools.get((ds, str(c.attrs.get("task_type"))), [])
            meta = {
                **_meta(c),
                "rejected_episode_id": r.episode_id,
                "chosen_reward": c.reward,
                "rejected_reward": r.reward,
                "rejected_policy_id": r.attrs["policy_id"],
                "rejected_reward_version": r.reward_version,
                "group_id": group_id,
                "prompt_match": match,
                "prompt_sha256": c.prompt_sha,
                "prompt_messages": len(c.prompt),
            }
            result.dpo_trl.append(
                {
                    "prompt": c.prompt,
                    "chosen": c.completion,
                    "rejected": r.completion,
                    "tools": day_tools,
                    "metadata": meta,
                }
            )
            turn = _divergent_turn(c.completion, r.completion)
            if turn is None:
                result._skip("dpo_openai_no_divergent_assistant_turn")
                continue
            k, preferred, non_preferred = turn
            result.dpo_openai.append(
                {
                    "input": {"messages": c.prompt + c.completion[:k], "tools": day_tools},
                    "preferred_output": [preferred],
                    "non_preferred_output": [non_preferred],
                    "metadata": {**meta, "shared_turns": k},
                }
            )


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


def build_training_datasets(
    steps: pd.DataFrame,
    episode_rewards: pd.DataFrame,
    policy_selection: pd.DataFrame | None = None,
    step_rewards: pd.DataFrame | None = None,
    config: TrainingConfig | None = None,
    spec: RewardSpec | None = None,
) -> TrainingDatasets:
    """All four datasets from (masked) canonical step rows and episode rewards of any days.

    ``step_rewards`` (the asset's table) gives the per-step rewards; without it they are computed
    from the reward components (``spec`` for gamma, default spec if omitted), or, when the frame
    has no components, the whole reward is put on the terminal step. Quantiles, pairs and group
    statistics are computed within each day.
    """
    config = config or TrainingConfig()
    result = TrainingDatasets()
    if steps.empty or episode_rewards.empty:
        return result
    steps = steps.astype({"ds": str, "episode_id": str})
    rewards = episode_rewards.astype({"ds": str, "episode_id": str})
    episodes = _episodes(steps, rewards, result)
    tools: dict[tuple[str, str], list[dict]] = {}
    by_type: dict[tuple[str, str], list[list[Message]]] = {}
    for ep in episodes:
        by_type.setdefault((ep.ds, str(ep.attrs["task_type"])), []).append(ep.messages)
    for key, msgs in by_type.items():
        tools[key] = infer_tools(msgs)
    # SFT
    allowed = _sft_policy_filter(policy_selection, config.sft_policies)
    thresholds = {
        ds: float(np.quantile([e.reward for e in eps], config.sft_quantile))
        for ds, eps in _by_day(episodes).items()
    }
    for ep in episodes:
        task_type = str(ep.attrs["task_type"])
        policies = allowed.get((ep.ds, task_type), allowed.get(("*", task_type)))
        if not (ep.success and ep.safe and ep.replay_ok):
            result._skip("sft_not_successful_or_safe")
        elif ep.reward < thresholds[ep.ds]:
            result._skip("sft_below_quantile")
        elif policies is not None and str(ep.attrs["policy_id"]) not in policies:
            result._skip("sft_policy_not_selected")
        else:
            result.sft.append(
                {
                    "messages": ep.messages,
                    "tools": tools[(ep.ds, str(ep.attrs["task_type"]))],
                    "metadata": _meta(ep),
                }
            )
    _pairs(episodes, tools, config, result)
    step_lists = _step_reward_lists(steps, rewards, step_rewards, spec)
    result.rl = _rl_rows(episodes, tools, step_lists)
    return result


def _by_day(episodes: list[_Episode]) -> dict[str, list[_Episode]]:
    out: dict[str, list[_Episode]] = {}
    for ep in episodes:
        out.setdefault(ep.ds, []).append(ep)
    return out


def split_by_day(datasets: TrainingDatasets) -> dict[str, TrainingDatasets]:
    """One :class:`TrainingDatasets` per day (``skipped`` counts stay on the combined object)."""
    out: dict[str, TrainingDatasets] = {}
    for name in ("sft", "dpo_trl", "dpo_openai"):
        for rec in getattr(datasets, name):
            getattr(out.setdefault(rec["metadata"]["ds"], TrainingDatasets()), name).append(rec)
    for row in datasets.rl:
        out.setdefault(row["ds"], TrainingDatasets()).rl.append(row)
    return out


# --- summary ----------------------------------------------------------------------------------


def summary_table(ds: str, datasets: TrainingDatasets) -> pd.DataFrame:
    """One row per format: record and episode counts and the reward distribution kept."""
    rows = []
    for fmt, records in datasets.by_format().items():
        if fmt == "rl":
            rewards = [r["reward"] for r in records]
            episodes = {r["episode_id"] for r in records}
            gaps: list[float] = []
        else:
            metas = [r["metadata"] for r in records]
            rewards = [m.get("chosen_reward", m.get("reward")) for m in metas]
            episodes = {m["episode_id"] for m in metas} | {
                m["rejected_episode_id"] for m in metas if "rejected_episode_id" in m
            }
            gaps = [
                m["chosen_reward"] - m["rejected_reward"] for m in metas if "chosen_reward" in m
            ]
        versions = sorted(
            {
                r["reward_version"] if fmt == "rl" else r["metadata"]["reward_version"]
                for r in records
            }
        )
        arr = np.asarray(rewards, dtype=float)
        rows.append(
            {
                "ds": ds,
                "format": fmt,
                "file": FORMAT_FILES[fmt],
                "records": len(records),
                "episodes": len(episodes),
                "reward_mean": float(arr.mean()) if arr.size else None,
                "reward_min": float(arr.min()) if arr.size else None,
                "reward_p50": float(np.median(arr)) if arr.size else None,
                "reward_max": float(arr.max()) if arr.size else None,
                "reward_gap_mean": float(np.mean(gaps)) if gaps else None,
                "reward_version": ",".join(versions) or None,
            }
        )
    frame = pd.DataFrame(rows)
    for col in ("reward_mean", "reward_min", "reward_p50", "reward_max", "reward_gap_mean"):
        frame[col] = frame[col].astype(float)
    return frame


# --- leak scan --------------------------------------------------------------------------------


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                _strings(json.loads(text), out)
                return
            except (ValueError, RecursionError):  # not JSON, or nested too deep: scan the text
                pass
        out.append(value)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            out.append(str(k))
            _strings(v, out)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for v in value:
            _strings(v, out)


def scan_records(records: Sequence[Mapping[str, Any]], name: str) -> None:
    """Raise ``PIILeakError`` (masking package) if any string in ``records`` looks personal.

    Every string leaf is scanned, JSON text (tool arguments, RL prompts) after decoding. The
    error names the dataset, record index and entity type, never the value.
    """
    from agentic_pipeline.masking import PIILeakError, scan_for_leaks  # heavy import: lazy

    texts = []
    for rec in records:
        leaves: list[str] = []
        _strings(rec, leaves)
        texts.append("\n".join(leaves))
    if not texts:
        return
    leaks = scan_for_leaks(pd.DataFrame({name: texts}), columns=(name,))
    if leaks:
        raise PIILeakError(leaks)


# --- files ------------------------------------------------------------------------------------


def _jsonl_bytes(records: Iterable[Mapping[str, Any]], counts: dict[str, int]) -> bytes:
    """Strict JSON lines (non-finite numbers become null, counted in ``counts["nonfinite"]``)."""
    lines = []
    for r in records:
        text, replaced = strict_json_dumps_counted(r, ensure_ascii=False, separators=(",", ":"))
        counts["nonfinite"] = counts.get("nonfinite", 0) + replaced
        lines.append(text.encode("utf-8") + b"\n")
    return b"".join(lines)


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


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def day_files(datasets: TrainingDatasets) -> dict[str, bytes]:
    """The contents of one day's files, after the leak scan of every format.

    The JSONL files are strict JSON: a non-finite number is written as ``null`` and counted in
    ``datasets.nonfinite_to_null``.
    """
    for fmt, records in datasets.by_format().items():
        scan_records(records, fmt)
    counts: dict[str, int] = {}
    files = {
        SFT_FILE: _jsonl_bytes(datasets.sft, counts),
        DPO_TRL_FILE: _jsonl_bytes(datasets.dpo_trl, counts),
        DPO_OPENAI_FILE: _jsonl_bytes(datasets.dpo_openai, counts),
        RL_FILE: _parquet_bytes(rl_table(datasets.rl)),
    }
    datasets.nonfinite_to_null = counts.get("nonfinite", 0)
    return files


def write_day(
    data_root: str | os.PathLike | UPath,
    ds: str,
    datasets: TrainingDatasets,
    summary: pd.DataFrame | None = None,
) -> UPath:
    """Leak-scan one day's datasets, then replace its folder (see :func:`write_day_files`).

    ``summary`` is stored as ``part-0.parquet`` (the partitioned IO manager's layout, so
    downstream assets can load it). Fails with ``PIILeakError`` before writing anything.
    """
    files = day_files(datasets)
    if summary is not None:
        files[PART_FILE] = summary_bytes(summary)
    return write_day_files(data_root, ds, files)


#: The per-day summary as stored (``ds`` lives in the folder name): fixed, so a day without
#: records (all-null reward columns) has the same types as any other day.
SUMMARY_SCHEMA = pa.schema(
    [
        ("format", pa.string()),
        ("file", pa.string()),
        ("records", pa.int64()),
        ("episodes", pa.int64()),
        ("reward_mean", pa.float64()),
        ("reward_min", pa.float64()),
        ("reward_p50", pa.float64()),
        ("reward_max", pa.float64()),
        ("reward_gap_mean", pa.float64()),
        ("reward_version", pa.string()),
    ]
)


def summary_bytes(summary: pd.DataFrame) -> bytes:
    """The summary table as Parquet (:data:`SUMMARY_SCHEMA`, without ``ds``)."""
    return _parquet_bytes(conform(summary, SUMMARY_SCHEMA))


def write_day_files(
    data_root: str | os.PathLike | UPath, ds: str, files: Mapping[str, bytes]
) -> UPath:
    """Replace ``warehouse/training_datasets/ds=<ds>/`` atomically with ``files``."""
    return DataRoot(data_root).replace_partition_files("warehouse", ASSET_NAME, ds, files)


def export_range(
    data_root_path: str | os.PathLike | UPath,
    start: str,
    end: str,
    fmt: str,
    out_path: str | os.PathLike,
) -> int:
    """Concatenate the stored days ``start..end`` (inclusive) of one format into ``out_path``.

    ``fmt`` is ``sft``, ``dpo`` (TRL shape), ``dpo-openai`` or ``rl`` (Parquet; the others
    JSONL). Days without stored datasets are skipped. The output is leak-scanned again and
    written atomically; returns the number of records written.
    """
    if fmt not in FORMAT_FILES:
        raise ValueError(f"unknown format {fmt!r}: expected one of {sorted(FORMAT_FILES)}")
    root = DataRoot(data_root_path)
    name = FORMAT_FILES[fmt]
    paths = [
        root.partition_dir("warehouse", ASSET_NAME, ds) / name
        for ds in day_range(date.fromisoformat(start), date.fromisoformat(end))
    ]
    paths = [p for p in paths if p.exists()]
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "rl":
        tables = []
        for p in paths:
            with p.open("rb") as fh:
                tables.append(pq.read_table(fh))
        table = pa.concat_tables(tables) if tables else RL_SCHEMA.empty_table()
        scan_records(table.to_pylist(), fmt)
        payload, count = _parquet_bytes(table), table.num_rows
    else:
        lines = [line for p in paths for line in p.read_bytes().splitlines() if line.strip()]
        scan_records([json.loads(line) for line in lines], fmt)
        payload, count = b"".join(line + b"\n" for line in lines), len(lines)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count
