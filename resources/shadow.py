"""The shadow-mode candidate as a Dagster resource: a scripted variant or an OpenAI endpoint."""

from dagster import ConfigurableResource

from agentic_pipeline.demo import get_policy
from agentic_pipeline.environments.base import Policy
from agentic_pipeline.environments.openai_policy import OpenAIChatPolicy
from agentic_pipeline.shadow import ShadowQuota


class ShadowResource(ConfigurableResource):
    """Which candidate runs in shadow and under which quota.

    Set ``endpoint_url`` and ``model`` to call an OpenAI-compatible chat-completions endpoint
    (the key is read from the environment variable ``api_key_env``); otherwise the scripted variant
    ``candidate_policy_id`` runs. ``fail_on_kill`` turns a tripped kill switch into a failed run
    (by default the episodes run so far are kept and the trip is reported in the metadata).
    """

    candidate_policy_id: str = "crm-efficient-v3"
    endpoint_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_episodes: int = 200
    max_dangerous_actions: int = 20
    max_steps: int = 24
    seed: int = 0
    fail_on_kill: bool = False

    def build_policy(self) -> Policy:
        """The candidate policy."""
        if self.endpoint_url:
            if not self.model:
                raise ValueError("shadow: endpoint_url needs a model")
            return OpenAIChatPolicy(self.endpoint_url, self.model, api_key_env=self.api_key_env)
        return get_policy(self.candidate_policy_id)

    @property
    def quota(self) -> ShadowQuota:
        return ShadowQuota(self.max_episodes, self.max_dangerous_actions)
