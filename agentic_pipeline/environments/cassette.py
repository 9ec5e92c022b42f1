"""The replay environment: one logged episode as a cassette that answers the agent's calls.

A :class:`Cassette` is built from one episode's canonical step rows (``agentic_pipeline.schema``):
the agent's actions in order, each tool call with its logged result, the user's messages, and the
structural problems found on the way (:class:`Divergence`). :class:`ReplayEnvironment` answers
actions in log order: read calls (and every call of an unknown tool set) from the log; write
calls of a known tool set are applied to a sandbox copy of the state (CRM:
:func:`seed_crm_sandbox`, seeded from the records seen in the logged read results and the entities
the task goal names), so the final state can be checked against the goal.

Values are only ever compared for equality, so a masked log (keyed pseudonyms replacing personal
values consistently) replays exactly like the raw one. Divergence reasons quote step numbers and
tool names only, never content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentic_pipeline.catalogue.errors import DEFAULT_ERRORS, ErrorPatterns
from agentic_pipeline.environments.base import Action, Environment, StepResult, Task
from agentic_pipeline.environments.crm import CRMSandbox

#: Divergence kinds that mean the log ends early (``incomplete``); all others mean ``diverged``.
TRUNCATION_KINDS: frozenset[str] = frozenset({"truncated", "empty"})
_MAX_NAME = 64
#: Stands in for the name of a logged tool call that has none.
UNNAMED = "<unnamed>"


@dataclass(frozen=True)
class Divergence:
    """A place where the log and the replay disagree (or the log contradicts itself)."""

    step: int
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} at step {self.step}: {self.detail}"


@dataclass
class LoggedAction:
    """One agent action of the log, with the logged answer for a tool call."""

    step: int
    type: str  # "tool" | "respond" | "finish"
    tool_name: str | None = None
    call_id: str | None = None
    arguments: str | None = None
    params: dict[str, Any] | None = None  # None when the arguments are not a JSON object
    reply: str | None = None
    result: str | None = None
    result_step: int | None = None

    @property
    def answered(self) -> bool:
        return self.result_step is not None

    def to_action(self) -> Action:
        """The action as the environment interface sees it."""
        if self.type == "tool":
            name = self.tool_name or UNNAMED
            return Action("tool", tool_name=name, params=dict(self.params or {}))
        return Action(self.type, reply=self.reply)  # type: ignore[arg-type]


def _name(value: Any) -> str:
    return str(value)[:_MAX_NAME]


def parse_arguments(text: str | None) -> dict[str, Any] | None:
    """Tool arguments as an object, or ``None`` when they are not a JSON object."""
    if text is None or text == "":
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):  # RecursionError: nested too deep
        return None
    return value if isinstance(value, dict) else None


def parse_result(text: str | None) -> Any:
    """A logged tool result: parsed JSON when it is JSON, else the text."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):  # RecursionError: nested too deep
        return text


