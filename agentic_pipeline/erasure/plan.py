"""The erasure plan (who, which episodes and days) and the re-materialization plan after it."""

from collections.abc import Iterable
from datetime import date, timedelta

import pyarrow.compute as pc

from agentic_pipeline.erasure.apply import contains_any
from agentic_pipeline.erasure.forms import token_forms
from agentic_pipeline.erasure.linking import (
    _found,
    _free_text_links,
    _is_subjects,
    _link,
    _matcher,
    _recover_raw_values,
    _warehouse_episodes,
)
from agentic_pipeline.erasure.subjects import (
    COMBINED,
    IDENTIFYING,
    MAX_IDENTIFYING,
    MAX_ROUNDS,
    TEXT_COLUMNS,
    ErasurePlan,
    ErasureTooBroadError,
    Identifier,
    UnknownSubjectError,
    _check_subject,
    _seed,
    subject_kinds,
)
from agentic_pipeline.masking import pseudonym_for
from agentic_pipeline.storage import DataRoot


def plan_erasure(root: DataRoot, subject: str | list[str], key: str) -> ErasurePlan:
    """Find the person's identifiers and episodes, day by day (see the module doc).

    Raises ``ValueError`` for a subject that cannot identify one person, ``UnknownSubjectError``
    when nothing mentions them, ``ErasureTooBroadError`` when linking runs away; nothing is changed.
    """
    values = [v.strip() for v in ([subject] if isinstance(subject, str) else subject)]
    _check_subject(values)
    identifiers, given, clear = _seed(values, key)
    plan = ErasurePlan(pseudonyms={}, subject=given, identifiers=identifiers, clear_values=clear)
    given_needles = dict(identifiers)
    episodes = _warehouse_episodes(root)
    matched: dict[tuple[str, str], str] = {}
    new_identifiers = True
    while True:
        matcher = _matcher(plan.needles((IDENTIFYING, COMBINED)), plan.identifiers)
        new_episodes = False
        for ep_key, cells in episodes.items():
            if ep_key not in matched:
                why = _is_subjects(_found(cells, matcher), plan.identifiers)
                if why:
                    matched[ep_key] = why
                    new_episodes = True
        if not (new_episodes or new_identifiers) or plan.rounds >= MAX_ROUNDS:
            break
        plan.rounds += 1
        new_identifiers = False
        for (ds, ep), _why in sorted(matched.items()):
            cells = episodes[(ds, ep)]
            links = _link(ep, cells, plan.identifiers, key, matcher)
            links += _free_text_links(ep, cells, plan.identifiers, [i for i, _ in links])
            for ident, reason in links:
                plan.identifiers[ident.needle] = ident
                plan.linked.append({**reason, "ds": ds, "round": plan.rounds})
                new_identifiers = True
        n_identifying = len(plan.needles())
        if n_identifying > MAX_IDENTIFYING:
            raise ErasureTooBroadError(
                f"linking reached {n_identifying} identifying identifiers (more than "
                f"{MAX_IDENTIFYING}); check the subject"
            )
    for (ds, ep), why in sorted(matched.items()):
        plan.episodes_by_day.setdefault(ds, set()).add(ep)
        plan.episodes.append({"ds": ds, "episode_id": ep, "why": why})
    found = {n for ep_key in matched for n in _found(episodes[ep_key], matcher)}
    found_pseudonyms = {i.pseudonym for n, i in given_needles.items() if n in found}
    for g in given:
        g["found_in_warehouse"] = g["pseudonym"] in found_pseudonyms
    plan.pseudonyms = {g["entity_type"]: g["pseudonym"] for g in given if g["found_in_warehouse"]}
    _recover_raw_values(root, plan, key)
    _add_normal_forms(plan, key)
    matcher = _matcher(plan.needles((IDENTIFYING, COMBINED)), plan.identifiers)
    why = "holds another spelling of one of the subject's values"
    for (ds, ep), cells in sorted(episodes.items()):
        if (ds, ep) not in matched and _is_subjects(_found(cells, matcher), plan.identifiers):
            plan.episodes_by_day.setdefault(ds, set()).add(ep)
            plan.episodes.append({"ds": ds, "episode_id": ep, "why": why})
    needles = sorted(plan.clear_values)
    for ds in root.partitions("restricted", "raw_agent_logs") if needles else []:
        table = root.read_partition("restricted", "raw_agent_logs", ds)
        hits = table.filter(contains_any(table, TEXT_COLUMNS, needles))
        ids = {str(e) for e in hits.column("episode_id").to_pylist() if e is not None}
        if ids:
            known = plan.episodes_by_day.setdefault(ds, set())
            why = "its raw rows quote an identifying value of the subject"
            plan.episodes += [{"ds": ds, "episode_id": e, "why": why} for e in sorted(ids - known)]
            known.update(ids)
    for ds in root.partitions("restricted", "raw_quarantine") if needles else []:
        table = root.read_partition("restricted", "raw_quarantine", ds, columns=["raw_record"])
        if pc.any(contains_any(table, ["raw_record"], needles)).as_py():
            plan.quarantine_days.add(ds)
    if not plan.episodes_by_day and not plan.quarantine_days:
        raise UnknownSubjectError("no stored episode or record mentions this subject")
    if not plan.pseudonyms:  # found in the raw zone only: the candidates that were searched
        plan.pseudonyms = {g["entity_type"]: g["pseudonym"] for g in given}
    return plan


def _add_normal_forms(plan: ErasurePlan, key: str) -> None:
    """The pseudonyms of every normal form of the identifying values known in clear (a phone
    recovered as ``709-202-5094x85911`` is also looked for as ``+1 709 202 5094``)."""
    for value in sorted(plan.clear_values):
        kind = subject_kinds(value)[0]
        if kind not in ("PHONE_NUMBER", "CREDIT_CARD"):
            continue
        for form in token_forms(value, kind):
            token = pseudonym_for(form, kind, key)
            if token not in plan.identifiers:
                plan.identifiers[token] = Identifier(kind, token, IDENTIFYING, token)


def rematerialization_runs(
    plan_days: Iterable[str],
    downstream: list[str],
    masked_days: Iterable[str],
    selection_days: Iterable[str],
    selection_asset: str,
    window_days: int,
) -> list[tuple[str, list[str]]]:
    """What must be re-run after an erasure, as ``(day, asset names)`` in run order.

    Each erased day that still has ``masked_trajectories`` re-runs every asset ``downstream`` of
    it; a stored ``selection_asset`` day whose ``window_days`` look-back covers an erased day
    (the ``window_days - 1`` days after it) re-runs that asset alone.
    """
    erased = sorted(set(plan_days))
    masked = set(masked_days)
    later = sorted(
        {
            (date.fromisoformat(d) + timedelta(days=i)).isoformat()
            for d in erased
            for i in range(1, window_days)
        }
        & set(selection_days) - set(erased)
    )
    runs = [(ds, list(downstream)) for ds in erased if ds in masked]
    return runs + [(ds, [selection_asset]) for ds in later]
