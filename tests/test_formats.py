"""Each input format on a hand-written sample of five episodes: counts made by hand, lineage,
quarantine of malformed records (counts in = counts out)."""

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from agentic_pipeline.formats import FORMAT_NAMES, RecordError, detect_format, tool_arguments
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.replay import replay_day

DS = "2026-05-04"
LINEAGE = ("source_format", "source_file", "source_index", "source_sha256")


def _ingest(tmp_path: Path, files: dict[str, str]):
    day = tmp_path / "landing" / DS
    day.mkdir(parents=True)
    for name, text in files.items():
        (day / name).write_text(text, encoding="utf-8")
    result = ingest_day(day, DS)
    stats = result.stats
    assert stats.records_read == stats.records_accepted + stats.records_quarantined
    return result


def _counts(steps: pa.Table) -> dict:
    frame = steps.to_pandas()
    replayed = replay_day(frame)
    for col in LINEAGE:
        assert frame[col].notna().all(), col
    return {
        "episodes": frame["episode_id"].nunique(),
        "calls": int((frame["action_type"] == "tool_call").sum()),
        "results": int((frame["action_type"] == "tool_result").sum()),
        "errors": int(replayed["n_errors"].sum()),
        "roles": dict(Counter(frame["role"])),
        "replayed": replayed,
        "frame": frame,
    }


def _jsonl(records: list) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


# --- Anthropic Messages ------------------------------------------------------------------------


def _use(cid, name, inp):
    return {"type": "tool_use", "id": cid, "name": name, "input": inp}


def _res(cid, content, is_error=None):
    block = {"type": "tool_result", "tool_use_id": cid, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


ANTHROPIC = [
    {
        "episode_id": "a1",
        "policy_id": "claude-agent",
        "system": "You help.",
        "usage": {"input_tokens": 120, "output_tokens": 30},
        "messages": [
            {"role": "user", "content": "Where is order 1?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    _use("t1", "get_order", {"id": "1"}),
                ],
            },
            {"role": "user", "content": [_res("t1", "shipped")]},
            {"role": "assistant", "content": "It shipped."},
        ],
    },
    {
        "episode_id": "a2",
        "system": "You help.",
        "messages": [
            {"role": "user", "content": "Cancel 2"},
            {"role": "assistant", "content": [_use("t1", "cancel_order", {"id": "2"})]},
            {"role": "user", "content": [_res("t1", "order not found", is_error=True)]},
            {"role": "assistant", "content": "Sorry."},
        ],
    },
    {
        "episode_id": "a3",
        "system": [{"type": "text", "text": "Sys"}],
        "messages": [
            {"role": "user", "content": "Refund 3"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "x"},
                    _use("t1", "get_order", {"id": "3"}),
                    _use("t2", "refund_payment", {"amount": 5}),
                ],
            },
            {
                "role": "user",
                "content": [
                    _res("t1", [{"type": "text", "text": "ok"}]),
                    _res("t2", "ValueError: amount too high"),
                ],
            },
            {"role": "assistant", "content": "Done"},
        ],
    },
    {
        "episode_id": "a4",
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "Hi there"},
        ],
    },
    {
        "episode_id": "a5",
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [_use("t1", "search", {"q": "x"})]},
            {
                "role": "user",
                "content": [
                    _res("t1", '{"error": "timeout"}'),
                    {"type": "text", "text": "anything?"},
                ],
            },
            {"role": "assistant", "content": [_use("t2", "search", {"q": "y"})]},
            {"role": "user", "content": [_res("t2", "HTTP/1.1 503 Service Unavailable")]},
            {"role": "assistant", "content": "No luck"},
        ],
    },
]


def test_anthropic_messages_sample(tmp_path):
    result = _ingest(tmp_path, {"claude.jsonl": _jsonl(ANTHROPIC)})
    assert result.stats.records_quarantined == 0
    assert result.stats.records_by_format == {"anthropic_messages": 5}
    c = _counts(result.steps)
    assert (c["episodes"], c["calls"], c["results"], c["errors"]) == (5, 6, 6, 4)
    assert c["roles"] == {"system": 4, "user": 6, "assistant": 12, "tool": 6}
    a1 = c["frame"][c["frame"]["episode_id"] == "a1"].iloc[0]
    assert (a1["prompt_tokens"], a1["completion_tokens"]) == (120, 30)
    assert set(c["replayed"]["replay_status"]) == {"ok"}


