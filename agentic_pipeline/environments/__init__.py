"""Environments: the shared interface, the CRM sandbox, the replay cassette, the OpenAI adapter.

- :mod:`~agentic_pipeline.environments.base`: :class:`Environment`, :class:`Action`,
  :class:`Task`, :class:`AgentState`, :class:`Policy` (``ToolSpec`` comes from the catalogue);
- :mod:`~agentic_pipeline.environments.crm`: the CRM sandbox (tools, state, goal checks);
- :mod:`~agentic_pipeline.environments.cassette`: one logged episode as a cassette that answers
  the agent's calls (:class:`ReplayEnvironment`), and the CRM sandbox seeded from it;
- :mod:`~agentic_pipeline.environments.openai_policy`: the OpenAI-compatible client
  (:class:`OpenAIChatClient`, any :class:`ChatEndpoint`) and a closed-loop policy behind it;
- :mod:`~agentic_pipeline.environments.hermetic`: a candidate's tool calls answered from the log
  only (hermetic replay);
- :mod:`~agentic_pipeline.environments.tool_schemas`: tool schemas from the catalogue or the logs;
- :mod:`~agentic_pipeline.environments.local_model`: the offline candidate model (SmolLM2).

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
from agentic_pipeline.environments.hermetic import HermeticTools, normalise_arguments
from agentic_pipeline.environments.openai_policy import (
    ChatEndpoint,
    OpenAIChatClient,
    OpenAIChatPolicy,
    OpenAIPolicyError,
)
from agentic_pipeline.environments.tool_schemas import SchemaInference, tool_specs_for

__all__ = [
    "CRM_TOOLS",
    "TASK_TYPES",
    "TRUNCATION_KINDS",
    "Action",
    "AgentState",
    "CRMSandbox",
    "Cassette",
    "ChatEndpoint",
    "Divergence",
    "Environment",
    "HermeticTools",
    "OpenAIChatClient",
    "OpenAIChatPolicy",
    "OpenAIPolicyError",
    "Policy",
    "ReplayEnvironment",
    "SchemaInference",
    "StepResult",
    "Task",
    "ToolSpec",
    "UserFn",
    "evaluate_goal",
    "goal_met",
    "normalise_arguments",
    "seed_crm_sandbox",
    "tool_specs_for",
]
