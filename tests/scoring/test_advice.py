"""The recommendation fits the trouble: a loop asks for a step back, not
a fresh session, which would hit the same wall; a full or polluted context asks for a
fresh start with the handoff; a factor under 10 points is never given as a reason. The
scores, the JSON fields and ``handoff_suggested`` stay as they were: only the words move.
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from pathlib import Path

import pytest
from conftest import write_claude_session, write_loop_session

from driftguard.adapters import parse_session
from driftguard.compaction.window import UsableWindow
from driftguard.engine.drift import DriftOutcome, drift
from driftguard.model import FACTOR_NAMES, Session, ToolCall
from driftguard.render.text import render_text, to_json_dict
from driftguard.scoring.calibrated import CALIBRATION, Measures
from driftguard.scoring.composite import DriftReport
from driftguard.scoring.loops import ActionLoop
from driftguard.scoring.wording import (
    NOTABLE,
    Trouble,
    advise,
    calibrated_reasons,
    top_factors,
)
from driftguard.store.history import HistoryStore

STEP_BACK = (
    "Stop repeating: say what each attempt showed, then change approach or ask the user — a "
    "fresh session would hit the same wall."
)
HANDOFF = "A handoff carries the work over to a clean context."
STOP_FIRST = (
    "Stop the loop first: note what each attempt showed, so that the fresh session does not "
    "repeat it."
)


def scored(session: Session, tmp_path: Path, *, preset: str | None = None) -> DriftOutcome:
    return drift(
        session, project=None, store=HistoryStore(tmp_path / "h"), preset=preset, record=False
    )


def loop_session(tmp_path: Path, *, turns: int, attempts: int) -> Session:
    return parse_session(
        write_loop_session(
            tmp_path / f"loop-{turns}-{attempts}.jsonl", turns=turns, attempts=attempts
        )
    )


def handoff_hinted(report: DriftReport) -> bool:
    texts = render_text(report, audience="cli") + render_text(report, audience="mcp")
    return "driftguard handoff" in texts or "get_handoff()" in texts


# --- an action loop: step back ------------------------------------------------------------


def test_a_loop_alone_asks_to_step_back_and_offers_no_handoff(tmp_path: Path) -> None:
    report = scored(loop_session(tmp_path, turns=2, attempts=5), tmp_path).report
    assert report.recommendation == f"Step back: `npm test` failed 5 times in a row. {STEP_BACK}"
    assert not handoff_hinted(report)
    # the contract is unchanged: the same score, state and trigger as before the wording
    assert (report.score, report.state, report.handoff_suggested) == (71, "drifting", True)


def test_a_loop_names_what_else_is_notable_after_it(tmp_path: Path) -> None:
    session = loop_session(tmp_path, turns=6, attempts=5)
    report = scored(session, tmp_path).report
    assert report.recommendation == (
        "Step back: `npm test` failed 5 times in a row; the last replies share 83% of their "
        f"phrases. {STEP_BACK}"
    )


def test_a_loop_starting_in_a_warming_session_asks_to_watch_it(tmp_path: Path) -> None:
    report = scored(loop_session(tmp_path, turns=1, attempts=2), tmp_path).report
    assert report.state == "warming"
    assert report.recommendation == (
        "Carry on, but watch for a loop: `npm test` failed 2 times in a row. Before another "
        "attempt, say what each one showed, and change approach or ask the user if nothing "
        "new turned up."
    )
    assert "fresh start" not in report.recommendation


# --- a full or polluted context: start fresh, with the handoff ---------------------------


def full_context(tmp_path: Path, context: int) -> Session:
    """Distinct replies by a 200k-only model (usable 167,000), with ``context`` tokens now
    and 140,000 at the first request: the fill alone decides saturation."""
    replies = [f"Step {n}: wrote the {word} module." for n, word in enumerate("abcdefgh")]
    path = write_claude_session(tmp_path / "full.jsonl", replies, model="claude-haiku-4-5-20251001")
    return dataclasses.replace(
        parse_session(path), context_tokens=context, first_request_tokens=140_000
    )


def test_a_full_context_asks_for_a_fresh_start_with_the_handoff(tmp_path: Path) -> None:
    # 145,000 of 167,000: fill 0.868 → 40 + 0.118 × 240 = 68.4 points, drifting
    report = scored(full_context(tmp_path, 145_000), tmp_path).report
    assert report.state == "drifting"
    assert report.recommendation == (
        f"Start fresh soon: the context holds 145k tokens, 22k before Claude Code compacts it. "
        f"{HANDOFF}"
    )
    assert handoff_hinted(report)


def test_a_polluted_session_asks_for_a_fresh_start_now_with_the_handoff(tmp_path: Path) -> None:
    demo = parse_session(Path(str(resources.files("driftguard.demo") / "demo-session.jsonl")))
    report = scored(demo, tmp_path).report
    assert report.state == "polluted"
    assert report.recommendation.startswith("Start fresh now: the context holds 161k tokens")
    assert report.recommendation.endswith(HANDOFF)
    assert handoff_hinted(report)


def test_a_loop_in_a_full_context_is_stopped_first_then_a_fresh_start(tmp_path: Path) -> None:
    loop = loop_session(tmp_path, turns=2, attempts=5)
    full = dataclasses.replace(loop, context_tokens=160_000, tokens_estimated=False)
    report = scored(full, tmp_path).report
    assert report.recommendation == (
        "Start fresh now: the context holds 160k tokens, 7k before Claude Code compacts it; "
        f"`npm test` failed 5 times in a row. {STOP_FIRST} {HANDOFF}"
    )
    assert handoff_hinted(report)


NPM_TEST = ToolCall(name="Bash", args_digest="0" * 16, command="npm test", kind="shell")
FAILING = ActionLoop(kind="failing", count=2, points=50.0, calls=(NPM_TEST,))


def values(**points: float) -> dict[str, float | None]:
    return {name: points.get(name, 0.0) for name in FACTOR_NAMES}


EQUAL = dict.fromkeys(FACTOR_NAMES, 1 / 6)
REASONS = {name: f"<{name}>" for name in FACTOR_NAMES}


def test_a_loop_the_reasons_leave_out_is_named_where_it_is_stopped() -> None:
    advice = advise(
        "polluted",
        True,
        values(context_saturation=100.0, confidence_drift=90.0, repetition=50.0),
        EQUAL,
        REASONS,
        Trouble(loop=FAILING, full=True),
    )
    assert advice.text == (
        "Start fresh now: <context_saturation>; <confidence_drift>. Stop the loop first "
        "(`npm test` failed 2 times in a row): note what each attempt showed, so that the "
        f"fresh session does not repeat it. {HANDOFF}"
    )
    assert advice.remedy == "fresh_start"


def test_without_a_loop_or_a_full_context_the_band_decides_as_before() -> None:
    drifting = values(confidence_drift=70.0)
    assert advise("drifting", True, drifting, EQUAL, REASONS, Trouble()).text == (
        f"Start fresh soon: <confidence_drift>. {HANDOFF}"
    )
    warming = values(confidence_drift=40.0)
    assert advise("warming", False, warming, EQUAL, REASONS, Trouble()).text == (
        "Carry on, but plan a fresh start: <confidence_drift>."
    )


# --- a factor under 10 points is never a reason ------------------------------------------


def test_a_factor_under_10_points_is_never_a_reason() -> None:
    below = values(repetition=NOTABLE - 0.01, confidence_drift=9.0, context_saturation=12.0)
    assert top_factors(below, EQUAL) == ["context_saturation"]
    for state, loop in (("fresh", None), ("warming", None), ("drifting", FAILING)):
        text = advise(state, state == "drifting", below, EQUAL, REASONS, Trouble(loop=loop)).text
        assert "<confidence_drift>" not in text
        assert "<repetition>" not in text
        assert "<context_saturation>" in text
    assert advise("fresh", False, values(uncertainty=9.9), EQUAL, REASONS).text == (
        "Carry on: the session is healthy."
    )


def measures(overlap: float, loop: ActionLoop | None) -> Measures:
    return Measures(
        conversation_tokens=0,
        overlap=overlap,
        loop=loop,
        slope=0.0,
        corrections=0,
        hedge_rise=0.0,
        goal_drift=None,
        goal_distance_seed=None,
        goal_given=False,
    )


@pytest.mark.parametrize(
    ("overlap", "loop_points", "expected"),
    [
        # 4% of shared phrases is 0.04 × 61 / 0.2937 = 8.3 points: not said next to the loop
        (0.04, 50.0, "`npm test` failed 2 times in a row"),
        # 8% is 16.6 points: said, after the loop that leads
        (
            0.08,
            50.0,
            "`npm test` failed 2 times in a row; the last replies share 8% of their phrases",
        ),
        # a loop under 10 points is not said next to the phrases that lead
        (0.5, 9.0, "the last replies share 50% of their phrases"),
        (
            0.5,
            50.0,
            "the last replies share 50% of their phrases; `npm test` failed 2 times in a row",
        ),
    ],
)
def test_each_half_of_repetition_is_said_only_at_10_points_of_its_own(
    overlap: float, loop_points: float, expected: str
) -> None:
    loop = dataclasses.replace(FAILING, points=loop_points)
    session = Session(
        cli="claude_code",
        path="s.jsonl",
        session_id=None,
        cwd=None,
        messages=(),
        context_tokens=1_000,
        context_window=200_000,
        tokens_estimated=False,
        compactions=0,
        skipped_lines=0,
    )
    reasons = calibrated_reasons(
        measures(overlap, loop), session, UsableWindow(167_000, "rule"), CALIBRATION
    )
    assert reasons["repetition"] == expected


# --- only the words move ------------------------------------------------------------------


def test_the_json_of_a_loop_keeps_its_fields_and_trigger(tmp_path: Path) -> None:
    report = scored(loop_session(tmp_path, turns=2, attempts=5), tmp_path).report
    payload = json.loads(json.dumps(to_json_dict(report)))
    assert payload["handoff_suggested"] is True
    assert payload["loop"]["description"] == "`npm test` failed 5 times in a row"
    assert payload["recommendation"] == report.recommendation


def test_the_seed_preset_keeps_its_first_wording(tmp_path: Path) -> None:
    demo = parse_session(Path(str(resources.files("driftguard.demo") / "demo-session.jsonl")))
    report = scored(demo, tmp_path, preset="seed").report
    assert report.recommendation == (
        f"Start fresh soon: replies repeat earlier ones; the context window is 81% full. {HANDOFF}"
    )
    assert handoff_hinted(report)
