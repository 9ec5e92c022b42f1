"""Mask one record in the agent's own process, with the pipeline's masking and keyed tokens.

A *record* is what an agent emits at once: a chat message list, a tool call's arguments, a tool
result, or every GenAI attribute of one trace (``otel.py``). Its strings are masked together as
one episode of the pipeline, so a value found in one of them (a customer's ``"name"`` field in a
tool result) is masked where the others repeat it, exactly as ``masked_trajectories`` would.

This module adds no detection of its own: each record becomes a small canonical step table (one
row per string, in the ``content`` or ``tool_arguments`` column the pipeline would store it in)
masked by ``agentic_pipeline.masking.mask_steps`` with a ``Masker``
built on the deployment's key (:func:`agentic_pipeline.masking.keys.masking_key`). Same detectors,
same tokens, same limits and the same final leak scan: when the scan still finds personal data,
every string of the record is replaced by its keyed ``<WITHHELD_…>`` token (nothing raw leaves),
and :attr:`Masked.withheld` gives the reason (counts of columns, types and detectors, never a
value).

The masking package (Presidio, spaCy) is imported on the first record, and the spaCy model is
loaded once per process, on the first string that needs NER. Nothing here imports Dagster.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_pipeline.masking import Masker

#: ``ds`` and ``episode_id`` of the one-episode step table a record becomes (never stored).
_DS = "source"
_EPISODE = "source-record"
#: Entity type of the token that replaces a string whose record the final scan withheld.
WITHHELD = "WITHHELD"
#: The key type under which a chat participant's ``name`` is masked whole (a user name, like the
#: pipeline's ``user_name`` key rule).
_PARTICIPANT_KEY = "user_name"
_PATH_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


@dataclass(frozen=True)
class Finding:
    """One replacement: where (``path`` into the returned value, JSONPath-like), what (entity type,
    detector, score), its keyed token, and the token's offsets in the string at ``path`` (``None``
    when that string is itself JSON text inside the value). Never the raw value."""

    path: str
    entity_type: str
    detector: str
    score: float
    pseudonym: str | None
    start: int | None = None
    end: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Masked:
    """A masked value and the audit of what was replaced in it."""

    value: Any
    findings: list[Finding] = field(default_factory=list)
    #: Why the final scan withheld the record (counts, never a value), else ``None``.
    withheld: str | None = None


@dataclass
class _Cell:
    text: str
    column: str  # "content" or "tool_arguments", where the pipeline stores such a string
    path: str
    put: Callable[[str], None]
    structured: bool = False  # ``put`` takes JSON text (the cell is a JSON-encoded value)


class Cells:
    """The strings of one record, each with the path it has in the record and a callback that
    writes its masked text back (into a copy of the record)."""

    def __init__(self) -> None:
        self.items: list[_Cell] = []

    def text(self, text: str, path: str, put: Callable[[str], None], structured=False) -> None:
        """A free-text or JSON-text string (a message, a tool result)."""
        self.items.append(_Cell(text, "content", path, put, structured))

    def arguments(self, text: str, path: str, put: Callable[[str], None], structured=False) -> None:
        """Tool-call arguments as JSON text."""
        self.items.append(_Cell(text, "tool_arguments", path, put, structured))

    def value(self, value: Any, path: str, put: Callable[[Any], None], arguments=False) -> None:
        """Any JSON value: a string as it is, an object or array as JSON text whose masked text
        is parsed back (keys and order kept); numbers, booleans and null are kept."""
        add = self.arguments if arguments else self.text
        if isinstance(value, str):
            add(value, path, put)
        elif isinstance(value, dict | list):
            add(json.dumps(value, ensure_ascii=False), path, lambda s: put(json.loads(s)), True)

    def participant(self, name: Any, path: str, put: Callable[[Any], None]) -> None:
        """A chat participant's ``name``: masked whole, like a ``user_name`` field."""
        if isinstance(name, str) and name.strip():
            doc = json.dumps({_PARTICIPANT_KEY: name}, ensure_ascii=False)
            self.text(doc, path, lambda s: put(_participant(json.loads(s))), structured=True)


