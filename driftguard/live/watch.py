"""``driftguard watch``: a live terminal dashboard of one session.

It shows the six factors with bars, the score and its state, the recommendation, two
sparklines — the scores recorded in the session's history (by ``get_drift`` and the stop
hook) and the scores this dashboard computed since it started — and, once the session was
compacted, what the last compaction dropped (:mod:`driftguard.render.ledger`: gated,
printable, the items that fit the width, then ``+N more`` for the rest). It redraws when
the session file changes:

- **file events**: a :mod:`watchdog` observer on the session file's folder (inotify,
  FSEvents, kqueue or ReadDirectoryChangesW); for a session kept in a database (a Cursor
  chat), the database's folder, woken by changes to the database and its write-ahead log
  (:func:`driftguard.adapters.watched_files`). Only changes wake it (modified, created,
  moved, deleted, closed after writing) — not the opens and reads of its own redraws. A
  wake-up waits :data:`DEBOUNCE_SECONDS` so the several lines of one turn make one redraw.
  Where no native observer can be started (e.g. the inotify watch limit is reached), it
  falls back to watchdog's polling observer and says so in the footer.
- **incremental**: one :class:`~driftguard.sessions.incremental.SessionCache` for its lifetime, so a
  redraw reads only the lines appended since the last one (a database's session is read
  again only when its files changed).
- **which session**: ``PATH``, or else the project's current session, found again on
  every change in its folder (so after Claude Code's ``/clear`` it follows the new
  transcript the ``SessionStart`` hook points at; the live sparkline then starts afresh).
  A project with no session yet shows "waiting for a session in <project>…" and looks
  for one every :data:`DISCOVERY_SECONDS` (the CLIs' session folders may not exist yet,
  so there is nothing to observe) until one appears. Scores are not recorded in history.
- **which CLI**: ``--cli``, the CLI discovery found, or else the one detected in the
  file's first read — kept afterwards, so a file truncated to empty shows "Not enough
  messages to score yet." rather than failing to tell which CLI wrote it.

Every line is cut to the terminal width (ending in "…"), error lines included, so the
terminal never wraps one mid-word.

Ctrl-C (``KeyboardInterrupt``) ends it with exit code 0 (docs/design.md §10), waiting or not; on
a terminal the cursor is shown again and the last frame stays on screen. A ``PATH`` that
cannot be read fails before the screen changes (one line on stderr, exit 2). When stdout
is not a terminal, each frame is printed as plain text after a blank line.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Final, TextIO

from watchdog.events import (
    EVENT_TYPE_CLOSED,
    EVENT_TYPE_CREATED,
    EVENT_TYPE_DELETED,
    EVENT_TYPE_MODIFIED,
    EVENT_TYPE_MOVED,
    FileSystemEvent,
    FileSystemEventHandler,
)

from driftguard.adapters import is_session_name, watched_files
from driftguard.engine import drift as engine
from driftguard.engine.trend import trend as trend_of
from driftguard.errors import DriftguardError, SessionNotFoundError
from driftguard.labels import ANSI_RESET, FACTOR_LABELS, STATE_ANSI
from driftguard.model import FACTOR_NAMES, CliName, GoalUse, ResolvedBy, Session
from driftguard.render.ledger import ledger_view
from driftguard.render.text import (
    SET_GOAL_HINT,
    bar,
    display_round,
    handoff_line,
    offers_handoff,
    plural,
    render_goal_line,
    room_text,
)
from driftguard.scoring import DriftReport
from driftguard.scoring.loops import short_loop
from driftguard.scoring.trend import Trend, spark_cell
from driftguard.sessions.incremental import SessionCache
from driftguard.sessions.resolve import resolve_on_command_line
from driftguard.store.history import GuardedHistoryStore, HistoryStore
from driftguard.terminal import clip

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver

__all__ = [
    "DEBOUNCE_SECONDS",
    "DISCOVERY_SECONDS",
    "LIVE_CELLS",
    "WatchTarget",
    "Watcher",
    "render_frame",
]

DEBOUNCE_SECONDS: Final = 0.05
"""Pause after a file event before redrawing, so one turn's lines make one redraw."""
WAKE_SECONDS: Final = 0.5
"""The main loop waits in slices this long, so Ctrl-C is handled promptly everywhere."""
DISCOVERY_SECONDS: Final = 1.0
"""While no session exists yet, how often the project's sessions are looked for."""
LIVE_CELLS: Final = 40
"""Live scores kept for the live sparkline."""
_WAKING_EVENTS: Final = frozenset(
    {
        EVENT_TYPE_MODIFIED,
        EVENT_TYPE_CREATED,
        EVENT_TYPE_MOVED,
        EVENT_TYPE_DELETED,
        EVENT_TYPE_CLOSED,
    }
)
_HIDE_CURSOR: Final = "\x1b[?25l"
_SHOW_CURSOR: Final = "\x1b[?25h"
_HOME: Final = "\x1b[H"
_CLEAR_LINE: Final = "\x1b[K"
_CLEAR_BELOW: Final = "\x1b[J"
_CLEAR_SCREEN: Final = "\x1b[2J"


