"""The masking key and analyzer settings as a Dagster resource."""

import os

from dagster import ConfigurableResource, EnvVar

from agentic_pipeline.masking import DEV_MASKING_KEY, Masker, is_dev_key

MASKING_KEY_ENV = "AGENTIC_PIPELINE_MASKING_KEY"


class MaskingResource(ConfigurableResource):
    """Keyed pseudonyms and Presidio settings.

    ``key`` comes from ``AGENTIC_PIPELINE_MASKING_KEY`` in production (the UI shows the variable's
    name, never its value). Without it a development key is used and every run warns: tokens made
    with it are guessable by anyone who has this repository.
    """

    key: str | None = None
    n_workers: int = 2
    phone_regions: list[str] = ["US", "GB"]
    #: Share of a day's episodes that masking may withhold (final scan still found personal data)
    #: before the blocking check fails the day; the withheld ones never reach the warehouse.
    max_withheld_share: float = 0.05

    def resolved_key(self) -> str:
        return self.key or DEV_MASKING_KEY

    def uses_dev_key(self) -> bool:
        return is_dev_key(self.resolved_key())

    def build_masker(self) -> Masker:
        """A masker with worker processes; close it (``with``) when the run is done."""
        return Masker(
            key=self.resolved_key(),
            n_workers=self.n_workers,
            phone_regions=tuple(self.phone_regions),
        )


def masking_resource_from_env() -> MaskingResource:
    """The resource wired to the environment variable when it is set."""
    if os.environ.get(MASKING_KEY_ENV):
        return MaskingResource(key=EnvVar(MASKING_KEY_ENV))
    return MaskingResource()