# --- OpenTelemetry GenAI (OTLP JSON) --------------------------------------------------------------


def _attr(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, (list, dict)):
        value = json.dumps(value)
    return {"key": key, "value": {"stringValue": value}}


def _span(trace, n, op, attrs, status=None):
    span = {
        "traceId": trace,
        "spanId": f"{trace[:8]}{n:08d}",
        "name": op,
        "kind": 3,
        "startTimeUnixNano": str(1_780_000_000_000_000_000 + n * 1_000_000_000),
        "endTimeUnixNano": str(1_780_000_000_000_000_000 + n * 1_000_000_000 + 500_000_000),
        "attributes": [_attr("gen_ai.operation.name", op)]
        + [_attr(k, v) for k, v in attrs.items()],
    }
    if status:
        span["status"] = status
    return span


def _user(text):
    return {"role": "user", "parts": [{"type": "text", "content": text}]}


def _say(text):
    return [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]


def _calls(*calls):
    parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    return [{"role": "assistant", "parts": parts}]


def _otlp_traces() -> list[list[dict]]:
    t = [f"{k:032x}" for k in range(1, 6)]
    return [
        [
            _span(t[0], 0, "invoke_agent", {"gen_ai.agent.name": "shop-agent",
                                             "gen_ai.conversation.id": "conv-1"}),
            _span(t[0], 1, "chat", {
                "gen_ai.system_instructions": [{"type": "text", "content": "Sys"}],
                "gen_ai.input.messages": [_user("Where is 1?")],
                "gen_ai.output.messages": _calls(("c1", "get_order", {"id": "1"})),
                "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5}),
            _span(t[0], 2, "execute_tool", {"gen_ai.tool.name": "get_order",
                                             "gen_ai.tool.call.id": "c1",
                                             "gen_ai.tool.call.result": '{"status": "shipped"}'}),
            _span(t[0], 3, "chat", {"gen_ai.input.messages": [_user("Where is 1?")],
                                     "gen_ai.output.messages": _say("Shipped."),
                                     "gen_ai.usage.input_tokens": 20,
                                     "gen_ai.usage.output_tokens": 3}),
        ],
        [
            _span(t[1], 1, "chat", {"gen_ai.input.messages": [_user("Cancel 2")],
                                     "gen_ai.output.messages": _calls(("c1", "cancel_order", {}))}),
            _span(t[1], 2, "execute_tool", {"gen_ai.tool.name": "cancel_order",
                                             "gen_ai.tool.call.id": "c1"},
                  status={"code": 2, "message": "order locked"}),
            _span(t[1], 3, "chat", {"gen_ai.input.messages": [_user("Cancel 2")],
                                     "gen_ai.output.messages": _say("Sorry")}),
        ],
        [
            _span(t[2], 1, "chat", {"gen_ai.input.messages": [_user("Refund")]}),
            _span(t[2], 2, "execute_tool", {"gen_ai.tool.name": "refund_payment",
                                             "gen_ai.tool.call.arguments": '{"amount": 3}',
                                             "gen_ai.tool.call.result": "ok"}),
            _span(t[2], 3, "chat", {"gen_ai.output.messages": _say("Refunded")}),
        ],
        [
            _span(t[3], 1, "chat", {"gen_ai.input.messages": [_user("hi")],
                                     "gen_ai.output.messages": _say("hello")}),
            _span(t[3], 2, "chat", {"gen_ai.input.messages": [
                _user("hi"), _say("hello")[0], _user("bye")],
                "gen_ai.output.messages": _say("bye!")}),
        ],
        [
            _span(t[4], 1, "chat", {"gen_ai.input.messages": [_user("find")],
                                     "gen_ai.output.messages": _calls(
                                         ("c1", "search", {"q": "a"}),
                                         ("c2", "search", {"q": "b"}))}),
            _span(t[4], 2, "execute_tool", {"gen_ai.tool.name": "search",
                                             "gen_ai.tool.call.id": "c1",
                                             "gen_ai.tool.call.result": "ValueError: bad query"}),
            _span(t[4], 3, "execute_tool", {"gen_ai.tool.name": "search",
                                             "gen_ai.tool.call.id": "c2",
                                             "gen_ai.tool.call.result": '{"items": []}'}),
            _span(t[4], 4, "chat", {"gen_ai.output.messages": _say("none")}),
        ],
    ]  # fmt: skip


def _otlp_doc(spans: list[dict]) -> dict:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [_attr("service.name", "shop")]},
                "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
            }
        ]
    }


