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
"""

import datetime as dt
import hashlib
import hmac
import json
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, BinaryIO, NamedTuple

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
from agentic_pipeline.pii_patterns import identifier_problem
from agentic_pipeline.schema import (
    ID_COLUMNS,
    QUARANTINE_SCHEMA,
    STEP_SCHEMA,
    parse_timestamp,
)

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


@dataclass
class _SourceRecord:
    file: str  # the safe label of the file (see ``source_file_label``)
    index: int
    sha256: str
    raw: str | None  # decoded text, None when it could not be decoded
    value: Any = None
    error: str | None = None


class LandingListing(NamedTuple):
    """A landing folder's files: to read, skipped (unknown suffix), refused (with the reason)."""

    read: list[UPath]
    skipped: list[UPath]
    refused: list[tuple[UPath, str]]


def _is_local(path: UPath) -> bool:
    return getattr(path, "protocol", "") in ("", "file", "local")


def refusal_reason(path: UPath, landing_dir: UPath) -> str | None:
    """Why a landing file must not be read (a symlink, or outside the landing folder), or None."""
    try:
        if path.is_symlink():
            return "refused file: a symbolic link"
    except (NotImplementedError, OSError):
        pass
    if _is_local(path):
        real, folder = os.path.realpath(path.path), os.path.realpath(landing_dir.path)
        if os.path.dirname(real) != folder:
            return "refused file: resolves outside the landing folder"
    return None


def list_landing(landing_dir: UPath) -> LandingListing:
    """Classify a day's landing folder, each list sorted by name; nothing is opened."""
    if not landing_dir.exists():
        raise MissingLandingError(f"no landing folder at {landing_dir}")
    read, skipped, refused = [], [], []
    folder_linked = _is_local(landing_dir) and landing_dir.is_symlink()
    for p in sorted(landing_dir.iterdir(), key=lambda p: p.name):
        if p.name.startswith("."):
            continue
        reason = (
            "refused file: the landing folder is a symbolic link"
            if folder_linked
            else refusal_reason(p, landing_dir)
        )
        if reason and p.name.endswith(LANDING_SUFFIXES):
            refused.append((p, reason))
        elif reason is None and p.is_file():
            (read if p.name.endswith(LANDING_SUFFIXES) else skipped).append(p)
        elif reason is not None and not p.is_dir():
            skipped.append(p)
    return LandingListing(read, skipped, refused)


def landing_files(landing_dir: UPath) -> tuple[list[UPath], list[UPath]]:
    """(files to read, files skipped for an unknown suffix), both sorted by name; refused files
    (symlinks, files outside the folder) are in neither."""
    listing = list_landing(landing_dir)
    return listing.read, listing.skipped


def landing_fingerprint(landing_dir: UPath) -> str:
    """A digest of the content of a landing day: sha256 over each file's name, size and sha256.

    Re-writing byte-identical files keeps it; any change of a file's bytes, a new or a removed
    file changes it (modification times play no part). Names are hashed, never returned."""
    outer = hashlib.sha256()
    for path in landing_files(landing_dir)[0]:
        inner = hashlib.sha256()
        size = 0
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                inner.update(chunk)
                size += len(chunk)
        outer.update(f"{path.name}\0{size}\0{inner.hexdigest()}\n".encode("utf-8", "surrogatepass"))
    return outer.hexdigest()


def _suffix(name: str) -> str:
    return next((s for s in LANDING_SUFFIXES if name.endswith(s)), "")


def _file_stem(path: UPath) -> str:
    suffix = _suffix(path.name)
    return path.name[: -len(suffix)] if suffix else path.name


