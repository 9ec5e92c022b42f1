"""Tool schemas for a candidate model: from the tool catalogue, else inferred from logged calls.

A candidate behind a chat-completions endpoint needs the ``tools`` of the domain. The catalogue
gives each tool's effect and, where the deployment wrote one, its JSON-schema ``parameters``;
tools it lists without parameters (the built-in tau-bench tool sets) and tools it does not list
get a schema inferred from the logged calls of the same tool set: every argument name seen, the
JSON type of its values, and ``required`` for the arguments present in every call.
Values are only inspected for their type, so masked arguments (pseudonyms) give the same schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentic_pipeline.catalogue import ToolSet
from agentic_pipeline.catalogue.model import ToolSpec
from agentic_pipeline.environments.cassette import parse_arguments

__all__ = ["SchemaInference", "json_type", "merge_types", "tool_specs_for"]

_MAX_TOOLS = 128  # a log naming more distinct tools than this per tool set is not a tool list


def json_type(value: Any) -> str:
    """The JSON-schema type of a decoded JSON value."""
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


def merge_types(types: set[str]) -> str | list[str]:
    """One JSON-schema ``type`` for the types seen (integers and numbers together: number)."""
    if {"integer", "number"} <= types:
        types = types - {"integer"}
    ordered = sorted(types)
    return ordered[0] if len(ordered) == 1 else ordered


@dataclass
class _Seen:
    calls: int = 0
    #: argument name -> (number of calls holding it, JSON types of its values, item types)
    args: dict[str, tuple[int, set[str], set[str]]] = field(default_factory=dict)

    def add(self, params: Mapping[str, Any]) -> None:
        self.calls += 1
        for name, value in params.items():
            count, types, items = self.args.get(str(name), (0, set(), set()))
            types.add(json_type(value))
            if isinstance(value, list):
                items.update(json_type(v) for v in value[:20])
            self.args[str(name)] = (count + 1, types, items)

    def schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for name in sorted(self.args):
            _, types, items = self.args[name]
            prop: dict[str, Any] = {"type": merge_types(types - {"null"} or {"string"})}
            if "array" in types and items - {"null"}:
                prop["items"] = {"type": merge_types(items - {"null"})}
            props[name] = prop
        required = sorted(n for n, (count, _, _) in self.args.items() if count == self.calls)
        return {"type": "object", "properties": props, "required": required}


@dataclass
class SchemaInference:
    """Collects logged calls per tool set and tool; :meth:`schemas` gives their schemas."""

    seen: dict[str, dict[str, _Seen]] = field(default_factory=dict)

    def add(self, tool_set: str, tool_name: str | None, arguments: str | None) -> None:
        """One logged call (arguments as logged JSON text; non-objects are skipped)."""
        if not tool_name:
            return
        tools = self.seen.setdefault(tool_set, {})
        if tool_name not in tools and len(tools) >= _MAX_TOOLS:
            return
        params = parse_arguments(arguments)
        entry = tools.setdefault(tool_name, _Seen())
        if params is not None:
            entry.add(params)

    def add_rows(self, tool_set: str, rows: Iterable[Mapping[str, Any]]) -> None:
        """Every ``tool_call`` row of canonical step rows."""
        for row in rows:
            if row.get("action_type") == "tool_call":
                self.add(tool_set, row.get("tool_name"), row.get("tool_arguments"))

    def schemas(self, tool_set: str) -> dict[str, dict[str, Any]]:
        """Inferred ``parameters`` per tool name of ``tool_set``."""
        return {n: s.schema() for n, s in sorted(self.seen.get(tool_set, {}).items())}


def _has_properties(parameters: Mapping[str, Any] | None) -> bool:
    return bool(parameters) and bool(parameters.get("properties"))


def tool_specs_for(
    tool_set: ToolSet,
    inferred: Mapping[str, Mapping[str, Any]] | None = None,
    builtin: Mapping[str, ToolSpec] | None = None,
) -> dict[str, ToolSpec]:
    """The tools a candidate is offered for one tool set, by name.

    Per tool: the catalogue's parameters when it gives properties, else ``builtin`` (an
    environment's own specs, e.g. the CRM sandbox's), else the schema inferred from the logs.
    Tools seen only in the logs are offered too, their effect inferred by the catalogue.
    """
    inferred = inferred or {}
    builtin = builtin or {}
    out: dict[str, ToolSpec] = {}
    for name in sorted(set(tool_set.entries) | set(inferred)):
        entry = tool_set.entry(name)
        if _has_properties(entry.parameters):
            params = dict(entry.parameters or {})
        elif name in builtin and _has_properties(builtin[name].parameters):
            params = dict(builtin[name].parameters)
        else:
            params = dict(inferred.get(name) or {"type": "object", "properties": {}})
        description = entry.description or (builtin[name].description if name in builtin else "")
        out[name] = ToolSpec(name, entry.kind, description, params)
    return out
