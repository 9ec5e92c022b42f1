"""Shared fixtures: a throw-away data root, the tau-bench file and the spaCy pipeline."""

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TAU_BENCH = REPO.parent / "shared" / "external" / "tau-bench"

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
# tests use their own data roots: partitions must not start at the days of a local ./data
os.environ.setdefault("AGENTIC_PIPELINE_START_DATE", "2025-01-01")
# tests mask with the public development key, and say so explicitly (tests that need a real key
# or no key at all set or delete the variables with monkeypatch)
os.environ["AGENTIC_PIPELINE_DEV_MODE"] = "1"
os.environ.pop("AGENTIC_PIPELINE_MASKING_KEY", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files holding a long end-to-end test (marked ``slow``) run first, in their order:
    ``make test`` gives each file whole to one of two workers (pytest-xdist ``--dist loadfile``),
    and a long file taken last would leave the other worker idle at the end."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    (root / "landing").mkdir(parents=True)
    return root


@pytest.fixture(scope="session")
def nlp():
    """The analyzer's spaCy pipeline, as the name model reads it (``names.build._nlp``)."""
    from agentic_pipeline.masking.names import build

    return build._nlp()


@pytest.fixture(scope="session")
def tau_bench_file() -> Path:
    path = TAU_BENCH / "gpt-4o-airline.json"
    if not path.exists():
        pytest.skip(f"tau-bench data not found at {TAU_BENCH} (shared/ folder absent)")
    return path


@pytest.fixture(scope="session")
def tau_bench_users() -> dict:
    path = TAU_BENCH / "airline-users.json"
    if not path.exists():
        pytest.skip(f"tau-bench users not found at {TAU_BENCH} (shared/ folder absent)")
    return json.loads(path.read_text())


def write_jsonl(path: Path, records: list) -> Path:
    """Write records (dicts, or raw str/bytes lines) as JSONL."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        for record in records:
            if isinstance(record, bytes):
                fh.write(record + b"\n")
            elif isinstance(record, str):
                fh.write(record.encode() + b"\n")
            else:
                fh.write(json.dumps(record).encode() + b"\n")
    return path


def masked_user_texts(masker, *texts: str) -> list[str | None]:
    """``texts`` as the user messages of one episode, masked by ``masker`` (no final scan): the
    masked ``content`` of each, in order."""
    import pyarrow as pa

    from agentic_pipeline.masking import mask_steps
    from agentic_pipeline.schema import STEP_SCHEMA

    rows = [
        {
            "ds": "2026-11-28",
            "episode_id": "ep1",
            "step": i,
            "role": "user",
            "action_type": "message",
            "content": t,
        }
        for i, t in enumerate(texts)
    ]
    out = mask_steps(pa.Table.from_pylist(rows, schema=STEP_SCHEMA), masker, scan=False).masked
    return out.column("content").to_pylist()


def cell_table(*cells: tuple[str, str], episode_id: str = "ep-cells"):
    """One episode of step rows, one per (role, content) cell: tool results for "tool", else
    messages."""
    import pyarrow as pa

    from agentic_pipeline.schema import STEP_SCHEMA

    rows = [
        {
            "ds": "2026-11-28",
            "episode_id": episode_id,
            "step": i,
            "role": role,
            "action_type": "tool_result" if role == "tool" else "message",
            "tool_name": "lookup" if role == "tool" else None,
            "content": content,
        }
        for i, (role, content) in enumerate(cells)
    ]
    return pa.Table.from_pylist(rows, schema=STEP_SCHEMA)


def masked_cells(masker, *cells: tuple[str, str]) -> list[str | None]:
    """``cells`` (see ``cell_table``) masked by ``masker``, none withheld: the masked
    ``content`` of each, in order."""
    from agentic_pipeline.masking import mask_steps

    result = mask_steps(cell_table(*cells), masker)
    assert result.withheld.num_rows == 0
    return result.masked.column("content").to_pylist()


def chat_episode(episode_id: str = "ep-1", **extra) -> dict:
    """A small valid Episode-JSONL record."""
    record = {
        "episode_id": episode_id,
        "started_at": "2026-11-28T10:15:00Z",
        "policy_id": "crm-v2",
        "propensity": 0.25,
        "task_type": "update_contact",
        "task": {"description": "change my email", "goal": {"customer_id": "cus_1"}},
        "messages": [
            {"role": "system", "content": "You are a CRM agent."},
            {"role": "user", "content": "Hi, I'm Ann Lee, my email is ann@example.com"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "search_customer",
                            "arguments": json.dumps({"email": "ann@example.com"}),
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "name": "search_customer",
                "content": json.dumps({"id": "cus_1", "name": "Ann Lee"}),
            },
            {"role": "assistant", "content": "Done, Ann."},
        ],
        "outcome": {"success": True, "human_takeover": False, "complaint": False, "csat": 5},
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "latency_ms": 900,
            "cost_usd": 0.002,
        },
        "reward": 1.0,
    }
    record.update(extra)
    return record


def transitions(episode_id: str = "tr-1") -> list[dict]:
    """A small valid Transition-JSONL episode."""
    common = {
        "episode_id": episode_id,
        "policy_id": "crm-v1",
        "propensity": 0.5,
        "task_type": "close_case",
    }
    return [
        {
            **common,
            "step": 0,
            "ts": "2026-11-28T10:00:00Z",
            "task_description": "close case 7",
            "action": {"type": "tool", "tool_name": "close_case", "params": {"id": "case_7"}},
            "obs": {"status": "closed"},
            "reward": 0.0,
            "done": False,
        },
        {
            **common,
            "step": 1,
            "action": {"type": "respond", "reply": "Closed."},
            "obs": {"user_message": "Thanks!"},
            "reward": 0.0,
            "done": False,
        },
        {
            **common,
            "step": 2,
            "action": {"type": "finish"},
            "obs": None,
            "reward": 1.0,
            "done": True,
        },
    ]


def make_unmaskable(data, ds: str, episode: str) -> None:
    """Put an email into an identifier column of ``episode``'s raw rows: masking never rewrites
    identifiers (replay and joins need them), so that episode cannot be masked and is withheld.
    (Ingestion quarantines such records; this writes the raw zone directly, as a bad upstream
    or an old raw day would.)"""
    import pyarrow as pa

    raw = data.read_partition("restricted", "raw_agent_logs", ds)
    col = raw.schema.get_field_index("tool_call_id")
    episodes, old = raw.column("episode_id").to_pylist(), raw.column(col).to_pylist()
    ids = [
        "call_bob.smith@example.com" if e == episode else v
        for e, v in zip(episodes, old, strict=True)
    ]
    field = raw.schema.field(col)
    data.write_partition(
        "restricted", "raw_agent_logs", ds, raw.set_column(col, field, pa.array(ids, field.type))
    )
