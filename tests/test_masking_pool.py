"""The analysis pool gives the same spans whoever analyses a batch (issue #21, speed): workers
started in the background, this process taking the batches no worker has started, or one
process alone; and a string repeated in an episode is masked once but audited per cell."""

import pyarrow as pa
import pytest

from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.engine import AnalyzerConfig
from agentic_pipeline.masking.pool import AnalyzerPool

KEY = "test-key-pool"
# written for this test: names, e-mail addresses, phone numbers and ids in short chat lines
TEXTS = [
    f"Agent note {i}: Orla Quennell asked to move booking {i}QX to Friday; reach her at "
    f"orla.q{i}@example.net or +1 415 555 01{i:02d}."
    for i in range(12)
] + [
    "Thanks, that works for me.",
    "My colleague Bartholomew Nkemelu will call back about the refund tomorrow.",
    "Please update the address to 48 Larchmont Drive, Apt 3, Boise, ID 83702.",
]


def test_started_pool_and_one_process_give_the_same_spans():
    pool = AnalyzerPool(AnalyzerConfig(), n_workers=2)
    try:
        pool.start()  # workers start in the background; this process begins on its own
        shared = pool.analyze(TEXTS, use_ner=True)
        assert pool.worker_pids()  # the workers took part
        again = pool.analyze(TEXTS, use_ner=True)
    finally:
        pool.close()
    alone = AnalyzerPool(AnalyzerConfig(), n_workers=1).analyze(TEXTS, use_ner=True)
    assert shared == again == alone
    assert any(sp[2] == "EMAIL_ADDRESS" for sp in shared[0])


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def test_a_repeated_string_is_audited_in_every_cell(masker):
    line = "Please call Orla Quennell on +1 415 555 0199 about the refund."
    rows = [("ep-a", 0, line), ("ep-a", 1, line), ("ep-b", 0, line)]
    table = pa.table(
        {
            "ds": ["2026-11-28"] * 3,
            "episode_id": [r[0] for r in rows],
            "step": pa.array([r[1] for r in rows], pa.int32()),
            "content": [r[2] for r in rows],
        }
    )
    result = mask_steps(table, masker)
    masked = result.masked.column("content").to_pylist()
    assert masked[0] == masked[1] == masked[2] and "0199" not in masked[0]
    audit = result.audit.to_pylist()
    per_row = [
        sorted((a["entity_type"], a["pseudonym"]) for a in audit if a["row"] == r)
        for r in (0, 1, 2)
    ]
    assert per_row[0] and per_row[0] == per_row[1] == per_row[2]
