"""The handoff loop on disk: `handoff --write` / `save_handoff` save it in
`.driftguard/`, the next SessionStart takes it once (issue #5 item 4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import write_claude_session
from mcp import Client

from driftguard.adapters import parse_session
from driftguard.cli import main
from driftguard.discovery import claude_project_dir_name
from driftguard.handoff import SECTIONS, build_handoff
from driftguard.handoff_files import (
    CONTEXT_CHARS,
    handoff_context,
    handoff_files,
    save_handoff,
    take_handoff,
)
from driftguard.presets import load_preset
from driftguard.scoring import score_session
from driftguard.server import create_server

SESSION_ID = "7d1e2f30-4a5b-4c6d-8e7f-90a1b2c3d4e5"
OTHER_SESSION = "8e2f3041-5b6c-4d7e-9f80-a1b2c3d4e5f6"
GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
"""A made-up token in GitHub's format, which the secret gate redacts."""


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    project = tmp_path / "api"
    project.mkdir()
    return write_claude_session(
        tmp_path / "t" / f"{SESSION_ID}.jsonl",
        [
            "The rate limiter now counts requests per API key in a sliding window.",
            "I moved the limits into settings so each plan can have its own.",
            "The 429 response carries a Retry-After header computed from the window.",
        ],
        cwd=str(project),
        session_id=SESSION_ID,
    )


def _save(session_file: Path, project: Path, now: float | None = None) -> None:
    session = parse_session(session_file)
    report = score_session(session, weights=load_preset("coding").weights)
    target = str(handoff_files(project).handoff)
    save_handoff(project, build_handoff(session, report, saved_to=target), report, now=now)


def test_saving_writes_the_draft_checkpoint_pending_marker_and_a_gitignore(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project, now=1_800_000_000.0)
    files = handoff_files(project)
    assert files.gitignore.read_text(encoding="utf-8").splitlines()[-1] == "*"
    draft = files.handoff.read_text(encoding="utf-8")
    assert draft.startswith(SECTIONS[0])
    assert [line for line in draft.splitlines() if line.startswith("## ")] == list(SECTIONS)
    checkpoint = json.loads(files.checkpoint.read_text(encoding="utf-8"))
    assert checkpoint["session_id"] == SESSION_ID
    assert checkpoint["cli"] == "claude_code"
    assert checkpoint["created"] == 1_800_000_000.0
    assert checkpoint["created_at"] == "2027-01-15T08:00:00Z"
    assert isinstance(checkpoint["score"], int)
    assert set(checkpoint["factors"]) >= {"context_saturation", "repetition"}
    assert checkpoint["files_touched"] == []
    assert json.loads(files.pending.read_text(encoding="utf-8"))["id"] == checkpoint["id"]


def test_saving_again_keeps_the_previous_handoff_and_an_existing_gitignore(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    files = handoff_files(project)
    files.folder.mkdir()
    files.gitignore.write_text("handoff.prev.md\n", encoding="utf-8")
    _save(session_file, project)
    files.handoff.write_text("## What we accomplished\n- the model's own words\n", "utf-8")
    _save(session_file, project)
    assert "the model's own words" in files.previous.read_text(encoding="utf-8")
    assert "the model's own words" not in files.handoff.read_text(encoding="utf-8")
    assert files.gitignore.read_text(encoding="utf-8") == "handoff.prev.md\n"


def test_a_handoff_is_taken_once_and_not_by_the_session_that_saved_it(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    assert take_handoff(project, SESSION_ID) is None  # the same session, resumed
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    assert taken.checkpoint["session_id"] == SESSION_ID
    assert take_handoff(project, OTHER_SESSION) is None
    assert take_handoff(project, "9f304152-0000-4000-8000-000000000000") is None


def test_nothing_is_taken_when_nothing_waits_or_the_files_do_not_match(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    assert take_handoff(project, OTHER_SESSION) is None  # no .driftguard at all
    _save(session_file, project)
    files = handoff_files(project)
    files.pending.write_text(json.dumps({"id": "someone-else"}), encoding="utf-8")
    assert take_handoff(project, OTHER_SESSION) is None
    assert files.pending.exists()  # not claimed: it blocks nothing and waits


def test_the_handoff_passes_the_secret_gate_again_before_reaching_the_context(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff_path = handoff_files(project).handoff
    handoff_path.write_text(f"## Current state\n- deploy token {GITHUB_TOKEN}\n", "utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert GITHUB_TOKEN not in context
    assert "[REDACTED:github-token:" in context
    assert "saved in .driftguard/handoff.md" in context


def test_a_long_handoff_is_cut_to_stay_in_the_context(session_file: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff_files(project).handoff.write_text("- step\n" * 3000, encoding="utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert len(context) < CONTEXT_CHARS + 500
    assert context.endswith("[… cut; the whole handoff is in .driftguard/handoff.md]\n")


def test_cli_handoff_write_says_where_it_saved_and_asks_to_complete_it_in_place(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "api"
    assert main(["handoff", "--write", str(session_file)]) == 0  # the session's cwd
    out = capsys.readouterr().out
    saved = project / ".driftguard" / "handoff.md"
    assert out.splitlines()[0].startswith(f"Saved the handoff draft to {saved} ")
    assert f"driftguard saved the draft below as `{saved}`" in out
    assert "Complete it in place" in out


def test_cli_handoff_write_json_names_the_files(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "elsewhere"
    project.mkdir()
    assert main(["handoff", "--write", "--json", "--project", str(project), str(session_file)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["saved"]["handoff"] == str(project / ".driftguard" / "handoff.md")
    assert data["saved"]["record"]["session_id"] == SESSION_ID
    assert data["draft"] == (project / ".driftguard" / "handoff.md").read_text(encoding="utf-8")


def test_cli_handoff_without_write_saves_nothing(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", str(session_file)]) == 0
    assert "Write a file named `handoff.md`" in capsys.readouterr().out
    assert not (tmp_path / "api" / ".driftguard").exists()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_get_handoff_with_write_saves_the_handoff_in_the_project(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "api"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    write_claude_session(
        folder / f"{SESSION_ID}.jsonl",
        ["A reply about the limiter.", "Another reply about its settings."],
        cwd=str(project),
        session_id=SESSION_ID,
    )
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        plain = await client.call_tool("get_handoff", {})
        assert plain.structured_content is not None
        assert plain.structured_content["saved_to"] is None
        assert not (project / ".driftguard").exists()
        result = await client.call_tool("save_handoff", {})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    saved = project / ".driftguard" / "handoff.md"
    assert data["saved_to"] == str(saved)
    assert data["checkpoint"] == str(project / ".driftguard" / "handoff.json")
    assert f"driftguard saved the draft below as `{saved}`" in data["prompt"]
    assert saved.read_text(encoding="utf-8").startswith(SECTIONS[0])
    assert os.path.exists(project / ".driftguard" / "handoff.pending")


def test_a_claimed_handoff_is_still_given_when_its_consumed_record_cannot_be_written(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    files = handoff_files(project)
    files.consumed.mkdir()  # os.replace cannot put a file there
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    assert not files.pending.exists()
    assert take_handoff(project, OTHER_SESSION) is None
