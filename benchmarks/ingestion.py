"""Ingestion throughput and peak memory: simulate N episodes, ingest them day by day.

Each measurement runs in a fresh Python process (so its peak RSS is its own): the process reads
every landing day and writes its partition exactly as the ``raw_agent_logs`` asset does.
Memory must stay bounded when N grows with the number of days; it grows only with one day's size.

    python benchmarks/ingestion.py --episodes 2000 10000 20000 --per-day 2000
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

START = date(2026, 10, 1)


def measure(data_dir: str, days: int) -> dict:
    """Ingest ``days`` landing days under ``data_dir`` (run inside the child process)."""
    from agentic_pipeline.ingest import ingest_day
    from agentic_pipeline.storage import DataRoot

    root = DataRoot(data_dir)
    episodes = rows = 0
    t0 = time.perf_counter()
    for i in range(days):
        ds = (START + timedelta(days=i)).isoformat()
        result = ingest_day(root.landing(ds), ds)
        root.write_partition("restricted", "raw_agent_logs", ds, result.steps)
        episodes += result.stats.episodes
        rows += result.stats.rows
    seconds = time.perf_counter() - t0
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"episodes": episodes, "rows": rows, "seconds": seconds, "peak_rss_mib": peak_mib}


def run(n_episodes: int, per_day: int, seed: int) -> dict:
    from agentic_pipeline.demo import write_landing

    days = max(1, n_episodes // per_day)
    with tempfile.TemporaryDirectory() as tmp:
        write_landing(Path(tmp), START, days, n_episodes // days, seed=seed)
        out = subprocess.run(
            [sys.executable, __file__, "--child", tmp, str(days)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result.update(days=days, episodes_per_second=result["episodes"] / result["seconds"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[2000, 10000, 20000])
    parser.add_argument("--per-day", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]))))
        return
    print(
        f"{'episodes':>9} {'days':>5} {'rows':>9} {'seconds':>8} {'episodes/s':>11} {'peak MiB':>9}"
    )
    for n in args.episodes:
        r = run(n, args.per_day, args.seed)
        print(
            f"{r['episodes']:>9} {r['days']:>5} {r['rows']:>9} {r['seconds']:>8.2f} "
            f"{r['episodes_per_second']:>11.0f} {r['peak_rss_mib']:>9.0f}"
        )


if __name__ == "__main__":
    main()
