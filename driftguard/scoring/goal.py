"""Goal distance (docs/design.md §5.3, factor 4): TF-IDF cosine similarity of the goal and
the latest replies.

The similarities are scikit-learn's ``TfidfVectorizer()`` (default parameters) and
``cosine_similarity``, computed float for float by :mod:`driftguard.scoring.tfidf`
without importing scikit-learn (0.6–1 s here); scikit-learn is the oracle of the
tests, no longer a dependency.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftguard.scoring.tfidf import cosine_similarities

__all__ = ["GOAL_WINDOW", "goal_distance", "goal_drift", "goal_drift_between", "goal_similarity"]

GOAL_WINDOW = 5
"""How many of the latest assistant messages are compared with the goal (docs/design.md §5.3)."""


def goal_similarity(goal: str, assistant_texts: Sequence[str]) -> float | None:
    """Cosine similarity (0–1) of the goal and the last 5 replies under TF-IDF.

    The two documents are the goal and the last 5 (or fewer) assistant messages joined
    with ``"\\n"``; TF-IDF as scikit-learn's ``TfidfVectorizer()`` with default parameters
    fits it on just those two (:mod:`.tfidf`). Returns ``None`` when there is no assistant
    message yet or the vocabulary is empty (no word of two or more characters in either
    document).
    """
    window = assistant_texts[-GOAL_WINDOW:]
    if not window:
        return None
    similarities = cosine_similarities([goal, "\n".join(window)])
    return None if similarities is None else similarities[0]


def goal_distance(goal: str, assistant_texts: Sequence[str]) -> float:
    """Points for replies that have wandered from the goal (docs/design.md §5.3, factor 4).

    With ``sim`` from :func:`goal_similarity`: ``sim ≥ .5 → 0``;
    ``.3 ≤ sim < .5 → (.5 − sim) / .2 × 30``; ``sim < .3 → 30 + (.3 − sim) / .3 × 70``.
    No assistant message yet, or an empty vocabulary, scores 0.

    Returns:
        0–100 points.
    """
    sim = goal_similarity(goal, assistant_texts)
    if sim is None or sim >= 0.5:
        return 0.0
    if sim >= 0.3:
        return (0.5 - sim) / 0.2 * 30
    return min(100.0, 30 + (0.3 - sim) / 0.3 * 70)


def goal_drift(goal: str, assistant_texts: Sequence[str]) -> float | None:
    """How far the latest replies moved away from the goal since the first ones, 0–1.

    With n assistant messages (n ≥ 2; else ``None``), ``k = min(5, ⌊n/2⌋)``: the documents
    are the goal, the first k replies joined with ``"\\n"`` and the last k joined the same
    way; TF-IDF as scikit-learn's ``TfidfVectorizer()`` with default parameters fits it on
    those three (:mod:`.tfidf`), and the result is
    ``max(0, sim(goal, first) − sim(goal, last))`` with cosine similarities. Measuring
    against the session's own start, a goal text that is long, or a terse reply style, is
    not distance by itself (benchmarks/VALIDITY.md, definition g2).
    ``None`` too when the vocabulary is empty.
    """
    return goal_drift_between(
        goal, assistant_texts[:GOAL_WINDOW], assistant_texts[-GOAL_WINDOW:], len(assistant_texts)
    )


def goal_drift_between(
    goal: str, first: Sequence[str], last: Sequence[str], replies: int
) -> float | None:
    """:func:`goal_drift` from the first and the last :data:`GOAL_WINDOW` (or fewer)
    replies of ``replies`` in all."""
    if replies < 2:
        return None
    k = min(GOAL_WINDOW, replies // 2)
    similarity = cosine_similarities([goal, "\n".join(first[:k]), "\n".join(last[-k:])])
    if similarity is None:  # empty vocabulary
        return None
    return max(0.0, similarity[0] - similarity[1])
