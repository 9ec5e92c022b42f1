"""``benchmarks/obd_eval.py`` on a hand-made wheel with the Open Bandit Dataset's layout.

The real sample ships inside the ``obp`` wheel (not in the repository); these logs are simulated
here with known click rates, so the evaluation's reading, mapping and figures can be checked.
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "obd_eval.py"
N_ITEMS = {"all": 4, "men": 3, "women": 3}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("obd_eval", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log(policy: str, n_items: int, n: int, rng: np.random.Generator) -> pd.DataFrame:
    ctr = np.linspace(0.04, 0.12, n_items)  # click rate per item
    if policy == "random":
        probs = np.full(n_items, 1 / n_items)
    else:
        probs = np.linspace(1, 3, n_items) / np.linspace(1, 3, n_items).sum()
    item = rng.choice(n_items, size=n, p=probs)
    return pd.DataFrame(
        {
            "timestamp": pd.Timestamp("2026-05-01", tz="UTC")
            + pd.to_timedelta(rng.integers(0, 3 * 86400, n), unit="s"),
            "item_id": item,
            "position": rng.integers(1, 4, n),
            "click": (rng.random(n) < ctr[item]).astype(int),
            "propensity_score": probs[item],
            **{f"user_feature_{k}": rng.choice(["u1", "u2"], size=n) for k in range(4)},
        }
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("obd") / "obp-0.0.0-py3-none-any.whl"
    rng = np.random.default_rng(11)
    with zipfile.ZipFile(path, "w") as z:
        for policy in ("random", "bts"):
            for campaign, k in N_ITEMS.items():
                base = f"obp/dataset/obd/{policy}/{campaign}"
                z.writestr(f"{base}/{campaign}.csv", _log(policy, k, 3000, rng).to_csv())
                items = pd.DataFrame({"item_id": range(k), "item_feature_0": 0})
                z.writestr(f"{base}/item_context.csv", items.to_csv())
    return path


def test_obd_eval_reads_the_wheel_and_reports_every_cell(wheel: Path) -> None:
    obd = _load()
    log = obd.read_log(wheel, "bts", "men")
    assert len(log) == 3000 and set(log["task_type"]) == {f"position-{p}" for p in (1, 2, 3)}
    assert log["policy_id"].str.startswith("item-").all() and log["reward"].isin([0, 1]).all()
    result = obd.run(wheel, n_bootstrap=200)
    cells = result["cells"]
    assert len(cells) == 24  # 2 directions x 3 campaigns x (3 positions + all positions)
    for c in cells:
        for name in (*obd.ESTIMATORS, *obd.TEXTBOOK):
            assert c[f"{name}_low"] <= c[name] <= c[f"{name}_high"], (c["cell"], name)
        for name in obd.ESTIMATORS:
            assert 0.0 <= c[f"{name}_low"] and c[f"{name}_high"] <= 1.0
    for direction in (*obd.DIRECTIONS, obd.BOTH):
        per = result["summary"][direction]
        head = per[obd.HEADLINE]
        assert head["outside_reward_range"] == 0 and head["zero_width"] == 0
        # simulated logs with known rates: the headline's 95% intervals hold the truth
        assert head["covered"] >= head["cells"] - 2, direction
    text = obd.format_result(result)
    assert "uniform from bts (12 cells, 95% intervals)" in text and "textbook_ips" in text
