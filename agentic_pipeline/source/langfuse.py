"""A ``mask=`` callable for the Langfuse SDK: ``Langfuse(mask=langfuse_mask())``.

Langfuse calls it synchronously with ``data=`` for each observation's ``input``, ``output`` and
``metadata`` before they become span attributes, so what leaves the process is masked. A chat
message list is masked as messages, anything else as a tool result (JSON walked, text analysed);
each call is one record (values found in ``input`` are not known while masking ``output``).
Spans that other OpenTelemetry instrumentations send through Langfuse are not passed to ``mask``:
wrap their exporter's processor with ``otel.MaskingSpanProcessor`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentic_pipeline.source.api import SourceMasker, default_masker


def langfuse_mask(masker: SourceMasker | None = None) -> Callable[..., Any]:
    """The ``mask`` argument of ``Langfuse(...)``, masking with ``masker`` (default: the
    process's masker under the deployment's key)."""

    def mask(*, data: Any, **_: Any) -> Any:
        return (masker or default_masker()).mask_value(data).value

    return mask
