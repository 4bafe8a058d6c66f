"""Codex CLI: register driftguard in ``config.toml`` (design.md §8; mcp-and-hosts.md §3.3).

Where: ``<codex root>/config.toml``, the root being ``$CODEX_HOME`` or ``~/.codex``
(:func:`driftguard.discovery.codex_root`); with ``--project DIR``,
``DIR/.codex/config.toml`` (read only for trusted projects). Codex CLI is *installed*
when the root folder exists. The table is ``[mcp_servers.driftguard]``.

Codex refuses to start on a config it cannot load ("Error loading config.toml"), and an
unknown key or a table with neither ``command`` nor ``url`` is such a config. The table
written therefore holds only the stdio keys of Codex's ``RawMcpServerConfig``:

.. code-block:: toml

    [mcp_servers.driftguard]
    command = "/abs/driftguard"
    args = ["serve"]
    env = {DRIFTGUARD_HOST = "codex_cli"}

(Codex passes its servers only an allow-list of variables plus ``env``, so the host hint
must be in ``env``.) Comments and layout survive: see
:mod:`driftguard.setup_scripts._toml`. Keys the user added to the table later
(``startup_timeout_sec``, ``enabled``, tool approvals) do not make it differ.
"""

from __future__ import annotations

from pathlib import Path

from driftguard.discovery import codex_root
from driftguard.setup_scripts._base import HostName, HostResult, SetupRequest
from driftguard.setup_scripts._safe_edit import TomlServers, edit_stdio_host

__all__ = ["config_file", "installed", "run"]

HOST: HostName = "codex_cli"
_FORMAT = TomlServers()


def installed() -> bool:
    """Whether Codex CLI's folder exists."""
    return codex_root().is_dir()


def config_file(project: Path | None = None) -> Path:
    """The user's ``config.toml``, or ``project``'s."""
    if project is not None:
        return project / ".codex" / "config.toml"
    return codex_root() / "config.toml"


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's table for Codex CLI (module doc)."""
    notes: tuple[str, ...] = ()
    if request.project is not None and request.action == "install":
        notes = ("Codex reads a project's .codex/config.toml only when the project is trusted",)
    return edit_stdio_host(
        HOST, codex_root(), config_file(request.project), _FORMAT, request, notes=notes
    )
