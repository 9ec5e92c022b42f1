"""The tool catalogue: YAML built-ins, validation, inference for unlisted tools, facts per the
catalogue on real files of other domains, and the catalogue's version in the reward version."""

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from upath import UPath

from agentic_pipeline.catalogue import (
    CATALOGUE_ENV,
    Catalogue,
    builtin_catalogue,
    infer_effect,
    load_catalogue,
)
from agentic_pipeline.ingest import DayIngestor, ingest_day
from agentic_pipeline.replay import replay_day
from resources.catalogue import ToolCatalogueResource
from resources.reward_spec import RewardSpecResource

EXTERNAL = Path(__file__).resolve().parents[2] / "shared/external"
RETAIL = sorted((EXTERNAL / "tau-bench-retail").glob("*-*_*.json"))
TAU2 = EXTERNAL / "tau2-airline/airline_run1.json"
AIRLINE = EXTERNAL / "tau-bench/gpt-4o-airline.json"
#: Retail tools by effect, as the built-in retail catalogue says (counted from the source below).
RETAIL_DESTRUCTIVE = {"cancel_pending_order"}
RETAIL_FINANCIAL = {
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "modify_pending_order_items",
    "modify_pending_order_payment",
}
RETAIL_WRITE = {"modify_pending_order_address", "modify_user_address"}


def _ingest(path: Path):
    ingestor = DayIngestor("2026-05-04")
    ingestor.read_file(UPath(path))
    return ingestor.finish()


def test_builtin_catalogues_are_yaml_files():
    cat = builtin_catalogue()
    assert set(cat.tool_sets) == {"crm", "airline", "retail"}
    assert {s.split(".")[-1] for s in cat.sources} == {"yaml"}
    airline = cat.get("airline")
    assert airline.financial_tools == {"send_certificate"}
    assert airline.destructive_tools == {"cancel_reservation"}
    assert airline.handover_tools == {"transfer_to_human_agents"}
    retail = cat.get("retail")
    assert retail.destructive_tools == RETAIL_DESTRUCTIVE
    assert retail.financial_tools == RETAIL_FINANCIAL
    crm = cat.get("crm")
    assert crm.is_financial_write("update_crm", {"id": "c", "fields": {"iban": "x"}})
    assert not crm.is_financial_write("update_crm", {"id": "c", "fields": {"phone": "1"}})


@pytest.mark.parametrize(
    "name,effect",
    [
        ("get_order", "read"),
        ("searchFlights", "read"),
        ("list-items", "read"),
        ("create_ticket", "write"),
        ("update_profile", "write"),
        ("book_hotel", "write"),
        ("refund_order", "financial"),
        ("pay_invoice", "financial"),
        ("issue_refund", "financial"),
        ("delete_user", "destructive"),
        ("cancel_subscription", "destructive"),
        ("remove_item", "destructive"),
        ("transfer_to_human_agents", "handover"),
        ("escalate", "handover"),
        ("frobnicate", "write"),
    ],
)
def test_effects_are_inferred_from_tool_names(name, effect):
    assert infer_effect(name) == effect


def test_inferred_write_with_money_arguments_is_financial():
    unknown = builtin_catalogue().get("nothing")
    assert unknown.entry("adjust_order", {"amount": 5}).effect == "financial"
    assert unknown.entry("adjust_order", {"note": "x"}).effect == "write"
    assert unknown.entry("adjust_order").inferred


def test_bad_catalogues_are_refused_naming_the_problem(tmp_path):
    cases = {
        "effect": {"tool_sets": {"x": {"tools": {"t": "explode"}}}},
        "unknown keys": {"tool_sets": {"x": {"tools": {"t": {"effect": "read", "colour": 1}}}}},
        "top-level": {"tools": {}},
        "financial_fields": {"tool_sets": {"x": {"financial_fields": "amount"}}},
    }
    for expected, data in cases.items():
        path = tmp_path / f"{expected.replace(' ', '_')}.yaml"
        path.write_text(yaml.safe_dump(data))
        with pytest.raises(ValueError, match=expected):
            load_catalogue(path)
    with pytest.raises(FileNotFoundError):
        load_catalogue(tmp_path / "missing.yaml")


# --- another domain: with and without a catalogue ------------------------------------------------

