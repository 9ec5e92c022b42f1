"""Labelled texts placed into agent episodes, as producers write them (Episode JSONL records).

Each text becomes one cell of one step: a user turn, an assistant reply, a plain tool result, a
JSON tool result (``{"note": text}``), a structured JSON record (a ``Key: value`` form as an
object) or a CSV tool result (a ``Key: value`` form as a header row and a value row). The
records go through the ingest parser (``agentic_pipeline.formats.parse_episode``) in process, or
are landed as JSONL for ``agentic-pipeline materialize``; either way the cell of each text is
found again in the step rows by its string.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .corpora import LabelledText

#: How a text is written into its step (the slot names of the report).
SLOTS = ("user", "assistant", "tool_text", "tool_note", "tool_record", "tool_csv")
#: One ``Key: value`` line of a form ("Account Number: 123", "Patient Name: X").
_KV = re.compile(r"^\s*([A-Za-z][\w /#.()'-]{0,40}?)\s*:\s+(\S.*?)\s*$")


@dataclass
class PlacedText:
    """A labelled text and where it was written: episode, slot and the exact cell string."""

    doc: LabelledText
    episode_id: str
    slot: str
    cell: str

    @property
    def column(self) -> str:
        return "content"


def _form(text: str) -> tuple[list[tuple[str, str]], list[str]] | None:
    """(the ``(key, value)`` lines, the other non-blank lines) of a text that is a form: 3+
    distinct keys and at most one other line per two key lines; else None."""
    pairs: list[tuple[str, str]] = []
    free: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _KV.match(line)
        if m:
            pairs.append((m.group(1), m.group(2)))
        else:
            free.append(line.strip())
    keys = [k for k, _ in pairs]
    if len(pairs) < 3 or 2 * len(free) > len(pairs) or len(set(keys)) != len(keys):
        return None
    return pairs, free


def _as_csv(pairs: list[tuple[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([k for k, _ in pairs])
    w.writerow([v for _, v in pairs])
    return buf.getvalue()


def cell_for(doc: LabelledText, n: int) -> tuple[str, str]:
    """(slot, cell string) of the ``n``-th text of a corpus: forms alternate between a JSON
    record (other lines under ``"text"``) and a CSV result (forms with no other line); other
    texts rotate through the four text slots."""
    form = _form(doc.text)
    if form is not None:
        pairs, free = form
        if n % 2 == 0 or free:
            record = {"text": "\n".join(free)} if free else {}
            return "tool_record", json.dumps({**record, **dict(pairs)}, ensure_ascii=False)
        return "tool_csv", _as_csv(pairs)
    slot = SLOTS[n % 4]
    if slot == "tool_note":
        return slot, json.dumps({"note": doc.text, "priority": 2}, ensure_ascii=False)
    return slot, doc.text


def _messages(placed: list[PlacedText], eid: str) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for i, p in enumerate(placed):
        if p.slot in ("user", "assistant"):
            msgs.append({"role": p.slot, "content": p.cell})
            continue
        call = f"call_{eid[-6:]}_{i}"
        tool = {"tool_text": "read_ticket", "tool_note": "get_note"}.get(p.slot, "get_record")
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps({"ref": i + 1})},
                    }
                ],
            }
        )
        msgs.append({"role": "tool", "tool_call_id": call, "name": tool, "content": p.cell})
    return msgs


def place(
    docs: Iterable[LabelledText], corpus: str, ds: str, per_episode: int = 4
) -> tuple[list[dict[str, Any]], list[PlacedText]]:
    """Episode JSONL records holding ``docs`` (``per_episode`` texts each) and where each text
    went. Episode ids are ``<corpus>-<n>``; every episode is dated ``ds``."""
    records: list[dict[str, Any]] = []
    placed: list[PlacedText] = []
    docs = list(docs)
    for e in range(0, len(docs), per_episode):
        eid = f"{corpus}-{e // per_episode:05d}"
        group = []
        for n, doc in enumerate(docs[e : e + per_episode], start=e):
            slot, cell = cell_for(doc, n)
            group.append(PlacedText(doc, eid, slot, cell))
        placed += group
        records.append(
            {
                "episode_id": eid,
                "started_at": f"{ds}T10:00:00Z",
                "policy_id": "masking-eval",
                "task_type": corpus,
                "task": {"description": "development corpus episode"},
                "messages": _messages(group, eid),
            }
        )
    return records, placed


def step_table(records: list[dict[str, Any]], ds: str) -> pa.Table:
    """The canonical step rows of ``records``, parsed as the ingest parses Episode JSONL."""
    from agentic_pipeline.formats import parse_episode
    from agentic_pipeline.schema import STEP_SCHEMA, parse_timestamp

    rows: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        eid, attrs, steps = parse_episode(rec)
        for n, s in enumerate(steps):
            rows.append(
                {
                    **attrs,
                    **s,
                    "step": s.get("step") if s.get("step") is not None else n,
                    "episode_id": eid,
                    "ds": ds,
                    "source_format": "episode_jsonl",
                    "source_index": i,
                    "started_at": parse_timestamp(attrs.get("started_at")),
                    "ts": parse_timestamp(s.get("ts")),
                }
            )
    return pa.Table.from_pylist(rows, schema=STEP_SCHEMA)
