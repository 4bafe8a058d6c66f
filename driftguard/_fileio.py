"""The one atomic writer of driftguard's own files and of the hosts' config files: history
goals, hook pointers, the status-line and live caches, the handoff files, and what
``driftguard setup`` writes (its edits, backups and ledger).

:func:`write_atomic` writes a temporary file next to the target (created with ``O_EXCL``,
so two writers never share one), flushes it to disk, then renames it over the target with
``os.replace``: a reader sees the old file or the new one, never a half-written one. When
anything fails the temporary file is removed again, so a failed write leaves the target
as it was and nothing beside it; only a crash or a kill can leave a stray
``.<name>.driftguard-<pid>-<ns>.tmp`` behind. The name says whose it is and which process
wrote it (:func:`temporary_owner`), so a later run can remove it once that process is gone
(``driftguard setup`` does, next to the configs it edits; history pruning and the live
cache's clean-up remove old ones). :func:`complete_temporary` and :func:`link_new` are
its two halves for a file that must never replace another (a backup, a kept handoff): the
complete temporary file is linked under a name that is still free.

Standard library only, so the status line and the prompt hook can import it cheaply.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

__all__ = [
    "complete_temporary",
    "fsync_folder",
    "is_within",
    "link_new",
    "read_json_object",
    "temporary_owner",
    "write_atomic",
    "write_json_atomic",
]


def is_within(folder: Path, project: Path) -> bool:
    """Whether ``folder`` is ``project`` or lies inside it, both made absolute with every
    symlink resolved (never raises: a loop or a missing part resolves as far as it can)."""
    inner, outer = Path(os.path.realpath(folder)), Path(os.path.realpath(project))
    return inner == outer or inner.is_relative_to(outer)


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
TEMP_SUFFIX = ".tmp"
"""The suffix of every temporary file (``.<name>.driftguard-<pid>-<ns>.tmp``, next to its
target)."""
TEMP_MARK = "driftguard"
"""The word in a temporary file's name that makes it driftguard's."""
_TEMPORARY = re.compile(
    r"\.(?P<name>.+)\.(?:" + TEMP_MARK + r"-(?P<pid>[0-9]{1,10})-[0-9]+"
    r"|(?P<old_pid>[0-9]{1,10})\.[0-9]{6,})" + re.escape(TEMP_SUFFIX)
)
"""A temporary file's name: ``.<name>.driftguard-<pid>-<ns>.tmp``, or the
``.<name>.<pid>.<ns>.tmp`` of driftguard before the name carried the mark (the ns of
``time.monotonic_ns`` have many digits)."""


def temporary_owner(name: str, target: str) -> int | None:
    """The pid of the process that wrote ``name`` as a temporary file standing in for the
    file named ``target`` (:func:`complete_temporary`'s naming, current or former), else
    ``None``: a name of another shape, or another target's, is nobody's here."""
    found = _TEMPORARY.fullmatch(name)
    if found is None or found["name"] != target:
        return None
    return int(found["pid"] or found["old_pid"])


def complete_temporary(
    path: Path, data: bytes, *, mode: int = 0o600, exact_mode: bool = False
) -> Path:
    """``data`` in a new temporary file next to ``path``, written whole and ``fsync``-ed.

    Args:
        path: the file the temporary one stands in for (its folder must exist).
        data: the whole content.
        mode: permission bits of the temporary file (the umask applies, as for ``open``).
        exact_mode: give it exactly ``mode``, whatever the umask (a host's config file
            keeps its own bits).

    Returns:
        The temporary file, ``.<name>.driftguard-<pid>-<ns>.tmp`` in ``path``'s folder
        (``<ns>``: :func:`time.monotonic_ns`).

    Raises:
        OSError: it cannot be created or written whole; nothing is left behind.
    """
    temp = path.with_name(
        f".{path.name}.{TEMP_MARK}-{os.getpid()}-{time.monotonic_ns()}{TEMP_SUFFIX}"
    )
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _BINARY, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if exact_mode:
            os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return temp


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int = 0o600,
    dir_mode: int = 0o700,
    exact_mode: bool = False,
    sync_folder: bool = False,
) -> None:
    """Replace ``path`` with ``data`` atomically (temporary file, ``fsync``, ``os.replace``).

    Args:
        path: the file to write; missing parent folders are created with ``dir_mode``.
        data: the whole new content.
        mode: permission bits of a new file (the umask applies, as for ``open``).
        dir_mode: permission bits of folders created on the way.
        exact_mode: give the file exactly ``mode``, whatever the umask.
        sync_folder: also ``fsync`` the folder, so that the rename itself survives a
            crash (where the OS allows it); for files a person keeps (a host's config).

    Raises:
        OSError: the folder cannot be created or written; the target is then unchanged
            and no temporary file is left.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=dir_mode)
    temp = complete_temporary(path, data, mode=mode, exact_mode=exact_mode)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    if sync_folder:
        fsync_folder(path.parent)


def link_new(temporary: Path, name: Path) -> bool:
    """Give the complete ``temporary`` file the name ``name`` unless that name is taken
    (``False``). A hard link where the file system has them (atomic, never replaces), else
    a rename after checking that the name is free. The temporary name stays (the caller
    removes it).

    Raises:
        OSError: neither works.
    """
    try:
        os.link(temporary, name)
    except FileExistsError:
        return False
    except OSError:
        if name.exists() or name.is_symlink():
            return False
        os.rename(temporary, name)
    return True


def fsync_folder(folder: Path) -> None:
    """Make a rename or link in ``folder`` durable where the OS allows it (best effort)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def write_json_atomic(path: Path, value: Any, *, mode: int = 0o600) -> None:
    """:func:`write_atomic` of ``value`` as one line of compact JSON (UTF-8)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    write_atomic(path, (text + "\n").encode("utf-8"), mode=mode)


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or ``None`` when it is missing, unreadable, not JSON or
    not an object (never raises: these files are caches and markers)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to decode
        return None
    return value if isinstance(value, dict) else None
