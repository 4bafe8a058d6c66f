"""Build synthetic Cursor homes for tests: the on-disk layout of Cursor's ``User`` folder,
with SQLite databases in the documented schema and our own content.

Layout (adapters/cursor/README.md)::

    <User>/globalStorage/state.vscdb             ItemTable + cursorDiskKV, WAL mode
    <User>/workspaceStorage/<id>/workspace.json  {"folder": "file:///…"}
    <User>/workspaceStorage/<id>/state.vscdb     ItemTable composer.composerData

Every database carries Cursor-style authentication entries (``cursorAuth/…``) holding
:data:`AUTH_SECRETS`, which no output may ever contain.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SCHEMA = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
)
"""The two tables of every ``state.vscdb`` (chatrxiv / deadhand dumps of ``sqlite_master``)."""

AUTH_SECRETS = {
    "cursorAuth/accessToken": "eyJhbGciOi.SYNTHETIC-ACCESS-TOKEN-0f3c9a.sig",
    "cursorAuth/refreshToken": "SYNTHETIC-REFRESH-TOKEN-77b1e2",
    "cursorAuth/cachedEmail": "synthetic-user@example.invalid",
}
"""Stand-ins for the authentication entries Cursor keeps in ``ItemTable``."""

BASE_MS = 1_790_000_000_000
"""A fixed ``createdAt`` base, in ms since the epoch (2026-09-21)."""


def iso(offset_s: int) -> str:
    """An ISO-8601 ``createdAt`` string ``offset_s`` seconds after :data:`BASE_MS`."""
    from datetime import UTC, datetime

    return (
        datetime.fromtimestamp(BASE_MS / 1000 + offset_s, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def create_db(path: Path, *, wal: bool = True, with_auth: bool = True) -> Path:
    """An empty ``state.vscdb`` with Cursor's two tables (and auth entries)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        for statement in SCHEMA:
            conn.execute(statement)
        if with_auth:
            conn.executemany("INSERT INTO ItemTable VALUES (?, ?)", AUTH_SECRETS.items())
        conn.commit()
    finally:
        conn.close()
    return path


