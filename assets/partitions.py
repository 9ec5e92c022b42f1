"""The one daily partitions definition every stage shares (UTC days).

Partitions start where the data starts, so the UI's partition bars show the days that exist
rather than hundreds of empty ones: ``AGENTIC_PIPELINE_START_DATE`` when set, else the earliest
day found in the data root (a landing folder or a stored masked partition), else
``DEFAULT_START_DATE``.

Day folders outside a sane range (before ``EARLIEST_SANE_DAY`` or more than ``MAX_DAYS_AHEAD``
days after today: an empty ``landing/0001-01-01`` would make 739,950 partitions) are ignored for
the start date and reported once in the log (``ignored_days``).
"""

import logging
import os
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from dagster import DailyPartitionsDefinition

from resources.data_root import default_data_dir

START_DATE_ENV = "AGENTIC_PIPELINE_START_DATE"
DEFAULT_START_DATE = "2025-01-01"
_DAY = re.compile(r"^(?:ds=)?(\d{4}-\d{2}-\d{2})$")
#: Day folders before this day are not data (agent logs did not exist): ignored, reported.
EARLIEST_SANE_DAY = date(2000, 1, 1)
#: Day folders more than this many days after today are ignored and reported too.
MAX_DAYS_AHEAD = 366
_log = logging.getLogger(__name__)


def _day_folders(data_dir: str) -> list[tuple[Path, date]]:
    root = Path(data_dir)
    folders = [root / "landing"]
    folders += [asset for zone in ("restricted", "warehouse") for asset in (root / zone).glob("*")]
    days = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for child in folder.iterdir():
            match = _DAY.match(child.name)
            if match and child.is_dir():
                try:
                    days.append((child, date.fromisoformat(match.group(1))))
                except ValueError:
                    continue
    return days


def _sane(day: date, today: date | None = None) -> bool:
    today = today or datetime.now(UTC).date()
    return EARLIEST_SANE_DAY <= day <= today + timedelta(days=MAX_DAYS_AHEAD)


def ignored_days(data_dir: str) -> list[str]:
    """The day folders outside the sane range, relative to the data root (they are ignored)."""
    return sorted(
        str(path.relative_to(data_dir)) for path, day in _day_folders(data_dir) if not _sane(day)
    )


def earliest_day(data_dir: str) -> str | None:
    """The first sane ``YYYY-MM-DD`` day under ``landing/`` or any stored asset (local roots
    only); day folders outside the sane range are reported in the log and ignored."""
    found = _day_folders(data_dir)
    days = [day for _, day in found if _sane(day)]
    insane = [str(path.relative_to(data_dir)) for path, day in found if not _sane(day)]
    if insane:
        _log.warning(
            "ignored %d day folder(s) outside %s .. today+%d days for the partitions: %s",
            len(insane),
            EARLIEST_SANE_DAY,
            MAX_DAYS_AHEAD,
            ", ".join(sorted(insane)[:5]),
        )
    return min(days).isoformat() if days else None


def partitions_start_date(data_dir: str | None = None) -> str:
    """The start date the partitions use (see the module docstring for the order)."""
    configured = os.environ.get(START_DATE_ENV)
    if configured:
        return configured
    try:
        found = earliest_day(data_dir or default_data_dir())
    except OSError:
        found = None
    return found or DEFAULT_START_DATE


daily_partitions = DailyPartitionsDefinition(start_date=partitions_start_date(), timezone="UTC")
