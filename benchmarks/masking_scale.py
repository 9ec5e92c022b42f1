"""Masking at scale (issue #16, point 5): memory per day size with shards, Ray against the pool.

Every measured run is a fresh child process that masks a stored day shard by shard exactly as the
``masked_trajectories`` asset does it (``shard_masker(...).map(shards)``, the masked shards
streamed into the day's staging folder, the audit kept as compressed Parquet), so its peak RSS is
the driver's, and the workers' peaks (local analysis processes, or Ray actors) are read from them.
The models are loaded before the clock starts (the actors' start-up is reported on its own).

``memory``: for each day size, a simulated day is written sharded (``--rows-per-shard``) to a
temporary data root, then masked with ``--mode`` ``in-process`` (default: one process does all,
its peak is the peak of one worker), ``pool`` (2 local analysis processes) or ``ray`` (2 actors on a
local Ray head with 2 CPUs, whole shards each): peak RSS of the driver and of each worker.

``throughput``: one day masked by the local pool (2 processes), by 1 Ray actor and by 2 Ray actors
(whole shards on each) on a local Ray head with 2 CPUs started here (loopback, usage statistics
off, the key in the head's environment as a worker pod has it from a Secret). Prints whole-day time
and episodes per second, the ratio 2 actors / 1 actor, the actors' start-up, Ray's overhead per
shard (round trip of a one-row shard minus its masking time on the actor), peak RSS of driver and
workers, and whether the three runs wrote the same bytes.

    python benchmarks/masking_scale.py memory --episodes 1000 10000 50000
    python benchmarks/masking_scale.py memory --mode ray --episodes 1000 10000 50000
    python benchmarks/masking_scale.py throughput --episodes 1000

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
sys.path.insert(0, str(HERE.parents[1]))  # the repo root: benchmarks.masking_eval


def _prepare(root: Path, episodes: int, rows_per_shard: int, seed: int = 11) -> dict:
    """A simulated day of ``episodes`` episodes, stored sharded under ``root`` (restricted zone)."""
    from agentic_pipeline.demo import generate_episodes
    from agentic_pipeline.storage import DataRoot
    from benchmarks.masking_eval.evaluation import episodes_corpus

    day = dt.date.fromisoformat(DS)
    corpus = episodes_corpus(generate_episodes(day, episodes, seed), day)
    data = DataRoot(root, rows_per_shard=rows_per_shard)
    data.write_partition("restricted", "raw_agent_logs", DS, corpus.table)
    return {
        "rows": corpus.table.num_rows,
        "shards": len(data.part_files("restricted", "raw_agent_logs", DS)),
    }


def _peak_mb(pid: int | None = None) -> float:
    """Peak resident memory (MB) of this process, or of process ``pid`` (Linux ``VmHWM``)."""
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _child(root: Path, out: str, mode: str, address: str, workers: int) -> dict:
    """Mask the stored day shard by shard, as the asset does (``mode``: in-process, pool or ray);
    the masked day goes to ``out``. Returns the figures of this run."""
    from agentic_pipeline.masking.keys import masking_key
    from agentic_pipeline.masking.shards import RayShardMasker, shard_masker
    from agentic_pipeline.storage import DataRoot
    from resources.io_manager import SpooledShards

    if mode != "ray":
        os.environ.pop("RAY_ADDRESS", None)
    key = masking_key()  # the benchmark's key (the Ray head has it in its environment too)
    data = DataRoot(root)
    tiny = next(iter(data.iter_shards("restricted", "raw_agent_logs", DS))).slice(0, 1)
    t = time.perf_counter()
    if mode == "ray":
        sm = shard_masker(key, address=address, ray_workers=workers)
    else:
        sm = shard_masker(key, n_workers=1 if mode == "in-process" else workers)
    figures: dict = {"mode": mode, "workers": workers}
    with sm:
        if not isinstance(sm, RayShardMasker):  # models (and pool processes) before the clock
            sm.masker.pool.local  # noqa: B018
            sm.masker.pool.analyze(["Call Maria Lopez at +1 415 555 0134 now."] * 16, True)
        figures["startup_seconds"] = time.perf_counter() - t
        figures["driver_before_mb"] = _peak_mb()
        audits = SpooledShards()
        counts = {"rows": 0, "shards": 0, "worker_seconds": 0.0, "worker_cpu": 0.0}

        def masked():
            for result in sm.map(data.iter_shards("restricted", "raw_agent_logs", DS)):
                audits.append(result.audit)
                counts["rows"] += result.stats["rows"]
                counts["shards"] += 1
                counts["worker_seconds"] += result.stats["seconds"].get("worker", 0.0)
                counts["worker_cpu"] += result.stats["seconds"].get("worker_cpu", 0.0)
                yield result.masked

        t, cpu = time.perf_counter(), time.process_time()
        data.write_partition_shards("warehouse", out, DS, masked())
        data.write_partition_shards("warehouse", f"{out}_audit", DS, audits)
        figures["seconds"] = time.perf_counter() - t
        figures["driver_cpu"] = time.process_time() - cpu  # this process only (not the pool's)
        figures.update(counts)
        figures["audit_mb"] = sum(p.size for p in audits._parts) / 2**20
        if isinstance(sm, RayShardMasker):
            calls = []
            for _ in range(10):  # a one-row shard: what Ray adds to a shard's masking
                t = time.perf_counter()
                (result,) = list(sm.map([tiny]))
                calls.append(time.perf_counter() - t - result.stats["seconds"]["worker"])
            figures["overhead_ms"] = 1000 * sorted(calls)[len(calls) // 2]
            figures["worker_peaks_mb"] = [i["peak_rss_mb"] for i in sm.actor_info()]
            figures["startup_actor_seconds"] = max(i["startup_seconds"] for i in sm.actor_info())
        else:
            pool = sm.masker.pool
            figures["worker_peaks_mb"] = [_peak_mb(pid) for pid in pool.worker_pids()]
            figures["pseudonym_cache"] = len(sm.masker.pseudonyms._cache)
            figures["spacy_strings"] = len(pool.local.nlp.vocab.strings)
    figures["driver_peak_mb"] = _peak_mb()
    return figures


def _run_child(root: Path, out: str, mode: str, address: str = "", workers: int = 2) -> dict:
    """``_child`` in a fresh process (its peak RSS is this run's alone)."""
    proc = subprocess.run(
        [sys.executable, str(HERE), "_child", str(root), out, mode, address, str(workers)],
        capture_output=True,
        text=True,
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        raise RuntimeError(f"{mode} run failed:\n{proc.stderr[-3000:]}")
    return json.loads(line[len("RESULT ") :])


def _prepare_in_child(root: Path, episodes: int, rows_per_shard: int) -> dict:
    prep = subprocess.run(
        [sys.executable, str(HERE), "_prepare", str(root), str(episodes), str(rows_per_shard)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(prep.stdout.strip().splitlines()[-1])


def _day_bytes(root: Path, asset: str) -> list[bytes]:
    from agentic_pipeline.storage import DataRoot

    data = DataRoot(root)
    return [
        p.read_bytes()
        for a in (asset, f"{asset}_audit")
        for p in data.part_files("warehouse", a, DS)
    ]


def _ensure_key() -> None:
    """A random key for the benchmark (driver and Ray head), unless one is set."""
    import secrets

    if not os.environ.get("AGENTIC_PIPELINE_MASKING_KEY"):
        os.environ["AGENTIC_PIPELINE_MASKING_KEY"] = "bench-" + secrets.token_hex(16)


# ------------------------------------------------------------------------------ Ray head
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_head(temp: Path, cpus: int) -> tuple[subprocess.Popen, str]:
    """A local Ray head on loopback, started the documented way (token authentication), with this
    environment: the masking key and the cluster's token (a random one unless one is set)."""
    import secrets

    os.environ.setdefault("RAY_AUTH_MODE", "token")  # the driver (this process, its children)
    os.environ.setdefault("RAY_AUTH_TOKEN", "bench-" + secrets.token_hex(16))
    port = _free_port()
    log = (temp / "head.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentic_pipeline.masking.ray_cluster",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--client-port",
            str(_free_port()),
            "--num-cpus",
            str(cpus),
            "--temp-dir",
            str(temp),
        ],
        cwd=HERE.parents[1],
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


# ----------------------------------------------------------------------------------- memory
def memory(episodes: list[int], rows_per_shard: int, mode: str) -> None:
    _ensure_key()
    print(f"memory: rows per shard {rows_per_shard}, mode {mode}")
    print(
        f"{'episodes':>9} {'rows':>9} {'shards':>6} {'seconds':>8} {'eps/s':>6} "
        f"{'driver MB':>9} {'worker MB':>9} {'vs first (driver, worker)':>26}"
    )
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    proc, address = _start_head(temp, 2) if mode == "ray" else (None, "")
    first: tuple[float, float] | None = None
    try:
        for n in episodes:
            with tempfile.TemporaryDirectory(prefix="mask-scale-") as tmp:
                info = _prepare_in_child(Path(tmp), n, rows_per_shard)
                fig = _run_child(Path(tmp), "masked", mode, address, 2)
            driver = fig["driver_peak_mb"]
            worker = max(fig["worker_peaks_mb"] or [driver])  # in-process: the driver is it
            first = first or (driver, worker)
            extra = ""
            if "pseudonym_cache" in fig:
                extra = (
                    f"  (pseudonym cache {fig['pseudonym_cache']}, spaCy strings "
                    f"{fig['spacy_strings']}, audit {fig['audit_mb']:.0f} MB)"
                )
            print(
                f"{n:>9} {info['rows']:>9} {fig['shards']:>6} {fig['seconds']:>8.1f} "
                f"{n / fig['seconds']:>6.1f} {driver:>9.0f} {worker:>9.0f} "
                f"{driver / first[0]:>12.2f}x {worker / first[1]:>11.2f}x{extra}",
                flush=True,
            )
    finally:
        if proc is not None:
            _stop_head(proc)
        shutil.rmtree(temp, ignore_errors=True)


# ------------------------------------------------------------------------------- throughput
def throughput(episodes: int, rows_per_shard: int) -> None:
    _ensure_key()
    os.environ.pop("RAY_ADDRESS", None)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    tmp = Path(tempfile.mkdtemp(prefix="mask-tp-"))
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    proc = None
    try:
        info = _prepare_in_child(tmp, episodes, rows_per_shard)
        print(f"throughput: {episodes} episodes, {info['rows']} rows, {info['shards']} shards")
        proc, address = _start_head(temp, 2)
        results = {}
        for name, mode, workers in (
            ("local pool, 2 processes", "pool", 2),
            ("ray, 1 actor", "ray", 1),
            ("ray, 2 actors", "ray", 2),
        ):
            fig = _run_child(tmp, f"m{len(results)}", mode, address, workers)
            results[name] = fig
            workers_mb = ", ".join(f"{mb:.0f}" for mb in fig["worker_peaks_mb"]) or "-"
            ray_part = ""
            if mode == "ray":
                ray_part = (
                    f", actors busy {fig['worker_seconds'] / (workers * fig['seconds']):.0%}"
                    f", CPU actors {fig['worker_cpu']:.1f} s driver {fig['driver_cpu']:.1f} s"
                    f", overhead {fig['overhead_ms']:.0f} ms/shard"
                )
            print(
                f"  {name:<24} {fig['seconds']:7.1f} s  {episodes / fig['seconds']:6.2f} "
                f"episodes/s  start-up {fig['startup_seconds']:.1f} s{ray_part}; peak RSS "
                f"driver {fig['driver_peak_mb']:.0f} MB, workers {workers_mb} MB",
                flush=True,
            )
        one, two = results["ray, 1 actor"], results["ray, 2 actors"]
        local = results["local pool, 2 processes"]
        print(
            f"  ratio 2 actors / 1 actor (whole day): {one['seconds'] / two['seconds']:.2f}x  "
            f"(2 actors / local pool: {local['seconds'] / two['seconds']:.2f}x)"
        )
        print(
            f"  Ray overhead per shard (one-row shard round trip minus its masking): "
            f"1 actor {one['overhead_ms']:.0f} ms, 2 actors {two['overhead_ms']:.0f} ms; "
            f"{info['shards']} shards of up to {rows_per_shard} rows"
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
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        logging.basicConfig(level=logging.ERROR)
        root, out, mode, address, workers = sys.argv[2:7]
        figures = _child(Path(root), out, mode, address, int(workers))
        print("RESULT " + json.dumps(figures))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("memory", help="peak memory of driver and workers per day size")
    m.add_argument("--episodes", type=int, nargs="+", default=[1000, 10000, 50000])
    m.add_argument("--rows-per-shard", type=int, default=20_000)
    m.add_argument("--mode", choices=("in-process", "pool", "ray"), default="in-process")
    t = sub.add_parser("throughput", help="local pool vs 1 and 2 Ray actors, whole shards")
    t.add_argument("--episodes", type=int, default=300)
    t.add_argument("--rows-per-shard", type=int, default=1_000)
    args = ap.parse_args()
    if args.cmd == "memory":
        memory(args.episodes, args.rows_per_shard, args.mode)
    else:
        throughput(args.episodes, args.rows_per_shard)


if __name__ == "__main__":
    main()