HELPDESK_YAML = """
version: helpdesk-1
tool_sets:
  helpdesk:
    task_types: [helpdesk]
    errors: {prefixes: ["FAILED"], json_keys: ["fault"]}
    tools:
      lookup_ticket: read
      reassign_ticket: write
      sync_ledger: financial          # the name says nothing of money; the catalogue does
      issue_credit: financial
      purge_account: destructive
      page_oncall: handover
      set_account:
        effect: write
        financial_fields: [credit_limit]
"""


def _helpdesk_steps(tmp_path: Path) -> pd.DataFrame:
    """A landing file of three help-desk episodes (Episode JSONL), ingested."""
    episodes = {
        "h1": [
            ("lookup_ticket", {"id": "1"}, '{"ok": true}'),
            ("reassign_ticket", {"id": "1", "to": "b"}, "FAILED: no such team"),
            ("sync_ledger", {"id": "1"}, "ok"),
        ],
        "h2": [
            ("issue_credit", {"amount": 5}, '{"fault": "limit"}'),
            ("purge_account", {"id": "a"}, "ok"),
        ],
        "h3": [
            ("set_account", {"id": "a", "fields": {"credit_limit": 9}}, "ok"),
            ("set_account", {"id": "a", "fields": {"name": "n"}}, "ok"),
            ("page_oncall", {}, "ok"),
        ],
    }
    lines = []
    for eid, calls in episodes.items():
        messages = [{"role": "user", "content": "help"}]
        for k, (name, args, result) in enumerate(calls):
            cid = f"{eid}-{k}"
            messages.append(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                }
            )
            messages.append({"role": "tool", "tool_call_id": cid, "content": result})
        messages.append({"role": "assistant", "content": "bye"})
        lines.append(
            json.dumps(
                {
                    "episode_id": eid,
                    "task_type": "helpdesk",
                    "outcome": {"success": True},
                    "messages": messages,
                }
            )
        )
    day = tmp_path / "landing" / "2026-05-04"
    day.mkdir(parents=True)
    (day / "helpdesk.jsonl").write_text("\n".join(lines) + "\n")
    result = ingest_day(day, "2026-05-04")
    assert result.stats.records_accepted == 3
    return result.steps.to_pandas()  # fmt: skip


def test_another_domain_counted_per_its_catalogue(tmp_path):
    path = tmp_path / "helpdesk.yaml"
    path.write_text(HELPDESK_YAML)
    out = replay_day(_helpdesk_steps(tmp_path), rules=load_catalogue(path))
    out = out.set_index("episode_id")
    assert set(out["tool_set"]) == {"helpdesk"} and set(out["replay_status"]) == {"ok"}
    assert out["n_writes"].to_dict() == {"h1": 2, "h2": 2, "h3": 2}
    assert out["financial_writes"].to_dict() == {"h1": 1, "h2": 1, "h3": 1}
    assert out["destructive_actions"].to_dict() == {"h1": 0, "h2": 1, "h3": 0}
    assert out["n_errors"].to_dict() == {"h1": 1, "h2": 1, "h3": 0}  # the catalogue's patterns
    assert out["human_takeover"].to_dict() == {"h1": False, "h2": False, "h3": True}
    assert out["unknown_tools"].sum() == 0 and out["inferred_effects"].isna().all()


def test_another_domain_without_a_catalogue_is_inferred_and_never_diverges(tmp_path, monkeypatch):
    monkeypatch.delenv(CATALOGUE_ENV, raising=False)
    out = replay_day(_helpdesk_steps(tmp_path)).set_index("episode_id")
    assert set(out["tool_set"]) == {"unknown"}
    assert set(out["replay_status"]) == {"ok"}  # unknown tools alone never diverge
    assert out["unknown_tools"].to_dict() == {"h1": 3, "h2": 2, "h3": 2}
    assert json.loads(out.loc["h1", "inferred_effects"]) == {
        "lookup_ticket": "read",
        "reassign_ticket": "write",
        "sync_ledger": "write",
    }
    assert json.loads(out.loc["h2", "inferred_effects"]) == {
        "issue_credit": "financial",
        "purge_account": "destructive",
    }
    assert out["financial_writes"].to_dict() == {"h1": 0, "h2": 1, "h3": 1}
    assert out["destructive_actions"].to_dict() == {"h1": 0, "h2": 1, "h3": 0}
    assert out["n_errors"].to_dict() == {"h1": 0, "h2": 0, "h3": 0}  # custom markers unknown


