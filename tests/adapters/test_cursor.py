"""Cursor adapter: composer chats read from synthetic Cursor homes.

Every database here is built by ``cursor_home`` in the documented schema with our own
content, laid out as Cursor lays out its ``User`` folder, and carries authentication
entries that must never surface. Nothing touches the real home (tests/conftest.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from cursor_home import (
    AUTH_SECRETS,
    BASE_MS,
    CursorHome,
    ai_bubble,
    create_db,
    head,
    iso,
    put,
    tool_bubble,
    user_bubble,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.adapters import cursor, get_adapter
from driftguard.adapters._common import estimate_tokens, make_tool_call
from driftguard.adapters._scan import ProjectPaths
from driftguard.adapters.cursor import _store
from driftguard.adapters.cursor._store import StateDb
from driftguard.engine.drift import score_session
from driftguard.errors import SessionFormatError, SessionNotFoundError
from driftguard.model import CLI_NAMES, CliName, Session
from driftguard.presets import load_preset

# ---------------------------------------------------------------------- fixtures


@pytest.fixture
def user(tmp_path: Path) -> Path:
    return tmp_path / "Cursor" / "User"


@pytest.fixture
def home(user: Path) -> CursorHome:
    return CursorHome(user)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "my app"  # a space: the URI escapes it
    folder.mkdir(parents=True)
    return folder


def simple_chat(prefix: str = "") -> list[dict[str, Any]]:
    return [
        user_bubble(f"{prefix}u1", "Add a --verbose flag to the CLI.", 0),
        ai_bubble(f"{prefix}a1", "", 1, thinking={"text": "private reasoning"}),
        ai_bubble(f"{prefix}a2", "I added the flag in cli.py and a test.", 2),
        user_bubble(f"{prefix}u2", "Now document it.", 3),
        ai_bubble(f"{prefix}a3", "The README now lists --verbose.", 4),
    ]


def texts(session: Session) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in session.messages]


class Tracer:
    """Records every SQL statement and VM step of the connections driftguard opens from
    now on (``sqlite3.connect`` as seen by the store module)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements: list[str] = []
        self.steps = 0
        real = sqlite3.connect

        def count() -> int:
            self.steps += 1
            return 0

        def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn = real(*args, **kwargs)
            conn.set_trace_callback(self.statements.append)
            conn.set_progress_handler(count, 1)
            return conn

        monkeypatch.setattr(_store.sqlite3, "connect", connect)

    @property
    def selects(self) -> list[str]:
        return [s for s in self.statements if s.lstrip().upper().startswith("SELECT")]


KEY_LOOKUP = re.compile(
    r"SELECT (?:value|key, value) FROM (?:cursorDiskKV|ItemTable) "
    r"WHERE key (?:= '[^']*'|IN \('[^']*'(?:, '[^']*')*\))"
)


def plans(db: Path, statements: list[str]) -> list[str]:
    """The ``EXPLAIN QUERY PLAN`` lines of ``statements`` on ``db``."""
    conn = sqlite3.connect(db)
    try:
        return [
            str(row[-1])
            for statement in statements
            for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}")
        ]
    finally:
        conn.close()


# ---------------------------------------------------------------------- where Cursor lives


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, "home/.config/Cursor/User"),
        ("linux", {"XDG_CONFIG_HOME": "/xdg"}, "/xdg/Cursor/User"),
        ("linux", {"XDG_CONFIG_HOME": "relative"}, "home/.config/Cursor/User"),
        ("darwin", {}, "home/Library/Application Support/Cursor/User"),
        ("win32", {"APPDATA": "/roaming"}, "/roaming/Cursor/User"),
        ("win32", {}, "home/AppData/Roaming/Cursor/User"),
    ],
)
def test_the_user_folder_follows_each_platforms_convention(
    platform: str, env: dict[str, str], expected: str
) -> None:
    found = cursor.user_dir(env, platform=platform, home=Path("home"))
    assert found == Path(expected)


def test_the_override_variable_names_the_user_folder(tmp_path: Path) -> None:
    env = {cursor.USER_DIR_ENV: str(tmp_path / "custom"), "APPDATA": "/ignored"}
    assert cursor.USER_DIR_ENV == "DRIFTGUARD_CURSOR_USER_DIR"
    assert cursor.user_dir(env, platform="win32") == tmp_path / "custom"


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/dev/my%20app", "/home/dev/my app"),
        ("file:///c%3A/Users/dev/app", "c:/Users/dev/app"),
        ("file:///C:/Users/dev/app", "C:/Users/dev/app"),
        ("file://server/share/app", "//server/share/app"),
        ("file:///home/dev/%C3%A9t%C3%A9", "/home/dev/été"),
        ("vscode-remote://ssh-remote%2Bbox/home/dev/app", None),
        ("not a uri", None),
    ],
)
def test_file_uris_decode_to_local_paths(uri: str, path: str | None) -> None:
    assert cursor.file_uri_to_path(uri) == path


