"""Labeled corpora and recall measurement for the masking (used by tests and benchmarks).

Two sources: the built-in simulator (``agentic_pipeline.simulator``; each episode carries the values
it planted) and the public tau-bench airline trajectories, with ``airline-users.json`` as the truth
about each episode's user. Step rows come from ``agentic_pipeline.formats``, as in ingest.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.mask import MASK_COLUMNS
from agentic_pipeline.schema import STEP_SCHEMA, parse_timestamp

#: Types that must never leak (the issue's zero-leak list).
ZERO_LEAK = (
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "US_SSN",
    "IBAN_CODE",
    "USER_ID",
    "DATE_OF_BIRTH",
)
#: Types that must be masked at >= 98%.
HIGH_RECALL = ("PERSON", "STREET_ADDRESS")


@dataclass
class LabeledCorpus:
    """Step rows plus, per episode, the personal values planted in them."""

    table: pa.Table
    planted: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # ep -> {(type, val)}
    n_episodes: int = 0


def _rows(
    episode_id: str,
    attrs: Mapping[str, Any],
    steps: list[dict[str, Any]],
    ds: str,
    fmt: str,
    index: int,
) -> list[dict[str, Any]]:
    return [
        {
            **attrs,
            **s,
            "episode_id": episode_id,
            "ds": ds,
            "source_format": fmt,
            "source_index": index,
            "started_at": parse_timestamp(attrs.get("started_at")),
            "ts": parse_timestamp(s.get("ts")),
        }
        for s in steps
    ]


def simulated_corpus(n: int, seed: int = 7, day: dt.date = dt.date(2026, 11, 28)) -> LabeledCorpus:
    """``n`` simulated CRM episodes; planted values typed by the masking key rules."""
    from agentic_pipeline.demo import generate_episodes
    from agentic_pipeline.formats import parse_episode

    rows: list[dict[str, Any]] = []
    planted: dict[str, set[tuple[str, str]]] = {}
    for i, ep in enumerate(generate_episodes(day, n, seed)):
        eid, attrs, steps = parse_episode(ep.record)
        rows += _rows(eid, attrs, steps, day.isoformat(), "episode_jsonl", i)
        vals: set[tuple[str, str]] = set()
        for k, v in ep.customer.items():
            et = key_entity(k)
            if et is None or not isinstance(v, str) or not v.strip():
                continue
            vals.add((et, v))
            if et == "STREET_ADDRESS":
                vals.add((et, v.split(",")[0]))
        planted[eid] = vals
    return LabeledCorpus(pa.Table.from_pylist(rows, schema=STEP_SCHEMA), planted, n)


def tau_bench_corpus(
    traj_path: Path, users_path: Path, limit: int | None = None, ds: str = "2024-05-15"
) -> LabeledCorpus:
    """tau-bench airline trajectories; truth = the episode user's record in airline-users.json."""
    from agentic_pipeline.formats import BenchmarkNaming, parse_benchmark

    data = json.loads(Path(traj_path).read_text())
    users = json.loads(Path(users_path).read_text())
    naming = BenchmarkNaming(policy_id="gpt-4o", task_type="airline")
    rows: list[dict[str, Any]] = []
    planted: dict[str, set[tuple[str, str]]] = {}
    for i, rec in enumerate(data[:limit] if limit else data):
        eid, attrs, steps = parse_benchmark(rec, i, naming, Path(traj_path).stem)
        rows += _rows(eid, attrs, steps, ds, "benchmark_json", i)
        uid = ((rec.get("info") or {}).get("task") or {}).get("user_id")
        user = users.get(uid) if uid else None
        planted[eid] = _tau_user_values(uid, user) if user else set()
    return LabeledCorpus(pa.Table.from_pylist(rows, schema=STEP_SCHEMA), planted, len(planted))


def _tau_user_values(uid: str, user: Mapping[str, Any]) -> set[tuple[str, str]]:
    vals = {("USER_ID", uid), ("EMAIL_ADDRESS", user["email"])}
    if user.get("dob"):  # the retail users have none
        vals.add(("DATE_OF_BIRTH", user["dob"]))
    name = user.get("name") or {}
    for part in ("first_name", "last_name"):
        if name.get(part):
            vals.add(("PERSON", name[part]))
    addr = user.get("address") or {}
    for part in ("address1", "address2"):
        if addr.get(part):
            vals.add(("STREET_ADDRESS", addr[part]))
    for pm in (user.get("payment_methods") or {}).values():
        if pm.get("last_four"):
            vals.add(("CARD_LAST4", pm["last_four"]))
    for p in user.get("saved_passengers") or []:
        for part in ("first_name", "last_name"):
            if p.get(part):
                vals.add(("PERSON", p[part]))
        if p.get("dob"):
            vals.add(("DATE_OF_BIRTH", p["dob"]))
    return vals


