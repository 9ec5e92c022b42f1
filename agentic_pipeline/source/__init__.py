"""Mask at the source: the pipeline's masking, with the same keyed tokens, in the agent's process.

- ``api``: one record (chat messages, tool arguments, a tool result, text) -> masked value + audit;
- ``otel``: an OpenTelemetry ``SpanProcessor`` that masks GenAI attributes before any exporter;
- ``langfuse``: a ``mask=`` callable for the Langfuse SDK;
- ``litellm``: a LiteLLM callback that masks what LiteLLM logs.

Importing this package is cheap (no Presidio, spaCy or Dagster): the masking package is imported
on the first record and the spaCy model loaded once per process. See ``docs/mask-at-source.md``.
"""

from agentic_pipeline.source.api import (
    Cells,
    Finding,
    Masked,
    SourceMasker,
    default_masker,
    mask_messages,
    mask_text,
    mask_tool_arguments,
    mask_tool_result,
)

__all__ = [
    "Cells",
    "Finding",
    "Masked",
    "SourceMasker",
    "default_masker",
    "mask_messages",
    "mask_text",
    "mask_tool_arguments",
    "mask_tool_result",
]
