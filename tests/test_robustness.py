"""Issue #11: a bad record never fails a day; metadata holds no unscanned value; strict JSON;
a deterministic audit; a private data root; permanent errors not retried."""

import datetime as dt
import errno
import json
import os
import stat
import time
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from chat_stub import Scripted, calls, reply, served
from dagster import (
    AssetKey,
    DagsterInstance,
    Definitions,
    Failure,
    MetadataValue,
    RetryPolicy,
    asset,
)
from test_reward_assets import ARMS, UPSTREAM, local_defs, replayed, run, write_upstream

from agentic_pipeline.demo import write_landing
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.jsonutil import strict_json_dumps, strict_json_dumps_counted
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS  # noqa: E402
from agentic_pipeline.replay import replay_day
from agentic_pipeline.rewards import load_reward_spec, score_episodes, step_rewards
from agentic_pipeline.schema import STEP_SCHEMA
from agentic_pipeline.selection import SelectionConfig, select_policies
from agentic_pipeline.selection.linear import ContextFeaturizer
from agentic_pipeline.shadow import (
    Candidate,
    ShadowBudget,
    ShadowSettings,
    StepAlignedShadow,
    steps_table,
)
from agentic_pipeline.storage import DataRoot
from agentic_pipeline.training import TrainingDatasets, build_training_datasets, day_files
from assets.automation import daily_pipeline_job
from assets.metadata import REDACTED, REDACTIONS_KEY, counts_md, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from assets.replay import replayed_episodes
from assets.rewards import build_reward_assets
from assets.shadow import shadow_assets
from cli.common import DATA_DIR_ENV, prepare_data_root
from cli.runs import run_days
from resources import DataRootResource, PartitionedParquetIOManager, retries
from resources.catalogue import ToolCatalogueResource
from resources.retries import is_transient, retry_transient
from resources.reward_spec import RewardSpecResource
from resources.shadow import ShadowResource

_PAD = "0" * (TOKEN_HEX_CHARS - 8)  # test tokens: 8 digits written, padded to the width

DAY1, DAY2 = "2026-11-01", "2026-11-02"


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


# --- point 6: a day's table type never depends on its content ----------------------------------


def test_selection_window_mixing_int_and_null_first_message_chars(data_root, instance):
    """Day 1: every episode has a user message (int column); day 2: one has none (null ->
    float in pandas). Each day's rewards are written by its own run, then selection reads both."""
    write_upstream(data_root, DAY1, replayed(DAY1, ARMS, seed=1), steps=False)
    day2 = replayed(DAY2, ARMS, seed=2).to_pandas()
    day2.loc[0, "first_message_chars"] = np.nan  # a transition episode without a user message
    write_upstream(data_root, DAY2, pa.Table.from_pandas(day2, preserve_index=False), steps=False)
    defs = local_defs(data_root)
    for ds in (DAY1, DAY2):
        assert run(defs, instance, ["episode_rewards"], ds).success
    root = DataRoot(data_root)
    types = {
        ds: root.read_partition("warehouse", "episode_rewards", ds)
        .schema.field("first_message_chars")
        .type
        for ds in (DAY1, DAY2)
    }
    assert types[DAY1] == types[DAY2] == pa.int64()
    result = run(defs, instance, ["policy_selection"], DAY2, raise_on_error=False)
    assert result.success
    table = root.read_partition("warehouse", "policy_selection", DAY2).to_pandas()
    assert table["n_episodes"].sum() == sum(n for n, _ in ARMS.values()) * 2


# --- point 6: one record never fails a day ------------------------------------------------------

DEEP = "[" * 10_000 + "]" * 10_000  # json.loads raises RecursionError on it


@pytest.fixture(scope="module")
def sim_steps(tmp_path_factory) -> pd.DataFrame:
    """One simulated day of canonical step rows (30 episodes)."""
    root = tmp_path_factory.mktemp("robust")
    write_landing(root, dt.date.fromisoformat(DAY1), 1, 30, seed=3, transition_share=0.0)
    return ingest_day(root / "landing" / DAY1, DAY1).steps.to_pandas()


