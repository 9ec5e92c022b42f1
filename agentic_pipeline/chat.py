"""The OpenAI chat-message shape, built in one place.

Training exports, shadow episodes and the OpenAI policy adapter all write conversations as OpenAI
chat messages (``{"role", "content"}``; an assistant turn with ``tool_calls``; a ``tool`` message
answering a call by its id). These builders are the only place that shape is spelled out.
"""

from typing import Any

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
