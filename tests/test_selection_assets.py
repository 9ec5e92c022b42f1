"""Real Dagster runs of ``policy_selection``: trailing windows, backfills, registry and report."""

import json
from datetime import date, timedelta

import pandas as pd
import pytest
from dagster import AssetKey, DagsterInstance
from rich.console import Console
from test_reward_assets import local_defs, range_tags, replayed, run, write_upstream

from agentic_pipeline.selection.registry import read_registry, registry_days, registry_dir
from agentic_pipeline.storage import DataRoot
from cli.report import print_report
from resources.reward_spec import RewardSpecResource

START = date(2026, 10, 1)
DAYS = [(START + timedelta(days=i)).isoformat() for i in range(30)]
LATE_FROM = 20  # the dominant policy appears only from this day index on
WINDOW = 14
EARLY = {("refund", "a"): (10, 0.5), ("refund", "b"): (10, 0.85), ("update", "a"): (12, 0.7)}
LATE = {**EARLY, ("refund", "late"): (10, 1.0)}


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def arms_of(i: int) -> dict:
    return LATE if i >= LATE_FROM else EARLY


def expected_counts(i: int) -> dict[tuple[str, str], int]:
    """Episodes per (task type, policy) in the 14-day window ending on day index ``i``."""
    counts: dict[tuple[str, str], int] = {}
    for j in range(max(0, i - WINDOW + 1), i + 1):
        for arm, (n, _) in arms_of(j).items():
            counts[arm] = counts.get(arm, 0) + n
    return counts


def selected(table: pd.DataFrame, task: str) -> str | None:
    chosen = table.loc[(table["task_type"] == task) & table["selected"], "policy_id"]
    assert len(chosen) <= 1
    return chosen.iloc[0] if len(chosen) else None


@pytest.mark.slow
def test_backfill_of_30_days_decides_each_day_from_its_own_window(data_root, instance):
    for i, ds in enumerate(DAYS):
        write_upstream(data_root, ds, replayed(ds, arms_of(i), seed=i), steps=False)
    defs = local_defs(data_root)
    # rewards: one single-run backfill; selection: multi-run, one run per day (as the daemon does)
    assert run(defs, instance, ["episode_rewards"], tags=range_tags(DAYS[0], DAYS[-1])).success
    run_ids = {}
    for ds in DAYS:
        result = run(defs, instance, ["policy_selection"], ds)
        assert result.success
        run_ids[ds] = result.run_id

    root = DataRoot(data_root)
    assert root.partitions("warehouse", "policy_selection") == DAYS
    assert registry_days(root) == DAYS
    version = RewardSpecResource().load().version  # the packaged spec tied to the catalogue
    previous = None
    for i, ds in enumerate(DAYS):
        table = root.read_partition("warehouse", "policy_selection", ds).to_pandas()
        assert set(table["ds"]) == {ds} and set(table["window_end"]) == {ds}
        window_start = (date.fromisoformat(ds) - timedelta(days=WINDOW - 1)).isoformat()
        assert set(table["window_start"]) == {window_start}
        # only episodes of the window up to ds count: nothing from a later day leaks in
        counts = {
            (t, p): n
            for t, p, n in table[["task_type", "policy_id", "n_episodes"]].itertuples(index=False)
        }
        assert counts == expected_counts(i), ds
        if i < LATE_FROM:
            assert "late" not in set(table["policy_id"])
            assert selected(table, "refund") != "late"
        registry = read_registry(root, ds)
        assert registry["ds"] == ds and registry["run_id"] == run_ids[ds]
        assert registry["reward_version"] == version
        for task, entry in registry["task_types"].items():
            assert entry["window_end"] == ds and entry["run_id"] == run_ids[ds]
            assert entry["selected_policy"] == selected(table, task)
            # the current default is the previous day's decision
            expected_default = previous["task_types"][task]["selected_policy"] if previous else None
            assert entry["previous_default"] == expected_default
        previous = registry

    def decision(ds: str) -> pd.DataFrame:
        return root.read_partition("warehouse", "policy_selection", ds).to_pandas()

    assert selected(decision(DAYS[5]), "refund") == "b"
    assert selected(decision(DAYS[-1]), "refund") == "late"
    assert read_registry(root) == read_registry(root, DAYS[-1])  # latest.json

    # re-deciding an old day uses the registry before it and leaves latest.json alone
    assert run(defs, instance, ["policy_selection"], DAYS[5]).success
    redo = read_registry(root, DAYS[5])
    assert redo["previous_registry_ds"] == DAYS[4]
    assert read_registry(root)["ds"] == DAYS[-1]
    assert instance.get_materialized_partitions(AssetKey("policy_selection")) == set(DAYS)


