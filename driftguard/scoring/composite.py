"""Composite score, states and the handoff trigger (design.md §5.4), over a parsed session.

:func:`score_session` is the engine's one entry point: it reads what the factors see
from a :class:`~driftguard.model.Session` (design §5.1), computes the six factors
(:mod:`driftguard.scoring.factors`, :mod:`driftguard.scoring.goal`) and combines them::

    composite = Σ wᵢ·fᵢ / Σ wᵢ   over the active factors, unrounded
    score     = floor(composite + 0.5), clamped to 0–100

States: 0–29 fresh, 30–60 warming, 61–80 drifting, 81–100 polluted. The handoff is
suggested when unrounded context saturation ≥ 60, or repetition ≥ 50, or the score ≥
the warn threshold (default 60).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from driftguard.model import FACTOR_NAMES, Session
from driftguard.scoring import factors
from driftguard.scoring.goal import goal_distance
from driftguard.scoring.wording import recommend

__all__ = [
    "DEFAULT_WARN_THRESHOLD",
    "NOT_ENOUGH_MESSAGES",
    "DriftReport",
    "ResolvedBy",
    "State",
    "composite_score",
    "handoff_suggested",
    "normalise_weights",
    "score_session",
    "state_for",
]

State = Literal["fresh", "warming", "drifting", "polluted"]
ResolvedBy = Literal["path", "argument", "pointer", "env_session_id", "newest_in_project"]

DEFAULT_WARN_THRESHOLD = 60
"""Score from which the handoff is suggested unless the config says otherwise (§5.4)."""
SATURATION_HANDOFF = 60.0
"""Unrounded context-saturation points that suggest a handoff on their own (§5.4)."""
REPETITION_HANDOFF = 50.0
"""Unrounded repetition points that suggest a handoff on their own (§5.4)."""
NOT_ENOUGH_MESSAGES = "Not enough messages to score yet."
MIN_MESSAGES = 2


@dataclass(frozen=True, slots=True)
class DriftReport:
    """The result of scoring one session (the design §5.5 report, before rendering).

    Attributes:
        score: 0–100 points, ``floor(composite + 0.5)``.
        state: the band the score falls in.
        composite: the unrounded weighted mean of the active factors, 0–100 points.
        factors: each factor's unrounded points keyed by its JSON name;
            ``goal_distance`` is ``None`` when no goal is known.
        weights: the weights applied, normalised over the active factors (sum 1, or all 0
            when no factor is active); ``goal_distance`` is 0.0 when absent.
        messages: user + assistant messages remembered (design §5.1).
        handoff_suggested: whether the design §5.4 handoff trigger fired.
        recommendation: one or two plain-English sentences leading with the action.
        session: the parsed session that was scored.
        resolved_by: how the session file was chosen.
        context_window: the window used for saturation (tokens): the session's own, or
            the host-supplied override.
        warn_threshold: the score from which a handoff is suggested.
    """

    score: int
    state: State
    composite: float
    factors: Mapping[str, float | None]
    weights: Mapping[str, float]
    messages: int
    handoff_suggested: bool
    recommendation: str
    session: Session
    resolved_by: ResolvedBy
    context_window: int
    warn_threshold: int


def state_for(score: int) -> State:
    """The state of a 0–100 score: 0–29 fresh, 30–60 warming, 61–80 drifting, else polluted."""
    if score <= 29:
        return "fresh"
    if score <= 60:
        return "warming"
    if score <= 80:
        return "drifting"
    return "polluted"


def normalise_weights(
    weights: Mapping[str, float], values: Mapping[str, float | None]
) -> dict[str, float]:
    """The weights of the active factors (value not ``None``) scaled to sum to 1.

    Inactive factors get 0.0; when the active weights sum to 0 every weight is 0.0.
    This is how an absent goal's weight is redistributed proportionally (§5.3).
    """
    active = {name: weights.get(name, 0.0) for name in FACTOR_NAMES if values.get(name) is not None}
    total = sum(active.values())
    return {
        name: (active[name] / total if name in active and total > 0 else 0.0)
        for name in FACTOR_NAMES
    }


def composite_score(weights: Mapping[str, float], values: Mapping[str, float | None]) -> float:
    """``Σ wᵢ·fᵢ / Σ wᵢ`` over the active factors (0 when their weights sum to 0), 0–100."""
    active = [
        (weights.get(name, 0.0), value)
        for name in FACTOR_NAMES
        if (value := values.get(name)) is not None
    ]
    total = sum(w for w, _ in active)
    if total <= 0:
        return 0.0
    return sum(w * v for w, v in active) / total


def handoff_suggested(values: Mapping[str, float | None], score: int, warn_threshold: int) -> bool:
    """Design §5.4: saturation ≥ 60, repetition ≥ 50 (unrounded), or score ≥ the threshold."""
    saturation = values.get("context_saturation") or 0.0
    repeated = values.get("repetition") or 0.0
    return (
        saturation >= SATURATION_HANDOFF
        or repeated >= REPETITION_HANDOFF
        or (score >= warn_threshold)
    )


def score_session(
    session: Session,
    *,
    weights: Mapping[str, float],
    goal: str | None = None,
    warn_threshold: int = DEFAULT_WARN_THRESHOLD,
    context_window: int | None = None,
    resolved_by: ResolvedBy = "path",
) -> DriftReport:
    """Score one parsed session (design §5).

    Args:
        session: the parsed session; its ``messages`` are what the model remembers.
        weights: per-factor weights keyed by the JSON factor names (a preset's, after
            config overrides); they need not sum to 1.
        goal: the session's goal text; ``None`` or blank leaves goal distance absent.
        warn_threshold: score (0–100) from which a handoff is suggested.
        context_window: a host-supplied context window in tokens (the status line's),
            which overrides the session's own.
        resolved_by: how the session file was chosen, carried into the report.

    Returns:
        The :class:`DriftReport`; a session with fewer than 2 messages scores 0 with
        every factor 0 (``goal_distance`` ``None``).
    """
    window = context_window if context_window and context_window > 0 else session.context_window
    count = session.message_count
    has_goal = goal is not None and goal.strip() != ""
    if count < MIN_MESSAGES:
        values: dict[str, float | None] = dict.fromkeys(FACTOR_NAMES, 0.0)
        values["goal_distance"] = None
        return DriftReport(
            score=0,
            state="fresh",
            composite=0.0,
            factors=values,
            weights=normalise_weights(weights, values),
            messages=count,
            handoff_suggested=False,
            recommendation=NOT_ENOUGH_MESSAGES,
            session=session,
            resolved_by=resolved_by,
            context_window=window,
            warn_threshold=warn_threshold,
        )
    replies = session.assistant_texts
    values = {
        "context_saturation": factors.context_saturation(session.context_tokens, window),
        "repetition": factors.repetition(replies),
        "length_collapse": factors.length_collapse(replies),
        "goal_distance": goal_distance(goal, replies) if has_goal and goal else None,
        "uncertainty": factors.uncertainty(replies),
        "confidence_drift": factors.confidence_drift(replies),
    }
    composite = composite_score(weights, values)
    score = min(100, max(0, math.floor(composite + 0.5)))
    state = state_for(score)
    suggested = handoff_suggested(values, score, warn_threshold)
    applied = normalise_weights(weights, values)
    return DriftReport(
        score=score,
        state=state,
        composite=composite,
        factors=values,
        weights=applied,
        messages=count,
        handoff_suggested=suggested,
        recommendation=recommend(state, suggested, values, applied, session.context_tokens, window),
        session=session,
        resolved_by=resolved_by,
        context_window=window,
        warn_threshold=warn_threshold,
    )
