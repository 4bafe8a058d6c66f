"""Which session file a tool call is about (docs/design.md §6, "Which session").

In order:

1. ``argument`` — an explicit ``session`` argument: a path to a session file (or a
   source's locator, ``<state.vscdb>#<composerId>`` for a Cursor chat), or a session id
   (a Claude/Codex UUID, a Gemini session id or its 8-character prefix, a session file's
   name, a Cursor composer id), looked up by every source (:meth:`Adapter.by_id
   <driftguard.adapters._base.Adapter.by_id>`). Over MCP (``folders`` given) a path must
   be a session where a source keeps them (:func:`driftguard.sessions.discovery.in_session_place`)
   or lie under the config's ``sessionFolders`` once symlinks are resolved, and an id
   finds only sessions there; anything else is refused with
   :class:`~driftguard.errors.RefusedPathError` before the file is even looked at (the
   model names the file, and a transcript-shaped file anywhere else would
   be read back to it). The command line passes no ``folders``: a path the user types is
   read wherever it is;
2. ``process_pointer`` — the pointer the ``SessionStart`` hook of *this* host process
   wrote (``~/.driftcli/pointers/process-<pid>.json``): the hook commands and the MCP
   servers of one ``claude`` process are its children (:mod:`driftguard._process`; the
   hooks through ``/bin/sh -c``), so the hook writes it for its nearest ancestor that is
   not a shell, and the server reads the one of its nearest ancestors that has one. It
   follows ``/clear`` and is this process's own, whatever other sessions started in the
   project since. A pointer whose process has ended, and whose
   pid was given to another, is passed over (the process's start time is recorded and
   compared). When it names a transcript that is not written yet (a session's first
   turn), that is said, rather than another session scored in its place;
3. ``env_session_id`` — ``CLAUDE_CODE_SESSION_ID`` with ``CLAUDE_PROJECT_DIR``, which
   Claude Code gives its MCP servers (frozen at spawn: after ``/clear`` it names the old
   session, which is why the process's pointer comes first);
4. ``pointer`` — the pointer a ``SessionStart`` hook last wrote for this project in
   ``~/.driftcli/pointers/<hash>.json``: the latest session started in the project,
   which may be another terminal's, hence after the session id. It is used when the
   caller is the source that wrote it (``clientInfo.name``, the environment, ``--cli``);
   when the caller is unknown (a terminal without ``--cli``, an unnamed MCP client),
   only if its transcript is at least as new as the newest session the other sources
   keep for the project — the project may have moved on to another CLI since a hook
   last wrote it;
5. ``newest_in_project`` — the newest session of the current project written by the
   calling host (told apart by ``clientInfo.name``, then by the environment): under Cursor
   its newest composer chat; for an unknown host, the newest of any source.

Steps 2 and 3 are the host process's own: each is used only for its project (or a folder
inside it) and when the caller is not known to be another source than the one that wrote
it. The project's pointer is passed over when its transcript is gone (it is not deleted:
a session's transcript may not exist yet when its ``SessionStart`` hook runs); this
process's own pointer is not — its transcript not being there means this session has no
message yet, which is said, rather than scoring another session of the project.

On the command line (:func:`resolve_on_command_line`) a working directory with no session
of its own is not yet a dead end: its parent folders are tried in turn, up to (not
including) ``$HOME`` or the file system's root, as git finds its repository, and the
result names the folder used (``found_in``).

The project (:func:`choose_project`) is ``DRIFTGUARD_PROJECT_DIR`` when set (``driftguard
setup`` writes it for Cursor as ``${workspaceFolder}``; a value still holding an
unexpanded ``${…}`` counts as unset), else ``CLAUDE_PROJECT_DIR`` (Claude Code's stable
project root), else the MCP client's first root when it declared roots, else the working
directory. Nothing here writes but :func:`write_pointer` and
:func:`write_process_pointer`, which are for the hook shell.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from driftguard._fileio import is_within
from driftguard.adapters import ADAPTERS, get_adapter
from driftguard.adapters._scan import IdQuery, ProjectPaths, is_under
from driftguard.errors import DriftguardError, RefusedPathError, SessionNotFoundError
from driftguard.model import CLI_NAMES, CliName, ProjectSource, ResolvedBy
from driftguard.sessions import discovery
from driftguard.sessions.hosts import CLAUDE_PROJECT_ENV, PROJECT_ENV, cli_for_host
from driftguard.sessions.pointers import (
    named_cli,
    own_process_pointer,
    pointer_or_warning,
)
from driftguard.terminal import clip

__all__ = [
    "ResolvedSession",
    "choose_project",
    "folders_above",
    "is_under",
    "names_project",
    "nearest_with_session",
    "project_dir",
    "resolve_on_command_line",
    "resolve_session",
    "start_projects",
]

_T = TypeVar("_T")

ARGUMENT_SHOWN = 200
"""How many characters of a ``session`` argument an error quotes."""

_UNEXPANDED = re.compile(r"\$\{[^}]*\}")
"""A ``${…}`` template a host passed on without expanding it (Cursor's headless agent
scopes pass ``${workspaceFolder}`` literally)."""


@dataclass(frozen=True, slots=True)
class ResolvedSession:
    """A session file, the CLI that wrote it (when known) and how it was chosen."""

    path: Path
    cli: CliName | None
    resolved_by: ResolvedBy
    warnings: tuple[str, ...] = ()
    """State that could not be read on the way (a pointer file, a source's store), one
    line each; the session was still found."""
    found_in: Path | None = None
    """On the command line, the folder above the working directory whose session this is,
    when the working directory has none (:func:`resolve_on_command_line`); else ``None``."""


def _env_project(environ: Mapping[str, str]) -> tuple[Path, ProjectSource] | None:
    """The project the environment names (module docstring), and which variable."""
    sources: tuple[tuple[str, ProjectSource], ...] = (
        (PROJECT_ENV, "DRIFTGUARD_PROJECT_DIR"),
        (CLAUDE_PROJECT_ENV, "CLAUDE_PROJECT_DIR"),
    )
    for name, source in sources:
        value = environ.get(name, "").strip()
        if value and not _UNEXPANDED.search(value):
            return Path(value), source
    return None


def names_project(env: Mapping[str, str] | None = None) -> bool:
    """Whether the environment names the project (so the client's roots are not needed)."""
    return _env_project(os.environ if env is None else env) is not None


def choose_project(
    env: Mapping[str, str] | None = None, roots: Sequence[Path] = ()
) -> tuple[Path, ProjectSource]:
    """The project a call is about, and where it came from: ``$DRIFTGUARD_PROJECT_DIR``,
    ``$CLAUDE_PROJECT_DIR`` (either ignored while it holds an unexpanded ``${…}``), the
    first of the MCP client's ``roots``, the working directory."""
    found = _env_project(os.environ if env is None else env)
    if found is not None:
        return found
    if roots:
        return roots[0], "roots"
    return Path.cwd(), "cwd"


def project_dir(env: Mapping[str, str] | None = None) -> Path:
    """The project the environment names (:func:`choose_project` without roots), else
    the working directory."""
    return choose_project(env)[0]


def start_projects(env: Mapping[str, str] | None = None) -> list[Path]:
    """The projects a command or server was started for, most likely first:
    :func:`project_dir`, then the working directory (once). Handoffs are saved only in
    these (or the MCP client's roots)."""
    environ = os.environ if env is None else env
    projects = [project_dir(environ)]
    cwd = Path.cwd()
    if os.path.abspath(cwd) != os.path.abspath(projects[0]):
        projects.append(cwd)
    return projects


def _looks_like_path(value: str) -> bool:
    return os.sep in value or "/" in value or value.startswith("~")


def _candidates_by_id(session_id: str) -> Iterable[tuple[Path, CliName]]:
    """Sessions any source keeps whose id or file name is ``session_id`` (any project)."""
    query = IdQuery.of(session_id)
    for adapter in ADAPTERS:
        for path in adapter.by_id(query):
            yield path, adapter.name


def _size_and_time(path: Path) -> tuple[int, int]:
    """A session's size and mtime (a locator's are 0: it has no file of its own)."""
    try:
        st = path.stat()
    except OSError:
        return 0, 0
    return st.st_size, st.st_mtime_ns


def _shown(value: str) -> str:
    """A ``session`` argument as an error quotes it: its first :data:`ARGUMENT_SHOWN`
    characters, so that a long argument does not fill the model's context or the log."""
    return clip(value, ARGUMENT_SHOWN)


def _refused(value: str, folders: Sequence[Path]) -> RefusedPathError:
    places = ", ".join(str(folder) for folder in folders)
    return RefusedPathError(
        f"session {_shown(value)!r} refused: over MCP, session is a session id or a "
        f"session file under a session folder ({places}); add a folder to sessionFolders in "
        "~/.driftclirc or the project's .driftcli to allow more"
    )


def _locator_owner(path: Path) -> CliName | None:
    """The source whose locator ``path`` is (a session kept in a database), if any."""
    return next((adapter.name for adapter in ADAPTERS if adapter.owns_locator(path)), None)


def _by_argument(session: str, folders: Sequence[Path] | None) -> ResolvedSession:
    """The session a ``session`` argument names (module doc, step 1).

    Raises:
        RefusedPathError: a path outside the session folders over MCP, or one the system
            refuses (a NUL byte, a name too long).
        SessionNotFoundError: nothing is there, or no session has that id.
    """
    value = session.strip()
    try:
        return _argument(value, folders)
    except (OSError, ValueError) as exc:  # not from a file that was there: from the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RefusedPathError(
            f"session: the system refuses this path ({reason}); give the session's id or "
            "the path of its file"
        ) from None


def _argument(value: str, folders: Sequence[Path] | None) -> ResolvedSession:
    if "\0" in value:
        # the OS refuses such a path outright (ValueError in every os call); said as the rule
        raise RefusedPathError(
            "session: a session id or path may not hold a NUL byte (\\0); "
            "give the session's id or the path of its file"
        )
    named_path = _looks_like_path(value) or (folders is None and Path(value).is_file())
    if named_path:
        path = Path(value).expanduser()
        if folders is not None and not discovery.in_session_place(path.absolute(), folders):
            raise _refused(value, folders)
        owner = _locator_owner(path)
        if owner is not None:
            return ResolvedSession(path, owner, "argument")
        if path.is_dir():
            raise SessionNotFoundError(f"{_shown(str(path))} is a folder, not a session file")
        if not path.is_file():
            raise SessionNotFoundError(f"session file {_shown(str(path))} does not exist")
        return ResolvedSession(path, None, "argument")
    found = list(_candidates_by_id(value))
    if folders is not None:
        found = [(path, cli) for path, cli in found if discovery.in_session_place(path, folders)]
    if not found:
        places = ", ".join(str(place) for place in discovery.id_places())
        raise SessionNotFoundError(f"no session named after {_shown(value)!r} under {places}")
    # A Gemini resume writes a small stub first: prefer the largest file, then the newest.
    path, cli = max(found, key=lambda item: _size_and_time(item[0]))
    return ResolvedSession(path, cli, "argument")


def _by_env_session_id(env: Mapping[str, str], root: Path) -> ResolvedSession | None:
    """Claude Code gives its MCP servers ``CLAUDE_CODE_SESSION_ID`` with
    ``CLAUDE_PROJECT_DIR``: that session's file in the project's folders, when ``root``
    is that project or inside it."""
    session_id = env.get("CLAUDE_CODE_SESSION_ID", "").strip()
    named = env.get(CLAUDE_PROJECT_ENV, "").strip()
    if not session_id or not named or _looks_like_path(session_id):
        return None
    if not is_within(root, Path(named)):
        return None
    path = get_adapter("claude_code").session_in_project(ProjectPaths.of(Path(named)), session_id)
    return ResolvedSession(path, "claude_code", "env_session_id") if path is not None else None


def resolve_session(
    session: str | None,
    *,
    client_name: str | None = None,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    only: CliName | None = None,
    folders: Sequence[Path] | None = None,
) -> ResolvedSession:
    """Choose the session file for a tool call (module docstring gives the order).

    Args:
        session: the tool's ``session`` argument (a path, a locator or an id), or ``None``.
        client_name: the host's ``clientInfo.name``, when it sent one.
        project: the project directory; default :func:`project_dir`.
        env: the environment to read; default ``os.environ``.
        only: look for this source's sessions only (``--cli``), whatever the host.
        folders: over MCP, the folders besides the sources' own a ``session`` argument
            may name files in (the session folders and ``sessionFolders``); ``None`` on
            the command line, where any path is read.

    Raises:
        SessionNotFoundError: nothing matched; the message says where it looked. Also
            when this host process's own session has no transcript yet (its hook named
            one that is not written): no other session stands in for it.
        SessionFormatError: the one source searched keeps its sessions in a store that
            cannot be read.
        RefusedPathError: with ``folders``, a ``session`` path outside all of them; the
            message states the rule and nothing of the file.
    """
    environ = os.environ if env is None else env
    if session is not None and session.strip():
        return _by_argument(session, folders)
    root = project if project is not None else project_dir(environ)
    wanted = only if only is not None else cli_for_host(client_name, environ)
    found, warnings = _this_hosts_session(environ, wanted, root)
    if found is not None:
        return found
    return _in_project(root, wanted, warnings)


def resolve_on_command_line(
    project: Path,
    *,
    only: CliName | None = None,
    env: Mapping[str, str] | None = None,
    walk_up: bool = True,
) -> ResolvedSession:
    """The session a command without ``PATH`` is about (``score``, ``status``, ``trend``,
    ``goal``, ``handoff``, ``report``, ``watch``): :func:`resolve_session`'s steps for
    ``project`` (the caller told apart by ``only``, else by the environment: a command
    Claude Code's shell tool runs is Claude Code's), and with ``walk_up`` (no
    ``--project`` given) a folder without a session hands over to its parent, up to
    (not including) ``$HOME`` or the root, as git finds a repository from a subfolder:
    ``found_in`` then names the folder whose session it is.

    Raises:
        SessionNotFoundError: no folder tried has a session; the message and details are
            those of ``project`` itself (or this host process's session has no transcript
            yet, as :func:`resolve_session`).
        SessionFormatError: as :func:`resolve_session`.
    """
    environ = os.environ if env is None else env
    wanted = only if only is not None else cli_for_host(None, environ)
    found, warnings = _this_hosts_session(environ, wanted, project)
    if found is not None:
        return found
    if not walk_up:
        return _in_project(project, wanted, warnings)
    folder, nearest = nearest_with_session(project, lambda f: _in_project(f, wanted, warnings))
    return nearest if folder == project else dataclasses.replace(nearest, found_in=folder)


def nearest_with_session(project: Path, find: Callable[[Path], _T]) -> tuple[Path, _T]:
    """``(project, find(project))``, else the same for the first of
    :func:`folders_above` for which ``find`` finds a session: how a command run in a
    subfolder takes its project's session.

    Raises:
        SessionNotFoundError: ``find`` raised it for every folder; the one raised for
            ``project`` itself (its message and the places it searched).
    """
    try:
        return project, find(project)
    except SessionNotFoundError:
        for folder in folders_above(project):
            try:
                return folder, find(folder)
            except SessionNotFoundError:
                continue
        raise


def folders_above(project: Path) -> list[Path]:
    """The folders a command run in ``project`` may take a session from when ``project``
    has none (:func:`resolve_on_command_line`): its parents, made absolute, nearest
    first, stopping below ``$HOME`` when ``project`` is inside it, else below the file
    system's root."""
    start = Path(os.path.abspath(project))
    home = Path(os.path.abspath(Path.home()))
    stop = home if start.is_relative_to(home) and start != home else None
    folders: list[Path] = []
    for parent in start.parents:
        if parent == stop or parent == parent.parent:
            break
        folders.append(parent)
    return folders


def _this_hosts_session(
    environ: Mapping[str, str], wanted: CliName | None, root: Path
) -> tuple[ResolvedSession | None, tuple[str, ...]]:
    """Steps 2 and 3 (module docstring): this host process's pointer, else the host's
    session id, each only for ``root`` (the project it names, or a folder inside it) and
    a caller not known to be another source; and the warnings met on the way.

    Raises:
        SessionNotFoundError: this process's pointer names a transcript that is not
            written yet (Claude Code 2.1.197 writes it with the first message, after the
            ``SessionStart`` hook ran).
    """
    record, problem = own_process_pointer()
    warnings = (problem,) if problem is not None else ()
    if record is not None:
        transcript, cli = record.get("transcript_path"), named_cli(record)
        named = record.get("project")
        ours = (
            isinstance(transcript, str)
            and bool(transcript)
            and wanted in (None, cli)
            and isinstance(named, str)
            and is_within(root, Path(named))
        )
        if ours and isinstance(transcript, str):
            path = Path(transcript)
            if not path.is_file():
                raise SessionNotFoundError(
                    f"this session's transcript {path} is not there: its host writes it "
                    "with the first message, so there is nothing to score yet (after /clear, "
                    "the next SessionStart points at the new one)"
                )
            return ResolvedSession(path, cli, "process_pointer", warnings), warnings
    from_env = _by_env_session_id(environ, root) if wanted in (None, "claude_code") else None
    if from_env is not None:
        return dataclasses.replace(from_env, warnings=warnings), warnings
    return None, warnings


def _in_project(root: Path, wanted: CliName | None, warnings: tuple[str, ...]) -> ResolvedSession:
    """Steps 4 and 5 (module docstring) for the project ``root``: the project's pointer
    when the caller is the source that wrote it, or is unknown and no other source has a
    newer session for ``root``; else the newest session of ``wanted`` (any source when
    ``None``).

    Raises:
        SessionNotFoundError: as :func:`driftguard.sessions.discovery.find_newest`.
        SessionFormatError: as :func:`driftguard.sessions.discovery.find_newest`.
    """
    pointed, problem = pointer_or_warning(root)
    warnings = (*warnings, problem) if problem is not None else warnings
    if pointed is not None:
        path, cli = pointed
        if (wanted is not None and wanted == cli) or (
            wanted is None and _newer_than_the_others(root, path, cli)
        ):
            return ResolvedSession(path, cli, "pointer", warnings)
    clis: tuple[CliName, ...] = (wanted,) if wanted is not None else CLI_NAMES
    newest = discovery.find_newest(root, clis)
    return ResolvedSession(
        newest.path, newest.cli, "newest_in_project", warnings=(*warnings, *newest.warnings)
    )


def _newer_than_the_others(root: Path, transcript: Path, cli: CliName | None) -> bool:
    """Whether ``transcript`` changed no earlier than the newest session the other
    sources keep for ``root`` (``True`` when they keep none, or their stores cannot be
    read)."""
    others = tuple(name for name in CLI_NAMES if name != cli)
    try:
        rival = discovery.find_newest(root, others)
    except DriftguardError:
        return True
    return _size_and_time(transcript)[1] >= rival.time_ns
