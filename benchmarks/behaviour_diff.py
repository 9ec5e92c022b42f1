"""Benchmark: the behaviour diff of two policies over a 10,000-episode day, and the shadow's
seconds per step with the offline candidate model (issue 24).

1. **Diff.** The demo simulator writes one day of ``--episodes`` episodes split between two
   policies; it is ingested, replayed and scored (not timed) and stored as the day's
   ``replayed_episodes`` and ``episode_rewards``. The ``behaviour_diff`` asset is then
   materialized through Dagster (``execute_in_process``, the path ``agentic-pipeline materialize``
   takes) with the default settings (1,000 bootstrap resamples and 1,000 permutations). Baseline of
   the same run, same data: the same materialization with ``n_bootstrap=0`` (point estimates only,
   no interval): the ratio is what the intervals cost. Target: under 60 s.
2. **Shadow.** The step-aligned shadow of the offline SmolLM2 candidate (in process) on
   ``--shadow-episodes`` episodes of the tau2 airline file (``--shadow-points`` decision points
   each); baseline: the same shadow against an endpoint that answers at once, i.e. what the shadow
   itself costs per step beside the model.

    python benchmarks/behaviour_diff.py --episodes 10000
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
from dagster import AssetSpec, DagsterInstance, Definitions, define_asset_job, in_process_executor
from upath import UPath

from agentic_pipeline.demo import write_landing
from agentic_pipeline.ingest import DayIngestor, ingest_day
from agentic_pipeline.replay import replay_day, to_arrow
from agentic_pipeline.rewards import load_reward_spec, score_episodes
from agentic_pipeline.storage import DataRoot
from assets.partitions import daily_partitions
from assets.shadow import behaviour_diff_asset
from cli.runs import QUIET_RUN_CONFIG
from resources import PartitionedParquetIOManager
from resources.shadow import BehaviourDiffResource

RESULTS = Path(__file__).resolve().parent / "results" / "behaviour_diff.txt"
DAY = dt.date(2026, 6, 1)
TAU2 = Path(__file__).resolve().parents[2] / "shared/external/tau2-airline/airline_run1.json"
POLICIES = {"crm-efficient-v3": 0.5, "crm-eager-v1": 0.5}


def _day(root: Path, episodes: int) -> int:
    write_landing(root, DAY, 1, episodes, seed=11, transition_share=0.3, policy_weights=POLICIES)
    ds = DAY.isoformat()
    steps = ingest_day(root / "landing" / ds, ds).steps
    replayed = replay_day(steps)
    rewards = score_episodes(replayed, load_reward_spec())
    data = DataRoot(root / "data")
    data.write_partition("warehouse", "replayed_episodes", ds, to_arrow(replayed))
    data.write_partition(
        "warehouse", "episode_rewards", ds, pa.Table.from_pandas(rewards, preserve_index=False)
    )
    return len(replayed)


def _materialize(root: Path, n_bootstrap: int) -> tuple[float, int]:
    specs = [
        AssetSpec(k, partitions_def=daily_partitions, metadata={"zone": "warehouse"})
        for k in ("replayed_episodes", "episode_rewards")
    ]
    defs = Definitions(
        assets=[*specs, behaviour_diff_asset],
        jobs=[define_asset_job("diff", selection=["behaviour_diff"])],
        resources={
            "io_manager": PartitionedParquetIOManager(path=str(root / "data")),
            "diff_settings": BehaviourDiffResource(n_bootstrap=n_bootstrap),
        },
        executor=in_process_executor,
    )
    with DagsterInstance.ephemeral() as instance:
        start = time.perf_counter()
        result = defs.resolve_job_def("diff").execute_in_process(
            instance=instance, partition_key=DAY.isoformat(), run_config=QUIET_RUN_CONFIG
        )
        seconds = time.perf_counter() - start
    assert result.success
    rows = DataRoot(root / "data").read_partition("warehouse", "behaviour_diff", DAY.isoformat())
    return seconds, rows.num_rows


class _Instant:
    """An endpoint that answers at once (the shadow's own cost per step)."""

    def create(self, payload: dict) -> dict:
        message = {"role": "assistant", "content": "One moment please."}
        return {"choices": [{"message": message}], "usage": {"prompt_tokens": 1}}


def _shadow(episodes: int, points: int) -> list[str]:
    from agentic_pipeline.environments.local_model import MODEL_ID, LocalChatModel
    from agentic_pipeline.shadow import Candidate, ShadowBudget, ShadowSettings, StepAlignedShadow

    if not TAU2.exists():
        return [f"shadow: skipped, {TAU2} not found"]
    ingestor = DayIngestor(DAY.isoformat())
    ingestor.read_file(UPath(TAU2))
    rows = ingestor.finish().steps.to_pylist()
    settings = ShadowSettings(max_steps_per_episode=points, max_history_messages=6,
                              max_tokens_per_call=48)  # fmt: skip
    budget = ShadowBudget(max_episodes=episodes)
    out = []
    model = LocalChatModel()
    start = time.perf_counter()
    model.load()
    out.append(f"offline model load: {time.perf_counter() - start:.1f} s")
    per_step = {}
    for name, endpoint in (("instant endpoint (baseline)", _Instant()), (MODEL_ID, model)):
        shadow = StepAlignedShadow(Candidate(endpoint, name), settings, budget)
        start = time.perf_counter()
        result = shadow.run(rows)
        seconds = time.perf_counter() - start
        steps = sum(1 for r in result.steps if r["status"] == "proposed")
        per_step[name] = seconds / max(steps, 1)
        out.append(f"shadow with {name}: {steps} steps, {per_step[name]:.3f} s per step")
    ratio = per_step[MODEL_ID] / max(per_step["instant endpoint (baseline)"], 1e-9)
    out.append(f"model / shadow-only time per step: {ratio:.0f}x")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--shadow-episodes", type=int, default=2)
    parser.add_argument("--shadow-points", type=int, default=3)
    parser.add_argument("--no-shadow", action="store_true")
    args = parser.parse_args(argv)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        n = _day(root, args.episodes)
        lines.append(f"day: {n} episodes of {len(POLICIES)} policies, prepared in "
                     f"{time.perf_counter() - start:.1f} s (not timed below)")  # fmt: skip
        base, base_rows = _materialize(root, 0)
        full, rows = _materialize(root, 1000)
        lines.append(
            f"behaviour_diff, point estimates only (baseline): {base:.2f} s, {base_rows} rows"
        )
        lines.append(f"behaviour_diff, 1,000 resamples and permutations: {full:.2f} s, {rows} rows")
        lines.append(
            f"ratio: {full / base:.2f}x; target under 60 s: {'met' if full < 60 else 'MISSED'}"
        )
    if not args.no_shadow:
        lines += _shadow(args.shadow_episodes, args.shadow_points)
    text = "\n".join(lines)
    print(text)
    RESULTS.write_text(text + "\n")
    return 0 if full < 60 else 1


if __name__ == "__main__":
    sys.exit(main())
