"""Who started this process: the ancestors of a process, each with its name and a start
time that tells a process apart from a later one given the same pid.

The Claude Code hooks and MCP servers of one ``claude`` process are its children: its MCP
servers directly (the server's parent is ``claude``), its hook commands through a shell
(``/bin/sh -c '<command>'``: the hook's parent is ``sh``, its grandparent ``claude``).
Both were seen with Claude Code 2.1.197 against a fake model server: a second
``SessionStart`` hook logged its ``/proc`` ancestry (``python <- sh <- claude``), and the
MCP server found the pointer the hook wrote for that ``claude`` process
(``tests/e2e/test_claude_live.py`` keeps that check). So a hook finds its host as its
nearest ancestor that is not a shell (:func:`host_of_hook`), and a server finds it among
its first few ancestors (:func:`ancestors`): a launcher such as ``uvx`` may stand between.

Linux reads ``/proc/<pid>/stat`` (the name, the parent, and the start time in clock ticks
since boot, with the boot's id); other POSIX systems ask ``ps`` (``LC_ALL=C``, the parent,
the start time to the second, and the command). Where neither works (Windows) only
:func:`os.getppid` is known, without a start time. Nothing here raises.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

__all__ = ["SHELLS", "ProcessInfo", "ancestors", "host_of_hook", "is_running", "process_info"]

SHELLS: Final = frozenset(
    {"sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "tcsh", "csh"}
)
"""Names of the shells a host may run a hook command through (never the host itself)."""

ANCESTORS: Final = 4
"""Ancestors looked at: the host, a shell or a launcher between, and some slack."""

_PS_TIMEOUT: Final = 2.0


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """One running process.

    Attributes:
        pid: its process id.
        ppid: its parent's.
        name: its command name (``claude``, ``sh``), without a folder.
        start: when it started, as text that differs for a later process given the same
            pid (Linux: boot id and clock ticks since boot; elsewhere ``ps``'s start time);
            ``None`` when unknown.
    """

    pid: int
    ppid: int
    name: str
    start: str | None


@cache
def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _from_proc(pid: int) -> ProcessInfo | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
    head, _, tail = stat.rpartition(")")
    name = head.partition("(")[2]
    fields = tail.split()
    # fields[0] is field 3 of proc(5) (state): field 4 is the parent, field 22 the start
    if len(fields) < 20 or not fields[1].isdigit():
        return None
    return ProcessInfo(pid, int(fields[1]), name, f"{_boot_id()}:{fields[19]}")


def _from_ps(pid: int) -> ProcessInfo | None:
    try:
        done = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "lstart=", "-o", "comm=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=_PS_TIMEOUT,
            env={**os.environ, "LC_ALL": "C"},
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    # "<ppid> <Day Mon dd hh:mm:ss yyyy> <command>": lstart is always five words
    if done.returncode != 0 or len(words) < 7 or not words[0].isdigit():
        return None
    return ProcessInfo(
        pid, int(words[0]), os.path.basename(" ".join(words[6:])), " ".join(words[1:6])
    )


def process_info(pid: int) -> ProcessInfo | None:
    """The running process ``pid``, or ``None`` when it is gone or cannot be looked at."""
    if pid <= 0:
        return None
    if sys.platform.startswith("linux"):
        return _from_proc(pid)
    if os.name == "posix":
        return _from_ps(pid)
    return None


def ancestors(limit: int = ANCESTORS) -> list[ProcessInfo]:
    """This process's parent, its parent, … (at most ``limit``; never pid 1 or 0). Where
    processes cannot be looked at, the parent alone, with no start time."""
    found: list[ProcessInfo] = []
    pid = os.getppid()
    while pid > 1 and len(found) < limit:
        info = process_info(pid)
        if info is None:
            if not found and os.name != "posix":
                found.append(ProcessInfo(pid, 0, "", None))
            break
        found.append(info)
        pid = info.ppid
    return found


def host_of_hook() -> ProcessInfo | None:
    """The process that ran this hook command: the nearest ancestor that is not a shell
    (:data:`SHELLS`); ``None`` when none is found among the first :data:`ANCESTORS`."""
    return next((info for info in ancestors() if info.name not in SHELLS), None)


def is_running(pid: int, start: str | None) -> bool:
    """Whether the process ``pid`` that started at ``start`` still runs (only that it runs
    when ``start`` is unknown, or cannot be looked at here).

    Where ``ps`` is asked and gives no answer (it failed or timed out), ``kill(pid, 0)``
    tells whether the pid is taken (``ESRCH``: no such process); on Linux a missing
    ``/proc/<pid>`` means the process is gone; elsewhere (Windows, where ``os.kill`` would
    end the process) nothing tells, and the process counts as running, so that nothing
    still in use is removed."""
    info = process_info(pid)
    if info is not None:
        return start is None or info.start is None or info.start == start
    if os.name != "posix":
        return True
    if sys.platform.startswith("linux"):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: the pid is someone else's process
        return True
    return True
