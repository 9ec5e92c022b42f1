"""The demo CRM sandbox: an in-memory customer store with the demo tools.

State is three plain dicts (JSON-serialisable, flat records):

- ``customers``: ``customer_id -> {"customer_id", "first_name", "last_name", "email", "phone",
  "address", "dob", "card_number", "tier", "credit_limit", "balance"}``
- ``cases``: ``case_id -> {"case_id", "customer_id", "subject", "status": "open"|"closed"}``
- ``tickets``: ``ticket_id -> {"ticket_id", "customer_id", "kind", "summary", "amount"}``

Tool errors are observations (``{"error": "customer not found"}``), never exceptions, so that a
logged episode can be re-applied to a sandbox copy (:meth:`CRMSandbox.from_state`) and the goal
checked with the pure function :func:`evaluate_goal`.

The tools' risk (which calls are financial or destructive) is not decided here: the product reads
it from the tool catalogue (``agentic_pipeline.risk``); the demo keeps its own oracle
(``agentic_pipeline.demo.truth``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agentic_pipeline.environments.base import Action, Environment, StepResult, Task, ToolSpec

TASK_TYPES: tuple[str, ...] = ("update_contact", "refund_request", "address_change", "close_case")

#: Fields ``update_crm`` may write (every customer field except its id).
CUSTOMER_FIELDS: tuple[str, ...] = (
    "first_name",
    "last_name",
    "email",
    "phone",
    "address",
    "dob",
    "card_number",
    "tier",
    "credit_limit",
    "balance",
)
_AMOUNT_TOLERANCE = 0.005


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


CRM_TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "search_customer",
            "read",
            "Find a customer by email address; returns the customer record.",
            _obj({"email": {"type": "string"}}, ["email"]),
        ),
        ToolSpec(
            "get_customer",
            "read",
            "Get a customer record and the customer's cases by customer id.",
            _obj({"id": {"type": "string"}}, ["id"]),
        ),
        ToolSpec(
            "update_crm",
            "write",
            "Update fields of a customer record.",
            _obj({"id": {"type": "string"}, "fields": {"type": "object"}}, ["id", "fields"]),
        ),
        ToolSpec(
            "delete_customer",
            "write",
            "Delete a customer record.",
            _obj({"id": {"type": "string"}}, ["id"]),
        ),
        ToolSpec(
            "create_ticket",
            "write",
            "Open a ticket (e.g. kind='refund' with an amount) for a customer.",
            _obj(
                {
                    "customer_id": {"type": "string"},
                    "kind": {"type": "string"},
                    "summary": {"type": "string"},
                    "amount": {"type": "number"},
                },
                ["customer_id", "kind", "summary"],
            ),
        ),
        ToolSpec(
            "close_case",
            "write",
            "Close an open support case by case id.",
            _obj({"id": {"type": "string"}}, ["id"]),
        ),
    )
}


def evaluate_goal(task_type: str, goal: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """Whether ``goal`` holds in ``state`` (``{"customers", "cases", "tickets"}``). Pure.

    Goals (every goal also requires that the customer still exists: nobody asked to delete it):

    - ``update_contact`` / ``address_change``: ``{"customer_id", "fields": {name: value}}``, every
      field equals its value;
    - ``refund_request``: ``{"customer_id", "ticket": {"kind": "refund", "amount": x}}``, a
      ticket of that kind and amount exists for the customer;
    - ``close_case``: ``{"customer_id", "case_id"}``, the case is closed.
    """
    customers = state.get("customers") or {}
    customer = customers.get(goal.get("customer_id"))
    if customer is None:
        return False
    if task_type in ("update_contact", "address_change"):
        fields = goal.get("fields") or {}
        return bool(fields) and all(customer.get(k) == v for k, v in fields.items())
    if task_type == "refund_request":
        want = goal.get("ticket") or {}
        kind, amount = want.get("kind", "refund"), want.get("amount")
        for ticket in (state.get("tickets") or {}).values():
            if ticket.get("customer_id") != customer["customer_id"] or ticket.get("kind") != kind:
                continue
            got = ticket.get("amount")
            if amount is None:
                return True
            if isinstance(got, (int, float)) and abs(got - float(amount)) < _AMOUNT_TOLERANCE:
                return True
        return False
    if task_type == "close_case":
        case = (state.get("cases") or {}).get(goal.get("case_id"))
        return case is not None and case.get("status") == "closed"
    raise ValueError(f"unknown task type: {task_type!r}")


def goal_met(task: Task, state: Mapping[str, Any]) -> bool:
    """:func:`evaluate_goal` for a :class:`Task`."""
    return evaluate_goal(task.task_type, task.goal, state)


def _copy(records: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Copy a table of flat records (records hold only scalars)."""
    return {k: dict(v) for k, v in (records or {}).items()}


UserFn = Callable[[str, "CRMSandbox"], str]


