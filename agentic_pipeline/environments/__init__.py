"""Environments: the shared interface, the CRM sandbox, the replay cassette, the OpenAI adapter.

- :mod:`~agentic_pipeline.environments.base`: :class:`Environment`, :class:`Action`,
  :class:`Task`, :class:`AgentState`, :class:`Policy` (``ToolSpec`` comes from the catalogue);
- :mod:`~agentic_pipeline.environments.crm`: the CRM sandbox (tools, state, goal checks);
- :mod:`~agentic_pipeline.environments.cassette`: one logged episode as a cassette that answers
  the agent's calls (:class:`ReplayEnvironment`), and the CRM sandbox seeded from it;
- :mod:`~agentic_pipeline.environments.openai_policy`: a candidate policy behind an
  OpenAI-compatible endpoint.

The demo's simulated users and scripted policies live in :mod:`agentic_pipeline.demo`.
"""

from agentic_pipeline.environments.base import (
    Action,
    AgentState,
    Environment,
    Policy,
    StepResult,
    Task,
    ToolSpec,
)
from agentic_pipeline.environments.cassette import (
    TRUNCATION_KINDS,
    Cassette,
    Divergence,
    ReplayEnvironment,
    seed_crm_sandbox,
)
from agentic_pipeline.environments.crm import (
    CRM_TOOLS,
    TASK_TYPES,
    CRMSandbox,
    UserFn,
    evaluate_goal,
    goal_met,
)
from agentic_pipeline.environments.openai_policy import OpenAIChatPolicy, OpenAIPolicyError

__all__ = [
    "CRM_TOOLS",
    "TASK_TYPES",
    "TRUNCATION_KINDS",
    "Action",
    "AgentState",
    "CRMSandbox",
    "Cassette",
    "Divergence",
    "Environment",
    "OpenAIChatPolicy",
    "OpenAIPolicyError",
    "Policy",
    "ReplayEnvironment",
    "StepResult",
    "Task",
    "ToolSpec",
    "UserFn",
    "evaluate_goal",
    "goal_met",
    "seed_crm_sandbox",
]
