"""Fair day budgets and bounded cost per record (issue #22, points 5 and 6, and the hostile day).

- no single file can use up a day: every file is measured first, a bomb is refused whole, the
  day's bytes and records go to the smallest files first, and the good records of other files are
  always ingested;
- records refused by a day budget fail the blocking check ``raw_day_within_budget``, and the CLI
  exits non-zero with one line;
- a record whose text would cost masking more than ``max_record_analysis_chars`` characters of
  analysis is quarantined at ingestion, with the reason;
- a day with a record bomb, a 5,001-digit integer, a deeply nested JSON string, a symlink and 60
  good episodes materializes through the CLI with all 60 written and the bomb quarantined.
"""

import datetime as dt
import gzip
import json
import os
import resource
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import chat_episode, write_jsonl

from agentic_pipeline.demo import generate_episodes
from agentic_pipeline.ingest import IngestLimits, ingest_day
from agentic_pipeline.ingest.limits import ANALYSED_COLUMNS, BUDGET_REASON
from agentic_pipeline.storage import DataRoot
from cli.main import main as cli_main

REPO = Path(__file__).resolve().parents[1]
DS = "2026-10-12"
MiB = 1 << 20


def _bomb(path: Path, line: bytes, expanded: int) -> int:
    """A gzip of ``line`` repeated to ``expanded`` bytes, written as a stream (never whole)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = line * max(1, MiB // len(line))
    written = 0
    with path.open("wb") as fh:
        while written < expanded:
            fh.write(compressor.compress(block))
            written += len(block)
        fh.write(compressor.flush())
    return path.stat().st_size


def _good(prefix: str, n: int) -> list[dict]:
    return [chat_episode(f"{prefix}{i}") for i in range(n)]


def test_a_small_file_sorted_first_cannot_empty_the_day(data_root):
    """The attack: a 2 MB gzip named to sort first used up the 256 MiB day; 0 of 100 ingested."""
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    _bomb(
        folder / "0000-first.jsonl.gz", json.dumps(chat_episode("dup")).encode() + b"\n", 40 * MiB
    )
    write_jsonl(folder / "episodes.jsonl", _good("g", 100))
    limits = IngestLimits(max_file_bytes=32 * MiB, max_day_bytes=64 * MiB)
    result = ingest_day(folder, DS, limits=limits)
    assert result.stats.episodes == 100
    (row,) = result.quarantine.to_pylist()
    assert row["source_file"] == "0000-first.jsonl.gz" and "refused whole" in row["reason"]
    # a file under the file limit but over what is left of the day is refused whole
    limits = IngestLimits(max_file_bytes=64 * MiB, max_day_bytes=40 * MiB)
    result = ingest_day(folder, DS, limits=limits)
    assert result.stats.episodes == 100 and result.stats.refused_by_budget == 1
    assert result.quarantine.column("reason")[0].as_py().startswith(BUDGET_REASON)


def test_the_day_goes_to_the_smallest_files_first(data_root):
    folder = data_root / "landing" / DS
    for name, n in (("a", 50), ("b", 5), ("c", 5), ("d", 30)):
        write_jsonl(folder / f"{name}.jsonl", _good(name, n))
    result = ingest_day(folder, DS, limits=IngestLimits(max_day_records=60))
    # smallest first: 5, 5 and 30 fit in the 60 records; 50 does not fit the 20 left
    episodes = set(result.steps.column("episode_id").to_pylist())
    assert {e[0] for e in episodes} == {"b", "c", "d"} and len(episodes) == 40
    assert result.stats.refused_by_budget == 1
    s = result.stats
    assert s.records_read == s.records_accepted + s.records_quarantined


def test_records_refused_by_a_budget_fail_the_day_and_the_cli_exits_non_zero(
    data_root, monkeypatch, capsys
):
    from resources.data_root import DataRootResource

    folder = data_root / "landing" / DS
    write_jsonl(folder / "a.jsonl", _good("a", 40))
    write_jsonl(folder / "b.jsonl", _good("b", 3))
    monkeypatch.setattr(
        DataRootResource, "ingest_limits", lambda self: IngestLimits(max_day_records=30)
    )
    code = cli_main(["materialize", "--start", DS, "--data-dir", str(data_root)])
    out = capsys.readouterr().out
    assert code == 1
    flat = " ".join(out.split())  # one line (the console wraps it at its width)
    assert f"{DS} raw_agent_logs_raw_day_within_budget: records refused by the day budget" in flat
    assert "raise the day limits of the data_root resource" in flat
    root = DataRoot(data_root)
    # the good records of the other file are ingested; nothing downstream ran for the day
    assert root.read_partition("restricted", "raw_agent_logs", DS).num_rows > 0
    assert not root.has_partition("warehouse", "masked_trajectories", DS)


def test_a_record_over_the_analysis_budget_is_quarantined_at_ingestion(data_root):
    folder = data_root / "landing" / DS
    dense = chat_episode("dense")
    dense["messages"][0]["content"] = "Reach Ann Lee at +1 212 555 0147. " * 2_000  # 68k chars
    write_jsonl(folder / "a.jsonl", [dense, chat_episode("ok")])
    result = ingest_day(folder, DS, limits=IngestLimits(max_record_analysis_chars=64 * 1024))
    assert set(result.steps.column("episode_id").to_pylist()) == {"ok"}
    (reason,) = result.quarantine.column("reason").to_pylist()
    assert reason.startswith("record analysis budget exceeded")
    assert "Ann" not in reason and str(64 * 1024) in reason
    # under the budget it is taken
    result = ingest_day(folder, DS, limits=IngestLimits(max_record_analysis_chars=80 * 1024))
    assert result.stats.episodes == 2


def test_a_long_run_without_whitespace_is_quarantined_at_ingestion(data_root):
    """spaCy's tokenizer is quadratic in such a run (4,000 brackets: about 5 s)."""
    folder = data_root / "landing" / DS
    deep = chat_episode("deep")
    deep["messages"][0]["content"] = "[" * 3_000 + "]" * 3_000
    url = chat_episode("url")
    url["messages"][0]["content"] = "see https://example.org/" + "a/b?c=d&" * 25
    write_jsonl(folder / "a.jsonl", [deep, url])
    result = ingest_day(folder, DS)
    assert set(result.steps.column("episode_id").to_pylist()) == {"url"}
    (reason,) = result.quarantine.column("reason").to_pylist()
    assert reason.startswith("record analysis budget exceeded: a run of 6000 characters")


