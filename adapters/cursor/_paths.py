"""Where Cursor keeps its state, and which workspace folder belongs to a project.

Pure path rules plus two small reads (a folder listing and ``workspace.json`` files); no
SQLite here. Sources: Electron's ``app.getPath("appData")`` (``%APPDATA%`` on Windows,
``$XDG_CONFIG_HOME`` or ``~/.config`` on Linux, ``~/Library/Application Support`` on macOS;
electronjs.org/docs/latest/api/app) with Cursor's ``Cursor/User`` below it, as every public
reader of these stores uses (docs/formats.md §D; jdconley/deadhand
``docs/reverse-engineering/cursor-storage.md``; michaeldhood/chatrxiv
``docs/cursor/storage-reference.md``); ``workspace.json`` is VS Code's workspace-storage
marker (``{"folder": "file:///…"}`` for a folder window, ``{"workspace": "file:///….code-workspace"}``
for a multi-root one), read the same way by codeburn, token-monitor and Codess.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Final
from urllib.parse import unquote, urlsplit

from driftguard.adapters._common import decode_json
from driftguard.adapters._scan import ProjectPaths, read_bounded, scan_dirs

__all__ = [
    "GLOBAL_DB",
    "USER_DIR_ENV",
    "WORKSPACE_DB",
    "WORKSPACE_JSON",
    "WORKSPACE_STORAGE",
    "file_uri_to_path",
    "global_db_path",
    "project_workspaces",
    "user_dir",
    "workspace_folder",
]

USER_DIR_ENV: Final = "DRIFTGUARD_CURSOR_USER_DIR"
"""Environment variable naming Cursor's ``User`` folder (the one holding ``globalStorage/``
and ``workspaceStorage/``). driftguard's own override, for tests and unusual installs
(Cursor started with ``--user-data-dir``); Cursor itself does not read it."""

GLOBAL_DB: Final = PurePosixPath("globalStorage", "state.vscdb")
"""The global state database, relative to the ``User`` folder: composer chats live in its
``cursorDiskKV`` table."""

WORKSPACE_STORAGE: Final = "workspaceStorage"
"""The folder (below ``User``) holding one ``<workspace id>/`` folder per opened workspace."""

WORKSPACE_DB: Final = "state.vscdb"
"""A workspace's own state database (its ``ItemTable`` lists the workspace's composers)."""

WORKSPACE_JSON: Final = "workspace.json"
"""The file naming the folder (or ``.code-workspace`` file) a workspace id stands for."""

_WORKSPACE_JSON_LIMIT = 64 * 1024
"""Bytes of a ``workspace.json`` read at most (real ones hold one short URI)."""


def user_dir(
    env: Mapping[str, str] | None = None,
    *,
    platform: str | None = None,
    home: Path | None = None,
) -> Path:
    """Cursor's ``User`` folder on this machine.

    ``$DRIFTGUARD_CURSOR_USER_DIR`` when set (``~`` expanded); else, by platform
    (``sys.platform`` values): ``darwin`` → ``~/Library/Application Support/Cursor/User``;
    ``win32`` → ``%APPDATA%\\Cursor\\User`` (``~/AppData/Roaming`` when ``APPDATA`` is
    unset); anything else → ``$XDG_CONFIG_HOME/Cursor/User`` when that is an absolute path,
    else ``~/.config/Cursor/User``. The folder may not exist.

    Args:
        env: the environment (default: this process's).
        platform: a ``sys.platform`` value (default: this machine's).
        home: the home folder (default: :meth:`Path.home`).
    """
    environ = os.environ if env is None else env
    override = environ.get(USER_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    system = sys.platform if platform is None else platform
    base_home = Path.home() if home is None else home
    if system == "darwin":
        return base_home / "Library" / "Application Support" / "Cursor" / "User"
    if system == "win32":
        appdata = environ.get("APPDATA", "").strip()
        root = Path(appdata) if appdata else base_home / "AppData" / "Roaming"
        return root / "Cursor" / "User"
    xdg = environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(xdg) if xdg and os.path.isabs(xdg) else base_home / ".config"
    return root / "Cursor" / "User"


def global_db_path(user: Path) -> Path:
    """``<user>/globalStorage/state.vscdb``: the database holding the composer chats."""
    return user.joinpath(*GLOBAL_DB.parts)


def file_uri_to_path(uri: str) -> str | None:
    """The local path a ``file:`` URI names, or ``None`` for other schemes.

    Percent-escapes are decoded; ``file:///c%3A/Users/me`` gives ``c:/Users/me`` (VS Code
    writes Windows drive letters that way) and ``file://server/share/x`` gives
    ``//server/share/x``. Remote URIs (``vscode-remote://…``) name no local folder.
    """
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme.lower() != "file":
        return None
    path = unquote(parts.path)
    if len(path) >= 3 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
        path = path[1:]  # "/c:/Users" → "c:/Users"
    if parts.netloc and parts.netloc.lower() != "localhost":
        return f"//{parts.netloc}{path}"
    return path or None


def workspace_folder(workspace: Path) -> str | None:
    """The local folder a ``workspaceStorage/<id>/`` folder stands for, from its
    ``workspace.json`` ``folder`` URI; ``None`` when the file is missing, unreadable, not a
    JSON object, names a multi-root ``workspace`` file instead, or a remote folder."""
    data = read_bounded(workspace / WORKSPACE_JSON, _WORKSPACE_JSON_LIMIT + 1)
    if data is None or len(data) > _WORKSPACE_JSON_LIMIT:
        return None
    try:
        value = decode_json(data)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    folder = value.get("folder")
    if isinstance(folder, str):
        return file_uri_to_path(folder)
    if isinstance(folder, dict) and isinstance(folder.get("path"), str):
        return str(folder["path"])  # an older object form, {"path": "/…"} (Codess)
    return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def project_workspaces(project: Path | ProjectPaths, user: Path) -> list[Path]:
    """The ``workspaceStorage/<id>/`` folders whose ``workspace.json`` folder is ``project``
    (either of its path forms), the most recently used first (by the mtime of their
    ``state.vscdb``).

    One project can own several: Cursor makes a new id when the folder is opened through
    another path or after its storage was reset. Reads only the ``workspace.json`` files.
    """
    paths = project if isinstance(project, ProjectPaths) else ProjectPaths.of(project)
    found = [
        folder
        for folder in scan_dirs(user / WORKSPACE_STORAGE)
        if (named := workspace_folder(folder)) is not None and paths.is_path(named)
    ]
    found.sort(key=lambda folder: _mtime(folder / WORKSPACE_DB), reverse=True)
    return found
