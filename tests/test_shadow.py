"""Shadow mode: candidate on recorded tasks, sandbox only, quota and kill switch, OpenAI adapter."""

import datetime as dt
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pandas as pd
import pytest

from agentic_pipeline.demo import get_policy, write_landing
from agentic_pipeline.environments.base import Action, AgentState, Task
from agentic_pipeline.environments.openai_policy import OpenAIChatPolicy, OpenAIPolicyError
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.replay import replay_day
from agentic_pipeline.shadow import (
    ShadowQuota,
    ShadowQuotaExceeded,
    ShadowRunner,
    UserModel,
    behaviour_diff,
    recorded_tasks,
    shadow_table,
)
from assets.replay import DEMO_USER

DAY = dt.date(2026, 3, 3)


@pytest.fixture(scope="module")
def steps(tmp_path_factory) -> pd.DataFrame:
    root = tmp_path_factory.mktemp("shadow")
    write_landing(root, DAY, 1, 120, seed=5, transition_share=0.4)
    return ingest_day(root / "landing" / DAY.isoformat(), DAY.isoformat()).steps.to_pandas()


def test_candidate_runs_on_recorded_tasks_in_a_sandbox(steps):
    before = steps.copy()
    tasks, skipped = recorded_tasks(steps.to_dict("records"))
    assert len(tasks) + skipped == steps["episode_id"].nunique() and len(tasks) > 100
    seeds = [t.sandbox.state() for t in tasks]
    runner = ShadowRunner(
        get_policy("crm-efficient-v3"), ShadowQuota(1000, 1000), user_model=DEMO_USER
    )
    runner.run(tasks)
    assert [t.sandbox.state() for t in tasks] == seeds  # each run works on a copy
    pd.testing.assert_frame_equal(steps, before)
    table = shadow_table(runner.episodes, runner.candidate_id).to_pandas()
    assert len(table) == len(tasks)
    assert set(table["replay_status"]) == {"ok"}
    assert set(table["success_source"]) == {"environment"}
    assert table["success"].mean() > 0.75  # the efficient variant succeeds ~85%
    assert table["financial_writes"].sum() == 0 and table["destructive_actions"].sum() == 0
    again = ShadowRunner(
        get_policy("crm-efficient-v3"), ShadowQuota(1000, 1000), user_model=DEMO_USER
    )
    again.run(tasks)
    assert shadow_table(again.episodes, again.candidate_id).to_pandas().equals(table)

    logged = replay_day(steps)
    logged = logged[logged["episode_id"].isin(set(table["logged_episode_id"]))]
    diff = behaviour_diff(logged, table)
    assert set(diff["task_type"]) == {
        "update_contact",
        "refund_request",
        "address_change",
        "close_case",
    }
    metrics = set(diff["metric"])
    for m in (
        "success_rate",
        "error_rate",
        "steps_to_completion",
        "risk_rate",
        "action_share:tool_call",
        "tool_per_episode:search_customer",
    ):
        assert m in metrics
    print("\n", diff[diff["metric"] == "success_rate"][["task_type", "logged", "candidate"]])


def test_eager_candidate_shows_premature_finishes(steps):
    tasks, _ = recorded_tasks(steps.to_dict("records"))
    runner = ShadowRunner(get_policy("crm-eager-v1"), ShadowQuota(1000, 1000), user_model=DEMO_USER)
    runner.run(tasks)
    table = shadow_table(runner.episodes, runner.candidate_id).to_pandas()
    assert table["premature_finish"].sum() > 10


def test_kill_switch_stops_a_risky_candidate_before_the_action(steps):
    tasks, _ = recorded_tasks(steps.to_dict("records"))
    runner = ShadowRunner(get_policy("crm-risky-v1"), ShadowQuota(1000, 2), user_model=DEMO_USER)
    with pytest.raises(ShadowQuotaExceeded, match="max_dangerous_actions=2"):
        runner.run(tasks)
    assert runner.dangerous_actions == 2
    assert runner.episodes[-1].killed
    table = shadow_table(runner.episodes, runner.candidate_id).to_pandas()
    assert int(table["killed"].sum()) == 1
    # the blocked action never reached the sandbox or the trajectory
    assert (table["financial_writes"] + table["destructive_actions"]).sum() == 2


