"""``driftguard setup --hooks`` for Claude Code: the status line and the hooks in its user
settings (docs/hosts.md §4.2).

The file is ``<config dir>/settings.json`` — ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``
(:func:`driftguard.setup_scripts.claude_code.config_dir`) — strict JSON (a comment or a
trailing comma is a "Settings Error" to Claude Code). Nothing is written when Claude Code
is not installed (no config folder). The edit is :mod:`._hooks_file`'s.

What install adds, by the absolute path of the console script (quoted for the shell when
it needs to be), with ``H(cmd, s) = {"hooks": [{"type": "command", "command": cmd,
"timeout": s}]}`` (seconds)::

    "hooks": {
      "SessionStart":     [H("<abs> hook session-start", 10)],
      "UserPromptSubmit": [H("<abs> hook user-prompt-submit", 10)],
      "Stop":             [H("<abs> hook stop", 60)]
    },
    "statusLine": {"type": "command", "command": "<abs> statusline", "padding": 0,
                   "refreshInterval": 3}

The commands carry no ``--host``: Claude Code is the default host of ``driftguard hook``,
and the hooks installed before the flag existed stay driftguard's. The stop hook is
synchronous on purpose: ``claude -p`` sends SIGTERM to ``async`` hooks when it exits (seen
with Claude Code 2.1.197), and the prompt hook needs the score of the turn that just
ended. After a compaction Claude Code 2.1.197 runs ``PreCompact``, ``SessionStart`` with
source ``compact`` and ``PostCompact``, and only then writes the compaction boundary: the
session-start hook marks the session, and the next prompt hook reads what the compaction
dropped from the transcript.

**The status line is current within seconds of a turn's end.** Claude Code runs it on
events — before the stop hook has scored the turn that just ended — and, with
``refreshInterval`` (seconds, at least 1; Claude Code 2.1.197's settings schema:
"Re-run the status line command every N seconds in addition to event-driven updates"),
every N seconds as well: 3 keeps it within about 3 s of the stop hook at a cost of one
cached 60 ms run each time. A Claude Code without the setting ignores it.

**Never the user's status line.** Claude Code has one ``statusLine``. When the file
already has one that is not driftguard's, it is left alone and the report says so, with
the command that keeps it and appends the drift: ``<abs> statusline --wrap '<theirs>'``.
A ``statusLine`` whose command is ``<…/driftguard> statusline`` with no more words is
driftguard's (a ``--wrap`` line is the user's own edit, and stays). A plain
``driftguard setup --uninstall`` removes the server entries only and reports hooks and a
status line left behind (:func:`left_behind`), with the command that removes them.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from driftguard.setup_scripts._base import HostResult, SetupRequest, same_value
from driftguard.setup_scripts._hooks_file import (
    Extra,
    HooksHost,
    HookSpec,
    Outcome,
    command_words,
    hook_element,
    installed_events,
    is_ours,
    read_settings,
    shell_word,
)
from driftguard.setup_scripts._hooks_file import left_behind as _left_behind
from driftguard.setup_scripts._hooks_file import run as _run_hooks
from driftguard.setup_scripts.claude_code import config_dir, installed

__all__ = [
    "HOOK_EVENTS",
    "HOST",
    "LABEL",
    "REFRESH_SECONDS",
    "hook_group",
    "is_our_status_line",
    "left_behind",
    "run",
    "session_start_installed",
    "settings_file",
    "status_line",
    "wrap_command",
]

LABEL = "claude_code hooks"
"""How the report names these results."""
STATUS_LINE = "statusLine"
REFRESH_SECONDS = 3
"""``statusLine.refreshInterval``: seconds between the status line's timed re-runs."""

HOOK_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "session-start", 10),
    HookSpec("UserPromptSubmit", "user-prompt-submit", 10),
    HookSpec("Stop", "stop", 60),
)
"""The hooks of ``driftguard hook``, in the order they are written."""


def settings_file() -> Path:
    """Claude Code's user settings: ``<config dir>/settings.json``."""
    return config_dir() / "settings.json"


def status_line(command: str) -> dict[str, Any]:
    """The ``statusLine`` that runs ``<command> statusline``."""
    return {
        "type": "command",
        "command": f"{shell_word(command)} statusline",
        "padding": 0,
        "refreshInterval": REFRESH_SECONDS,
    }


