"""The trend of a session's drift score over its recorded snapshots (docs/design.md §6
``get_trend``).

Pure: :func:`compute_trend` reads a sequence of scored moments (:class:`ScoredMoment`: the
history's :class:`~driftguard.store.history.Snapshot`, oldest first, as
:meth:`~driftguard.store.history.HistoryStore.read` returns them, i.e. in append order);
:mod:`driftguard.render.trend` turns the result into a few readable lines.

Rules (docs/design.md §6), over the scores ``s₀ … sₙ₋₁`` in append order:

- **sparkline**: one cell per snapshot, ``"▁▂▃▄▅▆▇█"[min(7, int(s / 12.5))]`` (0–12 → ▁,
  13–24 → ▂, …, 88–100 → █), once at least 3 snapshots exist; ``None`` before.
- **scores**: the whole sequence; **peak**: its maximum; **average**: its mean rounded half
  up to one decimal (exact arithmetic on the integer scores, so 12.25 is never 12.2).
- **latest**: the last snapshot's score and state.
- **trajectory**: over the last 5 snapshots (fewer when fewer exist), ``last − first`` ≥ 10
  → ``climbing``, ≤ −10 → ``falling``, else ``stable``; with fewer than 2 snapshots there
  is no movement to judge: ``None`` (never "stable" beside "needs at least 2").
- **handoff hint**: the latest score ≥ the warn threshold (``warnThreshold``, design
  §5.4). Only the score is recorded, so the saturation and repetition triggers of §5.4 do
  not enter the hint.

**Scales**: scores of different scorings, presets or goals are not
comparable (a goal adds a factor and moves every weight), so a trend is computed only over
the snapshots made with the scoring, preset and goal in force now (``compute_trend``'s
``scoring``, ``preset`` and ``goal_sha256``). The others stay in the history file; the
trend counts them (``set_aside``) and its text says so, and never draws a trajectory across
them — an upgrade of the scoring or a new goal does not read as "climbing" or "falling".

With no snapshot at all every value is ``None`` (scores empty), the trajectory is ``None``
and there is no hint. A file outside the session folders has no history at all
(``outside``).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Protocol

from driftguard.model import State, Trajectory

__all__ = [
    "ANY_GOAL",
    "MIN_SPARKLINE_SNAPSHOTS",
    "SPARK_CELLS",
    "TRAJECTORY_DELTA",
    "TRAJECTORY_WINDOW",
    "ScoredMoment",
    "Trajectory",
    "Trend",
    "compute_trend",
    "spark_cell",
]

SPARK_CELLS: Final = "▁▂▃▄▅▆▇█"
"""The eight sparkline cells, lowest first (docs/design.md §6)."""
SPARK_STEP: Final = 12.5
"""Score points per sparkline cell: cell index ``min(7, int(score / 12.5))``."""
MIN_SPARKLINE_SNAPSHOTS: Final = 3
"""A sparkline is drawn once this many snapshots exist (docs/design.md §6)."""
TRAJECTORY_WINDOW: Final = 5
"""The trajectory compares the first and last of this many latest snapshots (docs/design.md §6)."""
TRAJECTORY_DELTA: Final = 10
"""A change of at least this many points is ``climbing`` or ``falling`` (docs/design.md §6)."""


class ScoredMoment(Protocol):
    """What the trend reads of one recorded score (the history's ``Snapshot`` has it)."""

    @property
    def score(self) -> int: ...
    @property
    def state(self) -> State: ...
    @property
    def scoring(self) -> str: ...
    @property
    def preset(self) -> str | None: ...
    @property
    def goal_sha256(self) -> str | None: ...


class _AnyGoal(enum.Enum):
    ANY = "any goal"


ANY_GOAL: Final = _AnyGoal.ANY
"""``compute_trend(goal_sha256=ANY_GOAL)``: snapshots of every goal count (the default)."""


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
        trajectory: ``climbing`` / ``falling`` / ``stable`` over the last 5 snapshots;
            ``None`` below 2 snapshots.
        trajectory_delta: ``last − first`` score points over those snapshots (0 below 2).
        handoff_hint: the latest score reached ``warn_threshold``.
        warn_threshold: the score from which the hint fires (0–100).
        set_aside: snapshots made with another scoring, preset or goal, not in this trend.
        set_aside_kinds: what those were made with, as ``(words, count)`` pairs, most
            first: ``"the seed scoring of driftguard 0.1"``, ``"preset research"``,
            ``"another goal"``.
        outside: the file is not in a session folder: it has no history at all.
    """

    scores: tuple[int, ...]
    sparkline: str | None
    peak: int | None
    average: float | None
    latest_score: int | None
    latest_state: State | None
    trajectory: Trajectory | None
    trajectory_delta: int
    handoff_hint: bool
    warn_threshold: int
    set_aside: int = 0
    set_aside_kinds: tuple[tuple[str, int], ...] = ()
    outside: bool = False

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


def _trajectory(scores: Sequence[int]) -> tuple[Trajectory | None, int]:
    window = scores[-TRAJECTORY_WINDOW:]
    if len(window) < 2:
        return None, 0
    delta = window[-1] - window[0]
    if delta >= TRAJECTORY_DELTA:
        return "climbing", delta
    if delta <= -TRAJECTORY_DELTA:
        return "falling", delta
    return "stable", delta


def compute_trend(
    snapshots: Sequence[ScoredMoment],
    warn_threshold: int,
    *,
    scoring: str | None = None,
    preset: str | None = None,
    goal_sha256: str | _AnyGoal | None = ANY_GOAL,
    outside: bool = False,
) -> Trend:
    """The docs/design.md §6 trend of ``snapshots`` (oldest first) against ``warn_threshold``.

    With ``scoring``, ``preset`` or ``goal_sha256`` (``None``: scores made without a goal),
    only the snapshots made with that scoring, preset and goal count; the rest are counted
    in :attr:`Trend.set_aside`. ``outside``: the file has no history (the caller passes no
    snapshots).
    """
    kept: list[ScoredMoment] = []
    kinds: dict[str, int] = {}
    for snapshot in snapshots:
        if scoring is not None and snapshot.scoring != scoring:
            kind = (
                "the seed scoring of driftguard 0.1"
                if snapshot.preset is None
                else f"the {snapshot.scoring} scoring"
            )
        elif preset is not None and snapshot.preset != preset:
            kind = f"preset {snapshot.preset}"
        elif goal_sha256 is not ANY_GOAL and snapshot.goal_sha256 != goal_sha256:
            kind = "another goal" if snapshot.goal_sha256 is not None else "no goal"
        else:
            kept.append(snapshot)
            continue
        kinds[kind] = kinds.get(kind, 0) + 1
    snapshots = kept
    set_aside = sum(kinds.values())
    set_aside_kinds = tuple(sorted(kinds.items(), key=lambda item: -item[1]))
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
            set_aside_kinds=set_aside_kinds,
            outside=outside,
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
        set_aside_kinds=set_aside_kinds,
        outside=outside,
    )
