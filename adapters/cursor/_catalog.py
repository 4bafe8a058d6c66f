"""Which composer chats belong to a project, and the newest of them.

Two lists name a project's chats (README.md, "Finding a project's chats"):

- the workspace's own ``workspaceStorage/<id>/state.vscdb``, ``ItemTable`` key
  ``composer.composerData``: ``{"allComposers": [{composerId, createdAt, lastUpdatedAt,
  isArchived?, isSubagent?, …}], …}`` (token-monitor ``src/adapters/cursor.ts``, deadhand
  ``cursor-storage.md``; chatrxiv shows a bare array, also accepted);
- since Cursor 3.0 the global ``globalStorage/state.vscdb``, ``ItemTable`` key
  ``composer.composerHeaders``: the same ``allComposers`` entries for every workspace, each
  with ``workspaceIdentifier: {id: <workspace id>, uri: {fsPath: <folder>}}`` (git-ai
  ``list_workspace_conversation_ids``; a "Cursor 3.0+" note in a public exporter; Codess
  ``CursorSchema``, which also describes the workspace list as a fallback for chats
  missing from the global one).

Both are read with one key lookup each; the chats themselves are never enumerated.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from driftguard.adapters._common import decode_json, parse_timestamp
from driftguard.adapters._scan import ProjectPaths
from driftguard.adapters.cursor._paths import WORKSPACE_DB
from driftguard.adapters.cursor._store import StateDb

__all__ = [
    "GLOBAL_HEADERS_KEY",
    "NEWEST_PROBES",
    "WORKSPACE_LIST_KEY",
    "ComposerHead",
    "global_heads",
    "has_messages",
    "merge_heads",
    "workspace_heads",
]

WORKSPACE_LIST_KEY: Final = "composer.composerData"
"""The ``ItemTable`` key of a workspace database listing the workspace's chats."""

GLOBAL_HEADERS_KEY: Final = "composer.composerHeaders"
"""The ``ItemTable`` key of the global database listing every chat with its workspace."""

NEWEST_PROBES: Final = 20
"""Chats, newest first, whose ``composerData`` is read to find the newest one holding a
message (a chat opened and left empty is newer than the one in use)."""


@dataclass(frozen=True, slots=True)
class ComposerHead:
    """One entry of a composer list.

    Attributes:
        composer_id: the chat's id (``composerId``).
        last_updated: ``lastUpdatedAt`` in seconds since the epoch (stored in ms), else
            ``createdAt``, else ``None``.
        is_subagent: the entry is a subagent's chat (``isSubagent``), never "the" chat.
        is_archived: ``isArchived``.
        workspace: the ``workspaceStorage/<id>`` folder the entry belongs to, when known.
    """

    composer_id: str
    last_updated: float | None
    is_subagent: bool = False
    is_archived: bool = False
    workspace: Path | None = None


def _entries(value: str | bytes | None) -> list[dict[str, Any]]:
    """The ``allComposers`` entries of a stored list (or a bare array of them) that name a
    ``composerId``; ``[]`` for anything else."""
    if value is None:
        return []
    try:
        decoded = decode_json(value)
    except ValueError:
        return []
    entries = decoded.get("allComposers") if isinstance(decoded, dict) else decoded
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("composerId"), str)]


def _head(entry: dict[str, Any], workspace: Path | None) -> ComposerHead:
    updated = parse_timestamp(entry.get("lastUpdatedAt"))
    if updated is None:
        updated = parse_timestamp(entry.get("createdAt"))
    return ComposerHead(
        composer_id=entry["composerId"],
        last_updated=updated,
        is_subagent=entry.get("isSubagent") is True,
        is_archived=entry.get("isArchived") is True,
        workspace=workspace,
    )


def workspace_heads(workspace: Path) -> list[ComposerHead]:
    """The chats a workspace folder lists (``ItemTable`` ``composer.composerData`` of its
    ``state.vscdb``); ``[]`` when it has no database or no list.

    Raises:
        SessionFormatError: the database exists but cannot be read (names the file).
    """
    db = workspace / WORKSPACE_DB
    if not db.is_file():
        return []
    with StateDb(db) as store:
        value = store.get("ItemTable", WORKSPACE_LIST_KEY)
    return [_head(entry, workspace) for entry in _entries(value)]


def global_heads(
    db: Path, *, workspaces: Collection[Path] = (), folder: ProjectPaths | None = None
) -> list[ComposerHead]:
    """The chats the global database's ``composer.composerHeaders`` attributes to one of
    ``workspaces`` (by ``workspaceIdentifier.id``, the workspace folder's name) or to the
    project ``folder`` (by ``workspaceIdentifier.uri.fsPath``); ``[]`` without the database
    or the key.

    Raises:
        SessionFormatError: the database exists but cannot be read (names the file).
    """
    if not db.is_file():
        return []
    with StateDb(db) as store:
        value = store.get("ItemTable", GLOBAL_HEADERS_KEY)
    by_name = {w.name: w for w in workspaces}
    heads: list[ComposerHead] = []
    for entry in _entries(value):
        identity = entry.get("workspaceIdentifier")
        identity = identity if isinstance(identity, dict) else {}
        ident = identity.get("id")
        uri = identity.get("uri")
        fs_path = uri.get("fsPath") if isinstance(uri, dict) else None
        if isinstance(ident, str) and ident in by_name:
            heads.append(_head(entry, by_name[ident]))
        elif folder is not None and isinstance(fs_path, str) and folder.is_path(fs_path):
            heads.append(_head(entry, None))
    return heads


def merge_heads(heads: Iterable[ComposerHead]) -> list[ComposerHead]:
    """One head per chat (the latest time any list gives it; a subagent if any list says
    so), subagents' chats left out, newest first (chats without a time last)."""
    merged: dict[str, ComposerHead] = {}
    subagents: set[str] = set()
    for head in heads:
        if head.is_subagent:
            subagents.add(head.composer_id)
        known = merged.get(head.composer_id)
        if known is None or (head.last_updated or 0.0) > (known.last_updated or 0.0):
            merged[head.composer_id] = head
    chosen = [h for cid, h in merged.items() if cid not in subagents]
    chosen.sort(key=lambda h: h.last_updated or 0.0, reverse=True)
    return chosen


def has_messages(composer: dict[str, Any]) -> bool:
    """Whether a decoded ``composerData`` lists at least one bubble (in its headers or in an
    inline ``conversation``)."""
    for key in ("fullConversationHeadersOnly", "conversation"):
        value = composer.get(key)
        if isinstance(value, list) and value:
            return True
    return False
