"""Cost of masking at the source: added latency per span and the processor's memory.

Runs agent turns through the real OpenTelemetry SDK (``TracerProvider``, ``SimpleSpanProcessor``,
``InMemorySpanExporter``) three ways, on the same traces in one run:

- baseline: the exporter's processor alone (no masking);
- ``MaskingSpanProcessor`` per trace (default): spans wait for their trace's root, which then masks
  the whole trace; the cost lands on the root span's ``end()``;
- ``MaskingSpanProcessor(per_trace=False)``: each span is masked at its own ``end()``.

Each trace is one agent turn like an instrumented agent records it: ``invoke_agent`` around two
``chat`` spans with the growing history in ``gen_ai.input.messages`` and two ``execute_tool``
spans (a customer lookup returning a record, then an action), with a Faker person per trace (name,
email, phone, street address, card number). Latency is the time ``span.end()`` takes (the SDK
calls the processors there), per span; "amortized" is the total over all spans divided by the
number of spans. Memory: RSS before and after the masker's first record (Presidio and the spaCy
model), and the peak Python allocation (``tracemalloc``) of the timed masked runs.

    python benchmarks/source_masking.py --traces 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import tracemalloc

os.environ.setdefault("AGENTIC_PIPELINE_DEV_MODE", "1")

from faker import Faker  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from agentic_pipeline.masking import DEV_MASKING_KEY  # noqa: E402
from agentic_pipeline.source import SourceMasker  # noqa: E402
from agentic_pipeline.source.otel import MaskingSpanProcessor  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def people(n: int, seed: int) -> list[dict]:
    fake = Faker("en_GB")
    Faker.seed(seed)
    return [
        {
            "name": fake.name(),
            "email": fake.email(),
            "phone": fake.phone_number(),
            "address": fake.street_address(),
            "card": fake.credit_card_number(),
        }
        for _ in range(n)
    ]


def _text(content: str) -> dict:
    return {"type": "text", "content": content}


def agent_turn(tracer, p: dict, times: list[float]) -> None:
    """One agent turn; appends the duration of each ``span.end()`` to ``times``."""

    def end(span) -> None:
        t0 = time.perf_counter()
        span.end()
        times.append(time.perf_counter() - t0)

    user = {
        "role": "user",
        "parts": [
            _text(
                f"Hello, {p['name']} here. The parcel never came; you can reach me at "
                f"{p['email']} or {p['phone']}. Please refund card {p['card']}."
            )
        ],
    }
    system = json.dumps([_text("You are the support agent of an online shop.")])
    record = {"customer_id": "cus_5e1d2c3b", "name": p["name"], "email": p["email"]}
    record |= {"address": p["address"], "orders": [{"order_id": "ord_88", "total": 59.5}]}
    calls = [
        ({"type": "tool_call", "id": "c1", "name": "find_customer",
          "arguments": {"email": p["email"]}}, record),
        ({"type": "tool_call", "id": "c2", "name": "refund_order",
          "arguments": {"order_id": "ord_88"}}, {"status": "refunded"}),
    ]  # fmt: skip
    history = [user]
    root = tracer.start_span("invoke_agent shop-support")
    root.set_attribute("gen_ai.operation.name", "invoke_agent")
    from opentelemetry import trace

    ctx = trace.set_span_in_context(root)
    for call, result in calls:
        chat = tracer.start_span("chat", context=ctx)
        chat.set_attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.system_instructions": system,
                "gen_ai.input.messages": json.dumps(history),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
            }
        )
        end(chat)
        tool = tracer.start_span(f"execute_tool {call['name']}", context=ctx)
        tool.set_attributes(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call["name"],
                "gen_ai.tool.call.id": call["id"],
                "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
                "gen_ai.tool.call.result": json.dumps(result),
            }
        )
        end(tool)
        history += [
            {"role": "assistant", "parts": [call]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": call["id"],
                                        "response": result}]},
        ]  # fmt: skip
    first = p["name"].split()[-2] if len(p["name"].split()) > 1 else p["name"]
    chat = tracer.start_span("chat", context=ctx)
    chat.set_attributes(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(history),
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [_text(f"Done, {first}: refunded 59.50.")]}]
            ),
        }
    )
    end(chat)
    end(root)


def run(kind: str, persons: list[dict], masker: SourceMasker) -> tuple[list[float], int]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    inner = SimpleSpanProcessor(exporter)
    if kind == "baseline":
        provider.add_span_processor(inner)
    else:
        provider.add_span_processor(
            MaskingSpanProcessor(inner, masker, per_trace=(kind == "per_trace"))
        )
    tracer = provider.get_tracer("bench")
    times: list[float] = []
    for p in persons:
        agent_turn(tracer, p, times)
    provider.force_flush()
    spans = exporter.get_finished_spans()
    leaked = sum(
        1 for p in persons for s in spans for v in (p["email"], p["card"]) if v in s.to_json()
    )
    provider.shutdown()
    return times, leaked


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--traces", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    persons = people(args.traces + 1, args.seed)
    rss0 = rss_mib()
    masker = SourceMasker(DEV_MASKING_KEY)
    t0 = time.perf_counter()
    masker.mask_text(f"warm-up: {persons[-1]['name']} at {persons[-1]['email']}")
    start_s = time.perf_counter() - t0
    rss1 = rss_mib()
    persons = persons[:-1]
    print(f"# {args.traces} agent turns x 6 spans (invoke_agent, 3 chat, 2 execute_tool), "
          f"a Faker en_GB person each, seed {args.seed}")  # fmt: skip
    print(f"masker start (Presidio + spaCy model, first record): {start_s:.2f} s, "
          f"RSS after imports {rss0:.0f} -> {rss1:.0f} MiB (+{rss1 - rss0:.0f} MiB)")  # fmt: skip
    rows = []
    for kind in ("baseline", "per_trace", "per_span"):
        tracemalloc.start()
        times, leaked = run(kind, persons, masker)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append((kind, times, leaked, peak))
    base = statistics.fmean(rows[0][1])
    head = ("processor", "spans", "p50 ms", "p99 ms", "max ms", "amortized ms", "added/span ms")
    print(" ".join(f"{h:>14}" for h in (*head, "peak alloc MiB", "raw values out")))
    for kind, times, leaked, peak in rows:
        mean = statistics.fmean(times)
        cells = (kind, len(times), f"{pct(times, 0.5) * 1e3:.3f}", f"{pct(times, 0.99) * 1e3:.1f}")
        cells += (f"{max(times) * 1e3:.1f}", f"{mean * 1e3:.2f}", f"{(mean - base) * 1e3:.2f}")
        print(" ".join(f"{c:>14}" for c in (*cells, f"{peak / 2**20:.1f}", leaked)))
    print(f"RSS at the end: {rss_mib():.0f} MiB")
    masker.close()


if __name__ == "__main__":
    main()
