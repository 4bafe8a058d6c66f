"""Incremental parsing (docs/design.md §9): ``SessionCache.get`` equals a fresh ``parse_session``.

The central property: a session file written in several appends, cut at arbitrary byte
positions (half-written lines, complete lines still missing their newline, CRLF endings),
gives after every append exactly what ``parse_session`` gives for the bytes so far, and
the features the cache keeps for scoring equal those computed afresh from that session. It is
checked on the shared corpus (read in place; the chunks go to a temporary folder) and on
small synthetic files written here in our own words for each CLI.

The other tests pin the cost model: an unchanged file is not parsed and only its fingerprint
is read, an appended file feeds only its new lines, and a truncated, replaced or rewritten
file is read again from the start — also when the rewrite kept its size and mtime.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import corpus_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.adapters import codex_cli, gemini_cli, get_adapter, parse_session
from driftguard.adapters.claude_code import ClaudeCodeParser
from driftguard.adapters.codex_cli import CodexCliParser
from driftguard.adapters.gemini_cli import GeminiCliParser
from driftguard.errors import SessionFormatError, UnknownNameError
from driftguard.model import CliName, Session
from driftguard.scoring.features import Features
from driftguard.sessions.incremental import Indexed, SessionCache

CORPUS_FILES = (
    "claude_code/cc_v1.0.24_summary-lines_fe869ecb.jsonl",
    "claude_code/cc_v1.0.51_hook-system-msgs_326189cf.jsonl",
    "claude_code/cc_v1.0.98_ccviewer_1af7fc5e.jsonl",
    "claude_code/cc_v1.0.108_inline-sidechain_ccviewer_5c0375b4.jsonl",
    "claude_code/cc_v2.0.28_small_5ed31c36.jsonl",
    "claude_code/cc_v2.0.37_legacy-agent-sidechain_agent-668b5ac2.jsonl",
    "claude_code/cc_REDACTED_schema-catalog_v2.1.x_agentsessions.jsonl",
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "generated/claude/claude-long-26turns-compact.jsonl",
    "gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl",
    "generated/gemini/gemini-long-24turns-compress.jsonl",
    "generated/gemini/gemini-ping-1turn.jsonl",
    "codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl",
    "codex/codex_REDACTED_schema-catalog_v0.146_agentsessions.jsonl",
    "generated/codex/codex-long-24turns-compact.jsonl",
)

PARSERS: dict[CliName, type[ClaudeCodeParser | GeminiCliParser | CodexCliParser]] = {
    "claude_code": ClaudeCodeParser,
    "gemini_cli": GeminiCliParser,
    "codex_cli": CodexCliParser,
}


# --------------------------------------------------------------------------- synthetic files


def _jsonl(records: list[dict[str, Any] | bytes]) -> bytes:
    """One line per record; ``bytes`` records are written as they are (with their ending)."""
    out = b""
    for record in records:
        out += record if isinstance(record, bytes) else json.dumps(record).encode() + b"\n"
    return out


def _claude_usage(read: int) -> dict[str, int]:
    return {"input_tokens": 4, "cache_creation_input_tokens": 100, "cache_read_input_tokens": read}


def _claude(kind: str, uuid: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "isSidechain": False,
        "sessionId": "5a1f0000-0000-4000-8000-000000000001",
        "cwd": "/home/dev/invoices",
        "timestamp": "2026-05-02T09:00:00.000Z",
        "message": message,
        **extra,
    }


def _claude_reply(uuid: str, mid: str, blocks: list[dict[str, Any]], read: int) -> dict[str, Any]:
    message = {"id": mid, "model": "claude-sonnet-4-5", "content": blocks}
    return _claude(
        "assistant", uuid, {**message, "usage": _claude_usage(read)}, requestId=f"r{mid}"
    )


def claude_session() -> bytes:
    """A Claude Code session with split responses, tool traffic, noise lines and a compaction."""
    prompt = "Sort the invoices by due date and keep unpaid ones first."
    return _jsonl(
        [
            {"type": "permission-mode", "permissionMode": "default"},
            _claude("user", "u1", {"role": "user", "content": prompt}),
            _claude_reply("a1", "m1", [{"type": "text", "text": "I will read the module."}], 900),
            _claude_reply(
                "a2",
                "m1",
                [{"type": "tool_use", "name": "Read", "input": {"file_path": "/x/inv.py"}}],
                900,
            ),
            _claude(
                "user",
                "t1",
                {"content": [{"type": "tool_result", "content": "def due(i): return i.date"}]},
            ),
            b"this line is not json\n",
            b"   \n",
            _claude_reply(
                "a3",
                "m2",
                [
                    {"type": "text", "text": "The sort is probably stable already."},
                    {"type": "text", "text": "I think the key function is the culprit."},
                ],
                1400,
            ),
            json.dumps({"type": "mystery-kind", "n": 1}).encode() + b"\r\n",
            _claude("user", "u2", {"role": "user", "content": "Then fix the key function."}),
            _claude_reply("a4", "m3", [{"type": "text", "text": "Fixed: unpaid first."}], 2100),
            b"[1, 2, 3]\n",
            {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "isSidechain": False},
            _claude(
                "user",
                "s1",
                {"content": "This session is being continued from a previous conversation."},
                isCompactSummary=True,
            ),
            _claude("user", "u3", {"role": "user", "content": "Add a test for ties."}),
            _claude_reply("a5", "m4", [{"type": "text", "text": "Added test_ties."}], 600),
            _claude_reply("a6", "m5", [{"type": "text", "text": "It might need a fixture."}], 650),
        ]
    )


def _gemini_message(mid: str, kind: str, text: str, tokens: int | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": mid,
        "type": kind,
        "timestamp": "2026-05-02T10:00:00.000Z",
        "content": [{"text": text}],
    }
    if tokens is not None:
        record["tokens"] = {"input": tokens, "output": 20, "cached": 0}
    return record


def gemini_session() -> bytes:
    """A Gemini CLI JSONL session with updates of one id, a rewind and a metadata patch."""
    return _jsonl(
        [
            {"sessionId": "9e3c0000-aaaa-4bbb-8ccc-000000000002", "projectHash": "ab12"},
            _gemini_message("g1", "user", "List the open tickets."),
            _gemini_message("g2", "gemini", "Reading the tracker export.", 800),
            _gemini_message("g2", "gemini", "Reading the tracker export, then sorting.", 810),
            _gemini_message("g3", "user", "Only the ones assigned to me."),
            _gemini_message("g4", "gemini", "Perhaps the filter is on the owner field.", 950),
            {"$rewindTo": "g3"},
            _gemini_message("g5", "user", "Only the ones assigned to the web team."),
            b"{half a record\n",
            {"$set": {"directories": ["/home/dev/tracker"]}},
            _gemini_message("g6", "gemini", "Three tickets match the web team.", 1300),
            {"neither": "known"},
            _gemini_message("g7", "info", "Update available."),
            _gemini_message("g8", "gemini", "I believe two of them are duplicates.", 1500),
        ]
    )


def _codex(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-05-02T11:00:00.000Z", "type": kind, "payload": payload}


def _codex_message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    item = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
    return _codex("response_item", item)


def _codex_usage(total: int, last: int) -> dict[str, Any]:
    info = {
        "total_token_usage": {
            "input_tokens": total,
            "output_tokens": 10,
            "total_tokens": total + 10,
        },
        "last_token_usage": {"input_tokens": last, "output_tokens": 10, "total_tokens": last + 10},
        "model_context_window": 200_000,
    }
    return _codex("event_msg", {"type": "token_count", "info": info})


def codex_session() -> bytes:
    """A Codex rollout with tool calls, usage events, a compaction and noise lines."""
    call = {
        "type": "function_call",
        "name": "shell",
        "arguments": json.dumps({"command": ["ls", "src"]}),
        "call_id": "c1",
    }
    return _jsonl(
        [
            _codex("session_meta", {"id": "0199bbbb-0000-7000-8000-000000000003", "cwd": "/w"}),
            _codex("turn_context", {"model": "gpt-5.5", "cwd": "/w"}),
            _codex_message("user", "Rename the config loader module."),
            _codex("response_item", call),
            _codex(
                "response_item", {"type": "function_call_output", "call_id": "c1", "output": "a"}
            ),
            _codex_usage(3000, 3000),
            _codex_message("assistant", "Renamed it; the imports could need a second look."),
            _codex_usage(3000, 3000),
            b"\n",
            b'"a bare string"\n',
            {"type": "unheard_of", "payload": {}},
            _codex("compacted", {"message": "Summary: the loader was renamed."}),
            _codex_message("user", "Now update the docs."),
            _codex_usage(5200, 2200),
            _codex_message("assistant", "Docs updated in two places."),
            _codex_message("user", "And the changelog."),
            _codex_usage(5600, 2400),
            _codex_message("assistant", "The changelog has a new entry."),
        ]
    )


SYNTHETIC: dict[str, tuple[str, Callable[[], bytes]]] = {
    "claude_code": ("5a1f0000-0000-4000-8000-000000000001.jsonl", claude_session),
    "gemini_cli": ("session-2026-05-02T10-00-9e3c0000.jsonl", gemini_session),
    "codex_cli": ("rollout-2026-05-02T11-00-00-0199bbbb.jsonl", codex_session),
}


# --------------------------------------------------------------------------- helpers


def outcome(read: Callable[[Path], Session], path: Path) -> Session | tuple[str, str]:
    """The session, or the error a reader raises (both readers must agree on either)."""
    try:
        return read(path)
    except SessionFormatError as exc:
        return ("SessionFormatError", str(exc))


def indexed(read: Callable[[Path], Indexed], path: Path) -> Indexed | tuple[str, str]:
    """The session with its features, or the error a reader raises."""
    try:
        return read(path)
    except SessionFormatError as exc:
        return ("SessionFormatError", str(exc))


def parsed_and_indexed(path: Path) -> Indexed:
    session = parse_session(path)
    return Indexed(session, Features.of(session.messages))


def grow_and_compare(name: str, content: bytes, cuts: list[int]) -> None:
    """Write ``content`` in pieces ending at ``cuts``; after each piece the cache must
    agree with a whole-file parse, and so must the features it keeps up to date."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        path.write_bytes(b"")
        cache = SessionCache()
        written = 0
        for cut in [*sorted(cuts), len(content)]:
            with path.open("ab") as fh:
                fh.write(content[written:cut])
            written = cut
            assert outcome(cache.get, path) == outcome(parse_session, path), cut
            assert indexed(cache.get_indexed, path) == indexed(parsed_and_indexed, path), cut


