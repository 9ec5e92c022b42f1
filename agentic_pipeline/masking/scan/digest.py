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

import pyarrow as pa

from agentic_pipeline.masking.scan.leaks import string_columns

_NULL = b"\xff" * 8  # no UTF-8 length prefix is all ones


class TableDigest:
    """SHA-256 of the string columns of the tables given to ``update``, in order."""

    def __init__(self) -> None:
        self._columns: dict[str, Any] = {}  # column name -> its running hash
        self.rows = 0

    def update(self, table: pa.Table) -> None:
        """Add ``table``'s rows (the next shard); its string columns must be the first's."""
        names = string_columns(table)
        if not self._columns and not self.rows:
            self._columns = {name: hashlib.sha256() for name in names}
        elif sorted(names) != sorted(self._columns):
            self._columns["<columns changed>"] = hashlib.sha256()  # never equal to a real digest
        for name in names:
            h = self._columns.get(name)
            if h is None:
                continue
            for value in table.column(name).to_pylist():
                if value is None:
                    h.update(_NULL)
                else:
                    data = value.encode()
                    h.update(len(data).to_bytes(8, "little"))
                    h.update(data)
        self.rows += table.num_rows

    def hexdigest(self) -> str:
        """The digest of the rows so far (columns by name, so their order does not count)."""
        total = hashlib.sha256(f"rows={self.rows}".encode())
        for name in sorted(self._columns):
            total.update(f"\n{name}=".encode() + self._columns[name].digest())
        return total.hexdigest()


def table_digest(table: pa.Table) -> str:
    """``TableDigest`` of one table."""
    digest = TableDigest()
    digest.update(table)
    return digest.hexdigest()
