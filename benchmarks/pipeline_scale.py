"""Whole-pipeline scale: time and peak memory per stage for 1, 3 and 10 days of N episodes each.

For each size, the simulator writes the landing days, then every stage runs as the user runs it
(the ``daily_pipeline`` job, in-process, one run per day) in a fresh Python process of its own, so
its peak RSS is the stage's own. Cost should grow linearly with the number of episodes and memory
should stay flat as days are added (each day is streamed on its own).

    python benchmarks/pipeline_scale.py --days 1 3 10 --episodes-per-day 2000
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

START = date(2026, 9, 1)
STAGES = {
    "ingest": ["raw_agent_logs", "raw_quarantine"],
    "mask": ["masked_trajectories", "pii_audit", "withheld_episodes"],
    "replay": ["replayed_episodes"],
    "shadow": ["shadow_steps", "shadow_episodes"],  # no candidate unless configured
    "rewards": ["episode_rewards", "step_rewards"],
    "diff": ["behaviour_diff"],
    "selection": ["policy_selection"],
    "training": ["training_datasets"],
}


def run_stage(stage: str, data_dir: str, days: int) -> dict:
    """Materialize one stage for every day (inside the child process)."""
    import os

    os.environ["AGENTIC_PIPELINE_DATA_DIR"] = data_dir
    from dagster import AssetKey, DagsterInstance

    from assets.definitions import build_definitions

    defs = build_definitions(data_dir)
    job = defs.resolve_job_def("daily_pipeline")
    keys = [AssetKey(k) for k in STAGES[stage]]
    quiet = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
    seconds = 0.0
    # an on-disk instance, as users have: an ephemeral one keeps every event in memory
    with DagsterInstance.local_temp() as instance:
        for i in range(days):
            ds = (START + timedelta(days=i)).isoformat()
            t0 = time.perf_counter()
            result = job.execute_in_process(
                run_config=quiet, instance=instance, partition_key=ds, asset_selection=keys
            )
            seconds += time.perf_counter() - t0
            assert result.success, f"{stage} failed on {ds}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"stage": stage, "seconds": seconds, "peak_rss_mib": peak}


def measure(days: int, per_day: int, seed: int) -> list[dict]:
    from agentic_pipeline.demo import write_landing

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        write_landing(data, START, days, per_day, seed=seed)
        for stage in STAGES:
            proc = subprocess.run(
                [sys.executable, __file__, "--child", stage, str(data), str(days)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                raise SystemExit(f"{stage} failed on {days} day(s):\n{proc.stderr[-3000:]}")
            out = proc.stdout
            row = json.loads(out.strip().splitlines()[-1])
            row.update(days=days, episodes=days * per_day)
            row["episodes_per_second"] = row["episodes"] / row["seconds"]
            rows.append(row)
            print(
                f"  {days:>3} day(s) {stage:<10} {row['seconds']:>8.1f} s "
                f"{row['episodes_per_second']:>8.1f} ep/s {row['peak_rss_mib']:>7.0f} MiB",
                flush=True,
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, nargs="+", default=[1, 3, 10])
    parser.add_argument("--episodes-per-day", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="benchmarks/results/pipeline_scale.json")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        stage, data_dir, days = args.child
        print(json.dumps(run_stage(stage, data_dir, int(days))))
        return
    results = []
    for days in args.days:
        results += measure(days, args.episodes_per_day, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"\n{'stage':<10}" + "".join(f"{d:>4}d s/1k ep  MiB" for d in args.days))
    for stage in STAGES:
        cells = []
        for days in args.days:
            r = next(x for x in results if x["stage"] == stage and x["days"] == days)
            cells.append(f"{1000 * r['seconds'] / r['episodes']:>11.2f} {r['peak_rss_mib']:>5.0f}")
        print(f"{stage:<10}" + "".join(f"{c:>17}" for c in cells))


if __name__ == "__main__":
    main()
