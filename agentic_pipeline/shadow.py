"""Shadow mode: a candidate policy acts on recorded CRM tasks against a sandbox, never production.

Each recorded episode (built-in CRM task, goal understood, clean log) becomes a
:class:`RecordedTask`: the task (description and goal as logged, masked or not), the context, and a
:class:`~agentic_pipeline.environments.crm.CRMSandbox` seeded from the logged reads
(:func:`~agentic_pipeline.environments.seed_crm_sandbox`). A :class:`ShadowRunner` plays the
candidate against a fresh sandbox copy per episode, with a :class:`UserModel` (a parameter: the
demo passes the simulator's user) answering replies.
Writes touch only that sandbox. A :class:`ShadowQuota` caps the episodes and the dangerous actions
(financial writes and destructive acts, per :class:`~agentic_pipeline.risk.RiskRules`) per run; the
kill switch raises :class:`ShadowQuotaExceeded` *before* the offending action is applied.

Candidate trajectories are written as Episode-JSONL records and parsed into canonical step rows
(:func:`agentic_pipeline.formats.parse_episode`), so the same replay facts describe logged and
candidate behaviour.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from agentic_pipeline.chat import text_message, tool_exchange
from agentic_pipeline.environments.base import Action, AgentState, Policy, Task
from agentic_pipeline.environments.cassette import Cassette, seed_crm_sandbox
from agentic_pipeline.environments.crm import CRMSandbox, UserFn
from agentic_pipeline.environments.openai_policy import OpenAIPolicyError
from agentic_pipeline.formats import parse_episode
from agentic_pipeline.jsonutil import finite_or_none, safe_loads, strict_json_dumps
from agentic_pipeline.replay import (
    REPLAYED_EPISODES_SCHEMA,
    environment_understands,
    replay_day,
)
from agentic_pipeline.risk import CRM_RULES, RiskRules, detect_tool_set
from agentic_pipeline.schema import STEP_SCHEMA

__all__ = [
    "DIFF_SCHEMA",
    "RecordedTask",
    "SHADOW_EPISODES_SCHEMA",
    "ShadowEpisode",
    "ShadowQuota",
    "ShadowQuotaExceeded",
    "ShadowRunner",
    "UserModel",
    "behaviour_diff",
    "recorded_tasks",
    "shadow_table",
]

DEFAULT_MAX_STEPS = 24


def _DUMPS(value: Any) -> str:  # noqa: N802  (was a JSONEncoder's bound method)
    """Strict, compact, sorted JSON (a NaN from a recorded goal or context becomes null)."""
    return strict_json_dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class UserModel:
    """The user who answers a candidate's replies in shadow episodes (the demo passes its own)."""

    #: ``(customer record, channel, rng) -> user``: one user per episode.
    build: Callable[[Mapping[str, Any], str, random.Random], UserFn]
    #: A user message holding this text (any case) asks for a human: a takeover.
    human_marker: str


class ShadowQuotaExceeded(RuntimeError):
    """The shadow run hit its quota; the candidate is stopped (kill switch)."""


@dataclass(frozen=True)
class ShadowQuota:
    """Per-run limits: episodes started and dangerous actions attempted."""

    max_episodes: int = 200
    max_dangerous_actions: int = 20


@dataclass
class RecordedTask:
    """One recorded CRM task, ready for a candidate."""

    ds: str
    episode_id: str
    logged_policy_id: str | None
    task: Task
    context: dict[str, Any]
    sandbox: CRMSandbox  # the seed; never mutated (each run works on a copy)


@dataclass
class ShadowEpisode:
    """A candidate's episode: the Episode-JSONL record and the dangerous actions it attempted."""

    ds: str
    logged_episode_id: str
    record: dict[str, Any]
    dangerous_actions: int = 0
    killed: bool = False


