"""What a tool call works with: the server's long-lived state (the parse cache and the
history store, made on first use), the session a call is about and the project it
belongs to, the client's roots, and the one edge where a
:class:`~driftguard.errors.DriftguardError` becomes a tool error.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots
from mcp.types import ListRootsResult

from driftguard.errors import DriftguardError, SessionNotFoundError
from driftguard.model import ProjectSource

if TYPE_CHECKING:
    from driftguard.model import Session
    from driftguard.scoring.features import Features
    from driftguard.sessions.incremental import SessionCache
    from driftguard.sessions.resolve import ResolvedSession
    from driftguard.store.history import GuardedHistoryStore, HistoryStore

__all__ = [
    "PROJECT_SOURCES",
    "Loaded",
    "ServerState",
    "as_tool_error",
    "call_notes",
    "call_store",
    "client_name",
    "client_roots",
    "lifespan",
    "load",
    "project_roots",
    "prune_history",
    "readable_folders",
    "root_paths",
    "server_state",
]

log = logging.getLogger("driftguard")


class ServerState:
    """What the server keeps between calls: the parse cache and the history store, each
    made on first use (with the modules behind them), and old history pruned once, at the
    first call (none of it delays ``initialize``)."""

    def __init__(self) -> None:
        self._cache: SessionCache | None = None
        self._store: HistoryStore | None = None

    @property
    def cache(self) -> SessionCache:
        """The incremental parse cache of this server process."""
        if self._cache is None:
            from driftguard.sessions.incremental import SessionCache

            self._cache = SessionCache()
        return self._cache

    @property
    def store(self) -> HistoryStore:
        """The history store; history older than the retention is pruned when it is made."""
        if self._store is None:
            from driftguard.store.history import HistoryStore

            self._store = HistoryStore()
            prune_history(self._store)
        return self._store


PROJECT_SOURCES: dict[ProjectSource, str] = {
    "DRIFTGUARD_PROJECT_DIR": "DRIFTGUARD_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR": "CLAUDE_PROJECT_DIR",
    "roots": "the client's MCP roots",
    "cwd": "the server's working directory (set DRIFTGUARD_PROJECT_DIR to name another)",
}
"""Where a project came from, in words."""


def client_name(ctx: Context[ServerState, Any]) -> str | None:
    params = ctx.session.client_params
    return params.client_info.name if params is not None else None


def server_state(ctx: Context[ServerState, Any]) -> ServerState:
    state: ServerState = ctx.request_context.lifespan_context
    return state


@contextmanager
def as_tool_error() -> Iterator[None]:
    """The server's one edge: a DriftguardError becomes a tool error the model reads.

    Anything else is a crash: the SDK logs its traceback and tells the model only that
    the tool failed.
    """
    try:
        yield
    except DriftguardError as exc:
        raise ToolError(exc.full_text()) from exc


@dataclass(frozen=True)
class Loaded:
    """A parsed session with what its factors read, how it was found, the project whose
    config applies, and the folders a ``session`` argument was allowed in (empty when none
    was given): they count as session folders for the history too, even when
    ``project``'s config lists other ones. ``served`` is the project the call is about
    and where it came from (:func:`driftguard.sessions.resolve.choose_project`)."""

    session: Session
    features: Features
    resolved: ResolvedSession
    project: Path
    served: tuple[Path, ProjectSource]
    folders: tuple[Path, ...] = ()


def readable_folders(project: Path) -> list[Path]:
    """The folders a ``session`` argument may name files in: every session source's
    (:func:`driftguard.sessions.discovery.session_folders`), then the ``sessionFolders`` of the
    global config and of ``project``.

    Raises:
        ConfigError: a config file cannot be used.
    """
    from driftguard.config import load_config
    from driftguard.sessions.discovery import session_folders

    return [*session_folders(), *load_config(project).session_folders]


def load(
    ctx: Context[ServerState, Any], session: str | None, roots: ListRootsResult | None = None
) -> Loaded:
    """Resolve and parse the session a call is about. A ``session`` argument is a session
    id or a file under :func:`readable_folders` (else a tool error stating the rule).

    The project is ``DRIFTGUARD_PROJECT_DIR``, else ``CLAUDE_PROJECT_DIR``, else the
    client's first root (``roots``: asked only when the environment names no project),
    else the working directory (:func:`driftguard.sessions.resolve.choose_project`). It also
    selects the config, except for a session named by the caller, whose own directory's
    ``.driftcli`` applies when it still exists (reading a config there writes nothing).
    Handoffs are saved only in a project the server was started for
    (:func:`driftguard.store.handoff_files.handoff_target`).

    Raises:
        DriftguardError: as :func:`driftguard.sessions.resolve.resolve_session` (a session that is
            not found names the project and where it came from), or the session cannot
            be read.
    """
    from driftguard.sessions.resolve import choose_project, resolve_session

    served = choose_project(roots=root_paths(roots))
    project, source = served
    folders = readable_folders(project) if session is not None and session.strip() else None
    try:
        resolved = resolve_session(
            session, client_name=client_name(ctx), project=project, folders=folders
        )
    except SessionNotFoundError as exc:
        if session is not None and session.strip():
            raise
        where = f"the project is {project}, from {PROJECT_SOURCES[source]}"
        raise SessionNotFoundError(str(exc), details=[*exc.details, where]) from exc
    indexed = server_state(ctx).cache.get_indexed(resolved.path, resolved.cli)
    parsed = indexed.session
    if resolved.resolved_by == "argument" and parsed.cwd and Path(parsed.cwd).is_dir():
        project = Path(parsed.cwd)
    return Loaded(parsed, indexed.features, resolved, project, served, tuple(folders or ()))


def call_store(ctx: Context[ServerState, Any]) -> GuardedHistoryStore:
    """The server's history store for one call: its failures become that call's notes."""
    from driftguard.store.history import GuardedHistoryStore

    store = server_state(ctx).store
    return GuardedHistoryStore(store.root, sessions_root=store.sessions_root)


def call_notes(loaded: Loaded, store: GuardedHistoryStore) -> list[str]:
    """What the call could not read or write (a pointer, history, the goal), each logged
    to stderr once and returned as the result's ``notes``."""
    notes = [*loaded.resolved.warnings, *store.notes]
    for note in notes:
        log.warning("%s", note)
    return notes


