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
        ErasureTooBroadError,
        LandingCheckError,
        LegacyTokensError,
        TableCheckError,
        UnknownSubjectError,
        rematerialization_runs,
        run_erasure,
    )
    from agentic_pipeline.storage import DataRoot
    from assets.definitions import build_definitions

    root = DataRoot(root_path)
    root.on_lock_wait = lambda line: console.print(f"[yellow]{line}[/yellow]", soft_wrap=True)
    key = require_masking_key("erasure")  # the same key masking used, from the variable's value
    defs = build_definitions(str(root_path))
    data_root = defs.resources["data_root"]
    job = defs.resolve_job_def("daily_pipeline")
    instance = DagsterInstance.get()

    def rematerialize(plan) -> list[dict]:
        # the Dagster event log gets counts only: no pseudonym, no value (receipt id and rows)
        rewritten: dict[str, list[str]] = {}
        for zone, asset in zip(("restricted",) * 2 + ("warehouse",) * 2, REPORTED, strict=True):
            for ds in plan.days:
                if root.has_partition(zone, asset, ds):
                    rewritten.setdefault(ds, []).append(asset)
                    instance.report_runless_asset_event(
                        AssetMaterialization(
                            AssetKey(asset),
                            partition=ds,
                            metadata={"erasure": "rows of one person removed"},
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
        tags = {"agentic_pipeline/trigger": "erasure"}
        results = run_days(job, instance, runs, tags, "re-materializing")
        # the days rewritten outside a run (reported above) get their checks' results again
        check_runs = [(ds, checks_of(defs, names)) for ds, names in sorted(rewritten.items())]
        check_runs = [(ds, checks) for ds, checks in check_runs if checks]
        check_results = run_days(job, instance, check_runs, tags, "checking")
        return [
            {
                "ds": ds,
                "run_id": r.run_id,
                "success": r.success,
                "assets": [k.to_user_string() for k in keys],
            }
            for (ds, keys), r in zip(runs, results, strict=True)
        ] + [
            {"ds": ds, "run_id": r.run_id, "success": r.success, "checks": [c.name for c in checks]}
            for (ds, checks), r in zip(check_runs, check_results, strict=True)
        ]

    try:
        receipt, path = run_erasure(
            root,
            args.subject,
            key,
            landing_root=data_root.landing_root(),
            limits=data_root.ingest_limits(),
            rematerialize=rematerialize,
            progress=lambda line: console.print(line, soft_wrap=True),
        )
    except (UnknownSubjectError, ErasureTooBroadError, LegacyTokensError, ValueError) as exc:
        raise UsageError(f"{exc}; nothing was changed") from None
    except (LandingCheckError, TableCheckError) as exc:
        raise UsageError(f"erasure stopped, nothing half-written: {exc}; run it again") from None
    console.print(
        f"removed {receipt.rows_removed} rows of {receipt.episodes_removed} episode(s) "
        f"from {len(receipt.partitions_touched)} partition(s); receipt: {path}",
        soft_wrap=True,
    )
    leftovers = receipt.verification["leftovers"]
    failed = sum(not r["success"] for r in receipt.rematerialized)
    if receipt.status != "complete":
        not_searched = ", ".join(f"{s['file']} ({s['reason']})" for s in receipt.skipped)
        console.print(
            f"[red]erasure incomplete[/red]: {failed} failed run(s); still mentioned "
            f"in: {', '.join(leftovers) or 'none'}; not searched: {not_searched or 'none'}",
            soft_wrap=True,
        )
        return 1
    return 0
