"""``driftguard hook EVENT``: a host's hook, with its JSON payload on stdin."""

from __future__ import annotations

import argparse

from driftguard.cli._common import EXIT_OK, stdin_bytes
from driftguard.model import CLI_NAMES

__all__ = ["DESCRIPTION", "EVENT_NAMES", "add_arguments", "run"]

EVENT_NAMES = ("session-start", "stop", "user-prompt-submit")
DESCRIPTION = (
    "Run a host's hook with its JSON payload on stdin (driftguard setup --hooks installs "
    "them): session-start (points the project at the session, hands a waiting handoff "
    "over), user-prompt-submit (tells the model, once each, what a compaction dropped, "
    "a loop, a coming compaction, a score past warnThreshold), stop (re-scores after the "
    "turn: history, status cache). Always exits 0; problems go to stderr."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", metavar="EVENT", help=", ".join(EVENT_NAMES))
    parser.add_argument(
        "--host",
        choices=CLI_NAMES,
        default="claude_code",
        help="the host that runs the hook, whose payload and output it speaks "
        "(default: claude_code)",
    )


def run(args: argparse.Namespace) -> int:
    from driftguard.live.hooks import run_hook

    output = run_hook(args.event, stdin_bytes(), host=args.host)
    if output:
        print(output)
    return EXIT_OK
