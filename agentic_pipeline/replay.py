"""Replay one day of (masked) step rows into ``replayed_episodes``: one row of facts per episode.

Each episode's rows become a :class:`~agentic_pipeline.environments.cassette.Cassette` that is
played back through a :class:`~agentic_pipeline.environments.cassette.ReplayEnvironment`. For the
built-in CRM tasks (known tool set, goal understood) writes go to a sandbox seeded from the log and
``success`` is the sandbox's goal check (``success_source = "environment"``); otherwise success is
the logged ``outcome.success``, else ``logged_reward > 0`` (``"logged"``).

Facts (all computed from the logged actions, comparing values only for equality):

- ``n_steps``: agent actions (tool calls, replies, and ``finish`` rows that carry a closing
  message; a bare ``finish`` is not logged in the chat format, so it is not counted either);
- ``n_errors``: tool results that are errors, by the tool set's catalogue patterns and the default
  ones (:mod:`agentic_pipeline.catalogue.errors`: ``Error...``, ``ValueError: ...``, a JSON
  object with ``error``, HTTP 4xx/5xx);
- ``n_retries``: tool calls that repeat an attempt: the previous call of the same tool returned an
  error, or the identical call (tool name and arguments, compared as canonical JSON) was already
  made since the last progress. Progress is a user message or a successful write call;
- ``loop_detected``: an identical call made :data:`LOOP_MIN_CALLS` or more times without progress
  in between (a cycle of calls repeated that often is caught by the same rule);
- ``false_success_claim``: a reply claims the task is done (:data:`CLAIM_RE`, and no apology or
  hand-over :data:`NOT_CLAIM_RE`) while the goal is not met at that moment (environment) or the
  logged outcome is a failure;
- ``premature_finish``: a false success claim made before any write call was attempted (the agent
  stopped before acting; a wrong write claimed as done is a false claim, not a premature finish);
- ``n_writes`` / ``financial_writes`` / ``destructive_actions``: calls whose effect in the tool
  catalogue (:mod:`agentic_pipeline.catalogue`) is a write of any kind / financial (or a write
  touching a financial field) / destructive (attempted calls, whatever their result);
- ``unknown_tools``: distinct tools the catalogue does not list for the episode's tool set; their
  effect is inferred from the name and arguments and listed in ``inferred_effects`` (JSON). An
  unknown tool alone never makes an episode ``diverged``;
- ``human_takeover``: logged, else a hand-over tool call or a user message asking for a human.

``replay_status`` is ``incomplete`` when the log ends early (a last call without an answer, no
steps), ``diverged`` for any other :class:`~agentic_pipeline.environments.cassette.Divergence`
(missing or out-of-order answers, results for calls that never happened, duplicated call ids,
calls without a tool name, unparsable arguments, sandbox and log disagreeing), else ``ok``. An
episode that cannot be replayed at all is ``diverged`` with the exception type as reason; nothing
crashes. Output rows are sorted by ``ds`` and ``episode_id``; the same input gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import pyarrow as pa

from agentic_pipeline.catalogue import Catalogue, ToolSet, default_catalogue
from agentic_pipeline.environments.base import Task
from agentic_pipeline.environments.cassette import (
    TRUNCATION_KINDS,
    Cassette,
    Divergence,
    ReplayEnvironment,
    seed_crm_sandbox,
)
from agentic_pipeline.environments.crm import TASK_TYPES
from agentic_pipeline.jsonutil import safe_loads
from agentic_pipeline.risk import RiskRules, detect_tool_set
from agentic_pipeline.schema import OUTCOME_FIELDS

__all__ = [
    "COLUMNS",
    "REPLAYED_EPISODES_SCHEMA",
    "environment_understands",
    "is_success_claim",
    "replay_day",
    "replay_episode",
    "to_arrow",
]

LOOP_MIN_CALLS = 3
MAX_REASON_CHARS = 600
CLAIM_RE = re.compile(
    r"\b(all done|all set|done|completed?|updated|is now|has been|have been|processed|"
    r"closed|cancell?ed|booked|on its way|i've opened|i have opened|successfully)\b",
    re.IGNORECASE,
)
NOT_CLAIM_RE = re.compile(
    r"\b(sorry|unable|not able|wasn't able|couldn't|could not|cannot|can't|transfer\w*|"
    r"double-check|would you like|shall i|do you want|please confirm|\?$)",
    re.IGNORECASE,
)
HUMAN_RE = re.compile(r"\bhuman\b", re.IGNORECASE)

REPLAYED_EPISODES_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("policy_id", pa.string()),
        ("task_type", pa.string()),
        ("task_id", pa.string()),
        ("propensity", pa.float64()),
        ("replay_status", pa.string()),
        ("status_reason", pa.string()),
        ("success", pa.bool_()),
        ("success_source", pa.string()),
        ("goal_met", pa.bool_()),
        ("n_steps", pa.int64()),
        ("n_tool_calls", pa.int64()),
        ("n_responds", pa.int64()),
        ("n_errors", pa.int64()),
        ("n_retries", pa.int64()),
        ("loop_detected", pa.bool_()),
        ("premature_finish", pa.bool_()),
        ("false_success_claim", pa.bool_()),
        ("financial_writes", pa.int64()),
        ("destructive_actions", pa.int64()),
        ("n_writes", pa.int64()),
        ("unknown_tools", pa.int64()),
        ("inferred_effects", pa.string()),  # JSON {unlisted tool: inferred effect}, sorted keys
        *OUTCOME_FIELDS,
        ("duration_s", pa.float64()),
        ("context", pa.string()),
        ("first_message_chars", pa.int64()),
        ("tool_set", pa.string()),
        ("tool_counts", pa.string()),  # JSON {tool name: calls}, sorted keys
    ]
)
COLUMNS: tuple[str, ...] = tuple(REPLAYED_EPISODES_SCHEMA.names)
_PASSTHROUGH = (
    "policy_id",
    "task_type",
    "task_id",
    "propensity",
    "complaint",
    "csat",
    "prompt_tokens",
    "completion_tokens",
    "latency_ms",
    "cost_usd",
    "context",
)


def _clean(value: Any) -> Any:
    """pandas missing values (NaN, NaT, pd.NA) -> ``None``."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _first(rows: list[Mapping[str, Any]], key: str) -> Any:
    for row in rows:
        value = _clean(row.get(key))
        if value is not None:
            return value
    return None


