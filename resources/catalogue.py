"""The tool catalogue (built-ins plus the deployment's YAML files) as a Dagster resource."""

import os

from dagster import ConfigurableResource

from agentic_pipeline.catalogue import CATALOGUE_ENV, Catalogue, load_catalogue


def default_catalogue_path() -> str | None:
    """``AGENTIC_PIPELINE_TOOL_CATALOGUE`` if set (files or folders joined by ``os.pathsep``)."""
    return os.environ.get(CATALOGUE_ENV) or None


class ToolCatalogueResource(ConfigurableResource):
    """Where the deployment's tool catalogue lives; ``load()`` gives the validated
    :class:`~agentic_pipeline.catalogue.Catalogue` (built-in tool sets plus these files).

    Its version (label + content hash) is part of the reward version, so editing the catalogue
    changes the reward version and marks the rewards stale.
    """

    path: str | None = None  # default: $AGENTIC_PIPELINE_TOOL_CATALOGUE, else the built-ins only

    def resolved_path(self) -> str | None:
        return self.path or default_catalogue_path()

    def load(self) -> Catalogue:
        return load_catalogue(self.resolved_path())
