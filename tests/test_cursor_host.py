"""Cursor as a host: under ``cursor-vscode`` the server scores the project's own newest
composer chat, and the command line reads Cursor's chats with ``--cli cursor``.

Every Cursor home here is built as a new user's would be: Cursor's default Linux folder
under the private HOME (no override), SQLite databases in the documented schema with our
own content (tests/cursor_home.py), authentication entries beside the chats.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import write_project_session
from cursor_home import (
    AUTH_SECRETS,
    CursorHome,
    ai_bubble,
    head,
    put,
    tool_bubble,
    user_bubble,
)
from mcp import Client
from mcp.types import CallToolResult, Implementation, ListRootsResult, Root

from driftguard.adapters import cursor
from driftguard.cli import main
from driftguard.engine.drift import UNCHANGED
from driftguard.live.watch import Watcher, WatchTarget
from driftguard.server import create_server
from driftguard.sessions.incremental import SessionCache

pytestmark = pytest.mark.anyio

CURSOR = Implementation(name="cursor-vscode", version="3.1.0")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> CursorHome:
    """Cursor's User folder where Cursor keeps it on Linux (``~/.config/Cursor/User``)."""
    monkeypatch.setattr("sys.platform", "linux")
    return CursorHome(isolated_home / ".config" / "Cursor" / "User")


def chat(prefix: str, topic: str) -> list[dict[str, Any]]:
    return [
        user_bubble(f"{prefix}u1", f"Add {topic} to the CLI.", 0),
        ai_bubble(f"{prefix}a1", f"I added {topic} in cli.py and a test for it.", 1),
        user_bubble(f"{prefix}u2", f"Now document {topic}.", 2),
        ai_bubble(f"{prefix}a2", f"The README now describes {topic}.", 3),
    ]


@pytest.fixture
def projects(home: CursorHome, tmp_path: Path) -> dict[str, Path]:
    """Two projects, each with an older and a newer chat (and a Claude Code-free home)."""
    found: dict[str, Path] = {}
    for name in ("alpha", "beta"):
        folder = tmp_path / "code" / name
        folder.mkdir(parents=True)
        home.add_chat(f"{name}-old", chat(f"{name}o", "--quiet"), updated_s=10)
        home.add_chat(f"{name}-new", chat(f"{name}n", f"--{name}-mode"), updated_s=20)
        home.add_workspace(folder, [head(f"{name}-old", 10), head(f"{name}-new", 20)])
        found[name] = folder
    return found


RootsCallback = Callable[..., Awaitable[ListRootsResult]]


def _roots(folder: Path) -> RootsCallback:
    async def roots(*_args: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=folder.as_uri(), name=folder.name)])  # type: ignore[arg-type]

    return roots


@pytest.fixture
async def server() -> AsyncIterator[Client]:
    async with Client(create_server(), mode="legacy", client_info=CURSOR) as connected:
        yield connected


