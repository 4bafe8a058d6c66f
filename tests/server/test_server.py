"""The MCP server, driven by the SDK's own client in memory and as a real stdio process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation

from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.server import create_server
from driftguard.sessions.pointers import write_pointer
from driftguard.store.history import HistoryStore

pytestmark = pytest.mark.anyio

SECTIONS = (
    "## What we accomplished",
    "## Current state",
    "## Files modified",
    "## Open questions and next steps",
    "## Context for next session",
)


INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}
"""A raw JSON-RPC ``initialize`` request, for tests that talk to a server process line by line."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def client(mode: str) -> AsyncIterator[Client]:
    async with Client(create_server(), mode=mode) as connected:  # type: ignore[arg-type]
        yield connected


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory, the server's cwd, with one Claude Code session in its folder."""
    root = tmp_path / "work" / "app"
    root.mkdir(parents=True)
    monkeypatch.chdir(root)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(root))
    write_claude_session(
        folder / "aaaaaaaa-0000-4000-8000-000000000001.jsonl",
        [f"Working on the parser, step {i}, adding tests for the parser." for i in range(6)],
        cwd=str(root),
        session_id="aaaaaaaa-0000-4000-8000-000000000001",
    )
    return root


def _session_file(project: Path, home: Path) -> Path:
    folder = home / ".claude" / "projects" / claude_project_dir_name(str(project))
    return folder / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"


def _named_file(home: Path, name: str = "s.jsonl") -> Path:
    """A session file a caller names by path: in Claude Code's session folder of the
    home, where MCP may read it, for another project than the server's."""
    return home / ".claude" / "projects" / "-elsewhere" / name


async def test_tools_are_read_only_except_save_handoff_and_declare_their_output(
    client: Client,
) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"get_drift", "get_handoff", "get_trend", "save_handoff"}
    for tool in tools.values():
        assert tool.annotations is not None
        assert tool.output_schema is not None
    for name in ("get_drift", "get_handoff", "get_trend"):
        assert tools[name].annotations.read_only_hint is True  # type: ignore[union-attr]
    # save_handoff writes .driftguard/handoff.md: not read-only, but only
    # additive (a replaced handoff.md is kept as handoff.prev.md).
    handoff = tools["save_handoff"].annotations
    assert handoff is not None
    assert handoff.read_only_hint is False
    assert handoff.destructive_hint is False
    drift_schema = tools["get_drift"].output_schema
    assert drift_schema is not None
    assert {"score", "state", "factors", "session"} <= set(drift_schema["properties"])
    prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
    assert prompts == {"handoff"}


async def test_get_drift_of_an_explicit_path_reports_the_design_fields(
    client: Client, isolated_home: Path
) -> None:
    session = write_claude_session(_named_file(isolated_home), ["same reply words here"] * 5)
    result = await client.call_tool("get_drift", {"session": str(session)})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    assert {
        "score",
        "state",
        "factors",
        "weights",
        "messages",
        "handoff_suggested",
        "recommendation",
        "session",
    } <= set(data)
    assert data["factors"]["repetition"] == 100.0
    assert data["session"]["path"] == str(session)
    assert data["session"]["resolved_by"] == "argument"
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.splitlines()[0] == data["recommendation"]
    assert f"Session: claude_code · {session}" in text


