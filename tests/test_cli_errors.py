"""CLI errors are one line, never a traceback; a refused command leaves no run (issue 11.10)."""

import os
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from cli import main as cli

REPO = Path(__file__).resolve().parents[1]
YESTERDAY = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()


def run_cli(*args: str, data_dir: Path) -> tuple[int, str, float]:
    env = {**os.environ, "AGENTIC_PIPELINE_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    began = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr, time.perf_counter() - began


def _instance_runs(data_dir: Path) -> int:
    from dagster import DagsterInstance

    home = data_dir / "dagster_home"
    if not (home / "dagster.yaml").exists():
        return 0
    with DagsterInstance.from_config(str(home)) as instance:
        return len(instance.get_run_records())


def _simulate_one_day(data_dir: Path) -> None:
    from agentic_pipeline.demo import write_landing

    write_landing(data_dir, date.fromisoformat(YESTERDAY), 1, 3, seed=1)


@pytest.mark.parametrize(
    "args, expected, exit_code",
    [
        (["--start", "2999-01-01"], "has not ended yet", 2),
        (["--start", "{today}"], "has not ended yet", 2),  # resolved when the test runs
        (["--start", "2026-13-01"], "not a date", 2),
        (["--start", YESTERDAY, "--end", "2020-01-01"], "is before --start", 2),
        (["--start", YESTERDAY], "no landing files", 3),  # nothing to read
    ],
)
def test_bad_days_are_refused_in_one_line_before_dagster_loads(
    data_root, args, expected, exit_code
):
    # "today" is read at run time, not at collection: a suite that crosses midnight UTC (as CI's
    # did) would otherwise ask for a day that has ended by the time the test runs.
    today = datetime.now(UTC).date().isoformat()
    code, out, seconds = run_cli(
        "materialize", *(arg.format(today=today) for arg in args), data_dir=data_root
    )
    if datetime.now(UTC).date().isoformat() != today:
        pytest.skip("midnight UTC passed while the command ran")
    assert code == exit_code
    assert expected in out
    assert "Traceback" not in out, out
    lines = [line for line in out.strip().splitlines() if not line.startswith(" ")]
    assert lines[-1].count(expected) == 1  # argparse adds its usage line above its error line
    assert len(lines) <= 2, out
    assert seconds < 5  # refused before Dagster is imported (about 0.7 s here; generous for CI)
    assert _instance_runs(data_root) == 0  # a refused day leaves no failed run


@pytest.mark.parametrize(
    "selection, expected",
    [
        ("key:no_such_asset+", "matches no asset"),
        ("(((", "not a valid selection"),
        ("no_such_asset", "unknown asset"),
    ],
)
def test_bad_selection_is_an_error_and_runs_nothing(data_root, selection, expected):
    _simulate_one_day(data_root)
    code, out, _ = run_cli(
        "materialize", "--start", YESTERDAY, "--select", selection, data_dir=data_root
    )
    assert code == 2, out
    assert expected in out
    assert "Traceback" not in out
    assert _instance_runs(data_root) == 0
    assert not (data_root / "warehouse").exists() or not any((data_root / "warehouse").iterdir())


def test_unwritable_zone_fails_at_once(data_root):
    _simulate_one_day(data_root)
    (data_root / "warehouse").write_text("not a folder")  # a zone that cannot take a partition
    code, out, seconds = run_cli("materialize", "--start", YESTERDAY, data_dir=data_root)
    assert code == 2
    assert "is not writable" in out and "Traceback" not in out
    assert seconds < 5
    assert _instance_runs(data_root) == 0


def test_unexpected_error_is_one_line_with_debug_hint(monkeypatch, capsys, tmp_path):
    def boom(args):
        try:
            raise KeyError("inner")
        except KeyError as exc:
            raise RuntimeError("stored table is corrupt\nsecond line") from exc

    monkeypatch.setattr(cli, "cmd_report", boom)
    code = cli.main(["report", "--date", "2026-11-01", "--data-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "RuntimeError: stored table is corrupt" in out and "--debug" in out
    assert "Traceback" not in out and "second line" not in out

    with pytest.raises(RuntimeError):  # --debug keeps the traceback for developers
        cli.main(["report", "--date", "2026-11-01", "--data-dir", str(tmp_path), "--debug"])


def test_argument_errors_are_refused_by_argparse_quickly(data_root):
    for args, expected in (
        (["simulate", "--start", "2026-11-01", "--days", "0"], "must be at least 1"),
        (["simulate", "--start", "2026-11-01", "--transition-share", "2"], "between 0 and 1"),
        (["report", "--date", "2026-11-40"], "not a date"),
    ):
        code, out, seconds = run_cli(*args, data_dir=data_root)
        assert code == 2 and expected in out and "Traceback" not in out, out
        assert seconds < 5


def test_version_and_help_show_formats_and_defaults(data_root):
    code, out, _ = run_cli("--version", data_dir=data_root)
    assert code == 0 and out.startswith("agentic-pipeline ")
    code, out, _ = run_cli("materialize", "--help", data_dir=data_root)
    assert code == 0
    assert "--start YYYY-MM-DD" in out and "(default: *)" in out


def test_report_json_is_strict_json(data_root, capsys):
    import json

    code = cli.main(["report", "--date", "2026-11-01", "--json", "--data-dir", str(data_root)])
    payload = json.loads(capsys.readouterr().out)
    assert code == 3 and payload == {"date": "2026-11-01", "error": "no policy decision stored"}


def test_report_of_today_does_not_suggest_a_refused_command(data_root, capsys):
    """Issue 15: `report --date <today>` suggested `materialize --start <today>`, which fails."""
    today = datetime.now(UTC).date().isoformat()
    assert cli.main(["report", "--date", today, "--data-dir", str(data_root)]) == 3
    out = capsys.readouterr().out
    assert "has not ended yet" in out and "materialize --start" not in out
    assert cli.main(["report", "--date", YESTERDAY, "--data-dir", str(data_root)]) == 3
    assert f"materialize --start {YESTERDAY}" in capsys.readouterr().out


# --- issue #23: no silent empty success, read-only commands create nothing ----------------------


def _one_error_line(out: str) -> str:
    lines = [line for line in out.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in out, out
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ["report", "--date", "2026-11-01"],
        ["report", "--date", "2026-11-01", "--json"],
        ["export", "--start", "2026-11-01", "--format", "sft", "--out", "x.jsonl"],
        ["materialize", "--start", YESTERDAY],  # writes, but finds nothing to read first
    ],
)
def test_commands_on_a_missing_root_fail_and_create_nothing(tmp_path, args):
    missing = tmp_path / "mistyped-data-root"
    code, out, _ = run_cli(*args, data_dir=missing)
    assert code == 3
    expected = "no landing files" if args[0] == "materialize" else "no data root at"
    if "--json" not in args:
        assert expected in _one_error_line(out) and str(missing) in out
    assert not missing.exists(), "a read-only command created the data root"
    assert not (REPO / "x.jsonl").exists()


def test_export_of_days_without_datasets_fails_in_one_line(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / "warehouse").mkdir(parents=True)
    monkeypatch.setenv("AGENTIC_PIPELINE_DEV_MODE", "1")
    out_file = tmp_path / "sft.jsonl"
    code, out, _ = run_cli(
        "export", "--start", "2026-11-01", "--end", "2026-11-03", "--format", "sft",
        "--out", str(out_file), data_dir=root,
    )  # fmt: skip
    assert code == 3 and "no sft dataset stored for 2026-11-01 .. 2026-11-03" in _one_error_line(
        out
    )
    assert not out_file.exists()
    assert sorted(p.name for p in root.iterdir()) == ["warehouse"]  # no dagster_home made


@pytest.mark.parametrize(
    "fmt, out",
    [("rl", "x.jsonl"), ("sft", "x.parquet"), ("dpo", "x.json"), ("dpo-openai", "x")],
)
def test_export_refuses_an_out_extension_that_does_not_match_the_format(tmp_path, fmt, out):
    code, text, seconds = run_cli(
        "export", "--start", "2026-11-01", "--format", fmt, "--out", str(tmp_path / out),
        data_dir=tmp_path,
    )  # fmt: skip
    assert code == 2 and "does not end in" in _one_error_line(text)
    assert not (tmp_path / out).exists() and seconds < 5


def test_export_writes_the_stored_days_and_names_the_missing_ones(tmp_path, monkeypatch):
    from agentic_pipeline.training import TrainingDatasets, write_day

    messages = [
        {"role": "user", "content": "close my case"},
        {"role": "assistant", "content": "ok"},
    ]
    meta = {"episode_id": "e1", "ds": "2026-11-02", "reward_version": "v1", "reward": 1.0}
    write_day(
        tmp_path,
        "2026-11-02",
        TrainingDatasets(sft=[{"messages": messages, "tools": [], "metadata": meta}]),
    )
    monkeypatch.setenv("AGENTIC_PIPELINE_DEV_MODE", "1")
    out_file = tmp_path / "out.jsonl"
    code, out, _ = run_cli(
        "export", "--start", "2026-11-01", "--end", "2026-11-02", "--format", "sft",
        "--out", str(out_file), data_dir=tmp_path,
    )  # fmt: skip
    assert code == 0, out
    assert (
        "wrote 1 sft record(s) from 1 day(s)" in out and "no dataset stored for 2026-11-01" in out
    )
    assert len(out_file.read_text().splitlines()) == 1


def test_help_lists_the_exit_codes_of_every_command(tmp_path):
    for command in ([], ["materialize"], ["report"], ["export"], ["erase"], ["simulate"]):
        code, out, _ = run_cli(*command, "--help", data_dir=tmp_path)
        assert code == 0
        for line in ("0    done", "1    a run failed", "2    refused", "3    nothing to read"):
            assert line in out, (command, out)
