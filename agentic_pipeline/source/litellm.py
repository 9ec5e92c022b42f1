"""A LiteLLM callback that masks what LiteLLM hands its loggers (Langfuse, OpenTelemetry, S3...).

``litellm.callbacks = [MaskingLiteLLMCallback()]``: LiteLLM calls ``logging_hook`` /
``async_logging_hook`` with the call's ``kwargs`` and ``result`` before its success callbacks log
them, and logs what the hook returns. The request's ``messages`` (and ``input``), the response's
choices (message text and tool-call arguments) and the same fields of the
``standard_logging_object`` are masked together as one record; the request sent to the model is
not changed. Only the hook's interface is used, so this module imports without LiteLLM; when
LiteLLM is installed the class is a ``CustomLogger``.
"""

from __future__ import annotations

import copy
from typing import Any

from agentic_pipeline.source.api import Cells, SourceMasker, chat_messages_cells, default_masker

try:  # a CustomLogger when LiteLLM is installed (its callback registry expects one)
    from litellm.integrations.custom_logger import CustomLogger as _Base
except ImportError:  # pragma: no cover - LiteLLM is not a dependency of the project
    _Base = object


class MaskingLiteLLMCallback(_Base):  # type: ignore[misc, valid-type]
    """Masks the logged request and response (see the module doc)."""

    def __init__(self, masker: SourceMasker | None = None) -> None:
        if _Base is not object:
            super().__init__()
        self.masker = masker

    def logging_hook(self, kwargs: dict, result: Any, call_type: str) -> tuple[dict, Any]:
        return mask_logged_call(kwargs, result, self.masker or default_masker())

    async def async_logging_hook(
        self, kwargs: dict, result: Any, call_type: str
    ) -> tuple[dict, Any]:
        return self.logging_hook(kwargs, result, call_type)


def mask_logged_call(kwargs: dict, result: Any, masker: SourceMasker) -> tuple[dict, Any]:
    """Masked copies of a LiteLLM call's logged ``kwargs`` and ``result`` (one record)."""
    kwargs = dict(kwargs)
    cells = Cells()
    for key in ("messages", "input"):
        value = kwargs.get(key)
        if isinstance(value, list):
            kwargs[key] = copy.deepcopy(value)
            chat_messages_cells(kwargs[key], f"$.{key}", cells)
        elif isinstance(value, str):
            cells.text(value, f"$.{key}", lambda s, k=key: kwargs.__setitem__(k, s))
    slo = kwargs.get("standard_logging_object")
    if isinstance(slo, dict):
        slo = kwargs["standard_logging_object"] = copy.deepcopy(slo)
        for key in ("messages", "response"):
            if key in slo:
                cells.value(slo[key], f"$.standard_logging_object.{key}", _put(slo, key))
    result = _response_cells(result, cells)
    masker.mask_cells(cells)
    return kwargs, result


def _put(container: Any, key: Any) -> Any:
    def put(value: Any) -> None:
        container[key] = value

    return put


def _response_cells(result: Any, cells: Cells) -> Any:
    """A masked copy of a chat completion response (a dict, or an object with ``choices`` such as
    LiteLLM's ``ModelResponse``): the message of each choice is read as a chat message."""
    if result is None:
        return None
    if hasattr(result, "model_copy"):
        result = result.model_copy(deep=True)
    else:
        result = copy.deepcopy(result)
    choices = (
        result.get("choices") if isinstance(result, dict) else getattr(result, "choices", None)
    )
    for i, choice in enumerate(choices or []):
        message = (
            choice.get("message") if isinstance(choice, dict) else getattr(choice, "message", None)
        )
        if isinstance(message, dict):
            chat_messages_cells([message], f"$.choices[{i}].message", cells)
        elif message is not None:
            _object_message_cells(message, f"$.choices[{i}].message", cells)
    return result


def _object_message_cells(message: Any, path: str, cells: Cells) -> None:
    if isinstance(getattr(message, "content", None), str):
        cells.text(message.content, f"{path}.content", lambda s: setattr(message, "content", s))
    for k, call in enumerate(getattr(message, "tool_calls", None) or []):
        fn = getattr(call, "function", None)
        if isinstance(getattr(fn, "arguments", None), str):
            where = f"{path}.tool_calls[{k}].function.arguments"
            cells.arguments(fn.arguments, where, lambda s, f=fn: setattr(f, "arguments", s))
