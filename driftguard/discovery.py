"""Session discovery: find the current session file of each CLI for a project directory.

"Current" means the newest by modification time (``st_mtime_ns``) among the files that
belong to the project (design.md §6, "Which session"; mcp-and-hosts.md §4.1). Only the
project's own folders are looked in, and a file whose records name another project's
working directory is never returned. Nothing here writes anything; files are only
listed, stat-ed and read at their first few lines.

Project paths are compared in two forms: *as given* (made absolute with
``os.path.abspath``, symlinks kept) and *resolved* (``Path.resolve()``). A CLI writes the
path it saw, which is the physical one on most systems but may be a symlinked one (a
symlinked home directory), so both forms are tried everywhere a path is turned into a
folder name or compared.

Where the files live and how a project finds its own:

- **Claude Code** (formats.md §A.1, §A.2): ``<root>/projects/<name>/<session-id>.jsonl``.
  ``<root>`` is every entry of ``$CLAUDE_CONFIG_DIR`` (a comma-separated list is
  accepted, as ccusage does) or, when it is unset, ``~/.claude`` and ``~/.config/claude``
  (also ``$XDG_CONFIG_HOME/claude``: the 1.0.28–1.0.30 XDG episode). ``<name>`` is
  :func:`claude_project_dir_name` of both project forms, or ``$CLAUDE_CODE_PROJECT_DIR_NAME``
  when it is set together with ``$CLAUDE_CONFIG_DIR`` (it then replaces the derived name,
  as in Claude Code ≥ 2.1.234). Only ``*.jsonl`` directly in that folder are candidates:
  legacy ``agent-*.jsonl`` subagent files (2.0.x) and the ``<session>/subagents/`` trees
  are not main sessions, and 0-byte files (they exist, §A.1) hold nothing to score. The
  folder name is lossy (``/a/b-c`` and ``/a/b/c`` share one), so the first ``cwd`` found
  in a candidate's first 30 records must be the project or a folder inside it; a file
  whose first records name no ``cwd`` is kept (the folder is then the only evidence).
- **Gemini CLI** (formats.md §B.1, §B.2): ``<root>/tmp/<projectId>/chats/session-*.jsonl``
  (and legacy ``.json``), ``<root>`` = ``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``. The
  project folders are: the slug that ``<root>/projects.json`` maps the project to; any
  ``tmp/<dir>`` whose ``.project_root`` marker names the project; and the pre-v0.29
  ``tmp/<sha256(project)>``. A folder whose ``.project_root`` names another path is
  dropped. Subagent chats (``chats/<parent>/<id>.jsonl``, or ``kind:"subagent"`` in the
  metadata) are not main sessions, and ``*.jsonl.tmp-*`` / ``*.unreadable-*`` artifacts
  are not sessions. Files are grouped by session id (the metadata line's ``sessionId``,
  the legacy object's, or else the 8-character suffix of the file name), because each
  ``--resume`` first writes a small stub with the same id and a resumed legacy ``.json``
  gets a ``.jsonl`` twin: the group's file is its largest ``.jsonl`` (its largest ``.json``
  when it has none), and the group's time is its newest file's.
- **Codex CLI** (formats.md §C.1, §C.3, §C.6): ``<root>/sessions/YYYY/MM/DD/rollout-*.jsonl``
  and ``rollout-*.jsonl.zst``, plus ``<root>/archived_sessions/`` (an archived copy whose
  file name also exists under ``sessions/`` is dropped: the active copy wins); ``<root>`` =
  ``$CODEX_HOME`` or ``~/.codex``. Codex has no per-project folder: a rollout belongs to
  the project when the ``cwd`` of its *first* ``session_meta`` record (a fork or subagent
  file carries its parent's ``session_meta`` second) equals the project; when that record
  has no ``cwd``, the first ``turn_context`` within the first 10 records decides (one after
  a second ``session_meta`` belongs to the replayed parent and is not used). First-
  generation rollouts (a bare meta without ``cwd``) therefore never match. Subagent
  rollouts (``session_meta.source.subagent``) are not main sessions.

  *The bound on the work.* A resumed session is appended to its old file, and appending
  changes neither the date folder nor the directory's mtime, so no date folder can be
  ruled out without looking at its files' mtimes: folder dates only order the scan.
  Every rollout is therefore ``stat``-ed (cheap, no reads), and the first lines are read
  in newest-mtime-first order until the first rollout of the project: the reads are
  bounded by the number of rollouts written since the project's newest one (other
  projects' sessions), never by the size of the history. What a file's first lines say is
  remembered in-process, keyed by (path, device, inode, size, mtime), so a repeated
  search re-reads only files that changed.

Records read: Claude any record's ``cwd``; Gemini the metadata line
(``sessionId``, ``kind``) or the head of a legacy ``.json``; Codex ``session_meta`` and
``turn_context``. Unreadable, unparsable or vanished files are skipped, never fatal; so is
a corrupt or truncated zstd rollout (``.jsonl.zst``, whose head may read fine): the
rollout about to be returned is decompressed to its end once (remembered like a head).
No tokens are read here.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from driftguard.adapters._common import (
    ZSTD_MAGIC,
    decode_json,
    iter_lines,
    load_record,
    open_session_file,
)
from driftguard.errors import SessionFormatError, SessionNotFoundError, UnknownNameError
from driftguard.model import CLI_NAMES, CliName

__all__ = [
    "SESSION_FOLDER_SOURCES",
    "claude_project_dir_name",
    "claude_roots",
    "codex_root",
    "find_session",
    "find_sessions",
    "gemini_project_hash",
    "gemini_root",
    "in_project_session_folder",
    "newest_session",
    "project_contains",
    "session_folders",
    "session_search_places",
]

_CLAUDE_NAME_LIMIT = 200
"""Longest derived Claude project folder name kept as is (formats.md §A.2)."""
_BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_CLAUDE_HEAD_RECORDS = 30
"""Records read from a Claude candidate's start to find its ``cwd``."""
_CODEX_HEAD_RECORDS = 10
"""Records read from a rollout's start to find its ``session_meta`` / ``turn_context``."""
_GEMINI_JSON_HEAD_BYTES = 8192
"""Bytes of a legacy Gemini ``.json`` read for its ``sessionId`` / ``kind``."""
_MEMO_LIMIT = 8192
"""Most head facts remembered per CLI before the oldest are forgotten."""
_ZSTD_CHECK_CHUNK = 1 << 20
"""Decompressed bytes read at a time when checking that a zstd rollout is whole."""

