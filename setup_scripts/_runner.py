"""``driftguard setup`` from start to end, or to a clean stop: what the command line calls
(:func:`run_command`), once.

- **What a killed setup left is removed first.** Every file setup writes goes through
  :func:`driftguard._fileio.write_atomic` or :func:`~driftguard._fileio.complete_temporary`,
  whose temporary file ``.<name>.driftguard-<pid>-<ns>.tmp`` lies next to the file it
  stands in for and is removed when the write fails or is interrupted. Only ``SIGKILL``
  (or a crash, a power cut) leaves one: a copy of ``~/.claude.json`` can weigh megabytes.
  Before it edits anything, setup removes the files next to the configs it edits
  (:func:`edited_files`) whose name is such a temporary name *of that config*
  (:func:`~driftguard._fileio.temporary_owner`; the former ``.<name>.<pid>.<ns>.tmp``
  too) and whose writer is no longer running (:func:`driftguard._process.is_running`; a
  pid it cannot check counts as running, so nothing in use is removed). Nothing else is
  touched, and a dry run removes nothing.
- **Ctrl-C stops it with one line.** The hosts run one after another; on
  ``KeyboardInterrupt`` the report is replaced by one line on stderr naming the hosts
  done (with their status), the host it stopped in and whether that host's config file
  changed (compared by inode, size and mtime with the state before that host began: the
  atomic rename gives a written file a new inode), and the hosts not started; the exit
  code is :data:`EXIT_INTERRUPTED`. The files stay whole either way: a host's config is
  replaced by an atomic rename or not at all. The line ends with the command that finishes
  the job (:func:`rerun_command`): the flags given, so that a rerun does what was asked
  and not a plain install of every host.
- **A host is set up whole or not at all.** When install (or ``--update``) could not write
  a host's server entry — its config refused (it does not parse, is read-only) or the
  edit failed — that host's hooks (with ``--project``, Cursor's rule) are not written
  either (:func:`_held_back`): hooks without the server are a half-made setup that looks
  done, and Codex does not even start on a ``config.toml`` it cannot load. One line says
  so, with the file to fix and the command to rerun; it counts against exit code 0.
  Uninstall still removes the hooks: taking driftguard out never needs the server entry,
  and hooks left behind would run a missing ``driftguard`` after every turn.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TextIO

from driftguard import paths
from driftguard._fileio import temporary_owner
from driftguard._process import is_running
from driftguard.setup_scripts import claude_code, codex_cli, cursor, cursor_rule, gemini_cli
from driftguard.setup_scripts._base import (
    HOST_NAMES,
    HostName,
    HostResult,
    SetupRequest,
    display_path,
)
from driftguard.setup_scripts._hooks_file import shell_word
from driftguard.setup_scripts._safe_edit import LEDGER_NAME

__all__ = [
    "EXIT_INTERRUPTED",
    "edited_files",
    "host_files",
    "remove_leftovers",
    "rerun_command",
    "run_command",
]

EXIT_INTERRUPTED: Final = 130
"""The exit code after Ctrl-C: 128 + SIGINT (2), as shells report a command the signal
stopped (POSIX ``sh``, "Exit Status for Commands")."""


def host_files(host: HostName, project: Path | None) -> tuple[Path, ...]:
    """The config files setup edits for ``host`` (the user's, or ``project``'s)."""
    if host == "claude_code":
        return (project / ".mcp.json" if project else claude_code.global_config_file(),)
    if host == "gemini_cli":
        return (gemini_cli.settings_file(project),)
    if host == "codex_cli":
        return (codex_cli.config_file(project),)
    return (cursor.config_file(project),)


def hooks_files(host: HostName, project: Path | None) -> tuple[Path, ...]:
    """The files ``--hooks`` edits for ``host``: its hooks file, or with a ``project``
    Cursor's project rule (and nothing for the other hosts)."""
    from driftguard.setup_scripts import HOOK_HOSTS

    if project is not None:
        return (cursor_rule.rule_file(project),) if host == "cursor" else ()
    return (HOOK_HOSTS[host].settings_file(),)


def edited_files(project: Path | None) -> list[Path]:
    """Every file setup may write for a request of ``project`` (``None``: the user's):
    each host's config, its hooks file (``--hooks``) and setup's ledger — and, for a
    symlinked one, the file it points to (the one replaced)."""
    found = [path for host in HOST_NAMES for path in host_files(host, project)]
    found += [path for host in HOST_NAMES for path in hooks_files(host, project)]
    found += [paths.state_dir() / LEDGER_NAME]
    targets = [Path(os.path.realpath(path)) for path in found if path.is_symlink()]
    return list(dict.fromkeys([*found, *targets]))


def remove_leftovers(files: Iterable[Path]) -> list[Path]:
    """Remove the temporary files that stand in for one of ``files`` (named as
    :func:`~driftguard._fileio.temporary_owner` reads them) and whose writer is not
    running; returns what was removed. A file that cannot be listed or removed is left."""
    by_folder: dict[Path, set[str]] = {}
    for path in files:
        by_folder.setdefault(path.parent, set()).add(path.name)
    removed: list[Path] = []
    for folder, names in by_folder.items():
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            owner = next(
                (pid for name in names if (pid := temporary_owner(entry.name, name)) is not None),
                None,
            )
            if owner is None or owner == os.getpid() or is_running(owner, None):
                continue
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


_State = tuple[int, int, int] | None
"""A file's inode, size and mtime in ns, or ``None`` when it is missing."""


def _state(path: Path) -> _State:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