def test_a_projects_workspaces_are_found_by_their_workspace_json_folder(
    home: CursorHome, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    first = home.add_workspace(project, [])
    home.add_workspace(other, [])
    home.add_workspace((tmp_path / "x.code-workspace").as_uri(), [], key="workspace")
    home.add_workspace("vscode-remote://ssh-remote%2Bbox" + str(project), [])
    second = home.add_workspace(project, [])
    (second / "state.vscdb").touch()  # used more recently
    found = cursor.project_workspaces(project, home.user)
    assert found == [second, first]
    assert cursor.workspace_folder(first) == str(project)


def test_the_default_linux_layout_under_home_is_found_without_the_override(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    default = isolated_home / ".config" / "Cursor" / "User"
    home = CursorHome(default)
    folder = tmp_path / "proj"
    folder.mkdir()
    home.add_chat("c0ffee00-0000-4000-8000-000000000001", simple_chat())
    home.add_workspace(folder, [head("c0ffee00-0000-4000-8000-000000000001", 5)])
    chat = cursor.newest_composer(folder)
    assert chat is not None
    assert chat.db == default / "globalStorage" / "state.vscdb"


# ---------------------------------------------------------------------- reading one chat


def test_a_split_chat_reads_prompts_and_replies_in_header_order(home: CursorHome) -> None:
    home.add_chat("chat-1", simple_chat())
    session = cursor.parse_composer(home.global_db, "chat-1")
    assert texts(session) == [
        ("user", "Add a --verbose flag to the CLI."),
        ("assistant", "I added the flag in cli.py and a test."),
        ("user", "Now document it."),
        ("assistant", "The README now lists --verbose."),
    ]
    assert session.cli == "cursor"
    assert session.session_id == "chat-1"
    assert session.path == f"{home.global_db}#chat-1"
    assert session.message_count == 4
    assert session.skipped_lines == 0
    assert session.compactions == 0
    assert session.messages[0].timestamp == BASE_MS / 1000
    assert all("private reasoning" not in m.content for m in session.messages)


def test_an_inline_conversation_chat_reads_like_a_split_one(home: CursorHome) -> None:
    home.add_chat("split", simple_chat())
    home.add_chat("inline", simple_chat(), inline=True)
    split = cursor.parse_composer(home.global_db, "split")
    inline = cursor.parse_composer(home.global_db, "inline")
    assert inline.messages == split.messages
    assert inline.skipped_lines == 0


def test_a_header_without_a_row_is_read_from_the_inline_map(home: CursorHome) -> None:
    bubbles = simple_chat()
    data = home.add_chat("mapped", bubbles[:3])
    data["fullConversationHeadersOnly"].append({"bubbleId": "u2", "type": 1})
    data["conversationMap"] = {"u2": bubbles[3]}
    put(home.global_db, "cursorDiskKV", {"composerData:mapped": data})
    session = cursor.parse_composer(home.global_db, "mapped")
    assert texts(session)[-1] == ("user", "Now document it.")


def test_the_model_is_the_prompts_selection_else_the_composers(home: CursorHome) -> None:
    bubbles = simple_chat()
    bubbles[3]["modelInfo"] = {"modelName": "gpt-5.2"}
    home.add_chat("models", bubbles)
    session = cursor.parse_composer(home.global_db, "models")
    replies = [m for m in session.messages if m.role == "assistant"]
    assert [m.model for m in replies] == ["claude-4.5-sonnet", "gpt-5.2"]
    assert session.model == "gpt-5.2"


def test_the_cwd_is_the_given_folder_else_the_one_the_chat_names(home: CursorHome) -> None:
    bubbles = simple_chat()
    bubbles[0]["workspaceUris"] = ["file:///home/dev/my%20app"]
    home.add_chat("cwd", bubbles)
    assert cursor.parse_composer(home.global_db, "cwd").cwd == "/home/dev/my app"
    assert cursor.parse_composer(home.global_db, "cwd", cwd="/given").cwd == "/given"
    home.add_chat(
        "named", simple_chat(), workspaceIdentifier={"id": "w", "uri": {"fsPath": "/srv/x"}}
    )
    assert cursor.parse_composer(home.global_db, "named").cwd == "/srv/x"


def test_a_message_stored_twice_under_one_server_id_is_read_once(home: CursorHome) -> None:
    bubbles = simple_chat()
    bubbles[2]["serverBubbleId"] = "srv-1"
    copy = dict(bubbles[2], bubbleId="a2-copy")
    home.add_chat("dup", [*bubbles[:3], copy, *bubbles[3:]])
    session = cursor.parse_composer(home.global_db, "dup")
    assert [c for _, c in texts(session)].count("I added the flag in cli.py and a test.") == 1


# ---------------------------------------------------------------------- tools


def test_tool_calls_carry_the_canonical_args_digest_target_and_command(
    home: CursorHome,
) -> None:
    edit_args = {"target_file": "src/cli.py", "instructions": "add flag", "code_edit": "x"}
    shell_args = {"command": "pytest -q", "is_background": False}
    v2_args = {"relativeWorkspacePath": "docs/README.md", "contents": "…"}
    mcp = {"tools": [{"name": "search", "parameters": json.dumps({"q": "needle"})}]}
    bubbles = [
        user_bubble("u1", "go", 0),
        tool_bubble("t1", "edit_file", edit_args, result={"diff": "+x"}, offset_s=1),
        tool_bubble("t2", "run_terminal_cmd", shell_args, result="ok", offset_s=2),
        tool_bubble("t3", "edit_file_v2", v2_args, arg_field="params", offset_s=3),
        tool_bubble("t4", "mcp_docs_search", {}, arg_field="params", offset_s=4),
    ]
    bubbles[4]["toolFormerData"]["params"] = json.dumps(json.dumps(mcp))  # JSON in JSON
    home.add_chat("tools", bubbles)
    session = cursor.parse_composer(home.global_db, "tools")
    calls = [c for m in session.messages for c in m.tool_calls]
    assert [c.name for c in calls] == [
        "edit_file",
        "run_terminal_cmd",
        "edit_file_v2",
        "mcp_docs_search",
    ]
    assert calls[0].args_digest == make_tool_call("edit_file", edit_args).args_digest
    assert calls[0].target_path == "src/cli.py"
    assert calls[1].command == "pytest -q"
    assert calls[2].target_path == "docs/README.md"
    assert calls[3].args_digest == make_tool_call("x", {"q": "needle"}).args_digest
    assert [cursor.tool_kind(c.name) for c in calls] == ["edit", "shell", "edit", "other"]
    assert cursor.tool_kind("read_file") == "read"


def test_raw_args_win_over_params(home: CursorHome) -> None:
    bubble = tool_bubble("t1", "read_file", {"target_file": "a.py"}, offset_s=1)
    bubble["toolFormerData"]["params"] = json.dumps({"relativeWorkspacePath": "b.py"})
    home.add_chat("raw", [user_bubble("u1", "go"), bubble])
    call = cursor.parse_composer(home.global_db, "raw").messages[1].tool_calls[0]
    assert call.target_path == "a.py"


def test_tool_results_become_tool_messages_and_errors_are_marked(home: CursorHome) -> None:
    failing = tool_bubble("t2", "run_terminal_cmd", {"command": "make"}, result="make: *** Error 2")
    failing["toolFormerData"]["status"] = {"status": "error"}
    bubbles = [
        user_bubble("u1", "build it"),
        tool_bubble("t1", "read_file", {"target_file": "Makefile"}, result={"contents": "all:"}),
        failing,
        tool_bubble(
            "t3",
            "run_terminal_cmd",
            {"command": "make"},
            result="",
            status="error",
            text="The build failed; let me look.",
        ),
    ]
    home.add_chat("results", bubbles)
    session = cursor.parse_composer(home.global_db, "results")
    roles = [(m.role, m.content, m.is_error, len(m.tool_calls)) for m in session.messages]
    assert roles == [
        ("user", "build it", False, 0),
        ("tool", "", False, 1),  # the call, as every adapter writes a call-only response
        ("tool", '{"contents": "all:"}', False, 0),  # its result: the stored JSON text
        ("tool", "", False, 1),
        ("tool", "make: *** Error 2", True, 0),
        ("assistant", "The build failed; let me look.", False, 1),
        ("tool", "", True, 0),
    ]
    assert session.message_count == 2


# ---------------------------------------------------------------------- malformed records


def test_malformed_bubbles_are_skipped_and_counted(home: CursorHome) -> None:
    good = simple_chat()
    data = home.add_chat("broken", good)
    extra_headers: list[Any] = [
        {"bubbleId": "bad-json", "type": 2},
        {"bubbleId": "array", "type": 2},
        {"bubbleId": "deep", "type": 2},
        {"bubbleId": "null", "type": 1},
        {"bubbleId": "missing", "type": 2},
        {"bubbleId": "odd-type", "type": 7},
        {"type": 1},
        "not a header",
        {"bubbleId": "blob", "type": 2},
    ]
    data["fullConversationHeadersOnly"] = [*data["fullConversationHeadersOnly"], *extra_headers]
    put(home.global_db, "cursorDiskKV", {"composerData:broken": data})
    put(
        home.global_db,
        "cursorDiskKV",
        {
            "bubbleId:broken:bad-json": '{"type": 2, "text": "cut off',
            "bubbleId:broken:array": "[1, 2, 3]",
            "bubbleId:broken:deep": "[" * 200 + "]" * 200,
            "bubbleId:broken:null": None,
            "bubbleId:broken:odd-type": {"type": 7, "text": "?"},
            "bubbleId:broken:blob": json.dumps(ai_bubble("blob", "Stored as a BLOB.")).encode(),
        },
    )
    session = cursor.parse_composer(home.global_db, "broken")
    assert session.skipped_lines == 8
    assert texts(session)[-1] == ("assistant", "Stored as a BLOB.")
    assert session.message_count == 5


def test_a_malformed_chat_is_counted_not_fatal(home: CursorHome) -> None:
    put(home.global_db, "cursorDiskKV", {"composerData:torn": '{"_v": 10, "fullConv'})
    session = cursor.parse_composer(home.global_db, "torn")
    assert session.messages == ()
    assert session.skipped_lines == 1
    assert session.tokens_estimated


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bubble_like = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from([1, 2, 3, True, "1", None]),
        "text": json_values,
        "bubbleId": st.text(max_size=5),
        "serverBubbleId": json_values,
        "toolFormerData": json_values
        | st.fixed_dictionaries(
            {
                "name": json_values,
                "rawArgs": json_values,
                "result": json_values,
                "status": json_values,
            }
        ),
        "tokenCount": json_values,
        "contextWindowStatusAtCreation": json_values,
        "conversationSummary": json_values,
        "modelInfo": json_values,
        "workspaceUris": json_values,
    },
)


