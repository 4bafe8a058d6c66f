"""What every adapter shares (``driftguard.adapters._common``) and the registry's CLI
detection (``driftguard.adapters.detect_cli``): hostile input is refused with
:class:`~driftguard.errors.SessionFormatError` or passed over, never a crash.

Every file here is synthetic, written to ``tmp_path`` in our own words.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from pathlib import Path

import pytest
import zstandard
from conftest import CORPUS

from driftguard.adapters import detect_cli, get_adapter
from driftguard.adapters._common import (
    MAX_JSON_DEPTH,
    MAX_TOKEN_COUNT,
    JsonTooDeepError,
    LineBlocks,
    compact_id,
    decode_json,
    feed_stream,
    iter_lines,
    load_record,
    make_tool_call,
    open_session_file,
    parse_timestamp,
    read_token_count,
)
from driftguard.errors import SessionFormatError
from driftguard.model import ToolCall

TOO_DEEP_ARRAY = b"[" * 100_000 + b"]" * 100_000
"""A JSON array nested far deeper than any decoder's recursion allows."""


def nested(depth: int) -> bytes:
    """A JSON object whose innermost value sits ``depth`` containers deep (itself included)."""
    return b'{"a":' * depth + b"1" + b"}" * depth


def jsonl(records: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def session_bytes(lines: int = 4000) -> bytes:
    """A plain Claude-shaped JSONL body big enough to span many zstd blocks."""
    return jsonl(
        [
            {
                "type": "user",
                "uuid": f"u{n}",
                "message": {"role": "user", "content": f"synthetic prompt {n} " * 8},
            }
            for n in range(lines)
        ]
    )


def read_lines(path: Path) -> list[bytes]:
    with open_session_file(path) as stream:
        return [line for line, _ in iter_lines(stream)]


# ---------------------------------------------------------------------- reading in blocks

AWKWARD_BYTES = (
    b'{"type": "user", "uuid": "a"}\r\n'
    b"\n"
    b"   \r\n"
    b"plain text\r\r\n"
    b"\r"
    b"\n" + b'{"long": "' + b"x" * 300 + b'"}\n' + b"\xff\xfe not utf-8\n"
    b'{"type": "assistant", "half": '
)
"""Every kind of line ending a file may hold, blank lines, a line longer than the small
blocks, bytes that are not UTF-8 and a last line without its newline."""


def lines_read_one_by_one(data: bytes) -> list[tuple[bytes, bool]]:
    """The lines of ``data`` as a buffered file's line iterator gives them (what the
    readers did before they read in blocks): the reference."""
    return [
        (raw.rstrip(b"\r\n"), True) if raw.endswith(b"\n") else (raw, False)
        for raw in io.BytesIO(data)
    ]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 4096, 64 * 1024])
@pytest.mark.parametrize("data", [AWKWARD_BYTES, AWKWARD_BYTES + b"\n", b"", b"\n", b"no newline"])
def test_a_stream_read_in_blocks_of_any_size_gives_the_lines_read_one_by_one(
    data: bytes, block: int
) -> None:
    reader = LineBlocks(io.BytesIO(data), block=block)
    lines = [(line, True) for lines in reader for line in lines]
    if reader.tail:
        lines.append((reader.tail, False))
    assert lines == lines_read_one_by_one(data)
    assert list(iter_lines(io.BytesIO(data))) == lines_read_one_by_one(data)
    whole = data[: data.rfind(b"\n") + 1]  # through the last newline
    last_start = whole.rfind(b"\n", 0, len(whole) - 1) + 1 if whole else 0
    assert (reader.end, reader.last_start) == (len(whole), last_start)


@pytest.mark.parametrize("block", [1, 5, 64])
def test_a_limit_stops_the_reading_inside_a_line_which_is_then_the_tail(block: int) -> None:
    data = b"first\nsecond\nthird line\nfourth\n"
    stream = io.BytesIO(data)
    stream.seek(6)
    reader = LineBlocks(stream, limit=len(b"second\nthird"), block=block)
    assert [line for lines in reader for line in lines] == [b"second"]
    assert (reader.tail, reader.end, reader.last_start) == (b"third", 7, 0)
    assert stream.tell() == 6 + len(b"second\nthird")  # nothing read past the limit


CORPUS_SESSIONS = sorted(
    str(p.relative_to(CORPUS))
    for p in CORPUS.rglob("*.jsonl")
    if not p.name.endswith(".requests.jsonl")
)