@pytest.fixture(scope="module")
def poisoned_steps(sim_steps) -> tuple[pd.DataFrame, str]:
    """The simulated day, whose first episode carries JSON nested 10,000 deep in every JSON and
    text field (tool arguments, tool results, goal, context, user message)."""
    steps = sim_steps.copy()
    bad = sorted(steps["episode_id"].unique())[0]
    rows = steps["episode_id"] == bad
    for col in ("tool_arguments", "task_goal", "context"):
        steps.loc[rows & steps[col].notna(), col] = DEEP
    steps.loc[rows & steps["action_type"].isin(["tool_result", "message"]), "content"] = DEEP
    return steps, bad


def test_deeply_nested_json_skips_the_episode_not_the_day(poisoned_steps):
    steps, bad = poisoned_steps
    n_episodes = steps["episode_id"].nunique()
    # shadow: every episode is listed, the poisoned one shadowed or unreadable, none fails the day
    candidate = Candidate(Scripted(lambda payload, n: reply("One moment.")), "stub")
    shadow = StepAlignedShadow(candidate, ShadowSettings(max_steps_per_episode=2), ShadowBudget(99))
    result = shadow.run(steps.to_dict("records"))
    assert len(result.episodes) == n_episodes and result.stopped is None
    assert all(e["status"] in ("shadowed", "unreadable: RecursionError") for e in result.episodes)
    # replay: one row per episode, the poisoned one included
    replayed_day = replay_day(steps)
    assert len(replayed_day) == n_episodes
    # rewards, step rewards, training, selection features
    spec = load_reward_spec()
    rewards = score_episodes(replayed_day, spec)
    assert len(step_rewards(steps, rewards, spec)["episode_id"].unique()) == n_episodes
    datasets = build_training_datasets(steps, rewards)
    assert datasets.rl and bad not in {r["episode_id"] for r in datasets.rl}
    assert sum(datasets.skipped.values()) >= 1
    features = ContextFeaturizer().fit(rewards).transform(rewards)
    assert features.shape[0] == n_episodes
    result = select_policies(rewards, DAY1, SelectionConfig(n_mc=200, ope_folds=2))
    assert result.table["n_episodes"].sum() == n_episodes


def test_a_raising_shadow_episode_is_recorded_and_the_day_goes_on(poisoned_steps):
    steps, _ = poisoned_steps
    victim = sorted(steps["episode_id"].unique())[1]

    def answer(payload, n):
        if any(victim in str(m.get("content")) for m in payload["messages"]):
            raise KeyError("corrupted recorded task")
        return reply("One moment.")

    def first_user(episode):  # the victim's first user message names it (made unique below)
        return (steps["episode_id"] == episode) & (steps["role"] == "user")

    steps = steps.copy()
    rows = first_user(victim)
    steps.loc[rows, "content"] = steps.loc[rows, "content"] + f" ({victim})"
    shadow = StepAlignedShadow(
        Candidate(Scripted(answer), "stub"),
        ShadowSettings(max_steps_per_episode=2),
        ShadowBudget(99),
    )
    result = shadow.run(steps.to_dict("records"))
    table = steps_table(result.steps).to_pandas()
    failed = table[table["status"].str.startswith("candidate_error")]
    assert set(failed["episode_id"]) == {victim} and set(failed["status"]) == {
        "candidate_error: KeyError"
    }
    assert result.stopped is None  # two failed requests in a row: not yet a down endpoint
    assert (table.loc[table["episode_id"] != victim, "status"] != "candidate_error: KeyError").all()


# --- point 3: metadata holds no value that has not passed the leak scan ------------------------

LEAKY_POLICY = "ann.lee@example.com"


def _materialization_metadata(instance, key: str) -> dict:
    event = instance.get_latest_materialization_event(AssetKey(key))
    return event.asset_materialization.metadata


