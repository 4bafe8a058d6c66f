"""Gemini CLI adapter: the shared corpus (facts read from the raw files) and synthetic edge
cases (docs/design.md §5.1, §5.3; docs/formats.md §B).

The synthetic records below are written for these tests (no corpus text) and mirror the
on-disk layout ``~/.gemini/tmp/<project>/chats/session-<UTC minute>-<sid8>.jsonl``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, FIXTURES, corpus_file

from driftguard.adapters import detect_cli, gemini_cli, turn_snapshots
from driftguard.adapters._common import estimate_tokens, iter_lines, open_session_file
from driftguard.adapters.gemini_cli import GeminiCliParser, parse
from driftguard.errors import SessionFormatError
from driftguard.model import ParsedMessage, Session

LEGACY = "gemini/gemini_legacy-json_2026-03_vibecodingtracker.json"
JSONL = "gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl"
PING = "generated/gemini/gemini-ping-1turn.jsonl"
LONG = "generated/gemini/gemini-long-24turns-compress.jsonl"
COMPRESSION_REPLY = "Got it. Thanks for the additional context!"

SID = "0f1e2d3c-4b5a-4697-8899-aabbccddeeff"
META: dict[str, Any] = {
    "sessionId": SID,
    "projectHash": "ab" * 32,
    "startTime": "2026-05-01T08:00:00.000Z",
    "lastUpdated": "2026-05-01T08:00:00.000Z",
    "kind": "main",
}
CONTEXT_RECORD: dict[str, Any] = {
    "id": "ctx0",
    "timestamp": "2026-05-01T08:00:00.000Z",
    "type": "user",
    "content": [{"text": "<session_context>\nsynthetic environment preamble\n</session_context>"}],
}


# ---------------------------------------------------------------------- helpers


def chat_file(tmp_path: Path, records: list[Any], *, tail: bytes = b"") -> Path:
    """Write records (dicts, or raw strings written as is) as a Gemini JSONL session."""
    chats = tmp_path / ".gemini" / "tmp" / "demo" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / "session-2026-05-01T08-00-0f1e2d3c.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_bytes(("\n".join(lines) + "\n").encode() + tail)
    return path


def user(mid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-05-01T08:01:00.000Z",
        "type": "user",
        "content": [{"text": text}],
        **extra,
    }


def gemini(mid: str, content: Any, tokens: int | None = None, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": mid,
        "timestamp": "2026-05-01T08:01:05.000Z",
        "type": "gemini",
        "content": content,
        "thoughts": [],
        "model": "gemini-test-pro",
    }
    if tokens is not None:
        record["tokens"] = {
            "input": tokens,
            "output": 10,
            "cached": tokens // 2,
            "thoughts": 0,
            "tool": 0,
            "total": tokens + 10,
        }
    record.update(extra)
    return record


def call(
    call_id: str, name: str, args: dict[str, Any], output: str | None, *, status: str = "success"
) -> dict[str, Any]:
    response: dict[str, Any] = {"output": output} if status != "error" else {"error": output}
    return {
        "id": call_id,
        "name": name,
        "args": args,
        "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
        "status": status,
        "timestamp": "2026-05-01T08:01:06.000Z",
    }


def fed(path: Path) -> GeminiCliParser:
    """A parser fed every line of ``path``."""
    parser = GeminiCliParser(str(path))
    with open_session_file(path) as stream:
        for line, terminated in iter_lines(stream):
            parser.feed(line, terminated)
    return parser


def roles(session: Session) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in session.messages]


def texts_of(session: Session, role: str) -> list[str]:
    return [m.content for m in session.messages if m.role == role and not m.is_summary]


# ---------------------------------------------------------------------- corpus


CORPUS_FILES = sorted(
    [p for p in (CORPUS / "gemini").glob("*") if p.is_file()]
    + [
        p
        for p in (CORPUS / "generated" / "gemini").glob("*.jsonl")
        if not p.name.endswith(".requests.jsonl")
    ]
)


@pytest.mark.parametrize(
    "relative",
    [p.relative_to(CORPUS).as_posix() for p in CORPUS_FILES] or [LEGACY, JSONL, PING, LONG],
)
def test_every_corpus_file_parses_without_exception(relative: str) -> None:
    session = parse(corpus_file(relative))
    assert session.cli == "gemini_cli"
    assert session.context_window == 1_048_576
    assert session.messages


def test_legacy_json_corpus_file_yields_its_prompt_reply_and_tool_traffic() -> None:
    # Established with json.load on the raw file: 4 messages — 1 user (Part array, text), two
    # gemini records with content "" and 3 read_file / 4 write_file toolCalls (all status
    # success, each with a functionResponse output), and a final gemini text reply with tokens
    # input 43494 and model gemini-3.1-pro-preview-customtools. sessionId 8a20078e-…; no
    # `directories` key.
    session = parse(corpus_file(LEGACY))
    assert session.session_id == "8a20078e-2d5e-4f81-a640-9b879bbb7e6d"
    assert session.cwd is None
    assert len(texts_of(session, "user")) == 1
    assert len(texts_of(session, "assistant")) == 1
    assert session.message_count == 2
    assert session.context_tokens == 43494
    assert not session.tokens_estimated
    assert session.model == "gemini-3.1-pro-preview-customtools"
    assert (session.compactions, session.skipped_lines) == (0, 0)
    calls = [c for m in session.messages for c in m.tool_calls]
    assert [c.name for c in calls] == ["read_file"] * 3 + ["write_file"] * 4
    assert calls[0].target_path == "README.md"
    # Two tool-call carriers (content "") and one result message per gemini record.
    tools = [m for m in session.messages if m.role == "tool"]
    assert [m.content == "" for m in tools] == [True, False, True, False]
    assert not any(m.is_error for m in tools)
    # The carriers hold their record's input tokens (11894 and 20960 in the raw file).
    assert [m.token_count for m in tools if m.tool_calls] == [11894, 20960]


REAL_061 = (
    FIXTURES / "gemini/real-0.61/.gemini/tmp/proj/chats/session-2026-12-03T23-25-a578357c.jsonl"
)
"""Gemini CLI 0.61.0's own file of five prompts, the last running ``npm test`` until its
loop detector stopped it (tests/fixtures/README.md)."""


def test_a_real_061_file_has_its_typed_prompts_and_its_failed_commands_are_errors() -> None:
    # Established by reading the 74 raw lines: 5 typed prompts, a --resume (metadata line
    # and $set.messages rewrites) before each of the last four; run_shell_command results
    # with `status: "success"`: `ls -la` (no Exit Code line), `ls /nonexistent`
    # (Exit Code: 2), then `npm test` four times (Exit Code: 254); the loop detector's
    # "System: Potential loop detected…" user record after the fourth, which the final
    # $set.messages rewrite leaves out again.
    parser = fed(REAL_061)
    session = parser.session()
    assert parser.prompts == 5
    assert texts_of(session, "user") == [
        "What is in this folder?",
        "Write a README.md that says this is a tiny Node project.",
        "Sum up what you have done so far.",
        "Is the data folder /nonexistent there?",
        "Run the tests.",
    ]
    results = [m for m in session.messages if m.role == "tool" and not m.tool_calls]
    calls = [c.command or c.name for m in session.messages for c in m.tool_calls]
    assert calls == ["ls -la", "write_file", "ls /nonexistent", *["npm test"] * 4]
    assert [m.is_error for m in results] == [False, False, True, True, True, True, True]
    assert "Exit Code: 254" in results[-1].content
    assert (session.compactions, session.skipped_lines) == (0, 0)


def test_jsonl_corpus_file_drops_init_prompt_continuation_and_info_notices() -> None:
    # Established with a python one-off over the raw lines: 28 lines, all JSON objects; two
    # `info` records; three `user` records — line 4 the expanded /init prompt
    # (displayContent "/init"), line 18 "System: Please continue." (the CLI's own
    # continuation), line 22 the only typed prompt. Gemini ids written twice (first without,
    # then with toolCalls): 52e62e67, a4173396, cda8a342, edf94f05, 42a121a5; only edf94f05 and
    # 0752be32 have text. The last gemini record (42a121a5) has tokens.input 40238 and model
    # gemini-3.1-pro-preview. sessionId 0ab84937-…
    session = parse(corpus_file(JSONL))
    assert session.session_id == "0ab84937-9fe7-4284-986a-33c832af0b6a"
    assert len(texts_of(session, "user")) == 1
    assert texts_of(session, "user")[0].startswith("幫我做一個小修改")
    assert len(texts_of(session, "assistant")) == 2
    assert session.context_tokens == 40238
    assert session.model == "gemini-3.1-pro-preview"
    assert (session.compactions, session.skipped_lines) == (0, 0)
    # Tool-call-only records 52e62e67, a4173396, cda8a342, 42a121a5 (5+3+1+2 calls) plus the
    # one update_topic call on the text record edf94f05.
    carriers = [m for m in session.messages if m.role == "tool" and m.tool_calls]
    assert [len(m.tool_calls) for m in carriers] == [5, 3, 1, 2]
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert [c.name for c in assistants[0].tool_calls] == ["update_topic"]
    # The two models of the session, per message (docs/formats.md §B.5).
    assert {m.model for m in assistants} == {"gemini-3-flash-preview"}


def test_ping_corpus_file_counts_the_tool_result_once() -> None:
    # Established by reading the 11 raw lines: a `$set.messages` holding only the
    # <session_context> user record, the typed "Turn 1" prompt, gemini 7dc4e512 written twice
    # (second time with the mcp_tiny_ping toolCall and its functionResponse result), a user
    # record with the same functionResponse (same call id), and the text reply 3a8b79e5 with
    # tokens.input 10341 (the request log's last promptTokenCount is also 10341).
    session = parse(corpus_file(PING))
    assert session.session_id == "f6a1e244-c86e-444b-9dd1-e4c1a6f3ef82"
    assert [m.role for m in session.messages] == ["user", "tool", "tool", "assistant"]
    assert session.messages[1].tool_calls[0].name == "mcp_tiny_ping"
    assert "pong" in session.messages[2].content
    assert session.context_tokens == 10341
    assert session.model == "gemini-3.8-flash"
    assert (session.compactions, session.skipped_lines) == (0, 0)


def test_long_corpus_file_keeps_only_what_follows_the_compression() -> None:
    # Established with a python one-off over the raw lines: 36 `$set.messages` rewrites, 8 of
    # them (lines 167, 173, 179, 190, 196, 207, 213, 224, 1-based) carry a <state_snapshot>
    # user text, and it is the same 257-character text each time -> 1 compaction. Taking the
    # last rewrite plus the records appended after it, and dropping every id listed in the
    # first snapshot rewrite (session context, snapshot, "Got it…", kept tail of turns 13–17),
    # leaves 7 typed prompts (Turn 18 … Turn 24) and 8 gemini texts (the turn-17 reply and
    # turns 18–24); the last gemini record has tokens.input 90000 (the request log's last
    # main-loop promptTokenCount is 90000) and model gemini-3.8-flash.
    session = parse(corpus_file(LONG))
    assert session.session_id == "552abcff-9798-478a-822f-a12ae0f4bec0"
    assert session.compactions == 1
    summary = session.messages[0]
    assert summary.is_summary
    assert summary.role == "user"
    assert summary.content.startswith("<state_snapshot>")
    assert len(summary.content) == 257
    prompts = texts_of(session, "user")
    assert [p.split(":")[0] for p in prompts] == [f"Turn {n}" for n in range(18, 25)]
    assert len(texts_of(session, "assistant")) == 8
    assert session.message_count == 15
    assert not any(COMPRESSION_REPLY in m.content for m in session.messages)
    assert session.context_tokens == 90000
    assert not session.tokens_estimated
    assert session.model == "gemini-3.8-flash"
    assert session.skipped_lines == 0
    # Turns 19, 21 and 23 are ping turns after the boundary: one tool-call carrier each.
    carriers = [m for m in session.messages if m.role == "tool" and m.tool_calls]
    assert [m.token_count for m in carriers] == [34000, 55000, 76000]


def test_long_corpus_file_right_after_the_compression_rewrite_is_an_estimate() -> None:
    # Line 167 (1-based) is the first rewrite with the snapshot; no gemini record follows it
    # yet, so only the 257-character summary is remembered: floor(257 / 4) = 64 tokens.
    parser = GeminiCliParser("long")
    with open_session_file(corpus_file(LONG)) as stream:
        for number, (line, terminated) in enumerate(iter_lines(stream), start=1):
            parser.feed(line, terminated)
            if number == 167:
                break
    session = parser.session()
    assert session.compactions == 1
    assert [m.is_summary for m in session.messages] == [True]
    assert session.tokens_estimated
    assert session.context_tokens == 64


def test_feeding_the_long_corpus_file_in_two_halves_equals_one_parse() -> None:
    path = corpus_file(LONG)
    with open_session_file(path) as stream:
        lines = list(iter_lines(stream))
    parser = GeminiCliParser(str(path))
    for line, terminated in lines[:150]:
        parser.feed(line, terminated)
    midway = parser.session()
    for line, terminated in lines[150:]:
        parser.feed(line, terminated)
    assert midway.compactions == 0
    assert parser.session() == parse(path)


# ---------------------------------------------------------------------- replay rules


def test_last_write_wins_and_keeps_tokens_when_the_last_revision_has_none(
    tmp_path: Path,
) -> None:
    first = gemini("g1", "draft answer", tokens=1200)
    rewritten = gemini("g1", "final answer")  # a tokenless revision (docs/formats.md §B.5)
    rewritten["tokens"] = None
    path = chat_file(
        tmp_path, [META, user("u1", "explain the build"), first, user("u2", "thanks"), rewritten]
    )
    session = parse(path)
    assert roles(session) == [
        ("user", "explain the build"),
        ("assistant", "final answer"),
        ("user", "thanks"),
    ]
    assert session.messages[1].token_count == 1200
    assert session.context_tokens == 1200
    assert not session.tokens_estimated


def test_rewind_to_a_known_id_deletes_it_and_everything_after(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "first question"),
        gemini("g1", "first reply", tokens=500),
        user("u2", "second question"),
        gemini("g2", "second reply", tokens=900),
        {"$rewindTo": "u2"},
        user("u3", "another second question"),
    ]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [
        ("user", "first question"),
        ("assistant", "first reply"),
        ("user", "another second question"),
    ]
    assert session.context_tokens == 500


def test_rewind_to_an_unknown_id_clears_every_message(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "first question"),
        gemini("g1", "first reply", tokens=500),
        {"$rewindTo": "never-written"},
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.messages == ()
    assert session.tokens_estimated
    assert session.context_tokens == 0
    assert session.skipped_lines == 0


def test_set_messages_rebuilds_the_list(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "old prompt"),
        gemini("g1", "old reply", tokens=700),
        {"$set": {"messages": [CONTEXT_RECORD, user("u9", "restored prompt")]}},
        gemini("g2", "new reply", tokens=300),
    ]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [("user", "restored prompt"), ("assistant", "new reply")]
    assert session.compactions == 0
    assert session.context_tokens == 300


SNAPSHOT_A = "<state_snapshot>\n<overall_goal>ship the parser</overall_goal>\n</state_snapshot>"
SNAPSHOT_B = "<state_snapshot>\n<overall_goal>ship the scorer</overall_goal>\n</state_snapshot>"


def compression_rewrite(snapshot_id: str, snapshot: str, tail: list[Any]) -> dict[str, Any]:
    ack = gemini(f"{snapshot_id}-ack", [{"text": COMPRESSION_REPLY}])
    del ack["model"]
    return {
        "$set": {
            "messages": [CONTEXT_RECORD, user(snapshot_id, snapshot), ack, *tail],
            "lastUpdated": "2026-05-01T09:00:00.000Z",
        }
    }


def test_a_rewrite_with_a_new_snapshot_is_a_compaction_and_drops_everything_before(
    tmp_path: Path,
) -> None:
    kept = [user("u2", "kept prompt"), gemini("g2", [{"text": "kept reply"}])]
    records = [
        META,
        user("u1", "early prompt"),
        gemini("g1", "early reply", tokens=150_000),
        user("u2", "kept prompt"),
        gemini("g2", "kept reply", tokens=170_000),
        compression_rewrite("s1", SNAPSHOT_A, kept),
        user("u3", "prompt after compression"),
        gemini("g3", "reply after compression", tokens=40_000),
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.compactions == 1
    assert session.messages[0] == ParsedMessage(
        role="user",
        content=SNAPSHOT_A,
        timestamp=session.messages[0].timestamp,
        is_summary=True,
    )
    assert roles(session)[1:] == [
        ("user", "prompt after compression"),
        ("assistant", "reply after compression"),
    ]
    assert session.message_count == 2
    assert session.context_tokens == 40_000


def test_repeated_rewrites_with_the_same_snapshot_are_not_new_compactions(
    tmp_path: Path,
) -> None:
    after = [user("u3", "prompt after compression"), gemini("g3", "reply after", tokens=40_000)]
    records = [
        META,
        user("u1", "early prompt"),
        gemini("g1", "early reply", tokens=150_000),
        compression_rewrite("s1", SNAPSHOT_A, []),
        *after,
        # A resume re-syncs the history: same snapshot record, then what followed it.
        {"$set": {"sessionId": SID}},
        compression_rewrite("s1", SNAPSHOT_A, after),
        user("u4", "prompt after resume"),
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.compactions == 1
    assert [m.is_summary for m in session.messages].count(True) == 1
    assert roles(session)[1:] == [
        ("user", "prompt after compression"),
        ("assistant", "reply after"),
        ("user", "prompt after resume"),
    ]
    assert session.context_tokens == 40_000


def test_prompts_listed_again_by_a_resume_or_a_compression_rewrite_are_not_new(
    tmp_path: Path,
) -> None:
    # Every `--resume` lists the history again under its ids, and a compression its kept
    # tail under new ids (as Gemini CLI 0.61.0 wrote the long corpus file): one typed
    # prompt each, three turns.
    ack = gemini("ack", COMPRESSION_REPLY)
    snapshot = user("snap", "<state_snapshot>\nwe renamed the module\n</state_snapshot>")
    records = [
        META,
        {"$set": {"messages": [CONTEXT_RECORD]}},
        user("u1", "rename the module"),
        gemini("g1", "renamed", 900),
        META,  # the resume
        {
            "$set": {
                "messages": [
                    CONTEXT_RECORD,
                    user("u1", "rename the module"),
                    gemini("g1", "renamed", 900),
                ]
            }
        },
        user("u2", "now fix the imports"),
        gemini("g2", "fixed", 950),
        META,
        {
            "$set": {
                "messages": [CONTEXT_RECORD, snapshot, ack, user("u2-kept", "now fix the imports")]
            }
        },
        user("u3", "run the linter"),
        gemini("g3", "clean", 400),
    ]
    path = chat_file(tmp_path, records)
    parser = fed(path)
    assert parser.prompts == 3
    snapshots = list(turn_snapshots(path))
    assert len(snapshots) == 3
    assert [s.compactions for s in snapshots] == [0, 1, 1]
    assert texts_of(snapshots[-1], "user") == ["run the linter"]  # the rewrite is the boundary


def test_a_file_that_opens_with_a_rewrite_counts_the_prompts_it_lists(tmp_path: Path) -> None:
    # a migrated legacy object, or a --resume stub: the first the file tells of them
    legacy_line = {**META, "messages": [user("u1", "first"), gemini("g1", "one", 300)]}
    path = chat_file(tmp_path, [legacy_line, user("u2", "second"), gemini("g2", "two", 400)])
    parser = fed(path)
    assert parser.prompts == 2


def test_a_second_different_snapshot_is_a_second_compaction(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "early prompt"),
        gemini("g1", "early reply", tokens=150_000),
        compression_rewrite("s1", SNAPSHOT_A, []),
        user("u2", "middle prompt"),
        gemini("g2", "middle reply", tokens=160_000),
        compression_rewrite("s2", SNAPSHOT_B, [user("u2", "middle prompt")]),
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.compactions == 2
    assert session.messages[0].content == SNAPSHOT_B
    assert len(session.messages) == 1
    assert session.tokens_estimated
    assert session.context_tokens == len(SNAPSHOT_B) // 4


# ---------------------------------------------------------------------- what is scored


def test_info_error_and_warning_records_are_ignored_but_not_skipped(tmp_path: Path) -> None:
    records = [
        META,
        {"id": "i1", "timestamp": "2026-05-01T08:00:01.000Z", "type": "info", "content": "note"},
        user("u1", "hello"),
        {"id": "e1", "timestamp": "2026-05-01T08:00:02.000Z", "type": "error", "content": "quota"},
        gemini("g1", "hi there", tokens=100),
        {"id": "w1", "timestamp": "2026-05-01T08:00:03.000Z", "type": "warning", "content": "slow"},
    ]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [("user", "hello"), ("assistant", "hi there")]
    assert session.skipped_lines == 0


def test_the_cli_acknowledgement_after_a_compression_is_not_an_assistant_message(
    tmp_path: Path,
) -> None:
    records = [META, user("u1", "hello"), gemini("g1", COMPRESSION_REPLY)]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [("user", "hello")]


def test_injected_context_slash_commands_and_the_continue_prompt_are_not_user_messages(
    tmp_path: Path,
) -> None:
    records = [
        META,
        {"$set": {"messages": [CONTEXT_RECORD]}},
        # An expanded slash command: the model got a long prompt, the person typed "/init".
        user(
            "u1", "Analyse this folder and write a notes file.", displayContent=[{"text": "/init"}]
        ),
        user("u2", "System: Please continue."),
        user("u3", "<hook_context>from a hook</hook_context>"),
        # A typed prompt with a hook's context appended as its own part: only the prompt stays.
        {
            "id": "u4",
            "timestamp": "2026-05-01T08:02:00.000Z",
            "type": "user",
            "content": [{"text": "rename the module"}, {"text": "<hook_context>x</hook_context>"}],
        },
        # @file expansion: the model saw more than was typed; it is still a typed prompt.
        user(
            "u5",
            "explain @a.py\n--- Content from referenced files ---\nprint(1)",
            displayContent=[{"text": "explain @a.py"}],
        ),
    ]
    session = parse(chat_file(tmp_path, records))
    assert texts_of(session, "user") == [
        "rename the module",
        "explain @a.py\n--- Content from referenced files ---\nprint(1)",
    ]


LOOP_NOTICE = (
    "System: Potential loop detected. Details: Repeated tool call: run_shell_command with "
    'arguments {"command":"npm test"}. Please take a step back and confirm you\'re making '
    "forward progress."
)
"""The start of the loop detector's recovery turn as Gemini CLI 0.61.0 wrote it (19-seams
§2.7; ``GeminiClient._recoverFromLoop``), the arguments ours."""


def test_the_turns_the_cli_sends_on_its_own_are_not_prompts_even_with_a_display_text(
    tmp_path: Path,
) -> None:
    records = [
        META,
        user("u1", "run the tests"),
        gemini("g1", "running them", 900),
        # headless, mid-turn: the notice alone
        user("u2", LOOP_NOTICE),
        # the CLI passes on the displayContent of the prompt it continues, and records it
        # because it differs from the content
        user("u3", LOOP_NOTICE, displayContent=[{"text": "run the tests"}]),
        user("u4", "Please continue.", displayContent=[{"text": "run the tests"}]),
        user("u5", "System: Please continue.", displayContent=[{"text": "run the tests"}]),
        gemini("g2", "done", 950),
        # typed by the person: no displayContent, as its content is what was typed
        user("u6", "Please continue."),
    ]
    parser = GeminiCliParser("s.jsonl")
    for record in records:
        parser.feed(json.dumps(record).encode())
    assert texts_of(parser.session(), "user") == ["run the tests", "Please continue."]
    assert parser.prompts == 2


def test_function_response_only_user_records_are_tool_messages(tmp_path: Path) -> None:
    failing = {
        "id": "u2",
        "timestamp": "2026-05-01T08:01:10.000Z",
        "type": "user",
        "content": [
            {
                "functionResponse": {
                    "id": "call-9",
                    "name": "run_shell_command",
                    "response": {"error": "command not allowed"},
                }
            }
        ],
    }
    records = [
        META,
        user("u1", "run the tests"),
        gemini("g1", [{"functionCall": {"id": "call-9", "name": "run_shell_command", "args": {}}}]),
        failing,
        gemini("g2", "the command was refused", tokens=800),
    ]
    session = parse(chat_file(tmp_path, records))
    assert [m.role for m in session.messages] == ["user", "tool", "tool", "assistant"]
    result = session.messages[2]
    assert (result.content, result.is_error) == ("command not allowed", True)
    assert session.message_count == 2


def test_a_tool_result_recorded_twice_is_emitted_once(tmp_path: Path) -> None:
    # ≥ 0.58: the result sits in toolCalls[].result and again in a user record.
    shell = call("call-1", "run_shell_command", {"command": "make test"}, "Exit Code: 0")
    echo = {
        "id": "u2",
        "timestamp": "2026-05-01T08:01:10.000Z",
        "type": "user",
        "content": shell["result"],
    }
    records = [
        META,
        user("u1", "run the tests"),
        gemini("g1", "", tokens=900),
        gemini("g1", "", tokens=900, toolCalls=[shell]),
        echo,
        gemini("g2", "all green", tokens=950),
    ]
    session = parse(chat_file(tmp_path, records))
    tools = [m for m in session.messages if m.role == "tool"]
    assert [(m.content, m.tool_calls != ()) for m in tools] == [("", True), ("Exit Code: 0", False)]
    assert tools[0].tool_calls[0].command == "make test"
    assert tools[0].token_count == 900


def test_a_text_reply_carries_its_tool_calls_and_a_failed_call_is_an_error(
    tmp_path: Path,
) -> None:
    edit = call("call-2", "replace", {"file_path": "/w/app.py"}, "no match", status="error")
    records = [
        META,
        user("u1", "fix the typo"),
        gemini("g1", "Editing the file now.", tokens=1000, toolCalls=[edit]),
    ]
    session = parse(chat_file(tmp_path, records))
    reply, result = session.messages[1], session.messages[2]
    assert reply.role == "assistant"
    assert [(c.name, c.target_path) for c in reply.tool_calls] == [("replace", "/w/app.py")]
    assert reply.model == "gemini-test-pro"
    assert (result.role, result.content, result.is_error) == ("tool", "no match", True)


def untrusted(*lines: str) -> str:
    """A shell result as Gemini CLI 0.61.0 gives it to the model (19-seams §2.8)."""
    return "<untrusted_context>\n" + "\n".join(lines) + "\n</untrusted_context>"


SHELL_RESULTS = [
    # (text, failed): 0.61.0 writes `Exit Code` only when it is not 0, then the PGID
    (untrusted("Output: (empty)", "Exit Code: 1", "Process Group PGID: 16593"), True),
    (untrusted("Output: hi", "Process Group PGID: 16808"), False),
    (untrusted("Output: npm error code ENOENT", "Exit Code: 254", "Process Group PGID: 7"), True),
    (untrusted("Output: (empty)", "Signal: 9", "Process Group PGID: 40"), True),
    (
        untrusted("Output: x", "Exit Code: 2", "Background PIDs: 41, 42", "Process Group PGID: 40"),
        True,
    ),
    # the command's own output may print such a line; the CLI's sections come after it
    (untrusted("Output: Exit Code: 3\nExit Code: 3\nall good", "Process Group PGID: 9"), False),
    (
        untrusted(
            "Command was automatically cancelled because it exceeded the timeout of 5.0 "
            "minutes without output. There was no output before it was cancelled."
        ),
        True,
    ),
    # earlier shell.ts, as the legacy .json files hold it: every line, no wrapper
    (
        "Command: make\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\n"
        "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 77",
        False,
    ),
    (
        "Command: make\nDirectory: (root)\nOutput: boom\nError: (none)\nExit Code: 2\n"
        "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 77",
        True,
    ),
    # a masked output (ToolOutputMaskingService.formatMaskedSnippet) keeps the sections
    (
        "<tool_output_masked>\nOutput: line 1\nExit Code: 1\nProcess Group PGID: 5\n"
        "</untrusted_context>\n\nOutput too large. Full output available at: /t/o.txt\n"
        "</tool_output_masked>",
        True,
    ),
]


@pytest.mark.parametrize(("text", "failed"), SHELL_RESULTS)
def test_a_shell_result_is_an_error_when_its_text_says_the_command_failed(
    tmp_path: Path, text: str, failed: bool
) -> None:
    shell = call("call-1", "run_shell_command", {"command": "npm test"}, text)
    echo = {
        "id": "u2",
        "timestamp": "2026-05-01T08:01:10.000Z",
        "type": "user",
        "content": shell["result"],
    }
    records = [META, user("u1", "run the tests"), gemini("g1", "", 900, toolCalls=[shell])]
    # the result as the call's `result` (the first written) and as a user record alone
    from_call = parse(chat_file(tmp_path, records)).messages[-1]
    from_record = parse(chat_file(tmp_path, [*records[:2], echo])).messages[-1]
    assert (from_call.content, from_call.is_error) == (text, failed)
    assert (from_record.content, from_record.is_error) == (text, failed)


def test_only_a_shell_commands_text_is_read_for_an_exit_code(tmp_path: Path) -> None:
    log = untrusted("Output: (empty)", "Exit Code: 1", "Process Group PGID: 16593")
    read = call("call-1", "read_file", {"file_path": "/w/run.log"}, log)
    records = [META, user("u1", "read the log"), gemini("g1", "", 900, toolCalls=[read])]
    assert parse(chat_file(tmp_path, records)).messages[-1].is_error is False


def test_a_legacy_json_shell_result_given_as_a_string_is_read_for_its_exit_code(
    tmp_path: Path,
) -> None:
    shell = {
        "id": "call-1",
        "name": "run_shell_command",
        "args": {"command": "make"},
        "result": "Command: make\nOutput: boom\nExit Code: 2\nSignal: (none)",
        "status": "success",
    }
    document = {
        **META,
        "messages": [user("u1", "build it"), gemini("g1", "", 500, toolCalls=[shell])],
    }
    path = tmp_path / "session-2026-05-01T08-00-0f1e2d3c.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert parse(path).messages[-1].is_error is True


def test_thought_parts_are_not_text(tmp_path: Path) -> None:
    content = [
        {"text": "weighing the options", "thought": True},
        {"text": "Use a dict."},
        {"text": "It keeps order."},
    ]
    session = parse(chat_file(tmp_path, [META, user("u1", "which type?"), gemini("g1", content)]))
    assert texts_of(session, "assistant") == ["Use a dict.\nIt keeps order."]


def test_a_zero_token_record_is_never_the_latest_request(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "hello"),
        gemini("g1", "first", tokens=2000),
        gemini("g2", "second", tokens=0),
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.context_tokens == 2000
    assert session.messages[2].token_count is None


def test_without_usage_the_context_is_estimated_from_characters(tmp_path: Path) -> None:
    records = [META, user("u1", "a" * 40), gemini("g1", "b" * 41)]
    session = parse(chat_file(tmp_path, records))
    assert session.tokens_estimated
    assert session.context_tokens == 81 // 4 == estimate_tokens(session.messages)
    assert session.model == "gemini-test-pro"


def test_session_id_is_the_last_named_and_cwd_the_first_directory(tmp_path: Path) -> None:
    records = [
        {**META, "directories": ["/home/dev/demo", "/home/dev/lib"]},
        user("u1", "hello"),
        {"$set": {"sessionId": "11111111-2222-4333-8444-555555555555"}},
    ]
    session = parse(chat_file(tmp_path, records))
    assert session.session_id == "11111111-2222-4333-8444-555555555555"
    assert session.cwd == "/home/dev/demo"
    assert parse(chat_file(tmp_path, [META])).cwd is None


def test_a_migrated_legacy_object_on_one_line_rebuilds_the_messages(tmp_path: Path) -> None:
    legacy_line = {**META, "messages": [user("u1", "migrated prompt"), gemini("g1", "old", 300)]}
    session = parse(chat_file(tmp_path, [legacy_line, user("u2", "new prompt")]))
    assert texts_of(session, "user") == ["migrated prompt", "new prompt"]
    assert session.context_tokens == 300


# ---------------------------------------------------------------------- damaged input


def test_malformed_unknown_and_half_written_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    records = [
        META,
        "this is not json",
        "[1, 2, 3]",
        "",
        {"kind": "something new"},
        {"id": "x1", "timestamp": "2026-05-01T08:00:00.000Z", "type": "telemetry"},
        user("u1", "hello"),
        {"$set": {"messages": [user("u1", "hello"), "not a record"]}},
    ]
    path = chat_file(tmp_path, records, tail=b'{"id": "g1", "type": "gem')
    session = parse(path)
    assert roles(session) == [("user", "hello")]
    # Invalid JSON, a non-object, an unknown shape, an unknown message type, a bad list
    # element and the half-written last line; the blank line is not counted.
    assert session.skipped_lines == 6


def test_a_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = chat_file(
        tmp_path, [META, user("u1", "hello")], tail=json.dumps(gemini("g1", "hi")).encode()
    )
    session = parse(path)
    assert roles(session) == [("user", "hello"), ("assistant", "hi")]
    assert session.skipped_lines == 0


def test_feeding_in_steps_with_snapshots_between_equals_one_parse(tmp_path: Path) -> None:
    records = [
        META,
        user("u1", "first"),
        gemini("g1", "reply one", tokens=100),
        compression_rewrite("s1", SNAPSHOT_A, []),
        user("u2", "second"),
        gemini("g2", "", tokens=300, toolCalls=[call("c1", "read_file", {"file_path": "a"}, "x")]),
        {"$rewindTo": "g2"},
        gemini("g3", "reply two", tokens=310),
    ]
    path = chat_file(tmp_path, records)
    parser = GeminiCliParser(str(path))
    snapshots = []
    with open_session_file(path) as stream:
        for line, terminated in iter_lines(stream):
            parser.feed(line, terminated)
            snapshots.append(parser.session())
    assert snapshots[-1] == parse(path)
    assert snapshots[2].compactions == 0
    assert snapshots[3].compactions == 1


# ---------------------------------------------------------------------- legacy JSON


def legacy_file(tmp_path: Path, text: str) -> Path:
    chats = tmp_path / ".gemini" / "tmp" / "demo" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / "session-2026-03-01T10-00-0f1e2d3c.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_legacy_json_with_string_content_is_read(tmp_path: Path) -> None:
    document = {
        "sessionId": SID,
        "projectHash": "cd" * 32,
        "startTime": "2026-03-01T10:00:00.000Z",
        "lastUpdated": "2026-03-01T10:05:00.000Z",
        "messages": [
            {"id": "a", "timestamp": "2026-03-01T10:00:00Z", "type": "user", "content": "plain"},
            {
                "id": "b",
                "timestamp": "2026-03-01T10:00:09Z",
                "type": "gemini",
                "content": "plain reply",
                "tokens": {"input": 4321, "output": 5, "cached": 4000, "total": 4326},
                "model": "gemini-2.5-pro",
            },
        ],
    }
    session = parse(legacy_file(tmp_path, json.dumps(document, indent=2)))
    assert roles(session) == [("user", "plain"), ("assistant", "plain reply")]
    assert session.session_id == SID
    assert session.context_tokens == 4321
    assert session.model == "gemini-2.5-pro"
    assert session.messages[1].timestamp == pytest.approx(1772359209.0)


def test_legacy_json_that_does_not_parse_raises_after_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gemini_cli._parse, "LEGACY_RETRY_DELAY", 0.0)
    path = legacy_file(tmp_path, '{"sessionId": "x", "messages": [')
    with pytest.raises(SessionFormatError, match="not a readable Gemini CLI session"):
        parse(path)


def test_json_that_is_not_a_session_object_raises(tmp_path: Path) -> None:
    with pytest.raises(SessionFormatError, match="no 'messages' list"):
        parse(legacy_file(tmp_path, '[{"sessionId": "x", "messageId": 0}]'))


# ---------------------------------------------------------------------- hostile content

TOO_DEEP = "[" * 100_000 + "]" * 100_000
"""A JSON line nested far deeper than the decoder's recursion allows."""

