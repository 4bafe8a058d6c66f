"""The live cache the hooks keep for the status line and for each other (docs/design.md §2).

Files, one set per session, in ``~/.driftcli/cache/`` (:func:`driftguard.paths.cache_dir`;
``DRIFTGUARD_HOME`` relocates it)::

    <key>.json        the latest score, written by ``driftguard hook stop`` after each turn
    <key>.warn.json   {"above": bool, "score": int, "ts": float}: whether the prompt hook
                      has already warned about the current crossing of the warn threshold
    <key>.host.json   {"context_window": int, "ts": float}: the context window the host
                      reported in its status-line payload, for the next stop hook
    <key>.loop.json   {"loop": str, "ts": float}: the action loop the prompt hook last told
                      the model about (once per loop)
    <key>.compaction.json  {"told": int, "pending": bool, "ts": float}: how many of the
                      session's compactions the model was told about, and whether the host
                      marked one the cache has not seen yet (:class:`CompactionNote`)
    <key>.near.json   {"compactions": int, "ts": float}: the prompt hook warned that the
                      host will compact soon, in the cycle after that many compactions

``<key>`` is the session id when it is made of ``[A-Za-z0-9-]`` only (Claude Code's UUIDs),
else ``h-`` and the first 32 hex digits of its sha256: always one plain file name.

A score depends on more than its transcript: the remembered goal and the config (the
global ``~/.driftclirc`` and the project's ``.driftcli``), and the window the host
reported. Each status record lists those files (``input_files``) and a digest of their
names and contents as they were when the score was made (``inputs``,
:func:`inputs_digest`); the record answers only while :func:`is_current` finds them
unchanged (a goal set or a config edited since is not shown stale
until the next turn). A record without them (written by driftguard 0.2.0) is never
current.

Each file has a single writer (the stop hook, the prompt hook, the status line), so an
async stop hook and a prompt hook never overwrite each other's state; every write is atomic
(:func:`driftguard._fileio.write_atomic`, mode ``0o600``). Reading never raises: a missing,
corrupt or foreign-version file reads as ``None``.

Standard library only (plus :mod:`driftguard.paths`): the status line imports this on every
call and must stay far below 100 ms as a whole process.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from driftguard import paths
from driftguard._fileio import read_json_object, write_json_atomic
from driftguard.model import CliName

__all__ = [
    "CACHE_VERSION",
    "CompactionNote",
    "LiveStatus",
    "host_path",
    "inputs_digest",
    "is_current",
    "loop_path",
    "prune",
    "read_compaction_note",
    "read_host_window",
    "read_near",
    "read_status",
    "read_told_loop",
    "read_warned",
    "session_key",
    "status_key",
    "status_path",
    "warn_path",
    "write_compaction_note",
    "write_host_window",
    "write_near",
    "write_status",
    "write_told_loop",
    "write_warned",
]

CACHE_VERSION: Final = 1
"""The ``"v"`` of the status record this module writes and reads."""

_PLAIN_ID = re.compile(r"[A-Za-z0-9-]{1,100}")
_STATES: Final = ("fresh", "warming", "drifting", "polluted")
_SUFFIXES: Final = (
    ".warn.json",
    ".host.json",
    ".loop.json",
    ".compaction.json",
    ".near.json",
    ".json",
)
_SECONDS_PER_DAY: Final = 86_400


def session_key(session_id: str) -> str:
    """The file-name key of a session id (see the module doc)."""
    if _PLAIN_ID.fullmatch(session_id):
        return session_id
    return "h-" + hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def status_key(path: Path, cli: CliName | None) -> str:
    """The status cache key of the transcript ``path`` of ``cli`` for a command that has no
    host payload (``driftguard status``): the session id the stop hook keys it by, when the
    file is the one its source keeps for that id; any other file (a copy, a subagent's
    transcript) ``path:<resolved path>``, so that it never overwrites the score Claude
    Code's status line shows for that id."""
    from driftguard.adapters import get_adapter, session_id_from_path

    named = session_id_from_path(path, cli)
    if named is not None and cli is not None and get_adapter(cli).is_session_file_of(path, named):
        return named
    return f"path:{path.resolve()}"


