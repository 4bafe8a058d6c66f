"""The calibrated scoring: the six factors on scales set by the labelled runs.

Same six factors, names and 0–100 ranges as the seed (:mod:`driftguard.scoring.factors`),
but each one measures what goes wrong in long agent sessions and sits on a scale that
``benchmarks/calibrate.py`` set by the rule of ``benchmarks/VALIDITY.md`` (its §5–6 record
how the rule and the loop definitions changed after the first runs). Every constant below
names its source: a paper, a CLI's own code, the seed, or the calibration figure that set
it.

=====================  ==============================================================
factor                 what it measures
=====================  ==============================================================
context_saturation     the larger of: how close the context is to the point where the
                       host compacts (the seed's curve over the usable window), and
                       context rot over the tokens the conversation added (log₂ curve)
repetition             the larger of: word-trigram overlap of the last 10 replies, and
                       an action loop going on at the latest tool call (:mod:`.loops`)
length_collapse        least-squares slope of the last 15 reply lengths
goal_distance          TF-IDF distance of the last 5 replies from the goal (the seed's,
                       kept by the screen; definition g2 stays for calibration)
uncertainty            self-corrections in the last 20 replies
confidence_drift       rise of the hedging rate from the first to the last third
=====================  ==============================================================

Pure functions over :class:`~driftguard.model.Session`; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from driftguard.model import Session
from driftguard.scoring import factors
from driftguard.scoring.features import Features
from driftguard.scoring.goal import goal_distance as seed_goal_distance
from driftguard.scoring.goal import goal_drift_between
from driftguard.scoring.loops import ActionLoop, loop_in

__all__ = [
    "CALIBRATION",
    "G0",
    "Calibration",
    "GoalDefinition",
    "Measures",
    "conversation_tokens",
    "fill_points",
    "first_request_tokens",
    "goal_definitions",
    "linear_points",
    "measure",
    "rot_points",
]

G0 = 8_000
"""Conversation tokens up to which context rot scores 0. Source: NoLiMa (Modarressi et al.,
arXiv:2502.05167 v1, Table 1; ICML 2025): 8K is the longest *effective length* — the
longest context at which a model keeps 85 % of its short-context score — of the 12 models
tested there (GPT-4o's; most others 1K–2K), so measurable rot begins there even for the
best model (``benchmarks/VALIDITY.md`` rule v2, change 1)."""

DRIFTING = 61.0
"""Points at which a factor, or the score, enters the Drifting band (docs/design.md §5.4)."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """The constants ``benchmarks/calibrate.py`` chose (see :data:`CALIBRATION`).

    Attributes:
        g61: conversation tokens at which context rot scores 61 points.
        overlap61: word-trigram overlap (0–1) at which text repetition scores 61.
        slope61: reply-length slope (characters per message, positive = shrinking) at
            which length collapse scores 61.
        corrections61: self-corrections at which uncertainty scores 61; ``None`` keeps the
            seed's 25 points a match.
        hedge61: rise of the hedge rate (hedges per 100 words) at which confidence drift
            scores 61.
        drift61: goal drift (0–1 cosine) at which goal distance scores 61 (definition g2);
            ``None`` keeps the seed's goal distance (definition g1).
        form: how the factors combine: ``"A"``, the weighted power mean of all of them;
            ``"B"``, the larger of context saturation and the power mean of the others
            (:func:`driftguard.scoring.means.combine`).
        power: the power mean's exponent; ``math.inf`` is the weighted maximum.
        handoff_points: context saturation or repetition points that suggest a handoff
            on their own; ``None``: they never do alone.
    """

    g61: float
    overlap61: float
    slope61: float
    corrections61: float | None
    hedge61: float
    drift61: float | None
    form: Literal["A", "B"]
    power: float
    handoff_points: float | None


CALIBRATION = Calibration(
    g61=35_000,
    overlap61=0.2937,
    slope61=242.6,
    corrections61=2.0,
    hedge61=2.196,
    drift61=None,
    form="B",
    power=2.0,
    handoff_points=86.0,
)
"""The shipped calibration, as ``python benchmarks/calibrate.py`` printed it under rule v2
of ``benchmarks/VALIDITY.md`` (values rounded to 4 significant digits), after the loop
corrections of its §6:

- the screen kept context saturation, repetition (action loops included), confidence
  drift and goal distance in its seed definition (g1: its mean pooled AUC over the three
  sets, 0.5093, was higher than g2's by 0.0002), and gave length collapse (inverted on
  D2: AUC 0.376 [0.27, 0.49]) and uncertainty (no signal anywhere) weight 0 in ``coding``;
- q = 95: each constant is the 95th percentile of its measure over the successful DEV runs,
  the largest of the three sets: ``g61`` 35,000 conversation tokens (D1: 95 % of the
  successful SWE-bench runs stayed under it; NoLiMa's 32K, where 10 of 12 models fall below
  half their short-context score, lies just below), ``overlap61`` 0.2937, ``slope61`` 242.6
  characters per reply, ``corrections61`` 2, ``hedge61`` 2.196 hedges per 100 words;
- form B with p = 2: the larger of context saturation and the quadratic mean of the others
  (the one candidate of 32 meeting all eight musts);
- ``handoff_points`` 86: the smallest T with false alarms ≤ 10 % on every set (8.7 %).
"""


def first_request_tokens(session: Session, features: Features | None = None) -> int:
    """The context of the session's first request, in tokens.

    The size the CLI reported for it (``Session.first_request_tokens``) when the file has
    usage; otherwise ``floor(Σ len(content) / 4)`` of the remembered messages before the
    first assistant reply (the estimate docs/design.md §5.3 uses for the whole context), read from
    ``features`` when given (they must be the session's).
    """
    if session.first_request_tokens is not None and not session.tokens_estimated:
        return session.first_request_tokens
    if features is not None:
        return features.chars_before_first_reply // 4
    chars = 0
    for message in session.messages:
        if message.role == "assistant" and not message.is_summary:
            break
        chars += len(message.content)
    return chars // 4


def conversation_tokens(session: Session, features: Features | None = None) -> int:
    """Tokens the conversation added to the context since its first request (≥ 0).

    ``context_tokens − first_request_tokens``: the host's system prompt, tool schemas and
    first prompt are there on the first turn of every session (about 20k tokens in Claude
    Code 2.1, 6k in Codex, 12k in Gemini CLI on the shared corpus), so they cannot tell a
    degraded session from a fresh one.
    """
    return max(0, session.context_tokens - first_request_tokens(session, features))


def rot_points(tokens: float, g61: float) -> float:
    """Context-rot points for ``tokens`` the conversation added, linear in log₂ tokens.

    0 up to :data:`G0`, 61 at ``g61`` (> G0), the same slope beyond, capped at 100.
    """
    if tokens <= G0:
        return 0.0
    return min(100.0, DRIFTING * math.log2(tokens / G0) / math.log2(g61 / G0))


def fill_points(context_tokens: int, usable_window: int) -> float:
    """The seed's saturation curve (docs/design.md §5.3) over the *usable* window: the tokens
    before the host compacts. ½ full → 10, ¾ → 40, full → 100."""
    return factors.context_saturation(context_tokens, usable_window)


def linear_points(value: float, at61: float) -> float:
    """``min(100, value × 61 / at61)`` for positive values, else 0."""
    if value <= 0 or at61 <= 0:
        return 0.0
    return min(100.0, value * DRIFTING / at61)


@dataclass(frozen=True, slots=True)
class Measures:
    """The raw measures of one session, before any scale (what calibration reads).

    Attributes:
        conversation_tokens: tokens added since the first request.
        overlap: word-trigram overlap of the last 10 replies, 0–1.
        loop: the strongest action loop among the last 20 steps, or ``None``.
        slope: reply-length slope, characters per message (negative = shrinking).
        corrections: self-correction matches in the last 20 replies.
        hedge_rise: rise of the hedge rate, hedges per 100 words.
        goal_drift: definition g2 (``None`` without a goal or vocabulary, or when it was not
            asked for: :func:`measure`).
        goal_distance_seed: definition g1 in points (``None`` without a goal, or when it was
            not asked for).
        goal_given: a goal was given (goal distance is then a factor, whatever its value).
    """

    conversation_tokens: int
    overlap: float
    loop: ActionLoop | None
    slope: float
    corrections: int
    hedge_rise: float
    goal_drift: float | None
    goal_distance_seed: float | None
    goal_given: bool = False


GoalDefinition = Literal["g1", "g2"]


def goal_definitions(calibration: Calibration) -> tuple[GoalDefinition, ...]:
    """The goal definition ``calibration`` scores with: g2 when it sets ``drift61``, else
    g1 (the seed's goal distance)."""
    return ("g2",) if calibration.drift61 is not None else ("g1",)


def measure(
    session: Session,
    goal: str | None,
    *,
    calibration: Calibration = CALIBRATION,
    definitions: tuple[GoalDefinition, ...] | None = None,
    features: Features | None = None,
) -> Measures:
    """Every raw measure of ``session`` (``goal`` blank or ``None``: no goal).

    Args:
        session: the parsed session.
        goal: the goal text.
        calibration: the calibration the measures are for: only the goal definition it
            scores with is computed (:func:`goal_definitions`).
        definitions: the goal definitions to compute instead (``benchmarks/calibrate.py``
            compares both).
        features: the session's :class:`~driftguard.scoring.features.Features` when the
            caller keeps them up to date (else computed here from ``session.messages``).
    """
    if features is None:
        features = Features.of(session.messages)
    if definitions is None:
        definitions = goal_definitions(calibration)
    recent = features.recent
    has_goal = goal is not None and goal.strip() != ""
    return Measures(
        conversation_tokens=conversation_tokens(session, features),
        overlap=factors.trigram_overlap(recent),
        loop=loop_in(features.steps),
        slope=factors.length_slope(recent),
        corrections=factors.self_corrections(recent),
        hedge_rise=features.hedge_rise,
        goal_drift=(
            goal_drift_between(goal, features.first, recent, features.replies)
            if has_goal and goal and "g2" in definitions
            else None
        ),
        goal_distance_seed=(
            seed_goal_distance(goal, recent) if has_goal and goal and "g1" in definitions else None
        ),
        goal_given=has_goal,
    )


Source = Literal["fill", "rot"]


def saturation_points(
    context_tokens: int, usable_window: int, added_tokens: int, calibration: Calibration
) -> tuple[float, Source]:
    """Context saturation: the larger of :func:`fill_points` and :func:`rot_points`,
    and which of the two it is (``"fill"`` on a tie)."""
    fill = fill_points(context_tokens, usable_window)
    rot = rot_points(added_tokens, calibration.g61)
    return (fill, "fill") if fill >= rot else (rot, "rot")


def factor_points(
    measures: Measures,
    *,
    context_tokens: int,
    usable_window: int,
    calibration: Calibration,
) -> dict[str, float | None]:
    """The six factors' points from the raw measures (``goal_distance`` ``None`` without
    a goal)."""
    saturation, _ = saturation_points(
        context_tokens, usable_window, measures.conversation_tokens, calibration
    )
    loop_points = measures.loop.points if measures.loop is not None else 0.0
    if calibration.corrections61 is None:
        uncertainty = min(100.0, measures.corrections * 25.0)
    else:
        uncertainty = linear_points(measures.corrections, calibration.corrections61)
    if calibration.drift61 is None:
        goal = measures.goal_distance_seed
    else:
        goal = (
            linear_points(measures.goal_drift or 0.0, calibration.drift61)
            if measures.goal_given
            else None
        )
    return {
        "context_saturation": saturation,
        "repetition": max(linear_points(measures.overlap, calibration.overlap61), loop_points),
        "length_collapse": linear_points(-measures.slope, calibration.slope61),
        "goal_distance": goal,
        "uncertainty": uncertainty,
        "confidence_drift": linear_points(measures.hedge_rise, calibration.hedge61),
    }
