"""The leak scan of training records: every string leaf, JSON text after decoding."""

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                _strings(json.loads(text), out)
                return
            except (ValueError, RecursionError):  # not JSON, or nested too deep: scan the text
                pass
        out.append(value)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            out.append(str(k))
            _strings(v, out)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for v in value:
            _strings(v, out)


def scan_records(records: Sequence[Mapping[str, Any]], name: str) -> None:
    """Raise ``PIILeakError`` (masking package) if any string in ``records`` looks personal.

    Every string leaf is scanned, JSON text (tool arguments, RL prompts) after decoding. The
    error names the dataset, record index and entity type, never the value.
    """
    from agentic_pipeline.masking import PIILeakError, scan_for_leaks  # heavy import: lazy

    texts = []
    for rec in records:
        leaves: list[str] = []
        _strings(rec, leaves)
        texts.append("\n".join(leaves))
    if not texts:
        return
    leaks = scan_for_leaks(pd.DataFrame({name: texts}), columns=(name,))
    if leaks:
        raise PIILeakError(leaks)