def test_otlp_genai_sample_split_per_trace(tmp_path):
    traces = _otlp_traces()
    # one .json export with all five traces, and the same traces one per JSONL line elsewhere
    doc = _otlp_doc([s for trace in traces for s in trace])
    result = _ingest(tmp_path, {"traces.json": json.dumps(doc)})
    assert result.stats.records_quarantined == 0
    assert result.stats.records_by_format == {"otlp_genai": 5}
    c = _counts(result.steps)
    assert (c["episodes"], c["calls"], c["results"], c["errors"]) == (5, 5, 5, 2)
    assert c["roles"] == {"system": 1, "user": 6, "assistant": 11, "tool": 5}
    frame = c["frame"]
    conv = frame[frame["episode_id"] == "conv-1"].iloc[0]
    assert conv["policy_id"] == "shop-agent"
    assert (conv["prompt_tokens"], conv["completion_tokens"]) == (30, 8)
    assert conv["latency_ms"] == pytest.approx(3500.0)
    assert str(conv["started_at"].tz) == "UTC"  # parsed from the span start (unix nanos)
    assert set(c["replayed"]["replay_status"]) == {"ok"}
    lines = _ingest(tmp_path / "b", {"traces.jsonl": _jsonl([_otlp_doc(t) for t in traces])})
    assert _counts(lines.steps)["calls"] == 5


# --- tau2-bench results file ----------------------------------------------------------------------


def _msg(role, content=None, **extra):
    return {"role": role, "content": content, "turn_idx": 0,
            "timestamp": "2026-05-04T10:00:00", **extra}  # fmt: skip


def _tc(cid, name, args):
    return {"id": cid, "name": name, "arguments": args, "requestor": "assistant"}


def _sim(sid, messages, reward=1.0, **extra):
    return {"id": sid, "task_id": "0", "trial": 0, "duration": 2.5, "agent_cost": 0.01,
            "termination_reason": "user_stop", "reward_info": {"reward": reward},
            "messages": messages, **extra}  # fmt: skip


TAU2 = {
    "timestamp": "2026-05-04T10:00:00",
    "info": {"agent_info": {"llm": "gpt-x"}},
    "tasks": [
        {"id": "0", "user_scenario": {"instructions": {"domain": "retail",
                                                       "reason_for_call": "cancel"}}}
    ],
    "simulations": [
        _sim("s1", [
            _msg("assistant", "Hi"), _msg("user", "cancel #1"),
            _msg("assistant", None, tool_calls=[_tc("a1", "cancel_pending_order",
                                                    {"order_id": "#1", "reason": "x"})]),
            _msg("tool", '{"status": "cancelled"}', id="a1", error=False),
            _msg("assistant", "Done")], policy="Be nice"),
        _sim("s2", [
            _msg("assistant", "Hi"), _msg("user", "return"),
            _msg("assistant", None, tool_calls=[_tc("b1", "return_delivered_order_items",
                                                    {"order_id": "#2"})]),
            _msg("tool", "Error: not delivered", id="b1", error=True),
            _msg("assistant", "Cannot")], reward=0.0),
        _sim("s3", [
            _msg("user", "q"),
            _msg("assistant", None, tool_calls=[_tc("c1", "get_order_details", {"order_id": "#3"}),
                                                _tc("c2", "get_flight_status", {"f": "HAT1"})]),
            _msg("tool", '{"order_id": "#3"}', id="c1", error=False),
            _msg("tool", "boom", id="c2", error=True),
            _msg("assistant", "ok")]),
        _sim("s4", [_msg("assistant", "Hi"), _msg("user", "bye")]),
        _sim("s5", [
            _msg("assistant", "Let me look",
                 tool_calls=[_tc("d1", "exchange_delivered_order_items", {"order_id": "#5"})]),
            _msg("tool", '{"ok": true}', id="d1", error=False),
            _msg("user", "thanks")]),
    ],
}  # fmt: skip


