"""Real Dagster runs of the shadow assets and ``behaviour_diff`` over a temporary data root: tables,
column descriptions, headline metadata and charts for the UI, masked input only, the stop line,
``fail_on_stop``, no candidate configured, and ``report`` naming the largest shifts."""

import datetime as dt
import io

import pyarrow as pa
import pytest
from chat_stub import Scripted, calls, reply, served
from dagster import (
    AssetKey,
    AssetSpec,
    DagsterInstance,
    Definitions,
    define_asset_job,
    in_process_executor,
)
from rich.console import Console

from agentic_pipeline.demo import write_landing
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.replay import replay_day
from agentic_pipeline.rewards import load_reward_spec, score_episodes
from agentic_pipeline.storage import DataRoot
from assets.partitions import daily_partitions
from assets.replay import replayed_episodes
from assets.shadow import NO_CANDIDATE, behaviour_diff_asset, shadow_assets
from cli.report import print_shifts
from resources import PartitionedParquetIOManager
from resources.catalogue import ToolCatalogueResource
from resources.shadow import BehaviourDiffResource, ShadowResource, shadow_resource_from_env

DAY = "2026-04-01"
MASKED = AssetSpec(
    "masked_trajectories", partitions_def=daily_partitions, metadata={"zone": "warehouse"}
)
REWARDS = AssetSpec(
    "episode_rewards", partitions_def=daily_partitions, metadata={"zone": "warehouse"}
)
OUTPUTS = ["replayed_episodes", "shadow_steps", "shadow_episodes", "behaviour_diff"]


@pytest.fixture(scope="module")
def day_table(tmp_path_factory) -> pa.Table:
    """Canonical rows standing in for the masking stage's output (the shadow compares values)."""
    root = tmp_path_factory.mktemp("land")
    write_landing(root, dt.date.fromisoformat(DAY), 1, 120, seed=2)
    return ingest_day(root / "landing" / DAY, DAY).steps


@pytest.fixture
def root(tmp_path, day_table):
    data = DataRoot(tmp_path / "data")
    data.write_partition("warehouse", "masked_trajectories", DAY, day_table)
    return tmp_path / "data"


def _defs(root, shadow: ShadowResource) -> Definitions:
    return Definitions(
        assets=[MASKED, REWARDS, replayed_episodes, shadow_assets, behaviour_diff_asset],
        jobs=[define_asset_job("shadow_job", selection=OUTPUTS)],
        resources={
            "io_manager": PartitionedParquetIOManager(path=str(root)),
            "shadow": shadow,
            "diff_settings": BehaviourDiffResource(n_bootstrap=300),
            "tool_catalogue": ToolCatalogueResource(),
        },
        executor=in_process_executor,
    )


def _metadata(result, key: str) -> dict:
    events = [e for e in result.get_asset_materialization_events() if e.asset_key == AssetKey(key)]
    return events[-1].materialization.metadata


def _answer(payload, n):
    """A candidate that looks the customer up first, then answers."""
    if not any(m["role"] == "tool" for m in payload["messages"]):
        return calls(("search_customer", {"email": "<EMAIL_ADDRESS_00000000>"}))
    return reply("Thanks, I have updated it.")


def test_shadow_and_diff_in_the_ui(root):
    with served(Scripted(_answer)) as url, DagsterInstance.ephemeral() as instance:
        shadow = ShadowResource(
            candidate="endpoint", endpoint_url=url, model="stub", max_episodes=6,
            max_steps_per_episode=3,
        )  # fmt: skip
        result = (
            _defs(root, shadow)
            .resolve_job_def("shadow_job")
            .execute_in_process(instance=instance, partition_key=DAY)
        )
    assert result.success
    data = DataRoot(root)
    steps = data.read_partition("warehouse", "shadow_steps", DAY).to_pandas()
    episodes = data.read_partition("warehouse", "shadow_episodes", DAY).to_pandas()
    assert (episodes["status"] == "shadowed").sum() == 6 and len(episodes) == 120
    assert set(steps["candidate_id"]) == {"openai:stub"} and set(steps["ds"]) == {DAY}
    meta = _metadata(result, "shadow_steps")
    assert meta["stop"].value.startswith("shadow of openai:stub stopped: max_episodes=6 reached")
    assert 0 <= meta["agreement_rate"].value <= 1 and meta["proposals"].value == 18
    assert meta["off_log_calls"].value >= 1  # the stub's lookup is not in the logs
    assert "data:image/png;base64," in meta["chart"].value
    assert "| logged | proposed | count |" in meta["logged_vs_proposed"].value
    assert "| decision point | episodes |" in meta["first_divergence"].value
    columns = {c.name: c.description for c in meta["dagster/column_schema"].schema.columns}
    assert all(columns.values()) and {"agrees", "answer", "proposed_tool"} <= set(columns)
    episode_meta = _metadata(result, "shadow_episodes")
    described = {
        c.name: c.description for c in episode_meta["dagster/column_schema"].schema.columns
    }
    assert all(described.values()) and "first_divergence" in described
    assert "| shadowed | 6 |" in episode_meta["episodes_by_status"].value

    diff = data.read_partition("warehouse", "behaviour_diff", DAY).to_pandas()
    assert diff["other_policy"].nunique() >= 2 and diff["delta_low"].notna().any()
    diff_meta = _metadata(result, "behaviour_diff")
    assert "data:image/png;base64," in diff_meta["chart"].value
    assert diff_meta["flagged_figures"].value > 0
    assert "95% interval" in diff_meta["largest_shifts"].value
    assert "| task_type | other | metric |" in diff_meta["headline"].value
    assert all(c.description for c in diff_meta["dagster/column_schema"].schema.columns)

    out = io.StringIO()
    print_shifts(DataRoot(root), DAY, Console(file=out, width=200))
    text = " ".join(out.getvalue().split())
    assert f"Largest behaviour shifts of {DAY}" in text and "95% interval" in text
    assert "Shadow of openai:stub: 18 proposals at" in text and "off-log" in text


