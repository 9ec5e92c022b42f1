"""The landing folder of a day: which files are read, which are refused unread, their labels."""

import hashlib
import hmac
import os
from typing import NamedTuple

from upath import UPath

from agentic_pipeline.ingest.limits import DEV_FILE_NAME_KEY, LANDING_SUFFIXES, MissingLandingError
from agentic_pipeline.pii_patterns import identifier_problem


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
