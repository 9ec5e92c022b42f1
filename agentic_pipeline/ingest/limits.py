"""What one day's ingestion may read and hold (:class:`IngestLimits`), and what it reports."""

from dataclasses import dataclass, field, fields

import pyarrow as pa

LANDING_SUFFIXES = (".jsonl.gz", ".jsonl", ".json")
#: The step columns masking analyses (``masking.MASK_COLUMNS``; a test keeps them equal).
ANALYSED_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
RAW_RECORD_LIMIT = 20_000  # characters of a rejected record kept in the (restricted) quarantine
BATCH_ROWS = 5_000  # rows converted to Arrow at once
CHUNK_BYTES = 1 << 16  # bytes read, and at most decompressed, at a time
DEV_FILE_NAME_KEY = "agentic-pipeline-dev-file-name-key"
_MiB = 1 << 20
#: Every reason of a record refused by a day budget starts with this: those records are good data
#: the day could not take, so the blocking check ``raw_day_within_budget`` fails the day on them.
BUDGET_REASON = "day budget"


def is_budget_reason(reason: str | None) -> bool:
    return bool(reason) and reason.startswith(BUDGET_REASON)


@dataclass(frozen=True)
class IngestLimits:
    """Bounds on what one day's ingestion reads and holds; each cut is a quarantine reason.

    The defaults keep one day under about 2 GiB of memory: a day of simulator episodes costs
    about 6 bytes of memory per byte read.

    Fairness. Before a day is read every file is measured (decompressed bytes and lines, stopping
    one byte past ``max_file_bytes``): a file over ``max_file_bytes`` is refused whole (a bomb,
    never partly read), and the day's ``max_day_bytes`` and ``max_day_records`` go to the
    smallest files first: a file is admitted while it fits in what is left, so a large file only
    ever takes what the smaller ones left. A file that does not fit is refused whole
    with a ``BUDGET_REASON``; no file can starve the others.

    Cost. Masking costs time linear in the characters it analyses (about 140 s per MiB of text
    dense with personal data here), except that spaCy's tokenizer is quadratic in a run of
    characters without whitespace (4,000 brackets: 5 s; 70 KB of minified JSON: 9 s). So a record
    is quarantined at ingestion when its distinct text cells hold more than
    ``max_record_analysis_chars`` characters, or a run of more than ``max_record_unbroken_chars``
    characters without whitespace. ``benchmarks/ingestion_cost.py`` measures the worst case per
    MiB of landing input under these budgets.
    """

    max_record_bytes: int = 512 * 1024  # one JSONL line or one JSON-array element
    max_file_bytes: int = 128 * _MiB  # decompressed bytes of one file (larger: refused whole)
    max_json_file_bytes: int = 64 * _MiB  # a .json array is parsed whole: larger files refused
    max_day_bytes: int = 256 * _MiB  # decompressed bytes read per day
    max_day_records: int = 200_000  # source records (lines, array elements) per day
    max_episode_bytes: int = 16 * _MiB  # one episode's rows (attributes repeat on every row)
    max_day_output_bytes: int = 512 * _MiB  # all the day's accepted rows
    max_quarantine_raw_bytes: int = 64 * _MiB  # raw text kept in the day's quarantine
    max_record_analysis_chars: int = 256 * 1024  # characters of one record masking analyses
    max_record_unbroken_chars: int = 256  # longest run without whitespace in one record

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
    #: quarantine rows with a ``BUDGET_REASON`` (a refused file counts once)
    refused_by_budget: int = 0
    episodes: int = 0
    rows: int = 0
    records_by_format: dict[str, int] = field(default_factory=dict)
    quarantine_reasons: dict[str, int] = field(default_factory=dict)


@dataclass
class IngestResult:
    steps: pa.Table
    quarantine: pa.Table
    stats: IngestStats
