"""The scanning machinery every adapter's discovery shares: a project's two path forms,
folder listings, the first records of a file (memoised while it is unchanged), bounded
reads, and the query a session id makes.

Nothing here knows a CLI's layout; each adapter's ``_find`` module says where its files
live and which records decide, using these. Reads only: files are listed, stat-ed and
read at their first few lines or bytes. Unreadable, unparsable or vanished files are
passed over (``None``, ``[]``), never fatal.

**Two path forms.** A project path is compared *as given* (made absolute with
``os.path.abspath``, symlinks kept) and *resolved* (``Path.resolve()``). A CLI writes the
path it saw, which is the physical one on most systems but may be a symlinked one (a
symlinked home directory), so both forms are tried everywhere a path is turned into a
folder name or compared (:class:`ProjectPaths`). A path written on Windows (``C:\\x`` or
``c:/x``, as a ``file:`` URI decodes) compares case-insensitively with either slash.

**Memoised heads.** What a file's first lines say is remembered in-process, keyed by
(path, device, inode, size, mtime), so a repeated search re-reads only files that changed
(:class:`HeadMemo`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Generic, TypeVar

from driftguard.adapters._common import iter_lines, load_record, open_session_file
from driftguard.errors import SessionFormatError
from driftguard.format import plural
from driftguard.terminal import clip, printable

__all__ = [
    "CWD_SHOWN",
    "MEMO_LIMIT",
    "SESSION_SUFFIXES",
    "Candidate",
    "HeadMemo",
    "IdQuery",
    "PassedOver",
    "ProjectPaths",
    "env_value",
    "head_records",
    "is_plain_name",
    "is_under",
    "newest_first",
    "passed_over_note",
    "read_bounded",
    "read_text",
    "scan_dirs",
    "scan_files",
    "text_value",
    "unique_paths",
]

MEMO_LIMIT = 8192
"""Most head facts a :class:`HeadMemo` remembers before the oldest are forgotten."""

SESSION_SUFFIXES = (".jsonl", ".json", ".zst")
"""What the session files of the file-based CLIs end with (a session id given with one of
these is read as a file name, :class:`IdQuery`)."""


def env_value(name: str) -> str:
    """``$name`` read now, blanks stripped (``""`` when unset)."""
    return os.environ.get(name, "").strip()


def text_value(value: object) -> str | None:
    """``value`` when it is a non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


def unique_paths(paths: Iterable[Path]) -> list[Path]:
    """``paths`` in order, each folder once (compared normalised)."""
    seen: set[str] = set()
    result: list[Path] = []
    for path in paths:
        key = os.path.normcase(os.path.normpath(path))
        if key not in seen:
            seen.add(key)
            result.append(path)
    return result


def is_plain_name(name: str) -> bool:
    """A single folder name: no separators, not empty, not ``.`` or ``..``."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name


def is_under(path: Path, folders: Iterable[Path]) -> bool:
    """Whether ``path``, with every symlink resolved, lies strictly inside one of
    ``folders`` (each resolved too). A folder itself is not inside itself."""
    real = os.path.realpath(path)
    for folder in folders:
        root = os.path.realpath(folder)
        if real != root and os.path.commonpath([real, root]) == root:
            return True
    return False


# --------------------------------------------------------------------------------------
# A project's two path forms


def _is_windows_path(path: str) -> bool:
    return (len(path) >= 2 and path[1] == ":") or path.startswith("//") or "\\" in path


def path_key(path: str) -> str:
    """A comparable form of a path: normalised, case-folded where the platform's names
    are, and for a path written on Windows case-folded with either slash."""
    if _is_windows_path(path):
        return str(PureWindowsPath(path)).lower().rstrip("\\")
    return os.path.normcase(os.path.normpath(path))


def _resolved_key(path: str) -> str | None:
    if not os.path.isabs(path):
        return None
    try:
        return path_key(str(Path(path).resolve()))
    except (OSError, RuntimeError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class ProjectPaths:
    """A project directory in the forms a CLI may have written it (module docstring)."""

    given: str
    resolved: str

    @classmethod
    def of(cls, project: Path) -> ProjectPaths:
        """Both forms of ``project`` (relative paths made absolute against the cwd)."""
        given = os.path.abspath(project)
        try:
            resolved = str(Path(given).resolve())
        except (OSError, RuntimeError):
            resolved = given
        return cls(given=given, resolved=resolved)

    @property
    def forms(self) -> list[str]:
        """The given form, then the resolved one when it differs."""
        return [self.given] if self.given == self.resolved else [self.given, self.resolved]

    def _keys(self) -> set[str]:
        return {path_key(form) for form in self.forms}

    def is_path(self, other: str) -> bool:
        """``other`` names this project (either form, or resolving to it)."""
        if not other:
            return False
        if path_key(other) in self._keys():
            return True
        return _resolved_key(other) == path_key(self.resolved)

    def contains(self, other: str) -> bool:
        """``other`` is this project or a folder inside it."""
        if self.is_path(other):
            return True
        candidates = {path_key(other)}
        resolved = _resolved_key(other)
        if resolved is not None:
            candidates.add(resolved)
        return any(
            cand.startswith(root.rstrip(os.sep) + os.sep)
            for cand in candidates
            for root in self._keys()
        )


# --------------------------------------------------------------------------------------
# Bounded reads and memoised heads

_T = TypeVar("_T")
_StatKey = tuple[str, int, int, int, int]


class HeadMemo(Generic[_T]):
    """What a file's first lines say, remembered while the file is unchanged.

    Keyed by (path, device, inode, size, mtime): any append or rewrite misses. Bounded to
    :data:`MEMO_LIMIT` entries (the oldest are forgotten first). Reads only; in-process.

    Args:
        read: what to remember of a file (never raises for a bad file).
    """

    def __init__(self, read: Callable[[Path], _T]) -> None:
        self._read = read
        self._known: dict[_StatKey, _T] = {}

    def get(self, path: Path, st: os.stat_result) -> _T:
        """``read(path)``, or what it gave for the file as ``st`` describes it."""
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if key in self._known:
            return self._known[key]
        value = self._read(path)
        if len(self._known) >= MEMO_LIMIT:
            del self._known[next(iter(self._known))]
        self._known[key] = value
        return value


def _zstd_error() -> type[Exception]:
    import zstandard

    error: type[Exception] = zstandard.ZstdError
    return error


def head_records(path: Path, limit: int) -> list[dict[str, object]]:
    """Up to ``limit`` JSON-object records from the start of ``path`` (plain or zstd).

    Blank lines are passed over; malformed and non-object lines count toward ``limit``
    but are not returned. An unreadable file gives what was read before the failure.
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