def wrap_command(command: str, theirs: str) -> str:
    """The status-line command that runs ``theirs`` and appends the drift segment."""
    return f"{shell_word(command)} statusline --wrap {shlex.quote(theirs)}"


def is_our_status_line(value: Any) -> bool:
    """Whether ``value`` is a ``statusLine`` driftguard installed (module doc)."""
    words = command_words(value)
    return words is not None and is_ours(words, ["statusline"])


def _wrapped_command(value: Any) -> str | None:
    """The user's own command that a ``statusLine`` runs through ``driftguard statusline
    --wrap COMMAND`` (``""`` for any other ``driftguard statusline`` with more words);
    ``None`` for every other status line, driftguard's plain one included."""
    words = command_words(value)
    if words is None or len(words) <= 2 or not is_ours(words[:2], ["statusline"]):
        return None
    if len(words) == 4 and words[2] == "--wrap":
        return words[3]
    if len(words) == 3 and words[2].startswith("--wrap="):
        return words[2].removeprefix("--wrap=")
    return ""


def _wrapped_note(value: Any) -> str | None:
    theirs = _wrapped_command(value)
    if theirs is None:
        return None
    if theirs:
        return f"your statusLine still runs driftguard; set its command back to: {theirs}"
    return "your statusLine still runs driftguard statusline; change or remove it yourself"


def _their_status_line_note(existing: Any, command: str) -> str:
    theirs = existing.get("command") if isinstance(existing, Mapping) else None
    if isinstance(theirs, str) and theirs.strip():
        return (
            f"kept your own statusLine ({theirs}); to show the drift after it, set its "
            f"command to: {wrap_command(command, theirs)}"
        )
    return (
        "kept your own statusLine; to show the drift instead, set it to: "
        f'{{"type": "command", "command": "{shell_word(command)} statusline"}}'
    )


def _want_status_line(wanted: dict[str, Any], request: SetupRequest, outcome: Outcome) -> None:
    existing = wanted.get(STATUS_LINE)
    if request.action == "install":
        line = status_line(request.command)
        if existing is None:
            wanted[STATUS_LINE] = line
            outcome.added.append(STATUS_LINE)
        elif same_value(existing, line):
            pass
        elif is_our_status_line(existing):
            if request.update:
                wanted[STATUS_LINE] = line
                outcome.updated.append(STATUS_LINE)
            else:
                outcome.differing.append(STATUS_LINE)
        elif _wrapped_command(existing) is None:  # a wrap line shows the drift already
            outcome.notes.append(_their_status_line_note(existing, request.command))
        return
    if is_our_status_line(existing):
        del wanted[STATUS_LINE]
        outcome.removed.append(STATUS_LINE)
    note = _wrapped_note(wanted.get(STATUS_LINE))
    if note is not None:
        outcome.notes.append(note)


def _status_line_left(value: Any) -> tuple[bool, str | None]:
    if is_our_status_line(value):
        return True, None
    theirs = _wrapped_command(value)
    if theirs is None:
        return False, None
    return False, f"set its command back to: {theirs}" if theirs else "change or remove it yourself"


HOST = HooksHost(
    host="claude_code",
    label=LABEL,
    settings_file=settings_file,
    installed=installed,
    config_dir=config_dir,
    specs=HOOK_EVENTS,
    host_flag=False,
    extras=(Extra(STATUS_LINE, _want_status_line, _status_line_left),),
)
"""Claude Code's hooks file, for :mod:`._hooks_file`."""


def hook_group(command: str, spec: HookSpec) -> dict[str, Any]:
    """The matcher group that runs ``<command> hook <spec.name>``."""
    return hook_element(command, spec, HOST)


def run(request: SetupRequest) -> HostResult:
    """Install or uninstall the status line and hooks in Claude Code's user settings."""
    return _run_hooks(HOST, request)


def left_behind() -> HostResult | None:
    """A ``still installed`` result when Claude Code's settings still run driftguard — its
    hooks or status line, or a status line wrapping the user's — for a plain
    ``--uninstall`` to report; ``None`` when they do not, or the file cannot be read."""
    return _left_behind(HOST)


def session_start_installed() -> bool:
    """Whether Claude Code's user settings run driftguard's ``SessionStart`` hook, which
    hands a saved handoff to the next session; ``False`` when the file is absent or cannot
    be read (then no hook of ours runs either)."""
    value = read_settings(HOST)
    return value is not None and "SessionStart" in installed_events(HOST, value)