class SourceMasker:
    """Masks records with the pipeline's :class:`Masker` (built on first use, in this process,
    without worker processes) under the deployment's key. Thread-safe: records are masked one at
    a time. ``key``: the masking key (default: ``masking_key()``, the pipeline's resolution);
    ``masker``: an existing ``Masker`` to share; other keyword arguments go to ``Masker``."""

    def __init__(
        self, key: str | bytes | None = None, *, masker: Masker | None = None, **options: Any
    ) -> None:
        if key is None and masker is None:
            from agentic_pipeline.masking.keys import masking_key

            key = masking_key()  # no key: MissingMaskingKeyError now, not at the first record
        self._key = key
        self._masker = masker
        self._options = options
        self._lock = threading.Lock()

    @property
    def masker(self) -> Masker:
        if self._masker is None:
            from agentic_pipeline.masking import Masker

            self._options.setdefault("n_workers", 1)  # in-process: no worker pool in an agent
            self._masker = Masker(key=self._key, **self._options)
        return self._masker

    def token(self, value: Any, entity_type: str) -> str:
        """The pipeline's token for ``value`` of ``entity_type`` under this key."""
        return self.masker.token(value, entity_type)

    def close(self) -> None:
        if self._masker is not None:
            self._masker.close()

    # --- one record ---------------------------------------------------------------------------

    def mask_cells(self, cells: Cells) -> tuple[list[Finding], str | None]:
        """Mask every string of ``cells`` as one episode and write the masked texts back; returns
        the findings and the withheld reason (``None`` when the scan found nothing left)."""
        if not cells.items:
            return [], None
        import pyarrow as pa

        from agentic_pipeline.masking import mask_steps

        rows = [
            {"ds": _DS, "episode_id": _EPISODE, "step": i, c.column: c.text}
            for i, c in enumerate(cells.items)
        ]
        schema = pa.schema(
            [
                ("ds", pa.string()),
                ("episode_id", pa.string()),
                ("step", pa.int32()),
                ("content", pa.string()),
                ("tool_arguments", pa.string()),
            ]
        )
        table = pa.Table.from_pylist(rows, schema=schema)
        with self._lock:
            masker = self.masker
            result = mask_steps(table, masker)
            if result.withheld.num_rows:
                reason = str(result.withheld.column("reason")[0].as_py())
                findings = []
                for c in cells.items:
                    tok = masker.token(c.text, WITHHELD)
                    c.put(json.dumps(tok) if c.structured else tok)
                    findings.append(Finding(c.path, WITHHELD, "leak_scan", 1.0, tok, 0, len(tok)))
                return findings, reason
        masked = {c: result.masked.column(c).to_pylist() for c in ("content", "tool_arguments")}
        by_row: dict[int, list[dict[str, Any]]] = {}
        for rec in result.audit.to_pylist():
            by_row.setdefault(rec["row"], []).append(rec)
        findings = []
        for i, c in enumerate(cells.items):
            text = masked[c.column][i]
            if text != c.text:
                c.put(text)
            findings.extend(_findings(c, text, by_row.get(i, [])))
        return findings, None

    def mask_messages(self, messages: list[dict[str, Any]]) -> Masked:
        """An OpenAI-style chat message list (``content`` as text or parts, ``tool_calls`` with
        ``function.arguments``, ``role: tool`` results, participant ``name``), masked as one
        episode; ids, roles and tool names are kept."""
        out = copy.deepcopy(messages)
        cells = Cells()
        chat_messages_cells(out, "$", cells)
        return self._run(out, cells)

    def mask_tool_arguments(self, arguments: Any) -> Masked:
        """A tool call's arguments: JSON text (kept as text) or a parsed object."""
        box = [copy.deepcopy(arguments)]
        cells = Cells()
        cells.value(box[0], "$", _setter(box, 0), arguments=True)
        return self._run_box(box, cells)

    def mask_tool_result(self, result: Any) -> Masked:
        """A tool result: text, JSON text or a parsed JSON value."""
        return self.mask_value(result)

    def mask_text(self, text: str) -> Masked:
        """Free text (JSON text is walked like the pipeline walks it)."""
        return self.mask_value(text)

    def mask_value(self, value: Any) -> Masked:
        """Any JSON value: a chat message list as messages, anything else as one tool result."""
        if _is_message_list(value):
            return self.mask_messages(value)
        box = [copy.deepcopy(value)]
        cells = Cells()
        cells.value(box[0], "$", _setter(box, 0))
        return self._run_box(box, cells)

    def _run(self, out: Any, cells: Cells) -> Masked:
        findings, withheld = self.mask_cells(cells)
        return Masked(out, findings, withheld)

    def _run_box(self, box: list[Any], cells: Cells) -> Masked:
        findings, withheld = self.mask_cells(cells)
        return Masked(box[0], findings, withheld)


def _participant(masked: Any) -> Any:
    return masked.get(_PARTICIPANT_KEY) if isinstance(masked, dict) else masked


def _setter(container: Any, key: Any) -> Callable[[Any], None]:
    def put(value: Any) -> None:
        container[key] = value

    return put


