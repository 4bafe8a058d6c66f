"""Composite score, states and the handoff trigger (docs/design.md §5.4), over a
parsed session.

:func:`score_session` is the engine's one entry point. It reads what the factors see from
a :class:`~driftguard.model.Session` (docs/design.md §5.1), computes the six factors with one of two
**scorings** and combines them:

- ``"seed"``: docs/design.md §5.3–5.4 as first written, exactly (:mod:`driftguard.scoring.factors`,
  :mod:`driftguard.scoring.goal`); ``composite = Σ wᵢ·fᵢ / Σ wᵢ`` over the active factors;
  the handoff is suggested when unrounded context saturation ≥ 60, or repetition ≥ 50,
  or the score ≥ the warn threshold (default 60).
- ``"calibrated"``: the factors of :mod:`driftguard.scoring.calibrated`, on the scales
  ``benchmarks/calibrate.py`` set; the composite is the weighted power mean
  ``(Σ wᵢ fᵢᵖ / Σ wᵢ)^(1/p)`` (``p = ∞``: the weighted maximum ``maxᵢ (wᵢ / max w)·fᵢ``);
  the handoff is suggested when context saturation or repetition alone reaches
  :attr:`~driftguard.scoring.calibrated.Calibration.handoff_points`, or the score reaches
  the warn threshold.

Both: ``score = floor(composite + 0.5)``, clamped to 0–100; states 0–29 fresh, 30–60
warming, 61–80 drifting, 81–100 polluted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from driftguard.compaction.budget import Budget
from driftguard.compaction.budget import budget as room_left
from driftguard.compaction.window import UsableWindow
from driftguard.model import (
    CALIBRATION_NONE,
    FACTOR_NAMES,
    SCORINGS,
    WARN_THRESHOLDS,
    CalibrationUse,
    ResolvedBy,
    Scoring,
    Session,
    State,
    WindowSource,
)
from driftguard.scoring import calibrated, factors
from driftguard.scoring.calibrated import CALIBRATION, Calibration, Measures
from driftguard.scoring.features import Features
from driftguard.scoring.goal import goal_distance
from driftguard.scoring.loops import loop_in
from driftguard.scoring.means import combine, composite_score
from driftguard.scoring.personal import Personal, remap
from driftguard.scoring.wording import (
    Remedy,
    Trouble,
    advise,
    calibrated_reasons,
    calibrated_trouble,
    seed_reasons,
)

__all__ = [
    "DEFAULT_WARN_THRESHOLD",
    "NOT_ENOUGH_MESSAGES",
    "SCORINGS",
    "DriftReport",
    "ResolvedBy",
    "Scoring",
    "State",
    "WindowSource",
    "handoff_suggested",
    "normalise_weights",
    "score_session",
    "state_for",
]

DEFAULT_WARN_THRESHOLD = WARN_THRESHOLDS["calibrated"]
"""Score from which the handoff is suggested unless the config says otherwise: the
Drifting line on the calibrated scales (``seed``: 60, docs/design.md §5.4; see
:data:`driftguard.model.WARN_THRESHOLDS`)."""
SATURATION_HANDOFF = 60.0
"""Unrounded context-saturation points that suggest a handoff on their own (§5.4)."""
REPETITION_HANDOFF = 50.0
"""Unrounded repetition points that suggest a handoff on their own (§5.4)."""
NOT_ENOUGH_MESSAGES = "Not enough messages to score yet."
MIN_MESSAGES = 2


@dataclass(frozen=True, slots=True)
class DriftReport:
    """The result of scoring one session (the docs/design.md §5.5 report, before rendering).

    Attributes:
        score: 0–100 points, ``floor(composite + 0.5)``.
        state: the band the score falls in.
        composite: the unrounded combination of the active factors, 0–100 points.
        factors: each factor's unrounded points keyed by its JSON name;
            ``goal_distance`` is ``None`` when no goal is known.
        weights: the weights applied, normalised over the active factors (sum 1, or all 0
            when no factor is active); ``goal_distance`` is 0.0 when absent.
        messages: user + assistant messages remembered (docs/design.md §5.1).
        handoff_suggested: whether the handoff trigger fired.
        recommendation: one to three plain-English sentences leading with the action and
            naming the evidence behind it.
        session: the parsed session that was scored.
        resolved_by: how the session file was chosen.
        context_window: the nominal window (tokens): the session's own, or one the host,
            the user or a config supplied.
        warn_threshold: the score from which a handoff is suggested.
        scoring: the scoring that produced the factors and the composite.
        usable: where the host compacts (:mod:`driftguard.engine.window`).
        measures: the raw measures behind the calibrated factors; ``None`` under ``seed``.
        preset: the preset the weights came from, when the caller knows it.
        window_source: where ``context_window`` came from.
        window_rule: how the session's host chose ``context_window`` when nobody named
            it, in words (``"assumed"`` windows always have one); ``None`` otherwise.
        budget: the room left before the host compacts, in tokens and turns
            (:mod:`driftguard.compaction.budget`).
        found_in: on the command line, the folder above the working directory whose
            session this is, when the working directory has none of its own
            (:func:`driftguard.sessions.resolve.resolve_on_command_line`); else ``None``.
        remedy: what the recommendation asks for (:data:`~driftguard.scoring.wording.Remedy`):
            a handoff hint follows it only for ``"fresh_start"``, so a loop alone, which a
            fresh session would repeat, gets none (``handoff_suggested`` is unchanged).
        calibration: which calibration the score used, and why not a personal one.
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
    scoring: Scoring = "calibrated"
    usable: UsableWindow | None = None
    measures: Measures | None = None
    preset: str | None = None
    window_source: WindowSource = "file"
    window_rule: str | None = None
    budget: Budget | None = None
    found_in: str | None = None
    remedy: Remedy = "carry_on"
    calibration: CalibrationUse = CALIBRATION_NONE

    @property
    def usable_window(self) -> int:
        """Tokens at which the host compacts (the nominal window when unknown)."""
        return self.usable.tokens if self.usable is not None else self.context_window

    @property
    def tokens_until_compaction(self) -> int:
        """Tokens left before the host compacts (0 when already there)."""
        return max(0, self.usable_window - self.session.context_tokens)


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


