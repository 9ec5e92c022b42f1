"""Landing files without the subject's records, read through the ingestion's bounded readers.

A landing file is read the way ingestion reads it (``ingest.readers``: chunked gunzip, lines cut at
``max_record_bytes``, at most ``max_file_bytes`` per file, ``max_json_file_bytes`` for a JSON
document), so a bomb or a corrupt file costs what it costs ingestion and is *skipped with a reason*
(the receipt lists it; ingestion refuses it too), never fatal.

Only the subject's records go: a JSONL line whose episode is erased or whose text holds one of the
subject's values in clear (``forms.clear_regex``); in a JSON array, the elements; in a tau2 results
document, the simulations (and the tasks no kept simulation uses that quote the subject). The new
file is written beside the old one, read back and checked before it replaces it: the other people's
records must all be there (same count) and none of the subject's.
"""

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from upath import UPath

from agentic_pipeline.formats import split_container
from agentic_pipeline.formats.tau2 import is_results_file
from agentic_pipeline.ingest import IngestLimits, IngestStats
from agentic_pipeline.ingest.readers import _bounded_lines, _chunks, _Cut, _open, _Oversized
from agentic_pipeline.storage.files import atomic_path, is_local


class LandingCheckError(RuntimeError):
    """A rewritten landing file did not hold exactly the other people's records: not replaced."""


@dataclass
class LandingOutcome:
    """What erasure did to one landing file (counts only)."""

    records: int = 0  # records read before
    removed: int = 0
    unsearched: int = 0  # records over the record limit (kept, not searched)
    skipped: str | None = None  # why the file could not be searched (it is left as it was)


@dataclass
class _Subject:
    erased: set[str]
    matcher: re.Pattern | None
    stem: str

    def owns(self, text: str, value: Any) -> bool:
        if self.matcher is not None and self.matcher.search(text):
            return True
        if not isinstance(value, dict):
            return False
        ids = {str(value.get("episode_id")), str(value.get("id"))}
        if "traj" in value:  # benchmark arrays: the id is derived from the file and the task
            ids.add(f"{self.stem}-task{value.get('task_id')}-trial{value.get('trial')}")
        return bool(ids & self.erased)


def _stem(name: str) -> str:
    return name.split(".", 1)[0]


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _scan_lines(
    raw: BinaryIO, gz: bool, subject: _Subject, limits: IngestLimits, out: LandingOutcome
) -> set[int]:
    """Line numbers of the subject's records (``out`` gets the counts, or ``skipped``)."""
    drop: set[int] = set()
    lines = _bounded_lines(
        _chunks(raw, gz), limits.max_record_bytes, limits.max_file_bytes, IngestStats()
    )
    try:
        for line_no, line in lines:
            if isinstance(line, _Cut):
                out.skipped = (
                    f"not searched past the {limits.max_file_bytes}-byte file limit "
                    "(ingestion refuses the file too)"
                )
                return drop
            out.records += 1
            if isinstance(line, _Oversized):
                out.unsearched += 1
                continue
            text = line.decode("utf-8", errors="replace")
            if subject.owns(text, _loads(text)):
                drop.add(line_no)
    except (EOFError, zlib.error):
        out.skipped = "corrupt or truncated gzip stream (ingestion quarantines it too)"
    return drop


def _filtered_lines(raw: BinaryIO, gz: bool, drop: set[int]) -> Iterator[bytes]:
    """The decompressed bytes of ``raw`` without the lines in ``drop`` (numbered from 1 as
    ``_bounded_lines`` numbers them), streamed: no line is ever held whole."""
    line_no = 1
    for chunk in _chunks(raw, gz):
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline + 1
            if line_no not in drop:
                yield chunk[start:end]
            if newline < 0:
                break
            line_no += 1
            start = end


def _write(tmp, pieces: Iterator[bytes], gz: bool) -> None:
    with open(tmp, "wb") as fh:
        if gz:  # mtime 0 and no name: the same records give the same bytes
            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) as out:
                for piece in pieces:
                    out.write(piece)
        else:
            for piece in pieces:
                fh.write(piece)


def _erase_jsonl(path: UPath, subject: _Subject, limits: IngestLimits) -> LandingOutcome:
    gz = path.name.endswith(".gz")
    out = LandingOutcome()
    with _open(path) as raw:
        drop = _scan_lines(raw, gz, subject, limits, out)
    if out.skipped or not drop:
        return out
    mode = path.stat().st_mode & 0o777 if is_local(path) else None  # the file keeps its mode
    with atomic_path(path, mode) as tmp:
        with _open(path) as raw:
            _write(tmp, _filtered_lines(raw, gz, drop), gz)
        check = LandingOutcome()
        with open(tmp, "rb") as raw:
            left = _scan_lines(raw, gz, subject, limits, check)
        if left or check.skipped or check.records != out.records - len(drop):
            raise LandingCheckError(
                f"{path.name}: the rewritten file holds {check.records} records, expected "
                f"{out.records - len(drop)} of other people and none of the subject's"
            )
    out.removed = len(drop)
    return out


