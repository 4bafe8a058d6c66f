"""Cursor: register driftguard in ``mcp.json`` (design.md §8; mcp-and-hosts.md §3.4).

Where: ``~/.cursor/mcp.json`` (``%USERPROFILE%\\.cursor\\mcp.json`` on Windows); with
``--project DIR``, ``DIR/.cursor/mcp.json`` (Cursor asks to approve a project's
servers). Cursor is *installed* when ``~/.cursor`` exists. The key is ``mcpServers``,
with Claude Code's entry shape.

Whether Cursor accepts comments in this file was not verified from a primary source, so
it is treated as strict JSON: a file with comments is refused and left alone, like any
file that does not parse.

The entry: ``{"command": "<abs>/driftguard", "args": ["serve"],
"env": {"DRIFTGUARD_HOST": "cursor"}}``. driftguard does not read Cursor's own chats; the
hint tells the server to look for the newest session of any supported CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driftguard.setup_scripts._base import (
    HostName,
    HostResult,
    SetupRequest,
    not_installed,
    server_env,
    stdio_matches,
)
from driftguard.setup_scripts._safe_edit import JsonServers, edit_servers_file

__all__ = ["config_file", "cursor_dir", "installed", "matches", "run", "server_entry"]

HOST: HostName = "cursor"
_FORMAT = JsonServers(comments=False)


def cursor_dir() -> Path:
    """``~/.cursor``."""
    return Path.home() / ".cursor"


def installed() -> bool:
    """Whether Cursor's folder exists."""
    return cursor_dir().is_dir()


def config_file(project: Path | None = None) -> Path:
    """The user's ``mcp.json``, or ``project``'s."""
    if project is not None:
        return project / ".cursor" / "mcp.json"
    return cursor_dir() / "mcp.json"


def server_entry(command: str) -> dict[str, Any]:
    """Cursor's stdio entry that starts ``<command> serve``."""
    return {"command": command, "args": ["serve"], "env": server_env(HOST)}


def matches(existing: Any, command: str) -> bool:
    """Whether ``existing`` starts ``<command> serve`` with the host hint."""
    return stdio_matches(existing, server_entry(command))


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's entry for Cursor (module doc)."""
    if not installed():
        return not_installed(HOST, cursor_dir())
    notes: tuple[str, ...] = ()
    if request.project is not None and request.action == "install":
        notes = ("Cursor asks to approve a project's servers before it starts them",)
    return edit_servers_file(
        HOST,
        config_file(request.project),
        _FORMAT,
        request,
        server_entry(request.command),
        matches=lambda existing: matches(existing, request.command),
        notes=notes,
    )