@settings(max_examples=150, deadline=None)
@given(
    bubbles=st.lists(bubble_like, max_size=6),
    composer_extra=st.dictionaries(
        st.sampled_from(
            [
                "latestConversationSummary",
                "promptTokenBreakdown",
                "contextTokensUsed",
                "contextTokenLimit",
                "modelConfig",
                "workspaceIdentifier",
                "conversationMap",
            ]
        ),
        json_values,
    ),
)
def test_any_json_in_any_field_reads_without_raising(
    bubbles: list[dict[str, Any]], composer_extra: dict[str, Any]
) -> None:
    ids = [f"b{i}" for i in range(len(bubbles))]
    composer = {
        "fullConversationHeadersOnly": [{"bubbleId": i, "type": 1} for i in ids],
        **composer_extra,
    }
    rows = {i: json.dumps(b) for i, b in zip(ids, bubbles, strict=True)}
    session = cursor.build_session("c", composer, rows, path="db#c")
    assert session.context_window > 0
    assert session.context_tokens >= 0
    assert session.skipped_lines <= len(bubbles)


# ---------------------------------------------------------------------- tokens and window


def test_cursors_context_meter_is_the_context_size(home: CursorHome) -> None:
    home.add_chat("meter", simple_chat(), promptTokenBreakdown={"totalUsedTokens": 42_000})
    home.add_chat("used", simple_chat(), contextTokensUsed=41_500)
    meter = cursor.parse_composer(home.global_db, "meter")
    assert (meter.context_tokens, meter.tokens_estimated) == (42_000, False)
    assert cursor.parse_composer(home.global_db, "used").context_tokens == 41_500


