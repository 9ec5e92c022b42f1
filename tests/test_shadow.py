"""The step-aligned shadow: proposals at every logged decision point, comparison, hermetic
answers, flap rate, quota and kill switch, tool schemas, the leak scan of what a candidate wrote,
and the OpenAI-compatible client. The candidate is scripted here (``chat_stub``); the real offline
model runs in ``test_shadow_model.py``."""

import datetime as dt
import json
import random
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pandas as pd
import pytest
from chat_stub import Scripted, calls, reply

from agentic_pipeline.catalogue import builtin_catalogue
from agentic_pipeline.demo import write_landing
from agentic_pipeline.environments.base import Action, AgentState, Task
from agentic_pipeline.environments.hermetic import OFF_LOG_ERROR, normalise_arguments
from agentic_pipeline.environments.openai_policy import OpenAIChatPolicy, OpenAIPolicyError
from agentic_pipeline.environments.tool_schemas import SchemaInference, tool_specs_for
from agentic_pipeline.formats import parse_episode
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.shadow import (
    REDACTED,
    Candidate,
    ShadowBudget,
    ShadowSettings,
    StepAlignedShadow,
    agreement_by_tool,
    confusion,
    decision_points,
    episodes_table,
    first_divergence_counts,
    headline,
    redact_leaks,
    steps_table,
)

DAY = dt.date(2026, 3, 3)


@pytest.fixture(scope="module")
def demo_steps(tmp_path_factory) -> list[dict]:
    root = tmp_path_factory.mktemp("shadow")
    write_landing(root, DAY, 1, 30, seed=5, transition_share=0.3)
    return ingest_day(root / "landing" / DAY.isoformat(), DAY.isoformat()).steps.to_pylist()


def _call(name: str, args: dict, cid: str) -> dict:
    function = {"name": name, "arguments": json.dumps(args)}
    return {"id": cid, "type": "function", "function": function}