@dataclass(slots=True)
class _Stage:
    """One step of the run: a host, or Claude Code's hooks."""

    name: str
    files: tuple[Path, ...]
    run: Callable[[], list[HostResult]]
    before: list[_State] = field(default_factory=list)


def rerun_command(request: SetupRequest, hosts: Sequence[HostName] | None, *, hooks: bool) -> str:
    """``driftguard setup`` with the flags that asked for ``request`` on ``hosts`` (``None``:
    every host), ``--hooks`` with ``hooks``: what to run to finish or to try again."""
    words = ["driftguard", "setup"]
    if hooks:
        words.append("--hooks")
    if hosts:
        words += ["--host", *dict.fromkeys(hosts)]
    if request.project is not None:
        words += ["--project", shell_word(str(request.project))]
    if request.action == "uninstall":
        words.append("--uninstall")
    elif request.update:
        words.append("--update")
    if request.dry_run:
        words.append("--dry-run")
    return " ".join(words)


def _held_back(request: SetupRequest, server: HostResult, label: str, again: str) -> HostResult:
    """The ``skipped`` line of a host's hooks when its server entry was not written."""
    where = display_path(server.path) if server.path is not None else "what it names"
    detail = (
        f"not written either, so that {server.host} is not half set up: fix {where} as the "
        f"line above says, then rerun `{again}`"
    )
    return HostResult(
        server.host, "skipped", detail, ok=False, dry_run=request.dry_run, label=label
    )


def _interrupted(
    done: Sequence[HostResult],
    current: _Stage | None,
    rest: list[str],
    *,
    dry_run: bool,
    again: str,
) -> str:
    """The one line Ctrl-C prints (module docstring); ``again`` is the command to rerun."""
    parts = []
    if done:
        parts.append("done: " + ", ".join(f"{r.label or r.host} ({r.status})" for r in done))
    if current is not None:
        changed = [
            display_path(path)
            for path, before in zip(current.files, current.before, strict=True)
            if _state(path) != before
        ]
        if dry_run or not changed:
            parts.append(f"stopped in {current.name}, which is unchanged")
        else:
            parts.append(
                f"stopped in {current.name}: {', '.join(changed)} was written but not checked"
            )
    if rest:
        parts.append("not started: " + ", ".join(rest))
    if not done and current is None:
        parts.append("nothing changed")
    return f"driftguard setup: interrupted; {'; '.join(parts)}. Rerun `{again}` to finish."


def run_command(
    request: SetupRequest,
    hosts: Iterable[HostName] | None,
    *,
    hooks: bool,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``driftguard setup``: remove what a killed setup left (not on a dry run), run
    :func:`~driftguard.setup_scripts.run_setup`'s hosts and then
    :func:`~driftguard.setup_scripts.run_hooks`, print the report to ``out`` (default
    stdout); on Ctrl-C print one line to ``err`` (default stderr) instead.

    Returns:
        :func:`~driftguard.setup_scripts.exit_code` of the results, or
        :data:`EXIT_INTERRUPTED` after Ctrl-C.
    """
    from driftguard.setup_scripts import (
        HOOK_HOSTS,
        exit_code,
        hooks_result,
        host_result,
        render_report,
    )

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    chosen = None if hosts is None else tuple(hosts)

    def one(host: HostName) -> Callable[[], list[HostResult]]:
        return lambda: [host_result(request, host, explicit=chosen is not None)]

    stages = [
        _Stage(host, host_files(host, request.project), one(host))
        for host in HOST_NAMES
        if chosen is None or host in chosen
    ]

    def hooked(host: HostName) -> Callable[[], list[HostResult]]:
        def step() -> list[HostResult]:
            server = next((r for r in results if r.host == host and not r.label), None)
            if (
                hooks
                and request.action == "install"
                and server is not None
                and server.status in ("refused", "failed")
            ):
                if request.project is not None and host != "cursor":
                    return []  # no hooks of this host in a project
                label = cursor_rule.LABEL if request.project else HOOK_HOSTS[host].label
                again = rerun_command(request, (host,), hooks=True)
                return [_held_back(request, server, label, again)]
            result = hooks_result(request, host, hooks=hooks, explicit=chosen is not None)
            return [] if result is None else [result]

        return step

    # the look for hooks left behind writes nothing: a stage without a name
    stages += [
        _Stage(
            HOOK_HOSTS[host].label if hooks else "",
            hooks_files(host, request.project),
            hooked(host),
        )
        for host in HOST_NAMES
        if chosen is None or host in chosen
    ]
    results: list[HostResult] = []
    current: _Stage | None = None
    finished = 0
    try:
        if not request.dry_run:
            removed = remove_leftovers(edited_files(request.project))
            if removed:
                shown = ", ".join(display_path(path) for path in removed)
                print(
                    f"driftguard setup: removed {len(removed)} temporary "
                    f"file{'s' if len(removed) > 1 else ''} a stopped setup left: {shown}",
                    file=out,
                )
        for stage in stages:
            stage.before = [_state(path) for path in stage.files]
            current = stage
            results += stage.run()
            current = None
            finished += 1
    except KeyboardInterrupt:
        later = stages[finished + (current is not None) :]
        rest = [stage.name for stage in later if stage.name]
        if current is not None and not current.name:
            current = None  # only the look for hooks left behind, which writes nothing
        again = rerun_command(request, chosen, hooks=hooks)
        line = _interrupted(results, current, rest, dry_run=request.dry_run, again=again)
        print(line, file=err)
        return EXIT_INTERRUPTED
    print(render_report(request, results), file=out)
    return exit_code(results)
