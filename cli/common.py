"""What every command shares: the data root, the masking key, usage errors, one-line errors."""

import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from rich.console import Console

from agentic_pipeline.storage import atomic_write_text, day_range

DATA_DIR_ENV = "AGENTIC_PIPELINE_DATA_DIR"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
DAGSTER_YAML = """\
# Local instance for the CLI and `make dev` (README "Operating it" has the production profile).
telemetry:
  enabled: false
# at most one masking step (Presidio + spaCy workers) at a time across all runs
concurrency:
  pools:
    default_limit: 1
"""

console = Console(stderr=False)


class UsageError(Exception):
    """A bad command line: printed without a traceback, exit code 2."""


def _parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _days(start: date, end: date) -> list[str]:
    try:
        return day_range(start, end)
    except ValueError:
        raise UsageError(f"--end {end} is before --start {start}") from None


def _ended_days(start: date, end: date, today: date | None = None) -> list[str]:
    """The days from ``start`` to ``end``, refusing any day that has not ended yet (UTC).

    A daily partition exists only once its day is over, so today and later days are refused here,
    before Dagster is loaded, instead of ending in an unknown-partition traceback.
    """
    days = _days(start, end)
    today = today or datetime.now(UTC).date()
    if end >= today:
        first_open = max(start, today)
        latest = (today - timedelta(days=1)).isoformat()
        raise UsageError(
            f"day {first_open} has not ended yet (UTC); a day can be materialized once it is "
            f"over: the latest is {latest} (use --end {latest})"
        )
    return days


def _check_landing(root: Path, days: list[str]) -> None:
    """Refuse days whose landing folder is missing or holds no log file, naming them."""
    from agentic_pipeline.ingest import LANDING_SUFFIXES

    def has_logs(ds: str) -> bool:
        folder = root / "landing" / ds
        return folder.is_dir() and any(
            p.name.endswith(LANDING_SUFFIXES) for p in folder.iterdir() if p.is_file()
        )

    empty = [ds for ds in days if not has_logs(ds)]
    if empty:
        shown = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        raise UsageError(
            f"no landing files for {shown} under {root / 'landing'}: put the day's "
            "*.jsonl, *.jsonl.gz or *.json files in landing/YYYY-MM-DD/ (or run `simulate`), "
            "or leave raw_agent_logs out of --select"
        )


def _check_zones_writable(root: Path) -> None:
    """Fail at once, before any run, when a zone of the data root cannot be written."""
    for zone in ("restricted", "warehouse"):
        folder = root / zone
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = atomic_write_text(folder / f".write-probe-{os.getpid()}", "ok")
            probe.unlink()
        except OSError as exc:
            raise UsageError(
                f"{folder} is not writable ({exc.strerror}): fix its permissions and re-run"
            ) from None


def prepare_data_root(data_dir: str) -> Path:
    """Point the project and Dagster at ``data_dir``; create it and the instance home.

    The data root and ``dagster_home`` are private (0700, also when they already exist): the
    restricted zone holds raw personal data and the event log holds run metadata. Dagster creates
    its SQLite files with the process umask; inside a 0700 folder no other user can reach them,
    and the ones already there are set to 0600 as well.
    """
    root = Path(data_dir).expanduser().resolve()
    try:
        root.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        home = root / "dagster_home"
        home.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        for folder in (root, home):
            os.chmod(folder, PRIVATE_DIR_MODE)
        atomic_write_text(home / ".write-probe", "ok").unlink()
    except OSError as exc:
        raise UsageError(f"data root {root} is not writable: {exc.strerror}") from exc
    if not (home / "dagster.yaml").exists():
        atomic_write_text(home / "dagster.yaml", DAGSTER_YAML, mode=PRIVATE_FILE_MODE)
    for path in (home / "dagster.yaml", *home.rglob("*.db"), *home.rglob("*.db-*")):
        if path.is_file():
            os.chmod(path, PRIVATE_FILE_MODE)
    os.environ[DATA_DIR_ENV] = str(root)
    os.environ["DAGSTER_HOME"] = str(home)
    return root


def require_masking_key(purpose: str) -> str:
    """The masking key (``agentic_pipeline.masking.keys``), or a one-line refusal.

    In development mode the notice about the public key is printed once, loudly.
    """
    from agentic_pipeline.masking.keys import MissingMaskingKeyError, announce_dev_key, masking_key
    from agentic_pipeline.masking.pseudonyms import is_dev_key

    try:
        key = masking_key()
    except MissingMaskingKeyError as exc:
        raise UsageError(f"{purpose} refused, {exc}") from None
    if is_dev_key(key):
        notice = announce_dev_key()
        if notice:
            console.print(
                f"[bold black on yellow] WARNING [/] [bold yellow]{notice}[/]", soft_wrap=True
            )
    return key


def quiet_dagster_warnings() -> None:
    """Hide Dagster's beta/preview notices for features this project uses on purpose."""
    import warnings

    for pattern in ("dagster", "dagster._core"):
        warnings.filterwarnings("ignore", category=UserWarning, module=pattern)
    warnings.filterwarnings("ignore", message=".*is currently in (beta|preview).*")
    warnings.filterwarnings("ignore", message="Asset job .* varying BackfillPolicies")


def one_line_error(exc: BaseException) -> str:
    """``Type: first line of the message``, without the chained causes Dagster wraps around."""
    while exc.__cause__ is not None and not str(exc).strip():
        exc = exc.__cause__
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0].strip()}" if lines else type(exc).__name__
