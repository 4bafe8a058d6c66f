"""The plain-English parts of a report: factor labels and the recommendation (§5.5).

The recommendation leads with the action (carry on / start fresh soon / start fresh now)
and names the one or two factors behind it. The wording is ours to improve; the field
names and the bands are the contract.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftguard.compaction.window import UsableWindow
from driftguard.labels import HOST_IN_TEXT
from driftguard.model import FACTOR_NAMES, Session
from driftguard.scoring.calibrated import (
    DRIFTING,
    Calibration,
    Measures,
    fill_points,
    linear_points,
    rot_points,
)
from driftguard.scoring.loops import describe_loop

__all__ = ["calibrated_reasons", "recommend", "seed_reasons", "top_factors"]

NOTABLE = 10.0
"""Factor points from which a factor is worth naming or drawing (design §5.5)."""


def top_factors(
    values: Mapping[str, float | None], weights: Mapping[str, float], limit: int = 2
) -> list[str]:
    """The factors behind the score: the ``limit`` active factors of positive weight with at
    least 10 points that contribute most (weight × points), largest first; ties keep the
    design's order. A factor of weight 0 never moves the score, so it is never named."""
    ranked = sorted(
        (
            name
            for name in FACTOR_NAMES
            if (values.get(name) or 0.0) >= NOTABLE and weights.get(name, 0.0) > 0
        ),
        key=lambda name: -(values.get(name) or 0.0) * weights.get(name, 0.0),
    )
    return ranked[:limit]


def seed_reasons(context_tokens: int, context_window: int) -> dict[str, str]:
    """What each factor's name stands for in a recommendation, for the seed scoring."""
    percent = min(100, round(100 * context_tokens / context_window)) if context_window else 0
    return {
        "context_saturation": f"the context window is {percent}% full",
        "repetition": "replies repeat earlier ones",
        "length_collapse": "replies keep getting shorter",
        "goal_distance": "the work has wandered from the goal",
        "uncertainty": "the model keeps correcting itself",
        "confidence_drift": "the model hedges more than it did early on",
    }


def host_name(cli: str) -> str:
    """How the text names the host that wrote a session (``"the host"`` for another)."""
    return HOST_IN_TEXT.get(cli, "the host")


def _thousands(tokens: float) -> str:
    """``310k`` for 310,000 tokens; ``8.5k`` below 10,000; the number itself below 1,000."""
    if tokens >= 10_000:
        return f"{round(tokens / 1000):,}k"
    if tokens >= 1_000:
        return f"{tokens / 1000:.1f}k".replace(".0k", "k")
    return f"{round(tokens)}"


def calibrated_reasons(
    measures: Measures, session: Session, usable: UsableWindow, calibration: Calibration
) -> dict[str, str]:
    """The evidence behind each factor, in words a user can act on and check, for the
    calibrated scoring: "the context holds 161k tokens, 5.7k before Claude Code compacts
    it", "the conversation has added 46k tokens of context, past the 35k that 95% of
    successful agent runs stayed under", "`npm test` failed 3 times in a row"."""
    added = measures.conversation_tokens
    g61 = calibration.g61
    left = max(0, usable.tokens - session.context_tokens)
    fill = fill_points(session.context_tokens, usable.tokens)
    rot = rot_points(added, g61)
    host = host_name(session.cli)
    if fill >= DRIFTING or (fill >= rot and fill > 0):
        context = (
            f"the context holds {_thousands(session.context_tokens)} tokens, "
            f"{_thousands(left)} before {host} compacts it"
        )
    else:
        where = "well past" if added >= 2 * g61 else ("past" if added >= g61 else "nearing")
        context = (
            f"the conversation has added {_thousands(added)} tokens of context, {where} the "
            f"{_thousands(g61)} that 95% of successful agent runs stayed under"
        )
    loop = measures.loop
    text_points = linear_points(measures.overlap, calibration.overlap61)
    shared = f"the last replies share {measures.overlap:.0%} of their phrases"
    if loop is None or loop.points <= 0:
        repetition = shared
    elif loop.points >= text_points:
        repetition = describe_loop(loop) + (f"; {shared}" if text_points >= NOTABLE else "")
    else:
        repetition = f"{shared}; {describe_loop(loop)}"
    shrink = -measures.slope
    corrections = measures.corrections
    return {
        "context_saturation": context,
        "repetition": repetition,
        "length_collapse": f"replies are getting shorter, by about {shrink:,.0f} characters each",
        "goal_distance": "the latest replies have moved away from the goal",
        "uncertainty": (
            f"the model corrected itself {corrections} time{'s' * (corrections != 1)} "
            "in its last 20 replies"
        ),
        "confidence_drift": (
            f"the model hedges more than early on (+{measures.hedge_rise:.1f} per 100 words)"
        ),
    }


def recommend(
    state: str,
    handoff: bool,
    values: Mapping[str, float | None],
    weights: Mapping[str, float],
    reasons: Mapping[str, str],
) -> str:
    """One or two sentences: the action first, then the one or two factors behind it
    (see :func:`top_factors`; ``weights`` are the normalised weights applied), each named by
    its entry in ``reasons``.

    ``polluted`` → start fresh now; ``drifting`` or a fired handoff trigger → start fresh
    soon; ``warming`` → carry on, but plan a fresh start; ``fresh`` → carry on.
    """
    because = "; ".join(reasons[name] for name in top_factors(values, weights))
    if state == "polluted":
        action = "Start fresh now"
    elif state == "drifting" or handoff:
        action = "Start fresh soon"
    elif state == "warming":
        action = "Carry on, but plan a fresh start"
    else:
        return (
            f"Carry on: the session is healthy, though {because}."
            if because
            else ("Carry on: the session is healthy.")
        )
    if not because:
        return f"{action}."
    sentence = f"{action}: {because}."
    if action != "Carry on, but plan a fresh start":
        sentence += " A handoff carries the work over to a clean context."
    return sentence