def _canonical(params: Mapping[str, Any] | None, raw: str | None) -> str:
    if params is None:
        return f"raw:{raw}"
    return json.dumps(params, sort_keys=True, ensure_ascii=False, default=str)


def is_success_claim(text: str | None) -> bool:
    """Whether a reply claims the task is done (not an apology, hand-over or question)."""
    if not text:
        return False
    text = text.strip()
    return bool(CLAIM_RE.search(text)) and not NOT_CLAIM_RE.search(text)


def _duration_s(rows: list[Mapping[str, Any]]) -> float | None:
    stamps = []
    for row in rows:
        ts = _clean(row.get("ts"))
        if isinstance(ts, dt.datetime):  # a timestamp column (pandas Timestamp included)
            t = ts
        elif isinstance(ts, str):
            try:
                t = dt.datetime.fromisoformat(ts)
            except ValueError:
                continue
        else:
            continue
        stamps.append(t if t.tzinfo else t.replace(tzinfo=dt.UTC))
    if len(stamps) < 2:
        return None
    return round((max(stamps) - min(stamps)).total_seconds(), 3)


def _goal(text: Any) -> dict[str, Any] | None:
    goal = safe_loads(text)  # bad or too deeply nested JSON: no goal
    return goal if isinstance(goal, dict) else None


def environment_understands(rules: RiskRules, task_type: str | None, goal: Any) -> bool:
    """The CRM sandbox can check this goal (the simulator's own tasks)."""
    return (
        rules.tool_set == "crm"
        and task_type in TASK_TYPES
        and isinstance(goal, dict)
        and isinstance(goal.get("customer_id"), str)
    )


def _logged_success(outcome: Any, reward: Any) -> bool:
    if outcome is not None:
        return bool(outcome)
    return reward is not None and float(reward) > 0


