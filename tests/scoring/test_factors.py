"""Each factor against values computed by hand from docs/design.md §5.3 (arithmetic in comments)."""

from __future__ import annotations

import math

import pytest

from driftguard.scoring import factors
from driftguard.scoring.goal import goal_distance, goal_similarity
from driftguard.text import count_phrases, remove_code, word_trigrams

# --- context saturation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "window", "expected"),
    [
        (0, 200_000, 0.0),
        (50_000, 200_000, 5.0),  # fill .25 < .5 → .25 × 20 = 5
        (100_000, 200_000, 10.0),  # fill .5 → 10 + 0 × 120 = 10
        (120_000, 200_000, 22.0),  # fill .6 → 10 + .1 × 120 = 22
        (150_000, 200_000, 40.0),  # fill .75 → 40 + 0 × 240 = 40
        (160_000, 200_000, 52.0),  # fill .8 → 40 + .05 × 240 = 52
        (190_000, 200_000, 88.0),  # fill .95 → 40 + .2 × 240 = 88
        (200_000, 200_000, 100.0),  # fill 1 → 40 + .25 × 240 = 100
        (450_000, 200_000, 100.0),  # fill capped at 1
        (524_288, 1_048_576, 10.0),  # Gemini half full → 10
    ],
)
def test_context_saturation_follows_the_three_piece_curve(
    tokens: int, window: int, expected: float
) -> None:
    assert factors.context_saturation(tokens, window) == pytest.approx(expected)


def test_context_saturation_of_a_zero_window_is_zero() -> None:
    assert factors.context_saturation(1000, 0) == 0.0


# --- repetition ---------------------------------------------------------------------


def test_repetition_needs_three_replies() -> None:
    assert factors.repetition(["the same words here", "the same words here"]) == 0.0


def test_repetition_counts_shared_trigrams_over_all_trigrams() -> None:
    # "a b c d" has trigrams {abc, bcd}; "a b c e" {abc, bce}; "x y z" {xyz}.
    # all = 2 + 2 + 1 = 5, unique = |{abc, bcd, bce, xyz}| = 4,
    # overlap = 1 − 4/5 = .2 → .2 × 180 = 36.
    assert factors.repetition(["a b c d", "A B C e", "x y z"]) == pytest.approx(36.0)


def test_repetition_reads_only_the_last_ten_replies() -> None:
    distinct = [f"w{i} v{i} u{i}" for i in range(10)]
    # Two identical replies before the window do not count: the last ten share nothing.
    assert factors.repetition(["same old words", "same old words", *distinct]) == 0.0


def test_repetition_uses_sets_so_a_reply_repeating_itself_is_not_repetition() -> None:
    # "a b c a b c" has trigrams {abc, bca, cab}: a set of 3; three distinct such replies.
    replies = ["a b c a b c", "d e f d e f", "g h i g h i"]
    assert factors.repetition(replies) == 0.0


def test_repetition_of_replies_without_trigrams_is_zero() -> None:
    assert factors.repetition(["ok", "fine", "yes", "two words"]) == 0.0


# --- length collapse ----------------------------------------------------------------


def test_length_collapse_needs_five_replies() -> None:
    assert factors.length_collapse(["x" * 1000, "x" * 800, "x" * 600, "x" * 400]) == 0.0


def test_length_collapse_is_point_four_per_character_of_negative_slope() -> None:
    # Lengths 1000, 800, 600, 400, 200 against 0…4: slope exactly −200 characters per
    # message → −(−200) × .4 = 80.
    replies = ["x" * n for n in (1000, 800, 600, 400, 200)]
    assert factors.length_collapse(replies) == pytest.approx(80.0)


def test_length_collapse_fits_a_least_squares_line() -> None:
    # Lengths 100, 300, 100, 300, 0 at x = 0…4: x̄ = 2, ȳ = 160;
    # Σ(x−x̄)(y−ȳ) = (−2)(−60) + (−1)(140) + 0 + (1)(140) + (2)(−160) = 120 − 140 + 140 − 320 = −200;
    # Σ(x−x̄)² = 4 + 1 + 0 + 1 + 4 = 10 → slope −20 → 20 × .4 = 8.
    replies = ["x" * n for n in (100, 300, 100, 300, 0)]
    assert factors.length_collapse(replies) == pytest.approx(8.0)


