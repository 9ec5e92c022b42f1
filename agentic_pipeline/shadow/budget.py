"""The candidate's quota and kill switch: episodes, dangerous proposals, tokens and time.

A :class:`BudgetMeter` counts what a shadow run spends against its :class:`ShadowBudget`. Crossing
a limit raises :class:`ShadowStopped` with one line that says which limit, how much was used and
what was done; the runner keeps every proposal made before it. A dangerous proposal (a financial
write or a destructive act by the tool set's risk rules, :mod:`agentic_pipeline.catalogue`) over
the limit is stopped *before* anything answers it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["BudgetMeter", "ShadowBudget", "ShadowStopped"]


class ShadowStopped(RuntimeError):
    """The shadow run crossed a limit of its budget; ``limit`` names it, ``str()`` is one line."""

    def __init__(self, limit: str, line: str) -> None:
        super().__init__(line)
        self.limit = limit


@dataclass(frozen=True)
class ShadowBudget:
    """Limits of one shadow run (per asset run: one day, or every day of a backfill run)."""

    max_episodes: int = 20
    #: Proposals of dangerous actions allowed; the next one stops the run (the kill switch).
    max_dangerous_proposals: int = 5
    #: Prompt plus completion tokens over every request of the run.
    max_tokens: int = 500_000
    #: Wall-clock seconds of the run (checked before each request).
    max_seconds: float = 1800.0

    def __post_init__(self) -> None:
        for name in ("max_episodes", "max_dangerous_proposals", "max_tokens", "max_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"shadow budget: {name} must be >= 0")


@dataclass
class BudgetMeter:
    """What a run has spent; each ``check_*``/``add_*`` raises :class:`ShadowStopped` when over."""

    budget: ShadowBudget
    candidate_id: str
    clock: Callable[[], float] = time.monotonic
    episodes: int = 0
    proposals: int = 0
    dangerous: int = 0
    tokens: int = 0
    started: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started = self.clock()

    @property
    def seconds(self) -> float:
        return self.clock() - self.started

    def _stop(self, limit: str, what: str) -> ShadowStopped:
        return ShadowStopped(
            limit,
            f"shadow of {self.candidate_id} stopped: {what}; kept {self.episodes} episode(s), "
            f"{self.proposals} proposal(s)",
        )

    def start_episode(self) -> None:
        if self.episodes >= self.budget.max_episodes:
            raise self._stop("max_episodes", f"max_episodes={self.budget.max_episodes} reached")
        self.episodes += 1

    def check_time(self) -> None:
        if self.seconds > self.budget.max_seconds:
            raise self._stop(
                "max_seconds",
                f"time budget max_seconds={self.budget.max_seconds:g} crossed "
                f"({self.seconds:.1f} s used)",
            )

    def add_tokens(self, n: int) -> None:
        self.tokens += max(0, int(n))
        if self.tokens > self.budget.max_tokens:
            raise self._stop(
                "max_tokens",
                f"token budget max_tokens={self.budget.max_tokens} crossed ({self.tokens} used)",
            )

    def add_dangerous(self, tool_name: str) -> None:
        """Count a dangerous proposal; over the limit it is blocked and the run stops."""
        if self.dangerous + 1 > self.budget.max_dangerous_proposals:
            raise self._stop(
                "max_dangerous_proposals",
                f"kill switch: dangerous proposal {self.dangerous + 1} ({tool_name}) over "
                f"max_dangerous_proposals={self.budget.max_dangerous_proposals}, blocked before "
                "any answer",
            )
        self.dangerous += 1