_CLI_LABELS: dict[CliName, str] = {
    "claude_code": "Claude Code",
    "gemini_cli": "Gemini CLI",
    "codex_cli": "Codex CLI",
}

_GEMINI_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]+)"')
_GEMINI_SUBAGENT_KIND = re.compile(rb'"kind"\s*:\s*"subagent"')


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


def claude_project_dir_name(cwd: str) -> str:
    """The folder under ``<claude root>/projects/`` where Claude Code keeps ``cwd``'s sessions.

    The rule is formats.md §A.2, as in Claude Code's bundle: every UTF-16 code unit of
    ``cwd`` that is not an ASCII letter or digit becomes ``-`` (runs are not collapsed, so a
    character outside the BMP gives ``--``); a result longer than 200 units keeps its first
    200 and gets ``-`` plus the base-36 absolute value of the JavaScript int32 string hash
    (``h = (h << 5) - h + unit | 0``) of the *original* ``cwd``.

    Examples: ``/Users/foo/my_repo`` → ``-Users-foo-my-repo``; ``C:\\Users\\x`` →
    ``C--Users-x``. The mapping is lossy; never decode a folder name.
    """
    units = _utf16_units(cwd)
    key = "".join(chr(u) if _is_ascii_alnum(u) else "-" for u in units)
    if len(key) <= _CLAUDE_NAME_LIMIT:
        return key
    return f"{key[:_CLAUDE_NAME_LIMIT]}-{_base36(abs(_js_int32_hash(units)))}"