def read_bounded(path: Path, limit: int) -> bytes | None:
    """The first ``limit`` bytes of ``path``, or ``None`` when it cannot be read."""
    try:
        with path.open("rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def read_text(path: Path, limit: int = 65536) -> str | None:
    """The first ``limit`` bytes of ``path`` as stripped UTF-8 text (bad bytes replaced),
    or ``None`` when it cannot be read."""
    data = read_bounded(path, limit)
    return None if data is None else data.decode("utf-8", "replace").strip()


# --------------------------------------------------------------------------------------
# Listing


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file a scan found: its stat, the time it is ranked by (its mtime, or a Gemini
    session's newest file's), and its place in the scan (lower = scanned earlier)."""

    path: Path
    stat: os.stat_result
    time_ns: int
    order: int = 0

    @classmethod
    def of(cls, path: Path, st: os.stat_result, order: int = 0) -> Candidate:
        """A candidate ranked by its own mtime."""
        return cls(path, st, st.st_mtime_ns, order)


def newest_first(found: Iterable[Candidate]) -> list[Candidate]:
    """Newest time first; then scan order, then path (a stable, total order)."""
    return sorted(found, key=lambda f: (-f.time_ns, f.order, str(f.path)))


def scan_files(folder: Path, accept: Callable[[str], bool]) -> list[tuple[Path, os.stat_result]]:
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


@dataclass(frozen=True, slots=True)
class PassedOver:
    """Candidate session files in one of a project's own folders that a search passed
    over because the working directory they record is another folder's (a copy, or a
    project whose folder name collides), for the message when nothing was found.

    Attributes:
        folder: the project's folder they lie in.
        files: how many were passed over (> 0).
        cwds: the working directories they record, each once, newest file's first.
    """

    folder: Path
    files: int
    cwds: tuple[str, ...]


CWD_SHOWN = 100
"""Characters of a passed-over file's working directory a message shows."""
_CWDS_NAMED = 2
"""Working directories a message names; the others are only counted."""


def passed_over_note(passed: PassedOver) -> str:
    """What :class:`PassedOver` says, one line to follow its folder's: ``"2 files there
    were skipped: they belong to /a (their cwd)"``. At most two working directories are
    named, each clipped and made safe to print (it comes from the file); the rest are
    counted, so a folder full of copies still gives one short line."""
    named = [printable(clip(cwd, CWD_SHOWN)) for cwd in passed.cwds[:_CWDS_NAMED]]
    others = len(passed.cwds) - len(named)
    if others:
        owners = f"{', '.join(named)} and {plural(others, 'other folder')}"
    else:
        owners = " and ".join(named)
    one = passed.files == 1
    return (
        f"{plural(passed.files, 'file')} there {'was' if one else 'were'} skipped: "
        f"{'it belongs' if one else 'they belong'} to {owners} "
        f"({'its' if one else 'their'} {'cwds' if len(passed.cwds) > 1 else 'cwd'})"
    )


def scan_dirs(folder: Path) -> list[Path]:
    """The folders directly in ``folder`` (``[]`` when it cannot be listed)."""
    return list(_iter_dirs(folder))


def _iter_dirs(folder: Path) -> Iterator[Path]:
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        yield Path(entry.path)
                except OSError:
                    continue
    except OSError:
        return


# --------------------------------------------------------------------------------------
# Session ids


@dataclass(frozen=True, slots=True)
class IdQuery:
    """A ``session`` argument that is not a path: a session id, a prefix of one, or a
    session file's name, lower-cased.

    Attributes:
        text: the argument as given, blanks stripped (case kept: a key lookup needs it).
        needle: the id (a file name without its suffixes), lower-cased.
        exact_name: the whole file name, lower-cased, when the argument ended with a
            session suffix (:data:`SESSION_SUFFIXES`), else ``None``.
    """

    text: str
    needle: str
    exact_name: str | None = None

    @classmethod
    def of(cls, text: str) -> IdQuery:
        """The query ``text`` makes."""
        stripped = text.strip()
        needle = stripped.lower()
        if needle.endswith(SESSION_SUFFIXES):
            return cls(stripped, needle=needle.split(".", 1)[0], exact_name=needle)
        return cls(stripped, needle=needle)
