"""Issue #11: a bad record never fails a day; metadata holds no unscanned value; strict JSON;
a deterministic audit; a private data root; permanent errors not retried."""


import numpy as np
import pyarrow as pa
import pytest
from dagster import DagsterInstance
from test_reward_assets import ARMS, local_defs, replayed, run, write_upstream

from agentic_pipeline.storage import DataRoot

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
        ds: root.read_partition("warehouse", "episode_rewards", ds).schema.field(
            "first_message_chars"
        ).type
        for ds in (DAY1, DAY2)
    }
    assert types[DAY1] == types[DAY2] == pa.int64()
    result = run(defs, instance, ["policy_selection"], DAY2, raise_on_error=False)
    assert result.success
    table = root.read_partition("warehouse", "policy_selection", DAY2).to_pandas()
    assert table["n_episodes"].sum() == sum(n for n, _ in ARMS.values()) * 2
