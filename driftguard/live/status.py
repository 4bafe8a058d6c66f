"""``driftguard status``'s answer for any host's session: the cached status while nothing
it was made with has changed — the transcript (its size), the remembered goal and the
config (:func:`driftguard.store.livecache.is_current`) — else the session scored again
(not recorded) and cached.

Fast on a hit: the adapters, the engine and numpy are imported only when the cache is
stale, as a tmux status bar or a shell prompt runs this every few seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from driftguard.errors import ConfigError
from driftguard.model import CliName, Session
from driftguard.store import livecache

__all__ = ["StatusAnswer", "session_status"]


@dataclass(frozen=True, slots=True)
class StatusAnswer:
    """The status to show, and what went wrong on the way.

    Attributes:
        status: the cached or fresh status; ``None`` only with ``config_error`` when
            nothing was cached.
        warnings: lines for stderr (history or cache that could not be used).
        config_error: the config cannot be used: the caller shows the last cached status
            with a ``config error: <file>`` segment (a tmux bar or a prompt drops stderr)
            and then reports the error.
    """

    status: livecache.LiveStatus | None
    warnings: tuple[str, ...] = ()
    config_error: ConfigError | None = None


def session_status(
    path: Path, cli: CliName | None, *, project_for: Callable[[Session], Path]
) -> StatusAnswer:
    """The status of the session at ``path`` (written by ``cli``, when known), from the
    cache while it is current, else scored now with the config of ``project_for(session)``
    and cached (a session without a file of its own, a database's chat, is never answered
    from the cache).

    Raises:
        DriftguardError: the session cannot be read.
    """
    key = livecache.status_key(path, cli)
    try:
        size = path.stat().st_size
    except OSError:
        size = -1
    cached = livecache.read_status(key) if size >= 0 else None
    if cached is not None and cached.transcript_path != str(path):
        cached = None
    if cached is not None and cached.transcript_size == size and livecache.is_current(cached):
        return StatusAnswer(cached)
    from driftguard.adapters import parse_session
    from driftguard.engine.drift import drift
    from driftguard.live.hooks import live_status
    from driftguard.store.history import GuardedHistoryStore

    session = parse_session(path, cli)
    store = GuardedHistoryStore()
    try:
        outcome = drift(session, project=project_for(session), store=store, record=False)
    except ConfigError as exc:
        return StatusAnswer(cached, config_error=exc)
    warnings = list(store.notes)
    fresh = live_status(outcome, key, path, size)
    try:
        if size >= 0:
            livecache.write_status(fresh)
    except OSError as exc:
        warnings.append(f"status cache not written: {exc.strerror or exc}")
    return StatusAnswer(fresh, tuple(warnings))