def cut_points(content: bytes) -> st.SearchStrategy[list[int]]:
    """Byte positions to cut at: anywhere, just after a newline, or just before one (a
    complete line still missing its newline)."""
    anywhere = st.integers(0, len(content))
    newlines = [i for i, byte in enumerate(content) if byte == 0x0A]
    if not newlines:
        return st.lists(anywhere, max_size=6)
    near_newline = st.sampled_from(newlines).flatmap(lambda i: st.sampled_from((i, i + 1)))
    return st.lists(st.one_of(anywhere, near_newline), max_size=6)


class FeedLog:
    """The lines fed to any adapter's parser by the cache (whole-file parses made for
    comparison through :meth:`expected` are not recorded)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.paused = False

    def expected(self, read: Callable[[Path], Session], path: Path) -> Session:
        self.paused = True
        try:
            return read(path)
        finally:
            self.paused = False


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> FeedLog:
    log = FeedLog()
    for parser in PARSERS.values():
        original = parser.feed

        def counting(
            self: Any, line: bytes, terminated: bool = True, _original: Any = original
        ) -> None:
            if not log.paused:
                log.lines.append(line)
            _original(self, line, terminated)

        monkeypatch.setattr(parser, "feed", counting)
    return log


def lines_of(content: bytes) -> list[bytes]:
    """What a whole-file read feeds: each line without its ending (blank ones included)."""
    return [line.rstrip(b"\r") for line in content.split(b"\n")[:-1]]


def write(path: Path, content: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def append(path: Path, content: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(content)


def claude_file(folder: Path, content: bytes | None = None) -> Path:
    name = SYNTHETIC["claude_code"][0]
    return write(folder / "projects" / "-home-dev-invoices" / name, content or claude_session())


# --------------------------------------------------------------------------- the property


@pytest.mark.parametrize("relative", CORPUS_FILES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_growing_corpus_file_read_incrementally_equals_a_whole_parse(
    relative: str, data: st.DataObject
) -> None:
    source = corpus_file(relative)
    content = source.read_bytes()
    grow_and_compare(source.name, content, data.draw(cut_points(content), label="cuts"))


@pytest.mark.parametrize("cli", sorted(SYNTHETIC))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_growing_synthetic_file_read_incrementally_equals_a_whole_parse(
    cli: str, data: st.DataObject
) -> None:
    name, build = SYNTHETIC[cli]
    content = build()
    grow_and_compare(name, content, data.draw(cut_points(content), label="cuts"))


@pytest.mark.parametrize("cli", sorted(SYNTHETIC))
def test_synthetic_files_exercise_skipped_lines_and_several_messages(cli: str) -> None:
    # Guards the property above against vacuous fixtures: each file has noise lines and
    # a real conversation.
    name, build = SYNTHETIC[cli]
    with tempfile.TemporaryDirectory() as scratch:
        session = parse_session(write(Path(scratch) / name, build()))
    assert session.skipped_lines >= 2
    assert len(session.assistant_texts) >= 2


# --------------------------------------------------------------------------- cost model


def _bytes_read() -> int:
    """Bytes this process has read through read() calls so far (Linux ``/proc/self/io``)."""
    try:
        text = Path("/proc/self/io").read_text(encoding="ascii")
    except OSError:
        pytest.skip("/proc/self/io is not available here: bytes read cannot be counted")
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("rchar:"))


def big_claude_session() -> bytes:
    """The Claude session padded to about 4 MB with metadata lines of 1 KB each."""
    filler = {"type": "permission-mode", "permissionMode": "default", "note": "x" * 1000}
    content = claude_session() + _jsonl([filler] * 4000)
    assert len(content) > 4_000_000
    return content


def test_repeat_call_on_unchanged_file_returns_the_same_object_and_reads_only_a_fingerprint(
    tmp_path: Path, fed: FeedLog
) -> None:
    path = claude_file(tmp_path, big_claude_session())
    cache = SessionCache()
    first = cache.get(path)
    fed.lines.clear()
    before = _bytes_read()
    assert cache.get(path) is first
    assert cache.get(path, "claude_code") is first
    assert _bytes_read() - before < 64 * 1024  # two fingerprints, never the 4 MB file
    assert fed.lines == []


def test_an_append_feeds_only_the_new_line_and_reads_only_a_little(
    tmp_path: Path, fed: FeedLog
) -> None:
    path = claude_file(tmp_path, big_claude_session())
    cache = SessionCache()
    cache.get(path)
    fed.lines.clear()
    line = _jsonl([_claude("user", "u9", {"role": "user", "content": "One more request."})])
    append(path, line)
    before = _bytes_read()
    after = cache.get(path)
    assert _bytes_read() - before < 64 * 1024
    assert fed.lines == [line.rstrip(b"\n")]
    assert after == fed.expected(parse_session, path)


def _rewrite_keeping_size_and_mtime(path: Path, content: bytes) -> None:
    """Write ``content`` (as long as the file) over ``path`` in place, then set its mtime
    back: size, mtime and inode all stay as they were."""
    before = path.stat()
    assert len(content) == before.st_size
    with path.open("r+b") as fh:
        fh.write(content)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def _before_and_after_a_rewrite(
    folder: Path, fed: FeedLog, content: bytes, changed: bytes
) -> tuple[Session, Session]:
    """The cached session of ``content``, and the one after ``changed`` was written over
    it with the same size and mtime, checked equal to a whole parse of ``changed``."""
    path = claude_file(folder, content)
    cache = SessionCache()
    before = cache.get(path)
    _rewrite_keeping_size_and_mtime(path, changed)
    fed.lines.clear()
    after = cache.get(path)
    assert after == fed.expected(parse_session, path)
    assert fed.lines == lines_of(changed)  # read again from the start
    return before, after


def test_a_rewrite_of_the_last_line_that_keeps_size_and_mtime_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = claude_session()
    changed = content.replace(b"It might need a fixture.", b"It might need a teardown")
    before, after = _before_and_after_a_rewrite(tmp_path, fed, content, changed)
    assert after.assistant_texts[-1] == "It might need a teardown"
    assert before.assistant_texts[-1] == "It might need a fixture."


def test_a_rewrite_at_the_start_of_a_long_last_line_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    # The changed bytes lie more than FINGERPRINT_BYTES before the offset, but in the last
    # complete line read, which the fingerprint always covers whole.
    reply = "Sorted. " + "The key function now sorts unpaid invoices first. " * 200
    content = padded_session() + _jsonl(
        [_claude_reply("a7", "m6", [{"type": "text", "text": reply}], 700)]
    )
    changed = content.replace(b"Sorted. ", b"Broken. ", 1)
    _, after = _before_and_after_a_rewrite(tmp_path, fed, content, changed)
    assert after.assistant_texts[-1].startswith("Broken.")


def test_a_rewrite_of_the_first_block_that_keeps_size_and_mtime_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = padded_session()
    first = content.split(b"\n", 1)[0]
    changed = b"#" * len(first) + content[len(first) :]  # a known record → a skipped line
    before, after = _before_and_after_a_rewrite(tmp_path, fed, content, changed)
    assert after.skipped_lines == before.skipped_lines + 1


def test_a_legacy_gemini_json_rewritten_with_the_same_size_and_mtime_is_read_again(
    tmp_path: Path,
) -> None:
    document = _legacy_gemini(
        [_gemini_message("u1", "user", "hello"), _gemini_message("g1", "gemini", "first")]
    )
    path = write(tmp_path / ".gemini" / "tmp" / "p" / "chats" / "session-x-12345678.json", document)
    cache = SessionCache()
    assert cache.get(path).assistant_texts == ("first",)
    _rewrite_keeping_size_and_mtime(path, document.replace(b'"first"', b'"again"'))
    assert cache.get(path).assistant_texts == ("again",)


def test_touched_file_without_new_bytes_keeps_the_same_session(
    tmp_path: Path, fed: FeedLog
) -> None:
    path = claude_file(tmp_path, claude_session() + b'{"type": "user", "mess')
    cache = SessionCache()
    first = cache.get(path)
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))
    fed.lines.clear()
    assert cache.get(path) is first
    assert fed.lines == []


def test_appended_lines_are_the_only_lines_fed(tmp_path: Path, fed: FeedLog) -> None:
    content = claude_session()
    lines = content.split(b"\n")[:-1]
    path = claude_file(tmp_path, b"\n".join(lines[:5]) + b"\n")
    cache = SessionCache()
    cache.get(path)
    fed.lines.clear()
    append(path, b"\n".join(lines[5:9]) + b"\n")
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == [line.rstrip(b"\r") for line in lines[5:9]]
    fed.lines.clear()
    append(path, b"\n".join(lines[9:]) + b"\n")
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == [line.rstrip(b"\r") for line in lines[9:]]


def test_earlier_message_texts_stay_the_same_string_objects_after_an_append(
    tmp_path: Path,
) -> None:
    # Per-text memos in scoring hit by identity only if the parser hands back the very
    # same str objects; the two-block Claude reply is rebuilt by joining unless memoised.
    for cli, (name, build) in SYNTHETIC.items():
        lines = build().split(b"\n")[:-1]
        path = write(tmp_path / cli / name, b"\n".join(lines[:-1]) + b"\n")
        cache = SessionCache()
        before = cache.get(path).assistant_texts
        append(path, lines[-1] + b"\n")
        after = cache.get(path).assistant_texts
        assert after == parse_session(path).assistant_texts
        assert len(after) > len(before) >= 1, cli
        assert all(old is new for old, new in zip(before, after, strict=False)), cli


def test_truncated_file_is_read_again_from_the_start(tmp_path: Path, fed: FeedLog) -> None:
    path = claude_file(tmp_path)
    cache = SessionCache()
    cache.get(path)
    shorter = b"\n".join(claude_session().split(b"\n")[:4]) + b"\n"
    with path.open("r+b") as fh:
        fh.truncate(len(shorter))
    fed.lines.clear()
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == lines_of(shorter)


def test_file_replaced_by_a_new_inode_is_read_again_from_the_start(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = claude_session()
    path = claude_file(tmp_path)
    cache = SessionCache()
    cache.get(path)
    grown = content + _jsonl([_claude("user", "u9", {"content": "One more request."})])
    replacement = write(tmp_path / "replacement.jsonl", grown)
    os.replace(replacement, path)
    fed.lines.clear()
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == lines_of(grown)


def padded_session() -> bytes:
    """The Claude session followed by 80 metadata lines: more than 8 KiB, so the first
    and the last 4 KiB (the fingerprinted stretches) do not overlap."""
    padding = _jsonl([{"type": "permission-mode", "permissionMode": "default"}] * 80)
    content = claude_session() + padding
    assert len(content) > 8192
    assert len(padding) > 4096
    return content


def test_file_rewritten_in_place_at_its_start_with_the_same_size_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = padded_session()
    path = claude_file(tmp_path, content)
    cache = SessionCache()
    before = cache.get(path)
    # the same number of bytes, now a known record instead of a skipped line
    changed = content.replace(b"this line is not json\n", b'{"type": "summary"}  \n')
    assert len(changed) == len(content)
    stamp = path.stat().st_mtime_ns
    with path.open("r+b") as fh:
        fh.write(changed)
    os.utime(path, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
    fed.lines.clear()
    after = cache.get(path)
    assert after == fed.expected(parse_session, path)
    assert after.skipped_lines == before.skipped_lines - 1
    assert fed.lines == lines_of(changed)


def test_file_rewritten_just_before_the_offset_and_grown_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = padded_session()
    path = claude_file(tmp_path, content)
    cache = SessionCache()
    cache.get(path)
    tail = content.rindex(b'"default"')
    changed = content[:tail] + b'"plan"   ' + content[tail + len(b'"default"') :]
    assert len(changed) == len(content)
    extra = _jsonl([_claude("user", "u9", {"content": "Go on."})])
    write(path, changed + extra)
    fed.lines.clear()
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == lines_of(changed + extra)


# --------------------------------------------------------------------------- unterminated tail


def test_half_written_line_counts_as_skipped_until_its_newline_arrives(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = claude_session()
    lines = content.split(b"\n")[:-1]
    last = lines[-1]
    path = claude_file(tmp_path, b"\n".join(lines[:-1]) + b"\n" + last[:40])
    cache = SessionCache()
    partial = cache.get(path)
    assert partial == fed.expected(parse_session, path)
    assert (
        partial.skipped_lines
        == parse_session(claude_file(tmp_path / "b", content)).skipped_lines + 1
    )
    fed.lines.clear()
    append(path, last[40:] + b"\n")
    assert cache.get(path) == fed.expected(parse_session, path)
    assert fed.lines == [last]


def test_complete_line_missing_its_newline_is_used_and_never_fed_twice(
    tmp_path: Path, fed: FeedLog
) -> None:
    # A rewind is not idempotent: fed twice, "$rewindTo g2" would find g2 gone the second
    # time and clear every message, the prompt g1 included (docs/formats.md §B.4).
    name = SYNTHETIC["gemini_cli"][0]
    head = _jsonl(
        [
            {"sessionId": "9e3c0000-aaaa-4bbb-8ccc-000000000002"},
            _gemini_message("g1", "user", "Draft the release notes."),
            _gemini_message("g2", "gemini", "Here is a first draft.", 700),
        ]
    )
    rewind = json.dumps({"$rewindTo": "g2"}).encode()
    path = write(tmp_path / "chats" / name, head + rewind)
    cache = SessionCache()
    speculative = cache.get(path)
    assert speculative == fed.expected(parse_session, path)
    assert speculative.assistant_texts == ()  # the rewind was applied
    fed.lines.clear()
    more = _jsonl([_gemini_message("g3", "gemini", "A shorter draft.", 720)])
    append(path, b"\n" + more)
    completed = cache.get(path)
    assert completed == fed.expected(parse_session, path)
    assert completed.assistant_texts == ("A shorter draft.",)
    assert completed.message_count == 2  # g1 survived: the rewind ran once
    assert fed.lines == lines_of(more)


def test_line_missing_its_newline_then_rewritten_differently_is_read_again(
    tmp_path: Path, fed: FeedLog
) -> None:
    content = claude_session()
    lines = content.split(b"\n")[:-1]
    path = claude_file(tmp_path, b"\n".join(lines))  # last line complete, no newline
    cache = SessionCache()
    assert cache.get(path) == fed.expected(parse_session, path)
    other = _claude_reply("a7", "m6", [{"type": "text", "text": "Something else."}], 700)
    write(path, b"\n".join(lines[:-1]) + b"\n" + json.dumps(other).encode() + b"\n")
    fed.lines.clear()
    assert cache.get(path) == fed.expected(parse_session, path)
    assert len(fed.lines) == len(lines)  # from the start


def test_crlf_line_endings_are_fed_like_a_whole_file_read(tmp_path: Path) -> None:
    content = claude_session().replace(b"\n", b"\r\n")
    grow_and_compare(SYNTHETIC["claude_code"][0], content, [7, 300, 301, len(content) - 1])


# --------------------------------------------------------------------------- whole-file formats


def _counting_adapter(monkeypatch: pytest.MonkeyPatch, cli: CliName) -> list[Path]:
    calls: list[Path] = []
    adapter = get_adapter(cli)
    original = adapter.parse

    def counting(path: Path) -> Session:
        calls.append(path)
        return original(path)

    monkeypatch.setattr(adapter, "parse", counting)
    return calls


def _legacy_gemini(messages: list[dict[str, Any]]) -> bytes:
    document = {
        "sessionId": "9e3c0000-aaaa-4bbb-8ccc-000000000004",
        "projectHash": "cd34",
        "startTime": "2026-05-02T10:00:00.000Z",
        "messages": messages,
    }
    return json.dumps(document, indent=2).encode()


def test_legacy_gemini_json_is_parsed_whole_whenever_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = [
        _gemini_message("g1", "user", "Explain the build."),
        _gemini_message("g2", "gemini", "It runs in three stages.", 400),
    ]
    name = "session-2026-05-02T10-00-9e3c0004.json"
    path = write(tmp_path / "chats" / name, _legacy_gemini(first))
    calls = _counting_adapter(monkeypatch, "gemini_cli")
    cache = SessionCache()
    session = cache.get(path)
    assert session == gemini_cli.parse(path)
    assert cache.get(path) is session
    assert len(calls) == 1
    second = [*first, _gemini_message("g3", "gemini", "The last stage signs it.", 450)]
    write(path, _legacy_gemini(second))
    assert cache.get(path) == gemini_cli.parse(path)
    assert len(calls) == 2


def test_zstd_rollout_is_parsed_whole_whenever_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = codex_session()
    path = tmp_path / "sessions" / "rollout-2026-05-02T11-00-00-0199bbbb.jsonl.zst"
    write(path, zstandard.ZstdCompressor().compress(content[: len(content) // 2]))
    calls = _counting_adapter(monkeypatch, "codex_cli")
    cache = SessionCache()
    session = cache.get(path)
    assert session == codex_cli.parse(path)
    assert cache.get(path) is session
    assert len(calls) == 1
    write(path, zstandard.ZstdCompressor().compress(content))
    assert cache.get(path) == codex_cli.parse(path)
    assert len(calls) == 2


TOO_DEEP = b"[" * 100_000 + b"]" * 100_000
"""A JSON line nested far deeper than the decoder's recursion allows."""