def _rows_by_episode(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((str(row.get("ds")), str(row.get("episode_id"))), []).append(dict(row))
    return groups


def _json_obj(text: Any) -> dict[str, Any]:
    value = safe_loads(text)  # bad or too deeply nested JSON gives {}
    return value if isinstance(value, dict) else {}


def _first(rows: list[dict], key: str) -> Any:
    for row in rows:
        value = row.get(key)
        if value is not None and value == value:  # skips NaN
            return value
    return None


def task_slots(goal: Mapping[str, Any], customer: Mapping[str, Any]) -> dict[str, Any]:
    """The facts a user states, in structured form, from the goal and the seeded customer."""
    slots: dict[str, Any] = {
        "email": customer.get("email"),
        "first_name": customer.get("first_name") or "",
    }
    fields = goal.get("fields")
    if isinstance(fields, Mapping) and fields:
        name = sorted(fields)[0]
        slots.update(field=name, new_value=fields[name])
    ticket = goal.get("ticket")
    if isinstance(ticket, Mapping) and isinstance(ticket.get("amount"), (int, float)):
        slots["amount"] = float(ticket["amount"])
    if isinstance(goal.get("case_id"), str):
        slots["case_id"] = goal["case_id"]
    return slots


def recorded_tasks(
    steps: Iterable[Mapping[str, Any]], reasons: dict[str, int] | None = None
) -> tuple[list[RecordedTask], int]:
    """``(tasks, skipped)``: recorded CRM tasks a candidate can run, sorted by (ds, episode id).

    An episode qualifies when it is a built-in CRM task with a goal, its log has no divergence and
    the goal's customer record was seen in a logged read (so a candidate can look it up). An
    episode whose rows cannot be read at all is skipped too, never failing the day; ``reasons``
    (if given) gets the count per skip reason (``not_eligible``, ``unreadable:<error type>``).
    """
    tasks: list[RecordedTask] = []
    skipped = 0
    counts = reasons if reasons is not None else {}
    for (ds, episode_id), rows in sorted(_rows_by_episode(steps).items()):
        try:
            task = _recorded_task(ds, episode_id, rows)
        except Exception as exc:  # one corrupted episode must never stop the day
            reason = f"unreadable:{type(exc).__name__}"
        else:
            if task is not None:
                tasks.append(task)
                continue
            reason = "not_eligible"
        counts[reason] = counts.get(reason, 0) + 1
        skipped += 1
    return tasks, skipped


def _recorded_task(ds: str, episode_id: str, rows: list[dict]) -> RecordedTask | None:
    """The recorded task of one episode's rows, or None when it does not qualify."""
    rows.sort(key=lambda r: int(r.get("step") or 0))
    tape = Cassette.from_steps(rows)
    task_type = _first(rows, "task_type")
    goal = _json_obj(_first(rows, "task_goal"))
    rules = detect_tool_set(task_type, (a.tool_name for a in tape.tool_calls))
    sandbox = seed_crm_sandbox(tape, goal)
    customer = sandbox.customers.get(goal.get("customer_id"), {})
    if (
        tape.issues
        or not environment_understands(rules, task_type, goal)
        or "email" not in customer
    ):
        return None
    task = Task(
        str(_first(rows, "task_id") or episode_id),
        str(task_type),
        str(_first(rows, "task_description") or tape.first_user_message() or ""),
        goal,
        task_slots(goal, customer),
    )
    context = _json_obj(_first(rows, "context"))
    return RecordedTask(ds, episode_id, _first(rows, "policy_id"), task, context, sandbox)


@dataclass
class ShadowRunner:
    """Runs one candidate policy in shadow under a quota (counts are per runner, i.e. per run)."""

    policy: Policy
    #: Who answers the candidate's replies (keyword-only).
    user_model: UserModel = field(kw_only=True)
    quota: ShadowQuota = field(default_factory=ShadowQuota)
    rules: RiskRules = CRM_RULES
    max_steps: int = DEFAULT_MAX_STEPS
    seed: int = 0
    episodes: list[ShadowEpisode] = field(default_factory=list)
    dangerous_actions: int = 0
    #: Recorded tasks dropped because their episode raised (error type -> count).
    failed: dict[str, int] = field(default_factory=dict)
    #: Non-finite numbers in logged actions/observations, stored as JSON null (strict JSON).
    nonfinite_to_null: int = 0

    @property
    def candidate_id(self) -> str:
        return str(getattr(self.policy, "policy_id", "candidate"))

    def run(self, tasks: Iterable[RecordedTask]) -> list[ShadowEpisode]:
        """Run every task; raises :class:`ShadowQuotaExceeded` when a limit is hit.

        A task whose episode raises anything else (a corrupted recorded task) is dropped and
        counted in :attr:`failed`; an unreachable candidate endpoint (``OpenAIPolicyError``,
        ``OSError``) still fails the run, since every later task would fail the same way.
        """
        for task in tasks:
            before = len(self.episodes)
            try:
                self.run_episode(task)
            except (ShadowQuotaExceeded, OpenAIPolicyError, OSError):
                raise
            except Exception as exc:  # one bad recorded task must never stop the day
                del self.episodes[before:]
                reason = f"episode_error:{type(exc).__name__}"
                self.failed[reason] = self.failed.get(reason, 0) + 1
        return self.episodes

    def run_episode(self, recorded: RecordedTask) -> ShadowEpisode:
        """One candidate episode on a fresh copy of the recorded task's sandbox."""
        if len(self.episodes) >= self.quota.max_episodes:
            raise ShadowQuotaExceeded(
                f"shadow quota: max_episodes={self.quota.max_episodes} reached for candidate "
                f"{self.candidate_id}; no further episodes run"
            )
        key = f"shadow:{self.seed}:{self.candidate_id}:{recorded.ds}:{recorded.episode_id}"
        rng = random.Random(hashlib.sha256(key.encode()).hexdigest())
        env = recorded.sandbox.copy()
        customer = env.customers.get(recorded.task.goal.get("customer_id"), {})
        env.user = self.user_model.build(
            customer, str(recorded.context.get("channel", "chat")), rng
        )
        env.reset(recorded.task)
        state = AgentState(recorded.task, dict(recorded.context), random.Random(rng.random()))
        episode = ShadowEpisode(recorded.ds, recorded.episode_id, {})
        self.episodes.append(episode)
        messages: list[dict[str, Any]] = [text_message("user", recorded.task.description)]
        human = False
        try:
            for step in range(self.max_steps):
                action = self.policy(state) if step < self.max_steps - 1 else Action.finish()
                if action.type == "tool" and self.rules.is_dangerous(
                    action.tool_name, action.params
                ):
                    self._count_dangerous(episode, action)
                result = env.step(action)
                state.history.append((action, result.observation))
                self.nonfinite_to_null += (
                    finite_or_none(action.params)[1] + finite_or_none(result.observation)[1]
                )
                marker = self.user_model.human_marker
                human = _log(messages, step, action, result.observation, marker) or human
                if result.done:
                    break
        finally:
            episode.record = self._record(recorded, env, messages, human)
        return episode

    def _count_dangerous(self, episode: ShadowEpisode, action: Action) -> None:
        if self.dangerous_actions + 1 > self.quota.max_dangerous_actions:
            episode.killed = True
            raise ShadowQuotaExceeded(
                f"shadow kill switch: candidate {self.candidate_id} attempted dangerous action "
                f"{self.dangerous_actions + 1} ({action.tool_name}) over "
                f"max_dangerous_actions={self.quota.max_dangerous_actions}; action blocked, "
                "run stopped"
            )
        self.dangerous_actions += 1
        episode.dangerous_actions += 1

    def _record(
        self,
        recorded: RecordedTask,
        env: CRMSandbox,
        messages: list[dict[str, Any]],
        human: bool,
    ) -> dict[str, Any]:
        return {
            "episode_id": f"{recorded.episode_id}:shadow:{self.candidate_id}",
            "policy_id": self.candidate_id,
            "task_type": recorded.task.task_type,
            "task": {
                "id": recorded.task.task_id,
                "description": recorded.task.description,
                "goal": recorded.task.goal,
            },
            "context": recorded.context or None,
            "messages": messages,
            "outcome": {"success": env.goal_met(), "human_takeover": human},
            "reward": 1.0 if env.goal_met() else 0.0,
        }


def _log(
    messages: list[dict[str, Any]],
    step: int,
    action: Action,
    obs: dict[str, Any],
    human_marker: str,
) -> bool:
    """Log the action and its observation as chat messages; True if the user asked for a human."""
    if action.type == "tool":
        call_id = f"call_{step:03d}"
        arguments = _DUMPS(action.params)
        messages += tool_exchange(call_id, action.tool_name, arguments, _DUMPS(obs), True)
        return False
    if action.reply:
        messages.append(text_message("assistant", action.reply))
    if action.type == "respond":
        text = str(obs.get("user_message", ""))
        messages.append(text_message("user", text))
        return human_marker.lower() in text.lower()
    return False


def episode_step_rows(episodes: Iterable[ShadowEpisode]) -> list[dict[str, Any]]:
    """Canonical step rows (``schema.STEP_SCHEMA``) of candidate episodes."""
    out: list[dict[str, Any]] = []
    for ep in episodes:
        episode_id, attrs, rows = parse_episode(ep.record)
        for step, row in enumerate(rows):
            full = {name: None for name in STEP_SCHEMA.names}
            full.update({"ds": ep.ds, **attrs, **row, "step": step, "source_format": "shadow"})
            out.append(full)
    return out


# -- tables ----------------------------------------------------------------------------------------

SHADOW_EXTRA_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("logged_episode_id", pa.string()),
    ("candidate_id", pa.string()),
    ("dangerous_attempts", pa.int64()),
    ("killed", pa.bool_()),
    ("trajectory", pa.string()),  # JSON chat messages of the candidate (from masked inputs)
)
SHADOW_EPISODES_SCHEMA = pa.schema(
    [*REPLAYED_EPISODES_SCHEMA, *(pa.field(n, t) for n, t in SHADOW_EXTRA_FIELDS)]
)
DIFF_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("task_type", pa.string()),
        ("metric", pa.string()),
        ("logged", pa.float64()),
        ("candidate", pa.float64()),
        ("delta", pa.float64()),
        ("n_logged", pa.int64()),
        ("n_candidate", pa.int64()),
        ("logged_policies", pa.string()),
        ("candidate_id", pa.string()),
    ]
)


