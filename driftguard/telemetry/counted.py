"""What was already counted for each session, so that each compaction and each loop is
counted once however many processes score the session (the stop hook runs as a new
process after every turn; ``get_drift``, ``driftguard score`` and ``driftguard watch``
score the same session too).

One small JSON file per session, ``<state dir>/telemetry/<key>.json`` (the key of
:func:`driftguard.telemetry.observation.session_key`)::

    {"v": 1, "first": float, "last": float, "compactions": int,
     "loops": {kind: int}, "seen": [loop id, …]}

``first``: when the session's counting began (the start of its cumulative counters),
``last``: the previous recorded score (the start of the next delta), both seconds since the
epoch; ``compactions``: the most compactions the session file has shown (a file rewritten
with fewer never makes them count again); ``loops``: loops counted per kind; ``seen``: the
ids of the latest loops counted (at most :data:`SEEN_LOOPS`), so a loop that goes on over
several scores is counted at its first.

A read–count–write holds an exclusive ``fcntl.flock`` on ``<key>.lock`` (two processes
scoring one session at once count it once; POSIX only — elsewhere the atomic write alone
keeps the file whole); the file is replaced with :func:`driftguard._fileio.write_atomic`.
Folders are created ``0o700``, files ``0o600``. A file that cannot be read as such a state
starts the session's counting afresh; when the folder cannot be written, nothing is counted
(:func:`count_once` returns ``None``: no counter is sent rather than one sent twice).
Files untouched for longer than the history's retention are removed when a new session's
state is first written.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from driftguard._fileio import read_json_object, write_json_atomic
from driftguard.model import LoopKind
from driftguard.telemetry.observation import Observation

__all__ = ["SEEN_LOOPS", "Counts", "count_once", "prune", "state_folder"]

SEEN_LOOPS = 32
"""Loop ids kept per session: far more than loops going on at once (one per request)."""
_VERSION = 1


@dataclass(frozen=True, slots=True)
class Counts:
    """A session's counters after one recorded score.

    Attributes:
        first: when the session's counting began, seconds since the epoch.
        previous: the previous recorded score's time (``first`` at the first score).
        compactions: compactions counted in all.
        new_compactions: of those, counted at this score.
        loops: loops counted in all, per kind (kinds never seen are absent).
        new_loops: of those, counted at this score, per kind.
    """

    first: float
    previous: float
    compactions: int
    new_compactions: int
    loops: Mapping[str, int]
    new_loops: Mapping[str, int]


def state_folder(state_dir: Path) -> Path:
    """``<state dir>/telemetry``."""
    return state_dir / "telemetry"


def count_once(
    folder: Path, observation: Observation, *, retention_days: int | None = None
) -> Counts | None:
    """Count the compactions and the loop of ``observation`` that were not counted yet for
    its session, and remember them in ``folder`` (module docstring).

    Args:
        folder: the telemetry state folder (:func:`state_folder`).
        observation: the recorded score.
        retention_days: when given, a new session's first write also removes state files
            untouched for longer (the config's ``history.retentionDays``).

    Returns:
        The session's counters, or ``None`` when the state cannot be written (nothing is
        counted then).
    """
    path = folder / f"{observation.key}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with _locked(folder / f"{observation.key}.lock"):
            stored = read_json_object(path)
            old = _read(stored) if stored is not None else None
            counts, record = _count(old, observation)
            write_json_atomic(path, record)
    except OSError:
        return None
    if old is None and retention_days is not None:
        prune(folder, retention_days, keep=observation.key)
    return counts


def prune(folder: Path, retention_days: int, *, now: float | None = None, keep: str = "") -> int:
    """Remove the state and lock files in ``folder`` untouched for more than
    ``retention_days`` days (but never those of ``keep``); returns how many. Never raises."""
    cutoff = (time.time() if now is None else now) - retention_days * 86_400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        stem, dot, suffix = entry.name.rpartition(".")
        if not dot or suffix not in ("json", "lock") or stem == keep:
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
    return removed


@dataclass(frozen=True, slots=True)
class _State:
    first: float
    last: float
    compactions: int
    loops: dict[str, int]
    seen: list[str]


def _count(old: _State | None, observation: Observation) -> tuple[Counts, dict[str, Any]]:
    """The counters after ``observation`` and the record to store."""
    now = observation.recorded_at
    if old is None:
        started = observation.started_at
        first = started if started is not None and started < now else now - 0.001
        old = _State(first=first, last=first, compactions=0, loops={}, seen=[])
    compactions = max(old.compactions, observation.compactions)
    loops = dict(old.loops)
    seen = list(old.seen)
    new_loops: dict[str, int] = {}
    kind: LoopKind | None = observation.loop_kind
    if kind is not None and observation.loop_id is not None and observation.loop_id not in seen:
        loops[kind] = loops.get(kind, 0) + 1
        new_loops[kind] = 1
        seen = [*seen, observation.loop_id][-SEEN_LOOPS:]
    counts = Counts(
        first=old.first,
        previous=min(old.last, now),
        compactions=compactions,
        new_compactions=compactions - old.compactions,
        loops=loops,
        new_loops=new_loops,
    )
    record = {
        "v": _VERSION,
        "first": old.first,
        "last": max(old.last, now),
        "compactions": compactions,
        "loops": loops,
        "seen": seen,
    }
    return counts, record


def _read(stored: Mapping[str, Any]) -> _State | None:
    """The state in a stored record, or ``None`` when it is not one this version wrote."""
    first, last = stored.get("first"), stored.get("last")
    compactions, loops, seen = stored.get("compactions"), stored.get("loops"), stored.get("seen")
    if stored.get("v") != _VERSION or not _is_time(first) or not _is_time(last):
        return None
    if not _is_count(compactions) or not isinstance(loops, dict) or not isinstance(seen, list):
        return None
    if not all(isinstance(k, str) and _is_count(v) for k, v in loops.items()):
        return None
    if not all(isinstance(item, str) for item in seen):
        return None
    return _State(float(first), float(last), compactions, dict(loops), list(seen))


def _is_time(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created ``0o600``) for the block; no lock where the
    system has no ``fcntl``."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        try:
            import fcntl
        except ImportError:  # Windows: the atomic write alone keeps the file whole
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
