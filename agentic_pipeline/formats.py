"""Parsers for the three input formats of DESIGN.md §4, normalizing into canonical step rows.

Each parser takes one already-decoded source record (a dict) and returns the canonical rows of
``schema.STEP_SCHEMA`` (without ``ds`` and lineage, which the caller adds) or raises
``RecordError`` with a reason that never quotes the record's content (it may hold personal data).

- ``episode_jsonl``: one episode per line with OpenAI chat ``messages``;
- ``transition_jsonl``: one agent-loop step per line, grouped into episodes by ``episode_id``;
- ``benchmark_json``: a JSON array of ``{"task_id", "trial", "reward", "info", "traj"}``
  (tau-bench's historical trajectories), policy and domain taken from the file name.
"""

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentic_pipeline.schema import EPISODE_FIELDS

CHAT_ROLES = {"system", "user", "assistant", "tool"}
TRANSITION_ACTIONS = {"tool", "respond", "finish"}
KNOWN_BENCHMARK_DOMAINS = ("airline", "retail")

Row = dict[str, Any]


class RecordError(ValueError):
    """A source record that cannot be normalized; the message is safe to store and log."""


@dataclass(frozen=True)
class BenchmarkNaming:
    """Where a benchmark file's policy id and task type come from."""

    policy_id: str
    task_type: str

    @classmethod
    def from_file_name(cls, stem: str, policy_id: str | None = None) -> "BenchmarkNaming":
        """``gpt-4o-airline`` -> policy ``gpt-4o``, task type ``airline`` (``policy_id`` wins)."""
        domain = next((d for d in KNOWN_BENCHMARK_DOMAINS if stem.endswith(f"-{d}")), None)
        model = stem[: -len(domain) - 1] if domain else stem
        return cls(policy_id=policy_id or model, task_type=domain or "benchmark")


def detect_format(record: Any) -> str:
    """Name the format of one decoded record, or raise ``RecordError``."""
    if not isinstance(record, dict):
        raise RecordError(f"record is a JSON {type(record).__name__}, expected an object")
    if "traj" in record:
        return "benchmark_json"
    if "messages" in record:
        return "episode_jsonl"
    if "action" in record:
        return "transition_jsonl"
    raise RecordError("unrecognized record shape: no 'messages', 'action' or 'traj' key")


# --- small typed accessors -------------------------------------------------------------------


