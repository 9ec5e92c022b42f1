"""Masking at scale (issue #16, point 5): memory per day size with shards, Ray against the pool.

``memory``: for each day size, a simulated day is written sharded (``--rows-per-shard``) to a
temporary data root by one process, then masked shard by shard by a fresh process exactly as the
``masked_trajectories`` asset does it (read a shard, ``mask_steps``, stream the masked shard into
the day's staging folder, keep the audit), with the analyzer in that process (``n_workers=1``):
its peak RSS is the peak memory of one worker masking the day.

``throughput``: one day masked by the local process pool (2 processes), by 1 Ray actor and by 2
Ray actors on a local Ray head with 2 CPUs started here (loopback, usage statistics off); models
are loaded before the clock starts. Prints episodes per second, the ratio 2 actors / 1 actor, the
actors' peak RSS, Ray's overhead per shard (a round trip of a tiny shard's analysis through Ray,
minus the same analysis in process) and checks that the three runs wrote the same bytes.

    python benchmarks/masking_scale.py memory --episodes 1000 10000 50000
    python benchmarks/masking_scale.py throughput --episodes 300

The machine may be shared: re-run on an idle machine for ratios that mean something.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DS = "2026-11-28"
HERE = Path(__file__).resolve()


def _prepare(root: Path, episodes: int, rows_per_shard: int, seed: int = 11) -> dict:
    """A simulated day of ``episodes`` episodes, stored sharded under ``root`` (restricted zone)."""
    from agentic_pipeline.masking.evaluation import episodes_corpus
    from agentic_pipeline.simulator import generate_episodes
    from agentic_pipeline.storage import DataRoot

    day = dt.date.fromisoformat(DS)
    corpus = episodes_corpus(generate_episodes(day, episodes, seed), day)
    data = DataRoot(root, rows_per_shard=rows_per_shard)
    data.write_partition("restricted", "raw_agent_logs", DS, corpus.table)
    return {
        "rows": corpus.table.num_rows,
        "shards": len(data.part_files("restricted", "raw_agent_logs", DS)),
    }


def _mask_day(root: Path, out: str, masker) -> dict:
    """Mask the stored day shard by shard, as the asset does; the masked day goes to ``out``."""
    from agentic_pipeline.masking import mask_steps
    from agentic_pipeline.storage import DataRoot
    from resources.io_manager import SpooledShards

    data = DataRoot(root)
    audits, rows, shards, analyse = SpooledShards(), 0, 0, 0.0

    def masked():
        nonlocal rows, shards, analyse
        for raw in data.iter_shards("restricted", "raw_agent_logs", DS):
            result = mask_steps(raw, masker)
            audits.append(result.audit)
            rows += raw.num_rows
            shards += 1
            analyse += result.stats["seconds"]["analyse"]
            yield result.masked

    t = time.perf_counter()
    data.write_partition_shards("warehouse", out, DS, masked())
    data.write_partition_shards("warehouse", f"{out}_audit", DS, audits)
    audit_mb = sum(p.size for p in audits._parts) / 2**20
    return {
        "audit_mb": audit_mb,
        "seconds": time.perf_counter() - t,
        "rows": rows,
        "shards": shards,
        "analyse": analyse,
    }


def _day_bytes(root: Path, asset: str) -> list[bytes]:
    from agentic_pipeline.storage import DataRoot

    data = DataRoot(root)
    return [
        p.read_bytes()
        for a in (asset, f"{asset}_audit")
        for p in data.part_files("warehouse", a, DS)
    ]


# ----------------------------------------------------------------------------------- memory
def _memory_child(root: str) -> None:
    """Child process: mask the day in process and print its figures as JSON."""
    from agentic_pipeline.masking import Masker

    os.environ.pop("RAY_ADDRESS", None)
    with Masker(n_workers=1) as masker:
        masker.pool.local  # build the analyzer first: its own memory is the baseline  # noqa: B018
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        figures = _mask_day(Path(root), "masked", masker)
        # what grows with the day in this process (diagnostics for the README)
        figures["pseudonym_cache"] = len(masker.pseudonyms._cache)
        figures["spacy_strings"] = len(masker.pool.local.nlp.vocab.strings)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures["analyzer_rss_mb"] = base
    print("RESULT " + json.dumps(figures))


def memory(episodes: list[int], rows_per_shard: int) -> None:
    print(f"memory: rows per shard {rows_per_shard}, analyzer in the masking process")
    print(
        f"{'episodes':>9} {'rows':>9} {'shards':>6} {'seconds':>8} {'eps/s':>6} "
        f"{'peak MB':>8} {'vs first':>8}"
    )
    first = None
    for n in episodes:
        with tempfile.TemporaryDirectory(prefix="mask-scale-") as tmp:
            prep = subprocess.run(
                [sys.executable, str(HERE), "_prepare", tmp, str(n), str(rows_per_shard)],
                check=True,
                capture_output=True,
                text=True,
            )
            info = json.loads(prep.stdout.strip().splitlines()[-1])
            child = subprocess.run(
                [sys.executable, str(HERE), "_memory", tmp],
                check=True,
                capture_output=True,
                text=True,
            )
            line = next(ln for ln in child.stdout.splitlines() if ln.startswith("RESULT "))
            fig = json.loads(line[len("RESULT ") :])
        first = first or fig["peak_rss_mb"]
        print(
            f"{n:>9} {info['rows']:>9} {fig['shards']:>6} {fig['seconds']:>8.1f} "
            f"{n / fig['seconds']:>6.1f} {fig['peak_rss_mb']:>8.0f} "
            f"{fig['peak_rss_mb'] / first:>7.2f}x  (analyzer alone {fig['analyzer_rss_mb']:.0f} MB,"
            f" pseudonym cache {fig['pseudonym_cache']}, spaCy strings {fig['spacy_strings']},"
            f" audit {fig['audit_mb']:.0f} MB)",
            flush=True,
        )


# ------------------------------------------------------------------------------- throughput
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_head(temp: Path, cpus: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    log = (temp / "head.log").open("wb")
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "ray"),
            "start",
            "--head",
            "--block",
            "--num-cpus",
            str(cpus),
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(port),
            "--ray-client-server-port",
            str(_free_port()),
            "--disable-usage-stats",
            "--include-dashboard=false",
            "--temp-dir",
            str(temp),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while b"block forever" not in (temp / "head.log").read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the Ray head did not start: see " + str(temp / "head.log"))
        time.sleep(0.5)
    return proc, f"127.0.0.1:{port}"


def _stop_head(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def throughput(episodes: int, rows_per_shard: int) -> None:
    from agentic_pipeline.masking import Masker

    logging.basicConfig(level=logging.ERROR)
    os.environ.pop("RAY_ADDRESS", None)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    tmp = Path(tempfile.mkdtemp(prefix="mask-tp-"))
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    proc = None
    try:
        info = _prepare(tmp, episodes, rows_per_shard)
        print(f"throughput: {episodes} episodes, {info['rows']} rows, {info['shards']} shards")
        proc, address = _start_head(temp, 2)
        tiny = ["Call Maria Lopez at +1 415 555 0134 tomorrow."] * 8
        results, overhead = {}, {}
        for name, kwargs in (
            ("local pool, 2 processes", {"n_workers": 2}),
            ("ray, 1 actor", {"ray_address": address, "ray_workers": 1}),
            ("ray, 2 actors", {"ray_address": address, "ray_workers": 2}),
        ):
            with Masker(**kwargs) as masker:
                masker.pool.analyze(tiny * 4, True)  # load the models before the clock
                if "ray_address" in kwargs:
                    masker.pool.analyze(tiny * 8, True)  # every actor warm
                fig = _mask_day(tmp, f"m{len(results)}", masker)
                calls = []
                for _ in range(10):
                    t = time.perf_counter()
                    masker.pool.analyze(tiny, True)
                    calls.append(time.perf_counter() - t)
                overhead[name] = sorted(calls)[len(calls) // 2]
                if "ray_address" in kwargs:
                    ray = masker.pool._ray
                    peaks = ray.get([a.peak_rss_mb.remote() for a in masker.pool.actors])
                    fig["actor_peak_mb"] = max(peaks)
            results[name] = fig
            extra = (
                f", actors' peak RSS {fig['actor_peak_mb']:.0f} MB"
                if "actor_peak_mb" in fig
                else ""
            )
            print(
                f"  {name:<24} {fig['seconds']:7.1f} s  {episodes / fig['seconds']:6.2f} "
                f"episodes/s (analysis phase {fig['analyse']:.1f} s){extra}",
                flush=True,
            )
        names = list(results)
        ratio = results[names[1]]["seconds"] / results[names[2]]["seconds"]
        phase = results[names[1]]["analyse"] / results[names[2]]["analyse"]
        print(f"  analysis phase only, 2 actors / 1 actor: {phase:.2f}x")
        print(
            f"  ratio 2 actors / 1 actor: {ratio:.2f}x  (local pool / 2 actors: "
            f"{results[names[0]]['seconds'] / results[names[2]]['seconds']:.2f}x)"
        )
        # per shard, mask_steps makes two analysis calls (NER strings, regex strings)
        per_shard = 2 * (overhead[names[2]] - overhead[names[0]])
        print(
            f"  analysis round trip of a tiny batch: local {overhead[names[0]] * 1000:.0f} ms, "
            f"ray {overhead[names[2]] * 1000:.0f} ms -> Ray overhead about "
            f"{max(per_shard, 0) * 1000:.0f} ms per shard"
        )
        same = [_day_bytes(tmp, f"m{i}") for i in range(3)]
        print(f"  same bytes (masked + audit) in the three runs: {same[0] == same[1] == same[2]}")
    finally:
        if proc is not None:
            _stop_head(proc)
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_prepare":
        print(json.dumps(_prepare(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "_memory":
        logging.basicConfig(level=logging.ERROR)
        _memory_child(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("memory", help="peak memory per day size")
    m.add_argument("--episodes", type=int, nargs="+", default=[1000, 10000, 50000])
    m.add_argument("--rows-per-shard", type=int, default=20_000)
    t = sub.add_parser("throughput", help="local pool vs 1 and 2 Ray actors")
    t.add_argument("--episodes", type=int, default=300)
    t.add_argument("--rows-per-shard", type=int, default=2_000)
    args = ap.parse_args()
    if args.cmd == "memory":
        memory(args.episodes, args.rows_per_shard)
    else:
        throughput(args.episodes, args.rows_per_shard)


if __name__ == "__main__":
    main()
