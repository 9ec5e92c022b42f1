"""An erasure as a journaled job: plan, apply, landing, rematerialize, verify, receipt.

Each step, and each item of a step (a day of a table, a landing file, a re-run day), is recorded in
a journal on disk when it is done, under ``restricted/.erasure_jobs/<job id>/`` (0700/0600: the plan
holds the subject's values in clear while the job runs). The job id is a keyed hash of the subject's
values, so running ``erase`` again for the same person after a crash, a kill -9 or a lock that could
not be had resumes the job where it stopped: done items are skipped, and every item is idempotent
anyway (``apply``). The receipt is written last; it always says ``complete``, or what is left
(``verification.leftovers``) and what could not be searched (``skipped``). Once the receipt is
written the plan file is removed; the journal, which holds no value, stays beside it as a record.

``AGENTIC_PIPELINE_ERASE_CRASH_AFTER=<step>`` (tests only) kills the process with SIGKILL right
after ``<step>`` is journaled (``plan``, ``apply``, ``landing``, ``rematerialize``, ``verify``), or
after the first item of a step (``apply:1``, ``landing:1``).
"""

import hashlib
import hmac
import json
import os
import signal
from collections.abc import Callable
from datetime import UTC, datetime

from upath import UPath

from agentic_pipeline.erasure.apply import (
    erase_from_day,
    erase_from_landing_file,
    landing_items,
    table_items,
    write_receipt,
)
from agentic_pipeline.erasure.forms import clear_regex
from agentic_pipeline.erasure.landing import LandingCheckError
from agentic_pipeline.erasure.plan import plan_erasure
from agentic_pipeline.erasure.subjects import ErasurePlan, Receipt
from agentic_pipeline.erasure.verify import JOURNALS_DIR, verify_erasure
from agentic_pipeline.ingest import IngestLimits, source_file_label
from agentic_pipeline.storage import DataRoot
from agentic_pipeline.storage.root import CorruptPartitionError

CRASH_ENV = "AGENTIC_PIPELINE_ERASE_CRASH_AFTER"
STEPS = ("plan", "apply", "landing", "rematerialize", "verify", "receipt")
_JOB_LABEL = b"agentic-pipeline erasure job v1"


def job_id(values: list[str], key: str | bytes) -> str:
    """The job of a subject: a keyed hash of their values (order and case do not matter)."""
    k = key if isinstance(key, bytes) else key.encode("utf-8")
    msg = "\x1f".join(sorted({v.strip().casefold() for v in values})).encode("utf-8")
    return hmac.new(k, _JOB_LABEL + b"\x1e" + msg, hashlib.sha256).hexdigest()[:20]


class Journal:
    """The on-disk record of one erasure job (see the module doc)."""

    def __init__(self, root: DataRoot, job: str) -> None:
        self.root = root
        self.folder = root.root / "restricted" / JOURNALS_DIR / job
        self.path = self.folder / "journal.json"
        self.plan_path = self.folder / "plan.json"
        self.state: dict = {"job_id": job, "steps": {}, "items": {}}
        if self.path.exists():
            self.state = json.loads(self.path.read_text())

    @property
    def complete(self) -> bool:
        return "receipt" in self.state["steps"]

    def done(self, step: str) -> bool:
        return step in self.state["steps"]

    def mark(self, step: str, **summary) -> None:
        self.state["steps"][step] = summary
        self._save()
        _maybe_crash(step)

    def item(self, key: str) -> dict | None:
        return self.state["items"].get(key)

    def mark_item(self, step: str, key: str, result: dict) -> None:
        self.state["items"][key] = result
        self._save()
        n = sum(1 for k in self.state["items"] if k.startswith(f"{step}:"))
        _maybe_crash(f"{step}:{n}")

    def save_plan(self, plan: ErasurePlan) -> None:
        self.root.atomic_write("restricted", self.plan_path, plan.to_json().encode())

    def load_plan(self) -> ErasurePlan:
        return ErasurePlan.from_json(self.plan_path.read_text())

    def drop_plan(self) -> None:
        if self.plan_path.exists():
            self.plan_path.unlink()

    def reset(self) -> None:
        """Start over (a finished job of the same subject: a new erasure)."""
        for p in (self.plan_path, self.path):
            if p.exists():
                p.unlink()
        self.state = {"job_id": self.state["job_id"], "steps": {}, "items": {}}

    def _save(self) -> None:
        data = json.dumps(self.state, sort_keys=True, indent=1).encode()
        self.root.atomic_write("restricted", self.path, data)


def _maybe_crash(point: str) -> None:
    if os.environ.get(CRASH_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)


