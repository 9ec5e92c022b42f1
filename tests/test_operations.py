"""Operating the whole pipeline: a 10-day backfill of every asset and check, then erasure."""

import datetime as dt
import json
from pathlib import Path

import pytest
from dagster import DagsterEventType, DagsterInstance

from agentic_pipeline.demo import generate_episodes, write_landing
from agentic_pipeline.storage import DataRoot
from cli.main import main as cli_main

START = dt.date(2026, 10, 1)
DAYS = [(START + dt.timedelta(days=i)).isoformat() for i in range(10)]
EPISODES_PER_DAY = 8


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory):
    """Ten simulated days, every asset materialized through the project CLI."""
    root = tmp_path_factory.mktemp("ops") / "data"
    write_landing(root, START, len(DAYS), EPISODES_PER_DAY, seed=11)
    code = cli_main(["materialize", "--start", DAYS[0], "--end", DAYS[-1], "--data-dir", str(root)])
    assert code == 0
    return root


@pytest.mark.slow
def test_ten_day_backfill_materializes_every_asset_and_check(backfilled):
    root = backfilled
    from assets.definitions import build_definitions

    defs = build_definitions(str(root))
    keys = defs.resolve_all_asset_keys()
    with DagsterInstance.from_config(str(root / "dagster_home")) as instance:
        runs = instance.get_runs()
        assert len(runs) == len(DAYS) and all(r.is_success for r in runs)
        for key in keys:
            assert instance.get_materialized_partitions(key) == set(DAYS), key
        expected = {k.name for k in defs.resolve_asset_graph().asset_check_keys}
        assert {"no_personal_data_in_masked", "rewards_within_bounds"} <= expected
        for run in runs:
            records = instance.get_records_for_run(
                run.run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION
            ).records
            results = [r.event_log_entry.dagster_event.event_specific_data for r in records]
            evaluations = {e.check_name: e.passed for e in results}
            assert set(evaluations) == expected, run.tags.get("dagster/partition")
            assert all(evaluations.values()), evaluations
    data = DataRoot(root)
    for ds in DAYS:
        replayed = data.read_partition("warehouse", "replayed_episodes", ds)
        assert replayed.num_rows == EPISODES_PER_DAY
        decision = data.read_partition("warehouse", "policy_selection", ds).to_pandas()
        assert (decision["window_end"] == ds).all()
        registry = json.loads(
            (root / "warehouse" / "policy_registry" / f"ds={ds}" / "registry.json").read_text()
        )
        assert registry["window_end"] == ds


@pytest.mark.slow
def test_erasing_a_customer_leaves_nothing_of_theirs(backfilled, capsys):
    root = backfilled
    email = _found_email(root)
    assert cli_main(["erase", "--subject", email, "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "receipt" in out and email not in out
    from agentic_pipeline.erasure import remaining_mentions, subject_kinds
    from agentic_pipeline.masking import DEV_MASKING_KEY, pseudonym_for

    token = pseudonym_for(email, subject_kinds(email)[0], DEV_MASKING_KEY)
    assert remaining_mentions(DataRoot(root), email, {"EMAIL_ADDRESS": token}) == []
    (receipt_path,) = (root / "warehouse" / "erasure_receipts").glob("*.json")
    receipt = json.loads(receipt_path.read_text())
    assert email not in receipt_path.read_text()
    assert receipt["pseudonyms"] == {"EMAIL_ADDRESS": token}
    assert receipt["rows_removed"] > 0 and receipt["episodes_removed"] >= 1
    touched = {(p["asset"], p["ds"]) for p in receipt["partitions_touched"]}
    assert {a for a, _ in touched} >= {
        "raw_agent_logs",
        "masked_trajectories",
        "replayed_episodes",
        "episode_rewards",
    }
    assert all(r["success"] for r in receipt["rematerialized"])
    assert receipt["verified_clean"] is True
    assert "landing" in {p["zone"] for p in receipt["partitions_touched"]}
    # re-ingesting an erased day (a backfill, the late-file sensor) cannot bring them back
    days = sorted({p["ds"] for p in receipt["partitions_touched"]})
    assert (
        cli_main(
            [
                "materialize",
                "--start",
                days[0],
                "--select",
                "raw_agent_logs",
                "--data-dir",
                str(root),
            ]
        )
        == 0
    )
    assert remaining_mentions(DataRoot(root), email, {"EMAIL_ADDRESS": token}) == []


def _found_email(root: Path) -> str:
    """An email planted by the simulator that the stored raw logs really contain."""
    data = DataRoot(root)
    for ds in DAYS:
        raw = "\n".join(
            str(v)
            for v in data.read_partition("restricted", "raw_agent_logs", ds)
            .column("content")
            .to_pylist()
        )
        for episode in generate_episodes(dt.date.fromisoformat(ds), EPISODES_PER_DAY, seed=11):
            if episode.customer["email"] in raw:
                return episode.customer["email"]
    raise AssertionError("no planted email found in the raw logs")


def test_erasing_an_unknown_subject_changes_nothing(backfilled, capsys):
    root = backfilled
    before = sorted((p, p.stat().st_mtime) for p in (root / "warehouse").rglob("*.parquet"))
    assert cli_main(["erase", "--subject", "nobody@nowhere.example", "--data-dir", str(root)]) == 2
    assert "nothing was changed" in capsys.readouterr().out
    after = sorted((p, p.stat().st_mtime) for p in (root / "warehouse").rglob("*.parquet"))
    assert before == after


def test_backfill_before_the_start_date_is_refused(backfilled, capsys):
    with DagsterInstance.from_config(str(backfilled / "dagster_home")) as instance:
        runs_before = len(instance.get_run_records())
    early = backfilled / "landing" / "2020-01-01"
    early.mkdir(parents=True)
    (early / "old.jsonl").write_text("{}\n")
    try:
        code = cli_main(["materialize", "--start", "2020-01-01", "--data-dir", str(backfilled)])
    finally:
        (early / "old.jsonl").unlink()
        early.rmdir()
    assert code == 2
    assert "before the partitions' start date" in capsys.readouterr().out
    with DagsterInstance.from_config(str(backfilled / "dagster_home")) as instance:
        assert len(instance.get_run_records()) == runs_before  # no run was started
