"""Incremental parsing: a growing session file costs only its new lines (docs/design.md §9).

The MCP server keeps one :class:`SessionCache` for its lifetime. For each session file
(keyed by its resolved path) the cache holds the adapter's resumable parser
(:meth:`Adapter.line_parser <driftguard.adapters._base.Adapter.line_parser>`), the byte
offset just past the last newline-terminated line it was fed, the file's identity and a
fingerprint of the bytes it has read. :meth:`SessionCache.get` then does the least work
that gives the same :class:`~driftguard.model.Session` as
:func:`~driftguard.adapters.parse_session` on the file as it is now — that equality is the
contract, and tests check it on the corpus with files split at random byte positions:

- **unchanged** file (same size, identity and fingerprint): the cached ``Session`` object
  itself is returned; nothing is parsed. Size, ``mtime_ns`` and identity alone do not
  prove it unchanged — a rewrite may keep all three — so each call
  opens the file and reads its fingerprint again (below): a few KiB, never the whole.
- **grown** file: the fingerprint is checked, then only the bytes after the offset are
  read, and only whole lines are fed (docs/formats.md §G.7). What the parser would do with an
  unterminated last line (a writer may be half-way through it) is reproduced without
  moving the offset past it:

  - blank: nothing, as in a whole-file parse;
  - not a JSON object (the usual half-written line): every adapter counts it in
    ``skipped_lines`` and changes nothing else, so the result is the parser's session
    with one more skipped line, and the line is read again once its newline arrives;
  - a complete JSON object that is only missing its newline: the adapters use it, so it
    is fed *speculatively* and its bytes remembered. When its newline arrives, a line
    with the same bytes (give or take a trailing ``\\r``) is not fed again; if anything
    else appears there, the file was rewritten and is re-read from the start.

  A parser cannot be rolled back, and copying one to feed the tail to a throwaway clone
  was measured at 140–215 ms (``copy.deepcopy`` of the parser of a 45 MB Claude session,
  whose state holds ~11 000 messages) — ten times the 20 ms budget of a warm call.
  Speculation costs nothing, and a rewritten tail (never seen from a real append-only
  writer) costs one full re-read.
- **rewritten** — **replaced** (another inode, e.g. ``os.replace``), **shrunk** (smaller
  than the bytes already read) or **rewritten in place** (the *fingerprint* of the bytes
  already read changed: the sha256 of their first :data:`FINGERPRINT_BYTES` and the sha256
  of the stretch before the offset that holds the last complete line read, at least
  :data:`FINGERPRINT_BYTES` long) — is read again from the start, whatever its size and
  ``mtime_ns`` say. An append never is. An edit elsewhere, between the first block and
  the last line, is not noticed: session files are append-only (docs/formats.md §A.3, §B.4,
  §C.1), and this check is what docs/formats.md §A.15 #16 calls for.
- files that cannot be resumed by lines — those the adapter has no line parser for (a
  single JSON document rewritten whole on every change, Gemini's legacy ``.json``) and
  zstd-compressed ones (``.jsonl.zst``) — are parsed whole again whenever their size,
  ``mtime_ns``, identity or fingerprint (the first and the last :data:`FINGERPRINT_BYTES`
  of the file) change.
- sessions kept in a database (a locator such as Cursor's ``<state.vscdb>#<composerId>``)
  are not line-based at all: the session is read again whole whenever one of the files
  the adapter names for it (:meth:`Adapter.store_files
  <driftguard.adapters._base.Adapter.store_files>`: the database and its write-ahead log)
  changed size, ``mtime_ns`` or identity, appeared or vanished since it was read (an
  empty file counts as absent: SQLite makes an empty log when a reader opens the
  database).

Once the first line has been read, the CLI (given, or detected once with
:func:`~driftguard.adapters.detect_cli`) is kept until the file is replaced or truncated.
Until then every call starts afresh (nothing read yet costs nothing to redo), so a file
that was empty when first seen is detected again from its content.

:meth:`SessionCache.get_indexed` also keeps, per file, what the factors read from the
messages (:class:`~driftguard.scoring.features.FeatureIndex`): a snapshot shares its
unchanged messages (the same objects) with the previous one, so the index reads only the
new ones, and scoring a grown session costs its new messages and the factors' windows,
never a walk over every message.

Sessions are held for at most ``maxsize`` files, least recently used first out; each holds
its parser state and features: what the model remembers (the messages after the last
compaction) and a compaction ledger, not the file. Measured with tracemalloc on the
benchmark sessions (``benchmarks/gen_claude_session.py``): 22 MB of Python objects for
45 MB never compacted (everything remembered: mostly the text of its messages), 4.8 MB
for 45 MB and 25 MB for 1 GB compacted as Claude Code compacts (``--compact-at 167000``),
the latter mostly the one number per line the parser keeps to tell a line written twice
(:func:`~driftguard.adapters._common.compact_id`). A file is read a block at a time
(:class:`~driftguard.adapters._common.LineBlocks`), never whole.
The cache is safe to share between threads (one lock; parses are serialised).
It does no I/O beyond reading the files it is asked about.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from driftguard.adapters import (
    Adapter,
    get_adapter,
    locator_adapter,
    not_a_session_file,
    resolve_cli,
)
from driftguard.adapters._common import ZSTD_MAGIC, LineBlocks, LineParser, bulk_reading
from driftguard.adapters._fastjson import load_object
from driftguard.errors import SessionFormatError, from_os_error
from driftguard.model import CliName, Session
from driftguard.scoring.features import FeatureIndex, Features

__all__ = ["DEFAULT_MAXSIZE", "FINGERPRINT_BYTES", "Indexed", "LineParser", "SessionCache"]

DEFAULT_MAXSIZE = 32
"""Session files a :class:`SessionCache` keeps by default."""

FINGERPRINT_BYTES = 4096
"""Bytes hashed at the start of the file, and at least as many just before the offset
(sha256 each; the stretch before the offset always holds the whole last line read)."""


@dataclass(frozen=True, slots=True)
class Indexed:
    """A parsed session and the features its factors read (:meth:`SessionCache.get_indexed`)."""

    session: Session
    features: Features


@dataclass(frozen=True, slots=True)
class _Stat:
    """What tells an unchanged file: identity, size (bytes) and modification time (ns)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, result: os.stat_result) -> _Stat:
        return cls(result.st_dev, result.st_ino, result.st_size, result.st_mtime_ns)

    @classmethod
    def now(cls, path: Path) -> _Stat | None:
        """The file as it is now, or ``None`` when it does not exist (or cannot be
        stat-ed)."""
        try:
            return cls.of(os.stat(path))
        except OSError:
            return None