def test_metadata_tables_keyed_by_personal_values_are_redacted(data_root, instance):
    arms = {**ARMS, ("refund", LEAKY_POLICY): (12, 0.9)}  # a policy id that is an email
    write_upstream(data_root, DAY1, replayed(DAY1, arms, seed=4), steps=False)
    defs = local_defs(data_root)
    assert run(defs, instance, ["episode_rewards", "policy_selection"], DAY1).success
    for key in ("episode_rewards", "policy_selection"):
        meta = _materialization_metadata(instance, key)
        text = json.dumps({k: str(getattr(v, "value", v)) for k, v in meta.items()})
        assert LEAKY_POLICY not in text, key
        assert meta[REDACTIONS_KEY].value > 0, key
        assert REDACTED in text
    # the rest of the tables is kept: the other policies are still listed
    signals = _materialization_metadata(instance, "episode_rewards")["reward_hacking_signals"]
    assert "| a |" in signals.value.replace("  ", " ")


# --- point 6: permanent errors fail at once, with their cause; transient ones are retried -------


def _pipeline_defs(root, extra_assets=()):
    """The project's real ``daily_pipeline`` job over the reward assets (upstream as specs)."""
    spec = RewardSpecResource().load()  # tied to the tool catalogue, as build_definitions does
    return Definitions(
        assets=[*UPSTREAM, *build_reward_assets(spec), *extra_assets],
        jobs=[daily_pipeline_job],
        resources={
            "data_root": DataRootResource(path=str(root)),
            "io_manager": PartitionedParquetIOManager(path=str(root)),
            "reward_spec": RewardSpecResource(),
        },
    )


def test_bad_data_fails_at_once_and_the_cli_prints_its_cause(data_root, instance, capsys):
    bad = replayed(DAY1, ARMS, seed=5).to_pandas()
    bad["success"] = "maybe"  # drifted type: not a boolean
    write_upstream(data_root, DAY1, pa.Table.from_pandas(bad, preserve_index=False), steps=False)
    job = _pipeline_defs(data_root).resolve_job_def("daily_pipeline")
    started = time.monotonic()
    (result,) = run_days(job, instance, [(DAY1, [AssetKey("episode_rewards")])], {}, "test")
    assert not result.success
    assert time.monotonic() - started < 30  # the old policy waited 10 + 20 + 40 s between tries
    kinds = [e.event_type_value for e in result.all_events]
    assert "STEP_UP_FOR_RETRY" not in kinds and "STEP_RESTARTED" not in kinds
    out = capsys.readouterr().out
    line = next(li for li in out.splitlines() if "episode_rewards:" in li)
    assert "TypeError" in line and "max_retries" not in line


def test_transient_errors_are_retried(data_root, instance, monkeypatch):
    monkeypatch.setattr(retries, "TRANSIENT_RETRY", RetryPolicy(max_retries=3, delay=0))
    attempts = []

    @asset(partitions_def=daily_partitions, metadata={"zone": "warehouse"})
    @retry_transient
    def flaky_store(context):
        attempts.append(context.retry_number)
        if len(attempts) < 3:
            raise OSError(errno.ETIMEDOUT, "object store timed out")
        return pd.DataFrame({"x": [1]})

    job = _pipeline_defs(data_root, [flaky_store]).resolve_job_def("daily_pipeline")
    result = job.execute_in_process(
        instance=instance, partition_key=DAY1, asset_selection=[AssetKey("flaky_store")]
    )
    assert result.success and attempts == [0, 1, 2]


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (TimeoutError("read timed out"), True),
        (ConnectionResetError(errno.ECONNRESET, "reset"), True),
        (OSError(errno.ESTALE, "stale NFS handle"), True),
        (BrokenProcessPool("a masking worker died"), True),
        (FileNotFoundError(errno.ENOENT, "no such file"), False),
        (PermissionError(errno.EACCES, "denied"), False),
        (OSError(errno.ENOSPC, "disk full"), False),
        (RecursionError("maximum recursion depth exceeded"), False),
        (ValueError("incompatible types: int64 vs double"), False),
        (Failure("personal data left", allow_retries=False), False),
    ],
)
def test_only_transient_errors_count_as_transient(exc, transient):
    assert is_transient(exc) is transient
    wrapped = RuntimeError("read failed")
    wrapped.__cause__ = exc
    assert is_transient(wrapped) is transient


