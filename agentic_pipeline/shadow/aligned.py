"""The step-aligned shadow: at every logged decision point, what would the candidate do?

For each episode of the day (in a seeded random order) and each of its decision points
(:mod:`~agentic_pipeline.shadow.decisions`), the candidate, any OpenAI-compatible
chat-completions endpoint (:class:`~agentic_pipeline.environments.openai_policy.ChatEndpoint`),
is sent the logged masked conversation before that point and the tools of the episode's tool set
(:func:`~agentic_pipeline.environments.tool_schemas.tool_specs_for`), ``n_samples`` times. Its
first action is compared with the logged one. Nothing it proposes is executed: a proposed call is
answered only by hermetic replay (:class:`~agentic_pipeline.environments.hermetic.HermeticTools`:
the logged result of a matching logged call, else an off-log tool error), and a dangerous call
(risk rules of the tool set) is never answered. With ``max_calls_per_step`` > 1, a candidate whose
first proposal is a tool call that departs from the log is shown that answer and asked again, up
to that many calls, so what it does after an off-log call is recorded too.

Every decision point of a shadowed episode gets a row: a proposal, or the reason there is none
(``not_run: ...``, ``candidate_error: ...``). The budget meter
(:mod:`~agentic_pipeline.shadow.budget`) stops the run with one line when a limit is crossed; what
was done is kept.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from agentic_pipeline.catalogue import Catalogue, ToolSet, default_catalogue
from agentic_pipeline.chat import Message, present, tool_call, tool_calls_message, tool_message
from agentic_pipeline.environments.cassette import Cassette
from agentic_pipeline.environments.crm import CRM_TOOLS
from agentic_pipeline.environments.hermetic import HermeticAnswer, HermeticTools
from agentic_pipeline.environments.openai_policy import (
    FINISH_TOOL,
    ChatEndpoint,
    OpenAIChatPolicy,
    OpenAIPolicyError,
    first_choice,
)
from agentic_pipeline.environments.tool_schemas import SchemaInference, tool_specs_for
from agentic_pipeline.shadow.budget import BudgetMeter, ShadowBudget, ShadowStopped
from agentic_pipeline.shadow.decisions import (
    ActionView,
    DecisionPoint,
    compare,
    decision_points,
    trim_history,
    view_of,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "Candidate",
    "ShadowResult",
    "ShadowSettings",
    "StepAlignedShadow",
]

#: Sent when the log holds no system prompt and none is configured.
DEFAULT_SYSTEM_PROMPT = (
    "You are the assistant in this conversation. Use the tools to do what the user asks, "
    "answer the user, and call finish when the conversation is over."
)
MAX_REPLY_CHARS = 2000
MAX_CONSECUTIVE_ERRORS = 3


@dataclass(frozen=True)
class Candidate:
    """The model in shadow: an endpoint, the model name it is asked for, and its id in tables."""

    endpoint: ChatEndpoint
    model: str
    candidate_id: str = ""

    @property
    def name(self) -> str:
        return self.candidate_id or f"openai:{self.model}"


@dataclass(frozen=True)
class ShadowSettings:
    #: Samples per decision point (n >= 2 needs a temperature above 0: the flap rate).
    n_samples: int = 1
    temperature: float = 0.0
    #: Decision points proposed per episode (0: all); later ones get a ``not_run`` row.
    max_steps_per_episode: int = 0
    #: Calls the candidate may make at one decision point (1: the aligned proposal only).
    max_calls_per_step: int = 1
    #: Messages of history kept besides the system and first user message (0: all).
    max_history_messages: int = 0
    #: Replaces the logged system prompt when set.
    system_prompt: str | None = None
    max_tokens_per_call: int = 256
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_samples < 1 or self.max_calls_per_step < 1:
            raise ValueError("shadow: n_samples and max_calls_per_step must be >= 1")
        if self.n_samples > 1 and self.temperature <= 0:
            raise ValueError("shadow: n_samples >= 2 needs temperature > 0 (a flap rate)")


@dataclass
class ShadowResult:
    """Rows of the two shadow tables (see :mod:`~agentic_pipeline.shadow.tables`)."""

    candidate_id: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    #: The one line of a crossed limit, else None.
    stopped: str | None = None
    stopped_limit: str | None = None
    seconds: float = 0.0
    tokens: int = 0
    requests: int = 0


#: The step columns the shadow reads (a day's table is narrowed to them before anything else).
COLUMNS = (
    "ds", "episode_id", "step", "role", "action_type", "content", "tool_name", "tool_call_id",
    "tool_arguments", "policy_id", "task_type", "task_id", "task_description",
)  # fmt: skip
_INFO = ("policy_id", "task_type", "task_id")


def _first(rows: list[Mapping[str, Any]], key: str) -> Any:
    for row in rows:
        value = present(row.get(key))
        if value is not None:
            return value
    return None


@dataclass
class _Day:
    """The episodes of one call of :meth:`StepAlignedShadow.run`: their keys, what the episode
    list needs (policy, task, tools called), and each episode's rows, read only when shadowed."""

    info: dict[tuple[str, str], dict[str, Any]]
    rows: Callable[[tuple[str, str]], list[dict[str, Any]]]
    #: ``(key, tool name, arguments text)`` of every logged call (for the tool schemas).
    calls: list[tuple[tuple[str, str], Any, Any]]

    @classmethod
    def of(cls, rows: Iterable[Mapping[str, Any]] | pa.Table) -> _Day:
        if isinstance(rows, pa.Table):
            return cls._of_table(rows)
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault((str(row.get("ds")), str(row.get("episode_id"))), []).append(
                dict(row)
            )
        info = {
            k: {**{c: _first(g, c) for c in _INFO},
                "tools": [r.get("tool_name") for r in g if r.get("action_type") == "tool_call"]}
            for k, g in groups.items()
        }  # fmt: skip
        calls = [
            (k, r.get("tool_name"), r.get("tool_arguments"))
            for k, g in groups.items()
            for r in g
            if r.get("action_type") == "tool_call"
        ]
        return cls(info, groups.__getitem__, calls)

    @classmethod
    def _of_table(cls, table: pa.Table) -> _Day:
        table = table.select([c for c in COLUMNS if c in table.column_names])
        small = table.select(["ds", "episode_id", *_INFO, "action_type", "tool_name"]).to_pandas()
        small[["ds", "episode_id"]] = small[["ds", "episode_id"]].astype(str)
        by_key = small.groupby(["ds", "episode_id"], sort=False)
        first = by_key[list(_INFO)].first()
        is_call = small["action_type"] == "tool_call"
        tools = small[is_call].groupby(["ds", "episode_id"], sort=False)["tool_name"].agg(list)
        info = {
            k: {**{c: present(first.at[k, c]) for c in _INFO}, "tools": tools.get(k, [])}
            for k in first.index
        }
        indices = by_key.indices
        calls_table = table.filter(pa.compute.equal(table.column("action_type"), "tool_call"))
        calls = list(zip(
            zip(map(str, calls_table.column("ds").to_pylist()),
                map(str, calls_table.column("episode_id").to_pylist()), strict=True),
            calls_table.column("tool_name").to_pylist(),
            calls_table.column("tool_arguments").to_pylist(), strict=True,
        ))  # fmt: skip
        return cls(info, lambda key: table.take(indices[key]).to_pylist(), calls)


