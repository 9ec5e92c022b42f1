"""The one way the project writes a file: durable, atomic, with the mode its zone requires.

``atomic_write_bytes`` / ``atomic_write_text`` replace one file: the content goes to a temporary
file in the target's folder (``.<stem>.tmp-<id><suffix>``, a dot name that hive readers, the
landing scan and the registry listing skip), is flushed to disk (``fsync``), renamed over the
target (``os.replace``: a reader sees the old file or the new one, never part of one) and the
folder is flushed so the rename survives a crash. ``atomic_path`` does the same for a writer that
needs a file name (matplotlib's ``savefig``, a Parquet writer): it yields the temporary path (with
the target's suffix, so format inference works) and replaces the target when the block ends. When
the write raises midway, the temporary file is removed and the target is left as it was.

``write_file`` is the step below: one new file written and flushed in place, for a file no reader
knows of yet (the part files of a day, written into a staging folder that
:class:`~agentic_pipeline.storage.DataRoot` swaps in whole).

Modes: ``mode=None`` gives a new file the process umask's default, as ``open(path, "wb")`` does;
an int is set exactly (``fchmod`` before the first byte, so neither the umask nor a race loosens
it). The zones' modes are :data:`FILE_MODE` and :data:`DIR_MODE`: 0600 files and 0700 folders in
the restricted zone (raw personal data). Missing parent folders are created.

Object stores (any non-local fsspec path) have no fsync, modes or atomic rename: there the
temporary object is written, then moved over the target (copy-then-delete).
"""

import os
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
from upath import UPath

#: Folder and file modes of each zone on local data roots.
DIR_MODE = {"restricted": 0o700, "warehouse": 0o755}
FILE_MODE = {"restricted": 0o600, "warehouse": 0o644}

PathLike = str | os.PathLike | UPath
Payload = bytes | bytearray | memoryview | pa.Buffer


def _upath(path: PathLike) -> UPath:
    return path if isinstance(path, UPath) else UPath(path)


def is_local(path: UPath) -> bool:
    """True for a path of the local file system (no fsspec protocol, or ``file``)."""
    return path.protocol in ("", "file", "local")


def fsync_dir(folder: PathLike) -> None:
    """Flush a local folder's entries (a new file, a rename) to disk."""
    fd = os.open(str(folder), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_local(path: str, data: Payload, mode: int | None, exclusive: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, 0o666 if mode is None else mode)
    with open(fd, "wb") as fh:  # owns the descriptor
        if mode is not None:
            os.fchmod(fh.fileno(), mode)
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def write_file(path: PathLike, data: Payload, mode: int | None = None) -> UPath:
    """Write ``data`` to ``path`` (created or truncated) and flush it to disk; not atomic: for a
    file no reader sees yet (a staging folder). Returns the path."""
    target = _upath(path)
    if is_local(target):
        _write_local(str(target), data, mode, exclusive=False)
    else:
        with target.open("wb") as fh:
            fh.write(data)
    return target


def _temp_beside(path: UPath) -> UPath:
    """``.<stem>.tmp-<id><suffix>`` in the folder of ``path``."""
    suffix = path.suffix
    stem = path.name[: len(path.name) - len(suffix)]
    return path.parent / f".{stem}.tmp-{uuid.uuid4().hex[:8]}{suffix}"


def atomic_write_bytes(path: PathLike, data: Payload, mode: int | None = None) -> UPath:
    """Replace ``path`` with ``data`` atomically (module doc); ``mode`` as in the module doc.
    Returns the path."""
    target = _upath(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_beside(target)
    if not is_local(target):
        try:
            with tmp.open("wb") as fh:
                fh.write(data)
            tmp.fs.mv(tmp.path, target.path)
        except BaseException:
            if tmp.exists():
                tmp.fs.rm(tmp.path)
            raise
        return target
    try:
        _write_local(str(tmp), data, mode, exclusive=True)
        os.replace(str(tmp), str(target))
    except BaseException:
        Path(str(tmp)).unlink(missing_ok=True)
        raise
    fsync_dir(str(target.parent))
    return target


def atomic_write_text(
    path: PathLike, text: str, mode: int | None = None, encoding: str = "utf-8"
) -> UPath:
    """:func:`atomic_write_bytes` of ``text`` encoded (UTF-8 by default)."""
    return atomic_write_bytes(path, text.encode(encoding), mode)


@contextmanager
def atomic_path(path: PathLike, mode: int | None = None) -> Iterator[Path]:
    """Yield a local path to write; when the block ends without error its file replaces ``path``
    atomically (module doc), else it is removed and ``path`` is left as it was.

    On a local file system the temporary file is created beside ``path`` with ``mode`` before the
    writer opens it; for an object store it is written locally, then uploaded.
    """
    target = _upath(path)
    if not is_local(target):
        with tempfile.TemporaryDirectory() as folder:
            local = Path(folder) / target.name
            yield local
            atomic_write_bytes(target, local.read_bytes())
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(str(_temp_beside(target)))
    try:
        _write_local(str(tmp), b"", mode, exclusive=True)  # the mode holds before any byte
        yield tmp
        with open(tmp, "rb+") as fh:  # the writer closed it; flush what it wrote
            if mode is not None:  # a writer that re-created the file got the umask's mode
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, str(target))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(str(target.parent))
