"""Gemini CLI: register driftguard in ``settings.json`` (docs/design.md §8; docs/host-configs.md
§3.2).

Where: ``<gemini root>/settings.json``, the root being ``$GEMINI_CLI_HOME/.gemini`` or
``~/.gemini`` (:func:`driftguard.adapters.gemini_cli.root`; Gemini CLI 0.61.0's
``Storage.getGlobalSettingsPath``); with ``--project DIR``, ``DIR/.gemini/settings.json``
(read only in trusted folders). Gemini CLI is *installed* when the root folder exists.
The key is the top-level ``mcpServers``.

The file is JSONC: Gemini reads it as ``JSON.parse(stripJsonComments(text))``, so
comments are allowed and kept by the edit, trailing commas are not, and a file that does
not parse stops Gemini from starting (``FatalConfigError``) — such a file is refused and
left alone. The edit is the comment-preserving splice of
:mod:`driftguard.jsonc`.

The entry: ``{"command": "<abs>/driftguard", "args": ["serve"],
"env": {"DRIFTGUARD_HOST": "gemini_cli"}}``. Gemini starts stdio servers only in trusted
folders ("uses stdio transport but current folder is not trusted"), which the report
notes with the two ways that work in Gemini CLI 0.61.0 (which has no ``trust``
subcommand, whatever that message says): trust the folder when Gemini asks, or add it
to ``trustedFolders.json`` — ``{"<abs folder>": "TRUST_FOLDER"}`` (docs/real-clis.md §2) —
which lives in the same root folder (``Storage.getTrustedFoldersPath`` in its bundle,
moved by ``GEMINI_CLI_TRUSTED_FOLDERS_PATH``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from driftguard.adapters.gemini_cli import root as gemini_root
from driftguard.setup_scripts._base import HostName, HostResult, SetupRequest, display_path
from driftguard.setup_scripts._safe_edit import JsonServers, edit_stdio_host

__all__ = [
    "installed",
    "run",
    "settings_file",
    "trust_note",
    "trusted_folders_file",
]

HOST: HostName = "gemini_cli"
_FORMAT = JsonServers(comments=True)


def installed() -> bool:
    """Whether Gemini CLI's folder exists."""
    return gemini_root().is_dir()


def settings_file(project: Path | None = None) -> Path:
    """The user's ``settings.json``, or ``project``'s."""
    if project is not None:
        return project / ".gemini" / "settings.json"
    return gemini_root() / "settings.json"


def trusted_folders_file() -> Path:
    """Where Gemini CLI keeps the folders the user trusts."""
    configured = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "").strip()
    return Path(configured).expanduser() if configured else gemini_root() / "trustedFolders.json"


def trust_note(project: Path | None) -> str:
    """The note that Gemini CLI starts stdio servers only in trusted folders, and how to
    trust one (``project``'s path when given)."""
    folder = str(project) if project is not None else "/abs/project/folder"
    return (
        "Gemini CLI starts stdio servers only in trusted folders: trust the folder when "
        f"Gemini asks, or add it to {display_path(trusted_folders_file())} as "
        f"{json.dumps({folder: 'TRUST_FOLDER'}, ensure_ascii=False)}"
    )


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's entry for Gemini CLI (module doc)."""
    notes = (trust_note(request.project),) if request.action == "install" else ()
    return edit_stdio_host(
        HOST, gemini_root(), settings_file(request.project), _FORMAT, request, notes=notes
    )
