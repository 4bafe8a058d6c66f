"""``driftguard score``: a session's drift score, as text or JSON."""

from __future__ import annotations

import argparse
import json

from driftguard.cli._common import (
    EXIT_OK,
    add_session_arguments,
    config_project,
    context_window,
    session_for,
    warn,
)
from driftguard.errors import DriftguardError
from driftguard.model import NOT_IN_SESSION_FOLDER
from driftguard.presets import PRESET_NAMES

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Score a Claude Code, Gemini CLI or Codex CLI session, or a Cursor chat, for drift "
    "(0-100). "
    "Without PATH, the current session of the project directory is scored. "
    "Each score of a session file in a session folder is recorded in its history "
    "(see `driftguard trend`), except try-outs with another --preset, a --goal "
    "that is not kept, or another --context-window."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser)
    parser.add_argument(
        "--goal",
        metavar="TEXT",
        help="the session's goal, for goal distance, for this score only (with --keep-goal "
        'also for later scores); --goal "" scores without the remembered goal',
    )
    parser.add_argument(
        "--keep-goal",
        action="store_true",
        help="remember --goal for the session (get_drift, the hooks and later scores use it); "
        'with --goal "" forget the remembered one',
    )
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="factor weights preset (default: from config, else coding)",
    )
    parser.add_argument(
        "--context-window",
        type=context_window,
        metavar="TOKENS",
        help=(
            "the model's context window in tokens, for a model driftguard cannot know "
            "(default: config contextWindow, else the host's or the file's; another "
            "window is a try-out, not recorded)"
        ),
    )
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="score on the calibration in FILE (`driftguard calibrate --out FILE`), or "
        "'auto' (yours, once there are enough sessions) or 'off' "
        "(default: config calibration, else auto)",
    )
    parser.add_argument(
        "--demo", action="store_true", help="score the demo session shipped with driftguard"
    )


def _not_kept(reason: str | None) -> str:
    """Why ``--keep-goal`` kept nothing, in one line."""
    if reason == NOT_IN_SESSION_FOLDER:
        return (
            "--keep-goal: the goal was not kept: this file is not in a session folder, so "
            "it has no remembered goal (add its folder to sessionFolders in the config)"
        )
    return "--keep-goal: the goal was not kept" + (f": {reason}" if reason else "")


def run(args: argparse.Namespace) -> int:
    from driftguard.engine.drift import drift
    from driftguard.store.history import GuardedHistoryStore

    if args.keep_goal and args.goal is None:
        raise DriftguardError('--keep-goal keeps the --goal given with it: add --goal "…"')
    store = GuardedHistoryStore()
    with session_for(args) as (session, target):
        outcome = drift(
            session,
            project=config_project(args, session, target),
            store=store,
            goal=args.goal,
            keep_goal=args.keep_goal,
            preset=args.preset,
            resolved_by=target.resolved_by,
            context_window=args.context_window,
            found_in=target.found_in,
            calibration=args.calibration,
        )
    warn([*outcome.config.warnings, *store.notes])
    kept = outcome.goal_use is not None and outcome.goal_use.kept
    if args.keep_goal and args.goal.strip() and not kept:
        warn([_not_kept(outcome.recording.reason)])
    if args.json:
        print(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False))
    else:
        print(outcome.to_text("cli"))
    return EXIT_OK