def source_file_label(name: str, key: str | bytes = DEV_FILE_NAME_KEY) -> str:
    """The ``source_file`` stored for a landing file: its name relative to the landing day, or
    ``file-<keyed hash>.<suffix>`` when the name is not a safe identifier (an email in it, say)."""
    stem = name[: -len(_suffix(name))] if _suffix(name) else name
    if identifier_problem(stem) is None and identifier_problem(name) is None:
        return name
    k = key.encode("utf-8") if isinstance(key, str) else key
    digest = hmac.new(k, name.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return f"file-{digest[:16]}{_suffix(name)}"


def _decode(raw_bytes: bytes, file: str, index: int) -> _SourceRecord:
    sha = hashlib.sha256(raw_bytes).hexdigest()
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError:
        bad = raw_bytes[:RAW_RECORD_LIMIT].decode("utf-8", errors="replace")
        return _SourceRecord(file, index, sha, bad, error="not valid UTF-8")
    try:
        return _SourceRecord(file, index, sha, text, value=json.loads(text))
    except RecursionError:
        return _SourceRecord(file, index, sha, text, error="invalid JSON: nested too deeply")
    except json.JSONDecodeError as exc:  # the message holds positions only, no content
        return _SourceRecord(
            file, index, sha, text, error=f"invalid JSON: {exc.msg} at col {exc.colno}"
        )
    except ValueError:  # an integer literal over Python's int max str digits
        return _SourceRecord(file, index, sha, text, error="invalid JSON: number too long")


def _open(path: UPath) -> BinaryIO:
    """Open for reading; a local file is opened without following a symlink (``O_NOFOLLOW``), so
    a file swapped for a link after the listing is still refused."""
    if _is_local(path):
        fd = os.open(path.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        return os.fdopen(fd, "rb")
    return path.open("rb")


def _chunks(raw: BinaryIO, gzipped: bool) -> Iterator[bytes]:
    """Decompressed bytes of ``raw`` in pieces of at most ``CHUNK_BYTES``, whatever the
    compression ratio (``max_length``), over every member of a multi-member gzip stream.

    A truncated or corrupt gzip stream raises ``EOFError`` or ``zlib.error``.
    """
    if not gzipped:
        while chunk := raw.read(CHUNK_BYTES):
            yield chunk
        return
    decompressor = zlib.decompressobj(wbits=31)
    in_member = False
    while data := raw.read(CHUNK_BYTES):
        while True:
            in_member = True
            out = decompressor.decompress(data, CHUNK_BYTES)
            if out:
                yield out
            if decompressor.eof:  # end of one gzip member; another may follow
                data = decompressor.unused_data
                decompressor = zlib.decompressobj(wbits=31)
                in_member = False
                if not data:
                    break
                continue
            data = decompressor.unconsumed_tail
            if not data and len(out) < CHUNK_BYTES:
                break
    if in_member:
        raise EOFError("gzip stream ended before its end-of-stream marker")


@dataclass
class _Oversized:
    """A line longer than the record limit: skipped, with its size, sha256 and head kept."""

    size: int
    sha256: str
    head: bytes


class _Cut:
    """Reading stopped at the byte budget; the rest of the file is not read."""


_BLANK_RUN = re.compile(rb"(?:[ \t\r]*\n)+")


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


def _bounded_lines(
    chunks: Iterator[bytes], max_line: int, budget: int, stats: "IngestStats"
) -> Iterator[tuple[int, bytes | _Oversized | _Cut]]:
    """``(line number, line)`` of a byte stream's non-blank lines, holding at most ``max_line``
    bytes; runs of blank lines are skipped in C, so a bomb of newlines costs no Python loop.

    A longer line is skipped to the next newline (hashed on the way) and yields ``_Oversized``.
    After ``budget`` bytes, a ``_Cut`` is yielded if any data is left and reading stops.
    """
    pending = bytearray()
    skip: Any = None  # a sha256 object while skipping an oversized line
    skip_size, skip_head = 0, b""
    consumed, line_no = 0, 1
    for chunk in chunks:
        cut = consumed + len(chunk) > budget
        if cut:
            chunk = chunk[: budget - consumed]
        consumed += len(chunk)
        stats.bytes_read += len(chunk)
        start = 0
        while start < len(chunk):
            if not pending and skip is None and (blank := _BLANK_RUN.match(chunk, start)):
                line_no += chunk.count(b"\n", start, blank.end())
                start = blank.end()
                continue
            newline = chunk.find(b"\n", start)
            piece = chunk[start : newline if newline >= 0 else len(chunk)]
            if skip is not None:
                skip.update(piece)
                skip_size += len(piece)
            elif len(pending) + len(piece) > max_line:
                skip = hashlib.sha256(pending)
                skip.update(piece)
                skip_size = len(pending) + len(piece)
                skip_head = bytes((pending + piece)[:RAW_RECORD_LIMIT])
                pending.clear()
            else:
                pending += piece
            if newline < 0:
                break
            if skip is not None:
                yield line_no, _Oversized(skip_size, skip.hexdigest(), skip_head)
                skip = None
            elif pending.strip():
                yield line_no, bytes(pending)
            pending.clear()
            line_no += 1
            start = newline + 1
        if cut:
            yield line_no, _Cut()
            return
    if skip is not None:
        yield line_no, _Oversized(skip_size, skip.hexdigest(), skip_head)
    elif pending.strip():
        yield line_no, bytes(pending)


def _sanitize(text: str | None) -> str | None:
    """Text Arrow can store: lone surrogates (valid in Python, not in UTF-8) become escapes."""
    if text is None:
        return None
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class DayIngestor:
    """Accumulates one day's canonical rows and quarantine rows in Arrow batches."""

    def __init__(
        self,
        ds: str,
        benchmark_policy_id: str | None = None,
        limits: IngestLimits | None = None,
        file_name_key: str | bytes | None = None,
    ):
        self.ds = ds
        self.benchmark_policy_id = benchmark_policy_id
        self.limits = limits or IngestLimits()
        self.file_name_key = file_name_key or DEV_FILE_NAME_KEY
        self.stats = IngestStats()
        self._batches: list[pa.RecordBatch] = []
        # episodes waiting for conversion: (rows, number of source records, reject callback)
        self._pending: list[tuple[list[Row], int, Callable[[str], None]]] = []
        self._pending_rows = 0
        self._quarantine: list[Row] = []
        self._quarantine_raw_left = self.limits.max_quarantine_raw_bytes
        self._episode_ids: set[str] = set()
        self._transitions: dict[str, dict[int, Transition]] = {}
        self._checked_ids: set[str] = set()
        self._output_bytes = 0  # estimated size of the accepted rows

    # -- public -------------------------------------------------------------------------------

    def read_file(self, path: UPath, landing_dir: UPath | None = None) -> None:
        """Read one landing file (refused unread if it is a symlink or outside ``landing_dir``,
        by default its own folder)."""
        label = source_file_label(path.name, self.file_name_key)
        reason = refusal_reason(path, landing_dir if landing_dir is not None else path.parent)
        if reason:
            self.refuse_file(path, reason)
            return
        self.stats.files += 1
        naming = BenchmarkNaming.from_file_name(_file_stem(path), self.benchmark_policy_id)
        try:
            with _open(path) as raw:
                if path.name.endswith(".json"):
                    sources = self._read_json_array(raw, label)
                else:
                    sources = self._read_jsonl(raw, label, path.name.endswith(".gz"))
                for source in sources:
                    if self.stats.records_read >= self.limits.max_day_records:
                        sources.close()
                        self._count_and_reject(
                            _SourceRecord(label, source.index, "", None),
                            f"day record limit ({self.limits.max_day_records}) reached: the "
                            "records from this one on are not read",
                        )
                        break
                    self._take(source, naming, _file_stem(path))
        except OSError as exc:  # a symlink swapped in after the listing (ELOOP), a vanished file
            self.stats.files -= 1
            self.refuse_file(
                path, f"refused file: could not be opened or read ({type(exc).__name__})"
            )

    def refuse_file(self, path: UPath, reason: str) -> None:
        """Count a landing file that is not read and quarantine one row for it."""
        self.stats.files_refused += 1
        label = source_file_label(path.name, self.file_name_key)
        self._count_and_reject(_SourceRecord(label, 0, "", None), reason)

    def finish(self) -> IngestResult:
        for episode_id in sorted(self._transitions):
            by_step = self._transitions.pop(episode_id)
            records = [by_step[s] for s in sorted(by_step)]

            def reject(reason: str, records: list[Transition] = records) -> None:
                for t in records:
                    self._reject_transition(t, reason)

            if episode_id in self._episode_ids:
                reject("duplicate episode_id in this day")
                continue
            try:
                attrs, rows = assemble_transitions(records)
                self._emit(episode_id, attrs, rows, None, len(records), reject)
            except RecordError as exc:
                reject(str(exc))
            except Exception as exc:  # noqa: BLE001 (one episode never fails the day)
                reject(_unexpected(exc))
        self._flush()
        steps = pa.Table.from_batches(self._batches, schema=STEP_SCHEMA)
        quarantine = pa.Table.from_pylist(self._quarantine, schema=QUARANTINE_SCHEMA)
        self.stats.rows = steps.num_rows
        return IngestResult(steps=steps, quarantine=quarantine, stats=self.stats)

    # -- reading ------------------------------------------------------------------------------

    def _budget(self) -> tuple[int, str]:
        """Bytes the next file may expand to, and the reason given when it is cut."""
        limits = self.limits
        day_left = max(0, limits.max_day_bytes - self.stats.bytes_read)
        if limits.max_file_bytes <= day_left:
            return limits.max_file_bytes, f"file exceeds the {limits.max_file_bytes}-byte limit"
        return day_left, f"day byte limit ({limits.max_day_bytes}) reached"

    def _read_jsonl(self, raw: BinaryIO, label: str, gzipped: bool) -> Iterator[_SourceRecord]:
        budget, cut_reason = self._budget()
        lines = _bounded_lines(
            _chunks(raw, gzipped), self.limits.max_record_bytes, budget, self.stats
        )
        line_no = 0
        try:
            for line_no, line in lines:
                if isinstance(line, _Cut):
                    yield _SourceRecord(
                        label,
                        line_no,
                        "",
                        None,
                        error=f"{cut_reason}: the records from this line on are not read",
                    )
                    return
                if isinstance(line, _Oversized):
                    yield _SourceRecord(
                        label,
                        line_no,
                        line.sha256,
                        line.head.decode("utf-8", errors="replace"),
                        error=f"record exceeds the {self.limits.max_record_bytes}-byte limit",
                    )
                else:
                    yield from _split(_decode(line.rstrip(b"\r"), label, line_no))
        except (EOFError, zlib.error) as exc:
            kind = "truncated" if isinstance(exc, EOFError) else "corrupt"
            yield _SourceRecord(
                label,
                line_no + 1,
                "",
                None,
                error=f"{kind} gzip stream: the records from this line on are lost",
            )

    def _read_json_array(self, raw: BinaryIO, label: str) -> Iterator[_SourceRecord]:
        """Elements of a JSON array file (a single object counts as one element); each element
        is parsed on its own, so a bad one costs only the elements from it on."""
        budget, cut_reason = self._budget()
        limit = min(budget, self.limits.max_json_file_bytes)
        data = raw.read(limit + 1)
        self.stats.bytes_read += min(len(data), limit)
        if len(data) > limit:
            reason = (
                f"JSON file exceeds the {self.limits.max_json_file_bytes}-byte limit"
                if limit == self.limits.max_json_file_bytes
                else cut_reason
            )
            yield _SourceRecord(label, 0, "", None, error=f"{reason}: the file is not read")
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            sha = hashlib.sha256(data).hexdigest()
            yield _SourceRecord(label, 0, sha, None, error="not valid UTF-8")
            return
        del data
        decoder = json.JSONDecoder()
        pos = _skip_ws(text, 0)
        is_array = text.startswith("[", pos)
        pos = _skip_ws(text, pos + 1) if is_array else pos
        index = 0
        while pos < len(text) and not (is_array and text[pos] == "]"):
            try:
                value, end = decoder.raw_decode(text, pos)
            except (ValueError, RecursionError) as exc:
                what = "nested too deeply" if isinstance(exc, RecursionError) else "bad element"
                yield _SourceRecord(
                    label,
                    index,
                    "",
                    text[pos : pos + RAW_RECORD_LIMIT],
                    error=f"invalid JSON file: {what}: the elements from this one on are not read",
                )
                return
            parts = None if is_array else split_container(value)
            if parts is not None:  # a results object (tau2) or a multi-trace export: its records
                for part_index, part in enumerate(parts):
                    yield self._element_record(label, part_index, part)
                return
            element = text[pos:end].encode("utf-8", "surrogatepass")
            sha = hashlib.sha256(element).hexdigest()
            if len(element) > self.limits.max_record_bytes:
                yield _SourceRecord(
                    label,
                    index,
                    sha,
                    text[pos : pos + RAW_RECORD_LIMIT],
                    error=f"record exceeds the {self.limits.max_record_bytes}-byte limit",
                )
            else:
                yield _SourceRecord(label, index, sha, text[pos:end], value=value)
            index += 1
            pos = _skip_ws(text, end)
            if not is_array:
                break
            if text.startswith(",", pos):
                pos = _skip_ws(text, pos + 1)
            elif not text.startswith("]", pos):
                yield _SourceRecord(
                    label,
                    index,
                    "",
                    None,
                    error="invalid JSON file: expected ',' or ']': the elements from this one on "
                    "are not read",
                )
                return

    def _element_record(self, label: str, index: int, element: Any) -> _SourceRecord:
        """One record of a container, with its own hash; refused over the record limit."""
        text = json.dumps(element, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        data = text.encode("utf-8", "surrogatepass")
        sha = hashlib.sha256(data).hexdigest()
        if len(data) > self.limits.max_record_bytes:
            return _SourceRecord(
                label,
                index,
                sha,
                text[:RAW_RECORD_LIMIT],
                error=f"record exceeds the {self.limits.max_record_bytes}-byte limit",
            )
        return _SourceRecord(label, index, sha, text, value=element)

    # -- records ------------------------------------------------------------------------------

    def _take(self, source: _SourceRecord, naming: BenchmarkNaming, stem: str) -> None:
        """Count one source record and accept or quarantine it; never raises for its content."""
        self.stats.records_read += 1
        try:
            if source.error:
                raise RecordError(source.error)
            self._accept(source, naming, stem)
        except RecordError as exc:
            self._reject(source, str(exc))
        except Exception as exc:  # noqa: BLE001 (one record never fails the day)
            self._reject(source, _unexpected(exc))

    def _count_and_reject(self, source: _SourceRecord, reason: str) -> None:
        self.stats.records_read += 1
        self._reject(source, reason)

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
        attrs = {**attrs, "started_at": _timestamp(attrs.get("started_at"), "started_at")}
        full = [
            {
                "ds": self.ds,
                **attrs,
                **(lineage or {}),
                **row,
                "step": step,
                "ts": _timestamp(row.get("ts"), "ts"),
            }
            for step, row in enumerate(rows)
        ]
        self._check_ids(full)
        size = _row_bytes(attrs) * len(rows) + sum(_row_bytes(row) for row in rows)
        if size > self.limits.max_episode_bytes:
            raise RecordError(
                f"episode expands beyond the {self.limits.max_episode_bytes}-byte limit"
            )
        if self._output_bytes + size > self.limits.max_day_output_bytes:
            raise RecordError(f"day output limit ({self.limits.max_day_output_bytes}) reached")
        self._output_bytes += size
        self._episode_ids.add(episode_id)
        self.stats.episodes += 1
        self.stats.records_accepted += n_records
        self._pending.append((full, n_records, reject))
        self._pending_rows += len(full)
        if self._pending_rows >= BATCH_ROWS:
            self._flush()

    def _check_ids(self, rows: list[Row]) -> None:
        """Identifier and label columns are kept verbatim downstream (never masked), so a record
        whose ids are not strict identifiers (an email as episode id, a name as task type) is
        quarantined here."""
        for row in rows:
            for col in ID_COLUMNS:
                value = row.get(col)
                if value is None or value in self._checked_ids:
                    continue
                problem = identifier_problem(value) if isinstance(value, str) else "not a string"
                if problem:
                    raise RecordError(f"'{col}' {problem}")
                self._checked_ids.add(value)

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
        except Exception:  # noqa: BLE001, S110 (retried one episode at a time below)
            pass
        for full, n_records, reject in pending:
            try:
                self._batches.append(pa.RecordBatch.from_pylist(full, schema=STEP_SCHEMA))
            except Exception as exc:  # noqa: BLE001 (one episode never fails the day)
                self.stats.episodes -= 1
                self.stats.records_accepted -= n_records
                reject(f"value not representable ({type(exc).__name__})")

    # -- quarantine ---------------------------------------------------------------------------

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
            raw=source.raw,
        )

    def _reject_transition(self, t: Transition, reason: str) -> None:
        try:
            raw = json.dumps(t.record, ensure_ascii=False)[:RAW_RECORD_LIMIT]
        except Exception:  # noqa: BLE001 (the reason matters more than the raw text)
            raw = None
        self._quarantine_row(
            source_format="transition_jsonl",
            file=t.lineage["source_file"],
            index=t.lineage["source_index"],
            sha=t.lineage["source_sha256"],
            episode_id=t.episode_id,
            reason=reason,
            raw=raw,
        )

    def _quarantine_row(self, *, source_format, file, index, sha, episode_id, reason, raw) -> None:
        """One quarantine row; raw text is kept while the day's raw budget lasts."""
        self.stats.records_quarantined += 1
        key = reason.split(":")[0]
        self.stats.quarantine_reasons[key] = self.stats.quarantine_reasons.get(key, 0) + 1
        raw = _sanitize(raw[:RAW_RECORD_LIMIT]) if raw else None
        if raw is not None:
            size = len(raw.encode("utf-8"))
            if size > self._quarantine_raw_left:
                raw = None
            else:
                self._quarantine_raw_left -= size
        self._quarantine.append(
            {
                "ds": self.ds,
                "source_format": source_format,
                "source_file": file,
                "source_index": index,
                "source_sha256": sha,
                "episode_id": _sanitize(episode_id),
                "reason": reason,
                "raw_record": raw,
            }
        )


def _row_bytes(row: Row) -> int:
    """Estimated Arrow size of a row's values: text length plus 8 bytes per value."""
    return sum(len(v) + 8 if isinstance(v, str) else 8 for v in row.values()) + 64


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _timestamp(value: Any, column: str) -> dt.datetime | None:
    try:
        return parse_timestamp(value)
    except ValueError:
        raise RecordError(f"'{column}' is not an ISO-8601 timestamp") from None


def _unexpected(exc: BaseException) -> str:
    """A reason for an exception no parser anticipated: its type only (messages may quote data)."""
    if isinstance(exc, RecursionError):
        return "record nested too deeply (RecursionError)"
    return f"record could not be processed ({type(exc).__name__})"


def ingest_day(
    landing_dir: UPath | str,
    ds: str,
    benchmark_policy_id: str | None = None,
    limits: IngestLimits | None = None,
    file_name_key: str | bytes | None = None,
) -> IngestResult:
    """Ingest every landing file of one day (``landing_dir`` is that day's folder)."""
    landing_dir = UPath(landing_dir)
    listing = list_landing(landing_dir)
    ingestor = DayIngestor(ds, benchmark_policy_id, limits, file_name_key)
    ingestor.stats.files_skipped = len(listing.skipped)
    for path, reason in listing.refused:
        ingestor.refuse_file(path, reason)
    for path in listing.read:
        ingestor.read_file(path, landing_dir)
    return ingestor.finish()