def status_path(session_id: str) -> Path:
    """``cache/<key>.json``: the latest score of the session."""
    return paths.cache_dir() / f"{session_key(session_id)}.json"


def warn_path(session_id: str) -> Path:
    """``cache/<key>.warn.json``: the prompt hook's warning state."""
    return paths.cache_dir() / f"{session_key(session_id)}.warn.json"


def host_path(session_id: str) -> Path:
    """``cache/<key>.host.json``: the context window the host reported."""
    return paths.cache_dir() / f"{session_key(session_id)}.host.json"


@dataclass(frozen=True, slots=True)
class LiveStatus:
    """The score of a session as the stop hook last computed it.

    Attributes:
        session_id: the host's session id (the cache key).
        cli: the CLI that wrote the transcript.
        transcript_path: the transcript that was scored.
        transcript_size: its size in bytes when it was read.
        ts: when it was scored, seconds since the epoch.
        score: the drift score, 0–100 points.
        state: ``fresh`` / ``warming`` / ``drifting`` / ``polluted``.
        factors: each factor's points rounded half up to one decimal (``None`` when
            inactive), keyed by the JSON factor names.
        messages: user + assistant messages remembered.
        context_tokens: tokens in the context at the latest request.
        context_window: the window the score used, in tokens (the host's when known).
        tokens_estimated: ``context_tokens`` was estimated from characters.
        handoff_suggested: the docs/design.md §5.4 handoff trigger fired.
        warn_threshold: the score from which the prompt hook warns (config
            ``warnThreshold``).
        goal: the goal the score used (remembered for the session), or ``None``
            (a record without it reads as ``None``).
        usable_window: where the host compacts, in tokens, or ``None`` (absent
            in older records).
        growth_per_turn: the recent turns' median context growth, in tokens, or ``None``.
        loop: the action loop going on, in a few words (``npm test ×3``), or ``None``.
        loop_key: what identifies that loop (its kind and calls), so the prompt hook tells
            the model once per loop; ``None`` without a loop.
        input_files: the files besides the transcript the score was made with (config
            files, the goal file, the host's window), whether they existed or not.
        inputs: :func:`inputs_digest` of ``input_files`` before they were read for the
            score; ``None`` in a record that has none (never current).
        compactions: the session's compactions so far (0 in older records).
        reinject: what the latest compaction dropped, as the prompt hook gives it back to
            the model (:meth:`driftguard.render.ledger.EntryView.reminder`; secrets
            gated), or ``None``.
    """

    session_id: str
    cli: str
    transcript_path: str
    transcript_size: int
    ts: float
    score: int
    state: str
    factors: Mapping[str, float | None]
    messages: int
    context_tokens: int
    context_window: int
    tokens_estimated: bool
    handoff_suggested: bool
    warn_threshold: int
    goal: str | None = None
    usable_window: int | None = None
    growth_per_turn: int | None = None
    loop: str | None = None
    loop_key: str | None = None
    input_files: tuple[str, ...] = ()
    inputs: str | None = None
    compactions: int = 0
    reinject: str | None = None

    def to_record(self) -> dict[str, Any]:
        """The JSON object written to ``<key>.json``."""
        return {
            "v": CACHE_VERSION,
            "session_id": self.session_id,
            "cli": self.cli,
            "transcript_path": self.transcript_path,
            "transcript_size": self.transcript_size,
            "ts": self.ts,
            "score": self.score,
            "state": self.state,
            "factors": dict(self.factors),
            "messages": self.messages,
            "context_tokens": self.context_tokens,
            "context_window": self.context_window,
            "tokens_estimated": self.tokens_estimated,
            "handoff_suggested": self.handoff_suggested,
            "warn_threshold": self.warn_threshold,
            "goal": self.goal,
            "usable_window": self.usable_window,
            "growth_per_turn": self.growth_per_turn,
            "loop": self.loop,
            "loop_key": self.loop_key,
            "input_files": list(self.input_files),
            "inputs": self.inputs,
            "compactions": self.compactions,
            "reinject": self.reinject,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> LiveStatus | None:
        """The status in ``record``, or ``None`` when any field is missing or mistyped."""
        if record.get("v") != CACHE_VERSION:
            return None
        factors = record.get("factors")
        if not isinstance(factors, dict) or not all(
            isinstance(k, str) and (v is None or _is_number(v)) for k, v in factors.items()
        ):
            return None
        strings = ("session_id", "cli", "transcript_path", "state")
        ints = ("transcript_size", "score", "messages", "context_tokens", "context_window")
        flags = ("tokens_estimated", "handoff_suggested")
        if not all(isinstance(record.get(name), str) for name in strings):
            return None
        if not all(_is_int(record.get(name)) for name in (*ints, "warn_threshold")):
            return None
        if not all(isinstance(record.get(name), bool) for name in flags):
            return None
        if not _is_number(record.get("ts")) or record["state"] not in _STATES:
            return None
        if not 0 <= record["score"] <= 100:
            return None
        goal = record.get("goal")
        files = record.get("input_files")

        def optional_int(name: str) -> int | None:
            value = record.get(name)
            return value if isinstance(value, int) and _is_int(value) and value > 0 else None

        def optional_text(name: str) -> str | None:
            value = record.get(name)
            return value if isinstance(value, str) and value else None

        return cls(
            session_id=record["session_id"],
            cli=record["cli"],
            transcript_path=record["transcript_path"],
            transcript_size=record["transcript_size"],
            ts=float(record["ts"]),
            score=record["score"],
            state=record["state"],
            factors={k: (None if v is None else float(v)) for k, v in factors.items()},
            messages=record["messages"],
            context_tokens=record["context_tokens"],
            context_window=record["context_window"],
            tokens_estimated=record["tokens_estimated"],
            handoff_suggested=record["handoff_suggested"],
            warn_threshold=record["warn_threshold"],
            goal=goal if isinstance(goal, str) and goal else None,
            usable_window=optional_int("usable_window"),
            growth_per_turn=optional_int("growth_per_turn"),
            loop=optional_text("loop"),
            loop_key=optional_text("loop_key"),
            input_files=tuple(files)
            if isinstance(files, list) and all(isinstance(name, str) for name in files)
            else (),
            inputs=optional_text("inputs") if isinstance(files, list) else None,
            compactions=optional_int("compactions") or 0,
            reinject=optional_text("reinject"),
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def inputs_digest(files: Iterable[str]) -> str:
    """The hex sha256 of each file's name and content, in order: a file that does not
    exist, a folder, or one that cannot be read each count as such (so creating, editing
    or deleting any of them changes the digest)."""
    digest = hashlib.sha256()
    for name in files:
        digest.update(os.fsencode(name) + b"\0")
        try:
            with open(name, "rb") as handle:
                digest.update(b"f" + hashlib.sha256(handle.read()).digest())
        except (FileNotFoundError, NotADirectoryError):
            digest.update(b"-")
        except IsADirectoryError:
            digest.update(b"d")
        except OSError as exc:
            digest.update(f"e{exc.errno}".encode("ascii"))
    return digest.hexdigest()


def is_current(status: LiveStatus) -> bool:
    """Whether the files ``status`` was scored with (config, goal, host window) are as
    they were then (module doc); ``False`` for a record that does not list them."""
    return status.inputs is not None and inputs_digest(status.input_files) == status.inputs


def read_status(session_id: str) -> LiveStatus | None:
    """The cached score of ``session_id``, or ``None`` (none yet, corrupt, other version)."""
    record = read_json_object(status_path(session_id))
    return LiveStatus.from_record(record) if record is not None else None


def write_status(status: LiveStatus) -> Path:
    """Atomically replace the cached score of ``status.session_id``; returns the file."""
    target = status_path(status.session_id)
    write_json_atomic(target, status.to_record())
    return target


def loop_path(session_id: str) -> Path:
    """``cache/<key>.loop.json``: the loop the prompt hook last told the model about."""
    return paths.cache_dir() / f"{session_key(session_id)}.loop.json"


def read_told_loop(session_id: str) -> str | None:
    """The key of the loop the prompt hook last told the model about, or ``None``."""
    record = read_json_object(loop_path(session_id))
    value = record.get("loop") if record is not None else None
    return value if isinstance(value, str) and value else None


def write_told_loop(session_id: str, loop_key: str) -> Path:
    """Atomically record that the model was told about the loop ``loop_key``."""
    target = loop_path(session_id)
    write_json_atomic(target, {"loop": loop_key, "ts": time.time()})
    return target


def read_warned(session_id: str) -> bool:
    """Whether the prompt hook has warned about the current crossing (default ``False``)."""
    record = read_json_object(warn_path(session_id))
    return bool(record is not None and record.get("above") is True)


def write_warned(session_id: str, above: bool, score: int) -> Path:
    """Atomically record whether the score is above the threshold (warned) or back below
    it (re-armed); returns the file."""
    target = warn_path(session_id)
    write_json_atomic(target, {"above": above, "score": score, "ts": time.time()})
    return target


@dataclass(frozen=True, slots=True)
class CompactionNote:
    """What the model was told of a session's compactions.

    Attributes:
        told: how many of its compactions the model was told about (or happened before
            driftguard's hooks first saw the session).
        pending: the host marked a compaction (its session-start hook with source
            ``compact``) that the status cache had not seen yet.
    """

    told: int
    pending: bool = False


def _note_path(session_id: str, suffix: str) -> Path:
    return paths.cache_dir() / f"{session_key(session_id)}{suffix}"


def read_compaction_note(session_id: str) -> CompactionNote | None:
    """The session's :class:`CompactionNote`, or ``None`` when none was written (or it
    cannot be read)."""
    record = read_json_object(_note_path(session_id, ".compaction.json"))
    told = record.get("told") if record is not None else None
    if record is None or not isinstance(told, int) or isinstance(told, bool) or told < 0:
        return None
    return CompactionNote(told, record.get("pending") is True)


def write_compaction_note(session_id: str, note: CompactionNote) -> Path:
    """Atomically replace the session's :class:`CompactionNote`; returns the file."""
    target = _note_path(session_id, ".compaction.json")
    write_json_atomic(target, {"told": note.told, "pending": note.pending, "ts": time.time()})
    return target


def read_near(session_id: str) -> int | None:
    """After how many compactions the prompt hook last warned that the host would compact
    soon (``None``: never)."""
    record = read_json_object(_note_path(session_id, ".near.json"))
    value = record.get("compactions") if record is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def write_near(session_id: str, compactions: int) -> Path:
    """Atomically record that the prompt hook warned of the coming compaction, in the
    cycle after ``compactions`` compactions (one warning per cycle)."""
    target = _note_path(session_id, ".near.json")
    write_json_atomic(target, {"compactions": compactions, "ts": time.time()})
    return target


def read_host_window(session_id: str) -> int | None:
    """The context window (tokens) the host last reported for the session, if any."""
    record = read_json_object(host_path(session_id))
    if record is None:
        return None
    window = record.get("context_window")
    if isinstance(window, int) and not isinstance(window, bool) and window > 0:
        return window
    return None


def write_host_window(session_id: str, window: int) -> bool:
    """Remember the host's context window (tokens) unless it is already recorded.

    Returns whether the file was written (only when the value changed).
    """
    if window <= 0 or read_host_window(session_id) == window:
        return False
    write_json_atomic(host_path(session_id), {"context_window": window, "ts": time.time()})
    return True


def prune(retention_days: int, now: float | None = None) -> int:
    """Delete cache files (and stray temporary files) not modified for ``retention_days``.

    Returns how many files were removed; problems with single files are ignored.
    """
    folder = paths.cache_dir()
    cutoff = (time.time() if now is None else now) - retention_days * _SECONDS_PER_DAY
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        ours = name.endswith(_SUFFIXES) or (name.startswith(".") and name.endswith(".tmp"))
        if not ours:
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
    return removed