def test_without_a_meter_the_latest_bubble_count_is_the_context_size(home: CursorHome) -> None:
    bubbles = simple_chat()
    bubbles[2]["tokenCount"] = {"inputTokens": 9_000, "outputTokens": 300}
    bubbles[3]["contextWindowStatusAtCreation"] = {"tokensUsed": 9_400, "tokenLimit": 272_000}
    home.add_chat("bubbles", bubbles)
    session = cursor.parse_composer(home.global_db, "bubbles")
    assert (session.context_tokens, session.context_window) == (9_400, 272_000)
    assert session.first_request_tokens == 9_000
    assert session.messages[1].token_count == 9_000
    bubbles[4]["tokenCount"] = {"inputTokens": 9_800, "outputTokens": 10}
    home.add_chat("later", bubbles)
    assert cursor.parse_composer(home.global_db, "later").context_tokens == 9_800


def test_zero_counts_as_current_builds_write_them_leave_an_estimate(home: CursorHome) -> None:
    home.add_chat("zeros", simple_chat(), contextTokensUsed=0)
    session = cursor.parse_composer(home.global_db, "zeros")
    assert session.tokens_estimated
    assert session.context_tokens == estimate_tokens(session.messages)
    assert session.first_request_tokens is None


@pytest.mark.parametrize(
    ("composer", "status_limit", "window"),
    [
        ({}, 272_000, 272_000),
        ({"contextTokenLimit": 1_000_000}, None, 1_000_000),
        ({"contextTokenLimit": 1_000_000}, 176_000, 176_000),
        ({}, None, 200_000),
        ({"contextTokenLimit": -5}, None, 200_000),
    ],
)
def test_the_window_is_the_recorded_token_limit_else_the_documented_default(
    home: CursorHome, composer: dict[str, Any], status_limit: int | None, window: int
) -> None:
    bubbles = simple_chat()
    if status_limit is not None:
        bubbles[0]["contextWindowStatusAtCreation"] = {"tokensUsed": 1, "tokenLimit": status_limit}
    home.add_chat("window", bubbles, **composer)
    assert cursor.parse_composer(home.global_db, "window").context_window == window
    assert cursor.DEFAULT_CONTEXT_WINDOW == 200_000


