"""Real Claude Code with `driftguard setup --hooks` applied: the hooks run, the pointer and
the status-line cache follow the session, and a saved handoff reaches the next session
. The model is :mod:`fake_model` on 127.0.0.1; HOME is private to the test."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session
from e2e_hosts import (
    claude_project_folder,
    driftguard_command,
    host_env,
    run_cli,
)
from fake_model import FakeModel, call_tool, say

from driftguard.sessions.pointers import pointer_path, read_pointer
from driftguard.store import livecache

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
pytest_plugins = ["e2e_fixtures"]

RealCli = Callable[[str], Path]

FIRST_REQUEST = "Make the importer reject rows without a SKU."
HANDOFF_HEADER = "driftguard: the previous session in this project"
WARNING_START = "driftguard: this session's drift score is"
OTHER_ID = "bbbbbbbb-0000-4000-8000-000000000002"


def _bodies(fake_model: FakeModel, skip: int) -> list[str]:
    """The Anthropic request bodies after the first ``skip`` ones, as JSON text."""
    return [json.dumps(body) for body in list(fake_model.iter_bodies("anthropic"))[skip:]]


def _claude(claude: Path, project: Path, env: dict[str, str], prompt: str, *extra: str) -> Any:
    args: list[str | Path] = [claude, "-p", prompt, "--output-format", "json", *extra]
    run = run_cli(args, cwd=project, env=env)
    assert run.returncode == 0, run.describe()
    result = run.json()
    assert result["is_error"] is False, run.describe()
    return result


def test_claude_code_runs_the_hooks_and_the_next_session_starts_with_the_handoff(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    claude = real_cli("claude")
    env = host_env(isolated_home, fake_model.url)
    (isolated_home / ".claude").mkdir()
    setup = run_cli([driftguard_command(), "setup", "--hooks"], cwd=isolated_home, env=env)
    assert setup.returncode == 0, setup.describe()
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text("utf-8"))
    assert set(settings["hooks"]) == {"SessionStart", "UserPromptSubmit", "Stop"}
    # warnThreshold 0: any score crosses it, so the prompt hook's warning shows up as soon
    # as the stop hook has cached a score.
    (host_project / ".driftcli").write_text(json.dumps({"warnThreshold": 0}), "utf-8")

    fake_model.set_plan(
        [
            say("Rows without a SKU are now rejected and listed in the import report."),
            call_tool("save_handoff", {}),
        ]
    )
    first = _claude(claude, host_project, env, FIRST_REQUEST)
    session_id = first["session_id"]
    transcript = (
        isolated_home
        / ".claude"
        / "projects"
        / claude_project_folder(host_project)
        / f"{session_id}.jsonl"
    )
    assert transcript.is_file()

    # SessionStart wrote the pointer to the transcript Claude Code actually used.
    pointer = json.loads(pointer_path(host_project).read_text("utf-8"))
    assert pointer["transcript_path"] == str(transcript)
    assert pointer["session_id"] == session_id
    assert pointer["cli"] == "claude_code"

    # Stop (synchronous) refreshed the status-line cache before `claude -p` returned.
    status = livecache.read_status(session_id)
    assert status is not None
    assert status.transcript_path == str(transcript)
    assert status.messages == 2
    assert status.warn_threshold == 0
    assert not any(WARNING_START in body for body in _bodies(fake_model, 0))

    sent_before = len(list(fake_model.iter_bodies("anthropic")))
    allow = ("--allowedTools", "mcp__driftguard__save_handoff")
    _claude(
        claude,
        host_project,
        env,
        "Save a handoff for the next session.",
        "--resume",
        session_id,
        *allow,
    )
    second_turn = _bodies(fake_model, sent_before)
    # UserPromptSubmit warned once: the score cached after turn 1 is above threshold 0.
    assert any(WARNING_START in body for body in second_turn)
    status = livecache.read_status(session_id)
    assert status is not None
    assert status.messages == 4  # the stop hook ran again after turn 2

    # save_handoff, called by the model through the MCP server, saved it.
    handoff = host_project / ".driftguard" / "handoff.md"
    checkpoint = json.loads((host_project / ".driftguard" / "handoff.json").read_text("utf-8"))
    assert checkpoint["session_id"] == session_id
    assert FIRST_REQUEST in handoff.read_text("utf-8")
    assert (host_project / ".driftguard" / ".gitignore").read_text("utf-8").endswith("*\n")
    assert (host_project / ".driftguard" / "handoff.pending").exists()

    # A new session starts with the handoff in its context (the fake model sees it).
    fake_model.set_plan([say("Picking up from the handoff."), say("Still fine.")])
    sent_before = len(list(fake_model.iter_bodies("anthropic")))
    second = _claude(claude, host_project, env, "Carry on with the importer.")
    assert second["session_id"] != session_id
    bodies = _bodies(fake_model, sent_before)
    assert any(HANDOFF_HEADER in body and FIRST_REQUEST in body for body in bodies)
    assert not (host_project / ".driftguard" / "handoff.pending").exists()
    consumed = json.loads((host_project / ".driftguard" / "handoff.consumed").read_text("utf-8"))
    assert consumed["session_id"] == second["session_id"]
    pointer = json.loads(pointer_path(host_project).read_text("utf-8"))
    assert pointer["session_id"] == second["session_id"]

    # Consumed: the session after that does not get it again.
    sent_before = len(list(fake_model.iter_bodies("anthropic")))
    third = _claude(claude, host_project, env, "What is next?")
    assert third["session_id"] not in (session_id, second["session_id"])
    assert not any(HANDOFF_HEADER in body for body in _bodies(fake_model, sent_before))
    assert os.path.exists(host_project / ".driftguard" / "handoff.md")  # kept, not re-sent


def test_claude_codes_get_drift_is_about_the_session_its_own_process_started(
    real_cli: RealCli,
    fake_model: FakeModel,
    isolated_home: Path,
    host_project: Path,
    tmp_path: Path,
) -> None:
    # The SessionStart hook (run by claude through /bin/sh -c)
    # points its claude process at the transcript, and the MCP server (claude's child)
    # reads that pointer, whatever session another terminal started in the project since.
    claude = real_cli("claude")
    env = host_env(isolated_home, fake_model.url)
    (isolated_home / ".claude").mkdir()
    setup = run_cli([driftguard_command(), "setup", "--hooks"], cwd=isolated_home, env=env)
    assert setup.returncode == 0, setup.describe()
    fake_model.set_plan(
        [say("The importer reads the CSV header first."), call_tool("get_drift", {}), say("ok")]
    )
    first = _claude(claude, host_project, env, FIRST_REQUEST)
    session_id = first["session_id"]
    folder = isolated_home / ".claude" / "projects" / claude_project_folder(host_project)
    transcript = folder / f"{session_id}.jsonl"
    # Another terminal's session starts in the project as this one resumes: a second
    # SessionStart hook points the project at it, after driftguard's own hook ran.
    other = write_claude_session(
        folder / f"{OTHER_ID}.jsonl", ["other", "terminal"], cwd=str(host_project)
    )
    meanwhile = tmp_path / "other_terminal.py"
    meanwhile.write_text(
        "import time\nfrom pathlib import Path\n"
        "from driftguard.sessions.pointers import write_pointer\n"
        "time.sleep(1)\n"
        f"write_pointer(Path({str(host_project)!r}), Path({str(other)!r}), 'claude_code', None)\n",
        "utf-8",
    )
    settings_file = isolated_home / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text("utf-8"))
    command = {"type": "command", "command": f"{sys.executable} {meanwhile}", "timeout": 10}
    settings["hooks"]["SessionStart"].append({"hooks": [command]})
    settings_file.write_text(json.dumps(settings), "utf-8")

    resumed = _claude(
        claude,
        host_project,
        env,
        "Check the drift of this session.",
        "--resume",
        session_id,
        "--allowedTools",
        "mcp__driftguard__get_drift",
    )
    assert resumed["session_id"] == session_id
    assert read_pointer(host_project) == (other, "claude_code")  # the other terminal's
    state = Path(os.environ["DRIFTGUARD_HOME"])
    pointers = [
        json.loads(path.read_text("utf-8")) for path in (state / "pointers").glob("process-*")
    ]
    # one: the first run's claude process has ended, and its pointer went with it
    assert [(p["process_name"], p["transcript_path"]) for p in pointers] == [
        ("claude", str(transcript))
    ]
    records = [json.loads(line) for line in transcript.read_text("utf-8").splitlines()]
    report = next(
        record["mcpMeta"]["structuredContent"] for record in records if "mcpMeta" in record
    )
    assert report["session"]["path"] == str(transcript)
    assert report["session"]["resolved_by"] == "process_pointer"