def test_length_collapse_of_growing_replies_is_zero() -> None:
    assert factors.length_collapse(["x" * n for n in (10, 20, 30, 40, 50)]) == 0.0


def test_length_collapse_is_capped_at_100_and_reads_the_last_fifteen() -> None:
    # 20 replies, the first five tiny (outside the window), then 15 falling by 1000 a step:
    # slope −1000 → 400 points, capped at 100.
    replies = ["x"] * 5 + ["x" * (15_000 - 1000 * i) for i in range(15)]
    assert factors.length_collapse(replies) == 100.0


def test_length_collapse_counts_code_points_not_bytes() -> None:
    # "é" is one code point (two UTF-8 bytes): lengths 4, 3, 2, 1, 0 → slope −1 → .4.
    replies = ["é" * n for n in (4, 3, 2, 1, 0)]
    assert factors.length_collapse(replies) == pytest.approx(0.4)


# --- uncertainty --------------------------------------------------------------------


def test_uncertainty_scores_twenty_five_points_a_self_correction() -> None:
    replies = [
        "I was wrong about the port.",  # 1
        "My mistake, and my apologies.",  # "my mistake" + "my apologies" = 2
        "Correction: the file is config.py.",  # "correction:" = 1
    ]
    # 4 hits × 25 = 100
    assert factors.uncertainty(replies) == 100.0
    assert factors.uncertainty(replies[:1]) == 25.0


def test_uncertainty_ignores_phrases_inside_fenced_code() -> None:
    reply = "Here it is:\n```python\n# I was wrong\n```\nAll good."
    assert factors.uncertainty([reply]) == 0.0


def test_uncertainty_requires_word_boundaries() -> None:
    # "my mistakes" continues with a word character, so "my mistake" does not match.
    assert factors.uncertainty(["These were my mistakes."]) == 0.0
    # Phrase words may be separated by any whitespace, case-insensitively.
    assert factors.uncertainty(["I  WAS\nwrong"]) == 25.0


def test_uncertainty_reads_only_the_last_twenty_replies() -> None:
    assert factors.uncertainty(["I misread it."] + ["fine"] * 20) == 0.0


# --- confidence drift ---------------------------------------------------------------


def test_confidence_drift_needs_six_replies() -> None:
    assert factors.confidence_drift(["sure thing"] * 4 + ["maybe maybe"]) == 0.0


def test_confidence_drift_compares_the_hedge_rate_of_the_last_and_first_thirds() -> None:
    # n = 6 → ⌈6/3⌉ = 2. Early: "this is definite" ×2 → 0 hedges / 6 words → rate 0.
    # Late: "maybe this works" + "I think it might work" → hedges: maybe, I think, might = 3;
    # words 3 + 5 = 8 → rate 3/8 × 100 = 37.5. (37.5 − 0) × 20 = 750 → clamped 100.
    replies = (
        ["this is definite"] * 2
        + ["neutral text"] * 2
        + [
            "maybe this works",
            "I think it might work",
        ]
    )
    assert factors.confidence_drift(replies) == 100.0


def test_confidence_drift_small_rise_is_twenty_points_per_unit_of_rate() -> None:
    # n = 6, thirds of 2. Early: 100 words, 0 hedges → 0. Late: 200 words, 1 "perhaps" →
    # rate 1/200 × 100 = .5 → (.5 − 0) × 20 = 10.
    plain = " ".join(["word"] * 50)
    hedged = " ".join(["word"] * 49 + ["perhaps"])
    replies = [plain, plain, "mid", "mid", hedged, " ".join(["word"] * 100)]
    # Late group: hedged (50 words, 1 hedge) + 100 words → 1/150 × 100 = .6667 → × 20 = 13.33
    assert factors.confidence_drift(replies) == pytest.approx(1 / 150 * 100 * 20)


def test_confidence_drift_never_goes_below_zero() -> None:
    replies = ["maybe perhaps"] * 2 + ["x y"] * 4
    assert factors.confidence_drift(replies) == 0.0


