"""Hostile and broken session files: every adapter, through ``parse_session`` and through
``SessionCache().get``, either returns a :class:`~driftguard.model.Session` or raises a
:class:`~driftguard.errors.DriftguardError` — never anything else — and counts every
non-blank line that is not a JSON object in ``skipped_lines`` (docs/design.md §4; the common
brief's "a malformed line … skipped and counted, never an exception").

Two parts: a property test that writes random JSON-ish lines (records drawn from a grammar
of each CLI's record shapes with random field types, JSON values that are not objects,
garbage bytes, half-written and absurdly nested lines, CRLF endings, a BOM) to a file —
plain, zstd-compressed, or zstd cut short — and reads it; and the named hostile files of
the review, one test each. Every record here is
synthetic.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.adapters import parse_session
from driftguard.errors import DriftguardError
from driftguard.model import CliName, Session
from driftguard.sessions.incremental import SessionCache

FILE_CLIS: tuple[CliName, ...] = ("claude_code", "gemini_cli", "codex_cli")
"""The sources that write session files, line by line (Cursor keeps its chats in SQLite:
its hostile-content tests are in test_cursor.py)."""

DEEP = b"[" * 100_000 + b"]" * 100_000
"""A JSON line nested far deeper than the decoder's recursion allows."""

BOM = b"\xef\xbb\xbf"

FILE_NAMES: dict[CliName, str] = {
    "claude_code": "projects/-home-dev-demo/6c1d2e3f-0a1b-4c2d-8e3f-405162738495.jsonl",
    "gemini_cli": ".gemini/tmp/demo/chats/session-2026-05-01T08-00-0f1e2d3c.jsonl",
    "codex_cli": ".codex/sessions/2026/03/04/rollout-2026-03-04T10-00-00-0199aaaa.jsonl",
}
"""Where each CLI writes its sessions (file names matter: ``agent-`` and the like)."""


# ---------------------------------------------------------------------- the grammar

NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.sampled_from([0, -1, 2**53, 2**53 + 1, 10**400, -(10**400)]),
    st.floats(allow_nan=True, allow_infinity=True),
)
"""Token counts, windows, timestamps: plausible, negative, huge, fractional, non-finite."""

TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "   ",
            "fix the parser",
            "<command-name>/clear</command-name>",
            "<system-reminder>x</system-reminder>",
            "<session_context>env</session_context>",
            "<state_snapshot>so far</state_snapshot>",
            "This session is being continued from a previous conversation",
            "Got it. Thanks for the additional context!",
            "/help",
            "<environment_context><cwd>/w</cwd></environment_context>",
            "*** Begin Patch\n*** Update File: a.py\n",
            "Exit code: 3\nOutput:\nboom",
            '{"output": "x", "metadata": {"exit_code": 2}}',
            "{" * 40,
            (b"[" * 3000 + b"]" * 3000).decode(),
            "\ud800",
            "2026-03-01T10:00:00Z",
            "9999-12-31T23:59:59-12:00",
        ]
    ),
)
KEYS = st.one_of(
    st.sampled_from(
        [
            "type",
            "text",
            "content",
            "id",
            "input",
            "output",
            "usage",
            "tokens",
            "message",
            "payload",
            "name",
            "args",
            "error",
        ]
    ),
    st.text(max_size=4),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXTS)
ANYTHING = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
"""Any JSON value, used as the "wrong type" of every field."""


