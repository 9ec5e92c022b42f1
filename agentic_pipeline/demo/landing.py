"""The demo's landing files: simulated days written where ``raw_agent_logs`` reads them."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentic_pipeline.demo.simulator import generate_episodes
from agentic_pipeline.storage import atomic_path

_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dump_line(obj: Mapping[str, Any]) -> bytes:
    return (_DUMPS(obj) + "\n").encode("utf-8")


#: share of the landing files' episodes that retry an earlier task of the day (customers come
#: back; a ticket is re-opened and handled again), as real products log them
RETRY_SHARE = 0.2


def write_landing(
    root: Path,
    start: dt.date,
    days: int,
    episodes_per_day: int,
    seed: int = 0,
    transition_share: float = 0.3,
    policy_weights: Mapping[str, float] | None = None,
    retry_share: float = RETRY_SHARE,
) -> dict[str, Any]:
    """Simulate ``days`` days into ``root/landing/YYYY-MM-DD/`` and return a summary.

    Each day gets ``episodes-000.jsonl.gz`` (episode JSONL, gzip with mtime 0) and
    ``transitions-000.jsonl`` (about ``transition_share`` of the episodes, one step per line).
    Files are streamed and put into place atomically (``atomic_path``); same arguments, same bytes.
    """
    root = Path(root)
    summary: dict[str, Any] = {
        "root": str(root),
        "seed": seed,
        "days": [],
        "files": [],
        "episodes": 0,
    }
    for d in range(days):
        day = start + dt.timedelta(days=d)
        folder = root / "landing" / day.isoformat()
        folder.mkdir(parents=True, exist_ok=True)
        ep_path, tr_path = folder / "episodes-000.jsonl.gz", folder / "transitions-000.jsonl"
        fmt_rng = random.Random(f"agentic-pipeline-format:{seed}:{day.isoformat()}")
        counts = {"episode_format": 0, "transition_format": 0, "transition_lines": 0}
        with atomic_path(ep_path) as ep_tmp, atomic_path(tr_path) as tr_tmp:
            with open(ep_tmp, "wb") as raw, open(tr_tmp, "wb") as tr_out:
                with gzip.GzipFile(
                    filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6
                ) as gz:
                    episodes = generate_episodes(
                        day, episodes_per_day, seed, policy_weights, retry_share=retry_share
                    )
                    for ep in episodes:
                        if fmt_rng.random() < transition_share:
                            tr_out.writelines(_dump_line(t) for t in ep.transitions)
                            counts["transition_format"] += 1
                            counts["transition_lines"] += len(ep.transitions)
                        else:
                            gz.write(_dump_line(ep.record))
                            counts["episode_format"] += 1
        files = []
        for final, count in (
            (ep_path, counts["episode_format"]),
            (tr_path, counts["transition_format"]),
        ):
            if count:
                files.append(str(final))
            else:  # no episode in this format today: no file
                final.unlink(missing_ok=True)
        summary["days"].append(
            {"date": day.isoformat(), "episodes": episodes_per_day, **counts, "files": files}
        )
        summary["files"].extend(files)
        summary["episodes"] += episodes_per_day
    return summary
