"""`driftguard hook …`: the Claude Code hooks, fed the JSON payloads Claude Code sends
(docs/formats.md §A.14; the payloads below are built in our own words with those fields)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session

from driftguard import paths
from driftguard._process import ProcessInfo, process_info
from driftguard.cli import main
from driftguard.live.hooks import HookCall, prompt_warning, run_hook, stop
from driftguard.sessions.pointers import pointer_path, process_pointer_path, read_pointer
from driftguard.store import livecache
from driftguard.store.handoff_files import handoff_files
from driftguard.store.history import HistoryStore, history_key
from driftguard.store.livecache import LiveStatus

SESSION_ID = "c3a9e0d4-5f61-4b27-8d93-1e2f3a4b5c6d"
NEXT_SESSION_ID = "d4b0f1e5-6a72-4c38-9ea4-2f3a4b5c6d7e"
REPLIES = [
    "The importer reads each CSV row and maps the columns onto the order model.",
    "I added a check for empty SKU cells; rows without one are now reported, not dropped.",
    "The currency column was parsed as float; it now goes through Decimal instead.",
    "Tests for the three malformed-row cases pass; the full suite is green as well.",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project Claude Code runs in: CLAUDE_PROJECT_DIR points at it, as for hooks."""
    root = tmp_path / "shop"
    root.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    return root


@pytest.fixture
def transcript(isolated_home: Path, project: Path) -> Path:
    """The session's transcript, in Claude Code's own session folder (where the hooks'
    transcripts always are: only files there have a history)."""
    return write_claude_session(
        isolated_home / ".claude" / "projects" / "-shop" / f"{SESSION_ID}.jsonl",
        REPLIES,
        cwd=str(project),
        session_id=SESSION_ID,
    )


def hook_payload(event: str, transcript: Path, project: Path, **fields: Any) -> bytes:
    """What Claude Code writes on a hook's stdin: the common fields and the event's own."""
    common: dict[str, Any] = {
        "session_id": SESSION_ID,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
        "permission_mode": "default",
    }
    common.update(fields)
    return json.dumps(common).encode()


def session_start_payload(transcript: Path, project: Path, **fields: Any) -> bytes:
    return hook_payload(
        "SessionStart", transcript, project, source=fields.pop("source", "startup"), **fields
    )


def stop_payload(transcript: Path, project: Path, **fields: Any) -> bytes:
    values: dict[str, Any] = {
        "stop_hook_active": False,
        "last_assistant_message": REPLIES[-1],
        "background_tasks": [],
        "session_crons": [],
    }
    values.update(fields)
    return hook_payload("Stop", transcript, project, **values)


def prompt_payload(project: Path, session_id: str = SESSION_ID) -> bytes:
    return json.dumps(
        {
            "session_id": session_id,
            "transcript_path": f"/nowhere/{session_id}.jsonl",
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "now add the refund export",
        }
    ).encode()


def context_of(output: str, event: str) -> str:
    """The additionalContext of a hook's JSON output, checking its shape."""
    data = json.loads(output)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == event
    text = specific["additionalContext"]
    assert isinstance(text, str)
    return text


# --- SessionStart ----------------------------------------------------------------------


def test_session_start_points_the_project_at_this_transcript_and_prints_nothing(
    project: Path, transcript: Path
) -> None:
    output = run_hook("session-start", session_start_payload(transcript, project))
    assert output == ""
    assert read_pointer(project) == (transcript, "claude_code")
    record = json.loads(pointer_path(project).read_text(encoding="utf-8"))
    assert record["session_id"] == SESSION_ID


@pytest.fixture
def claude_host(monkeypatch: pytest.MonkeyPatch) -> ProcessInfo:
    """This test process stands in for the ``claude`` process that runs the hooks (whatever
    runs the tests: under CI every ancestor may be a shell, where no host is found)."""
    host = process_info(os.getpid()) or ProcessInfo(os.getpid(), os.getppid(), "claude", None)
    monkeypatch.setattr("driftguard._process.host_of_hook", lambda: host)
    monkeypatch.setenv("CLAUDECODE", "1")  # what Claude Code 2.1.197 sets for its hooks
    return host


