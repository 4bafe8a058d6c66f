"""Numbers and times as reports show them: factor values rounded half up to one decimal,
bars, counts, UTC times. For display only (scores are computed from unrounded values).

Standard library only and nothing of the scoring itself, so the history, the hooks and the
handoff files can format a value without importing the factors.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

__all__ = [
    "BAR_CELLS",
    "bar",
    "display_factors",
    "display_round",
    "iso_utc",
    "plural",
    "when_utc",
]

BAR_CELLS = 10
"""Cells of a factor bar: one per 10 points."""


def display_round(value: float) -> float:
    """``value`` rounded half up to one decimal (12.25 → 12.3), for display only."""
    return float(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def display_factors(factors: Mapping[str, float | None]) -> dict[str, float | None]:
    """Each factor's points by name, :func:`display_round`-ed (``None`` stays ``None``):
    what the JSON report, the history, the caches and the report page show."""
    return {
        name: None if value is None else display_round(value) for name, value in factors.items()
    }


def bar(points: float) -> str:
    """A 10-cell bar of ``█`` and ``░`` for 0–100 points, one cell per 10 points (half up)."""
    filled = min(
        BAR_CELLS, max(0, int(Decimal(repr(points / 10)).quantize(Decimal(1), ROUND_HALF_UP)))
    )
    return "█" * filled + "░" * (BAR_CELLS - filled)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``"1 message"``, ``"2 messages"``: the count and the noun in the right number
    (``nouns`` when the plural is not the noun plus ``s``)."""
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


def iso_utc(ts: float) -> str:
    """``ts`` (seconds since the epoch) as ISO 8601 UTC to the second: ``2026-11-30T10:02:00Z``."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def when_utc(ts: float) -> str:
    """``ts`` (seconds since the epoch) for people: ``2026-11-30 10:02 UTC``."""
    return f"{iso_utc(ts)[:16].replace('T', ' ')} UTC"
