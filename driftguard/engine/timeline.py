"""A session's drift turn by turn, for ``driftguard report``.

:func:`session_timeline` reads a session once with its adapter's resumable parser
(:func:`driftguard.adapters.turn_snapshots`), scores the session as it stood at the end of
every turn with the engine (:func:`driftguard.engine.drift.series`: the same scorer, config,
goal and usable window as ``driftguard score``, so the last point is that command's score),
and gathers what the page shows (:class:`~driftguard.render.html.Timeline`): each turn's
score, factors, context and usable window; where the host compacted and what each
compaction dropped (the compaction ledger, secret-gated); the action loops,
consecutive turns in the same loop grouped; the recorded history; and the handoff draft
as the secret gate left it.

Only one snapshot and one report are held at a time: a 45 MB session has ~2,100 turns,
and keeping every snapshot's message tuple alive would cost ~100 MB.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftguard.adapters import get_adapter, turn_snapshots
from driftguard.engine import drift as engine
from driftguard.engine.handoff import build_handoff
from driftguard.format import display_factors
from driftguard.model import CliName, Session
from driftguard.render.html import CompactionMark, LoopMark, Timeline, TurnPoint
from driftguard.render.ledger import ledger_view
from driftguard.scoring import DriftReport
from driftguard.scoring.loops import loop_key, short_loop
from driftguard.store.history import HistoryStore

__all__ = ["SessionSummary", "session_timeline"]


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A timeline and the facts a project index lists about it.

    Attributes:
        timeline: what the session's page shows.
        peak: the highest score over its turns; last: the score now (0–100).
    """

    timeline: Timeline
    peak: int
    last: int


def session_timeline(
    path: Path,
    cli: CliName | None = None,
    *,
    project_for: Callable[[Session], Path | None],
    store: HistoryStore,
    more_folders: Sequence[Path] = (),
) -> SessionSummary:
    """The turn-by-turn timeline of the session ``path``.

    Args:
        path: the session file, or a source's locator of a session.
        cli: the source that wrote it; detected when ``None``.
        project_for: the project whose config applies (as :func:`driftguard.engine.drift.drift`)
            for the session (its first snapshot, then the whole).
        store: the history store: the remembered goal and the recorded snapshots.
        more_folders: more session folders (as :func:`driftguard.engine.drift.drift`).

    Raises:
        SessionFormatError, SessionNotFoundError, UnknownNameError: the session cannot be
            read (:func:`driftguard.adapters.turn_snapshots`).
        ConfigError: as :func:`driftguard.engine.drift.drift`.
    """
    points: list[TurnPoint] = []
    compactions: list[CompactionMark] = []
    loops: list[LoopMark] = []
    loop_keys: list[str] = []
    compacted = 0
    final: DriftReport | None = None
    reports = engine.series(
        turn_snapshots(path, cli), project_for=project_for, store=store, more_folders=more_folders
    )
    for turn, report in enumerate(reports, start=1):
        session = report.session
        compactions += [CompactionMark(turn)] * max(0, session.compactions - compacted)
        compacted = max(compacted, session.compactions)
        loop = report.measures.loop if report.measures is not None else None
        label = short_loop(loop) if loop is not None else None
        if loop is not None and label is not None:
            key = loop_key(loop)
            if loops and loop_keys[-1] == key and loops[-1].last == turn - 1:
                loops[-1] = LoopMark(loops[-1].first, turn, label)
            else:
                loops.append(LoopMark(turn, turn, label))
                loop_keys.append(key)
        stamps = (m.timestamp for m in reversed(session.messages) if m.timestamp is not None)
        points.append(
            TurnPoint(
                turn=turn,
                timestamp=next(stamps, None),
                score=report.score,
                state=report.state,
                factors=display_factors(report.factors),
                context_tokens=session.context_tokens,
                usable_window=report.usable_window,
                loop=label,
            )
        )
        final = report
    if final is None:  # pragma: no cover - turn_snapshots always yields the session itself
        raise AssertionError("no snapshot of the session")
    session = final.session
    facts = engine.session_facts(
        session, project=project_for(session), store=store, more_folders=more_folders
    )
    recorded = tuple((s.ts, s.score) for s in store.read(facts.key)) if facts.kept else ()
    timeline = Timeline(
        title=f"{get_adapter(session.cli).label} · {Path(session.path).name}",
        path=session.path,
        points=tuple(points),
        compactions=_with_ledger(compactions, session),
        loops=tuple(loops),
        snapshots=recorded,
        recommendation=final.recommendation,
        handoff_draft=build_handoff(session, final).draft,
    )
    return SessionSummary(timeline, max(p.score for p in points), final.score)


def _with_ledger(marks: Sequence[CompactionMark], session: Session) -> tuple[CompactionMark, ...]:
    """``marks`` (the ``n``-th is the session's ``n``-th compaction) with what each dropped,
    from the compaction ledger of the session as it is now (a candidate a later prompt
    named survived, so the whole session says best what each compaction lost); gated by
    :func:`driftguard.render.ledger.ledger_view`."""
    entries = {e.number: e for e in ledger_view(session, limit=None).entries}
    out = []
    for number, mark in enumerate(marks, start=1):
        entry = entries.get(number)
        if entry is None:
            out.append(mark)
            continue
        out.append(
            CompactionMark(
                mark.turn,
                entry.phrases(),
                detail=entry.detail(),
                unknown=entry.unknown,
                said=entry.dropped_text(files=None),
            )
        )
    return tuple(out)
