"""The command ``erase``: executes the erasure library's plan, then re-runs what it touched."""

import argparse

from cli.common import UsageError, console, prepare_data_root, require_masking_key
from cli.runs import checks_of, run_days

# --- erase ----------------------------------------------------------------------------------

#: assets whose days the erasure rewrites itself (reported to Dagster as runless materializations)
REPORTED = ("raw_agent_logs", "raw_quarantine", "masked_trajectories", "pii_audit")


def _downstream_of_masked(defs):
    """The asset keys downstream of ``masked_trajectories`` in the definitions' graph."""
    from dagster import AssetSelection

    masked = AssetSelection.assets("masked_trajectories")
    graph = defs.resolve_asset_graph()
    return sorted(
        masked.downstream().resolve(graph) - masked.resolve(graph), key=lambda k: k.to_user_string()
    )


def cmd_erase(args: argparse.Namespace) -> int:
    root_path = prepare_data_root(args.data_dir)
    from dagster import AssetKey, AssetMaterialization, DagsterInstance

    from agentic_pipeline.erasure import (
        UnknownSubjectError,
        apply_erasure,
        erase_from_landing,
        plan_erasure,
        rematerialization_runs,
        verify_erasure,
        write_receipt,
    )
    from agentic_pipeline.storage import DataRoot
    from assets.definitions import build_definitions

    root = DataRoot(root_path)
    key = require_masking_key("erasure")  # the same key masking used, from the variable's value
    try:
        plan = plan_erasure(root, args.subject, key)
    except (UnknownSubjectError, ValueError) as exc:
        raise UsageError(f"{exc}; nothing was changed") from None
    console.print(
        f"erasing {plan.n_episodes} episode(s) over {len(plan.days)} day(s); "
        f"{len(plan.linked)} identifier(s) linked to the subject"
    )
    receipt = apply_erasure(root, plan)
    defs = build_definitions(str(root_path))
    landing_root = defs.resources["data_root"].landing_root()
    receipt.partitions_touched += erase_from_landing(landing_root, plan)
    job = defs.resolve_job_def("daily_pipeline")
    instance = DagsterInstance.get()
    for part in receipt.partitions_touched:
        if part["asset"] in REPORTED:
            instance.report_runless_asset_event(
                AssetMaterialization(
                    AssetKey(part["asset"]),
                    partition=part["ds"],
                    metadata={
                        "erasure_receipt": receipt.receipt_id,
                        "rows_removed": part["rows_removed"],
                    },
                )
            )
    downstream = [k.to_user_string() for k in _downstream_of_masked(defs)]
    planned = rematerialization_runs(
        plan.days,
        downstream,
        masked_days=[
            ds for ds in plan.days if root.has_partition("warehouse", "masked_trajectories", ds)
        ],
        selection_days=root.partitions("warehouse", "policy_selection"),
        selection_asset="policy_selection",
        window_days=defs.resources["selection"].window_days,
    )
    runs = [(ds, [AssetKey(name) for name in names]) for ds, names in planned]
    tags = {
        "agentic_pipeline/trigger": "erasure",
        "agentic_pipeline/erasure_receipt": receipt.receipt_id,
    }
    results = run_days(job, instance, runs, tags, "re-materializing")
    receipt.rematerialized = [
        {
            "ds": ds,
            "run_id": r.run_id,
            "success": r.success,
            "assets": [k.to_user_string() for k in keys],
        }
        for (ds, keys), r in zip(runs, results, strict=True)
    ]
    # the days rewritten outside a run (reported above) get their checks' results again
    rewritten: dict[str, set[str]] = {}
    for part in receipt.partitions_touched:
        if part["asset"] in REPORTED:
            rewritten.setdefault(part["ds"], set()).add(part["asset"])
    check_runs = [(ds, checks_of(defs, names)) for ds, names in sorted(rewritten.items())]
    check_runs = [(ds, checks) for ds, checks in check_runs if checks]
    check_results = run_days(job, instance, check_runs, tags, "checking")
    receipt.rematerialized += [
        {"ds": ds, "run_id": r.run_id, "success": r.success, "checks": [c.name for c in checks]}
        for (ds, checks), r in zip(check_runs, check_results, strict=True)
    ]
    failed = sum(not r.success for r in [*results, *check_results])
    receipt.verification = verify_erasure(root, plan, landing_root)
    leftovers = receipt.verification["leftovers"]
    receipt.verified_clean = not leftovers and not failed
    path = write_receipt(root, receipt)
    console.print(
        f"removed {receipt.rows_removed} rows of {receipt.episodes_removed} episode(s) "
        f"from {len(receipt.partitions_touched)} partition(s); receipt: {path}",
        soft_wrap=True,
    )
    if leftovers or failed:
        console.print(
            f"[red]erasure incomplete[/red]: {failed} failed run(s); still mentioned "
            f"in: {', '.join(leftovers) or 'none'}",
            soft_wrap=True,
        )
        return 1
    return 0
