"""Where a host compacts: the values its environment and settings hold
(:class:`HostSetting`), the model's window when nobody named it (:class:`NominalWindow`),
the usable window its rule gives (:class:`UsableWindow`), and the point a transcript shows
it really compacted at (:func:`observed_window`).

A session does not run until its model's nominal window is full: each CLI compacts (or
compresses, or summarises) its history earlier. The usable window is that point, in
tokens. The rule is knowledge about the CLI and lives in its adapter
(``adapters/<cli>/_compaction.py``, read from the pinned CLIs' own code);
:mod:`driftguard.engine.window` asks the adapter for it.

**What the transcript saw wins over the rule.** A session's compaction ledger
(:attr:`~driftguard.model.Session.compaction_ledger`) may record where the host actually
compacted on its own: an ``"auto"`` compaction with its context size (Claude Code's
``compact_boundary`` ``preTokens``, its own count of the context that crossed its
threshold). When the latest such point lies more than :data:`OBSERVED_MARGIN` below the
rule's, the host plainly works with a smaller window than the rule assumed — a real
Claude Code 2.1.197 transcript of ``claude-opus-4-8`` auto-compacted at 167,016 tokens,
which is 200,000 − 20,000 − 13,000 plus a turn, while the model name gives a 1M window and
the rule 967,000 — so that point is the usable window, the rule says so, and
``overrides`` names it (``transcript: the host auto-compacted at 167,016 tokens``). A
point at or near the rule's (a 200,000-token session compacting at ~167,000) or above it
changes nothing, nor do manual compactions (``/compact`` runs whenever the user asks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftguard.model import CompactionRecord

__all__ = ["OBSERVED_MARGIN", "HostSetting", "NominalWindow", "UsableWindow", "observed_window"]


@dataclass(frozen=True, slots=True)
class HostSetting:
    """One value the host's environment or settings hold.

    Attributes:
        value: the raw value (a string from the environment; JSON or TOML types from a file).
        source: ``"environment"`` or the file it came from.
    """

    value: object
    source: str


@dataclass(frozen=True, slots=True)
class UsableWindow:
    """Where the host compacts.

    Attributes:
        tokens: the usable window in tokens (> 0).
        rule: how it was derived, in words (the arithmetic with the host's constants).
        overrides: the settings that changed it, e.g.
            ``("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=80 (environment)",)``; empty for the default.
    """

    tokens: int
    rule: str
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NominalWindow:
    """The model's context window when neither the user nor the host named it, as the
    host's adapter tells it from the session and the environment
    (:meth:`driftguard.adapters._base.Adapter.nominal_window`).

    Attributes:
        tokens: the window in tokens (> 0).
        rule: how it was chosen, in words (``"a request of 312,000 tokens in the file is
            past 200,000: …"``); ``None`` where the file alone gives it and there is
            nothing to say.
        assumed: the model may run with either of two windows and nothing in the file
            tells which: ``tokens`` is the host's own choice for the environment
            driftguard sees, which may not be the host's.
    """

    tokens: int
    rule: str | None = None
    assumed: bool = False


OBSERVED_MARGIN = 0.10
"""How far below the rule's point (a share of it) an observed automatic compaction must
lie to replace it: Claude Code's own count and driftguard's differ by a few hundred tokens
at most (its estimate of the messages after the last response), and the host compacts on
the first request past its threshold, so an auto compaction lands at or just above the
rule's point whenever the rule is right."""


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
