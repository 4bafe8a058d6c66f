"""Where Claude Code keeps its sessions, and which one is a project's (docs/formats.md §A.1,
§A.2).

``<root>/projects/<name>/<session-id>.jsonl``. ``<root>`` is every entry of
``$CLAUDE_CONFIG_DIR`` (a comma-separated list is accepted, as ccusage does) or, when it
is unset, ``~/.claude`` and ``~/.config/claude`` (also ``$XDG_CONFIG_HOME/claude``: the
1.0.28–1.0.30 XDG episode). ``<name>`` is :func:`project_dir_name` of both project forms,
or ``$CLAUDE_CODE_PROJECT_DIR_NAME`` when it is set together with ``$CLAUDE_CONFIG_DIR``
(it then replaces the derived name, as in Claude Code ≥ 2.1.234).

Only ``*.jsonl`` directly in that folder are candidates: legacy ``agent-*.jsonl`` subagent
files (2.0.x) and the ``<session>/subagents/`` trees are not main sessions, and 0-byte
files (they exist, §A.1) hold nothing to score. The folder name is lossy (``/a/b-c`` and
``/a/b/c`` share one), so the first ``cwd`` found in a candidate's first 30 records must
be the project or a folder inside it; a file whose first records name no ``cwd`` is kept
(the folder is then the only evidence). Records read: any record's ``cwd``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from driftguard.adapters._scan import (
    Candidate,
    HeadMemo,
    IdQuery,
    PassedOver,
    ProjectPaths,
    env_value,
    head_records,
    is_plain_name,
    newest_first,
    passed_over_note,
    scan_files,
    text_value,
    unique_paths,
)

__all__ = [
    "CONFIG_DIR_ENV",
    "PROJECT_DIR_NAME_ENV",
    "by_id",
    "newest",
    "passed_over",
    "project_dir_name",
    "project_folders",
    "roots",
    "search_places",
    "session_folders",
    "session_in_project",
    "sessions",
]

CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
"""Moves Claude Code's configuration folder (a comma-separated list gives several)."""
PROJECT_DIR_NAME_ENV = "CLAUDE_CODE_PROJECT_DIR_NAME"
"""With :data:`CONFIG_DIR_ENV`, the project folder's name instead of the derived one."""

_NAME_LIMIT = 200
"""Longest derived project folder name kept as is (docs/formats.md §A.2)."""
_BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_HEAD_RECORDS = 30
"""Records read from a candidate's start to find its ``cwd``."""


# --------------------------------------------------------------------------------------
# Pure naming rules