def _texts_by_episode(table: Any, columns: Iterable[str]) -> dict[str, list[str]]:
    if isinstance(table, pa.Table):
        cols = {c: table.column(c).to_pylist() for c in columns if c in table.column_names}
        eps = table.column("episode_id").to_pylist()
    else:
        cols = {c: list(table[c]) for c in columns if c in table.columns}
        eps = list(table["episode_id"])
    out: dict[str, list[str]] = defaultdict(list)
    for c in cols.values():
        for e, v in zip(eps, c, strict=True):
            if isinstance(v, str) and v:
                out[e].append(v)
    return out


def _occurrences(value: str, texts: list[str]) -> int:
    rx = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)
    return sum(len(rx.findall(t)) for t in texts)


def measure_recall(
    raw: Any,
    masked: Any,
    planted: Mapping[str, set[tuple[str, str]]],
    columns: Iterable[str] = MASK_COLUMNS,
) -> dict[str, dict[str, float]]:
    """Per entity type: occurrences of planted values before/after masking and recall.

    An occurrence is a case-insensitive, word-bounded match in the masked columns of the
    value's own episode (JSON texts included).
    """
    columns = list(columns)
    before = _texts_by_episode(raw, columns)
    after = _texts_by_episode(masked, columns)
    agg: dict[str, dict[str, float]] = defaultdict(lambda: {"raw": 0, "leaked": 0})
    for eid, vals in planted.items():
        for et, v in vals:
            n_raw = _occurrences(v, before.get(eid, []))
            if not n_raw:
                continue
            agg[et]["raw"] += n_raw
            agg[et]["leaked"] += min(n_raw, _occurrences(v, after.get(eid, [])))
    for d in agg.values():
        d["recall"] = 1.0 - d["leaked"] / d["raw"] if d["raw"] else 1.0
    return dict(agg)


def format_recall(figures: Mapping[str, Mapping[str, float]]) -> str:
    """A small text table of ``measure_recall`` output."""
    lines = [f"{'entity':<16} {'occurrences':>11} {'leaked':>7} {'recall':>8}"]
    for et in sorted(figures):
        d = figures[et]
        lines.append(f"{et:<16} {int(d['raw']):>11} {int(d['leaked']):>7} {d['recall']:>8.2%}")
    return "\n".join(lines)


def benchmark_file_corpus(
    path: Path,
    users_path: Path,
    limit: int | None = None,
    ds: str = "2024-05-15",
    task_type: str = "benchmark",
) -> LabeledCorpus:
    """Any benchmark results file the ingest formats read (tau-bench airline/retail arrays, a
    tau2 results document); truth = the record of each episode's user in ``users_path``, found
    by the task's ``user_id`` or by a user id written in the episode text."""
    from agentic_pipeline.formats import (
        BenchmarkNaming,
        ParseContext,
        detect_format,
        parse_record,
        split_container,
    )

    doc = json.loads(Path(path).read_text())
    users = json.loads(Path(users_path).read_text())
    records = split_container(doc)
    if records is None:
        records = doc if isinstance(doc, list) else [doc]
    records = records[:limit] if limit else records
    naming = BenchmarkNaming(policy_id="external", task_type=task_type)
    uid_rx = re.compile("|".join(re.escape(u) for u in sorted(users, key=len, reverse=True)))
    rows: list[dict[str, Any]] = []
    planted: dict[str, set[tuple[str, str]]] = {}
    for i, rec in enumerate(records):
        fmt = detect_format(rec)
        eid, attrs, steps = parse_record(fmt, rec, ParseContext(i, naming, Path(path).stem))
        rows += _rows(eid, attrs, steps, ds, fmt, i)
        m = uid_rx.search(json.dumps(rec))
        planted[eid] = _tau_user_values(m.group(), users[m.group()]) if m else set()
    return LabeledCorpus(pa.Table.from_pylist(rows, schema=STEP_SCHEMA), planted, len(planted))
