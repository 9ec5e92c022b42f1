"""The reward specification (``agentic_pipeline/reward_spec.yaml``) as a Dagster resource."""

import os

from dagster import ConfigurableResource

from agentic_pipeline.rewards import DEFAULT_SPEC_PATH, RewardSpec, load_reward_spec
from resources.catalogue import ToolCatalogueResource

REWARD_SPEC_ENV = "AGENTIC_PIPELINE_REWARD_SPEC"


def default_reward_spec_path() -> str:
    """``AGENTIC_PIPELINE_REWARD_SPEC`` if set, else the packaged ``reward_spec.yaml``."""
    return os.environ.get(REWARD_SPEC_ENV) or str(DEFAULT_SPEC_PATH)


class RewardSpecResource(ConfigurableResource):
    """Where the reward weights live; ``load()`` gives the validated :class:`RewardSpec`.

    ``build_definitions`` loads the same file at definition time: the spec's version is part of
    the reward and selection assets' ``code_version``, so editing the file marks them stale.
    """

    path: str | None = None  # default: $AGENTIC_PIPELINE_REWARD_SPEC, else the packaged spec
    #: The tool catalogue whose version joins the reward version (default: as ToolCatalogueResource)
    tool_catalogue: str | None = None

    def resolved_path(self) -> str:
        return self.path or default_reward_spec_path()

    def load(self) -> RewardSpec:
        """The spec, tied to the tool catalogue's version (facts and risk come from it)."""
        catalogue = ToolCatalogueResource(path=self.tool_catalogue).load()
        return load_reward_spec(self.resolved_path()).with_catalogue(catalogue.version)
