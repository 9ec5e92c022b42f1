"""Episode JSONL: one episode per line with OpenAI chat ``messages`` (README "Input formats").

Tool calls and results are matched by id. A tool call logged without an id gets an inferred one
(``inferred-<n>``), and a tool result without ``tool_call_id`` is paired, by order, with the
oldest unanswered call (of the same tool when the result names it); results for calls that
never happened are refused.
"""

from typing import Any

from agentic_pipeline.formats.common import (
    INFERRED_ID_PREFIX,
    ParseContext,
    RecordError,
    Row,
    content_text,
    episode_attributes,
    opt_str,
    require_id,
    tool_arguments,
)

NAME = "episode_jsonl"
CHAT_ROLES = {"system", "user", "assistant", "tool"}


def _all_call_ids(messages: list) -> set[str]:
    ids = set()
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if (
                isinstance(call, dict)
                and isinstance(call.get("id"), (str, int))
                and call["id"] != ""
            ):
                ids.add(str(call["id"]))
    return ids


def _pair(pending: list[tuple[str, str]], name: str | None, where: str) -> str:
    """The id of the oldest unanswered call (of tool ``name`` when given), removed from
    ``pending``."""
    for i, (_call_id, call_name) in enumerate(pending):
        if name is None or call_name == name:
            return pending.pop(i)[0]
    raise RecordError(f"{where}: tool result without an id and no unanswered call to pair with")


def chat_steps(messages: Any, episode_id: str) -> list[Row]:
    """Turn OpenAI chat messages into step rows (see ``schema``)."""
    if not isinstance(messages, list):
        raise RecordError("'messages' must be a list")
    if not messages:
        raise RecordError("'messages' is empty")
    rows: list[Row] = []
    all_call_ids = _all_call_ids(messages)  # results may come out of order: replay judges that
    pending: list[tuple[str, str]] = []  # (call id, tool name) not answered yet, in call order
    n_calls = 0
    for i, message in enumerate(messages):
        where = f"message {i}"
        if not isinstance(message, dict):
            raise RecordError(f"{where} is not an object")
        role = message.get("role")
        if role not in CHAT_ROLES:
            raise RecordError(f"{where}: unknown role")
        content = content_text(message.get("content"), where)
        base = {"episode_id": episode_id, "role": role, "ts": opt_str(message.get("ts"), "ts")}
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
                n_calls += 1
                raw_id = call.get("id")
                call_id = (
                    f"{INFERRED_ID_PREFIX}{n_calls}"
                    if raw_id is None or raw_id == ""
                    else require_id(raw_id, "tool call id")
                )
                name = require_id(call["function"].get("name"), "tool name")
                pending.append((call_id, name))
                rows.append(
                    {
                        **base,
                        "action_type": "tool_call",
                        "tool_name": name,
                        "tool_call_id": call_id,
                        "tool_arguments": tool_arguments(call["function"].get("arguments"), where),
                    }
                )
        else:  # tool
            name = opt_str(message.get("name"), "name")
            raw_id = message.get("tool_call_id")
            if raw_id is None or raw_id == "":
                call_id = _pair(pending, name, where)
            else:
                call_id = require_id(raw_id, "tool_call_id")
                if call_id not in all_call_ids:
                    raise RecordError(f"{where}: tool result for a call that never happened")
                answered = next((k for k, p in enumerate(pending) if p[0] == call_id), None)
                if answered is not None:
                    pending.pop(answered)
            rows.append(
                {
                    **base,
                    "action_type": "tool_result",
                    "tool_call_id": call_id,
                    "tool_name": name,
                    "content": content,
                }
            )
    return rows


def detect(record: dict) -> bool:
    return "messages" in record


def parse(record: dict, ctx: ParseContext | None = None) -> tuple[str, Row, list[Row]]:
    """Episode JSONL record -> (episode_id, episode attributes, step rows)."""
    episode_id = require_id(record.get("episode_id"), "episode_id")
    return episode_id, episode_attributes(record), chat_steps(record.get("messages"), episode_id)
