"""Scripted chat-completions endpoints for shadow tests (in process, or served on 127.0.0.1).

A stub stands in for the *candidate* only: the shadow, the hermetic answers and the tables under
test are the real ones. The real offline model is exercised in ``test_shadow_model.py``.
"""

import json
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from agentic_pipeline.chat import text_message, tool_call, tool_calls_message
from agentic_pipeline.environments.local_model import start_server


def calls(*named: tuple[str, dict]) -> dict[str, Any]:
    """A response calling tools ``(name, arguments)``."""
    message = tool_calls_message(
        *(tool_call(f"c{i}", name, json.dumps(args)) for i, (name, args) in enumerate(named))
    )
    return {"choices": [{"message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10}}  # fmt: skip


def reply(text: str | None) -> dict[str, Any]:
    """A response answering with text (``None``: an empty stop, read as finish)."""
    return {"choices": [{"message": text_message("assistant", text), "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5}}  # fmt: skip


class Scripted:
    """Answers each request with ``answer(payload, n)`` (``n``: 0-based request count) and keeps
    the request bodies."""

    def __init__(self, answer: Callable[[dict, int], dict]):
        self.answer = answer
        self.requests: list[dict] = []

    def create(self, payload: dict) -> dict:
        json.dumps(payload, allow_nan=False)  # a request body is strict JSON
        self.requests.append(payload)
        return self.answer(payload, len(self.requests) - 1)


@contextmanager
def served(endpoint: Any):
    """``endpoint`` behind an OpenAI-compatible HTTP server on 127.0.0.1; yields its URL."""
    server, url = start_server(endpoint)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