BAD_TOKENS = pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, 1e400, -5000, -0.5, True, "5000", None, [5000], 10**400],
    ids=["nan", "inf", "-inf", "1e400", "negative", "-0.5", "bool", "str", "null", "list", "huge"],
)


def test_a_line_nested_too_deeply_is_skipped_and_counted(tmp_path: Path) -> None:
    records = [META, user("u1", "hello"), TOO_DEEP, gemini("g1", "hi", tokens=700)]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [("user", "hello"), ("assistant", "hi")]
    assert session.skipped_lines == 1
    assert session.context_tokens == 700


def test_the_reviewers_nan_line_is_no_usage(tmp_path: Path) -> None:
    line = '{"id":"2","type":"gemini","content":"hello","tokens":{"input":NaN}}'
    session = parse(chat_file(tmp_path, [META, user("1", "a question"), line]))
    assert roles(session) == [("user", "a question"), ("assistant", "hello")]
    assert session.tokens_estimated
    assert session.messages[1].token_count is None


@BAD_TOKENS
def test_a_token_input_that_is_no_token_count_is_no_usage(tmp_path: Path, bad: Any) -> None:
    # json.dumps writes NaN / Infinity / -Infinity and the 401-digit integer as such.
    record = gemini("g2", "second", tokens=1)
    record["tokens"]["input"] = bad
    records = [META, user("u1", "hello"), gemini("g1", "first", tokens=2000), record]
    session = parse(chat_file(tmp_path, records))
    assert session.context_tokens == 2000
    assert not session.tokens_estimated
    assert session.messages[2].token_count is None