async def test_get_drift_structured_content_carries_what_score_json_adds_for_issue_8(
    client: Client, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
    result = await client.call_tool("get_drift", {})
    data = result.structured_content
    assert data is not None
    session = data["session"]
    assert session["usable_window"] == 90_000
    assert session["tokens_until_compaction"] == 90_000 - session["context_tokens"]
    assert session["usable_window_overrides"] == [
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50 (environment)"
    ]
    # claude-sonnet-4-5 may run with 1M: with nothing set, Claude Code's choice is assumed
    assert session["context_window_source"] == "assumed"
    assert "[1m]" in session["context_window_rule"]
    assert (data["scoring"], data["preset"], data["loop"]) == ("calibrated", "coding", None)


async def test_get_drift_finds_the_newest_session_of_the_project(
    client: Client, project: Path, isolated_home: Path
) -> None:
    result = await client.call_tool("get_drift", {})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    assert data["session"]["path"] == str(_session_file(project, isolated_home))
    assert data["session"]["resolved_by"] == "newest_in_project"


async def test_claude_code_session_id_from_the_environment_wins_over_newest(
    client: Client, project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _session_file(project, isolated_home).parent
    newer = write_claude_session(
        folder / "bbbbbbbb-0000-4000-8000-000000000002.jsonl",
        ["a newer session reply", "another reply"],
        cwd=str(project),
        session_id="bbbbbbbb-0000-4000-8000-000000000002",
    )
    os.utime(newer, (2_000_000_000, 2_000_000_000))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "aaaaaaaa-0000-4000-8000-000000000001")
    result = await client.call_tool("get_drift", {})
    data = result.structured_content
    assert data is not None
    assert data["session"]["resolved_by"] == "env_session_id"
    assert data["session"]["path"] == str(_session_file(project, isolated_home))


async def test_the_environment_session_id_wins_over_the_pointer_another_terminal_wrote(
    client: Client,
    project: Path,
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two Claude Code sessions in one project: the project's pointer
    # names whichever started last; this server's own session id comes first.
    other = write_claude_session(tmp_path / "other-terminal.jsonl", ["fresh start", "ok"])
    write_pointer(project, other, "claude_code", "11111111-2222-4333-8444-555555555555")
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "aaaaaaaa-0000-4000-8000-000000000001")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    data = (await client.call_tool("get_drift", {})).structured_content
    assert data is not None
    assert data["session"]["resolved_by"] == "env_session_id"
    assert data["session"]["path"] == str(_session_file(project, isolated_home))
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID")  # without an id: the project's pointer
    data = (await client.call_tool("get_drift", {})).structured_content
    assert data is not None
    assert (data["session"]["resolved_by"], data["session"]["path"]) == ("pointer", str(other))


async def test_a_codex_hosts_get_drift_is_about_its_own_session_not_claude_codes_pointer(
    project: Path, isolated_home: Path
) -> None:
    # One Claude Code SessionStart hook in the project, then Codex
    claude = _session_file(project, isolated_home)
    write_pointer(project, claude, "claude_code", "aaaaaaaa-0000-4000-8000-000000000001")
    thread = "019ad000-0000-7000-8000-00000000000a"
    rollout = isolated_home / ".codex" / "sessions" / "2026" / "11" / "30"
    rollout /= f"rollout-2026-11-30T09-15-00-{thread}.jsonl"
    rollout.parent.mkdir(parents=True)
    meta = {"id": thread, "cwd": str(project), "originator": "codex_cli_rs"}
    rollout.write_text(json.dumps({"type": "session_meta", "payload": meta}) + "\n", "utf-8")
    os.utime(rollout, (1_000_000_000, 1_000_000_000))  # older than the Claude session, even
    info = Implementation(name="codex-mcp-client", version="0.171.0")
    async with Client(create_server(), mode="legacy", client_info=info) as codex:
        data = (await codex.call_tool("get_drift", {})).structured_content
    assert data is not None
    assert (data["session"]["cli"], data["session"]["path"]) == ("codex_cli", str(rollout))
    assert data["session"]["resolved_by"] == "newest_in_project"


async def test_no_session_is_a_tool_error_that_says_where_it_looked(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = await client.call_tool("get_drift", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert ".claude" in text
    assert ".codex" in text


async def test_a_goal_given_once_is_remembered_for_the_session(
    client: Client, project: Path
) -> None:
    first = await client.call_tool("get_drift", {"goal": "add tests for the parser"})
    assert first.structured_content is not None
    assert first.structured_content["factors"]["goal_distance"] is not None
    second = await client.call_tool("get_drift", {})
    data = second.structured_content
    assert data is not None
    assert data["goal"] == "add tests for the parser"
    assert data["factors"]["goal_distance"] == first.structured_content["factors"]["goal_distance"]
    assert data["weights"]["goal_distance"] > 0


async def test_a_goal_given_again_unchanged_is_not_written_again(
    client: Client, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved: list[str] = []
    original = HistoryStore.save_goal

    def counting(self: HistoryStore, key: str, goal: str) -> None:
        saved.append(goal)
        original(self, key, goal)

    monkeypatch.setattr(HistoryStore, "save_goal", counting)
    for goal in ("add tests for the parser", "add tests for the parser", "fix the lexer"):
        result = await client.call_tool("get_drift", {"goal": goal})
        assert result.structured_content is not None
        assert result.structured_content["goal"] == goal
    assert saved == ["add tests for the parser", "fix the lexer"]


async def test_get_trend_returns_the_recorded_scores_as_a_list(
    client: Client, project: Path, isolated_home: Path
) -> None:
    empty = await client.call_tool("get_trend", {})
    assert empty.is_error is False
    assert empty.structured_content is not None
    assert empty.structured_content["scores"] == []
    path = _session_file(project, isolated_home)
    for turns in (6, 7, 8):  # the session grows a turn between the calls
        write_claude_session(
            path,
            [
                f"Working on the parser, step {i}, adding tests for the parser."
                for i in range(turns)
            ],
            cwd=str(project),
            session_id="aaaaaaaa-0000-4000-8000-000000000001",
        )
        await client.call_tool("get_drift", {})
        await client.call_tool("get_drift", {})  # the same turn again: not a new snapshot
    trend = await client.call_tool("get_trend", {})
    data = trend.structured_content
    assert data is not None
    assert len(data["scores"]) == 3
    assert data["sparkline"] is not None
    assert len(data["sparkline"]) == 3
    assert data["trajectory"] == "stable"


async def test_the_structured_content_is_score_json_with_the_text_and_notes(
    client: Client, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    given = await client.call_tool("get_drift", {"goal": "add tests for the parser"})
    assert given.structured_content is not None
    assert (given.structured_content["goal_source"], given.structured_content["recorded"]) == (
        "given",
        True,
    )
    result = await client.call_tool("get_drift", {})
    data = result.structured_content
    assert data is not None
    assert main(["score", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # What the model reads (Claude Code and Codex hand it the structured content): the
    # command line's report, in its order — recommendation first — plus text and notes.
    assert list(data) == [*printed, "text", "notes"]
    assert next(iter(data)) == "recommendation"
    session = dict(data["session"])
    # the server also says which project it looked in, and where that came from
    assert (session.pop("project"), session.pop("project_source")) == (str(project), "cwd")
    assert {**data, "session": session, "text": None, "notes": None} == {
        **printed,
        "text": None,
        "notes": None,
    }
    assert data["goal_source"] == "remembered"
    assert data["goal_set_at"].endswith("Z")


async def test_the_model_reads_weights_to_4_decimals_and_factors_to_1(
    client: Client, project: Path
) -> None:
    result = await client.call_tool("get_drift", {"goal": "add tests for the parser"})
    data = result.structured_content
    assert data is not None
    for name, weight in data["weights"].items():
        assert weight == round(weight, 4), name
        assert len(repr(weight).split(".")[1]) <= 4, name
    for name, value in data["factors"].items():
        assert value is None or value == round(value, 1), name
    assert "Score: " in data["text"]
    assert (
        "Goal: “add tests for the parser” (given now, and kept for later calls)." in (data["text"])
    )


async def test_get_trend_has_the_field_names_of_trend_json_and_speaks_to_the_model(
    client: Client, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    await client.call_tool("get_drift", {})
    result = await client.call_tool("get_trend", {})
    data = result.structured_content
    assert data is not None
    assert main(["trend", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert list(data) == [*printed, "text", "notes"]
    session = dict(data["session"])
    assert (session.pop("project"), session.pop("project_source")) == (str(project), "cwd")
    assert {**data, "session": session, "text": None, "notes": None} == {
        **printed,
        "text": None,
        "notes": None,
    }
    assert data["trajectory"] is None  # one snapshot: no movement to judge
    assert "the trajectory needs at least 2" in data["text"]
    assert "stable" not in data["text"]
    assert "Session: claude_code · " in data["text"]


async def test_get_handoff_returns_the_five_sections(client: Client, project: Path) -> None:
    result = await client.call_tool("get_handoff", {})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    positions = [data["prompt"].index(section) for section in SECTIONS]
    assert positions == sorted(positions)
    assert data["goal"] == "step 0: please continue"


async def test_the_handoff_prompt_is_the_same_text(client: Client, project: Path) -> None:
    prompt = await client.get_prompt("handoff", {})
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    for section in SECTIONS:
        assert section in text


async def test_the_calling_host_narrows_the_search_to_its_own_sessions(
    project: Path, isolated_home: Path
) -> None:
    info = Implementation(name="gemini-cli-mcp-client", version="0.61.0")
    async with Client(create_server(), mode="legacy", client_info=info) as gemini:
        result = await gemini.call_tool("get_drift", {})
    # Only a Claude Code session exists for the project: a Gemini host must not get it.
    assert result.is_error is True
    assert ".gemini" in result.content[0].text  # type: ignore[union-attr]


def _server_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "DRIFTGUARD_HOME": str(home / ".driftcli"),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONWARNINGS": "ignore",
    }


async def test_a_real_stdio_server_process_answers_get_drift(
    tmp_path: Path, isolated_home: Path
) -> None:
    session = write_claude_session(_named_file(isolated_home), ["one reply", "two replies"])
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "driftguard", "serve"],
        env=_server_env(isolated_home),
        cwd=str(tmp_path),
    )
    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as stdio:
            result = await stdio.call_tool("get_drift", {"session": str(session)})
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["session"]["path"] == str(session)


def test_every_stdout_line_of_the_server_is_json_rpc(tmp_path: Path, isolated_home: Path) -> None:
    session = write_claude_session(_named_file(isolated_home), ["one reply", "two replies"])
    requests: list[dict[str, Any]] = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_drift", "arguments": {"session": str(session)}},
        },
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "driftguard", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_server_env(isolated_home),
        cwd=tmp_path,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    messages: list[dict[str, Any]] = []
    watchdog = threading.Timer(60, process.kill)  # a hung server fails the test, never the run
    watchdog.start()
    try:
        for request in requests:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        for line in process.stdout:  # ends at the answer to id 2, or when the server exits
            if line.strip():
                messages.append(json.loads(line))
                if messages[-1].get("id") == 2:
                    break
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
        watchdog.cancel()
    assert messages
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    answer = messages[-1]
    assert answer["id"] == 2
    assert answer["result"]["isError"] is False
    assert answer["result"]["structuredContent"]["session"]["path"] == str(session)


HEAVY_MODULES = (
    "numpy",
    "sklearn",
    "watchdog",
    "msgspec",
    "driftguard.adapters",
    "driftguard.engine.drift",
    "driftguard.sessions.incremental",
    "driftguard.scoring",
    "driftguard.store.history",
    "driftguard.secrets",
)
"""What a server does not import before its first tool call."""


def test_a_server_answers_initialize_and_lists_its_tools_before_importing_the_engine(
    tmp_path: Path, isolated_home: Path
) -> None:
    # Start-up time is measured in benchmarks/bench_drift.py; this checks what it is made of.
    code = (
        "import sys, anyio\n"
        "from mcp import Client\n"
        "import driftguard.cli\n"
        "from driftguard.server import create_server\n"
        "async def go():\n"
        "    async with Client(create_server(), mode='legacy') as c:\n"
        "        await c.list_tools()\n"
        "        await c.list_prompts()\n"
        "anyio.run(go)\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_server_env(isolated_home),
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_first_get_drift_without_a_goal_or_a_compaction_imports_neither_the_gate_nor_the_handoff(
    tmp_path: Path, isolated_home: Path
) -> None:
    # The secret gate and the handoff are slow to import; scoring such a session needs neither.
    session = write_claude_session(_named_file(isolated_home), ["one reply", "two replies"])
    code = (
        "import sys, anyio\n"
        "from mcp import Client\n"
        "from driftguard.server import create_server\n"
        "async def go():\n"
        "    async with Client(create_server(), mode='legacy') as c:\n"
        f"        result = await c.call_tool('get_drift', {{'session': {str(session)!r}}})\n"
        "        assert not result.is_error, result\n"
        "anyio.run(go)\n"
        "print(sorted(m for m in ('driftguard.secrets', 'driftguard.engine.handoff', "
        "'driftguard.store.handoff_files') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_server_env(isolated_home),
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"


async def test_under_cursor_another_clis_session_is_not_scored_and_the_error_says_so(
    project: Path,
) -> None:
    info = Implementation(name="cursor-vscode", version="1.0")
    async with Client(create_server(), mode="legacy", client_info=info) as cursor:
        result = await cursor.call_tool("get_drift", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert f"Cursor stores no chat for {project}; looked in:" in text
    assert "workspaceStorage" in text
    assert "claude_code" not in text


async def test_the_handoff_prompt_names_where_it_looked_when_nothing_is_found(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MCPError, match=r"\.claude"):
        await client.get_prompt("handoff", {})


async def test_the_handoff_prompt_takes_a_session(client: Client, isolated_home: Path) -> None:
    session = write_claude_session(_named_file(isolated_home), ["first reply", "second reply"])
    prompt = await client.get_prompt("handoff", {"session": str(session)})
    assert str(session) in prompt.messages[0].content.text  # type: ignore[union-attr]


async def test_a_session_file_naming_a_victim_folder_is_not_saved_there_nor_anywhere(
    client: Client, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim-project"
    victim.mkdir()
    session = write_claude_session(
        _named_file(isolated_home), ["a reply", "b reply"], cwd=str(victim)
    )
    server_cwd = tmp_path / "server-cwd"
    server_cwd.mkdir()
    monkeypatch.chdir(server_cwd)
    result = await client.call_tool("save_handoff", {"session": str(session)})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    assert data["saved_to"] is None
    assert data["checkpoint"] is None
    assert any("was not saved" in note for note in data["notes"])
    assert "## What we accomplished" in data["prompt"]  # the handoff, as text
    assert "Note: the handoff was not saved" in result.content[0].text  # type: ignore[union-attr]
    assert list(victim.iterdir()) == []
    assert list(server_cwd.iterdir()) == []


async def test_a_session_of_the_servers_project_is_saved_in_that_project(
    client: Client, project: Path, isolated_home: Path
) -> None:
    result = await client.call_tool(
        "save_handoff", {"session": str(_session_file(project, isolated_home))}
    )
    data = result.structured_content
    assert data is not None
    assert data["saved_to"] == str(project / ".driftguard" / "handoff.md")
    assert data["notes"] == []


async def test_a_session_in_a_subfolder_of_the_project_is_saved_in_the_project(
    client: Client, project: Path, isolated_home: Path
) -> None:
    session = write_claude_session(
        _named_file(isolated_home), ["a reply", "b reply"], cwd=str(project / "src" / "api")
    )
    result = await client.call_tool("save_handoff", {"session": str(session)})
    assert result.structured_content is not None
    assert result.structured_content["saved_to"] == str(project / ".driftguard" / "handoff.md")


async def test_the_clients_declared_roots_are_projects_a_handoff_may_be_saved_in(
    mode: str, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.types import ListRootsResult, Root

    root = tmp_path / "workspace"
    root.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    monkeypatch.chdir(isolated_home)  # a host that starts servers in the home folder

    async def roots(*_args: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=root.as_uri(), name="workspace")])  # type: ignore[arg-type]

    ours = write_claude_session(_named_file(isolated_home, "a.jsonl"), ["x", "y"], cwd=str(root))
    theirs = write_claude_session(
        _named_file(isolated_home, "b.jsonl"), ["x", "y"], cwd=str(victim)
    )
    async with Client(create_server(), mode=mode, list_roots_callback=roots) as rooted:  # type: ignore[arg-type]
        saved = await rooted.call_tool("save_handoff", {"session": str(ours)})
        refused = await rooted.call_tool("save_handoff", {"session": str(theirs)})
    assert saved.structured_content is not None
    assert saved.structured_content["saved_to"] == str(root / ".driftguard" / "handoff.md")
    assert refused.structured_content is not None
    assert refused.structured_content["saved_to"] is None
    assert list(victim.iterdir()) == []


async def test_a_symlinked_driftguard_folder_is_refused_with_a_clear_message(
    client: Client, project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".driftguard").symlink_to(elsewhere, target_is_directory=True)
    result = await client.call_tool("save_handoff", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert f"{project / '.driftguard'} is a symlink" in text
    assert "never through a link" in text
    assert list(elsewhere.iterdir()) == []


async def test_a_folder_as_session_is_refused_as_a_folder(
    client: Client, isolated_home: Path
) -> None:
    folder = _named_file(isolated_home).parent
    folder.mkdir(parents=True)
    result = await client.call_tool("get_drift", {"session": str(folder)})
    assert result.is_error is True
    assert "is a folder" in result.content[0].text  # type: ignore[union-attr]


async def test_the_window_claude_code_reported_overrides_the_inferred_one(
    client: Client, isolated_home: Path
) -> None:
    from driftguard.store.livecache import write_host_window

    session = write_claude_session(
        _named_file(isolated_home, "cccccccc-0000-4000-8000-0.jsonl"),  # Claude Code's name
        ["one reply", "two replies"],
        session_id="cccccccc-0000-4000-8000-0",
    )
    before = await client.call_tool("get_drift", {"session": str(session)})
    assert before.structured_content is not None
    assert before.structured_content["session"]["context_window"] == 200_000
    write_host_window("cccccccc-0000-4000-8000-0", 1_000_000)
    after = await client.call_tool("get_drift", {"session": str(session)})
    assert after.structured_content is not None
    assert after.structured_content["session"]["context_window"] == 1_000_000


# --- reading only session files ---------------------------------------

SECRET_NOTE = "PRIVATE-NOTE-7f3a9c: the quarterly numbers are 4,812,300"
"""Text of a transcript-shaped file outside every session folder: must never come back."""


def _outside_transcript(tmp_path: Path) -> Path:
    return write_claude_session(tmp_path / "notes" / "notes.jsonl", [SECRET_NOTE, SECRET_NOTE])


async def _refusals(client: Client, session: str) -> list[str]:
    """The error text of every tool and of the prompt, asked about ``session``."""
    texts = []
    for tool in ("get_drift", "get_handoff", "save_handoff", "get_trend"):
        result = await client.call_tool(tool, {"session": session})
        assert result.is_error is True, tool
        assert result.structured_content is None
        texts.append(result.content[0].text)  # type: ignore[union-attr]
    with pytest.raises(MCPError) as caught:
        await client.get_prompt("handoff", {"session": session})
    texts.append(str(caught.value))
    return texts


async def test_a_transcript_outside_the_session_folders_is_refused_by_every_tool_with_the_rule(
    client: Client, tmp_path: Path
) -> None:
    outside = _outside_transcript(tmp_path)
    for text in await _refusals(client, str(outside)):
        assert "refused: over MCP, session is a session id or a session file under" in text
        assert ".claude/projects" in text
        assert "sessionFolders" in text
        assert "PRIVATE-NOTE" not in text
        assert "4,812,300" not in text
    assert not (tmp_path / "notes" / ".driftguard").exists()


async def test_a_path_that_climbs_out_of_a_session_folder_is_refused(
    client: Client, tmp_path: Path, isolated_home: Path
) -> None:
    outside = _outside_transcript(tmp_path)
    climbing = Path(os.path.relpath(outside, isolated_home / ".claude" / "projects"))
    sneaky = isolated_home / ".claude" / "projects" / climbing  # ~/.claude/projects/../../…
    assert ".." in sneaky.parts
    assert sneaky.resolve() == outside.resolve()
    for text in await _refusals(client, str(sneaky)):
        assert "refused" in text
        assert "PRIVATE-NOTE" not in text


@pytest.mark.parametrize(
    "long", ["x" * 5000, "/" + "a/" * 2500, "~/.claude/projects/" + "b" * 5000]
)
async def test_a_long_session_argument_is_quoted_in_its_error_only_in_part(
    client: Client, long: str
) -> None:
    for text in await _refusals(client, long):
        assert len(text) < 1_500
        assert long not in text


async def test_a_symlink_in_a_session_folder_to_a_file_outside_is_refused(
    client: Client, tmp_path: Path, isolated_home: Path
) -> None:
    outside = _outside_transcript(tmp_path)
    link = _named_file(isolated_home, "11111111-2222-4333-8444-555555555555.jsonl")
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    for session in (str(link), "11111111-2222-4333-8444-555555555555"):
        result = await client.call_tool("get_drift", {"session": session})
        assert result.is_error is True
        text = result.content[0].text  # type: ignore[union-attr]
        assert "PRIVATE-NOTE" not in text
        assert "refused" in text or "no session named after" in text


async def test_the_users_home_config_is_outside_the_session_folders(
    client: Client, isolated_home: Path
) -> None:
    claude_json = isolated_home / ".claude.json"
    claude_json.write_text(json.dumps({"sessionId": "x", "messages": []}), encoding="utf-8")
    result = await client.call_tool("get_drift", {"session": str(claude_json)})
    assert result.is_error is True
    assert "refused" in result.content[0].text  # type: ignore[union-attr]


async def test_a_folder_listed_in_session_folders_may_be_read(
    client: Client, tmp_path: Path, isolated_home: Path
) -> None:
    outside = write_claude_session(tmp_path / "archive" / "old.jsonl", ["one reply", "two"])
    (isolated_home / ".driftclirc").write_text(
        json.dumps({"sessionFolders": [str(tmp_path / "archive")]}), encoding="utf-8"
    )
    result = await client.call_tool("get_drift", {"session": str(outside)})
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["session"]["path"] == str(outside)


async def test_the_project_config_may_list_session_folders_relative_to_the_project(
    client: Client, project: Path
) -> None:
    (project / ".driftcli").write_text(json.dumps({"sessionFolders": ["transcripts"]}))
    inside = write_claude_session(project / "transcripts" / "t.jsonl", ["a reply", "b reply"])
    result = await client.call_tool("get_drift", {"session": str(inside)})
    assert result.is_error is False


async def test_a_session_id_is_found_only_inside_the_session_folders(
    client: Client, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = "99999999-0000-4000-8000-000000000009"
    monkeypatch.chdir(tmp_path)
    write_claude_session(tmp_path / f"{session_id}.jsonl", [SECRET_NOTE, SECRET_NOTE])
    missing = await client.call_tool("get_drift", {"session": session_id})
    assert missing.is_error is True
    assert "no session named after" in missing.content[0].text  # type: ignore[union-attr]
    inside = write_claude_session(
        _named_file(isolated_home, f"{session_id}.jsonl"), ["ok", "fine"], session_id=session_id
    )
    found = await client.call_tool("get_drift", {"session": session_id})
    assert found.structured_content is not None
    assert found.structured_content["session"]["path"] == str(inside)


@pytest.mark.parametrize(
    ("session", "said"),
    [
        ("/tmp/a\x00b.jsonl", "may not hold a NUL byte"),
        ("x\x00", "may not hold a NUL byte"),
        ("/tmp/" + "a" * 5000 + ".jsonl", "refused"),
    ],
    ids=["nul-in-a-path", "nul-in-an-id", "a-name-too-long"],
)
async def test_a_session_argument_the_system_refuses_is_one_tool_error_naming_the_rule(
    client: Client, session: str, said: str
) -> None:
    result = await client.call_tool("get_drift", {"session": session})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert said in text
    assert "Traceback" not in text
    assert len(text) < 1_000


def test_ctrl_c_stops_a_running_server_with_one_line_and_exit_130(
    tmp_path: Path, isolated_home: Path
) -> None:
    # driftguard-mcp's entry point (pyproject) is serve_main: started the same way here.
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from driftguard.cli import serve_main; sys.exit(serve_main())",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_server_env(isolated_home),
        cwd=tmp_path,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    try:
        process.stdin.write(json.dumps(INITIALIZE) + "\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1  # up and serving
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        watchdog.cancel()
    assert process.returncode == 130
    assert err == "driftguard: interrupted\n"
