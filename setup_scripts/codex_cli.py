"""Codex CLI: register driftguard in ``config.toml`` (docs/design.md §8; docs/host-configs.md §3.3).

Where: ``<codex root>/config.toml``, the root being ``$CODEX_HOME`` or ``~/.codex``
(:func:`driftguard.adapters.codex_cli.root`); with ``--project DIR``,
``DIR/.codex/config.toml`` (read only for trusted projects). Codex CLI is *installed*
when the root folder exists. The table is ``[mcp_servers.driftguard]``.

Codex refuses to start on a config it cannot load ("Error loading config.toml"), and an
unknown key or a table with neither ``command`` nor ``url`` is such a config. The table
written therefore holds only keys of Codex's ``RawMcpServerConfig``: the stdio keys, and
``required`` (:data:`DEFAULTS`):

.. code-block:: toml

    [mcp_servers.driftguard]
    command = "/abs/driftguard"
    args = ["serve"]
    env = {DRIFTGUARD_HOST = "codex_cli"}
    required = true

(Codex passes its servers only an allow-list of variables plus ``env``, so the host hint
must be in ``env``.) Comments and layout survive: see
:mod:`driftguard.setup_scripts._toml`. Keys the user added to the table later
(``startup_timeout_sec``, ``enabled``, tool approvals) do not make it differ, and neither
does the user's own value of ``required``; a table without ``required`` (written by an
earlier driftguard) differs, and ``--update`` adds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from driftguard.adapters.codex_cli import root as codex_root
from driftguard.setup_scripts._base import HostName, HostResult, SetupRequest
from driftguard.setup_scripts._safe_edit import TomlServers, edit_stdio_host

__all__ = ["DEFAULTS", "config_file", "installed", "run"]

HOST: HostName = "codex_cli"
_FORMAT = TomlServers()

DEFAULTS: Mapping[str, Any] = {"required": True}
"""Keys written with driftguard's table whose value is then the user's.

``required = true`` is what makes Codex wait for driftguard before a session's first
model request. Sources: openai/codex ``codex-rs/`` as stored in the code index (the
``rust-v0.171.0`` tree itself is too large to fetch here); the pinned binary
``@openai/codex@0.171.0`` holds the same config keys, messages and source paths, and
each point below was measured against it with a server that answers 3 s late:

- ``codex-mcp/src/connection_manager/tool_catalog.rs``, ``capture_binding_with_metadata``:
  the tools of a model request come from servers whose start-up has finished. A server
  that is not required is waited for only until one shared deadline, the optional
  start-up grace (``DEFAULT_OPTIONAL_MCP_STARTUP_GRACE`` = 1 s in ``codex-mcp/src/mcp/
  mod.rs``; the top-level ``mcp_optional_startup_grace_ms`` of ``config/src/
  config_toml.rs``), and is then left out of the request ("omitting pending optional MCP
  server"). A required server is waited for until its start-up ends.
- ``config/src/mcp_types.rs``: ``required`` (default false) and ``startup_timeout_sec``
  (or ``startup_timeout_ms``), the time the handshake and first tool listing may take,
  30 s when unset in 0.171.0 (``DEFAULT_STARTUP_TIMEOUT`` of the MCP connection manager;
  measured: "timed out handshaking with MCP server after 30s"; older docs say 10 s). For
  a server that is not required it does not lengthen the 1 s grace: with
  ``startup_timeout_sec = 30`` alone the late server's tools were still missing.
- ``codex-mcp/src/connection_manager/required.rs`` (the session start-up of
  ``codex-core``, which ``codex exec`` reaches through the app server's ``thread/start``):
  a required server that fails or times out fails the session with "required MCP servers
  failed to initialize: driftguard: <reason>", and ``codex exec`` exits 1 (measured with
  a missing command: at once; with a server slower than ``startup_timeout_sec``: at it).

So with ``required = true`` driftguard's tools are in every session, and a driftguard
that cannot start stops Codex with that message instead of leaving the tools out without
a word; a user who prefers Codex to start without it sets ``required = false``, which
setup then keeps. ``mcp_optional_startup_grace_ms = 0`` would also wait, but it is a
top-level key that changes how Codex waits for every other server, and setup changes
only driftguard's table.
"""

_REQUIRED_NOTE = (
    "Codex waits for driftguard before a session's first request (required = true) and "
    "does not start a session when driftguard cannot start; set required = false in "
    "[mcp_servers.driftguard] to start without it (its tools may then be missing)"
)
_PROJECT_NOTE = "Codex reads a project's .codex/config.toml only when the project is trusted"


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
    if request.action == "install":
        notes = (_REQUIRED_NOTE,)
        if request.project is not None:
            notes += (_PROJECT_NOTE,)
    return edit_stdio_host(
        HOST,
        codex_root(),
        config_file(request.project),
        _FORMAT,
        request,
        notes=notes,
        defaults=DEFAULTS,
    )
