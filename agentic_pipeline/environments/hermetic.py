"""Hermetic replay of tool calls: a candidate's call is answered from the log or not at all.

:class:`HermeticTools` holds the logged calls of one episode (a
:class:`~agentic_pipeline.environments.cassette.Cassette`). A call whose tool and normalised
arguments (:func:`normalise_arguments`) match a logged call gets that call's logged result; any
other call is *off-log*: it is answered with a tool error (:data:`OFF_LOG_ERROR`) and counted,
and nothing is sent anywhere. A call the risk rules call dangerous is never answered at all
(:data:`BLOCKED_ERROR`), even when the log holds a result for it.

Normalisation makes equal what an agent would consider the same request: object keys in any
order, arguments that are null or absent, surrounding white space and runs of spaces, letter
case, and ``1`` versus ``1.0``. List order is kept (it can matter: items of an order).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentic_pipeline.environments.cassette import Cassette, LoggedAction

__all__ = [
    "BLOCKED_ERROR",
    "OFF_LOG_ERROR",
    "HermeticAnswer",
    "HermeticTools",
    "arguments_key",
    "normalise_arguments",
]

#: What an off-log call gets back (a tool error the candidate can read).
OFF_LOG_ERROR = json.dumps(
    {"error": "off-log call: the recorded episode holds no result for this call (hermetic replay)"}
)
#: What a dangerous call gets back: it is never answered.
BLOCKED_ERROR = json.dumps(
    {"error": "blocked: the shadow run does not answer dangerous actions (risk rules)"}
)
_MAX_DEPTH = 64


def normalise_arguments(value: Any, _depth: int = 0) -> Any:
    """Arguments in a canonical form (see the module docstring); raises ``ValueError`` when
    nested more than 64 levels deep."""
    if _depth > _MAX_DEPTH:
        raise ValueError("arguments nested too deep")
    if isinstance(value, Mapping):
        return {
            str(k).strip().casefold(): normalise_arguments(v, _depth + 1)
            for k, v in sorted(value.items(), key=lambda kv: str(kv[0]).strip().casefold())
            if v is not None
        }
    if isinstance(value, (list, tuple)):
        return [normalise_arguments(v, _depth + 1) for v in value]
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def arguments_key(params: Mapping[str, Any] | None) -> str | None:
    """Canonical JSON text of normalised arguments (``None`` for unparsable arguments)."""
    if params is None:
        return None
    try:
        return json.dumps(
            normalise_arguments(params), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
    except (ValueError, TypeError, RecursionError):
        return None


@dataclass(frozen=True)
class HermeticAnswer:
    """How one candidate call was answered."""

    #: ``"logged"`` (the logged result), ``"off_log"`` (a tool error) or ``"blocked"``.
    source: str
    content: str
    #: The logged step whose result answered the call (``"logged"`` only).
    matched_step: int | None = None


@dataclass
class HermeticTools:
    """The logged calls of one episode, answering a candidate's calls (never the network)."""

    calls: dict[tuple[str, str], list[LoggedAction]] = field(default_factory=dict)
    off_log: int = 0
    answered: int = 0
    blocked: int = 0

    @classmethod
    def from_cassette(cls, tape: Cassette) -> HermeticTools:
        tools = cls()
        for call in tape.tool_calls:
            key = arguments_key(call.params)
            if call.tool_name and key is not None and call.answered:
                tools.calls.setdefault((call.tool_name, key), []).append(call)
        return tools

    def answer(
        self, tool_name: str, params: Mapping[str, Any] | None, dangerous: bool = False
    ) -> HermeticAnswer:
        """The answer to one call: blocked, the logged result, or an off-log error."""
        if dangerous:
            self.blocked += 1
            return HermeticAnswer("blocked", BLOCKED_ERROR)
        key = arguments_key(params)
        found = self.calls.get((tool_name, key)) if key is not None else None
        if not found:
            self.off_log += 1
            return HermeticAnswer("off_log", OFF_LOG_ERROR)
        self.answered += 1
        call = found[0]
        return HermeticAnswer("logged", call.result or "", call.step)
