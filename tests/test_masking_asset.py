"""The masking stage in Dagster: real Presidio over simulated logs, audit, blocking leak check."""

import datetime as dt

import pyarrow as pa
import pytest
from dagster import AssetCheckKey, AssetKey, DagsterInstance

from agentic_pipeline.demo import generate_episodes, write_landing
from agentic_pipeline.masking import DEV_MASKING_KEY, pseudonym_for
from agentic_pipeline.storage import DataRoot
from assets.definitions import build_definitions

DS = "2026-11-10"
STAGES = [
    "raw_agent_logs",
    "raw_quarantine",
    "masked_trajectories",
    "pii_audit",
    "withheld_episodes",
]


@pytest.fixture(scope="module")
def masked_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("masking") / "data"
    write_landing(root, dt.date.fromisoformat(DS), 1, 12, seed=5)
    defs = build_definitions(str(root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance,
            partition_key=DS,
            asset_selection=[AssetKey(k) for k in [*STAGES, "replayed_episodes"]],
        )
        yield root, defs, instance, result


def _planted_values(n: int = 12) -> set[str]:
    values = set()
    for episode in generate_episodes(dt.date.fromisoformat(DS), n, seed=5):
        c = episode.customer
        values |= {
            str(c[k]) for k in ("email", "phone", "card_number", "dob", "last_name") if c.get(k)
        }
    return values


def test_masked_partition_holds_no_planted_value(masked_run):
    root, _, _, result = masked_run
    assert result.success
    data = DataRoot(root)
    masked = data.read_partition("warehouse", "masked_trajectories", DS)
    raw = data.read_partition("restricted", "raw_agent_logs", DS)
    assert masked.num_rows == raw.num_rows
    assert masked.column("tool_call_id").equals(raw.column("tool_call_id"))
    text = "\n".join(
        str(v)
        for col in ("content", "tool_arguments", "task_description", "task_goal")
        for v in masked.column(col).to_pylist()
        if v
    )
    planted = _planted_values()
    assert planted and not [v for v in planted if v in text]
    assert "<EMAIL_ADDRESS_" in text and "<PERSON_" in text


def test_audit_and_metadata_never_hold_raw_values(masked_run):
    root, _, _, result = masked_run
    audit = DataRoot(root).read_partition("warehouse", "pii_audit", DS)
    assert audit.num_rows > 0
    dump = str(audit.to_pylist())
    metadata = str(
        [
            e.event_specific_data.materialization.metadata
            for e in result.get_asset_materialization_events()
        ]
    )
    for value in _planted_values():
        assert value not in dump and value not in metadata


def test_leak_check_passes_then_blocks_downstream_on_a_leak(masked_run):
    root, defs, instance, result = masked_run
    checks = {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    assert checks["no_personal_data_in_masked"] is True
    assert instance.get_materialized_partitions(AssetKey("replayed_episodes")) == {DS}

    # plant a leak in a stored partition (as a buggy writer would): the check catches it
    data = DataRoot(root)
    day2 = "2026-11-11"
    table = data.read_partition("warehouse", "masked_trajectories", DS)
    leaked = table.set_column(
        table.schema.get_field_index("content"),
        "content",
        pa.array(["write to maren.ostby@example.org please"] * table.num_rows),
    )
    data.write_partition("warehouse", "masked_trajectories", day2, leaked)
    assert _run_check(defs, instance, day2) is False


def test_check_trusts_the_final_scan_only_for_the_same_bytes_in_the_same_run(masked_run):
    """In the masking run, the check reads the stored day back and finds the digest of the rows
    masking's final scan read: it does not scan them twice. Run alone (another run), or after the
    day was rewritten, it scans what is stored."""
    root, defs, instance, result = masked_run
    (evaluation,) = _check_evaluations(result)
    masked = DataRoot(root).read_partition("warehouse", "masked_trajectories", DS)
    assert evaluation.passed
    assert evaluation.metadata["rows_scanned_by_masking"].value == masked.num_rows > 0
    (record,) = [
        e.event_specific_data.materialization.metadata["leak_scan"].value
        for e in result.get_asset_materialization_events()
        if e.asset_key == AssetKey("masked_trajectories")
    ]
    assert record[DS]["rows"] == masked.num_rows and record[DS]["leaks"] == 0

    alone = _check_result(defs, instance, DS)
    (again,) = _check_evaluations(alone)
    assert again.passed and again.metadata["rows_scanned_by_masking"].value == 0
    assert again.metadata["rows_scanned"].value == evaluation.metadata["rows_scanned"].value


def test_a_stored_day_that_differs_from_the_scanned_rows_is_scanned():
    from agentic_pipeline.masking.scan.digest import table_digest
    from assets.masking import _scanned_as_stored

    table = pa.table({"episode_id": ["e1", "e2"], "content": ["<PERSON_1a2b3c4d> wrote", None]})
    scan = {"sha256": table_digest(table), "rows": 2, "leaks": 0}
    assert _scanned_as_stored(scan, table)
    changed = table.set_column(1, "content", pa.array(["ann.lee@example.org wrote", None]))
    assert not _scanned_as_stored(scan, changed)
    assert not _scanned_as_stored({**scan, "leaks": 1}, table)  # a finding: scanned again
    assert not _scanned_as_stored(None, table)


def _check_result(defs, instance, ds: str):
    """Run only the stored-data check for ``ds`` in a run of its own."""
    job = defs.resolve_job_def("daily_pipeline").get_subset(
        asset_selection=set(),
        asset_check_selection={
            AssetCheckKey(AssetKey("masked_trajectories"), "no_personal_data_in_masked")
        },
    )
    return job.execute_in_process(instance=instance, partition_key=ds, raise_on_error=False)


def _run_check(defs, instance, ds: str) -> bool:
    """Run only the stored-data check for ``ds`` (the masked partition is already on disk)."""
    result = _check_result(defs, instance, ds)
    evaluations = [
        e.asset_check_evaluation_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    ]
    assert len(evaluations) == 1
    assert evaluations[0].metadata["leaks"].value > 0
    assert "maren.ostby" not in str(evaluations[0].metadata)
    return evaluations[0].passed


def test_leak_check_is_blocking_and_per_partition():
    from assets.masking import no_personal_data_in_masked

    (spec,) = no_personal_data_in_masked.check_specs
    assert spec.blocking is True
    assert no_personal_data_in_masked.partitions_def is not None


def _leaky_range(tmp_path):
    """Two days; the second holds a clean episode and one whose personal value is a JSON key."""
    import json

    from conftest import chat_episode, write_jsonl

    root = tmp_path / "data"
    days = ["2026-11-12", "2026-11-13"]
    write_jsonl(root / "landing" / days[0] / "e.jsonl", [chat_episode("clean-1")])
    leaky = chat_episode("leaky-1")
    leaky["messages"][3]["content"] = json.dumps({"by_email": {"bob.smith@example.com": 1}})
    write_jsonl(root / "landing" / days[1] / "e.jsonl", [chat_episode("clean-2"), leaky])
    return root, days


def _check_evaluations(result) -> list:
    return [
        e.asset_check_evaluation_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
        and e.asset_check_evaluation_data.check_name == "no_personal_data_in_masked"
    ]


def test_a_personal_json_key_is_masked_and_the_whole_day_written(tmp_path):
    """Issues #21/#22: a personal value used as a JSON key is masked like a value (it used to
    withhold its episode); every episode of both days is written and the check passes."""
    root, days = _leaky_range(tmp_path)
    defs = build_definitions(str(root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance,
            asset_selection=[AssetKey(k) for k in STAGES],
            tags={
                "dagster/asset_partition_range_start": days[0],
                "dagster/asset_partition_range_end": days[1],
            },
            raise_on_error=False,
        )
    assert result.success
    data = DataRoot(root)
    masked = data.read_partition("warehouse", "masked_trajectories", days[1])
    assert set(masked.column("episode_id").to_pylist()) == {"clean-2", "leaky-1"}
    assert "bob.smith" not in str(masked.to_pylist())
    assert data.read_partition("restricted", "withheld_episodes", days[1]).num_rows == 0
    key_token = pseudonym_for("bob.smith@example.com", "EMAIL_ADDRESS", DEV_MASKING_KEY)
    assert any(key_token in (c or "") for c in masked.column("content").to_pylist())
    (evaluation,) = _check_evaluations(result)
    assert evaluation.passed is True and evaluation.metadata["leaks"].value == 0


def test_withheld_share_threshold_and_re_masking_the_day(tmp_path):
    """An episode masking cannot mask (personal data in an identifier column) is withheld: under
    a 60% threshold the day passes the check, under the default 5% it fails; once the raw rows
    are fixed, re-materializing the day writes the episode and empties its quarantine."""
    from dagster import AssetSelection, materialize

    from assets.ingestion import raw_agent_logs
    from assets.masking import masked_trajectories, no_personal_data_in_masked
    from resources.masking import MaskingResource

    root, days = _leaky_range(tmp_path)
    defs = build_definitions(str(root))
    resources = {**defs.resources, "masking": MaskingResource(max_withheld_share=0.6)}
    masking_keys = ["masked_trajectories", "pii_audit", "withheld_episodes"]
    with DagsterInstance.ephemeral() as instance:

        def run(selection):
            return materialize(
                [raw_agent_logs, masked_trajectories, no_personal_data_in_masked],
                selection=selection,
                partition_key=days[1],
                resources=resources,
                instance=instance,
                raise_on_error=False,
            )

        assert run(AssetSelection.assets("raw_agent_logs", "raw_quarantine")).success
        data = DataRoot(root)
        from conftest import make_unmaskable

        make_unmaskable(data, days[1], "leaky-1")
        result = run(AssetSelection.assets(*masking_keys))
        (evaluation,) = _check_evaluations(result)
        assert evaluation.passed is True
        assert evaluation.metadata["withheld_share"].value == 0.5
        (held,) = data.read_partition("restricted", "withheld_episodes", days[1]).to_pylist()
        assert held["episode_id"] == "leaky-1" and held["leaks"] >= 1
        assert "EMAIL_ADDRESS" in held["reason"] and "tool_call_id" in held["reason"]
        assert "bob.smith" not in str(held)
        masked = data.read_partition("warehouse", "masked_trajectories", days[1])
        assert set(masked.column("episode_id").to_pylist()) == {"clean-2"}

        # under the default 5% share the same day fails its blocking check
        strict = {**defs.resources, "masking": MaskingResource()}
        result = materialize(
            [raw_agent_logs, masked_trajectories, no_personal_data_in_masked],
            selection=AssetSelection.assets(*masking_keys),
            partition_key=days[1],
            resources=strict,
            instance=instance,
            raise_on_error=False,
        )
        (evaluation,) = _check_evaluations(result)
        assert evaluation.passed is False
        assert evaluation.metadata["days_over_withheld_share"].value == days[1]

        # the raw rows fixed (as an upstream fix would do): re-materializing writes the episode
        assert run(AssetSelection.assets("raw_agent_logs", "raw_quarantine")).success
        result = run(AssetSelection.assets(*masking_keys))
        assert result.success
    assert data.read_partition("restricted", "withheld_episodes", days[1]).num_rows == 0
    masked = data.read_partition("warehouse", "masked_trajectories", days[1])
    assert set(masked.column("episode_id").to_pylist()) == {"clean-2", "leaky-1"}