def test_tau2_results_sample(tmp_path):
    result = _ingest(tmp_path, {"run.json": json.dumps(TAU2)})
    assert result.stats.records_quarantined == 0
    assert result.stats.records_by_format == {"tau2_results": 5}
    assert result.stats.records_read == 5  # one record per simulation
    c = _counts(result.steps)
    assert (c["episodes"], c["calls"], c["results"], c["errors"]) == (5, 5, 5, 2)
    assert c["roles"] == {"system": 1, "assistant": 12, "user": 5, "tool": 5}
    frame = c["frame"]
    assert set(frame["policy_id"]) == {"gpt-x"} and set(frame["task_type"]) == {"retail"}
    assert set(frame["source_index"]) == {0, 1, 2, 3, 4}
    s1 = frame[frame["episode_id"] == "s1"].iloc[0]
    assert (s1["logged_reward"], s1["latency_ms"], s1["cost_usd"]) == (1.0, 2500.0, 0.01)
    rep = c["replayed"].set_index("episode_id")
    assert set(rep["replay_status"]) == {"ok"}
    assert rep["destructive_actions"].to_dict() == {"s1": 1, "s2": 0, "s3": 0, "s4": 0, "s5": 0}
    assert rep["financial_writes"].to_dict() == {"s1": 0, "s2": 1, "s3": 0, "s4": 0, "s5": 1}
    assert rep.loc["s3", "unknown_tools"] == 1  # get_flight_status is not a retail tool
    assert json.loads(rep.loc["s3", "inferred_effects"]) == {"get_flight_status": "read"}


# --- tau-bench records without tool-call ids, Python-repr arguments ------------------------------


def _fn(name, args, cid=None):
    call = {"type": "function", "function": {"name": name, "arguments": args}}
    if cid:
        call["id"] = cid
    return call


TAU_NO_IDS = [
    {"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": [
        {"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [_fn("find_user_id_by_email", "{'email': 'x'}")]},
        {"role": "tool", "name": "find_user_id_by_email", "content": "u1"},
        {"role": "assistant", "content": "found"}]},
    {"task_id": 2, "trial": 0, "reward": 0.0, "info": {}, "traj": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [
            _fn("think", "{'thought': 'plan'}"),
            _fn("get_order_details", '{"order_id": "#1"}')]},
        {"role": "tool", "name": "think", "content": ""},
        {"role": "tool", "name": "get_order_details", "content": "Error: no order"},
        {"role": "assistant", "content": "sorry"}]},
    {"task_id": 3, "trial": 0, "reward": 1.0, "info": {}, "traj": [
        {"role": "user", "content": "cancel"},
        {"role": "assistant", "tool_calls": [
            _fn("cancel_pending_order", '{"order_id": "#2", "reason": "x"}', "c1")]},
        {"role": "tool", "tool_call_id": "c1", "name": "cancel_pending_order", "content": "ok"},
        {"role": "assistant", "content": "cancelled"}]},
    {"task_id": 4, "trial": 0, "reward": 1.0, "info": {}, "traj": [
        {"role": "user", "content": "hey"}, {"role": "assistant", "content": "hello"}]},
    {"task_id": 5, "trial": 0, "reward": 0.0, "info": {}, "traj": [
        {"role": "user", "content": "pay"},
        {"role": "assistant", "tool_calls": [_fn(
            "modify_pending_order_payment", "{'order_id': '#3', 'payment_method_id': 'gift_1'}")]},
        {"role": "tool", "content": "ValidationError: payment method invalid"},
        {"role": "assistant", "content": "fail"}]},
]  # fmt: skip