class StepAlignedShadow:
    """Runs one candidate over canonical (masked) step rows; see the module docstring."""

    def __init__(
        self,
        candidate: Candidate,
        settings: ShadowSettings | None = None,
        budget: ShadowBudget | None = None,
        catalogue: Catalogue | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.candidate = candidate
        self.settings = settings or ShadowSettings()
        self.meter = BudgetMeter(budget or ShadowBudget(), candidate.name, clock)
        self.catalogue = catalogue or default_catalogue()
        self.clock = clock
        self._errors_in_a_row = 0
        self._requests = 0
        #: The crossed limit, once one was (later episodes are not run).
        self.stop: ShadowStopped | None = None

    # -- the run ---------------------------------------------------------------------------------

    def order_key(self, ds: str, episode_id: str) -> str:
        """The seeded random order in which episodes are shadowed (stable across runs)."""
        return hashlib.sha256(f"{self.settings.seed}:{ds}:{episode_id}".encode()).hexdigest()

    def run(self, rows: Iterable[Mapping[str, Any]] | pa.Table) -> ShadowResult:
        """Shadow every episode of ``rows`` (one day, say) until done or a limit is crossed.

        Calling it again (the next day of a backfill run) goes on with the same budget; once a
        limit was crossed, every later episode is listed as ``not_run``.
        """
        result = ShadowResult(self.candidate.name)
        if self.stop is not None:
            result.stopped, result.stopped_limit = str(self.stop), self.stop.limit
        day = _Day.of(rows)
        tool_sets = {
            key: self.catalogue.detect(info["task_type"], info["tools"])
            for key, info in day.info.items()
        }
        inference = SchemaInference()
        for key, name, arguments in day.calls:
            inference.add(tool_sets[key].tool_set, name, arguments)
        for key in sorted(day.info, key=lambda k: self.order_key(*k)):
            base = self._episode_base(key, day.info[key], tool_sets[key])
            if result.stopped:
                result.episodes.append({**base, "status": f"not_run: {result.stopped_limit}"})
                continue
            try:
                episode_rows = day.rows(key)
                points = decision_points(episode_rows)
                tape = Cassette.from_steps(episode_rows)
            except Exception as exc:  # one unreadable episode never stops the day
                result.episodes.append({**base, "status": f"unreadable: {type(exc).__name__}"})
                continue
            if not points:
                result.episodes.append({**base, "status": "not_run: no decision point"})
                continue
            try:
                self.meter.start_episode()
            except ShadowStopped as stop:
                self._stopped(stop, result)
                result.episodes.append({**base, "status": f"not_run: {stop.limit}"})
                continue
            specs = tool_specs_for(
                tool_sets[key],
                inference.schemas(tool_sets[key].tool_set),
                CRM_TOOLS if tool_sets[key].tool_set == "crm" else None,
            )
            tools = [spec.to_openai() for spec in specs.values()] + [FINISH_TOOL]
            status = self._episode(base, points, tape, tool_sets[key], tools, result)
            result.episodes.append({**base, "status": status})
        result.seconds = self.meter.seconds
        result.tokens = self.meter.tokens
        result.requests = self._requests
        return result

    def _stopped(self, stop: ShadowStopped, result: ShadowResult) -> None:
        self.stop = stop
        result.stopped, result.stopped_limit = str(stop), stop.limit

    def _episode_base(
        self, key: tuple[str, str], info: Mapping[str, Any], tool_set: ToolSet
    ) -> dict[str, Any]:
        return {
            "ds": key[0],
            "episode_id": key[1],
            **{c: None if info[c] is None else str(info[c]) for c in _INFO},
            "tool_set": tool_set.tool_set,
            "candidate_id": self.candidate.name,
        }

    def _episode(
        self,
        base: dict[str, Any],
        points: list[DecisionPoint],
        tape: Cassette,
        rules: ToolSet,
        tools: list[dict[str, Any]],
        result: ShadowResult,
    ) -> str:
        hermetic = HermeticTools.from_cassette(tape)
        limit = self.settings.max_steps_per_episode
        for point in points:
            logged = self._logged_cells(point.logged)
            for sample in range(self.settings.n_samples):
                row = {**base, "decision": point.index, "step": point.step, "sample": sample}
                if result.stopped:
                    result.steps.append(
                        {**row, **logged, "status": f"not_run: {result.stopped_limit}"}
                    )
                elif limit and point.index >= limit:
                    reason = f"not_run: over max_steps_per_episode={limit}"
                    result.steps.append({**row, **logged, "status": reason})
                else:
                    try:
                        self._propose(row, logged, point, hermetic, rules, tools, result)
                    except ShadowStopped as stop:
                        self._stopped(stop, result)
        return f"stopped: {result.stopped_limit}" if result.stopped else "shadowed"

    @staticmethod
    def _logged_cells(view: ActionView) -> dict[str, Any]:
        return {
            "logged_kind": view.kind,
            "logged_tool": view.tool,
            "logged_arguments": view.arguments,
        }

    # -- one decision point, one sample ----------------------------------------------------------

    def _request(self, messages: list[Message], tools: list[dict[str, Any]], seed: int):
        """One request: ``(choice, usage, seconds)``; raises ShadowStopped when over budget."""
        self.meter.check_time()
        payload = {
            "model": self.candidate.model,
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto",
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens_per_call,
            "seed": seed,
        }
        start = self.clock()
        self._requests += 1
        choice, usage = first_choice(self.candidate.endpoint.create(payload))
        return choice, usage, self.clock() - start

    def _seed(self, row: Mapping[str, Any], call: int) -> int:
        text = f"{self.settings.seed}:{row['ds']}:{row['episode_id']}:{row['decision']}"
        digest = hashlib.sha256(f"{text}:{row['sample']}:{call}".encode()).hexdigest()
        return int(digest[:8], 16)

    def _propose(
        self,
        row: dict[str, Any],
        logged: dict[str, Any],
        point: DecisionPoint,
        hermetic: HermeticTools,
        rules: ToolSet,
        tools: list[dict[str, Any]],
        result: ShadowResult,
    ) -> None:
        system = self.settings.system_prompt
        if system is None and not any(m["role"] == "system" for m in point.history):
            system = DEFAULT_SYSTEM_PROMPT
        messages = trim_history(point.history, system, self.settings.max_history_messages)
        proposal, queued = 0, []
        while proposal < self.settings.max_calls_per_step:
            usage: dict[str, int] = {}
            seconds = 0.0
            if not queued:
                try:
                    choice, usage, seconds = self._request(
                        messages, tools, self._seed(row, proposal)
                    )
                except ShadowStopped as stop:
                    status = f"not_run: {stop.limit}"
                    result.steps.append({**row, **logged, "proposal": proposal, "status": status})
                    raise
                except Exception as exc:  # an endpoint error is recorded, not fatal, at first
                    self._candidate_error(row, logged, proposal, exc, result)
                    return
                self._errors_in_a_row = 0
                queued = self._actions(choice)
            action, arguments = queued.pop(0)
            cells = self._cells(point.logged, action, arguments, proposal, usage, seconds)
            result.steps.append({**row, **logged, **cells})
            self.meter.proposals += 1
            self.meter.add_tokens(sum(usage.values()))
            if action.kind != "tool":
                return
            answer = self._answer(action, hermetic, rules, result)
            result.steps[-1].update(answer=answer.source, matched_step=answer.matched_step)
            result.steps[-1]["dangerous"] = answer.source == "blocked"
            if proposal == 0 and cells["agrees"]:
                return  # the next decision point shows what comes next
            messages = messages + [
                tool_calls_message(tool_call(f"shadow_{proposal}", action.tool, arguments or "{}")),
                tool_message(f"shadow_{proposal}", answer.content),
            ]
            proposal += 1

    @staticmethod
    def _actions(choice: Mapping[str, Any]) -> list[tuple[ActionView, str | None]]:
        """The actions of one answer, each with the JSON arguments text the candidate sent."""
        texts = [
            (c.get("function") or {}).get("arguments")
            for c in (choice.get("message") or {}).get("tool_calls") or []
            if isinstance(c, dict) and (c.get("function") or {}).get("name")
        ]
        actions = OpenAIChatPolicy.to_actions(choice)
        out = []
        for i, action in enumerate(actions):
            text = texts[i] if action.type == "tool" and i < len(texts) else None
            if action.type == "tool" and text is None:
                text = json.dumps(action.params, sort_keys=True)
            out.append((view_of(action, text), text))
        return out

    def _answer(
        self, action: ActionView, hermetic: HermeticTools, rules: ToolSet, result: ShadowResult
    ) -> HermeticAnswer:
        dangerous = rules.is_dangerous(action.tool, action.params)
        if dangerous:
            try:
                self.meter.add_dangerous(action.tool or "")
            except ShadowStopped:
                result.steps[-1].update(answer="blocked", dangerous=True)
                raise
        return hermetic.answer(action.tool or "", action.params, dangerous=dangerous)

    def _cells(
        self,
        logged: ActionView,
        proposed: ActionView,
        arguments: str | None,
        proposal: int,
        usage: Mapping[str, int],
        seconds: float,
    ) -> dict[str, Any]:
        verdict = compare(logged, proposed) if proposal == 0 else None
        reply = proposed.reply[:MAX_REPLY_CHARS] if proposed.reply else None
        return {
            "proposal": proposal,
            "status": "proposed",
            "proposed_kind": proposed.kind,
            "proposed_tool": proposed.tool,
            "proposed_arguments": arguments if proposed.kind == "tool" else None,
            "proposed_reply": reply,
            "same_kind": verdict.same_kind if verdict else None,
            "same_tool": verdict.same_tool if verdict else None,
            "same_arguments": verdict.same_arguments if verdict else None,
            "agrees": verdict.agrees if verdict else None,
            "dangerous": False,
            "candidate_prompt_tokens": usage.get("prompt_tokens"),
            "candidate_completion_tokens": usage.get("completion_tokens"),
            "candidate_seconds": round(seconds, 4) if usage or seconds else None,
        }

    def _candidate_error(
        self,
        row: dict[str, Any],
        logged: dict[str, Any],
        proposal: int,
        exc: Exception,
        result: ShadowResult,
    ) -> None:
        """Record a failed request; several in a row stop the run (the endpoint is down)."""
        # only our own client's messages are quoted (other errors could echo content)
        reason = str(exc)[:200] if isinstance(exc, OpenAIPolicyError) else type(exc).__name__
        status = f"candidate_error: {reason}"
        result.steps.append({**row, **logged, "proposal": proposal, "status": status})
        self._errors_in_a_row += 1
        if self._errors_in_a_row >= MAX_CONSECUTIVE_ERRORS:
            raise ShadowStopped(
                "candidate_errors",
                f"shadow of {self.candidate.name} stopped: {MAX_CONSECUTIVE_ERRORS} failed "
                f"requests in a row (last: {reason}); kept "
                f"{self.meter.episodes} episode(s), {self.meter.proposals} proposal(s)",
            )
