"""After ``erase``, every re-materialized day's checks have a result (issue #23, point 4).

The erasure rewrites the raw and masked days itself and reports them to Dagster as runless
materializations; without a check run after that, the UI showed the erased day's blocking PII
check as "Missing". Every check of every asset stored for an erased day must now have an
evaluation of that day that targets the asset's newest materialization.
"""

import datetime as dt

from conftest import write_jsonl
from dagster import AssetKey, DagsterEventType, DagsterInstance, EventRecordsFilter

from agentic_pipeline.demo import generate_episodes
from assets.definitions import build_definitions
from cli.main import main as cli_main

DAYS = [dt.date(2026, 10, 6), dt.date(2026, 10, 7)]


def _latest_materialization(instance, key: AssetKey, ds: str) -> int | None:
    from dagster import AssetRecordsFilter

    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=key, asset_partitions=[ds]), limit=1
    ).records
    return records[0].storage_id if records else None


def test_every_check_of_an_erased_day_has_a_result_for_its_new_data(tmp_path):
    root = tmp_path / "data"
    subject, other = generate_episodes(DAYS[0], 2, seed=31)
    later, _ = generate_episodes(DAYS[1], 2, seed=32)
    write_jsonl(root / "landing" / DAYS[0].isoformat() / "e.jsonl", [subject.record, other.record])
    write_jsonl(root / "landing" / DAYS[1].isoformat() / "e.jsonl", [later.record])
    start, end = DAYS[0].isoformat(), DAYS[1].isoformat()
    assert cli_main(["materialize", "--start", start, "--end", end, "--data-dir", str(root)]) == 0
    email = subject.customer["email"]
    assert cli_main(["erase", "--subject", email, "--data-dir", str(root)]) == 0

    graph = build_definitions(str(root)).resolve_asset_graph()
    with DagsterInstance.from_config(str(root / "dagster_home")) as instance:
        evaluations = [
            r.event_log_entry.dagster_event.event_specific_data
            for r in instance.get_event_records(
                EventRecordsFilter(event_type=DagsterEventType.ASSET_CHECK_EVALUATION)
            )
        ]
        ds = DAYS[0].isoformat()
        checked = 0
        for check in graph.asset_check_keys:
            latest = _latest_materialization(instance, check.asset_key, ds)
            if latest is None:
                continue
            results = [
                e
                for e in evaluations
                if e.asset_key == check.asset_key
                and e.check_name == check.name
                and e.partition == ds
                and e.target_materialization_data is not None
                and e.target_materialization_data.storage_id == latest
            ]
            assert results, f"{check.to_user_string()} has no result for the erased day {ds}"
            assert all(e.passed for e in results), check.to_user_string()
            checked += 1
        names = {c.name for c in graph.asset_check_keys}
        assert checked == len(names) and "no_personal_data_in_masked" in names