# ---------------------------------------------------------------------- summarisation


def summarised_chat() -> list[dict[str, Any]]:
    summary = {
        "summary": "We added --verbose and documented it.",
        "truncationLastBubbleIdInclusive": "a3",
        "clientShouldStartSendingFromInclusiveBubbleId": "u3",
        "previousConversationSummaryBubbleId": "",
        "includesToolResults": True,
        "strategy": "plain_text_summary",
    }
    return [
        *simple_chat(),
        ai_bubble("s1", "", 5, conversationSummary=json.dumps(summary)),
        user_bubble("u3", "Add a --quiet flag too.", 6),
        ai_bubble("a4", "Added --quiet.", 7, tokenCount={"inputTokens": 3_000, "outputTokens": 9}),
    ]


def test_a_bubbles_summary_is_a_compaction_and_only_what_follows_is_remembered(
    home: CursorHome,
) -> None:
    home.add_chat("sum", summarised_chat())
    session = cursor.parse_composer(home.global_db, "sum")
    assert session.compactions == 1
    assert texts(session) == [
        ("user", "We added --verbose and documented it."),
        ("user", "Add a --quiet flag too."),
        ("assistant", "Added --quiet."),
    ]
    assert session.messages[0].is_summary
    assert session.message_count == 2
    assert session.context_tokens == 3_000


def test_the_composers_latest_summary_is_the_same_compaction(home: CursorHome) -> None:
    bubbles = summarised_chat()
    latest = {"summary": json.loads(bubbles[5]["conversationSummary"]), "lastBubbleId": "u3"}
    home.add_chat("both", bubbles, latestConversationSummary=latest)
    assert cursor.parse_composer(home.global_db, "both").compactions == 1


@pytest.mark.parametrize(
    "latest",
    [
        {"summary": {"summary": "Earlier work.", "truncationLastBubbleIdInclusive": "a2"}},
        {
            "summary": json.dumps(
                {"summary": "Earlier work.", "truncationLastBubbleIdInclusive": "a2"}
            )
        },
        {"summary": "Earlier work.", "truncationLastBubbleIdInclusive": "a2"},  # flattened
    ],
)
def test_without_the_bubble_the_composers_summary_cuts_after_the_truncation(
    home: CursorHome, latest: dict[str, Any]
) -> None:
    bubbles = [b for b in summarised_chat() if b["bubbleId"] != "s1"]
    home.add_chat("composer-only", bubbles, latestConversationSummary=latest)
    session = cursor.parse_composer(home.global_db, "composer-only")
    assert session.compactions == 1
    assert texts(session)[:2] == [("user", "Earlier work."), ("user", "Now document it.")]


def test_usage_before_the_summary_is_not_the_context_size(home: CursorHome) -> None:
    bubbles = summarised_chat()
    bubbles[2]["tokenCount"] = {"inputTokens": 150_000, "outputTokens": 10}
    bubbles[-1]["tokenCount"] = {"inputTokens": 0, "outputTokens": 0}
    home.add_chat("before", bubbles)
    session = cursor.parse_composer(home.global_db, "before")
    assert session.tokens_estimated
    assert session.context_tokens == estimate_tokens(session.messages)


def test_a_summary_whose_boundary_names_no_bubble_is_counted_but_cuts_nothing(
    home: CursorHome,
) -> None:
    latest = {"summary": {"summary": "?", "truncationLastBubbleIdInclusive": "gone"}}
    home.add_chat("lost", simple_chat(), latestConversationSummary=latest)
    session = cursor.parse_composer(home.global_db, "lost")
    assert session.compactions == 1
    assert session.message_count == 4
    assert not any(m.is_summary for m in session.messages)


