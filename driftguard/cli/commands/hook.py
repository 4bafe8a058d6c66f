"""``driftguard hook EVENT``: a host's hook, with its JSON payload on stdin."""

from __future__ import annotations

import argparse

from driftguard.cli._common import EXIT_OK, stdin_bytes

__all__ = ["DESCRIPTION", "EVENT_NAMES", "add_arguments", "run"]

EVENT_NAMES = ("session-start", "stop", "user-prompt-submit")
DESCRIPTION = (
    "Run a Claude Code hook with its JSON payload on stdin: session-start (pointer "
    "and waiting handoff), stop (re-score, status-line cache, history), "
    "user-prompt-submit (one warning when the score crosses warnThreshold). "
    "Always exits 0; problems go to stderr."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", metavar="EVENT", help=", ".join(EVENT_NAMES))


def run(args: argparse.Namespace) -> int:
    from driftguard.live.hooks import run_hook

    output = run_hook(args.event, stdin_bytes())
    if output:
        print(output)
    return EXIT_OK
