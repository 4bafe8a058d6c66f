"""Where a session's host compacts, asked of the host's adapter: the model's window when
nobody named it (:func:`nominal_window`), the usable window by the host's rule and the
settings that move it (:func:`usable_window`, :func:`read_compaction_settings`), corrected
by what the transcript shows (:func:`driftguard.compaction.window.observed_window`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from driftguard.adapters import get_adapter
from driftguard.compaction.window import HostSetting, NominalWindow, UsableWindow, observed_window
from driftguard.model import CliName, CompactionRecord, Session

__all__ = ["nominal_window", "read_compaction_settings", "usable_window"]


def nominal_window(
    session: Session, settings: Mapping[str, HostSetting] | None = None
) -> NominalWindow:
    """The model's context window for ``session`` when neither the user nor the host's
    status line named it: what the file proves or the model has, or — for a model that
    may run with either of two windows — the window its host would choose for the
    environment and settings in ``settings`` (:func:`read_compaction_settings`; ``None``
    or empty: none set), marked assumed
    (:meth:`~driftguard.adapters._base.Adapter.nominal_window`).

    Raises:
        UnknownNameError: ``session.cli`` is not a source's name.
    """
    return get_adapter(session.cli).nominal_window(session, settings or {})


def usable_window(
    cli: CliName,
    window: int,
    *,
    settings: Mapping[str, HostSetting] | None = None,
    window_from_file: bool = True,
    compactions: Sequence[CompactionRecord] = (),
    context_tokens: int = 0,
    named: bool = False,
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
        compactions: the session's compaction ledger; an automatic compaction recorded
            well below the rule's point replaces it (:func:`observed_window`).
        context_tokens: the session's context size now, in tokens; a point the context
            has since grown well past no longer applies.
        named: the user named the window (``--context-window``, ``contextWindow``): the
            rule then stands, and its text says what the transcript showed.

    Returns:
        The :class:`UsableWindow`; at least 1 token.

    Raises:
        UnknownNameError: ``cli`` is not a source's name.
    """
    if window <= 0:
        return UsableWindow(1, "no context window known")
    rule = get_adapter(cli).usable_window(window, settings or {}, window_from_file=window_from_file)
    return observed_window(rule, compactions, context_tokens=context_tokens, named=named)


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