def test_confidence_drift_uses_ceil_of_a_third_so_groups_can_overlap() -> None:
    # n = 7 → ⌈7/3⌉ = 3: early = replies 0–2, late = replies 4–6.
    replies = ["sure"] * 3 + ["middle"] + ["maybe"] * 3
    # late rate 3 hedges / 3 words × 100 = 100 → (100 − 0) × 20 → clamped 100.
    assert factors.confidence_drift(replies) == 100.0
    assert math.ceil(7 / 3) == 3


def test_confidence_drift_ignores_hedges_in_code() -> None:
    code = "```\nmaybe()\n```"
    replies = ["plain words"] * 4 + [f"done\n{code}", f"done\n{code}"]
    assert factors.confidence_drift(replies) == 0.0


# --- goal distance ------------------------------------------------------------------


def test_goal_distance_is_zero_when_replies_stay_on_the_goal() -> None:
    goal = "add rate limiting to the login endpoint"
    replies = ["I added rate limiting to the login endpoint with a token bucket."]
    sim = goal_similarity(goal, replies)
    assert sim is not None
    assert sim >= 0.5
    assert goal_distance(goal, replies) == 0.0


def test_goal_distance_of_unrelated_replies_is_one_hundred() -> None:
    # No shared term → cosine similarity 0 → 30 + (.3 − 0)/.3 × 70 = 100.
    assert goal_distance("rate limiting", ["bananas are yellow fruit"]) == pytest.approx(100.0)


def test_goal_distance_maps_similarity_through_the_two_pieces() -> None:
    # Documents "alpha beta" and "alpha gamma": the vocabulary is alpha, beta, gamma.
    # Smoothed idf = ln((1+n)/(1+df)) + 1 with n = 2: alpha df 2 → 1; beta, gamma df 1 →
    # ln(3/2) + 1 = 1.405465. Rows (1, 1.405465, 0) and (1, 0, 1.405465), each of norm
    # √(1 + 1.975332) = 1.724915; cosine = 1 / 2.975332 = .336097.
    # .3 ≤ sim < .5 → (.5 − .336097)/.2 × 30 = 24.5854.
    sim = goal_similarity("alpha beta", ["alpha gamma"])
    assert sim == pytest.approx(1 / (1 + (math.log(1.5) + 1) ** 2))
    assert goal_distance("alpha beta", ["alpha gamma"]) == pytest.approx((0.5 - sim) / 0.2 * 30)
    assert goal_distance("alpha beta", ["alpha gamma"]) == pytest.approx(24.5854, abs=1e-3)


def test_goal_distance_without_replies_or_vocabulary_is_zero() -> None:
    assert goal_distance("ship it", []) == 0.0
    # TfidfVectorizer's default token pattern needs two word characters: "a", "!" → empty.
    assert goal_distance("a", ["!"]) == 0.0


def test_goal_distance_joins_only_the_last_five_replies() -> None:
    goal = "migrate the database schema"
    off_topic = ["sunny weather outside today"] * 5
    assert goal_distance(goal, ["migrate the database schema now", *off_topic]) == pytest.approx(
        100.0
    )


# --- text conventions ---------------------------------------------------------------


def test_unclosed_fence_runs_to_the_end_of_the_message() -> None:
    assert remove_code("before\n~~~\ncode\nmore code") == "before\n"


def test_fences_are_lines_as_in_commonmark() -> None:
    # Backticks in the middle of a line open no block: the prose after them stays.
    assert remove_code("a ```x``` b `inline` c") == "a ```x``` b `inline` c"
    assert factors.uncertainty(["Use the ``` fence syntax. I was wrong about the flag."]) == 25.0
    # A four-backtick block holds a three-backtick one; it ends at four backticks.
    nested = "````md\n```py\nraise ValueError('I made a mistake')\n```\n````\nDone."
    assert remove_code(nested) == "Done."
    # Up to three spaces of indentation, and a longer closing fence, still count.
    assert remove_code("a\n   ```\nx\n  ````  \nb") == "a\nb"
    # A tilde fence is not closed by backticks.
    assert remove_code("~~~\nx\n```\ny") == ""


def test_phrase_ending_in_punctuation_has_no_lookahead() -> None:
    assert count_phrases("correction:x", ["correction:"]) == 1
    assert count_phrases("xcorrection:", ["correction:"]) == 0


def test_trigrams_are_lower_cased_split_tokens() -> None:
    assert word_trigrams("The cat  SAT down") == {("the", "cat", "sat"), ("cat", "sat", "down")}