def _utf16_units(text: str) -> list[int]:
    """The UTF-16 code units of ``text`` (what JavaScript's ``charCodeAt`` walks)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def _is_ascii_alnum(unit: int) -> bool:
    return 0x30 <= unit <= 0x39 or 0x41 <= unit <= 0x5A or 0x61 <= unit <= 0x7A


def _js_int32_hash(units: Iterable[int]) -> int:
    """``h = (h << 5) - h + u | 0`` over UTF-16 units, as a signed 32-bit integer.

    JavaScript's ``<<`` and ``| 0`` both reduce modulo 2³², so the whole step is
    ``31·h + u (mod 2³²)`` read back as a signed value.
    """
    h = 0
    for unit in units:
        h = (h * 31 + unit) & 0xFFFFFFFF
    return h - 0x1_0000_0000 if h & 0x8000_0000 else h


def _base36(number: int) -> str:
    """``Number.prototype.toString(36)`` for a non-negative integer."""
    if number == 0:
        return "0"
    digits: list[str] = []
    while number:
        number, rest = divmod(number, 36)
        digits.append(_BASE36_DIGITS[rest])
    return "".join(reversed(digits))


def project_dir_name(cwd: str) -> str:
    """The folder under ``<root>/projects/`` where Claude Code keeps ``cwd``'s sessions.

    The rule is docs/formats.md §A.2, as in Claude Code's bundle: every UTF-16 code unit of
    ``cwd`` that is not an ASCII letter or digit becomes ``-`` (runs are not collapsed, so a
    character outside the BMP gives ``--``); a result longer than 200 units keeps its first
    200 and gets ``-`` plus the base-36 absolute value of the JavaScript int32 string hash
    (``h = (h << 5) - h + unit | 0``) of the *original* ``cwd``.

    Examples: ``/Users/foo/my_repo`` → ``-Users-foo-my-repo``; ``C:\\Users\\x`` →
    ``C--Users-x``. The mapping is lossy; never decode a folder name.
    """
    units = _utf16_units(cwd)
    key = "".join(chr(u) if _is_ascii_alnum(u) else "-" for u in units)
    if len(key) <= _NAME_LIMIT:
        return key
    return f"{key[:_NAME_LIMIT]}-{_base36(abs(_js_int32_hash(units)))}"


# --------------------------------------------------------------------------------------
# Roots and folders (environment and home read at call time)


def roots() -> list[Path]:
    """Claude Code's configuration folders, each holding a ``projects/`` folder.

    ``$CLAUDE_CONFIG_DIR`` when set (a comma-separated list gives several, in order; only
    those are used, as Claude Code then writes nowhere else); otherwise ``~/.claude``, then
    ``$XDG_CONFIG_HOME/claude`` and ``~/.config/claude`` (docs/formats.md §A.1, §0).
    """
    configured = [part.strip() for part in env_value(CONFIG_DIR_ENV).split(",") if part.strip()]
    if configured:
        return unique_paths(Path(part).expanduser() for part in configured)
    home = Path.home()
    candidates = [home / ".claude"]
    xdg = env_value("XDG_CONFIG_HOME")
    if xdg and os.path.isabs(xdg):
        candidates.append(Path(xdg) / "claude")
    candidates.append(home / ".config" / "claude")
    return unique_paths(candidates)


def session_folders() -> list[Path]:
    """``<root>/projects`` for every root."""
    return [root / "projects" for root in roots()]


def project_folders(project: ProjectPaths) -> list[Path]:
    """The project's folders under every root's ``projects/`` (module docstring)."""
    override = env_value(PROJECT_DIR_NAME_ENV)
    if override and env_value(CONFIG_DIR_ENV) and is_plain_name(override):
        names = [override]
    else:
        names = list(dict.fromkeys(project_dir_name(form) for form in project.forms))
    return [root / "projects" / name for root in roots() for name in names]


def _is_session_name(name: str) -> bool:
    return name.endswith(".jsonl") and not name.startswith("agent-")


def _read_cwd(path: Path) -> str | None:
    for record in head_records(path, _HEAD_RECORDS):
        cwd = text_value(record.get("cwd"))
        if cwd is not None:
            return cwd
    return None


_HEADS: HeadMemo[str | None] = HeadMemo(_read_cwd)


def _candidates(folder: Path) -> list[Candidate]:
    """The non-empty ``*.jsonl`` (not ``agent-*``) directly in ``folder``, newest first."""
    return newest_first(
        Candidate.of(path, st)
        for path, st in scan_files(folder, _is_session_name)
        if st.st_size > 0
    )


def sessions(project: ProjectPaths) -> Iterator[Candidate]:
    """The non-empty ``*.jsonl`` (not ``agent-*``) in the project's folders whose first
    ``cwd`` is the project or inside it (or that names none), newest first."""
    candidates = [found for folder in project_folders(project) for found in _candidates(folder)]
    for found in newest_first(candidates):
        cwd = _HEADS.get(found.path, found.stat)
        if cwd is None or project.contains(cwd):
            yield found


def newest(project: ProjectPaths) -> Candidate | None:
    """The first of :func:`sessions`."""
    return next(sessions(project), None)


def passed_over(project: ProjectPaths) -> list[PassedOver]:
    """For each of the project's folders holding candidates that :func:`sessions` passes
    over because their first ``cwd`` is another folder's, how many and whose. The search
    that found nothing read and memoised the heads, so this normally reads no file again."""
    result: list[PassedOver] = []
    for folder in project_folders(project):
        cwds: list[str] = []
        for found in _candidates(folder):
            cwd = _HEADS.get(found.path, found.stat)
            if cwd is not None and not project.contains(cwd):
                cwds.append(cwd)
        if cwds:
            result.append(PassedOver(folder, len(cwds), tuple(dict.fromkeys(cwds))))
    return result


def search_places(
    project: ProjectPaths, label: str, passed: Iterable[PassedOver] = ()
) -> list[str]:
    """One line per folder :func:`newest` looks in, each followed, indented, by what it
    ``passed`` over there (:func:`passed_over`), so that "no session found" never hides
    the files it skipped."""
    notes = {found.folder: passed_over_note(found) for found in passed}
    lines: list[str] = []
    for folder in project_folders(project):
        lines.append(f"{label}: {folder} (*.jsonl, not agent-*.jsonl)")
        if folder in notes:
            lines.append(f"  {notes[folder]}")
    return lines


def by_id(query: IdQuery) -> Iterator[Path]:
    """Session files of any project named ``<id>.jsonl`` (or exactly the name given)."""
    for root in roots():
        for path in (root / "projects").glob("*/*.jsonl"):
            name = path.name.lower()
            if name == query.exact_name or path.stem.lower() == query.needle:
                yield path


def session_in_project(project: ProjectPaths, session_id: str) -> Path | None:
    """``<project folder>/<session_id>.jsonl`` when it exists in one of the project's
    folders (``session_id`` a plain name)."""
    if not is_plain_name(session_id):
        return None
    for folder in project_folders(project):
        path = folder / f"{session_id}.jsonl"
        if path.is_file():
            return path
    return None
