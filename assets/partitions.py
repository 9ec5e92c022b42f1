"""The one daily partitions definition every stage shares (UTC days)."""

import os

from dagster import DailyPartitionsDefinition

START_DATE_ENV = "AGENTIC_PIPELINE_START_DATE"
DEFAULT_START_DATE = "2025-01-01"

daily_partitions = DailyPartitionsDefinition(
    start_date=os.environ.get(START_DATE_ENV) or DEFAULT_START_DATE, timezone="UTC"
)