def test_without_propensities_selection_runs_and_ope_is_unidentified(data_root, instance):
    days = DAYS[:3]
    for i, ds in enumerate(days):
        episodes = replayed(ds, EARLY, seed=i, propensity=None)
        write_upstream(data_root, ds, episodes, steps=False)
    defs = local_defs(data_root)
    assert run(defs, instance, ["episode_rewards"], tags=range_tags(days[0], days[-1])).success
    result = run(defs, instance, ["policy_selection"], days[-1])
    assert result.success

    root = DataRoot(data_root)
    table = root.read_partition("warehouse", "policy_selection", days[-1]).to_pandas()
    assert not table["ope_identified"].astype(bool).any()
    assert table["ope_estimate"].isna().all()
    assert table["ope_reason"].str.contains("propensity missing").all()
    assert table["mean_reward"].notna().all() and table["linear_estimate"].notna().all()
    assert table.groupby("task_type")["selected"].sum().to_dict() == {"refund": 1, "update": 1}

    meta = result.asset_materializations_for_node("policy_selection")[0].metadata
    assert meta["ope_unidentified_task_types"].value == "refund, update"
    assert "propensity missing" in meta["report"].value
    assert meta["chart"].value.startswith("![policy selection](data:image/png;base64,")
    assert meta["dagster/row_count"].value == len(table)
    assert "| task_type | selected_policy |" in meta["decisions"].value


def test_registry_files_and_terminal_report(data_root, instance):
    day = DAYS[2]
    for i, ds in enumerate(DAYS[:3]):
        write_upstream(data_root, ds, replayed(ds, EARLY, seed=i), steps=False)
    defs = local_defs(data_root)
    assert run(defs, instance, ["episode_rewards"], tags=range_tags(DAYS[0], day)).success
    result = run(defs, instance, ["policy_selection"], day)
    assert result.success

    root = DataRoot(data_root)
    folder = registry_dir(root, day)
    registry = json.loads((folder / "registry.json").read_text())
    assert json.loads((registry_dir(root) / "latest.json").read_text()) == registry
    assert (folder / "chart.png").read_bytes().startswith(b"\x89PNG")
    assert (folder / "report.md").read_text().startswith("# Policy selection")
    assert not [p.name for p in folder.iterdir() if ".tmp-" in p.name]
    entry = registry["task_types"]["refund"]
    assert entry["selected_policy"] == "b" and entry["run_id"] == result.run_id
    for key in ("estimate", "ci_low", "ci_high", "reason", "window_start", "reward_version"):
        assert entry[key] is not None, key
    assert entry["ci_low"] <= entry["estimate"] <= entry["ci_high"]
    meta = result.asset_materializations_for_node("policy_selection")[0].metadata
    assert meta["registry_path"].value == str(folder / "registry.json")

    console = Console(record=True, width=200)
    assert print_report(str(data_root), day, console) == 0
    text = console.export_text()
    assert f"Policy decision of {day}" in text and result.run_id in text
    assert "refund: selected b" in text and "update: selected a" in text
    assert entry["reason"][:60] in text.replace("\n", " ")
    assert str(folder / "chart.png") in text

    console = Console(record=True, width=200)
    assert print_report(str(data_root), DAYS[20], console) == 3  # nothing to read (exit 3)
    assert "no policy decision stored" in console.export_text()


def test_stochastic_target_policy_evaluated_through_the_asset(data_root, instance):
    """A 30/70 traffic split of refund between a and b, estimated off-policy from the logs."""
    days = DAYS[:4]
    arms = {("refund", "a"): (40, 0.3), ("refund", "b"): (40, 0.9), ("update", "a"): (20, 0.7)}
    for i, ds in enumerate(days):
        write_upstream(data_root, ds, replayed(ds, arms, seed=i), steps=False)
    split = {"refund": {"a": 0.3, "b": 0.7}}
    defs = local_defs(data_root, selection={"target_policies": {"split": split}})
    assert run(defs, instance, ["episode_rewards"], tags=range_tags(days[0], days[-1])).success
    result = run(defs, instance, ["policy_selection"], days[-1])
    assert result.success

    root = DataRoot(data_root)
    table = root.read_partition("warehouse", "policy_selection", days[-1]).to_pandas()
    means = table.set_index(["task_type", "policy_id"])["mean_reward"]
    expected = 0.3 * means[("refund", "a")] + 0.7 * means[("refund", "b")]
    registry = read_registry(root, days[-1])
    (entry,) = registry["target_policies"]  # refund only: update has no split
    assert entry["target"] == "split" and entry["task_type"] == "refund"
    assert entry["n_episodes"] == 320 and entry["ope_identified"]
    assert entry["ope_estimator"] == "sndr"
    # the propensity is 0.5 for both policies: the weights are 0.6 and 1.4
    assert entry["ope_max_weight"] == pytest.approx(1.4)
    assert entry["ope_estimate"] == pytest.approx(expected, abs=0.03)
    assert entry["ope_ci_low"] < expected < entry["ope_ci_high"]
    assert entry["ope_ci_low"] < means[("refund", "b")]  # a split is not "always b"
    for name in ("ips", "snips", "dm", "dr", "sndr"):
        assert entry[f"ope_{name}_low"] <= entry[f"ope_{name}"] <= entry[f"ope_{name}_high"]

    meta = result.asset_materializations_for_node("policy_selection")[0].metadata
    assert "| split | refund | sndr |" in meta["target_policies"].value
    report = (registry_dir(root, days[-1]) / "report.md").read_text()
    assert "## Target policies (off-policy)" in report and "### split (headline: SNDR)" in report
    # the decision table keeps its contract: one row per (task type, policy)
    assert set(table["policy_id"]) == {"a", "b"}
    assert table.groupby("task_type")["selected"].sum().to_dict() == {"refund": 1, "update": 1}
