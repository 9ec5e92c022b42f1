"""The shadow candidate and the behaviour diff settings as Dagster resources.

``ShadowResource.candidate`` says which model runs in shadow:

- ``""`` (the default): none; the shadow assets store empty tables and say so;
- ``"smollm2"``: the offline SmolLM2-135M-Instruct, loaded from its wheel in this process (the
  ``candidate`` extra; :mod:`agentic_pipeline.environments.local_model`), once per process;
- ``"endpoint"``: any OpenAI-compatible chat-completions endpoint at ``endpoint_url`` (for
  example the offline model served on 127.0.0.1, or a hosted model); its key is read from the
  environment variable ``api_key_env`` at call time.

:func:`shadow_resource_from_env` reads ``AGENTIC_PIPELINE_SHADOW_CANDIDATE`` (``smollm2``, a URL,
or empty), ``AGENTIC_PIPELINE_SHADOW_MODEL`` and ``AGENTIC_PIPELINE_SHADOW_MAX_EPISODES``, so the
CLI and ``make demo`` can switch the candidate on without editing code.
"""

import os
import threading

from dagster import ConfigurableResource

from agentic_pipeline.environments.local_model import MODEL_ID, LocalChatModel
from agentic_pipeline.environments.openai_policy import OpenAIChatClient
from agentic_pipeline.shadow import Candidate, DiffSettings, ShadowBudget, ShadowSettings

CANDIDATE_ENV = "AGENTIC_PIPELINE_SHADOW_CANDIDATE"
MODEL_ENV = "AGENTIC_PIPELINE_SHADOW_MODEL"
MAX_EPISODES_ENV = "AGENTIC_PIPELINE_SHADOW_MAX_EPISODES"
_LOCAL: dict[str, LocalChatModel] = {}
_LOCAL_LOCK = threading.Lock()


def local_model() -> LocalChatModel:
    """The process's one offline model (loaded on its first request)."""
    with _LOCAL_LOCK:
        return _LOCAL.setdefault(MODEL_ID, LocalChatModel())


class ShadowResource(ConfigurableResource):
    """Which candidate runs in shadow, how, and under which quota (see the module docstring).

    ``fail_on_stop`` turns a crossed limit into a failed run after the tables are stored (by
    default the run succeeds and the stop line is in the metadata and the log).
    """

    candidate: str = ""
    endpoint_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 120.0
    # how it is asked
    n_samples: int = 1
    temperature: float = 0.0
    max_steps_per_episode: int = 4
    max_calls_per_step: int = 1
    max_history_messages: int = 12
    system_prompt: str | None = None
    max_tokens_per_call: int = 64
    seed: int = 0
    # quota and kill switch
    max_episodes: int = 5
    max_dangerous_proposals: int = 5
    max_tokens: int = 200_000
    max_seconds: float = 900.0
    fail_on_stop: bool = False

    def build_candidate(self) -> Candidate | None:
        """The configured candidate, or ``None``."""
        kind = self.candidate.strip().lower()
        if kind in ("", "off", "none"):
            return None
        if kind == "smollm2":
            return Candidate(local_model(), MODEL_ID, f"local:{MODEL_ID}")
        if kind == "endpoint":
            if not self.endpoint_url or not self.model:
                raise ValueError("shadow: candidate 'endpoint' needs endpoint_url and model")
            client = OpenAIChatClient(self.endpoint_url, self.api_key_env, self.timeout_s)
            return Candidate(client, self.model)
        raise ValueError(f"shadow: unknown candidate {self.candidate!r} (smollm2, endpoint or '')")

    @property
    def settings(self) -> ShadowSettings:
        return ShadowSettings(
            n_samples=self.n_samples,
            temperature=self.temperature,
            max_steps_per_episode=self.max_steps_per_episode,
            max_calls_per_step=self.max_calls_per_step,
            max_history_messages=self.max_history_messages,
            system_prompt=self.system_prompt,
            max_tokens_per_call=self.max_tokens_per_call,
            seed=self.seed,
        )

    @property
    def budget(self) -> ShadowBudget:
        return ShadowBudget(
            self.max_episodes, self.max_dangerous_proposals, self.max_tokens, self.max_seconds
        )


def shadow_resource_from_env() -> ShadowResource:
    """The shadow resource as the environment configures it (no candidate by default)."""
    value = os.environ.get(CANDIDATE_ENV, "").strip()
    options: dict = {}
    if value.startswith(("http://", "https://")):
        options.update(candidate="endpoint", endpoint_url=value)
        options["model"] = os.environ.get(MODEL_ENV) or "default"
    elif value:
        options["candidate"] = value
    if os.environ.get(MAX_EPISODES_ENV):
        options["max_episodes"] = int(os.environ[MAX_EPISODES_ENV])
    return ShadowResource(**options)


class BehaviourDiffResource(ConfigurableResource):
    """Settings of ``behaviour_diff``: the baseline policy (default: the policy with most episodes
    of each task type that day), the interval's confidence, resamples and pairing threshold."""

    baseline_policy: str | None = None
    confidence: float = 0.95
    n_bootstrap: int = 1000
    min_pairs: int = 5
    seed: int = 0

    @property
    def settings(self) -> DiffSettings:
        return DiffSettings(
            self.baseline_policy, self.confidence, self.n_bootstrap, self.min_pairs, self.seed
        )
