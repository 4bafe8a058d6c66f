"""Goal distance (design.md §5.3, factor 4): the only place that imports scikit-learn.

scikit-learn is imported lazily, inside :func:`goal_distance`, so scoring without a goal
never pays for it; it ships no type hints, hence the mypy override in pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["GOAL_WINDOW", "goal_distance", "goal_similarity"]

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
