"""The hosts a session or a call comes from: the MCP client names each host announces, the
environment markers driftguard's setup and the hosts themselves set, and which source's
sessions a calling host writes (:func:`cli_for_host`). Reads the environment only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from driftguard.model import CLI_NAMES, CliName

__all__ = [
    "CLAUDE_PROJECT_ENV",
    "HOST_CLIENT_NAMES",
    "HOST_ENV",
    "PROJECT_ENV",
    "cli_for_host",
]

HOST_CLIENT_NAMES: Mapping[str, CliName | None] = {
    "claude-code": "claude_code",
    "gemini-cli-mcp-client": "gemini_cli",
    "codex": "codex_cli",
    "codex-mcp-client": "codex_cli",
    "cursor-vscode": "cursor",
}
"""``clientInfo.name`` of each known host (lower-cased) → the source whose sessions it
writes (docs/host-configs.md §1.9, from the ``mcp-client-capabilities`` database)."""

HOST_ENV = "DRIFTGUARD_HOST"
"""Set by ``driftguard setup`` in each host's server entry: the CLI name it serves."""

PROJECT_ENV = "DRIFTGUARD_PROJECT_DIR"
"""The project a server serves, when the host can name it (``driftguard setup`` writes it
for Cursor as ``${workspaceFolder}``, which Cursor expands per window)."""

CLAUDE_PROJECT_ENV = "CLAUDE_PROJECT_DIR"
"""Claude Code's stable project root, given to its MCP servers and hooks."""


def cli_for_host(client_name: str | None, env: Mapping[str, str] | None = None) -> CliName | None:
    """The CLI whose sessions the calling host writes, or ``None`` for any.

    ``clientInfo.name`` decides first; then ``$DRIFTGUARD_HOST`` (written by setup),
    ``CLAUDECODE=1`` (Claude Code) and ``GEMINI_CLI=1`` (Gemini CLI).
    """
    if client_name:
        key = client_name.strip().lower()
        if key in HOST_CLIENT_NAMES:
            return HOST_CLIENT_NAMES[key]
    environ = os.environ if env is None else env
    hinted = environ.get(HOST_ENV, "").strip()
    for cli in CLI_NAMES:
        if hinted == cli:
            return cli
    if environ.get("CLAUDECODE") == "1":
        return "claude_code"
    if environ.get("GEMINI_CLI") == "1":
        return "gemini_cli"
    return None
