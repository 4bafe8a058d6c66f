"""A one-off ``--context-window`` on the command line, from the user's side: shown, never
recorded, so ``driftguard trend`` and ``driftguard status`` keep telling the same story."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_project_session

from driftguard.cli import main

SESSION_ID = "5ca1ab1e-0000-4000-8000-000000000021"
REPLIES = [f"I reworked the cache layer, step {i}: eviction and warm-up." for i in range(30)]


@pytest.fixture
def transcript(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Claude Code session of the current directory, in Claude Code's own folder."""
    project = tmp_path / "cache"
    project.mkdir()
    monkeypatch.chdir(project)
    return write_project_session(isolated_home, project, REPLIES, session_id=SESSION_ID)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``driftguard ARGV`` must succeed; its stdout."""
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    assert "error" not in err
    return out


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(run(capsys, *argv, "--json"))
    return payload


def test_a_one_off_context_window_is_shown_but_leaves_the_trend_as_it_was(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = as_json(capsys, "score", "--cli", "claude_code")
    assert own["recorded"] is True
    tried = as_json(capsys, "score", "--cli", "claude_code", "--context-window", "60000")
    assert tried["score"] > own["score"]  # the smaller window is shown as asked
    assert (tried["recorded"], tried["not_recorded_reason"]) == (
        False,
        "a try-out with context window 60,000 (the assumed one is 200,000)",
    )
    text = run(capsys, "score", "--cli", "claude_code", "--context-window", "60000")
    assert "not recorded: a try-out with context window 60,000 (the assumed one is 200,000)" in (
        text
    )
    as_json(capsys, "score", "--cli", "claude_code")  # the same moment, its own window
    trend = as_json(capsys, "trend", "--cli", "claude_code")
    assert trend["snapshots"] == 1
    assert (trend["scores"], trend["peak"]) == ([own["score"]], own["score"])
