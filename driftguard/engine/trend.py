"""The trend of a session's recorded scores, as every shell asks for it (docs/design.md §6
``get_trend``, ``driftguard trend``, ``watch``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from driftguard.engine.drift import remembered_goal, session_facts
from driftguard.model import Session
from driftguard.scoring.trend import Trend, compute_trend
from driftguard.store.history import HistoryStore, goal_sha256

__all__ = ["trend"]


def trend(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    more_folders: Sequence[Path] = (),
) -> Trend:
    """The trend of the session's recorded snapshots (docs/design.md §6), over those made with the
    scoring, preset and goal in force now (the others are set aside: scored another way,
    they are not comparable).
    A file outside the session folders has no history: an empty trend."""
    facts = session_facts(session, project=project, store=store, more_folders=more_folders)
    config = facts.config
    if not facts.kept:
        return compute_trend((), config.warn_threshold, outside=True)
    goal = remembered_goal(facts, store)
    return compute_trend(
        store.read(facts.key),
        config.warn_threshold,
        scoring=config.scoring,
        preset=config.preset,
        goal_sha256=goal_sha256(goal.text) if goal is not None else None,
    )
