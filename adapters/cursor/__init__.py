"""Cursor's composer chats → :class:`~driftguard.model.Session`.

Cursor (the editor) keeps its chats ("composers") in SQLite databases under its ``User``
folder (:func:`user_dir`; ``$DRIFTGUARD_CURSOR_USER_DIR`` overrides it):

- ``globalStorage/state.vscdb``, table ``cursorDiskKV``: ``composerData:<composerId>`` (one
  chat: its bubble headers, model, Cursor's context meter, summaries) and
  ``bubbleId:<composerId>:<bubbleId>`` (one message each). Older chats keep their messages
  inline in ``composerData`` (``conversation``).
- ``workspaceStorage/<id>/workspace.json`` (the folder a workspace id stands for) and
  ``workspaceStorage/<id>/state.vscdb`` ``ItemTable`` ``composer.composerData`` (the chats
  of that workspace); since Cursor 3.0 also the global ``ItemTable``
  ``composer.composerHeaders`` (every chat with its workspace).

``README.md`` beside this file describes the format, each field read and where it is
documented, and what could not be confirmed. The databases are opened read-only, read in
one short transaction each, by key lookups only, and the authentication entries stored
beside the chats are never read (:mod:`._store`).

What this package gives the integration (finding, reading, describing)::

    user = user_dir()                                   # Cursor's User folder
    chat = newest_composer(project, user)               # CursorChat | None
    session = read_chat(chat)                           # Session(cli="cursor", …)
    session = parse_composer(global_db_path(user), composer_id)
    chat = find_composer(composer_id, user)             # a chat by id, or None
    places = search_places(project, user)               # for "nothing found" messages

``Session.path`` is :func:`session_locator` (``<global state.vscdb>#<composerId>``) and
``Session.session_id`` the composer id. :data:`ADAPTER` (:class:`Cursor`) is what the
registry holds: it finds a project's newest chat and chats by id, names a chat by that
locator (a session with no file of its own), and names the global database and its
write-ahead log as the files whose change means a chat may have changed (the parse cache
reads a chat again then; ``driftguard watch`` wakes up on them).

Raises (every function that reads a database): :class:`~driftguard.errors.SessionFormatError`
naming the file when a database that exists cannot be read (not SQLite, locked, a table or
its ``key`` index missing); :class:`~driftguard.errors.SessionNotFoundError` when a chat
asked for by id is not stored. Malformed chat or message JSON is never an error: it is
skipped and counted in ``Session.skipped_lines``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from driftguard.adapters._base import Adapter, Found
from driftguard.adapters._scan import IdQuery, ProjectPaths
from driftguard.adapters.cursor import _compaction
from driftguard.adapters.cursor._catalog import (
    NEWEST_PROBES,
    ComposerHead,
    global_heads,
    has_messages,
    merge_heads,
    workspace_heads,
)
from driftguard.adapters.cursor._parse import (
    DEFAULT_CONTEXT_WINDOW,
    EDIT_TOOLS,
    READ_TOOLS,
    SHELL_TOOLS,
    TOOL_KINDS,
    build_session,
    build_turns,
    decode_object,
    tool_kind,
)
from driftguard.adapters.cursor._paths import (
    GLOBAL_DB,
    USER_DIR_ENV,
    WORKSPACE_DB,
    WORKSPACE_STORAGE,
    file_uri_to_path,
    global_db_path,
    project_workspaces,
    user_dir,
    workspace_folder,
)
from driftguard.adapters.cursor._store import StateDb
from driftguard.compaction.window import HostSetting, UsableWindow
from driftguard.errors import SessionFormatError, SessionNotFoundError
from driftguard.labels import HOST_LABELS
from driftguard.model import CliName, Session, ToolKind

__all__ = [
    "ADAPTER",
    "DEFAULT_CONTEXT_WINDOW",
    "EDIT_TOOLS",
    "READ_TOOLS",
    "SHELL_TOOLS",
    "TOOL_KINDS",
    "USER_DIR_ENV",
    "ComposerHead",
    "Cursor",
    "CursorChat",
    "build_session",
    "build_turns",
    "composer_turns",
    "file_uri_to_path",
    "find_composer",
    "global_db_path",
    "newest_composer",
    "parse_composer",
    "project_composers",
    "project_workspaces",
    "read_chat",
    "search_places",
    "session_locator",
    "split_locator",
    "tool_kind",
    "user_dir",
    "workspace_folder",
]

_LOCATOR_MARK = "#"


def session_locator(db: Path, composer_id: str) -> str:
    """``<db>#<composer_id>``: what ``Session.path`` holds for a Cursor chat (one database
    holds every chat, so the file alone names none)."""
    return f"{db}{_LOCATOR_MARK}{composer_id}"


def split_locator(text: str) -> tuple[Path, str] | None:
    """The database and composer id of a :func:`session_locator` string, or ``None`` when
    ``text`` is not one (no ``#``, an empty id, or an id holding a path separator)."""
    db, mark, composer_id = text.rpartition(_LOCATOR_MARK)
    if not mark or not db or not composer_id or "/" in composer_id or "\\" in composer_id:
        return None
    return Path(db), composer_id


@dataclass(frozen=True, slots=True)
class CursorChat:
    """A composer chat found for a project (or by id).

    Attributes:
        composer_id: the chat's id.
        db: the global ``state.vscdb`` holding it.
        folder: the project folder it belongs to, when known.
        workspace: the ``workspaceStorage/<id>`` folder that lists it, when known.
        last_updated: when the composer list says it last changed (seconds since the
            epoch), or ``None``.
    """

    composer_id: str
    db: Path
    folder: str | None = None
    workspace: Path | None = None
    last_updated: float | None = None

    @property
    def locator(self) -> str:
        """:func:`session_locator` of the chat."""
        return session_locator(self.db, self.composer_id)


def _composer_key(composer_id: str) -> str:
    return f"composerData:{composer_id}"


def _bubble_key(composer_id: str, bubble_id: str) -> str:
    return f"bubbleId:{composer_id}:{bubble_id}"


def _header_ids(composer: dict[str, Any]) -> list[str]:
    headers = composer.get("fullConversationHeadersOnly")
    if not isinstance(headers, list):
        return []
    return [
        h["bubbleId"]
        for h in headers
        if isinstance(h, dict) and isinstance(h.get("bubbleId"), str) and h["bubbleId"]
    ]


def _load(db: Path, composer_id: str) -> tuple[dict[str, Any] | None, dict[str, str | bytes]]:
    """The chat's decoded ``composerData`` (``None`` when it is no JSON object) and the
    stored values of the bubble rows its headers name, in one read transaction (key
    lookups, a few hundred per statement).

    Raises:
        SessionFormatError: ``db`` is missing or cannot be read (names the file).
        SessionNotFoundError: ``db`` holds no chat ``composer_id``.
    """
    with StateDb(db) as store:
        raw = store.get("cursorDiskKV", _composer_key(composer_id))
        if raw is None:
            raise SessionNotFoundError(f"no Cursor chat {composer_id} in {db}")
        composer = decode_object(raw)
        rows: dict[str, str | bytes] = {}
        if composer is not None:
            ids = _header_ids(composer)
            found = store.get_many(_bubble_key(composer_id, b) for b in ids)
            rows = {b: found[k] for b in ids if (k := _bubble_key(composer_id, b)) in found}
    return composer, rows


def parse_composer(db: Path, composer_id: str, *, cwd: str | None = None) -> Session:
    """Read one chat from a global ``state.vscdb`` into a :class:`Session` (``README.md``).

    One read transaction: the ``composerData:<composer_id>`` value, then the
    ``bubbleId:<composer_id>:<bubbleId>`` values its headers name (key lookups, a few
    hundred per statement).

    Args:
        db: the global database (:func:`global_db_path`).
        composer_id: the chat's id.
        cwd: the project folder, when the caller knows it (else read from the chat).

    Raises:
        SessionFormatError: ``db`` is missing or cannot be read (names the file).
        SessionNotFoundError: ``db`` holds no chat ``composer_id``.
    """
    composer, rows = _load(db, composer_id)
    locator = session_locator(db, composer_id)
    if composer is None:
        # Malformed chat JSON: skipped and counted, never fatal.
        return build_session(composer_id, {}, {}, path=locator, cwd=cwd, skipped=1)
    return build_session(composer_id, composer, rows, path=locator, cwd=cwd)


def composer_turns(db: Path, composer_id: str, *, cwd: str | None = None) -> Iterator[Session]:
    """The chat as it stood at the end of each turn, then :func:`parse_composer`'s result
    (:func:`build_turns`; read as :func:`parse_composer` reads it).

    Raises:
        SessionFormatError: ``db`` is missing or cannot be read (names the file).
        SessionNotFoundError: ``db`` holds no chat ``composer_id``.
    """
    composer, rows = _load(db, composer_id)
    locator = session_locator(db, composer_id)
    if composer is None:
        yield build_session(composer_id, {}, {}, path=locator, cwd=cwd, skipped=1)
        return
    yield from build_turns(composer_id, composer, rows, path=locator, cwd=cwd)


def read_chat(chat: CursorChat) -> Session:
    """:func:`parse_composer` of a found chat, its project folder as ``cwd``.

    Raises:
        SessionFormatError: the database cannot be read.
        SessionNotFoundError: the chat is no longer stored.
    """
    return parse_composer(chat.db, chat.composer_id, cwd=chat.folder)


def _paths(project: Path | ProjectPaths) -> ProjectPaths:
    return project if isinstance(project, ProjectPaths) else ProjectPaths.of(project)


def project_composers(project: Path | ProjectPaths, user: Path | None = None) -> list[ComposerHead]:
    """The chats of ``project`` the composer lists name, newest first, subagents' chats
    left out: the lists of every workspace folder of the project (:func:`project_workspaces`)
    and the global ``composer.composerHeaders`` entries of those workspaces or of the
    folder itself. Reads two ``ItemTable`` keys at most per database; no chat is opened.

    Raises:
        SessionFormatError: a database that exists cannot be read (names the file).
    """
    base = user_dir() if user is None else user
    paths = _paths(project)
    workspaces = project_workspaces(paths, base)
    heads = [head for w in workspaces for head in workspace_heads(w)]
    heads += global_heads(global_db_path(base), workspaces=workspaces, folder=paths)
    return merge_heads(heads)


def newest_composer(project: Path | ProjectPaths, user: Path | None = None) -> CursorChat | None:
    """The chat of ``project`` in use: the newest listed chat (:func:`project_composers`)
    whose ``composerData`` holds at least one message, trying the :data:`NEWEST_PROBES`
    newest; ``None`` when Cursor stores no such chat for the project.

    Raises:
        SessionFormatError: a database that exists cannot be read (names the file).
    """
    return next(project_chats(project, user, limit=NEWEST_PROBES), None)


def project_chats(
    project: Path | ProjectPaths, user: Path | None = None, *, limit: int | None = None
) -> Iterator[CursorChat]:
    """The chats of ``project`` (:func:`project_composers`) whose ``composerData`` holds at
    least one message, newest first, trying the ``limit`` newest listed (all without one).

    Raises:
        SessionFormatError: a database that exists cannot be read (names the file).
    """
    base = user_dir() if user is None else user
    paths = _paths(project)
    heads = project_composers(paths, base)
    db = global_db_path(base)
    if not heads or not db.is_file():
        return
    with StateDb(db) as store:
        for head in heads[:limit]:
            composer = decode_object(store.get("cursorDiskKV", _composer_key(head.composer_id)))
            if composer is not None and has_messages(composer):
                folder = workspace_folder(head.workspace) if head.workspace else None
                yield CursorChat(
                    composer_id=head.composer_id,
                    db=db,
                    folder=folder or paths.given,
                    workspace=head.workspace,
                    last_updated=head.last_updated,
                )


def find_composer(composer_id: str, user: Path | None = None) -> CursorChat | None:
    """The chat with id ``composer_id`` in the global database, or ``None`` when it holds
    no such chat (or there is no database). One key lookup.

    Raises:
        SessionFormatError: the database exists but cannot be read (names the file).
    """
    db = global_db_path(user_dir() if user is None else user)
    if not composer_id or not db.is_file():
        return None
    with StateDb(db) as store:
        if store.get("cursorDiskKV", _composer_key(composer_id)) is None:
            return None
    return CursorChat(composer_id=composer_id, db=db)


def search_places(project: Path | ProjectPaths, user: Path | None = None) -> list[str]:
    """Where :func:`newest_composer` looks for ``project``'s chats, one readable line each
    (``"Cursor: <file> (<what is looked for>)"``), for error messages. Reads only the
    ``workspace.json`` files."""
    base = user_dir() if user is None else user
    storage = base / WORKSPACE_STORAGE
    paths = _paths(project)
    shown = paths.given
    workspaces = project_workspaces(paths, base)
    places = [
        f"Cursor: {w / WORKSPACE_DB} (ItemTable composer.composerData: the chats of {shown})"
        for w in workspaces
    ]
    if not workspaces:
        places.append(f"Cursor: {storage} (a */workspace.json whose folder is {shown}: none found)")
    places.append(
        f"Cursor: {global_db_path(base)} (ItemTable composer.composerHeaders entries of "
        f"{shown}; chats in cursorDiskKV composerData:<id>)"
    )
    return places


def _store_files(db: Path) -> tuple[Path, Path]:
    """The global database and its write-ahead log (where Cursor's writes land first)."""
    return db, db.with_name(db.name + "-wal")


def _found(chat: CursorChat) -> Found:
    """A chat as :meth:`Cursor.newest` names it: its locator, timed by its last update."""
    when = chat.last_updated if chat.last_updated is not None else 0.0
    return Found(Path(chat.locator), int(when * 1_000_000_000))


class Cursor(Adapter):
    """Cursor's composer chats, kept in its SQLite stores; a chat is named by its locator
    ``<global state.vscdb>#<composerId>`` (:func:`session_locator`)."""

    name: ClassVar[CliName] = "cursor"
    label: ClassVar[str] = HOST_LABELS["cursor"]
    noun: ClassVar[str] = "chat"

    def session_folders(self) -> list[Path]:
        """None: Cursor's chats are rows of a database, never files of their own."""
        return []

    def holds(self, path: Path) -> bool:
        """A locator of a chat in Cursor's global database (symlinks resolved)."""
        split = split_locator(str(path)) if self.owns_locator(path) else None
        if split is None:
            return False
        db = global_db_path(user_dir())
        return os.path.realpath(split[0]) == os.path.realpath(db)

    def newest(self, project: ProjectPaths) -> Found | None:
        chat = newest_composer(project)
        return _found(chat) if chat is not None else None

    def sessions(self, project: ProjectPaths) -> Iterator[Found]:
        return map(_found, project_chats(project))

    def search_places(self, project: ProjectPaths) -> list[str]:
        return search_places(project)

    def by_id(self, query: IdQuery) -> Iterator[Path]:
        """The chat whose composer id is the query (one key lookup)."""
        chat = find_composer(query.text)
        if chat is not None:
            yield Path(chat.locator)

    def id_places(self) -> list[Path]:
        return [global_db_path(user_dir())]

    def is_session_file_of(self, path: Path, session_id: str) -> bool:
        """The locator of the chat ``session_id`` (its composer id) in Cursor's own global
        database; not a chat of a copied database."""
        split = split_locator(str(path))
        return split is not None and split[1] == session_id and self.holds(path)

    def owns_locator(self, path: Path) -> bool:
        """``<…/globalStorage/state.vscdb>#<id>``, not itself a file (stats only)."""
        split = split_locator(str(path))
        return split is not None and split[0].name == GLOBAL_DB.name and not path.is_file()

    def is_session_name(self, name: str) -> bool:
        return name in (GLOBAL_DB.name, GLOBAL_DB.name + "-wal")

    def parse(self, path: Path) -> Session:
        return parse_composer(*self._split(path))

    def turn_states(self, path: Path) -> Iterator[Session]:
        """Each turn as it stood (:func:`composer_turns`): the database keeps every
        bubble, those a summary replaced included."""
        return composer_turns(*self._split(path))

    def _split(self, path: Path) -> tuple[Path, str]:
        """The database and composer id ``path`` names.

        Raises:
            SessionFormatError: ``path`` is no locator of a Cursor chat.
        """
        split = split_locator(str(path)) if self.owns_locator(path) else None
        if split is None:
            raise SessionFormatError(
                f"{path} names no Cursor chat (expected <state.vscdb>#<composer id>)"
            )
        return split

    def store_files(self, path: Path) -> tuple[Path, ...]:
        split = split_locator(str(path))
        return _store_files(split[0]) if split is not None else ()

    def tool_kind(self, name: str, command: str | None = None) -> ToolKind:
        return tool_kind(name, command)

    def usable_window(
        self, window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
    ) -> UsableWindow:
        return _compaction.usable_window(window)


ADAPTER = Cursor()
"""The Cursor adapter the registry holds."""
