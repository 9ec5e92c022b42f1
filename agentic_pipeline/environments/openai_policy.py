"""A policy backed by an OpenAI-compatible chat-completions endpoint (stdlib ``urllib`` only).

:class:`OpenAIChatClient` POSTs one request body to an endpoint and returns the parsed response
(retrying 429 and 5xx); anything with the same ``create(payload) -> response`` method is a
:class:`ChatEndpoint` (the offline model of :mod:`~agentic_pipeline.environments.local_model` is
one, called in process). :class:`OpenAIChatPolicy` drives an endpoint as a closed-loop policy.

The agent state becomes chat messages (system prompt, the task description as the first user turn,
then each action and observation: tool calls with their results, replies with the user's answers).
The response maps to an :class:`~agentic_pipeline.environments.base.Action`: a tool call to a tool
action (further calls of the same response are queued for the next turns), a call of the ``finish``
function to finish, text to a reply, and an empty ``stop`` to finish. The API key is read from the
environment variable named by ``api_key_env`` at call time and never stored or logged.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentic_pipeline.chat import text_message, tool_exchange
from agentic_pipeline.environments.base import Action, AgentState, ToolSpec
from agentic_pipeline.environments.crm import CRM_TOOLS

FINISH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": "End the conversation, optionally with a closing message to the user.",
        "parameters": {
            "type": "object",
            "properties": {"reply": {"type": "string"}},
            "required": [],
        },
    },
}
DEFAULT_SYSTEM_PROMPT = (
    "You are a customer support agent with CRM tools. Use the tools to do exactly what the "
    "customer asks, confirm it to the customer, then call finish."
)


class OpenAIPolicyError(RuntimeError):
    """The endpoint failed or answered something that is not a chat completion."""


class ChatEndpoint(Protocol):
    """Anything that answers an OpenAI chat-completions request body with a response body."""

    def create(self, payload: dict[str, Any]) -> dict[str, Any]: ...


@dataclass
class OpenAIChatClient:
    """POSTs chat-completions requests to ``url`` (``.../v1/chat/completions``).

    The API key is read from the environment variable ``api_key_env`` at call time and never
    stored or logged. 429 and 5xx answers and network errors are retried ``max_retries`` times.
    """

    url: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0
    max_retries: int = 2

    def create(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The response body (a JSON object) for one request body."""
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    data = json.loads(response.read().decode("utf-8"))
                if not isinstance(data, dict):
                    raise OpenAIPolicyError("response is not a JSON object")
                return data
            except urllib.error.HTTPError as exc:
                last = OpenAIPolicyError(f"endpoint answered HTTP {exc.code}")
                if exc.code < 500 and exc.code != 429:
                    raise last from None
            except (urllib.error.URLError, TimeoutError, ValueError) as exc:
                last = OpenAIPolicyError(f"endpoint unreachable or invalid: {type(exc).__name__}")
            if attempt < self.max_retries:
                time.sleep(0.2 * 2**attempt)
        raise last or OpenAIPolicyError("no response")


def first_choice(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    """``(choices[0], usage)`` of a response body; usage holds the integer token counts given."""
    try:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
    except (KeyError, IndexError, TypeError, AttributeError):
        raise OpenAIPolicyError("response has no choices") from None
    if not isinstance(choice, dict):
        raise OpenAIPolicyError("response has no choices")
    counts = {
        k: int(usage[k])
        for k in ("prompt_tokens", "completion_tokens")
        if isinstance(usage, dict) and isinstance(usage.get(k), int)
    }
    return choice, counts


@dataclass
class OpenAIChatPolicy:
    """A :class:`~agentic_pipeline.environments.base.Policy` calling a chat-completions endpoint.

    ``url`` is the full endpoint (``.../v1/chat/completions``).
    """

    url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    tools: Mapping[str, ToolSpec] = field(default_factory=lambda: dict(CRM_TOOLS))
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    temperature: float = 0.0
    timeout_s: float = 60.0
    max_retries: int = 2
    policy_id: str = ""
    #: Answers the requests instead of an HTTP client for ``url`` (e.g. an in-process model).
    endpoint: ChatEndpoint | None = None
    #: Token usage summed over every request of this policy object.
    usage: dict[str, int] = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0}
    )

    def __post_init__(self) -> None:
        if not self.policy_id:
            self.policy_id = f"openai:{self.model}"

    # -- Policy ----------------------------------------------------------------------------------

    def __call__(self, state: AgentState) -> Action:
        queued: list[Action] = state.memo.setdefault("queued", [])
        if queued:
            return queued.pop(0)
        message = self.complete(self.messages(state))
        actions = self.to_actions(message)
        queued.extend(actions[1:])
        return actions[0]

    # -- request ---------------------------------------------------------------------------------

    def messages(self, state: AgentState) -> list[dict[str, Any]]:
        """The chat transcript for the current state."""
        out: list[dict[str, Any]] = [
            text_message("system", self.system_prompt),
            text_message("user", state.task.description),
        ]
        for i, (action, obs) in enumerate(state.history):
            if action.type == "tool":
                arguments = json.dumps(action.params, sort_keys=True)
                out += tool_exchange(f"call_{i}", action.tool_name, arguments, json.dumps(obs))
            elif action.type == "respond":
                out.append(text_message("assistant", action.reply or ""))
                out.append(text_message("user", str(obs.get("user_message", ""))))
        return out

    def payload(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The request body."""
        return {
            "model": self.model,
            "messages": messages,
            "tools": [spec.to_openai() for spec in self.tools.values()] + [FINISH_TOOL],
            "tool_choice": "auto",
            "temperature": self.temperature,
        }

    def complete(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """POST the chat and return ``choices[0]`` (``message`` and ``finish_reason``)."""
        client = self.endpoint or OpenAIChatClient(
            self.url, self.api_key_env, self.timeout_s, self.max_retries
        )
        choice, usage = first_choice(client.create(self.payload(messages)))
        for k, v in usage.items():
            self.usage[k] += v
        return choice

    # -- response --------------------------------------------------------------------------------

    @staticmethod
    def to_actions(choice: Mapping[str, Any]) -> list[Action]:
        """Actions for one completion choice (at least one)."""
        message = choice.get("message") or {}
        content = message.get("content")
        text = content.strip() if isinstance(content, str) else ""
        actions: list[Action] = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            name = function.get("name")
            if not name:
                continue
            try:
                params = json.loads(function.get("arguments") or "{}")
            except ValueError:
                params = None
            if not isinstance(params, dict):  # the environment answers the missing parameters
                params = {}
            if name == "finish":
                reply = params.get("reply")
                actions.append(Action.finish(str(reply) if reply else (text or None)))
                return actions
            actions.append(Action("tool", tool_name=str(name), params=params))
        if actions:
            return actions
        if text:
            return [Action.respond(text)]
        return [Action.finish()]
