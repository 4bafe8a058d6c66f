"""``driftguard setup --hooks`` for Codex: driftguard's hooks in ``<codex root>/hooks.json``
(``$CODEX_HOME/hooks.json``, default ``~/.codex/hooks.json``), edited by
:mod:`._hooks_file`.

Codex 0.171.0 reads hooks from ``hooks.json`` next to each config layer (and from
``[hooks]`` in ``config.toml``); hooks are on by default (the ``hooks`` feature is
stable; ``codex_hooks`` is its old alias). The file is strict JSON whose top level holds
only ``description`` and ``hooks`` (Codex refuses any other key: "unknown field"). What
install adds (``timeout`` in seconds)::

    "SessionStart":     [{"matcher": "startup|resume|clear|compact",
                          "hooks": [H("<abs> hook session-start --host codex_cli", 10)]}],
    "UserPromptSubmit": [{"hooks": [H("<abs> hook user-prompt-submit --host codex_cli", 10)]}],
    "Stop":             [{"hooks": [H("<abs> hook stop --host codex_cli", 60)]}]

``SessionStart`` runs at a session's start and again, with source ``compact``, right after
each compaction, before the next request (also mid-turn): the hook hands a waiting
handoff over, and after a compaction the rules and errors it dropped. Both outputs, as
``UserPromptSubmit``'s, reach the model as developer messages.

**Codex runs a hook only once you have trusted it.** Hooks that an administrator did not
manage are skipped — silently in ``codex exec`` — until the user reviews them in
``/hooks``; Codex keeps the trust per hook as a hash of its command, timeout and matcher,
so a changed hook needs trusting again. Setup never writes that trust for the user: its
report says what to do (:data:`TRUST_NOTE`).
"""

from __future__ import annotations

from pathlib import Path

from driftguard.adapters.codex_cli import root as codex_root
from driftguard.setup_scripts._hooks_file import HooksHost, HookSpec
from driftguard.setup_scripts.codex_cli import installed

__all__ = ["HOOK_EVENTS", "HOST", "LABEL", "TRUST_NOTE", "settings_file"]

LABEL = "codex_cli hooks"
TRUST_NOTE = (
    "Codex runs these hooks only after you trust them once: start codex, type /hooks and "
    "trust the three driftguard hooks (again after setup --update changes them)"
)
HOOK_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "session-start", 10, "startup|resume|clear|compact"),
    HookSpec("UserPromptSubmit", "user-prompt-submit", 10),
    HookSpec("Stop", "stop", 60),
)


"""The hooks driftguard installs, in the order they are written."""


def settings_file() -> Path:
    """Codex's user hooks file: ``<codex root>/hooks.json``."""
    return codex_root() / "hooks.json"


HOST = HooksHost(
    host="codex_cli",
    label=LABEL,
    settings_file=settings_file,
    installed=installed,
    config_dir=codex_root,
    specs=HOOK_EVENTS,
    notes=(TRUST_NOTE,),
)
"""Codex's hooks file, for :mod:`._hooks_file`."""
