"""Which session a command without PATH is about: a Claude Code hook's pointer does not
take over the other CLIs' sessions, and a subfolder finds its
project's session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import write_project_session

from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.sessions.pointers import write_pointer

CLAUDE_ID = "aaaaaaaa-0000-4000-8000-000000000001"
CODEX_THREAD = "019ad000-0000-7000-8000-00000000000a"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    root.mkdir(parents=True)
    return root


def codex_rollout(home: Path, project: Path, mtime: float) -> Path:
    """A Codex rollout of ``project`` with one exchange, last changed at ``mtime``."""
    path = home / ".codex" / "sessions" / "2026" / "11" / "30"
    path /= f"rollout-2026-11-30T09-15-00-{CODEX_THREAD}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = "2026-11-30T09:15:00.000Z"
    meta = {"id": CODEX_THREAD, "cwd": str(project), "originator": "codex_cli_rs"}
    records = [
        {"timestamp": stamp, "type": "session_meta", "payload": meta},
        {"timestamp": stamp, "type": "turn_context", "payload": {"cwd": str(project)}},
        {
            "timestamp": stamp,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "import the CSV files"}],
            },
        },
        {
            "timestamp": stamp,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "The importer reads them now."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(argv) == 0, capsys.readouterr().err
    value = json.loads(capsys.readouterr().out)
    assert isinstance(value, dict)
    return value


def _session(report: dict[str, object]) -> dict[str, object]:
    session = report["session"]
    assert isinstance(session, dict)
    return session


# --- B1 ------------------------------------------------------------------------------


@pytest.fixture
def claude_pointer(isolated_home: Path, project: Path) -> Path:
    """The project's Claude Code session, pointed at by a ``SessionStart`` hook that ran
    long ago (the transcript last changed at 1,000,000,000)."""
    session = write_project_session(isolated_home, project, ["a", "b"], session_id=CLAUDE_ID)
    os.utime(session, (1_000_000_000, 1_000_000_000))
    write_pointer(project, session, "claude_code", CLAUDE_ID)
    return session


def test_score_and_status_take_the_codex_session_written_after_claude_codes_pointer(
    isolated_home: Path,
    project: Path,
    claude_pointer: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rollout = codex_rollout(isolated_home, project, mtime=1_500_000_000)
    monkeypatch.chdir(project)
    scored = _session(_json(["score", "--json"], capsys))
    assert (scored["path"], scored["resolved_by"]) == (str(rollout), "newest_in_project")
    assert _json(["status", "--json"], capsys)["transcript_path"] == str(rollout)
    assert _json(["trend", "--json"], capsys)["session"] == {**scored}
    named = _session(_json(["score", "--json", "--cli", "claude_code"], capsys))
    assert (named["path"], named["resolved_by"]) == (str(claude_pointer), "pointer")


def test_the_pointer_still_wins_on_the_command_line_while_its_session_is_the_newest(
    isolated_home: Path,
    project: Path,
    claude_pointer: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    codex_rollout(isolated_home, project, mtime=900_000_000)
    monkeypatch.chdir(project)
    scored = _session(_json(["score", "--json"], capsys))
    assert (scored["path"], scored["resolved_by"]) == (str(claude_pointer), "pointer")


# --- N3 ------------------------------------------------------------------------------


@pytest.fixture
def in_subfolder(isolated_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project has a Claude Code session; the working directory is a folder inside
    it that has none. Returns the session file."""
    session = write_project_session(
        isolated_home,
        project,
        [f"the parser reads line {i} of the file" for i in range(4)],
        session_id=CLAUDE_ID,
    )
    inner = project / "src" / "parser"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    return session


def test_score_in_a_subfolder_scores_the_projects_session_and_says_where_it_found_it(
    project: Path, in_subfolder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".driftcli").write_text(json.dumps({"preset": "strict"}), "utf-8")
    report = _json(["score", "--json"], capsys)
    session = _session(report)
    assert (session["path"], session["found_in"]) == (str(in_subfolder), str(project))
    assert report["preset"] == "strict"  # the project's own config applies
    assert main(["score"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert (
        f" · resolved by newest in project of {project} (a folder above the working directory)"
        in last
    )


def test_status_trend_goal_and_report_in_a_subfolder_use_the_projects_session(
    project: Path, in_subfolder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _json(["status", "--json"], capsys)["transcript_path"] == str(in_subfolder)
    assert _session(_json(["trend", "--json"], capsys))["found_in"] == str(project)
    goal = _json(["goal", "--set", "parse the file", "--json"], capsys)
    assert _session(goal)["path"] == str(in_subfolder)
    assert main(["report", "--all", "-o", str(tmp_path / "pages")]) == 0
    assert capsys.readouterr().out.endswith(f"1 session of {project}.\n")


def test_handoff_write_in_a_subfolder_saves_in_the_project(
    project: Path, in_subfolder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", "--write"]) == 0
    out, err = capsys.readouterr()
    assert (project / ".driftguard" / "handoff.md").is_file()
    assert f"Saved the handoff draft to {project / '.driftguard' / 'handoff.md'}" in out
    assert err == ""


def test_a_named_project_is_not_walked_up_from(
    project: Path, in_subfolder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--project", "."]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first == f"driftguard: error: no session found for {Path.cwd()}; looked in:"


def test_no_session_found_tells_which_files_in_the_projects_folder_were_skipped_and_why(
    project: Path,
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a session of another folder, copied into the project's own Claude Code folder
    other = tmp_path / "elsewhere"
    copied = write_project_session(isolated_home, other, ["a reply"], session_id=CLAUDE_ID)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    folder.mkdir(parents=True)
    copied.rename(folder / copied.name)
    monkeypatch.chdir(project)
    assert main(["score"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"driftguard: error: no session found for {project}; looked in:"
    place = lines.index(f"  Claude Code: {folder} (*.jsonl, not agent-*.jsonl)")
    assert lines[place + 1] == f"    1 file there was skipped: it belongs to {other} (its cwd)"
