"""Time reading a project's newest Cursor chat from a large ``state.vscdb``, for each way
of opening it: the key lookups must stay fast whether Cursor is closed or holds the
write-ahead log, and the way chosen must leave Cursor's folder as found. Not a unit test.

Usage: ``python benchmarks/bench_cursor.py [--megabytes 500] [--wal-megabytes 20]
[--runs 5] [--keep DIR]``

A synthetic Cursor ``User`` folder is built (the layout and schema of
``adapters/cursor/README.md``, as ``tests/cursor_home.py`` builds it): a global database in
WAL mode holding ``--megabytes`` of chats (``composerData:<id>`` and ~2 kB
``bubbleId:<id>:<n>`` rows), ``composer.composerHeaders`` listing every chat, and one
workspace whose list names the project's 50 chats. Then, for each case, the real read path
— ``ADAPTER.newest(project)`` (both lists, then the newest chats' ``composerData``) and
``ADAPTER.parse(locator)`` (the chat and its bubbles) — runs ``--runs`` times after one
warm-up, in fresh connections as ``driftguard score`` opens them, the cases of one state
taking turns; the median, fastest and slowest wall-clock times are printed, with what the
case left beside the database.

Cases:

- ``closed``: no ``-wal`` (Cursor quit); opened ``immutable=1`` (what ``_store`` does);
- ``closed, mode=ro``: the same file opened as a plain read-only reader (what ``_store`` did
  before): SQLite creates ``-wal`` and ``-shm`` (removed again after each run here);
- ``held``: a writer process holds the database open in WAL mode with
  ``--wal-megabytes`` of committed frames not checkpointed (Cursor running); opened
  ``mode=ro&readonly_shm=1`` (what ``_store`` does);
- ``held, mode=ro``: the same, opened as a plain reader (which may write the ``-shm``);
- ``killed, no usable -shm``: the writer killed and its ``-shm`` zeroed, so the reader
  builds a private index of the whole log (the slowest ``readonly_shm`` read);
- ``held, copied``: the database and its log copied to a private folder first, then read
  there as a plain reader (copy time included).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
)
BUBBLES = 100
"""Bubbles per chat."""
BUBBLE_TEXT = 2_000
"""Characters of each bubble's text."""
BUBBLE_ROW_BYTES = 4_200
"""Bytes a bubble row takes in the file (its ~2.1 kB of JSON spill to an overflow page of
SQLite's 4 KiB pages), to size the database."""
PROJECT_CHATS = 50
"""Chats the project's workspace lists (the newest is read)."""
BASE_MS = 1_790_000_000_000


def _bubble(composer: int, n: int) -> str:
    text = (f"chat {composer} message {n}: " + "lorem ipsum dolor sit amet " * 80)[:BUBBLE_TEXT]
    return json.dumps({"_v": 3, "type": 1 if n % 2 == 0 else 2, "bubbleId": f"b{n}", "text": text})


def _composer(composer: int) -> str:
    return json.dumps(
        {
            "_v": 10,
            "composerId": f"c{composer:06d}",
            "createdAt": BASE_MS,
            "lastUpdatedAt": BASE_MS + composer * 1000,
            "fullConversationHeadersOnly": [
                {"bubbleId": f"b{n}", "type": 1 if n % 2 == 0 else 2} for n in range(BUBBLES)
            ],
            "conversationMap": {},
            "modelConfig": {"modelName": "claude-4.5-sonnet"},
        }
    )


def build(user: Path, project: Path, megabytes: float) -> tuple[Path, int]:
    """The Cursor ``User`` folder and the number of chats in its global database."""
    import sqlite3

    db = user / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    composers = max(PROJECT_CHATS, int(megabytes * 1_000_000 / (BUBBLES * BUBBLE_ROW_BYTES)))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    for statement in SCHEMA:
        conn.execute(statement)
    for composer in range(composers):
        rows = [(f"composerData:c{composer:06d}", _composer(composer))]
        rows += [(f"bubbleId:c{composer:06d}:b{n}", _bubble(composer, n)) for n in range(BUBBLES)]
        conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
        if composer % 200 == 0:
            conn.commit()
    heads = [
        {"composerId": f"c{c:06d}", "lastUpdatedAt": BASE_MS + c * 1000, "type": "head"}
        for c in range(composers)
    ]
    for entry in heads[-PROJECT_CHATS:]:
        entry["workspaceIdentifier"] = {"id": "w" * 32, "uri": {"fsPath": str(project)}}
    conn.execute(
        "INSERT INTO ItemTable VALUES ('composer.composerHeaders', ?)",
        (json.dumps({"allComposers": heads}),),
    )
    conn.commit()
    conn.close()
    workspace = user / "workspaceStorage" / ("w" * 32)
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text(json.dumps({"folder": project.as_uri()}))
    conn = sqlite3.connect(workspace / "state.vscdb")
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO ItemTable VALUES ('composer.composerData', ?)",
        (json.dumps({"allComposers": heads[-PROJECT_CHATS:]}),),
    )
    conn.commit()
    conn.close()
    return user, composers


WRITER = """
import sqlite3, sys, os, json
db, megabytes, then = sys.argv[1], float(sys.argv[2]), sys.argv[3]
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint = 0")
written, n = 0, 0
while written < megabytes * 1_000_000:
    conn.execute("BEGIN IMMEDIATE")
    for _ in range(50):
        key = f"bubbleId:c{n % 1000:06d}:b{n // 1000 % 100}"
        value = json.dumps({"_v": 3, "type": 2, "bubbleId": "x", "text": "y" * 2000})
        conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, value))
        written += 2100
        n += 1
    conn.execute("COMMIT")
if then == "kill":
    os._exit(0)
print("holding", flush=True)
sys.stdin.read()
conn.close()
"""


