"""Read one day of landing files into canonical step rows plus a quarantine of rejected records.

Files are streamed record by record through fsspec (any UPath URL works: a local folder, ``s3://``,
``memory://``), so memory grows with one day's output, never with the landing history. Every source
record is either accepted (its rows carry ``source_file``, ``source_index`` and ``source_sha256``)
or quarantined with a reason, so ``records_read == records_accepted + records_quarantined``.
"""

import hashlib
import json
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from upath import UPath

from agentic_pipeline.formats import (
    BenchmarkNaming,
    ParseContext,
    RecordError,
    Row,
    Transition,
    assemble_transitions,
    detect_format,
    parse_record,
    parse_transition,
    split_container,
)
from agentic_pipeline.pii_patterns import strict_matches
from agentic_pipeline.schema import ID_COLUMNS, QUARANTINE_SCHEMA, STEP_SCHEMA

LANDING_SUFFIXES = (".jsonl", ".jsonl.gz", ".json")
RAW_RECORD_LIMIT = 20_000
BATCH_ROWS = 5_000  # rows converted to Arrow at once
_ARROW_ERRORS = (
    pa.ArrowException,
    UnicodeError,
    OverflowError,
    TypeError,
    ValueError,
)  # characters of a rejected record kept in the (restricted) quarantine


class MissingLandingError(FileNotFoundError):
    """The landing folder for a day does not exist."""


@dataclass
class IngestStats:
    """Counts of one day's ingestion; all safe to publish (no content)."""

    files: int = 0
    files_skipped: int = 0
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


@dataclass
class _SourceRecord:
    file: str
    index: int
    sha256: str
    raw: str | None  # decoded text, None when it could not be decoded
    value: Any = None
    error: str | None = None


def landing_files(landing_dir: UPath) -> tuple[list[UPath], list[UPath]]:
    """(files to read, files skipped for an unknown suffix), both sorted by name."""
    if not landing_dir.exists():
        raise MissingLandingError(f"no landing folder at {landing_dir}")
    entries = sorted((p for p in landing_dir.iterdir() if p.is_file()), key=lambda p: p.name)
    wanted = [p for p in entries if p.name.endswith(LANDING_SUFFIXES)]
    skipped = [p for p in entries if p not in wanted and not p.name.startswith(".")]
    return wanted, skipped


def _decode(raw_bytes: bytes, file: str, index: int) -> _SourceRecord:
    sha = hashlib.sha256(raw_bytes).hexdigest()
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError:
        bad = raw_bytes.decode("utf-8", errors="replace")
        return _SourceRecord(file, index, sha, bad, error="not valid UTF-8")
    try:
        return _SourceRecord(file, index, sha, text, value=json.loads(text))
    except RecursionError:
        return _SourceRecord(file, index, sha, text, error="invalid JSON: nested too deeply")
    except json.JSONDecodeError as exc:  # the message holds positions only, no content
        return _SourceRecord(
            file, index, sha, text, error=f"invalid JSON: {exc.msg} at col {exc.colno}"
        )


def _gzip_lines(raw, chunk_size: int = 1 << 16) -> Iterator[bytes]:
    """Lines of a (multi-member) gzip stream, yielded as soon as they are complete.

    Unlike ``gzip.GzipFile``, which decompresses ahead in large blocks, this keeps every complete
    line that precedes a truncation; a truncated or corrupt stream raises ``EOFError`` or
    ``zlib.error``.
    """
    decompressor = zlib.decompressobj(wbits=31)
    pending = b""
    in_member = False
    while chunk := raw.read(chunk_size):
        while chunk:
            in_member = True
            pending += decompressor.decompress(chunk)
            chunk = b""
            if decompressor.eof:  # end of one gzip member; another may follow
                chunk = decompressor.unused_data
                decompressor = zlib.decompressobj(wbits=31)
                in_member = False
        *lines, pending = pending.split(b"\n")
        yield from lines
    if in_member:
        raise EOFError("gzip stream ended before its end-of-stream marker")
    if pending:
        yield pending


def _read_jsonl(path: UPath, stats: IngestStats) -> Iterator[_SourceRecord]:
    name = str(path)
    with path.open("rb") as raw:
        lines = _gzip_lines(raw) if name.endswith(".gz") else raw
        line_no = 0
        try:
            for line_no, line in enumerate(lines, start=1):  # noqa: B007 (used after the loop)
                stats.bytes_read += len(line)
                if line.strip():
                    yield from _split(_decode(line.rstrip(b"\r\n"), name, line_no))
        except (EOFError, zlib.error) as exc:
            kind = "truncated" if isinstance(exc, EOFError) else "corrupt"
            yield _SourceRecord(
                name,
                line_no + 1,
                "",
                None,
                error=f"{kind} gzip stream: the records from this line on are lost",
            )


