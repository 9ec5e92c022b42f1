"""The day ingestor: source records to canonical step rows or quarantine rows, within the limits."""

import datetime as dt
import json
import re
from collections.abc import Callable
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
)
from agentic_pipeline.ingest.landing import (
    _file_stem,
    list_landing,
    refusal_reason,
    source_file_label,
)
from agentic_pipeline.ingest.limits import (
    ANALYSED_COLUMNS,
    BATCH_ROWS,
    BUDGET_REASON,
    DEV_FILE_NAME_KEY,
    RAW_RECORD_LIMIT,
    IngestLimits,
    IngestResult,
    IngestStats,
    is_budget_reason,
)
from agentic_pipeline.ingest.readers import (
    FileMeasure,
    _open,
    _SourceRecord,
    measure_file,
    read_json_array,
    read_jsonl,
)
from agentic_pipeline.pii_patterns import identifier_problem
from agentic_pipeline.schema import (
    ID_COLUMNS,
    QUARANTINE_SCHEMA,
    STEP_SCHEMA,
    parse_timestamp,
)

_UNBROKEN = re.compile(r"\S+")


def _longest_unbroken(text: str) -> int:
    """Length of the longest run without whitespace that masking would hand to spaCy at once:
    in the text, or, when the text is a JSON document (masking walks it), in its keys and string
    values (minified JSON arguments are short leaves, not one run)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = text
    if not isinstance(value, dict | list):
        value = [value] if isinstance(value, str) else []
    longest, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and len(item) > longest:
            longest = max(longest, *(m.end() - m.start() for m in _UNBROKEN.finditer(item)), 0)
    return longest


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

    def read_file(
        self, path: UPath, landing_dir: UPath | None = None, admitted: int | None = None
    ) -> None:
        """Read one landing file (refused unread if it is a symlink or outside ``landing_dir``,
        by default its own folder). ``admitted``: the bytes the day's budget gave it (see
        ``share_day``); a file that grew since it was measured is cut there."""
        label = source_file_label(path.name, self.file_name_key)
        reason = refusal_reason(path, landing_dir if landing_dir is not None else path.parent)
        if reason:
            self.refuse_file(path, reason)
            return
        self.stats.files += 1
        naming = BenchmarkNaming.from_file_name(_file_stem(path), self.benchmark_policy_id)
        try:
            with _open(path) as raw:
                budget = self._budget(admitted)
                if path.name.endswith(".json"):
                    sources = read_json_array(raw, label, self.limits, self.stats, *budget)
                else:
                    gz = path.name.endswith(".gz")
                    sources = read_jsonl(raw, label, gz, self.limits, self.stats, *budget)
                for source in sources:
                    if self.stats.records_read >= self.limits.max_day_records:
                        sources.close()
                        self._count_and_reject(
                            _SourceRecord(label, source.index, "", None),
                            f"{BUDGET_REASON}: day record limit ({self.limits.max_day_records}) "
                            "reached: the records from this one on are not read",
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

    def share_day(self, measures: dict[UPath, FileMeasure]) -> dict[UPath, str | None]:
        """Why each measured file is refused whole (``None``: admitted), see ``IngestLimits``.

        Files over ``max_file_bytes`` are refused as bombs; the others are admitted smallest
        first (decompressed bytes, then lines) while they fit in what is left of the day's bytes
        and records, so a large file only ever takes what the smaller ones left.
        """
        limits = self.limits
        out: dict[UPath, str | None] = {}
        fitting = []
        for path, m in measures.items():
            if m.over or m.bytes > limits.max_file_bytes:
                out[path] = (
                    f"file expands beyond the {limits.max_file_bytes}-byte file limit: "
                    "refused whole, not read"
                )
            else:
                fitting.append(path)
        bytes_left, records_left = limits.max_day_bytes, limits.max_day_records
        order = sorted(fitting, key=lambda p: (measures[p].bytes, measures[p].lines, p.name))
        for path in order:
            m = measures[path]
            if m.bytes > bytes_left or m.lines > records_left:
                out[path] = (
                    f"{BUDGET_REASON}: does not fit what is left: the file's {m.bytes} bytes "
                    f"and {m.lines} lines exceed the {bytes_left} bytes and {records_left} "
                    "records left (smaller files first) of the day's "
                    f"limits ({limits.max_day_bytes} bytes, {limits.max_day_records} records): "
                    "refused whole, not read"
                )
            else:
                out[path] = None
                bytes_left -= m.bytes
                records_left -= m.lines
        return out

    def _budget(self, admitted: int | None = None) -> tuple[int, str]:
        """Bytes the next file may expand to, and the reason given when it is cut."""
        limits = self.limits
        day_left = max(0, limits.max_day_bytes - self.stats.bytes_read)
        if admitted is not None and admitted <= min(day_left, limits.max_file_bytes):
            return admitted, "file grew after it was measured"
        if limits.max_file_bytes <= day_left:
            return limits.max_file_bytes, f"file exceeds the {limits.max_file_bytes}-byte limit"
        return day_left, f"{BUDGET_REASON}: day byte limit ({limits.max_day_bytes}) reached"

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
        self._check_analysis(full)
        size = _row_bytes(attrs) * len(rows) + sum(_row_bytes(row) for row in rows)
        if size > self.limits.max_episode_bytes:
            raise RecordError(
                f"episode expands beyond the {self.limits.max_episode_bytes}-byte limit"
            )
        if self._output_bytes + size > self.limits.max_day_output_bytes:
            raise RecordError(
                f"{BUDGET_REASON}: day output limit ({self.limits.max_day_output_bytes}) reached"
            )
        self._output_bytes += size
        self._episode_ids.add(episode_id)
        self.stats.episodes += 1
        self.stats.records_accepted += n_records
        self._pending.append((full, n_records, reject))
        self._pending_rows += len(full)
        if self._pending_rows >= BATCH_ROWS:
            self._flush()

    def _check_analysis(self, rows: list[Row]) -> None:
        """Bound the cost of masking one record: the characters of its distinct text cells
        (what masking analyses) may not exceed ``max_record_analysis_chars``."""
        seen: set[str] = set()
        chars = longest = 0
        for row in rows:
            for col in ANALYSED_COLUMNS:
                value = row.get(col)
                if isinstance(value, str) and value not in seen:
                    seen.add(value)
                    chars += len(value)
                    if len(value) > self.limits.max_record_unbroken_chars:
                        longest = max(longest, _longest_unbroken(value))
        limits = self.limits
        if chars > limits.max_record_analysis_chars:
            raise RecordError(
                f"record analysis budget exceeded: {chars} characters to analyse, over the "
                f"per-record budget of {limits.max_record_analysis_chars}"
            )
        if longest > limits.max_record_unbroken_chars:
            raise RecordError(
                f"record analysis budget exceeded: a run of {longest} characters without "
                f"whitespace, over the per-record budget of {limits.max_record_unbroken_chars}"
            )

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
        self.stats.refused_by_budget += is_budget_reason(reason)
        key = ":".join(reason.split(":")[: 2 if is_budget_reason(reason) else 1])
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
    measures: dict[UPath, FileMeasure] = {}
    for path in listing.read:
        try:
            measures[path] = measure_file(path, ingestor.limits.max_file_bytes)
        except OSError:  # read_file refuses it with the reason
            measures[path] = FileMeasure(0, 0, False)
        if path.name.endswith(".json"):  # one document: its lines are no records (the day's
            measures[path] = measures[path]._replace_lines(1)  # record limit still counts them)
    refusals = ingestor.share_day(measures)
    for path in listing.read:  # in name order: the day's rows keep the files' order
        if refusals[path]:
            ingestor.refuse_file(path, refusals[path])
        else:
            ingestor.read_file(path, landing_dir, measures[path].bytes)
    return ingestor.finish()
