"""Dagster assets, checks, jobs, schedules and sensors: thin wrappers over ``agentic_pipeline``.

Two Dagster features this project relies on are labelled preview or beta in Dagster 1.13, and
Dagster warns each time a definition uses them: per-partition asset checks (``partitions_def`` on
a check, so each day's check result belongs to that day) and
``allow_nonexistent_upstream_partitions`` (the first day's decision has no day before it). The
warnings for exactly those two, and for nothing else, are silenced here, where the code location
is first imported (``dagster dev``, the code server, the CLI and the tests): they are decisions,
not news for the person reading the log.
"""

import warnings

from dagster import BetaWarning, PreviewWarning

for _category, _message in (
    (PreviewWarning, r"Specifying a partitions_def on an AssetCheckSpec"),
    (BetaWarning, r"Parameter `allow_nonexistent_upstream_partitions`"),
):
    warnings.filterwarnings("ignore", message=_message, category=_category)
