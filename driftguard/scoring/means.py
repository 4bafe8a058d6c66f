"""The means that turn factor values into one composite, 0–100 (docs/design.md §5.4 and
``benchmarks/VALIDITY.md`` rule v2): the seed's weighted mean, the weighted power mean and
the calibrated composite's two forms.

Pure arithmetic over ``{factor name: points}`` mappings, shared by the score
(:mod:`.composite`) and the personal state lines (:mod:`.personal`), which combine samples
as the score does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from driftguard.model import FACTOR_NAMES

__all__ = ["combine", "composite_score", "power_mean"]


def composite_score(weights: Mapping[str, float], values: Mapping[str, float | None]) -> float:
    """``Σ wᵢ·fᵢ / Σ wᵢ`` over the active factors (0 when their weights sum to 0), 0–100
    (docs/design.md §5.4, the seed's composite)."""
    active = [
        (weights.get(name, 0.0), value)
        for name in FACTOR_NAMES
        if (value := values.get(name)) is not None
    ]
    total = sum(w for w, _ in active)
    if total <= 0:
        return 0.0
    return sum(w * v for w, v in active) / total


def power_mean(
    weights: Mapping[str, float], values: Mapping[str, float | None], power: float
) -> float:
    """The weighted power mean ``(Σ wᵢ fᵢᵖ / Σ wᵢ)^(1/p)`` over the active factors, 0–100.

    ``power`` 1 is :func:`composite_score` itself; ``math.inf`` is the weighted maximum
    ``maxᵢ (wᵢ / max w)·fᵢ`` (a factor weighing half the heaviest counts half). Factors of
    weight 0 never move it; it always lies between the smallest and the largest active
    factor of positive weight (0 when no such factor exists).
    """
    active = [
        (weight, value)
        for name in FACTOR_NAMES
        if (value := values.get(name)) is not None and (weight := weights.get(name, 0.0)) > 0
    ]
    if not active:
        return 0.0
    low, high = min(v for _, v in active), max(v for _, v in active)
    if power == 1:
        mean = composite_score(weights, values)
    elif math.isinf(power):
        heaviest = max(w for w, _ in active)
        mean = max(w / heaviest * v for w, v in active)
    else:
        total = sum(w for w, _ in active)
        mean = math.pow(sum(w / total * math.pow(v, power) for w, v in active), 1 / power)
    # floating point (weights near the smallest float, say) may step outside the bounds
    return min(max(mean, low), high)


def combine(
    weights: Mapping[str, float], values: Mapping[str, float | None], form: str, power: float
) -> float:
    """The calibrated composite, 0–100 (``benchmarks/VALIDITY.md`` rule v2).

    Form ``"A"``: :func:`power_mean` of every active factor. Form ``"B"``: the larger of
    context saturation and the power mean of the other active factors, each side scaled by
    its weight relative to the heaviest (a side's weight is its largest factor weight):
    ``max(s · wₛ/w*, M_p(others) · w_o/w*)``. With equal weights that is
    ``max(s, M_p(others))``. Either form lies between the smallest and the largest active
    factor of positive weight; a weight of 0 never moves it.
    """
    if form == "A":
        return power_mean(weights, values, power)
    saturation = values.get("context_saturation")
    w_sat = weights.get("context_saturation", 0.0) if saturation is not None else 0.0
    others = {name: v for name, v in values.items() if name != "context_saturation"}
    w_others = max(
        (weights.get(name, 0.0) for name, v in others.items() if v is not None), default=0.0
    )
    heaviest = max(w_sat, w_others)
    if heaviest <= 0:
        return 0.0
    sides = []
    if w_sat > 0 and saturation is not None:
        sides.append(w_sat / heaviest * saturation)
    if w_others > 0:
        sides.append(w_others / heaviest * power_mean(weights, others, power))
    return max(sides)
