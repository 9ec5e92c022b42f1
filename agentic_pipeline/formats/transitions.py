"""Transition JSONL: one agent-loop step per line, grouped into episodes by ``episode_id``."""

from collections.abc import Iterable
from dataclasses import dataclass

from agentic_pipeline.formats.common import (
    RecordError,
    Row,
    episode_attributes,
    json_text,
    opt_bool,
    opt_float,
    opt_str,
    require_id,
)

NAME = "transition_jsonl"
TRANSITION_ACTIONS = {"tool", "respond", "finish"}


def detect(record: dict) -> bool:
    return "action" in record


@dataclass
class Transition:
    """One validated Transition-JSONL record, kept until its episode is assembled."""

    episode_id: str
    step: int
    record: dict
    lineage: Row


def parse_transition(record: dict, lineage: Row) -> Transition:
    """Validate one Transition-JSONL record (its episode is assembled later)."""
    episode_id = require_id(record.get("episode_id"), "episode_id")
    step = record.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise RecordError("'step' must be a non-negative integer")
    action = record.get("action")
    if not isinstance(action, dict):
        raise RecordError("'action' must be an object")
    if action.get("type") not in TRANSITION_ACTIONS:
        raise RecordError("'action.type' must be one of tool, respond, finish")
    if action["type"] == "tool":
        require_id(action.get("tool_name"), "action.tool_name")
        if not isinstance(action.get("params", {}), dict):
            raise RecordError("'action.params' must be an object")
    opt_str(action.get("reply"), "action.reply")
    opt_float(record.get("reward"), "reward")
    opt_bool(record.get("done"), "done")
    opt_str(record.get("ts"), "ts")
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
        base = {"episode_id": t.episode_id, "ts": opt_str(rec.get("ts"), "ts"), **t.lineage}
        reward = opt_float(rec.get("reward"), "reward")
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
                    "tool_arguments": json_text(action.get("params") or {}),
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
                        "content": obs if isinstance(obs, str) else json_text(obs),
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
