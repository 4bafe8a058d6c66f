"""``driftguard setup --hooks`` for Cursor: driftguard's hooks in ``~/.cursor/hooks.json``,
edited by :mod:`._hooks_file`.

Cursor's hooks file is ``{"version": 1, "hooks": {"<event>": [handler, …]}}``: each
event's list holds the handlers themselves, with no matcher groups. What install adds
(``timeout`` in seconds)::

    "sessionStart": [{"type": "command", "command": "<abs> hook session-start --host cursor",
                      "timeout": 10}],
    "stop":         [{"type": "command", "command": "<abs> hook stop --host cursor",
                      "timeout": 60}]

``sessionStart`` hands a waiting handoff over through its ``additional_context`` and
points the project at the chat; ``stop`` scores the chat after each turn (history, the
status cache). Cursor's ``beforeSubmitPrompt`` cannot add to the model's context, so
nothing warns the model before a prompt; it hears of a loop or a full context when it
calls ``get_drift``, which the project rule written by ``setup --hooks --project DIR``
(:mod:`.cursor_rule`) asks it to do. Cursor could not be run here: the shapes follow
Cursor's hooks documentation (https://cursor.com/docs/agent/hooks), and some Cursor
builds reject ``sessionStart`` — the project rule then still tells the model to read a
waiting handoff.
"""

from __future__ import annotations

from pathlib import Path

from driftguard.setup_scripts._hooks_file import HooksHost, HookSpec
from driftguard.setup_scripts.cursor import cursor_dir, installed

__all__ = ["HOOK_EVENTS", "HOST", "LABEL", "settings_file"]

LABEL = "cursor hooks"
HOOK_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("sessionStart", "session-start", 10),
    HookSpec("stop", "stop", 60),
)
"""The hooks driftguard installs, in the order they are written."""


def settings_file() -> Path:
    """Cursor's user hooks file: ``~/.cursor/hooks.json``."""
    return cursor_dir() / "hooks.json"


HOST = HooksHost(
    host="cursor",
    label=LABEL,
    settings_file=settings_file,
    installed=installed,
    config_dir=cursor_dir,
    specs=HOOK_EVENTS,
    flat=True,
    new_file={"version": 1},
)
"""Cursor's hooks file, for :mod:`._hooks_file`."""
