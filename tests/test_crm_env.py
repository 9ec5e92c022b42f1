"""The CRM sandbox: tools, errors as observations, goal predicates, copying."""

from __future__ import annotations

import copy

import pytest

from agentic_pipeline.demo.truth import is_destructive, is_financial_write
from agentic_pipeline.environments import (
    CRM_TOOLS,
    Action,
    CRMSandbox,
    Task,
    evaluate_goal,
    goal_met,
)

CID = "cus_0000abcd"


def _state() -> dict:
    return {
        "customers": {
            CID: {
                "customer_id": CID,
                "first_name": "Ada",
                "last_name": "Lovelace",
                "email": "ada@example.com",
                "phone": "555-0100",
                "address": "1 Main St, Springfield, IL 57230",
                "dob": "1990-01-02",
                "card_number": "4111111111111111",
                "tier": "gold",
                "credit_limit": 10000,
                "balance": 12.5,
            }
        },
        "cases": {
            "case_000001": {
                "case_id": "case_000001",
                "customer_id": CID,
                "subject": "x",
                "status": "open",
            },
            "case_000002": {
                "case_id": "case_000002",
                "customer_id": CID,
                "subject": "y",
                "status": "closed",
            },
        },
        "tickets": {},
    }


def _env() -> CRMSandbox:
    return CRMSandbox.from_state(**_state())


def test_tool_registry_matches_design() -> None:
    assert set(CRM_TOOLS) == {
        "search_customer",
        "get_customer",
        "update_crm",
        "delete_customer",
        "create_ticket",
        "close_case",
    }
    kinds = {name: spec.kind for name, spec in CRM_TOOLS.items()}
    assert kinds["search_customer"] == kinds["get_customer"] == "read"
    assert {k for k, v in kinds.items() if v == "write"} == {
        "update_crm",
        "delete_customer",
        "create_ticket",
        "close_case",
    }
    for spec in CRM_TOOLS.values():
        assert spec.parameters["type"] == "object"
        assert spec.to_openai()["function"]["name"] == spec.name


def test_read_tools_return_full_record() -> None:
    env = _env()
    found = env.call_tool("search_customer", {"email": "ADA@example.com"})
    assert found["customer"]["card_number"] == "4111111111111111"
    got = env.call_tool("get_customer", {"id": CID})
    assert got["customer"]["address"].startswith("1 Main St")
    assert {c["case_id"] for c in got["cases"]} == {"case_000001", "case_000002"}


@pytest.mark.parametrize(
    ("tool", "params", "error"),
    [
        ("search_customer", {"email": "nobody@example.com"}, "customer not found"),
        ("get_customer", {"id": "cus_missing"}, "customer not found"),
        ("get_customer", {}, "missing parameter: id"),
        ("update_crm", {"id": CID, "fields": {"shoe_size": 9}}, "unknown field: shoe_size"),
        ("update_crm", {"id": CID, "fields": {}}, "fields must be a non-empty object"),
        ("delete_customer", {"id": "cus_missing"}, "customer not found"),
        (
            "create_ticket",
            {"customer_id": CID, "kind": "refund", "summary": "s", "amount": -1},
            "amount must be a non-negative number",
        ),
        ("close_case", {"id": "case_000002"}, "case already closed"),
        ("close_case", {"id": "case_nope"}, "case not found"),
        ("transfer_money", {}, "unknown tool: transfer_money"),
    ],
)
def test_errors_are_observations(tool: str, params: dict, error: str) -> None:
    env = _env()
    before = env.state()
    result = env.step(Action.tool(tool, **params))
    assert result.observation == {"error": error}
    assert result.info["error"] is True and not result.done
    assert env.state() == before


def test_writes_change_state() -> None:
    env = _env()
    out = env.call_tool("update_crm", {"id": CID, "fields": {"email": "new@example.com"}})
    assert out["ok"] and out["customer"]["email"] == "new@example.com"
    ticket = env.call_tool(
        "create_ticket",
        {"customer_id": CID, "kind": "refund", "summary": "double charge", "amount": 9.99},
    )
    assert ticket["ticket"]["ticket_id"] in env.tickets
    assert env.call_tool("close_case", {"id": "case_000001"})["case"]["status"] == "closed"
    assert env.call_tool("delete_customer", {"id": CID}) == {"ok": True, "deleted": CID}
    assert CID not in env.customers