def test_tau_bench_without_ids_and_python_repr_arguments(tmp_path):
    result = _ingest(tmp_path, {"my-agent.json": json.dumps(TAU_NO_IDS)})
    assert result.stats.records_quarantined == 0
    c = _counts(result.steps)
    assert (c["episodes"], c["calls"], c["results"], c["errors"]) == (5, 5, 5, 2)
    assert c["roles"] == {"system": 1, "user": 5, "assistant": 10, "tool": 5}
    frame = c["frame"]
    calls = frame[frame["action_type"] == "tool_call"]
    for args in calls["tool_arguments"]:
        assert isinstance(json.loads(args), dict)  # Python reprs became JSON
    inferred = calls[calls["tool_call_id"].str.startswith("inferred-")]
    assert len(inferred) == 4  # every call logged without an id, marked as paired by order
    # the file name names no domain; the tools do (an episode without tools stays "benchmark")
    types = frame.groupby("episode_id")["task_type"].first()
    assert types.value_counts().to_dict() == {"retail": 4, "benchmark": 1}
    rep = c["replayed"]
    assert set(rep["replay_status"]) == {"ok"}
    assert int(rep["financial_writes"].sum()) == 1 and int(rep["destructive_actions"].sum()) == 1


def test_python_repr_is_parsed_safely_never_evaluated():
    assert json.loads(tool_arguments("{'a': (1, 2), 'b': None}", "x")) == {"a": [1, 2], "b": None}
    hostile = "{'a': __import__('os').system('echo owned')}"
    assert tool_arguments(hostile, "x") == hostile  # kept as text, replay calls it unparsable
    assert tool_arguments("{'s': {1, 2}}", "x") == "{'s': {1, 2}}"  # a set is not JSON


# --- malformed input in every new format ----------------------------------------------------------


def test_malformed_records_are_quarantined_with_a_reason(tmp_path):
    bad_anthropic = [
        {"episode_id": "b1", "system": "s", "messages": [
            {"role": "user", "content": [_res("nope", "x")]}]},
        {"episode_id": "b2", "system": "s", "messages": [{"role": "tool", "content": "x"}]},
        {"episode_id": "b3", "messages": [{"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "f", "input": "not an object"}]}]},
    ]  # fmt: skip
    bad_otlp = [
        {"resourceSpans": {"not": "a list"}},
        _otlp_doc([{"traceId": "ab" * 16, "spanId": "1", "name": "chat"}]),  # no start time
        _otlp_doc([_span("cd" * 16, 1, "execute_tool", {})]),  # tool span without a tool name
    ]
    bad_tau2_file = {"info": {}, "tasks": [], "simulations": {"not": "a list"}}
    bad_tau2_sims = {"info": {}, "tasks": [], "simulations": [
        _sim("x1", [_msg("tool", "orphan", id="zz", error=False)]),
        _sim("x2", []),
        "not a simulation",
    ]}  # fmt: skip
    bad_no_ids = [
        {"task_id": 9, "trial": 0, "traj": [
            {"role": "user", "content": "x"}, {"role": "tool", "content": "unpaired"}]},
    ]  # fmt: skip
    files = {
        "a.jsonl": _jsonl(bad_anthropic),
        "o.jsonl": _jsonl(bad_otlp),
        "t1.json": json.dumps(bad_tau2_file),
        "t2.json": json.dumps(bad_tau2_sims),
        "n.json": json.dumps(bad_no_ids),
    }
    result = _ingest(tmp_path, files)
    stats = result.stats
    assert stats.records_read == 3 + 3 + 1 + 3 + 1
    assert stats.records_accepted == 0 and result.steps.num_rows == 0
    assert stats.records_quarantined == stats.records_read == result.quarantine.num_rows
    reasons = result.quarantine.to_pandas().set_index(["source_file", "source_index"])["reason"]
    assert all(isinstance(r, str) and r for r in reasons)
    text = " | ".join(reasons)
    for expected in (
        "tool result for a call that never happened",
        "role must be user or assistant",
        "tool_use input must be an object",
        "'resourceSpans' must be a list",
        "span without startTimeUnixNano",
        "missing gen_ai.tool.name",
        "'simulations' and 'tasks' must be lists",
        "'messages' is empty",
        "expected an object",
        "no unanswered call to pair with",
    ):
        assert expected in text, expected
    assert "orphan" not in text and "unpaired" not in text  # reasons never quote content


def test_registry_names_every_format():
    assert set(FORMAT_NAMES) == {
        "episode_jsonl", "transition_jsonl", "benchmark_json",
        "anthropic_messages", "otlp_genai", "tau2_results",
    }  # fmt: skip
    assert detect_format({"messages": [], "system": "s"}) == "anthropic_messages"
    assert detect_format({"resourceSpans": []}) == "otlp_genai"
    with pytest.raises(RecordError):
        detect_format({"foo": 1})
