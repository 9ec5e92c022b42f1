"""False alarms of the final leak scan on real agent logs written by others (issue #12, point 3).

Each file of ``../shared/external`` (tau-bench airline and retail, tau2 airline) is ingested as a
landing day and masked with ``mask_steps`` (its own scan switched off); then the final scan's
detectors run over every string cell of the masked rows. A finding is a true leak when its value is
one of the personal values of the users files (names, emails, street lines, zip codes, dates of
birth, user ids, or a part of one); otherwise it is a false alarm. Printed per file and detector:
cells scanned, findings, false alarms, the false-alarm rate per cell and the share of episodes a
false alarm would withhold. On the unmasked rows (``--raw``) the "false alarms" left are dates
after a birth word: read by hand, the birth dates of passengers the users files do not list.
Values are never printed, only their shape (``9`` for a digit, ``a``
for a letter).

    python benchmarks/leak_scan_precision.py --limit 30 --workers 1
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.jsonutil import json_leaves
from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.pseudonyms import TOKEN_RE
from agentic_pipeline.masking.scan import independent_leaks, string_columns
from agentic_pipeline.pii_patterns import strict_matches

EXTERNAL = Path(__file__).resolve().parents[1].parent / "shared" / "external"
FILES = {
    "tau-bench airline": ("tau-bench/gpt-4o-airline.json", "tau-bench/airline-users.json"),
    "tau-bench retail": (
        "tau-bench-retail/tool-calling-none-0.1_range_0-100_user-none-llm_06232025.json",
        "tau-bench-retail/retail-users.json",
    ),
    "tau2 airline": ("tau2-airline/airline_run1.json", None),
}


def personal_values(users_path: Path | None) -> set[str]:
    """Every string leaf of the users file (plus the user ids), casefolded, with word parts."""
    if users_path is None or not users_path.exists():
        return set()
    users = json.loads(users_path.read_text())
    leaves = json_leaves([users, list(users)])  # the values and the user ids (the keys)
    return {leaf.casefold() for leaf in leaves if isinstance(leaf, str) and leaf.strip()}


_PERSONAL_KEYS = r"email|dob|first_name|last_name|address1|address2|zip|user_id|name"


def _tau2_values(path: Path) -> set[str]:
    """tau2 has no users file: the values under personal keys anywhere in the file (tool
    results hold them as JSON inside strings, hence the escaped quotes)."""
    text = path.read_text()
    rx = re.compile(rf'\\*"(?:{_PERSONAL_KEYS})\\*":\s*\\*"([^"\\]+)')
    out = {m.casefold() for m in rx.findall(text)}
    out |= {m.casefold() for m in re.findall(r"[a-z]+_[a-z]+_\d{4}", text)}
    return out


def is_personal(value: str, known: set[str]) -> bool:
    """The value is, contains or is part of a known personal value (4+ characters), or all its
    words are known values."""
    v = value.casefold().strip()
    if all(w in known for w in v.split()):
        return True  # a full name whose parts are the users file's first and last names
    return v in known or any((len(k) >= 4 and k in v) or (len(v) >= 4 and v in k) for k in known)


def shape(value: str) -> str:
    return re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "9", value))[:40]


def ingest_file(path: Path, limit: int) -> Any:
    tmp = Path(tempfile.mkdtemp())
    try:
        data = json.loads(path.read_text())
        if isinstance(data, list):
            data = data[:limit]
        elif isinstance(data, dict) and isinstance(data.get("simulations"), list):
            data = {**data, "simulations": data["simulations"][:limit]}
        day = tmp / "2024-05-15"
        day.mkdir()
        (day / path.name).write_text(json.dumps(data))
        return ingest_day(day, "2024-05-15").steps
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(label: str, table: Any, known: set[str]) -> dict[str, Any]:
    eps = table.column("episode_id").to_pylist()
    cells = findings = 0
    false_by_det: Counter = Counter()
    true_by_det: Counter = Counter()
    shapes: Counter = Counter()
    false_eps: set[str] = set()
    for col in string_columns(table):
        for row, cell in enumerate(table.column(col).to_pylist()):
            if not isinstance(cell, str) or not cell:
                continue
            cells += 1
            text = TOKEN_RE.sub(" ", cell)
            found = [(et, "pattern", text[s:e]) for s, e, et in strict_matches(text)]
            found += independent_leaks(text)
            for et, det, value in found:
                findings += 1
                if is_personal(value, known):
                    true_by_det[f"{det}:{et}"] += 1
                else:
                    false_by_det[f"{det}:{et}"] += 1
                    shapes[f"{det}:{et} {shape(value)}"] += 1
                    false_eps.add(eps[row])
    n_eps = len(set(eps))
    n_false = sum(false_by_det.values())
    print(f"\n== {label}: {n_eps} episodes, {table.num_rows} rows, {cells} string cells")
    print(f"findings {findings}: true leaks {sum(true_by_det.values())}, false alarms {n_false}")
    print(
        f"false alarms per cell {n_false / max(cells, 1):.5f}; episodes a false alarm would "
        f"withhold {len(false_eps)}/{n_eps} ({len(false_eps) / max(n_eps, 1):.1%})"
    )
    for k, v in sorted(true_by_det.items()):
        print(f"  true  {k:<34} {v}")
    for k, v in sorted(false_by_det.items()):
        print(f"  FALSE {k:<34} {v}")
    for k, v in shapes.most_common(10):
        print(f"    shape {k}  x{v}")
    return {"cells": cells, "false": n_false, "episodes": n_eps, "false_episodes": len(false_eps)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=30, help="episodes per file")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--raw", action="store_true", help="also scan the unmasked rows")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    totals: Counter = Counter()
    with Masker(n_workers=args.workers) as masker:
        for label, (traj, users) in FILES.items():
            path = EXTERNAL / traj
            if not path.exists():
                print(f"{label}: {path} not found, skipped")
                continue
            known = personal_values(EXTERNAL / users if users else None) or _tau2_values(path)
            raw = ingest_file(path, args.limit)
            if args.raw:
                measure(f"{label} (raw, unmasked)", raw, known)
            t = time.perf_counter()
            masked = mask_steps(raw, masker, scan=False).masked
            print(f"\n{label}: masked {raw.num_rows} rows in {time.perf_counter() - t:.1f}s")
            totals.update(measure(f"{label} (masked)", masked, known))
    print(
        f"\nALL FILES (masked): false alarms {totals['false']} in {totals['cells']} cells "
        f"({totals['false'] / max(totals['cells'], 1):.5f} per cell); episodes withheld by a "
        f"false alarm {totals['false_episodes']}/{totals['episodes']}"
    )


if __name__ == "__main__":
    main()
