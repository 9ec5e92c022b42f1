"""Bounded readers: gzip and plain streams in chunks, lines cut at the record limit, source
records decoded from bytes; nothing longer than a limit is ever held."""

import hashlib
import json
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from upath import UPath

from agentic_pipeline.formats import (
    split_container,
)
from agentic_pipeline.ingest.landing import _is_local
from agentic_pipeline.ingest.limits import CHUNK_BYTES, RAW_RECORD_LIMIT, IngestLimits, IngestStats


@dataclass
class _SourceRecord:
    file: str  # the safe label of the file (see ``source_file_label``)
    index: int
    sha256: str
    raw: str | None  # decoded text, None when it could not be decoded
    value: Any = None
    error: str | None = None


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


@dataclass(frozen=True)
class FileMeasure:
    """A landing file's decompressed size and newline count, measured up to a cap."""

    bytes: int
    lines: int
    over: bool  # more than the cap: the file was not measured to its end

    def _replace_lines(self, lines: int) -> "FileMeasure":
        return FileMeasure(self.bytes, lines, self.over)


def measure_file(path: UPath, cap: int) -> FileMeasure:
    """Stream ``path`` (gunzipped when ``.gz``) counting bytes and newlines, stopping one chunk
    past ``cap`` bytes, so a bomb costs at most ``cap`` bytes of decompression and no memory.
    A corrupt or truncated gzip stream counts what it gave (reading it quarantines the rest).
    ``OSError`` (a vanished file, a symlink swapped in) is the caller's."""
    size = lines = 0
    last = b"\n"
    with _open(path) as raw:
        try:
            for chunk in _chunks(raw, path.name.endswith(".gz")):
                size += len(chunk)
                lines += chunk.count(b"\n")
                last = chunk[-1:] or last
                if size > cap:
                    return FileMeasure(size, lines, True)
        except (EOFError, zlib.error):
            pass
    return FileMeasure(size, lines + (last != b"\n"), False)


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


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def read_jsonl(
    raw: BinaryIO,
    label: str,
    gzipped: bool,
    limits: IngestLimits,
    stats: IngestStats,
    budget: int,
    cut_reason: str,
) -> Iterator[_SourceRecord]:
    """Source records of a JSONL stream (gzipped or not), reading at most ``budget`` bytes
    (then one record ``cut_reason`` stands for the rest); a line over the record limit is
    skipped to the next newline without being held."""
    lines = _bounded_lines(_chunks(raw, gzipped), limits.max_record_bytes, budget, stats)
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
                    error=f"record exceeds the {limits.max_record_bytes}-byte limit",
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


def read_json_array(
    raw: BinaryIO,
    label: str,
    limits: IngestLimits,
    stats: IngestStats,
    budget: int,
    cut_reason: str,
) -> Iterator[_SourceRecord]:
    """Elements of a JSON array file (a single object counts as one element); each element
    is parsed on its own, so a bad one costs only the elements from it on."""
    limit = min(budget, limits.max_json_file_bytes)
    data = raw.read(limit + 1)
    stats.bytes_read += min(len(data), limit)
    if len(data) > limit:
        reason = (
            f"JSON file exceeds the {limits.max_json_file_bytes}-byte limit"
            if limit == limits.max_json_file_bytes
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
                yield _element_record(label, part_index, part, limits)
            return
        yield _checked_record(label, index, text[pos:end], value, limits)
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


def _element_record(label: str, index: int, element: Any, limits: IngestLimits) -> _SourceRecord:
    """One record of a container, with its own hash; refused over the record limit."""
    text = json.dumps(element, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return _checked_record(label, index, text, element, limits)


def _checked_record(
    label: str, index: int, text: str, value: Any, limits: IngestLimits
) -> _SourceRecord:
    """The record of one JSON element (``text`` parsed as ``value``), hashed; refused, with
    only its head kept, over the record limit."""
    data = text.encode("utf-8", "surrogatepass")
    sha = hashlib.sha256(data).hexdigest()
    if len(data) > limits.max_record_bytes:
        return _SourceRecord(
            label,
            index,
            sha,
            text[:RAW_RECORD_LIMIT],
            error=f"record exceeds the {limits.max_record_bytes}-byte limit",
        )
    return _SourceRecord(label, index, sha, text, value=value)
