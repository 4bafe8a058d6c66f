"""The adapter registry: one adapter per source, chosen by name or by what a file holds,
and what every adapter tells while parsing (the kind of each tool call)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest

from driftguard.adapters import ADAPTERS, BY_NAME, Adapter, detect_cli, get_adapter, parse_session
from driftguard.errors import SessionFormatError, UnknownNameError
from driftguard.model import CliName, ToolCall
from driftguard.sessions.incremental import SessionCache


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _calls(path: Path) -> dict[str, ToolCall]:
    session = parse_session(path)
    return {call.name: call for m in session.messages for call in m.tool_calls}


def test_the_registry_holds_one_adapter_per_source_name_in_the_models_order() -> None:
    assert tuple(a.name for a in ADAPTERS) == get_args(CliName)
    assert all(BY_NAME[a.name] is a is get_adapter(a.name) for a in ADAPTERS)


def test_an_unknown_source_name_is_refused_with_every_valid_name() -> None:
    with pytest.raises(UnknownNameError) as caught:
        get_adapter("windsurf")
    assert str(caught.value) == (
        "unknown CLI 'windsurf'; choose one of: claude_code, gemini_cli, codex_cli, cursor"
    )


def test_a_gemini_user_record_is_gemini_clis_though_claude_code_shares_its_type(
    tmp_path: Path,
) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"type": "user", "id": "m1", "content": "hi"}])
    assert detect_cli(path) == "gemini_cli"


def test_claude_code_tool_calls_carry_the_kind_of_their_tool(tmp_path: Path) -> None:
    blocks = [
        {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/w/a.py"}},
        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}},
        {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": "/w/b.py"}},
        {"type": "tool_use", "id": "t4", "name": "mcp__docs__search", "input": {"q": "x"}},
    ]
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "requestId": "r1",
            "message": {"id": "m1", "role": "assistant", "content": blocks},
        },
    ]
    calls = _calls(_jsonl(tmp_path / "s.jsonl", records))
    kinds = {name: call.kind for name, call in calls.items()}
    assert kinds == {"Edit": "edit", "Bash": "shell", "Read": "read", "mcp__docs__search": "other"}


def test_gemini_cli_tool_calls_carry_the_kind_of_their_tool(tmp_path: Path) -> None:
    tools = [
        {"id": "c1", "name": "replace", "args": {"file_path": "/w/a.py"}, "status": "success"},
        {"id": "c2", "name": "run_shell_command", "args": {"command": "ls"}, "status": "success"},
        {"id": "c3", "name": "read_file", "args": {"absolute_path": "/w/b"}, "status": "success"},
    ]
    records = [
        {"sessionId": "s1", "projectHash": "p"},
        {"id": "m1", "type": "user", "content": [{"text": "go"}]},
        {"id": "m2", "type": "gemini", "content": "", "toolCalls": tools},
    ]
    calls = _calls(_jsonl(tmp_path / "session-x.jsonl", records))
    assert {n: c.kind for n, c in calls.items()} == {
        "replace": "edit",
        "run_shell_command": "shell",
        "read_file": "read",
    }


def _codex_call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    item = {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}
    return {"type": "response_item", "payload": {**item, "call_id": call_id}}


def test_a_codex_shell_call_that_applies_a_patch_is_an_edit_of_the_patched_file(
    tmp_path: Path,
) -> None:
    patch = "*** Begin Patch\n*** Update File: src/tax.py\n@@\n-a\n+b\n*** End Patch"
    records = [
        {"type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
        },
        _codex_call("shell", {"command": ["apply_patch", patch]}, "c1"),
        _codex_call("shell", {"command": ["cargo", "test"]}, "c2"),
    ]
    calls = parse_session(_jsonl(tmp_path / "rollout-x.jsonl", records)).messages[-1].tool_calls
    assert [(c.kind, c.target_path) for c in calls] == [("edit", "src/tax.py"), ("shell", None)]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_every_adapter_tells_an_unknown_tool_as_other(adapter: Adapter) -> None:
    assert adapter.tool_kind("mcp__someone__something") == "other"


# --- a file with not one record of the named CLI ----------------

PASSWD = "".join(f"user{n}:x:{1000 + n}:{1000 + n}::/home/user{n}:/bin/sh\n" for n in range(25))
"""A file shaped like ``/etc/passwd``: 25 lines, none of them JSON."""


@pytest.mark.parametrize("cli", ["claude_code", "gemini_cli", "codex_cli"])
def test_a_file_with_no_record_of_the_named_cli_is_not_its_session_file(
    tmp_path: Path, cli: CliName
) -> None:
    path = tmp_path / "passwd"
    path.write_text(PASSWD, encoding="utf-8")
    label = get_adapter(cli).label
    with pytest.raises(SessionFormatError) as caught:
        parse_session(path, cli)
    assert str(caught.value) == (
        f"{path}: not a {label} session file: none of its 25 lines is a {label} record"
    )


def test_json_lines_of_another_shape_are_no_records_of_the_named_cli(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "notes.jsonl", [{"hello": "world"}, {"n": 2}])
    with pytest.raises(SessionFormatError, match="none of its 2 lines is a Codex CLI record"):
        parse_session(path, "codex_cli")


def test_a_file_of_one_foreign_line_says_so_in_the_singular(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n\n", encoding="utf-8")
    with pytest.raises(SessionFormatError, match=r"its one line is not a Claude Code record$"):
        parse_session(path, "claude_code")


@pytest.mark.parametrize(
    ("cli", "name", "records"),
    [
        ("claude_code", "s.jsonl", [{"type": "summary", "leafUuid": "u9", "summary": "x"}]),
        ("gemini_cli", "session-x.jsonl", [{"sessionId": "s1", "projectHash": "p"}]),
        ("codex_cli", "rollout-x.jsonl", [{"type": "session_meta", "payload": {"id": "t"}}]),
    ],
)
def test_a_header_only_session_file_of_the_named_cli_is_a_session_with_nothing_to_score(
    tmp_path: Path, cli: CliName, name: str, records: list[dict[str, Any]]
) -> None:
    path = _jsonl(tmp_path / name, records)
    session = parse_session(path, cli)
    assert session.cli == cli
    assert session.messages == ()


def test_a_record_of_the_named_cli_after_foreign_lines_still_makes_it_its_session(
    tmp_path: Path,
) -> None:
    foreign = [{"n": n} for n in range(30)]  # more than detection reads
    prompt = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    path = _jsonl(tmp_path / "s.jsonl", [*foreign, prompt])
    assert parse_session(path, "claude_code").skipped_lines == 30


# --- the session file of an id ----------------------------------

SID = "0b6c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3"


def test_claude_codes_session_file_of_an_id_is_its_own_file_in_a_project_folder(
    isolated_home: Path, tmp_path: Path
) -> None:
    adapter = get_adapter("claude_code")
    folder = isolated_home / ".claude" / "projects" / "-home-dev-app"
    assert adapter.is_session_file_of(folder / f"{SID}.jsonl", SID)
    assert not adapter.is_session_file_of(folder / SID / "subagents" / "agent-a1.jsonl", SID)
    assert not adapter.is_session_file_of(folder / "agent-a1.jsonl", SID)
    assert not adapter.is_session_file_of(tmp_path / f"{SID}.jsonl", SID)  # a copy elsewhere


def test_a_codex_rollout_is_the_file_of_the_thread_id_its_name_ends_with(
    isolated_home: Path, tmp_path: Path
) -> None:
    adapter = get_adapter("codex_cli")
    name = f"rollout-2026-11-30T09-01-11-{SID}.jsonl"
    sessions = isolated_home / ".codex" / "sessions" / "2026" / "11" / "30"
    assert adapter.is_session_file_of(sessions / name, SID)
    assert adapter.is_session_file_of(isolated_home / ".codex" / "archived_sessions" / name, SID)
    assert adapter.is_session_file_of(sessions / (name + ".zst"), SID)
    fork = sessions / "rollout-2026-11-30T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl"
    assert not adapter.is_session_file_of(fork, SID)  # replays its parent's session_meta
    assert not adapter.is_session_file_of(tmp_path / name, SID)  # a copy elsewhere


def test_gemini_clis_chats_files_named_after_an_id_are_its_files(
    isolated_home: Path, tmp_path: Path
) -> None:
    adapter = get_adapter("gemini_cli")
    chats = isolated_home / ".gemini" / "tmp" / "app" / "chats"
    assert adapter.is_session_file_of(chats / f"session-2026-11-30T09-07-{SID[:8]}.jsonl", SID)
    assert adapter.is_session_file_of(chats / f"session-2026-11-30T09-07-{SID[:8]}.json", SID)
    assert adapter.is_session_file_of(chats / "0b6c1d2e" / f"{SID}.jsonl", SID)  # a subagent
    assert not adapter.is_session_file_of(chats / "session-2026-11-30T09-07-ffffffff.jsonl", SID)
    copy = tmp_path / f"session-2026-11-30T09-07-{SID[:8]}.jsonl"
    assert not adapter.is_session_file_of(copy, SID)


def test_a_cursor_chat_of_its_own_database_is_the_session_of_its_composer_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "User"
    monkeypatch.setenv("DRIFTGUARD_CURSOR_USER_DIR", str(user))
    adapter = get_adapter("cursor")
    assert adapter.is_session_file_of(Path(f"{user}/globalStorage/state.vscdb#chat-1"), "chat-1")
    assert not adapter.is_session_file_of(
        Path(f"{user}/globalStorage/state.vscdb#chat-2"), "chat-1"
    )
    copy = Path(f"{tmp_path}/copy/globalStorage/state.vscdb#chat-1")
    assert not adapter.is_session_file_of(copy, "chat-1")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: tmp / "missing.jsonl", "not found"),
        (lambda tmp: tmp, "a directory, not a session file"),
        (lambda tmp: Path("/dev/null"), "a device, pipe or socket, not a session file"),
    ],
)
def test_a_path_that_is_no_regular_file_says_what_it_is_instead(
    tmp_path: Path, make: Callable[[Path], Path], says: str
) -> None:
    path = make(tmp_path)
    for parse in (parse_session, SessionCache().get):
        with pytest.raises(SessionFormatError) as raised:
            parse(path)
        assert str(raised.value) == f"{path}: {says}"