# --- point 11: a private data root and Dagster instance -----------------------------------------


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_data_root_and_dagster_home_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, "unset")  # restored after the test
    monkeypatch.setenv("DAGSTER_HOME", "unset")
    old_umask = os.umask(0o022)  # the usual default: new files world-readable
    try:
        root = prepare_data_root(str(tmp_path / "data"))
        home = root / "dagster_home"
        assert _mode(root) == _mode(home) == 0o700
        assert _mode(home / "dagster.yaml") == 0o600
        # Dagster creates its SQLite storage inside the private home
        with DagsterInstance.get() as inst:
            run(local_defs(root), inst, ["episode_rewards"], DAY1, raise_on_error=False)
        dbs = list(home.rglob("*.db"))
        assert dbs and all(home in db.parents for db in dbs)
        prepare_data_root(str(root))  # the next command tightens what Dagster created
        assert all(_mode(db) == 0o600 for db in dbs)
        # an existing world-readable root is made private too
        os.chmod(root, 0o755)
        os.chmod(home, 0o755)
        prepare_data_root(str(root))
        assert _mode(root) == _mode(home) == 0o700
    finally:
        os.umask(old_umask)


# --- point 11: stored JSON is strict ------------------------------------------------------------


def _strict_loads(text: str):
    def refuse(constant: str):
        raise ValueError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


def test_strict_json_dumps_writes_null_for_non_finite_numbers():
    value = {"a": float("nan"), "b": [float("inf"), 1.5, {"c": -np.inf}], "d": "NaN", "e": 2}
    text, replaced = strict_json_dumps_counted(value, sort_keys=True)
    assert replaced == 3
    assert _strict_loads(text) == {"a": None, "b": [None, 1.5, {"c": None}], "d": "NaN", "e": 2}
    assert strict_json_dumps(float("nan")) == "null"
    assert value["a"] != value["a"]  # the input is not modified


def test_training_exports_are_strict_json():
    messages = [
        {"role": "user", "content": "reset my case"},
        {"role": "assistant", "content": "ok"},
    ]
    meta = {"episode_id": "e1", "ds": DAY1, "reward": float("nan"), "propensity": float("inf")}
    datasets = TrainingDatasets(sft=[{"messages": messages, "tools": [], "metadata": meta}])
    files = day_files(datasets)
    for name in ("sft.jsonl", "dpo_trl.jsonl", "dpo_openai.jsonl"):
        for line in files[name].decode().splitlines():
            assert _strict_loads(line)["metadata"] == {**meta, "reward": None, "propensity": None}
    assert datasets.nonfinite_to_null == 2


def test_shadow_requests_are_strict_json(sim_steps):
    steps = sim_steps.copy()
    results = steps["action_type"].eq("tool_result") & steps["content"].str.contains(
        '"customer_id"', na=False
    )
    # a logged CRM record with a NaN (json.loads reads it): the candidate is shown that text
    steps.loc[results, "content"] = steps.loc[results, "content"].str.replace(
        '"customer_id"', '"score": NaN, "customer_id"', n=1, regex=False
    )
    endpoint = Scripted(lambda payload, n: calls(("search_customer", {"email": "x"})))
    shadow = StepAlignedShadow(
        Candidate(endpoint, "stub"), ShadowSettings(max_steps_per_episode=3), ShadowBudget(4)
    )
    shadow.run(steps.to_dict("records"))
    assert endpoint.requests  # Scripted.create checks each body with allow_nan=False
    shown = [m["content"] for r in endpoint.requests for m in r["messages"] if m["role"] == "tool"]
    assert any("NaN" in text for text in shown)  # logged text is passed as text, never parsed
    table = steps_table(shadow.run(steps.to_dict("records")).steps)
    for text in table.column("proposed_arguments").to_pylist():
        if text is not None:
            _strict_loads(text)


