"""Score history and stored goals, one file per session (docs/design.md §6, §7).

Layout (``DRIFTGUARD_HOME`` relocates ``~/.driftcli``, :mod:`driftguard.paths`)::

    ~/.driftcli/history/<key>.jsonl    one snapshot per line (the §7 record below)
    ~/.driftcli/sessions/<key>.json    {"goal": str, "goal_sha256": str, "updated": float}

**Keys.** :func:`history_key` builds ``<cli>-<session id>`` from characters
``[A-Za-z0-9._-]`` only, so a key is one plain file name: never empty, ``.`` or ``..``
(it always starts with the CLI name), never holding a path separator or NUL, at most
:data:`MAX_KEY_LENGTH` characters (ASCII, so the file names stay far below the usual
255-byte limit, temporary names included). A session id made only of ``[a-z0-9.-]``
(Claude Code, Codex and Gemini session UUIDs) is kept as is, so the file name shows the id.
Any other id (upper case, ``_``, ``/``, NUL, non-ASCII, empty, too long) keeps a readable
prefix, with every character outside ``[A-Za-z0-9.-]`` replaced by ``_``, followed by
``_`` and the first 16 hex digits of the sha256 of the whole id. Kept ids never contain
``_`` and transformed ones always do, so two distinct ids give two distinct keys (up to a
64-bit hash collision), even on a case-insensitive file system (a transformed key ends in
a lower-case digest of the exact id). A session whose file names no id is keyed by the
sha256 of its resolved path instead (:func:`history_key_for`).

**Records** (one JSON object per line, in this key order; docs/design.md §7)::

    {"v": 2, "ts": float, "score": int, "state": str, "factors": {name: float|null},
     "messages": int, "context_tokens": int, "goal_sha256": str|null,
     "scoring": "seed"|"calibrated", "preset": str|null}

``ts`` is seconds since the epoch; ``factors`` holds the report's factor values rounded
half up to one decimal, the same values the §5.5 JSON shows (they are for display: the
score was computed from the unrounded values, and one decimal keeps lines short and
stable); ``goal_sha256`` is the hex sha256 of the UTF-8 goal text the score used, or null
when no goal was known; ``scoring`` and ``preset`` say what made the score, so that a
trend never compares scores of different scales. Records are versioned: version 2 is
written; version 1 (driftguard 0.1, before the calibrated scoring) is read as
``scoring: "seed"`` with no preset — every score it recorded was the seed's; a record of
any other version (written by a newer driftguard) is skipped deliberately, like a corrupt
line.

**Writing.** An append opens the file with ``O_APPEND``, takes an exclusive
``fcntl.flock`` on it, and writes one complete line with one ``os.write``: several
processes scoring one session never interleave or lose lines. A line left half-written by
a crashed writer is closed with a newline before the next line goes in, so it costs only
itself. Folders are created with mode ``0o700``, files with ``0o600``. The goal file is
replaced atomically (a temporary file in the same folder, ``fsync``, ``os.replace``).
The lock is POSIX-only: on Windows (no ``fcntl``) the module imports and works, but
appends rely on ``O_APPEND`` alone and are not locked.

**Reading** skips blank lines, lines that are not a JSON object, records it cannot read or
of another version, and a last line without its newline (a write still in progress or cut
short). Nothing here raises for a bad file; only ``OSError`` from the file system itself
(permissions, a full disk) reaches the caller.

**Pruning** (:meth:`HistoryStore.prune`, ``history.retentionDays``, default 30) deletes
history files whose last modification is older than the retention, and goal files that
are older than the retention and whose history file is gone.

**Failure isolation**: :class:`GuardedHistoryStore` is the store the
shells hand the engine. Where :class:`HistoryStore` raises ``OSError`` (a ``history``
that is a file, a folder the user cannot write, a file it cannot read), it records one
line in :attr:`GuardedHistoryStore.notes` and goes on as if there were nothing to read or
nothing was written — the score is still given; the shell prints the notes on stderr or
returns them as ``notes`` over MCP.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import stat
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeGuard, cast, get_args

from driftguard import paths
from driftguard._fileio import write_atomic
from driftguard.errors import UnknownNameError
from driftguard.format import display_factors
from driftguard.model import SCORINGS, CliName, Scoring, State

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:
    from driftguard.scoring.composite import DriftReport

__all__ = [
    "HISTORY_SUFFIX",
    "MAX_KEY_LENGTH",
    "SNAPSHOT_VERSION",
    "GuardedHistoryStore",
    "HistoryStore",
    "Snapshot",
    "StoredGoal",
    "goal_sha256",
    "history_key",
    "history_key_for",
    "is_valid_key",
    "snapshot_from_report",
]

SNAPSHOT_VERSION: Final = 2
"""The record version this module writes (docs/design.md §7 ``"v"``); it also reads version 1."""
_V1: Final = 1
"""Records of driftguard 0.1: no ``scoring`` or ``preset``; all were seed scores."""
MAX_KEY_LENGTH: Final = 200
"""Longest key in characters (ASCII). With ``.jsonl`` or a temporary-file prefix and
suffix the file name stays well below 255 bytes."""
HISTORY_SUFFIX: Final = ".jsonl"
GOAL_SUFFIX: Final = ".json"
_DIGEST_HEX: Final = 16
"""Hex digits of the sha256 appended to a transformed session id (64 bits)."""
_PATH_DIGEST_HEX: Final = 32
"""Hex digits of the sha256 of a resolved path standing in for a missing session id."""
_KEPT_ID = re.compile(r"[a-z0-9.-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]")
_VALID_KEY = re.compile(r"[A-Za-z0-9._-]+")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_STATES: Final = ("fresh", "warming", "drifting", "polluted")
_TEMP_PREFIX: Final = "."
_TEMP_SUFFIX: Final = ".tmp"
_SECONDS_PER_DAY: Final = 86_400
_DIR_MODE: Final = 0o700
_FILE_MODE: Final = 0o600
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
TAIL_BYTES: Final = 16_384
"""Bytes :meth:`HistoryStore.last` reads from the end (a record is ~300 bytes)."""
_APPEND_ATTEMPTS: Final = 5
"""Re-opens allowed when a prune removes the file between our open and our lock."""


# --- keys ------------------------------------------------------------------------------


def _sha256_hex(text: str) -> str:
    # surrogatepass: a JSON string may decode to a lone surrogate; it still has one digest.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def goal_sha256(goal: str) -> str:
    """The hex sha256 of ``goal`` encoded as UTF-8: the ``goal_sha256`` of records and goal
    files (lone surrogates, which a JSON string can carry, are encoded as is)."""
    return _sha256_hex(goal)


_KEYED_CLIS: Final[tuple[str, ...]] = get_args(CliName)
"""Every session source a history key may name: all of :data:`~driftguard.model.CliName`,
Cursor's chats included (not only the file-based :data:`~driftguard.model.CLI_NAMES`)."""


