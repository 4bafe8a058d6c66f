"""``driftguard statusline``: one line for Claude Code's status line (its JSON on stdin)."""

from __future__ import annotations

import argparse
import sys

from driftguard.cli._common import EXIT_OK, stdin_bytes

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Print e.g. 'drift 47 warming · 38k to compact (~6 turns) · rep 31' for the session named in "
    "Claude Code's status-line JSON on stdin, from the score the stop hook cached. "
    "Always exits 0."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wrap",
        metavar="COMMAND",
        help="run your own status-line COMMAND with the same stdin and append the drift "
        "segment to its output",
    )


def run(args: argparse.Namespace) -> int:
    from driftguard.live.statusline import NOT_SCORED, statusline_output

    try:
        line = statusline_output(stdin_bytes(), wrap=args.wrap)
    except Exception as exc:  # noqa: BLE001 - the status line must always print and exit 0
        print(f"driftguard statusline: {type(exc).__name__}: {exc}", file=sys.stderr)
        line = NOT_SCORED
    print(line)
    return EXIT_OK