def test_goal_predicates() -> None:
    s = _state()
    upd = {"customer_id": CID, "fields": {"email": "new@example.com"}}
    assert not evaluate_goal("update_contact", upd, s)
    s["customers"][CID]["email"] = "new@example.com"
    assert evaluate_goal("update_contact", upd, s)
    assert evaluate_goal(
        "address_change",
        {"customer_id": CID, "fields": {"address": "1 Main St, Springfield, IL 57230"}},
        s,
    )

    refund = {"customer_id": CID, "ticket": {"kind": "refund", "amount": 42.17}}
    assert not evaluate_goal("refund_request", refund, s)
    s["tickets"]["t1"] = {"ticket_id": "t1", "customer_id": CID, "kind": "refund", "amount": 42.0}
    assert not evaluate_goal("refund_request", refund, s)  # wrong amount
    s["tickets"]["t2"] = {"ticket_id": "t2", "customer_id": CID, "kind": "refund", "amount": 42.17}
    assert evaluate_goal("refund_request", refund, s)

    close = {"customer_id": CID, "case_id": "case_000001"}
    assert not evaluate_goal("close_case", close, s)
    s["cases"]["case_000001"]["status"] = "closed"
    assert evaluate_goal("close_case", close, s)

    frozen = copy.deepcopy(s)
    del s["customers"][CID]  # a deleted customer fails every goal
    assert not any(
        evaluate_goal(tt, g, s)
        for tt, g in [("update_contact", upd), ("refund_request", refund), ("close_case", close)]
    )
    evaluate_goal("close_case", close, frozen)
    with pytest.raises(ValueError):
        evaluate_goal("teleport", close, frozen)


def test_from_state_copies_and_copy_is_independent() -> None:
    s = _state()
    env = CRMSandbox.from_state(**s)
    env.call_tool("update_crm", {"id": CID, "fields": {"phone": "555-9999"}})
    assert s["customers"][CID]["phone"] == "555-0100"
    twin = env.copy()
    twin.call_tool("delete_customer", {"id": CID})
    assert CID in env.customers and CID not in twin.customers


def test_episode_loop_reward_and_user_hook() -> None:
    env = _env()
    env.user = lambda reply, sandbox: f"echo: {reply}"
    task = Task(
        "t",
        "close_case",
        "please close case_000001",
        {"customer_id": CID, "case_id": "case_000001"},
    )
    assert env.reset(task) == {"user_message": "please close case_000001"}
    assert env.step(Action.respond("hi")).observation == {"user_message": "echo: hi"}
    env.step(Action.tool("close_case", id="case_000001"))
    assert goal_met(task, env.state())
    end = env.step(Action.finish())
    assert end.done and end.reward == 1.0 and end.info["goal_met"]
    assert env.step(Action.finish()).info["ignored"]

    env2 = _env()
    env2.reset(task)
    miss = env2.step(Action.finish())
    assert miss.done and miss.reward == 0.0


def test_action_roundtrip_and_validation() -> None:
    a = Action.tool("update_crm", id=CID, fields={"email": "x@y.z"})
    assert a.to_dict() == {
        "type": "tool",
        "tool_name": "update_crm",
        "params": {"id": CID, "fields": {"email": "x@y.z"}},
    }
    assert Action.from_dict(a.to_dict()) == a
    assert Action.respond("hello").to_dict() == {"type": "respond", "reply": "hello"}
    assert Action.finish().to_dict() == {"type": "finish"}
    with pytest.raises(ValueError):
        Action("jump")
    with pytest.raises(ValueError):
        Action("tool")


def test_risk_rules() -> None:
    assert is_financial_write("update_crm", {"id": CID, "fields": {"credit_limit": 1}})
    assert is_financial_write("update_crm", {"fields": {"email": "a", "card_number": "4"}})
    assert not is_financial_write("update_crm", {"fields": {"email": "a"}})
    assert not is_financial_write("create_ticket", {"fields": {"balance": 1}})
    assert is_destructive("delete_customer") and is_destructive("remove_card")
    assert not is_destructive("close_case") and not is_destructive(None)


def test_catalogue_tool_specs_give_the_sandbox_kinds() -> None:
    """Replay reads a tool's kind from the catalogue's ``crm`` tool set (no import of the sandbox
    from the catalogue): every sandbox tool is listed there with the sandbox's read/write kind."""
    from agentic_pipeline.catalogue import builtin_catalogue

    specs = builtin_catalogue().get("crm").tool_specs()
    assert {n: s.kind for n, s in specs.items()} == {n: s.kind for n, s in CRM_TOOLS.items()}
