"""The prompt split and the conversation check of chat messages (``to_chat_messages``, canonical
step rows as OpenAI chat messages, lives in :mod:`agentic_pipeline.chat`)."""

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from agentic_pipeline.chat import to_chat_messages as to_chat_messages  # re-exported
from agentic_pipeline.training.records import Message, _fail


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