@pytest.mark.parametrize("relative", CORPUS_SESSIONS or ["(no shared corpus)"])
@pytest.mark.parametrize("block", [1, 97, 4096])
def test_a_session_read_in_blocks_is_the_session_read_line_by_line(
    relative: str, block: int
) -> None:
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"shared corpus not available: {path} is absent")
    data = path.read_bytes()
    try:
        adapter = get_adapter(detect_cli(path))
    except SessionFormatError:
        pytest.skip(f"{relative}: no CLI tells itself in it (an empty or metadata-only file)")
    whole = adapter.line_parser(path)
    blocks = adapter.line_parser(path)
    assert whole is not None
    assert blocks is not None
    for line, terminated in lines_read_one_by_one(data):
        whole.feed(line, terminated)
    feed_stream(blocks, io.BytesIO(data), block=block)
    assert blocks.session() == whole.session()


# ---------------------------------------------------------------------- record ids

UUID = "0cf1a565-3230-4426-bdfc-d4d7af19f867"


def test_a_canonical_uuid_is_kept_as_its_number() -> None:
    assert compact_id(UUID) == int(UUID.replace("-", ""), 16)


@pytest.mark.parametrize(
    "other",
    [
        UUID.upper(),  # the same number, another string: must stay apart
        "0x" + UUID[2:],  # int(…, 16) takes a 0x prefix
        "0_f1a565" + UUID[8:],  # and underscores between digits
        " " + UUID[1:],  # and blanks around the digits
        UUID.replace("-", ""),
        UUID + "0",
        "u1",
        "",
    ],
)
def test_any_other_id_stays_a_string_so_two_ids_are_equal_only_when_their_strings_are(
    other: str,
) -> None:
    assert compact_id(other) == other
    assert compact_id(other) != compact_id(UUID)


# ---------------------------------------------------------------------- JSON depth


def test_a_line_nested_too_deeply_to_decode_is_not_a_record() -> None:
    assert load_record(TOO_DEEP_ARRAY) is None
    assert load_record(nested(100_000)) is None


def test_a_record_nested_deeper_than_the_limit_is_not_a_record() -> None:
    assert load_record(nested(MAX_JSON_DEPTH)) == json.loads(nested(MAX_JSON_DEPTH))
    assert load_record(nested(MAX_JSON_DEPTH + 1)) is None


def test_decode_json_refuses_too_deep_input_with_its_own_value_error() -> None:
    with pytest.raises(JsonTooDeepError, match="nested too deeply"):
        decode_json(TOO_DEEP_ARRAY)
    with pytest.raises(JsonTooDeepError, match="nested too deeply"):
        decode_json(nested(MAX_JSON_DEPTH + 1).decode())
    assert issubclass(JsonTooDeepError, ValueError)
    # Brackets inside strings are text, not nesting.
    assert decode_json(json.dumps({"text": "[" * 5000})) == {"text": "[" * 5000}


def test_tool_arguments_too_deep_to_decode_are_kept_as_their_text() -> None:
    text = "[" * 50_000 + "]" * 50_000
    call = make_tool_call("shell", text)
    # As for any argument string that is not JSON: the digest is that of the string itself.
    digest = hashlib.sha256(json.dumps(text).encode()).hexdigest()[:16]
    assert call == ToolCall(name="shell", args_digest=digest, target_path=None, command=None)


def test_tool_arguments_holding_lone_surrogates_still_get_a_digest() -> None:
    call = make_tool_call("Write", {"file_path": "/tmp/x", "content": "\ud800"})
    assert call.target_path == "/tmp/x"
    assert len(call.args_digest) == 16


# ---------------------------------------------------------------------- numbers


def test_a_timestamp_number_too_large_for_a_float_is_unreadable() -> None:
    assert parse_timestamp(10**400) is None
    assert parse_timestamp(-(10**400)) is None


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, -1, -0.5, True, False, "12", None, [3], {"n": 3}, 10**400],
    ids=[
        "nan",
        "inf",
        "-inf",
        "-1",
        "-0.5",
        "true",
        "false",
        "str",
        "null",
        "list",
        "dict",
        "huge",
    ],
)
def test_read_token_count_refuses_what_is_not_a_token_count(value: object) -> None:
    assert read_token_count(value) is None


def test_read_token_count_takes_non_negative_integers_and_finite_floats() -> None:
    assert read_token_count(0) == 0
    assert read_token_count(1234) == 1234
    assert read_token_count(1234.9) == 1234
    assert read_token_count(MAX_TOKEN_COUNT) == MAX_TOKEN_COUNT
    assert read_token_count(MAX_TOKEN_COUNT + 1) is None


# ---------------------------------------------------------------------- zstd


def test_a_zstd_file_decodes_to_exactly_its_lines(tmp_path: Path) -> None:
    body = session_bytes()
    path = tmp_path / "s.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor(write_checksum=True).compress(body))
    assert read_lines(path) == body.splitlines()


