"""The handoff loop on disk: a session saves its handoff in the project, the next session
starts with it.

Files, in ``<project>/.driftguard/`` (created with mode ``0o700`` and a ``.gitignore``
holding ``*``, so nothing in it is ever committed; an existing folder or ``.gitignore`` is
left as it is). Every file is written with mode ``0o600`` (readable by the user only, as
driftguard's history and cache files): a file written over an older one gets that mode
too, since it replaces it::

    handoff.md        the handoff: the pre-filled draft of docs/design.md §6 (five sections,
                      secrets already gated), which the model then completes in place
    handoff.json      the checkpoint: {"v": 1, "id", "session_id", "cli", "transcript",
                      "project", "created" (epoch s), "created_at" (ISO 8601 UTC),
                      "score", "state", "factors" (points, one decimal), "handoff_suggested",
                      "files_touched", "draft_sha256" (of the draft as written)}
    handoff.pending   {"id", "ts"}: a handoff is waiting for the next session
    handoff.consumed  {"id", "session_id", "ts"}: which session took the last one
    handoff.prev.md   the previous handoff.md, kept when a new draft replaces a draft
    handoff-<UTC time>.md  a handoff someone edited, kept when a new draft replaces it

**One definition of draft, edited and completed** (:func:`handoff_progress`; the
status, the save, the hook and the tools all ask it). ``handoff.md`` is a *draft* while it
is byte for byte the draft driftguard wrote (the checkpoint's ``draft_sha256``); *edited*
once anyone changed it while placeholders of the draft (:func:`placeholders_left`) are
left; *completed* once it was changed and none is left. A checkpoint from driftguard 0.1
has no digest: its handoff counts as changed. Any change counts, however small, because
it is someone's work: losing a line the user typed is worse than keeping a file too many.

**A handoff someone wrote is never lost**. A new save replaces a draft (kept as
``handoff.prev.md``). An edited or completed handoff that still waits for the next session
(the pending marker names it) is not replaced: :func:`save_handoff` raises
:class:`~driftguard.errors.RefusedPathError` unless ``replace`` is given. Any other edited
or completed handoff — or one replaced with ``replace`` — is first kept as
``handoff-<UTC time>.md`` (a new name, never overwriting a file), and the result names it
(:attr:`SavedHandoff.kept`).

**An unfinished handoff says so**. The text the ``SessionStart`` hook gives the new
session says what the handoff is: a draft is the facts driftguard read, not a handoff the
previous session wrote; an edited one was completed only in part.

:func:`save_handoff` writes ``handoff.md``, then the checkpoint, then the pending marker —
each atomically (:func:`driftguard._fileio.write_atomic`) — so the marker never points at
a half-written handoff. :func:`take_handoff` (the ``SessionStart`` hook) reads them and
*claims* the handoff by deleting the pending marker: the deletion succeeds for exactly
one session, so a handoff is injected at most once even when two sessions start at the
same moment, and a consumed handoff is never injected again. The marker is not sticky: it
blocks nothing (a new save writes a new one; a session that finds none starts normally)
and is gone once read. The session that saved the handoff does not take it back when it
is resumed or compacted (same session id); the marker then waits for the next session.

**Only a handoff this machine saved is handed over.** A cloned repository could ship a
``.driftguard/`` with a handoff and a pending marker, and its text would reach the next
session as "the previous session left this". So :func:`save_handoff` also records each
handoff it writes in driftguard's own state (``~/.driftcli/handoffs/<id>.json``: the
project and the sha256 of its checkpoint), and :func:`take_handoff` hands a waiting one
over only when such a record matches; a handoff git tracks is never handed over either.
Otherwise it raises :class:`~driftguard.errors.UntrustedHandoffError` (one line: which,
and that nothing was injected), and :func:`handoff_status` says the same to the user. The
handoff itself may be completed by the model or the user in place: only the checkpoint,
which nobody edits, is compared.

Before it reaches the new session's context, ``handoff.md`` passes the secret gate again
(the model may have added text to the draft), and is cut to :data:`CONTEXT_CHARS`.

**Where the files go**: only into a project the command, the server or
the hook was started for — its working directory, ``$CLAUDE_PROJECT_DIR``,
``--project``, the MCP client's roots — never into a folder a session file names. The
engine picks among those projects the one the session belongs to, by the working
directory the session recorded (:func:`driftguard.engine.handoff.handoff_target`); a
session of another folder is not saved anywhere (the caller returns its handoff as text
and says so). Nothing is read or written through a symlink from the project folder down:
a ``.driftguard`` that is a symlink, or a handoff file in it that is one, raises
:class:`~driftguard.errors.RefusedPathError` before anything is touched (a checked-out
repository could carry ``.driftguard -> ~/.ssh``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from driftguard import paths
from driftguard._fileio import (
    complete_temporary,
    link_new,
    read_json_object,
    write_atomic,
    write_json_atomic,
)
from driftguard.errors import RefusedPathError, UntrustedHandoffError

__all__ = [
    "CHECKPOINT_VERSION",
    "CONTEXT_CHARS",
    "HANDOFF_DIR",
    "PLACEHOLDERS",
    "HandoffFiles",
    "HandoffProgress",
    "HandoffStatus",
    "ProgressState",
    "SavedHandoff",
    "TakenHandoff",
    "check_no_symlinks",
    "handoff_context",
    "handoff_files",
    "handoff_progress",
    "handoff_status",
    "placeholders_left",
    "save_handoff",
    "take_handoff",
]

HANDOFF_DIR: Final = ".driftguard"
"""The folder in the project that holds the handoff files."""
CHECKPOINT_VERSION: Final = 1
CONTEXT_CHARS: Final = 9_000
"""Characters of ``handoff.md`` put into the next session's context. Claude Code moves
``additionalContext`` over 10,000 characters into a file (docs/host-configs.md §4.2); this keeps
the handoff itself, with its header, in the context."""
_FILE_MODE: Final = 0o600
"""Mode of the handoff files: readable by the user only, like driftguard's history and
cache files (the draft quotes the transcript; its secrets are gated, its prose is not)."""
_DIR_MODE: Final = 0o700
"""Mode of ``.driftguard/`` when driftguard creates it (an existing folder is left as it is)."""


@dataclass(frozen=True, slots=True)
class HandoffFiles:
    """Where the handoff files of one project live."""

    folder: Path
    handoff: Path
    checkpoint: Path
    pending: Path
    consumed: Path
    previous: Path
    gitignore: Path


def handoff_files(project: Path) -> HandoffFiles:
    """The handoff files of ``project`` (nothing is created)."""
    folder = project / HANDOFF_DIR
    return HandoffFiles(
        folder=folder,
        handoff=folder / "handoff.md",
        checkpoint=folder / "handoff.json",
        pending=folder / "handoff.pending",
        consumed=folder / "handoff.consumed",
        previous=folder / "handoff.prev.md",
        gitignore=folder / ".gitignore",
    )


def check_no_symlinks(files: HandoffFiles) -> None:
    """Refuse a ``.driftguard`` folder, or a handoff file in it, that is a symlink.

    Raises:
        RefusedPathError: one of them is a symlink (the message names it and says what
            to do); nothing has been read or written.
    """
    for path in (
        files.folder,
        files.gitignore,
        files.handoff,
        files.checkpoint,
        files.pending,
        files.consumed,
        files.previous,
    ):
        if path.is_symlink():
            raise RefusedPathError(
                f"{path} is a symlink: driftguard reads and writes handoff files only in a "
                f"real {HANDOFF_DIR} folder of the project, never through a link; remove "
                "the link (a new save creates the folder)"
            )


@dataclass(frozen=True, slots=True)
class SavedHandoff:
    """What :func:`save_handoff` wrote: the new draft, its checkpoint, and — when the
    ``handoff.md`` it replaced had been edited or completed by someone — where that one
    was kept (``kept``) and how far it was (``kept_progress``); ``previous``: where the
    untouched draft it replaced was kept (``handoff.prev.md``), else ``None``."""

    handoff: Path
    checkpoint: Path
    record: dict[str, Any]
    kept: Path | None = None
    previous: Path | None = None
    kept_progress: HandoffProgress | None = None


@dataclass(frozen=True, slots=True)
class TakenHandoff:
    """A handoff the ``SessionStart`` hook claimed for a new session."""

    text: str
    """``handoff.md`` after the secret gate (not yet cut to length)."""
    checkpoint: dict[str, Any]
    path: Path
    progress: HandoffProgress
    """How far it was completed (:func:`handoff_progress`, of the file as read)."""


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _keep_completed(files: HandoffFiles, data: bytes, now: float) -> Path:
    """Write ``data`` (an edited or completed handoff.md) to a new ``handoff-<UTC time>.md`` next to
    it, never over an existing file (a suffix ``-2``, ``-3`` … is added); returns it.

    Raises:
        OSError: it cannot be written.
    """
    stamp = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H-%M-%SZ")
    for attempt in range(1, 1000):
        suffix = "" if attempt == 1 else f"-{attempt}"
        target = files.folder / f"handoff-{stamp}{suffix}.md"
        temp = complete_temporary(target, data, mode=_FILE_MODE)
        try:
            if not link_new(temp, target):  # never overwrites: a taken name is skipped
                continue
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        return target
    raise OSError(f"no free name for a kept handoff in {files.folder}")


ProgressState = Literal["draft", "edited", "completed"]
"""How far a ``handoff.md`` was completed (:func:`handoff_progress`)."""


@dataclass(frozen=True, slots=True)
class HandoffProgress:
    """How far a ``handoff.md`` was completed: its :data:`ProgressState` and the draft's
    placeholders it still holds."""

    state: ProgressState
    placeholders: int

    @property
    def edited(self) -> bool:
        """Someone changed it since driftguard wrote it: a save keeps it (module doc)."""
        return self.state != "draft"

    def describe(self) -> str:
        """The words every output uses for it: ``an untouched draft (6 placeholders
        left)``, ``edited (6 placeholders left)``, ``completed``."""
        left = f"{self.placeholders} placeholder{'s' * (self.placeholders != 1)} left"
        if self.state == "completed":
            return "completed"
        if self.state == "edited":
            return f"edited ({left})"
        return f"an untouched draft ({left})" if self.placeholders else "an untouched draft"


def handoff_progress(data: bytes, checkpoint: Mapping[str, Any] | None) -> HandoffProgress:
    """How far the ``handoff.md`` holding ``data`` was completed, given its checkpoint:
    the one definition of draft, edited and completed (module doc)."""
    left = placeholders_left(data.decode("utf-8", errors="replace"))
    if (checkpoint or {}).get("draft_sha256") == _sha256(data):
        return HandoffProgress("draft", left)
    return HandoffProgress("edited" if left else "completed", left)


def _edited(files: HandoffFiles) -> tuple[bytes, HandoffProgress] | None:
    """The bytes of ``handoff.md`` and how far it was completed, when someone changed it
    since driftguard wrote it (:func:`handoff_progress`), else ``None`` (no file, or the
    draft as written)."""
    try:
        data = files.handoff.read_bytes()
    except FileNotFoundError:
        return None
    progress = handoff_progress(data, read_json_object(files.checkpoint))
    return (data, progress) if progress.edited else None


def _waiting(files: HandoffFiles) -> bool:
    """A handoff waits for the next session: the pending marker names the checkpoint."""
    marker = read_json_object(files.pending)
    checkpoint = read_json_object(files.checkpoint)
    return (
        marker is not None and checkpoint is not None and marker.get("id") == checkpoint.get("id")
    )


def _ensure_folder(files: HandoffFiles) -> None:
    files.folder.mkdir(mode=_DIR_MODE, exist_ok=True)
    if not files.gitignore.exists():
        write_atomic(
            files.gitignore,
            b"# driftguard's handoff files: never committed\n*\n",
            mode=_FILE_MODE,
        )


def save_handoff(
    project: Path,
    draft_text: str,
    about: Mapping[str, Any],
    *,
    now: float | None = None,
    replace: bool = False,
) -> SavedHandoff:
    """Save the handoff draft and its checkpoint for the next session in ``project``.

    Writes ``handoff.md`` (``draft_text``), ``handoff.json`` (``about``, the facts of the
    session and its score the engine records, with the checkpoint's own fields) and
    ``handoff.pending``,
    creating ``.driftguard/`` and its ``.gitignore`` first. A previous ``handoff.md`` is
    kept: as ``handoff.prev.md`` when it is the draft as driftguard wrote it, else (someone
    edited or completed it) as a new ``handoff-<UTC time>.md``, named in the result
    (module doc).
    ``project`` must exist, and be one the caller was started for
    (:func:`driftguard.engine.handoff.handoff_target`).

    Args:
        replace: replace an edited or completed handoff that still waits for the next
            session (it is kept as ``handoff-<UTC time>.md``); without it such a handoff
            is refused.

    Raises:
        RefusedPathError: ``.driftguard`` or a handoff file in it is a symlink
            (:func:`check_no_symlinks`), or an edited or completed handoff still waits
            for the next session and ``replace`` was not given; nothing was written.
        OSError: the project folder cannot be written.
    """

    files = handoff_files(project)
    check_no_symlinks(files)
    created = time.time() if now is None else now
    edited = _edited(files)
    if edited is not None and _waiting(files) and not replace:
        raise RefusedPathError(
            f"{files.handoff} was {edited[1].describe()} and still waits for the next "
            "session started "
            "in this project: not replaced. Start that session to use it, or replace it "
            "(handoff --write --replace, save_handoff with replace=true); it is then kept "
            "as handoff-<UTC time>.md"
        )
    _ensure_folder(files)
    kept = previous = None
    if edited is not None:
        kept = _keep_completed(files, edited[0], created)
    else:
        with contextlib.suppress(FileNotFoundError):
            write_atomic(files.previous, files.handoff.read_bytes(), mode=_FILE_MODE)
            previous = files.previous
    handoff_id = uuid.uuid4().hex
    draft = draft_text.encode("utf-8")
    record: dict[str, Any] = {
        "v": CHECKPOINT_VERSION,
        "id": handoff_id,
        **about,
        "project": str(project),
        "created": created,
        "created_at": _iso(created),
        "draft_sha256": _sha256(draft),
    }
    write_atomic(files.handoff, draft, mode=_FILE_MODE)
    write_json_atomic(files.checkpoint, record, mode=_FILE_MODE)
    _write_record(project, handoff_id, files.checkpoint.read_bytes(), created)
    write_json_atomic(files.pending, {"id": handoff_id, "ts": created}, mode=_FILE_MODE)
    return SavedHandoff(
        handoff=files.handoff,
        checkpoint=files.checkpoint,
        record=record,
        kept=kept,
        previous=previous,
        kept_progress=edited[1] if edited is not None else None,
    )


def take_handoff(project: Path, session_id: str | None) -> TakenHandoff | None:
    """Claim the handoff waiting in ``project`` for the session ``session_id``.

    Returns ``None`` — and leaves everything as it is — when no handoff is waiting, its
    files are missing or do not match, it was saved by this same session, or the gate
    withholds it whole; else deletes the pending marker (the claim), records the
    consumer in ``handoff.consumed`` (best effort: the handoff is returned even when that
    record cannot be written) and returns the gated text. Never raises for a missing or
    corrupt file.

    Raises:
        OSError: the marker cannot be deleted (nothing is claimed then).
        RefusedPathError: ``.driftguard`` or a handoff file in it is a symlink (nothing is
            read).
        UntrustedHandoffError: the waiting handoff was not saved by driftguard on this
            machine, or git tracks it (module doc; nothing is claimed).
    """
    from driftguard.secrets import gate

    files = handoff_files(project)
    check_no_symlinks(files)
    marker = read_json_object(files.pending)
    if marker is None:
        return None
    checkpoint = read_json_object(files.checkpoint)
    if checkpoint is None or checkpoint.get("id") != marker.get("id"):
        return None
    if session_id is not None and checkpoint.get("session_id") == session_id:
        return None
    why = _untrusted(project, files, checkpoint)
    if why is not None:
        raise UntrustedHandoffError(
            f"{files.folder} holds a waiting handoff that {why}: not handed over "
            "(read it yourself if you trust it)"
        )
    try:
        data = files.handoff.read_bytes()
    except OSError:
        return None
    gated = gate(data.decode("utf-8", errors="replace"))
    if gated.text is None or not gated.text.strip():
        return None
    try:
        os.unlink(files.pending)
    except FileNotFoundError:
        return None  # another session claimed it first
    with contextlib.suppress(OSError):  # claimed already: never lose the handoff over this
        write_json_atomic(
            files.consumed,
            {"id": checkpoint.get("id"), "session_id": session_id, "ts": time.time()},
            mode=_FILE_MODE,
        )
    return TakenHandoff(
        text=gated.text,
        checkpoint=checkpoint,
        path=files.handoff,
        progress=handoff_progress(data, checkpoint),
    )


def _record_path(handoff_id: str) -> Path:
    """``~/.driftcli/handoffs/<id>.json``: the record of a handoff saved here (the id is
    driftguard's own hex uuid; anything else is no record)."""
    return paths.handoffs_dir() / f"{handoff_id}.json"


def _write_record(project: Path, handoff_id: str, checkpoint: bytes, created: float) -> None:
    """Record that driftguard saved the handoff ``handoff_id`` in ``project``.

    Raises:
        OSError: the record cannot be written (the handoff would never be handed over).
    """
    record = {
        "id": handoff_id,
        "project": str(project.resolve()),
        "checkpoint_sha256": _sha256(checkpoint),
        "created": created,
    }
    write_json_atomic(_record_path(handoff_id), record, mode=_FILE_MODE)


_HEX_ID_CHARS: Final = frozenset("0123456789abcdef")


def _untrusted(project: Path, files: HandoffFiles, checkpoint: Mapping[str, Any]) -> str | None:
    """Why the waiting handoff may not be handed over (``None``: it may): ``"driftguard
    did not save on this machine"`` without a matching record, ``"git tracks"`` when the
    repository holds it."""
    handoff_id = checkpoint.get("id")
    if not isinstance(handoff_id, str) or not handoff_id or set(handoff_id) - _HEX_ID_CHARS:
        return "driftguard did not save on this machine"
    record = read_json_object(_record_path(handoff_id))
    try:
        digest = _sha256(files.checkpoint.read_bytes())
    except OSError:
        return "driftguard did not save on this machine"
    if (
        record is None
        or record.get("project") != str(project.resolve())
        or record.get("checkpoint_sha256") != digest
    ):
        return "driftguard did not save on this machine"
    if _tracked_by_git(project):
        return "git tracks (a repository's own file)"
    return None


def _tracked_by_git(project: Path) -> bool:
    """Whether git tracks a file of the project's ``.driftguard/`` (``False`` without git
    or outside a repository)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(project), "ls-files", "-z", "--", HANDOFF_DIR],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and bool(done.stdout.strip(b"\0"))


@dataclass(frozen=True, slots=True)
class HandoffStatus:
    """The project's handoff, as ``driftguard handoff --status`` tells it.

    Attributes:
        waiting: a handoff waits for the next session (its pending marker names it).
        path: its ``handoff.md``.
        saved_at: when it was saved, seconds since the epoch, or ``None``.
        saved_by: the session that saved it (``"<cli> <session id>"``), or ``None``.
        placeholders: the draft's placeholders it still holds.
        untrusted: why it will not be handed over (module doc), or ``None``.
        progress: how far it was completed (:func:`handoff_progress`), or ``None`` when
            none waits or its ``handoff.md`` cannot be read.
    """

    waiting: bool
    path: Path
    saved_at: float | None = None
    saved_by: str | None = None
    placeholders: int = 0
    untrusted: str | None = None
    progress: HandoffProgress | None = None


def handoff_status(project: Path) -> HandoffStatus:
    """The handoff waiting in ``project``, if any, and whether it will be handed over.
    Reads only; never raises for a missing or corrupt file.

    Raises:
        RefusedPathError: ``.driftguard`` or a handoff file in it is a symlink.
    """
    files = handoff_files(project)
    check_no_symlinks(files)
    marker = read_json_object(files.pending)
    checkpoint = read_json_object(files.checkpoint)
    if marker is None or checkpoint is None or checkpoint.get("id") != marker.get("id"):
        return HandoffStatus(False, files.handoff)
    try:
        progress: HandoffProgress | None = handoff_progress(files.handoff.read_bytes(), checkpoint)
    except OSError:
        progress = None
    created = checkpoint.get("created")
    session = checkpoint.get("session_id")
    cli = checkpoint.get("cli")
    return HandoffStatus(
        waiting=True,
        path=files.handoff,
        saved_at=float(created) if isinstance(created, int | float) else None,
        saved_by=" ".join(str(x) for x in (cli, session) if x) or None,
        placeholders=progress.placeholders if progress is not None else 0,
        untrusted=_untrusted(project, files, checkpoint),
        progress=progress,
    )


def handoff_context(taken: TakenHandoff, project: Path) -> str:
    """The text given to the new session: where the handoff comes from, then the handoff.

    Facts, not instructions (a hook's context that reads like a system command is shown to
    the user instead; docs/host-configs.md §4.2).
    """
    checkpoint = taken.checkpoint
    about: list[str] = []
    session_id = checkpoint.get("session_id")
    if isinstance(session_id, str) and session_id:
        about.append(f"session {session_id}")
    created_at = checkpoint.get("created_at")
    if isinstance(created_at, str):
        about.append(f"saved {created_at}")
    score, state = checkpoint.get("score"), checkpoint.get("state")
    if isinstance(score, int) and isinstance(state, str):
        about.append(f"drift score {score}/100, {state}")
    try:
        shown = taken.path.relative_to(project)
    except ValueError:
        shown = taken.path
    detail = f" ({'; '.join(about)})" if about else ""
    text = taken.text.strip()
    left = taken.progress.placeholders
    placeholders = f"{left} placeholder{'s' * (left != 1)} in <angle brackets>"
    if len(text) > CONTEXT_CHARS:
        text = text[:CONTEXT_CHARS].rstrip() + f"\n\n[… cut; the whole handoff is in {shown}]"
    if taken.progress.state == "draft":
        holds = f": it still holds {placeholders}" if left else ""
        return (
            f"driftguard: the previous session in this project{detail} saved a handoff "
            f"draft in {shown} but did not complete it{holds}. "
            "The facts in it were read from that session's transcript and may be "
            "incomplete; nothing in it was checked or written by the previous session. "
            f"The unfinished draft:\n\n{text}\n"
        )
    if taken.progress.state == "edited":
        return (
            f"driftguard: the previous session in this project{detail} saved a handoff in "
            f"{shown} that was completed only in part: it still holds {placeholders}. "
            "Where it was not completed, it holds the facts driftguard read from that "
            "session's transcript, which may be incomplete. "
            f"The handoff as it was left:\n\n{text}\n"
        )
    return (
        f"driftguard: the previous session in this project{detail} left this handoff "
        f"for the next session, saved in {shown}:\n\n{text}\n"
    )


PLACEHOLDERS: tuple[str, ...] = (
    "<the request this session set out to do>",
    "<from the compaction summary and your memory>",
    "<what was done and verified, one line each>",
    "<what works now; what is half-done or broken>",
    "<what changed>",
    "<none found in the transcript; list any file you created or changed>",
    "<decisions still open and questions for the user>",
    "<the next concrete step>",
    "<conventions, gotchas, where to look first>",
    "<none edited since the last compaction; list any file you created or changed, "
    "also those the compaction summary names>",
)
"""The placeholders of the draft, for the model to replace; a handoff that still holds one
is not completed (:func:`handoff_progress`)."""


def placeholders_left(text: str) -> int:
    """How many of the draft's :data:`PLACEHOLDERS` ``text`` still holds (each occurrence
    counts); whether it is completed is :func:`handoff_progress`'s to say."""
    return sum(text.count(placeholder) for placeholder in PLACEHOLDERS)
