"""The pointers the hooks leave for the server and the command line: which transcript a
project's latest session writes (``~/.driftcli/pointers/<hash>.json``) and which one a
host process's session writes (``process-<pid>.json``, kept while that process runs).

Written by the session-start hook (atomically, :func:`driftguard._fileio.write_atomic`);
read by :mod:`driftguard.sessions.resolve`. A pointer that cannot be read costs a warning,
never the call.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from driftguard import _process, paths
from driftguard._fileio import write_atomic
from driftguard.adapters._common import load_record
from driftguard.model import CLI_NAMES, CliName

__all__ = [
    "PROCESS_PREFIX",
    "named_cli",
    "own_process_pointer",
    "pointed",
    "pointer_or_warning",
    "pointer_path",
    "pointer_pid",
    "pointer_record",
    "process_pointer_path",
    "read_pointer",
    "write_pointer",
    "write_process_pointer",
]


def pointer_path(project: Path) -> Path:
    """``~/.driftcli/pointers/<first 16 hex of sha256(resolved project path)>.json``."""
    key = hashlib.sha256(str(project.resolve()).encode("utf-8")).hexdigest()[:16]
    return paths.pointers_dir() / f"{key}.json"


def read_pointer(project: Path) -> tuple[Path, CliName | None] | None:
    """The transcript a hook last pointed at for ``project``, when it still exists
    (``None`` also when the pointer cannot be read: :func:`pointer_or_warning` says why)."""
    return pointer_or_warning(project)[0]


def pointer_or_warning(
    project: Path,
) -> tuple[tuple[Path, CliName | None] | None, str | None]:
    """:func:`read_pointer`, and a one-line warning when the pointer file exists but
    cannot be read (a missing pointer is no warning: there is simply none yet)."""
    record, problem = pointer_record(pointer_path(project))
    return (pointed(record) if record is not None else None), problem


def pointer_record(location: Path) -> tuple[dict[str, object] | None, str | None]:
    """The JSON object of a pointer file, and a one-line warning when it exists but
    cannot be read (missing or not an object: neither)."""
    try:
        raw = location.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"hook pointer not read: {location}: {exc.strerror or exc}"
    return load_record(raw), None


def pointed(record: Mapping[str, object]) -> tuple[Path, CliName | None] | None:
    """The transcript a pointer record names and its CLI, when the file still exists."""
    transcript = record.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return None
    path = Path(transcript)
    if not path.is_file():
        return None
    return path, named_cli(record)


def write_pointer(project: Path, transcript: Path, cli: CliName, session_id: str | None) -> Path:
    """Write the pointer for ``project`` (:func:`driftguard._fileio.write_atomic`: a
    temporary file, fsync-ed, renamed over the old pointer); returns its path.

    Raises:
        OSError: it cannot be written (the old pointer, if any, is unchanged).
    """
    target = pointer_path(project)
    record = {
        "transcript_path": str(transcript),
        "cli": cli,
        "session_id": session_id,
        "project": str(project),
        "ts": time.time(),
    }
    write_atomic(target, (json.dumps(record) + "\n").encode("utf-8"))
    return target


PROCESS_PREFIX = "process-"


def process_pointer_path(pid: int) -> Path:
    """``~/.driftcli/pointers/process-<pid>.json``: the session of the host process
    ``pid`` (a ``claude`` process)."""
    return paths.pointers_dir() / f"{PROCESS_PREFIX}{pid}.json"


def write_process_pointer(
    host: _process.ProcessInfo,
    project: Path,
    transcript: Path,
    cli: CliName,
    session_id: str | None,
) -> Path:
    """Point the host process ``host`` at ``transcript`` (atomically, as
    :func:`write_pointer`), and remove the pointers of host processes that have ended.

    Raises:
        OSError: it cannot be written (the old pointer, if any, is unchanged).
    """
    target = process_pointer_path(host.pid)
    record = {
        "transcript_path": str(transcript),
        "cli": cli,
        "session_id": session_id,
        "project": str(project),
        "pid": host.pid,
        "process_start": host.start,
        "process_name": host.name,
        "ts": time.time(),
    }
    write_atomic(target, (json.dumps(record) + "\n").encode("utf-8"))
    _prune_process_pointers(keep=target)
    return target


def _prune_process_pointers(keep: Path) -> None:
    """Remove the pointers of host processes that no longer run (a failure to read or
    remove one is left for the next time)."""
    try:
        entries = list(os.scandir(keep.parent))
    except OSError:
        return
    for entry in entries:
        pid = pointer_pid(entry.name)
        if pid is None or entry.path == str(keep):
            continue
        record, _ = pointer_record(Path(entry.path))
        start = record.get("process_start") if record is not None else None
        if not _process.is_running(pid, start if isinstance(start, str) else None):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def pointer_pid(name: str) -> int | None:
    """The pid of a ``process-<pid>.json`` file name, else ``None``."""
    if not (name.startswith(PROCESS_PREFIX) and name.endswith(".json")):
        return None
    digits = name[len(PROCESS_PREFIX) : -len(".json")]
    return int(digits) if digits.isdigit() else None


def own_process_pointer() -> tuple[dict[str, object] | None, str | None]:
    """The record of the pointer the ``SessionStart`` hook of this process's host wrote
    (module docstring, step 2), and a warning when it cannot be read. Looks at the
    ancestors only when some process pointer exists."""
    try:
        if not any(pointer_pid(name) is not None for name in os.listdir(paths.pointers_dir())):
            return None, None
    except OSError:
        return None, None
    for host in _process.ancestors():
        record, problem = pointer_record(process_pointer_path(host.pid))
        if problem is not None:
            return None, problem
        if record is None:
            continue
        start = record.get("process_start")
        if isinstance(start, str) and host.start is not None and start != host.start:
            continue  # an ended process's pointer, its pid given to this one
        return record, None
    return None, None


def named_cli(record: Mapping[str, object]) -> CliName | None:
    """The source a pointer record names, when it is one."""
    cli = record.get("cli")
    return next((name for name in CLI_NAMES if name == cli), None)