@contextmanager
def writer_holding(db: Path, megabytes: float) -> Iterator[None]:
    """A process holding ``db`` open in WAL mode, its commits not checkpointed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(megabytes), "hold"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "holding":
        raise SystemExit("the writer did not start")
    try:
        yield
    finally:
        proc.communicate("", timeout=600)


def beside(db: Path) -> str:
    """The files beside ``db`` (``-wal``/``-shm``) with their sizes."""
    found = [
        f"{p.name.removeprefix(db.name)} {p.stat().st_size // 1024} KiB"
        for p in sorted(db.parent.iterdir())
        if p.name != db.name
    ]
    return ", ".join(found) or "nothing"


def read_path(project: Path) -> Callable[[], tuple[float, float, int]]:
    """The read ``driftguard score --cli cursor`` makes: find the newest chat, then parse
    it. Returns (seconds to find, seconds to parse, messages)."""
    from driftguard.adapters._scan import ProjectPaths
    from driftguard.adapters.cursor import ADAPTER

    def run() -> tuple[float, float, int]:
        started = time.perf_counter()
        found = ADAPTER.newest(ProjectPaths.of(project))
        middle = time.perf_counter()
        assert found is not None
        session = ADAPTER.parse(found.path)
        return middle - started, time.perf_counter() - middle, session.message_count

    return run


Case = tuple[str, Callable[[Path], str], Callable[[], None]]
"""A case: its label, how ``_store`` opens a database in it, what to undo after a run."""


def measure(cases: list[Case], runs: int, db: Path) -> None:
    """Run the read path for each case in turn, ``runs`` rounds after one warm-up round
    (interleaved, so that a drift of the machine or its page cache hits every case alike),
    and print a row per case."""
    from driftguard.adapters.cursor import _store

    run = read_path(Path(os.environ["BENCH_PROJECT"]))
    chosen = _store.open_uri
    times: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in cases}
    left: dict[str, str] = {}
    messages = 0
    try:
        for round_ in range(runs + 1):
            for label, open_uri, after in cases:
                _store.open_uri = open_uri  # type: ignore[assignment]
                find, parse, messages = run()
                left[label] = beside(db)
                after()
                if round_:
                    times[label].append((find, parse))
    finally:
        _store.open_uri = chosen
    for label, _, _ in cases:
        finds = [find for find, _ in times[label]]
        parses = [parse for _, parse in times[label]]
        totals = [find + parse for find, parse in times[label]]
        ms = [
            statistics.median(finds),
            statistics.median(parses),
            statistics.median(totals),
            min(totals),
            max(totals),
        ]
        cells = " ".join(f"{value * 1000:>8.1f}" for value in ms)
        print(f"{label:<28} {cells} {messages:>5}  left beside: {left[label]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=500)
    parser.add_argument("--wal-megabytes", type=float, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the Cursor folder here and keep it")
    args = parser.parse_args()

    from driftguard.adapters.cursor import _store

    folder = args.keep or Path(tempfile.mkdtemp(prefix="driftguard-bench-cursor-"))
    project = folder / "project"
    project.mkdir(parents=True, exist_ok=True)
    user = folder / "User"
    db = user / "globalStorage" / "state.vscdb"
    if not db.exists():
        started = time.perf_counter()
        _, composers = build(user, project, args.megabytes)
        print(f"built {composers} chats in {time.perf_counter() - started:.0f} s")
    os.environ["DRIFTGUARD_CURSOR_USER_DIR"] = str(user)
    os.environ["DRIFTGUARD_HOME"] = str(folder / "state")
    import sqlite3

    print(
        f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, "
        f"{os.cpu_count()} cores; {db} {db.stat().st_size / 1e6:.0f} MB"
    )
    print(
        f"{'case':<28} {'find ms':>8} {'parse ms':>8} {'total':>8} {'min':>8} {'max':>8} "
        f"{'msgs':>5}"
    )
    os.environ["BENCH_PROJECT"] = str(project)
    new_uri = _store.open_uri

    def plain(path: Path) -> str:
        return path.absolute().as_uri() + "?mode=ro"

    def nothing() -> None:
        pass

    def remove_sidecars() -> None:
        for suffix in ("-wal", "-shm"):
            db.with_name(db.name + suffix).unlink(missing_ok=True)

    measure(
        [("closed", new_uri, nothing), ("closed, mode=ro", plain, remove_sidecars)], args.runs, db
    )
    with writer_holding(db, args.wal_megabytes):
        print(f"(writer holding {beside(db)})")
        scratch = Path(tempfile.mkdtemp(prefix="driftguard-cursor-copy-"))

        def copied(path: Path) -> str:
            if path != db:
                return new_uri(path)
            target = scratch / path.name
            if not target.exists():
                for suffix in ("", "-wal"):
                    source = path.with_name(path.name + suffix)
                    shutil.copyfile(source, scratch / source.name)
            return target.absolute().as_uri() + "?mode=ro"

        def fresh_copy() -> None:
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.mkdir()

        measure([("held", new_uri, nothing), ("held, mode=ro", plain, nothing)], args.runs, db)
        # apart: a 500 MB copy evicts the page cache the case after it would read from
        measure([("held, copied", copied, fresh_copy)], args.runs, db)
        shutil.rmtree(scratch, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-c", WRITER, str(db), str(args.wal_megabytes), "kill"], check=True
    )
    shm = db.with_name(db.name + "-shm")
    shm.write_bytes(b"\0" * shm.stat().st_size)
    print(f"(writer killed, -shm zeroed: {beside(db)})")
    measure([("killed, no usable -shm", new_uri, nothing)], args.runs, db)
    checkpoint = sqlite3.connect(db)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpoint.close()
    remove_sidecars()


if __name__ == "__main__":
    main()
