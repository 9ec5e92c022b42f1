"""The hostile day of issue #22 through the CLI, beside the same 60 good episodes alone.

The hostile day holds a record bomb (a gzip of valid JSONL lines expanding to ``--bomb-gib`` GiB),
a record with a 5,001-digit integer, a deeply nested JSON string, a symlink to ``/etc/passwd`` and
60 good simulator episodes. ``agentic-pipeline materialize`` runs in a child process for each day;
its wall time and peak RSS (``RUSAGE_CHILDREN``) are reported, with the good episodes written and
the quarantine reasons.

    python benchmarks/ingestion_hostile_day.py --bomb-gib 1.5
"""

import argparse
import datetime as dt
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DS = "2026-10-12"
MiB = 1 << 20


def write_day(root: Path, bomb_bytes: int) -> set[str]:
    from agentic_pipeline.demo import generate_episodes

    folder = root / "landing" / DS
    folder.mkdir(parents=True)
    good = [e.record for e in generate_episodes(dt.date.fromisoformat(DS), 60, seed=3)]
    with gzip.open(folder / "episodes.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in good)
    if bomb_bytes:
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        line = (json.dumps(good[0]) + "\n").encode()
        block, written = line * max(1, MiB // len(line)), 0
        with (folder / "0-bomb.jsonl.gz").open("wb") as fh:
            while written < bomb_bytes:
                fh.write(compressor.compress(block))
                written += len(block)
            fh.write(compressor.flush())
        with (folder / "odd.jsonl").open("w") as fh:
            fh.write('{"episode_id": "int", "messages": [], "reward": ' + "7" * 5001 + "}\n")
            deep = {"episode_id": "deep", "messages": [{"role": "user", "content": "[" * 50_000}]}
            deep["messages"][0]["content"] += "]" * 50_000
            fh.write(json.dumps(deep) + "\n")
        os.symlink("/etc/passwd", folder / "passwd.jsonl")
    return {r["episode_id"] for r in good}


def run(root: Path) -> dict:
    env = {**os.environ, "AGENTIC_PIPELINE_DATA_DIR": str(root), "AGENTIC_PIPELINE_DEV_MODE": "1"}
    env.setdefault("AGENTIC_PIPELINE_START_DATE", "2025-01-01")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "materialize", "--start", DS, "--data-dir", str(root)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    return {"exit": proc.returncode, "seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-gib", type=float, default=1.5)
    args = parser.parse_args()
    from agentic_pipeline.storage import DataRoot

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, bomb in (("60 good episodes (baseline)", 0), ("hostile day", args.bomb_gib)):
            root = Path(tmp) / name.split()[0]
            good = write_day(root, int(bomb * (1 << 30)))
            landing = sum(p.stat().st_size for p in (root / "landing" / DS).iterdir())
            row = run(root)
            # each child is measured alone: the baseline runs first, the larger peak is the later
            row["peak_rss_mib"] = round(
                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            )
            data = DataRoot(root)
            masked = data.read_partition("warehouse", "masked_trajectories", DS, ["episode_id"])
            row["good_written"] = len(good & set(masked.column("episode_id").to_pylist()))
            quarantine = data.read_partition("restricted", "raw_quarantine", DS).to_pylist()
            row["quarantined"] = sorted({r["reason"].split(":")[0] for r in quarantine})
            row.update(day=name, landing_mib=round(landing / MiB, 1))
            rows.append(row)
            print(json.dumps(row), flush=True)
    base = rows[0]
    print(f"\n{'day':<30} {'landing MiB':>11} {'s':>7} {'peak MiB':>9} {'good':>5} {'exit':>5}")
    for r in rows:
        print(
            f"{r['day']:<30} {r['landing_mib']:>11} {r['seconds']:>7} {r['peak_rss_mib']:>9} "
            f"{r['good_written']:>5} {r['exit']:>5}"
        )
    ratio = rows[1]["seconds"] / base["seconds"]
    print(f"time ratio {ratio:.2f}; quarantined: {rows[1]['quarantined']}")


if __name__ == "__main__":
    main()