def test_episode_quota(steps):
    tasks, _ = recorded_tasks(steps.to_dict("records"))
    runner = ShadowRunner(
        get_policy("crm-efficient-v3"), ShadowQuota(max_episodes=3), user_model=DEMO_USER
    )
    with pytest.raises(ShadowQuotaExceeded, match="max_episodes=3"):
        runner.run(tasks)
    assert len(runner.episodes) == 3


# -- OpenAI-compatible adapter against a local stub --------------------------------------------


class _Stub(BaseHTTPRequestHandler):
    replies: list[dict] = []
    requests: list[dict] = []
    headers_seen: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        type(self).headers_seen.append(dict(self.headers))
        reply = type(self).replies.pop(0)
        status = reply.pop("_status", 200)
        data = json.dumps(reply).encode()
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


def _tool_call(name: str, args: dict, cid: str = "c1") -> dict:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }
    return {
        "choices": [{"message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3},
    }


def _text(text: str | None, reason: str = "stop") -> dict:
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": reason}]
    }


def test_openai_policy_maps_responses_to_actions(stub, monkeypatch):
    import random

    monkeypatch.setenv("STUB_KEY", "sk-test")
    policy = OpenAIChatPolicy(stub, "stub-model", api_key_env="STUB_KEY")
    _Stub.replies = [
        _tool_call("search_customer", {"email": "<EMAIL_1>"}),
        _text("All done!"),
        _tool_call("finish", {"reply": "Bye"}),
        _text(None),
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
    assert policy.usage["prompt_tokens"] == 20  # two tool-call responses carried usage


def test_openai_policy_errors_are_clear(stub):
    import random

    policy = OpenAIChatPolicy(stub, "m", api_key_env="NO_SUCH_KEY_VAR", max_retries=0)
    _Stub.replies = [{"_status": 400, "error": "bad"}]
    state = AgentState(Task("t", "x", "d", {}), {}, random.Random(0))
    with pytest.raises(OpenAIPolicyError, match="HTTP 400"):
        policy(state)
    assert "Authorization" not in _Stub.headers_seen[0]


def test_openai_candidate_in_shadow(stub, steps):
    tasks, _ = recorded_tasks(steps.to_dict("records"))
    task = next(t for t in tasks if t.task.task_type == "update_contact")
    goal = task.task.goal
    name, value = next(iter(goal["fields"].items()))
    _Stub.replies = [
        _tool_call("search_customer", {"email": task.task.slots["email"]}),
        _tool_call("update_crm", {"id": goal["customer_id"], "fields": {name: value}}),
        _text("Your details are updated."),
        _tool_call("finish", {}),
    ]
    runner = ShadowRunner(
        OpenAIChatPolicy(stub, "stub-model"), ShadowQuota(5, 5), user_model=DEMO_USER
    )
    runner.run([task])
    row = shadow_table(runner.episodes, runner.candidate_id).to_pandas().iloc[0]
    assert row["policy_id"] == "openai:stub-model"
    assert bool(row["success"]) and row["n_tool_calls"] == 2
    assert row["replay_status"] == "ok"


def test_shadow_takes_its_user_model_as_a_parameter_and_imports_no_demo(steps):
    """The library's shadow module imports neither the simulator nor the scripted policies: the
    user who answers the candidate comes in as a parameter, with its own takeover marker."""
    import ast
    from pathlib import Path

    import agentic_pipeline.shadow as shadow

    tree = ast.parse(Path(shadow.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.startswith("agentic_pipeline.demo") for m in imported)

    class Impatient:
        def __init__(self, customer, channel, rng):
            self.customer = customer

        def __call__(self, reply, env):
            return "Put me through to an OPERATOR now"

    tasks, _ = recorded_tasks(steps.to_dict("records"))

    def ask_first(state):  # the candidate replies first, then gives up
        return Action.respond("How can I help?") if not state.history else Action.finish()

    ask_first.policy_id = "ask-first"
    runner = ShadowRunner(ask_first, ShadowQuota(5, 5), user_model=UserModel(Impatient, "operator"))
    (episode,) = runner.run(tasks[:1])
    assert episode.record["outcome"]["human_takeover"] is True
    said = [m["content"] for m in episode.record["messages"] if m["role"] == "user"]
    assert said[-1] == "Put me through to an OPERATOR now"