def client_roots(ctx: Context[ServerState, Any]) -> ListRoots | None:
    """Ask the client for its roots (``roots/list``) when it declared that capability;
    the SDK injects the answer into ``save_handoff``'s ``roots`` (mcp.server resolvers)."""
    capabilities = ctx.client_capabilities
    if capabilities is not None and capabilities.roots is not None:
        return ListRoots()
    return None


def project_roots(ctx: Context[ServerState, Any]) -> ListRoots | None:
    """:func:`client_roots` only when the environment names no project
    (:func:`driftguard.sessions.resolve.names_project`): the roots then tell which project a call
    is about, at the cost of one request to the client."""
    from driftguard.sessions.resolve import names_project

    return None if names_project() else client_roots(ctx)


def root_paths(roots: ListRootsResult | None) -> list[Path]:
    """The local folders among the client's roots (``file://`` URIs only)."""
    from urllib.parse import unquote, urlparse
    from urllib.request import url2pathname

    if roots is None:
        return []
    folders: list[Path] = []
    for root in roots.roots:
        parsed = urlparse(str(root.uri))
        if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
            folders.append(Path(url2pathname(unquote(parsed.path))))
    return folders


def prune_history(store: HistoryStore) -> None:
    from driftguard.config import load_config
    from driftguard.store.history import GuardedHistoryStore

    try:
        config = load_config(None)
    except DriftguardError as exc:
        log.warning("history not pruned: %s", exc)
        return
    guarded = GuardedHistoryStore(store.root, sessions_root=store.sessions_root)
    removed = guarded.prune(config.history_retention_days)
    for note in guarded.notes:
        log.warning("%s", note)
    if removed:
        log.info(
            "pruned %d history files older than %d days", removed, config.history_retention_days
        )


@asynccontextmanager
async def lifespan(_server: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
    yield ServerState()
