"""Helpers every adapter shares: streaming lines (plain or zstd), decoding records,
timestamps, token counts, tool calls and the character-based token estimate.

Pure functions except :func:`open_session_file`, :class:`LineBlocks`, :func:`iter_lines`,
:func:`feed_stream` and :func:`feed_file`, which only read.

Hostile content never escapes as anything but :class:`~driftguard.errors.SessionFormatError`
(for a file as a whole) or a ``None`` (for one value): JSON nested deeper than
:data:`MAX_JSON_DEPTH` is not decoded, corrupt or truncated zstd data is a format error, and
token counts that are not plain non-negative numbers are no token counts.
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from driftguard.errors import JsonTooDeepError, SessionFormatError, from_os_error
from driftguard.model import ParsedMessage, Session, ToolCall, ToolKind

__all__ = [
    "CHARS_PER_TOKEN",
    "FIRST_READ_BYTES",
    "LARGEST_WINDOW",
    "MAX_JSON_DEPTH",
    "MAX_TOKEN_COUNT",
    "PATCH_MARK",
    "READ_BYTES",
    "REMEMBERED_CHARS",
    "ZSTD_MAGIC",
    "JsonTooDeepError",
    "LetGo",
    "Line",
    "LineBlocks",
    "LineParser",
    "RememberedBound",
    "ToolKinds",
    "after_cut",
    "bulk_reading",
    "compact_id",
    "decode_json",
    "estimate_tokens",
    "feed_file",
    "feed_stream",
    "iter_lines",
    "load_record",
    "make_tool_call",
    "open_session_file",
    "parse_timestamp",
    "read_token_count",
    "shift",
    "split_json_container",
    "split_json_member",
]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""Magic number of a zstd frame (RFC 8878 §3.1.1); Codex writes ``.jsonl.zst``
(docs/formats.md §C.1)."""

Line = tuple[bytes, bool]
"""One line of a session file without its newline, and whether it was newline-terminated."""

MAX_JSON_DEPTH = 128
"""Deepest nesting of arrays and objects (the outermost one counts 1) a decoded JSON value
may have. Real session records nest at most 10 deep (measured over every line of the shared
corpus); anything deeper is hostile or broken, and refusing it up front keeps every later
recursive step (``json.dumps`` of tool arguments, comparing usage objects) far from
Python's recursion limit (1000 frames)."""

MAX_TOKEN_COUNT = 2**53
"""Largest token count taken from a file: the largest integer a JSON number written by a
JavaScript CLI holds exactly. Larger values are garbage, and would overflow the float
arithmetic of scoring (an integer above ~1.8e308 cannot even be divided by the window)."""

_ZSTD_READ = 64 * 1024
"""Compressed bytes read from the file at a time."""

