"""The per-string, per-cell and per-episode steps of ``mask.mask_steps``: collecting a cell
(phase 1), analysing strings (phase 2), the episode's known values and the ids given in answer
to a question. Each step that raises marks its episode failed, with the stage and the
exception's type (``failure``), so that ``mask_steps`` withholds that episode and masks the rest
of the day."""

from __future__ import annotations

import re
from typing import Any

from agentic_pipeline.masking.apply import (
    GUARD,
    LABELLED_DETECTORS,
    LOOSE_ID_TYPES,
    Collector,
    Partition,
    listed_value,
    plausible,
    queue_text,
    whole_words,
)
from agentic_pipeline.masking.detectors.addresses import join_addresses
from agentic_pipeline.masking.detectors.after_names import values_after_names
from agentic_pipeline.masking.detectors.labels import answer_value, asked_label
from agentic_pipeline.masking.episode import Episode
from agentic_pipeline.masking.json_walker import (
    embedded_structures,
    parse_structure,
    text_pieces,
    walk,
    whole_structure,
)
from agentic_pipeline.masking.names import decide_persons
from agentic_pipeline.masking.names.model import MASK_SCORE as FLOOR_SCORE
from agentic_pipeline.masking.pseudonyms import fold
from agentic_pipeline.masking.router import Route
from agentic_pipeline.masking.scan import compile_values
from agentic_pipeline.masking.text_view import map_spans

#: Columns that hold JSON (a text there that does not parse is recorded as unparseable).
JSON_COLUMNS = frozenset({"tool_arguments", "task_goal", "context"})
#: A postcode that is only digits ("8433", "90017"): found in text by its context, it is masked
#: where it stands but never becomes an episode-wide value (it would mask years and amounts).
_BARE_NUMBER = re.compile(r"\d{3,5}")
#: Two to four capitalised words: a full name, propagated whole even when found with low score.
_FULL_NAME = re.compile(r"[^\W\d_a-z][\w'’.-]*(?:[ \t]+[^\W\d_a-z][\w'’.-]*){1,3}")


#: An answer longer than this is no reply to one question.
_ANSWER_CHARS = 300


def failure(stage: str, exc: Exception) -> str:
    """The reason an episode is withheld when masking it raised: the stage and the exception's
    type, never its message (it may quote a value). Running out of memory is no record's fault:
    it is raised again and fails the run."""
    if isinstance(exc, MemoryError):
        raise exc
    return f"{stage}: {type(exc).__name__}"


def analyse(texts: list[str], use_ner: bool, mp: Partition, failed: dict[str, str]) -> None:
    """Phase 2 of ``texts``: their detections into ``mp.analysis``. Detection runs on the
    normalised view (full-width, %XX, &#64;), mapped back (text_view); the name model decides
    persons, a date or code right after a name is the person's, street spans grow to whole
    addresses. A string whose analysis raises gets no detections and its reason in ``failed``
    (its episodes are withheld); when the batch raises, each string is analysed alone to find it."""
    views = []
    for s in texts:
        try:
            views.append(mp.view(s))
        except Exception as exc:  # noqa: BLE001 - analysed as written, its episodes withheld
            failed[s] = failure("analyse", exc)
            views.append(None)
    batch = [v.text if v else s for s, v in zip(texts, views, strict=True)]
    try:
        analysed = mp.masker.pool.analyze(batch, use_ner)
    except Exception as exc:  # noqa: BLE001 - one string never fails the day
        failure("analyse", exc)  # raises again when out of memory; else find the string
        analysed = []
        for s, view_text in zip(texts, batch, strict=True):
            try:
                analysed += mp.masker.pool.analyze([view_text], use_ner)
            except Exception as one:  # noqa: BLE001
                failed[s] = failure("analyse", one)
                analysed.append([])
    for s, v, spans in zip(texts, views, analysed, strict=True):
        try:
            persons = decide_persons(s, map_spans(v, spans))
            mp.analysis[s] = join_addresses(s, values_after_names(s, persons))
        except Exception as exc:  # noqa: BLE001 - its episodes are withheld
            failed[s] = failure("analyse", exc)
            mp.analysis[s] = []


