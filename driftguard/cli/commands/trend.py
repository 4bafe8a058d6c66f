"""``driftguard trend``: how a session's drift score moved over its recorded scores."""

from __future__ import annotations

import argparse
import json

from driftguard.cli._common import EXIT_OK, add_session_arguments, config_project, session_for, warn

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = "Sparkline, peak, average and trajectory of the scores recorded so far."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from driftguard.engine.drift import drift
    from driftguard.engine.trend import trend
    from driftguard.render.text import render_session_line
    from driftguard.render.trend import render_trend_text, trend_json
    from driftguard.store.history import GuardedHistoryStore

    store = GuardedHistoryStore()
    with session_for(args) as (session, target):
        project = config_project(args, session, target)
        outcome = drift(
            session,
            project=project,
            store=store,
            resolved_by=target.resolved_by,
            record=False,
            found_in=target.found_in,
        )
        moved = trend(session, project=project, store=store)
    warn(store.notes)
    if args.json:
        result = {**trend_json(moved), "session": outcome.to_json()["session"]}
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render_trend_text(moved, "cli"))
        print(render_session_line(outcome.report))
    return EXIT_OK
