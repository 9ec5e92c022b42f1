"""Input formats: one parser module per format behind one registry (README "Input formats").

Each format module has a ``NAME``, a ``detect(record) -> bool`` and a
``parse(record, ctx) -> (episode_id, attributes, rows)``; a container format may also have
``split(value) -> list | None`` (a tau2-bench results file becomes one record per simulation, an
OTLP document one record per trace). Adding a format is one new module listed in :data:`FORMATS`
(order matters: the first format whose ``detect`` accepts a record parses it) and one test.

Transition JSONL is the one format whose records are assembled into episodes later
(:func:`parse_transition` / :func:`assemble_transitions`).
"""

from types import ModuleType
from typing import Any

from agentic_pipeline.formats import (
    anthropic,
    benchmark,
    openai_chat,
    otlp,
    tau2,
    transitions,
)
from agentic_pipeline.formats.benchmark import (
    KNOWN_BENCHMARK_DOMAINS,
    BenchmarkNaming,
    parse_benchmark,
)
from agentic_pipeline.formats.common import (
    INFERRED_ID_PREFIX,
    ParseContext,
    RecordError,
    Row,
    episode_attributes,
    tool_arguments,
)
from agentic_pipeline.formats.openai_chat import CHAT_ROLES, chat_steps
from agentic_pipeline.formats.transitions import (
    TRANSITION_ACTIONS,
    Transition,
    assemble_transitions,
    parse_transition,
)

#: Detection order: the most specific shapes first.
FORMATS: tuple[ModuleType, ...] = (
    tau2,
    otlp,
    benchmark,
    anthropic,
    openai_chat,
    transitions,
)
FORMAT_NAMES: tuple[str, ...] = tuple(f.NAME for f in FORMATS)
_BY_NAME = {f.NAME: f for f in FORMATS}

__all__ = [
    "CHAT_ROLES",
    "FORMATS",
    "FORMAT_NAMES",
    "INFERRED_ID_PREFIX",
    "KNOWN_BENCHMARK_DOMAINS",
    "TRANSITION_ACTIONS",
    "BenchmarkNaming",
    "ParseContext",
    "RecordError",
    "Row",
    "Transition",
    "assemble_transitions",
    "chat_steps",
    "detect_format",
    "episode_attributes",
    "parse_benchmark",
    "parse_episode",
    "parse_record",
    "parse_transition",
    "split_container",
    "tool_arguments",
]


def detect_format(record: Any) -> str:
    """Name the format of one decoded record, or raise ``RecordError``."""
    if not isinstance(record, dict):
        raise RecordError(f"record is a JSON {type(record).__name__}, expected an object")
    for fmt in FORMATS:
        if fmt.detect(record):
            return fmt.NAME
    raise RecordError(
        "unrecognized record shape: no 'messages', 'action', 'traj', 'simulations' or "
        "'resourceSpans' key"
    )


def split_container(value: Any) -> list[Any] | None:
    """The records inside a container document (tau2 results, a multi-trace OTLP export), or
    ``None`` when ``value`` is one record."""
    if not isinstance(value, dict):
        return None
    for fmt in FORMATS:
        split = getattr(fmt, "split", None)
        if split is not None:
            parts = split(value)
            if parts is not None:
                return parts
    return None


def parse_record(fmt: str, record: dict, ctx: ParseContext) -> tuple[str, Row, list[Row]]:
    """Parse one record of format ``fmt`` (not transitions) into its episode."""
    if fmt == transitions.NAME:
        raise ValueError("transition records are assembled with assemble_transitions")
    return _BY_NAME[fmt].parse(record, ctx)


def parse_episode(record: dict) -> tuple[str, Row, list[Row]]:
    """Episode JSONL record -> (episode_id, episode attributes, step rows)."""
    return openai_chat.parse(record)
