"""The data root and its hive-partitioned Parquet zones.

``<root>/<zone>/<asset>/ds=YYYY-MM-DD/part-NNNNN.parquet``: one folder per day, so
``pyarrow.dataset``, DuckDB, Polars and Spark read a zone directly with hive partitioning. The
``ds`` column lives in the folder name, not in the file, and is added back on read.

Shards. A day is one or more part files, cut by episode id (``storage.shards``). The day's order
is shard order, then the original order within the shard. Readers stream a day shard by shard
(``iter_shards``) or concatenate the shards (``read_partition``). Days written by older code as
one ``part-0.parquet`` stay readable (it is shard 0).

A day is replaced atomically: the new folder is written beside the old one and swapped in
with renames, so readers see either the old day or the new one (all its shards), and
re-materializing a day touches nothing else. Every file is written and flushed to disk by
``storage.files.write_file`` before its folder is marked complete; a file outside the day folders
(the policy registry, erasure receipts) is replaced by ``atomic_write``. The restricted zone (raw
personal data) is created with 0700 folders and 0600 files.

Crash safety and concurrent writers (local data roots). Every write or delete of a day holds an
exclusive ``flock`` on ``<asset>/.ds=<day>.lock`` (the kernel releases it when the holder dies,
SIGKILL included), so writers of one day serialize. A write goes through these states, and a
process killed at any point leaves something the next writer or reader of that day repairs:

1. ``.ds=<day>.tmp-<id>/``: being written; never trusted, removed by the next writer;
2. ``.ds=<day>.ready-<id>/``: complete (renamed once every file is written);
3. ``ds=<day>/`` -> ``.trash-ds=<day>-<id>/`` (the commit point: the old day is gone), then
   ready -> ``ds=<day>/``, then the trash is removed.

While a ``ds=`` folder exists it is the day and leftovers are just removed. Without one, a ready
folder is renamed in (the write had committed), else the newest trash folder is renamed back (a
swap killed by older code, whose staging had no completeness mark).

Readers (``partition_dir``, ``partitions``, ``has_partition``, ...) repair a day whose ``ds=``
folder is missing while a ready or trash folder exists; ``recover()`` sweeps every leftover.
Hive readers skip the dot-named folders and lock files. Object stores have neither rename nor
locks: there the write is copy-then-replace and the guard against two writers of one day is
Dagster's one run per partition (the CLI runs days one after another).
"""

import fcntl
import logging
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.storage.files import (
    DIR_MODE,
    FILE_MODE,
    atomic_path,
    atomic_write_bytes,
    fsync_dir,
    is_local,
    write_file,
)
from agentic_pipeline.storage.shards import (
    SHARD_FILE,
    SHARD_RE,
    parquet_bytes,
    rows_per_shard_default,
    split_shards,
)

ZONES = ("restricted", "warehouse")


class CorruptPartitionError(OSError):
    """A part file of a day cannot be read; the message names the file and how to rebuild it."""


#: Called with one line when a day's lock is held by another process (``partition_lock``); the
#: default logs it. The erase command sets it to print on the console.
LockWaitHook = Callable[[str], None]
_log = logging.getLogger(__name__)
#: Name prefixes of the folders a write leaves beside ``ds=<day>`` while it runs (module doc).
_STAGING, _READY, _TRASH, _DELETED = ".tmp-", ".ready-", ".trash-", ".deleted-"


def _holder() -> str:
    """This process as a lock holder: pid, program and since when."""
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    return (
        f"pid {os.getpid()} ({program}) since {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"
    )


def _leftover_day(name: str) -> str | None:
    """The day of a staging/ready/trash/deleted folder name, else None."""
    if name.startswith(".ds=") and (_STAGING in name or _READY in name):
        return name[4:14]
    for prefix in (_TRASH, _DELETED):
        if name.startswith(f"{prefix}ds="):
            return name[len(prefix) + 3 : len(prefix) + 13]
    return None


