"""Replayable environments: the shared interface and the built-in CRM sandbox."""

from agentic_pipeline.environments.base import (
    Action,
    AgentState,
    Environment,
    Policy,
    StepResult,
    Task,
    ToolSpec,
)
from agentic_pipeline.environments.crm import (
    CRM_TOOLS,
    DESTRUCTIVE_PREFIXES,
    FINANCIAL_FIELDS,
    TASK_TYPES,
    CRMSandbox,
    evaluate_goal,
    goal_met,
    is_destructive,
    is_financial_write,
)

__all__ = [
    "CRM_TOOLS",
    "DESTRUCTIVE_PREFIXES",
    "FINANCIAL_FIELDS",
    "TASK_TYPES",
    "Action",
    "AgentState",
    "CRMSandbox",
    "Environment",
    "Policy",
    "StepResult",
    "Task",
    "ToolSpec",
    "evaluate_goal",
    "goal_met",
    "is_destructive",
    "is_financial_write",
]
