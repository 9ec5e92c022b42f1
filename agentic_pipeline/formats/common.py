"""What every format parser shares: the error type, typed accessors and the episode attributes.

A parser takes one decoded source record (a dict) and returns ``(episode_id, attributes, rows)``:
the canonical step rows of ``schema.STEP_SCHEMA`` without ``ds``, ``step`` and lineage (the caller
adds them), or raises :class:`RecordError` with a reason that never quotes the record's content
(it may hold personal data).
"""

import ast
import datetime as dt
import json
import math
from dataclasses import dataclass
from typing import Any

from agentic_pipeline.jsonutil import strict_json_dumps
from agentic_pipeline.schema import EPISODE_FIELDS

Row = dict[str, Any]
INT64_MAX = 2**63 - 1
#: Longest Python-repr argument text handed to ``ast.literal_eval`` (it is recursive).
MAX_REPR_CHARS = 100_000
#: A Python repr of a dict holds one of these (quotes, literals); JSON text rarely does.
_REPR_MARKERS = ("'", "None", "True", "False")
#: Marks the ids of tool calls logged without one (results were paired with calls by order).
INFERRED_ID_PREFIX = "inferred-"
#: Put before a tool result the format flags as an error (Anthropic ``is_error``, tau2
#: ``error``, an OTLP span with status ERROR) when its text does not already read as one.
ERROR_PREFIX = "Error: "


class RecordError(ValueError):
    """A source record that cannot be normalized; the message is safe to store and log."""


@dataclass(frozen=True)
class ParseContext:
    """What a parser may know besides the record: its position and the file's naming."""

    index: int
    naming: Any  # benchmark.BenchmarkNaming
    file_stem: str


def opt_str(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RecordError(f"'{field}' must be a string, got {type(value).__name__}")


def opt_float(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordError(f"'{field}' must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise RecordError(f"'{field}' must be finite")
    return float(value)


def opt_int(value: Any, field: str) -> int | None:
    number = opt_float(value, field)
    if number is not None and abs(number) > INT64_MAX:
        raise RecordError(f"'{field}' is out of range")
    return None if number is None else int(number)


def opt_bool(value: Any, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise RecordError(f"'{field}' must be a boolean, got {type(value).__name__}")


def opt_obj(value: Any, field: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"'{field}' must be an object, got {type(value).__name__}")
    return value


def opt_list(value: Any, field: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(f"'{field}' must be a list, got {type(value).__name__}")
    return value


def json_text(value: Any) -> str | None:
    """JSON text of a parsed value; strict (a NaN or infinity that ``json.loads`` accepted is
    stored as null, so strict readers can read the column)."""
    if value is None:
        return None
    return strict_json_dumps(value, ensure_ascii=False, sort_keys=True)


def require_id(value: Any, field: str) -> str:
    if value is None or value == "":
        raise RecordError(f"missing {field}")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RecordError(f"'{field}' must be a string, got {type(value).__name__}")
    return str(value)


def content_text(value: Any, where: str) -> str | None:
    """Chat content: a string, null, or a list of content parts (their text joined)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                raise RecordError(f"{where}: content part is not text")
        return "\n".join(texts)
    if isinstance(value, dict):  # structured tool results are kept as JSON text
        return json_text(value)
    raise RecordError(f"{where}: content must be a string, got {type(value).__name__}")


def _literal(text: str) -> Any:
    """A Python literal (``{'thought': ...}``) parsed with ``ast.literal_eval``, never ``eval``."""
    if len(text) > MAX_REPR_CHARS:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def tool_arguments(value: Any, where: str) -> str:
    """Tool-call arguments as JSON text.

    A JSON string is kept as logged; a parsed object is serialised; a Python repr of a dict
    (tau-bench agents log ``"{'thought': '...'}"``) is parsed with ``ast.literal_eval`` and
    re-serialised as JSON. Any other text is kept as it is (replay reports it unparsable).
    """
    if value is None:
        return "{}"
    if isinstance(value, dict):  # tolerated: some loggers store the parsed object
        return json_text(value) or "{}"
    if not isinstance(value, str):
        raise RecordError(f"{where}: arguments must be a JSON string, got {type(value).__name__}")
    if not any(marker in value for marker in _REPR_MARKERS):
        return value  # no Python-only syntax: JSON (or text replay reports), not parsed here
    try:
        json.loads(value)
        return value
    except (ValueError, RecursionError):
        pass
    parsed = _literal(value.strip())
    if isinstance(parsed, dict):
        try:
            return strict_json_dumps(parsed, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError):  # sets, bytes, complex numbers: not JSON
            return value
    return value


def flag_error(content: str | None, is_error: bool) -> str | None:
    """A result the format marks as an error keeps its text, prefixed with ``Error: `` unless the
    default error patterns already recognise it."""
    from agentic_pipeline.catalogue.errors import is_error_text

    if not is_error or is_error_text(content):
        return content
    return ERROR_PREFIX + (content or "")


def iso_from_unix_nano(value: Any, field: str) -> str | None:
    """OTLP ``*TimeUnixNano`` (string or integer) as ISO-8601 UTC."""
    if value is None or value == "":
        return None
    try:
        nanos = int(value)
    except (TypeError, ValueError):
        raise RecordError(f"'{field}' must be an integer of nanoseconds") from None
    if not 0 <= nanos < 2**63:
        raise RecordError(f"'{field}' is out of range")
    return dt.datetime.fromtimestamp(nanos / 1e9, tz=dt.UTC).isoformat().replace("+00:00", "Z")


# --- episode attributes ----------------------------------------------------------------------


def episode_attributes(record: dict) -> Row:
    """The episode-level columns of ``schema.EPISODE_FIELDS`` from an Episode-JSONL-like record."""
    task = opt_obj(record.get("task"), "task")
    outcome = opt_obj(record.get("outcome"), "outcome")
    usage = opt_obj(record.get("usage"), "usage")
    context = opt_obj(record.get("context"), "context")
    propensity = opt_float(record.get("propensity"), "propensity")
    if propensity is not None and not 0.0 < propensity <= 1.0:
        raise RecordError("'propensity' must be in (0, 1]")
    attrs: Row = {
        "policy_id": opt_str(record.get("policy_id"), "policy_id"),
        "propensity": propensity,
        "task_type": opt_str(record.get("task_type"), "task_type"),
        "task_id": opt_str(task.get("id", record.get("task_id")), "task.id"),
        "task_description": opt_str(
            task.get("description", record.get("task_description")), "task.description"
        ),
        "task_goal": json_text(task.get("goal")),
        "context": json_text(context) if context else None,
        "started_at": opt_str(record.get("started_at"), "started_at"),
        "outcome_success": opt_bool(outcome.get("success"), "outcome.success"),
        "human_takeover": opt_bool(outcome.get("human_takeover"), "outcome.human_takeover"),
        "complaint": opt_bool(outcome.get("complaint"), "outcome.complaint"),
        "csat": opt_float(outcome.get("csat"), "outcome.csat"),
        "prompt_tokens": opt_int(usage.get("prompt_tokens"), "usage.prompt_tokens"),
        "completion_tokens": opt_int(usage.get("completion_tokens"), "usage.completion_tokens"),
        "latency_ms": opt_float(usage.get("latency_ms"), "usage.latency_ms"),
        "cost_usd": opt_float(usage.get("cost_usd"), "usage.cost_usd"),
        "logged_reward": opt_float(record.get("reward"), "reward"),
    }
    assert set(attrs) == {name for name, _ in EPISODE_FIELDS}
    return attrs