def test_the_shadow_reads_masked_steps_only():
    resources = {"shadow": ShadowResource(), "tool_catalogue": ToolCatalogueResource()}
    defs = Definitions(assets=[MASKED, shadow_assets], resources=resources)
    graph = defs.resolve_asset_graph()
    for key in ("shadow_steps", "shadow_episodes"):
        parents = graph.get(AssetKey(key)).parent_keys
        assert parents == {AssetKey("masked_trajectories")}
        for parent in parents:
            assert graph.get(parent).metadata["zone"] == "warehouse"
        assert graph.get(AssetKey(key)).metadata["zone"] == "warehouse"


def test_fail_on_stop_fails_the_run_after_storing_what_was_done(root):
    def answer(payload, n):
        return calls(("delete_customer", {"id": "<CUS>"}))  # destructive

    with served(Scripted(answer)) as url, DagsterInstance.ephemeral() as instance:
        shadow = ShadowResource(
            candidate="endpoint", endpoint_url=url, model="stub", max_dangerous_proposals=0,
            fail_on_stop=True,
        )  # fmt: skip
        result = (
            _defs(root, shadow)
            .resolve_job_def("shadow_job")
            .execute_in_process(instance=instance, partition_key=DAY, raise_on_error=False)
        )
    assert not result.success
    steps = DataRoot(root).read_partition("warehouse", "shadow_steps", DAY).to_pandas()
    blocked = steps[steps["status"] == "proposed"]
    assert len(blocked) == 1 and blocked.iloc[0]["answer"] == "blocked"
    failure = [e for e in result.all_events if e.is_step_failure][0]
    message = failure.step_failure_data.error.message
    assert "kill switch" in message and "max_dangerous_proposals=0" in message


def test_no_candidate_stores_empty_tables_and_says_why(root, monkeypatch):
    monkeypatch.delenv("AGENTIC_PIPELINE_SHADOW_CANDIDATE", raising=False)
    with DagsterInstance.ephemeral() as instance:
        result = _defs(root, shadow_resource_from_env()).resolve_job_def("shadow_job")
        result = result.execute_in_process(instance=instance, partition_key=DAY)
    assert result.success
    assert DataRoot(root).read_partition("warehouse", "shadow_steps", DAY).num_rows == 0
    assert _metadata(result, "shadow_steps")["stop"].value == NO_CANDIDATE


def test_the_environment_configures_the_candidate(monkeypatch):
    monkeypatch.setenv(
        "AGENTIC_PIPELINE_SHADOW_CANDIDATE", "http://127.0.0.1:8011/v1/chat/completions"
    )
    monkeypatch.setenv("AGENTIC_PIPELINE_SHADOW_MAX_EPISODES", "2")
    resource = shadow_resource_from_env()
    assert resource.candidate == "endpoint" and resource.max_episodes == 2
    assert resource.build_candidate().name == "openai:default"
    monkeypatch.setenv("AGENTIC_PIPELINE_SHADOW_CANDIDATE", "smollm2")
    assert shadow_resource_from_env().build_candidate().name == "local:smollm2-135m-instruct"


def test_rewards_join_the_diff(root, day_table):
    replayed = replay_day(day_table)
    rewards = score_episodes(replayed, load_reward_spec())
    data = DataRoot(root)
    data.write_partition("warehouse", "episode_rewards", DAY, pa.Table.from_pandas(rewards))
    with DagsterInstance.ephemeral() as instance:
        job = _defs(root, ShadowResource()).resolve_job_def("shadow_job")
        assert job.execute_in_process(instance=instance, partition_key=DAY).success
    diff = data.read_partition("warehouse", "behaviour_diff", DAY).to_pandas()
    assert "reward_mean" in set(diff["metric"])
