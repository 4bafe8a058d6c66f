"""Rendering a :class:`DriftReport` as the design §5.5 JSON object or text report.

Factor values are rounded half up to one decimal here, for display only; the score was
computed from the unrounded values.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from driftguard.model import FACTOR_NAMES
from driftguard.scoring.composite import NOT_ENOUGH_MESSAGES, DriftReport
from driftguard.scoring.loops import describe_loop
from driftguard.scoring.wording import FACTOR_LABELS, NOTABLE

__all__ = [
    "BAR_CELLS",
    "bar",
    "display_round",
    "render_session_line",
    "render_text",
    "to_json_dict",
]

BAR_CELLS = 10
HANDOFF_LINE = (
    "→ Call get_handoff() (or run `driftguard handoff`) to carry this work into a fresh session."
)


def display_round(value: float) -> float:
    """``value`` rounded half up to one decimal (12.25 → 12.3), for display only."""
    return float(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def bar(points: float) -> str:
    """A 10-cell bar of ``█`` and ``░`` for 0–100 points, one cell per 10 points (half up)."""
    filled = min(
        BAR_CELLS, max(0, int(Decimal(repr(points / 10)).quantize(Decimal(1), ROUND_HALF_UP)))
    )
    return "█" * filled + "░" * (BAR_CELLS - filled)


def _loop_json(report: DriftReport) -> dict[str, Any] | None:
    loop = report.measures.loop if report.measures is not None else None
    if loop is None:
        return None
    return {
        "kind": loop.kind,
        "count": loop.count,
        "points": display_round(loop.points),
        "description": describe_loop(loop),
    }


def to_json_dict(report: DriftReport) -> dict[str, Any]:
    """The design §5.5 JSON object (field names are a contract other tools read), with
    what issue #8 adds: ``scoring``, ``preset``, ``loop`` and, in ``session``,
    ``usable_window``, ``tokens_until_compaction``, ``usable_window_rule``,
    ``usable_window_overrides`` and ``context_window_source``."""
    session = report.session
    usable = report.usable
    return {
        "score": report.score,
        "state": report.state,
        "factors": {
            name: (None if (value := report.factors.get(name)) is None else display_round(value))
            for name in FACTOR_NAMES
        },
        "weights": {name: report.weights.get(name, 0.0) for name in FACTOR_NAMES},
        "messages": report.messages,
        "handoff_suggested": report.handoff_suggested,
        "recommendation": report.recommendation,
        "session": {
            "cli": session.cli,
            "path": session.path,
            "session_id": session.session_id,
            "context_tokens": session.context_tokens,
            "context_window": report.context_window,
            "tokens_estimated": session.tokens_estimated,
            "compactions": session.compactions,
            "skipped_lines": session.skipped_lines,
            "resolved_by": report.resolved_by,
            "context_window_source": report.window_source,
            "usable_window": report.usable_window,
            "tokens_until_compaction": report.tokens_until_compaction,
            "usable_window_rule": usable.rule if usable is not None else None,
            "usable_window_overrides": list(usable.overrides) if usable is not None else [],
        },
        "scoring": report.scoring,
        "preset": report.preset,
        "loop": _loop_json(report),
    }


def _shown_factors(report: DriftReport) -> list[str]:
    """Active factors with ≥ 10 points plus always the two highest, ranked by value."""
    active = [name for name in FACTOR_NAMES if report.factors.get(name) is not None]
    ranked = sorted(active, key=lambda name: -(report.factors[name] or 0.0))
    return [
        name
        for index, name in enumerate(ranked)
        if index < 2 or (report.factors[name] or 0.0) >= NOTABLE
    ]


def render_text(report: DriftReport) -> str:
    """The design §5.5 text report: recommendation, factor bars, score line, handoff hint."""
    lines = [report.recommendation]
    if report.recommendation != NOT_ENOUGH_MESSAGES:
        lines.append("")
        width = max(len(label) for label in FACTOR_LABELS.values())
        for name in _shown_factors(report):
            value = report.factors[name] or 0.0
            line = f"  {FACTOR_LABELS[name]:<{width}}  {bar(value)}  {display_round(value):5.1f}"
            if report.weights.get(name, 0.0) <= 0:
                line += "  (weight 0: not counted)"
            lines.append(line)
        lines.append("")
    lines.append(f"Score: {report.score}/100 · {report.messages} messages")
    if report.handoff_suggested:
        lines.append(HANDOFF_LINE)
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def render_session_line(report: DriftReport) -> str:
    """One line naming the scored file: CLI, path, context tokens, compactions, skips,
    and how the file was chosen when not given as a path."""
    session = report.session
    tokens = f"{session.context_tokens:,} of {report.context_window:,} tokens"
    if session.tokens_estimated:
        tokens += " (estimated)"
    parts = [session.cli, session.path, tokens]
    if report.usable is not None:
        parts.append(f"{report.tokens_until_compaction:,} before the host compacts")
    if session.compactions:
        parts.append(_plural(session.compactions, "compaction"))
    if session.skipped_lines:
        parts.append(_plural(session.skipped_lines, "line") + " skipped")
    if report.resolved_by != "path":
        parts.append(f"resolved by {report.resolved_by.replace('_', ' ')}")
    return "Session: " + " · ".join(parts)