def gemini_project_hash(project_root: str) -> str:
    """``sha256(project_root)`` as 64 lower-case hex digits: Gemini CLI's project id up to
    v0.28, still the ``projectHash`` inside its session files (formats.md §B.1)."""
    return hashlib.sha256(project_root.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------
# Roots (environment and home read at call time)


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def _unique_paths(paths: Iterable[Path]) -> list[Path]:
    seen: set[str] = set()
    result: list[Path] = []
    for path in paths:
        key = os.path.normcase(os.path.normpath(path))
        if key not in seen:
            seen.add(key)
            result.append(path)
    return result


def claude_roots() -> list[Path]:
    """Claude Code's configuration folders, each holding a ``projects/`` folder.

    ``$CLAUDE_CONFIG_DIR`` when set (a comma-separated list gives several, in order; only
    those are used, as Claude Code then writes nowhere else); otherwise ``~/.claude``, then
    ``$XDG_CONFIG_HOME/claude`` and ``~/.config/claude`` (formats.md §A.1, §0).
    """
    configured = [part.strip() for part in _env("CLAUDE_CONFIG_DIR").split(",") if part.strip()]
    if configured:
        return _unique_paths(Path(part).expanduser() for part in configured)
    home = Path.home()
    candidates = [home / ".claude"]
    xdg = _env("XDG_CONFIG_HOME")
    if xdg and os.path.isabs(xdg):
        candidates.append(Path(xdg) / "claude")
    candidates.append(home / ".config" / "claude")
    return _unique_paths(candidates)


def gemini_root() -> Path:
    """Gemini CLI's folder: ``$GEMINI_CLI_HOME/.gemini`` when set, else ``~/.gemini``
    (formats.md §B.1)."""
    override = _env("GEMINI_CLI_HOME")
    base = Path(override).expanduser() if override else Path.home()
    return base / ".gemini"


def codex_root() -> Path:
    """Codex CLI's folder: ``$CODEX_HOME`` when set, else ``~/.codex`` (formats.md §C.1)."""
    override = _env("CODEX_HOME")
    return Path(override).expanduser() if override else Path.home() / ".codex"


def _claude_session_folders() -> list[Path]:
    return [root / "projects" for root in claude_roots()]


def _gemini_session_folders() -> list[Path]:
    return [gemini_root() / "tmp"]


def _codex_session_folders() -> list[Path]:
    root = codex_root()
    return [root / "sessions", root / "archived_sessions"]


SESSION_FOLDER_SOURCES: dict[str, Callable[[], list[Path]]] = {
    "claude_code": _claude_session_folders,
    "gemini_cli": _gemini_session_folders,
    "codex_cli": _codex_session_folders,
}
"""Each session source's folders that hold its session files and nothing else of the
user's, by source name, read from the environment at call time: Claude Code
``<root>/projects`` for every root of :func:`claude_roots`; Gemini CLI
``<gemini root>/tmp``; Codex CLI ``<codex root>/sessions`` and ``archived_sessions``
(formats.md §A.1, §B.1, §C.1, with each CLI's home override). A later source (Cursor, say)
adds its own entry here, and every caller of :func:`session_folders` then allows it."""


def session_folders() -> list[Path]:
    """The folders of every session source (:data:`SESSION_FOLDER_SOURCES`), in order,
    without duplicates. Over MCP a ``session`` argument may name files under these only
    (or under the config's ``sessionFolders``; issue #9 item 2). Creates nothing."""
    return _unique_paths(
        folder for source in SESSION_FOLDER_SOURCES.values() for folder in source()
    )


# --------------------------------------------------------------------------------------
# Project path comparison


@dataclass(frozen=True, slots=True)
class _Project:
    """A project directory in the forms a CLI may have written it."""

    given: str
    resolved: str

    @classmethod
    def of(cls, project: Path) -> _Project:
        given = os.path.abspath(project)
        try:
            resolved = str(Path(given).resolve())
        except (OSError, RuntimeError):
            resolved = given
        return cls(given=given, resolved=resolved)

    @property
    def forms(self) -> list[str]:
        return [self.given] if self.given == self.resolved else [self.given, self.resolved]

    def _keys(self) -> set[str]:
        return {_path_key(form) for form in self.forms}

    def is_path(self, other: str) -> bool:
        """``other`` names this project (either form, or resolving to it)."""
        if not other:
            return False
        if _path_key(other) in self._keys():
            return True
        return _resolved_key(other) == _path_key(self.resolved)

    def contains(self, other: str) -> bool:
        """``other`` is this project or a folder inside it."""
        if self.is_path(other):
            return True
        candidates = {_path_key(other)}
        resolved = _resolved_key(other)
        if resolved is not None:
            candidates.add(resolved)
        return any(
            cand.startswith(root.rstrip(os.sep) + os.sep)
            for cand in candidates
            for root in self._keys()
        )


def _path_key(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def _resolved_key(path: str) -> str | None:
    if not os.path.isabs(path):
        return None
    try:
        return _path_key(str(Path(path).resolve()))
    except (OSError, RuntimeError):
        return None


def _is_plain_name(name: str) -> bool:
    """A single folder name: no separators, not empty, not ``.`` or ``..``."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name


# --------------------------------------------------------------------------------------
# Reading the first lines of files (memoised by file identity)

_T = TypeVar("_T")
_StatKey = tuple[str, int, int, int, int]


class _HeadMemo(Generic[_T]):
    """What a file's first lines say, remembered while the file is unchanged.

    Keyed by (path, device, inode, size, mtime): any append or rewrite misses. Bounded to
    ``_MEMO_LIMIT`` entries (the oldest are forgotten first). Reads only; in-process.
    """

    def __init__(self, read: Callable[[Path], _T]) -> None:
        self._read = read
        self._known: dict[_StatKey, _T] = {}

    def get(self, path: Path, st: os.stat_result) -> _T:
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if key in self._known:
            return self._known[key]
        value = self._read(path)
        if len(self._known) >= _MEMO_LIMIT:
            del self._known[next(iter(self._known))]
        self._known[key] = value
        return value


def _zstd_error() -> type[Exception]:
    import zstandard

    error: type[Exception] = zstandard.ZstdError
    return error


def _head_records(path: Path, limit: int) -> list[dict[str, object]]:
    """Up to ``limit`` JSON-object records from the start of ``path`` (plain or zstd).

    Blank, malformed and non-object lines are passed over (not counted toward ``limit``);
    an unreadable file gives what was read before the failure.
    """
    records: list[dict[str, object]] = []
    seen = 0
    try:
        with open_session_file(path) as stream:
            for line, _terminated in iter_lines(stream):
                if not line.strip():
                    continue
                seen += 1
                record = load_record(line)
                if record is not None:
                    records.append(record)
                if seen >= limit:
                    break
    except (OSError, ValueError, EOFError, SessionFormatError, _zstd_error()):
        pass
    return records


def _read_claude_cwd(path: Path) -> str | None:
    for record in _head_records(path, _CLAUDE_HEAD_RECORDS):
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


@dataclass(frozen=True, slots=True)
class _GeminiHead:
    session_id: str | None
    subagent: bool


def _read_gemini_head(path: Path) -> _GeminiHead:
    if path.name.endswith(".json"):
        try:
            with path.open("rb") as fh:
                head = fh.read(_GEMINI_JSON_HEAD_BYTES)
        except OSError:
            return _GeminiHead(None, False)
        match = _GEMINI_SESSION_ID.search(head)
        session_id = match.group(1).decode("utf-8", "replace") if match else None
        return _GeminiHead(session_id, _GEMINI_SUBAGENT_KIND.search(head) is not None)
    for record in _head_records(path, 1):
        session_id = record.get("sessionId")
        return _GeminiHead(
            session_id if isinstance(session_id, str) and session_id else None,
            record.get("kind") == "subagent",
        )
    return _GeminiHead(None, False)


@dataclass(frozen=True, slots=True)
class _CodexHead:
    cwd: str | None
    subagent: bool


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _read_codex_head(path: Path) -> _CodexHead:
    """The rollout's own ``session_meta`` cwd (else its first ``turn_context`` cwd) and
    whether it is a subagent's; a second ``session_meta`` (a fork's copy of its parent's)
    ends the search, since the parent's replayed history follows it."""
    meta: dict[str, object] | None = None
    turn_cwd: str | None = None
    for record in _head_records(path, _CODEX_HEAD_RECORDS):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            if meta is not None:
                break
            meta = payload
            if _text(payload.get("cwd")) is not None:
                break
        elif kind == "turn_context" and meta is not None:
            turn_cwd = _text(payload.get("cwd"))
            if turn_cwd is not None:
                break
    if meta is None:
        return _CodexHead(None, False)
    source = meta.get("source")
    subagent = isinstance(source, dict) and "subagent" in source
    return _CodexHead(_text(meta.get("cwd")) or turn_cwd, subagent)


def _read_zstd_whole(path: Path) -> bool:
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


_CLAUDE_HEADS: _HeadMemo[str | None] = _HeadMemo(_read_claude_cwd)
_GEMINI_HEADS: _HeadMemo[_GeminiHead] = _HeadMemo(_read_gemini_head)
_CODEX_HEADS: _HeadMemo[_CodexHead] = _HeadMemo(_read_codex_head)
_CODEX_WHOLE: _HeadMemo[bool] = _HeadMemo(_read_zstd_whole)


# --------------------------------------------------------------------------------------
# Listing


@dataclass(frozen=True, slots=True)
class _Found:
    """A candidate file, its stat, the time it is ranked by (its mtime, or a Gemini
    session's newest file's), and its place in the scan (lower = scanned earlier)."""

    path: Path
    stat: os.stat_result
    time_ns: int
    order: int = 0


def _found(path: Path, st: os.stat_result, order: int = 0) -> _Found:
    return _Found(path, st, st.st_mtime_ns, order)


def _newest_first(found: Iterable[_Found]) -> list[_Found]:
    return sorted(found, key=lambda f: (-f.time_ns, f.order, str(f.path)))


def _scan_files(folder: Path, accept: Callable[[str], bool]) -> list[tuple[Path, os.stat_result]]:
    """Regular files directly in ``folder`` whose name passes ``accept``, with their stat."""
    result: list[tuple[Path, os.stat_result]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not accept(entry.name):
                    continue
                try:
                    if entry.is_file():
                        result.append((Path(entry.path), entry.stat()))
                except OSError:
                    continue
    except OSError:
        pass
    return result


def _scan_dirs(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in entries if _is_dir(e)]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


# --------------------------------------------------------------------------------------
# Claude Code


def _claude_folders(project: _Project) -> list[Path]:
    override = _env("CLAUDE_CODE_PROJECT_DIR_NAME")
    if override and _env("CLAUDE_CONFIG_DIR") and _is_plain_name(override):
        names = [override]
    else:
        names = list(dict.fromkeys(claude_project_dir_name(form) for form in project.forms))
    return [root / "projects" / name for root in claude_roots() for name in names]


def _is_claude_session_name(name: str) -> bool:
    return name.endswith(".jsonl") and not name.startswith("agent-")


def _find_claude(project: _Project) -> _Found | None:
    candidates = [
        _found(path, st)
        for folder in _claude_folders(project)
        for path, st in _scan_files(folder, _is_claude_session_name)
        if st.st_size > 0
    ]
    for found in _newest_first(candidates):
        cwd = _CLAUDE_HEADS.get(found.path, found.stat)
        if cwd is None or project.contains(cwd):
            return found
    return None


# --------------------------------------------------------------------------------------
# Gemini CLI


def _read_text(path: Path, limit: int = 65536) -> str | None:
    try:
        with path.open("rb") as fh:
            return fh.read(limit).decode("utf-8", "replace").strip()
    except OSError:
        return None


def _gemini_registry_slugs(root: Path, project: _Project) -> list[str]:
    try:
        with (root / "projects.json").open("rb") as fh:
            registry = decode_json(fh.read())
    except (OSError, ValueError):  # ValueError: not JSON, or nested too deeply
        return []
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(projects, dict):
        return []
    return [
        slug
        for path, slug in projects.items()
        if isinstance(slug, str) and _is_plain_name(slug) and project.is_path(path)
    ]


def _gemini_project_folders(project: _Project) -> list[Path]:
    """``tmp/<projectId>`` folders of the project: registry slug, ``.project_root``
    markers, sha256 of each project form; none whose marker names another path."""
    root = gemini_root()
    tmp = root / "tmp"
    folders = [tmp / slug for slug in _gemini_registry_slugs(root, project)]
    for folder in sorted(_scan_dirs(tmp)):
        marker = _read_text(folder / ".project_root")
        if marker and project.is_path(marker):
            folders.append(folder)
    folders.extend(tmp / gemini_project_hash(form) for form in project.forms)
    kept: list[Path] = []
    for folder in _unique_paths(folders):
        marker = _read_text(folder / ".project_root")
        if marker and not project.is_path(marker):
            continue
        kept.append(folder)
    return kept


def _is_gemini_session_name(name: str) -> bool:
    return name.startswith("session-") and name.endswith((".jsonl", ".json"))


def _gemini_name_suffix(name: str) -> str:
    """The ``<first 8 of sessionId>`` part of ``session-<time>-<id8>.json[l]``."""
    stem = name.removesuffix(".jsonl").removesuffix(".json")
    return stem.rsplit("-", 1)[-1]


def _find_gemini(project: _Project) -> _Found | None:
    files: list[tuple[_Found, str | None]] = []
    for folder in _gemini_project_folders(project):
        for path, st in _scan_files(folder / "chats", _is_gemini_session_name):
            if st.st_size == 0:
                continue
            head = _GEMINI_HEADS.get(path, st)
            if not head.subagent:
                files.append((_found(path, st), head.session_id))
    known_ids = sorted({sid for _, sid in files if sid is not None})
    groups: dict[str, list[_Found]] = {}
    for found, session_id in files:
        key = session_id
        if key is None:
            suffix = _gemini_name_suffix(found.path.name)
            key = next((sid for sid in known_ids if sid.startswith(suffix)), f"?{suffix}")
        groups.setdefault(key, []).append(found)
    sessions = [
        _Found(pick.path, pick.stat, max(m.time_ns for m in members))
        for members in groups.values()
        for pick in [_gemini_group_file(members)]
    ]
    return _newest_first(sessions)[0] if sessions else None


def _gemini_group_file(members: list[_Found]) -> _Found:
    """The largest ``.jsonl`` of one session's files, else its largest ``.json``."""
    jsonl = [m for m in members if m.path.name.endswith(".jsonl")]
    pool = jsonl or members
    return max(pool, key=lambda m: (m.stat.st_size, m.time_ns, str(m.path)))


# --------------------------------------------------------------------------------------
# Codex CLI


def _is_rollout_name(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl.zst"))


def _rollout_base(name: str) -> str:
    return name.removesuffix(".zst")


def _numbered_dirs(folder: Path) -> list[Path]:
    """Sub-folders with all-digit names (``YYYY``, ``MM``, ``DD``), newest first."""
    dirs = [d for d in _scan_dirs(folder) if d.name.isdigit()]
    return sorted(dirs, key=lambda d: int(d.name), reverse=True)


def _codex_candidates(root: Path) -> list[_Found]:
    """Every rollout, stat-ed, in scan order: date folders newest first, then archived."""
    found: list[_Found] = []
    active: set[str] = set()
    for year in _numbered_dirs(root / "sessions"):
        for month in _numbered_dirs(year):
            for day in _numbered_dirs(month):
                for path, st in sorted(_scan_files(day, _is_rollout_name), reverse=True):
                    found.append(_found(path, st, order=len(found)))
                    active.add(_rollout_base(path.name))
    archived = root / "archived_sessions"
    for dirpath, dirnames, _files in os.walk(archived):
        dirnames.sort(reverse=True)
        for path, st in sorted(_scan_files(Path(dirpath), _is_rollout_name), reverse=True):
            if _rollout_base(path.name) not in active:
                found.append(_found(path, st, order=len(found)))
    return found


def _find_codex(project: _Project) -> _Found | None:
    verdicts: dict[str, bool] = {}  # most rollouts repeat a few cwds: compare each once
    for found in _newest_first(_codex_candidates(codex_root())):
        head = _CODEX_HEADS.get(found.path, found.stat)
        if head.cwd is None or head.subagent:
            continue
        if head.cwd not in verdicts:
            verdicts[head.cwd] = project.is_path(head.cwd)
        if verdicts[head.cwd] and _CODEX_WHOLE.get(found.path, found.stat):
            return found  # (a corrupt or truncated .zst would only fail when scored)
    return None


# --------------------------------------------------------------------------------------
# Public search

_FINDERS: dict[CliName, Callable[[_Project], _Found | None]] = {
    "claude_code": _find_claude,
    "gemini_cli": _find_gemini,
    "codex_cli": _find_codex,
}


def _check_cli(cli: str) -> CliName:
    for name in CLI_NAMES:
        if cli == name:
            return name
    raise UnknownNameError(f"unknown CLI {cli!r}; choose one of: {', '.join(CLI_NAMES)}")


def project_contains(project: Path, path: str) -> bool:
    """Whether ``path`` (a working directory a session file recorded) is ``project`` or a
    folder inside it, comparing both forms of each (module docstring)."""
    return _Project.of(project).contains(path)


def in_project_session_folder(project: Path, session_file: Path) -> bool:
    """Whether ``session_file`` lies directly in one of ``project``'s own session folders:
    its Claude Code folders, or the ``chats`` folder of one of its Gemini CLI project
    folders (Codex CLI keeps no per-project folder). Symlinks are resolved on both sides.
    Tells whose a session file is when it records no working directory."""
    target = _Project.of(project)
    folders = [*_claude_folders(target), *(f / "chats" for f in _gemini_project_folders(target))]
    parent = os.path.realpath(session_file.parent)
    return any(os.path.realpath(folder) == parent for folder in folders)


def find_session(project: Path, cli: CliName) -> Path | None:
    """The current session file of ``cli`` for ``project``, or ``None`` when it has none.

    "Current" is the newest by mtime of the project's candidates (module docstring;
    design.md §6). Never a file of another project.

    Raises:
        UnknownNameError: ``cli`` is not ``claude_code``, ``gemini_cli`` or ``codex_cli``.
    """
    found = _FINDERS[_check_cli(cli)](_Project.of(project))
    return found.path if found is not None else None


def find_sessions(project: Path) -> dict[CliName, Path]:
    """The current session file of every CLI that has one for ``project``, keyed by CLI."""
    result: dict[CliName, Path] = {}
    for cli in CLI_NAMES:
        path = find_session(project, cli)
        if path is not None:
            result[cli] = path
    return result


def newest_session(project: Path, clis: Iterable[CliName] = CLI_NAMES) -> tuple[CliName, Path]:
    """The newest (mtime) current session of ``project`` among ``clis``, and its CLI.

    A Gemini session is timed by its newest file (a resume stub or ``.json`` twin included).
    On equal times the CLI listed first in ``clis`` wins.

    Raises:
        SessionNotFoundError: none of ``clis`` has a session for ``project``; the message
            lists every folder looked in (:func:`session_search_places`).
        UnknownNameError: a name in ``clis`` is not a supported CLI.
    """
    names = [_check_cli(cli) for cli in clis]
    target = _Project.of(project)
    best: tuple[CliName, _Found] | None = None
    for cli in names:
        found = _FINDERS[cli](target)
        if found is not None and (best is None or found.time_ns > best[1].time_ns):
            best = (cli, found)
    if best is None:
        places = "; ".join(session_search_places(project, names))
        raise SessionNotFoundError(
            f"no session file found for project {target.given}; looked in: {places}"
        )
    return best[0], best[1].path


def session_search_places(project: Path, clis: Iterable[CliName] = CLI_NAMES) -> list[str]:
    """Where :func:`find_session` looks for ``project``'s sessions, one readable line each
    (``"<CLI label>: <folder> (<what is looked for>)"``), for error messages.

    Raises:
        UnknownNameError: a name in ``clis`` is not a supported CLI.
    """
    target = _Project.of(project)
    places: list[str] = []
    for cli in (_check_cli(name) for name in clis):
        label = _CLI_LABELS[cli]
        if cli == "claude_code":
            places.extend(
                f"{label}: {folder} (*.jsonl, not agent-*.jsonl)"
                for folder in _claude_folders(target)
            )
        elif cli == "gemini_cli":
            registry = gemini_root() / "projects.json"
            places.extend(
                f"{label}: {folder / 'chats'} (session-*.jsonl / .json; "
                f"project ids from {registry}, .project_root and sha256 of the path)"
                for folder in _gemini_project_folders(target)
            )
        else:
            root = codex_root()
            places.append(
                f"{label}: {root / 'sessions'}/YYYY/MM/DD and {root / 'archived_sessions'} "
                f"(rollout-*.jsonl[.zst] whose session_meta cwd is {target.given})"
            )
    return places