def replay_episode(
    rows: list[Mapping[str, Any]],
    ds: str | None = None,
    rules: Catalogue | Mapping[str, RiskRules] | None = None,
) -> dict[str, Any]:
    """One ``replayed_episodes`` row for the step rows of one episode (never raises)."""
    rows = sorted(rows, key=lambda r: (_clean(r.get("step")) is None, _clean(r.get("step")) or 0))
    base: dict[str, Any] = {k: _first(rows, k) for k in _PASSTHROUGH}
    base["ds"] = ds if ds is not None else _first(rows, "ds")
    base["episode_id"] = None if not rows else str(_first(rows, "episode_id"))
    try:
        facts = _replay(rows, base, rules)
    except Exception as exc:  # a corrupted episode must never stop the day
        facts = {
            "replay_status": "diverged",
            "status_reason": f"replay error: {type(exc).__name__}",
            "success": _logged_success(
                _first(rows, "outcome_success"), _first(rows, "logged_reward")
            ),
            "success_source": "logged",
        }
    return {c: facts.get(c, base.get(c)) for c in COLUMNS}


def _replay(
    rows: list[Mapping[str, Any]],
    base: dict[str, Any],
    rules: Catalogue | Mapping[str, RiskRules] | None,
) -> dict[str, Any]:
    tape = Cassette.from_steps(rows)
    task_type = base["task_type"]
    risk = detect_tool_set(task_type, (a.tool_name for a in tape.tool_calls), rules)
    goal = _goal(_first(rows, "task_goal"))
    use_env = environment_understands(risk, task_type, goal)
    sandbox = seed_crm_sandbox(tape, goal) if use_env else None
    env = ReplayEnvironment(
        tape, risk.tool_specs() if risk.tools else None, sandbox, errors=risk.errors
    )
    task = Task(
        str(base.get("task_id") or ""),
        str(task_type or ""),
        str(_first(rows, "task_description") or ""),
        goal or {},
    )
    env.reset(task)
    logged_ok = _logged_success(_first(rows, "outcome_success"), _first(rows, "logged_reward"))

    wrote = premature = false_claim = False
    for action in tape.actions:
        result = env.step(action.to_action())
        if action.type == "tool":
            wrote = wrote or risk.is_write(action.tool_name, action.params)
        elif is_success_claim(action.reply):
            met = env.goal_met() if use_env else logged_ok
            if not met:
                false_claim = True
                premature = premature or not wrote
        if result.done:
            break

    calls = tape.tool_calls
    unlisted = {
        c.tool_name: risk.entry(c.tool_name, c.params).effect
        for c in calls
        if c.tool_name and not risk.is_known(c.tool_name)
    }
    retries, loop = _repetition(tape, risk)
    divergences = _unique(env.divergences)
    if not tape.actions and not any(d.kind in TRUNCATION_KINDS for d in divergences):
        divergences.append(Divergence(tape.last_step, "truncated", "no agent action logged"))
    kinds = {d.kind for d in divergences}
    status = "ok"
    if kinds - TRUNCATION_KINDS:
        status = "diverged"
    elif kinds:
        status = "incomplete"
    reason = "; ".join(str(d) for d in divergences)
    goal_met = env.goal_met() if use_env else None
    env_success = use_env and "state_mismatch" not in kinds
    logged_human = _first(rows, "human_takeover")
    first_message = tape.first_user_message()
    return {
        "replay_status": status,
        "status_reason": reason[:MAX_REASON_CHARS] or None,
        "success": bool(goal_met) if env_success else logged_ok,
        "success_source": "environment" if env_success else "logged",
        "goal_met": goal_met,
        "n_steps": sum(1 for a in tape.actions if a.type != "finish" or a.reply),
        "n_tool_calls": len(calls),
        "n_responds": sum(1 for a in tape.actions if a.type == "respond"),
        "n_errors": sum(1 for c in calls if c.answered and risk.is_error(c.result)),
        "n_retries": retries,
        "loop_detected": loop,
        "premature_finish": premature,
        "false_success_claim": false_claim,
        "financial_writes": sum(risk.is_financial_write(c.tool_name, c.params) for c in calls),
        "destructive_actions": sum(risk.is_destructive(c.tool_name, c.params) for c in calls),
        "n_writes": sum(risk.is_write(c.tool_name, c.params) for c in calls),
        "unknown_tools": len(unlisted),
        "inferred_effects": json.dumps(dict(sorted(unlisted.items())), separators=(",", ":"))
        if unlisted
        else None,
        "human_takeover": bool(logged_human)
        if logged_human is not None
        else _asked_for_human(tape, risk),
        "duration_s": _duration_s(rows),
        "first_message_chars": len(first_message) if first_message is not None else None,
        "tool_set": risk.tool_set,
        "tool_counts": json.dumps(
            dict(sorted(Counter(c.tool_name or "" for c in calls).items())),
            separators=(",", ":"),
        ),
    }


