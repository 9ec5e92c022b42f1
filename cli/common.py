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

#: One exit code per kind of outcome, the same for every command (listed in ``--help``).
EXIT_OK = 0
EXIT_FAILED = 1  # a run failed, or an unexpected error
EXIT_REFUSED = 2  # a bad argument or option, no key, an unwritable data root: nothing ran
EXIT_NO_DATA = 3  # the data root does not exist or holds none of the requested days
EXIT_CODES_HELP = """\
exit codes (the same for every command):
  0    done
  1    a run failed, or an unexpected error (one line; --debug shows the traceback)
  2    refused before anything ran: a bad argument or option, no masking key,
       a data root that cannot be written
  3    nothing to read: the data root does not exist, or holds none of the
       requested days (no landing files, no stored dataset or decision)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)"""


class UsageError(Exception):
    """A refused command: printed in one line without a traceback, exit code 2."""

    exit_code = EXIT_REFUSED


class NoDataError(UsageError):
    """Nothing to read for the request (no data root, none of the days): exit code 3."""

    exit_code = EXIT_NO_DATA


def existing_data_root(data_dir: str) -> Path:
    """The data root of a read-only command: it must exist, and it is never created (a mistyped
    ``--data-dir`` must not leave an empty data root and a Dagster instance behind)."""
    root = Path(data_dir).expanduser().resolve()
    if not root.is_dir():
        raise NoDataError(
            f"no data root at {root} (from --data-dir or ${DATA_DIR_ENV}, else ./data "
            "of the current folder): give the folder `make demo` or `materialize` wrote"
        )
    return root


def shown_days(days: list[str]) -> str:
    """``a, b, c, d, e and 3 more``: days in a one-line message."""
    return ", ".join(days[:5]) + (f" and {len(days) - 5} more" if len(days) > 5 else "")


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
        raise NoDataError(
            f"no landing files for {shown_days(empty)} under {root / 'landing'}: put the day's "
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
