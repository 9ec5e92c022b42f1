"""Strict JSON: what the project stores as JSON text must be readable by strict JSON readers.

Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity`` by default, which is not
JSON (RFC 8259): strict readers (``JSON.parse``, Go, Rust serde, DuckDB's ``json`` type) refuse
the whole document. :func:`strict_json_dumps` replaces every non-finite float with ``null`` first
and then dumps with ``allow_nan=False``; :func:`strict_json_dumps_counted` also says how many
values were replaced, for the caller's metadata.

:func:`safe_loads` is the other direction: ``json.loads`` that never raises on bad input, including
``RecursionError`` on text nested thousands of levels deep.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

#: Returned by :func:`safe_loads` when the text is not JSON (distinct from a JSON ``null``).
INVALID: Any = object()


def finite_or_none(value: Any) -> tuple[Any, int]:
    """``(copy of value with every NaN/±inf float replaced by None, number replaced)``.

    Walks dicts, lists and tuples iteratively (no recursion limit); other values are kept as they
    are. Numpy floats are floats too (``np.float64`` subclasses ``float``).
    """
    replaced = 0

    def leaf(v: Any) -> Any:
        nonlocal replaced
        if isinstance(v, float) and not math.isfinite(v):
            replaced += 1
            return None
        return v

    if not isinstance(value, (Mapping, list, tuple)):
        return leaf(value), replaced
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]  # (source, parent container, key)
    while stack:
        src, parent, key = stack.pop()
        if isinstance(src, Mapping):
            out: Any = {}
            for k, v in src.items():
                out[k] = None
                stack.append((v, out, k))
        elif isinstance(src, (list, tuple)):
            out = [None] * len(src)
            for i, v in enumerate(src):
                stack.append((v, out, i))
        else:
            out = leaf(src)
        parent[key] = out
    return root[0], replaced


def strict_json_dumps_counted(value: Any, **kwargs: Any) -> tuple[str, int]:
    """``(strict JSON text, number of non-finite floats written as null)``."""
    clean, replaced = finite_or_none(value)
    return json.dumps(clean, allow_nan=False, **kwargs), replaced


def strict_json_dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that writes non-finite floats as ``null`` and never emits NaN/Infinity."""
    return strict_json_dumps_counted(value, **kwargs)[0]


def json_leaves(value: Any) -> Iterator[Any]:
    """The scalar leaves of parsed JSON (dict values and list items, never keys), walked
    iteratively so that any depth is safe; ``None`` leaves are skipped."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif node is not None:
            yield node


def safe_loads(text: Any, default: Any = INVALID) -> Any:
    """``json.loads(text)``, or ``default`` when ``text`` is not a JSON string or is nested too
    deeply for the parser (``RecursionError``)."""
    if not isinstance(text, (str, bytes, bytearray)):
        return default
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return default