def _opt_str(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RecordError(f"'{field}' must be a string, got {type(value).__name__}")


def _opt_float(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordError(f"'{field}' must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise RecordError(f"'{field}' must be finite")
    return float(value)


INT64_MAX = 2**63 - 1


def _opt_int(value: Any, field: str) -> int | None:
    number = _opt_float(value, field)
    if number is not None and abs(number) > INT64_MAX:
        raise RecordError(f"'{field}' is out of range")
    return None if number is None else int(number)


def _opt_bool(value: Any, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise RecordError(f"'{field}' must be a boolean, got {type(value).__name__}")


def _opt_obj(value: Any, field: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"'{field}' must be an object, got {type(value).__name__}")
    return value


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _content_text(value: Any, where: str) -> str | None:
    """Chat content: a string, null, or a list of content parts (their text joined)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                raise RecordError(f"{where}: content part is not text")
        return "\n".join(texts)
    if isinstance(value, dict):  # structured tool results are kept as JSON text
        return _json_text(value)
    raise RecordError(f"{where}: content must be a string, got {type(value).__name__}")


def _require_id(value: Any, field: str) -> str:
    if value is None or value == "":
        raise RecordError(f"missing {field}")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RecordError(f"'{field}' must be a string, got {type(value).__name__}")
    return str(value)


# --- episode attributes ----------------------------------------------------------------------


def episode_attributes(record: dict) -> Row:
    """The episode-level columns of ``schema.EPISODE_FIELDS`` from an Episode-JSONL-like record."""
    task = _opt_obj(record.get("task"), "task")
    outcome = _opt_obj(record.get("outcome"), "outcome")
    usage = _opt_obj(record.get("usage"), "usage")
    context = _opt_obj(record.get("context"), "context")
    propensity = _opt_float(record.get("propensity"), "propensity")
    if propensity is not None and not 0.0 < propensity <= 1.0:
        raise RecordError("'propensity' must be in (0, 1]")
    attrs: Row = {
        "policy_id": _opt_str(record.get("policy_id"), "policy_id"),
        "propensity": propensity,
        "task_type": _opt_str(record.get("task_type"), "task_type"),
        "task_id": _opt_str(task.get("id", record.get("task_id")), "task.id"),
        "task_description": _opt_str(
            task.get("description", record.get("task_description")), "task.description"
        ),
        "task_goal": _json_text(task.get("goal")),
        "context": _json_text(context) if context else None,
        "started_at": _opt_str(record.get("started_at"), "started_at"),
        "outcome_success": _opt_bool(outcome.get("success"), "outcome.success"),
        "human_takeover": _opt_bool(outcome.get("human_takeover"), "outcome.human_takeover"),
        "complaint": _opt_bool(outcome.get("complaint"), "outcome.complaint"),
        "csat": _opt_float(outcome.get("csat"), "outcome.csat"),
        "prompt_tokens": _opt_int(usage.get("prompt_tokens"), "usage.prompt_tokens"),
        "completion_tokens": _opt_int(usage.get("completion_tokens"), "usage.completion_tokens"),
        "latency_ms": _opt_float(usage.get("latency_ms"), "usage.latency_ms"),
        "cost_usd": _opt_float(usage.get("cost_usd"), "usage.cost_usd"),
        "logged_reward": _opt_float(record.get("reward"), "reward"),
    }
    assert set(attrs) == {name for name, _ in EPISODE_FIELDS}
    return attrs


# --- chat messages (episode JSONL and benchmark trajectories) ---------------------------------


def _tool_arguments(function: dict, where: str) -> str:
    args = function.get("arguments")
    if args is None:
        return "{}"
    if isinstance(args, dict):  # tolerated: some loggers store the parsed object
        return _json_text(args) or "{}"
    if not isinstance(args, str):
        raise RecordError(f"{where}: arguments must be a JSON string, got {type(args).__name__}")
    return args


def _all_call_ids(messages: list) -> set[str]:
    ids = set()
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), (str, int)):
                ids.add(str(call["id"]))
    return ids


def chat_steps(messages: Any, episode_id: str) -> list[Row]:
    """Turn OpenAI chat messages into step rows (see ``schema``)."""
    if not isinstance(messages, list):
        raise RecordError("'messages' must be a list")
    if not messages:
        raise RecordError("'messages' is empty")
    rows: list[Row] = []
    all_call_ids = _all_call_ids(messages)  # results may come out of order: replay judges that
    for i, message in enumerate(messages):
        where = f"message {i}"
        if not isinstance(message, dict):
            raise RecordError(f"{where} is not an object")
        role = message.get("role")
        if role not in CHAT_ROLES:
            raise RecordError(f"{where}: unknown role")
        content = _content_text(message.get("content"), where)
        base = {"episode_id": episode_id, "role": role, "ts": _opt_str(message.get("ts"), "ts")}
        if role in ("system", "user"):
            rows.append({**base, "action_type": "message", "content": content})
        elif role == "assistant":
            tool_calls = message.get("tool_calls") or []
            if not isinstance(tool_calls, list):
                raise RecordError(f"{where}: 'tool_calls' must be a list")
            if content or not tool_calls:
                rows.append({**base, "action_type": "respond", "content": content})
            for call in tool_calls:
                if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
                    raise RecordError(f"{where}: tool call without a function object")
                call_id = _require_id(call.get("id"), "tool call id")
                name = _require_id(call["function"].get("name"), "tool name")
                rows.append(
                    {
                        **base,
                        "action_type": "tool_call",
                        "tool_name": name,
                        "tool_call_id": call_id,
                        "tool_arguments": _tool_arguments(call["function"], where),
                    }
                )
        else:  # tool
            call_id = _require_id(message.get("tool_call_id"), "tool_call_id")
            if call_id not in all_call_ids:
                raise RecordError(f"{where}: tool result for a call that never happened")
            rows.append(
                {
                    **base,
                    "action_type": "tool_result",
                    "tool_call_id": call_id,
                    "tool_name": _opt_str(message.get("name"), "name"),
                    "content": content,
                }
            )
    return rows


def parse_episode(record: dict) -> tuple[str, Row, list[Row]]:
    """Episode JSONL record -> (episode_id, episode attributes, step rows)."""
    episode_id = _require_id(record.get("episode_id"), "episode_id")
    return episode_id, episode_attributes(record), chat_steps(record.get("messages"), episode_id)


def parse_benchmark(
    record: dict, index: int, naming: BenchmarkNaming, file_stem: str
) -> tuple[str, Row, list[Row]]:
    """One element of a benchmark trajectory array (tau-bench shape)."""
    info = _opt_obj(record.get("info"), "info")
    task = _opt_obj(info.get("task"), "info.task")
    task_id = record.get("task_id")
    trial = record.get("trial")
    if task_id is None:
        raise RecordError("missing task_id")
    _opt_int(trial, "trial")
    episode_id = f"{file_stem}-task{task_id}-trial{trial if trial is not None else index}"
    goal = {k: task[k] for k in ("actions", "outputs") if k in task} or None
    attrs = episode_attributes(
        {
            "policy_id": naming.policy_id,
            "task_type": naming.task_type,
            "task": {"id": str(task_id), "description": task.get("instruction"), "goal": goal},
            "context": {"trial": trial} if trial is not None else None,
            "reward": record.get("reward"),
        }
    )
    return episode_id, attrs, chat_steps(record.get("traj"), episode_id)


# --- transitions -----------------------------------------------------------------------------


@dataclass
class Transition:
    """One validated Transition-JSONL record, kept until its episode is assembled."""

    episode_id: str
    step: int
    record: dict
    lineage: Row


def parse_transition(record: dict, lineage: Row) -> Transition:
    """Validate one Transition-JSONL record (its episode is assembled later)."""
    episode_id = _require_id(record.get("episode_id"), "episode_id")
    step = record.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise RecordError("'step' must be a non-negative integer")
    action = record.get("action")
    if not isinstance(action, dict):
        raise RecordError("'action' must be an object")
    if action.get("type") not in TRANSITION_ACTIONS:
        raise RecordError("'action.type' must be one of tool, respond, finish")
    if action["type"] == "tool":
        _require_id(action.get("tool_name"), "action.tool_name")
        if not isinstance(action.get("params", {}), dict):
            raise RecordError("'action.params' must be an object")
    _opt_str(action.get("reply"), "action.reply")
    _opt_float(record.get("reward"), "reward")
    _opt_bool(record.get("done"), "done")
    _opt_str(record.get("ts"), "ts")
    _opt_transition_attrs(record)  # type errors surface now, not when the episode closes
    return Transition(episode_id, step, record, lineage)


def _opt_transition_attrs(record: dict) -> Row:
    return episode_attributes(
        {
            "policy_id": record.get("policy_id"),
            "propensity": record.get("propensity"),
            "task_type": record.get("task_type"),
            "task": {
                "id": record.get("task_id"),
                "description": record.get("task_description"),
                "goal": record.get("task_goal"),
            },
            "context": record.get("context"),
            "started_at": record.get("started_at"),
            "outcome": record.get("outcome"),
            "usage": record.get("usage"),
            "reward": record.get("episode_reward"),
        }
    )


def assemble_transitions(transitions: Iterable[Transition]) -> tuple[Row, list[Row]]:
    """One episode's transitions (any order, distinct steps) -> (attributes, step rows).

    A ``tool`` action gives a ``tool_call`` row and a ``tool_result`` row holding ``obs``; a
    ``respond`` gives a ``respond`` row and, when ``obs`` carries ``user_message``, the user's
    answer; ``finish`` gives a ``finish`` row. The first non-null value of each episode attribute
    wins; the logged episode reward is the sum of step rewards unless ``episode_reward`` is set.
    """
    ordered = sorted(transitions, key=lambda t: t.step)
    attrs: Row = {}
    rows: list[Row] = []
    step_reward_sum = 0.0
    for t in ordered:
        for key, value in _opt_transition_attrs(t.record).items():
            if attrs.get(key) is None:
                attrs[key] = value
        rec, action = t.record, t.record["action"]
        base = {"episode_id": t.episode_id, "ts": _opt_str(rec.get("ts"), "ts"), **t.lineage}
        reward = _opt_float(rec.get("reward"), "reward")
        step_reward_sum += reward or 0.0
        obs = rec.get("obs")
        if action["type"] == "tool":
            call_id = f"{t.episode_id}-step{t.step}"
            rows.append(
                {
                    **base,
                    "role": "assistant",
                    "action_type": "tool_call",
                    "tool_name": str(action["tool_name"]),
                    "tool_call_id": call_id,
                    "tool_arguments": _json_text(action.get("params") or {}),
                    "step_reward": reward,
                }
            )
            if obs is not None:
                rows.append(
                    {
                        **base,
                        "role": "tool",
                        "action_type": "tool_result",
                        "tool_name": str(action["tool_name"]),
                        "tool_call_id": call_id,
                        "content": obs if isinstance(obs, str) else _json_text(obs),
                    }
                )
        else:
            rows.append(
                {
                    **base,
                    "role": "assistant",
                    "action_type": action["type"],
                    "content": action.get("reply"),
                    "step_reward": reward,
                }
            )
            if isinstance(obs, dict) and isinstance(obs.get("user_message"), str):
                rows.append(
                    {
                        **base,
                        "role": "user",
                        "action_type": "message",
                        "content": obs["user_message"],
                    }
                )
    if attrs.get("logged_reward") is None and any(
        t.record.get("reward") is not None for t in ordered
    ):
        attrs["logged_reward"] = step_reward_sum
    return attrs, rows
