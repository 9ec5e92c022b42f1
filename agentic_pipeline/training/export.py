"""Files: one day's datasets (leak-scanned, strict JSON, each folder replaced atomically) and range
exports.

Each format has its own folder of the warehouse (``FORMAT_DIRS``): ``training_sft/ds=D/sft.jsonl``,
``training_dpo_trl/ds=D/dpo_trl.jsonl``, ``training_dpo_openai/ds=D/dpo_openai.jsonl`` and
``training_rl/ds=D/part-00000.parquet``; ``training_datasets/ds=D/part-0.parquet`` is the day's
summary, written last, so a day whose summary is stored has all four.
"""

import json
import os
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
from upath import UPath

from agentic_pipeline.jsonutil import strict_json_dumps_counted
from agentic_pipeline.storage import PART_FILE, DataRoot, atomic_write_bytes, day_range
from agentic_pipeline.training.leaks import scan_records
from agentic_pipeline.training.records import (
    ASSET_NAME,
    DPO_OPENAI_FILE,
    DPO_TRL_FILE,
    FORMAT_DIRS,
    FORMAT_FILES,
    RL_FILE,
    SFT_FILE,
    TrainingDatasets,
    _parquet_bytes,
)
from agentic_pipeline.training.rl import RL_SCHEMA, rl_table
from agentic_pipeline.training.summary import summary_bytes

#: Mode of a range export: readable by its owner only (training data leaves the data root).
EXPORT_FILE_MODE = 0o600


def _jsonl_bytes(records: Iterable[Mapping[str, Any]], counts: dict[str, int]) -> bytes:
    """Strict JSON lines (non-finite numbers become null, counted in ``counts["nonfinite"]``)."""
    lines = []
    for r in records:
        text, replaced = strict_json_dumps_counted(r, ensure_ascii=False, separators=(",", ":"))
        counts["nonfinite"] = counts.get("nonfinite", 0) + replaced
        lines.append(text.encode("utf-8") + b"\n")
    return b"".join(lines)


def day_files(datasets: TrainingDatasets) -> dict[str, bytes]:
    """The contents of one day's files, after the leak scan of every format.

    The JSONL files are strict JSON: a non-finite number is written as ``null`` and counted in
    ``datasets.nonfinite_to_null``.
    """
    for fmt, records in datasets.by_format().items():
        scan_records(records, fmt)
    counts: dict[str, int] = {}
    files = {
        SFT_FILE: _jsonl_bytes(datasets.sft, counts),
        DPO_TRL_FILE: _jsonl_bytes(datasets.dpo_trl, counts),
        DPO_OPENAI_FILE: _jsonl_bytes(datasets.dpo_openai, counts),
        # the day is in the folder name (ds=...), as for every table of the data root
        RL_FILE: _parquet_bytes(rl_table(datasets.rl).drop_columns(["ds"])),
    }
    datasets.nonfinite_to_null = counts.get("nonfinite", 0)
    return files


def write_day(
    data_root: str | os.PathLike | UPath,
    ds: str,
    datasets: TrainingDatasets,
    summary: pd.DataFrame | None = None,
) -> UPath:
    """Leak-scan one day's datasets, then replace its folder (see :func:`write_day_files`).

    ``summary`` is stored as ``training_datasets/ds=<ds>/part-0.parquet`` (the partitioned IO
    manager's layout, so downstream assets can load it). Fails with ``PIILeakError`` before
    writing anything.
    """
    files = day_files(datasets)
    if summary is not None:
        files[PART_FILE] = summary_bytes(summary)
    return write_day_files(data_root, ds, files)


def write_day_files(
    data_root: str | os.PathLike | UPath, ds: str, files: Mapping[str, bytes]
) -> UPath:
    """Replace each format's ``ds=<ds>`` folder with its file (one atomic swap per folder), then
    the summary's (``PART_FILE``), last; returns the summary's folder (or the last written)."""
    root = DataRoot(data_root)
    folder_of = {name: FORMAT_DIRS[fmt] for fmt, name in FORMAT_FILES.items()}
    written = None
    for name, payload in files.items():
        if name != PART_FILE:
            written = root.replace_partition_files(
                "warehouse", folder_of[name], ds, {name: payload}
            )
    if PART_FILE in files:
        written = root.replace_partition_files(
            "warehouse", ASSET_NAME, ds, {PART_FILE: files[PART_FILE]}
        )
    return written


def stored_days(
    data_root_path: str | os.PathLike | UPath, fmt: str, start: str, end: str
) -> list[str]:
    """The days of ``start..end`` (inclusive) whose ``fmt`` dataset is stored."""
    if fmt not in FORMAT_FILES:
        raise ValueError(f"unknown format {fmt!r}: expected one of {sorted(FORMAT_FILES)}")
    root = DataRoot(data_root_path)
    return [
        ds
        for ds in day_range(date.fromisoformat(start), date.fromisoformat(end))
        if (root.partition_dir("warehouse", FORMAT_DIRS[fmt], ds) / FORMAT_FILES[fmt]).exists()
    ]


def export_range(
    data_root_path: str | os.PathLike | UPath,
    start: str,
    end: str,
    fmt: str,
    out_path: str | os.PathLike,
) -> int:
    """Concatenate the stored days ``start..end`` (inclusive) of one format into ``out_path``.

    ``fmt`` is ``sft``, ``dpo`` (TRL shape), ``dpo-openai`` or ``rl`` (Parquet; the others
    JSONL). Days without stored datasets are skipped. The output is leak-scanned again and
    written atomically; returns the number of records written.
    """
    root = DataRoot(data_root_path)
    days = stored_days(data_root_path, fmt, start, end)
    out = Path(out_path)
    if fmt == "rl":
        tables = [  # the ds column comes back from each day's folder name
            root.read_partition("warehouse", FORMAT_DIRS[fmt], ds).select(RL_SCHEMA.names)
            for ds in days
        ]
        table = pa.concat_tables(tables).cast(RL_SCHEMA) if tables else RL_SCHEMA.empty_table()
        scan_records(table.to_pylist(), fmt)
        payload, count = _parquet_bytes(table), table.num_rows
    else:
        paths = [
            root.partition_dir("warehouse", FORMAT_DIRS[fmt], ds) / FORMAT_FILES[fmt] for ds in days
        ]
        lines = [line for p in paths for line in p.read_bytes().splitlines() if line.strip()]
        scan_records([json.loads(line) for line in lines], fmt)
        payload, count = b"".join(line + b"\n" for line in lines), len(lines)
    atomic_write_bytes(out, payload, mode=EXPORT_FILE_MODE)
    return count
