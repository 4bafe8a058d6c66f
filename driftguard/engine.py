"""The steps every shell shares: config, stored goal, scoring, history, trend, handoff.

The command line and the MCP server both call these, so a ``driftguard score`` and a
``get_drift`` of the same session give the same report and write the same history.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.compaction import read_compaction_settings, usable_window
from driftguard.config import Config, load_config
from driftguard.errors import ConfigError
from driftguard.history import HistoryStore, history_key_for, snapshot_from_report
from driftguard.livecache import read_host_window
from driftguard.model import Session
from driftguard.scoring import DriftReport, ResolvedBy, WindowSource, score_session

# What only some calls need is imported by the step that needs it (issue #10: a first
# get_drift imports neither the handoff and its secret gate nor the trend).
if TYPE_CHECKING:
    from driftguard.handoff import Handoff
    from driftguard.scoring.features import Features
    from driftguard.trend import Trend

__all__ = ["DriftOutcome", "drift", "gated_goal", "handoff", "history_key", "trend"]


@dataclass(frozen=True, slots=True)
class DriftOutcome:
    """A scored session with the config and goal that were used."""

    report: DriftReport
    config: Config
    goal: str | None


def gated_goal(goal: str | None) -> str | None:
    """``goal`` after the secret gate, stripped; ``None`` when there is none or the gate
    withholds it whole (issue #9 item 3: a goal is echoed in ``get_drift``'s reply and
    stored in ``~/.driftcli/sessions/``, so only its gated text may be either). A goal
    with a secret redacted still scores, against its ``[REDACTED:…]`` text."""
    if goal is None:
        return None
    from driftguard.secrets import gate

    text = gate(goal).text
    return text.strip() if text is not None and text.strip() else None


def history_key(session: Session) -> str:
    """The history/goal key of a session: its CLI and id, or its path when it has none."""
    return history_key_for(session.cli, session.session_id, Path(session.path))


def drift(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    goal: str | None = None,
    preset: str | None = None,
    resolved_by: ResolvedBy = "path",
    context_window: int | None = None,
    record: bool = True,
    features: Features | None = None,
) -> DriftOutcome:
    """Score ``session`` with the project's config, remembering its goal and its history.

    A goal given now is stored for the session (unless it is the one stored already);
    without one, the stored goal is used.
    Either passes the secret gate first (:func:`gated_goal`), so the goal returned, stored
    and scored never holds a secret the gate finds.
    A snapshot is appended to the session's history when ``record`` and the config's
    ``history.enabled`` allow it.

    The nominal context window, first found first (issue #8): ``context_window`` (the
    ``--context-window`` flag) > the project's ``contextWindow`` > the global one > the
    window Claude Code's status line last reported for the session > the file and model
    name. So the status line, the hooks, ``get_drift`` and ``driftguard score`` all agree.
    The usable window is derived from it by the host's rule, with the overrides the host's
    environment and settings hold (:mod:`driftguard.compaction`).

    ``features`` are what the factors read from the session's messages, when the caller
    keeps them up to date (:meth:`driftguard.incremental.SessionCache.get_indexed`); the
    report is the same without them, only slower to make.

    Raises:
        ConfigError: a config file cannot be used, or only goal distance is weighted and
            the session has no goal.
        UnknownNameError: ``preset`` names no shipped preset.
    """
    config = load_config(project, preset=preset)
    window, window_source = _window(session, config, context_window)
    usable = usable_window(
        session.cli,
        window or session.context_window,
        settings=read_compaction_settings(session.cli, project=project),
        window_from_file=window is None,
    )
    key = history_key(session)
    if goal is not None and goal.strip():
        goal = gated_goal(goal)
        if record and goal is not None and not _stored(store, key, goal):
            store.save_goal(key, goal)
    else:
        goal = gated_goal(store.load_goal(key))
    if goal is None and not any(
        weight > 0 for name, weight in config.weights.items() if name != "goal_distance"
    ):
        raise ConfigError(
            f"{', '.join(config.sources) or 'command line'}: weights: only goal_distance has a "
            "weight, and this session has no goal; pass a goal or weight another factor"
        )
    report = score_session(
        session,
        weights=config.weights,
        goal=goal,
        warn_threshold=config.warn_threshold,
        context_window=window,
        resolved_by=resolved_by,
        scoring=config.scoring,
        usable=usable,
        preset=config.preset,
        window_source=window_source,
        features=features,
    )
    if record and config.history_enabled:
        store.append(key, snapshot_from_report(report, goal, time.time()))
    return DriftOutcome(report=report, config=config, goal=goal)


def _stored(store: HistoryStore, key: str, goal: str) -> bool:
    """Whether ``goal`` is the goal stored for ``key`` already. A goal given again unchanged
    is not written again: the write ends in an fsync, whose wait grows with whatever else
    the disk has to flush (measured: a warm get_drift with a goal right after a 150 MB
    session was written, 5.6 ms with the write, 4.0 ms without). A goal that cannot be
    read is written (and a failure to write it is noted as before)."""
    try:
        return HistoryStore.load_goal(store, key) == goal  # unguarded: no note for a read
    except OSError:
        return False


def _window(session: Session, config: Config, flag: int | None) -> tuple[int | None, WindowSource]:
    """The nominal window that overrides the session's own, and where it came from
    (``None`` and ``"file"``: the session's own)."""
    if flag is not None and flag > 0:
        return flag, "flag"
    if config.context_window is not None:
        return config.context_window, "config"
    if session.cli == "claude_code" and session.session_id:
        host = read_host_window(session.session_id)
        if host is not None and host > 0:
            return host, "host"
    return None, "file"


def trend(session: Session, *, project: Path | None, store: HistoryStore) -> Trend:
    """The trend of the session's recorded snapshots (design §6), over those made with the
    scoring and preset the config names now (the others are set aside, issue #8)."""
    from driftguard.trend import compute_trend

    config = load_config(project)
    return compute_trend(
        store.read(history_key(session)),
        config.warn_threshold,
        scoring=config.scoring,
        preset=config.preset,
    )


def handoff(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    resolved_by: ResolvedBy = "path",
    saved_to: str | None = None,
    features: Features | None = None,
) -> tuple[Handoff, DriftReport]:
    """The handoff prompt of the session, with its current (unrecorded) report.

    ``saved_to`` names the file the draft is being saved to (``handoff --write``,
    the ``save_handoff`` tool); the prompt then asks to complete that file in place.
    ``features``: as :func:`drift`.
    """
    from driftguard.handoff import build_handoff

    outcome = drift(
        session,
        project=project,
        store=store,
        resolved_by=resolved_by,
        record=False,
        features=features,
    )
    return build_handoff(session, outcome.report, saved_to=saved_to), outcome.report
