"""Cursor: register driftguard in ``mcp.json`` (docs/design.md §8; docs/host-configs.md §3.4).

Where: ``~/.cursor/mcp.json`` (``%USERPROFILE%\\.cursor\\mcp.json`` on Windows); with
``--project DIR``, ``DIR/.cursor/mcp.json`` (Cursor asks to approve a project's
servers). Cursor is *installed* when ``~/.cursor`` exists. The key is ``mcpServers``,
with Claude Code's entry shape.

Whether Cursor accepts comments in this file was not verified from a primary source, so
it is treated as strict JSON: a file with comments is refused and left alone, like any
file that does not parse.

The entry: ``{"command": "<abs>/driftguard", "args": ["serve"], "env":
{"DRIFTGUARD_HOST": "cursor", "DRIFTGUARD_PROJECT_DIR": "${workspaceFolder}"}}``. The host
hint makes the server score Cursor's own composer chats; the project variable, which
Cursor expands per window, names the project whose chats those are
(:data:`~driftguard.setup_scripts._base.CURSOR_PROJECT`).
"""

from __future__ import annotations

from pathlib import Path

from driftguard.setup_scripts._base import HostName, HostResult, SetupRequest
from driftguard.setup_scripts._safe_edit import JsonServers, edit_stdio_host

__all__ = ["config_file", "cursor_dir", "installed", "run"]

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


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's entry for Cursor (module doc)."""
    notes: tuple[str, ...] = ()
    if request.project is not None and request.action == "install":
        notes = ("Cursor asks to approve a project's servers before it starts them",)
    return edit_stdio_host(
        HOST, cursor_dir(), config_file(request.project), _FORMAT, request, notes=notes
    )
