"""The trend of a session's recorded scores as text and JSON (docs/design.md §6 ``get_trend``):
:func:`render_trend_text` for a person or a model, :func:`trend_json` the one JSON shape of
``driftguard trend --json`` and ``get_trend`` (which adds ``text`` and ``notes``). The trend
itself is :func:`driftguard.scoring.trend.compute_trend`'s.

With no snapshot the text says how to record a score — to whoever reads it
(:data:`~driftguard.model.Audience`: run ``driftguard score``, or call ``get_drift``); a
file outside the session folders has no history at all, and says so.
"""

from __future__ import annotations

from typing import Any, Final

from driftguard.format import plural
from driftguard.model import NOT_IN_SESSION_FOLDER, Audience
from driftguard.scoring.trend import TRAJECTORY_WINDOW, Trend

__all__ = [
    "OUTSIDE_SESSION_FOLDERS",
    "TEXT_SPARKLINE_CELLS",
    "no_history_text",
    "render_trend_text",
    "trend_json",
]

TEXT_SPARKLINE_CELLS: Final = 60
"""The text shows at most this many latest cells of a longer sparkline (the field has all)."""
OUTSIDE_SESSION_FOLDERS: Final = (
    "No history: this file is not in a session folder, so its scores are never recorded "
    "(the config's sessionFolders adds a folder)."
)


def no_history_text(audience: Audience) -> str:
    """What the trend says without a recorded score, told to whoever reads it."""
    how = "run `driftguard score` to record one" if audience == "cli" else "call get_drift first"
    return f"No scores recorded yet for this session: {how}."


def render_trend_text(trend: Trend, audience: Audience = "mcp") -> str:
    """A few readable lines for the model (``audience="mcp"``) or the terminal (``"cli"``).

    For example (scores 12, 20, 52, 58; warn threshold 50; for the model)::

        ▁▂▅▅ 12 → 58 · peak 58 · avg 35.5 · climbing · latest warming
        4 snapshots; +46 points over the last 4.
        → Latest score 58 ≥ warn threshold 50: call get_handoff() and start a fresh session.

    A sparkline longer than 60 cells shows its latest 60 after ``…``. A single snapshot
    names no trajectory. Without snapshots the text is :func:`no_history_text`, or
    :data:`OUTSIDE_SESSION_FOLDERS` for a file outside the session folders.
    """
    if trend.outside:
        return OUTSIDE_SESSION_FOLDERS
    aside = (
        "Not part of this trend (scored another way, not comparable): "
        + ", ".join(
            f"{plural(count, 'snapshot')} with {kind}" for kind, count in trend.set_aside_kinds
        )
        + "."
        if trend.set_aside_kinds
        else ""
    )
    if trend.latest_score is None or not trend.scores:
        if aside:
            how = "run `driftguard score`" if audience == "cli" else "call get_drift"
            return (
                f"No scores recorded yet with the current scoring, preset and goal: {how} "
                f"to start this trend.\n{aside}"
            )
        return no_history_text(audience)
    count = len(trend.scores)
    head = str(trend.latest_score) if count == 1 else f"{trend.scores[0]} → {trend.latest_score}"
    if trend.sparkline is not None:
        cells = trend.sparkline
        if len(cells) > TEXT_SPARKLINE_CELLS:
            cells = "…" + cells[-TEXT_SPARKLINE_CELLS:]
        head = f"{cells} {head}"
    parts = [head, f"peak {trend.peak}", f"avg {trend.average:.1f}"]
    if trend.trajectory is not None:
        parts.append(trend.trajectory)
    parts.append(f"latest {trend.latest_state}")
    lines = [" · ".join(parts)]
    if count == 1:
        lines.append("1 snapshot so far; the trajectory needs at least 2.")
    else:
        window = min(count, TRAJECTORY_WINDOW)
        points = "point" if abs(trend.trajectory_delta) == 1 else "points"
        lines.append(
            f"{count} snapshots; {trend.trajectory_delta:+d} {points} over the last {window}."
        )
    if aside:
        lines.append(aside)
    if trend.handoff_hint:
        action = (
            "run `driftguard handoff --write`"
            if audience == "cli"
            else "call get_handoff() (or save_handoff())"
        )
        lines.append(
            f"→ Latest score {trend.latest_score} ≥ warn threshold {trend.warn_threshold}: "
            f"{action} and start a fresh session."
        )
    return "\n".join(lines)


def trend_json(trend: Trend) -> dict[str, Any]:
    """The trend as ``driftguard trend --json`` prints it and ``get_trend`` returns it (the
    MCP adds ``session``, ``text`` and ``notes``; the command line adds ``session``)::

        {"snapshots": int, "scores": [int], "sparkline": str|null, "peak": int|null,
         "average": float|null, "latest_score": int|null, "latest_state": str|null,
         "trajectory": "climbing"|"falling"|"stable"|null, "trajectory_delta": int,
         "handoff_suggested": bool, "warn_threshold": int, "set_aside": int,
         "set_aside_kinds": [{"made_with": str, "snapshots": int}],
         "not_recorded_reason": str|null}

    ``not_recorded_reason`` says why the file has no history (it is not in a session
    folder), else ``null``.
    """
    return {
        "snapshots": trend.snapshots,
        "scores": list(trend.scores),
        "sparkline": trend.sparkline,
        "peak": trend.peak,
        "average": trend.average,
        "latest_score": trend.latest_score,
        "latest_state": trend.latest_state,
        "trajectory": trend.trajectory,
        "trajectory_delta": trend.trajectory_delta,
        "handoff_suggested": trend.handoff_hint,
        "warn_threshold": trend.warn_threshold,
        "set_aside": trend.set_aside,
        "set_aside_kinds": [
            {"made_with": kind, "snapshots": count} for kind, count in trend.set_aside_kinds
        ],
        "not_recorded_reason": NOT_IN_SESSION_FOLDER if trend.outside else None,
    }