def _episode() -> list[dict]:
    """A hand-made support episode: look up, confirm, update, confirm (four decision points)."""
    record = {
        "episode_id": "ep-hand",
        "policy_id": "agent-v1",
        "task_type": "update_contact",
        "task": {"id": "task-1", "description": "change my phone"},
        "messages": [
            {"role": "system", "content": "You help customers."},
            {"role": "user", "content": "Please change my phone, my email is <EMAIL_1>"},
            {"role": "assistant", "content": None,
             "tool_calls": [_call("search_customer", {"email": "<EMAIL_1>"}, "c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"customer": {"id": "<CUS_1>"}}'},
            {"role": "assistant", "content": "Found you. Which number?"},
            {"role": "user", "content": "<PHONE_1>"},
            {"role": "assistant", "content": None,
             "tool_calls": [_call("update_crm", {"id": "<CUS_1>",
                                                 "fields": {"phone": "<PHONE_1>"}}, "c2")]},
            {"role": "tool", "tool_call_id": "c2", "content": '{"ok": true}'},
            {"role": "assistant", "content": "Done, your phone is updated."},
        ],
    }  # fmt: skip
    episode_id, attrs, rows = parse_episode(record)
    return [{"ds": "2026-03-03", **attrs, **row, "step": i} for i, row in enumerate(rows)]


def _run(answer, rows, settings=None, budget=None, clock=None):
    endpoint = Scripted(answer)
    kwargs = {"clock": clock} if clock else {}
    shadow = StepAlignedShadow(
        Candidate(endpoint, "stub"),
        settings or ShadowSettings(),
        budget or ShadowBudget(),
        **kwargs,
    )
    result = shadow.run(rows)
    steps = steps_table(result.steps)
    return shadow, result, steps, episodes_table(result.episodes, steps), endpoint


def test_decision_points_of_a_logged_episode():
    points = decision_points(_episode())
    assert [(p.logged.kind, p.logged.tool) for p in points] == [
        ("tool", "search_customer"),
        ("reply", None),
        ("tool", "update_crm"),
        ("reply", None),
    ]
    assert [m["role"] for m in points[2].history] == [
        "system", "user", "assistant", "tool", "assistant", "user",
    ]  # fmt: skip


def test_every_decision_point_gets_a_proposal_or_a_reason(demo_steps):
    settings = ShadowSettings(max_steps_per_episode=2)
    shadow, result, steps, episodes, _ = _run(
        lambda p, n: reply("One moment."), demo_steps, settings, ShadowBudget(max_episodes=3)
    )
    assert result.stopped == (
        "shadow of openai:stub stopped: max_episodes=3 reached; kept 3 episode(s), 6 proposal(s)"
    )
    e = episodes.to_pandas()
    assert len(e) == len({r["episode_id"] for r in demo_steps})  # every episode is listed
    assert (e["status"] == "shadowed").sum() == 3
    assert set(e.loc[e["status"] != "shadowed", "status"]) == {"not_run: max_episodes"}
    s = steps.to_pandas()
    for episode_id in e.loc[e["status"] == "shadowed", "episode_id"]:
        rows = [r for r in demo_steps if r["episode_id"] == episode_id]
        mine = s[s["episode_id"] == episode_id].sort_values("decision")
        assert list(mine["decision"]) == [p.index for p in decision_points(rows)]
        assert (mine["status"].iloc[:2] == "proposed").all()
        assert set(mine["status"].iloc[2:]) <= {"not_run: over max_steps_per_episode=2"}


def test_comparison_first_divergence_and_tables():
    script = [
        # the logged call, its arguments spelled otherwise: agrees after normalisation
        calls(("search_customer", {"email": " <email_1> "})),
        reply("Sure, which number should I use?"),  # a reply where the log replies: agrees
        calls(("get_customer", {"id": "<CUS_1>"})),  # another tool where the log updates
        reply(None),  # an empty answer: finish, where the log replies
    ]
    _, result, steps, episodes, endpoint = _run(lambda p, n: script[n], _episode())
    s = steps.to_pandas().sort_values("decision")
    assert list(s["agrees"]) == [True, True, False, False]
    assert list(s["same_kind"]) == [True, True, True, False]
    assert s["same_tool"].tolist()[2] is False and s["same_arguments"].tolist()[0] is True
    row = episodes.to_pandas().iloc[0]
    assert row["status"] == "shadowed" and row["proposals"] == 4
    assert row["agreement_rate"] == 0.5 and row["first_divergence"] == 2
    assert row["first_divergence_step"] == s["step"].tolist()[2]
    assert {"logged": "update_crm", "proposed": "get_customer", "count": 1} in confusion(steps)
    by_tool = {r["logged"]: r for r in agreement_by_tool(steps)}
    assert by_tool["reply"]["agrees"] == 0.5 and by_tool["search_customer"]["agrees"] == 1.0
    assert first_divergence_counts(episodes) == {"2": 1}
    # the candidate saw the logged history before each decision point, nothing later
    assert [len(r["messages"]) for r in endpoint.requests] == [2, 4, 6, 8]
    assert {t["function"]["name"] for t in endpoint.requests[0]["tools"]} >= {
        "search_customer", "update_crm", "finish",
    }  # fmt: skip


def test_hermetic_answers_and_off_log_calls():
    script = [
        calls(("search_customer", {"email": "<EMAIL_1>"})),  # in the log: its logged result
        calls(("search_customer", {"email": "<EMAIL_9>"})),  # not in the log: off-log
        reply("Let me check again."),  # after the off-log error, at the same decision point
        calls(("update_crm", {"fields": {"phone": "<PHONE_1>"}, "id": "<CUS_1>"})),
        reply("All set."),
    ]
    settings = ShadowSettings(max_calls_per_step=2)
    _, result, steps, episodes, endpoint = _run(lambda p, n: script[n], _episode(), settings)
    s = steps.to_pandas()
    first = s[(s["decision"] == 0)].iloc[0]
    assert first["answer"] == "logged" and first["matched_step"] == 2
    off = s[(s["decision"] == 1) & (s["proposal"] == 0)].iloc[0]
    assert off["answer"] == "off_log" and not off["agrees"]
    follow = s[(s["decision"] == 1) & (s["proposal"] == 1)].iloc[0]
    assert follow["proposed_kind"] == "reply" and pd.isna(follow["agrees"])
    shown = endpoint.requests[2]["messages"][-1]  # the off-log error, as a tool message
    assert shown["role"] == "tool" and shown["content"] == OFF_LOG_ERROR
    assert s[s["decision"] == 2].iloc[0]["answer"] == "logged"  # key order does not matter
    assert episodes.to_pandas().iloc[0]["off_log_calls"] == 1
    figures = headline(steps, episodes)
    assert figures["off_log_calls"] == 1 and figures["proposed_calls"] == 3


def test_flap_rate_from_repeated_samples():
    def answer(payload, n):
        decision, sample = divmod(n, 2)
        if decision == 1:  # the two samples disagree here only
            return reply("Which one?") if sample == 0 else calls(("get_customer", {"id": "x"}))
        return reply("Fine.")

    settings = ShadowSettings(n_samples=2, temperature=0.7)
    _, _, steps, episodes, endpoint = _run(answer, _episode(), settings)
    row = episodes.to_pandas().iloc[0]
    assert row["flap_points"] == 1 and row["flap_rate"] == 0.25
    assert headline(steps, episodes)["flap_rate"] == 0.25
    seeds = [r["seed"] for r in endpoint.requests]
    assert len(set(seeds)) == len(seeds) and {r["temperature"] for r in endpoint.requests} == {0.7}
    with pytest.raises(ValueError, match="temperature > 0"):
        ShadowSettings(n_samples=2, temperature=0.0)


def test_kill_switch_stops_a_dangerous_proposal_before_any_answer(demo_steps):
    def answer(payload, n):  # deletes the customer every time: a destructive act
        return calls(("delete_customer", {"id": "<CUS_1>"}))

    budget = ShadowBudget(max_episodes=50, max_dangerous_proposals=1)
    _, result, steps, episodes, endpoint = _run(answer, demo_steps, None, budget)
    assert result.stopped.startswith("shadow of openai:stub stopped: kill switch: dangerous ")
    assert "proposal 2 (delete_customer) over max_dangerous_proposals=1" in result.stopped
    assert "\n" not in result.stopped and len(endpoint.requests) == 2
    s = steps.to_pandas()
    proposed = s[s["status"] == "proposed"]
    assert len(proposed) == 2 and set(proposed["answer"]) == {"blocked"}
    assert proposed["dangerous"].all()
    assert set(s.loc[s["status"] != "proposed", "status"]) == {"not_run: max_dangerous_proposals"}
    statuses = set(episodes.to_pandas()["status"])
    assert "stopped: max_dangerous_proposals" in statuses
    assert "not_run: max_dangerous_proposals" in statuses


def test_token_and_time_budgets_stop_the_run_with_one_line(demo_steps):
    budget = ShadowBudget(max_episodes=50, max_tokens=250)  # 110 tokens per answer
    _, result, steps, _, endpoint = _run(lambda p, n: calls(("x", {})), demo_steps, None, budget)
    assert result.stopped.endswith("token budget max_tokens=250 crossed (330 used); kept 1 "
                                   "episode(s), 3 proposal(s)")  # fmt: skip
    assert len(endpoint.requests) == 3 and (steps.to_pandas()["status"] == "proposed").sum() == 3
    now = [0.0]

    def clock():  # every request takes ten seconds
        return now[0]

    def answer(payload, n):
        now[0] += 10
        return reply("ok")

    budget = ShadowBudget(max_episodes=50, max_seconds=25)
    _, result, _, _, endpoint = _run(answer, demo_steps, None, budget, clock)
    assert "time budget max_seconds=25 crossed (30.0 s used)" in result.stopped
    assert len(endpoint.requests) == 3


def test_a_failing_endpoint_is_recorded_then_stops_the_run(demo_steps):
    def answer(payload, n):
        raise OpenAIPolicyError("endpoint answered HTTP 503")

    _, result, steps, _, _ = _run(answer, demo_steps)
    assert result.stopped.startswith("shadow of openai:stub stopped: 3 failed requests in a row")
    failed = steps.to_pandas()["status"]
    assert (failed == "candidate_error: endpoint answered HTTP 503").sum() == 3


def test_tool_schemas_from_the_catalogue_or_the_logs(demo_steps):
    inference = SchemaInference()
    inference.add("retail", "cancel_pending_order", '{"order_id": "#W1", "reason": "no longer"}')
    inference.add("retail", "cancel_pending_order", '{"order_id": "#W2"}')
    inference.add("retail", "modify_pending_order_items", '{"item_ids": ["1", "2"], "n": 2}')
    schemas = inference.schemas("retail")
    assert schemas["cancel_pending_order"] == {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["order_id"],
    }
    assert schemas["modify_pending_order_items"]["properties"]["item_ids"] == {
        "type": "array", "items": {"type": "string"},
    }  # fmt: skip
    retail = tool_specs_for(builtin_catalogue().get("retail"), schemas)
    assert retail["cancel_pending_order"].parameters == schemas["cancel_pending_order"]
    assert retail["get_order_details"].parameters["type"] == "object"  # listed, never logged
    _, _, _, _, endpoint = _run(lambda p, n: reply("ok"), demo_steps, None, ShadowBudget(1))
    tools = {t["function"]["name"]: t["function"] for t in endpoint.requests[0]["tools"]}
    assert tools["update_crm"]["parameters"]["required"] == ["id", "fields"]  # the CRM's own
    assert "finish" in tools


def test_arguments_are_normalised_before_comparison():
    a = {"Fields": {"phone": " +1  555 "}, "id": "CUS_1", "note": None, "n": 1.0}
    b = {"id": "cus_1", "fields": {"phone": "+1 555"}, "n": 1}
    assert normalise_arguments(a) == normalise_arguments(b)
    assert normalise_arguments({"ids": [1, 2]}) != normalise_arguments({"ids": [2, 1]})


def test_what_a_candidate_writes_is_leak_scanned_before_it_is_stored():
    invented = "You can reach us at t.wrenfield@example.net or 415-555-0134."
    _, _, steps, episodes, _ = _run(lambda p, n: reply(invented), _episode())
    clean, leaks = redact_leaks(steps)
    replies = clean.column("proposed_reply").to_pylist()
    assert set(replies) == {REDACTED} and sum(leaks.values()) >= 4
    assert all(k.startswith("proposed_reply:") for k in leaks)
    assert clean.column("logged_tool").to_pylist() == steps.column("logged_tool").to_pylist()


def test_the_shadow_package_imports_no_demo():
    import ast
    from pathlib import Path

    import agentic_pipeline.shadow as shadow

    for path in Path(shadow.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any(m and m.startswith("agentic_pipeline.demo") for m in imported), path


# -- the OpenAI-compatible client against a local HTTP stub -------------------------------------


class _Stub(BaseHTTPRequestHandler):
    replies: list[dict] = []
    requests: list[dict] = []
    headers_seen: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        type(self).headers_seen.append(dict(self.headers))
        answer = type(self).replies.pop(0)
        status = answer.pop("_status", 200)
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    _Stub.replies, _Stub.requests, _Stub.headers_seen = [], [], []
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1/chat/completions"
    server.shutdown()
    server.server_close()


def test_openai_policy_maps_responses_to_actions(stub, monkeypatch):
    monkeypatch.setenv("STUB_KEY", "sk-test")
    policy = OpenAIChatPolicy(stub, "stub-model", api_key_env="STUB_KEY")
    _Stub.replies = [
        calls(("search_customer", {"email": "<EMAIL_1>"})),
        reply("All done!"),
        calls(("finish", {"reply": "Bye"})),
        reply(None),
    ]
    state = AgentState(Task("t", "update_contact", "change my phone", {}), {}, random.Random(0))
    a1 = policy(state)
    assert a1 == Action.tool("search_customer", email="<EMAIL_1>")
    state.history.append((a1, {"customer": {"customer_id": "<CUS_1>"}}))
    assert policy(state) == Action.respond("All done!")
    state.history.append((Action.respond("All done!"), {"user_message": "thanks"}))
    assert policy(state) == Action.finish("Bye")
    assert policy(state) == Action.finish()
    first, second = _Stub.requests[0], _Stub.requests[1]
    assert first["model"] == "stub-model"
    names = [t["function"]["name"] for t in first["tools"]]
    assert "update_crm" in names and "finish" in names
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert _Stub.headers_seen[0]["Authorization"] == "Bearer sk-test"
    assert policy.usage["prompt_tokens"] == 400  # every answer of the stub carries usage


def test_openai_policy_errors_are_clear(stub):
    policy = OpenAIChatPolicy(stub, "m", api_key_env="NO_SUCH_KEY_VAR", max_retries=0)
    _Stub.replies = [{"_status": 400, "error": "bad"}]
    state = AgentState(Task("t", "x", "d", {}), {}, random.Random(0))
    with pytest.raises(OpenAIPolicyError, match="HTTP 400"):
        policy(state)
    assert "Authorization" not in _Stub.headers_seen[0]
