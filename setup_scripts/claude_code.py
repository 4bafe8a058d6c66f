"""Claude Code: register driftguard as a user-scope MCP server (docs/design.md §8;
docs/host-configs.md §3.1).

Where Claude Code keeps it. The user scope is the top-level ``mcpServers`` object of
Claude Code's global config file, which is (as Claude Code 2.1.197 computes it, read in
its binary here) ``<config dir>/.config.json`` when that legacy file exists, else
``$CLAUDE_CONFIG_DIR/.claude.json`` when ``CLAUDE_CONFIG_DIR`` is set, else
``~/.claude.json`` (``-custom-oauth`` is added to the name under
``CLAUDE_CODE_CUSTOM_OAUTH_URL``). The config dir is ``$CLAUDE_CONFIG_DIR`` (the whole
value: Claude Code reads one folder; the comma-separated list
:func:`driftguard.adapters.claude_code.roots` accepts is a session-reading convention) or
``~/.claude``. Claude Code is *installed* when that folder or the global file exists.

How the entry is written:

- **``claude`` on PATH**: ``claude mcp add-json --scope user driftguard '<json>'`` (and
  ``claude mcp remove --scope user driftguard`` for uninstall, both for ``--update``),
  because Claude Code rewrites ``~/.claude.json`` itself, from memory, in every session,
  and hand edits of it are known to be lost (anthropics/claude-code#27941, #65463). The
  file is still read first (a file that does not parse is refused: Claude Code would
  offer to reset it to defaults) and backed up, and read again afterwards to check the
  entry. ``claude`` rewrites the whole file (it reorders keys, adds its own, and leaves
  an empty ``mcpServers`` after a remove: seen with 2.1.197 here), so only driftguard's
  entry is checked, not the bytes. ``--update`` passes ``claude`` the user's entry with
  only driftguard's keys replaced (:func:`~driftguard.setup_scripts._base.merged_entry`);
  ``claude mcp add-json`` keeps the keys Claude Code knows (``timeout``, ``alwaysLoad``)
  and drops the others (seen with 2.1.197), which the report then names.
- **otherwise**: the careful edit of :mod:`driftguard.setup_scripts._safe_edit` (strict
  JSON, key order and indentation kept), with a note to close running sessions.
- ``--project DIR``: ``DIR/.mcp.json`` (project scope; Claude Code does not rewrite that
  file, so it is edited directly; interactive sessions ask to approve its servers).

The entry: ``{"type": "stdio", "command": "<abs>/driftguard", "args": ["serve"],
"env": {"DRIFTGUARD_HOST": "claude_code"}}``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from driftguard.setup_scripts._base import (
    SERVER_NAME,
    HostName,
    HostResult,
    SetupRequest,
    Status,
    display_path,
    merged_entry,
    not_installed,
    server_env,
    stdio_matches,
)
from driftguard.setup_scripts._safe_edit import (
    ConfigSyntaxError,
    Inspected,
    JsonServers,
    edit_servers_file,
    inspect_config,
    plan_edit,
    write_backup,
)

__all__ = [
    "config_dir",
    "global_config_file",
    "installed",
    "matches",
    "run",
    "server_entry",
]

HOST: HostName = "claude_code"
CLI_TIMEOUT = 120.0
"""Seconds one ``claude mcp …`` call may take."""
_FORMAT = JsonServers(comments=False)
_STATUS: dict[str, Status] = {"add": "added", "update": "updated", "remove": "removed"}


def config_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR`` when set, else ``~/.claude``."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def global_config_file() -> Path:
    """The file holding Claude Code's user-scope ``mcpServers`` (module doc)."""
    legacy = config_dir() / ".config.json"
    if legacy.exists():
        return legacy
    suffix = "-custom-oauth" if os.environ.get("CLAUDE_CODE_CUSTOM_OAUTH_URL") else ""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    folder = Path(configured).expanduser() if configured else Path.home()
    return folder / f".claude{suffix}.json"


def installed() -> bool:
    """Whether Claude Code has a config folder (or its global file) here."""
    return config_dir().is_dir() or global_config_file().is_file()


def server_entry(command: str) -> dict[str, Any]:
    """Claude Code's stdio entry that starts ``<command> serve``."""
    return {"type": "stdio", "command": command, "args": ["serve"], "env": server_env(HOST)}


def matches(existing: Any, command: str) -> bool:
    """Whether ``existing`` starts ``<command> serve`` with the host hint (a missing
    ``type`` means stdio to Claude Code)."""
    if isinstance(existing, dict) and "type" not in existing:
        existing = {"type": "stdio", **existing}
    return stdio_matches(existing, server_entry(command))


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall driftguard's entry for Claude Code (module doc)."""
    if not installed():
        return not_installed(HOST, config_dir())
    entry = server_entry(request.command)

    def check(existing: Any) -> bool:
        return matches(existing, request.command)

    if request.project is not None:
        notes: tuple[str, ...] = ()
        if request.action == "install":
            notes = ("interactive Claude Code sessions ask to approve a project's servers once",)
        path = request.project / ".mcp.json"
        return edit_servers_file(HOST, path, _FORMAT, request, entry, matches=check, notes=notes)
    path = global_config_file()
    if request.claude_cli is None:
        note = (
            f"`claude` is not on PATH, so {display_path(path)} is edited directly: close "
            "running Claude Code sessions first (each writes its own copy of this file "
            f"back and can drop the change), then {_check_hint(request)}"
        )
        return edit_servers_file(HOST, path, _FORMAT, request, entry, matches=check, notes=(note,))
    return _through_cli(request, request.claude_cli, path, entry)


