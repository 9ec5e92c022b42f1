"""The environment interface shared by simulators and the replay stage.

An :class:`Environment` is reset with a :class:`Task` and then stepped with :class:`Action` values;
every step returns a :class:`StepResult`. Tools are described by :class:`ToolSpec` (a JSON-schema
``parameters`` object, as in the OpenAI function-calling format; it lives with the tool catalogue).
A policy is any callable that maps the agent's :class:`AgentState` (task, context and the history
of actions and observations) to the next :class:`Action`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# the tool vocabulary lives with the tool catalogue (a lower floor); re-exported here
from agentic_pipeline.catalogue.model import ToolKind, ToolSpec

__all__ = [
    "ACTION_TYPES",
    "Action",
    "ActionType",
    "AgentState",
    "Environment",
    "Policy",
    "StepResult",
    "Task",
    "ToolKind",
    "ToolSpec",
]

ActionType = Literal["tool", "respond", "finish"]
ACTION_TYPES: tuple[str, ...] = ("tool", "respond", "finish")


@dataclass(frozen=True)
class Action:
    """One agent action: call a tool, reply to the user, or end the episode."""

    type: ActionType
    tool_name: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    reply: str | None = None

    def __post_init__(self) -> None:
        if self.type not in ACTION_TYPES:
            raise ValueError(f"unknown action type: {self.type!r}")
        if self.type == "tool" and not self.tool_name:
            raise ValueError("a tool action needs a tool_name")

    @classmethod
    def tool(cls, name: str, **params: Any) -> Action:
        """A tool call."""
        return cls("tool", tool_name=name, params=params)

    @classmethod
    def respond(cls, reply: str) -> Action:
        """A reply to the user (the user answers in the next observation)."""
        return cls("respond", reply=reply)

    @classmethod
    def finish(cls, reply: str | None = None) -> Action:
        """End the episode, optionally with a closing message."""
        return cls("finish", reply=reply)

    def to_dict(self) -> dict[str, Any]:
        """The transition-JSONL form: only the keys that apply to the action type."""
        out: dict[str, Any] = {"type": self.type}
        if self.type == "tool":
            out["tool_name"] = self.tool_name
            out["params"] = self.params
        elif self.reply is not None:
            out["reply"] = self.reply
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        """Inverse of :meth:`to_dict` (tolerates missing keys)."""
        return cls(
            data["type"],
            tool_name=data.get("tool_name"),
            params=dict(data.get("params") or {}),
            reply=data.get("reply"),
        )


@dataclass
class StepResult:
    """What :meth:`Environment.step` returns."""

    observation: dict[str, Any]
    reward: float = 0.0
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """A task: user-facing ``description`` and a machine ``goal`` the environment can check.

    ``slots`` are the facts the user states in the description, in structured form (what an LLM
    agent would extract from the text); scripted policies read them instead of parsing prose.
    """

    task_id: str
    task_type: str
    description: str
    goal: dict[str, Any]
    slots: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentState:
    """Everything a policy may look at: the task, its context and the step history.

    ``history`` holds ``(action, observation)`` pairs in order; ``memo`` is per-episode scratch
    space the policy owns; ``rng`` is the policy's own seeded random stream.
    """

    task: Task
    context: dict[str, Any]
    rng: random.Random
    history: list[tuple[Action, dict[str, Any]]] = field(default_factory=list)
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def last_observation(self) -> dict[str, Any] | None:
        """The most recent observation, or ``None`` before the first action."""
        return self.history[-1][1] if self.history else None


class Policy(Protocol):
    """A policy maps the agent state to the next action."""

    policy_id: str

    def __call__(self, state: AgentState) -> Action: ...


class Environment(ABC):
    """A replayable environment with a tool registry."""

    #: The tools this environment understands, by name.
    tools: dict[str, ToolSpec]

    @abstractmethod
    def reset(self, task: Task) -> dict[str, Any]:
        """Start an episode for ``task`` and return the first observation."""

    @abstractmethod
    def step(self, action: Action) -> StepResult:
        """Apply ``action`` and return its observation, reward and whether the episode ended."""

    def tool_kind(self, name: str) -> ToolKind | None:
        """``"read"`` or ``"write"`` for a known tool, else ``None``."""
        spec = self.tools.get(name)
        return spec.kind if spec else None
