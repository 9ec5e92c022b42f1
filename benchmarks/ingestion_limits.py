"""Peak memory of ingesting hostile landing days at the default ``IngestLimits`` (issue #11).

Each case runs in a fresh Python process so that its peak RSS is its own:

- ``line``: a 2 MB gzip holding one 2 GiB line;
- ``million``: a gzip of 1,000,000 small valid episodes.

    python benchmarks/ingestion_limits.py line million
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DS = "2026-11-28"


def _write(kind: str, folder: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import chat_episode

    path = folder / "x.jsonl.gz"
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    with path.open("wb") as fh:
        if kind == "line":
            for _ in range(2048):
                fh.write(compressor.compress(b"a" * (1 << 20)))
        else:
            for i in range(1_000_000):
                line = json.dumps(chat_episode(f"e{i}")).encode() + b"\n"
                fh.write(compressor.compress(line))
        fh.write(compressor.flush())
    return path


def child(folder: str) -> None:
    from agentic_pipeline.ingest import ingest_day

    t0 = time.perf_counter()
    stats = ingest_day(folder, DS).stats
    print(
        json.dumps(
            {
                "seconds": round(time.perf_counter() - t0, 1),
                "episodes": stats.episodes,
                "rows": stats.rows,
                "records_quarantined": stats.records_quarantined,
                "bytes_read_mib": stats.bytes_read >> 20,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10,
                "reasons": stats.quarantine_reasons,
            }
        )
    )


def main() -> None:
    if sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    for kind in sys.argv[1:] or ["line", "million"]:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / DS
            folder.mkdir()
            size = os.path.getsize(_write(kind, folder))
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(folder)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            print(kind, f"gzip {size / 2**20:.1f} MiB", out.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