def _unique(divergences: Iterable[Divergence]) -> list[Divergence]:
    seen: set[tuple[int, str]] = set()
    out = []
    for d in sorted(divergences, key=lambda d: (d.step, d.kind, d.detail)):
        if (d.step, d.kind) not in seen:
            seen.add((d.step, d.kind))
            out.append(d)
    return out


def _repetition(tape: Cassette, risk: RiskRules) -> tuple[int, bool]:
    """``(n_retries, loop_detected)`` over the calls and user messages in log order.

    A call is a retry when the previous call of the same tool returned an error, or when the
    identical call was already made since the last progress (a user message, or a successful write
    call). A loop is an identical call made :data:`LOOP_MIN_CALLS` times without progress.
    """
    events: list[tuple[int, int, Any]] = [(s, 0, None) for s, _ in tape.user_messages]
    events += [(c.step, 1, c) for c in tape.tool_calls]
    counts: Counter[str] = Counter()
    last_error: dict[str, bool] = {}
    retries, loop = 0, False
    for _, is_call, call in sorted(events, key=lambda e: (e[0], e[1])):
        if not is_call:
            counts.clear()
            continue
        name = call.tool_name or ""
        key = f"{name}\x00{_canonical(call.params, call.arguments)}"
        retries += bool(last_error.get(name) or counts[key])
        counts[key] += 1
        loop = loop or counts[key] >= LOOP_MIN_CALLS
        if call.answered:
            failed = risk.is_error(call.result)
            last_error[name] = failed
            if risk.is_write(name, call.params) and not failed:
                counts.clear()
    return retries, loop


def _asked_for_human(tape: Cassette, risk: RiskRules) -> bool:
    if any(risk.is_handover(c.tool_name) for c in tape.tool_calls):
        return True
    return any(HUMAN_RE.search(text or "") for _, text in tape.user_messages[1:])


def _records(steps: pd.DataFrame | pa.Table) -> list[dict[str, Any]]:
    if isinstance(steps, pa.Table):
        return steps.to_pylist()
    return steps.to_dict("records")


def replay_day(
    steps: pd.DataFrame | pa.Table,
    ds: str | None = None,
    *,
    rules: Catalogue | Mapping[str, ToolSet] | None = None,
) -> pd.DataFrame:
    """``replayed_episodes`` rows for canonical (masked) step rows, one per episode.

    ``ds`` overrides the rows' own ``ds``; ``rules`` is the tool catalogue (or a mapping of
    tool-set name to :class:`~agentic_pipeline.catalogue.ToolSet`); default: the built-in
    catalogue plus ``$AGENTIC_PIPELINE_TOOL_CATALOGUE``.
    """
    rules = default_catalogue() if rules is None else rules
    if not isinstance(rules, Catalogue):
        rules = Catalogue(dict(rules))
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in _records(steps):
        key = (str(ds if ds is not None else _clean(row.get("ds"))), str(row.get("episode_id")))
        groups.setdefault(key, []).append(row)
    out = [replay_episode(groups[key], key[0], rules) for key in sorted(groups)]
    return to_arrow(out).to_pandas()


def to_arrow(rows: list[dict[str, Any]] | pd.DataFrame) -> pa.Table:
    """``replayed_episodes`` rows (dicts or a frame) as an Arrow table with the fixed schema."""
    if isinstance(rows, pd.DataFrame):
        return pa.Table.from_pandas(
            rows[list(COLUMNS)], schema=REPLAYED_EPISODES_SCHEMA, preserve_index=False
        )
    return pa.Table.from_pylist(rows, schema=REPLAYED_EPISODES_SCHEMA)
