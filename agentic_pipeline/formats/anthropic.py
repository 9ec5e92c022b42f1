"""Anthropic Messages: the system prompt apart, content blocks, ``tool_use``/``tool_result``.

One episode per record::

    {"episode_id": "...", "system": "You are ..." | [{"type": "text", "text": "..."}],
     "messages": [
       {"role": "user", "content": "Cancel order 12"},
       {"role": "assistant", "content": [
          {"type": "text", "text": "Let me check."},
          {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"id": "12"}}]},
       {"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": "toolu_1", "content": "...", "is_error": false}]}],
     "usage": {"input_tokens": 0, "output_tokens": 0}, ...}

The other keys are those of Episode JSONL (``policy_id``, ``task``, ``outcome``, ``reward``...);
``usage.input_tokens``/``output_tokens`` count as prompt/completion tokens. A ``tool_result``
with ``is_error: true`` is an error result. ``thinking`` blocks are not steps.
"""

from typing import Any

from agentic_pipeline.formats.common import (
    ParseContext,
    RecordError,
    Row,
    content_text,
    episode_attributes,
    flag_error,
    json_text,
    opt_bool,
    opt_obj,
    opt_str,
    require_id,
)

NAME = "anthropic_messages"
_BLOCK_TYPES = {"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"}
_SKIPPED = {"thinking", "redacted_thinking", "image", "document"}


def detect(record: dict) -> bool:
    """Top-level ``system`` or Anthropic content blocks (``tool_use``, ``tool_result``...)."""
    messages = record.get("messages")
    if not isinstance(messages, list):
        return False
    if "system" in record:
        return True
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in _BLOCK_TYPES for b in content
        ):
            return True
    return False


def _blocks(content: Any, where: str) -> list[dict]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise RecordError(f"{where}: content must be a string or a list of blocks")
    out = []
    for block in content:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise RecordError(f"{where}: content block without a type")
        out.append(block)
    return out


def _text(blocks: list[dict], where: str) -> str | None:
    texts = []
    for block in blocks:
        if block["type"] == "text":
            if not isinstance(block.get("text"), str):
                raise RecordError(f"{where}: text block without text")
            texts.append(block["text"])
    return "\n".join(texts) if texts else None


def _result_content(value: Any, where: str) -> str | None:
    if isinstance(value, list):  # blocks: keep their text
        return content_text(
            [b for b in value if not (isinstance(b, dict) and b.get("type") == "image")], where
        )
    return content_text(value, where)


def steps(record: dict, episode_id: str) -> list[Row]:
    """Step rows of one Anthropic Messages conversation."""
    messages = record.get("messages")
    if not isinstance(messages, list):
        raise RecordError("'messages' must be a list")
    if not messages:
        raise RecordError("'messages' is empty")
    rows: list[Row] = []
    system = record.get("system")
    if system is not None:
        text = _text(_blocks(system, "system"), "system")
        rows.append(
            {"episode_id": episode_id, "role": "system", "action_type": "message", "content": text}
        )
    call_ids: set[str] = set()
    for i, message in enumerate(messages):
        where = f"message {i}"
        if not isinstance(message, dict):
            raise RecordError(f"{where} is not an object")
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise RecordError(f"{where}: role must be user or assistant")
        blocks = _blocks(message.get("content"), where)
        base = {"episode_id": episode_id, "ts": opt_str(message.get("ts"), "ts")}
        unknown = {b["type"] for b in blocks} - {"text", "tool_use", "tool_result"} - _SKIPPED
        if unknown:
            raise RecordError(f"{where}: unknown content block type")
        if role == "assistant":
            text = _text(blocks, where)
            uses = [b for b in blocks if b["type"] == "tool_use"]
            if text or not uses:
                rows.append(
                    {**base, "role": "assistant", "action_type": "respond", "content": text}
                )
            for block in uses:
                call_id = require_id(block.get("id"), "tool_use id")
                call_ids.add(call_id)
                tool_input = block.get("input")
                if tool_input is not None and not isinstance(tool_input, dict):
                    raise RecordError(f"{where}: tool_use input must be an object")
                rows.append(
                    {
                        **base,
                        "role": "assistant",
                        "action_type": "tool_call",
                        "tool_name": require_id(block.get("name"), "tool name"),
                        "tool_call_id": call_id,
                        "tool_arguments": json_text(tool_input or {}),
                    }
                )
            if any(b["type"] == "tool_result" for b in blocks):
                raise RecordError(f"{where}: tool_result in an assistant message")
            continue
        for block in blocks:  # user: the tool results answer earlier calls, then the text
            if block["type"] == "tool_use":
                raise RecordError(f"{where}: tool_use in a user message")
            if block["type"] != "tool_result":
                continue
            call_id = require_id(block.get("tool_use_id"), "tool_use_id")
            if call_id not in call_ids:
                raise RecordError(f"{where}: tool result for a call that never happened")
            is_error = bool(opt_bool(block.get("is_error"), "is_error"))
            rows.append(
                {
                    **base,
                    "role": "tool",
                    "action_type": "tool_result",
                    "tool_call_id": call_id,
                    "content": flag_error(_result_content(block.get("content"), where), is_error),
                }
            )
        text = _text(blocks, where)
        if text is not None or not blocks:
            rows.append({**base, "role": "user", "action_type": "message", "content": text})
    return rows


def parse(record: dict, ctx: ParseContext | None = None) -> tuple[str, Row, list[Row]]:
    """Anthropic Messages record -> (episode_id, episode attributes, step rows)."""
    episode_id = require_id(record.get("episode_id"), "episode_id")
    usage = opt_obj(record.get("usage"), "usage")
    usage = {
        **usage,
        "prompt_tokens": usage.get("prompt_tokens", usage.get("input_tokens")),
        "completion_tokens": usage.get("completion_tokens", usage.get("output_tokens")),
    }
    attrs = episode_attributes({**record, "usage": usage})
    return episode_id, attrs, steps(record, episode_id)