@pytest.mark.parametrize("cli", sorted(SYNTHETIC))
def test_lines_nested_too_deeply_are_skipped_whole_or_appended(tmp_path: Path, cli: str) -> None:
    name, build = SYNTHETIC[cli]
    without = parse_session(write(tmp_path / "plain" / name, build()))
    path = write(tmp_path / name, build() + TOO_DEEP + b"\n")
    cache = SessionCache()
    session = cache.get(path)
    assert session == parse_session(path)
    assert session.skipped_lines == without.skipped_lines + 1
    assert session.messages == without.messages
    append(path, TOO_DEEP)  # unterminated: counted until its newline arrives
    assert cache.get(path) == parse_session(path)
    append(path, b"\n" + TOO_DEEP + b"\n")
    grown = cache.get(path)
    assert grown == parse_session(path)
    assert grown.skipped_lines == session.skipped_lines + 2


def test_a_truncated_zstd_rollout_raises_and_is_not_kept(tmp_path: Path) -> None:
    content = codex_session() * 200
    whole = zstandard.ZstdCompressor().compress(content)
    path = tmp_path / "sessions" / "rollout-2026-05-02T11-00-00-0199bbbb.jsonl.zst"
    write(path, whole[: len(whole) // 2])
    cache = SessionCache()
    clis: tuple[CliName | None, ...] = (None, "codex_cli")
    for cli in clis:
        with pytest.raises(SessionFormatError, match=f"{path} is a truncated zstd file"):
            cache.get(path, cli)
        assert len(cache) == 0
    write(path, whole)
    assert cache.get(path) == codex_cli.parse(path)


def test_a_corrupt_zstd_rollout_raises_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "rollout-2026-05-02T11-00-00-0199bbbb.jsonl.zst"
    write(path, b"\x28\xb5\x2f\xfd" + bytes((n * 73 + 41) % 256 for n in range(200)))
    clis: tuple[CliName | None, ...] = (None, "codex_cli")
    for cli in clis:
        with pytest.raises(SessionFormatError, match=str(path)):
            SessionCache().get(path, cli)


# --------------------------------------------------------------------------- keys, bounds, CLIs


def test_cache_keeps_only_the_most_recently_used_sessions(tmp_path: Path, fed: FeedLog) -> None:
    paths = [claude_file(tmp_path / str(n)) for n in range(3)]
    cache = SessionCache(maxsize=2)
    for path in paths:
        cache.get(path)
    assert len(cache) == 2
    fed.lines.clear()
    cache.get(paths[2])
    assert fed.lines == []  # still held
    cache.get(paths[0])
    assert fed.lines == lines_of(claude_session())  # had been dropped: parsed again
    fed.lines.clear()
    cache.get(paths[1])
    assert fed.lines != []  # dropped in turn when paths[0] came back
    assert len(cache) == 2


def test_maxsize_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        SessionCache(maxsize=0)


def test_another_spelling_of_the_same_file_reports_the_path_as_given(tmp_path: Path) -> None:
    path = claude_file(tmp_path)
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    cache = SessionCache()
    cache.get(path)
    assert cache.get(link) == parse_session(link)
    assert cache.get(link).path == str(link)
    assert len(cache) == 1


def test_naming_the_cli_checks_it_against_the_content_like_parse_session(
    tmp_path: Path,
) -> None:
    path = claude_file(tmp_path)
    cache = SessionCache()
    assert cache.get(path, "claude_code") == parse_session(path, "claude_code")
    refused = outcome(lambda p: cache.get(p, "codex_cli"), path)
    assert refused == outcome(lambda p: parse_session(p, "codex_cli"), path)
    assert isinstance(refused, tuple)


def test_file_empty_at_first_is_detected_once_content_arrives(tmp_path: Path) -> None:
    path = write(tmp_path / "notes.jsonl", b"")
    cache = SessionCache()
    with pytest.raises(SessionFormatError, match="is empty: nothing in it tells which CLI"):
        cache.get(path)
    append(path, codex_session())
    session = cache.get(path)
    assert session == parse_session(path)
    assert session.cli == "codex_cli"


def test_missing_path_and_directory_raise_like_parse_session(tmp_path: Path) -> None:
    cache = SessionCache()
    for path in (tmp_path / "absent.jsonl", tmp_path):
        assert outcome(cache.get, path) == outcome(parse_session, path)
        assert isinstance(outcome(cache.get, path), tuple)


def test_deleted_file_is_forgotten(tmp_path: Path) -> None:
    path = claude_file(tmp_path)
    cache = SessionCache()
    cache.get(path)
    path.unlink()
    with pytest.raises(SessionFormatError, match="not found"):
        cache.get(path)
    assert len(cache) == 0


def test_unknown_cli_name_is_rejected(tmp_path: Path) -> None:
    path = claude_file(tmp_path)
    with pytest.raises(UnknownNameError, match="claude_code"):
        SessionCache().get(path, "windsurf")  # type: ignore[arg-type]