def _is_message_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)
    )


def chat_messages_cells(messages: list[Any], path: str, cells: Cells) -> None:
    """The strings of an OpenAI-style chat message list (edited in place through ``cells``)."""
    for i, msg in enumerate(messages):
        if isinstance(msg, dict):
            chat_message_cells(msg, f"{path}[{i}]", cells)
        else:
            cells.value(msg, f"{path}[{i}]", _setter(messages, i))


def chat_message_cells(msg: dict[str, Any], here: str, cells: Cells) -> None:
    """The strings of one chat message: ``content`` (text or parts), participant ``name``,
    ``tool_calls[].function.arguments`` and the legacy ``function_call.arguments``."""
    content = msg.get("content")
    if isinstance(content, list):
        for j, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                cells.text(part["text"], f"{here}.content[{j}].text", _setter(part, "text"))
            elif isinstance(part, str):
                cells.text(part, f"{here}.content[{j}]", _setter(content, j))
    else:
        cells.value(content, f"{here}.content", _setter(msg, "content"))
    if msg.get("role") != "tool" and "name" in msg:
        cells.participant(msg["name"], f"{here}.name", _setter(msg, "name"))
    calls = msg.get("tool_calls")
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict) and "arguments" in fn:
            where = f"{here}.tool_calls[{k}].function.arguments"
            cells.value(fn["arguments"], where, _setter(fn, "arguments"), arguments=True)
    legacy = msg.get("function_call")
    if isinstance(legacy, dict) and "arguments" in legacy:
        where = f"{here}.function_call.arguments"
        cells.value(legacy["arguments"], where, _setter(legacy, "arguments"), arguments=True)


def _findings(cell: _Cell, masked: str | None, records: Iterable[dict[str, Any]]) -> list[Finding]:
    """The audit rows of one cell as findings, each with its token's offsets in the masked string
    it stands in (found in order, so repeated tokens get successive offsets)."""
    parsed: Any = None
    if masked is not None and (cell.column == "tool_arguments" or _json_like(masked)):
        try:
            parsed = json.loads(masked or "")
        except ValueError:
            parsed = None
    cursors: dict[str, int] = {}
    out = []
    for rec in records:
        fld = rec["field"]
        sub = fld[len(cell.column) :]  # "" for the cell itself, ".$.a.b" for a JSON leaf
        path = cell.path + sub[2:] if sub.startswith(".$") else cell.path
        target = masked if not sub else _resolve(parsed, sub[2:])
        start = end = None
        tok = rec["pseudonym"]
        if tok and isinstance(target, str):
            at = target.find(tok, cursors.get(path, 0))
            if at < 0:
                at = target.find(tok)
            if at >= 0:
                start, end = at, at + len(tok)
                cursors[path] = end
        out.append(
            Finding(path, rec["entity_type"], rec["detector"], rec["score"], tok, start, end)
        )
    return out


def _json_like(text: str | None) -> bool:
    s = (text or "").strip()
    return len(s) >= 2 and (s[0], s[-1]) in (("{", "}"), ("[", "]"))


def _resolve(obj: Any, path: str) -> Any:
    """The value at a JSONPath-like ``path`` (``.a[0]["odd key"]``) of ``obj``, else ``None``."""
    pos = 0
    while pos < len(path):
        m = _PATH_STEP.match(path, pos)
        if m is None:
            return None
        key: Any = m.group(1) or (json.loads(m.group(3)) if m.group(3) else int(m.group(2)))
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return None
        pos = m.end()
        if pos < len(path) and isinstance(obj, str) and _json_like(obj):
            try:
                obj = json.loads(obj)  # JSON text inside a string, walked by the pipeline too
            except ValueError:
                return None
    return obj


_default: SourceMasker | None = None
_default_lock = threading.Lock()


def default_masker() -> SourceMasker:
    """The process's masker under the deployment's key (built once, on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = SourceMasker()
        return _default


def mask_messages(messages: list[dict[str, Any]]) -> Masked:
    """:meth:`SourceMasker.mask_messages` with the process's masker."""
    return default_masker().mask_messages(messages)


def mask_tool_arguments(arguments: Any) -> Masked:
    """:meth:`SourceMasker.mask_tool_arguments` with the process's masker."""
    return default_masker().mask_tool_arguments(arguments)


def mask_tool_result(result: Any) -> Masked:
    """:meth:`SourceMasker.mask_tool_result` with the process's masker."""
    return default_masker().mask_tool_result(result)


def mask_text(text: str) -> Masked:
    """:meth:`SourceMasker.mask_text` with the process's masker."""
    return default_masker().mask_text(text)