def _erase_json(path: UPath, subject: _Subject, limits: IngestLimits) -> LandingOutcome:
    out = LandingOutcome()
    with _open(path) as raw:
        data = raw.read(limits.max_json_file_bytes + 1)
    if len(data) > limits.max_json_file_bytes:
        out.skipped = (
            f"over the {limits.max_json_file_bytes}-byte JSON file limit, not searched "
            "(ingestion refuses it too)"
        )
        return out
    value = _loads(data.decode("utf-8", errors="replace"))
    if value is None:
        out.skipped = "not valid JSON (ingestion quarantines it too)"
        return out
    kept, records, removed = _without_subject(value, subject)
    out.records = records
    if not removed:
        return out
    payload = json.dumps(kept, ensure_ascii=False, indent=2).encode("utf-8", "surrogatepass")
    again, check_records, check_removed = _without_subject(_loads(payload.decode()), subject)
    if check_removed or check_records != records - removed:
        raise LandingCheckError(
            f"{path.name}: the rewritten file holds {check_records} records, expected "
            f"{records - removed} of other people and none of the subject's"
        )
    mode = path.stat().st_mode & 0o777 if is_local(path) else None
    with atomic_path(path, mode) as tmp:
        tmp.write_bytes(payload)
    out.removed = removed
    return out


def _without_subject(value: Any, subject: _Subject) -> tuple[Any, int, int]:
    """``value`` without the subject's records, the number of records, and of those removed."""
    if isinstance(value, dict) and is_results_file(value) and split_container(value) is not None:
        sims = value.get("simulations") or []
        tasks = {str(t.get("id")): t for t in value.get("tasks") or [] if isinstance(t, dict)}
        kept = []
        for sim, record in zip(sims, split_container(value), strict=True):
            text = json.dumps(record, ensure_ascii=False)
            if not subject.owns(text, sim):
                kept.append(sim)
        used = {str(s.get("task_id")) for s in kept if isinstance(s, dict)}
        kept_tasks = [
            t
            for tid, t in tasks.items()
            if tid in used or not subject.owns(json.dumps(t, ensure_ascii=False), None)
        ]
        rest = {**value, "simulations": kept}
        if "tasks" in value:
            rest["tasks"] = kept_tasks
        return rest, len(sims), len(sims) - len(kept)
    items = value if isinstance(value, list) else [value]
    kept = [v for v in items if not subject.owns(json.dumps(v, ensure_ascii=False), v)]
    if isinstance(value, list):
        return kept, len(items), len(items) - len(kept)
    return (kept[0] if kept else []), 1, 1 - len(kept)


def erase_landing_file(
    path: UPath, erased: set[str], matcher: re.Pattern | None, limits: IngestLimits
) -> LandingOutcome:
    """Remove the subject's records from one landing file (see the module doc)."""
    subject = _Subject(erased, matcher, _stem(path.name))
    try:
        if path.name.endswith(".json"):
            return _erase_json(path, subject, limits)
        return _erase_jsonl(path, subject, limits)
    except OSError as exc:
        return LandingOutcome(skipped=f"could not be read ({type(exc).__name__})")


def search_landing_file(path: UPath, matcher: re.Pattern, limits: IngestLimits) -> LandingOutcome:
    """Count the records of one landing file that still hold the subject (``removed`` is that
    count here); read like ``erase_landing_file``, nothing is written."""
    subject = _Subject(set(), matcher, _stem(path.name))
    out = LandingOutcome()
    try:
        if path.name.endswith(".json"):
            with _open(path) as raw:
                data = raw.read(limits.max_json_file_bytes + 1)
            if len(data) > limits.max_json_file_bytes:
                out.skipped = f"over the {limits.max_json_file_bytes}-byte JSON file limit"
                return out
            value = _loads(data.decode("utf-8", errors="replace"))
            if value is None:
                out.skipped = "not valid JSON"
                return out
            _, out.records, out.removed = _without_subject(value, subject)
            return out
        with _open(path) as raw:
            out.removed = len(_scan_lines(raw, path.name.endswith(".gz"), subject, limits, out))
    except OSError as exc:
        out.skipped = f"could not be read ({type(exc).__name__})"
    return out
