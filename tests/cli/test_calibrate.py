"""``driftguard calibrate`` as a new user meets it: a home with 30 sessions of one
model is calibrated and every score says so; a home with 3 is told it has not enough yet.
Synthetic Claude Code sessions in Claude Code's own folders (tests/conftest.py isolates
HOME)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_project_session

from driftguard.cli import main
from driftguard.scoring.personal import MIN_SESSIONS

WORDS = ["parser", "dates", "quoting", "importer", "encoding", "tests", "columns", "headers"]


def sessions(home: Path, project: Path, count: int) -> list[Path]:
    """``count`` sessions of one model (claude-sonnet-4-5), each a little different."""
    made = []
    for n in range(count):
        replies = [
            f"Step {k}: I changed the {WORDS[(n + k) % 8]} and the {WORDS[(n * k) % 8]} code."
            + " It works now." * (k % 3)
            for k in range(4 + n % 5)
        ]
        session_id = f"c0ffee00-0000-4000-8000-{n:012d}"
        made.append(write_project_session(home, project, replies, session_id=session_id))
    return made


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "importer"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    assert "error" not in err
    return out


def score(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(run(capsys, "score", "--json", *argv))
    return payload


def test_the_number_needed_is_the_one_the_benchmark_set() -> None:
    assert MIN_SESSIONS == 30


def test_thirty_sessions_of_one_model_calibrate_and_every_score_says_so(
    isolated_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = sessions(isolated_home, project, 30)
    before = score(capsys, str(made[0]))
    assert before["session"]["calibration"]["kind"] == "none"
    told = run(capsys, "calibrate")
    assert "Read 30 session files" in told
    assert (
        "claude_code · claude-sonnet-4-5: 30 sessions: your own scales apply to its scores "
        "from now on." in told
    )
    assert (isolated_home / ".driftcli" / "calibration.json").is_file()
    after = score(capsys, str(made[0]))
    assert after["session"]["calibration"] == {
        "kind": "personal",
        "sessions": 30,
        "needed": 30,
        "host": "claude_code",
        "model": "claude-sonnet-4-5",
        "file": str(isolated_home / ".driftcli" / "calibration.json"),
        "reason": None,
    }
    text = run(capsys, "score", str(made[0]))
    session_line = next(x for x in text.splitlines() if x.startswith("Session: "))
    assert "· calibrated on 30 sessions of yours (claude_code · claude-sonnet-4-5)" in session_line
    # the newest session of the project (no PATH) is calibrated the same way
    assert score(capsys)["session"]["calibration"]["kind"] == "personal"


def test_three_sessions_are_not_enough_yet_and_the_report_says_so(
    isolated_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = sessions(isolated_home, project, 3)
    told = run(capsys, "calibrate")
    assert (
        "claude_code · claude-sonnet-4-5: not enough sessions yet (3 of 30): its scores keep "
        "the default scales." in told
    )
    plain = score(capsys, str(made[1]), "--calibration", "off")
    payload = score(capsys, str(made[1]))
    assert payload["session"]["calibration"]["kind"] == "none"
    assert payload["session"]["calibration"]["reason"] == "not enough sessions yet (3 of 30)"
    assert payload["session"]["calibration"]["sessions"] == 3
    assert (payload["score"], payload["factors"]) == (plain["score"], plain["factors"])
    text = run(capsys, "score", str(made[1]))
    assert "· default scales: not enough sessions yet (3 of 30)" in text


def test_a_calibration_file_can_be_named_and_the_seed_is_never_calibrated(
    isolated_home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = sessions(isolated_home, project, 30)
    out = tmp_path / "mine.json"
    told = run(capsys, "calibrate", "--sessions", str(made[0].parent), "--out", str(out))
    assert f"--calibration {out}" in told
    assert not (isolated_home / ".driftcli" / "calibration.json").exists()
    assert score(capsys, str(made[2]))["session"]["calibration"]["kind"] == "none"
    named = score(capsys, str(made[2]), "--calibration", str(out))["session"]["calibration"]
    assert (named["kind"], named["file"]) == ("personal", str(out))
    seed = score(capsys, str(made[2]), "--calibration", str(out), "--preset", "seed")
    assert seed["session"]["calibration"]["reason"] == "the seed preset is never calibrated"
    (project / ".driftcli").write_text(json.dumps({"calibration": str(out)}), encoding="utf-8")
    assert score(capsys, str(made[2]))["session"]["calibration"]["kind"] == "personal"
    (project / ".driftcli").write_text(json.dumps({"calibration": "off"}), encoding="utf-8")
    assert score(capsys, str(made[2]))["session"]["calibration"]["reason"] == "calibration is off"


def test_a_damaged_calibration_file_named_on_the_command_line_is_an_error(
    isolated_home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = sessions(isolated_home, project, 1)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["score", str(made[0]), "--calibration", str(bad)]) == 2
    assert f"{bad}: calibration:" in capsys.readouterr().err
    # with auto, a damaged file in the state folder is reported, never fatal
    state = isolated_home / ".driftcli"
    state.mkdir(exist_ok=True)
    (state / "calibration.json").write_text("[]", encoding="utf-8")
    use = score(capsys, str(made[0]))["session"]["calibration"]
    assert use["kind"] == "none"
    assert "not a version-1 calibration file" in use["reason"]


def test_the_sessions_the_history_names_are_learnt_from_too(
    isolated_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cursor's chats live in its databases, not in files of their own: the history's keys
    (``<cli>-<session id>``) are how calibrate finds every session that was ever scored."""
    from driftguard.engine.calibration import _recorded_sessions

    made = sessions(isolated_home, project, 2)
    assert _recorded_sessions() == set()
    score(capsys, str(made[1]))  # recorded: the file is in Claude Code's session folder
    assert _recorded_sessions() == {made[1]}


def test_a_sessions_path_that_does_not_exist_is_an_error_and_the_calibration_stays(
    isolated_home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions(isolated_home, project, 3)
    run(capsys, "calibrate")
    calibration = isolated_home / ".driftcli" / "calibration.json"
    kept = calibration.read_bytes()
    typo = tmp_path / "nonexistent" / "typo"
    assert main(["calibrate", "--sessions", str(project), str(typo)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"driftguard: error: --sessions {typo}: not found\n")
    assert calibration.read_bytes() == kept


def test_a_run_that_learns_from_no_session_never_replaces_the_calibration(
    isolated_home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions(isolated_home, project, 3)
    run(capsys, "calibrate")
    calibration = isolated_home / ".driftcli" / "calibration.json"
    kept = calibration.read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.jsonl").write_text("not a session\n", encoding="utf-8")
    assert main(["calibrate", "--sessions", str(empty)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "Read 1 session file (1 skipped: unreadable or no reply); learnt from none, so "
        f"nothing was written: {calibration} is left as it was."
    ]
    assert calibration.read_bytes() == kept
    assert main(["calibrate", "--sessions", str(empty), "--json"]) == 1
    told = json.loads(capsys.readouterr().out)
    assert (told["file"], told["written"], told["references"]) == (str(calibration), False, [])
    assert calibration.read_bytes() == kept


def test_a_first_run_with_no_session_writes_no_calibration(
    isolated_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate"]) == 1
    out = capsys.readouterr().out
    calibration = isolated_home / ".driftcli" / "calibration.json"
    assert out.splitlines() == [
        f"Read 0 session files; learnt from none, so nothing was written: {calibration} "
        "does not exist yet.",
        f"It takes {MIN_SESSIONS} sessions of one host and model; run it again as they accumulate.",
    ]
    assert not calibration.exists()
