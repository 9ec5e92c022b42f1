"""``make dev``: the Dagster UI (``dg dev``: webserver and daemon) over the data root.

A data root that holds the demo's simulated data (``simulate`` leaves ``DEMO_MARKER`` in it) runs
with the public development key when no key is set, said once in the terminal here and in the UI
(the ``masked_trajectories`` asset's description and each masking run's ``masking_key``
metadata). Any other data root without ``AGENTIC_PIPELINE_MASKING_KEY`` gets the UI too, but
masking refuses until the key is set: a production root never falls back to the public key.

    python -m cli.dev [--data-dir DIR] [--host 127.0.0.1] [--port 3000]
"""

import argparse
import os
import signal
import sys
from pathlib import Path

from cli.common import DATA_DIR_ENV, console, prepare_data_root

#: left in a data root by ``simulate``: its landing files are simulated, not anyone's data
DEMO_MARKER = ".demo-data-root"
DEMO_MARKER_TEXT = (
    "This data root holds simulated demo data (agentic-pipeline simulate). `make dev` masks it\n"
    "with the public development key when AGENTIC_PIPELINE_MASKING_KEY is not set. Delete this\n"
    "file before putting real logs here.\n"
)


def mark_demo_root(root: Path) -> None:
    """Record that ``root`` holds the demo's simulated data."""
    marker = root / DEMO_MARKER
    if not marker.exists():
        marker.write_text(DEMO_MARKER_TEXT, encoding="utf-8")


def key_mode(root: Path, environ: dict[str, str]) -> str:
    """``production`` (a key is set), ``development`` (asked for, or a demo root without a key)
    or ``missing`` (no key on a root that is not the demo's: masking will refuse)."""
    from agentic_pipeline.masking.keys import MASKING_KEY_ENV, dev_mode
    from agentic_pipeline.masking.pseudonyms import is_dev_key

    key = environ.get(MASKING_KEY_ENV, "")
    if key and not is_dev_key(key):
        return "production"
    if dev_mode(environ) or (root / DEMO_MARKER).exists():
        return "development"
    return "missing"


def main(argv: list[str] | None = None) -> int:
    from agentic_pipeline.masking.keys import DEV_KEY_NOTICE, DEV_MODE_ENV, MISSING_KEY_MESSAGE

    parser = argparse.ArgumentParser(prog="make dev", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get(DATA_DIR_ENV) or "data")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", default="3000")
    args = parser.parse_args(argv)
    root = prepare_data_root(args.data_dir)  # sets AGENTIC_PIPELINE_DATA_DIR and DAGSTER_HOME
    mode = key_mode(root, dict(os.environ))
    if mode == "development":
        os.environ[DEV_MODE_ENV] = "1"
        console.print(f"[bold black on yellow] DEMO DATA ROOT [/] [bold yellow]{DEV_KEY_NOTICE}[/]")
    elif mode == "missing":
        console.print(
            f"[bold red]{root} is not the demo's data root and {MISSING_KEY_MESSAGE}[/]: the UI "
            "starts, and masking refuses every day until the key is set.",
            soft_wrap=True,
        )
    console.print(f"data root {root}; UI at http://{args.host}:{args.port}", soft_wrap=True)
    bin_dir = Path(sys.executable).parent
    os.environ.setdefault("VIRTUAL_ENV", str(bin_dir.parent))  # dg checks the project's venv
    # `dg dev` started from a background job ignores SIGINT/SIGTERM unless SIGINT is default
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    dg = str(bin_dir / "dg")
    os.execv(dg, [dg, "dev", "--host", args.host, "--port", str(args.port)])
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