def test_a_cursor_chat_scores_and_names_cursor_in_its_wording(home: CursorHome) -> None:
    bubbles = simple_chat()
    home.add_chat("score", bubbles, contextTokensUsed=190_000)
    session = cursor.parse_composer(home.global_db, "score")
    report = score_session(session, weights=load_preset("coding").weights)
    assert report.usable.tokens == 200_000
    assert "before Cursor compacts it" in report.recommendation


def test_cursor_is_a_source_of_the_registry_like_the_file_based_clis() -> None:
    assert "cursor" in get_args(CliName)
    assert get_args(CliName) == CLI_NAMES
    assert get_adapter("cursor") is cursor.ADAPTER


# ---------------------------------------------------------------------- finding chats


def test_each_project_of_a_two_project_home_gets_its_own_newest_chat(
    home: CursorHome, tmp_path: Path
) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    for cid in ("a-old", "a-new", "b-old", "b-new"):
        home.add_chat(cid, simple_chat(cid))
    home.add_workspace(alpha, [head("a-old", 10), head("a-new", 30)])
    home.add_workspace(beta, [head("b-new", 20), head("b-old", 5, lastUpdatedAt=iso(25))])
    chat_a = cursor.newest_composer(alpha, home.user)
    chat_b = cursor.newest_composer(beta, home.user)
    assert chat_a is not None
    assert chat_b is not None
    # b-old's ISO-8601 lastUpdatedAt (one write-up's form) is later than b-new's ms one.
    assert (chat_a.composer_id, chat_b.composer_id) == ("a-new", "b-old")
    assert chat_a.folder == str(alpha)
    assert chat_a.last_updated == BASE_MS / 1000 + 30
    session = cursor.read_chat(chat_b)
    assert (session.session_id, session.cwd) == ("b-old", str(beta))
    assert [h.composer_id for h in cursor.project_composers(alpha, home.user)] == ["a-new", "a-old"]


def test_an_empty_newer_chat_is_passed_over_for_the_chat_in_use(
    home: CursorHome, project: Path
) -> None:
    home.add_chat("in-use", simple_chat())
    home.add_chat("opened-and-left", [])
    home.add_workspace(
        project, [head("in-use", 10), head("opened-and-left", 99), head("gone", 120)]
    )
    chat = cursor.newest_composer(project, home.user)
    assert chat is not None
    assert chat.composer_id == "in-use"