def _read_json_array(path: UPath, stats: IngestStats) -> Iterator[_SourceRecord]:
    name = str(path)
    data = path.read_bytes()
    stats.bytes_read += len(data)
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        reason = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else "invalid JSON file"
        yield _SourceRecord(name, 0, hashlib.sha256(data).hexdigest(), None, error=reason)
        return
    del data
    elements = value if isinstance(value, list) else split_container(value) or [value]
    for index, element in enumerate(elements):
        text = json.dumps(element, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        yield _SourceRecord(name, index, sha, text, value=element)


def _split(source: _SourceRecord) -> Iterator[_SourceRecord]:
    """The records of a container line (a multi-trace OTLP export, a tau2 results object), each
    with the line's number and its own hash; any other line as it is."""
    parts = split_container(source.value) if source.error is None else None
    if parts is None:
        yield source
        return
    for element in parts:
        text = json.dumps(element, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        yield _SourceRecord(source.file, source.index, sha, text, value=element)


def _file_stem(path: UPath) -> str:
    name = path.name
    for suffix in LANDING_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _reject_personal_ids(rows: list[Row]) -> None:
    """Identifier columns are kept verbatim downstream (never masked), so a record whose ids look
    like personal data (an email as episode id, say) is quarantined here."""
    seen: set[str] = set()
    for row in rows:
        for col in ID_COLUMNS:
            value = row.get(col)
            if isinstance(value, str) and value not in seen:
                seen.add(value)
                kinds = {kind for _, _, kind in strict_matches(value)}
                if kinds:
                    raise RecordError(
                        f"'{col}' looks like personal data ({', '.join(sorted(kinds))})"
                    )


class DayIngestor:
    """Accumulates one day's canonical rows and quarantine rows in Arrow batches."""

    def __init__(self, ds: str, benchmark_policy_id: str | None = None):
        self.ds = ds
        self.benchmark_policy_id = benchmark_policy_id
        self.stats = IngestStats()
        self._batches: list[pa.RecordBatch] = []
        # episodes waiting for conversion: (rows, number of source records, reject callback)
        self._pending: list[tuple[list[Row], int, Callable[[str], None]]] = []
        self._pending_rows = 0
        self._quarantine: list[Row] = []
        self._episode_ids: set[str] = set()
        self._transitions: dict[str, dict[int, Transition]] = {}

    # -- public -------------------------------------------------------------------------------

    def read_file(self, path: UPath) -> None:
        self.stats.files += 1
        reader = _read_json_array if path.name.endswith(".json") else _read_jsonl
        naming = BenchmarkNaming.from_file_name(_file_stem(path), self.benchmark_policy_id)
        for source in reader(path, self.stats):
            self.stats.records_read += 1
            try:
                if source.error:
                    raise RecordError(source.error)
                self._accept(source, naming, _file_stem(path))
            except RecordError as exc:
                self._reject(source, str(exc))

    def finish(self) -> IngestResult:
        for episode_id in sorted(self._transitions):
            by_step = self._transitions.pop(episode_id)
            records = [by_step[s] for s in sorted(by_step)]
            if episode_id in self._episode_ids:
                for t in records:
                    self._reject_transition(t, "duplicate episode_id in this day")
                continue
            try:
                attrs, rows = assemble_transitions(records)
            except RecordError as exc:
                for t in records:
                    self._reject_transition(t, str(exc))
                continue

            def reject(reason: str, records: list[Transition] = records) -> None:
                for t in records:
                    self._reject_transition(t, reason)

            try:
                self._emit(episode_id, attrs, rows, None, len(records), reject)
            except RecordError as exc:
                reject(str(exc))
        self._flush()
        steps = pa.Table.from_batches(self._batches, schema=STEP_SCHEMA)
        quarantine = pa.Table.from_pylist(self._quarantine, schema=QUARANTINE_SCHEMA)
        self.stats.rows = steps.num_rows
        return IngestResult(steps=steps, quarantine=quarantine, stats=self.stats)

    # -- internals ----------------------------------------------------------------------------

    def _accept(self, source: _SourceRecord, naming: BenchmarkNaming, stem: str) -> None:
        fmt = detect_format(source.value)
        self.stats.records_by_format[fmt] = self.stats.records_by_format.get(fmt, 0) + 1
        lineage = {
            "source_format": fmt,
            "source_file": source.file,
            "source_index": source.index,
            "source_sha256": source.sha256,
        }
        if fmt == "transition_jsonl":
            t = parse_transition(source.value, lineage)
            steps = self._transitions.setdefault(t.episode_id, {})
            if t.step in steps:
                raise RecordError("duplicate step number in transition episode")
            steps[t.step] = t
            return
        episode_id, attrs, rows = parse_record(
            fmt, source.value, ParseContext(source.index, naming, stem)
        )
        if episode_id in self._episode_ids:
            raise RecordError("duplicate episode_id in this day")
        self._emit(episode_id, attrs, rows, lineage, 1, lambda reason: self._reject(source, reason))

    def _emit(
        self,
        episode_id: str,
        attrs: Row,
        rows: list[Row],
        lineage: Row | None,
        n_records: int,
        reject: Callable[[str], None],
    ) -> None:
        """Accept one episode; its rows are converted to Arrow with others in ``_flush``."""
        full = [
            {"ds": self.ds, **attrs, **(lineage or {}), **row, "step": step}
            for step, row in enumerate(rows)
        ]
        _reject_personal_ids(full)
        self._episode_ids.add(episode_id)
        self.stats.episodes += 1
        self.stats.records_accepted += n_records
        self._pending.append((full, n_records, reject))
        self._pending_rows += len(full)
        if self._pending_rows >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        """Convert the pending episodes in one batch. If Arrow refuses a value (a lone surrogate,
        an oversized number), convert them one by one and quarantine only the episodes at fault."""
        if not self._pending:
            return
        pending, self._pending, self._pending_rows = self._pending, [], 0
        try:
            rows = [row for full, _, _ in pending for row in full]
            self._batches.append(pa.RecordBatch.from_pylist(rows, schema=STEP_SCHEMA))
            return
        except _ARROW_ERRORS:
            pass
        for full, n_records, reject in pending:
            try:
                self._batches.append(pa.RecordBatch.from_pylist(full, schema=STEP_SCHEMA))
            except _ARROW_ERRORS as exc:
                self.stats.episodes -= 1
                self.stats.records_accepted -= n_records
                reject(f"value not representable ({type(exc).__name__})")

    def _reject(self, source: _SourceRecord, reason: str) -> None:
        value = source.value if isinstance(source.value, dict) else {}
        episode_id = value.get("episode_id")
        self._quarantine_row(
            source_format=None,
            file=source.file,
            index=source.index,
            sha=source.sha256,
            episode_id=str(episode_id) if isinstance(episode_id, (str, int)) else None,
            reason=reason,
            raw=(source.raw or "")[:RAW_RECORD_LIMIT],
        )

    def _reject_transition(self, t: Transition, reason: str) -> None:
        self._quarantine_row(
            source_format="transition_jsonl",
            file=t.lineage["source_file"],
            index=t.lineage["source_index"],
            sha=t.lineage["source_sha256"],
            episode_id=t.episode_id,
            reason=reason,
            raw=json.dumps(t.record, ensure_ascii=False)[:RAW_RECORD_LIMIT],
        )

    def _quarantine_row(self, *, source_format, file, index, sha, episode_id, reason, raw) -> None:
        self.stats.records_quarantined += 1
        key = reason.split(":")[0]
        self.stats.quarantine_reasons[key] = self.stats.quarantine_reasons.get(key, 0) + 1
        self._quarantine.append(
            {
                "ds": self.ds,
                "source_format": source_format,
                "source_file": file,
                "source_index": index,
                "source_sha256": sha,
                "episode_id": episode_id,
                "reason": reason,
                "raw_record": raw,
            }
        )


def ingest_day(
    landing_dir: UPath | str, ds: str, benchmark_policy_id: str | None = None
) -> IngestResult:
    """Ingest every landing file of one day (``landing_dir`` is that day's folder)."""
    landing_dir = UPath(landing_dir)
    files, skipped = landing_files(landing_dir)
    ingestor = DayIngestor(ds, benchmark_policy_id=benchmark_policy_id)
    ingestor.stats.files_skipped = len(skipped)
    for path in files:
        ingestor.read_file(path)
    return ingestor.finish()
