"""OpenTelemetry GenAI spans exported as OTLP JSON: one trace = one episode.

A record is an OTLP ``ExportTraceServiceRequest`` in JSON (``{"resourceSpans": [...]}``, what the
collector's file exporter writes, one per line or one per ``.json`` file); a record holding
several traces is split into one record per trace before parsing. Spans are read in time order
with the ``gen_ai.*`` semantic conventions:

- LLM spans (``gen_ai.operation.name`` = ``chat``, ``text_completion``, ``generate_content``):
  ``gen_ai.system_instructions`` (the system prompt, once), the new user turns of
  ``gen_ai.input.messages``, the reply text and ``tool_call`` parts of ``gen_ai.output.messages``,
  token usage from ``gen_ai.usage.input_tokens`` / ``gen_ai.usage.output_tokens``;
- tool spans (``execute_tool``): ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``; a span with status ERROR is an
  error result. A tool span whose call no LLM span logged gives the call as well;
- the episode id is ``gen_ai.conversation.id`` (else the trace id), the policy
  ``agentic_pipeline.policy_id``, else ``gen_ai.agent.name``, else the model, else the service
  name; ``agentic_pipeline.task_type``, ``agentic_pipeline.reward`` and
  ``agentic_pipeline.outcome.success`` are read when present. Latency is the trace's span.
"""

import json
from typing import Any

from agentic_pipeline.formats.common import (
    INFERRED_ID_PREFIX,
    ParseContext,
    RecordError,
    Row,
    episode_attributes,
    flag_error,
    iso_from_unix_nano,
    json_text,
    opt_int,
    require_id,
    tool_arguments,
)

NAME = "otlp_genai"
LLM_OPERATIONS = {"chat", "text_completion", "generate_content"}
STATUS_ERROR = 2


def detect(record: dict) -> bool:
    return "resourceSpans" in record


