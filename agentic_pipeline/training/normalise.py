"""Messages without per-run noise, to tell whether two trajectories really differ.

Two runs of the same task differ in things no policy chose: the tool-call ids a client library
draws at random (``call_13dc…``), the ids a transition log derives from its episode
(``<episode uuid>-step0``), the time a tool answered, request ids, and how the arguments' JSON
was spaced. :func:`comparable_messages` rewrites one trajectory so that only what the policy and
the environment said remains:

- tool-call ids become their position in the trajectory (``call_0``, ``call_1``, …), in the
  assistant's calls and in the tool messages that answer them;
- JSON text (arguments, tool results) is parsed and written back canonically (sorted keys, no
  spaces), so ``{"a": 1}`` and ``{"a":1}`` are equal;
- inside every string, date-times (a date *with* a time: ``2026-11-01T10:00:00Z``), UUIDs and
  runs of 16 or more hex digits become a placeholder. Plain dates (a booking's ``2024-05-20``),
  numbers and the masking's pseudonyms (``<EMAIL_ADDRESS_3f9a…>``, the hex after ``_``) are kept:
  they are what the conversation is about.

The result is for comparing only; the exports keep the logged messages.
"""

import json
import re
from collections.abc import Sequence
from typing import Any

from agentic_pipeline.training.records import Message

DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])"
)
UUID = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
#: a long hex run standing alone (not the hex of a pseudonym, which follows ``_``)
HEX_ID = re.compile(r"(?<![0-9A-Za-z_])[0-9a-fA-F]{16,}(?![0-9A-Za-z])")
TIMESTAMP = "<datetime>"
RUN_ID = "<id>"


def _text(value: str) -> str:
    value = DATETIME.sub(TIMESTAMP, value)
    value = UUID.sub(RUN_ID, value)
    return HEX_ID.sub(RUN_ID, value)


def _leaves(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {_text(str(k)): _leaves(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_leaves(v) for v in value]
    return value


def _json_or_text(value: Any) -> str:
    """Canonical JSON of a JSON text (noise replaced in its strings), else the text's noise."""
    if not isinstance(value, str):
        return json.dumps(_leaves(value), sort_keys=True, separators=(",", ":"))
    stripped = value.strip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            return _text(value)
        return json.dumps(_leaves(parsed), sort_keys=True, separators=(",", ":"))
    return _text(value)


def comparable_messages(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with call ids by position, canonical JSON and no run-specific values."""
    ids: dict[str, str] = {}

    def call_id(original: Any) -> str:
        key = str(original)
        if key not in ids:
            ids[key] = f"call_{len(ids)}"
        return ids[key]

    out: list[Message] = []
    for message in messages:
        m: Message = {"role": message.get("role")}
        content = message.get("content")
        if content is not None:
            m["content"] = _json_or_text(content) if message.get("role") == "tool" else content
            if message.get("role") != "tool" and isinstance(content, str):
                m["content"] = _text(content)
        if message.get("tool_calls"):
            m["tool_calls"] = [
                {
                    "id": call_id(call.get("id")),
                    "name": (call.get("function") or {}).get("name"),
                    "arguments": _json_or_text((call.get("function") or {}).get("arguments")),
                }
                for call in message["tool_calls"]
            ]
        if message.get("role") == "tool":
            m["tool_call_id"] = call_id(message.get("tool_call_id"))
        out.append(m)
    return out


def first_difference(a: Sequence[Message], b: Sequence[Message]) -> int | None:
    """Index of the first message where two comparable trajectories differ; ``None`` when they
    are equal. When one is a prefix of the other, the index is the shorter one's length."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else n
