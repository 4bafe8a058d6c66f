"""Where each host compacts: the *usable* context window (issue #8), asked of the host's
adapter.

A session does not run until its model's nominal window is full: each CLI compacts (or
compresses, or summarises) its history earlier. The usable window is that point, in
tokens. The rule is knowledge about the CLI and lives in its adapter
(``adapters/<cli>/_compaction.py``, read from the pinned CLIs' own code): this module
only dispatches to it.

**What the transcript saw wins over the rule** (issue #13, review item M2). A session's
compaction ledger (:attr:`~driftguard.model.Session.compaction_ledger`) may record where
the host actually compacted on its own: an ``"auto"`` compaction with its context size
(Claude Code's ``compact_boundary`` ``preTokens``, its own count of the context that
crossed its threshold). When the latest such point lies more than
:data:`OBSERVED_MARGIN` below the rule's, the host plainly works with a smaller window than
the rule assumed — a real Claude Code 2.1.197 transcript of ``claude-opus-4-8``
auto-compacted at 167,016 tokens, which is 200,000 − 20,000 − 13,000 plus a turn, while
the model name gives a 1M window and the rule 967,000 — so that point is the usable
window, the rule says so, and ``overrides`` names it (``transcript: the host
auto-compacted at 167,016 tokens``). A point at or near the rule's (a 200,000-token
session compacting at ~167,000) or above it changes nothing, nor do manual compactions
(``/compact`` runs whenever the user asks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from driftguard.adapters import get_adapter
from driftguard.adapters._compaction import HostSetting, UsableWindow
from driftguard.model import CliName, CompactionRecord

__all__ = [
    "OBSERVED_MARGIN",
    "HostSetting",
    "UsableWindow",
    "observed_window",
    "read_compaction_settings",
    "usable_window",
]

OBSERVED_MARGIN = 0.10
"""How far below the rule's point (a share of it) an observed automatic compaction must
lie to replace it: Claude Code's own count and driftguard's differ by a few hundred tokens
at most (its estimate of the messages after the last response), and the host compacts on
the first request past its threshold, so an auto compaction lands at or just above the
rule's point whenever the rule is right."""


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


def observed_window(
    rule: UsableWindow,
    compactions: Sequence[CompactionRecord],
    *,
    context_tokens: int = 0,
    named: bool = False,
) -> UsableWindow:
    """``rule``, or the point where the latest automatic compaction of ``compactions`` with
    a recorded context size happened when that lies more than :data:`OBSERVED_MARGIN` below
    ``rule.tokens`` (module docstring).

    The rule stands, its text naming the point, when the user ``named`` the window (a
    window named now is the host's setting now; the compaction may predate it), or when
    ``context_tokens`` lies more than :data:`OBSERVED_MARGIN` above the point: the host
    compacts on the first request past its threshold, so a context that grew well past the
    point without a compaction shows the threshold has moved since."""
    seen = next(
        (c.tokens_before for c in reversed(compactions) if c.trigger == "auto" and c.tokens_before),
        None,
    )
    if seen is None or seen >= rule.tokens * (1 - OBSERVED_MARGIN):
        return rule
    why = (
        "not used, as the window was named"
        if named
        else "not used, as the context has grown well past it since"
        if context_tokens > seen * (1 + OBSERVED_MARGIN)
        else None
    )
    if why is not None:
        return UsableWindow(
            rule.tokens,
            f"{rule.rule}; the host auto-compacted at {seen:,} tokens in this transcript, {why}",
            rule.overrides,
        )
    return UsableWindow(
        seen,
        f"the host auto-compacted at {seen:,} tokens in this transcript, well below where "
        f"its rule puts it ({rule.rule})",
        (*rule.overrides, f"transcript: the host auto-compacted at {seen:,} tokens"),
    )


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
