"""Instance housekeeping for the CLI: what a killed run held is given back.

A run killed with SIGKILL never records its end: it stays ``STARTED`` in the instance and keeps
its concurrency-pool slot (``masking`` has one), so the next run waited for it silently for ever.
Every CLI run is tagged with the pid, start time and host of the CLI process; before it starts
runs, the CLI marks the runs whose process is gone as failed and frees their slots. Runs started
elsewhere (``dagster dev``, another host) are left to Dagster's run monitoring.
"""

import os
import socket

from dagster import DagsterInstance, DagsterRunStatus, RunsFilter
from dagster._core.definitions.dependency import NodeHandle

from agentic_pipeline.processes import process_alive, process_start

PID_TAG = "agentic_pipeline/pid"
PID_START_TAG = "agentic_pipeline/pid_start"
HOST_TAG = "agentic_pipeline/host"
#: Run states in which a run may hold or wait for a slot.
LIVE_STATUSES = [DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]


def owner_tags() -> dict[str, str]:
    """Tags naming this process as the owner of the runs it executes in-process."""
    pid = os.getpid()
    return {
        PID_TAG: str(pid),
        PID_START_TAG: process_start(pid) or "",
        HOST_TAG: socket.gethostname(),
    }


def owner_is_dead(tags: dict[str, str]) -> bool:
    """True when ``tags`` name a CLI process on this host that no longer runs."""
    if tags.get(HOST_TAG) != socket.gethostname() or not tags.get(PID_TAG, "").isdigit():
        return False  # not ours to judge
    return not process_alive(int(tags[PID_TAG]), tags.get(PID_START_TAG) or None)


def slot_run_ids(instance: DagsterInstance) -> set[str]:
    """Runs holding or waiting for a slot of any pool."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return set()
    run_ids = set(storage.get_concurrency_run_ids())  # pending and assigned claims
    pools = [limit.name for limit in storage.get_pool_limits()]
    for info in storage.get_concurrency_infos(pools).values():
        run_ids.update(slot.run_id for slot in info.claimed_slots)
    return run_ids


def release_dead_runs(instance: DagsterInstance) -> list[str]:
    """Mark the CLI runs whose process died as failed and free every slot a finished run holds.

    Returns the ids of the runs released.
    """
    storage = instance.event_log_storage
    released: list[str] = []
    live = instance.get_runs(
        RunsFilter(statuses=LIVE_STATUSES, tags={HOST_TAG: socket.gethostname()})
    )
    for run in live:
        if owner_is_dead(run.tags):
            instance.report_run_failed(
                run, f"the CLI process {run.tags[PID_TAG]} that ran it died (killed or crashed)"
            )
            released.append(run.run_id)
    for run_id in slot_run_ids(instance):
        run = instance.get_run_by_id(run_id)
        if run is None or run.is_finished or run_id in released:
            storage.free_concurrency_slots_for_run(run_id)
            if run_id not in released:
                released.append(run_id)
    return released


def pool_holders(instance: DagsterInstance, pool: str) -> list[str]:
    """Run ids holding a slot of ``pool``, or [] when a slot is free (or the pool unlimited)."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return []
    info = storage.get_concurrency_info(pool)
    limit = info.limit if info.limit is not None else instance.global_op_concurrency_default_limit
    holders = [slot.run_id for slot in info.claimed_slots]
    if limit is None or len(holders) < limit:
        return []
    return holders


def job_pools(job, keys) -> set[str]:
    """The concurrency pools of the ops of ``job`` that materialize any of ``keys``."""
    keys = set(keys)
    pools = set()
    for node_def in job.graph.node_defs:
        pool = getattr(node_def, "pool", None)
        if not pool:
            continue
        assets_def = job.asset_layer.get_assets_def_for_node(NodeHandle(node_def.name, None))
        if assets_def is None or set(assets_def.keys) & keys:
            pools.add(pool)
    return pools


def pending_claims(instance: DagsterInstance, run_id: str) -> list[str]:
    """Steps of ``run_id`` waiting for a pool slot (claimed but not assigned one yet)."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return []
    pools = [limit.name for limit in storage.get_pool_limits()]
    return [
        step.step_key
        for info in storage.get_concurrency_infos(pools).values()
        for step in info.pending_steps
        if step.run_id == run_id and step.assigned_timestamp is None
    ]