def test_session_start_replaces_the_pointer_atomically_after_clear(
    project: Path, transcript: Path, tmp_path: Path, claude_host: ProcessInfo
) -> None:
    run_hook("session-start", session_start_payload(transcript, project))
    first_inode = pointer_path(project).stat().st_ino
    after_clear = write_claude_session(
        tmp_path / "projects" / "-shop" / f"{NEXT_SESSION_ID}.jsonl",
        REPLIES[:1],
        cwd=str(project),
        session_id=NEXT_SESSION_ID,
    )
    payload = session_start_payload(
        after_clear, project, session_id=NEXT_SESSION_ID, source="clear"
    )
    run_hook("session-start", payload)
    assert read_pointer(project) == (after_clear, "claude_code")
    assert pointer_path(project).stat().st_ino != first_inode  # renamed over, not rewritten
    host = claude_host
    process_pointer = json.loads(process_pointer_path(host.pid).read_text(encoding="utf-8"))
    assert process_pointer["transcript_path"] == str(after_clear)
    assert process_pointer["process_start"] == host.start
    names = {pointer_path(project).name, process_pointer_path(host.pid).name}
    assert {p.name for p in paths.pointers_dir().iterdir()} == names  # no temporaries left


def test_a_session_start_hook_run_by_hand_points_the_project_but_no_process_at_it(
    project: Path,
    transcript: Path,
    claude_host: ProcessInfo,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # run from a terminal (say in tmux) rather than by Claude Code: its nearest non-shell
    # ancestor is the terminal's, whose every other shell must not take this session
    monkeypatch.delenv("CLAUDECODE")
    run_hook("session-start", session_start_payload(transcript, project))
    assert read_pointer(project) == (transcript, "claude_code")
    assert not process_pointer_path(claude_host.pid).exists()


def test_session_start_removes_the_pointers_of_host_processes_that_ended(
    project: Path, transcript: Path, claude_host: ProcessInfo
) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    gone = process_pointer_path(ended.pid)
    gone.parent.mkdir(parents=True)
    gone.write_text(json.dumps({"transcript_path": str(transcript), "pid": ended.pid}), "utf-8")
    run_hook("session-start", session_start_payload(transcript, project))
    assert not gone.exists()


def test_session_start_without_claude_project_dir_uses_the_payloads_cwd(
    project: Path, transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")
    run_hook("session-start", session_start_payload(transcript, project))
    assert read_pointer(project) == (transcript, "claude_code")


def _save_handoff_of(transcript: Path, project: Path) -> None:
    assert main(["handoff", "--write", "--project", str(project), str(transcript)]) == 0


def test_a_waiting_handoff_is_added_to_the_next_sessions_context_once(
    project: Path, transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _save_handoff_of(transcript, project)
    capsys.readouterr()
    files = handoff_files(project)
    assert files.pending.exists()

    next_start = session_start_payload(
        transcript, project, session_id=NEXT_SESSION_ID, source="clear"
    )
    context = context_of(run_hook("session-start", next_start), "SessionStart")
    assert context.startswith("driftguard: the previous session in this project (session ")
    assert SESSION_ID in context.splitlines()[0]
    assert "## What we accomplished" in context
    assert "step 0: please continue" in context  # the first request, from the draft
    assert not files.pending.exists()
    consumed = json.loads(files.consumed.read_text(encoding="utf-8"))
    assert consumed["session_id"] == NEXT_SESSION_ID

    # consumed: a later session (or the same one starting again) does not get it twice
    assert run_hook("session-start", next_start) == ""
    third = session_start_payload(transcript, project, session_id="e5c1a2f6-0000-4000-8000-1")
    assert run_hook("session-start", third) == ""


def test_the_session_that_saved_the_handoff_does_not_take_it_back_on_resume(
    project: Path, transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _save_handoff_of(transcript, project)
    resumed = session_start_payload(transcript, project, source="resume")
    assert run_hook("session-start", resumed) == ""
    assert handoff_files(project).pending.exists()  # still waiting for another session


def test_a_handoff_behind_a_symlinked_driftguard_folder_is_neither_read_nor_claimed(
    project: Path, transcript: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    planted = tmp_path / "planted-project"
    planted.mkdir()
    elsewhere = write_claude_session(
        tmp_path / "projects" / "-planted" / "p.jsonl", REPLIES, cwd=str(planted)
    )
    _save_handoff_of(elsewhere, planted)  # a waiting handoff, in another project
    capsys.readouterr()
    (project / ".driftguard").symlink_to(planted / ".driftguard", target_is_directory=True)
    next_start = session_start_payload(transcript, project, session_id=NEXT_SESSION_ID)
    assert run_hook("session-start", next_start) == ""
    err = capsys.readouterr().err
    assert f"{project / '.driftguard'} is a symlink" in err
    assert handoff_files(planted).pending.exists()  # not claimed
    assert not handoff_files(planted).consumed.exists()
    assert read_pointer(project) == (transcript, "claude_code")  # the pointer still written


def test_cli_session_start_prints_the_hook_json_and_exits_0(
    project: Path,
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _save_handoff_of(transcript, project)
    capsys.readouterr()
    payload = session_start_payload(transcript, project, session_id=NEXT_SESSION_ID)
    monkeypatch.setattr("sys.stdin", _Stdin(payload))
    assert main(["hook", "session-start"]) == 0
    out, err = capsys.readouterr()
    assert out.endswith("}\n")
    assert "## Current state" in context_of(out, "SessionStart")
    assert err == ""


# --- Stop ------------------------------------------------------------------------------


def test_stop_refreshes_the_status_line_cache_and_appends_history(
    project: Path, transcript: Path
) -> None:
    assert run_hook("stop", stop_payload(transcript, project)) == ""
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.transcript_path == str(transcript)
    assert status.transcript_size == transcript.stat().st_size
    assert status.messages == 8  # four prompts, four replies
    assert status.context_tokens == 4010  # the last reply's usage: 10 + 4 × 1000
    assert status.context_window == 200_000
    assert status.warn_threshold == 61
    assert status.usable_window == 167_000  # where Claude Code compacts
    assert status.growth_per_turn == 1_000  # each turn's reply added 1,000 tokens
    assert status.loop is None
    snapshots = HistoryStore().read(history_key("claude_code", SESSION_ID))
    assert [s.score for s in snapshots] == [status.score]


def test_stop_scores_with_the_window_the_host_reported(project: Path, transcript: Path) -> None:
    livecache.write_host_window(SESSION_ID, 1_000_000)
    run_hook("stop", stop_payload(transcript, project))
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.context_window == 1_000_000


def test_stop_waits_for_the_last_reply_to_reach_the_transcript(
    project: Path, tmp_path: Path
) -> None:
    path = write_claude_session(
        tmp_path / f"{SESSION_ID}.jsonl", REPLIES[:3], cwd=str(project), session_id=SESSION_ID
    )
    complete = write_claude_session(
        tmp_path / "complete.jsonl", REPLIES, cwd=str(project), session_id=SESSION_ID
    )
    late_lines = complete.read_bytes()[len(path.read_bytes()) :]
    sleeps: list[float] = []

    def writer_catches_up(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:  # the host flushes its last lines while the hook waits
            with path.open("ab") as handle:
                handle.write(late_lines)

    payload = json.loads(stop_payload(path, project))
    stop(HookCall.of("claude_code", payload, dict(os.environ)), sleep=writer_catches_up)
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.messages == 8
    assert len(sleeps) == 2


def test_stop_of_a_missing_transcript_prints_nothing_and_says_why_on_stderr(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_hook("stop", stop_payload(tmp_path / "gone.jsonl", project)) == ""
    assert "driftguard hook stop: " in capsys.readouterr().err
    assert livecache.read_status(SESSION_ID) is None


# --- UserPromptSubmit ------------------------------------------------------------------


def _cached(score: int, threshold: int = 60, **extra: Any) -> None:
    livecache.write_status(
        LiveStatus(
            session_id=SESSION_ID,
            cli="claude_code",
            transcript_path="/t.jsonl",
            transcript_size=1,
            ts=1.0,
            score=score,
            state="drifting" if score > 60 else "warming",
            factors={"context_saturation": 70.0, "repetition": 64.5, "uncertainty": 5.0},
            messages=30,
            context_tokens=150_000,
            context_window=200_000,
            tokens_estimated=False,
            warn_threshold=threshold,
            **{"handoff_suggested": score >= threshold, **extra},
        )
    )


def test_the_prompt_hook_says_nothing_below_the_threshold_or_without_a_score(
    project: Path,
) -> None:
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""
    _cached(59)
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""


def test_the_prompt_hook_warns_once_per_crossing_of_the_threshold(project: Path) -> None:
    _cached(66)
    first = run_hook("user-prompt-submit", prompt_payload(project))
    line = context_of(first, "UserPromptSubmit")
    assert "\n" not in line
    assert line.startswith("driftguard: this session's drift score is 66/100 (drifting)")
    assert "warning threshold of 60" in line
    assert "context saturation 70, repetition 64" in line  # the two highest ≥ 10
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""  # not every prompt
    _cached(72)
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""  # still the same crossing
    _cached(40)
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""  # back below: re-armed
    _cached(61)
    assert context_of(run_hook("user-prompt-submit", prompt_payload(project)), "UserPromptSubmit")


def test_the_warning_threshold_comes_from_the_projects_config(
    project: Path, tmp_path: Path
) -> None:
    # Six identical replies: repetition 100 points, so the score clears a threshold of 30.
    looping = write_claude_session(
        tmp_path / f"{SESSION_ID}.jsonl",
        ["Let me look at the importer again and check the column mapping."] * 6,
        cwd=str(project),
        session_id=SESSION_ID,
    )
    (project / ".driftcli").write_text(json.dumps({"warnThreshold": 30}), encoding="utf-8")
    payload = stop_payload(looping, project, last_assistant_message="the column mapping.")
    run_hook("stop", payload)
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.warn_threshold == 30
    assert status.score >= 30
    output = run_hook("user-prompt-submit", prompt_payload(project))
    assert context_of(output, "UserPromptSubmit") == prompt_warning(status)


# --- always exit 0 ---------------------------------------------------------------------


@pytest.mark.parametrize("event", ["session-start", "stop", "user-prompt-submit"])
@pytest.mark.parametrize("stdin", [b"", b"{oops", b'"a string"'])
def test_a_bad_payload_prints_nothing_and_exits_0(
    event: str,
    stdin: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin(stdin))
    assert main(["hook", event]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"driftguard hook {event}: HookInputError")


def test_an_unknown_event_or_a_bad_flag_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin(b"{}"))
    assert main(["hook", "pre-compact"]) == 0
    assert main(["hook", "stop", "--no-such-flag"]) == 0
    assert main(["hook"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown event 'pre-compact'" in err


class _Stdin:
    """A stand-in for ``sys.stdin`` whose ``buffer`` holds ``data``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_a_payload_nested_too_deeply_is_reported_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert run_hook("stop", deep) == ""
    assert "not JSON" in capsys.readouterr().err


def _cached_loop(loop: str | None, key: str | None, score: int = 40) -> None:
    """A cached score with a loop going on: the remedy is to step back, so the stop hook
    cached no handoff offer."""
    _cached(
        score,
        61,
        loop=loop,
        loop_key=key,
        usable_window=167_000,
        growth_per_turn=5_000,
        handoff_suggested=False,
    )


def test_the_prompt_hook_tells_the_model_once_per_loop_going_on(project: Path) -> None:
    _cached_loop("npm test ×3", "failing|Bash:aaaa")
    line = context_of(run_hook("user-prompt-submit", prompt_payload(project)), "UserPromptSubmit")
    assert line.startswith("driftguard: the last tool calls repeat (npm test ×3)")
    _cached_loop("npm test ×4", "failing|Bash:aaaa")  # the same loop, longer: not again
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""
    _cached_loop(None, None)
    assert run_hook("user-prompt-submit", prompt_payload(project)) == ""
    _cached_loop("ls ⇄ cat a.py ×4", "alternating|Bash:bbbb,Bash:cccc")  # another loop
    line = context_of(run_hook("user-prompt-submit", prompt_payload(project)), "UserPromptSubmit")
    assert "(ls ⇄ cat a.py ×4)" in line


def test_a_loop_and_a_crossing_of_the_threshold_are_told_together(project: Path) -> None:
    _cached_loop("npm test ×3", "failing|Bash:aaaa", score=70)
    notices = context_of(
        run_hook("user-prompt-submit", prompt_payload(project)), "UserPromptSubmit"
    ).split("\n\n")
    lines = [notice.splitlines()[0] for notice in notices]
    assert lines[0].startswith("driftguard: this session's drift score is 70/100")
    assert lines[0].endswith("The loop below is what raised it: step back rather than start over.")
    assert "save_handoff" not in notices[0]  # a new session would hit the same wall
    assert lines[1].startswith("driftguard: the last tool calls repeat (npm test ×3)")


HEAVY = ("numpy", "sklearn", "scipy")


def _modules_after_hook(event: str, stdin: bytes, project: Path) -> list[str]:
    """The heavy modules a whole ``driftguard hook EVENT`` process imported."""
    import subprocess
    import sys

    code = (
        "import sys, driftguard.cli as c; c.main(['hook', sys.argv[1]]); "
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, event],
        input=stdin,
        capture_output=True,
        check=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
    )
    return list(json.loads(done.stderr.decode().splitlines()[-1].replace("'", '"')))


def test_the_prompt_and_start_hooks_import_neither_numpy_nor_scikit_learn(
    project: Path, transcript: Path
) -> None:
    start = session_start_payload(transcript, project)
    prompt = hook_payload("UserPromptSubmit", transcript, project, prompt="go on")
    assert _modules_after_hook("session-start", start, project) == []
    assert _modules_after_hook("user-prompt-submit", prompt, project) == []


def test_the_stop_hook_scores_a_remembered_goal_without_scikit_learn(
    project: Path, transcript: Path
) -> None:
    HistoryStore().save_goal(history_key("claude_code", SESSION_ID), "import the CSV orders")
    stop_payload = hook_payload("Stop", transcript, project, stop_hook_active=False)
    assert "sklearn" not in _modules_after_hook("stop", stop_payload, project)
    status = livecache.read_status(SESSION_ID)
    assert status is not None
    assert status.factors["goal_distance"] is not None