def _check_hint(request: SetupRequest) -> str:
    """How to check the direct edit afterwards without undoing it: a dry run of the same
    action (rerunning plain ``driftguard setup`` after an uninstall would add it back)."""
    if request.action == "uninstall":
        return "check with `driftguard setup --uninstall --dry-run` (it should say: not present)"
    return (
        "check with `driftguard setup --dry-run` (it should say: "
        "already present) or `/mcp` in a new Claude Code session"
    )


def _commands(claude: str, found: Inspected, entry: dict[str, Any]) -> list[list[str]]:
    remove = [claude, "mcp", "remove", "--scope", "user", SERVER_NAME]
    add = [claude, "mcp", "add-json", "--scope", "user", SERVER_NAME, json.dumps(entry)]
    if found.decision == "add":
        return [add]
    if found.decision == "update":
        return [remove, add]
    return [remove]


def _call(command: list[str]) -> str | None:
    """Run one ``claude mcp`` command; ``None`` on success, else why it failed."""
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{shlex.join(command[:3])}` did not run: {exc}"
    if done.returncode == 0:
        return None
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    reason = said[-1] if said else "no message"
    return f"`{shlex.join(command[:3])}` exited {done.returncode}: {reason}"


def _through_cli(
    request: SetupRequest, claude: str, path: Path, entry: dict[str, Any]
) -> HostResult:
    """The ``claude mcp`` route: check the file, back it up, let ``claude`` edit it, check
    the entry."""
    shown = display_path(path)
    found = inspect_config(HOST, path, _FORMAT, request, lambda e: matches(e, request.command))
    if isinstance(found, HostResult):
        return found
    if found.decision == "update":
        entry = merged_entry(found.existing, entry)
    commands = _commands(claude, found, entry)
    how = f"through `claude mcp {commands[-1][2]}`"
    # The diff shown, run or dry run, is that of the careful edit: driftguard's change as
    # `claude` makes it, up to the key order. What `claude` adds of its own when it creates
    # the file (its machine and user ids, first start time) is not driftguard's to show.
    planned = plan_edit(HOST, found, _FORMAT, entry, request)
    diff = planned.diff if not isinstance(planned, HostResult) else ""
    if request.dry_run:
        runs = tuple(f"would run: {shlex.join(command)}" for command in commands)
        status = _STATUS[found.decision]
        return HostResult(
            HOST, status, f"{shown}, {how}", path=path, diff=diff, notes=runs, dry_run=True
        )

    backup: Path | None = None
    if found.original is not None:
        try:
            mode = found.target.stat().st_mode & 0o7777
            backup = write_backup(found.target, found.original, mode)
        except OSError as exc:
            detail = f"cannot back up {shown}: {exc.strerror or exc}; nothing changed"
            return HostResult(HOST, "failed", detail, ok=False, path=path)
    for index, command in enumerate(commands):
        failure = _call(command)
        if failure is None:
            continue
        notes: tuple[str, ...] = ()
        if index > 0 and isinstance(found.existing, dict):  # --update removed the old one
            restored = _call([*commands[-1][:-1], json.dumps(found.existing)])
            notes = ("the previous entry was put back" if restored is None else restored,)
        return HostResult(
            HOST, "failed", f"{shown}: {failure}", ok=False, path=path, backup=backup, notes=notes
        )
    return _check_after(found, path, backup, request, commands, entry, diff)


def _dropped(sent: dict[str, Any], written: Any) -> list[str]:
    """The keys (``env.<NAME>`` for variables) of ``sent`` that ``written`` lacks."""
    if not isinstance(written, dict):
        return sorted(sent)
    missing = [key for key in sent if key not in written]
    env, written_env = sent.get("env"), written.get("env")
    if isinstance(env, dict) and isinstance(written_env, dict):
        missing += [f"env.{name}" for name in env if name not in written_env]
    return missing


def _check_after(
    found: Inspected,
    path: Path,
    backup: Path | None,
    request: SetupRequest,
    commands: list[list[str]],
    entry: dict[str, Any],
    diff: str,
) -> HostResult:
    """Read the file ``claude`` wrote and check driftguard's entry in it; ``diff`` is the
    change driftguard asked for (the result's diff)."""
    shown = display_path(path)
    how = f"through `claude mcp {commands[-1][2]}`"
    try:
        after_text = found.target.read_text(encoding="utf-8")
        servers = _FORMAT.load(after_text).get("mcpServers") or {}
    except (OSError, UnicodeDecodeError, ConfigSyntaxError) as exc:
        detail = f"{shown} does not read back after `claude mcp`: {exc}"
        return HostResult(HOST, "failed", detail, ok=False, path=path, backup=backup)
    if found.decision == "remove":
        done = isinstance(servers, dict) and SERVER_NAME not in servers
    else:
        done = isinstance(servers, dict) and matches(servers.get(SERVER_NAME), request.command)
    status = _STATUS[found.decision]
    if not done:
        detail = f"{shown} does not show the change after `claude mcp` reported success"
        return HostResult(HOST, "failed", detail, ok=False, path=path, backup=backup)
    notes: tuple[str, ...] = ()
    dropped = _dropped(entry, servers.get(SERVER_NAME)) if found.decision == "update" else []
    if dropped:
        notes = (
            f"`claude mcp add-json` did not keep these keys of your {SERVER_NAME} entry: "
            f"{', '.join(dropped)} (the backup has them)",
        )
    return HostResult(
        HOST,
        status,
        f"{shown}, {how}",
        path=path,
        diff=diff,
        backup=backup,
        notes=notes,
    )
