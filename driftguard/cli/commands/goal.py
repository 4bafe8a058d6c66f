"""``driftguard goal``: show, set or forget the goal remembered for a session."""

from __future__ import annotations

import argparse
import json

from driftguard.cli._common import EXIT_OK, add_session_arguments, config_project, session_for, warn
from driftguard.errors import DriftguardError

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Show the goal remembered for the session (set by get_drift's goal, by "
    "`driftguard score --goal TEXT --keep-goal` or by --set), and when it was set; "
    "--clear forgets it, --set TEXT replaces it. Only session files in a session "
    "folder have one."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--set", metavar="TEXT", help="remember TEXT as the session's goal (after the secret gate)"
    )
    action.add_argument("--clear", action="store_true", help="forget the remembered goal")


def run(args: argparse.Namespace) -> int:
    from driftguard.engine import drift as engine
    from driftguard.format import iso_utc, when_utc
    from driftguard.store.history import GuardedHistoryStore

    store = GuardedHistoryStore()
    with session_for(args) as (session, target):
        facts = engine.session_facts(
            session, project=config_project(args, session, target), store=store
        )
        if not facts.kept:
            raise DriftguardError(
                f"{session.path}: not in a session folder, so it has no remembered goal "
                "(add its folder to sessionFolders in the config to give it one)"
            )
        if args.clear:
            store.clear_goal(facts.key)
        elif args.set is not None:
            gated = engine.gated_goal(args.set)
            if gated is None:
                raise DriftguardError(
                    "--set: no goal left to remember (empty, or withheld whole by the "
                    "secret gate); use --clear to forget the goal"
                )
            store.save_goal(facts.key, gated)
        goal = engine.remembered_goal(facts, store)
    warn([*facts.config.warnings, *store.notes])
    if store.notes:
        raise DriftguardError("the goal store could not be used (see the warning above)")
    where = f"{session.cli} · {session.path}"
    if args.json:
        print(
            json.dumps(
                {
                    "goal": goal.text if goal is not None else None,
                    "goal_set_at": iso_utc(goal.set_at)
                    if goal is not None and goal.set_at is not None
                    else None,
                    "session": {
                        "cli": session.cli,
                        "path": session.path,
                        "session_id": session.session_id,
                    },
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    elif goal is None:
        done = "Forgot the goal. " if args.clear else ""
        print(f"{done}No goal is remembered for this session ({where}).")
    else:
        when = f", set {when_utc(goal.set_at)}" if goal.set_at is not None else ""
        done = "Remembered. " if args.set is not None else ""
        print(f"{done}Goal: “{goal.text}”{when} ({where}).")
    return EXIT_OK
