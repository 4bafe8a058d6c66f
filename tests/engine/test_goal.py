"""The goal a score uses, from the user's side: every report says which goal
it used and where it came from; the command line keeps a goal only when asked; try-outs
and throwaway files never reach the history or pick up a remembered goal."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus_file, write_claude_session, write_project_session

from driftguard.cli import main
from driftguard.presets import PRESET_NAMES

SESSION_ID = "c0ffee00-0000-4000-8000-000000000011"
REPLIES = [f"I changed the CSV importer, step {i}: parsing dates and quoting." for i in range(6)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, the current directory."""
    root = tmp_path / "importer"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def transcript(isolated_home: Path, project: Path) -> Path:
    """The project's Claude Code session, in Claude Code's own session folder."""
    return write_project_session(isolated_home, project, REPLIES, session_id=SESSION_ID)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``driftguard ARGV`` must succeed; its stdout."""
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    assert "error" not in err
    return out


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """``driftguard score --json ARGV``, parsed."""
    payload: dict[str, Any] = json.loads(run(capsys, "score", "--json", *argv))
    return payload


def goal_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("Goal: "))


def test_a_goal_given_on_the_command_line_is_for_that_score_only(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tried = run(capsys, "score", "--goal", "import CSV files")
    assert goal_line(tried) == (
        "Goal: “import CSV files” (given now, for this score only; --keep-goal keeps it)."
    )
    assert "not recorded: a try-out with a goal that is not kept" in tried
    later = run(capsys, "score")
    assert goal_line(later).startswith("Goal: none, so goal distance is left out")
    assert report(capsys)["goal"] is None


def test_keep_goal_remembers_it_and_later_scores_say_since_when(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = report(capsys, "--goal", "import CSV files", "--keep-goal")
    assert (kept["goal"], kept["goal_source"], kept["goal_kept"]) == (
        "import CSV files",
        "given",
        True,
    )
    assert kept["recorded"] is True
    later = report(capsys)
    assert (later["goal"], later["goal_source"], later["goal_kept"]) == (
        "import CSV files",
        "remembered",
        True,
    )
    assert later["goal_set_at"] == kept["goal_set_at"]
    assert later["goal_set_at"].endswith("Z")
    assert later["factors"]["goal_distance"] is not None
    text = run(capsys, "score")
    stamp = later["goal_set_at"][:16].replace("T", " ")
    assert goal_line(text) == (
        f"Goal: “import CSV files” (remembered from an earlier call ({stamp} UTC); "
        "`driftguard goal --clear` forgets it)."
    )


def test_the_goal_command_shows_sets_and_clears_the_remembered_goal(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "goal").startswith("No goal is remembered for this session (claude_code")
    assert re.fullmatch(
        r"Remembered\. Goal: “import CSV files”, set 20\d\d-\d\d-\d\d \d\d:\d\d UTC "
        r"\(claude_code · .+\)\.\n",
        run(capsys, "goal", "--set", "import CSV files"),
    )
    shown = json.loads(run(capsys, "goal", "--json"))
    assert shown["goal"] == "import CSV files"
    assert shown["session"]["session_id"] == SESSION_ID
    assert report(capsys)["goal_source"] == "remembered"
    assert run(capsys, "goal", "--clear").startswith("Forgot the goal. No goal is remembered")
    assert report(capsys)["goal"] is None


def test_an_empty_goal_scores_without_the_remembered_one_and_keep_goal_forgets_it(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "goal", "--set", "import CSV files")
    without = report(capsys, "--goal", "")
    assert without["goal"] is None
    assert without["factors"]["goal_distance"] is None
    assert without["recorded"] is False
    assert without["not_recorded_reason"] == "a try-out without the remembered goal"
    assert report(capsys)["goal"] == "import CSV files"  # still remembered
    report(capsys, "--goal", "", "--keep-goal")
    assert report(capsys)["goal"] is None


def test_the_remembered_goal_given_again_is_no_try_out(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "goal", "--set", "import CSV files")
    again = report(capsys, "--goal", "import CSV files")
    assert (again["goal_source"], again["goal_kept"], again["recorded"]) == ("given", True, True)


def test_keep_goal_without_a_goal_is_a_usage_error(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--keep-goal"]) == 2
    err = capsys.readouterr().err
    assert err == 'driftguard: error: --keep-goal keeps the --goal given with it: add --goal "…"\n'


def test_a_goal_given_to_get_drift_is_used_by_the_next_command_line_score(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import anyio
    from mcp import Client

    from driftguard.server import create_server

    async def call() -> dict[str, Any]:
        async with Client(create_server()) as client:  # type: ignore[arg-type]
            result = await client.call_tool("get_drift", {"goal": "import CSV files"})
            assert result.structured_content is not None
            return result.structured_content

    given = anyio.run(call)
    assert (given["goal_source"], given["goal_kept"]) == ("given", True)
    assert "(given now, and kept for later calls)" in given["text"]
    assert report(capsys)["goal_source"] == "remembered"


def test_a_copy_of_a_transcript_is_scored_without_recording_or_the_originals_goal(
    transcript: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "goal", "--set", "import CSV files")
    run(capsys, "score")
    copy = tmp_path / "copy.jsonl"
    shutil.copy(transcript, copy)
    scored = report(capsys, str(copy))
    assert scored["goal"] is None  # the original's goal is not picked up
    assert (scored["recorded"], scored["not_recorded_reason"]) == (
        False,
        "not in a session folder",
    )
    text = run(capsys, "score", "--goal", "x", "--keep-goal", str(copy))
    assert text.splitlines()[-1].endswith("· not recorded: not in a session folder")
    assert goal_line(text) == (  # a goal is not kept for a throwaway file
        "Goal: “x” (given now, for this score only: the file is not in a session folder)."
    )
    assert run(capsys, "trend", str(copy)).startswith("No history: this file is not in a session")
    assert json.loads(run(capsys, "trend", "--json"))["snapshots"] == 1  # the original's only
    assert report(capsys)["goal"] == "import CSV files"  # still the original's goal
    assert main(["goal", str(copy)]) == 2
    assert "not in a session folder" in capsys.readouterr().err


def test_a_file_in_a_folder_of_session_folders_is_recorded(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "transcripts"
    kept = write_claude_session(folder / "kept.jsonl", REPLIES, session_id=SESSION_ID)
    (isolated_home / ".driftclirc").write_text(
        json.dumps({"sessionFolders": [str(folder)]}), encoding="utf-8"
    )
    assert report(capsys, str(kept))["recorded"] is True
    assert json.loads(run(capsys, "trend", "--json", str(kept)))["snapshots"] == 1


def test_a_copy_never_takes_the_context_window_the_host_reported_for_the_original(
    transcript: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.store.livecache import write_host_window

    write_host_window(SESSION_ID, 1_000_000)  # Claude Code's status line said so
    assert report(capsys)["session"]["context_window_source"] == "host"
    copy = tmp_path / "copy.jsonl"
    shutil.copy(transcript, copy)
    session = report(capsys, str(copy))["session"]
    # claude-sonnet-4-5 may run with 1M: with nothing set, Claude Code's choice is assumed
    assert (session["context_window_source"], session["context_window"]) == ("assumed", 200_000)


def test_a_preset_sweep_leaves_the_trend_of_the_session_as_it_was(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert report(capsys)["recorded"] is True
    again = report(capsys)  # the same turn scored again: nothing new for the trend
    assert (again["recorded"], again["not_recorded_reason"]) == (
        False,
        "unchanged since the last recorded score",
    )
    for preset in PRESET_NAMES:
        swept = report(capsys, "--preset", preset)
        assert swept["recorded"] is False, preset
        if preset != "coding":
            assert swept["not_recorded_reason"] == (
                f"a try-out with preset {preset} (the config's is coding)"
            )
    trend = json.loads(run(capsys, "trend", "--json"))
    assert trend["snapshots"] == 1  # one moment of the session, scored with its own preset
    assert trend["set_aside"] == 0  # the sweep never reached the history
    assert trend["trajectory"] is None  # one snapshot: no movement to judge


def test_a_goal_try_out_leaves_no_snapshot_and_a_kept_goal_starts_a_new_trend(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report(capsys)
    report(capsys, "--goal", "something unrelated to CSV files entirely")
    assert json.loads(run(capsys, "trend", "--json"))["snapshots"] == 1
    report(capsys, "--goal", "import CSV files", "--keep-goal")
    trend = json.loads(run(capsys, "trend", "--json"))
    assert (trend["snapshots"], trend["set_aside"], trend["trajectory"]) == (1, 1, None)
    text = run(capsys, "trend")
    assert (
        "Not part of this trend (scored another way, not comparable): 1 snapshot with no goal."
        in text
    )
    assert "stable" not in text


def test_trend_on_the_command_line_tells_the_user_what_to_run_and_names_the_session(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, session_line = run(capsys, "trend").splitlines()
    assert first == "No scores recorded yet for this session: run `driftguard score` to record one."
    assert session_line.startswith(f"Session: claude_code · {transcript} · ")
    # the calibration the score would use closes the line
    assert session_line.endswith(
        "· resolved by newest in project · default scales: no calibration yet "
        "(`driftguard calibrate` learns one)"
    )
    scored = report(capsys)
    score, state = scored["score"], scored["state"]
    lines = run(capsys, "trend").splitlines()
    assert lines[:2] == [
        f"{score} · peak {score} · avg {score:.1f} · latest {state}",
        "1 snapshot so far; the trajectory needs at least 2.",
    ]
    assert lines[2] == (  # the transcript repeats itself: 84 points, past the threshold
        f"→ Latest score {score} ≥ warn threshold 61: run `driftguard handoff --write` and "
        "start a fresh session."
    )
    assert lines[3].startswith(f"Session: claude_code · {transcript} · ")


# --- files that share a session id ---------------------------------

CODEX_ID = "0199cccc-dddd-7eee-8fff-000000000042"


def _codex_rollout(path: Path, cwd: Path) -> Path:
    """A small Codex rollout named after :data:`CODEX_ID`, for the project ``cwd``."""
    records: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": CODEX_ID, "cwd": str(cwd)}},
    ]
    for index, reply in enumerate(REPLIES):
        for role, kind, text in (
            ("user", "input_text", f"step {index}: go on"),
            ("assistant", "output_text", reply),
        ):
            item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
            records.append({"type": "response_item", "payload": item})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _snapshots(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    count: int = json.loads(run(capsys, "trend", "--json", *argv))["snapshots"]
    return count


def test_a_subagent_transcript_has_a_history_and_goal_of_its_own(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Claude Code ≥ 2.1.2 keeps a subagent's lines in <session>/subagents/agent-*.jsonl,
    # each line naming the parent's sessionId (corpus tree_v2.1.114_subagents).
    subagent = write_claude_session(
        transcript.parent / SESSION_ID / "subagents" / "agent-a36efb2a1231c41e2.jsonl",
        [f"Subagent: I searched the tests for CSV fixtures, pass {i}." for i in range(4)],
        session_id=SESSION_ID,
    )
    run(capsys, "goal", "--set", "import CSV files")
    assert report(capsys)["recorded"] is True  # the main session: one snapshot
    scored = report(capsys, str(subagent))
    assert scored["goal"] is None  # not the parent's goal
    assert scored["recorded"] is True  # in its own history
    assert _snapshots(capsys, str(subagent)) == 1
    assert _snapshots(capsys) == 1  # the parent's history holds the parent's score only
    run(capsys, "goal", "--set", "find the fixtures", str(subagent))
    assert report(capsys)["goal"] == "import CSV files"
    assert report(capsys, str(subagent))["goal"] == "find the fixtures"


def test_the_real_subagent_transcript_names_its_parent_and_is_keyed_apart_from_it() -> None:
    from driftguard.adapters import parse_session
    from driftguard.engine import drift as engine
    from driftguard.store.history import history_key

    parent_id = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    subagent = corpus_file(
        f"claude_code/tree_v2.1.114_subagents/{parent_id}/subagents/agent-a36efb2a1231c41e2.jsonl"
    )
    session = parse_session(subagent)
    assert session.session_id == parent_id  # every line names the parent's session
    assert engine.history_key(session) != history_key("claude_code", parent_id)


def test_the_session_file_of_an_id_keeps_the_history_it_had(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.store.history import HistoryStore, Snapshot, history_key

    earlier = Snapshot(
        1.0, 40, "warming", {"repetition": 10.0}, 12, 3000, None, "calibrated", "coding"
    )
    HistoryStore().append(history_key("claude_code", SESSION_ID), earlier)
    run(capsys, "score")
    assert json.loads(run(capsys, "trend", "--json"))["scores"][0] == 40


def test_a_copy_of_a_codex_rollout_in_a_session_folder_has_a_history_and_goal_of_its_own(
    isolated_home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"rollout-2026-11-30T09-01-11-{CODEX_ID}.jsonl"
    original = _codex_rollout(isolated_home / ".codex" / "sessions" / "2026/11/30" / name, project)
    folder = tmp_path / "transcripts"
    folder.mkdir()
    copy = folder / name  # the same name, holding the same thread id
    shutil.copy(original, copy)
    (isolated_home / ".driftclirc").write_text(
        json.dumps({"sessionFolders": [str(folder)]}), encoding="utf-8"
    )
    run(capsys, "goal", "--set", "import CSV files", str(original))
    assert report(capsys, str(original))["recorded"] is True
    scored = report(capsys, str(copy))
    assert scored["goal"] is None  # not the original's goal
    assert scored["recorded"] is True  # sessionFolders: a history of its own
    assert _snapshots(capsys, str(copy)) == 1
    assert _snapshots(capsys, str(original)) == 1
    assert report(capsys, str(original))["goal"] == "import CSV files"


def test_status_of_a_copy_leaves_the_status_line_cache_of_the_original_alone(
    transcript: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.store.livecache import read_status

    run(capsys, "status")
    cached = read_status(SESSION_ID)
    assert cached is not None
    assert cached.transcript_path == str(transcript)
    copy = tmp_path / "elsewhere" / transcript.name  # named after the same session id
    copy.parent.mkdir()
    shutil.copy(transcript, copy)
    run(capsys, "status", str(copy))
    after = read_status(SESSION_ID)
    assert after is not None
    assert after.transcript_path == str(transcript)  # Claude Code's status line reads this


def test_keep_goal_that_cannot_keep_the_goal_says_so_on_stderr(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stray = write_claude_session(tmp_path / "elsewhere" / "copy.jsonl", REPLIES)
    assert main(["score", str(stray), "--goal", "import CSV files", "--keep-goal"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "driftguard: warning: --keep-goal: the goal was not kept: this file is not in a "
        "session folder, so it has no remembered goal (add its folder to sessionFolders in "
        "the config)\n"
    )
