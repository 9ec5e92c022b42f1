"""An OpenTelemetry ``SpanProcessor`` that masks GenAI attributes before any exporter sees them.

Usage: wrap the exporter's processor, and register only the wrapper::

    provider.add_span_processor(MaskingSpanProcessor(BatchSpanProcessor(exporter)))

Why wrapping: an SDK span is read-only once ended (``ReadableSpan.attributes`` is a
``MappingProxyType`` of an immutable ``BoundedAttributes``), and the SDK hands the *same* ended
span to every registered processor in turn, so a processor registered beside the exporter's cannot
change what the exporter gets. (The SDK's ``_on_ending`` hook, called while the span is still
writable, is private and experimental.) ``on_end`` therefore builds a new ``ReadableSpan`` with
masked attributes and events (the same name, context, parent, kind, links, times, resource and
scope; the dropped-attribute and dropped-event counts kept) and passes that one, and only that
one, to the wrapped processor. Processors registered directly on the provider still see the raw
span: register nothing there that exports.

What is masked (``GENAI_ATTRIBUTES``, on spans and on span events): ``gen_ai.input.messages`` and
``gen_ai.output.messages`` (text parts, tool-call arguments, tool-call responses and participant
names; roles, ids, tool names and finish reasons are kept), ``gen_ai.system_instructions``,
``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``, the older ``gen_ai.prompt`` /
``gen_ai.completion`` attributes, ``exception.message``, the span's status description, and any
attribute named in ``extra_attributes`` (an ``fnmatch`` pattern: ``"input.value"``,
``"llm.input_messages.*.message.content"``). A value that is not the JSON the convention expects is
masked as text (JSON text inside it is still walked); every other attribute is kept.

Per trace: with ``per_trace=True`` (default) the spans of a trace wait until its local root span
ends and are then masked together, as the one episode the pipeline makes of the trace, so a
value found anywhere in the trace (a customer record returned by a tool) is masked wherever the
trace repeats it, exactly as downstream. A trace is also masked, with what it holds so far, when
it reaches ``max_trace_spans``, when it has waited ``max_trace_seconds``, when more than
``max_buffered_spans`` wait in all, and on ``force_flush`` and ``shutdown``; a span of a trace
already masked is masked alone. ``per_trace=False`` masks each span alone at its end.

Failures never reach the application and never let a raw value through: if masking a batch
raises, every attribute it would mask is replaced by ``<WITHHELD>`` and the exception's type (never
its message) is logged.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.attributes import BoundedAttributes
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.util import BoundedList
from opentelemetry.trace import Status

from agentic_pipeline.source.api import (
    Cells,
    Finding,
    SourceMasker,
    _setter,
    chat_message_cells,
)

logger = logging.getLogger(__name__)

#: How each attribute's value is read: ``messages`` (GenAI message list), ``parts`` (a list of
#: parts, or text), ``arguments`` (tool-call arguments), ``value`` (JSON or text).
GENAI_ATTRIBUTES: dict[str, str] = {
    "gen_ai.input.messages": "messages",
    "gen_ai.output.messages": "messages",
    "gen_ai.system_instructions": "parts",
    "gen_ai.tool.call.arguments": "arguments",
    "gen_ai.tool.call.result": "value",
    "gen_ai.prompt": "value",
    "gen_ai.completion": "value",
    "exception.message": "value",
}
#: Set on a masked span that had replacements: their number (no value, no type).
REPLACEMENTS_ATTRIBUTE = "agentic_pipeline.masking.replacements"
#: Set on a span whose trace the final scan withheld: the reason (counts, never a value).
WITHHELD_ATTRIBUTE = "agentic_pipeline.masking.withheld"
#: What replaces a maskable attribute when masking itself failed.
FAILED_VALUE = "<WITHHELD>"


@dataclass
class _Pending:
    started: float
    spans: list[ReadableSpan] = field(default_factory=list)


@dataclass
class _SpanEdit:
    """The masked copies of one span's attributes, events and status, filled in by ``Cells``."""

    span: ReadableSpan
    attributes: dict[str, Any]
    events: list[dict[str, Any]]
    status_description: str | None
    findings: list[Finding] = field(default_factory=list)


