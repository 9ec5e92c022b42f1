"""Decision points of a logged episode, and how a proposal compares with the logged action.

A *decision point* is where the logged agent took its turn: a run of consecutive assistant rows
(``respond``, ``tool_call``, ``finish``) in the canonical step rows. What the candidate sees there
is the logged (masked) conversation before that turn, as OpenAI chat messages
(:func:`agentic_pipeline.chat.to_chat_messages`). The logged action of a turn is its first tool
call when it calls a tool, else ``finish`` when it finishes, else its reply; a candidate's answer
is read the same way (its first tool call wins over its text).

Two actions agree when they are of the same kind (``tool``, ``reply``, ``finish``) and, for a tool
call, call the same tool with the same arguments after normalisation
(:func:`agentic_pipeline.environments.hermetic.arguments_key`). Reply texts are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentic_pipeline.chat import Message, present, text_message, to_chat_messages
from agentic_pipeline.environments.base import Action
from agentic_pipeline.environments.cassette import parse_arguments
from agentic_pipeline.environments.hermetic import arguments_key

__all__ = [
    "AGENT_ROWS",
    "ActionView",
    "Comparison",
    "DecisionPoint",
    "compare",
    "decision_points",
    "trim_history",
    "view_of",
]

AGENT_ROWS = frozenset({"respond", "tool_call", "finish"})
KINDS = ("tool", "reply", "finish")


@dataclass(frozen=True)
class ActionView:
    """One action as the comparison sees it."""

    kind: str  # "tool" | "reply" | "finish"
    tool: str | None = None
    params: Mapping[str, Any] | None = None
    arguments: str | None = None  # JSON text (as logged, or as proposed)
    reply: str | None = None

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        """What two samples must share to count as the same action (reply text ignored)."""
        if self.kind != "tool":
            return (self.kind, None, None)
        return (self.kind, self.tool, arguments_key(self.params) if self.params is not None else "")


@dataclass(frozen=True)
class DecisionPoint:
    index: int  # 0-based among the episode's decision points
    step: int  # logged step of the turn's first row
    history: list[Message]
    logged: ActionView


@dataclass(frozen=True)
class Comparison:
    same_kind: bool
    same_tool: bool | None  # None unless both are tool calls
    same_arguments: bool | None  # None unless both call the same tool
    agrees: bool


def _logged_view(turn: Sequence[Mapping[str, Any]]) -> ActionView:
    calls = [r for r in turn if r.get("action_type") == "tool_call"]
    if calls:
        first = calls[0]
        text = present(first.get("tool_arguments"))
        return ActionView(
            "tool", str(present(first.get("tool_name")) or ""), parse_arguments(text), text
        )
    if any(r.get("action_type") == "finish" for r in turn):
        return ActionView("finish", reply=present(turn[-1].get("content")))
    return ActionView("reply", reply=present(turn[0].get("content")))


def decision_points(rows: Sequence[Mapping[str, Any]]) -> list[DecisionPoint]:
    """The decision points of one episode's canonical step rows (any order)."""
    ordered = sorted(rows, key=lambda r: int(present(r.get("step")) or 0))
    out: list[DecisionPoint] = []
    i = 0
    while i < len(ordered):
        if ordered[i].get("action_type") not in AGENT_ROWS:
            i += 1
            continue
        end = i
        while end < len(ordered) and ordered[end].get("action_type") in AGENT_ROWS:
            end += 1
        turn = ordered[i:end]
        step = int(present(turn[0].get("step")) or 0)
        out.append(DecisionPoint(len(out), step, to_chat_messages(ordered[:i]), _logged_view(turn)))
        i = end
    return out


def view_of(action: Action, arguments: str | None = None) -> ActionView:
    """A candidate's action (``arguments``: the JSON text it sent, when known)."""
    if action.type == "tool":
        return ActionView("tool", action.tool_name, dict(action.params), arguments)
    kind = "reply" if action.type == "respond" else "finish"
    return ActionView(kind, reply=action.reply)


def compare(logged: ActionView, proposed: ActionView) -> Comparison:
    same_kind = logged.kind == proposed.kind
    if not (same_kind and logged.kind == "tool"):
        return Comparison(same_kind, None, None, same_kind)
    same_tool = logged.tool == proposed.tool
    if not same_tool:
        return Comparison(True, False, None, False)
    left = arguments_key(logged.params) if logged.params is not None else None
    right = arguments_key(proposed.params) if proposed.params is not None else None
    same_args = left is not None and left == right
    return Comparison(True, True, same_args, same_args)


def trim_history(
    history: Sequence[Message], system_prompt: str | None, keep_last: int
) -> list[Message]:
    """The messages a candidate is sent.

    ``system_prompt`` (when given) replaces the logged system messages; ``keep_last`` > 0 keeps
    the system messages, the first user message and the last ``keep_last`` messages (a tool
    result whose call was cut away is dropped with it).
    """
    system = [m for m in history if m["role"] == "system"]
    rest = [m for m in history if m["role"] != "system"]
    if system_prompt is not None:
        system = [text_message("system", system_prompt)]
    if keep_last > 0 and len(rest) > keep_last + 1:
        head = rest[:1] if rest[0]["role"] == "user" else []
        tail = rest[-keep_last:]
        while tail and tail[0]["role"] == "tool":
            tail.pop(0)
        rest = head + tail
    return system + rest
