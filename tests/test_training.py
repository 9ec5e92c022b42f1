"""Training datasets: message shapes, SFT / preference / RL records, leak scan, asset, export."""

import datetime as dt
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dagster import (
    AssetSelection,
    AssetSpec,
    DagsterInstance,
    Definitions,
    define_asset_job,
    in_process_executor,
)

from agentic_pipeline.demo import write_landing
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.masking import Masker, PIILeakError, mask_steps
from agentic_pipeline.rewards import COMPONENTS, load_reward_spec, score_episodes
from agentic_pipeline.storage import DataRoot
from agentic_pipeline.training import (
    ASSET_NAME,
    FORMAT_DIRS,
    FORMAT_FILES,
    TrainingConfig,
    TrainingShapeError,
    build_training_datasets,
    export_range,
    infer_tools,
    prompt_hash,
    split_datasets_by_day,
    summary_table,
    to_chat_messages,
    validate_messages,
    validate_preference_pair,
    validate_rl_row,
    validate_sft_record,
    write_day,
)
from assets.partitions import daily_partitions
from assets.training import training_datasets
from resources import DataRootResource, PartitionedParquetIOManager

TAU_BENCH_FILE = (
    Path(__file__).resolve().parents[2] / "shared/external/tau-bench/gpt-4o-airline.json"
)
DAYS = ["2026-01-05", "2026-01-06"]
FINANCIAL = {"credit_card", "card_number", "iban", "bank_account", "balance", "credit_limit", "ssn"}


# --- helpers ------------------------------------------------------------------------------------


def _financial(name: object, args: object) -> int:
    if name != "update_crm" or not isinstance(args, str):
        return 0
    fields = json.loads(args).get("fields") or {}
    return int(bool(FINANCIAL & set(fields)))


def replayed_from_steps(steps: pd.DataFrame) -> pd.DataFrame:
    """A hand-made ``replayed_episodes`` frame (logged success, risk counted from the calls)."""
    steps = steps.assign(
        fin=[
            _financial(n, a)
            for n, a in zip(steps["tool_name"], steps["tool_arguments"], strict=True)
        ],
        destr=steps["tool_name"].fillna("").str.startswith("delete_").astype(int),
        call=(steps["action_type"] == "tool_call").astype(int),
    )
    out = (
        steps.groupby(["ds", "episode_id"])
        .agg(
            policy_id=("policy_id", "first"),
            task_type=("task_type", "first"),
            propensity=("propensity", "first"),
            success=("outcome_success", "first"),
            csat=("csat", "first"),
            n_steps=("step", "size"),
            n_tool_calls=("call", "sum"),
            financial_writes=("fin", "sum"),
            destructive_actions=("destr", "sum"),
        )
        .reset_index()
    )
    out["success"] = out["success"].astype("boolean").fillna(False).astype(bool)
    out["replay_status"] = "ok"
    return out


def simulated_steps(root: Path, days: int = 1, episodes: int = 40) -> pd.DataFrame:
    write_landing(root, dt.date.fromisoformat(DAYS[0]), days, episodes, 11)
    frames = [ingest_day(root / "landing" / ds, ds).steps.to_pandas() for ds in DAYS[:days]]
    return pd.concat(frames, ignore_index=True)


def tool_calls_answered(messages: list[dict]) -> bool:
    """Every assistant tool call has a tool message with its id before the next assistant turn."""
    for i, m in enumerate(messages):
        for call in m.get("tool_calls") or []:
            answered = False
            for later in messages[i + 1 :]:
                if later["role"] == "tool" and later["tool_call_id"] == call["id"]:
                    answered = True
                    break
                if later["role"] != "tool":
                    break
            if not answered and i != len(messages) - 1:
                return False
    return True


def arguments_are_json_strings(messages: list[dict]) -> bool:
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    return all(isinstance(json.loads(c["function"]["arguments"]), dict) for c in calls)


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One simulated day, ingested (raw rows treated as masked) and scored."""
    steps = simulated_steps(tmp_path_factory.mktemp("sim"), days=1, episodes=60)
    return steps, score_episodes(replayed_from_steps(steps), load_reward_spec())


def _frame(table) -> pd.DataFrame:
    return table if isinstance(table, pd.DataFrame) else table.to_pandas()


@pytest.fixture(scope="module")
def masked_days(tmp_path_factory) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two simulated days masked by the real masker, and their rewards."""
    steps = simulated_steps(tmp_path_factory.mktemp("masked"), days=2, episodes=20)
    with Masker() as masker:
        masked = pd.concat(
            [
                _frame(mask_steps(day.reset_index(drop=True), masker).masked)
                for _, day in steps.groupby("ds")
            ],
            ignore_index=True,
        )
    return masked, score_episodes(replayed_from_steps(steps), load_reward_spec())


