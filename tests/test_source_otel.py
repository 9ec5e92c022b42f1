"""Mask at the source with the real OpenTelemetry SDK: an agent's span tree (invoke_agent, chat,
execute_tool) goes through ``MaskingSpanProcessor`` to an in-memory exporter, which must receive
no raw value, the same span structure, and the pipeline's tokens for the same key."""

import json

import pyarrow as pa
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import Status, StatusCode

from agentic_pipeline.formats import otlp
from agentic_pipeline.masking import DEV_MASKING_KEY, Masker, mask_steps
from agentic_pipeline.masking.pseudonyms import TOKEN_RE, pseudonym_for
from agentic_pipeline.source import SourceMasker
from agentic_pipeline.source.otel import MaskingSpanProcessor, otlp_json

# Written for these tests (no corpus value): two people, the second only in a failed lookup.
NAME = "Marisol Quennell"
EMAIL = "m.quennell@harbourpost.example"
PHONE = "+44 7700 900317"
STREET = "27 Tannery Lane"
ADDRESS = f"{STREET}, Leeds LS6 2QB"
CARD = "4929 5310 2284 1237"
OTHER_NAME = "Bertrand Achterberg"
OTHER_EMAIL = "b.achterberg@lindenmail.example"
RAW_VALUES = [NAME, "Quennell", "Marisol", EMAIL, PHONE, "7700 900317", STREET, CARD]
RAW_VALUES += [OTHER_NAME, "Achterberg", OTHER_EMAIL]
#: other spellings of the same values, which must not appear either
DIGITS = ["4929531022841237", "447700900317", "7700900317"]

SYSTEM = [{"type": "text", "content": "You are the support agent of a furniture store."}]
USER = {
    "role": "user",
    "parts": [
        {
            "type": "text",
            "content": f"Hi, I'm {NAME}. My card {CARD} was charged twice for one sofa. You "
            f"can reach me at {EMAIL} or on {PHONE}.",
        }
    ],
}
CALL_1 = {
    "type": "tool_call",
    "id": "call_01",
    "name": "find_customer",
    "arguments": {"email": EMAIL},
}
RESULT_1 = {
    "customer_id": "cus_4f2a9e71",
    "name": NAME,
    "phone": PHONE,
    "address": ADDRESS,
    "orders": [{"order_id": "ord_5531", "item": "three-seat sofa", "total": 249.0}],
}
CALL_2 = {
    "type": "tool_call",
    "id": "call_02",
    "name": "refund_order",
    "arguments": {"order_id": "ord_5531", "card_number": CARD},
}
RESULT_2 = {"status": "refunded", "amount": 249.0}
REPLY = (
    "Done, Marisol: 249.00 goes back to your card, and the confirmation is on its way to "
    f"{EMAIL}. I also looked for {OTHER_NAME} as you asked, but found no account."
)


def _assistant(*parts):
    return {"role": "assistant", "parts": list(parts)}


def _tool_response(call_id, result):
    return {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": call_id, "response": result}],
    }


def run_agent(tracer) -> None:
    """One agent turn as GenAI instrumentations record it: chat spans carry the whole history,
    tool spans the arguments and results; a failed lookup records an exception event."""
    history = [USER]
    common = {"gen_ai.conversation.id": "conv-7f3a", "gen_ai.agent.name": "store-support"}
    with tracer.start_as_current_span("invoke_agent store-support") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent", **common})
        for step, (call, result) in enumerate(((CALL_1, RESULT_1), (CALL_2, RESULT_2))):
            with tracer.start_as_current_span("chat gpt-4.1") as chat:
                chat.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-4.1",
                        "gen_ai.system_instructions": json.dumps(SYSTEM),
                        "gen_ai.input.messages": json.dumps(history),
                        "gen_ai.output.messages": json.dumps([_assistant(call)]),
                        "gen_ai.usage.input_tokens": 120 + 40 * step,
                        "gen_ai.usage.output_tokens": 18,
                        **common,
                    }
                )
            with tracer.start_as_current_span(f"execute_tool {call['name']}") as tool:
                tool.set_attributes(
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": call["name"],
                        "gen_ai.tool.call.id": call["id"],
                        "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
                        "gen_ai.tool.call.result": json.dumps(result),
                    }
                )
            history = [*history, _assistant(call), _tool_response(call["id"], result)]
        with tracer.start_as_current_span("execute_tool find_customer") as failed:
            failed.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "find_customer",
                    "gen_ai.tool.call.id": "call_03",
                    "gen_ai.tool.call.arguments": json.dumps({"email": OTHER_EMAIL}),
                }
            )
            failed.add_event(
                "exception",
                {
                    "exception.type": "LookupError",
                    "exception.message": f"no account for {OTHER_EMAIL}",
                },
            )
            failed.set_status(Status(StatusCode.ERROR, f"no account for {OTHER_NAME}"))
        with tracer.start_as_current_span("chat gpt-4.1") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4.1",
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps(
                        [_assistant({"type": "text", "content": REPLY})]
                    ),
                    **common,
                }
            )