def test_a_projects_chats_with_messages_are_listed_newest_first(
    home: CursorHome, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for cid in ("first", "second", "third"):
        home.add_chat(cid, simple_chat(cid))
    home.add_chat("empty", [])
    home.add_workspace(
        project, [head("first", 10), head("third", 30), head("empty", 40), head("second", 20)]
    )
    assert [c.composer_id for c in cursor.project_chats(project, home.user)] == [
        "third",
        "second",
        "first",
    ]
    monkeypatch.setenv("DRIFTGUARD_CURSOR_USER_DIR", str(home.user))
    listed = list(cursor.ADAPTER.sessions(ProjectPaths.of(project)))
    assert [str(f.path).rsplit("#", 1)[1] for f in listed] == ["third", "second", "first"]
    assert listed[0] == cursor.ADAPTER.newest(ProjectPaths.of(project))


def test_a_subagents_chat_is_never_the_newest(home: CursorHome, project: Path) -> None:
    home.add_chat("parent", simple_chat())
    home.add_chat("child", simple_chat("c"))
    home.add_workspace(project, [head("parent", 10), head("child", 20, isSubagent=True)])
    chat = cursor.newest_composer(project, home.user)
    assert chat is not None
    assert chat.composer_id == "parent"


def test_cursor_3_global_headers_name_a_projects_chats(home: CursorHome, project: Path) -> None:
    workspace = home.add_workspace(project)  # Cursor 3: no list in the workspace database
    home.add_chat("by-id", simple_chat())
    home.add_chat("by-path", simple_chat("p"))
    home.add_chat("elsewhere", simple_chat("e"))
    home.set_global_headers(
        [
            head("by-id", 10, workspaceIdentifier={"id": workspace.name}),
            head(
                "by-path", 20, workspaceIdentifier={"id": "gone", "uri": {"fsPath": str(project)}}
            ),
            head("elsewhere", 90, workspaceIdentifier={"id": "x", "uri": {"fsPath": "/else"}}),
        ]
    )
    ids = [h.composer_id for h in cursor.project_composers(project, home.user)]
    assert ids == ["by-path", "by-id"]
    chat = cursor.newest_composer(project, home.user)
    assert chat is not None
    assert chat.composer_id == "by-path"


def test_a_project_cursor_never_opened_has_no_chat_and_the_places_say_where_it_looked(
    home: CursorHome, tmp_path: Path
) -> None:
    never = tmp_path / "never-opened"
    assert cursor.newest_composer(never, home.user) is None
    places = cursor.search_places(never, home.user)
    assert any(str(home.user / "workspaceStorage") in p for p in places)
    assert any(str(home.global_db) in p for p in places)
    assert all(p.startswith("Cursor: ") for p in places)


def test_no_cursor_install_means_no_chat_not_an_error(tmp_path: Path, project: Path) -> None:
    absent = tmp_path / "no-cursor" / "User"
    assert cursor.newest_composer(project, absent) is None
    assert cursor.find_composer("x", absent) is None
    assert cursor.project_composers(project, absent) == []


def test_a_chat_is_found_by_its_id(home: CursorHome) -> None:
    home.add_chat("by-id", simple_chat())
    chat = cursor.find_composer("by-id", home.user)
    assert chat is not None
    assert chat.locator == f"{home.global_db}#by-id"
    assert cursor.find_composer("unknown", home.user) is None
    assert cursor.split_locator(chat.locator) == (home.global_db, "by-id")
    assert cursor.split_locator("/no/marker") is None
    assert cursor.split_locator("/db#a/b") is None


# ---------------------------------------------------------------------- errors


def test_a_missing_database_is_a_format_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "globalStorage" / "state.vscdb"
    with pytest.raises(SessionFormatError, match=re.escape(str(missing))):
        cursor.parse_composer(missing, "x")


def test_a_database_without_the_chat_table_is_a_format_error_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "state.vscdb"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.close()
    with pytest.raises(SessionFormatError, match="has no cursorDiskKV table") as caught:
        cursor.parse_composer(db, "x")
    assert str(db) in str(caught.value)


def test_a_file_that_is_not_sqlite_is_a_format_error(tmp_path: Path) -> None:
    db = tmp_path / "state.vscdb"
    db.write_bytes(b"this is not a database, just text " * 100)
    with pytest.raises(SessionFormatError, match="is not a SQLite database"):
        cursor.parse_composer(db, "x")


def test_an_unknown_chat_id_is_not_found_naming_the_database(home: CursorHome) -> None:
    with pytest.raises(SessionNotFoundError, match="no Cursor chat nope in"):
        cursor.parse_composer(home.global_db, "nope")


def test_a_table_without_its_key_index_is_refused_not_scanned(tmp_path: Path) -> None:
    db = tmp_path / "state.vscdb"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT, value BLOB)")
    conn.close()
    with pytest.raises(SessionFormatError, match="no index on key; refusing to scan"):
        cursor.parse_composer(db, "x")


def test_a_locked_rollback_journal_database_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_store, "BUSY_TIMEOUT", 0.05)
    db = create_db(tmp_path / "state.vscdb", wal=False)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionFormatError, match="locked"):
            cursor.parse_composer(db, "x")
    finally:
        writer.execute("ROLLBACK")
        writer.close()


# ---------------------------------------------------------------------- how the store is read


def test_only_documented_keys_can_be_asked_for(home: CursorHome) -> None:
    with StateDb(home.global_db) as store:
        for key in AUTH_SECRETS:
            with pytest.raises(ValueError, match="not one driftguard reads"):
                store.get("ItemTable", key)
        with pytest.raises(ValueError, match="not one driftguard reads"):
            store.get("cursorDiskKV", "checkpointId:abc")
        with pytest.raises(ValueError, match="not one driftguard reads"):
            store.get_many(["agentKv:blob:1"])


def test_every_statement_is_a_key_lookup_planned_on_the_key_index(
    home: CursorHome, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home.add_chat("traced", simple_chat())
    home.add_workspace(project, [head("traced", 5)])
    home.set_global_headers([head("traced", 5, workspaceIdentifier={"id": "none"})])
    tracer = Tracer(monkeypatch)
    chat = cursor.newest_composer(project, home.user)
    assert chat is not None
    cursor.read_chat(chat)
    cursor.find_composer("traced", home.user)
    selects = tracer.selects
    assert selects, "nothing was read"
    for statement in selects:
        assert KEY_LOOKUP.fullmatch(statement), statement
    assert not any("cursorAuth" in s for s in tracer.statements)
    lookups = [s for s in selects if "cursorDiskKV" in s]
    for line in plans(home.global_db, lookups):
        assert line.startswith("SEARCH cursorDiskKV USING INDEX sqlite_autoindex_cursorDiskKV_1")
    writes = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "VACUUM", "ATTACH")
    assert not any(s.lstrip().upper().startswith(writes) for s in tracer.statements)


