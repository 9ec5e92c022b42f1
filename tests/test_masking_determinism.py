"""Issue #12 point 7: the same input and key give byte-identical masked output, audit and withheld
episodes, whatever the worker count, the batch composition or the process's hash seed."""

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agentic_pipeline.masking.engine import AnalyzerConfig, TextAnalyzer
from agentic_pipeline.schema import STEP_SCHEMA
from benchmarks.masking_eval.evaluation import episodes_corpus, tau_bench_corpus

REPO = Path(__file__).resolve().parents[1]
TAU = REPO.parent / "shared" / "external" / "tau-bench"
DS = "2026-11-28"

MASK_ONE_DAY = """
import sys
import pyarrow.parquet as pq
from agentic_pipeline.masking import Masker, mask_steps

if __name__ == "__main__":  # the NER workers are started with forkserver
    src, out, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Masker(key="determinism-test-key", n_workers=workers) as masker:
        result = mask_steps(pq.read_table(src), masker)
    assert masker.pool.n_workers == workers
    for name, table in (("masked", result.masked), ("audit", result.audit),
                        ("withheld", result.withheld)):
        pq.write_table(table, f"{out}/{name}.parquet")
"""


def _day() -> pa.Table:
    """Simulated CRM episodes, tau-bench airline episodes when present, a name found by two
    detectors, and one episode whose email is a JSON key (withheld), all on one day."""
    from agentic_pipeline.demo import generate_episodes

    day = dt.date.fromisoformat(DS)
    parts = [episodes_corpus(generate_episodes(day, 12, 3), day).table]
    if (TAU / "gpt-4o-airline.json").exists():
        parts.append(
            tau_bench_corpus(
                TAU / "gpt-4o-airline.json", TAU / "airline-users.json", limit=6, ds=DS
            ).table
        )
    # a name found by spaCy (weak) in one text and by the self-introduction recognizer (strong)
    # in another: whether it is masked in the tool argument depended on set iteration order
    jordan = [
        "Jordan Whitfield called about the refund yesterday.",
        "Hello, my name is Jordan Whitfield and I need help.",
        "Whitfield",
        "Thanks Jordan, I will look into it.",
    ]
    leaky = pa.Table.from_pylist(
        [
            *[
                {
                    "ds": DS,
                    "episode_id": "two-detectors-1",
                    "step": i,
                    "role": "user",
                    "action_type": "message",
                    "content": text,
                }
                for i, text in enumerate(jordan)
            ],
            {
                "ds": DS,
                "episode_id": "two-detectors-1",
                "step": 4,
                "role": "assistant",
                "action_type": "tool_call",
                "tool_name": "find_user",
                "tool_arguments": '{"query": "Jordan"}',
            },
            {
                "ds": DS,
                "episode_id": "leaky-1",
                "step": 0,
                "role": "user",
                "action_type": "message",
                "content": "Hi, I need my booking",
            },
            {
                "ds": DS,
                "episode_id": "leaky-1",
                "step": 1,
                "role": "tool",
                "action_type": "tool_result",
                "content": '{"by_email": {"bob.smith@example.com": 1}}',
                # an identifier masking never rewrites: the episode cannot be masked (withheld)
                "tool_call_id": "call_bob.smith@example.com",
            },
        ],
        schema=STEP_SCHEMA,
    )
    table = pa.concat_tables([p.cast(STEP_SCHEMA) for p in parts] + [leaky])
    return table.set_column(
        table.schema.get_field_index("ds"), "ds", pa.array([DS] * table.num_rows, pa.string())
    )


@pytest.mark.slow
def test_one_day_masked_with_1_and_2_workers_twice_each_is_byte_identical(tmp_path):
    day = _day()
    src = tmp_path / "day.parquet"
    pq.write_table(day, src)
    script = tmp_path / "mask_one_day.py"
    script.write_text(MASK_ONE_DAY)
    outputs = []
    # a different hash seed per run: set iteration order must not reach the output
    for run, (workers, seed) in enumerate([(1, "1"), (1, "2"), (2, "3"), (2, "4")]):
        out = tmp_path / f"run{run}"
        out.mkdir()
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, str(script), str(src), str(out), str(workers)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append({p.name: p.read_bytes() for p in sorted(out.glob("*.parquet"))})
    first = outputs[0]
    assert set(first) == {"masked.parquet", "audit.parquet", "withheld.parquet"}
    for other in outputs[1:]:
        for name, data in first.items():
            assert other[name] == data, f"{name} differs between runs"
    withheld = pq.read_table(tmp_path / "run0" / "withheld.parquet")
    assert withheld.column("episode_id").to_pylist() == ["leaky-1"]
    masked = pq.read_table(tmp_path / "run0" / "masked.parquet")
    assert masked.num_rows == day.num_rows - 2
    assert '{"query": "Jordan"}' not in masked.column("tool_arguments").to_pylist()
    assert pq.read_table(tmp_path / "run0" / "audit.parquet").num_rows > 0


@pytest.fixture(scope="module")
def analyzer():
    return TextAnalyzer(AnalyzerConfig(batch_size=4))


def test_ner_results_do_not_depend_on_batch_composition(analyzer):
    """spaCy's ``nlp.pipe`` pads a batch; the detections of a text must be the same alone, in
    a batch, and in a batch of other texts in another order (the pool's chunking varies with the
    worker count)."""
    day = _day()
    texts = sorted({v for v in day.column("content").to_pylist() if v and len(v) > 20})[:40]
    together = analyzer.analyze(texts, True)
    alone = [analyzer.analyze([t], True)[0] for t in texts]
    reverse = analyzer.analyze(texts[::-1], True)[::-1]
    assert together == alone == reverse
    assert sum(len(s) for s in together) > 0
