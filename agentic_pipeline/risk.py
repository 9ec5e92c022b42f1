"""Risk rules per tool set, read from the tool catalogue (:mod:`agentic_pipeline.catalogue`).

A tool set's :class:`~agentic_pipeline.catalogue.ToolSet` *is* its risk rules: which calls are
writes, financial writes (a ``financial`` tool, or a write touching one of its
``financial_fields``), destructive acts or hand-overs. Tools the catalogue does not list get an
inferred effect. The built-in tool sets (``crm``, ``airline``, ``retail``) are YAML files; this
module keeps the names other modules import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from agentic_pipeline.catalogue import (
    UNKNOWN,
    UNKNOWN_TOOL_SET,
    Catalogue,
    ToolSet,
    builtin_catalogue,
)

#: A tool set's risk rules are the tool set itself.
RiskRules = ToolSet

_BUILTIN = builtin_catalogue()
CRM_RULES: ToolSet = _BUILTIN.get("crm")
AIRLINE_RULES: ToolSet = _BUILTIN.get("airline")
RETAIL_RULES: ToolSet = _BUILTIN.get("retail")
UNKNOWN_RULES: ToolSet = UNKNOWN_TOOL_SET
DEFAULT_RULES: dict[str, ToolSet] = dict(_BUILTIN.tool_sets)

__all__ = [
    "AIRLINE_RULES",
    "CRM_RULES",
    "DEFAULT_RULES",
    "RETAIL_RULES",
    "UNKNOWN",
    "UNKNOWN_RULES",
    "RiskRules",
    "detect_tool_set",
]


def detect_tool_set(
    task_type: str | None,
    tool_names: Iterable[str | None],
    rules: Catalogue | Mapping[str, ToolSet] | None = None,
) -> ToolSet:
    """The tool set of an episode (see :meth:`Catalogue.detect`), or :data:`UNKNOWN_RULES`.

    ``rules`` is a :class:`Catalogue` or a mapping of tool-set name to :class:`ToolSet`
    (default: the built-in catalogue).
    """
    if rules is None:
        catalogue = _BUILTIN
    elif isinstance(rules, Catalogue):
        catalogue = rules
    else:
        catalogue = Catalogue(dict(rules))
    return catalogue.detect(task_type, tool_names)
