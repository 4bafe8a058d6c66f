"""The trend of a session's recorded scores (docs/design.md §6 ``get_trend``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from driftguard.render.trend import OUTSIDE_SESSION_FOLDERS, render_trend_text, trend_json
from driftguard.scoring.composite import State, state_for
from driftguard.scoring.trend import SPARK_CELLS, Trend, compute_trend, spark_cell
from driftguard.store.history import Snapshot


def snaps(*scores: int, states: dict[int, State] | None = None) -> list[Snapshot]:
    """Snapshots with these scores, oldest first; the state follows the score unless
    ``states`` overrides it for a position."""
    return [
        Snapshot(
            ts=1_750_000_000.0 + 60 * index,
            score=score,
            state=(states or {}).get(index, state_for(score)),
            factors={},
            messages=2 * index + 2,
            context_tokens=1_000 * index,
        )
        for index, score in enumerate(scores)
    ]


# --- sparkline -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "cell"),
    [
        (0, "▁"),  # 0 / 12.5 = 0 → index 0
        (12.4, "▁"),  # 12.4 / 12.5 = 0.992 → 0
        (12.5, "▂"),  # 12.5 / 12.5 = 1 → 1
        (12, "▁"),  # 0.96 → 0: integer scores 0–12 are the lowest cell
        (13, "▂"),  # 1.04 → 1
        (50, "▅"),  # 4.0 → 4
        (87, "▇"),  # 6.96 → 6
        (87.4, "▇"),  # 6.992 → 6
        (87.5, "█"),  # 7.0 → 7
        (88, "█"),  # 7.04 → 7
        (100, "█"),  # 8.0 → min(7, 8) = 7
    ],
)
def test_the_sparkline_cell_index_is_min_7_of_score_over_12_5(score: float, cell: str) -> None:
    assert spark_cell(score) == cell


def test_a_sparkline_appears_from_the_third_snapshot() -> None:
    assert compute_trend(snaps(10), 60).sparkline is None
    assert compute_trend(snaps(10, 50), 60).sparkline is None
    # 10 → index 0, 50 → 4, 100 → 7
    assert compute_trend(snaps(10, 50, 100), 60).sparkline == "▁▅█"


def test_the_sparkline_has_one_cell_per_snapshot() -> None:
    scores = list(range(0, 101, 5))  # 21 snapshots
    trend = compute_trend(snaps(*scores), 60)
    assert trend.sparkline is not None
    assert len(trend.sparkline) == 21
    assert trend.sparkline[0] == SPARK_CELLS[0]
    assert trend.sparkline[-1] == SPARK_CELLS[-1]


# --- values ----------------------------------------------------------------------------


def test_the_trend_of_four_snapshots_is_computed_as_designed() -> None:
    trend = compute_trend(snaps(12, 20, 52, 58), warn_threshold=50)
    assert trend == Trend(
        scores=(12, 20, 52, 58),
        sparkline="▁▂▅▅",  # 12/12.5=0.96→0, 20/12.5=1.6→1, 52/12.5=4.16→4, 58/12.5=4.64→4
        peak=58,
        average=35.5,  # (12+20+52+58)/4 = 142/4 = 35.5
        latest_score=58,
        latest_state="warming",  # 58 is in 30–60
        trajectory="climbing",  # window is all 4: 58 − 12 = +46 ≥ 10
        trajectory_delta=46,
        handoff_hint=True,  # 58 ≥ 50
        warn_threshold=50,
    )
    assert trend.snapshots == 4


def test_no_snapshots_give_an_empty_trend() -> None:
    trend = compute_trend([], 60)
    assert trend == Trend(
        scores=(),
        sparkline=None,
        peak=None,
        average=None,
        latest_score=None,
        latest_state=None,
        trajectory=None,
        trajectory_delta=0,
        handoff_hint=False,
        warn_threshold=60,
    )


def test_one_snapshot_has_no_movement_and_names_no_trajectory() -> None:
    trend = compute_trend(snaps(73), 60)
    assert (trend.peak, trend.average, trend.latest_score) == (73, 73.0, 73)
    assert (trend.trajectory, trend.trajectory_delta) == (None, 0)
    assert trend.latest_state == "drifting"


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ((10, 20), ("climbing", 10)),  # 20 − 10 = +10: the boundary climbs
        ((10, 19), ("stable", 9)),  # +9
        ((30, 20), ("falling", -10)),  # −10: the boundary falls
        ((30, 21), ("stable", -9)),  # −9
        ((40, 90, 0, 40), ("stable", 0)),  # first and last of the window only
        # Six snapshots: the window is the last five (10, 12, 14, 16, 18): 18 − 10 = +8,
        # although the first snapshot (90) is 72 points higher than the last.
        ((90, 10, 12, 14, 16, 18), ("stable", 8)),
        # Window (0, 0, 0, 0, 10): +10 → climbing; the 50 before it is ignored.
        ((50, 0, 0, 0, 0, 10), ("climbing", 10)),
        # Window (70, 65, 62, 61, 60): 60 − 70 = −10 → falling.
        ((5, 70, 65, 62, 61, 60), ("falling", -10)),
    ],
)
def test_the_trajectory_compares_first_and_last_of_the_latest_five(
    scores: tuple[int, ...], expected: tuple[str, int]
) -> None:
    trend = compute_trend(snaps(*scores), 60)
    assert (trend.trajectory, trend.trajectory_delta) == expected


@pytest.mark.parametrize(
    ("scores", "average"),
    [
        ((12, 13), 12.5),  # 25/2 = 12.5
        ((0, 0, 0, 1), 0.3),  # 1/4 = 0.25 → half up → 0.3
        ((1, 1, 1, 0), 0.8),  # 3/4 = 0.75 → half up → 0.8
        ((0, 0, 1), 0.3),  # 1/3 = 0.333… → 0.3
        ((0, 1, 1), 0.7),  # 2/3 = 0.666… → 0.7
        ((100, 100, 99), 99.7),  # 299/3 = 99.666… → 99.7
        ((2, 3, 3, 3, 3, 3, 3, 3), 2.9),  # 23/8 = 2.875 → 2.9
        ((1,) * 39 + (2,), 1.0),  # 41/40 = 1.025 → 1.0
        ((1,) * 38 + (3, 3), 1.1),  # 44/40 = 1.1
    ],
)
def test_the_average_is_rounded_half_up_to_one_decimal(
    scores: tuple[int, ...], average: float
) -> None:
    assert compute_trend(snaps(*scores), 60).average == average


def test_peak_is_the_highest_score_not_the_latest() -> None:
    trend = compute_trend(snaps(20, 85, 40), 60)
    assert (trend.peak, trend.latest_score) == (85, 40)


def test_the_latest_state_is_the_recorded_one() -> None:
    # A record's state is what was reported then; the trend does not recompute it.
    trend = compute_trend(snaps(10, 45, states={1: "drifting"}), 60)
    assert trend.latest_state == "drifting"


@pytest.mark.parametrize(
    ("scores", "threshold", "hint"),
    [
        ((10, 60), 60, True),  # 60 ≥ 60
        ((10, 59), 60, False),  # 59 < 60
        ((95, 20), 60, False),  # a high peak earlier does not count: only the latest
        ((10, 41), 40, True),  # the configured threshold, not the default
    ],
)
def test_the_handoff_hint_follows_the_latest_score_and_the_threshold(
    scores: tuple[int, ...], threshold: int, hint: bool
) -> None:
    assert compute_trend(snaps(*scores), threshold).handoff_hint is hint


# --- text ------------------------------------------------------------------------------


def test_the_text_names_sparkline_movement_peak_average_trajectory_and_state() -> None:
    text = render_trend_text(compute_trend(snaps(12, 20, 52, 58), 50))
    assert text == (
        "▁▂▅▅ 12 → 58 · peak 58 · avg 35.5 · climbing · latest warming\n"
        "4 snapshots; +46 points over the last 4.\n"
        "→ Latest score 58 ≥ warn threshold 50: call get_handoff() (or save_handoff()) and "
        "start a fresh session."
    )


def test_the_text_without_a_hint_has_no_handoff_line() -> None:
    # 40, 35, 30, 28, 26, 25: window (35, 30, 28, 26, 25): 25 − 35 = −10 → falling;
    # average 184/6 = 30.666… → 30.7.
    text = render_trend_text(compute_trend(snaps(40, 35, 30, 28, 26, 25), 60))
    assert text == (
        "▄▃▃▃▃▃ 40 → 25 · peak 40 · avg 30.7 · falling · latest fresh\n"
        "6 snapshots; -10 points over the last 5."
    )


def test_the_text_of_a_single_snapshot_says_the_trajectory_needs_two_and_not_stable() -> None:
    text = render_trend_text(compute_trend(snaps(15), 60))
    assert text == (
        "15 · peak 15 · avg 15.0 · latest fresh\n"
        "1 snapshot so far; the trajectory needs at least 2."
    )
    assert "stable" not in text


def test_one_point_of_movement_is_said_in_the_singular() -> None:
    assert render_trend_text(compute_trend(snaps(15, 16), 60)).splitlines()[1] == (
        "2 snapshots; +1 point over the last 2."
    )


def test_the_text_of_two_snapshots_has_no_sparkline() -> None:
    text = render_trend_text(compute_trend(snaps(15, 16), 60))
    assert text.splitlines()[0] == "15 → 16 · peak 16 · avg 15.5 · stable · latest fresh"


def test_the_text_shows_only_the_latest_sixty_cells_of_a_long_sparkline() -> None:
    scores = (0,) * 40 + (100,) * 60  # 100 snapshots
    trend = compute_trend(snaps(*scores), 60)
    assert trend.sparkline == "▁" * 40 + "█" * 60  # the field keeps every cell
    first_line = render_trend_text(trend).splitlines()[0]
    assert first_line.startswith("…" + "█" * 60 + " 0 → 100 · ")


def test_without_history_the_model_is_told_to_call_get_drift_and_a_user_to_run_score() -> None:
    empty = compute_trend([], 60)
    assert render_trend_text(empty, "mcp") == (
        "No scores recorded yet for this session: call get_drift first."
    )
    assert render_trend_text(empty, "cli") == (
        "No scores recorded yet for this session: run `driftguard score` to record one."
    )
    assert "get_drift" not in render_trend_text(empty, "cli")


def test_the_handoff_hint_speaks_to_whoever_reads_the_trend() -> None:
    trend = compute_trend(snaps(12, 70), 61)
    assert render_trend_text(trend, "cli").splitlines()[-1] == (
        "→ Latest score 70 ≥ warn threshold 61: run `driftguard handoff --write` and start a "
        "fresh session."
    )
    assert "call get_handoff()" in render_trend_text(trend, "mcp").splitlines()[-1]


def test_a_file_outside_the_session_folders_says_it_has_no_history() -> None:
    trend = compute_trend([], 61, outside=True)
    assert render_trend_text(trend, "cli") == OUTSIDE_SESSION_FOLDERS
    assert trend_json(trend)["not_recorded_reason"] == "not in a session folder"


# --- scales -------------------------------------------------------------------


def test_snapshots_of_another_scoring_are_set_aside_not_drawn_into_the_trajectory() -> None:
    seed = [replace(s, scoring="seed", preset=None) for s in snaps(10, 12, 14)]
    calibrated = [replace(s, preset="coding") for s in snaps(45, 47)]
    trend = compute_trend([*seed, *calibrated], 61, scoring="calibrated", preset="coding")
    assert trend.scores == (45, 47)
    assert trend.trajectory == "stable"  # not "climbing" from 10 to 47
    assert trend.set_aside == 3
    text = render_trend_text(trend)
    assert (
        "Not part of this trend (scored another way, not comparable): 3 snapshots with the "
        "seed scoring of driftguard 0.1." in text
    )


def test_snapshots_of_another_preset_are_set_aside_too() -> None:
    coding = [replace(s, preset="coding") for s in snaps(40, 42)]
    experiment = [replace(s, preset="strict") for s in snaps(90)]
    trend = compute_trend([*coding, *experiment], 61, scoring="calibrated", preset="coding")
    assert trend.scores == (40, 42)
    assert trend.set_aside == 1
    assert trend.set_aside_kinds == (("preset strict", 1),)


def test_a_history_holding_only_another_scoring_says_what_it_holds_without_contradiction() -> None:
    old = [replace(s, scoring="seed", preset=None) for s in snaps(10)]
    trend = compute_trend(old, 61, scoring="calibrated", preset="coding")
    assert trend.scores == ()
    assert render_trend_text(trend, "cli") == (
        "No scores recorded yet with the current scoring, preset and goal: run "
        "`driftguard score` to start this trend.\n"
        "Not part of this trend (scored another way, not comparable): 1 snapshot with the "
        "seed scoring of driftguard 0.1."
    )


def test_snapshots_of_another_goal_are_set_aside_so_a_new_goal_draws_no_trajectory() -> None:
    without = snaps(10, 12, 14)
    with_goal = [replace(s, goal_sha256="a" * 64) for s in snaps(70, 72)]
    trend = compute_trend([*without, *with_goal], 61, goal_sha256="a" * 64)
    assert trend.scores == (70, 72)
    assert trend.trajectory == "stable"  # not "climbing" from 10 to 72
    assert trend.set_aside == 3
    assert compute_trend([*without, *with_goal], 61, goal_sha256=None).scores == (10, 12, 14)


def test_the_trend_json_has_the_field_names_get_trend_uses() -> None:
    payload = trend_json(compute_trend(snaps(12, 20, 52), 50))
    assert list(payload) == [
        "snapshots",
        "scores",
        "sparkline",
        "peak",
        "average",
        "latest_score",
        "latest_state",
        "trajectory",
        "trajectory_delta",
        "handoff_suggested",
        "warn_threshold",
        "set_aside",
        "set_aside_kinds",
        "not_recorded_reason",
    ]
    assert payload["handoff_suggested"] is True
    assert payload["trajectory"] == "climbing"