def is_error_result(text: str | None, errors: ErrorPatterns | None = None) -> bool:
    """A tool result that is an error, by the default patterns and the catalogue's ``errors``
    (see :mod:`agentic_pipeline.catalogue.errors`)."""
    return (errors or DEFAULT_ERRORS).is_error(text)


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass
class Cassette:
    """One episode's log, ready to be replayed."""

    actions: list[LoggedAction] = field(default_factory=list)
    #: ``(step, text)`` of every user message, in order.
    user_messages: list[tuple[int, str]] = field(default_factory=list)
    issues: list[Divergence] = field(default_factory=list)
    last_step: int = -1

    @classmethod
    def from_steps(cls, rows: Iterable[Mapping[str, Any]]) -> Cassette:
        """Build from canonical step rows of one episode (any order; sorted by ``step``)."""
        ordered = sorted(rows, key=lambda r: _int(r.get("step"), -1))
        tape = cls()
        if not ordered:
            tape.issues.append(Divergence(-1, "empty", "the episode has no steps"))
            return tape
        calls: dict[str, list[LoggedAction]] = {}
        call_steps: dict[str, list[int]] = {}
        for row in ordered:
            if row.get("action_type") == "tool_call" and row.get("tool_call_id") is not None:
                call_steps.setdefault(str(row["tool_call_id"]), []).append(
                    _int(row.get("step"), -1)
                )
        pending: list[LoggedAction] = []  # calls without an answer yet, in call order
        early: dict[str, tuple[int, str | None]] = {}  # results seen before their call
        for row in ordered:
            step, kind = _int(row.get("step"), -1), row.get("action_type")
            tape.last_step = max(tape.last_step, step)
            if kind == "message" and row.get("role") == "user":
                tape.user_messages.append((step, row.get("content") or ""))
            elif kind == "tool_call":
                tape._add_call(row, step, calls, pending, early)
            elif kind == "tool_result":
                tape._add_result(row, step, calls, pending, call_steps, early)
            elif kind in ("respond", "finish"):
                tape.actions.append(LoggedAction(step, kind, reply=row.get("content")))
        for call in pending:
            later = any(a.step > call.step for a in tape.actions) or any(
                s > call.step for s, _ in tape.user_messages
            )
            what = f"no recorded answer for {_name(call.tool_name)}"
            tape.issues.append(
                Divergence(call.step, "missing_result" if later else "truncated", what)
            )
        tape.issues.sort(key=lambda d: (d.step, d.kind, d.detail))
        return tape

    def _add_call(
        self,
        row: Mapping[str, Any],
        step: int,
        calls: dict[str, list[LoggedAction]],
        pending: list[LoggedAction],
        early: dict[str, tuple[int, str | None]],
    ) -> None:
        raw_id = row.get("tool_call_id")
        call_id = str(raw_id) if raw_id is not None else None
        name = row.get("tool_name")
        args = row.get("tool_arguments")
        params = parse_arguments(args)
        call = LoggedAction(step, "tool", str(name) if name else None, call_id, args, params)
        self.actions.append(call)
        if not name:
            self.issues.append(Divergence(step, "unnamed_tool", "tool call without a name"))
        if params is None:
            self.issues.append(
                Divergence(step, "unparsable_arguments", f"arguments of {_name(name)}")
            )
        if call_id is None:
            self.issues.append(Divergence(step, "missing_call_id", f"call of {_name(name)}"))
            return
        same_id = calls.setdefault(call_id, [])
        if any(not c.answered for c in same_id):  # reuse after an answer is unambiguous
            self.issues.append(
                Divergence(step, "duplicate_call_id", f"call id reused by {_name(name)}")
            )
        same_id.append(call)
        if call_id in early:
            call.result_step, call.result = early.pop(call_id)
        else:
            pending.append(call)

    def _add_result(
        self,
        row: Mapping[str, Any],
        step: int,
        calls: dict[str, list[LoggedAction]],
        pending: list[LoggedAction],
        call_steps: dict[str, list[int]],
        early: dict[str, tuple[int, str | None]],
    ) -> None:
        raw_id = row.get("tool_call_id")
        call_id = str(raw_id) if raw_id is not None else None
        content = row.get("content")
        if call_id is None or call_id not in call_steps:
            self.issues.append(
                Divergence(step, "orphan_result", "tool result for a call that never happened")
            )
            return
        call = next((c for c in pending if c.call_id == call_id), None)
        if call is None:
            if any(s > step for s in call_steps[call_id]) and call_id not in early:
                self.issues.append(Divergence(step, "out_of_order", "tool result before its call"))
                early[call_id] = (step, content)
            else:
                self.issues.append(
                    Divergence(step, "duplicate_result", "second result for one call")
                )
            return
        if pending[0] is not call:
            self.issues.append(
                Divergence(
                    step,
                    "out_of_order",
                    f"answer for {_name(call.tool_name)} (step {call.step}) before the answer "
                    f"for step {pending[0].step}",
                )
            )
        pending.remove(call)
        call.result, call.result_step = content, step

    # -- views -----------------------------------------------------------------------------------

    @property
    def tool_calls(self) -> list[LoggedAction]:
        return [a for a in self.actions if a.type == "tool"]

    def first_user_message(self) -> str | None:
        return self.user_messages[0][1] if self.user_messages else None

    def user_message_after(self, step: int) -> str | None:
        """The first user message logged after ``step`` and before the next agent action."""
        nxt = min((a.step for a in self.actions if a.step > step), default=None)
        for s, text in self.user_messages:
            if s > step and (nxt is None or s < nxt):
                return text
        return None

    def read_results(
        self, read_tools: Iterable[str], errors: ErrorPatterns | None = None
    ) -> Iterator[tuple[LoggedAction, Any]]:
        """Parsed, non-error results of read calls, in log order."""
        reads = set(read_tools)
        for call in self.tool_calls:
            if (
                call.tool_name in reads
                and call.answered
                and not is_error_result(call.result, errors)
            ):
                yield call, parse_result(call.result)


