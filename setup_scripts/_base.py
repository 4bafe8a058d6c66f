"""What every host module of ``driftguard setup`` shares: the request, the per-host
result, the server entry and the decision between add, keep, update and remove
(docs/design.md §8)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from driftguard import labels
from driftguard.sessions.hosts import HOST_ENV, PROJECT_ENV

__all__ = [
    "CURSOR_PROJECT",
    "HOST_LABELS",
    "HOST_NAMES",
    "SERVER_NAME",
    "Action",
    "Decision",
    "HostName",
    "HostResult",
    "SetupRequest",
    "Status",
    "decide",
    "display_path",
    "merged_entry",
    "missing_defaults",
    "not_installed",
    "same_value",
    "server_env",
    "stdio_entry",
    "stdio_matches",
]

HostName = Literal["claude_code", "gemini_cli", "codex_cli", "cursor"]
HOST_NAMES: tuple[HostName, ...] = ("claude_code", "gemini_cli", "codex_cli", "cursor")
HOST_LABELS: Mapping[HostName, str] = {name: labels.HOST_LABELS[name] for name in HOST_NAMES}

SERVER_NAME = "driftguard"
"""The name of driftguard's entry in every host's table of MCP servers."""

Action = Literal["install", "uninstall"]
Status = Literal[
    "added",
    "already present",
    "updated",
    "removed",
    "not present",
    "skipped",
    "refused",
    "failed",
    "still installed",
]


@dataclass(frozen=True, slots=True)
class SetupRequest:
    """What ``driftguard setup`` was asked to do.

    ``command`` is the absolute path of the ``driftguard`` console script (registered as
    ``<command> serve``; unused by ``uninstall``). ``project`` selects the project-scope
    files instead of the user's. ``claude_cli`` is the ``claude`` executable to register
    through (``None``: edit Claude Code's file directly).
    """

    command: str
    action: Action = "install"
    update: bool = False
    dry_run: bool = False
    project: Path | None = None
    claude_cli: str | None = None


@dataclass(frozen=True, slots=True)
class HostResult:
    """The outcome for one host: one report line, plus the change as a unified diff.

    ``ok`` is false when the host counts against exit code 0 (refused, failed, a
    differing entry kept, or an explicitly requested host that is not installed).
    """

    host: HostName
    status: Status
    detail: str
    ok: bool = True
    path: Path | None = None
    diff: str = ""
    backup: Path | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    dry_run: bool = False
    installed: bool = True
    """False when the host's config folder does not exist (nothing was looked at)."""
    label: str = ""
    """What the report line names instead of ``host`` (``claude_code hooks``), if set."""


Decision = Literal["add", "keep", "update", "differs", "remove", "absent"]


def decide(
    request: SetupRequest,
    present: bool,
    existing: Any,
    matches: Callable[[Any], bool],
) -> Decision:
    """What to do with the host's ``driftguard`` entry (``existing``, when ``present``).

    Install: ``add`` when absent, ``keep`` when it matches, ``update`` when it differs
    and ``--update`` was given, else ``differs`` (left alone). Uninstall: ``remove`` or
    ``absent``.
    """
    if request.action == "uninstall":
        return "remove" if present else "absent"
    if not present:
        return "add"
    if matches(existing):
        return "keep"
    return "update" if request.update else "differs"


CURSOR_PROJECT = "${workspaceFolder}"
"""What Cursor's entry sets ``DRIFTGUARD_PROJECT_DIR`` to: Cursor expands
``${workspaceFolder}`` in an ``mcp.json`` per window (its config-interpolation; public
write-ups observed it live in user-level ``~/.cursor/mcp.json`` on Windows, WSL and Linux,
2026-07/09), so the server learns which project it serves though Cursor starts it in the
home folder. Where a scope passes it unexpanded (headless agent sessions), the server
treats the literal as unset and falls back to the client's roots (resolve.py)."""


def server_env(host: HostName) -> dict[str, str]:
    """The entry's environment: ``DRIFTGUARD_HOST=<host>``, the hint the server reads next
    to ``clientInfo.name`` to know whose sessions to look for (resolve.py); for Cursor also
    ``DRIFTGUARD_PROJECT_DIR=${workspaceFolder}`` (:data:`CURSOR_PROJECT`)."""
    if host == "cursor":
        return {HOST_ENV: host, PROJECT_ENV: CURSOR_PROJECT}
    return {HOST_ENV: host}


def stdio_entry(host: HostName, command: str) -> dict[str, Any]:
    """The stdio entry that starts ``<command> serve`` with the host hint (the shape
    Gemini CLI, Codex CLI and Cursor share; Claude Code adds ``"type": "stdio"``)."""
    return {"command": command, "args": ["serve"], "env": server_env(host)}


def missing_defaults(existing: Any, defaults: Mapping[str, Any]) -> list[str]:
    """The keys of ``defaults`` that ``existing`` lacks, or holds with a value of another
    type than the default's (``required = "yes"`` is not a choice Codex could load)."""
    if not isinstance(existing, Mapping):
        return list(defaults)
    return [
        key
        for key, value in defaults.items()
        if key not in existing or type(existing[key]) is not type(value)
    ]


def stdio_matches(
    existing: Any, wanted: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> bool:
    """Whether an existing entry already starts driftguard the way ``wanted`` does.

    Every key of ``wanted`` must have its value, except ``env``, which must contain
    ``wanted["env"]``; keys the user added (a timeout, ``trust``, more variables) are
    theirs and do not make the entry differ. Every key of ``defaults`` (keys setup writes
    with a value the user may change, such as Codex's ``required``) must be present with
    a value of the default's type, whichever value the user chose.
    """
    if not isinstance(existing, Mapping):
        return False
    if defaults and missing_defaults(existing, defaults):
        return False
    for key, value in wanted.items():
        if key == "env":
            env = existing.get("env")
            if not isinstance(env, Mapping) or any(env.get(k) != v for k, v in value.items()):
                return False
            continue
        elif existing.get(key) != value:
            return False
    return True


OTHER_TRANSPORT_KEYS = ("url", "httpUrl", "tcp")
"""Keys that make an entry a server of another transport (HTTP, SSE, websocket) in the
hosts' entry shapes (docs/host-configs.md §3.1–§3.4)."""


def merged_entry(
    existing: Any, wanted: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The entry ``--update`` writes over ``existing``: the user's entry with ``wanted``'s
    keys set (``command``, ``args``, and ``type`` where the host has one) and ``wanted``'s
    variables set in its ``env``; every other key and variable the user added stays, in
    its place. (docs/hosts.md: keys the user added do not count as a difference, so they
    survive an update too.) A key of ``defaults`` keeps the user's value when it has the
    default's type, and gets the default otherwise (:func:`missing_defaults`).

    An ``existing`` that is not a stdio entry — not an object, with a ``url``,
    ``httpUrl`` or ``tcp``, or a ``type`` other than ``stdio`` — is replaced as a whole:
    its keys belong to another transport and would make a stdio entry invalid (Codex
    refuses ``url`` next to ``command``, docs/host-configs.md §3.3).
    """
    defaults = defaults or {}
    if (
        not isinstance(existing, Mapping)
        or any(key in existing for key in OTHER_TRANSPORT_KEYS)
        or existing.get("type", "stdio") != "stdio"
    ):
        return {**copy.deepcopy(dict(wanted)), **copy.deepcopy(dict(defaults))}
    merged = copy.deepcopy(dict(existing))
    for key, value in wanted.items():
        env = merged.get("env")
        if key == "env" and isinstance(env, Mapping) and isinstance(value, Mapping):
            merged["env"] = {**env, **copy.deepcopy(dict(value))}
        else:
            merged[key] = copy.deepcopy(value)
    for key in missing_defaults(merged, defaults):
        merged[key] = copy.deepcopy(defaults[key])
    return merged


def same_value(left: Any, right: Any) -> bool:
    """Deep equality that also compares types (``1`` is not ``true``; NaN equals NaN)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_value(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value, left, right))
    if type(left) is not type(right):
        return False
    if isinstance(left, float) and left != left:
        return bool(right != right)
    return bool(left == right)


def display_path(path: Path) -> str:
    """``path`` with the home folder shown as ``~``."""
    home = str(Path.home())
    text = str(path)
    if home not in ("", "/") and (text == home or text.startswith(home.rstrip("/") + "/")):
        return "~" + text[len(home.rstrip("/")) :]
    return text


def not_installed(host: HostName, folder: Path) -> HostResult:
    """``skipped``: the host's configuration folder does not exist, so nothing is written."""
    return HostResult(
        host=host,
        status="skipped",
        detail=f"not installed: no {display_path(folder)} folder",
        installed=False,
    )
