"""The canonical step model every stage shares.

One row per *step* of an episode. A step is one event of the agent loop in the order it happened:

=============  =================  ==========================================================
role           action_type        meaning
=============  =================  ==========================================================
system         message            the system prompt
user           message            a user turn (free text, may hold personal data)
assistant      tool_call          the agent calls ``tool_name`` with ``tool_arguments`` (JSON)
assistant      respond            the agent replies to the user with ``content``
assistant      finish             the agent ends the episode (explicit in transition logs)
tool           tool_result        the tool's answer to ``tool_call_id`` in ``content``
=============  =================  ==========================================================

An assistant chat message that carries text *and* tool calls becomes a ``respond`` row followed by
one ``tool_call`` row per call, so every row holds exactly one action. Episode attributes (policy,
task, outcome, usage) are repeated on every row of the episode, so that one day's table is
self-contained. Lineage columns say where each row came from: ``source_file``, ``source_index``
(1-based line of a JSONL file, 0-based index in a JSON array) and ``source_sha256`` of the raw
record.
"""

import datetime as dt
from typing import Any

import pyarrow as pa

ROLES = ("system", "user", "assistant", "tool")
ACTION_TYPES = ("message", "tool_call", "respond", "finish", "tool_result")
SOURCE_FORMATS = ("episode_jsonl", "transition_jsonl", "benchmark_json")

#: What the product logged about an episode's outcome and cost (also in ``replayed_episodes``).
OUTCOME_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("human_takeover", pa.bool_()),
    ("complaint", pa.bool_()),
    ("csat", pa.float64()),
    ("prompt_tokens", pa.int64()),
    ("completion_tokens", pa.int64()),
    ("latency_ms", pa.float64()),
    ("cost_usd", pa.float64()),
)

#: Columns that describe the episode as a whole (repeated on each of its rows).
EPISODE_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("policy_id", pa.string()),
    ("propensity", pa.float64()),
    ("task_type", pa.string()),
    ("task_id", pa.string()),
    ("task_description", pa.string()),
    ("task_goal", pa.string()),  # JSON text of the task's goal, if any
    ("context", pa.string()),  # JSON text of context features known at the start (tier, channel)
    ("started_at", pa.timestamp("us", tz="UTC")),
    ("outcome_success", pa.bool_()),
    *OUTCOME_FIELDS,
    ("logged_reward", pa.float64()),
)

#: Columns that describe one step.
STEP_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("episode_id", pa.string()),
    ("step", pa.int32()),
    ("role", pa.string()),
    ("action_type", pa.string()),
    ("content", pa.string()),
    ("tool_name", pa.string()),
    ("tool_call_id", pa.string()),
    ("tool_arguments", pa.string()),  # JSON text as logged
    ("ts", pa.timestamp("us", tz="UTC")),
    ("step_reward", pa.float64()),
)

LINEAGE_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("source_format", pa.string()),
    ("source_file", pa.string()),
    ("source_index", pa.int64()),
    ("source_sha256", pa.string()),
)

#: Identifier and label columns: kept verbatim by masking (replay and joins need them), so ingestion
#: quarantines records whose values fail ``pii_patterns.identifier_problem`` and the leak scan
#: checks them. ``source_file`` is written by ingestion itself (a name relative to the landing day,
#: or a keyed hash of it when the name is not a safe identifier).
ID_COLUMNS = (
    "episode_id",
    "task_id",
    "tool_name",
    "tool_call_id",
    "policy_id",
    "task_type",
    "source_file",
)

#: ``ts`` and ``started_at`` are parsed from ISO-8601 text into UTC timestamps by ingestion (naive
#: values are taken as UTC); longer text is refused unparsed.
MAX_TIMESTAMP_CHARS = 40


def parse_timestamp(value: Any) -> dt.datetime | None:
    """ISO-8601 text -> aware UTC datetime; ``None`` stays ``None``; anything else raises
    ``ValueError`` (whose message never quotes the value)."""
    if value is None or isinstance(value, dt.datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=dt.UTC)
    if not isinstance(value, str) or len(value) > MAX_TIMESTAMP_CHARS:
        raise ValueError("not an ISO-8601 timestamp")
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except (ValueError, TypeError):
        raise ValueError("not an ISO-8601 timestamp") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=dt.UTC)
    try:
        return parsed.astimezone(dt.UTC)
    except OverflowError:  # year 1 or 9999 shifted out of range by its offset
        raise ValueError("not an ISO-8601 timestamp") from None


STEP_SCHEMA = pa.schema([("ds", pa.string()), *STEP_FIELDS, *EPISODE_FIELDS, *LINEAGE_FIELDS])

#: Records that could not be parsed; kept in the restricted zone with the reason.
QUARANTINE_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("source_format", pa.string()),
        ("source_file", pa.string()),
        ("source_index", pa.int64()),
        ("source_sha256", pa.string()),
        ("episode_id", pa.string()),
        ("reason", pa.string()),
        ("raw_record", pa.string()),  # the raw text (truncated), restricted zone only
    ]
)