@dataclass(slots=True)
class _Entry:
    """The parse state of one file (mutable; only touched under the cache's lock)."""

    given: str
    """The path as first given: what ``Session.path`` holds."""
    cli: CliName
    explicit: bool
    """``cli`` was given by the caller (else detected)."""
    stat: _Stat
    """The file as last read."""
    session: Session
    """What :meth:`SessionCache.get` returns for ``stat``."""
    parser: LineParser | None = None
    """``None`` for files parsed whole (legacy ``.json``, zstd)."""
    offset: int = 0
    """Bytes fed as newline-terminated lines."""
    pending: bytes | None = None
    """An unterminated JSON-object line fed speculatively, at ``offset``."""
    line_start: int = 0
    """Where the last complete line read starts (bytes; ``offset`` is where it ends)."""
    head: bytes = b""
    """sha256 of the first ``min(offset, FINGERPRINT_BYTES)`` bytes (of the file, for files
    parsed whole)."""
    tail: bytes = b""
    """sha256 of the bytes from ``min(line_start, offset − FINGERPRINT_BYTES)`` (at least
    0) to ``offset``: the last complete line and at least the ``FINGERPRINT_BYTES`` before
    ``offset`` (the last ``FINGERPRINT_BYTES`` of the file, for files parsed whole)."""
    base: Session | None = None
    """``parser.session()`` as of the last feed (memoised)."""
    index: FeatureIndex | None = None
    """What the factors read from the session's messages, kept up to date (made on the
    first :meth:`SessionCache.get_indexed`)."""
    features: Features | None = None
    """``index``'s snapshot for ``indexed``."""
    indexed: Session | None = None
    """The session ``features`` were taken of."""
    loose: bool = False
    """An unterminated line that is not a JSON object follows ``offset`` (not fed; counted
    in ``session.skipped_lines``)."""
    stamp: tuple[_Stat | None, ...] = ()
    """For a session kept in a database: its store files as they were before it was read
    (``None`` for one that did not exist); empty for a session file."""


