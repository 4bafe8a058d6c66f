"""Where Gemini CLI keeps its sessions, and which one is a project's (docs/formats.md §B.1,
§B.2).

``<root>/tmp/<projectId>/chats/session-*.jsonl`` (and legacy ``.json``), ``<root>`` =
``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``. The project folders are: the slug that
``<root>/projects.json`` maps the project to; any ``tmp/<dir>`` whose ``.project_root``
marker names the project; and the pre-v0.29 ``tmp/<sha256(project)>``. A folder whose
``.project_root`` names another path is dropped.

Subagent chats (``chats/<parent>/<id>.jsonl``, or ``kind:"subagent"`` in the metadata) are
not main sessions, and ``*.jsonl.tmp-*`` / ``*.unreadable-*`` artifacts are not sessions.
Files are grouped by session id (the metadata line's ``sessionId``, the legacy object's,
or else the 8-character suffix of the file name), because each ``--resume`` first writes a
small stub with the same id and a resumed legacy ``.json`` gets a ``.jsonl`` twin: the
group's file is its largest ``.jsonl`` (its largest ``.json`` when it has none), and the
group's time is its newest file's.

Records read: the metadata line (``sessionId``, ``kind``) or the first 8 KiB of a legacy
``.json``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from driftguard.adapters._common import decode_json
from driftguard.adapters._scan import (
    Candidate,
    HeadMemo,
    IdQuery,
    ProjectPaths,
    env_value,
    head_records,
    is_plain_name,
    newest_first,
    read_bounded,
    read_text,
    scan_dirs,
    scan_files,
    unique_paths,
)

__all__ = [
    "HOME_ENV",
    "by_id",
    "newest",
    "project_folders",
    "project_hash",
    "root",
    "search_places",
    "session_folders",
    "sessions",
]

HOME_ENV = "GEMINI_CLI_HOME"
"""Moves Gemini CLI's home: its folder is ``$GEMINI_CLI_HOME/.gemini``."""

_JSON_HEAD_BYTES = 8192
"""Bytes of a legacy ``.json`` read for its ``sessionId`` / ``kind``."""
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]+)"')
_SUBAGENT_KIND = re.compile(rb'"kind"\s*:\s*"subagent"')


def project_hash(project_root: str) -> str:
    """``sha256(project_root)`` as 64 lower-case hex digits: Gemini CLI's project id up to
    v0.28, still the ``projectHash`` inside its session files (docs/formats.md §B.1)."""
    return hashlib.sha256(project_root.encode("utf-8")).hexdigest()


def root() -> Path:
    """Gemini CLI's folder: ``$GEMINI_CLI_HOME/.gemini`` when set, else ``~/.gemini``
    (docs/formats.md §B.1)."""
    override = env_value(HOME_ENV)
    base = Path(override).expanduser() if override else Path.home()
    return base / ".gemini"


def session_folders() -> list[Path]:
    """``<root>/tmp``."""
    return [root() / "tmp"]


def _registry_slugs(gemini: Path, project: ProjectPaths) -> list[str]:
    try:
        with (gemini / "projects.json").open("rb") as fh:
            registry = decode_json(fh.read())
    except (OSError, ValueError):  # ValueError: not JSON, or nested too deeply
        return []
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(projects, dict):
        return []
    return [
        slug
        for path, slug in projects.items()
        if isinstance(slug, str) and is_plain_name(slug) and project.is_path(path)
    ]


def project_folders(project: ProjectPaths) -> list[Path]:
    """``tmp/<projectId>`` folders of the project: registry slug, ``.project_root``
    markers, sha256 of each project form; none whose marker names another path."""
    gemini = root()
    tmp = gemini / "tmp"
    folders = [tmp / slug for slug in _registry_slugs(gemini, project)]
    for folder in sorted(scan_dirs(tmp)):
        marker = read_text(folder / ".project_root")
        if marker and project.is_path(marker):
            folders.append(folder)
    folders.extend(tmp / project_hash(form) for form in project.forms)
    kept: list[Path] = []
    for folder in unique_paths(folders):
        marker = read_text(folder / ".project_root")
        if marker and not project.is_path(marker):
            continue
        kept.append(folder)
    return kept