def shadow_table(episodes: list[ShadowEpisode], candidate_id: str) -> pa.Table:
    """``shadow_episodes``: replay facts of each candidate episode plus shadow columns."""
    facts = replay_day(pd.DataFrame(episode_step_rows(episodes), columns=STEP_SCHEMA.names))
    extra = {
        f"{ep.ds}\x00{ep.record['episode_id']}": {
            "logged_episode_id": ep.logged_episode_id,
            "candidate_id": candidate_id,
            "dangerous_attempts": ep.dangerous_actions,
            "killed": ep.killed,
            "trajectory": _DUMPS(ep.record.get("messages", [])),
        }
        for ep in episodes
    }
    rows = []
    for row in facts.to_dict("records"):
        rows.append({**row, **extra[f"{row['ds']}\x00{row['episode_id']}"]})
    rows = [{k: (None if v is pd.NA or v != v else v) for k, v in r.items()} for r in rows]
    return pa.Table.from_pylist(rows, schema=SHADOW_EPISODES_SCHEMA)


def _rates(frame: pd.DataFrame) -> dict[str, float]:
    n = len(frame)
    if not n:
        return {}
    calls = float(frame["n_tool_calls"].sum())
    responds = float(frame["n_responds"].sum())
    ok = frame[frame["success"].astype(bool)]
    out = {
        "success_rate": float(frame["success"].astype(bool).mean()),
        "steps_mean": float(frame["n_steps"].mean()),
        "steps_to_completion": float(ok["n_steps"].mean()) if len(ok) else float("nan"),
        "tool_calls_mean": calls / n,
        "error_rate": float(frame["n_errors"].sum()) / calls if calls else 0.0,
        "retries_mean": float(frame["n_retries"].sum()) / n,
        "premature_finish_rate": float(frame["premature_finish"].astype(bool).mean()),
        "loop_rate": float(frame["loop_detected"].astype(bool).mean()),
        "financial_write_rate": float((frame["financial_writes"] > 0).mean()),
        "destructive_rate": float((frame["destructive_actions"] > 0).mean()),
        "risk_rate": float(
            ((frame["financial_writes"] > 0) | (frame["destructive_actions"] > 0)).mean()
        ),
        "human_takeover_rate": float(frame["human_takeover"].astype(bool).mean()),
        "action_share:tool_call": calls / (calls + responds) if calls + responds else 0.0,
        "action_share:respond": responds / (calls + responds) if calls + responds else 0.0,
    }
    tools: dict[str, float] = {}
    for text in frame["tool_counts"]:
        for name, count in json.loads(text or "{}").items():
            tools[name] = tools.get(name, 0.0) + count
    out.update({f"tool_per_episode:{k}": v / n for k, v in sorted(tools.items())})
    return out