def test_concatenated_zstd_frames_decode_one_after_the_other(tmp_path: Path) -> None:
    first, second = session_bytes(10), jsonl([{"type": "user", "uuid": "last"}])
    path = tmp_path / "s.jsonl.zst"
    packer = zstandard.ZstdCompressor()
    path.write_bytes(packer.compress(first) + packer.compress(second))
    assert read_lines(path) == (first + second).splitlines()


def test_corrupt_zstd_data_is_a_format_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.zst"
    # The magic number, then bytes that are no zstd frame (a fixed pseudo-random pattern).
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes((n * 73 + 41) % 256 for n in range(200)))
    with pytest.raises(SessionFormatError, match=f"cannot read {path}"):
        read_lines(path)


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.9])
def test_a_truncated_zstd_file_is_a_format_error(tmp_path: Path, fraction: float) -> None:
    whole = zstandard.ZstdCompressor().compress(session_bytes())
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(whole[: int(len(whole) * fraction)])
    with pytest.raises(SessionFormatError, match=f"{path} is a truncated zstd file"):
        read_lines(path)


def test_a_zstd_file_missing_only_its_checksum_is_truncated(tmp_path: Path) -> None:
    whole = zstandard.ZstdCompressor(write_checksum=True).compress(b'{"type":"user"}\n')
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(whole[:-2])
    with pytest.raises(SessionFormatError, match="truncated zstd file"):
        read_lines(path)


def test_garbage_after_a_whole_zstd_frame_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(b'{"type":"user"}\n') + b"trailing junk")
    with pytest.raises(SessionFormatError, match=f"cannot read {path}"):
        read_lines(path)


# ---------------------------------------------------------------------- detect_cli


def test_detection_passes_over_a_line_nested_too_deeply(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    record = {"type": "session_meta", "payload": {"id": "t", "cwd": "/w"}}
    path.write_bytes(TOO_DEEP_ARRAY + b"\n" + jsonl([record]))
    assert detect_cli(path) == "codex_cli"


def test_detection_of_a_file_holding_only_a_too_deep_line_is_a_format_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(TOO_DEEP_ARRAY + b"\n")
    with pytest.raises(SessionFormatError, match="cannot tell which CLI"):
        detect_cli(path)


def test_detection_of_a_json_file_nested_too_deeply_is_a_format_error_naming_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.json"
    path.write_bytes(TOO_DEEP_ARRAY)
    with pytest.raises(SessionFormatError, match=f"{path} is not a JSON session file"):
        detect_cli(path)


def test_detection_of_a_corrupt_zstd_file_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes((n * 73 + 41) % 256 for n in range(200)))
    with pytest.raises(SessionFormatError, match=str(path)):
        detect_cli(path)


@pytest.mark.parametrize("kind", [[], ["user"], {"a": 1}])
def test_detection_passes_over_a_type_that_is_an_array_or_object(
    tmp_path: Path, kind: object
) -> None:
    path = tmp_path / "odd.jsonl"
    record = {"type": "session_meta", "payload": {"id": "t", "cwd": "/w"}}
    path.write_bytes(jsonl([{"type": kind}, {"type": kind, "payload": {}}, record]))
    assert detect_cli(path) == "codex_cli"


@pytest.mark.parametrize(
    ("name", "document"),
    [
        (
            ".claude.json",
            {
                "numStartups": 12,
                "userID": "0" * 64,
                "lastSessionId": "11111111-2222-4333-8444-555555555555",
                "projects": {"/home/dev/app": {"allowedTools": [], "messages": []}},
            },
        ),
        ("settings.json", {"theme": "dark", "mcpServers": {"x": {"command": "y"}}}),
        ("session-2026-01-01T00-00-abcdef12.json", {"messages": []}),
        ("session-2026-01-01T00-00-abcdef12.json", {"sessionId": 7, "messages": []}),
        ("package.json", {"name": "app", "sessionId": "x", "messages": "none"}),
    ],
    ids=["claude-json", "settings-json", "messages-only", "numeric-session-id", "not-a-list"],
)
def test_json_without_the_shape_of_a_session_is_not_a_session_file(
    tmp_path: Path, name: str, document: dict[str, object]
) -> None:
    path = tmp_path / ".gemini" / "tmp" / "app" / "chats" / name
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SessionFormatError, match="not a session file"):
        detect_cli(path)


def test_a_jsonl_file_of_other_records_is_not_a_session_whatever_its_name(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".gemini" / "tmp" / "app" / "chats" / "session-2026-x-abcdef12.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(jsonl([{"display": "a prompt", "timestamp": 1, "project": "/w"}]))
    with pytest.raises(SessionFormatError, match="cannot tell which CLI"):
        detect_cli(path)