def test_the_analysed_columns_are_the_masked_columns():
    from agentic_pipeline.masking import MASK_COLUMNS

    assert tuple(ANALYSED_COLUMNS) == tuple(MASK_COLUMNS)


def test_real_benchmark_records_fit_the_default_analysis_budget(data_root, tau_bench_file):
    folder = data_root / "landing" / DS
    folder.mkdir(parents=True)
    (folder / "gpt-4o-airline.json").write_bytes(tau_bench_file.read_bytes())
    tau2 = REPO.parent / "shared" / "external" / "tau2-airline" / "airline_run1.json"
    if tau2.exists():
        (folder / "airline_run1.json").write_bytes(tau2.read_bytes())
    result = ingest_day(folder, DS)
    reasons = result.quarantine.column("reason").to_pylist()
    assert not [r for r in reasons if r.startswith("record analysis budget")]
    assert result.stats.episodes > 0


def _hostile_day(root: Path, bomb_bytes: int) -> set[str]:
    """The day of the issue's 'Done when': a record bomb, a 5,001-digit integer, a deeply nested
    JSON string, a symlink, and 60 good simulator episodes. Returns the good episode ids."""
    folder = root / "landing" / DS
    folder.mkdir(parents=True, exist_ok=True)
    good = [ep.record for ep in generate_episodes(dt.date.fromisoformat(DS), 60, seed=3)]
    with gzip.open(folder / "episodes.jsonl.gz", "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in good)
    line = json.dumps(good[0]).encode() + b"\n"  # valid lines, repeated
    _bomb(folder / "0-bomb.jsonl.gz", line, bomb_bytes)
    big_int = b'{"episode_id": "int", "messages": [], "reward": ' + b"7" * 5001 + b"}"
    deep = chat_episode("deep")
    deep["messages"][0]["content"] = "[" * 50_000 + "]" * 50_000
    write_jsonl(folder / "odd.jsonl", [big_int, deep])
    os.symlink("/etc/passwd", folder / "passwd.jsonl")
    return {r["episode_id"] for r in good}


@pytest.mark.slow
def test_a_hostile_day_materializes_with_every_good_episode(tmp_path):
    """Through the CLI, in its own process (so its peak memory is its own)."""
    root = tmp_path / "data"
    good = _hostile_day(root, bomb_bytes=400 * MiB)
    env = {**os.environ, "AGENTIC_PIPELINE_DATA_DIR": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "materialize", "--start", DS, "--data-dir", str(root)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert peak_kib < 2 * 1024 * 1024 or peak_kib == before, peak_kib
    data = DataRoot(root)
    masked = data.read_partition("warehouse", "masked_trajectories", DS, columns=["episode_id"])
    assert good <= set(masked.column("episode_id").to_pylist())
    quarantine = data.read_partition("restricted", "raw_quarantine", DS).to_pylist()
    by_file = {r["source_file"]: r["reason"] for r in quarantine}
    assert "refused whole" in by_file["0-bomb.jsonl.gz"]
    assert "symbolic link" in by_file["passwd.jsonl"]
    assert any("number too long" in r["reason"] for r in quarantine)
