"""The calibrated scoring: the rot curve, conversation tokens, the factor scales,
the form-B composite, the handoff trigger and the evidence the recommendation names.

Expected values are computed by hand from the formulas in driftguard/scoring/calibrated.py
and composite.py, with the shipped calibration (benchmarks/calibrate.py, rule v2).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from driftguard.adapters._common import make_tool_call
from driftguard.engine.drift import score_session
from driftguard.model import FACTOR_NAMES, ParsedMessage, Session
from driftguard.presets import load_preset
from driftguard.scoring.calibrated import (
    CALIBRATION,
    G0,
    conversation_tokens,
    linear_points,
    rot_points,
)
from driftguard.scoring.means import combine, power_mean

CODING = dict(load_preset("coding").weights)


def session(
    messages: list[ParsedMessage],
    *,
    context_tokens: int = 1_000,
    first: int | None = None,
    window: int = 200_000,
    estimated: bool = False,
) -> Session:
    return Session(
        cli="claude_code",
        path="/tmp/s.jsonl",
        session_id="s",
        cwd="/tmp",
        messages=tuple(messages),
        context_tokens=context_tokens,
        context_window=window,
        tokens_estimated=estimated,
        compactions=0,
        skipped_lines=0,
        first_request_tokens=first,
    )


def chat(replies: list[str]) -> list[ParsedMessage]:
    out: list[ParsedMessage] = []
    for index, reply in enumerate(replies):
        out.append(ParsedMessage(role="user", content=f"request {index}"))
        out.append(ParsedMessage(role="assistant", content=reply))
    return out


# --- context rot ----------------------------------------------------------------------


@pytest.mark.parametrize("tokens", [0, 1, 5_000, G0])
def test_context_rot_is_zero_up_to_nolimas_8k(tokens: int) -> None:
    assert rot_points(tokens, 35_000) == 0.0


def test_context_rot_reaches_61_at_g61_linear_in_log2_tokens() -> None:
    assert rot_points(35_000, 35_000) == pytest.approx(61.0)
    # one doubling from 8k is 61 / log2(35/8) = 61 / 2.1293 points
    assert rot_points(16_000, 35_000) == pytest.approx(61 / math.log2(35 / 8))
    assert rot_points(300_000, 35_000) == 100.0


def test_conversation_tokens_leave_out_the_first_requests_context() -> None:
    s = session(chat(["a", "b"]), context_tokens=45_000, first=20_000)
    assert conversation_tokens(s) == 25_000
    assert conversation_tokens(replace(s, context_tokens=15_000)) == 0


def test_without_usage_the_first_request_is_estimated_from_what_came_before_the_reply() -> None:
    messages = [
        ParsedMessage(role="user", content="x" * 4_000),
        ParsedMessage(role="assistant", content="y" * 400),
        ParsedMessage(role="user", content="z" * 400),
    ]
    s = session(messages, context_tokens=1_200, estimated=True, first=999_999)
    assert conversation_tokens(s) == 1_200 - 1_000


# --- scales -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "points"), [(-1.0, 0.0), (0.0, 0.0), (0.5, 30.5), (1.0, 61.0), (3.0, 100.0)]
)
def test_a_linear_scale_puts_its_calibrated_measure_at_61_points(
    value: float, points: float
) -> None:
    assert linear_points(value, 1.0) == pytest.approx(points)


def test_text_repetition_reaches_61_at_the_calibrated_overlap() -> None:
    # ten replies of the same eleven words: 9 trigrams each, 9 unique → overlap 0.9
    report = score_session(
        session(chat(["one two three four five six seven eight nine ten eleven"] * 10)),
        weights=CODING,
    )
    assert report.factors["repetition"] == 100.0
    assert report.measures is not None
    assert report.measures.overlap == pytest.approx(0.9)


def test_repetition_takes_the_larger_of_text_and_action_loops() -> None:
    call = make_tool_call("Bash", {"command": "npm test"})
    messages = [ParsedMessage(role="user", content="make the tests pass")]
    for index in range(3):
        messages += [
            ParsedMessage(
                role="assistant",
                content=f"Attempt {index}: running the suite now.",
                tool_calls=(call,),
            ),
            ParsedMessage(role="tool", content=f"1 failing ({index})", is_error=True),
        ]
    report = score_session(session(messages), weights=CODING)
    assert report.factors["repetition"] == 100.0
    assert "`npm test` failed 3 times in a row" in report.recommendation


# --- composite --------------------------------------------------------------------------


def test_form_b_is_the_larger_of_saturation_and_the_power_mean_of_the_others() -> None:
    values = {
        "context_saturation": 40.0,
        "repetition": 80.0,
        "length_collapse": 0.0,  # weight 0 in coding: never counts
        "goal_distance": None,
        "uncertainty": 10.0,  # weight 0 in coding
        "confidence_drift": 20.0,
    }
    # ((80⁴ + 20⁴) / 2)^(1/4) = 20,560,000^(1/4) = 67.337…
    assert combine(CODING, values, "B", 4.0) == pytest.approx(67.337, abs=1e-3)
    values["context_saturation"] = 90.0
    assert combine(CODING, values, "B", 4.0) == 90.0


def test_form_b_scales_each_side_by_its_weight_relative_to_the_heaviest() -> None:
    weights = dict.fromkeys(FACTOR_NAMES, 0.0) | {"context_saturation": 0.5, "repetition": 1.0}
    values = dict.fromkeys(FACTOR_NAMES, 0.0) | {"context_saturation": 100.0, "goal_distance": None}
    assert combine(weights, values, "B", 4.0) == 50.0


def test_power_mean_of_one_is_the_seeds_weighted_mean_and_of_infinity_the_weighted_max() -> None:
    weights = dict.fromkeys(FACTOR_NAMES, 1.0) | {"repetition": 0.5}
    values = dict.fromkeys(FACTOR_NAMES, 0.0) | {"repetition": 80.0, "goal_distance": None}
    assert power_mean(weights, values, 1.0) == pytest.approx(80 * 0.5 / 4.5)
    assert power_mean(weights, values, math.inf) == 40.0


factor_values = st.one_of(st.none(), st.floats(min_value=0.0, max_value=100.0))


@settings(max_examples=300, deadline=None)
@given(
    values=st.fixed_dictionaries({name: factor_values for name in FACTOR_NAMES}),
    weights=st.fixed_dictionaries(
        {name: st.floats(min_value=0.0, max_value=10.0) for name in FACTOR_NAMES}
    ),
    form=st.sampled_from(["A", "B"]),
    power=st.sampled_from([1.0, 2.0, 4.0, 8.0, math.inf]),
)
@example(
    values=dict.fromkeys(FACTOR_NAMES, None) | {"length_collapse": 1.5},
    weights=dict.fromkeys(FACTOR_NAMES, 0.0) | {"length_collapse": 5e-324},
    form="A",
    power=1.0,
)
def test_the_composite_lies_between_the_smallest_and_largest_weighted_active_factor(
    values: dict[str, float | None], weights: dict[str, float], form: str, power: float
) -> None:
    counted = [v for n, v in values.items() if v is not None and weights[n] > 0]
    result = combine(weights, values, form, power)
    if not counted:
        assert result == 0.0
    else:
        assert min(counted) - 1e-9 <= result <= max(counted) + 1e-9


reply_text = st.lists(
    st.sampled_from(["fix", "the", "test", "maybe", "I", "was", "wrong", "```", "x"]), max_size=30
).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    replies=st.lists(reply_text, max_size=25),
    tokens=st.integers(min_value=0, max_value=3_000_000),
    first=st.one_of(st.none(), st.integers(min_value=0, max_value=100_000)),
    goal=st.one_of(st.none(), st.sampled_from(["fix the test", "write docs"])),
    preset=st.sampled_from(["coding", "research", "brainstorm", "strict"]),
)
def test_every_calibrated_factor_and_score_stay_within_0_and_100(
    replies: list[str], tokens: int, first: int | None, goal: str | None, preset: str
) -> None:
    s = session(chat(replies), context_tokens=tokens, first=first)
    report = score_session(s, weights=load_preset(preset).weights, goal=goal)
    assert 0 <= report.score <= 100
    active = [v for v in report.factors.values() if v is not None]
    assert all(0.0 <= v <= 100.0 for v in active)


# --- handoff and words --------------------------------------------------------------------


def test_a_session_near_compaction_suggests_a_handoff_and_says_how_much_room_is_left() -> None:
    s = session(chat(["a reply with words"] * 3), context_tokens=160_000, first=20_000)
    report = score_session(s, weights=CODING)
    assert report.state == "polluted"  # fill 160k of 167k: 40 + (0.958 − .75) × 240 = 89.9; rot 100
    assert report.handoff_suggested
    assert report.recommendation.startswith(
        "Start fresh now: the context holds 160k tokens, 7k before Claude Code compacts it"
    )
    assert report.tokens_until_compaction == 7_000


def test_context_rot_names_the_tokens_the_conversation_added() -> None:
    s = session(
        chat(["a reply with words"] * 3), context_tokens=60_000, first=20_000, window=1_000_000
    )
    report = score_session(s, weights=CODING)
    assert report.measures is not None
    assert report.measures.conversation_tokens == 40_000
    assert (
        "the conversation has added 40k tokens of context, past the 35k that 95% of "
        "successful agent runs stayed under" in report.recommendation
    )


def test_the_handoff_fires_on_repetition_alone_from_the_calibrated_trigger() -> None:
    assert CALIBRATION.handoff_points == 86.0
    s = session(chat(["exactly the same words in every reply"] * 10))
    report = score_session(s, weights=dict(CODING) | {"repetition": 0.01}, warn_threshold=100)
    assert report.factors["repetition"] == 100.0
    assert report.handoff_suggested


def test_the_calibrated_default_warn_threshold_is_the_drifting_line() -> None:
    report = score_session(session(chat(["a", "b"])), weights=CODING)
    assert report.warn_threshold == 61
    seed = score_session(session(chat(["a", "b"])), weights=CODING, scoring="seed")
    assert seed.warn_threshold == 60
