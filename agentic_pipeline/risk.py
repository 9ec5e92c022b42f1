"""Risk rules per tool set (DESIGN.md section 5): which calls are writes, financial or destructive.

A :class:`RiskRules` value describes one tool set. The CRM default reuses the constants and tool
kinds of :mod:`agentic_pipeline.environments.crm`; the tau-bench airline rules treat
``send_certificate`` (it moves money) as a financial write and ``cancel_reservation`` as
destructive. :func:`detect_tool_set` names the tool set of an episode from its task type and the
tools it calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agentic_pipeline.environments.base import ToolKind, ToolSpec
from agentic_pipeline.environments.crm import (
    CRM_TOOLS,
    DESTRUCTIVE_PREFIXES,
    FINANCIAL_FIELDS,
    TASK_TYPES,
)

UNKNOWN = "unknown"


@dataclass(frozen=True)
class RiskRules:
    """The tools of one tool set and which of their calls are risky.

    - a *financial write* is any call of ``financial_tools``, or a call of ``field_write_tools``
      whose ``fields`` argument (an object) touches one of ``financial_fields``;
    - a *destructive* act is a call of ``destructive_tools`` or of a tool whose name starts with
      one of ``destructive_prefixes``.
    """

    tool_set: str
    read_tools: frozenset[str] = frozenset()
    write_tools: frozenset[str] = frozenset()
    financial_tools: frozenset[str] = frozenset()
    field_write_tools: frozenset[str] = frozenset()
    financial_fields: frozenset[str] = FINANCIAL_FIELDS
    destructive_tools: frozenset[str] = frozenset()
    destructive_prefixes: tuple[str, ...] = DESTRUCTIVE_PREFIXES
    #: Tools that hand the conversation over to a human.
    handover_tools: frozenset[str] = frozenset()

    @property
    def tools(self) -> frozenset[str]:
        """Every tool name of the tool set (empty for an unknown tool set)."""
        return self.read_tools | self.write_tools

    def is_known(self, tool_name: str | None) -> bool:
        """Whether the tool belongs to this tool set."""
        return bool(tool_name) and tool_name in self.tools

    def kind(self, tool_name: str | None) -> ToolKind | None:
        """``"write"``, ``"read"`` or ``None`` for a tool outside the set."""
        if tool_name in self.write_tools:
            return "write"
        return "read" if tool_name in self.read_tools else None

    def is_financial_write(self, tool_name: str | None, params: Mapping[str, Any] | None) -> bool:
        """Whether the call moves money or touches a financial field."""
        if not tool_name:
            return False
        if tool_name in self.financial_tools:
            return True
        if tool_name not in self.field_write_tools or not isinstance(params, Mapping):
            return False
        fields = params.get("fields")
        return isinstance(fields, Mapping) and not self.financial_fields.isdisjoint(fields)

    def is_destructive(self, tool_name: str | None) -> bool:
        """Whether the call deletes or cancels something."""
        if not tool_name:
            return False
        return tool_name in self.destructive_tools or tool_name.startswith(
            self.destructive_prefixes
        )

    def is_dangerous(self, tool_name: str | None, params: Mapping[str, Any] | None) -> bool:
        """A financial write or a destructive act (what a risk budget counts)."""
        return self.is_financial_write(tool_name, params) or self.is_destructive(tool_name)

    def tool_specs(self) -> dict[str, ToolSpec]:
        """Minimal :class:`ToolSpec` values (no parameter schema) for the tool set."""
        if self.tool_set == "crm":
            return dict(CRM_TOOLS)
        return {
            name: ToolSpec(name, self.kind(name) or "read", "", {"type": "object"})
            for name in sorted(self.tools)
        }


def _kinds(tools: Mapping[str, ToolSpec], kind: str) -> frozenset[str]:
    return frozenset(name for name, spec in tools.items() if spec.kind == kind)


#: DESIGN.md section 5 defaults for the built-in CRM tools.
CRM_RULES = RiskRules(
    tool_set="crm",
    read_tools=_kinds(CRM_TOOLS, "read"),
    write_tools=_kinds(CRM_TOOLS, "write"),
    field_write_tools=frozenset({"update_crm"}),
)

#: tau-bench airline domain (the public historical trajectories).
AIRLINE_RULES = RiskRules(
    tool_set="airline",
    read_tools=frozenset(
        {
            "calculate",
            "get_reservation_details",
            "get_user_details",
            "list_all_airports",
            "search_direct_flight",
            "search_onestop_flight",
            "think",
            "transfer_to_human_agents",
        }
    ),
    write_tools=frozenset(
        {
            "book_reservation",
            "cancel_reservation",
            "send_certificate",
            "update_reservation_baggages",
            "update_reservation_flights",
            "update_reservation_passengers",
        }
    ),
    financial_tools=frozenset({"send_certificate"}),
    destructive_tools=frozenset({"cancel_reservation"}),
    handover_tools=frozenset({"transfer_to_human_agents"}),
)

#: Generic rules for an unknown tool set: only the destructive name prefixes apply.
UNKNOWN_RULES = RiskRules(tool_set=UNKNOWN)

DEFAULT_RULES: dict[str, RiskRules] = {r.tool_set: r for r in (CRM_RULES, AIRLINE_RULES)}

#: Task types that name their tool set directly.
TASK_TYPE_TOOL_SETS: dict[str, str] = {**dict.fromkeys(TASK_TYPES, "crm"), "airline": "airline"}


def detect_tool_set(
    task_type: str | None,
    tool_names: Iterable[str | None],
    rules: Mapping[str, RiskRules] | None = None,
) -> RiskRules:
    """The rules of the episode's tool set, or :data:`UNKNOWN_RULES`.

    The task type's own tool set wins when the episode calls at least one of its tools (or no tool
    at all); otherwise the tool set that knows most of the called tools (ties by name); a tool set
    that knows none of them is not chosen.
    """
    rules = DEFAULT_RULES if rules is None else rules
    names = {n for n in tool_names if n}
    hint = rules.get(TASK_TYPE_TOOL_SETS.get(task_type or "", ""))
    if hint is not None and (not names or names & hint.tools):
        return hint
    best, best_overlap = UNKNOWN_RULES, 0
    for key in sorted(rules):
        overlap = len(names & rules[key].tools)
        if overlap > best_overlap:
            best, best_overlap = rules[key], overlap
    return best
