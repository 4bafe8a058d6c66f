"""Where Codex CLI keeps its rollouts, and which one is a project's (docs/formats.md §C.1,
§C.3, §C.6).

``<root>/sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``rollout-*.jsonl.zst``, plus
``<root>/archived_sessions/`` (an archived copy whose file name also exists under
``sessions/`` is dropped: the active copy wins); ``<root>`` = ``$CODEX_HOME`` or
``~/.codex``. Codex has no per-project folder: a rollout belongs to the project when the
``cwd`` of its *first* ``session_meta`` record (a fork or subagent file carries its
parent's ``session_meta`` second) equals the project; when that record has no ``cwd``, the
first ``turn_context`` within the first 10 records decides (one after a second
``session_meta`` belongs to the replayed parent and is not used). First-generation rollouts
(a bare meta without ``cwd``) therefore never match. Subagent rollouts
(``session_meta.source.subagent``) are not main sessions.

*The bound on the work.* A resumed session is appended to its old file, and appending
changes neither the date folder nor the directory's mtime, so no date folder can be ruled
out without looking at its files' mtimes: folder dates only order the scan. Every rollout
is therefore ``stat``-ed (cheap, no reads), and the first lines are read in
newest-mtime-first order until the first rollout of the project: the reads are bounded by
the number of rollouts written since the project's newest one (other projects' sessions),
never by the size of the history. A corrupt or truncated zstd rollout (whose head may read
fine) is passed over: the rollout about to be returned is decompressed to its end once
(remembered like a head).

Records read: ``session_meta`` and ``turn_context``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from driftguard.adapters._common import ZSTD_MAGIC, open_session_file
from driftguard.adapters._scan import (
    Candidate,
    HeadMemo,
    IdQuery,
    ProjectPaths,
    env_value,
    head_records,
    newest_first,
    scan_dirs,
    scan_files,
    text_value,
)
from driftguard.errors import SessionFormatError

__all__ = ["HOME_ENV", "by_id", "newest", "root", "search_places", "session_folders", "sessions"]

HOME_ENV = "CODEX_HOME"
"""Moves Codex CLI's folder (default ``~/.codex``)."""

_HEAD_RECORDS = 10
"""Records read from a rollout's start to find its ``session_meta`` / ``turn_context``."""
_ZSTD_CHECK_CHUNK = 1 << 20
"""Decompressed bytes read at a time when checking that a zstd rollout is whole."""


def root() -> Path:
    """Codex CLI's folder: ``$CODEX_HOME`` when set, else ``~/.codex`` (docs/formats.md §C.1)."""
    override = env_value(HOME_ENV)
    return Path(override).expanduser() if override else Path.home() / ".codex"


def session_folders() -> list[Path]:
    """``<root>/sessions`` and ``<root>/archived_sessions``."""
    codex = root()
    return [codex / "sessions", codex / "archived_sessions"]


@dataclass(frozen=True, slots=True)
class _Head:
    cwd: str | None
    subagent: bool


def _read_head(path: Path) -> _Head:
    """The rollout's own ``session_meta`` cwd (else its first ``turn_context`` cwd) and
    whether it is a subagent's; a second ``session_meta`` (a fork's copy of its parent's)
    ends the search, since the parent's replayed history follows it."""
    meta: dict[str, object] | None = None
    turn_cwd: str | None = None
    for record in head_records(path, _HEAD_RECORDS):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            if meta is not None:
                break
            meta = payload
            if text_value(payload.get("cwd")) is not None:
                break
        elif kind == "turn_context" and meta is not None:
            turn_cwd = text_value(payload.get("cwd"))
            if turn_cwd is not None:
                break
    if meta is None:
        return _Head(None, False)
    source = meta.get("source")
    subagent = isinstance(source, dict) and "subagent" in source
    return _Head(text_value(meta.get("cwd")) or turn_cwd, subagent)


def _read_whole(path: Path) -> bool:
    """Whether ``path`` reads to its end: ``True`` for a plain file; for a zstd file,
    whether every frame decodes whole (neither corrupt nor truncated, which only reading
    to the end can tell)."""
    try:
        with path.open("rb") as fh:
            if fh.read(len(ZSTD_MAGIC)) != ZSTD_MAGIC:
                return True
        with open_session_file(path) as stream:
            while stream.read(_ZSTD_CHECK_CHUNK):
                pass
    except (OSError, SessionFormatError):
        return False
    return True


_HEADS: HeadMemo[_Head] = HeadMemo(_read_head)
_WHOLE: HeadMemo[bool] = HeadMemo(_read_whole)


def _is_rollout_name(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl.zst"))


def _rollout_base(name: str) -> str:
    return name.removesuffix(".zst")


def _numbered_dirs(folder: Path) -> list[Path]:
    """Sub-folders with all-digit names (``YYYY``, ``MM``, ``DD``), newest first."""
    dirs = [d for d in scan_dirs(folder) if d.name.isdigit()]
    return sorted(dirs, key=lambda d: int(d.name), reverse=True)


def _candidates(codex: Path) -> list[Candidate]:
    """Every rollout, stat-ed, in scan order: date folders newest first, then archived."""
    found: list[Candidate] = []
    active: set[str] = set()
    for year in _numbered_dirs(codex / "sessions"):
        for month in _numbered_dirs(year):
            for day in _numbered_dirs(month):
                for path, st in sorted(scan_files(day, _is_rollout_name), reverse=True):
                    found.append(Candidate.of(path, st, order=len(found)))
                    active.add(_rollout_base(path.name))
    archived = codex / "archived_sessions"
    for dirpath, dirnames, _files in os.walk(archived):
        dirnames.sort(reverse=True)
        for path, st in sorted(scan_files(Path(dirpath), _is_rollout_name), reverse=True):
            if _rollout_base(path.name) not in active:
                found.append(Candidate.of(path, st, order=len(found)))
    return found


def sessions(project: ProjectPaths) -> Iterator[Candidate]:
    """The whole rollouts whose own ``cwd`` is the project (module docstring), newest
    first."""
    verdicts: dict[str, bool] = {}  # most rollouts repeat a few cwds: compare each once
    for found in newest_first(_candidates(root())):
        head = _HEADS.get(found.path, found.stat)
        if head.cwd is None or head.subagent:
            continue
        if head.cwd not in verdicts:
            verdicts[head.cwd] = project.is_path(head.cwd)
        if verdicts[head.cwd] and _WHOLE.get(found.path, found.stat):
            yield found  # (a corrupt or truncated .zst would only fail when scored)


def newest(project: ProjectPaths) -> Candidate | None:
    """The first of :func:`sessions`."""
    return next(sessions(project), None)


def search_places(project: ProjectPaths, label: str) -> list[str]:
    """The one line saying where :func:`newest` looks."""
    codex = root()
    return [
        f"{label}: {codex / 'sessions'}/YYYY/MM/DD and {codex / 'archived_sessions'} "
        f"(rollout-*.jsonl[.zst] whose session_meta cwd is {project.given})"
    ]


def by_id(query: IdQuery) -> Iterator[Path]:
    """Rollouts of any project whose name ends with the id (a rollout is named
    ``rollout-<time>-<id>``), or exactly the name given."""
    codex = root()
    for pattern in ("sessions/*/*/*/rollout-*.jsonl*", "archived_sessions/rollout-*.jsonl*"):
        for path in codex.glob(pattern):
            name = path.name.lower()
            if name == query.exact_name or name.split(".")[0].endswith(query.needle):
                yield path
