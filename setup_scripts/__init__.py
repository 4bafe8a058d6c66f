"""``driftguard setup``: register ``driftguard serve`` with every installed host, safely
(design.md §8, §10; mcp-and-hosts.md §3).

One module per host whose config it edits — :mod:`.claude_code`, :mod:`.gemini_cli`,
:mod:`.codex_cli`, :mod:`.cursor` — over the shared safe-edit helpers
(:mod:`._safe_edit`, with the format splices :mod:`._jsonc` and :mod:`._toml`).

- A host is *installed* when its config folder exists (``CLAUDE_CONFIG_DIR``,
  ``GEMINI_CLI_HOME`` and ``CODEX_HOME`` honoured); a host that is not installed gets no
  file and is reported as skipped.
- The server is registered by the **absolute path** of the ``driftguard`` console script
  (:func:`find_console_script`), because hosts start servers with a minimal ``PATH``.
  Each entry carries ``DRIFTGUARD_HOST=<host>`` in its environment: the hint the server
  reads next to ``clientInfo.name`` (:data:`driftguard.resolve.HOST_ENV`).
- Each host yields one :class:`HostResult`: added, already present, updated, removed,
  not present, skipped (why), refused (why) or failed (why), with the change as a
  unified diff. :func:`exit_code` is 0 when every host is done, else 1 (design §10).
- ``--hooks`` adds the Claude Code status line and hooks (:mod:`.claude_hooks`);
  :func:`run_hooks` runs them, and after a plain user-scope ``--uninstall`` reports
  the ones still installed (``claude_code hooks: still installed``).
- :func:`run_command` is the whole command (:mod:`._runner`): it first removes the
  temporary files a killed setup left next to the configs, and on Ctrl-C prints one line
  saying which hosts were done and which not, and exits 130.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from driftguard.setup_scripts import claude_code, claude_hooks, codex_cli, cursor, gemini_cli
from driftguard.setup_scripts._base import (
    HOST_LABELS,
    HOST_NAMES,
    SERVER_NAME,
    HostName,
    HostResult,
    SetupRequest,
    display_path,
)
from driftguard.setup_scripts._runner import run_command

__all__ = [
    "HOST_LABELS",
    "HOST_NAMES",
    "HOST_RUNNERS",
    "SERVER_NAME",
    "HostName",
    "HostResult",
    "SetupRequest",
    "exit_code",
    "find_console_script",
    "host_result",
    "render_report",
    "run_command",
    "run_hooks",
    "run_setup",
]

HOST_RUNNERS: Mapping[HostName, Callable[[SetupRequest], HostResult]] = {
    "claude_code": claude_code.run,
    "gemini_cli": gemini_cli.run,
    "codex_cli": codex_cli.run,
    "cursor": cursor.run,
}
"""Each host's ``run(request) -> HostResult``, in report order."""

_DRY_RUN_WORDS = {"added": "would add", "updated": "would update", "removed": "would remove"}


def find_console_script() -> str | None:
    """The absolute path of the ``driftguard`` console script, or ``None``.

    Looked for next to the running interpreter (a virtual environment's ``bin/``), then
    in this interpreter's scripts folder, then on ``PATH``. Symlinks are not resolved:
    ``pipx``'s ``~/.local/bin/driftguard`` link survives an upgrade, its target may not.
    """
    name = "driftguard.exe" if os.name == "nt" else "driftguard"
    folders = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    found = shutil.which("driftguard")
    return os.path.abspath(found) if found else None


def run_setup(request: SetupRequest, hosts: Iterable[HostName] | None = None) -> list[HostResult]:
    """Run ``request`` for ``hosts`` (default: every host), in :data:`HOST_NAMES` order.

    A host named in ``hosts`` that is not installed counts as not done (``ok`` false);
    without ``hosts`` it is only skipped. An unexpected ``OSError`` of one host is that
    host's ``failed`` result; the others still run.
    """
    explicit = hosts is not None
    chosen = set(HOST_NAMES if hosts is None else hosts)
    return [host_result(request, host, explicit=explicit) for host in HOST_NAMES if host in chosen]


def host_result(request: SetupRequest, host: HostName, *, explicit: bool) -> HostResult:
    """Run ``request`` for one host (:func:`run_setup`'s step): an unexpected ``OSError``
    is its ``failed`` result, and with ``explicit`` (the host was named) a host that is
    not installed counts as not done."""
    try:
        result = HOST_RUNNERS[host](request)
    except OSError as exc:
        result = HostResult(host, "failed", f"{exc.strerror or exc}", ok=False)
    if explicit and not result.installed:
        result = replace(result, ok=False)
    return result


def run_hooks(
    request: SetupRequest, *, hooks: bool, hosts: Iterable[HostName] | None = None
) -> list[HostResult]:
    """The Claude Code status line and hooks for ``request``: with ``hooks``
    (``--hooks``), install or uninstall them; without, after a plain ``--uninstall`` of
    the user's configs that includes Claude Code (``hosts`` ``None`` or naming it), a
    ``still installed`` line when driftguard's hooks or status line remain (they would
    run a missing ``driftguard`` after every turn once the package is gone). Else
    nothing."""
    if hooks:
        try:
            return [claude_hooks.run(request)]
        except OSError as exc:
            detail = f"{exc.strerror or exc}"
            return [HostResult("claude_code", "failed", detail, ok=False, label=claude_hooks.LABEL)]
    chosen = HOST_NAMES if hosts is None else tuple(hosts)
    if request.action != "uninstall" or request.project is not None or "claude_code" not in chosen:
        return []
    left = claude_hooks.left_behind()
    return [] if left is None else [left]


def exit_code(results: Sequence[HostResult]) -> int:
    """0 when every host is done, 1 when one was refused, failed or kept a differing
    entry (design §8, §10)."""
    return 0 if all(result.ok for result in results) else 1


def render_report(request: SetupRequest, results: Sequence[HostResult]) -> str:
    """The report: a header line, then one line per host (``<host>: <status> (<why or
    where>)``) followed by its backup, its diff and its notes, indented."""
    if request.action == "uninstall":
        header = f"driftguard setup: removing the {SERVER_NAME} MCP server"
    else:
        header = f"driftguard setup: registering `{request.command} serve` as MCP server"
        header += f" {SERVER_NAME!r}"
    if request.project is not None:
        header += f" in project {display_path(request.project)}"
    if request.dry_run:
        header += " (dry run: nothing is written)"
    lines = [header]
    for result in results:
        status = (
            _DRY_RUN_WORDS.get(result.status, result.status) if result.dry_run else result.status
        )
        lines.append(f"{result.label or result.host}: {status} ({result.detail})")
        if result.backup is not None:
            lines.append(f"    backup: {display_path(result.backup)}")
        lines.extend("    " + line for line in result.diff.splitlines())
        lines.extend(f"    note: {note}" for note in result.notes)
    if not results:
        lines.append("no host selected")
    return "\n".join(lines)