def test_safe_metadata_scans_every_kind_of_value():
    email, phone, card = "jane.doe@example.com", "415-555-0134", "4111 1111 1111 1111"
    meta = {
        "table": markdown_table([{"policy_id": email, "n": 3}, {"policy_id": "crm-v2", "n": 2}]),
        "counts": counts_md({"a|b": 1, phone: 2}, "field"),
        "report": MetadataValue.md(
            f"# Report\nwinner {email}\n![chart](data:image/png;base64,QUJD)"
        ),
        "text": MetadataValue.text(f"call {phone}"),
        "json": MetadataValue.json({email: ["ok", card], "n": 1.5}),
        "path": MetadataValue.path(f"/data/{email}/x"),
        "plain": "2026-11-01 .. 2026-11-14",
        "token": f"masked as <EMAIL_ADDRESS_3f9a1c2b{_PAD}>",
        "number": 0.8571428571428571,
    }
    out = safe_metadata(meta)
    text = json.dumps({k: str(getattr(v, "value", v)) for k, v in out.items()})
    for raw in (email, phone, card):
        assert raw not in text
    assert out[REDACTIONS_KEY] == 7
    assert out["table"].value.splitlines()[3] == "| crm-v2 | 2 |"  # other cells kept
    assert "a\\|b" in out["counts"].value  # a "|" inside a value stays one cell
    assert out["report"].value.splitlines()[0] == "# Report"
    assert out["report"].value.endswith("![chart](data:image/png;base64,QUJD)")
    assert out["json"].value == {REDACTED: ["ok", REDACTED], "n": 1.5}
    assert out["plain"] == meta["plain"]
    assert out["token"] == "masked as <EMAIL_ADDRESS>"  # no pseudonym in the event log (#22)
    assert out["number"] == meta["number"]


def test_poisoned_day_materializes_replay_and_shadow(poisoned_steps, tmp_path, instance):
    """Through Dagster: the day with the 10,000-deep episode materializes replay and shadow."""
    steps, _ = poisoned_steps
    root = tmp_path / "data"
    table = pa.Table.from_pandas(steps, preserve_index=False).cast(STEP_SCHEMA)
    DataRoot(root).write_partition("warehouse", "masked_trajectories", DAY1, table)
    endpoint = Scripted(lambda payload, n: reply("Let me check."))
    with served(endpoint) as url:
        defs = Definitions(
            assets=[UPSTREAM[1], replayed_episodes, shadow_assets],
            jobs=[daily_pipeline_job],
            resources={
                "io_manager": PartitionedParquetIOManager(path=str(root)),
                "shadow": ShadowResource(
                    candidate="endpoint", endpoint_url=url, model="stub", max_episodes=50
                ),
                "tool_catalogue": ToolCatalogueResource(),
            },
        )
        keys = [AssetKey(k) for k in ("replayed_episodes", "shadow_steps", "shadow_episodes")]
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance, partition_key=DAY1, asset_selection=keys
        )
    assert result.success
    replayed_day = DataRoot(root).read_partition("warehouse", "replayed_episodes", DAY1)
    assert replayed_day.num_rows == steps["episode_id"].nunique()
    episodes = DataRoot(root).read_partition("warehouse", "shadow_episodes", DAY1)
    assert episodes.num_rows == steps["episode_id"].nunique()
    meta = _materialization_metadata(instance, "shadow_episodes")
    assert "shadowed" in meta["episodes_by_status"].value


def test_ingested_context_and_masked_json_are_strict(tmp_path):
    """A NaN that ``json.loads`` accepts in a landing record is stored as null (issue 11.11)."""
    import json as _json

    from agentic_pipeline.formats.common import json_text
    from agentic_pipeline.masking.json_walker import dump_like

    text = json_text({"tier": "gold", "score": float("nan"), "cap": float("inf")})
    assert _json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict {c}")) == {
        "cap": None,
        "score": None,
        "tier": "gold",
    }
    assert "NaN" not in dump_like({"x": float("-inf")}, '{"x":1}')