def _check_cli(cli: str) -> None:
    if cli not in _KEYED_CLIS:
        raise UnknownNameError(f"unknown CLI {cli!r}; expected one of: {', '.join(_KEYED_CLIS)}")


def history_key(cli: CliName, session_id: str) -> str:
    """The file-name-safe key ``<cli>-<session id>`` of one session (docs/design.md §7).

    ``session_id`` may be any string: ids made only of ``[a-z0-9.-]`` are kept verbatim
    (``claude_code-0b6c…-…``); any other id becomes its sanitised prefix (characters
    outside ``[A-Za-z0-9.-]`` → ``_``) plus ``_`` and 16 hex digits of its sha256, so
    distinct ids give distinct keys and the key has at most :data:`MAX_KEY_LENGTH`
    characters from ``[A-Za-z0-9._-]``.

    Raises:
        UnknownNameError: ``cli`` is not a :data:`driftguard.model.CliName`.
    """
    _check_cli(cli)
    head = f"{cli}-"
    if _KEPT_ID.fullmatch(session_id) and len(head) + len(session_id) <= MAX_KEY_LENGTH:
        return head + session_id
    tail = "_" + _sha256_hex(session_id)[:_DIGEST_HEX]
    room = MAX_KEY_LENGTH - len(head) - len(tail)
    return head + _UNSAFE.sub("_", session_id[:room]) + tail