def traced(per_trace: bool = True):
    """Run the agent once; returns (raw spans, masked spans) of the same trace: the raw copy comes
    from an exporter registered beside the masking processor, as a landing bucket of raw traces
    would get them."""
    raw, masked = InMemorySpanExporter(), InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(raw))
    masker = SourceMasker(DEV_MASKING_KEY)
    provider.add_span_processor(
        MaskingSpanProcessor(SimpleSpanProcessor(masked), masker, per_trace=per_trace)
    )
    run_agent(provider.get_tracer("agent"))
    provider.force_flush()
    out = list(raw.get_finished_spans()), list(masked.get_finished_spans())
    provider.shutdown()
    return out


@pytest.fixture(scope="module")
def spans():
    return traced()


def _text(spans) -> str:
    return "\n".join(s.to_json() for s in spans)


def _pipeline_tokens(raw_spans) -> set[str]:
    """Tokens the pipeline gives the raw trace: parsed by the otlp_genai format, masked by
    mask_steps with the same key."""
    _, _, rows = otlp.parse(otlp_json(raw_spans))
    cols = ("episode_id", "content", "tool_arguments")
    table = pa.table({c: [row.get(c) for row in rows] for c in cols})
    with Masker(DEV_MASKING_KEY) as masker:
        result = mask_steps(table, masker)
    assert result.withheld.num_rows == 0
    return set(result.audit.column("pseudonym").drop_null().to_pylist())


def test_the_exporter_receives_no_raw_value(spans):
    raw, masked = spans
    raw_text, masked_text = _text(raw), _text(masked)
    for value in RAW_VALUES:
        assert value in raw_text or json.dumps(value)[1:-1] in raw_text, value  # planted
        assert value not in masked_text, value
        assert value.lower() not in masked_text.lower(), value
    for digits in DIGITS:
        assert digits not in masked_text.replace(" ", ""), digits


def test_spans_keep_their_structure(spans):
    raw, masked = spans
    assert [s.name for s in masked] == [s.name for s in raw]
    assert len(masked) == 7  # invoke_agent, 3 chat, 3 execute_tool
    for r, m in zip(raw, masked, strict=True):
        assert m.context == r.context and m.parent == r.parent
        assert (m.start_time, m.end_time, m.kind) == (r.start_time, r.end_time, r.kind)
        assert m.status.status_code == r.status.status_code
        assert [e.name for e in m.events] == [e.name for e in r.events]
        for key in ("gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id"):
            assert m.attributes.get(key) == r.attributes.get(key)
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            if key in r.attributes:  # still the convention's JSON, same roles and part types
                shape = [[p["type"] for p in msg["parts"]] for msg in json.loads(r.attributes[key])]
                got = [[p["type"] for p in msg["parts"]] for msg in json.loads(m.attributes[key])]
                assert got == shape
    # the exception event and the status description were masked, not dropped
    failed = masked[4]
    assert failed.events[0].attributes["exception.type"] == "LookupError"
    assert TOKEN_RE.search(failed.events[0].attributes["exception.message"])
    assert TOKEN_RE.search(failed.status.description)


