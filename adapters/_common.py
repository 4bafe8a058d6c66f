"""Helpers every adapter shares: streaming lines (plain or zstd), decoding records,
timestamps, tool calls and the character-based token estimate.

Pure functions except :func:`iter_lines`, which only reads.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from driftguard.errors import SessionFormatError
from driftguard.model import ParsedMessage, ToolCall

__all__ = [
    "ZSTD_MAGIC",
    "Line",
    "estimate_tokens",
    "iter_lines",
    "load_record",
    "make_tool_call",
    "open_session_file",
    "parse_timestamp",
]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""Magic number of a zstd frame (RFC 8878 §3.1.1); Codex writes ``.jsonl.zst`` (formats.md §C.1)."""

Line = tuple[bytes, bool]
"""One line of a session file without its newline, and whether it was newline-terminated."""

_PATH_KEYS = (
    "file_path",
    "filePath",
    "notebook_path",
    "absolute_path",
    "path",
    "target_file",
    "filename",
)
_COMMAND_KEYS = ("command", "cmd")


def open_session_file(path: Path) -> IO[bytes]:
    """Open a session file for binary reading, transparently decompressing zstd.

    A file is treated as zstd when its first four bytes are the zstd magic number,
    whatever its name.

    Raises:
        SessionFormatError: the file cannot be opened or read.
    """
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise SessionFormatError(f"cannot read {path}: {exc.strerror or exc}") from exc
    head = raw.peek(4)[:4] if isinstance(raw, io.BufferedReader) else b""
    if head != ZSTD_MAGIC:
        return raw
    import zstandard

    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
    return io.BufferedReader(reader)  # type: ignore[type-var]


def iter_lines(stream: IO[bytes]) -> Iterator[Line]:
    """Yield each line of a binary stream without its newline, one at a time.

    The last line is yielded with ``terminated=False`` when the file does not end with a
    newline (a writer may be half-way through it). Blank lines are yielded too; callers
    skip them. Lines of any length are fine: nothing but the current line is held.
    """
    for raw in stream:
        if raw.endswith(b"\n"):
            yield raw.rstrip(b"\r\n"), True
        else:
            yield raw, False


def load_record(line: bytes) -> dict[str, Any] | None:
    """Decode one JSONL line into a JSON object, or ``None`` when it is not one.

    Blank lines give ``None`` too; callers count non-blank ``None`` results as skipped.
    """
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def parse_timestamp(value: object) -> float | None:
    """Seconds since the epoch from an ISO-8601 string (``…Z`` or with an offset) or a
    number (seconds, or milliseconds when above 10¹¹); ``None`` when unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            return None
        return number / 1000.0 if number > 1e11 else number
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _first_str(args: Mapping[str, Any], keys: Iterable[str]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
        if (
            key in _COMMAND_KEYS
            and isinstance(value, list)
            and value
            and all(isinstance(part, str) for part in value)
        ):
            return " ".join(value)
    return None


def make_tool_call(name: str, args: object) -> ToolCall:
    """Build a :class:`ToolCall` from a tool's name and its arguments.

    ``args`` may be a mapping, a JSON string of one (Codex ``function_call.arguments``),
    or anything else (digested as is). The target path is read from the first of
    ``file_path``, ``filePath``, ``notebook_path``, ``absolute_path``, ``path``,
    ``target_file``, ``filename``; the shell command from ``command`` or ``cmd``
    (a list of strings is joined with spaces).
    """
    if isinstance(args, str):
        try:
            decoded: object = json.loads(args)
        except ValueError:
            decoded = args
        args = decoded
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
    target = command = None
    if isinstance(args, Mapping):
        target = _first_str(args, _PATH_KEYS)
        command = _first_str(args, _COMMAND_KEYS)
    return ToolCall(name=name, args_digest=digest, target_path=target, command=command)


def estimate_tokens(messages: Iterable[ParsedMessage]) -> int:
    """``floor(Σ len(content) / 4)`` over the messages (tool messages and the summary
    included): the context size when a file has no usage (design §5.3), in tokens."""
    return sum(len(m.content) for m in messages) // 4