def field(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field's value: mostly the plausible kind, sometimes any JSON value at all."""
    return st.one_of(plausible, plausible, ANYTHING)


def record(
    required: dict[str, st.SearchStrategy[Any]], optional: dict[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {k: field(v) for k, v in required.items()},
        optional={k: field(v) for k, v in optional.items()},
    )


IDS = st.sampled_from(["a", "b", "c", "m1", "m2"])  # few, so records repeat and rewind hits
MODELS = st.sampled_from(["claude-opus-4-7", "<synthetic>", "gemini-2.5-pro", "gpt-5.5", ""])
TIMESTAMPS = st.one_of(NUMBERS, TEXTS)
BOOLS = st.booleans()

# Claude Code (docs/formats.md §A.4)
CLAUDE_BLOCK = st.one_of(
    record({"type": st.just("text")}, {"text": TEXTS}),
    record({"type": st.just("tool_use")}, {"name": TEXTS, "input": ANYTHING, "id": IDS}),
    record(
        {"type": st.just("tool_result")},
        {"content": st.one_of(TEXTS, st.lists(ANYTHING, max_size=2)), "is_error": BOOLS},
    ),
    record({"type": st.just("thinking")}, {"thinking": TEXTS}),
    TEXTS,
)
CLAUDE_USAGE = record(
    {},
    {
        "input_tokens": NUMBERS,
        "cache_creation_input_tokens": NUMBERS,
        "cache_read_input_tokens": NUMBERS,
        "output_tokens": NUMBERS,
        "cache_creation": st.dictionaries(st.sampled_from(["e5m", "e1h"]), NUMBERS, max_size=2),
    },
)
CLAUDE_RECORD = record(
    {
        "type": st.sampled_from(
            ["user", "assistant", "system", "summary", "progress", "attachment", "brand-new"]
        )
    },
    {
        "uuid": IDS,
        "isSidechain": BOOLS,
        "sessionId": TEXTS,
        "cwd": TEXTS,
        "timestamp": TIMESTAMPS,
        "requestId": IDS,
        "message": record(
            {},
            {
                "id": IDS,
                "role": st.sampled_from(["user", "assistant"]),
                "model": MODELS,
                "content": st.one_of(TEXTS, st.lists(CLAUDE_BLOCK, max_size=3)),
                "usage": CLAUDE_USAGE,
            },
        ),
        "subtype": st.sampled_from(["compact_boundary", "microcompact_boundary", "other"]),
        "compactMetadata": record(
            {},
            {
                "preservedSegment": record({}, {"headUuid": IDS, "tailUuid": IDS}),
                "preservedMessages": record({}, {"uuids": st.lists(IDS, max_size=2)}),
            },
        ),
        "isCompactSummary": BOOLS,
        "isMeta": BOOLS,
        "isApiErrorMessage": BOOLS,
    },
)

# Gemini CLI (docs/formats.md §B.4–B.5)
GEMINI_PART = st.one_of(
    TEXTS,
    record({}, {"text": TEXTS, "thought": BOOLS}),
    record({"functionCall": record({}, {"name": TEXTS, "args": ANYTHING})}, {}),
    record(
        {
            "functionResponse": record(
                {}, {"id": IDS, "name": TEXTS, "response": record({}, {"output": ANYTHING})}
            )
        },
        {},
    ),
)
GEMINI_CONTENT = st.one_of(TEXTS, st.lists(GEMINI_PART, max_size=3))
GEMINI_MESSAGE = record(
    {"id": IDS, "type": st.sampled_from(["user", "gemini", "info", "error", "warning", "new"])},
    {
        "content": GEMINI_CONTENT,
        "displayContent": GEMINI_CONTENT,
        "tokens": record({}, {"input": NUMBERS, "output": NUMBERS, "cached": NUMBERS}),
        "toolCalls": st.lists(
            record(
                {},
                {
                    "id": IDS,
                    "name": TEXTS,
                    "args": ANYTHING,
                    "result": st.lists(GEMINI_PART, max_size=2),
                    "status": st.sampled_from(["success", "error"]),
                },
            ),
            max_size=2,
        ),
        "model": MODELS,
        "timestamp": TIMESTAMPS,
    },
)
GEMINI_RECORD = st.one_of(
    GEMINI_MESSAGE,
    record(
        {
            "$set": record(
                {},
                {
                    "sessionId": TEXTS,
                    "directories": st.lists(TEXTS, max_size=2),
                    "messages": st.lists(GEMINI_MESSAGE, max_size=3),
                },
            )
        },
        {},
    ),
    record({"$rewindTo": IDS}, {}),
    record({"sessionId": TEXTS}, {"projectHash": TEXTS, "messages": st.lists(GEMINI_MESSAGE)}),
)

# Codex CLI (docs/formats.md §C.2–C.4)
CODEX_USAGE = record(
    {},
    {"input_tokens": NUMBERS, "output_tokens": NUMBERS, "total_tokens": NUMBERS},
)
CODEX_ITEM = st.one_of(
    record(
        {
            "type": st.just("message"),
            "role": st.sampled_from(["user", "assistant", "developer"]),
            "content": st.lists(
                record({"type": st.sampled_from(["input_text", "output_text"]), "text": TEXTS}, {}),
                max_size=2,
            ),
        },
        {"metadata": record({}, {"compaction_output": BOOLS})},
    ),
    record(
        {"type": st.just("function_call"), "name": TEXTS},
        {"arguments": st.one_of(TEXTS, ANYTHING.map(json.dumps)), "namespace": TEXTS},
    ),
    record(
        {"type": st.sampled_from(["function_call_output", "custom_tool_call_output"])},
        {"output": st.one_of(TEXTS, ANYTHING, ANYTHING.map(json.dumps))},
    ),
    record(
        {"type": st.sampled_from(["custom_tool_call", "local_shell_call", "reasoning"])},
        {"input": TEXTS, "action": ANYTHING, "name": TEXTS},
    ),
)
CODEX_EVENT = st.one_of(
    record(
        {"type": st.just("token_count")},
        {
            "info": record(
                {},
                {
                    "last_token_usage": CODEX_USAGE,
                    "total_token_usage": CODEX_USAGE,
                    "model_context_window": NUMBERS,
                },
            )
        },
    ),
    record(
        {"type": st.sampled_from(["task_started", "task_complete", "turn_aborted"])},
        {"model_context_window": NUMBERS},
    ),
    record({"type": st.just("thread_rolled_back")}, {"num_turns": NUMBERS}),
    record({"type": st.sampled_from(["user_message", "item_completed"])}, {"message": TEXTS}),
)


def envelope(kind: str, payload: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return record({"type": st.just(kind), "payload": payload}, {"timestamp": TIMESTAMPS})


CODEX_RECORD = st.one_of(
    envelope("response_item", CODEX_ITEM),
    envelope("event_msg", CODEX_EVENT),
    envelope("session_meta", record({}, {"id": TEXTS, "cwd": TEXTS})),
    envelope("turn_context", record({}, {"model": MODELS, "cwd": TEXTS})),
    envelope("compacted", record({}, {"message": TEXTS})),
    envelope("world_state", ANYTHING),
    CODEX_ITEM,  # first generation: bare items
    record({"record_type": TEXTS}, {}),
    record({"id": TEXTS}, {"instructions": TEXTS, "timestamp": TIMESTAMPS}),
)

RECORDS: dict[CliName, st.SearchStrategy[dict[str, Any]]] = {
    "claude_code": CLAUDE_RECORD,
    "gemini_cli": GEMINI_RECORD,
    "codex_cli": CODEX_RECORD,
}


def lines(records: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    """One line's bytes (no newline): a record, or one of the ways a line goes wrong."""
    dumped = records.map(lambda r: json.dumps(r).encode("utf-8", "surrogatepass"))
    return st.one_of(
        dumped,
        dumped,
        dumped,
        ANYTHING.filter(lambda v: not isinstance(v, dict)).map(
            lambda v: json.dumps(v).encode("utf-8", "surrogatepass")
        ),
        st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
        dumped.map(lambda b: b[: len(b) // 2]),  # half-written
        st.sampled_from([b"", b"   ", b"\t", DEEP, b'{"type":' + DEEP + b"}", b"\xff\xfe{}"]),
    )


def join(lines: list[bytes], ending: bytes, bom: bool, final_newline: bool) -> bytes:
    content = b"".join(line + ending for line in lines)
    if lines and not final_newline:
        content = content[: -len(ending)]
    return (BOM if bom else b"") + content


def session_bytes(cli: CliName) -> st.SearchStrategy[bytes]:
    """A whole file: lines joined by LF or CRLF, perhaps a BOM first, perhaps no final
    newline."""
    return st.builds(
        join,
        st.lists(lines(RECORDS[cli]), max_size=12),
        st.sampled_from([b"\n", b"\r\n"]),
        st.booleans(),
        st.booleans(),
    )


# ---------------------------------------------------------------------- the oracle


def is_json_object(line: bytes) -> bool:
    """Independent of the adapters: does this line decode to a JSON object?"""
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def not_object_lines(content: bytes) -> int:
    """Non-blank lines that are not JSON objects, split as the adapters split them: at LF,
    a terminated line losing its trailing CR/LF characters."""
    pieces = content.split(b"\n")
    count = 0
    for index, piece in enumerate(pieces):
        terminated = index < len(pieces) - 1
        line = piece.rstrip(b"\r") if terminated else piece
        if line.strip() and not is_json_object(line):
            count += 1
    return count


Reader = Callable[[Path], Session]


def readers(cli: CliName | None) -> dict[str, Reader]:
    return {
        "parse_session": lambda path: parse_session(path, cli),
        "SessionCache.get": lambda path: SessionCache().get(path, cli),
    }


def check_file(path: Path, cli: CliName | None, plain: bytes | None = None) -> list[Session]:
    """Read ``path`` both ways: only DriftguardError may escape, both ways must agree, and a
    session must be sane (skipped lines counted, token figures usable in arithmetic).

    ``plain`` is the file's content once decompressed (default: the file's bytes)."""
    outcomes: list[Session | str] = []
    for name, read in readers(cli).items():
        try:
            outcomes.append(read(path))
        except DriftguardError as exc:
            outcomes.append(f"{type(exc).__name__}: {exc}")
        except BaseException as exc:  # pragma: no cover - the failure being hunted
            raise AssertionError(f"{name} raised {type(exc).__name__}: {exc!r:.300}") from exc
    assert outcomes[0] == outcomes[1]
    sessions = [o for o in outcomes if isinstance(o, Session)]
    for session in sessions:
        content = path.read_bytes() if plain is None else plain
        assert session.skipped_lines >= not_object_lines(content)
        assert session.context_tokens >= 0
        assert session.context_window > 0
        assert math.isfinite(session.context_tokens / session.context_window)
        for message in session.messages:
            assert message.token_count is None or message.token_count >= 0
    return sessions


def read_ok(path: Path, cli: CliName | None) -> Session:
    """:func:`check_file`, and the session it read (both readers must have read one)."""
    sessions = check_file(path, cli)
    assert sessions, f"{path} was refused"
    return sessions[0]


# ---------------------------------------------------------------------- the property


@pytest.mark.parametrize("cli", FILE_CLIS)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_random_jsonish_lines_never_raise_anything_but_driftguard_errors(
    cli: CliName, data: st.DataObject
) -> None:
    content = data.draw(session_bytes(cli), label="content")
    packing = data.draw(st.sampled_from(["plain", "zstd", "zstd cut short"]), label="packing")
    stored = content
    if packing != "plain":
        stored = zstandard.ZstdCompressor().compress(content)
        if packing == "zstd cut short":
            stored = stored[: data.draw(st.integers(4, len(stored) - 1), label="cut")]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / FILE_NAMES[cli]
        path.parent.mkdir(parents=True)
        path.write_bytes(stored)
        for given_cli in (cli, None):
            sessions = check_file(path, given_cli, content)
            if packing == "zstd cut short":
                assert sessions == []  # a truncated file is refused, never half-read


# ---------------------------------------------------------------------- named hostile files


def claude_line(uuid: str, kind: str = "user", **extra: Any) -> dict[str, Any]:
    message = {"role": kind, "content": f"synthetic {kind} text {uuid}"}
    return {"type": kind, "uuid": uuid, "sessionId": "s", "message": message, **extra}


GEMINI_META = {"sessionId": "0f1e2d3c-4b5a-4697-8899-aabbccddeeff", "projectHash": "ab" * 32}
CODEX_META = {"type": "session_meta", "payload": {"id": "0199aaaa", "cwd": "/w"}}


def write(folder: Path, cli: CliName, content: bytes) -> Path:
    path = folder / FILE_NAMES[cli]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def jsonl(*records: Any) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


FIRST_RECORD: dict[CliName, dict[str, Any]] = {
    "claude_code": claude_line("u1"),
    "gemini_cli": GEMINI_META,
    "codex_cli": CODEX_META,
}


@pytest.mark.parametrize("cli", FILE_CLIS)
def test_json_arrays_strings_numbers_and_nulls_as_lines_are_counted(
    tmp_path: Path, cli: CliName
) -> None:
    odd = b'[1, 2]\n"text"\n42\n-1.5e400\nnull\ntrue\nNaN\n[]\n'
    path = write(tmp_path, cli, jsonl(FIRST_RECORD[cli]) + odd)
    session = read_ok(path, cli)
    assert session.skipped_lines == 8


NULLS: dict[CliName, list[dict[str, Any]]] = {
    "claude_code": [
        {"type": "user", "uuid": "n1", "message": None},
        {"type": "user", "uuid": "n2", "message": {"content": None}},
        {
            "type": "user",
            "uuid": "n3",
            "message": {"content": [None, {"type": "text", "text": None}]},
        },
        {"type": "assistant", "uuid": "n4", "message": {"content": None, "usage": None}},
        {
            "type": "assistant",
            "uuid": "n5",
            "message": {
                "content": [{"type": "tool_use", "name": None, "input": None}],
                "usage": {"input_tokens": None},
            },
        },
        {"type": "system", "uuid": "n6", "subtype": "compact_boundary", "compactMetadata": None},
        {"type": None, "uuid": None, "message": None},
    ],
    "gemini_cli": [
        {"id": "n1", "type": "user", "content": None},
        {"id": "n2", "type": "gemini", "content": [{"text": None}], "tokens": None},
        {
            "id": "n3",
            "type": "gemini",
            "content": None,
            "tokens": {"input": None},
            "toolCalls": [None, {"name": None}],
        },
        {
            "id": "n4",
            "type": "gemini",
            "content": "x",
            "toolCalls": [{"name": "t", "result": None}],
        },
        {"$set": None},
        {"$set": {"messages": [None], "directories": None}},
        {"$rewindTo": None},
        {"id": None, "type": None},
    ],
    "codex_cli": [
        {"type": "response_item", "payload": None},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": None}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": None}],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": None, "arguments": None},
        },
        {"type": "response_item", "payload": {"type": "function_call_output", "output": None}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        {
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"last_token_usage": None, "total_token_usage": {"total_tokens": None}},
            },
        },
        {"type": "compacted", "payload": {"message": None}},
        {"type": None, "payload": None},
    ],
}


@pytest.mark.parametrize("cli", FILE_CLIS)
def test_nulls_everywhere_are_read_as_missing(tmp_path: Path, cli: CliName) -> None:
    path = write(tmp_path, cli, jsonl(FIRST_RECORD[cli], *NULLS[cli]))
    assert check_file(path, cli)


@pytest.mark.parametrize("cli", FILE_CLIS)
def test_ten_megabyte_lines_are_read_or_counted(tmp_path: Path, cli: CliName) -> None:
    big_text = "z" * (10 * 1024 * 1024)
    big_record = {
        "claude_code": {"type": "user", "uuid": "big", "message": {"content": big_text}},
        "gemini_cli": {"id": "big", "type": "user", "content": big_text},
        "codex_cli": {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": big_text}],
            },
        },
    }[cli]
    garbage = b"x" * (10 * 1024 * 1024)
    path = write(tmp_path, cli, jsonl(FIRST_RECORD[cli], big_record) + garbage + b"\n")
    session = read_ok(path, cli)
    assert session.skipped_lines == 1


@pytest.mark.parametrize("cli", FILE_CLIS)
def test_invalid_utf8_lines_are_counted(tmp_path: Path, cli: CliName) -> None:
    bad = b'{"type": "user", "text": "\xff\xfe\xc3"}\n\xed\xa0\x80\n'
    path = write(tmp_path, cli, jsonl(FIRST_RECORD[cli]) + bad)
    session = read_ok(path, cli)
    assert session.skipped_lines == 2


@pytest.mark.parametrize("cli", FILE_CLIS)
def test_crlf_endings_and_a_bom_read_like_plain_lf(tmp_path: Path, cli: CliName) -> None:
    plain = jsonl(FIRST_RECORD[cli], *NULLS[cli][:2])
    expected = read_ok(write(tmp_path / "lf", cli, plain), cli)
    for variant in (
        plain.replace(b"\n", b"\r\n"),
        BOM + plain,
        BOM + plain.replace(b"\n", b"\r\n"),
    ):
        session = read_ok(write(tmp_path / "variant", cli, variant), cli)
        assert session.messages == expected.messages
        assert session.skipped_lines == expected.skipped_lines


def test_a_claude_file_of_only_sidechain_lines_is_scored_as_its_own_conversation(
    tmp_path: Path,
) -> None:
    side = [
        claude_line(f"s{n}", kind, isSidechain=True)
        for n, kind in enumerate(["user", "assistant"] * 2)
    ]
    path = write(tmp_path, "claude_code", jsonl(*side))
    session = read_ok(path, "claude_code")
    assert [m.role for m in session.messages] == ["user", "assistant"] * 2


def test_a_gemini_file_starting_with_rewind_to_is_read(tmp_path: Path) -> None:
    records = [
        {"$rewindTo": "nothing-yet"},
        GEMINI_META,
        {"id": "u", "type": "user", "content": "hi there"},
    ]
    path = write(tmp_path, "gemini_cli", jsonl(*records))
    for cli in ("gemini_cli", None):
        session = read_ok(path, cli)
        assert [m.content for m in session.messages] == ["hi there"]


def test_a_codex_file_of_only_event_msg_lines_is_read(tmp_path: Path) -> None:
    usage = {"input_tokens": 900, "output_tokens": 10, "total_tokens": 910}
    events = [
        {"type": "event_msg", "payload": {"type": "task_started", "model_context_window": 1000}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "a prompt"}},
        {
            "type": "event_msg",
            "payload": {"type": "token_count", "info": {"last_token_usage": usage}},
        },
        {"type": "event_msg", "payload": {"type": "task_complete"}},
    ]
    path = write(tmp_path, "codex_cli", jsonl(*events))
    for cli in ("codex_cli", None):
        session = read_ok(path, cli)
        assert session.messages == ()
        assert session.context_tokens == 910
        assert session.context_window == 1000
