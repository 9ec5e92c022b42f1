"""The masking key and analyzer settings as a Dagster resource."""

import os

from dagster import ConfigurableResource, EnvVar

from agentic_pipeline.masking import is_dev_key
from agentic_pipeline.masking.keys import DEV_MODE_ENV, MASKING_KEY_ENV, masking_key
from agentic_pipeline.masking.shards import LocalShardMasker, RayShardMasker, shard_masker

__all__ = ["MASKING_KEY_ENV", "MaskingResource", "dev_mode_notice", "masking_resource_from_env"]


def dev_mode_notice() -> str:
    """A first paragraph for the UI when the code location runs in development mode, else ''."""
    from agentic_pipeline.masking.keys import DEV_KEY_NOTICE, dev_mode

    return f"**{DEV_KEY_NOTICE}**\n\n" if dev_mode() else ""


class MaskingResource(ConfigurableResource):
    """Keyed pseudonyms and Presidio settings.

    The key is never part of the resource's configuration (nor shown in the UI):
    ``resolved_key`` reads ``AGENTIC_PIPELINE_MASKING_KEY``'s value when it is needed, through
    ``agentic_pipeline.masking.keys.masking_key``, the one resolution that erasure and the CLI use
    too. Without the variable it raises ``MissingMaskingKeyError``, unless development mode
    (``AGENTIC_PIPELINE_DEV_MODE=1``) was asked for explicitly.
    """

    #: ``EnvVar("AGENTIC_PIPELINE_MASKING_KEY")`` when the variable is set (the UI shows the
    #: variable's name, never its value); empty: the key is read from the environment when needed
    #: (development mode included). Either way it goes through ``masking_key``'s rules.
    key: str = ""
    n_workers: int = 2
    phone_regions: list[str] = ["US", "GB"]
    #: Share of a day's episodes that masking may withhold (final scan still found personal data)
    #: before the blocking check fails the day; the withheld ones never reach the warehouse.
    max_withheld_share: float = 0.05
    #: Ray cluster address (``ray://...`` or ``host:port``): whole shards are masked on Ray actors
    #: there. Empty: ``RAY_ADDRESS`` if set, else in the run's process with the local process pool
    #: of ``n_workers``. The workers resolve the key from their own environment (a Secret).
    ray_address: str = ""
    #: Ray actors (each holds a complete masker, Presidio and spaCy loaded once); 0: one per CPU
    #: of the cluster.
    ray_workers: int = 0

    def resolved_key(self) -> str:
        """The variable's value (or the development key in development mode)."""
        # outside a run an EnvVar field is not resolved yet: read the variable itself
        value = getattr(self, "key", None) or ""
        if isinstance(value, EnvVar):
            value = value.get_value() or ""
        if value:
            dev = os.environ.get(DEV_MODE_ENV, "")
            return masking_key({MASKING_KEY_ENV: value, DEV_MODE_ENV: dev})
        return masking_key()

    def uses_dev_key(self) -> bool:
        return is_dev_key(self.resolved_key())

    def build_shard_masker(self) -> LocalShardMasker | RayShardMasker:
        """Masks a day's shards in order: here with the local process pool, or whole shards on
        Ray actors (only the key's fingerprint is sent); close it (``with``) when done."""
        return shard_masker(
            self.resolved_key(),
            n_workers=self.n_workers,
            address=self.ray_address or None,
            ray_workers=self.ray_workers,
            phone_regions=tuple(self.phone_regions),
        )


def masking_resource_from_env() -> MaskingResource:
    """The resource of the code location: the key as ``EnvVar`` when the variable is set."""
    if os.environ.get(MASKING_KEY_ENV):
        return MaskingResource(key=EnvVar(MASKING_KEY_ENV))
    return MaskingResource()