@BAD_TOKENS
def test_a_bad_revision_keeps_the_earlier_tokens_of_its_id(tmp_path: Path, bad: Any) -> None:
    revised = gemini("g1", "first, revised", tokens=1)
    revised["tokens"]["input"] = bad
    records = [META, user("u1", "hello"), gemini("g1", "first", tokens=2500), revised]
    session = parse(chat_file(tmp_path, records))
    assert texts_of(session, "assistant") == ["first, revised"]
    assert session.context_tokens == 2500


@BAD_TOKENS
def test_a_legacy_json_with_bad_token_input_is_no_usage(tmp_path: Path, bad: Any) -> None:
    record = gemini("g1", "reply", tokens=1)
    record["tokens"]["input"] = bad
    document = {**META, "messages": [user("u1", "hello"), record]}
    session = parse(legacy_file(tmp_path, json.dumps(document)))
    assert roles(session) == [("user", "hello"), ("assistant", "reply")]
    assert session.tokens_estimated
    assert session.context_tokens == estimate_tokens(session.messages)


@pytest.mark.parametrize(
    "deep",
    [TOO_DEEP, "[" * 400 + "]" * 400],
    ids=["beyond-the-decoder", "beyond-max-depth"],
)
def test_one_message_nested_too_deeply_in_a_legacy_json_skips_only_that_message(
    tmp_path: Path, deep: str
) -> None:
    bad = json.dumps(gemini("g1", "lost", tokens=1)).replace('"lost"', deep)
    messages = [json.dumps(user("u1", "hello")), bad, json.dumps(gemini("g2", "still", tokens=800))]
    head = f'"sessionId": "{SID}", "projectHash": "{"cd" * 32}"'
    document = f'{{{head}, "messages": [{", ".join(messages)}]}}'
    path = legacy_file(tmp_path, document)
    session = parse(path)
    assert roles(session) == [("user", "hello"), ("assistant", "still")]
    assert session.skipped_lines == 1
    assert session.session_id == SID
    assert session.context_tokens == 800
    assert detect_cli(path) == "gemini_cli"