def _data(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content


# ---------------------------------------------------------------------- the server


async def test_each_projects_get_drift_scores_its_own_newest_chat(
    server: Client, projects: dict[str, Path], home: CursorHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, folder in projects.items():
        monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(folder))
        session = _data(await server.call_tool("get_drift", {}))["session"]
        assert session["cli"] == "cursor"
        assert session["session_id"] == f"{name}-new"
        assert session["path"] == f"{home.global_db}#{name}-new"
        assert session["resolved_by"] == "newest_in_project"
        assert (session["project"], session["project_source"]) == (
            str(folder),
            "DRIFTGUARD_PROJECT_DIR",
        )


async def test_an_unexpanded_workspace_folder_is_unset_and_the_clients_roots_name_the_project(
    projects: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", "${workspaceFolder}")  # a headless scope
    monkeypatch.chdir(projects["alpha"])
    async with Client(
        create_server(),
        mode="legacy",
        client_info=CURSOR,
        list_roots_callback=_roots(projects["beta"]),  # type: ignore[arg-type]
    ) as rooted:
        session = _data(await rooted.call_tool("get_drift", {}))["session"]
    assert (session["session_id"], session["project"], session["project_source"]) == (
        "beta-new",
        str(projects["beta"]),
        "roots",
    )


async def test_without_a_variable_or_roots_the_working_directory_is_the_project(
    server: Client, projects: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(projects["beta"])
    session = _data(await server.call_tool("get_drift", {}))["session"]
    assert (session["session_id"], session["project_source"]) == ("beta-new", "cwd")


async def test_a_chat_in_the_older_inline_layout_is_scored_like_a_split_one(
    server: Client, home: CursorHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "legacy"
    folder.mkdir()
    home.add_chat("inline", chat("i", "--color"), inline=True)
    home.add_workspace(folder, [head("inline", 5)])
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(folder))
    data = _data(await server.call_tool("get_drift", {}))
    assert data["session"]["session_id"] == "inline"
    assert data["messages"] == 4


async def test_a_project_cursor_stores_nothing_for_says_so_and_names_the_project(
    server: Client, projects: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    never = tmp_path / "never-opened"
    never.mkdir()
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(never))
    result = await server.call_tool("get_drift", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert f"Cursor stores no chat for {never}; looked in:" in text
    assert f"the project is {never}, from DRIFTGUARD_PROJECT_DIR" in text


async def test_get_trend_shows_the_scores_get_drift_recorded_for_the_chat(
    server: Client, projects: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(projects["alpha"]))
    first = _data(await server.call_tool("get_drift", {"goal": "add the alpha mode"}))
    assert (first["recorded"], first["goal_source"]) == (True, "given")
    second = _data(await server.call_tool("get_drift", {}))
    assert second["goal"] == "add the alpha mode"  # remembered for the chat
    # the chat did not change between the two calls: one moment, recorded once
    assert (second["recorded"], second["not_recorded_reason"]) == (False, UNCHANGED)
    trend = _data(await server.call_tool("get_trend", {}))
    assert trend["snapshots"] == 1
    assert trend["session"]["session_id"] == "alpha-new"


async def test_get_handoff_lists_the_chats_edits_commands_and_last_error(
    server: Client, home: CursorHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    bubbles = [
        user_bubble("u1", "Fix the failing parser test.", 0),
        tool_bubble("t1", "edit_file", {"target_file": "src/parser.py", "instructions": "x"}),
        tool_bubble(
            "t2",
            "run_terminal_cmd",
            {"command": "pytest -q tests/test_parser.py"},
            result={"output": "FAILED test_parser.py::test_empty - ValueError: empty input"},
            status="error",
        ),
        ai_bubble("a1", "The empty-input case still raises; I will guard it next.", 3),
    ]
    home.add_chat("tools", bubbles)
    home.add_workspace(folder, [head("tools", 1)])
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(folder))
    data = _data(await server.call_tool("get_handoff", {}))
    assert data["goal"] == "Fix the failing parser test."
    assert data["files_modified"] == ["src/parser.py"]
    assert data["commands"] == ["pytest -q tests/test_parser.py"]
    assert len(data["last_errors"]) == 1
    assert "ValueError: empty input" in data["last_errors"][0]


async def test_the_session_argument_takes_a_composer_id(
    server: Client, projects: dict[str, Path], home: CursorHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(projects["alpha"]))
    by_id = _data(await server.call_tool("get_drift", {"session": "beta-old"}))["session"]
    assert (by_id["session_id"], by_id["resolved_by"]) == ("beta-old", "argument")
    locator = f"{home.global_db}#beta-new"
    by_path = _data(await server.call_tool("get_drift", {"session": locator}))["session"]
    assert by_path["session_id"] == "beta-new"


async def test_a_locator_of_another_database_is_refused(server: Client, tmp_path: Path) -> None:
    elsewhere = CursorHome(tmp_path / "elsewhere" / "User")
    elsewhere.add_chat("theirs", chat("t", "--x"))
    result = await server.call_tool("get_drift", {"session": f"{elsewhere.global_db}#theirs"})
    assert result.is_error is True
    assert "refused" in result.content[0].text  # type: ignore[union-attr]


async def test_the_authentication_entries_appear_in_no_result(
    server: Client, projects: dict[str, Path], home: CursorHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = home.user / "workspaceStorage"
    for folder in workspace.iterdir():
        put(folder / "state.vscdb", "ItemTable", AUTH_SECRETS)
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(projects["alpha"]))
    outputs = [
        await server.call_tool(tool, {})
        for tool in ("get_drift", "get_handoff", "get_trend", "save_handoff")
    ]
    outputs.append(await server.call_tool("get_drift", {"session": "no-such-chat"}))
    text = "\n".join(
        json.dumps(result.structured_content) + repr(result.content) for result in outputs
    )
    for name, secret in AUTH_SECRETS.items():
        assert secret not in text
        assert name not in text


async def test_a_chat_is_scored_while_cursor_holds_the_database_in_a_write(
    server: Client, projects: dict[str, Path], home: CursorHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", str(projects["alpha"]))
    writer = sqlite3.connect(home.global_db, isolation_level=None)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("BEGIN IMMEDIATE")
        writer.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            ("bubbleId:alpha-new:late", json.dumps(user_bubble("late", "Not yet.", 9))),
        )
        data = _data(await server.call_tool("get_drift", {}))
        assert (data["session"]["session_id"], data["messages"]) == ("alpha-new", 4)
        writer.execute("COMMIT")
    finally:
        writer.close()


# ---------------------------------------------------------------------- the parse cache


def test_an_unchanged_store_is_not_read_again_and_a_new_message_is_seen(
    projects: dict[str, Path], home: CursorHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    locator = Path(f"{home.global_db}#alpha-new")
    reads: list[Path] = []
    parse = cursor.ADAPTER.parse

    def counting(path: Path) -> Any:
        reads.append(path)
        return parse(path)

    monkeypatch.setattr(cursor.ADAPTER, "parse", counting)
    cache = SessionCache()
    first = cache.get(locator)
    assert cache.get(locator) is first
    assert len(reads) == 1
    late = user_bubble("late", "One more thing: a changelog entry.", 9)
    data = json.loads(
        sqlite3.connect(home.global_db)
        .execute("SELECT value FROM cursorDiskKV WHERE key = 'composerData:alpha-new'")
        .fetchone()[0]
    )
    data["fullConversationHeadersOnly"].append({"bubbleId": "late", "type": 1})
    put(home.global_db, "cursorDiskKV", {"bubbleId:alpha-new:late": late})
    put(home.global_db, "cursorDiskKV", {"composerData:alpha-new": data})
    grown = cache.get(locator)
    assert len(reads) == 2
    assert grown.messages[-1].content == "One more thing: a changelog entry."


# ---------------------------------------------------------------------- the command line


def test_score_trend_handoff_and_status_read_the_projects_newest_chat(
    projects: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--cli", "cursor", "--project", str(projects["beta"]), "--json"]
    assert main(["score", *where]) == 0
    score = json.loads(capsys.readouterr().out)
    assert (score["session"]["cli"], score["session"]["session_id"]) == ("cursor", "beta-new")
    assert score["recorded"] is True
    assert main(["trend", *where]) == 0
    assert json.loads(capsys.readouterr().out)["snapshots"] == 1
    assert main(["handoff", *where]) == 0
    assert json.loads(capsys.readouterr().out)["goal"] == "Add --beta-mode to the CLI."
    assert main(["status", *where]) == 0
    assert json.loads(capsys.readouterr().out)["cli"] == "cursor"


def test_a_chats_locator_is_a_path_the_command_line_scores(
    projects: dict[str, Path], home: CursorHome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", f"{home.global_db}#alpha-old", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["session"]["session_id"] == "alpha-old"
    assert main(["score", f"{home.global_db}#alpha-old", "--cli", "codex_cli"]) == 2
    assert "is a cursor chat, not codex_cli" in capsys.readouterr().err


def test_a_project_without_chats_names_cursor_and_where_it_looked(
    home: CursorHome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--cli", "cursor", "--project", str(tmp_path)]) == 2
    first, *places = capsys.readouterr().err.splitlines()
    assert first == f"driftguard: error: Cursor stores no chat for {tmp_path}; looked in:"
    assert all(place.startswith("  Cursor: ") for place in places)


def test_an_unreadable_cursor_store_costs_a_warning_when_another_cli_has_the_session(
    home: CursorHome,
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    workspace = home.add_workspace(folder, [head("lost", 1)])
    (workspace / "state.vscdb").write_bytes(b"not a database, though long enough to look like one")
    write_project_session(isolated_home, folder, ["one reply", "two"], session_id="cc-1")
    assert main(["score", "--project", str(folder), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["session"]["cli"] == "claude_code"
    assert "driftguard: warning: Cursor: " in captured.err
    assert "is not a SQLite database" in captured.err


def test_watch_follows_a_chat_on_its_database_and_its_write_ahead_log(
    projects: dict[str, Path], home: CursorHome
) -> None:
    watcher = Watcher(WatchTarget(path=None, project=projects["alpha"], cli="cursor"), out=None)  # type: ignore[arg-type]
    lines = watcher.frame(width=100)
    assert lines[0].startswith("driftguard watch · cursor · ")
    assert lines[1].endswith("#alpha-new")
    wal = Path(f"{home.global_db}-wal")
    assert watcher._wanted(str(wal))
    assert watcher._wanted(str(home.global_db))
    assert not watcher._wanted(str(home.global_db.parent / "other.json.bak"))
    fixed = Watcher(WatchTarget(path=Path(f"{home.global_db}#alpha-old"), project=Path("/")), None)  # type: ignore[arg-type]
    assert fixed._wanted(str(wal))
    assert not fixed._wanted(str(home.user / "workspaceStorage" / "x" / "state.vscdb"))