# --- messages and tools -------------------------------------------------------------------------


def test_to_chat_messages_merges_calls_and_drops_silent_finish():
    rows = [
        {"step": 0, "role": "system", "action_type": "message", "content": "be brief"},
        {"step": 1, "role": "user", "action_type": "message", "content": "fix <EMAIL_1>"},
        {"step": 2, "role": "assistant", "action_type": "respond", "content": "Looking."},
        {
            "step": 3,
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "a",
            "tool_call_id": "c1",
            "tool_arguments": '{"x": 1}',
        },
        {
            "step": 4,
            "role": "assistant",
            "action_type": "tool_call",
            "tool_name": "b",
            "tool_call_id": "c2",
            "tool_arguments": None,
        },
        {
            "step": 5,
            "role": "tool",
            "action_type": "tool_result",
            "tool_call_id": "c1",
            "content": "ok",
        },
        {
            "step": 6,
            "role": "tool",
            "action_type": "tool_result",
            "tool_call_id": "c2",
            "content": None,
        },
        {"step": 7, "role": "assistant", "action_type": "finish", "content": "Done."},
        {"step": 8, "role": "assistant", "action_type": "finish", "content": None},
    ]
    messages = to_chat_messages(pd.DataFrame(rows).sample(frac=1, random_state=1))
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert messages[2]["content"] == "Looking."
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["c1", "c2"]
    assert messages[2]["tool_calls"][1]["function"] == {"name": "b", "arguments": "{}"}
    assert messages[4] == {"role": "tool", "tool_call_id": "c2", "content": ""}
    assert messages[5] == {"role": "assistant", "content": "Done."}
    validate_messages(messages)


def test_infer_tools_types_and_required():
    def call(name, args):
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "x",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }

    tools = infer_tools(
        [[call("f", {"a": 1, "b": "s"})], [call("f", {"a": 2.5, "c": True})], [call("g", {})]]
    )
    by_name = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    assert by_name["f"]["properties"] == {
        "a": {"type": "number"},
        "b": {"type": "string"},
        "c": {"type": "boolean"},
    }
    assert by_name["f"]["required"] == ["a"]
    assert by_name["g"] == {"type": "object", "properties": {}, "required": []}


def test_validators_reject_bad_shapes():
    user = {"role": "user", "content": "hi"}
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    asst = {"role": "assistant", "content": None, "tool_calls": [call]}
    with pytest.raises(TrainingShapeError, match="first non-system"):
        validate_messages([{"role": "assistant", "content": "x"}])
    with pytest.raises(TrainingShapeError, match="unanswered"):
        validate_messages([user, asst, {"role": "assistant", "content": "x"}])
    with pytest.raises(TrainingShapeError, match="JSON string"):
        bad = {**call, "function": {"name": "f", "arguments": {"a": 1}}}
        validate_messages([user, {**asst, "tool_calls": [bad]}])
    with pytest.raises(TrainingShapeError, match="does not answer"):
        validate_messages([user, {"role": "tool", "tool_call_id": "zz", "content": ""}])
    meta = {
        "episode_id": "a",
        "ds": "d",
        "reward_version": "v",
        "rejected_episode_id": "b",
        "chosen_reward": 1.0,
        "rejected_reward": 0.0,
        "prompt_sha256": "nope",
    }
    pair = {
        "prompt": [user],
        "chosen": [{"role": "assistant", "content": "a"}],
        "rejected": [{"role": "assistant", "content": "b"}],
        "metadata": meta,
    }
    with pytest.raises(TrainingShapeError, match="shared prompt"):
        validate_preference_pair(pair)
    validate_preference_pair({**pair, "metadata": {**meta, "prompt_sha256": prompt_hash([user])}})


# --- datasets on simulated data -----------------------------------------------------------------


