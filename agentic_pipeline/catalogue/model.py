"""The tool catalogue: per tool set, each tool's effect class, financial fields and error patterns.

A catalogue file (YAML) describes one or more *tool sets* (one per agent deployment or domain)::

    version: v1                      # optional label
    tool_sets:
      retail:
        task_types: [retail]          # task types whose episodes use this tool set
        errors: {prefixes: ["Error"], json_keys: ["error"]}
        financial_fields: [amount]    # default for the writes below
        tools:
          get_order_details: read
          cancel_pending_order: destructive
          return_delivered_order_items: {effect: financial, description: "..."}
          modify_user_address: {effect: write, financial_fields: [payment_method_id]}
          transfer_to_human_agents: handover
          search_orders: {effect: read, parameters: {type: object, properties: {...}}}

Effect classes: ``read`` (changes nothing), ``write``, ``financial`` (a write that moves money),
``destructive`` (a write that deletes or cancels) and ``handover`` (to a human). A ``write`` with
``financial_fields`` is a financial write when its arguments (or the object under one of its
arguments, like ``update_crm``'s ``fields``) touch one of them.

A tool the tool set does not list gets an effect inferred from its name and argument names
(:mod:`agentic_pipeline.catalogue.inference`), marked ``inferred``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from agentic_pipeline.catalogue.errors import DEFAULT_ERRORS, ErrorPatterns
from agentic_pipeline.catalogue.inference import FINANCIAL_ARGUMENTS, infer_effect

EFFECTS: tuple[str, ...] = ("read", "write", "financial", "destructive", "handover")
WRITE_EFFECTS = frozenset({"write", "financial", "destructive"})
UNKNOWN = "unknown"
_TOOL_KEYS = {"effect", "financial_fields", "parameters", "description"}
_SET_KEYS = {"task_types", "tools", "errors", "financial_fields", "description"}

ToolKind = Literal["read", "write"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the agent may call: ``kind`` says whether it changes the environment's state."""

    name: str
    kind: ToolKind
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        """The tool in the OpenAI ``tools`` format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolEntry:
    """One tool of a tool set (``inferred``: not in the catalogue, guessed from its name)."""

    name: str
    effect: str
    financial_fields: frozenset[str] = frozenset()
    parameters: Mapping[str, Any] | None = None
    description: str = ""
    inferred: bool = False

    @property
    def kind(self) -> ToolKind:
        """``"write"`` for anything that changes state, else ``"read"`` (hand-overs read)."""
        return "write" if self.effect in WRITE_EFFECTS else "read"

    def is_financial(self, params: Mapping[str, Any] | None) -> bool:
        """A financial tool, or a write whose arguments touch a financial field."""
        if self.effect == "financial":
            return True
        if self.effect != "write" or not self.financial_fields or not isinstance(params, Mapping):
            return False
        touched = set(params)
        for value in params.values():
            if isinstance(value, Mapping):
                touched |= set(value)
        return not self.financial_fields.isdisjoint(touched)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"effect": self.effect}
        if self.financial_fields:
            out["financial_fields"] = sorted(self.financial_fields)
        if self.parameters is not None:
            out["parameters"] = self.parameters
        if self.description:
            out["description"] = self.description
        return out


def _tool_entry(name: str, data: Any, default_fields: frozenset[str], where: str) -> ToolEntry:
    if isinstance(data, str):
        data = {"effect": data}
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a tool is an effect name or a mapping")
    unknown = set(data) - _TOOL_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    effect = data.get("effect")
    if effect not in EFFECTS:
        raise ValueError(f"{where}: effect must be one of {', '.join(EFFECTS)}")
    fields = data.get("financial_fields")
    if fields is not None and (
        not isinstance(fields, list) or not all(isinstance(f, str) for f in fields)
    ):
        raise ValueError(f"{where}: financial_fields must be a list of strings")
    params = data.get("parameters")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"{where}: parameters must be a JSON schema object")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise ValueError(f"{where}: description must be a string")
    return ToolEntry(
        name,
        effect,
        frozenset(fields) if fields is not None else default_fields,
        params,
        description,
    )


@dataclass(frozen=True)
class ToolSet:
    """The tools of one deployment or domain, with the risk rules they imply.

    Offers the interface the replay, shadow and reward code use (``kind``,
    ``is_financial_write``, ``is_destructive``, ``handover_tools``, ``is_error``, ...); a tool it
    does not list is answered with an inferred :class:`ToolEntry`.
    """

    tool_set: str
    entries: Mapping[str, ToolEntry] = field(default_factory=dict)
    task_types: frozenset[str] = frozenset()
    errors: ErrorPatterns = DEFAULT_ERRORS
    description: str = ""

    @classmethod
    def from_dict(cls, name: str, data: Any) -> ToolSet:
        where = f"tool set {name!r}"
        if not isinstance(data, dict):
            raise ValueError(f"{where}: must be a mapping")
        unknown = set(data) - _SET_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        task_types = data.get("task_types") or []
        if not isinstance(task_types, list) or not all(isinstance(t, str) for t in task_types):
            raise ValueError(f"{where}: task_types must be a list of strings")
        fields = data.get("financial_fields") or []
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ValueError(f"{where}: financial_fields must be a list of strings")
        tools = data.get("tools") or {}
        if not isinstance(tools, dict):
            raise ValueError(f"{where}: tools must be a mapping of tool name to effect")
        entries = {
            str(tool): _tool_entry(str(tool), spec, frozenset(fields), f"{where}, tool {tool!r}")
            for tool, spec in tools.items()
        }
        return cls(
            name,
            entries,
            frozenset(task_types),
            ErrorPatterns.from_dict(data.get("errors"), where),
            str(data.get("description") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_types": sorted(self.task_types),
            "errors": self.errors.to_dict(),
            "tools": {n: self.entries[n].to_dict() for n in sorted(self.entries)},
        }

    # -- the tools ---------------------------------------------------------------------------

    def _names(self, *effects: str) -> frozenset[str]:
        return frozenset(n for n, e in self.entries.items() if e.effect in effects)

    @cached_property
    def tools(self) -> frozenset[str]:
        """Every tool name the catalogue lists for this tool set."""
        return frozenset(self.entries)

    @cached_property
    def read_tools(self) -> frozenset[str]:
        return self._names("read", "handover")

    @cached_property
    def write_tools(self) -> frozenset[str]:
        return self._names(*WRITE_EFFECTS)

    @cached_property
    def financial_tools(self) -> frozenset[str]:
        return self._names("financial")

    @cached_property
    def destructive_tools(self) -> frozenset[str]:
        return self._names("destructive")

    @cached_property
    def handover_tools(self) -> frozenset[str]:
        return self._names("handover")

    def is_known(self, tool_name: str | None) -> bool:
        """Whether the catalogue lists the tool for this tool set."""
        return bool(tool_name) and tool_name in self.entries

    def entry(self, tool_name: str | None, params: Mapping[str, Any] | None = None) -> ToolEntry:
        """The catalogue's entry, or one inferred from the name and the call's arguments."""
        name = tool_name or ""
        found = self.entries.get(name)
        if found is not None:
            return found
        effect = infer_effect(name, params.keys() if isinstance(params, Mapping) else ())
        fields = FINANCIAL_ARGUMENTS if effect == "write" else frozenset()
        return ToolEntry(name, effect, fields, inferred=True)

    def kind(self, tool_name: str | None) -> ToolKind | None:
        """``"write"`` or ``"read"`` for a listed tool, ``None`` for an unlisted one."""
        found = self.entries.get(tool_name or "")
        return found.kind if found is not None else None

    def is_financial_write(self, tool_name: str | None, params: Mapping[str, Any] | None) -> bool:
        """Whether the call moves money or touches a financial field (inferred when unlisted)."""
        return bool(tool_name) and self.entry(tool_name, params).is_financial(params)

    def is_destructive(
        self, tool_name: str | None, params: Mapping[str, Any] | None = None
    ) -> bool:
        """Whether the call deletes or cancels something (inferred when unlisted)."""
        return bool(tool_name) and self.entry(tool_name, params).effect == "destructive"

    def is_write(self, tool_name: str | None, params: Mapping[str, Any] | None = None) -> bool:
        """Whether the call changes state (inferred when unlisted)."""
        return bool(tool_name) and self.entry(tool_name, params).kind == "write"

    def is_handover(self, tool_name: str | None) -> bool:
        return bool(tool_name) and self.entry(tool_name).effect == "handover"

    def is_dangerous(self, tool_name: str | None, params: Mapping[str, Any] | None) -> bool:
        """A financial write or a destructive act (what a risk budget counts)."""
        return self.is_financial_write(tool_name, params) or self.is_destructive(tool_name, params)

    def is_error(self, text: str | None) -> bool:
        """Whether a logged tool result is an error (default patterns and this tool set's)."""
        return self.errors.is_error(text)

    def tool_specs(self) -> dict[str, ToolSpec]:
        """:class:`ToolSpec` values of the listed tools (kind from the effect; a tool without
        ``parameters`` in the catalogue takes any object)."""
        return {
            name: ToolSpec(name, e.kind, e.description, dict(e.parameters or {"type": "object"}))
            for name, e in sorted(self.entries.items())
        }


#: The tool set of an episode no catalogue entry matches: every tool is inferred.
UNKNOWN_TOOL_SET = ToolSet(UNKNOWN)


@dataclass(frozen=True)
class Catalogue:
    """Every tool set of a deployment; ``content_hash`` names this exact content."""

    tool_sets: Mapping[str, ToolSet]
    label: str = "v1"
    sources: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> Catalogue:
        if not isinstance(data, dict) or set(data) - {"version", "tool_sets"}:
            raise ValueError(f"tool catalogue {source}: top-level keys are 'version', 'tool_sets'")
        sets = data.get("tool_sets") or {}
        if not isinstance(sets, dict):
            raise ValueError(f"tool catalogue {source}: tool_sets must be a mapping")
        return cls(
            {str(n): ToolSet.from_dict(str(n), s) for n, s in sets.items()},
            str(data.get("version") or "v1"),
            (source,),
        )

    def merged(self, other: Catalogue) -> Catalogue:
        """``other``'s tool sets replace this one's of the same name."""
        return Catalogue(
            {**self.tool_sets, **other.tool_sets}, other.label, self.sources + other.sources
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.label,
            "tool_sets": {n: self.tool_sets[n].to_dict() for n in sorted(self.tool_sets)},
        }

    @cached_property
    def content_hash(self) -> str:
        """Short hash of the content (stable across key order, comments and file layout)."""
        payload = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()[:8]

    @property
    def version(self) -> str:
        """Label plus content hash, e.g. ``v1-3f9a1c2b``."""
        return f"{self.label}-{self.content_hash}"

    def get(self, name: str) -> ToolSet:
        return self.tool_sets.get(name, UNKNOWN_TOOL_SET)

    def detect(self, task_type: str | None, tool_names: Iterable[str | None]) -> ToolSet:
        """The tool set of an episode, or :data:`UNKNOWN_TOOL_SET`.

        The tool set naming the task type wins when the episode calls at least one of its tools
        (or no tool at all); otherwise the tool set that lists most of the called tools (ties:
        the one whose share of listed tools is highest, then by name).
        """
        names = {n for n in tool_names if n}
        for key in sorted(self.tool_sets):
            ts = self.tool_sets[key]
            if task_type and task_type in ts.task_types and (not names or names & ts.tools):
                return ts
        best, best_score = UNKNOWN_TOOL_SET, (0, 0.0)
        for key in sorted(self.tool_sets):
            ts = self.tool_sets[key]
            overlap = len(names & ts.tools)
            score = (overlap, overlap / max(len(ts.tools), 1))
            if overlap and score > best_score:
                best, best_score = ts, score
        return best
