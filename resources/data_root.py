"""The data root (landing folder, restricted and warehouse zones) as a Dagster resource."""

import os
from dataclasses import fields

from dagster import ConfigurableResource
from upath import UPath

from agentic_pipeline.ingest import IngestLimits
from agentic_pipeline.storage import DataRoot

DATA_DIR_ENV = "AGENTIC_PIPELINE_DATA_DIR"
_LIMITS = IngestLimits()


def default_data_dir() -> str:
    """``AGENTIC_PIPELINE_DATA_DIR`` if set, else ``./data`` (absolute)."""
    return os.environ.get(DATA_DIR_ENV) or os.path.abspath("data")


class DataRootResource(ConfigurableResource):
    """Where landing files, the restricted and warehouse zones live (any fsspec URL)."""

    path: str
    landing_path: str | None = None  # override for the landing folder (e.g. s3://bucket/landing)
    benchmark_policy_id: str | None = None  # policy id for benchmark files (default: file name)
    # ingestion limits (agentic_pipeline.ingest.IngestLimits); what exceeds one is quarantined
    max_record_bytes: int = _LIMITS.max_record_bytes  # one JSONL line or JSON-array element
    max_file_bytes: int = _LIMITS.max_file_bytes  # decompressed bytes read from one file
    max_json_file_bytes: int = _LIMITS.max_json_file_bytes  # a .json array file, parsed whole
    max_day_bytes: int = _LIMITS.max_day_bytes  # decompressed bytes read per day
    max_day_records: int = _LIMITS.max_day_records  # source records per day
    max_episode_bytes: int = _LIMITS.max_episode_bytes  # one episode's rows
    max_day_output_bytes: int = _LIMITS.max_day_output_bytes  # all the day's accepted rows
    max_quarantine_raw_bytes: int = _LIMITS.max_quarantine_raw_bytes  # raw text kept per day
    max_record_analysis_chars: int = _LIMITS.max_record_analysis_chars  # masking cost of a record
    max_record_unbroken_chars: int = _LIMITS.max_record_unbroken_chars  # longest run, no spaces

    @property
    def root(self) -> DataRoot:
        return DataRoot(self.path)

    def landing_root(self) -> UPath:
        """The folder holding one ``YYYY-MM-DD`` folder per day."""
        return UPath(self.landing_path) if self.landing_path else self.root.landing()

    def landing(self, ds: str) -> UPath:
        return self.landing_root() / ds

    def ingest_limits(self) -> IngestLimits:
        return IngestLimits(**{f.name: getattr(self, f.name) for f in fields(IngestLimits)})

    def file_name_key(self) -> str | None:
        """Key of the hashed ``source_file`` of landing files whose name holds personal data: the
        masking key, resolved like every other use of it (``agentic_pipeline.masking.keys``).

        Without a key (and no development mode) ingestion still runs, with its own development
        key: masking then refuses the day, so no such label reaches the warehouse.
        """
        # imported here: the masking package loads Presidio, which ingestion does not need
        from agentic_pipeline.masking.keys import MissingMaskingKeyError, masking_key

        try:
            return masking_key()
        except MissingMaskingKeyError:
            return None
