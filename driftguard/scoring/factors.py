"""The six drift factors, each a pure function returning 0–100 points (docs/design.md §5.3).

The formulas and constants are the seed design's, made exact in docs/design.md §5.3; they are
a contract checked against an independent implementation, so they are implemented
literally here. Inputs are the remembered assistant messages' text, oldest first
(:attr:`driftguard.model.Session.assistant_texts`), or token counts.

=====================  ======  =====================================================
factor                 weight  what it measures
=====================  ======  =====================================================
context_saturation     .37     how full the context window is (tokens / tokens)
repetition             .37     word-trigram overlap of the last 10 replies
length_collapse        .15     least-squares slope of the last 15 reply lengths
goal_distance          .08     TF-IDF cosine distance of the last 5 replies to the goal
uncertainty            .02     self-corrections in the last 20 replies
confidence_drift       .01     rise of the hedging rate from the first to the last third
=====================  ======  =====================================================

(Weights are those of the ``coding`` preset, docs/design.md §5.4.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from driftguard.text import count_phrases, folded, remove_code, word_trigrams

__all__ = [
    "HEDGE_PHRASES",
    "UNCERTAINTY_PHRASES",
    "confidence_drift",
    "confidence_points",
    "context_saturation",
    "hedge_features",
    "hedge_rise",
    "length_collapse",
    "length_slope",
    "repetition",
    "self_corrections",
    "trigram_overlap",
    "uncertainty",
]

UNCERTAINTY_PHRASES: tuple[str, ...] = (
    "I was wrong",
    "I was mistaken",
    "let me correct",
    "I made an error",
    "I made a mistake",
    "my mistake",
    "I apologize",
    "my apologies",
    "I stand corrected",
    "correction:",
    "I misread",
    "I misunderstood",
    "that was incorrect",
    "let me fix that",
)
"""Self-correction phrases counted by :func:`uncertainty` (docs/design.md §5.3, factor 5)."""

HEDGE_PHRASES: tuple[str, ...] = (
    "perhaps",
    "maybe",
    "might",
    "could",
    "possibly",
    "probably",
    "likely",
    "seems",
    "I think",
    "I believe",
    "not sure",
    "unclear",
)
"""Hedging phrases counted by :func:`confidence_drift` (docs/design.md §5.3, factor 6)."""

REPETITION_WINDOW = 10
LENGTH_WINDOW = 15
UNCERTAINTY_WINDOW = 20
FEATURE_CACHE_SIZE = 16_384
"""Messages whose per-text features are memoised, least recently used first out: about
100 bytes each plus the text itself, which the cached session usually holds anyway
(a 45 MB Claude session remembers ~4 700 assistant messages)."""


def context_saturation(context_tokens: int, context_window: int) -> float:
    """Points for how full the context window is (docs/design.md §5.3, factor 1).

    ``fill = min(1, context_tokens / context_window)``; below .5 it scores ``fill × 20``,
    from .5 to .75 ``10 + (fill − .5) × 120``, from .75 ``40 + (fill − .75) × 240``,
    capped at 100. So 50 % full is 10 points, 75 % is 40 and 91.7 % reaches 80.

    Args:
        context_tokens: tokens in the context at the latest request (≥ 0).
        context_window: the model's context window in tokens (> 0; 0 scores 0).

    Returns:
        0–100 points.
    """
    if context_window <= 0:
        return 0.0
    fill = min(1.0, max(0, context_tokens) / context_window)
    if fill < 0.5:
        points = fill * 20
    elif fill < 0.75:
        points = 10 + (fill - 0.5) * 120
    else:
        points = 40 + (fill - 0.75) * 240
    return min(100.0, points)


def trigram_overlap(assistant_texts: Sequence[str]) -> float:
    """Word-trigram overlap of the last 10 assistant messages, 0–1 (docs/design.md §5.3, factor 2).

    Each message's *set* of word trigrams (lower-cased :meth:`str.split` tokens, code
    kept); ``all = Σ |setᵢ|``, ``unique = |∪ setᵢ|``, overlap ``1 − unique / all``. Fewer
    than 3 messages, or no trigram at all, give 0. Ten identical replies give 0.9.
    """
    window = assistant_texts[-REPETITION_WINDOW:]
    if len(window) < 3:
        return 0.0
    sets = [_reply_trigrams(text) for text in window]
    total = sum(len(s) for s in sets)
    if total == 0:
        return 0.0
    unique = len(frozenset().union(*sets))
    return 1 - unique / total


def repetition(assistant_texts: Sequence[str]) -> float:
    """Points for replies repeating each other (docs/design.md §5.3, factor 2, the seed's scale):
    ``min(100, overlap × 180)`` with the overlap of :func:`trigram_overlap`.

    Returns:
        0–100 points.
    """
    return min(100.0, trigram_overlap(assistant_texts) * 180)


def length_slope(assistant_texts: Sequence[str]) -> float:
    """Least-squares slope of the last 15 reply lengths, characters per message.

    The lengths (``len(str)``) of the last 15 assistant messages, fitted against their index
    0…n−1 (``numpy.polyfit``, degree 1); fewer than 5 messages give 0.
    """
    window = assistant_texts[-LENGTH_WINDOW:]
    if len(window) < 5:
        return 0.0
    import numpy as np  # here, not at import: the status line and hooks import this module

    lengths = np.array([len(text) for text in window], dtype=float)
    return float(np.polyfit(np.arange(len(window), dtype=float), lengths, 1)[0])


def length_collapse(assistant_texts: Sequence[str]) -> float:
    """Points for replies getting shorter (docs/design.md §5.3, factor 3, the seed's scale).

    A negative :func:`length_slope` of ``s`` characters per message gives
    ``min(100, −s × 0.4)`` points; a flat or rising one gives 0.

    Returns:
        0–100 points.
    """
    slope = length_slope(assistant_texts)
    if slope >= 0:
        return 0.0
    return min(100.0, -slope * 0.4)


def self_corrections(assistant_texts: Sequence[str]) -> int:
    """Matches of :data:`UNCERTAINTY_PHRASES` in the last 20 assistant messages, fenced code
    removed (docs/design.md §5.2 phrase rule, §5.3 factor 5)."""
    return sum(_corrections_in(text) for text in assistant_texts[-UNCERTAINTY_WINDOW:])


@lru_cache(maxsize=2 * UNCERTAINTY_WINDOW)
def _corrections_in(text: str) -> int:
    """:data:`UNCERTAINTY_PHRASES` matches in one reply, fenced code removed. Memoised by
    text: the window slides one reply per turn, so a session scored turn by turn (the
    report's timeline, a server called every turn) would otherwise count each reply 20
    times. Measured on the 45 MB benchmark session, all 2,094 turns read and scored by
    :func:`driftguard.engine.drift.series`: 1.12 s with this memo and :func:`_reply_trigrams`'s,
    1.82 s without them (median of 3)."""
    return count_phrases(remove_code(text), UNCERTAINTY_PHRASES)


@lru_cache(maxsize=2 * REPETITION_WINDOW)
def _reply_trigrams(text: str) -> frozenset[tuple[str, str, str]]:
    """:func:`~driftguard.text.word_trigrams` of one reply, memoised by text for the
    reason :func:`_corrections_in` is."""
    return word_trigrams(text)


def uncertainty(assistant_texts: Sequence[str]) -> float:
    """Points for self-corrections (docs/design.md §5.3, factor 5, the seed's scale): 25 points a
    :func:`self_corrections` match, capped at 100.

    Returns:
        0–100 points.
    """
    return min(100.0, self_corrections(assistant_texts) * 25.0)


@lru_cache(maxsize=FEATURE_CACHE_SIZE)
def hedge_features(text: str) -> tuple[int, int]:
    """``(hedge matches, words)`` of one message with fenced code removed (factor 6).

    Memoised by text: :func:`confidence_drift` reads every remembered assistant message on
    every call, and a session re-scored as it grows repeats all but the newest ones (the
    incremental parser hands back the same ``str`` objects, whose hash is cached, so a hit
    costs one dictionary lookup).
    """
    prose = remove_code(text)
    fold = folded(prose)  # lower-cased with the same whitespace: split like words(prose)
    return count_phrases(prose, HEDGE_PHRASES, folded_text=fold), len(fold.split())


_hedge_features = hedge_features


def _hedge_rate(texts: Sequence[str]) -> float:
    """Hedge matches per 100 words, pooled over ``texts`` with code removed (0 if no words)."""
    hedges = 0
    total_words = 0
    for text in texts:
        found, count = _hedge_features(text)
        hedges += found
        total_words += count
    return hedges / total_words * 100 if total_words else 0.0


def hedge_rise(assistant_texts: Sequence[str]) -> float:
    """How much the hedging rate rose, in hedges per 100 words (docs/design.md §5.3, factor 6).

    With n ≥ 6 remembered assistant messages (else 0): the hedge rate (matches of
    :data:`HEDGE_PHRASES` per 100 words, pooled, fenced code removed) of the last ⌈n/3⌉
    messages minus that of the first ⌈n/3⌉; negative when hedging fell.
    """
    n = len(assistant_texts)
    if n < 6:
        return 0.0
    third = math.ceil(n / 3)
    early = _hedge_rate(assistant_texts[:third])
    late = _hedge_rate(assistant_texts[-third:])
    return late - early


def confidence_drift(assistant_texts: Sequence[str]) -> float:
    """Points for hedging that grows over the session (docs/design.md §5.3, factor 6, the seed's
    scale): :func:`hedge_rise` × 20, clamped to 0–100.

    Returns:
        0–100 points.
    """
    return confidence_points(hedge_rise(assistant_texts))


def confidence_points(rise: float) -> float:
    """Confidence-drift points (the seed's scale) for a :func:`hedge_rise` of ``rise``:
    ``rise × 20``, clamped to 0–100."""
    return min(100.0, max(0.0, rise * 20))
