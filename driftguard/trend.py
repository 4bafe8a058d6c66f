"""The trend of a session's drift score over its recorded snapshots (design.md §6 ``get_trend``).

Pure: :func:`compute_trend` reads a sequence of :class:`~driftguard.history.Snapshot`
(oldest first, as :meth:`~driftguard.history.HistoryStore.read` returns them, i.e. in
append order) and :func:`render_trend_text` turns the result into a few readable lines.

Rules (design §6), over the scores ``s₀ … sₙ₋₁`` in append order:

- **sparkline**: one cell per snapshot, ``"▁▂▃▄▅▆▇█"[min(7, int(s / 12.5))]`` (0–12 → ▁,
  13–24 → ▂, …, 88–100 → █), once at least 3 snapshots exist; ``None`` before.
- **scores**: the whole sequence; **peak**: its maximum; **average**: its mean rounded half
  up to one decimal (exact arithmetic on the integer scores, so 12.25 is never 12.2).
- **latest**: the last snapshot's score and state.
- **trajectory**: over the last 5 snapshots (fewer when fewer exist), ``last − first`` ≥ 10
  → ``climbing``, ≤ −10 → ``falling``, else ``stable``; with fewer than 2 snapshots there
  is no movement to judge, so ``stable``.
- **handoff hint**: the latest score ≥ the warn threshold (``warnThreshold``, design
  §5.4). Only the score is recorded, so the saturation and repetition triggers of §5.4 do
  not enter the hint.

**Scales** (issue #8): scores of different scorings or presets are not comparable, so a
trend is computed only over the snapshots made with the scoring and preset in force now
(``compute_trend``'s ``scoring`` and ``preset``). The others stay in the history file;
the trend counts them (``set_aside``) and its text says so, and never draws a trajectory
across them — an upgrade of the scoring does not read as "climbing" or "falling".

With no snapshot at all every value is ``None`` (scores empty), the trajectory is
``stable`` and there is no hint; the text then says to call ``get_drift`` first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from driftguard.history import Snapshot
    from driftguard.scoring.composite import State

__all__ = [
    "MIN_SPARKLINE_SNAPSHOTS",
    "NO_HISTORY",
    "SPARK_CELLS",
    "TEXT_SPARKLINE_CELLS",
    "TRAJECTORY_DELTA",
    "TRAJECTORY_WINDOW",
    "Trajectory",
    "Trend",
    "compute_trend",
    "render_trend_text",
    "spark_cell",
]

Trajectory = Literal["climbing", "falling", "stable"]

SPARK_CELLS: Final = "▁▂▃▄▅▆▇█"
"""The eight sparkline cells, lowest first (design §6)."""
SPARK_STEP: Final = 12.5
"""Score points per sparkline cell: cell index ``min(7, int(score / 12.5))``."""
MIN_SPARKLINE_SNAPSHOTS: Final = 3
"""A sparkline is drawn once this many snapshots exist (design §6)."""
TRAJECTORY_WINDOW: Final = 5
"""The trajectory compares the first and last of this many latest snapshots (design §6)."""
TRAJECTORY_DELTA: Final = 10
"""A change of at least this many points is ``climbing`` or ``falling`` (design §6)."""
TEXT_SPARKLINE_CELLS: Final = 60
"""The text shows at most this many latest cells of a longer sparkline (the field has all)."""
NO_HISTORY: Final = "No history yet for this session: call get_drift first."


@dataclass(frozen=True, slots=True)
class Trend:
    """How one session's score moved over its recorded snapshots.

    Attributes:
        scores: every snapshot's score (0–100), oldest first.
        sparkline: one ``▁▂▃▄▅▆▇█`` cell per score, or ``None`` below 3 snapshots.
        peak: the highest score, ``None`` without snapshots.
        average: the mean score rounded half up to one decimal, ``None`` without snapshots.
        latest_score: the last snapshot's score, ``None`` without snapshots.
        latest_state: the last snapshot's state, ``None`` without snapshots.
        trajectory: ``climbing`` / ``falling`` / ``stable`` over the last 5 snapshots.
        trajectory_delta: ``last − first`` score points over those snapshots (0 below 2).
        handoff_hint: the latest score reached ``warn_threshold``.
        warn_threshold: the score from which the hint fires (0–100).
        set_aside: snapshots made with another scoring or preset, not in this trend.
    """

    scores: tuple[int, ...]
    sparkline: str | None
    peak: int | None
    average: float | None
    latest_score: int | None
    latest_state: State | None
    trajectory: Trajectory
    trajectory_delta: int
    handoff_hint: bool
    warn_threshold: int
    set_aside: int = 0

    @property
    def snapshots(self) -> int:
        """How many snapshots the trend was computed from."""
        return len(self.scores)


def spark_cell(score: float) -> str:
    """The sparkline cell of a 0–100 score: ``SPARK_CELLS[min(7, int(score / 12.5))]``.

    12.4 → ``▁``, 12.5 → ``▂``, 87.4 → ``▇``, 87.5 and 100 → ``█``; below 0 → ``▁``.
    """
    return SPARK_CELLS[max(0, min(len(SPARK_CELLS) - 1, int(score / SPARK_STEP)))]


def _mean_one_decimal(scores: Sequence[int]) -> float:
    """The mean of non-negative integer scores, rounded half up to one decimal, exactly."""
    tenths = Fraction(10 * sum(scores), len(scores))
    return math.floor(tenths + Fraction(1, 2)) / 10


def _trajectory(scores: Sequence[int]) -> tuple[Trajectory, int]:
    window = scores[-TRAJECTORY_WINDOW:]
    if len(window) < 2:
        return "stable", 0
    delta = window[-1] - window[0]
    if delta >= TRAJECTORY_DELTA:
        return "climbing", delta
    if delta <= -TRAJECTORY_DELTA:
        return "falling", delta
    return "stable", delta


def compute_trend(
    snapshots: Sequence[Snapshot],
    warn_threshold: int,
    *,
    scoring: str | None = None,
    preset: str | None = None,
) -> Trend:
    """The design §6 trend of ``snapshots`` (oldest first) against ``warn_threshold``.

    With ``scoring`` (and ``preset``), only the snapshots made with that scoring (and
    preset) count; the rest are counted in :attr:`Trend.set_aside`.
    """
    every = len(snapshots)
    snapshots = [
        snapshot
        for snapshot in snapshots
        if (scoring is None or snapshot.scoring == scoring)
        and (preset is None or snapshot.preset == preset)
    ]
    set_aside = every - len(snapshots)
    scores = tuple(snapshot.score for snapshot in snapshots)
    trajectory, delta = _trajectory(scores)
    if not scores:
        return Trend(
            scores=(),
            sparkline=None,
            peak=None,
            average=None,
            latest_score=None,
            latest_state=None,
            trajectory=trajectory,
            trajectory_delta=delta,
            handoff_hint=False,
            warn_threshold=warn_threshold,
            set_aside=set_aside,
        )
    latest = snapshots[-1]
    sparkline = (
        "".join(spark_cell(score) for score in scores)
        if len(scores) >= MIN_SPARKLINE_SNAPSHOTS
        else None
    )
    return Trend(
        scores=scores,
        sparkline=sparkline,
        peak=max(scores),
        average=_mean_one_decimal(scores),
        latest_score=latest.score,
        latest_state=latest.state,
        trajectory=trajectory,
        trajectory_delta=delta,
        handoff_hint=latest.score >= warn_threshold,
        warn_threshold=warn_threshold,
        set_aside=set_aside,
    )


def render_trend_text(trend: Trend) -> str:
    """A few readable lines for the model and the terminal.

    For example (scores 12, 20, 52, 58; warn threshold 50)::

        ▁▂▅▅ 12 → 58 · peak 58 · avg 35.5 · climbing · latest warming
        4 snapshots; +46 points over the last 4.
        → Latest score 58 ≥ warn threshold 50: call get_handoff() and start a fresh session.

    A sparkline longer than 60 cells shows its latest 60 after ``…``. Without snapshots the
    text is :data:`NO_HISTORY`.
    """
    aside = (
        f"{trend.set_aside} earlier snapshot{'s' * (trend.set_aside != 1)} made with another "
        f"scoring or preset {'is' if trend.set_aside == 1 else 'are'} not part of this trend."
        if trend.set_aside
        else ""
    )
    if trend.latest_score is None or not trend.scores:
        return NO_HISTORY + (f"\n{aside}" if aside else "")
    count = len(trend.scores)
    head = str(trend.latest_score) if count == 1 else f"{trend.scores[0]} → {trend.latest_score}"
    if trend.sparkline is not None:
        cells = trend.sparkline
        if len(cells) > TEXT_SPARKLINE_CELLS:
            cells = "…" + cells[-TEXT_SPARKLINE_CELLS:]
        head = f"{cells} {head}"
    parts = [
        head,
        f"peak {trend.peak}",
        f"avg {trend.average:.1f}",
        trend.trajectory,
        f"latest {trend.latest_state}",
    ]
    lines = [" · ".join(parts)]
    if count == 1:
        lines.append("1 snapshot so far; the trajectory needs at least 2.")
    else:
        window = min(count, TRAJECTORY_WINDOW)
        lines.append(
            f"{count} snapshots; {trend.trajectory_delta:+d} points over the last {window}."
        )
    if aside:
        lines.append(aside)
    if trend.handoff_hint:
        lines.append(
            f"→ Latest score {trend.latest_score} ≥ warn threshold {trend.warn_threshold}: "
            "call get_handoff() and start a fresh session."
        )
    return "\n".join(lines)