def test_simulated_day_exports_valid_shapes(sim):
    steps, rewards = sim
    data = build_training_datasets(steps, rewards, config=TrainingConfig(pair_across_tasks=True))
    assert data.sft and data.dpo_trl and data.dpo_openai and data.rl
    threshold = rewards["reward"].quantile(0.5)
    flags = rewards.set_index("episode_id")
    for rec in data.sft:
        validate_sft_record(rec)
        msgs = rec["messages"]
        assert msgs[0]["role"] in ("system", "user") and tool_calls_answered(msgs)
        assert arguments_are_json_strings(msgs)
        ep = flags.loc[rec["metadata"]["episode_id"]]
        assert ep["success"] and not ep["risky"] and ep["reward"] >= threshold - 1e-12
    for rec in data.dpo_trl:
        validate_preference_pair(rec)
        assert rec["prompt"][-1]["role"] in ("user", "tool")  # the shared prefix
        assert rec["chosen"][0]["role"] == rec["rejected"][0]["role"] == "assistant"
        assert prompt_hash(rec["prompt"]) == rec["metadata"]["prompt_sha256"]
        for side in ("chosen", "rejected"):
            assert tool_calls_answered(rec["prompt"] + rec[side])
            assert arguments_are_json_strings(rec[side])
        assert rec["metadata"]["chosen_reward"] - rec["metadata"]["rejected_reward"] > 0.1
        assert not flags.loc[rec["metadata"]["episode_id"], "risky"]
    trl_prompts = {
        (r["metadata"]["episode_id"], r["metadata"]["rejected_episode_id"]): r["prompt"]
        for r in data.dpo_trl
    }
    for rec in data.dpo_openai:
        validate_preference_pair(rec)
        key = (rec["metadata"]["episode_id"], rec["metadata"]["rejected_episode_id"])
        prompt = trl_prompts[key]  # the two shapes of one pair share the prompt
        assert rec["input"]["messages"] == prompt
        assert rec["preferred_output"] != rec["non_preferred_output"]
    for row in data.rl:
        validate_rl_row(row)
        assert math.isclose(sum(row["step_rewards"]), row["reward"], abs_tol=1e-9)
        assert len(row["steps"]) == len(row["returns"])
    type_adv = pd.DataFrame(data.rl).groupby("task_type")["task_type_advantage"].mean()
    assert (type_adv.abs() < 1e-9).all()
    summary = summary_table(DAYS[0], data)
    assert summary.set_index("format")["records"].to_dict() == {
        "sft": len(data.sft),
        "dpo": len(data.dpo_trl),
        "dpo-openai": len(data.dpo_openai),
        "rl": len(data.rl),
    }


def test_default_pairing_needs_identical_prompts_and_selection_filters_sft(sim):
    steps, rewards = sim
    data = build_training_datasets(steps, rewards)
    # the simulator retries tasks (same task id): pairs of one task, or identical prompts
    assert all(r["metadata"]["prompt_match"] in ("identical", "same_task") for r in data.dpo_trl)
    per_type = rewards.groupby("task_type")["policy_id"].first()
    selection = pd.DataFrame(
        {"ds": DAYS[0], "task_type": per_type.index, "policy_id": per_type.values, "selected": True}
    )
    selected = build_training_datasets(steps, rewards, policy_selection=selection)
    chosen = dict(zip(per_type.index, per_type.values, strict=True))
    assert all(
        r["metadata"]["policy_id"] == chosen[r["metadata"]["task_type"]] for r in selected.sft
    )
    assert len(selected.sft) <= len(data.sft) and len(selected.rl) == len(data.rl)
    cold = selection.assign(selected=False)  # no decision yet: every policy feeds SFT
    assert len(build_training_datasets(steps, rewards, policy_selection=cold).sft) == len(data.sft)


# --- tau-bench ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tau(tmp_path_factory) -> tuple[pd.DataFrame, pd.DataFrame]:
    if not TAU_BENCH_FILE.exists():
        pytest.skip(f"tau-bench file not found at {TAU_BENCH_FILE}")
    landing = tmp_path_factory.mktemp("tau") / "landing" / DAYS[0]
    landing.mkdir(parents=True)
    shutil.copy(TAU_BENCH_FILE, landing)  # landing refuses symlinks (issue #11)
    steps = ingest_day(landing, DAYS[0]).steps.to_pandas()
    episodes = steps.groupby(["ds", "episode_id"]).first().reset_index()
    rewards = pd.DataFrame(
        {
            "ds": episodes["ds"],
            "episode_id": episodes["episode_id"],
            "policy_id": episodes["policy_id"],
            "task_type": episodes["task_type"],
            "reward": episodes["logged_reward"].astype(float),  # the benchmark's own reward
            "reward_version": "tau-bench-logged",
            "success": episodes["logged_reward"] > 0,
            "financial_writes": 0,
            "destructive_actions": 0,
            "replay_status": "ok",
        }
    )
    return steps, rewards