class MaskingSpanProcessor(SpanProcessor):
    """Masks GenAI attributes of ended spans, then hands the masked spans to ``processor`` (the
    exporter's ``BatchSpanProcessor`` or ``SimpleSpanProcessor``). See the module doc."""

    def __init__(
        self,
        processor: SpanProcessor,
        masker: SourceMasker | None = None,
        *,
        extra_attributes: Iterable[str] = (),
        attributes: Mapping[str, str] | None = None,
        per_trace: bool = True,
        max_trace_spans: int = 512,
        max_buffered_spans: int = 8192,
        max_trace_seconds: float = 120.0,
        on_audit: Callable[[ReadableSpan, list[Finding]], None] | None = None,
    ) -> None:
        self.processor = processor
        self.masker = masker or SourceMasker()
        self.kinds = dict(GENAI_ATTRIBUTES if attributes is None else attributes)
        self.patterns = tuple(extra_attributes)
        self.per_trace = per_trace
        self.max_trace_spans = max(1, max_trace_spans)
        self.max_buffered_spans = max(1, max_buffered_spans)
        self.max_trace_seconds = max_trace_seconds
        self.on_audit = on_audit
        self._lock = threading.Lock()
        self._pending: OrderedDict[int, _Pending] = OrderedDict()
        self._buffered = 0
        self._done: OrderedDict[int, None] = OrderedDict()  # traces already masked (bounded)

    # --- SpanProcessor ---------------------------------------------------------------------

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.processor.on_start(span, parent_context=parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        if not self.per_trace:
            self._emit([span])
            return
        ready: list[list[ReadableSpan]] = []
        with self._lock:
            trace_id = span.context.trace_id if span.context else 0
            if trace_id in self._done:
                ready.append([span])
            else:
                pending = self._pending.setdefault(trace_id, _Pending(time.monotonic()))
                pending.spans.append(span)
                self._buffered += 1
                root = span.parent is None or span.parent.is_remote
                if root or len(pending.spans) >= self.max_trace_spans:
                    ready.append(self._pop(trace_id, finished=root))
                ready.extend(self._expired())
        for spans in ready:
            self._emit(spans)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        self._flush_pending()
        return self.processor.force_flush(timeout_millis)

    def shutdown(self) -> None:
        self._flush_pending()
        self.processor.shutdown()

    # --- buffering ---------------------------------------------------------------------------

    def _pop(self, trace_id: int, finished: bool = False) -> list[ReadableSpan]:
        pending = self._pending.pop(trace_id)
        self._buffered -= len(pending.spans)
        if finished:
            self._done[trace_id] = None
            while len(self._done) > 10_000:
                self._done.popitem(last=False)
        return pending.spans

    def _expired(self) -> list[list[ReadableSpan]]:
        now = time.monotonic()
        out = [
            self._pop(t)
            for t, p in list(self._pending.items())
            if now - p.started > self.max_trace_seconds
        ]
        while self._buffered > self.max_buffered_spans and self._pending:
            out.append(self._pop(next(iter(self._pending))))
        return out

    def _flush_pending(self) -> None:
        with self._lock:
            ready = [self._pop(t) for t in list(self._pending)]
        for spans in ready:
            self._emit(spans)

    # --- masking -----------------------------------------------------------------------------

    def _emit(self, spans: list[ReadableSpan]) -> None:
        for masked in self.mask_spans(spans):
            self.processor.on_end(masked)

    def mask_spans(self, spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
        """Masked copies of ``spans``, masked together as one episode (never raises)."""
        edits = [self._edit(s) for s in spans]
        cells = Cells()
        try:
            for i, e in enumerate(edits):
                self._collect(e, i, cells)
            findings, withheld = self.masker.mask_cells(cells)
        except Exception as exc:  # noqa: BLE001 - telemetry must never fail the application
            logger.error(
                "masking spans failed (%s): their GenAI attributes are withheld", type(exc).__name__
            )
            return [self._rebuild(e, failed=True) for e in edits]
        by_span: dict[int, list[Finding]] = {}
        for f in findings:
            by_span.setdefault(int(f.path.split("/", 1)[0]), []).append(f)
        out = []
        for i, e in enumerate(edits):
            e.findings = by_span.get(i, [])
            out.append(self._rebuild(e, withheld=withheld))
            if self.on_audit is not None and e.findings:
                self.on_audit(out[-1], e.findings)
        return out

    def kind(self, name: str) -> str | None:
        """How attribute ``name`` is masked (``None``: kept)."""
        kind = self.kinds.get(name)
        if kind is None and any(fnmatch.fnmatchcase(name, p) for p in self.patterns):
            return "value"
        return kind

    def _edit(self, span: ReadableSpan) -> _SpanEdit:
        status = span.status.description if span.status is not None else None
        return _SpanEdit(
            span,
            dict(span.attributes or {}),
            [dict(ev.attributes or {}) for ev in span.events],
            status,
        )

    def _collect(self, e: _SpanEdit, position: int, cells: Cells) -> None:
        prefix = f"{position}/"  # a finding's path starts with its span's position in the batch
        for name, value in list(e.attributes.items()):
            kind = self.kind(name)
            if kind is not None:
                attribute_cells(kind, value, f"{prefix}{name}", e.attributes, name, cells)
        for j, attrs in enumerate(e.events):
            for name, value in list(attrs.items()):
                kind = self.kind(name)
                if kind is not None:
                    where = f"{prefix}events[{j}].{name}"
                    attribute_cells(kind, value, where, attrs, name, cells)
        if e.status_description:
            cells.text(e.status_description, f"{prefix}status", lambda s: _set_status(e, s))

    def _rebuild(self, e: _SpanEdit, withheld: str | None = None, failed: bool = False) -> Any:
        span = e.span
        attributes, events, status = e.attributes, e.events, e.status_description
        if failed:
            attributes = {k: FAILED_VALUE if self.kind(k) else v for k, v in attributes.items()}
            events = [
                {k: FAILED_VALUE if self.kind(k) else v for k, v in a.items()} for a in events
            ]
            status = FAILED_VALUE if status else status
        if e.findings:
            attributes[REPLACEMENTS_ATTRIBUTE] = len(e.findings)
        if withheld:
            attributes[WITHHELD_ATTRIBUTE] = withheld
        bounded = BoundedAttributes(attributes=attributes, immutable=True)
        bounded.dropped = span.dropped_attributes
        new_events: BoundedList = BoundedList(None)
        new_events.extend(
            Event(ev.name, BoundedAttributes(attributes=a, immutable=True), ev.timestamp)
            for ev, a in zip(span.events, events, strict=True)
        )
        new_events.dropped = span.dropped_events
        st = span.status
        if st is not None and status != st.description:
            st = Status(st.status_code, status)
        return ReadableSpan(
            name=span.name,
            context=span.context,
            parent=span.parent,
            resource=span.resource,
            attributes=bounded,
            events=new_events,
            links=span.links,
            kind=span.kind,
            status=st,
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )


def _set_status(e: _SpanEdit, text: str) -> None:
    e.status_description = text


def attribute_cells(
    kind: str, value: Any, path: str, attrs: dict[str, Any], name: str, cells: Cells
) -> None:
    """Queue the strings of one attribute value; each masked string is written back into
    ``attrs[name]`` (JSON attributes are re-encoded only when something in them changed)."""
    if isinstance(value, list | tuple):
        items = list(value)

        def put_item(i: int) -> Callable[[Any], None]:
            def put(v: Any) -> None:
                items[i] = v
                attrs[name] = tuple(items)

            return put

        for i, item in enumerate(items):
            if isinstance(item, str):
                cells.text(item, f"{path}[{i}]", put_item(i))
        return
    if not isinstance(value, str):
        return  # numbers and booleans are kept
    if kind == "arguments":
        cells.arguments(value, path, lambda s: attrs.__setitem__(name, s))
        return
    doc = _json_or_none(value) if kind in ("messages", "parts") else None
    if kind == "messages" and isinstance(doc, list):
        _json_cells(doc, path, attrs, name, cells, genai_message_cells)
    elif kind == "parts" and isinstance(doc, list):
        _json_cells(doc, path, attrs, name, cells, genai_part_cells)
    else:  # text, JSON the convention does not describe, or JSON that does not parse
        cells.text(value, path, lambda s: attrs.__setitem__(name, s))


def _json_cells(
    doc: list[Any],
    path: str,
    attrs: dict[str, Any],
    name: str,
    cells: Cells,
    collect: Callable[[list[Any], str, Cells], None],
) -> None:
    """Queue the strings of a parsed JSON attribute; a masked string re-encodes the document."""
    inner = Cells()
    collect(doc, path, inner)
    for c in inner.items:

        def put(s: str, put_one: Callable[[str], None] = c.put) -> None:
            put_one(s)
            attrs[name] = json.dumps(doc, ensure_ascii=False)

        cells.items.append(type(c)(c.text, c.column, c.path, put, c.structured))


def genai_message_cells(messages: list[Any], path: str, cells: Cells) -> None:
    """Strings of a GenAI semantic-convention message list (``role``, ``parts``, ``name``);
    OpenAI-style messages (``content``, ``tool_calls``) are read as chat messages."""
    for i, msg in enumerate(messages):
        here = f"{path}[{i}]"
        if isinstance(msg, dict) and isinstance(msg.get("parts"), list):
            if "name" in msg:
                cells.participant(msg["name"], f"{here}.name", _setter(msg, "name"))
            genai_part_cells(msg["parts"], f"{here}.parts", cells)
        elif isinstance(msg, dict):
            chat_message_cells(msg, here, cells)
        else:
            cells.value(msg, here, _setter(messages, i))


def genai_part_cells(parts: list[Any], path: str, cells: Cells) -> None:
    """Strings of a list of GenAI message parts: text and reasoning ``content``, tool-call
    ``arguments``, tool-call ``response``; ids, names and types are kept."""
    for j, part in enumerate(parts):
        here = f"{path}[{j}]"
        if not isinstance(part, dict):
            cells.value(part, here, _setter(parts, j))
            continue
        if part.get("type") == "tool_call":
            if "arguments" in part:
                where = f"{here}.arguments"
                cells.value(part["arguments"], where, _setter(part, "arguments"), arguments=True)
            continue
        for key in ("content", "response", "result"):
            if key in part:
                cells.value(part[key], f"{here}.{key}", _setter(part, key))


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """``spans`` as one OTLP JSON export (``{"resourceSpans": [...]}``), the document the
    collector's file exporter writes and the pipeline's ``otlp_genai`` format reads: the SDK's
    own protobuf encoding, in the protobuf JSON mapping, with trace and span ids in hex as the
    OTLP JSON specification asks (the generic mapping writes bytes as base64)."""
    import base64

    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    doc = MessageToDict(encode_spans(spans))

    def hexify(obj: dict[str, Any]) -> None:
        for key in ("traceId", "spanId", "parentSpanId"):
            if obj.get(key):
                obj[key] = base64.b64decode(obj[key]).hex()

    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                hexify(span)
                for link in span.get("links", []):
                    hexify(link)
    return doc