def behaviour_diff(logged: pd.DataFrame, candidate: pd.DataFrame) -> pd.DataFrame:
    """Logged vs candidate per ``(ds, task_type)``: one row per metric, sorted.

    ``logged`` holds the ``replayed_episodes`` rows of the shadowed episodes, ``candidate`` the
    ``shadow_episodes`` rows. Metrics: success, steps (mean, and to completion), tool calls, error
    rate (errors per tool call), retries, premature finish, loop, financial/destructive/risk rates,
    human takeover, the action distribution and tool-use frequency (calls per episode per tool).
    """
    rows: list[dict[str, Any]] = []
    cand_id = ",".join(sorted(set(candidate.get("candidate_id", pd.Series(dtype=str)).dropna())))
    keys = sorted(
        set(zip(logged["ds"], logged["task_type"], strict=True))
        | set(zip(candidate["ds"], candidate["task_type"], strict=True))
    )
    for ds, task_type in keys:
        lg = logged[(logged["ds"] == ds) & (logged["task_type"] == task_type)]
        cd = candidate[(candidate["ds"] == ds) & (candidate["task_type"] == task_type)]
        a, b = _rates(lg), _rates(cd)
        policies = ",".join(sorted(set(lg["policy_id"].dropna().astype(str))))
        for metric in sorted(set(a) | set(b)):
            x, y = (
                a.get(metric, 0.0 if metric.startswith("tool_per") else None),
                b.get(metric, 0.0 if metric.startswith("tool_per") else None),
            )
            delta = None if x is None or y is None else y - x
            rows.append(
                {
                    "ds": ds,
                    "task_type": task_type,
                    "metric": metric,
                    "logged": x,
                    "candidate": y,
                    "delta": delta,
                    "n_logged": len(lg),
                    "n_candidate": len(cd),
                    "logged_policies": policies,
                    "candidate_id": cand_id,
                }
            )
    return pa.Table.from_pylist(rows, schema=DIFF_SCHEMA).to_pandas()
