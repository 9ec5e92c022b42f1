"""The OpenAI chat-message shape, built in one place.

Training exports, the shadow's candidate prompts and the OpenAI policy adapter all write
conversations as OpenAI chat messages (``{"role", "content"}``; an assistant turn with
``tool_calls``; a ``tool`` message answering a call by its id). These builders are the only place
that shape is spelled out; :func:`to_chat_messages` turns canonical step rows into it.
"""

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

Message = dict[str, Any]


def text_message(role: str, content: str | None) -> Message:
    """A ``system``, ``user`` or ``assistant`` message with text (``None``: no text)."""
    return {"role": role, "content": content}


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One entry of an assistant message's ``tool_calls`` (``arguments`` is JSON text)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool_calls_message(*calls: dict[str, Any]) -> Message:
    """An assistant message that calls tools (no text)."""
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def tool_message(call_id: str, content: str, name: str | None = None) -> Message:
    """A ``tool`` message answering the call ``call_id`` (``name``: the tool, when logged)."""
    message: Message = {"role": "tool", "tool_call_id": call_id}
    if name is not None:
        message["name"] = name
    message["content"] = content
    return message


def tool_exchange(
    call_id: str, name: str, arguments: str, result: str, name_on_result: bool = False
) -> list[Message]:
    """The assistant's call of one tool and the tool's answer, as two messages."""
    return [
        tool_calls_message(tool_call(call_id, name, arguments)),
        tool_message(call_id, result, name if name_on_result else None),
    ]


def present(value: Any) -> Any:
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
        role, kind = present(row.get("role")), present(row.get("action_type"))
        content = present(row.get("content"))
        if role in ("system", "user"):
            messages.append(text_message(role, "" if content is None else str(content)))
        elif kind == "tool_call":
            args = present(row.get("tool_arguments"))
            call = tool_call(
                str(present(row.get("tool_call_id")) or f"call_{row.get('step')}"),
                str(present(row.get("tool_name"))),
                "{}" if args is None else str(args),
            )
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append(tool_calls_message(call))
        elif kind == "tool_result" or role == "tool":
            call_id = str(present(row.get("tool_call_id")))
            messages.append(tool_message(call_id, "" if content is None else str(content)))
        elif kind == "finish" and not content:
            continue
        else:  # respond, or finish with text
            messages.append(text_message("assistant", content or None))
    return [m for m in messages if m["role"] != "assistant" or m["content"] or m.get("tool_calls")]