#: A callback re-running the assets of the erased days: ``[(day, [asset names])]`` ->
#: ``[{"ds", "run_id", "success", "assets"}]`` (the CLI runs them in Dagster).
Rematerialize = Callable[[ErasurePlan], list[dict]]


def run_erasure(
    root: DataRoot,
    subject: list[str],
    key: str,
    landing_root: UPath | None = None,
    limits: IngestLimits | None = None,
    rematerialize: Rematerialize | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[Receipt, str]:
    """Run (or resume) the erasure of one person; returns the receipt and its path.

    Raises like ``plan_erasure`` before anything is changed. ``LandingCheckError`` or
    ``TableCheckError`` (another person's records would be lost) stop the job with nothing
    half-written; running it again resumes.
    """
    say = progress or (lambda _message: None)
    limits = limits or IngestLimits()
    landing = landing_root if landing_root is not None else root.landing()
    values = [v.strip() for v in subject]

    def label(name: str) -> str:
        return source_file_label(name, key)

    journal = Journal(root, job_id(values, key))
    if journal.complete:
        journal.reset()
    if journal.state["steps"]:
        say(
            f"resuming erasure job {journal.state['job_id']} after "
            f"{', '.join(s for s in STEPS if journal.done(s))}"
        )
    if not journal.done("plan"):
        plan = plan_erasure(root, values, key)
        journal.save_plan(plan)
        now = datetime.now(UTC)
        journal.state["receipt_id"] = f"{now:%Y%m%dT%H%M%SZ}-{journal.state['job_id'][:8]}"
        journal.state["started_at"] = now.isoformat(timespec="seconds")
        journal.mark("plan", episodes=plan.n_episodes, days=len(plan.days))
    plan = journal.load_plan()
    say(
        f"erasing {plan.n_episodes} episode(s) over {len(plan.days)} day(s); "
        f"{len(plan.linked)} identifier(s) linked to the subject"
    )
    skipped: list[dict] = []
    if not journal.done("apply"):
        for zone, asset, ds in table_items(root, plan):
            key_ = f"apply:{zone}/{asset}/{ds}"
            if journal.item(key_) is None:
                try:
                    result = erase_from_day(root, plan, zone, asset, ds)
                except CorruptPartitionError as exc:
                    result = {
                        "zone": zone,
                        "asset": asset,
                        "ds": ds,
                        "rows_removed": 0,
                        "skipped": str(exc),
                    }
                journal.mark_item("apply", key_, result)
        journal.mark("apply")
    if not journal.done("landing"):
        matcher = clear_regex(sorted(plan.clear_values))
        for ds, path in landing_items(landing):
            key_ = f"landing:{ds}/{label(path.name)}"
            if journal.item(key_) is None:
                result = erase_from_landing_file(ds, path, plan, matcher, limits, label(path.name))
                journal.mark_item("landing", key_, result)
        journal.mark("landing")
    touched = [
        r
        for k, r in sorted(journal.state["items"].items())
        if k.startswith(("apply:", "landing:")) and r.get("rows_removed")
    ]
    skipped = [
        {"file": f"{r['zone']}/{r['asset']}/{r['ds']}", "reason": r["skipped"]}
        for k, r in sorted(journal.state["items"].items())
        if k.startswith(("apply:", "landing:")) and r.get("skipped")
    ]
    if not journal.done("rematerialize"):
        runs = rematerialize(plan) if rematerialize is not None else []
        journal.mark("rematerialize", runs=runs)
    runs = journal.state["steps"]["rematerialize"]["runs"]
    if not journal.done("verify"):
        verification = verify_erasure(root, plan, landing, limits, label)
        journal.mark("verify", **verification)
    verification = dict(journal.state["steps"]["verify"])
    failed = sum(not r["success"] for r in runs)
    all_skipped = skipped + [s for s in verification.get("skipped", []) if s not in skipped]
    clean = not verification["leftovers"] and not failed and not all_skipped
    receipt = Receipt(
        receipt_id=journal.state["receipt_id"],
        erased_at=journal.state["started_at"],
        pseudonyms=plan.pseudonyms,
        episodes_removed=plan.n_episodes,
        rows_removed=sum(r["rows_removed"] for r in touched),
        partitions_touched=touched,
        subject=plan.subject,
        linked=plan.linked,
        episodes=plan.episodes,
        linking_rounds=plan.rounds,
        rematerialized=runs,
        verified_clean=clean,
        verification=verification,
        status="complete" if clean else "incomplete",
        skipped=all_skipped,
        job_id=journal.state["job_id"],
    )
    path = write_receipt(root, receipt)
    journal.mark("receipt", path=str(path))
    journal.drop_plan()
    return receipt, path


__all__ = ["CRASH_ENV", "STEPS", "Journal", "LandingCheckError", "job_id", "run_erasure"]
