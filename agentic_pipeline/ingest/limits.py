"""What one day's ingestion may read and hold (:class:`IngestLimits`), and what it reports."""

from dataclasses import dataclass, field, fields

import pyarrow as pa

LANDING_SUFFIXES = (".jsonl.gz", ".jsonl", ".json")
RAW_RECORD_LIMIT = 20_000  # characters of a rejected record kept in the (restricted) quarantine
BATCH_ROWS = 5_000  # rows converted to Arrow at once
CHUNK_BYTES = 1 << 16  # bytes read, and at most decompressed, at a time
DEV_FILE_NAME_KEY = "agentic-pipeline-dev-file-name-key"
_MiB = 1 << 20


@dataclass(frozen=True)
class IngestLimits:
    """Bounds on what one day's ingestion reads and holds; each cut is a quarantine reason.

    The defaults keep one day under about 2 GiB of memory: a day of simulator episodes costs
    about 6 bytes of memory per byte read.
    """

    max_record_bytes: int = 512 * 1024  # one JSONL line or one JSON-array element
    max_file_bytes: int = 512 * _MiB  # decompressed bytes read from one file (gzip expansion)
    max_json_file_bytes: int = 64 * _MiB  # a .json array is parsed whole: larger files refused
    max_day_bytes: int = 256 * _MiB  # decompressed bytes read per day
    max_day_records: int = 200_000  # source records (lines, array elements) per day
    max_episode_bytes: int = 16 * _MiB  # one episode's rows (attributes repeat on every row)
    max_day_output_bytes: int = 512 * _MiB  # all the day's accepted rows
    max_quarantine_raw_bytes: int = 64 * _MiB  # raw text kept in the day's quarantine

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"IngestLimits.{f.name} must be a positive integer")


class MissingLandingError(FileNotFoundError):
    """The landing folder for a day does not exist."""


@dataclass
class IngestStats:
    """Counts of one day's ingestion; all safe to publish (no content)."""

    files: int = 0
    files_skipped: int = 0
    files_refused: int = 0
    bytes_read: int = 0
    records_read: int = 0
    records_accepted: int = 0
    records_quarantined: int = 0
    episodes: int = 0
    rows: int = 0
    records_by_format: dict[str, int] = field(default_factory=dict)
    quarantine_reasons: dict[str, int] = field(default_factory=dict)


@dataclass
class IngestResult:
    steps: pa.Table
    quarantine: pa.Table
    stats: IngestStats
