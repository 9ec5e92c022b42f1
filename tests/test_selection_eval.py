"""A small, fast run of ``benchmarks/selection_eval.py`` (the full run checks accuracy)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "selection_eval.py"


def _load() -> ModuleType:
    name = "selection_eval"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # worker processes unpickle functions by module name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, dict[str, Any], Path]:
    se = _load()
    tmp = tmp_path_factory.mktemp("selection-eval")
    out, cache = tmp / "selection_eval.json", tmp / "true_values.json"
    argv = ["--seeds", "2", "--days", "14", "--episodes-per-day", "60", "--workers", "2"]
    argv += ["--truth-episodes", "4000", "--out", str(out), "--truth-cache", str(cache)]
    se.main(argv)  # exit status reflects accuracy, which this sample size cannot assert
    return se, json.loads(out.read_text()), cache


def test_summary_written_with_every_figure(run: tuple[ModuleType, dict[str, Any], Path]) -> None:
    _, summary, _ = run
    assert summary["seeds"] == 2 and summary["episodes"] == 2 * 14 * 60
    assert set(summary["per_task"]) == {
        "address_change",
        "close_case",
        "refund_request",
        "update_contact",
    }
    for task in summary["per_task"].values():
        assert 0.0 <= task["accuracy"] <= 1.0
        assert 0.0 <= task["ope_coverage"] <= 1.0
        assert task["truly_best_eligible"] != "crm-risky-v1"
    assert summary["overall"]["ope_nominal"] == pytest.approx(0.9)
    assert summary["overall"]["ope_cases"] > 0


def test_risky_variant_never_selected(run: tuple[ModuleType, dict[str, Any], Path]) -> None:
    _, summary, _ = run
    assert summary["overall"]["risky_selected"] == 0
    assert summary["stripped"]["risky_selected"] == 0
    truth = summary["truth"]
    assert all(truth[t]["crm-risky-v1"]["risk_rate"] > 0.05 for t in truth)


def test_stripped_propensities_select_but_flag_ope(
    run: tuple[ModuleType, dict[str, Any], Path],
) -> None:
    _, summary, _ = run
    stripped = summary["stripped"]
    assert stripped["selection_ran"] and stripped["rows"] > 0
    assert stripped["all_unidentified"]


def test_true_values_cached_by_spec_and_size(run: tuple[ModuleType, dict[str, Any], Path]) -> None:
    se, summary, cache = run
    stored = json.loads(cache.read_text())
    key = summary["settings"]["truth_key"]
    assert list(stored) == [key]
    assert key.startswith(summary["settings"]["reward_version"]) and "|n=4000|" in key
    assert stored[key]["seed"] == se.TRUTH_SEED and se.TRUTH_SEED >= 2
    values = stored[key]["values"]
    assert sum(c["n"] for per in values.values() for c in per.values()) == 4000


def test_every_estimator_has_coverage_and_error(
    run: tuple[ModuleType, dict[str, Any], Path],
) -> None:
    _, summary, _ = run
    overall = summary["overall"]
    assert overall["ope_headline"] == "sndr"
    assert set(overall["ope_by_estimator"]) == {"ips", "snips", "dm", "dr", "sndr"}
    for figures in overall["ope_by_estimator"].values():
        assert figures["cases"] == overall["ope_cases"]
        assert 0.0 <= figures["coverage"] <= 1.0 and figures["rmse"] >= 0.0
