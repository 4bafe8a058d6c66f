"""``driftguard setup``: register ``driftguard serve`` with every installed host, safely
(docs/design.md §8, §10; docs/host-configs.md §3).

One module per host whose config it edits — :mod:`.claude_code`, :mod:`.gemini_cli`,
:mod:`.codex_cli`, :mod:`.cursor` — over the shared safe-edit helpers
(:mod:`._safe_edit`, with the format splices :mod:`._jsonc` and :mod:`._toml`).

- A host is *installed* when its config folder exists (``CLAUDE_CONFIG_DIR``,
  ``GEMINI_CLI_HOME`` and ``CODEX_HOME`` honoured); a host that is not installed gets no
  file and is reported as skipped.
- The server is registered by the **absolute path** of the ``driftguard`` console script
  (:func:`find_console_script`), because hosts start servers with a minimal ``PATH``.
  Each entry carries ``DRIFTGUARD_HOST=<host>`` in its environment: the hint the server
  reads next to ``clientInfo.name`` (:data:`driftguard.sessions.hosts.HOST_ENV`).
- Each host yields one :class:`HostResult`: added, already present, updated, removed,
  not present, skipped (why), refused (why) or failed (why), with the change as a
  unified diff. :func:`exit_code` is 0 when every host is done, else 1 (docs/design.md §10).
- ``--hooks`` adds driftguard's hooks to every installed host (:mod:`.claude_hooks`,
  with Claude Code's status line; :mod:`.codex_hooks`, :mod:`.gemini_hooks`,
  :mod:`.cursor_hooks`; with ``--project``, Cursor's project rule :mod:`.cursor_rule`):
  :func:`run_hooks` runs them, and after a plain user-scope ``--uninstall`` reports the
  ones still installed (``codex_cli hooks: still installed``).
- :func:`run_command` is the whole command (:mod:`._runner`): it first removes the
  temporary files a killed setup left next to the configs, installs no hooks for a host
  whose server entry was refused or failed, and on Ctrl-C prints one line saying which
  hosts were done and which not, and exits 130.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from driftguard.setup_scripts import _hooks_file as hooks_file
from driftguard.setup_scripts import (
    claude_code,
    claude_hooks,
    codex_cli,
    codex_hooks,
    cursor,
    cursor_hooks,
    cursor_rule,
    gemini_cli,
    gemini_hooks,
)
from driftguard.setup_scripts._base import (
    HOST_LABELS,
    HOST_NAMES,
    SERVER_NAME,
    HostName,
    HostResult,
    SetupRequest,
    display_path,
)
from driftguard.setup_scripts._hooks_file import HooksHost
from driftguard.setup_scripts._runner import run_command

__all__ = [
    "HOOK_HOSTS",
    "HOST_LABELS",
    "HOST_NAMES",
    "HOST_RUNNERS",
    "SERVER_NAME",
    "HostName",
    "HostResult",
    "SetupRequest",
    "exit_code",
    "find_console_script",
    "hooks_result",
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


HOOK_HOSTS: Mapping[HostName, HooksHost] = {
    "claude_code": claude_hooks.HOST,
    "gemini_cli": gemini_hooks.HOST,
    "codex_cli": codex_hooks.HOST,
    "cursor": cursor_hooks.HOST,
}
"""Each host's hooks file (:class:`._hooks_file.HooksHost`), in report order."""


def run_hooks(
    request: SetupRequest, *, hooks: bool, hosts: Iterable[HostName] | None = None
) -> list[HostResult]:
    """driftguard's hooks for ``request``.

    With ``hooks`` (``--hooks``): install or uninstall them in every installed host of
    ``hosts`` (default: every host; one named that is not installed is reported so);
    with a ``request.project``, hooks are the user's settings, so only Cursor's project
    rule is written (:mod:`.cursor_rule`). Without ``hooks``, after a plain
    ``--uninstall`` of the user's configs: a ``still installed`` line for each host whose
    hooks (or status line) remain — they would run a missing ``driftguard`` after every
    turn once the package is gone. Else nothing. An unexpected ``OSError`` of one host is
    that host's ``failed`` line; the others still run.
    """
    explicit = hosts is not None
    chosen = [host for host in HOST_NAMES if not explicit or host in set(hosts or ())]
    found = (hooks_result(request, host, hooks=hooks, explicit=explicit) for host in chosen)
    return [result for result in found if result is not None]


def hooks_result(
    request: SetupRequest, host: HostName, *, hooks: bool, explicit: bool
) -> HostResult | None:
    """One host's step of :func:`run_hooks` (``None``: nothing to report for it)."""
    if hooks and request.project is not None:
        if host != "cursor":
            return None
        return _guarded(host, cursor_rule.LABEL, partial(cursor_rule.run, request))
    described = HOOK_HOSTS[host]
    if not hooks:
        if request.action != "uninstall" or request.project is not None:
            return None
        return hooks_file.left_behind(described)
    result = _guarded(host, described.label, partial(hooks_file.run, described, request))
    return result if result.installed or explicit else None


def _guarded(host: HostName, label: str, action: Callable[[], HostResult]) -> HostResult:
    try:
        return action()
    except OSError as exc:
        return HostResult(host, "failed", f"{exc.strerror or exc}", ok=False, label=label)


def exit_code(results: Sequence[HostResult]) -> int:
    """0 when every host is done, 1 when one was refused, failed or kept a differing
    entry (docs/design.md §8, §10)."""
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