class DataRoot:
    """Paths under the data root; local or any fsspec URL.

    ``rows_per_shard``: target rows of one part file (default ``rows_per_shard_default()``).
    """

    def __init__(self, root: str | os.PathLike | UPath, rows_per_shard: int | None = None):
        self.root = UPath(root)
        self.rows_per_shard = rows_per_shard or rows_per_shard_default()
        #: told (one line) when a day's lock is held by someone else; see ``partition_lock``
        self.on_lock_wait: LockWaitHook = _log.warning

    @property
    def is_local(self) -> bool:
        return is_local(self.root)

    def landing(self, ds: str | None = None) -> UPath:
        return self.root / "landing" / ds if ds else self.root / "landing"

    def asset_dir(self, zone: str, asset: str) -> UPath:
        if zone not in ZONES:
            raise ValueError(f"unknown zone {zone!r}")
        return self.root / zone / asset

    def partition_dir(self, zone: str, asset: str, ds: str) -> UPath:
        """``<zone>/<asset>/ds=<ds>``; a day half-swapped by a killed writer is repaired first."""
        final = self._final(zone, asset, ds)
        if self.is_local and not os.path.isdir(str(final)) and self._leftovers(zone, asset, ds):
            self._recover_day(zone, asset, ds)
        return final

    def _final(self, zone: str, asset: str, ds: str) -> UPath:
        return self.asset_dir(zone, asset) / f"ds={ds}"

    # -- writing ------------------------------------------------------------------------------

    def _mkdir(self, path: UPath, zone: str) -> None:
        path.mkdir(parents=True, exist_ok=True)
        if self.is_local:
            # tighten every folder we own from the zone down (umask may have loosened them)
            zone_root = self.root / zone
            for p in [zone_root, *[q for q in path.parents if str(q).startswith(str(zone_root))]]:
                if p.exists():
                    os.chmod(str(p), DIR_MODE[zone])
            os.chmod(str(path), DIR_MODE[zone])

    def write_partition(self, zone: str, asset: str, ds: str, table: pa.Table) -> UPath:
        """Replace one day of ``asset`` with ``table`` (its ``ds`` column, if any, is dropped),
        cut into shards by episode id when it is larger than ``rows_per_shard``.

        Returns the first part file."""
        if "ds" in table.column_names:
            table = table.drop_columns(["ds"])
        shards = split_shards(table, self.rows_per_shard)
        return self.write_partition_shards(zone, asset, ds, shards)

    def write_partition_shards(
        self, zone: str, asset: str, ds: str, shards: Iterable[pa.Table]
    ) -> UPath:
        """Replace one day of ``asset`` with ``shards``, written as given (one part file each, in
        order; ``ds`` columns dropped). Consumed lazily: one shard in memory at a time. The swap
        is atomic as ``replace_partition_files``'. Returns the first part file."""

        def files() -> Iterator[tuple[str, pa.Buffer]]:
            n = 0
            for n, shard in enumerate(shards, start=1):  # noqa: B007
                if "ds" in shard.column_names:
                    shard = shard.drop_columns(["ds"])
                yield SHARD_FILE.format(n - 1), parquet_bytes(shard)
            if n == 0:
                raise ValueError(f"{zone}/{asset} ds={ds}: a day needs at least one shard")

        final = self.replace_partition_files(zone, asset, ds, files())
        return final / SHARD_FILE.format(0)

    def replace_partition_files(
        self,
        zone: str,
        asset: str,
        ds: str,
        files: Mapping[str, bytes | pa.Buffer] | Iterable[tuple[str, bytes | pa.Buffer]],
    ) -> UPath:
        """Replace the whole ``ds=`` folder of ``asset`` with ``files`` (name -> content, or an
        iterable of ``(name, content)`` pairs, consumed one at a time while the day is staged).

        The files are written to a staging folder that is swapped in by rename, so readers see the
        old day or the new one, and re-writing a day touches nothing else. Writers of one day
        serialize on the day's lock; leftovers of a killed writer are repaired first.
        """
        final = self._final(zone, asset, ds)
        with self.partition_lock(zone, asset, ds):
            if self.is_local:
                self._repair_locked(zone, asset, ds)
            tag = uuid.uuid4().hex[:8]
            staging = final.parent / f".ds={ds}{_STAGING}{tag}"
            self._mkdir(staging, zone)
            items = files.items() if isinstance(files, Mapping) else files
            try:
                for name, payload in items:
                    write_file(staging / name, payload, FILE_MODE[zone] if self.is_local else None)
            except BaseException:  # the producer failed midway: the old day stays, whole
                if self.is_local:
                    shutil.rmtree(str(staging), ignore_errors=True)
                elif staging.exists():
                    staging.fs.rm(staging.path, recursive=True)
                raise
            if self.is_local:  # complete: a swap cut short below is finished by the recovery
                fsync_dir(str(staging))  # the files' names are on disk before the mark
                ready = final.parent / f".ds={ds}{_READY}{tag}"
                os.rename(str(staging), str(ready))
                staging = ready
            self._swap_in(staging, final)
        return final

    def _swap_in(self, staging: UPath, final: UPath) -> None:
        if self.is_local:
            trash = None
            if os.path.isdir(str(final)):
                trash = final.parent / f"{_TRASH}{final.name}-{uuid.uuid4().hex[:8]}"
                os.rename(str(final), str(trash))
            os.rename(str(staging), str(final))
            fsync_dir(str(final.parent))  # the swap survives a crash
            if trash is not None:
                shutil.rmtree(str(trash))
        else:  # object stores have no atomic folder rename: copy the part, then drop staging
            if final.exists():
                final.fs.rm(final.path, recursive=True)
            final.fs.mv(staging.path, final.path, recursive=True)

    def _zone_file(self, zone: str, path: UPath) -> None:
        """Refuse a path outside ``zone``; create its folders with the zone's modes."""
        if zone not in ZONES or not str(path).startswith(str(self.root / zone) + "/"):
            raise ValueError(f"{path} is not inside the {zone!r} zone of {self.root}")
        self._mkdir(path.parent, zone)

    def atomic_write(self, zone: str, path: UPath, data: bytes | pa.Buffer) -> UPath:
        """Replace one file of ``zone`` that is not a day's part (the policy registry, an erasure
        receipt) with ``data`` atomically (``storage.files.atomic_write_bytes``); folders and
        file get the zone's modes on local roots. Returns the path."""
        self._zone_file(zone, path)
        return atomic_write_bytes(path, data, FILE_MODE[zone] if self.is_local else None)

    @contextmanager
    def atomic_path(self, zone: str, path: UPath) -> Iterator[Path]:
        """:meth:`atomic_write` for a writer that needs a file name (``storage.files.atomic_path``):
        write the yielded path; it replaces ``path`` when the block ends without error."""
        self._zone_file(zone, path)
        with atomic_path(path, FILE_MODE[zone] if self.is_local else None) as tmp:
            yield tmp

    def delete_partition(self, zone: str, asset: str, ds: str) -> bool:
        """Remove one day (under the day's lock; a kill midway never leaves half a day)."""
        path = self._final(zone, asset, ds)
        if not self.is_local:
            if not path.exists():
                return False
            path.fs.rm(path.path, recursive=True)
            return True
        if not self.asset_dir(zone, asset).exists():
            return False
        with self.partition_lock(zone, asset, ds):
            self._repair_locked(zone, asset, ds)
            if not os.path.isdir(str(path)):
                return False
            doomed = path.parent / f"{_DELETED}{path.name}-{uuid.uuid4().hex[:8]}"
            os.rename(str(path), str(doomed))  # atomic: the day is gone, never half-gone
            shutil.rmtree(str(doomed))
        return True

    # -- locking and recovery -----------------------------------------------------------------

    @contextmanager
    def partition_lock(self, zone: str, asset: str, ds: str) -> Iterator[None]:
        """Hold the exclusive lock of one day (local roots; a no-op on object stores).

        ``flock`` on ``<asset>/.ds=<ds>.lock``: it serializes processes and threads alike and the
        kernel drops it when its holder dies, so a killed writer never blocks the next one. Not
        re-entrant: do not nest it for the same day.
        """
        if not self.is_local:
            yield
            return
        base = self.asset_dir(zone, asset)
        self._mkdir(base, zone)
        fd = os.open(str(base / f".ds={ds}.lock"), os.O_RDWR | os.O_CREAT, FILE_MODE[zone])
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
                self.on_lock_wait(
                    f"waiting for the lock of {zone}/{asset} ds={ds}, held by {holder}"
                )
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)  # who holds it, for the next one who waits (no personal data)
            os.pwrite(fd, _holder().encode(), 0)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _leftovers(self, zone: str, asset: str, ds: str) -> list[str]:
        """Names of the staging/ready/trash/deleted folders of one day (local roots)."""
        base = str(self.asset_dir(zone, asset))
        try:
            names = os.listdir(base)
        except FileNotFoundError:
            return []
        return sorted(n for n in names if _leftover_day(n) == ds)

    def _recover_day(self, zone: str, asset: str, ds: str) -> None:
        """Read-side repair; a reader without write access leaves the day to the next writer."""
        try:
            with self.partition_lock(zone, asset, ds):
                self._repair_locked(zone, asset, ds)
        except PermissionError:
            pass

    def _repair_locked(self, zone: str, asset: str, ds: str) -> None:
        """Finish or undo an interrupted write of one day and drop its leftovers (lock held).

        With a ``ds=`` folder, that folder is the day and every leftover goes. Without one (a swap
        was interrupted between its renames, or a first write before its rename), a complete
        (ready) staging folder becomes the day, else the newest trash folder is renamed back.
        """
        names = self._leftovers(zone, asset, ds)
        if not names:
            return
        base = Path(str(self.asset_dir(zone, asset)))
        final = Path(str(self._final(zone, asset, ds)))
        if not final.is_dir():
            ready = [base / n for n in names if n.startswith(".ds=") and _READY in n]
            trash = [base / n for n in names if n.startswith(_TRASH)]
            for found in (ready, trash):
                if found:
                    os.rename(max(found, key=lambda p: p.stat().st_mtime), final)
                    break
        for name in names:
            if (base / name).exists():
                shutil.rmtree(base / name, ignore_errors=True)

    def recover(self) -> list[tuple[str, str, str]]:
        """Repair every day a killed writer left behind, in every zone (local roots).

        Returns ``(zone, asset, day)`` of each day repaired. Days whose lock is held (a live
        writer) are skipped.
        """
        repaired: list[tuple[str, str, str]] = []
        if not self.is_local:
            return repaired
        for zone in ZONES:
            for asset in self.assets(zone):
                days = {_leftover_day(n) for n in os.listdir(str(self.asset_dir(zone, asset)))}
                for ds in sorted(d for d in days if d):
                    if self._try_recover_day(zone, asset, ds):
                        repaired.append((zone, asset, ds))
        return repaired

    def _try_recover_day(self, zone: str, asset: str, ds: str) -> bool:
        base = self.asset_dir(zone, asset)
        fd = os.open(str(base / f".ds={ds}.lock"), os.O_RDWR | os.O_CREAT, FILE_MODE[zone])
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a live writer holds the day
            self._repair_locked(zone, asset, ds)
            return True
        finally:
            os.close(fd)

    # -- reading ------------------------------------------------------------------------------

    def assets(self, zone: str) -> list[str]:
        """The assets stored in ``zone``, sorted (staging and trash folders excluded)."""
        base = self.root / zone
        if not base.exists():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))

    def partitions(self, zone: str, asset: str) -> list[str]:
        """The days stored for ``asset``, sorted."""
        base = self.asset_dir(zone, asset)
        if not base.exists():
            return []
        names = [p.name for p in base.iterdir()]
        if self.is_local:  # a day whose swap was interrupted exists only as a leftover: repair it
            present = {n[3:] for n in names if n.startswith("ds=")}
            broken = {_leftover_day(n) for n in names} - present - {None}
            for ds in sorted(broken):
                self._recover_day(zone, asset, ds)
            if broken:
                names = [p.name for p in base.iterdir()]
        return sorted(n[3:] for n in names if n.startswith("ds=") and (base / n).is_dir())

    def part_files(self, zone: str, asset: str, ds: str) -> list[UPath]:
        """The part files of one day in shard order (``part-0.parquet`` of older days included;
        other files of the folder, such as the training exports, are not parts)."""
        folder = self.partition_dir(zone, asset, ds)
        try:
            names = [p.name for p in folder.iterdir()]
        except (FileNotFoundError, NotADirectoryError):
            return []
        parts = sorted((int(m.group(1)), n) for n in names if (m := SHARD_RE.match(n)))
        return [folder / n for _, n in parts]

    def has_partition(self, zone: str, asset: str, ds: str) -> bool:
        return bool(self.part_files(zone, asset, ds))

    def iter_shards(
        self, zone: str, asset: str, ds: str, columns: list[str] | None = None
    ) -> Iterator[pa.Table]:
        """One day shard by shard, each with its ``ds`` column restored (unless ``columns`` omits
        it). Every part file is opened before the first is read, so on a local data root a day
        swapped meanwhile is still read whole from the version that was listed."""
        paths = self.part_files(zone, asset, ds)
        if not paths:
            raise FileNotFoundError(f"{zone}/{asset} has no partition ds={ds}")
        file_columns = [c for c in columns if c != "ds"] if columns else None
        handles = [path.open("rb") for path in paths]
        try:
            for path, fh in zip(paths, handles, strict=True):
                try:
                    table = pq.read_table(fh, columns=file_columns)
                except (pa.ArrowException, OSError) as exc:
                    raise CorruptPartitionError(
                        f"{path} is not a readable Parquet file ({type(exc).__name__}): "
                        f"rebuild the day with `agentic-pipeline materialize --start {ds} "
                        f"--select {asset}` (its upstream day is read again)"
                    ) from None
                if columns is None or "ds" in columns:
                    table = table.add_column(0, "ds", pa.array([ds] * table.num_rows, pa.string()))
                yield table
        finally:
            for fh in handles:
                fh.close()

    def read_partition(
        self, zone: str, asset: str, ds: str, columns: list[str] | None = None
    ) -> pa.Table:
        """One day as an Arrow table with its ``ds`` column restored (its shards concatenated)."""
        shards = list(self.iter_shards(zone, asset, ds, columns))
        if len(shards) == 1:
            return shards[0]
        return pa.concat_tables(shards, promote_options="default")

    def read_partitions(
        self, zone: str, asset: str, days: Iterable[str], columns: list[str] | None = None
    ) -> pa.Table:
        """Several days concatenated (days without data are skipped)."""
        tables = [
            self.read_partition(zone, asset, ds, columns)
            for ds in days
            if self.has_partition(zone, asset, ds)
        ]
        if not tables:
            raise FileNotFoundError(f"{zone}/{asset} has none of the requested partitions")
        return pa.concat_tables(tables, promote_options="default")