def history_key_for(cli: CliName, session_id: str | None, path: str | os.PathLike[str]) -> str:
    """The key of a parsed session: :func:`history_key` of its id, or of its file.

    A session whose file names no id (``session_id`` ``None`` or empty) is keyed by its
    resolved path: ``<cli>-path_<first 32 hex digits of sha256(resolved path)>``. It never
    equals the key of a real session id: a verbatim id holds no ``_``, and a transformed
    one has ``_`` right before its last 16 characters, where this form has a hex digit.

    Raises:
        UnknownNameError: ``cli`` is not a :data:`driftguard.model.CliName`.
    """
    if session_id:
        return history_key(cli, session_id)
    _check_cli(cli)
    digest = hashlib.sha256(os.fsencode(Path(path).resolve())).hexdigest()[:_PATH_DIGEST_HEX]
    return f"{cli}-path_{digest}"


def is_valid_key(key: str) -> bool:
    """Whether ``key`` is a safe file-name stem: 1–:data:`MAX_KEY_LENGTH` characters of
    ``[A-Za-z0-9._-]``, not ``.`` or ``..``, not starting with ``.``."""
    return (
        len(key) <= MAX_KEY_LENGTH
        and _VALID_KEY.fullmatch(key) is not None
        and not key.startswith(".")
    )


def _require_key(key: str) -> str:
    if not is_valid_key(key):
        raise ValueError(f"not a history key: {key[:80]!r} (build keys with history_key())")
    return key


# --- snapshots -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One scored moment of a session: the docs/design.md §7 history record.

    Attributes:
        ts: when the score was taken, seconds since the epoch.
        score: the 0–100 drift score.
        state: ``fresh`` / ``warming`` / ``drifting`` / ``polluted``.
        factors: each factor's points rounded half up to one decimal (as the §5.5 JSON
            shows them), keyed by the JSON factor name; ``None`` for an absent factor
            (goal distance without a goal). A copy of the mapping given.
        messages: user + assistant messages remembered at that moment.
        context_tokens: tokens in the context window at that moment.
        goal_sha256: hex sha256 of the goal the score used, or ``None`` without a goal.
        scoring: the scoring that made the score (``"seed"`` for version 1 records).
        preset: the preset whose weights it used, or ``None`` when unknown (version 1).

    Equal snapshots compare equal; a snapshot is not hashable (``factors`` is a mapping).
    """

    ts: float
    score: int
    state: State
    factors: Mapping[str, float | None]
    messages: int
    context_tokens: int
    goal_sha256: str | None = None
    scoring: Scoring = "calibrated"
    preset: str | None = None

    def __post_init__(self) -> None:
        # A private copy: the caller's dict may change later. Typed read-only (Mapping); a
        # plain dict so that ``dataclasses.asdict`` and ``json`` take it as is.
        object.__setattr__(self, "factors", dict(self.factors))

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready §7 record (``{"v": 2, "ts": …, …}``), keys in design order."""
        return {
            "v": SNAPSHOT_VERSION,
            "ts": self.ts,
            "score": self.score,
            "state": self.state,
            "factors": dict(self.factors),
            "messages": self.messages,
            "context_tokens": self.context_tokens,
            "goal_sha256": self.goal_sha256,
            "scoring": self.scoring,
            "preset": self.preset,
        }

    @classmethod
    def from_record(cls, record: object) -> Snapshot | None:
        """The snapshot a decoded record holds, or ``None`` when it cannot be read.

        ``None`` for: a non-object, a ``v`` other than 1 or 2 (another version is skipped
        on purpose), a missing or mistyped field (``ts`` a finite number; ``score`` an
        integer 0–100; ``state`` one of the four states; ``factors`` an object of finite
        numbers or nulls; ``messages`` and ``context_tokens`` integers ≥ 0;
        ``goal_sha256`` 64 lower-case hex digits or null; in version 2, ``scoring`` one of
        the scorings and ``preset`` a string or null). Booleans are not numbers. Unknown
        extra fields are ignored. A version 1 record reads as ``scoring="seed"``,
        ``preset=None``.
        """
        if not isinstance(record, dict):
            return None
        rec = cast("dict[str, object]", record)
        version = rec.get("v")
        if not _is_int(version) or version not in (_V1, SNAPSHOT_VERSION):
            return None
        scoring: object = "seed"
        preset: object = None
        if version == SNAPSHOT_VERSION:
            scoring, preset = rec.get("scoring"), rec.get("preset")
            if scoring not in SCORINGS or not (preset is None or isinstance(preset, str)):
                return None
        ts, score, state = rec.get("ts"), rec.get("score"), rec.get("state")
        messages, tokens = rec.get("messages"), rec.get("context_tokens")
        factors, digest = rec.get("factors"), rec.get("goal_sha256")
        if not (_is_number(ts) and math.isfinite(ts)):
            return None
        if not (_is_int(score) and 0 <= score <= 100):
            return None
        if not (isinstance(state, str) and state in _STATES):
            return None
        if not (_is_int(messages) and messages >= 0 and _is_int(tokens) and tokens >= 0):
            return None
        if digest is not None and not (isinstance(digest, str) and _SHA256_HEX.fullmatch(digest)):
            return None
        values = _read_factors(factors)
        if values is None:
            return None
        return cls(
            ts=float(ts),
            score=score,
            state=cast("State", state),
            factors=values,
            messages=messages,
            context_tokens=tokens,
            goal_sha256=digest,
            scoring=cast("Scoring", scoring),
            preset=cast("str | None", preset),
        )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_factors(value: object) -> dict[str, float | None] | None:
    if not isinstance(value, dict):
        return None
    out: dict[str, float | None] = {}
    for name, points in cast("dict[object, object]", value).items():
        if not isinstance(name, str):
            return None
        if points is None:
            out[name] = None
        elif _is_number(points) and math.isfinite(points):
            out[name] = float(points)
        else:
            return None
    return out