def test_tau_bench_trials_give_preference_pairs(tau):
    steps, rewards = tau
    data = build_training_datasets(steps, rewards)
    task_of = steps.groupby("episode_id")["task_id"].first()
    trials = rewards.assign(task_id=rewards["episode_id"].map(task_of))
    expected = {}
    for task_id, g in trials.groupby("task_id"):
        n_win, n_lose = int((g["reward"] > 0).sum()), int((g["reward"] <= 0).sum())
        if n_win and n_lose:
            expected[f"airline/{task_id}"] = n_win * n_lose
    assert expected, "the file should hold tasks whose trials disagree"
    got: dict[str, int] = {}
    # a pair whose trials first differ in a user turn (the simulated user answered differently
    # to the same assistant message) tells nothing about the policy: dropped and counted
    dropped = data.skipped.get("pair_diverges_outside_an_assistant_turn", 0)
    assert dropped < sum(expected.values()) / 4
    for rec in data.dpo_trl:
        validate_preference_pair(rec)
        meta = rec["metadata"]
        assert meta["prompt_match"] in ("identical", "same_task")
        assert task_of[meta["episode_id"]] == task_of[meta["rejected_episode_id"]]
        got[meta["group_id"]] = got.get(meta["group_id"], 0) + 1
    assert set(got) <= set(expected)
    assert all(got.get(g, 0) <= n for g, n in expected.items())
    assert sum(got.values()) + dropped == sum(expected.values())
    for rec in data.dpo_openai:
        validate_preference_pair(rec)
    for rec in data.sft:
        validate_sft_record(rec)
        assert rec["metadata"]["reward"] == 1.0
    rl = pd.DataFrame(data.rl)
    for row in data.rl[:50]:
        validate_rl_row(row)
    assert (rl["group_id"] == rl["task_id"]).all() and (rl["group_size"] == 4).all()
    assert (rl.groupby("group_id")["group_advantage"].sum().abs() < 1e-9).all()
    assert data.sft[0]["tools"] and all(t["type"] == "function" for t in data.sft[0]["tools"])


# --- leak scan, files, export -------------------------------------------------------------------


def test_leak_scan_blocks_raw_email(sim, tmp_path):
    steps, rewards = sim
    data = build_training_datasets(steps, rewards, config=TrainingConfig(pair_across_tasks=True))
    emails = set(steps["content"].dropna().str.extractall(r"([\w.]+@[\w.]+)")[0])
    assert emails
    with pytest.raises(PIILeakError) as info:
        write_day(tmp_path, DAYS[0], data)
    assert "EMAIL_ADDRESS" in str(info.value)
    assert not any(e in str(info.value) for e in emails)
    assert not (tmp_path / "warehouse").exists()


def _definitions(root: Path) -> Definitions:
    upstream = [
        AssetSpec(name, partitions_def=daily_partitions, metadata={"zone": "warehouse"})
        for name in ("masked_trajectories", "episode_rewards", "step_rewards", "policy_selection")
    ]
    return Definitions(
        assets=[*upstream, training_datasets],
        jobs=[
            define_asset_job(
                "local",
                selection=AssetSelection.assets(training_datasets),
                executor_def=in_process_executor,
            )
        ],
        resources={
            "data_root": DataRootResource(path=str(root)),
            "io_manager": PartitionedParquetIOManager(path=str(root)),
        },
    )