def test_a_legacy_json_whose_object_cannot_be_delimited_is_a_format_error_naming_it(
    tmp_path: Path,
) -> None:
    path = legacy_file(tmp_path, '{"sessionId": "x", "messages": [' + TOO_DEEP)
    with pytest.raises(SessionFormatError, match=f"{path} .*nested too deeply"):
        parse(path)
    path.write_text('{"sessionId": "x", "messages": ' + TOO_DEEP + "}")
    session = parse(path)  # the messages list holds one (too deep) element, skipped
    assert session.messages == ()
    assert session.skipped_lines == 1


def test_tool_arguments_and_responses_nested_deeply_do_not_break_the_parse(
    tmp_path: Path,
) -> None:
    deep_args: Any = "leaf"
    for _ in range(120):
        deep_args = {"k": deep_args}
    reply = gemini("g1", "done", tokens=900, toolCalls=[call("c1", "edit", deep_args, "ok")])
    session = parse(chat_file(tmp_path, [META, user("u1", "go"), reply]))
    assert [c.name for m in session.messages for c in m.tool_calls] == ["edit"]
    assert session.skipped_lines == 0


@pytest.mark.parametrize("kind", [["gemini"], {"a": 1}])
def test_a_message_type_that_is_an_array_or_object_is_an_unknown_type(
    tmp_path: Path, kind: Any
) -> None:
    records = [META, user("u1", "hello"), {"id": "g1", "type": kind, "content": "x"}]
    session = parse(chat_file(tmp_path, records))
    assert roles(session) == [("user", "hello")]
    assert session.skipped_lines == 1