# --- lineage: the catalogue's version is part of the reward version ------------------------------


def test_reward_version_changes_with_the_catalogue(tmp_path, monkeypatch):
    monkeypatch.delenv(CATALOGUE_ENV, raising=False)
    first = tmp_path / "a.yaml"
    first.write_text(HELPDESK_YAML)
    reordered = tmp_path / "b.yaml"  # same content, other layout and comments
    data = yaml.safe_load(HELPDESK_YAML)
    data["tool_sets"]["helpdesk"]["tools"] = dict(
        reversed(list(data["tool_sets"]["helpdesk"]["tools"].items()))
    )
    reordered.write_text("# reordered\n" + yaml.safe_dump(data, sort_keys=False))
    changed = tmp_path / "c.yaml"
    changed.write_text(HELPDESK_YAML.replace("reassign_ticket: write", "reassign_ticket: read"))

    builtin = RewardSpecResource().load().version
    v_first = RewardSpecResource(tool_catalogue=str(first)).load().version
    v_same = RewardSpecResource(tool_catalogue=str(reordered)).load().version
    v_changed = RewardSpecResource(tool_catalogue=str(changed)).load().version
    assert v_first == v_same
    assert len({builtin, v_first, v_changed}) == 3
    assert builtin.endswith(f"+catalogue-{builtin_catalogue().version}")
    monkeypatch.setenv(CATALOGUE_ENV, str(changed))
    assert RewardSpecResource().load().version == v_changed
    assert ToolCatalogueResource().load().version == load_catalogue(changed).version


# --- real files of other domains -----------------------------------------------------------------


def _source_calls(episodes: list[dict], key: str) -> dict[int, Counter]:
    return {
        i: Counter(
            (c.get("function") or c)["name"] for m in ep[key] for c in m.get("tool_calls") or []
        )
        for i, ep in enumerate(episodes)
    }


@pytest.mark.skipif(not RETAIL, reason="../shared/external/tau-bench-retail is absent")
@pytest.mark.parametrize("path", RETAIL, ids=lambda p: p.name[:24])
def test_tau_bench_retail_files_ingest_as_they_are(path):
    raw = json.loads(path.read_text())
    result = _ingest(path)
    stats = result.stats
    non_empty = [i for i, ep in enumerate(raw) if ep["traj"]]
    assert stats.records_accepted == len(non_empty)
    assert stats.records_read == len(raw) == stats.records_accepted + stats.records_quarantined
    assert set(result.quarantine.to_pandas()["reason"]) <= {"'messages' is empty"}
    steps = result.steps.to_pandas()
    replayed = replay_day(steps)
    by_index = replayed.merge(
        steps.groupby("episode_id")["source_index"].first().rename("idx"), on="episode_id"
    ).set_index("idx")
    source = _source_calls(raw, "traj")
    for idx, row in by_index.iterrows():
        assert Counter(json.loads(row["tool_counts"])) == source[idx]
    assert set(replayed["replay_status"]) == {"ok"}
    assert "unknown_tool" not in " ".join(replayed["status_reason"].dropna())
    total = sum(source.values(), Counter())
    assert int(replayed["destructive_actions"].sum()) == sum(total[t] for t in RETAIL_DESTRUCTIVE)
    assert int(replayed["financial_writes"].sum()) == sum(total[t] for t in RETAIL_FINANCIAL)
    writes = RETAIL_DESTRUCTIVE | RETAIL_FINANCIAL | RETAIL_WRITE
    assert int(replayed["n_writes"].sum()) == sum(total[t] for t in writes)
    assert int(replayed["unknown_tools"].sum()) == 0
    errors = sum(
        1
        for ep in raw
        for m in ep["traj"]
        if m["role"] == "tool" and (m.get("content") or "").startswith("Error")
    )
    assert int(replayed["n_errors"].sum()) == errors


