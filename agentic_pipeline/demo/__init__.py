"""The built-in demo: simulated CRM customers, scripted policy variants and their ground truth.

Never imported by product code, except where a stage takes an environment, a policy or a user
model as a parameter and the wiring passes the demo's (``tests/test_layout.py`` lists where):

- :mod:`~agentic_pipeline.demo.users`: Faker-made customers, their requests, :class:`SimulatedUser`;
- :mod:`~agentic_pipeline.demo.policies`: the scripted variants with planted behaviour;
- :mod:`~agentic_pipeline.demo.simulator`: episodes rolled out against the CRM sandbox;
- :mod:`~agentic_pipeline.demo.landing`: simulated days written as landing files;
- :mod:`~agentic_pipeline.demo.truth`: exact rates per variant and the CRM tools' risk labels.
"""

from agentic_pipeline.demo.landing import RETRY_SHARE, write_landing
from agentic_pipeline.demo.policies import (
    DEFAULT_POLICY_WEIGHTS,
    HUMAN_MARKER,
    POLICIES,
    Plan,
    ScriptedPolicy,
    get_policy,
)
from agentic_pipeline.demo.simulator import SimulatedEpisode, generate_episodes
from agentic_pipeline.demo.truth import (
    FINANCIAL_FIELDS,
    METRICS,
    best_policy_by_task,
    ground_truth,
    is_destructive,
    is_financial_write,
    true_rates,
)
from agentic_pipeline.demo.users import SimulatedUser

__all__ = [
    "DEFAULT_POLICY_WEIGHTS",
    "FINANCIAL_FIELDS",
    "HUMAN_MARKER",
    "METRICS",
    "POLICIES",
    "RETRY_SHARE",
    "Plan",
    "ScriptedPolicy",
    "SimulatedEpisode",
    "SimulatedUser",
    "best_policy_by_task",
    "generate_episodes",
    "get_policy",
    "ground_truth",
    "is_destructive",
    "is_financial_write",
    "true_rates",
    "write_landing",
]
