"""``driftguard watch``: a live dashboard of a session's drift, redrawn as its file grows."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from driftguard.cli._common import EXIT_OK, add_session_arguments, check_project

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Show the six factors, the score and its trend, redrawn whenever the session "
    "file changes. Without PATH, the current session of the project is shown (and "
    "followed after /clear; until the project has one, it waits for it). Ctrl-C quits."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser, json_output=False, verb="watch")


def run(args: argparse.Namespace) -> int:
    from driftguard.live.watch import Watcher, WatchTarget

    check_project(args)
    target = WatchTarget(
        path=Path(args.path) if args.path is not None else None,
        project=Path(args.project) if args.project is not None else Path.cwd(),
        cli=args.cli,
        config_project=Path(args.project) if args.project is not None else None,
    )
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    try:
        return Watcher(target, sys.stdout, color=color).run()
    except KeyboardInterrupt:
        return EXIT_OK
