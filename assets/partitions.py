"""The one daily partitions definition every stage shares (UTC days).

Partitions start where the data starts, so the UI's partition bars show the days that exist
rather than hundreds of empty ones: ``AGENTIC_PIPELINE_START_DATE`` when set, else the earliest
day found in the data root (a landing folder or a stored masked partition), else
``DEFAULT_START_DATE``.
"""

import os
import re
from datetime import date
from pathlib import Path

from dagster import DailyPartitionsDefinition

from resources.data_root import default_data_dir

START_DATE_ENV = "AGENTIC_PIPELINE_START_DATE"
DEFAULT_START_DATE = "2025-01-01"
_DAY = re.compile(r"^(?:ds=)?(\d{4}-\d{2}-\d{2})$")


def earliest_day(data_dir: str) -> str | None:
    """The first ``YYYY-MM-DD`` day under ``landing/`` or any stored asset (local roots only)."""
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
                    days.append(date.fromisoformat(match.group(1)))
                except ValueError:
                    continue
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