def seed_crm_sandbox(cassette: Cassette, goal: Mapping[str, Any] | None = None) -> CRMSandbox:
    """A CRM sandbox holding what the log shows of the state before the episode.

    Records come from the logged results of ``search_customer``/``get_customer`` (the first
    version seen of each customer and case). The entities the task goal names must exist before
    the episode (the user asks about them), so a missing goal customer gets a stub record and a
    missing goal case an open stub case of that customer.
    """
    customers: dict[str, dict[str, Any]] = {}
    cases: dict[str, dict[str, Any]] = {}
    for _, result in cassette.read_results(("search_customer", "get_customer")):
        if not isinstance(result, dict):
            continue
        customer = result.get("customer")
        if isinstance(customer, dict) and isinstance(customer.get("customer_id"), str):
            customers.setdefault(customer["customer_id"], dict(customer))
        for case in result.get("cases") or []:
            if isinstance(case, dict) and isinstance(case.get("case_id"), str):
                cases.setdefault(case["case_id"], dict(case))
    goal = goal or {}
    cid = goal.get("customer_id")
    if isinstance(cid, str):
        customers.setdefault(cid, {"customer_id": cid})
        case_id = goal.get("case_id")
        if isinstance(case_id, str):
            cases.setdefault(case_id, {"case_id": case_id, "customer_id": cid, "status": "open"})
    return CRMSandbox.from_state(customers, cases, {})


class ReplayEnvironment(Environment):
    """Answers actions from a :class:`Cassette`, in log order.

    ``tools`` is the catalogue's tool set (empty: unknown). Every call is answered from the log;
    a tool the catalogue does not list is answered too (its effect is inferred elsewhere), so an
    unknown tool alone is never a divergence.
    ``sandbox`` (optional) receives the write calls of the known tool set; its answers replace the
    logged ones and a disagreement on success/error is a ``state_mismatch`` divergence. Every
    action that does not match the next logged action is an ``unexpected_action`` divergence.
    """

    def __init__(
        self,
        cassette: Cassette,
        tools: Mapping[str, Any] | None = None,
        sandbox: CRMSandbox | None = None,
        errors: ErrorPatterns | None = None,
    ) -> None:
        self.cassette = cassette
        self.errors = errors
        self.tools = dict(tools or {})
        self.sandbox = sandbox
        self.cursor = 0
        self.divergences: list[Divergence] = []
        self.done = False

    def reset(self, task: Task) -> dict[str, Any]:
        """Rewind the cassette; the first observation is the first logged user message."""
        self.cursor, self.done = 0, False
        self.divergences = list(self.cassette.issues)
        if self.sandbox is not None:
            self.sandbox.reset(task)
        first = self.cassette.first_user_message()
        return {"user_message": first if first is not None else task.description}

    def goal_met(self) -> bool | None:
        """The sandbox's verdict, or ``None`` without a sandbox."""
        return self.sandbox.goal_met() if self.sandbox is not None else None

    def _diverge(self, step: int, kind: str, detail: str) -> dict[str, Any]:
        self.divergences.append(Divergence(step, kind, detail))
        return {"error": f"replay divergence: {kind}"}

    def step(self, action: Action) -> StepResult:
        """Answer ``action`` with the log (or the sandbox for known writes)."""
        actions = self.cassette.actions
        logged = actions[self.cursor] if self.cursor < len(actions) else None
        step = logged.step if logged is not None else self.cassette.last_step + 1
        if (
            logged is None
            or logged.type != action.type
            or (
                action.type == "tool"
                and (
                    (logged.tool_name or UNNAMED) != action.tool_name
                    or (logged.params or {}) != action.params
                )
            )
        ):
            obs = self._diverge(step, "unexpected_action", f"{action.type} not in the log here")
            return StepResult(obs, 0.0, action.type == "finish", {"diverged": True})
        self.cursor += 1
        if action.type == "finish":
            self.done = True
            return StepResult({}, 0.0, True, {"goal_met": self.goal_met()})
        if action.type == "respond":
            message = self.cassette.user_message_after(logged.step)
            return StepResult({"user_message": message or ""}, 0.0, False, {})
        kind = self.tool_kind(logged.tool_name or "")
        return StepResult(self._answer(logged), 0.0, False, {"kind": kind})

    def _answer(self, call: LoggedAction) -> dict[str, Any]:
        name = call.tool_name or ""
        logged = parse_result(call.result)
        if isinstance(logged, str):
            logged = {"content": logged}
        if self.sandbox is not None and self.tool_kind(name) == "write" and call.params is not None:
            obs = self.sandbox.call_tool(name, call.params)
            if call.answered and ("error" in obs) != is_error_result(call.result, self.errors):
                self.divergences.append(
                    Divergence(call.step, "state_mismatch", f"sandbox and log disagree on {name}")
                )
            return obs
        if not call.answered:
            return {"error": "replay divergence: no recorded answer"}
        return logged if isinstance(logged, dict) else {"content": logged}
