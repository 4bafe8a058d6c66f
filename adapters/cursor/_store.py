"""Read-only, key-lookup-only access to Cursor's SQLite state databases (``state.vscdb``).

Both tables are ``(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`` key-value stores
(schema as dumped by michaeldhood/chatrxiv ``docs/cursor/storage-reference.md`` and
jdconley/deadhand ``docs/reverse-engineering/cursor-storage.md``); the ``UNIQUE`` constraint
gives each an index on ``key`` (``sqlite_autoindex_<table>_1``), which every query here uses.

Rules this module enforces (docs/formats.md §D):

- **Read only, and Cursor's folder left as found.** Nothing is written to the database,
  and nothing is created, written or removed beside it: no ``-wal``, no ``-shm``, no
  journal. The connection is read-only with ``PRAGMA query_only``; how the file is opened
  depends on what lies beside it (:func:`open_uri`; SQLite "Write-Ahead Logging" §§ 8-9,
  https://www.sqlite.org/wal.html, and "URI Filenames", https://www.sqlite.org/uri.html):

  - a rollback-journal database (header bytes 18-19 = 1): ``mode=ro``. A reader takes a
    shared lock and creates nothing.
  - a WAL database with no ``-wal`` (Cursor is not running: its last connection
    checkpointed the log and deleted it), or with an empty ``-wal`` and no ``-shm``:
    ``mode=ro&immutable=1``. Every committed page is in the file. A plain ``mode=ro``
    reader would create an empty ``-wal`` and a 32 KiB ``-shm`` here and leave them
    behind: SQLite opens the log and the index ``O_RDWR|O_CREAT`` whatever the
    connection's mode.
  - a WAL database with a ``-wal`` and a ``-shm`` (Cursor is running, or stopped without
    checkpointing): ``mode=ro&readonly_shm=1``. The reader sees every committed frame of
    the log; it maps the ``-shm`` read-only, so it never writes a read mark or rebuilds
    the index there (with no usable mark it builds a private index from the log in its own
    memory). ``immutable=1`` is never used here: it ignores the log, and would miss what
    Cursor committed since its last checkpoint.
  - a WAL database whose ``-wal`` holds frames but has no ``-shm``: refused. SQLite cannot
    open the log without an index it may create, and reading without the log would give
    a stale chat as if it were current.

  Two races are left: Cursor starting between the look and the open (an ``immutable``
  read then takes no lock; a checkpoint running during the read, which copies pages into
  the file, could make it fail as malformed — the next read sees the ``-wal`` and reads as
  a reader), and Cursor quitting between them (SQLite would create an empty ``-wal`` and
  fail to open the deleted ``-shm``; an empty ``-wal`` is then read as no log). Run as
  root, SQLite gives the ``-wal``/``-shm`` it opens their database's owner (an ``fchown``
  to the owner they have: their ctime changes, not their content or mtime).
- **Short read transactions.** :class:`StateDb` is one ``BEGIN … COMMIT`` on one connection
  that is closed on exit, so every value comes from one consistent snapshot and no lock or
  snapshot outlives the read. In WAL mode (how Cursor runs its store) a reader never blocks
  Cursor's writer; in rollback-journal mode the shared lock lasts as long as the read.
- **Key lookups only.** Every statement is ``… WHERE key = ?`` or ``… WHERE key IN (?, …)``,
  and before its first run on a connection its ``EXPLAIN QUERY PLAN`` must show an index
  search: a table without the ``key`` index is refused rather than scanned (these databases
  reach tens of GB).
- **Only the keys a chat needs.** ``ItemTable`` is read at exactly the keys in
  :data:`ITEM_KEYS`; ``cursorDiskKV`` only at keys with a prefix in :data:`KV_PREFIXES`. The
  authentication entries Cursor keeps in ``ItemTable`` (``cursorAuth/…``) are never selected.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Final, Literal

from driftguard.errors import SessionFormatError

__all__ = [
    "BATCH_KEYS",
    "BUSY_TIMEOUT",
    "ITEM_KEYS",
    "KV_PREFIXES",
    "StateDb",
    "Table",
    "open_uri",
]

Table = Literal["cursorDiskKV", "ItemTable"]

ITEM_KEYS: Final = frozenset({"composer.composerData", "composer.composerHeaders"})
"""The only ``ItemTable`` keys ever read: a workspace's composer list
(``composer.composerData``) and, in the global database of Cursor ≥ 3.0, the composer
headers that name their workspace (``composer.composerHeaders``)."""

KV_PREFIXES: Final = ("composerData:", "bubbleId:")
"""The only ``cursorDiskKV`` key prefixes ever read: ``composerData:<composerId>`` (one chat)
and ``bubbleId:<composerId>:<bubbleId>`` (one message of it)."""

BUSY_TIMEOUT: Final = 2.0
"""Seconds to wait for a lock before giving up (a WAL reader only waits during recovery, or
on a rollback-journal database while Cursor commits)."""

BATCH_KEYS: Final = 500
"""Keys looked up per ``IN (…)`` statement (below SQLite's 999 bound variables before 3.32)."""

_LOOKUP: Final[dict[Table, str]] = {
    "cursorDiskKV": "SELECT value FROM cursorDiskKV WHERE key = ?",
    "ItemTable": "SELECT value FROM ItemTable WHERE key = ?",
}


_HEADER: Final = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file ("Database File Format" §1.3.1,
https://www.sqlite.org/fileformat2.html)."""


def _is_wal_database(path: Path) -> bool:
    """Whether ``path``'s header says WAL: its file format write and read versions (bytes
    18 and 19) are 2, not the rollback journal's 1 (fileformat2.html §1.3.3). Reads 20
    bytes; a file too short or not SQLite is left for SQLite to refuse.

    Raises:
        OSError: the file cannot be opened or read.
    """
    with path.open("rb") as handle:
        header = handle.read(20)
    return header.startswith(_HEADER) and len(header) == 20 and header[18] == header[19] == 2


def _size(path: Path) -> int | None:
    """``path``'s size in bytes, or ``None`` when there is no such file."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None


def open_uri(path: Path) -> str:
    """The ``file:`` URI that opens ``path`` read-only without creating, writing or removing
    anything beside it (the module docstring says which and why): ``?mode=ro`` for a
    rollback-journal database, ``?mode=ro&immutable=1`` for a WAL database without a log
    to read, ``?mode=ro&readonly_shm=1`` for one whose ``-wal`` and ``-shm`` both exist.

    Raises:
        SessionFormatError: the ``-wal`` holds frames and no ``-shm`` lies beside it, or
            the file cannot be read (names the file).
    """
    base = path.absolute().as_uri()
    try:
        wal_mode = _is_wal_database(path)
    except OSError as exc:
        raise SessionFormatError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not wal_mode:
        return f"{base}?mode=ro"
    wal = _size(path.with_name(path.name + "-wal"))
    shm = _size(path.with_name(path.name + "-shm"))
    if wal is not None and shm is not None:
        return f"{base}?mode=ro&readonly_shm=1"
    if not wal:  # no log, or an empty one: every committed page is in the file
        return f"{base}?mode=ro&immutable=1"
    raise SessionFormatError(
        f"cannot read {path}: its write-ahead log {path.name}-wal holds changes but no "
        f"{path.name}-shm lies beside it (Cursor did not quit cleanly); reading the log "
        "would create that file in Cursor's folder, and reading without it would miss "
        "those changes. Start and quit Cursor once, then try again"
    )


def _batch_sql(count: int) -> str:
    return f"SELECT key, value FROM cursorDiskKV WHERE key IN ({', '.join('?' * count)})"


def _check_key(table: Table, key: str) -> None:
    if table == "ItemTable" and key not in ITEM_KEYS:
        raise ValueError(f"ItemTable key {key!r} is not one driftguard reads")
    if table == "cursorDiskKV" and not key.startswith(KV_PREFIXES):
        raise ValueError(f"cursorDiskKV key {key!r} is not one driftguard reads")


class StateDb:
    """One short read-only transaction on one ``state.vscdb``; use as a context manager.

    ::

        with StateDb(path) as db:
            composer = db.get("cursorDiskKV", f"composerData:{composer_id}")

    Values come back as stored (``str`` or ``bytes``; ``None`` for a missing key or a NULL
    value); decoding them is the caller's job.

    Raises (from ``__enter__`` and the lookups):
        SessionFormatError: the file is missing, a folder, not a SQLite database, locked
            beyond :data:`BUSY_TIMEOUT`, unreadable, or lacks the table (or the table's
            ``key`` index) a lookup needs. The message names the file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._planned: set[str] = set()

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> StateDb:
        if not self.path.exists():
            raise SessionFormatError(f"{self.path}: not found")
        if self.path.is_dir():
            raise SessionFormatError(f"{self.path}: a directory, not a Cursor state database")
        uri = open_uri(self.path)
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from exc
        self._conn = conn
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if conn.in_transaction:
                conn.execute("COMMIT" if kind is None else "ROLLBACK")
        except sqlite3.Error:
            pass  # a read transaction has nothing to lose; closing ends it anyway
        finally:
            conn.close()

    # ------------------------------------------------------------------ lookups

    def get(self, table: Table, key: str) -> str | bytes | None:
        """The value stored at ``key`` in ``table``, or ``None`` when there is none.

        Raises:
            SessionFormatError: see the class.
            ValueError: ``key`` is not one this module reads (:data:`ITEM_KEYS`,
                :data:`KV_PREFIXES`): a programming error, never the data's fault.
        """
        _check_key(table, key)
        rows = self._run(table, _LOOKUP[table], (key,))
        value = rows[0][0] if rows else None
        return value if isinstance(value, str | bytes) else None

    def get_many(self, keys: Iterable[str]) -> dict[str, str | bytes]:
        """The ``cursorDiskKV`` values stored at ``keys`` (missing keys and NULL values are
        left out), looked up :data:`BATCH_KEYS` at a time.

        Raises:
            SessionFormatError: see the class.
            ValueError: a key without one of the :data:`KV_PREFIXES`.
        """
        wanted = list(dict.fromkeys(keys))
        for key in wanted:
            _check_key("cursorDiskKV", key)
        found: dict[str, str | bytes] = {}
        for start in range(0, len(wanted), BATCH_KEYS):
            chunk = wanted[start : start + BATCH_KEYS]
            for stored, value in self._run("cursorDiskKV", _batch_sql(len(chunk)), chunk):
                if isinstance(stored, str) and isinstance(value, str | bytes):
                    found[stored] = value
        return found

    # ------------------------------------------------------------------ internals

    def _run(self, table: Table, sql: str, params: Iterable[str]) -> list[tuple[object, ...]]:
        conn = self._conn
        if conn is None:
            raise RuntimeError("StateDb used outside its with-block")
        values = tuple(params)
        try:
            if sql not in self._planned:
                self._require_index(conn, table, sql, values)
                self._planned.add(sql)
            return list(conn.execute(sql, values).fetchall())
        except sqlite3.Error as exc:
            raise self._error(exc, table) from exc

    def _require_index(
        self, conn: sqlite3.Connection, table: Table, sql: str, values: tuple[str, ...]
    ) -> None:
        """Refuse ``sql`` unless SQLite plans it as an index search (never a table scan)."""
        plan = conn.execute(f"EXPLAIN QUERY PLAN {sql}", values).fetchall()
        details = [str(row[-1]) for row in plan]
        if not details or not all(d.startswith("SEARCH") for d in details):
            raise SessionFormatError(
                f"{self.path}: table {table} has no index on key; refusing to scan it "
                f"(plan: {'; '.join(details) or 'none'})"
            )

    def _error(self, exc: sqlite3.Error, table: Table | None = None) -> SessionFormatError:
        text = str(exc)
        if "no such table" in text:
            what = f"has no {table} table" if table else f"lacks a table ({text})"
            return SessionFormatError(f"{self.path} {what}: not a Cursor state database")
        if "locked" in text or "busy" in text:
            return SessionFormatError(
                f"cannot read {self.path}: the database is locked (Cursor may be writing); "
                "try again"
            )
        if "not a database" in text:
            return SessionFormatError(f"{self.path} is not a SQLite database")
        return SessionFormatError(f"cannot read {self.path}: {text}")