@dataclass(frozen=True, slots=True)
class _Head:
    session_id: str | None
    subagent: bool


def _read_head(path: Path) -> _Head:
    if path.name.endswith(".json"):
        head = read_bounded(path, _JSON_HEAD_BYTES)
        if head is None:
            return _Head(None, False)
        match = _SESSION_ID.search(head)
        session_id = match.group(1).decode("utf-8", "replace") if match else None
        return _Head(session_id, _SUBAGENT_KIND.search(head) is not None)
    for record in head_records(path, 1):
        session_id = record.get("sessionId")
        return _Head(
            session_id if isinstance(session_id, str) and session_id else None,
            record.get("kind") == "subagent",
        )
    return _Head(None, False)


_HEADS: HeadMemo[_Head] = HeadMemo(_read_head)


def _is_session_name(name: str) -> bool:
    return name.startswith("session-") and name.endswith((".jsonl", ".json"))


def _name_suffix(name: str) -> str:
    """The ``<first 8 of sessionId>`` part of ``session-<time>-<id8>.json[l]``."""
    stem = name.removesuffix(".jsonl").removesuffix(".json")
    return stem.rsplit("-", 1)[-1]


def newest(project: ProjectPaths) -> Candidate | None:
    """The first of :func:`sessions`."""
    return next(sessions(project), None)


def sessions(project: ProjectPaths) -> Iterator[Candidate]:
    """The project's sessions, their files grouped by session id (module docstring): each
    group's file, timed by the group's newest file, newest first."""
    files: list[tuple[Candidate, str | None]] = []
    for folder in project_folders(project):
        for path, st in scan_files(folder / "chats", _is_session_name):
            if st.st_size == 0:
                continue
            head = _HEADS.get(path, st)
            if not head.subagent:
                files.append((Candidate.of(path, st), head.session_id))
    known_ids = sorted({sid for _, sid in files if sid is not None})
    groups: dict[str, list[Candidate]] = {}
    for found, session_id in files:
        key = session_id
        if key is None:
            suffix = _name_suffix(found.path.name)
            key = next((sid for sid in known_ids if sid.startswith(suffix)), f"?{suffix}")
        groups.setdefault(key, []).append(found)
    found_sessions = [
        Candidate(pick.path, pick.stat, max(m.time_ns for m in members))
        for members in groups.values()
        for pick in [_group_file(members)]
    ]
    yield from newest_first(found_sessions)


def _group_file(members: list[Candidate]) -> Candidate:
    """The largest ``.jsonl`` of one session's files, else its largest ``.json``."""
    jsonl = [m for m in members if m.path.name.endswith(".jsonl")]
    pool = jsonl or members
    return max(pool, key=lambda m: (m.stat.st_size, m.time_ns, str(m.path)))


def search_places(project: ProjectPaths, label: str) -> list[str]:
    """One line per ``chats`` folder :func:`newest` looks in."""
    registry = root() / "projects.json"
    return [
        f"{label}: {folder / 'chats'} (session-*.jsonl / .json; "
        f"project ids from {registry}, .project_root and sha256 of the path)"
        for folder in project_folders(project)
    ]


def by_id(query: IdQuery) -> Iterator[Path]:
    """Session files of any project whose name ends with the id's first 8 characters (the
    suffix Gemini names its files with), or exactly the name given."""
    for path in (root() / "tmp").glob("*/chats/session-*.json*"):
        name = path.name.lower()
        if name == query.exact_name or (
            len(query.needle) >= 8 and name.split(".")[0].endswith(query.needle[:8])
        ):
            yield path