@pytest.mark.skipif(not TAU2.exists(), reason="../shared/external/tau2-airline is absent")
def test_tau2_results_file_ingests_as_it_is():
    raw = json.loads(TAU2.read_text())
    result = _ingest(TAU2)
    sims = raw["simulations"]
    assert result.stats.records_read == len(sims) == result.stats.records_accepted
    replayed = replay_day(result.steps.to_pandas()).set_index("episode_id")
    assert len(replayed) == len(sims)
    for sim in sims:
        source = Counter(c["name"] for m in sim["messages"] for c in m.get("tool_calls") or [])
        assert Counter(json.loads(replayed.loc[sim["id"], "tool_counts"])) == source
        assert replayed.loc[sim["id"], "success"] == (sim["reward_info"]["reward"] > 0)
    assert set(replayed["replay_status"]) == {"ok"}
    assert set(replayed["tool_set"]) == {"airline"}
    total = Counter(
        c["name"] for s in sims for m in s["messages"] for c in m.get("tool_calls") or []
    )
    assert int(replayed["destructive_actions"].sum()) == total["cancel_reservation"]
    assert int(replayed["financial_writes"].sum()) == total["send_certificate"]
    errors = sum(1 for s in sims for m in s["messages"] if m["role"] == "tool" and m["error"])
    assert int(replayed["n_errors"].sum()) == errors


@pytest.mark.skipif(not AIRLINE.exists(), reason="../shared/external/tau-bench is absent")
def test_tau_bench_airline_facts_unchanged_and_without_catalogue_inferred(tmp_path):
    steps = _ingest(AIRLINE).steps.to_pandas()
    replayed = replay_day(steps)
    figures = (
        int((replayed["replay_status"] == "ok").sum()),
        int(replayed["success"].sum()),
        int(replayed["n_errors"].sum()),
        int(replayed["n_retries"].sum()),
        int(replayed["loop_detected"].sum()),
        int(replayed["financial_writes"].sum()),
        int(replayed["destructive_actions"].sum()),
    )
    assert figures == (200, 84, 73, 65, 3, 8, 69)  # the README's figures
    assert int(replayed["unknown_tools"].sum()) == 0
    # the same file with an empty catalogue: every tool inferred, nothing diverges
    empty = load_catalogue(None, builtins=False)
    bare = replay_day(steps, rules=empty)
    assert set(bare["replay_status"]) == {"ok"} and set(bare["tool_set"]) == {"unknown"}
    with_calls = bare[bare["n_tool_calls"] > 0]
    assert (with_calls["unknown_tools"] > 0).all() and with_calls["inferred_effects"].notna().all()
    inferred = {}
    for text in bare["inferred_effects"].dropna():
        inferred.update(json.loads(text))
    assert inferred["cancel_reservation"] == "destructive"
    assert inferred["send_certificate"] == "financial"  # "certificate" speaks of money
    assert inferred["transfer_to_human_agents"] == "handover"
    assert int(bare["destructive_actions"].sum()) == 69


@pytest.mark.parametrize(
    "text,error",
    [
        ("Error: not found", True),
        ("error while booking", True),
        ("ValueError: amount must be positive", True),
        ("pydantic_core.ValidationError: 1 validation error", True),
        ("KeyNotFoundException: x", True),
        ('{"error": "timeout"}', True),
        ('{"errors": [{"msg": "bad"}]}', True),
        ('{"status": 404, "detail": "no such order"}', True),
        ('{"statusCode": "503"}', True),
        ("HTTP/1.1 500 Internal Server Error", True),
        ("404 Not Found", True),
        ('{"error": null, "status": 200}', False),
        ('{"status": "available"}', False),
        ("The ValueError was fixed: ok", False),
        ("Order #W123 shipped", False),
        (None, False),
    ],
)
def test_default_error_patterns(text, error):
    assert builtin_catalogue().get("nothing").is_error(text) is error


def test_catalogue_error_patterns_add_prefixes_keys_and_status_codes():
    cat = load_catalogue(None, builtins=False).merged(
        Catalogue.from_dict(
            {
                "tool_sets": {
                    "x": {
                        "errors": {
                            "prefixes": ["FAILED"],
                            "json_keys": ["fault"],
                            "status_keys": ["rc"],
                            "status_codes": [299],
                        }
                    }
                }
            }
        )
    )
    x = cat.get("x")
    assert x.is_error("FAILED to book") and x.is_error('{"fault": "x"}')
    assert x.is_error('{"rc": 404}') and x.is_error('{"status": 299}')
    assert not x.is_error('{"rc": 200}') and not x.is_error("fine")