@dataclass(frozen=True, slots=True)
class WatchTarget:
    """What to watch: a fixed ``path``, or the current session of ``project``.

    ``config_project`` (``--project``) is the folder whose ``.driftcli`` applies; by
    default the session's own cwd when a ``path`` is given (and it exists), else the
    folder whose session is shown — ``project``, or the folder above it that has one
    when ``project`` has none and no ``--project`` was given — as for ``driftguard
    score``.
    """

    path: Path | None
    project: Path
    cli: CliName | None = None
    config_project: Path | None = None


def _clip_left(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def render_frame(
    report: DriftReport,
    trend: Trend,
    live: Sequence[int],
    *,
    width: int = 80,
    now: float | None = None,
    mode: str = "file events",
    color: bool = False,
    goal: GoalUse | None = None,
) -> list[str]:
    """The dashboard's lines for one redraw (each at most ``width`` characters visible).

    Args:
        report: the current drift report.
        goal: the goal the report used and where it came from, or ``None``.
        trend: the trend of the session's recorded history.
        live: the scores computed by this dashboard so far, oldest first.
        width: the terminal width in characters.
        now: the time shown as "updated" (default: now).
        mode: how changes are noticed ("file events" or "polling"), for the footer.
        color: colour the state by its band (ANSI SGR).
    """
    session = report.session
    width = max(20, width)
    stamp = datetime.fromtimestamp(time.time() if now is None else now).strftime("%H:%M:%S")
    lines = [
        clip(f"driftguard watch · {session.cli} · updated {stamp}", width),
        _clip_left(session.path, width),
        "",
    ]
    score_line = clip(
        f"Score {report.score}/100 · {report.state} · {plural(report.messages, 'message')}",
        width,
    )
    if color and f" · {report.state} · " in score_line:
        coloured = f"{STATE_ANSI[report.state]}{report.state}{ANSI_RESET}"
        score_line = score_line.replace(f" · {report.state} · ", f" · {coloured} · ", 1)
    lines.append(score_line)
    room = room_text(report)
    loop = report.measures.loop if report.measures is not None else None
    if loop is not None:
        room += f" · loop: {short_loop(loop)}"
    lines.append(clip(room, width))
    recorded = trend.sparkline if trend.sparkline else None
    history = (
        f"history {recorded[-LIVE_CELLS:]} {trend.trajectory}"
        if recorded
        else f"history: {len(trend.scores)} recorded"
    )
    live_cells = "".join(spark_cell(score) for score in live[-LIVE_CELLS:])
    lines.append(clip(f"{history} · live {live_cells}", width))
    lines.append("")
    label_width = max(len(label) for label in FACTOR_LABELS.values())
    for name in FACTOR_NAMES:
        value = report.factors.get(name)
        label = FACTOR_LABELS[name]
        if value is None:
            row = f"  {label:<{label_width}}  {'–':<10}   (no goal)"
        else:
            row = f"  {label:<{label_width}}  {bar(value)}  {display_round(value):5.1f}"
        lines.append(clip(row, width))
    lines.append("")
    wrapped = textwrap.wrap(report.recommendation, width, break_long_words=False)
    lines += [clip(line, width) for line in wrapped] or [""]
    if offers_handoff(report):
        lines.append(clip(handoff_line("cli"), width))
    lines.append(clip(render_goal_line(goal, "cli", how=SET_GOAL_HINT), width))
    lines.append("")
    tokens = f"{session.context_tokens:,} of {report.context_window:,} tokens"
    if session.tokens_estimated:
        tokens += " (estimated)"
    details = [tokens, plural(session.compactions, "compaction")]
    if report.resolved_by != "path":
        details.append(f"resolved by {report.resolved_by.replace('_', ' ')}")
    if report.found_in is not None:
        details.append(f"session of {report.found_in}, above the working directory")
    lines.append(clip(" · ".join(details), width))
    last = ledger_view(session, limit=1).last
    if last is not None:
        lines.append(last.fitted(width))
    lines.append(clip(f"watching with {mode} · Ctrl-C to quit", width))
    return lines


class _Wake(FileSystemEventHandler):
    """Sets ``wake`` on a change to a session file in the watched folder."""

    def __init__(self, wake: threading.Event, wanted: Callable[[str], bool]) -> None:
        super().__init__()
        self._wake = wake
        self._wanted = wanted

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _WAKING_EVENTS or event.is_directory:
            return
        names = [event.src_path, getattr(event, "dest_path", "")]
        if any(name and self._wanted(os.fsdecode(name)) for name in names):
            self._wake.set()


def _start_observer(folder: Path, handler: FileSystemEventHandler) -> tuple[BaseObserver, str]:
    """A started native observer of ``folder``, else a polling one (and which it is)."""
    from watchdog.observers import Observer
    from watchdog.observers.polling import PollingObserver

    observer: BaseObserver = Observer()
    try:
        observer.schedule(handler, str(folder), recursive=False)
        observer.start()
        return observer, "file events"
    except OSError:
        with contextlib.suppress(Exception):
            observer.stop()
    polling: BaseObserver = PollingObserver(timeout=WAKE_SECONDS)
    polling.schedule(handler, str(folder), recursive=False)
    polling.start()
    return polling, "polling"


@dataclass
class Watcher:
    """The dashboard of one :class:`WatchTarget`, drawn on ``out``."""

    target: WatchTarget
    out: TextIO
    color: bool = False
    cache: SessionCache = field(default_factory=lambda: SessionCache(maxsize=4))
    store: HistoryStore = field(default_factory=GuardedHistoryStore)
    """Failures to read the history or the goal cost nothing on the dashboard (the
    score is still shown); their notes are dropped each frame."""
    live: list[int] = field(default_factory=list)
    _path: Path | None = None
    _cli: CliName | None = None
    _resolved_by: ResolvedBy = "path"
    _found_in: Path | None = None
    _last: Session | None = None
    _live_path: Path | None = None
    _frames: int = 0

    def locate(self) -> Path:
        """The session file to show now (the fixed path, or the project's current one).

        Raises:
            SessionNotFoundError: the project has no session.
        """
        if self.target.path is not None:
            known = self._cli if self._path == self.target.path else None
            self._path, self._cli = self.target.path, self.target.cli or known
            self._resolved_by, self._found_in = "path", None
        else:
            found = resolve_on_command_line(
                self.target.project,
                only=self.target.cli,
                walk_up=self.target.config_project is None,
            )
            self._path, self._cli, self._resolved_by = found.path, found.cli, found.resolved_by
            self._found_in = found.found_in
        return self._path

    def _config_project(self, session: Session) -> Path:
        return engine.config_project(
            named=self.target.config_project,
            path_given=self.target.path is not None,
            session=session,
            found_in=self._found_in,
            default=self.target.project,
        )

    def frame(self, *, mode: str = "file events", width: int | None = None) -> list[str]:
        """Read the session (new lines only), score it, and render the dashboard.

        Raises:
            DriftguardError: the file cannot be read or scored.
        """
        path = self._path if self._path is not None else self.locate()
        indexed = self.cache.get_indexed(path, self._cli)
        session = indexed.session
        if self._cli is None:
            self._cli = session.cli  # detected once: an emptied file is still this CLI's
        if path != self._live_path:
            self.live.clear()  # another session (e.g. after /clear): its own live scores
            self._live_path = path
        project = self._config_project(session)
        if isinstance(self.store, GuardedHistoryStore):
            self.store.notes.clear()
        outcome = engine.drift(
            session,
            project=project,
            store=self.store,
            resolved_by=self._resolved_by,
            record=False,
            features=indexed.features,
            found_in=self._found_in,
        )
        if session is not self._last:
            self.live.append(outcome.report.score)
            del self.live[:-LIVE_CELLS]
            self._last = session
        trend = trend_of(session, project=project, store=self.store)
        columns = width if width is not None else shutil.get_terminal_size().columns
        return render_frame(
            outcome.report,
            trend,
            self.live,
            width=columns,
            mode=mode,
            color=self.color,
            goal=outcome.goal_use,
        )

    def _draw(self, lines: list[str]) -> None:
        if self.out.isatty():
            prefix = _CLEAR_SCREEN + _HOME if self._frames == 0 else _HOME
            body = "".join(f"{line}{_CLEAR_LINE}\n" for line in lines)
            self.out.write(f"{prefix}{body}{_CLEAR_BELOW}")
        else:
            self.out.write(("\n" if self._frames else "") + "\n".join(lines) + "\n")
        self.out.flush()
        self._frames += 1

    def waiting_frame(self, *, width: int | None = None) -> list[str]:
        """The lines shown while the project has no session yet (each within ``width``)."""
        columns = max(20, width if width is not None else shutil.get_terminal_size().columns)
        lead = "waiting for a session in "
        where = _clip_left(f"{self.target.project}…", max(1, columns - len(lead)))
        return [
            clip(lead + where, columns),
            "",
            clip(f"looking every {DISCOVERY_SECONDS:g} s · Ctrl-C to quit", columns),
        ]

    def _safe_frame(self, mode: str) -> list[str]:
        try:
            return self.frame(mode=mode)
        except DriftguardError as exc:
            columns = max(20, shutil.get_terminal_size().columns)
            lines = [f"driftguard watch: {' '.join(str(exc).split())}", ""]
            lines.append(f"watching with {mode} · Ctrl-C to quit")
            return [clip(line, columns) for line in lines]

    def _wanted(self, name: str) -> bool:
        if self.target.path is not None:
            watched = watched_files(self.target.path)
            return os.path.abspath(name) in {os.path.abspath(file) for file in watched}
        return is_session_name(os.path.basename(name))

    def _first_frame(self) -> list[str] | None:
        """The first frame, or ``None`` when the project has no session yet.

        Raises:
            DriftguardError: ``PATH`` or the session found cannot be read, or a bad config.
        """
        try:
            self.locate()
        except SessionNotFoundError:
            if self.target.path is not None:
                raise
            return None
        return self.frame()

    def _wait_for_session(self, wake: threading.Event) -> None:
        """Look for the project's session every :data:`DISCOVERY_SECONDS` until one
        appears, or until ``wake`` is set (a resize: the waiting frame is redrawn)."""
        while self._path is None:
            woke = wake.wait(DISCOVERY_SECONDS)
            wake.clear()
            with contextlib.suppress(SessionNotFoundError):
                self.locate()
            if woke:
                return

    def _wait_for_change(self, wake: threading.Event) -> None:
        """Wait for a change to the session's folder (or a resize), then find the session
        again when it is the project's current one."""
        while not wake.wait(WAKE_SECONDS):
            pass
        time.sleep(DEBOUNCE_SECONDS)
        wake.clear()
        if self.target.path is None:
            with contextlib.suppress(DriftguardError):
                self.locate()

    def run(self) -> int:
        """Draw, then redraw on every change until Ctrl-C; returns the exit code (0).

        Without ``PATH``, a project with no session yet shows :meth:`waiting_frame` until
        one appears.

        Raises:
            DriftguardError: the first read fails (unreadable ``PATH`` or session, bad
                config).
        """
        lines = self._first_frame()  # a bad path or config fails here, before the screen changes
        wake = threading.Event()
        handler = _Wake(wake, self._wanted)
        observer: BaseObserver | None = None
        folder: Path | None = None
        mode = "file events"
        tty = self.out.isatty()
        try:
            with _on_resize(wake):
                if tty:
                    self.out.write(_HIDE_CURSOR)
                while True:
                    if self._path is None:
                        self._draw(self.waiting_frame())
                        self._wait_for_session(wake)
                        continue
                    if watched_files(self._path)[0].parent != folder:
                        folder = watched_files(self._path)[0].parent
                        if observer is None:
                            observer, mode = _start_observer(folder, handler)
                            if mode != "file events":
                                lines = None  # the footer names the polling observer
                        else:
                            observer.unschedule_all()
                            observer.schedule(handler, str(folder), recursive=False)
                    self._draw(lines if lines is not None else self._safe_frame(mode))
                    lines = None
                    self._wait_for_change(wake)
        except KeyboardInterrupt:
            return 0
        finally:
            if observer is not None:
                observer.stop()
                with contextlib.suppress(RuntimeError):
                    observer.join(timeout=2)
            if tty:
                with contextlib.suppress(OSError, ValueError):
                    self.out.write(_SHOW_CURSOR)
                    self.out.flush()


@contextlib.contextmanager
def _on_resize(wake: threading.Event) -> Iterator[None]:
    """Redraw when the terminal is resized (``SIGWINCH``, where it exists and we may)."""
    sigwinch = getattr(signal, "SIGWINCH", None)
    if sigwinch is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def resized(_signum: int, _frame: FrameType | None) -> None:
        wake.set()

    previous = signal.signal(sigwinch, resized)
    try:
        yield
    finally:
        signal.signal(sigwinch, previous)