class SessionCache:
    """Parsed sessions kept between calls, each brought up to date incrementally.

    Args:
        maxsize: how many session files to keep (least recently used first out; ≥ 1).

    Raises:
        ValueError: ``maxsize`` is below 1.
    """

    def __init__(self, maxsize: int = DEFAULT_MAXSIZE) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, not {maxsize}")
        self._maxsize = maxsize
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """The number of session files held."""
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        """Forget every session."""
        with self._lock:
            self._entries.clear()

    def get_indexed(self, path: Path, cli: CliName | None = None) -> Indexed:
        """:meth:`get`, with the session's :class:`~driftguard.scoring.features.Features`
        (what the factors read), kept up to date as the file grows: a grown file costs the
        features of its new messages only, an unchanged one nothing.

        Raises:
            SessionFormatError: as :meth:`get`.
            UnknownNameError: as :meth:`get`.
        """
        with self._lock, bulk_reading():
            session = self._get(path, cli)
            entry = self._entries[os.path.realpath(path)]
            if entry.indexed is not entry.session or entry.features is None:
                if entry.index is None:
                    entry.index = FeatureIndex()
                entry.features = entry.index.sync(entry.session.messages)
                entry.indexed = entry.session
            return Indexed(session, entry.features)

    def get(self, path: Path, cli: CliName | None = None) -> Session:
        """The session in ``path`` as it is now: equal to ``parse_session(path, cli)``.

        Args:
            path: the session file (``.jsonl``, ``.json`` or ``.jsonl.zst``).
            cli: the CLI that wrote it; detected from the content when ``None``.

        Returns:
            The parsed session; the very same object as the previous call for the same
            ``path`` when the file has not changed since.

        Raises:
            SessionFormatError: the path is missing, a directory, unreadable, of no
                supported format, or its content is plainly another CLI's than ``cli``.
            UnknownNameError: ``cli`` is not a supported CLI name.
        """
        with self._lock, bulk_reading():
            return self._get(path, cli)

    def _get(self, path: Path, cli: CliName | None) -> Session:
        """:meth:`get` under the lock; the entry is the most recent one afterwards."""
        if cli is not None:
            get_adapter(cli)  # an unknown name is refused before anything is read
        key = os.path.realpath(path)
        entry = self._entries.get(key)
        try:
            entry = _refresh(entry, path, cli)
        except BaseException:
            self._entries.pop(key, None)
            raise
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self._maxsize:
            self._entries.popitem(last=False)
        if entry.given != str(path):
            return dataclasses.replace(entry.session, path=str(path))
        return entry.session


def _refresh(entry: _Entry | None, path: Path, cli: CliName | None) -> _Entry:
    """``entry`` brought up to date with the file, or a new entry read from the start.

    Raises:
        SessionFormatError: as :meth:`SessionCache.get`.
        SessionNotFoundError: a locator names a session its store does not hold.
    """
    store = locator_adapter(path, cli)
    if store is not None:
        return _refresh_store(entry, path, store, explicit=cli is not None)
    try:
        found: os.stat_result | None = os.stat(path)
    except OSError:
        found = None
    if found is None or not stat.S_ISREG(found.st_mode):
        raise not_a_session_file(path)
    now = _Stat.of(found)
    if entry is not None and cli is not None and cli != entry.cli:
        entry = None  # asked to read it as another CLI's file
    try:
        if entry is not None and _still_current(entry, path, now):
            return entry
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    if cli is None and entry is not None and entry.explicit:
        cli = entry.cli
    return _start(path, cli)


def _store_stat(file: Path) -> _Stat | None:
    """A store file as it is now; ``None`` when it is missing or empty (an empty
    write-ahead log holds nothing: SQLite makes one when a reader opens a database no
    process has open, and that changes no session)."""
    now = _Stat.now(file)
    return now if now is not None and now.size > 0 else None


_NO_FILE = _Stat(0, 0, -1, 0)
"""The ``stat`` of an entry whose session has no file of its own (a database's)."""


def _refresh_store(entry: _Entry | None, path: Path, adapter: Adapter, *, explicit: bool) -> _Entry:
    """``entry`` while the store files of the session ``path`` are unchanged, else the
    session read again whole (module doc).

    Raises:
        SessionFormatError: the store cannot be read.
        SessionNotFoundError: it no longer holds the session.
    """
    stamp = tuple(_store_stat(file) for file in adapter.store_files(path))
    if entry is not None and entry.cli == adapter.name and entry.stamp == stamp:
        return entry
    return _Entry(
        given=str(path),
        cli=adapter.name,
        explicit=explicit,
        stat=stamp[0] if stamp and stamp[0] is not None else _NO_FILE,
        session=adapter.parse(path),
        stamp=stamp,
    )


def _still_current(entry: _Entry, path: Path, now: _Stat) -> bool:
    """Bring ``entry`` up to date with the file if it can be (module doc); ``False`` when
    the file must be read again from the start.

    Raises:
        OSError: the file cannot be opened or read.
    """
    if entry.parser is None:
        if now != entry.stat:
            return False
        with path.open("rb") as stream:
            size = entry.stat.size
            return _digests(stream, size, size) == (entry.head, entry.tail)
    if entry.offset == 0:
        return now == entry.stat  # nothing read yet: nothing to fingerprint
    if not _resumable(entry, now):
        return False
    with path.open("rb") as stream:
        current = _Stat.of(os.fstat(stream.fileno()))
        if _same_prefix(entry, stream, current) and _advance(entry, stream, current):
            entry.stat = current
            return True
    return False


