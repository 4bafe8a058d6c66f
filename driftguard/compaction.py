"""Where each host compacts: the *usable* context window (issue #8), asked of the host's
adapter.

A session does not run until its model's nominal window is full: each CLI compacts (or
compresses, or summarises) its history earlier. The usable window is that point, in
tokens. The rule is knowledge about the CLI and lives in its adapter
(``adapters/<cli>/_compaction.py``, read from the pinned CLIs' own code): this module
only dispatches to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from driftguard.adapters import get_adapter
from driftguard.adapters._compaction import HostSetting, UsableWindow
from driftguard.model import CliName

__all__ = ["HostSetting", "UsableWindow", "read_compaction_settings", "usable_window"]


def usable_window(
    cli: CliName,
    window: int,
    *,
    settings: Mapping[str, HostSetting] | None = None,
    window_from_file: bool = True,
) -> UsableWindow:
    """The usable window of a session whose model has ``window`` tokens.

    Args:
        cli: the host that wrote the session.
        window: the nominal context window in tokens (> 0): the session's own (design
            §5.3) or one given by the user or the host's status line.
        settings: what :func:`read_compaction_settings` found; ``None`` or empty: defaults.
        window_from_file: ``window`` is what the session reports (a Codex rollout's is
            already 95 % of the model's); ``False`` when the user or a config named the
            model's window.

    Returns:
        The :class:`UsableWindow`; at least 1 token.

    Raises:
        UnknownNameError: ``cli`` is not a source's name.
    """
    if window <= 0:
        return UsableWindow(1, "no context window known")
    return get_adapter(cli).usable_window(window, settings or {}, window_from_file=window_from_file)


def read_compaction_settings(
    cli: CliName,
    *,
    project: Path | None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> dict[str, HostSetting]:
    """The environment variables and settings that move ``cli``'s compaction point.

    Args:
        cli: the host.
        project: the project folder, whose own settings files count where the host reads
            them (Claude Code ``.claude/settings{,.local}.json``; Gemini CLI
            ``.gemini/settings.json`` in a trusted folder); ``None``: user settings only.
        env: the environment to read (default: this process's — under MCP and hooks, the
            one the host started driftguard with).
        home: the home folder (default :meth:`Path.home`).

    Returns:
        Setting name → :class:`HostSetting`, only the ones that are set. A file that is
        missing, unreadable or does not parse is passed over; this never raises for one.

    Raises:
        UnknownNameError: ``cli`` is not a source's name.
    """
    return get_adapter(cli).compaction_settings(
        env=os.environ if env is None else env,
        home=Path.home() if home is None else home,
        project=project,
    )
