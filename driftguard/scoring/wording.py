"""The plain-English parts of a report: factor labels and the recommendation (§5.5).

The recommendation leads with the action (carry on / start fresh soon / start fresh now)
and names the one or two factors behind it. The wording is ours to improve; the field
names and the bands are the contract.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftguard.model import FACTOR_NAMES

__all__ = ["FACTOR_LABELS", "recommend", "top_factors"]

FACTOR_LABELS: Mapping[str, str] = {
    "context_saturation": "context saturation",
    "repetition": "repetition",
    "length_collapse": "length collapse",
    "goal_distance": "goal distance",
    "uncertainty": "uncertainty",
    "confidence_drift": "confidence drift",
}
"""Human labels of the JSON factor names, as the text report prints them."""

NOTABLE = 10.0
"""Factor points from which a factor is worth naming or drawing (design §5.5)."""


def top_factors(
    values: Mapping[str, float | None], weights: Mapping[str, float], limit: int = 2
) -> list[str]:
    """The factors behind the score: the ``limit`` active factors with at least 10 points
    that contribute most (weight × points), largest first; ties keep the design's order."""
    ranked = sorted(
        (name for name in FACTOR_NAMES if (values.get(name) or 0.0) >= NOTABLE),
        key=lambda name: -(values.get(name) or 0.0) * weights.get(name, 0.0),
    )
    return ranked[:limit]


def _reason(name: str, context_tokens: int, context_window: int) -> str:
    if name == "context_saturation":
        percent = min(100, round(100 * context_tokens / context_window)) if context_window else 0
        return f"the context window is {percent}% full"
    return {
        "repetition": "replies repeat earlier ones",
        "length_collapse": "replies keep getting shorter",
        "goal_distance": "the work has wandered from the goal",
        "uncertainty": "the model keeps correcting itself",
        "confidence_drift": "the model hedges more than it did early on",
    }[name]


def recommend(
    state: str,
    handoff: bool,
    values: Mapping[str, float | None],
    weights: Mapping[str, float],
    context_tokens: int,
    context_window: int,
) -> str:
    """One or two sentences: the action first, then the one or two factors behind it
    (see :func:`top_factors`; ``weights`` are the normalised weights applied).

    ``polluted`` → start fresh now; ``drifting`` or a fired handoff trigger → start fresh
    soon; ``warming`` → carry on, but plan a fresh start; ``fresh`` → carry on.
    """
    reasons = [
        _reason(name, context_tokens, context_window) for name in top_factors(values, weights)
    ]
    because = " and ".join(reasons)
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
