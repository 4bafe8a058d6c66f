"""Calibration on the user's own sessions (``benchmarks/VALIDITY.md`` §7.3): the
depth bins, the percentile scales and state lines, computed by hand."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_composite import make_session

from driftguard.engine.drift import score_session
from driftguard.model import FACTOR_NAMES
from driftguard.presets import load_preset
from driftguard.scoring.calibrated import CALIBRATION
from driftguard.scoring.personal import (
    Reference,
    Sample,
    depth_bin,
    family_of,
    percentile,
    personal_for,
    reference_samples,
    remap,
)

CODING = dict(load_preset("coding").weights)
ONLY_REPETITION = {name: (1.0 if name == "repetition" else 0.0) for name in FACTOR_NAMES}


def sample(depth: int = 1_500, overlap: float = 0.0, **more: float) -> Sample:
    values = {"fill": 0.0, "loop": 0.0, "slope": 0.0, "corrections": 0, "hedge_rise": 0.0}
    values.update(more)
    return Sample(depth=depth, overlap=overlap, **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [(0, 0), (999, 0), (1_000, 1), (1_999, 1), (2_000, 2), (7_999, 3), (8_000, 4)],
)
def test_depth_bins_double_from_a_thousand_tokens(tokens: int, expected: int) -> None:
    assert depth_bin(tokens) == expected


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-7[1m]", "claude-opus-4-7"),
        ("gpt-4o-2024-05-13", "gpt-4o"),
        ("gemini-2.5-pro-preview-05-06", "gemini-2.5-pro"),
        ("GPT-5.5", "gpt-5.5"),
        (None, "unknown"),
        ("  ", "unknown"),
    ],
)
def test_the_model_family_drops_dates_and_tags(model: str | None, family: str) -> None:
    assert family_of(model) == family


def test_percentiles_interpolate_between_ranks_as_numpy_does() -> None:
    # rank (4 − 1) × 0.9 = 2.7: 3 + 0.7 × (4 − 3)
    assert percentile([4, 1, 3, 2], 90) == pytest.approx(3.7)
    assert percentile([5.0], 99) == 5.0
    assert percentile([], 90) == 0.0


def test_a_depth_is_compared_with_its_own_bin_then_the_nearest_shallower_first() -> None:
    reference = Reference(
        "claude_code",
        "m",
        5,
        (1, 2, 3, 4, 5),
        (sample(500), sample(1_500), sample(1_600), sample(3_000), sample(9_000)),
    )
    # bin 1 holds two; bins 0 and 2 are both one away: the shallower (0) comes first
    assert [s.depth for s in reference_samples(reference, 1_500, 3)] == [1_500, 1_600, 500]
    assert len(reference_samples(reference, 1_500, 4)) == 4
    assert len(reference_samples(reference, 1_500, 50)) == 5  # all there are


def _ten() -> Reference:
    """Ten sessions at one depth with overlaps 0.0, 0.1, …, 0.9, ending at 1k … 10k tokens."""
    return Reference(
        "claude_code",
        "claude-sonnet-4-5",
        10,
        tuple(1_000 * (k + 1) for k in range(10)),
        tuple(sample(1_500, overlap=k / 10) for k in range(10)),
    )


def test_the_scales_and_lines_are_percentiles_of_the_users_sessions_at_that_depth() -> None:
    personal = personal_for(_ten(), 1_500, base=CALIBRATION, weights=ONLY_REPETITION, n_min=10)
    assert personal is not None
    # P90 of the overlaps: rank 9 × 0.9 = 8.1 → 0.8 + 0.1 × 0.1
    assert personal.calibration.overlap61 == pytest.approx(0.81)
    # measures no session shows keep the default scales
    assert personal.calibration.slope61 == CALIBRATION.slope61
    assert personal.calibration.corrections61 == CALIBRATION.corrections61
    assert personal.calibration.hedge61 == CALIBRATION.hedge61
    # P90 of the final depths is 9,100 tokens, below 2 × G0: the rot curve keeps 16,000
    assert personal.calibration.g61 == 16_000
    # the composite is repetition alone, 61 × overlap / 0.81: its P90 is 61 exactly, its
    # P99 (rank 8.91 → overlap 0.891) 61 × 0.891 / 0.81 = 67.1; Warming at 61 × 30/61
    warming, drifting, polluted = personal.lines
    assert drifting == pytest.approx(61.0)
    assert polluted == pytest.approx(67.1)
    assert warming == pytest.approx(30.0)
    assert personal.samples == 10


def test_a_session_further_out_than_the_users_99th_percentile_is_polluted() -> None:
    personal = personal_for(_ten(), 1_500, base=CALIBRATION, weights=ONLY_REPETITION, n_min=10)
    assert personal is not None
    replies = ["the same words again and again here"] * 10
    report = score_session(
        make_session(replies, context_tokens=2_000),
        weights=ONLY_REPETITION,
        personal=personal,
    )
    # ten equal replies overlap 0.9: 61 × 0.9 / 0.81 = 67.78 points, past the user's P99
    # (67.1), so 81 + (67.78 − 67.1) × 19 / 32.9 = 81.39
    assert report.factors["repetition"] == pytest.approx(61 * 0.9 / 0.81)
    assert report.composite == pytest.approx(81 + (61 * 0.9 / 0.81 - 67.1) * 19 / 32.9)
    assert (report.score, report.state) == (81, "polluted")
    assert report.calibration.kind == "personal"


def test_the_drifting_line_never_falls_below_warming_of_the_default_scale() -> None:
    calm = Reference("claude_code", "m", 10, (1_000,) * 10, tuple(sample(1_500) for _ in range(10)))
    personal = personal_for(calm, 1_500, base=CALIBRATION, weights=ONLY_REPETITION, n_min=10)
    assert personal is not None
    assert personal.lines == (pytest.approx(30 * 30 / 61), 30.0, 31.0)


def test_fewer_sessions_than_needed_give_no_calibration() -> None:
    assert personal_for(_ten(), 1_500, base=CALIBRATION, weights=CODING, n_min=11) is None


@pytest.mark.parametrize(
    ("composite", "expected"),
    [(0, 0), (10, 15), (20, 30), (45, 66), (60, 81), (80, 90.5), (100, 100), (150, 100)],
)
def test_the_composite_is_mapped_piecewise_through_the_lines(
    composite: float, expected: float
) -> None:
    assert remap(composite, (20, 40, 60)) == pytest.approx(expected)


def test_the_leave_one_out_reference_leaves_the_scored_session_out() -> None:
    """What benchmarks/oof.py does per deployment: the reference of a held session is every
    other session; with one session far out it sets the 99th percentile when it is in the
    reference, and no line at all when it is the one scored."""
    sessions = [sample(1_500, overlap=k / 10) for k in range(10)] + [sample(1_500, overlap=5.0)]
    held = len(sessions) - 1
    others = [s for k, s in enumerate(sessions) if k != held]
    loo = Reference("claude_code", "m", len(others), (1_000,) * len(others), tuple(others))
    personal = personal_for(loo, 1_500, base=CALIBRATION, weights=ONLY_REPETITION, n_min=10)
    assert personal is not None
    assert personal.calibration.overlap61 == pytest.approx(0.81)  # the held one is not in it
    with_it = dataclasses.replace(loo, sessions=11, samples=tuple(sessions))
    inside = personal_for(with_it, 1_500, base=CALIBRATION, weights=ONLY_REPETITION, n_min=10)
    assert inside is not None
    # rank 10 × 0.9 = 9: the 10th smallest of the 11 overlaps, 0.9
    assert inside.calibration.overlap61 == pytest.approx(0.9)


samples_strategy = st.lists(
    st.builds(
        Sample,
        depth=st.integers(0, 300_000),
        fill=st.floats(0, 100),
        loop=st.floats(0, 100),
        overlap=st.floats(0, 1),
        slope=st.floats(-2_000, 2_000),
        corrections=st.integers(0, 20),
        hedge_rise=st.floats(-10, 30),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(samples=samples_strategy, depth=st.integers(0, 300_000), replies=st.integers(2, 12))
def test_calibrated_factors_and_score_stay_within_0_to_100(
    samples: list[Sample], depth: int, replies: int
) -> None:
    reference = Reference("claude_code", "m", len(samples), (depth,) * len(samples), tuple(samples))
    personal = personal_for(reference, depth, base=CALIBRATION, weights=CODING, n_min=1)
    assert personal is not None
    warming, drifting, polluted = personal.lines
    assert 0 < warming < drifting < polluted < 100
    texts = [f"reply {k} about the parser and its tests" for k in range(replies)]
    report = score_session(
        make_session(texts, context_tokens=depth), weights=CODING, personal=personal
    )
    assert 0 <= report.score <= 100
    assert 0 <= report.composite <= 100
    for value in report.factors.values():
        assert value is None or 0 <= value <= 100