def test_asset_writes_days_and_export_range_concatenates(masked_days, tmp_path):
    masked, rewards = masked_days
    root = DataRoot(tmp_path)
    for ds in DAYS:
        root.write_partition(
            "warehouse", "masked_trajectories", ds, pa.Table.from_pandas(masked[masked.ds == ds])
        )
        root.write_partition(
            "warehouse", "episode_rewards", ds, pa.Table.from_pandas(rewards[rewards.ds == ds])
        )
    day1 = rewards[rewards.ds == DAYS[0]]
    chosen = day1.groupby("task_type")["policy_id"].first()  # day 2 has no decision stored
    selection = pd.DataFrame(
        {"task_type": chosen.index, "policy_id": chosen.to_numpy(), "selected": True}
    )
    root.write_partition("warehouse", "policy_selection", DAYS[0], pa.Table.from_pandas(selection))
    job = _definitions(tmp_path).resolve_job_def("local")
    with DagsterInstance.ephemeral() as instance:
        result = job.execute_in_process(
            instance=instance,
            run_config={"ops": {"training_datasets": {"config": {"pair_across_tasks": True}}}},
            tags={
                "dagster/asset_partition_range_start": DAYS[0],
                "dagster/asset_partition_range_end": DAYS[1],
            },
        )
        assert result.success
        mats = result.asset_materializations_for_node("training_datasets")
        assert {m.partition for m in mats} == set(DAYS)
        meta = mats[0].metadata
        assert meta["records_sft"].value > 0 and "example_dpo_openai" in meta
    counts: dict[str, int] = {fmt: 0 for fmt in FORMAT_FILES}
    for ds in DAYS:
        summary_dir = root.partition_dir("warehouse", ASSET_NAME, ds)
        assert {p.name for p in summary_dir.iterdir()} == {"part-0.parquet"}
        summary = root.read_partition("warehouse", ASSET_NAME, ds).to_pandas()
        assert set(summary["format"]) == set(FORMAT_FILES)
        for fmt, name in FORMAT_FILES.items():
            folder = root.partition_dir("warehouse", FORMAT_DIRS[fmt], ds)
            assert [p.name for p in folder.iterdir()] == [name]  # one dataset per folder
            if name.endswith(".parquet"):
                n = pq.read_table(folder / name).num_rows
            else:
                n = len((folder / name).read_text().splitlines())
            assert n == int(summary.set_index("format").at[fmt, "records"])
            counts[fmt] += n
    sft_day1 = (root.partition_dir("warehouse", "training_sft", DAYS[0]) / "sft.jsonl").read_text()
    for line in sft_day1.splitlines():
        meta = json.loads(line)["metadata"]
        assert meta["policy_id"] == chosen[meta["task_type"]]
    for fmt in FORMAT_FILES:
        out = tmp_path / "exports" / f"{fmt}.out"
        assert export_range(tmp_path, DAYS[0], DAYS[1], fmt, out) == counts[fmt]
        if fmt == "rl":
            table = pq.read_table(out)
            assert set(table.column("ds").to_pylist()) == set(DAYS)
            for row in table.to_pylist():
                validate_rl_row(row)
        else:
            records = [json.loads(line) for line in out.read_text().splitlines()]
            assert {r["metadata"]["ds"] for r in records} == set(DAYS)
            check = validate_sft_record if fmt == "sft" else validate_preference_pair
            for rec in records:
                check(rec)
    with pytest.raises(ValueError, match="unknown format"):
        export_range(tmp_path, DAYS[0], DAYS[1], "csv", tmp_path / "x")


def test_split_by_day_keeps_lineage(sim):
    steps, rewards = sim
    data = build_training_datasets(steps, rewards)
    days = split_datasets_by_day(data)
    assert set(days) == {DAYS[0]} and len(days[DAYS[0]].rl) == len(data.rl)


def test_simulated_retries_give_preference_pairs_of_the_same_task(sim):
    """Issue #15: the demo's DPO exports held 0 records: no task ever occurred twice in a day."""
    steps, rewards = sim
    data = build_training_datasets(steps, rewards)
    same_task = [r for r in data.dpo_trl if r["metadata"]["prompt_match"] == "same_task"]
    assert same_task, "no preference pair from a retried task"
    task_of = steps.groupby("episode_id")["task_id"].first()
    for record in same_task:
        meta = record["metadata"]
        assert task_of[meta["episode_id"]] == task_of[meta["rejected_episode_id"]]
        assert meta["chosen_reward"] - meta["rejected_reward"] > TrainingConfig().dpo_margin


def test_rl_step_rewards_without_components_come_from_rewards_step_rewards():
    """A rewards frame without components: the whole reward lands on the terminal step and is
    discounted back, computed by ``agentic_pipeline.rewards.step_rewards`` (no twin in training)."""
    from agentic_pipeline.rewards import step_rewards

    spec = load_reward_spec()
    rows = [
        {"role": "user", "action_type": "message", "content": "change my address"},
        {"role": "assistant", "action_type": "tool_call", "tool_name": "lookup"},
        {"role": "tool", "action_type": "tool_result", "content": "{}"},
        {"role": "assistant", "action_type": "respond", "content": "done"},
    ]
    steps = pd.DataFrame(
        [
            {"ds": DAYS[0], "episode_id": "e1", "step": i, "tool_call_id": "c1", **r}
            for i, r in enumerate(rows)
        ]
    ).assign(tool_arguments="{}", policy_id="p", task_type="t", task_id=None)
    rewards = pd.DataFrame(
        [{"ds": DAYS[0], "episode_id": "e1", "reward": 0.8, "success": True}]
    ).assign(replay_status="ok")
    (row,) = build_training_datasets(steps, rewards, spec=spec).rl
    assert row["step_rewards"] == [0.0, 0.0, 0.0, 0.8]
    assert row["returns"] == pytest.approx([0.8 * spec.gamma**k for k in (3, 2, 1, 0)])
    zeros = rewards.assign(reward_version=None, **dict.fromkeys(COMPONENTS, 0.0))
    expected = step_rewards(steps, zeros, spec)
    assert row["step_rewards"] == expected["step_reward"].tolist()
    assert row["returns"] == expected["return_to_go"].tolist()
