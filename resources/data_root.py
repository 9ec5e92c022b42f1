"""The data root (DESIGN.md §3) as a Dagster resource."""

import os

from dagster import ConfigurableResource
from upath import UPath

from agentic_pipeline.storage import DataRoot

DATA_DIR_ENV = "AGENTIC_PIPELINE_DATA_DIR"


def default_data_dir() -> str:
    """``AGENTIC_PIPELINE_DATA_DIR`` if set, else ``./data`` (absolute)."""
    return os.environ.get(DATA_DIR_ENV) or os.path.abspath("data")


class DataRootResource(ConfigurableResource):
    """Where landing files, the restricted and warehouse zones live (any fsspec URL)."""

    path: str
    landing_path: str | None = None  # override for the landing folder (e.g. s3://bucket/landing)
    benchmark_policy_id: str | None = None  # policy id for benchmark files (default: file name)

    @property
    def root(self) -> DataRoot:
        return DataRoot(self.path)

    def landing_root(self) -> UPath:
        """The folder holding one ``YYYY-MM-DD`` folder per day."""
        return UPath(self.landing_path) if self.landing_path else self.root.landing()

    def landing(self, ds: str) -> UPath:
        return self.landing_root() / ds