def _start(path: Path, cli: CliName | None) -> _Entry:
    """Read ``path`` from its first byte into a new entry (``cli`` detected when ``None``).

    Raises:
        SessionFormatError: unreadable, or no supported format.
    """
    adapter = get_adapter(resolve_cli(path, cli))
    try:
        with path.open("rb") as stream:
            current = _Stat.of(os.fstat(stream.fileno()))
            compressed = stream.read(len(ZSTD_MAGIC)) == ZSTD_MAGIC
            parser = None if compressed else adapter.line_parser(path)
            if parser is None:
                head, tail = _digests(stream, current.size, current.size)
            else:
                entry = _Entry(
                    given=str(path),
                    cli=adapter.name,
                    explicit=cli is not None,
                    stat=current,
                    session=parser.session(),
                    parser=parser,
                )
                _advance(entry, stream, current)
                return entry
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    # Not resumable by lines: the adapter reads the whole file. The stat taken before it
    # ran makes the next call parse again if the file changed meanwhile.
    return _Entry(
        given=str(path),
        cli=adapter.name,
        explicit=cli is not None,
        stat=current,
        session=adapter.parse(path),
        head=head,
        tail=tail,
    )


def _resumable(entry: _Entry, now: _Stat) -> bool:
    """Whether ``entry`` can be brought up to ``now`` by reading on from its offset."""
    return (
        entry.offset > 0
        and (now.dev, now.ino) == (entry.stat.dev, entry.stat.ino)
        and now.size >= entry.offset + len(entry.pending or b"")
    )


def _digests(stream: IO[bytes], offset: int, line_start: int) -> tuple[bytes, bytes]:
    """sha256 of the first ``FINGERPRINT_BYTES`` bytes before ``offset``, and of the
    stretch from ``min(line_start, offset − FINGERPRINT_BYTES)`` to ``offset``."""
    stream.seek(0)
    head = hashlib.sha256(stream.read(min(offset, FINGERPRINT_BYTES))).digest()
    start = max(0, min(line_start, offset - FINGERPRINT_BYTES))
    stream.seek(start)
    tail = hashlib.sha256(stream.read(offset - start)).digest()
    return head, tail


def _same_prefix(entry: _Entry, stream: IO[bytes], current: _Stat) -> bool:
    """Whether the bytes already read are still there (same fingerprint, still as long)."""
    if (current.dev, current.ino) != (entry.stat.dev, entry.stat.ino):
        return False
    if current.size < entry.offset + len(entry.pending or b""):
        return False
    return _digests(stream, entry.offset, entry.line_start) == (entry.head, entry.tail)


def _advance(entry: _Entry, stream: IO[bytes], current: _Stat) -> bool:
    """Feed the whole lines between ``entry.offset`` and ``current.size``; settle the tail.

    Returns ``False`` (the entry is then unusable) when a speculatively fed tail turned
    out different: the caller re-reads the file from the start.
    """
    parser = entry.parser
    assert parser is not None
    feed = parser.feed
    start = entry.offset
    pending = entry.pending
    fed = False
    stream.seek(start)
    # Bytes written after the stat are left for the next call.
    reader = LineBlocks(stream, limit=current.size - start)
    for lines in reader:
        if pending is not None:
            # The speculatively fed line: its newline has arrived, its bytes must not change.
            if lines[0] != pending.rstrip(b"\r"):
                return False
            pending = None
            lines = lines[1:]
        for line in lines:
            feed(line)
        fed = fed or bool(lines)
    tail = reader.tail
    position = start + reader.end
    line_start = start + reader.last_start if reader.end else entry.line_start
    if pending is not None and tail != pending:
        return False  # the speculative line changed before its newline came
    skipped_tail = False
    if pending is None and tail.strip():
        if load_object(tail) is not None:
            parser.feed(tail, False)
            fed = True
            pending = tail
        else:
            skipped_tail = True  # what every adapter does with such a line: count it
    if position != entry.offset:
        entry.head, entry.tail = _digests(stream, position, line_start)
    entry.offset = position
    entry.line_start = line_start
    entry.pending = pending
    if fed or entry.base is None or skipped_tail != entry.loose:
        if fed or entry.base is None:
            entry.base = parser.session()
        base = entry.base
        if skipped_tail:
            entry.session = dataclasses.replace(base, skipped_lines=base.skipped_lines + 1)
        else:
            entry.session = base
        entry.loose = skipped_tail
    return True