def snapshot_from_report(report: DriftReport, goal: str | None, ts: float) -> Snapshot:
    """The snapshot to record for ``report`` (docs/design.md §6 ``get_drift``, §7).

    Args:
        report: the scored session.
        goal: the goal text the score used (given now or stored earlier), or ``None``;
            a blank goal counts as none, as it does for scoring (§5.3 goal distance).
        ts: when the score was taken, seconds since the epoch.

    Factor values are stored rounded half up to one decimal (the §5.5 display values).
    """

    return Snapshot(
        ts=float(ts),
        score=report.score,
        state=report.state,
        factors=display_factors(report.factors),
        messages=report.messages,
        context_tokens=report.session.context_tokens,
        goal_sha256=goal_sha256(goal) if goal is not None and goal.strip() else None,
        scoring=report.scoring,
        preset=report.preset,
    )


def _encode(snapshot: Snapshot) -> bytes:
    text = json.dumps(
        snapshot.to_record(), ensure_ascii=True, allow_nan=False, separators=(",", ":")
    )
    return text.encode("ascii") + b"\n"


@dataclass(frozen=True, slots=True)
class StoredGoal:
    """A goal stored for a session (``sessions/<key>.json``).

    Attributes:
        text: the goal, as stored (it passed the secret gate before it was stored).
        updated: when it was stored, seconds since the epoch, or ``None`` when unknown.
    """

    text: str
    updated: float | None


# --- the store -------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    """An exclusive ``flock`` on ``fd`` for the block (no lock where ``fcntl`` is missing)."""
    if sys.platform != "win32":
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    else:  # pragma: no cover - POSIX is the supported platform for locking
        yield


def _ensure_dir(path: Path) -> None:
    """Create ``path`` and any missing parents with mode 0o700 (existing ones untouched)."""
    if path.is_dir():
        return
    parent = path.parent
    if parent != path:
        _ensure_dir(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, _DIR_MODE)