def test_a_large_store_is_read_by_key_lookups_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = CursorHome(tmp_path / "User")
    target = [
        b
        for i in range(30)
        for b in (
            user_bubble(f"u{i}", f"step {i}", 2 * i),
            ai_bubble(f"a{i}", f"Did step {i}.", 2 * i + 1),
        )
    ]
    home.add_chat("target", target)
    noise = [
        (f"bubbleId:other-{c:04d}:{b:03d}", json.dumps(ai_bubble(f"{b}", "x" * 200)))
        for c in range(200)
        for b in range(50)
    ]
    noise += [(f"composerData:other-{c:04d}", json.dumps({"_v": 10})) for c in range(2_000)]
    put(home.global_db, "cursorDiskKV", noise)
    conn = sqlite3.connect(home.global_db)
    conn.execute("CREATE TABLE unrelated (id INTEGER PRIMARY KEY, payload BLOB)")
    conn.executemany(
        "INSERT INTO unrelated (payload) VALUES (?)", ((b"\0" * 1024,) for _ in range(20_000))
    )
    conn.commit()
    conn.close()
    assert home.global_db.stat().st_size > 10_000_000
    tracer = Tracer(monkeypatch)
    session = cursor.parse_composer(home.global_db, "target")
    assert session.message_count == 60
    # Measured: the key lookups take about 900 VM steps; one LIKE 'bubbleId:target:%' scan
    # of the 12,000 cursorDiskKV rows takes about 48,000.
    assert tracer.steps < 5_000, tracer.steps
    assert len(tracer.selects) == 2  # the chat, then its 60 bubbles in one IN (…) lookup


def test_the_store_is_read_while_cursor_holds_it_open_in_wal_mode(home: CursorHome) -> None:
    home.add_chat("live", simple_chat())
    writer = sqlite3.connect(home.global_db, isolation_level=None)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("BEGIN IMMEDIATE")  # Cursor mid-write: a new bubble, not committed
        new = user_bubble("u9", "An uncommitted prompt.", 9)
        writer.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)", ("bubbleId:live:u9", json.dumps(new))
        )
        data = json.loads(
            writer.execute(
                "SELECT value FROM cursorDiskKV WHERE key = 'composerData:live'"
            ).fetchone()[0]
        )
        data["fullConversationHeadersOnly"].append({"bubbleId": "u9", "type": 1})
        writer.execute(
            "INSERT INTO cursorDiskKV VALUES ('composerData:live', ?)", (json.dumps(data),)
        )
        before = cursor.parse_composer(home.global_db, "live")
        assert before.message_count == 4
        assert before.skipped_lines == 0
        writer.execute("COMMIT")
        after = cursor.parse_composer(home.global_db, "live")
        assert texts(after)[-1] == ("user", "An uncommitted prompt.")
        # No snapshot or lock outlives a read: a full checkpoint is not blocked.
        busy, _, _ = writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    finally:
        writer.close()


def test_reading_never_writes_the_database(home: CursorHome, project: Path) -> None:
    home.add_chat("ro", simple_chat())
    workspace = home.add_workspace(project, [head("ro", 1)])
    files = [home.global_db, workspace / "state.vscdb"]
    digest = {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
    mtime = {f: f.stat().st_mtime_ns for f in files}
    chat = cursor.newest_composer(project, home.user)
    assert chat is not None
    cursor.read_chat(chat)
    for f in files:
        assert hashlib.sha256(f.read_bytes()).hexdigest() == digest[f]
        assert f.stat().st_mtime_ns == mtime[f]


def test_authentication_entries_appear_in_no_output(
    home: CursorHome, project: Path, tmp_path: Path
) -> None:
    home.add_chat("secret-free", simple_chat())
    workspace = home.add_workspace(project, [head("secret-free", 3)])
    put(workspace / "state.vscdb", "ItemTable", AUTH_SECRETS)
    home.set_global_headers([head("secret-free", 3, workspaceIdentifier={"id": workspace.name})])
    outputs: list[str] = []
    chat = cursor.newest_composer(project, home.user)
    outputs += [repr(chat), repr(cursor.project_composers(project, home.user))]
    assert chat is not None
    outputs.append(repr(cursor.read_chat(chat)))
    outputs += cursor.search_places(project, home.user)
    outputs.append(repr(cursor.find_composer("secret-free", home.user)))
    for attempt in (
        lambda: cursor.parse_composer(home.global_db, "nope"),
        lambda: cursor.parse_composer(tmp_path / "absent.vscdb", "x"),
    ):
        with pytest.raises((SessionFormatError, SessionNotFoundError)) as caught:
            attempt()
        outputs.append(str(caught.value))
    text = "\n".join(outputs)
    for name, secret in AUTH_SECRETS.items():
        assert secret not in text
        assert name not in text