def put(path: Path, table: str, rows: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
    """Store rows in ``table`` of ``path``: dicts and lists as JSON text, ``str``/``bytes``
    as given (so malformed values can be stored), ``None`` as NULL."""
    items = rows.items() if isinstance(rows, Mapping) else rows
    encoded = [
        (key, value if value is None or isinstance(value, str | bytes) else json.dumps(value))
        for key, value in items
    ]
    conn = sqlite3.connect(path)
    try:
        conn.executemany(f"INSERT INTO {table} VALUES (?, ?)", encoded)
        conn.commit()
    finally:
        conn.close()


def user_bubble(bubble_id: str, text: str, offset_s: int = 0, **extra: Any) -> dict[str, Any]:
    """A ``type`` 1 bubble (the person's prompt)."""
    return {
        "_v": 3,
        "type": 1,
        "bubbleId": bubble_id,
        "text": text,
        "createdAt": iso(offset_s),
        "tokenCount": {"inputTokens": 0, "outputTokens": 0},
        **extra,
    }


def ai_bubble(bubble_id: str, text: str, offset_s: int = 0, **extra: Any) -> dict[str, Any]:
    """A ``type`` 2 bubble (the model's reply, a tool call, or thinking)."""
    return {
        "_v": 3,
        "type": 2,
        "bubbleId": bubble_id,
        "text": text,
        "createdAt": iso(offset_s),
        "tokenCount": {"inputTokens": 0, "outputTokens": 0},
        **extra,
    }


def tool_bubble(
    bubble_id: str,
    name: str,
    args: Mapping[str, Any],
    *,
    result: Any = "",
    status: str = "completed",
    text: str = "",
    arg_field: str = "rawArgs",
    offset_s: int = 0,
) -> dict[str, Any]:
    """A ``type`` 2 bubble carrying ``toolFormerData`` (arguments and result as JSON text,
    as Cursor stores them)."""
    data: dict[str, Any] = {
        "tool": 15,
        "name": name,
        "toolCallId": f"call_{bubble_id}",
        arg_field: json.dumps(args),
        "status": status,
        "result": result if isinstance(result, str) else json.dumps(result),
    }
    return ai_bubble(bubble_id, text, offset_s, toolFormerData=data)


def headers(bubbles: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``fullConversationHeadersOnly`` entries for ``bubbles``."""
    out = []
    for bubble in bubbles:
        header = {"bubbleId": bubble["bubbleId"], "type": bubble["type"]}
        if "serverBubbleId" in bubble:
            header["serverBubbleId"] = bubble["serverBubbleId"]
        out.append(header)
    return out


class CursorHome:
    """A Cursor ``User`` folder under construction (global database created at once)."""

    def __init__(self, user: Path, *, wal: bool = True) -> None:
        self.user = user
        self.global_db = create_db(user / "globalStorage" / "state.vscdb", wal=wal)
        self._workspaces = 0

    # -------------------------------------------------------------- chats

    def add_chat(
        self,
        composer_id: str,
        bubbles: list[dict[str, Any]],
        *,
        inline: bool = False,
        updated_s: int = 0,
        **composer: Any,
    ) -> dict[str, Any]:
        """Store a chat: ``composerData:<id>`` plus one ``bubbleId:<id>:<bid>`` row per
        bubble (rows written in reverse order: storage order is not chat order), or, with
        ``inline``, the older layout with the bubbles in ``conversation`` and no rows."""
        data: dict[str, Any] = {
            "_v": 10,
            "composerId": composer_id,
            "name": f"chat {composer_id[:8]}",
            "createdAt": BASE_MS,
            "lastUpdatedAt": BASE_MS + updated_s * 1000,
            "status": "completed",
            "unifiedMode": "agent",
            "modelConfig": {"modelName": "claude-4.5-sonnet", "maxMode": False},
        }
        if inline:
            data["conversation"] = bubbles
            data["fullConversationHeadersOnly"] = []
        else:
            data["fullConversationHeadersOnly"] = headers(bubbles)
            data["conversationMap"] = {}
        data.update(composer)
        put(self.global_db, "cursorDiskKV", {f"composerData:{composer_id}": data})
        if not inline:
            put(
                self.global_db,
                "cursorDiskKV",
                [(f"bubbleId:{composer_id}:{b['bubbleId']}", b) for b in reversed(bubbles)],
            )
        return data

    # -------------------------------------------------------------- workspaces

    def add_workspace(
        self,
        folder: Path | str,
        composers: list[dict[str, Any]] | None = None,
        *,
        workspace_id: str | None = None,
        key: str = "folder",
    ) -> Path:
        """A ``workspaceStorage/<id>/`` folder for ``folder`` whose database lists
        ``composers`` (``allComposers`` heads) under ``composer.composerData``."""
        self._workspaces += 1
        ident = workspace_id or f"{self._workspaces:032x}"
        workspace = self.user / "workspaceStorage" / ident
        workspace.mkdir(parents=True)
        uri = folder if isinstance(folder, str) else Path(folder).absolute().as_uri()
        (workspace / "workspace.json").write_text(json.dumps({key: uri}), encoding="utf-8")
        db = create_db(workspace / "state.vscdb", wal=False)
        if composers is not None:
            put(
                db,
                "ItemTable",
                {
                    "composer.composerData": {
                        "allComposers": composers,
                        "selectedComposerIds": [c["composerId"] for c in composers[:1]],
                    }
                },
            )
        return workspace

    def set_global_headers(self, composers: list[dict[str, Any]]) -> None:
        """The Cursor ≥ 3.0 global list: ``ItemTable`` ``composer.composerHeaders``."""
        put(self.global_db, "ItemTable", {"composer.composerHeaders": {"allComposers": composers}})


def head(composer_id: str, updated_s: int, **extra: Any) -> dict[str, Any]:
    """One ``allComposers`` entry, ``lastUpdatedAt`` ``updated_s`` after the base."""
    return {
        "type": "head",
        "composerId": composer_id,
        "name": f"chat {composer_id[:8]}",
        "createdAt": BASE_MS,
        "lastUpdatedAt": BASE_MS + updated_s * 1000,
        "unifiedMode": "agent",
        **extra,
    }
