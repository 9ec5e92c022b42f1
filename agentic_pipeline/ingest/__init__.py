"""Read one day of landing files into canonical step rows plus a quarantine of rejected records.

Files are streamed record by record through fsspec (any UPath URL works: a local folder, ``s3://``,
``memory://``). Every source record is either accepted (its rows carry ``source_file``,
``source_index`` and ``source_sha256``) or quarantined with a reason, so
``records_read == records_accepted + records_quarantined``.

Memory is bounded by :class:`IngestLimits`, whatever the input: a line longer than
``max_record_bytes`` is skipped to the next newline without being held, a file stops being read
at ``max_file_bytes`` of decompressed data (a gzip bomb is refused, not swallowed), and a day stops
at ``max_day_records`` records or ``max_day_bytes`` bytes. Each cut is one quarantine row that
stands for the rest of the file ("the records from this line on are not read"). Landing files that
are symlinks or resolve outside the landing folder are refused unread.

Nothing a single record holds can fail the day: any exception while decoding, parsing or
converting it quarantines that record (or its episode) with the exception's type as the reason.

Modules: ``limits`` (bounds and reports), ``landing`` (which files are read or refused),
``readers`` (bounded gzip, line and JSON-element readers) and ``day`` (the day ingestor).
"""

from agentic_pipeline.ingest.day import DayIngestor, ingest_day
from agentic_pipeline.ingest.landing import (
    LandingListing,
    landing_files,
    landing_fingerprint,
    list_landing,
    refusal_reason,
    source_file_label,
)
from agentic_pipeline.ingest.limits import (
    BUDGET_REASON,
    LANDING_SUFFIXES,
    IngestLimits,
    IngestResult,
    IngestStats,
    MissingLandingError,
)

__all__ = [
    "BUDGET_REASON",
    "LANDING_SUFFIXES",
    "DayIngestor",
    "IngestLimits",
    "IngestResult",
    "IngestStats",
    "LandingListing",
    "MissingLandingError",
    "ingest_day",
    "landing_files",
    "landing_fingerprint",
    "list_landing",
    "refusal_reason",
    "source_file_label",
]
