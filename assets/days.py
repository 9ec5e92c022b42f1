"""The days of one asset run: the only place in ``assets/`` that reads ``context.partition_keys``.

A run covers one day (the project's default: ``backfill_policy=None``, a run per day) or several
(a single-run backfill, a range materialized by a test). An asset body works one day at a time,
in day order, through :class:`RunDays`:

- ``for ds in days``: the days in order (``len(days)``, ``days.first``, ``days.keys``);
- ``days.log(ds, message)``: the per-day log line ``"<ds>: <message>"``;
- ``days.require(reader)``: fail at once (no retry) when an upstream input lacks a day;
- ``days.tables(produce, metadata)``: the output the IO manager writes day by day
  (:class:`~resources.io_manager.DayTables`). ``produce(ds)`` returns the day's table, or its
  :class:`~resources.io_manager.Shards`; it is called lazily, inside the IO manager, so a long
  backfill holds one day in memory; transient errors there are retried (``retry_transient``).
  ``metadata()`` is called once every day is written; its result passes the leak scan
  (``safe_metadata``) and is attached to the materialization. ``using`` opens one resource for
  all the days (``with using() as x``) and hands it over as ``produce(ds, x)``.

An asset whose output is small returns one table with a ``ds`` column instead; the IO manager
splits it by day, so one day and a single-run backfill take the same code.
"""

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from dagster import Failure

from assets.metadata import safe_metadata
from resources.io_manager import DayReader, DayTables, Shards, Table
from resources.retries import retry_transient

DayOutput = Table | Shards


class RunDays:
    """The days of the run ``context`` (an asset or asset-check context), in order."""

    def __init__(self, context: Any):
        self.keys: list[str] = list(context.partition_keys)
        self._log = context.log

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def first(self) -> str:
        return self.keys[0]

    def log(self, ds: str, message: str, warning: bool = False) -> None:
        """Log ``"<ds>: <message>"`` (counts only, never content)."""
        (self._log.warning if warning else self._log.info)(f"{ds}: {message}")

    def require(self, reader: DayReader, ds: str | None = None, hint: str = "") -> None:
        """Fail, without retries, when ``reader``'s asset lacks ``ds`` (default: any day of the
        run): ``"<asset> has no partition for <days>[: <hint>]"``."""
        missing = [d for d in (self.keys if ds is None else [ds]) if d not in reader.days]
        if missing:
            message = f"{reader.asset} has no partition for {', '.join(missing)}"
            raise Failure(message + (f": {hint}" if hint else ""), allow_retries=False)

    def tables(
        self,
        produce: Callable[..., DayOutput],
        metadata: Callable[[], dict] | None = None,
        using: Callable[[], AbstractContextManager] | None = None,
    ) -> DayTables:
        """The run's output, produced and written one day at a time (module doc)."""

        @retry_transient  # runs inside the IO manager's handle_output
        def each_day() -> Iterator[tuple[str, DayOutput]]:
            if using is None:
                for ds in self.keys:
                    yield ds, produce(ds)
                return
            with using() as opened:
                for ds in self.keys:
                    yield ds, produce(ds, opened)

        scanned = (lambda: safe_metadata(metadata())) if metadata else None
        return DayTables(each_day(), scanned)
