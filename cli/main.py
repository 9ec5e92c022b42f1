"""``agentic-pipeline``: the project's command line .

Every command takes ``--data-dir`` (default ``AGENTIC_PIPELINE_DATA_DIR``, else ``./data``).
``materialize`` runs in-process Dagster runs recorded in the instance under
``<data root>/dagster_home``, the same instance ``make dev`` shows.
"""

import argparse
import os
from datetime import date

from cli.commands import cmd_export, cmd_materialize, cmd_report, cmd_simulate
from cli.common import (
    DATA_DIR_ENV,
    EXIT_CODES_HELP,
    EXIT_FAILED,
    UsageError,
    console,
    one_line_error,
    quiet_dagster_warnings,
)


def _day_arg(text: str) -> str:
    """An argparse type: a ``YYYY-MM-DD`` day, refused at parse time (before anything loads)."""
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def cmd_erase(args: argparse.Namespace) -> int:
    """``erase`` (cli/erase.py), imported when run: it loads Dagster, which a refused command
    line of any other command never waits for."""
    from cli.erase import cmd_erase as erase

    return erase(args)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentic-pipeline")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "unknown"


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows an option's default in its help when it has a meaningful one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def _add_day_range(parser: argparse.ArgumentParser) -> None:
    """``--start`` and ``--end``: the days a command covers (``--end`` defaults to ``--start``)."""
    parser.add_argument(
        "--start", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="first day"
    )
    parser.add_argument(
        "--end", type=_day_arg, metavar="YYYY-MM-DD", help="last day (default: --start)"
    )


def build_parser() -> argparse.ArgumentParser:
    formatter = _HelpFormatter
    parser = argparse.ArgumentParser(
        prog="agentic-pipeline",
        description="Simulate, materialize, report, export and erase agent-log data "
        "(every command takes --data-dir).",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=os.environ.get(DATA_DIR_ENV) or "data",
        help="data root (from $AGENTIC_PIPELINE_DATA_DIR when set)",
    )
    common.add_argument(
        "--debug", action="store_true", help="print the full traceback of an unexpected error"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            parents=[common],
            help=help,
            description=help,
            epilog=EXIT_CODES_HELP,
            formatter_class=formatter,
        )

    sim = command("simulate", "write simulated landing files (landing/YYYY-MM-DD/)")
    sim.add_argument(
        "--start", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="first day"
    )
    sim.add_argument("--days", type=_positive_int, default=7, help="number of days")
    sim.add_argument("--episodes-per-day", type=_positive_int, default=200, help="episodes per day")
    sim.add_argument("--seed", type=int, default=0, help="random seed (same seed, same bytes)")
    sim.add_argument(
        "--transition-share",
        type=_share,
        default=0.3,
        help="share of episodes written as transition JSONL (0..1)",
    )
    sim.set_defaults(func=cmd_simulate)

    mat = command("materialize", "materialize days in-process, recorded in the Dagster instance")
    _add_day_range(mat)
    mat.add_argument(
        "--select",
        default="*",
        help="assets: '*', comma-separated keys, or Dagster selection syntax "
        "(e.g. 'key:episode_rewards+')",
    )
    mat.set_defaults(func=cmd_materialize)

    exp = command("export", "concatenate training datasets of several days into one file")
    _add_day_range(exp)
    exp.add_argument(
        "--format", required=True, choices=["sft", "dpo", "dpo-openai", "rl"], help="dataset"
    )
    exp.add_argument(
        "--out", required=True, help="output file: .jsonl (sft, dpo, dpo-openai) or .parquet (rl)"
    )
    exp.set_defaults(func=cmd_export)

    era = command("erase", "erase one person's episodes everywhere (right to be forgotten)")
    era.add_argument(
        "--subject",
        required=True,
        action="append",
        help="an identifier of the person: email, phone, card, user or customer id; repeat it to "
        "give several (a name counts only together with another identifier)",
    )
    era.set_defaults(func=cmd_erase)

    rep = command("report", "print the policy decision stored for a day")
    rep.add_argument("--date", required=True, type=_day_arg, metavar="YYYY-MM-DD", help="the day")
    rep.add_argument("--json", action="store_true", help="print the decision as JSON (for scripts)")
    rep.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every error is one line on the terminal (``--debug`` for a traceback)."""
    args = build_parser().parse_args(argv)
    quiet_dagster_warnings()
    try:
        return args.func(args)
    except UsageError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True, markup=True, highlight=False)
        return exc.exit_code
    except KeyboardInterrupt:
        console.print("[red]interrupted[/red]")
        return 130
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        console.print(
            f"[red]error:[/red] {one_line_error(exc)} (re-run with --debug for the traceback)",
            soft_wrap=True,
            highlight=False,
        )
        return EXIT_FAILED
