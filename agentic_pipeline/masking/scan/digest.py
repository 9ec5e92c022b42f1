"""A digest of what a scan read: the string columns of a table, row by row, whatever its shards.

Masking scans each day's masked rows before they are written; the blocking check reads the day back
from storage. ``TableDigest`` lets the check know that the stored rows are, byte for byte, the rows
that were scanned (then the scan need not run twice), and re-scan when they are not. It hashes every
string column the scan covers (``string_columns``), each value with its length, in row order: the
same rows cut into other shards give the same digest, any changed, added, dropped or reordered
value another. It is a SHA-256 of masked data, safe to keep in metadata.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agentic_pipeline.masking.scan.leaks import string_columns


class TableDigest:
    """SHA-256 of the string columns of the tables given to ``update``, in order."""

    def __init__(self) -> None:
        #: column name -> running hashes of its value lengths (-1: null) and of its bytes
        self._columns: dict[str, tuple[Any, Any]] = {}
        self.rows = 0

    def update(self, table: pa.Table) -> None:
        """Add ``table``'s rows (the next shard); its string columns must be the first's."""
        names = string_columns(table)
        if not self._columns and not self.rows:
            self._columns = {name: (hashlib.sha256(), hashlib.sha256()) for name in names}
        elif sorted(names) != sorted(self._columns):
            self._columns["<columns changed>"] = (hashlib.sha256(), hashlib.sha256())
        for name in names:
            if name in self._columns:
                for chunk in table.column(name).chunks:
                    self._add(name, chunk)
        self.rows += table.num_rows

    def _add(self, name: str, chunk: pa.Array) -> None:
        """The lengths and the bytes of one chunk's values: the same for any cut into chunks."""
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_decode()
        chunk = chunk.cast(pa.large_string())
        lengths, data = self._columns[name]
        sizes = pc.fill_null(pc.binary_length(chunk), -1)
        lengths.update(sizes.to_numpy(zero_copy_only=False).astype("<i8").tobytes())
        if len(chunk):
            offsets = np.frombuffer(chunk.buffers()[1], dtype="<i8")
            first, last = offsets[chunk.offset], offsets[chunk.offset + len(chunk)]
            data.update(memoryview(chunk.buffers()[2])[first:last])

    def hexdigest(self) -> str:
        """The digest of the rows so far (columns by name, so their order does not count)."""
        total = hashlib.sha256(f"rows={self.rows}".encode())
        for name in sorted(self._columns):
            lengths, data = self._columns[name]
            total.update(f"\n{name}=".encode() + lengths.digest() + data.digest())
        return total.hexdigest()


def table_digest(table: pa.Table) -> str:
    """``TableDigest`` of one table."""
    digest = TableDigest()
    digest.update(table)
    return digest.hexdigest()
