"""Worst-case masking cost per MiB of landing input under the per-record analysis budget (#22.6).

Kinds of landing input go through the user's path (``ingest_day``, then ``mask_steps`` with the leak
scan; CPU time of this process and its masking workers, from ``/proc``): plain simulator episodes
(the baseline), records packed with names, emails and phone numbers (dense personal data), and
records of runs of punctuation just under ``max_record_unbroken_chars`` (spaCy's tokenizer is
quadratic in such a run). Records over the budgets are quarantined at ingestion and cost nothing
downstream; the figure is CPU-seconds per MiB of landing bytes of what was admitted.

    python benchmarks/ingestion_cost.py            # a few minutes

"""

import datetime as dt
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DS = "2026-10-12"
PUNCT = "()[]{},;:!?\"'"


def _dense(n_chars: int, rng: random.Random) -> str:
    first = ["Ann", "Bo", "Carla", "Dmitri", "Eun", "Femi", "Gita", "Hal"]
    last = ["Lee", "Okafor", "Novak", "Silva", "Tanaka", "Berg", "Haddad", "Moreau"]
    parts, size = [], 0
    while size < n_chars:
        f, g = rng.choice(first), rng.choice(last)
        part = (
            f"Customer {f} {g} ({f.lower()}.{g.lower()}{rng.randrange(99)}@example.com, "
            f"phone +1 212 555 {rng.randrange(1000, 9999)}) asked about order "
            f"{rng.randrange(10**6)}. "
        )
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n_chars]


def _runs(n_chars: int, run: int, rng: random.Random) -> str:
    pieces = []
    while sum(len(p) + 1 for p in pieces) < n_chars:
        pieces.append("".join(rng.choice(PUNCT) for _ in range(run)))
    return " ".join(pieces)


def _record(i: int, text: str) -> dict:
    return {"episode_id": f"ep{i}", "messages": [{"role": "user", "content": text}]}


def _cpu_seconds() -> float:
    """CPU time of this process and of its live descendants (masking's worker processes), from
    ``/proc`` (Linux)."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    parents = {}
    times = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    me = os.getpid()
    total, todo = 0.0, [me]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(c for c, parent in parents.items() if parent == pid)
    return total


def measure(kind: str, folder: Path, records: list[dict]) -> dict:
    import pyarrow as pa

    from agentic_pipeline.ingest import ingest_day
    from agentic_pipeline.masking import Masker, mask_steps

    folder.mkdir(parents=True)
    path = folder / "day.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    mib = path.stat().st_size / (1 << 20)
    result = ingest_day(folder, DS)
    with Masker(key="cost-benchmark-key-" + "7" * 20, n_workers=1) as masker:
        mask_steps(pa.table({"episode_id": ["w"], "step": [0], "content": ["Hi Ann Lee"]}), masker)
        cpu0, wall0 = _cpu_seconds(), time.perf_counter()
        mask_steps(result.steps, masker)
        cpu, wall = _cpu_seconds() - cpu0, time.perf_counter() - wall0
    return {
        "kind": kind,
        "landing_mib": round(mib, 3),
        "admitted": result.stats.episodes,
        "quarantined": result.stats.records_quarantined,
        "cpu_s": round(cpu, 1),
        "wall_s": round(wall, 1),
        "cpu_s_per_mib": round(cpu / mib, 1),
    }


def main() -> None:
    from agentic_pipeline.demo import generate_episodes
    from agentic_pipeline.ingest import IngestLimits

    limits = IngestLimits()
    rng = random.Random(22)
    sim = [e.record for e in generate_episodes(dt.date.fromisoformat(DS), 120, seed=22)]
    dense = [_record(i, _dense(16_384, rng)) for i in range(6)]
    runs = [_record(i, _runs(16_384, limits.max_record_unbroken_chars, rng)) for i in range(6)]
    over = [_record(i, _runs(16_384, limits.max_record_unbroken_chars + 1, rng)) for i in range(6)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, records in (
            ("simulator episodes (baseline)", sim),
            ("dense personal data", dense),
            (f"punctuation runs of {limits.max_record_unbroken_chars}", runs),
            (f"punctuation runs of {limits.max_record_unbroken_chars + 1} (over)", over),
        ):
            row = measure(kind, Path(tmp) / kind.split()[0] / str(len(rows)), records)
            rows.append(row)
            print(json.dumps(row), flush=True)
    base = rows[0]["cpu_s_per_mib"]
    print(f"\n{'landing input':<40} {'MiB':>6} {'admitted':>9} {'CPU-s/MiB':>10} {'x base':>7}")
    for r in rows:
        ratio = r["cpu_s_per_mib"] / base if base else float("nan")
        print(
            f"{r['kind']:<40} {r['landing_mib']:>6.2f} {r['admitted']:>9} "
            f"{r['cpu_s_per_mib']:>10.1f} {ratio:>7.1f}"
        )


if __name__ == "__main__":
    main()