_ZSTD_FEED = 1024
"""Compressed bytes handed to the decompressor at a time. zstd expands at most ~32 768×
(RLE blocks), so one step yields at most ~32 MiB even from a crafted file (measured: 1 KiB
of 512 MiB of newlines compressed at level 19); real rollouts (5–15× ratios) yield ~10 KiB.
Smaller steps cost nothing measurable (a 45 MB session: ~25 ms at 512 B to 8 KiB)."""

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
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""``json.dumps(…, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``, made once
(``json.dumps`` with arguments builds this encoder on every call)."""


def open_session_file(path: Path) -> IO[bytes]:
    """Open a session file for binary reading, transparently decompressing zstd.

    A file is treated as zstd when its first four bytes are the zstd magic number,
    whatever its name. Every frame is decoded, one after the other (RFC 8878 §3.1); reading
    checks each frame whole: its content checksum when it has one, and that the file does
    not end inside a frame.

    Raises:
        SessionFormatError: the file cannot be opened or read. Reading from the returned
            stream also raises it, naming the file, for corrupt zstd data (``cannot read
            <path>: …``) and for a file that ends inside a frame (``<path> is a truncated
            zstd file``) — a cut-off copy would otherwise read as a shorter session.
    """
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    head = raw.peek(4)[:4] if isinstance(raw, io.BufferedReader) else b""
    if head != ZSTD_MAGIC:
        return raw
    return io.BufferedReader(_ZstdReader(raw, path), buffer_size=_ZSTD_READ)


class _ZstdReader(io.RawIOBase):
    """Decompressed bytes of a zstd file, frame after frame, checked as they are read.

    Raises :class:`SessionFormatError` from :meth:`readinto` on corrupt data or when the
    file ends inside a frame. Holds one decompressed step at a time (see ``_ZSTD_FEED``).
    """

    def __init__(self, raw: IO[bytes], path: Path) -> None:
        import zstandard

        super().__init__()
        self._raw = raw
        self._path = path
        self._zstd: Any = zstandard
        self._decoder: Any = None  # the frame being decoded, None between frames
        self._input = memoryview(b"")  # compressed bytes read but not yet fed
        self._output = memoryview(b"")  # decompressed bytes not yet returned
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._output:
            if self._ended:
                return 0
            self._step()
        size = min(len(buffer), len(self._output))
        buffer[:size] = self._output[:size]
        self._output = self._output[size:]
        return size

    def _step(self) -> None:
        """Feed the next piece of compressed input (reading more when needed)."""
        if not self._input:
            self._input = memoryview(self._raw.read(_ZSTD_READ))
            if not self._input:
                if self._decoder is not None:
                    raise SessionFormatError(f"{self._path} is a truncated zstd file")
                self._ended = True
                return
        if self._decoder is None:
            self._decoder = self._zstd.ZstdDecompressor().decompressobj()
        piece, self._input = self._input[:_ZSTD_FEED], self._input[_ZSTD_FEED:]
        try:
            produced: bytes = self._decoder.decompress(piece)
        except self._zstd.ZstdError as exc:
            raise SessionFormatError(
                f"cannot read {self._path}: not valid zstd data ({exc})"
            ) from exc
        if self._decoder.eof:
            # The frame is whole; whatever follows it is the next frame.
            self._input = memoryview(self._decoder.unused_data + self._input)
            self._decoder = None
        self._output = memoryview(produced)

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


READ_BYTES = 64 * 1024
"""Bytes a session file is read at a time by :class:`LineBlocks` once past its first
blocks. Splitting blocks into lines costs less than reading line by line (the 150 MB
benchmark session: 0.17 s of CPU in 64 KiB blocks, 0.18 s in 256 KiB or 1 MiB ones,
0.25 s in 8 KiB ones, 0.37 s through a buffered file's line iterator)."""

FIRST_READ_BYTES = 8 * 1024
"""Bytes of the first block :class:`LineBlocks` reads; each next block is twice as large,
up to :data:`READ_BYTES`. A reader of a file's first records (telling which CLI wrote
it, listing a project's sessions) reads no more than a buffered file would."""


class LineBlocks:
    """The whole lines of a binary stream, a block of bytes at a time (the first of
    :data:`FIRST_READ_BYTES`, each next one twice as large, up to :data:`READ_BYTES` or
    ``block``): iterating yields, per block read, the list of lines it completed,
    each without its newline and the ``\r`` bytes right before it (a ``\r\n`` file reads
    as a ``\n`` one), possibly empty.

    Only one block and the line it ends inside are held, whatever the file's size: a line
    longer than a block is gathered piece by piece and joined once, when its newline
    comes. After the iteration, :attr:`tail` holds what follows the last newline (a last
    line without one, as it is; ``b""`` when the file ends with a newline), :attr:`end`
    the bytes read through the last newline and :attr:`last_start` where the last whole
    line starts (both counted from where the stream stood when iteration began).

    Args:
        stream: the binary stream, positioned where reading starts.
        limit: read at most this many bytes (``None``: to the end of the stream); bytes
            beyond it are not read, so a line it cuts is the :attr:`tail`.
        block: bytes read at a time at most (≥ 1).
    """

    __slots__ = ("_block", "_limit", "_stream", "end", "last_start", "tail")

    def __init__(
        self, stream: IO[bytes], limit: int | None = None, block: int = READ_BYTES
    ) -> None:
        self._stream = stream
        self._limit = limit
        self._block = block
        self.end = 0
        self.last_start = 0
        self.tail = b""

    def __iter__(self) -> Iterator[list[bytes]]:
        stream, largest, remaining = self._stream, self._block, self._limit
        block = min(FIRST_READ_BYTES, largest)
        pieces: list[bytes] = []  # the line being read, when it began in an earlier block
        read = 0  # bytes read so far
        while remaining is None or remaining > 0:
            data = stream.read(block if remaining is None else min(block, remaining))
            if not data:
                break
            block = min(2 * block, largest)
            read += len(data)
            if remaining is not None:
                remaining -= len(data)
            lines = data.split(b"\n")
            rest = lines.pop()
            if lines:
                if pieces:
                    pieces.append(lines[0])
                    lines[0] = b"".join(pieces)
                    pieces = []
                last = len(lines[-1]) + 1
                self.end = read - len(rest)
                self.last_start = self.end - last
                if b"\r" in data or lines[0].endswith(b"\r"):
                    lines = [line.rstrip(b"\r") for line in lines]
                yield lines
            if rest:
                pieces.append(rest)
        self.tail = b"".join(pieces)


def iter_lines(stream: IO[bytes]) -> Iterator[Line]:
    """Yield each line of a binary stream without its newline, one at a time.

    The last line is yielded with ``terminated=False`` when the file does not end with a
    newline (a writer may be half-way through it). Blank lines are yielded too; callers
    skip them. Lines of any length are fine: the stream is read in blocks
    (:class:`LineBlocks`), and nothing but one block and the current line is held.
    """
    reader = LineBlocks(stream)
    for lines in reader:
        for line in lines:
            yield line, True
    if reader.tail:
        yield reader.tail, False


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def compact_id(value: str) -> int | str:
    """``value`` as a smaller key, equal to another's exactly when the two strings are
    equal: a canonical UUID (8-4-4-4-12 lower-case hex digits, what Claude Code and
    Gemini CLI write as record ids) becomes its 128-bit number, any other string stays
    itself (a number never equals a string).

    A parser keeps one id per record of the whole file to tell a record written twice,
    so this is the one part of its state that grows with the file, not with what the
    model remembers: 48 bytes a number where the string takes 88 (CPython 3.11, 64-bit).
    """
    if len(value) == 36 and _CANONICAL_UUID.fullmatch(value):
        return int(value.replace("-", ""), 16)
    return value


def decode_json(data: bytes | str) -> object:
    """Decode one JSON text (``bytes`` in UTF-8/16/32, or ``str``) into its value.

    Raises:
        JsonTooDeepError: nested deeper than :data:`MAX_JSON_DEPTH`, too deep for the
            decoder's recursion included (a :class:`ValueError`).
        ValueError: not JSON, not valid UTF-8, or an integer beyond Python's digit limit.
    """
    try:
        value: object = json.loads(data)
    except RecursionError as exc:
        raise JsonTooDeepError("JSON nested too deeply to decode") from exc
    if _openers(data) > MAX_JSON_DEPTH and _deeper_than(value, MAX_JSON_DEPTH):
        raise JsonTooDeepError(f"JSON nested too deeply (more than {MAX_JSON_DEPTH} levels)")
    return value


def _openers(data: bytes | str) -> int:
    """How many ``[`` and ``{`` the text holds: a bound on its nesting depth (a cheap C scan
    that spares walking the value of nearly every line)."""
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")


def _deeper_than(value: object, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep (walked
    without recursion)."""
    stack: list[tuple[dict[str, Any] | list[Any], int]] = []
    if isinstance(value, dict | list):
        stack.append((value, 1))
    while stack:
        node, depth = stack.pop()
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


_JSON_SCAN_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]', re.DOTALL)
"""What :func:`split_json_container` looks at: whole strings (skipped: brackets and commas
inside them are text) and the structural characters that change depth or separate
children."""
_JSON_MEMBER_KEY = re.compile(rb'\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*:', re.DOTALL)


def split_json_container(data: bytes) -> list[bytes] | None:
    """The direct children of the JSON array or object ``data``, as raw byte slices,
    found without decoding anything and without recursion (so at any nesting depth).

    For an array each slice is one element; for an object one ``"key": value`` member
    (see :func:`split_json_member`). Slices keep their surrounding blanks. Only the
    structure is followed — strings skipped whole, brackets counted, commas at the first
    level split — so a child may still be invalid JSON: decode each one on its own.

    Returns ``None`` when ``data`` is not one array or object (it starts with something
    else, a string or a bracket is left open, or text follows the closing bracket).
    """
    start = len(data) - len(data.lstrip())
    if start >= len(data) or data[start] not in b"[{":
        return None
    children: list[bytes] = []
    depth = 0
    child_start = start + 1
    for token in _JSON_SCAN_TOKEN.finditer(data, start):
        mark = token.group()
        if mark[:1] == b'"':
            continue
        if mark in (b"[", b"{"):
            depth += 1
        elif mark in (b"]", b"}"):
            depth -= 1
            if depth == 0:
                last = data[child_start : token.start()]
                if last.strip() or children:
                    children.append(last)
                return children if not data[token.end() :].strip() else None
        elif depth == 1:  # a comma between two children
            children.append(data[child_start : token.start()])
            child_start = token.end()
    return None


def split_json_member(member: bytes) -> tuple[str, bytes] | None:
    """The key (decoded) and the raw value of one ``"key": value`` object member, as
    :func:`split_json_container` gives them; ``None`` when it has no string key."""
    found = _JSON_MEMBER_KEY.match(member)
    if found is None:
        return None
    try:
        key = json.loads(found.group(1))
    except ValueError:
        return None
    return (key, member[found.end() :]) if isinstance(key, str) else None


class LineParser(Protocol):
    """An adapter's resumable parser: fed one line at a time (without its newline), and
    asked for the session as read so far at any time (feeding may continue afterwards)."""

    def feed(self, line: bytes, terminated: bool = True) -> None:
        """Read one line without its newline (``terminated``: it ended with one)."""

    def session(self) -> Session:
        """The session as read so far (the parser is unchanged)."""

    @property
    def prompts(self) -> int:
        """Prompts the person typed so far, counted as they arrive: a compaction or a
        rewind never lowers it, so a caller that sees it grow after a line knows that line
        began a turn (:func:`driftguard.adapters.turn_snapshots`)."""


@contextmanager
def bulk_reading() -> Iterator[None]:
    """Pause the cyclic garbage collector while a session file is read.

    Every object a parse makes survives it, so the collector's passes find nothing to free,
    yet each full pass walks every object made so far: measured on the 45 MB benchmark
    session, a server's first ``get_drift`` took 335 ms with the passes paused and 365 ms
    without (median of 2; the cost shows up in the next big allocation after the parse,
    e.g. importing numpy). Reference counting still frees what is dropped. The collector
    is enabled again afterwards only if it was enabled before.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def feed_file(parser: LineParser, path: Path) -> None:
    """Stream every line of ``path`` (plain or zstd) into ``parser``
    (:func:`bulk_reading`).

    Raises:
        SessionFormatError: the file cannot be opened, read or decompressed.
    """
    try:
        with bulk_reading(), open_session_file(path) as stream:
            feed_stream(parser, stream)
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc


def feed_stream(parser: LineParser, stream: IO[bytes], block: int = READ_BYTES) -> None:
    """Feed every line of the binary ``stream``, from where it stands, into ``parser``,
    read ``block`` bytes at a time (:class:`LineBlocks`): the same lines, in the same
    order, as :func:`iter_lines` gives, so the same session whatever the block size.

    Raises:
        OSError: the stream cannot be read.
    """
    feed = parser.feed
    reader = LineBlocks(stream, block=block)
    for lines in reader:
        for line in lines:
            feed(line)
    if reader.tail:
        feed(reader.tail, False)


def load_record(line: bytes) -> dict[str, Any] | None:
    """Decode one JSONL line into a JSON object, or ``None`` when it is not one.

    Blank lines give ``None`` too; callers count non-blank ``None`` results as skipped.
    Not JSON objects: invalid JSON or UTF-8, other JSON values, and JSON nested deeper
    than :data:`MAX_JSON_DEPTH` (see :func:`decode_json`).
    """
    try:
        value = decode_json(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_token_count(value: object) -> int | None:
    """A token count from a JSON value: a non-negative integer, or a finite non-negative
    float truncated to one, at most :data:`MAX_TOKEN_COUNT`. ``None`` — no token count —
    for anything else: booleans, ``NaN``, ``±Infinity`` (``1e400`` decodes to it),
    negatives, strings, ``null``, arrays, objects, absurdly large integers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or value < 0:
            return None
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return None


def parse_timestamp(value: object) -> float | None:
    """Seconds since the epoch from an ISO-8601 string (``…Z`` or with an offset) or a
    number (seconds, or milliseconds when above 10¹¹); ``None`` when unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float range
            return None
        if not math.isfinite(number):
            return None
        return number / 1000.0 if number > 1e11 else number
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except (ValueError, OverflowError, OSError):
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


PATCH_MARK = "*** Begin Patch"
"""How an ``apply_patch`` body opens (Codex's patch format, docs/formats.md §C): a shell call
whose command holds it writes files rather than running a command."""


@dataclass(frozen=True, slots=True)
class ToolKinds:
    """A CLI's tool names by what they do (:data:`~driftguard.model.ToolKind`).

    Attributes:
        edit: tools that create or edit a file (their ``target_path`` is that file).
        shell: tools that run a shell command (their ``command`` is the command line).
        read: tools that only read the workspace.
    """

    edit: frozenset[str]
    shell: frozenset[str]
    read: frozenset[str] = frozenset()

    def of(self, name: str, command: str | None = None) -> ToolKind:
        """The kind of a call of ``name`` whose command line is ``command``; a shell call
        whose command applies a patch (:data:`PATCH_MARK`) is an ``"edit"``."""
        if name in self.edit:
            return "edit"
        if name in self.shell:
            return "edit" if command is not None and PATCH_MARK in command else "shell"
        if name in self.read:
            return "read"
        return "other"


def make_tool_call(name: str, args: object, kinds: ToolKinds | None = None) -> ToolCall:
    """Build a :class:`ToolCall` from a tool's name and its arguments.

    ``args`` may be a mapping, a JSON string of one (Codex ``function_call.arguments``),
    or anything else (digested as is; so is a string :func:`decode_json` refuses). The
    target path is read from the first of ``file_path``, ``filePath``, ``notebook_path``,
    ``absolute_path``, ``path``, ``target_file``, ``filename``; the shell command from
    ``command`` or ``cmd`` (a list of strings is joined with spaces). The call's kind is
    ``kinds.of(name, command)`` (``"other"`` without ``kinds``).
    """
    if isinstance(args, str):
        try:
            decoded: object = decode_json(args)
        except ValueError:  # not JSON (or nested too deeply): digested as the text it is
            decoded = args
        args = decoded
    canonical = _CANONICAL.encode(args)
    # surrogatepass: JSON "\ud800" escapes decode to lone surrogates, which strict UTF-8
    # refuses; any other text encodes exactly as before.
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    target = command = None
    if isinstance(args, Mapping):
        target = _first_str(args, _PATH_KEYS)
        command = _first_str(args, _COMMAND_KEYS)
    kind: ToolKind = kinds.of(name, command) if kinds is not None else "other"
    return ToolCall(name=name, args_digest=digest, target_path=target, command=command, kind=kind)


CHARS_PER_TOKEN = 4
"""Characters per token of driftguard's estimate of a context without usage:
``floor(Σ len(content) / 4)`` (docs/design.md §5.3; :func:`estimate_tokens`)."""

LARGEST_WINDOW = 1_048_576
"""The largest context window, in tokens, of any model driftguard knows: Gemini's
1,048,576 (``GEMINI_CONTEXT_WINDOW``, docs/design.md §5.3, docs/formats.md §B.7), above
Claude's 1,000,000 (``claude_code/_window.py``, ``LARGE_WINDOW``), Codex's default 258,400
and Cursor's default 200,000. A Codex or Cursor file may name a larger one; the bound
below then binds sooner than that model would, and says so (:class:`RememberedBound`)."""

REMEMBERED_CHARS = 2 * LARGEST_WINDOW * CHARS_PER_TOKEN
"""The most text, in characters (``Σ len(content)``), that a parser keeps of the messages
since the last compaction: 8,388,608, twice what :data:`LARGEST_WINDOW` holds at
:data:`CHARS_PER_TOKEN`. No host can send a request larger than its model's window, so a
model never sees more than a window's worth of them; the factor 2 is room for text that
takes fewer characters per token than the estimate says (code, non-Latin scripts).

It never binds on a real session: the largest remembered text at any line of any session
of the shared corpus (``../shared/corpus`` beside the project) is 104,388 characters (a
Claude Code 1.0.24 session), and of the 538 labelled runs (``../shared/validation``,
unpacked) 273,329 (a Gemini 3 Pro run of set D1, whose window is 1M tokens): 3.3 % of
this bound, printed by ``python scripts/remembered_peak.py ../shared/corpus DEV``
(``DEV``: where ``dev-sessions.tar.gz`` was unpacked). The benchmark's session compacted
as Claude Code compacts a 200k window (``benchmarks/gen_claude_session.py --compact-at
167000``) remembers at most 2,345,900 characters between two compactions (its first 20
MB, counted the same way). What makes it bind is a file that never compacts past any
window, such as the benchmark's never-compacted 1 GB session: without it, a parser would
keep the whole file's text."""


_S = TypeVar("_S")


@dataclass(frozen=True, slots=True)
class LetGo:
    """What :meth:`RememberedBound.cut` lets go of a parser's remembered messages.

    Attributes:
        start: the first slot let go (:meth:`RememberedBound.start`).
        end: the slots ``[start, end)`` of the parser's list are let go, but the ``head``.
        head: the slot of the first typed prompt among them, which stays remembered (it
            moves to ``start``), or ``None``.
        messages: the messages of those slots, oldest first, the head included: what the
            compaction ledger reads (:meth:`~driftguard.compaction.ledger.LedgerBuilder.let_go`).
        chars: ``Σ len(content)`` of the messages let go, the head left out.
        count: how many messages are let go, the head left out.
    """

    start: int
    end: int
    head: int | None
    messages: tuple[ParsedMessage, ...]
    chars: int
    count: int


class RememberedBound:
    """Keeps the text a parser remembers since the last compaction within ``limit``
    characters (:data:`REMEMBERED_CHARS` by default): when it grows past it, the oldest
    messages are let go, as a compaction lets go the messages before it, down to half
    the limit (so a session that keeps growing is cut once per half a limit of text, not
    on every line).

    What stays, whatever its age: the summary of the last compaction (the parser leaves
    it out of the slots it hands over), and the first prompt the person typed since it —
    the goal the handoff quotes (:mod:`driftguard.engine.handoff`) — once it would be let
    go (:attr:`head`). A cut never separates a tool result from the call it answers, nor
    parallel calls from one another: it falls before a message that is not a tool
    result, after one that made no call. The parser reports :attr:`let_go` in
    ``Session.messages_let_go`` and calls :meth:`reset` at each compaction.

    Deterministic: whether and where a cut falls depends only on the lines fed, never on
    when a snapshot is taken, so a session read incrementally is the session read whole.

    Args:
        limit: characters; ``None`` reads :data:`REMEMBERED_CHARS` now.
    """

    __slots__ = ("head", "let_go", "limit")

    def __init__(self, limit: int | None = None) -> None:
        self.limit = REMEMBERED_CHARS if limit is None else limit
        self.head: ParsedMessage | None = None
        """The first typed prompt since the last compaction, once a cut reached it."""
        self.let_go = 0
        """Messages let go since the last compaction (the head never counts)."""

    def reset(self) -> None:
        """A compaction: what it drops is no longer the bound's business."""
        self.head = None
        self.let_go = 0

    def start(self, slots: Sequence[ParsedMessage | None], start: int) -> int:
        """The first slot a cut may take, given that ``slots[:start]`` are never let go
        (a summary kept in the list): after the :attr:`head` when it stands there."""
        if start < len(slots) and self.head is not None and slots[start] is self.head:
            return start + 1
        return start

    def cut(self, slots: Sequence[ParsedMessage | None], start: int, chars: int) -> LetGo | None:
        """What to let go of ``slots`` (the remembered messages, oldest first; ``None``
        for a slot without a message yet), whose text is ``chars`` characters in all (the
        summary included), so that what stays is at most half the limit; ``None`` when
        ``chars`` is within the limit or nothing may go. ``slots[:start]`` never go (see
        :meth:`start`). Counts what it lets go in :attr:`let_go`; the caller removes the
        slots and hands :attr:`LetGo.messages` to its compaction ledger.
        """
        if chars <= self.limit:
            return None
        start = self.start(slots, start)
        excess = chars - self.limit // 2
        dropped = 0
        end = start  # the latest place a cut may fall so far
        previous: ParsedMessage | None = None  # the last message before ``index``
        for index in range(start, len(slots)):
            message = slots[index]
            if message is None:
                continue
            if previous is not None and _may_cut_before(previous, message):
                end = index
                if dropped >= excess:
                    break
            dropped += len(message.content)
            previous = message
        # Short of the excess (the latest messages are one long turn), as much goes as may.
        if end <= start:
            return None
        head: int | None = None
        taken: list[ParsedMessage] = []
        chars_let_go = count = 0
        for index in range(start, end):
            message = slots[index]
            if message is None:
                continue
            taken.append(message)
            if head is None and self.head is None and _is_typed(message):
                head = index
                self.head = message
                continue
            chars_let_go += len(message.content)
            count += 1
        self.let_go += count
        return LetGo(start, end, head, tuple(taken), chars_let_go, count)


def after_cut(slots: list[_S], cut: LetGo) -> list[_S]:
    """``slots`` without what ``cut`` lets go: the slots before it, the head, the slots
    after it (the slot at ``i >= cut.end`` moves to ``i - shift(cut)``, the head to
    ``cut.start``)."""
    head = [slots[cut.head]] if cut.head is not None else []
    return [*slots[: cut.start], *head, *slots[cut.end :]]


def shift(cut: LetGo) -> int:
    """How many places a slot after ``cut`` moves towards the start of its list."""
    return cut.end - cut.start - (cut.head is not None)


def _is_typed(message: ParsedMessage) -> bool:
    """A prompt the person typed, with text (the handoff's goal: ``_first_request``)."""
    return message.role == "user" and not message.is_summary and bool(message.content.strip())


def _may_cut_before(previous: ParsedMessage | None, message: ParsedMessage) -> bool:
    """Whether a cut may fall between ``previous`` and ``message``: ``message`` is not a
    tool result (which pairs with the call before it) and ``previous`` made no call (whose
    results, or parallel calls, follow)."""
    if message.role == "tool" and not message.tool_calls:
        return False
    return previous is None or not previous.tool_calls


def estimate_tokens(messages: Iterable[ParsedMessage]) -> int:
    """``floor(Σ len(content) / 4)`` over the messages (tool messages and the summary
    included): the context size when a file has no usage (docs/design.md §5.3), in tokens."""
    return sum(len(m.content) for m in messages) // 4