def _last_byte(fd: int, size: int) -> bytes:
    if sys.platform != "win32":
        return os.pread(fd, 1, size - 1)
    os.lseek(fd, size - 1, os.SEEK_SET)  # pragma: no cover
    return os.read(fd, 1)  # pragma: no cover


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class HistoryStore:
    """Snapshots and goals of every session, on disk (docs/design.md §7).

    Args:
        root: the history folder; default :func:`driftguard.paths.history_dir`.
        sessions_root: the folder of goal files; default
            :func:`driftguard.paths.sessions_dir` when ``root`` is not given, else the
            ``sessions`` folder next to ``root`` (the two are siblings, docs/design.md §2).

    Nothing is created until something is written. Every method takes a key made by
    :func:`history_key` / :func:`history_key_for` and raises ``ValueError`` for anything
    else (a path, ``..``), so no argument can reach outside the two folders.
    """

    def __init__(self, root: Path | None = None, *, sessions_root: Path | None = None) -> None:
        self.root = root if root is not None else paths.history_dir()
        if sessions_root is not None:
            self.sessions_root = sessions_root
        elif root is None:
            self.sessions_root = paths.sessions_dir()
        else:
            self.sessions_root = root.parent / "sessions"

    def history_path(self, key: str) -> Path:
        """``<root>/<key>.jsonl``. Raises ``ValueError`` for an invalid key."""
        return self.root / (_require_key(key) + HISTORY_SUFFIX)

    def goal_path(self, key: str) -> Path:
        """``<sessions_root>/<key>.json``. Raises ``ValueError`` for an invalid key."""
        return self.sessions_root / (_require_key(key) + GOAL_SUFFIX)

    # -- history ----------------------------------------------------------------------

    def append(self, key: str, snapshot: Snapshot) -> bool:
        """Append ``snapshot`` as one line to the session's history file; returns ``True``
        (the line is in; :class:`GuardedHistoryStore` returns ``False`` where this raises).

        The file is opened with ``O_APPEND`` (created 0o600, its folders 0o700), locked
        exclusively, and the whole line goes in with one write. When the file ends in a
        half-written line, a newline is written first so the new line stands alone. When
        the file was pruned between our open and our lock, it is opened again.

        Raises:
            ValueError: invalid key, or a snapshot holding a non-finite number.
            OSError: the file system refused (permissions, disk full).
        """
        path = self.history_path(key)
        line = _encode(snapshot)
        _ensure_dir(self.root)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC
        for _ in range(_APPEND_ATTEMPTS):
            fd = os.open(path, flags, _FILE_MODE)
            try:
                with _locked(fd):
                    if not _still_linked(fd, path):
                        continue
                    size = os.fstat(fd).st_size
                    prefix = b"\n" if size > 0 and _last_byte(fd, size) != b"\n" else b""
                    _write_all(fd, prefix + line)
                    return True
            finally:
                os.close(fd)
        raise OSError(f"could not append to {path}: it kept being removed")

    def read(self, key: str) -> list[Snapshot]:
        """The session's snapshots in file (append) order; ``[]`` when it has none.

        Blank lines, lines that are not JSON objects, unreadable or other-version records
        and a last line without its newline are skipped.

        Raises:
            ValueError: invalid key.
            OSError: the file exists but cannot be read.
        """
        path = self.history_path(key)
        try:
            with open(path, "rb") as handle:
                return _read_snapshots(handle)
        except FileNotFoundError:
            return []

    def last(self, key: str) -> Snapshot | None:
        """The session's latest readable snapshot, or ``None``; reads only the file's tail
        (the last :data:`TAIL_BYTES`), so it costs the same however long the history is.

        Raises:
            ValueError: invalid key.
            OSError: the file exists but cannot be read.
        """
        path = self.history_path(key)
        try:
            with open(path, "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                start = max(0, size - TAIL_BYTES)
                handle.seek(start)
                tail = handle.read()
        except FileNotFoundError:
            return None
        if start > 0:
            tail = tail[tail.find(b"\n") + 1 :] if b"\n" in tail else b""
        found = _read_snapshots(io.BytesIO(tail))
        return found[-1] if found else None

    def prune(self, retention_days: int, now: float | None = None) -> int:
        """Delete what is older than ``retention_days`` days; return how many files went.

        A history file goes when its mtime is older than ``now − retention_days × 86400``
        (``now`` defaults to ``time.time()``); it is locked while that is checked again and
        it is unlinked, so a concurrent append either lands before (and keeps the file
        fresh) or re-creates it. A goal file goes when it is that old too and its history
        file is gone (an old goal of a session still being scored is kept). Leftover
        temporary goal files that old go as well. Files that are not ours (other names,
        folders, symlinks) are left alone.

        Raises:
            ValueError: ``retention_days`` < 1.
            OSError: an old file could not be opened or removed (permissions).
        """
        if retention_days < 1:
            raise ValueError(f"retention_days must be at least 1, got {retention_days}")
        cutoff = (time.time() if now is None else now) - retention_days * _SECONDS_PER_DAY
        removed = 0
        for path in _entries(self.root):
            if _stem_key(path.name, HISTORY_SUFFIX) is not None and _prune_history(path, cutoff):
                removed += 1
        for path in _entries(self.sessions_root):
            key = _stem_key(path.name, GOAL_SUFFIX)
            if key is not None:
                if self.history_path(key).exists():
                    continue
            elif not (path.name.startswith(_TEMP_PREFIX) and path.name.endswith(_TEMP_SUFFIX)):
                continue
            if _unlink_if_older(path, cutoff):
                removed += 1
        return removed

    # -- goals ------------------------------------------------------------------------

    def save_goal(self, key: str, goal: str) -> None:
        """Store ``goal`` for the session, replacing any earlier one atomically.

        Writes ``{"goal": goal, "goal_sha256": …, "updated": now}`` to ``<key>.json``
        (0o600, folder 0o700) with :func:`driftguard._fileio.write_atomic`: a reader sees
        the old goal or the new one, never a mix.

        Raises:
            ValueError: invalid key.
            OSError: the file system refused.
        """
        target = self.goal_path(key)
        data = json.dumps(
            {"goal": goal, "goal_sha256": goal_sha256(goal), "updated": time.time()},
            ensure_ascii=True,
        ).encode("ascii")
        _ensure_dir(self.sessions_root)
        write_atomic(target, data, mode=_FILE_MODE, dir_mode=_DIR_MODE)

    def load_goal(self, key: str) -> str | None:
        """The stored goal of the session, or ``None`` (:meth:`load_goal_record`'s text).

        Raises:
            ValueError: invalid key.
            OSError: the file (or its folder) exists but cannot be read.
        """
        stored = self.load_goal_record(key)
        return stored.text if stored is not None else None

    def load_goal_record(self, key: str) -> StoredGoal | None:
        """The stored goal of the session and when it was stored, or ``None`` when there is
        none or the file holds no goal (not JSON, not an object, ``goal`` not a string).

        The file's ``goal_sha256`` is informational and not checked: a goal edited by hand
        is still the goal. An ``updated`` that is not a finite number reads as ``None``.

        Raises:
            ValueError: invalid key.
            OSError: the file (or its folder) exists but cannot be read.
        """
        path = self.goal_path(key)
        try:
            with open(path, "rb") as handle:
                record: object = json.load(handle)
        except FileNotFoundError:
            return None
        except (ValueError, RecursionError):
            return None
        if not isinstance(record, dict):
            return None
        fields = cast("dict[str, object]", record)
        goal, updated = fields.get("goal"), fields.get("updated")
        if not isinstance(goal, str):
            return None
        when = float(updated) if _is_number(updated) and math.isfinite(updated) else None
        return StoredGoal(text=goal, updated=when)

    def clear_goal(self, key: str) -> bool:
        """Forget the stored goal of the session; returns whether there was one.

        Raises:
            ValueError: invalid key.
            OSError: the file exists but cannot be removed.
        """
        try:
            os.unlink(self.goal_path(key))
        except FileNotFoundError:
            return False
        return True


class GuardedHistoryStore(HistoryStore):
    """A :class:`HistoryStore` whose file-system failures cost a note, not the score.

    Each method that :class:`HistoryStore` lets ``OSError`` out of instead appends one
    line to :attr:`notes` (what was not done, the path, the system's reason) and returns
    what it would for nothing stored: :meth:`read` ``[]``, :meth:`load_goal` and
    :meth:`load_goal_record` ``None``, :meth:`prune` ``0``, :meth:`append` ``False``;
    :meth:`save_goal` and :meth:`clear_goal` change nothing. ``ValueError``
    (an invalid key: a programming error) still propagates. Make one per command or tool
    call, so its notes belong to that call.
    """

    def __init__(self, root: Path | None = None, *, sessions_root: Path | None = None) -> None:
        super().__init__(root, sessions_root=sessions_root)
        self.notes: list[str] = []
        """One line per failure, in the order they happened."""

    def _note(self, what: str, path: Path, exc: OSError) -> None:
        self.notes.append(f"{what}: {path}: {exc.strerror or exc}")

    def append(self, key: str, snapshot: Snapshot) -> bool:
        """:meth:`HistoryStore.append`, or ``False`` and a note when the history cannot be
        written."""
        try:
            return super().append(key, snapshot)
        except OSError as exc:
            self._note("score not recorded in the history", self.history_path(key), exc)
            return False

    def last(self, key: str) -> Snapshot | None:
        """:meth:`HistoryStore.last`, or ``None`` and a note when the history cannot be read."""
        try:
            return super().last(key)
        except OSError as exc:
            self._note("history not read", self.history_path(key), exc)
            return None

    def read(self, key: str) -> list[Snapshot]:
        """:meth:`HistoryStore.read`, or ``[]`` and a note when the history cannot be read."""
        try:
            return super().read(key)
        except OSError as exc:
            self._note("history not read", self.history_path(key), exc)
            return []

    def save_goal(self, key: str, goal: str) -> None:
        """:meth:`HistoryStore.save_goal`, or a note when the goal cannot be stored."""
        try:
            super().save_goal(key, goal)
        except OSError as exc:
            self._note("goal not stored for later calls", self.goal_path(key), exc)

    def load_goal_record(self, key: str) -> StoredGoal | None:
        """:meth:`HistoryStore.load_goal_record`, or ``None`` and a note when it cannot be
        read (:meth:`load_goal` goes through this too)."""
        try:
            return super().load_goal_record(key)
        except OSError as exc:
            self._note("stored goal not read", self.goal_path(key), exc)
            return None

    def clear_goal(self, key: str) -> bool:
        """:meth:`HistoryStore.clear_goal`, or ``False`` and a note when it cannot be removed."""
        try:
            return super().clear_goal(key)
        except OSError as exc:
            self._note("stored goal not forgotten", self.goal_path(key), exc)
            return False

    def prune(self, retention_days: int, now: float | None = None) -> int:
        """:meth:`HistoryStore.prune`, or ``0`` and a note when a folder cannot be pruned."""
        try:
            return super().prune(retention_days, now)
        except OSError as exc:
            self._note("old history not pruned", self.root, exc)
            return 0


def _read_snapshots(lines: Iterable[bytes]) -> list[Snapshot]:
    snapshots: list[Snapshot] = []
    for raw in lines:
        if not raw.endswith(b"\n") or not raw.strip():
            continue  # a blank line, or the last line still being written (or cut short)
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, absurdly nested
            continue
        snapshot = Snapshot.from_record(record)
        if snapshot is not None:
            snapshots.append(snapshot)
    return snapshots


def _still_linked(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (a prune may have unlinked it)."""
    try:
        current = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (current.st_dev, current.st_ino) == (opened.st_dev, opened.st_ino)


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def _stem_key(name: str, suffix: str) -> str | None:
    """The key of a file named ``<key><suffix>``, or ``None`` for any other name."""
    if not name.endswith(suffix):
        return None
    key = name[: -len(suffix)]
    return key if is_valid_key(key) else None


def _is_old_regular_file(info: os.stat_result, cutoff: float) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff


def _unlink_if_older(path: Path, cutoff: float) -> bool:
    try:
        if not _is_old_regular_file(os.stat(path, follow_symlinks=False), cutoff):
            return False
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def _prune_history(path: Path, cutoff: float) -> bool:
    try:
        if not _is_old_regular_file(os.stat(path, follow_symlinks=False), cutoff):
            return False
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        with _locked(fd):
            if not (_still_linked(fd, path) and _is_old_regular_file(os.fstat(fd), cutoff)):
                return False
            os.unlink(path)
            return True
    finally:
        os.close(fd)
