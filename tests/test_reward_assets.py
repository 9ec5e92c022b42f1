"""Real Dagster runs of ``episode_rewards``/``step_rewards``: spec versioning, metadata, checks."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import yaml
from dagster import (
    AssetKey,
    AssetSelection,
    AssetSpec,
    DagsterInstance,
    Definitions,
    define_asset_job,
    in_process_executor,
)
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleStatus
from dagster._core.loader import LoadingContextForTest

from agentic_pipeline.rewards import COMPONENTS, DEFAULT_SPEC_PATH, load_reward_spec
from agentic_pipeline.storage import DataRoot
from assets.partitions import daily_partitions
from assets.rewards import build_reward_assets, build_reward_checks
from assets.selection import build_selection_assets
from resources import DataRootResource, PartitionedParquetIOManager
from resources.catalogue import ToolCatalogueResource
from resources.reward_spec import REWARD_SPEC_ENV, RewardSpecResource, default_reward_spec_path
from resources.selection import SelectionResource

DAY = "2026-11-03"
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]
REWARD_ASSETS = ("episode_rewards", "step_rewards")
FAST_SELECTION = {"n_mc": 500, "n_bootstrap": 50, "ope_folds": 2}

UPSTREAM = [
    AssetSpec("replayed_episodes", partitions_def=daily_partitions, metadata={"zone": "warehouse"}),
    AssetSpec(
        "masked_trajectories", partitions_def=daily_partitions, metadata={"zone": "warehouse"}
    ),
]


# --- hand-made upstream partitions --------------------------------------------------------------


def replayed(
    ds: str,
    arms: dict[tuple[str, str], tuple[int, float]],
    seed: int = 0,
    propensity: float | None = 0.5,
    risky: dict[tuple[str, str], float] | None = None,
) -> pa.Table:
    """``replayed_episodes`` of one day: ``arms`` maps (task type, policy) to (n, success rate)."""
    rng = np.random.default_rng(seed)
    rows = []
    for (task, policy), (n, p_success) in arms.items():
        for i in range(n):
            success = bool(rng.random() < p_success)
            fin = int(rng.random() < (risky or {}).get((task, policy), 0.0))
            n_steps = int(rng.integers(3, 9))
            rows.append(
                {
                    "episode_id": f"{ds}-{task}-{policy}-{i}",
                    "policy_id": policy,
                    "task_type": task,
                    "propensity": propensity,
                    "replay_status": "ok",
                    "success": success,
                    "success_source": "environment",
                    "n_steps": n_steps,
                    "n_tool_calls": n_steps // 2,
                    "n_errors": 0,
                    "n_retries": int(rng.integers(0, 2)),
                    "loop_detected": False,
                    "premature_finish": False,
                    "financial_writes": fin,
                    "destructive_actions": 0,
                    "human_takeover": (not success) and bool(rng.random() < 0.3),
                    "complaint": (not success) and bool(rng.random() < 0.2),
                    "csat": float(rng.integers(4, 6) if success else rng.integers(1, 4)),
                    "prompt_tokens": int(rng.integers(200, 2000)),
                    "completion_tokens": int(rng.integers(20, 300)),
                    "latency_ms": int(rng.integers(500, 5000)),
                    "cost_usd": float(rng.uniform(0.001, 0.02)),
                    "context": json.dumps(
                        {"tier": str(rng.choice(["gold", "silver"])), "channel": "chat"}
                    ),
                    "first_message_chars": int(rng.integers(20, 300)),
                }
            )
    df = pd.DataFrame(rows)
    df["propensity"] = df["propensity"].astype(float)
    return pa.Table.from_pandas(df, preserve_index=False)


def masked_steps(episodes: pa.Table) -> pa.Table:
    """``masked_trajectories`` rows for ``episodes``: user, tool call, tool result, reply."""
    rows = []
    for ep in episodes.select(["episode_id", "policy_id", "task_type"]).to_pylist():
        script = [
            ("user", "message", None, "Hi, I am <PERSON_1>"),
            ("assistant", "tool_call", "get_customer", '{"id": "<ID_1>"}'),
            ("tool", "tool_result", "get_customer", '{"name": "<PERSON_1>"}'),
            ("assistant", "respond", None, "Done."),
        ]
        for step, (role, action, tool, content) in enumerate(script):
            rows.append({**ep, "step": step, "role": role, "action_type": action})
            rows[-1].update({"tool_name": tool, "content": content})
    return pa.Table.from_pylist(rows)


def write_upstream(root: Path, ds: str, episodes: pa.Table, steps: bool = True) -> None:
    data = DataRoot(root)
    data.write_partition("warehouse", "replayed_episodes", ds, episodes)
    if steps:
        data.write_partition("warehouse", "masked_trajectories", ds, masked_steps(episodes))


ARMS = {("refund", "a"): (12, 0.5), ("refund", "b"): (12, 0.8), ("update", "a"): (8, 0.6)}


# --- local definitions ------------------------------------------------------------------------


def local_defs(root: Path, spec_path: str | None = None, selection: dict | None = None):
    """Definitions like ``build_definitions`` wires them, with the upstream assets as specs."""
    spec_resource = RewardSpecResource(path=spec_path)
    spec = spec_resource.load()
    own = [*build_reward_assets(spec), *build_selection_assets(spec)]
    keys = [key for a in own for key in a.keys]
    return Definitions(
        assets=[*UPSTREAM, *own],
        asset_checks=build_reward_checks(spec),
        jobs=[
            define_asset_job(
                "local", selection=AssetSelection.assets(*keys), executor_def=in_process_executor
            )
        ],
        resources={
            "data_root": DataRootResource(path=str(root)),
            "io_manager": PartitionedParquetIOManager(path=str(root)),
            "reward_spec": spec_resource,
            "selection": SelectionResource(**{**FAST_SELECTION, **(selection or {})}),
        },
    )


def run(defs, instance, keys, partition_key: str | None = None, **kwargs):
    job = defs.resolve_job_def("local")
    return job.execute_in_process(
        instance=instance,
        partition_key=partition_key,
        asset_selection=[AssetKey(k) for k in keys],
        **kwargs,
    )


def range_tags(start: str, end: str) -> dict[str, str]:
    return {
        "dagster/asset_partition_range_start": start,
        "dagster/asset_partition_range_end": end,
    }


def code_versions(defs) -> dict[str, str]:
    graph = defs.resolve_asset_graph()
    names = ("episode_rewards", "step_rewards", "policy_selection")
    return {n: graph.get(AssetKey(n)).code_version for n in names}


def stale_status(instance, defs, key: AssetKey, partition: str) -> StaleStatus:
    """What the UI shows for ``key``'s partition (Dagster's internal stale-status resolver)."""
    resolver = CachingStaleStatusResolver(
        instance, defs.resolve_asset_graph(), LoadingContextForTest(instance)
    )
    return resolver.get_status(key, partition)


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


@pytest.fixture
def changed_spec(tmp_path: Path) -> Path:
    """A copy of the packaged spec with one weight changed (success 1.0 -> 1.5)."""
    data = yaml.safe_load(DEFAULT_SPEC_PATH.read_text())
    data["weights"]["success"] = 1.5
    path = tmp_path / "reward_spec.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# --- tests ------------------------------------------------------------------------------------


def test_resource_path_defaults_to_env_then_packaged_spec(tmp_path, monkeypatch, changed_spec):
    monkeypatch.delenv(REWARD_SPEC_ENV, raising=False)
    assert default_reward_spec_path() == str(DEFAULT_SPEC_PATH)
    catalogue = ToolCatalogueResource().load()
    assert RewardSpecResource().load() == load_reward_spec().with_catalogue(catalogue.version)
    monkeypatch.setenv(REWARD_SPEC_ENV, str(changed_spec))
    assert RewardSpecResource().load().w_success == 1.5
    assert RewardSpecResource(path=str(DEFAULT_SPEC_PATH)).load().w_success == 1.0


def test_rewards_materialize_with_metadata_and_passing_checks(data_root, instance):
    episodes = replayed(DAY, ARMS, seed=1, risky={("refund", "a"): 0.2})
    write_upstream(data_root, DAY, episodes)
    defs = local_defs(data_root)
    result = run(defs, instance, REWARD_ASSETS, DAY)
    assert result.success

    root = DataRoot(data_root)
    rewards = root.read_partition("warehouse", "episode_rewards", DAY).to_pandas()
    assert len(rewards) == episodes.num_rows
    spec = RewardSpecResource().load()  # the packaged spec tied to the tool catalogue
    assert set(rewards["reward_version"]) == {spec.version}
    assert np.allclose(rewards[list(COMPONENTS)].sum(axis=1), rewards["reward"])
    assert (rewards.loc[rewards["financial_writes"] > 0, "reward"] < 0).all()
    steps = root.read_partition("warehouse", "step_rewards", DAY).to_pandas()
    per_episode = steps.groupby("episode_id")["step_reward"].sum()
    assert np.allclose(per_episode.loc[rewards["episode_id"]], rewards["reward"])

    meta = result.asset_materializations_for_node("episode_rewards")[0].metadata
    assert meta["dagster/row_count"].value == len(rewards)
    assert "reward" in {c.name for c in meta["dagster/column_schema"].schema.columns}
    assert meta["reward_version"].value == spec.version
    assert meta["reward_mean"].value == pytest.approx(rewards["reward"].mean())
    assert {"reward_p05", "reward_p50", "reward_p95", "mean_r_success", "mean_r_risk"} <= set(meta)
    signals = meta["reward_hacking_signals"].value
    assert "| policy_id | task_type | n |" in signals and "refund" in signals
    assert "PERSON" not in signals

    evaluations = result.get_asset_check_evaluations()
    assert {e.check_name for e in evaluations} == {
        "rewards_within_bounds",
        "reward_components_complete",
        "single_reward_version",
    }
    assert all(e.passed for e in evaluations)


def test_changing_a_weight_changes_rewards_and_code_versions(data_root, instance, changed_spec):
    write_upstream(data_root, DAY, replayed(DAY, ARMS, seed=2))
    root = DataRoot(data_root)
    defs_v1 = local_defs(data_root)
    assert run(defs_v1, instance, REWARD_ASSETS, DAY).success
    before = root.read_partition("warehouse", "episode_rewards", DAY).to_pandas()

    defs_v2 = local_defs(data_root, spec_path=str(changed_spec))
    v1, v2 = code_versions(defs_v1), code_versions(defs_v2)
    assert all(v1[name] != v2[name] for name in v1)
    assert RewardSpecResource(path=str(changed_spec)).load().version in v2["policy_selection"]

    # the UI's view: after the spec changed, the stored rewards are stale (code version changed)
    key = AssetKey("episode_rewards")
    assert stale_status(instance, defs_v2, key, DAY) == StaleStatus.STALE
    assert stale_status(instance, defs_v1, key, DAY) == StaleStatus.FRESH

    assert run(defs_v2, instance, REWARD_ASSETS, DAY).success
    after = root.read_partition("warehouse", "episode_rewards", DAY).to_pandas()
    v2_version = RewardSpecResource(path=str(changed_spec)).load().version
    assert set(after["reward_version"]) == {v2_version}
    delta = after["reward"] - before["reward"]
    assert np.allclose(delta[after["success"]], 0.5)
    assert np.allclose(delta[~after["success"]], 0.0)
    steps = root.read_partition("warehouse", "step_rewards", DAY).to_pandas()
    assert set(steps["reward_version"]) == set(after["reward_version"])


def test_a_run_refuses_a_spec_other_than_the_defined_one(data_root, instance, changed_spec):
    write_upstream(data_root, DAY, replayed(DAY, ARMS))
    # the file changes between loading the definitions and running them
    spec_copy = data_root / "spec.yaml"
    shutil.copy(DEFAULT_SPEC_PATH, spec_copy)
    defs = local_defs(data_root, spec_path=str(spec_copy))
    shutil.copy(changed_spec, spec_copy)
    result = run(defs, instance, ["episode_rewards"], DAY, raise_on_error=False)
    assert not result.success
    assert not DataRoot(data_root).has_partition("warehouse", "episode_rewards", DAY)


def test_single_run_backfill_writes_each_day(data_root, instance):
    for i, ds in enumerate(DAYS):
        write_upstream(data_root, ds, replayed(ds, ARMS, seed=i))
    defs = local_defs(data_root)
    result = run(defs, instance, REWARD_ASSETS, tags=range_tags(DAYS[0], DAYS[-1]))
    assert result.success
    root = DataRoot(data_root)
    for ds in DAYS:
        table = root.read_partition("warehouse", "episode_rewards", ds).to_pandas()
        assert set(table["ds"]) == {ds} and len(table) == 32
        assert table["episode_id"].str.startswith(ds).all()
    assert instance.get_materialized_partitions(AssetKey("step_rewards")) == set(DAYS)


def test_version_check_fails_on_a_partition_with_mixed_versions(data_root, instance):
    write_upstream(data_root, DAY, replayed(DAY, ARMS))
    defs = local_defs(data_root)
    assert run(defs, instance, ["episode_rewards"], DAY).success
    root = DataRoot(data_root)
    rewards = root.read_partition("warehouse", "episode_rewards", DAY).to_pandas()
    rewards.loc[: len(rewards) // 2, "reward_version"] = "v0-00000000"
    rewards.loc[0, "r_cost"] = None
    root.write_partition("warehouse", "episode_rewards", DAY, pa.Table.from_pandas(rewards))

    # run the checks alone (as "Execute checks" in the UI): the stored partition is loaded
    job = defs.resolve_job_def("local")
    checks = {key for key in job.asset_layer.asset_graph.asset_check_keys}
    checks_only = job.get_subset(asset_selection=set(), asset_check_selection=checks)
    result = checks_only.execute_in_process(
        instance=instance, partition_key=DAY, raise_on_error=False
    )
    assert len(result.get_asset_materialization_events()) == 0
    outcome = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not outcome["single_reward_version"].passed
    mixed = outcome["single_reward_version"].metadata["mixed_days"].value
    assert DAY in mixed and "v0-00000000" in mixed[DAY]
    assert not outcome["reward_components_complete"].passed
    assert outcome["rewards_within_bounds"].passed