def test_tokens_equal_the_pipelines_for_the_same_key(spans):
    raw, masked = spans
    at_source = set(TOKEN_RE.findall(_text(masked)))
    for value, kind in (
        (EMAIL, "EMAIL_ADDRESS"),
        (PHONE, "PHONE_NUMBER"),
        (CARD, "CREDIT_CARD"),
        (NAME, "PERSON"),
    ):
        assert pseudonym_for(value, kind, DEV_MASKING_KEY) in at_source, kind
    # every token the pipeline gives the raw trace is a token the exporter received
    assert _pipeline_tokens(raw) <= at_source


def test_a_span_alone_is_masked_too(tmp_path):
    raw, masked = traced(per_trace=False)
    text = _text(masked)
    assert [s.name for s in masked] == [s.name for s in raw]
    for value in (EMAIL, PHONE, CARD, NAME, OTHER_EMAIL):
        assert value not in text, value


def test_unparseable_attributes_are_masked_as_text_and_named_ones_too():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    processor = MaskingSpanProcessor(
        SimpleSpanProcessor(exporter),
        SourceMasker(DEV_MASKING_KEY),
        extra_attributes=["input.value"],
    )
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("chat") as span:
        span.set_attribute("gen_ai.input.messages", f'[{{"role": "user", "parts": [ {EMAIL}')
        span.set_attribute("input.value", f"Please call {PHONE} about the sofa")
        span.set_attribute("app.note", "kept as it is")
    provider.force_flush()
    (out,) = exporter.get_finished_spans()
    assert EMAIL not in out.attributes["gen_ai.input.messages"]
    assert out.attributes["gen_ai.input.messages"].startswith('[{"role": "user", "parts": [ <')
    assert PHONE not in out.attributes["input.value"]
    assert out.attributes["app.note"] == "kept as it is"
    assert out.attributes["agentic_pipeline.masking.replacements"] == 2


def test_a_value_a_later_span_reveals_is_masked_in_earlier_spans():
    """Per trace, the spans are masked as one episode: a lower-case name in the first chat span
    is masked because a later tool result names the customer in structured fields."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        MaskingSpanProcessor(SimpleSpanProcessor(exporter), SourceMasker(DEV_MASKING_KEY))
    )
    tracer = provider.get_tracer("t")
    said = "hey it's tamsin okereke again, the blender is still broken"
    with tracer.start_as_current_span("invoke_agent"):
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            message = {"role": "user", "parts": [{"type": "text", "content": said}]}
            chat.set_attribute("gen_ai.input.messages", json.dumps([message]))
        with tracer.start_as_current_span("execute_tool find_customer") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            customer = {"customer": {"first_name": "Tamsin", "last_name": "Okereke"}}
            tool.set_attribute("gen_ai.tool.call.result", json.dumps(customer))
    provider.force_flush()
    first = exporter.get_finished_spans()[0].attributes["gen_ai.input.messages"]
    assert "tamsin" not in first.lower() and "okereke" not in first.lower()
    assert "the blender is still broken" in first


class _Broken(SourceMasker):
    def mask_cells(self, cells):
        raise RuntimeError(f"boom near {EMAIL}")


def test_a_masking_failure_withholds_the_attributes_and_logs_no_value(caplog):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        MaskingSpanProcessor(SimpleSpanProcessor(exporter), _Broken(DEV_MASKING_KEY))
    )
    with provider.get_tracer("t").start_as_current_span("execute_tool") as span:
        span.set_attribute("gen_ai.tool.call.result", json.dumps({"email": EMAIL}))
        span.set_attribute("gen_ai.tool.name", "find_customer")
    provider.force_flush()
    (out,) = exporter.get_finished_spans()
    assert out.attributes["gen_ai.tool.call.result"] == "<WITHHELD>"
    assert out.attributes["gen_ai.tool.name"] == "find_customer"
    assert "RuntimeError" in caplog.text and EMAIL not in caplog.text


def test_without_a_key_the_processor_refuses_to_start(monkeypatch):
    from agentic_pipeline.masking.keys import MissingMaskingKeyError

    monkeypatch.delenv("AGENTIC_PIPELINE_DEV_MODE", raising=False)
    monkeypatch.delenv("AGENTIC_PIPELINE_MASKING_KEY", raising=False)
    with pytest.raises(MissingMaskingKeyError):
        MaskingSpanProcessor(SimpleSpanProcessor(InMemorySpanExporter()))
