"""Goal distance (design.md §5.3, factor 4): the only place that imports scikit-learn.

scikit-learn is imported lazily, inside :func:`goal_distance`, so scoring without a goal
never pays for it; it ships no type hints, hence the mypy override in pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["GOAL_WINDOW", "goal_distance", "goal_drift", "goal_drift_between", "goal_similarity"]

GOAL_WINDOW = 5
"""How many of the latest assistant messages are compared with the goal (design §5.3)."""


def goal_similarity(goal: str, assistant_texts: Sequence[str]) -> float | None:
    """Cosine similarity (0–1) of the goal and the last 5 replies under TF-IDF.

    The two documents are the goal and the last 5 (or fewer) assistant messages joined
    with ``"\\n"``; scikit-learn's ``TfidfVectorizer()`` with default parameters is fitted
    on just those two. Returns ``None`` when there is no assistant message yet or the
    vocabulary is empty (no word of two or more characters in either document).
    """
    window = assistant_texts[-GOAL_WINDOW:]
    if not window:
        return None
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    try:
        matrix = TfidfVectorizer().fit_transform([goal, "\n".join(window)])
    except ValueError:  # "empty vocabulary; perhaps the documents only contain stop words"
        return None
    return float(cosine_similarity(matrix[0], matrix[1])[0, 0])


def goal_distance(goal: str, assistant_texts: Sequence[str]) -> float:
    """Points for replies that have wandered from the goal (design §5.3, factor 4).

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
    way; scikit-learn's ``TfidfVectorizer()`` with default parameters is fitted on those
    three, and the result is ``max(0, sim(goal, first) − sim(goal, last))`` with cosine
    similarities. Measuring against the session's own start, a goal text that is long, or
    a terse reply style, is not distance by itself (benchmarks/VALIDITY.md, definition g2).
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
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    documents = [goal, "\n".join(first[:k]), "\n".join(last[-k:])]
    try:
        matrix = TfidfVectorizer().fit_transform(documents)
    except ValueError:  # empty vocabulary
        return None
    similarity = cosine_similarity(matrix[0], matrix[1:])[0]
    return max(0.0, float(similarity[0]) - float(similarity[1]))
