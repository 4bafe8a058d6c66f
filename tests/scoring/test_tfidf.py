"""Goal distance's TF-IDF similarities equal scikit-learn's, float for float:
``cosine_similarity(m[0], m[1:])`` of ``m = TfidfVectorizer().fit_transform(documents)``
is the oracle, on every corpus session (the goal against the last replies, and against the
first and last replies as definition g2 compares them) and on random texts."""

from __future__ import annotations

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from driftguard.adapters import parse_session
from driftguard.errors import DriftguardError
from driftguard.scoring.goal import GOAL_WINDOW, goal_distance, goal_drift
from driftguard.scoring.tfidf import cosine_similarities

GOALS = (
    "keep the job scheduler's retry logic correct and its tests green",
    "Fix the parser",
    "ÜBER naïve café — α",
    "!!",
)


def oracle(documents: list[str]) -> list[float] | None:
    try:
        matrix = TfidfVectorizer().fit_transform(documents)
    except ValueError:  # empty vocabulary
        return None
    return [float(value) for value in cosine_similarity(matrix[0], matrix[1:])[0]]


def corpus_replies() -> list[tuple[str, tuple[str, ...]]]:
    if not CORPUS.exists():
        pytest.skip(f"shared corpus not available: {CORPUS} is absent")
    found = []
    for path in sorted(CORPUS.rglob("*.json*")):
        try:
            replies = parse_session(path).assistant_texts
        except DriftguardError:
            continue
        found.append((str(path.relative_to(CORPUS)), replies))
    return found


def test_every_corpus_session_gets_scikit_learns_similarities_for_every_goal() -> None:
    compared = 0
    for name, replies in corpus_replies():
        k = min(GOAL_WINDOW, len(replies) // 2)
        for goal in GOALS:
            latest = [goal, "\n".join(replies[-GOAL_WINDOW:])]
            assert cosine_similarities(latest) == oracle(latest), name
            if k:
                g2 = [goal, "\n".join(replies[:k]), "\n".join(replies[-k:])]
                assert cosine_similarities(g2) == oracle(g2), name
            compared += 1
    assert compared >= 15 * len(GOALS)


def test_goal_distance_and_drift_are_the_seed_definitions_over_scikit_learns_numbers() -> None:
    replies = ["I changed the retry logic.", "Tests are green now.", "The queue is drained."] * 3
    goal = GOALS[0]
    sim = oracle([goal, "\n".join(replies[-GOAL_WINDOW:])])
    assert sim is not None
    expected = 0.0 if sim[0] >= 0.5 else min(100.0, 30 + (0.3 - sim[0]) / 0.3 * 70)
    if 0.3 <= sim[0] < 0.5:
        expected = (0.5 - sim[0]) / 0.2 * 30
    assert goal_distance(goal, replies) == expected
    k = min(GOAL_WINDOW, len(replies) // 2)
    pair = oracle([goal, "\n".join(replies[:k]), "\n".join(replies[-k:])])
    assert pair is not None
    assert goal_drift(goal, replies) == max(0.0, pair[0] - pair[1])


WORDS = st.sampled_from(
    [
        "retry",
        "Retry",
        "RETRY",
        "tests",
        "green",
        "the",
        "a",
        "x1",
        "_",
        "__init__",
        "42",
        "İstanbul",
        "ǅemal",
        "straße",
        "ΣΊΣΥΦΟΣ",
        "café",
        "naïve",
        "日本語",
        "x",
        "ok",
        "e",
    ]
)
TEXTS = st.one_of(
    st.lists(WORDS, max_size=30).map(" ".join),
    st.text(max_size=40),
    st.lists(st.one_of(WORDS, st.sampled_from([".", ",", "\n", "—", "'s", "-"])), max_size=30).map(
        "".join
    ),
)


@settings(max_examples=300, deadline=None)
@given(documents=st.lists(TEXTS, min_size=2, max_size=3))
def test_random_documents_get_scikit_learns_similarities(documents: list[str]) -> None:
    assert cosine_similarities(documents) == oracle(documents)


def test_documents_without_a_word_of_two_characters_have_no_similarity() -> None:
    assert cosine_similarities(["a", "b !", "?"]) is None
    assert oracle(["a", "b !", "?"]) is None


def test_goal_scoring_never_imports_scikit_learn() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from driftguard.scoring.goal import goal_distance, goal_drift\n"
        "goal_distance('fix the tests', ['I fixed the tests.'] * 6)\n"
        "goal_drift('fix the tests', ['I fixed the tests.'] * 6)\n"
        "print('sklearn' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