def _value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value."""
    if not isinstance(value, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return _attributes((value["kvlistValue"] or {}).get("values"))
    return None


def _attributes(items: Any) -> dict[str, Any]:
    if items is None:
        return {}
    if not isinstance(items, list):
        raise RecordError("span attributes must be a list")
    out = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise RecordError("span attribute without a key")
        out[item["key"]] = _value(item.get("value"))
    return out


def _spans(record: dict) -> list[tuple[dict, dict]]:
    """``(span, resource attributes)`` of every span of the record."""
    resource_spans = record.get("resourceSpans")
    if not isinstance(resource_spans, list):
        raise RecordError("'resourceSpans' must be a list")
    out = []
    for rs in resource_spans:
        if not isinstance(rs, dict):
            raise RecordError("a resourceSpans entry is not an object")
        resource = _attributes((rs.get("resource") or {}).get("attributes"))
        scope_spans = rs.get("scopeSpans", [])
        if not isinstance(scope_spans, list):
            raise RecordError("'scopeSpans' must be a list")
        for ss in scope_spans:
            spans = ss.get("spans", []) if isinstance(ss, dict) else None
            if not isinstance(spans, list):
                raise RecordError("'spans' must be a list")
            for span in spans:
                if not isinstance(span, dict):
                    raise RecordError("a span is not an object")
                out.append((span, resource))
    return out


def split(record: dict) -> list[dict] | None:
    """One OTLP document per trace when ``record`` holds several, else ``None``."""
    try:
        spans = _spans(record)
    except RecordError:
        return None
    traces: dict[str, list[tuple[dict, Any]]] = {}
    for rs in record["resourceSpans"]:
        for ss in rs.get("scopeSpans") or []:
            for span in ss.get("spans") or []:
                key = span.get("traceId")
                traces.setdefault(str(key), []).append((span, rs, ss))
    if len(traces) < 2 or not spans:
        return None
    out = []
    for trace_id in sorted(traces):
        groups: dict[tuple[int, int], dict] = {}
        for span, rs, ss in traces[trace_id]:
            key = (id(rs), id(ss))
            if key not in groups:
                groups[key] = {
                    "resource": rs.get("resource"),
                    "scopeSpans": [{"scope": ss.get("scope"), "spans": []}],
                }
            groups[key]["scopeSpans"][0]["spans"].append(span)
        out.append({"resourceSpans": list(groups.values())})
    return out


def _json_attr(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (list, dict)):
        return value
    if not isinstance(value, str):
        raise RecordError(f"{where} must be JSON text")
    try:
        return json.loads(value)
    except ValueError:
        raise RecordError(f"{where} is not valid JSON") from None


def _parts_text(message: Any, where: str) -> str | None:
    if not isinstance(message, dict):
        raise RecordError(f"{where}: a message is not an object")
    parts = message.get("parts")
    if parts is None and isinstance(message.get("content"), str):
        return message["content"]
    if not isinstance(parts, list):
        raise RecordError(f"{where}: message parts must be a list")
    texts = [
        p["content"]
        for p in parts
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)
    ]
    return "\n".join(texts) if texts else None


def _tool_calls(message: dict) -> list[dict]:
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts or [] if isinstance(p, dict) and p.get("type") == "tool_call"]


def parse(record: dict, ctx: ParseContext | None = None) -> tuple[str, Row, list[Row]]:
    """One OTLP trace -> (episode_id, episode attributes, step rows)."""
    spans = _spans(record)
    if not spans:
        raise RecordError("no spans")
    trace_ids = {s.get("traceId") for s, _ in spans}
    if len(trace_ids) != 1:
        raise RecordError(f"spans of {len(trace_ids)} traces in one record")
    trace_id = require_id(next(iter(trace_ids)), "traceId")
    timed = []
    for n, (span, resource) in enumerate(spans):
        start = opt_int(_nanos(span.get("startTimeUnixNano"), "startTimeUnixNano"), "start")
        end = opt_int(_nanos(span.get("endTimeUnixNano"), "endTimeUnixNano"), "end")
        if start is None:
            raise RecordError("span without startTimeUnixNano")
        timed.append((start, end if end is not None else start, n, span, resource))
    timed.sort(key=lambda t: (t[0], t[1], t[2]))

    rows: list[Row] = []
    info: dict[str, Any] = {}
    called: set[str] = set()
    answered: set[str] = set()
    users_seen = 0
    prompt = completion = 0
    have_usage = False
    system_done = False
    n_calls = 0
    for start, _end, _n, span, resource in timed:
        attrs = _attributes(span.get("attributes"))
        ts = iso_from_unix_nano(start, "startTimeUnixNano")
        base = {"episode_id": None, "ts": ts}
        for key, attr in (
            ("conversation", "gen_ai.conversation.id"),
            ("policy", "agentic_pipeline.policy_id"),
            ("agent", "gen_ai.agent.name"),
            ("model", "gen_ai.request.model"),
            ("task_type", "agentic_pipeline.task_type"),
            ("reward", "agentic_pipeline.reward"),
            ("success", "agentic_pipeline.outcome.success"),
        ):
            if info.get(key) is None and attrs.get(attr) is not None:
                info[key] = attrs[attr]
        info.setdefault("service", resource.get("service.name"))
        op = attrs.get("gen_ai.operation.name")
        if op in LLM_OPERATIONS:
            for key in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"):
                if attrs.get(key) is not None:
                    have_usage = True
            prompt += opt_int(attrs.get("gen_ai.usage.input_tokens"), "input_tokens") or 0
            completion += opt_int(attrs.get("gen_ai.usage.output_tokens"), "output_tokens") or 0
            system = _json_attr(attrs.get("gen_ai.system_instructions"), "system_instructions")
            if system is not None and not system_done:
                text = (
                    system if isinstance(system, str) else _parts_text({"parts": system}, "system")
                )
                rows.append({**base, "role": "system", "action_type": "message", "content": text})
                system_done = True
            inputs = _json_attr(attrs.get("gen_ai.input.messages"), "input.messages") or []
            if not isinstance(inputs, list):
                raise RecordError("gen_ai.input.messages must be a list")
            users = [m for m in inputs if isinstance(m, dict) and m.get("role") == "user"]
            for message in users[users_seen:]:
                text = _parts_text(message, "input message")
                if text is not None:
                    rows.append({**base, "role": "user", "action_type": "message", "content": text})
            users_seen = max(users_seen, len(users))
            outputs = _json_attr(attrs.get("gen_ai.output.messages"), "output.messages") or []
            if not isinstance(outputs, list):
                raise RecordError("gen_ai.output.messages must be a list")
            for message in outputs:
                text = _parts_text(message, "output message")
                calls = _tool_calls(message)
                if text or not calls:
                    rows.append(
                        {**base, "role": "assistant", "action_type": "respond", "content": text}
                    )
                for call in calls:
                    n_calls += 1
                    raw_id = call.get("id")
                    call_id = (
                        require_id(raw_id, "tool call id")
                        if raw_id
                        else f"{INFERRED_ID_PREFIX}{n_calls}"
                    )
                    called.add(call_id)
                    rows.append(
                        {
                            **base,
                            "role": "assistant",
                            "action_type": "tool_call",
                            "tool_name": require_id(call.get("name"), "tool name"),
                            "tool_call_id": call_id,
                            "tool_arguments": tool_arguments(call.get("arguments"), "tool call"),
                        }
                    )
        elif op == "execute_tool":
            name = attrs.get("gen_ai.tool.name")
            if not name and isinstance(span.get("name"), str):
                name = span["name"].removeprefix("execute_tool").strip() or None
            name = require_id(name, "gen_ai.tool.name")
            raw_id = attrs.get("gen_ai.tool.call.id")
            if raw_id:
                call_id = require_id(raw_id, "gen_ai.tool.call.id")
            else:
                pending = [
                    r
                    for r in rows
                    if r.get("action_type") == "tool_call"
                    and r["tool_call_id"] not in answered
                    and r["tool_name"] == name
                ]
                call_id = pending[0]["tool_call_id"] if pending else None
            if call_id is None or call_id not in called:
                n_calls += 1
                call_id = call_id or f"{INFERRED_ID_PREFIX}{n_calls}"
                called.add(call_id)
                rows.append(
                    {
                        **base,
                        "role": "assistant",
                        "action_type": "tool_call",
                        "tool_name": name,
                        "tool_call_id": call_id,
                        "tool_arguments": tool_arguments(
                            attrs.get("gen_ai.tool.call.arguments"), "tool call"
                        ),
                    }
                )
            status = span.get("status") if isinstance(span.get("status"), dict) else {}
            failed = status.get("code") in (STATUS_ERROR, "STATUS_CODE_ERROR")
            result = attrs.get("gen_ai.tool.call.result")
            if result is not None and not isinstance(result, str):
                result = json_text(result)
            if failed and result is None:
                message = status.get("message")
                result = message if isinstance(message, str) else ""
            answered.add(call_id)
            rows.append(
                {
                    **base,
                    "role": "tool",
                    "action_type": "tool_result",
                    "tool_name": name,
                    "tool_call_id": call_id,
                    "content": flag_error(result, failed),
                }
            )
    if not rows:
        raise RecordError("no gen_ai LLM or tool spans in the trace")
    episode_id = require_id(info.get("conversation") or trace_id, "episode id")
    for row in rows:
        row["episode_id"] = episode_id
    first, last = timed[0][0], max(t[1] for t in timed)
    attrs = episode_attributes(
        {
            "policy_id": info.get("policy")
            or info.get("agent")
            or info.get("model")
            or info.get("service"),
            "task_type": info.get("task_type"),
            "started_at": iso_from_unix_nano(first, "startTimeUnixNano"),
            "outcome": {"success": info.get("success")},
            "usage": {
                "prompt_tokens": prompt if have_usage else None,
                "completion_tokens": completion if have_usage else None,
                "latency_ms": (last - first) / 1e6,
            },
            "reward": info.get("reward"),
        }
    )
    return episode_id, attrs, rows


def _nanos(value: Any, field: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise RecordError(f"'{field}' must be an integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RecordError(f"'{field}' must be an integer of nanoseconds") from None
