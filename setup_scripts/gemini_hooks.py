"""``driftguard setup --hooks`` for Gemini CLI: driftguard's hooks in its user
``settings.json`` (the file the server entry goes in; JSON with comments), edited by
:mod:`._hooks_file`.

Gemini CLI 0.61.0 reads ``hooks`` there (on unless ``hooksConfig.enabled`` is false) in a
trusted folder. Its ``timeout`` is in milliseconds; each handler has a ``name`` (what
``hooksConfig.disabled`` lists). What install adds::

    "SessionStart": [{"hooks": [H("<abs> hook session-start --host gemini_cli", 10000)]}],
    "BeforeAgent":  [{"hooks": [H("<abs> hook user-prompt-submit --host gemini_cli", 10000)]}],
    "AfterAgent":   [{"hooks": [H("<abs> hook stop --host gemini_cli", 60000)]}]

``BeforeAgent`` runs before each prompt is sent, and its ``additionalContext`` goes into
that request as a part of its own: it is where driftguard speaks to the model on Gemini,
the waiting handoff included. Not ``SessionStart``: in a ``-p`` run Gemini prepends that
hook's context to the prompt text itself, and a prompt that starts with ``<hook_context>``
is one Gemini leaves out of the history it restores with ``--resume`` (its
``isIgnoredUserContent``) — the prompt would be lost. No hook runs after a compression
(``PreCompress`` runs before every request): the stop hook sees it in the transcript.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from driftguard.adapters.gemini_cli import root as gemini_root
from driftguard.setup_scripts._hooks_file import HooksHost, HookSpec
from driftguard.setup_scripts.gemini_cli import installed

__all__ = ["HOOK_EVENTS", "HOST", "LABEL", "settings_file"]

LABEL = "gemini_cli hooks"
HOOK_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "session-start", 10_000),
    HookSpec("BeforeAgent", "user-prompt-submit", 10_000),
    HookSpec("AfterAgent", "stop", 60_000),
)
"""The hooks driftguard installs, in the order they are written (timeouts in ms)."""


def settings_file() -> Path:
    """Gemini CLI's user settings: ``<gemini root>/settings.json``."""
    return gemini_root() / "settings.json"


def _name(spec: HookSpec) -> Mapping[str, Any]:
    return {"name": f"driftguard-{spec.name}"}


HOST = HooksHost(
    host="gemini_cli",
    label=LABEL,
    settings_file=settings_file,
    installed=installed,
    config_dir=gemini_root,
    specs=HOOK_EVENTS,
    comments=True,
    handler_extra=_name,
)
"""Gemini CLI's settings, for :mod:`._hooks_file`."""
