"""Tool definitions: JSON-schema functions inferred from logged calls, and their check."""

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agentic_pipeline.environments.tool_schemas import json_type as _json_type
from agentic_pipeline.environments.tool_schemas import merge_types as _merge_types
from agentic_pipeline.training.records import Message, _fail


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


def _validate_tools(tools: Any, where: str) -> None:
    if not isinstance(tools, list):
        _fail(where, "tools must be a list")
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            _fail(f"{where}[{i}]", "tool must be {type: function, function: {name, ...}}")
        if not isinstance(fn.get("parameters"), dict) or fn["parameters"].get("type") != "object":
            _fail(f"{where}[{i}]", "tool parameters must be a JSON schema of type object")