class CRMSandbox(Environment):
    """In-memory CRM with the demo tools.

    ``user`` (optional) answers the agent's replies: it is called with the reply text and the
    sandbox and returns the user's message; without it a ``respond`` observes an empty message.
    """

    tools = CRM_TOOLS

    def __init__(
        self,
        customers: Mapping[str, Mapping[str, Any]] | None = None,
        cases: Mapping[str, Mapping[str, Any]] | None = None,
        tickets: Mapping[str, Mapping[str, Any]] | None = None,
        user: UserFn | None = None,
    ) -> None:
        self.customers: dict[str, dict[str, Any]] = _copy(customers)
        self.cases: dict[str, dict[str, Any]] = _copy(cases)
        self.tickets: dict[str, dict[str, Any]] = _copy(tickets)
        self.user = user
        self.task: Task | None = None
        self.done = False

    @classmethod
    def from_state(
        cls,
        customers: Mapping[str, Mapping[str, Any]] | None = None,
        cases: Mapping[str, Mapping[str, Any]] | None = None,
        tickets: Mapping[str, Mapping[str, Any]] | None = None,
        user: UserFn | None = None,
    ) -> CRMSandbox:
        """A sandbox holding copies of the given records (the inputs are never mutated)."""
        return cls(customers, cases, tickets, user=user)

    def state(self) -> dict[str, dict[str, dict[str, Any]]]:
        """A copy of the full state: ``{"customers", "cases", "tickets"}``."""
        return {
            "customers": _copy(self.customers),
            "cases": _copy(self.cases),
            "tickets": _copy(self.tickets),
        }

    def copy(self) -> CRMSandbox:
        """An independent copy (same task, same user hook)."""
        other = CRMSandbox(self.customers, self.cases, self.tickets, user=self.user)
        other.task, other.done = self.task, self.done
        return other

    # -- Environment -----------------------------------------------------------------------------

    def reset(self, task: Task) -> dict[str, Any]:
        """Start ``task``; the first observation is the user's request."""
        self.task, self.done = task, False
        return {"user_message": task.description}

    def step(self, action: Action) -> StepResult:
        """Apply one action. ``finish`` ends the episode with reward 1.0 iff the goal is met."""
        if self.done:
            return StepResult({"error": "episode already finished"}, 0.0, True, {"ignored": True})
        if action.type == "tool":
            obs = self.call_tool(action.tool_name or "", action.params)
            info = {"kind": self.tool_kind(action.tool_name or ""), "error": "error" in obs}
            return StepResult(obs, 0.0, False, info)
        if action.type == "respond":
            reply = action.reply or ""
            message = self.user(reply, self) if self.user is not None else ""
            return StepResult({"user_message": message}, 0.0, False, {})
        self.done = True
        met = self.goal_met()
        return StepResult({}, 1.0 if met else 0.0, True, {"goal_met": met})

    def goal_met(self) -> bool:
        """Whether the current task's goal holds in the current state."""
        if self.task is None:
            return False
        return evaluate_goal(self.task.task_type, self.task.goal, self.state_view())

    def state_view(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The live state (no copy) for read-only use."""
        return {"customers": self.customers, "cases": self.cases, "tickets": self.tickets}

    # -- tools -----------------------------------------------------------------------------------

    def call_tool(self, name: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run tool ``name``; errors come back as ``{"error": ...}``."""
        handler = getattr(self, f"_tool_{name}", None)
        if name not in self.tools or handler is None:
            return {"error": f"unknown tool: {name}"}
        params = dict(params or {})
        for req in self.tools[name].parameters.get("required", []):
            if req not in params or params[req] in (None, ""):
                return {"error": f"missing parameter: {req}"}
        return handler(params)

    def _customer(self, cid: Any) -> dict[str, Any] | None:
        return self.customers.get(cid) if isinstance(cid, str) else None

    def _tool_search_customer(self, p: dict[str, Any]) -> dict[str, Any]:
        email = str(p["email"]).strip().lower()
        for record in self.customers.values():
            if str(record.get("email", "")).lower() == email:
                return {"customer": dict(record)}
        return {"error": "customer not found"}

    def _tool_get_customer(self, p: dict[str, Any]) -> dict[str, Any]:
        record = self._customer(p["id"])
        if record is None:
            return {"error": "customer not found"}
        cid = record["customer_id"]
        cases = [dict(c) for c in self.cases.values() if c.get("customer_id") == cid]
        return {"customer": dict(record), "cases": cases}

    def _tool_update_crm(self, p: dict[str, Any]) -> dict[str, Any]:
        record = self._customer(p["id"])
        if record is None:
            return {"error": "customer not found"}
        fields = p["fields"]
        if not isinstance(fields, Mapping) or not fields:
            return {"error": "fields must be a non-empty object"}
        unknown = sorted(k for k in fields if k not in CUSTOMER_FIELDS)
        if unknown:
            return {"error": f"unknown field: {', '.join(unknown)}"}
        record.update(fields)
        return {"ok": True, "customer": dict(record)}

    def _tool_delete_customer(self, p: dict[str, Any]) -> dict[str, Any]:
        if self._customer(p["id"]) is None:
            return {"error": "customer not found"}
        del self.customers[p["id"]]
        return {"ok": True, "deleted": p["id"]}

    def _tool_create_ticket(self, p: dict[str, Any]) -> dict[str, Any]:
        if self._customer(p["customer_id"]) is None:
            return {"error": "customer not found"}
        amount = p.get("amount")
        if amount is not None and (not isinstance(amount, (int, float)) or amount < 0):
            return {"error": "amount must be a non-negative number"}
        ticket_id = f"tkt_{len(self.tickets) + 1:05d}"
        while ticket_id in self.tickets:
            ticket_id += "x"
        ticket = {
            "ticket_id": ticket_id,
            "customer_id": p["customer_id"],
            "kind": str(p["kind"]),
            "summary": str(p["summary"]),
            "amount": amount,
            "status": "open",
        }
        self.tickets[ticket_id] = ticket
        return {"ok": True, "ticket": dict(ticket)}

    def _tool_close_case(self, p: dict[str, Any]) -> dict[str, Any]:
        case = self.cases.get(p["id"]) if isinstance(p["id"], str) else None
        if case is None:
            return {"error": "case not found"}
        if case.get("status") == "closed":
            return {"error": "case already closed"}
        case["status"] = "closed"
        return {"ok": True, "case": dict(case)}
