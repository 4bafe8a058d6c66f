"""Session discovery: the current session of each source for a project directory, asked
of the adapter registry (:mod:`driftguard.adapters`).

"Current" means the newest of the sessions that belong to the project (docs/design.md §6,
"Which session"; docs/host-configs.md §4.1): each adapter looks only in the project's own
places and never returns a session whose records name another project's working
directory. Where each source keeps its sessions, and how a project finds its own, is the
adapter's to know (its ``README.md``); this module only compares what they find. Nothing
here writes anything.

Project paths are compared in two forms, as given and resolved
(:class:`driftguard.adapters._scan.ProjectPaths`): a CLI writes the path it saw.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftguard.adapters import ADAPTERS, Adapter, get_adapter
from driftguard.adapters._scan import ProjectPaths, is_under, unique_paths
from driftguard.errors import DriftguardError, SessionNotFoundError
from driftguard.model import CLI_NAMES, CliName

__all__ = [
    "NewestSession",
    "ProjectSession",
    "find_newest",
    "find_session",
    "find_sessions",
    "id_places",
    "in_project_session_folder",
    "in_session_place",
    "newest_session",
    "project_contains",
    "project_sessions",
    "session_folders",
    "session_search_places",
]


def session_folders() -> list[Path]:
    """The folders of every source that keeps its sessions in files of their own, in
    order, without duplicates. Over MCP a ``session`` argument may name files under these
    only (or under the config's ``sessionFolders``). Creates nothing."""
    return unique_paths(folder for adapter in ADAPTERS for folder in adapter.session_folders())


def in_session_place(path: Path, more_folders: Iterable[Path] = ()) -> bool:
    """Whether ``path`` is a session where a source keeps its sessions (a file under its
    session folders, or a locator of its store; symlinks resolved), or a file strictly
    inside one of ``more_folders`` (the config's ``sessionFolders``)."""
    return any(adapter.holds(path) for adapter in ADAPTERS) or is_under(path, more_folders)


def id_places() -> list[Path]:
    """Where a session id is looked for (every source's folders and stores)."""
    return unique_paths(place for adapter in ADAPTERS for place in adapter.id_places())


def project_contains(project: Path, path: str) -> bool:
    """Whether ``path`` (a working directory a session recorded) is ``project`` or a
    folder inside it, comparing both forms of each."""
    return ProjectPaths.of(project).contains(path)


def in_project_session_folder(project: Path, session_file: Path) -> bool:
    """Whether ``session_file`` lies directly in one of ``project``'s own session folders
    (a source's per-project folder: Claude Code's project folder, the ``chats`` folder of
    a Gemini CLI project). Symlinks are resolved on both sides. Tells whose a session file
    is when it records no working directory."""
    target = ProjectPaths.of(project)
    parent = os.path.realpath(session_file.parent)
    return any(
        os.path.realpath(folder) == parent
        for adapter in ADAPTERS
        for folder in adapter.project_folders(target)
    )


def _adapters(clis: Iterable[str]) -> list[Adapter]:
    return [get_adapter(cli) for cli in clis]


def find_session(project: Path, cli: CliName) -> Path | None:
    """The current session of ``cli`` for ``project``, or ``None`` when it has none.

    Raises:
        UnknownNameError: ``cli`` is not a source's name.
        SessionFormatError: the source's store exists but cannot be read.
    """
    found = get_adapter(cli).newest(ProjectPaths.of(project))
    return found.path if found is not None else None


def find_sessions(project: Path) -> dict[CliName, Path]:
    """The current session of every source that has one for ``project``, keyed by name
    (a source whose store cannot be read is left out)."""
    target = ProjectPaths.of(project)
    result: dict[CliName, Path] = {}
    for adapter in ADAPTERS:
        try:
            found = adapter.newest(target)
        except DriftguardError:
            continue
        if found is not None:
            result[adapter.name] = found.path
    return result


@dataclass(frozen=True, slots=True)
class ProjectSession:
    """One session of a project.

    Attributes:
        cli: its source.
        path: the session file, or the source's locator.
        time_ns: when it last changed, in ns since the epoch.
    """

    cli: CliName
    path: Path
    time_ns: int


def project_sessions(
    project: Path, clis: Sequence[CliName] = CLI_NAMES
) -> tuple[list[ProjectSession], list[str]]:
    """Every session of ``project`` among ``clis``, newest first (``driftguard report
    --all``), and a warning line for each source whose store could not be read (its
    sessions are left out; the others are still listed).

    Raises:
        SessionNotFoundError: none of ``clis`` has a session for ``project`` (as
            :func:`find_newest`).
        UnknownNameError: a name in ``clis`` is not a source's.
    """
    target = ProjectPaths.of(project)
    found: list[ProjectSession] = []
    warnings: list[str] = []
    for adapter in _adapters(clis):
        try:
            found += [
                ProjectSession(adapter.name, f.path, f.time_ns) for f in adapter.sessions(target)
            ]
        except DriftguardError as exc:
            warnings.append(f"{adapter.label} sessions not listed: {exc}")
    if not found:
        raise SessionNotFoundError(
            f"no session found for {target.given}; looked in:",
            details=[*session_search_places(project, clis), *warnings],
        )
    found.sort(key=lambda s: s.time_ns, reverse=True)
    return found, warnings


@dataclass(frozen=True, slots=True)
class NewestSession:
    """The newest session of a project among several sources.

    Attributes:
        cli: its source.
        path: the session file, or the source's locator.
        warnings: sources whose store could not be read on the way, one line each (the
            session was still found among the others).
        time_ns: when it last changed, in ns since the epoch (:attr:`Found.time_ns
            <driftguard.adapters._base.Found.time_ns>`).
    """

    cli: CliName
    path: Path
    warnings: tuple[str, ...] = ()
    time_ns: int = 0


def find_newest(project: Path, clis: Sequence[CliName] = CLI_NAMES) -> NewestSession:
    """The newest current session of ``project`` among ``clis`` (:class:`NewestSession`).

    On equal times the source listed first in ``clis`` wins. A source whose store cannot
    be read is passed over with a warning when others are searched too.

    Raises:
        SessionNotFoundError: none of ``clis`` has a session for ``project``; its
            ``details`` list every place looked in (:func:`session_search_places`) and
            each store that could not be read.
        SessionFormatError: ``clis`` names one source, and its store cannot be read.
        UnknownNameError: a name in ``clis`` is not a source's name.
    """
    adapters = _adapters(clis)
    target = ProjectPaths.of(project)
    best: tuple[CliName, Path, int] | None = None
    failures: list[str] = []
    for adapter in adapters:
        try:
            found = adapter.newest(target)
        except DriftguardError as exc:
            if len(adapters) == 1:
                raise
            failures.append(f"{adapter.label}: {exc}")
            continue
        if found is not None and (best is None or found.time_ns > best[2]):
            best = (adapter.name, found.path, found.time_ns)
    if best is None:
        if len(adapters) == 1:
            only = adapters[0]
            message = f"{only.label} stores no {only.noun} for {target.given}; looked in:"
        else:
            message = f"no session found for {target.given}; looked in:"
        raise SessionNotFoundError(
            message, details=[*session_search_places(project, clis), *failures]
        )
    return NewestSession(best[0], best[1], tuple(failures), best[2])


def newest_session(project: Path, clis: Sequence[CliName] = CLI_NAMES) -> tuple[CliName, Path]:
    """:func:`find_newest` as ``(cli, path)``.

    Raises:
        SessionNotFoundError: as :func:`find_newest`.
        SessionFormatError: as :func:`find_newest`.
        UnknownNameError: as :func:`find_newest`.
    """
    newest = find_newest(project, clis)
    return newest.cli, newest.path


def session_search_places(project: Path, clis: Iterable[CliName] = CLI_NAMES) -> list[str]:
    """Where the sources look for ``project``'s sessions, one readable line each
    (``"<label>: <folder> (<what is looked for>)"``), for error messages.

    Raises:
        UnknownNameError: a name in ``clis`` is not a source's name.
    """
    target = ProjectPaths.of(project)
    return [place for adapter in _adapters(clis) for place in adapter.search_places(target)]
