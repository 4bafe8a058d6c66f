"""Atomic small-file writes for driftguard's own state (status-line cache, hook markers,
the handoff files).

:func:`write_atomic` writes a temporary file next to the target (created with ``O_EXCL``,
so two writers never share one), flushes it to disk, then renames it over the target with
``os.replace``: a reader sees the old file or the new one, never a half-written one, and a
crash leaves at most a stray ``.<name>.<pid>.<ns>.tmp`` behind. Standard library only, so
the status line and the prompt hook can import it cheaply.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["read_json_object", "write_atomic", "write_json_atomic"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def write_atomic(path: Path, data: bytes, *, mode: int = 0o600, dir_mode: int = 0o700) -> None:
    """Replace ``path`` with ``data`` atomically (temporary file, ``fsync``, ``os.replace``).

    Args:
        path: the file to write; missing parent folders are created with ``dir_mode``.
        data: the whole new content.
        mode: permission bits of a new file (the umask applies, as for ``open``).
        dir_mode: permission bits of folders created on the way.

    Raises:
        OSError: the folder cannot be created or written; the target is then unchanged.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=dir_mode)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _BINARY, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


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