def collect_cell(
    text: str,
    col: str,
    row: int,
    ep: Episode,
    mp: Partition,
    to_analyse: dict[str, Route],
    max_depth: int,
) -> tuple[str, Any]:
    """Phase 1 of one cell: its plan for phase 3; its values are collected into ``ep`` and its
    free texts queued in ``to_analyse``."""
    # JSON, or a Python dict's repr (as tools written in Python print results)
    whole = whole_structure(text)
    if whole is None and col in JSON_COLUMNS and text.strip():
        if parse_structure(text) is None:  # a JSON column may hold a scalar, not this
            mp.record(row, col, "UNPARSEABLE", GUARD, 1.0, None)
    if whole is not None:
        walk(whole[1], Collector(ep, to_analyse), max_depth=max_depth)
        return whole
    # a text, maybe with objects written inside it ("result: {...}")
    inner = embedded_structures(text)
    for *_, obj in inner:
        walk(obj, Collector(ep, to_analyse), max_depth=max_depth)
    for piece in text_pieces(text, inner):
        queue_text(piece, ep, to_analyse)
    return ("mixed", inner) if inner else ("text", text)


def settle_known(ep: Episode, mp: Partition) -> None:
    """An episode's known values: structured values and confident detections anywhere in it
    (added in a fixed order: strong first, then by score, value and type; ``ep.texts`` is a set
    whose order changes with the process's hash seed, and the first addition of a value wins)."""
    ep.thing_matcher = compile_values(ep.thing_names)
    ep.thing_name_len = max(map(len, ep.thing_names), default=0)
    ep.settle_numbers()
    ep.add_labelled_persons(mp.analysis, mp.masker.min_score)
    for s in sorted(ep.texts):  # sorted: which detector a value is credited to is stable
        for span in mp.analysis.get(s, ()):
            if not plausible(s, span) or span[3] < mp.masker.min_score:
                continue
            if span[2] == "PERSON" and ep.in_thing_name(s, span[0], span[1]):
                continue  # part of a product's name, as the episode's records say
            if span[3] < mp.masker.propagate_min_score:
                if (
                    span[2] == "PERSON"
                    and span[3] > FLOOR_SCORE
                    and _FULL_NAME.fullmatch(s[span[0] : span[1]])
                ):
                    # a full name masked once is masked wherever the episode repeats it
                    # whole ("Booked, Ysolde Brayford."); its parts alone only when confident.
                    # A span spaCy alone calls a person (the name model's floor, "Garden
                    # Hose" in a bullet) is masked where it stands, as plain Presidio does.
                    ep.known.setdefault(fold(s[span[0] : span[1]]), ("PERSON", "known_entity"))
                continue
            a, b, et, _, det = whole_words(s, span)
            if et == "ZIP_CODE" and _BARE_NUMBER.fullmatch(s[a:b]):
                continue  # "8433" found by its context: masked there, not every year or sum
            if et in LOOSE_ID_TYPES and det not in LABELLED_DETECTORS:
                continue  # a loose id shape (NHS, bank...): where it stands, not an item id
            if det in LABELLED_DETECTORS and ep.is_thing_id(s[a:b]):
                continue  # a reservation's id after "user ID:" in a reply: the thing's
            whole_field = (
                s in ep.name_fields
                and et == "PERSON"
                and b - a >= 0.8 * len(s)
                and listed_value(s[a:b])
            )
            if det == "SpacyRecognizer" and not whole_field:
                ep.vote(s[a:b], et, s)
            else:
                ep.add_known(s[a:b], et, "known_entity")
    ep.settle_votes()
    ep.matcher = compile_values(ep.known.keys())
    ep.strong_matcher = compile_values(ep.strong)


def known_answers(
    plan: list[tuple[str, Any] | None] | None,
    episode_ids: list[str],
    steps: list[Any],
    episodes: dict[str, Episode],
    failed: dict[str, str],
) -> None:
    """Ids given in the message right after a message whose question asks for them (an agent
    asks "Could you share your policy number?", the user replies "Sure, PLX4471209"): known
    entities of the episode, masked wherever they stand. An episode where this raises is marked
    in ``failed``."""
    if plan is None:
        return
    rows = sorted(
        (r for r, item in enumerate(plan) if item is not None and item[0] == "text"),
        key=lambda r: (episode_ids[r], steps[r] if isinstance(steps[r], int) else -1, r),
    )
    for prev, row in zip(rows, rows[1:], strict=False):
        if episode_ids[prev] != episode_ids[row] or len(plan[row][1]) > _ANSWER_CHARS:
            continue
        try:
            question = plan[prev][1].rstrip()
            et = asked_label(question[question.rfind("\n") + 1 :])
            where = answer_value(plan[row][1], et) if et else None
            if where is not None:
                value = plan[row][1][where[0] : where[1]]
                ep = episodes[episode_ids[row]]
                if not ep.is_thing_id(value):  # a reservation's id in the reply: the thing's
                    ep.add_known(value, et, "IdLabelRecognizer")
        except Exception as exc:  # noqa: BLE001 - one episode never fails the day
            failed.setdefault(episode_ids[row], failure("answers", exc))
