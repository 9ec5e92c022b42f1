"""tau2-bench results files: one JSON object ``{"info", "tasks", "simulations"}``.

The file is split into one record per simulation (its task attached as ``task``, the run's
``agent_info`` as ``agent_info``); a simulation landed alone (one per JSONL line) is read the same
way. One simulation = one episode:

- ``messages``: ``assistant``/``user``/``tool`` turns; tool calls are ``{"id", "name",
  "arguments": {...}}`` and a tool message carries the call's ``id`` and an ``error`` flag;
- the agent's system prompt is the simulation's ``policy`` text (when logged);
- reward from ``reward_info.reward``; task type from the task's ``user_scenario.instructions.
  domain``; policy id from the configured benchmark policy, else ``info.agent_info.llm``, else
  the file name; latency from ``duration``, cost from ``agent_cost``.
"""

from typing import Any

from agentic_pipeline.formats.common import (
    ParseContext,
    RecordError,
    Row,
    content_text,
    episode_attributes,
    flag_error,
    opt_bool,
    opt_float,
    opt_int,
    opt_list,
    opt_obj,
    opt_str,
    require_id,
    tool_arguments,
)

NAME = "tau2_results"
_ROLES = {"system", "user", "assistant", "tool"}


def is_results_file(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and "simulations" in record
        and ("tasks" in record or "info" in record)
    )


def detect(record: dict) -> bool:
    """A whole results file (refused when it could not be split) or one simulation."""
    return is_results_file(record) or (
        "messages" in record and "reward_info" in record and "termination_reason" in record
    )


def split(record: dict) -> list[dict] | None:
    """One record per simulation, with its task and the run's agent info attached."""
    if not is_results_file(record):
        return None
    sims, tasks = record.get("simulations"), record.get("tasks") or []
    info = record.get("info") if isinstance(record.get("info"), dict) else {}
    if not isinstance(sims, list) or not isinstance(tasks, list):
        return None
    by_id = {str(t.get("id")): t for t in tasks if isinstance(t, dict) and t.get("id") is not None}
    out = []
    for sim in sims:
        if not isinstance(sim, dict):
            out.append(sim)  # refused on its own with a reason
            continue
        task = by_id.get(str(sim.get("task_id")))
        out.append({**sim, "task": task, "agent_info": info.get("agent_info")})
    return out


def _task_fields(task: dict) -> tuple[str | None, str | None, Any]:
    """(domain, description, goal) of a tau2 task."""
    scenario = opt_obj(task.get("user_scenario"), "task.user_scenario")
    instructions = scenario.get("instructions")
    domain = None
    description = None
    if isinstance(instructions, dict):
        domain = opt_str(instructions.get("domain"), "task.domain")
        description = opt_str(instructions.get("reason_for_call"), "task.reason_for_call")
    elif isinstance(instructions, str):
        description = instructions
    if description is None:
        desc = task.get("description")
        if isinstance(desc, dict):
            description = opt_str(desc.get("purpose"), "task.description.purpose")
        else:
            description = opt_str(desc, "task.description")
    criteria = opt_obj(task.get("evaluation_criteria"), "task.evaluation_criteria")
    goal = {k: criteria[k] for k in ("actions", "nl_assertions") if criteria.get(k)} or None
    return domain, description, goal


def parse(record: dict, ctx: ParseContext) -> tuple[str, Row, list[Row]]:
    """One tau2 simulation -> (episode_id, episode attributes, step rows)."""
    if is_results_file(record):
        raise RecordError("tau2 results file: 'simulations' and 'tasks' must be lists")
    episode_id = require_id(record.get("id"), "simulation id")
    messages = opt_list(record.get("messages"), "messages")
    if not messages:
        raise RecordError("'messages' is empty")
    task = opt_obj(record.get("task"), "task")
    domain, description, goal = _task_fields(task)
    agent = opt_obj(record.get("agent_info"), "agent_info")
    naming = ctx.naming
    policy = (
        naming.policy_id
        if getattr(naming, "configured", False)
        else opt_str(agent.get("llm"), "agent_info.llm") or ctx.file_stem
    )
    reward_info = opt_obj(record.get("reward_info"), "reward_info")
    duration = opt_float(record.get("duration"), "duration")
    trial = opt_int(record.get("trial"), "trial")
    prompt = completion = 0
    have_usage = False
    rows: list[Row] = []
    policy_text = record.get("policy")
    if isinstance(policy_text, str) and policy_text:
        rows.append(
            {"episode_id": episode_id, "role": "system", "action_type": "message",
             "content": policy_text}
        )  # fmt: skip
    call_ids: set[str] = set()
    for i, message in enumerate(messages):
        where = f"message {i}"
        if not isinstance(message, dict):
            raise RecordError(f"{where} is not an object")
        role = message.get("role")
        if role not in _ROLES:
            raise RecordError(f"{where}: unknown role")
        base = {
            "episode_id": episode_id,
            "role": role,
            "ts": opt_str(message.get("timestamp"), "timestamp"),
        }
        content = content_text(message.get("content"), where)
        if role == "tool":
            call_id = require_id(message.get("id"), "tool result id")
            if call_id not in call_ids:
                raise RecordError(f"{where}: tool result for a call that never happened")
            failed = bool(opt_bool(message.get("error"), "error"))
            rows.append({**base, "action_type": "tool_result", "tool_call_id": call_id,
                         "content": flag_error(content, failed)})  # fmt: skip
            continue
        calls = opt_list(message.get("tool_calls"), f"{where}.tool_calls")
        if role == "assistant":
            usage = opt_obj(message.get("usage"), f"{where}.usage")
            if usage:
                have_usage = True
                prompt += opt_int(usage.get("prompt_tokens"), "usage.prompt_tokens") or 0
                completion += (
                    opt_int(usage.get("completion_tokens"), "usage.completion_tokens") or 0
                )
            if content or not calls:
                rows.append({**base, "action_type": "respond", "content": content})
        elif content is not None or not calls:
            rows.append({**base, "action_type": "message", "content": content})
        for call in calls:
            if not isinstance(call, dict):
                raise RecordError(f"{where}: a tool call is not an object")
            call_id = require_id(call.get("id"), "tool call id")
            call_ids.add(call_id)
            rows.append(
                {
                    **base,
                    "role": "assistant" if role == "assistant" else role,
                    "action_type": "tool_call",
                    "tool_name": require_id(call.get("name"), "tool name"),
                    "tool_call_id": call_id,
                    "tool_arguments": tool_arguments(call.get("arguments"), where),
                }
            )
    attrs = episode_attributes(
        {
            "policy_id": policy,
            "task_type": domain or getattr(naming, "task_type", None),
            "task": {"id": opt_str(record.get("task_id"), "task_id"), "description": description,
                     "goal": goal},
            "context": {"trial": trial} if trial is not None else None,
            "started_at": opt_str(record.get("start_time"), "start_time"),
            "usage": {
                "prompt_tokens": prompt if have_usage else None,
                "completion_tokens": completion if have_usage else None,
                "latency_ms": duration * 1000 if duration is not None else None,
                "cost_usd": record.get("agent_cost"),
            },
            "reward": reward_info.get("reward"),
        }
    )  # fmt: skip
    return episode_id, attrs, rows