def handoff_suggested(values: Mapping[str, float | None], score: int, warn_threshold: int) -> bool:
    """docs/design.md §5.4: saturation ≥ 60, repetition ≥ 50 (unrounded), or score ≥ the
    threshold."""
    saturation = values.get("context_saturation") or 0.0
    repeated = values.get("repetition") or 0.0
    return (
        saturation >= SATURATION_HANDOFF
        or repeated >= REPETITION_HANDOFF
        or (score >= warn_threshold)
    )


def _calibrated_handoff(
    values: Mapping[str, float | None], score: int, warn_threshold: int, points: float | None
) -> bool:
    """Saturation or repetition alone at ``points`` (never when ``None``), or the score at
    the threshold."""
    alone = points is not None and (
        (values.get("context_saturation") or 0.0) >= points
        or (values.get("repetition") or 0.0) >= points
    )
    return alone or score >= warn_threshold


def score_session(
    session: Session,
    *,
    weights: Mapping[str, float],
    usable: UsableWindow,
    goal: str | None = None,
    warn_threshold: int | None = None,
    context_window: int | None = None,
    resolved_by: ResolvedBy = "path",
    scoring: Scoring = "calibrated",
    calibration: Calibration = CALIBRATION,
    preset: str | None = None,
    window_source: WindowSource | None = None,
    features: Features | None = None,
    window_rule: str | None = None,
    personal: Personal | None = None,
    calibration_use: CalibrationUse = CALIBRATION_NONE,
) -> DriftReport:
    """Score one parsed session (docs/design.md §5).

    Args:
        session: the parsed session; its ``messages`` are what the model remembers.
        weights: per-factor weights keyed by the JSON factor names (a preset's, after
            config overrides); they need not sum to 1.
        goal: the session's goal text; ``None`` or blank leaves goal distance absent.
        warn_threshold: score (0–100) from which a handoff is suggested; ``None``: the
            scoring's default (:data:`driftguard.model.WARN_THRESHOLDS`).
        context_window: a nominal window in tokens supplied by the user, a config or the
            host's status line, which overrides the session's own.
        resolved_by: how the session file was chosen, carried into the report.
        scoring: ``"seed"`` (docs/design.md §5 as first written) or ``"calibrated"``.
        usable: where the host compacts (:func:`driftguard.engine.window.usable_window`
            asks the host's adapter; :func:`driftguard.engine.drift.score_session` scores
            with it).
        calibration: the calibrated scoring's constants (tests and the calibration
            benchmark pass others).
        preset: the preset the weights came from, carried into the report.
        window_source: where ``context_window`` came from (default: ``"file"`` without
            one, ``"host"`` with one).
        window_rule: how the host chose ``context_window``, in words, carried into the
            report.
        features: what the factors read from ``session.messages``, when the caller keeps
            them up to date (:class:`driftguard.sessions.incremental.SessionCache`); computed here
            otherwise. Either way the report is the same.
        personal: the user's own calibration (:func:`driftguard.scoring.personal.personal_for`,
            made from ``calibration``): its scales replace ``calibration``'s, and the
            composite is mapped through its state lines (:func:`~.personal.remap`). Ignored
            under ``seed``, which is never calibrated.
        calibration_use: what the report says about the calibration.

    Returns:
        The :class:`DriftReport`; a session with fewer than 2 messages scores 0 with
        every factor 0 (``goal_distance`` ``None``) — unless, under ``"calibrated"``, an
        action loop is going on (:func:`~.loops.loop_in`), which is scored as ever.
    """
    if warn_threshold is None:
        warn_threshold = WARN_THRESHOLDS[scoring]
    window = context_window if context_window and context_window > 0 else session.context_window
    if window_source is None:
        window_source = "file" if window == session.context_window else "host"
    if features is None:
        features = Features.of(session.messages)
    count = features.messages
    has_goal = goal is not None and goal.strip() != ""
    # Under the calibrated scoring an action loop going on is scored however few messages
    # there are: an agent can loop through its first turn without writing a word, and that
    # is when the person most needs to know (the seed, as first written, waits).
    looping = scoring == "calibrated" and loop_in(features.steps) is not None
    if count < MIN_MESSAGES and not looping:
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
            scoring=scoring,
            usable=usable,
            preset=preset,
            window_source=window_source,
            window_rule=window_rule,
            budget=room_left(session, usable.tokens),
            calibration=calibration_use,
        )
    if personal is not None and scoring == "calibrated":
        calibration = personal.calibration
    measures: Measures | None = None
    reasons: Mapping[str, str]
    trouble: Trouble | None = None
    if scoring == "seed":
        replies = features.recent  # every seed factor reads the last 20 replies at most
        values = {
            "context_saturation": factors.context_saturation(session.context_tokens, window),
            "repetition": factors.repetition(replies),
            "length_collapse": factors.length_collapse(replies),
            "goal_distance": goal_distance(goal, replies) if has_goal and goal else None,
            "uncertainty": factors.uncertainty(replies),
            "confidence_drift": factors.confidence_points(features.hedge_rise),
        }
        composite = composite_score(weights, values)
        reasons = seed_reasons(session.context_tokens, window)
    else:
        measures = calibrated.measure(
            session, goal if has_goal else None, calibration=calibration, features=features
        )
        values = calibrated.factor_points(
            measures,
            context_tokens=session.context_tokens,
            usable_window=usable.tokens,
            calibration=calibration,
        )
        composite = combine(weights, values, calibration.form, calibration.power)
        if personal is not None:
            composite = remap(composite, personal.lines)
        reasons = calibrated_reasons(measures, session, usable, calibration)
    score = min(100, max(0, math.floor(composite + 0.5)))
    state = state_for(score)
    if measures is None:
        suggested = handoff_suggested(values, score, warn_threshold)
    else:
        suggested = _calibrated_handoff(values, score, warn_threshold, calibration.handoff_points)
    applied = normalise_weights(weights, values)
    if measures is not None:
        trouble = calibrated_trouble(measures, session, usable, applied)
    advice = advise(state, suggested, values, applied, reasons, trouble)
    return DriftReport(
        score=score,
        state=state,
        composite=composite,
        factors=values,
        weights=applied,
        messages=count,
        handoff_suggested=suggested,
        recommendation=advice.text,
        session=session,
        resolved_by=resolved_by,
        context_window=window,
        warn_threshold=warn_threshold,
        scoring=scoring,
        usable=usable,
        measures=measures,
        preset=preset,
        window_source=window_source,
        window_rule=window_rule,
        budget=room_left(session, usable.tokens),
        remedy=advice.remedy,
        calibration=calibration_use,
    )
