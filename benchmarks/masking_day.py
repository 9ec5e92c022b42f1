"""Masking a whole real day through the user's entry point, against plain Presidio, in one run.

The tau-bench airline file (200 real episodes) is landed as one day in a temporary data root and
ingested; then ``agentic-pipeline materialize --select masked_trajectories,...`` is timed as a user
runs it (a new process: Python, Dagster, Presidio and spaCy start-up, the analysis workers, the
writes and the blocking leak check included). The baseline is plain Presidio
(``AnalyzerEngine.analyze`` + ``AnonymizerEngine.anonymize``, default recognizers, the same spaCy
model) on every non-empty string cell of the same day's masked columns, in this process, its
start-up included. Both run one after the other on the same machine; the ratio is what counts
(absolute seconds depend on what else the machine is doing).

    python benchmarks/masking_day.py [--file PATH] [--limit N] [--workers 2]
"""

from __future__ import annotations

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # offline, before tldextract

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from masking import baseline_mask, n_strings  # noqa: E402  (benchmarks/masking.py)

from agentic_pipeline.storage import DataRoot  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TAU = REPO.parent / "shared" / "external" / "tau-bench" / "gpt-4o-airline.json"
DS = "2024-05-15"
MASKING = "masked_trajectories,pii_audit,withheld_episodes"


def _cli(root: Path, *args: str) -> float:
    """Run ``agentic-pipeline`` as a user does; its wall time in seconds."""
    exe = Path(sys.executable).with_name("agentic-pipeline")
    env = {**os.environ, "AGENTIC_PIPELINE_DEV_MODE": "1", "AGENTIC_PIPELINE_DATA_DIR": str(root)}
    env.pop("AGENTIC_PIPELINE_MASKING_KEY", None)
    t = time.perf_counter()
    done = subprocess.run(
        [str(exe), args[0], "--data-dir", str(root), *args[1:]],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"agentic-pipeline {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=TAU, help="a benchmark trajectory file")
    ap.add_argument("--limit", type=int, default=0, help="first N episodes only (0: all)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data root")
    args = ap.parse_args()
    if not args.file.exists():
        raise SystemExit(f"{args.file} not found")
    work = Path(tempfile.mkdtemp(prefix="masking-day-"))
    root = work / "data"
    landing = root / "landing" / DS
    landing.mkdir(parents=True)
    if args.limit:
        data = json.loads(args.file.read_text())[: args.limit]
        (landing / args.file.name).write_text(json.dumps(data))
    else:
        shutil.copy(args.file, landing / args.file.name)
    try:
        t_ingest = _cli(root, "materialize", "--start", DS, "--select", "raw_agent_logs")
        t_ours = _cli(root, "materialize", "--start", DS, "--select", MASKING)
        raw = DataRoot(root).read_partition("restricted", "raw_agent_logs", DS)
        episodes = len(set(raw.column("episode_id").to_pylist()))
        strings = n_strings(raw)
        t = time.perf_counter()
        baseline_mask(raw)
        t_base = time.perf_counter() - t
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"day: {args.file.name}, {episodes} episodes, {raw.num_rows} rows, {strings} strings")
    print(f"ingestion (materialize raw_agent_logs): {t_ingest:.1f} s")
    print(f"ours: materialize {MASKING} (new process, start-up included): {t_ours:.1f} s")
    print(f"plain Presidio on the same strings (start-up included): {t_base:.1f} s")
    print(f"ratio: {t_base / t_ours:.1f}x")


if __name__ == "__main__":
    main()
