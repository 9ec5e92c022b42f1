"""The masking key and analyzer settings as a Dagster resource."""

from dagster import ConfigurableResource

from agentic_pipeline.masking import Masker, is_dev_key
from agentic_pipeline.masking.keys import MASKING_KEY_ENV, masking_key

__all__ = ["MASKING_KEY_ENV", "MaskingResource", "masking_resource_from_env"]


class MaskingResource(ConfigurableResource):
    """Keyed pseudonyms and Presidio settings.

    The key is never part of the resource's configuration (nor shown in the UI):
    ``resolved_key`` reads ``AGENTIC_PIPELINE_MASKING_KEY``'s value when it is needed, through
    ``agentic_pipeline.masking.keys.masking_key``, the one resolution that erasure and the CLI use
    too. Without the variable it raises ``MissingMaskingKeyError``, unless development mode
    (``AGENTIC_PIPELINE_DEV_MODE=1``) was asked for explicitly.
    """

    n_workers: int = 2
    phone_regions: list[str] = ["US", "GB"]
    #: Share of a day's episodes that masking may withhold (final scan still found personal data)
    #: before the blocking check fails the day; the withheld ones never reach the warehouse.
    max_withheld_share: float = 0.05
    #: Ray cluster address (``ray://...`` or ``host:port``): analysis runs on Ray actors there.
    #: Empty: ``RAY_ADDRESS`` if set, else the local process pool of ``n_workers``.
    ray_address: str = ""
    #: Ray actors (each loads Presidio and spaCy once); 0: one per CPU of the cluster.
    ray_workers: int = 0

    def resolved_key(self) -> str:
        """The variable's value (or the development key in development mode)."""
        return masking_key()

    def uses_dev_key(self) -> bool:
        return is_dev_key(self.resolved_key())

    def build_masker(self) -> Masker:
        """A masker with worker processes (or Ray actors); close it (``with``) when done."""
        return Masker(
            key=self.resolved_key(),
            n_workers=self.n_workers,
            phone_regions=tuple(self.phone_regions),
            ray_address=self.ray_address or None,
            ray_workers=self.ray_workers,
        )


def masking_resource_from_env() -> MaskingResource:
    """The resource of the code location (kept for callers; the key is read when needed)."""
    return MaskingResource()
