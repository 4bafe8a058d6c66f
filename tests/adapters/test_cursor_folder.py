"""Cursor's folder is left as found: scoring a project's Cursor chat creates, writes and
removes nothing beside Cursor's databases — whether Cursor is closed (no ``-wal``), holds
the write-ahead log open in another process with committed frames not yet checkpointed
and a write transaction in progress, or was killed with frames still in its log.

Each test drives ``driftguard score --cli cursor --project …`` (the real read path:
finding the project's chats in the workspace and global databases, then reading the
newest) and compares every file of the ``globalStorage`` and workspace folders — their
names, sizes, mtimes in ns and contents — and the folders' own mtimes before and after. A writer
runs in its own process, as Cursor does: connections of one process share SQLite's
in-memory view of the ``-shm``, which would hide a reader's writes to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cursor_home import CursorHome, ai_bubble, head, user_bubble

from driftguard.adapters.cursor._store import open_uri
from driftguard.cli import main

Snapshot = dict[str, tuple[int, int, str]]
"""A folder's state: each entry's name → (size in bytes, mtime in ns, sha256 of its
content); the folder itself under ``"."``. The content counts too: a write through a
shared memory map (a reader's mark in the ``-shm``) need not move the mtime."""


def snapshot(*folders: Path) -> Snapshot:
    found: Snapshot = {}
    for folder in folders:
        found[f"{folder}/."] = (0, os.stat(folder).st_mtime_ns, "")
        for entry in os.scandir(folder):
            info = entry.stat(follow_symlinks=False)
            digest = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
            found[entry.path] = (info.st_size, info.st_mtime_ns, digest)
    return found


def chat_rows(prefix: str) -> list[dict[str, Any]]:
    return [
        user_bubble(f"{prefix}u1", "Add --quiet to the CLI.", 0),
        ai_bubble(f"{prefix}a1", "I added --quiet in cli.py and a test for it.", 1),
    ]


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> CursorHome:
    monkeypatch.setattr("sys.platform", "linux")
    return CursorHome(isolated_home / ".config" / "Cursor" / "User")


@pytest.fixture
def project(home: CursorHome, tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "app"
    folder.mkdir(parents=True)
    home.add_chat("app-chat", chat_rows("c"), updated_s=20)
    home.add_workspace(folder, [head("app-chat", 20)])
    return folder


def folders(home: CursorHome) -> tuple[Path, ...]:
    return (home.global_db.parent, *sorted((home.user / "workspaceStorage").iterdir()))


WRITER = textwrap.dedent(
    """
    import json, os, sqlite3, sys
    db, mode = sys.argv[1], sys.argv[2]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint = 0")  # Cursor's frames stay in the log
    key = "composerData:app-chat"
    data = json.loads(conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,))
                      .fetchone()[0])
    late = {"_v": 3, "type": 1, "bubbleId": "late", "text": "Committed, in the log only.",
            "createdAt": "2026-09-21T10:00:09.000Z"}
    data["fullConversationHeadersOnly"].append({"bubbleId": "late", "type": 1})
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:app-chat:late', ?)",
                 (json.dumps(late),))
    conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, json.dumps(data)))
    conn.execute("COMMIT")
    if mode == "killed":
        os._exit(0)  # no checkpoint, no clean close: the log and its index stay behind
    if mode == "writing":
        pending = dict(late, bubbleId="pending", text="Not committed yet.")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:app-chat:pending', ?)",
                     (json.dumps(pending),))
    # "idle": the connection open between writes, no reader's mark at the newest frame yet
    print("holding", flush=True)
    sys.stdin.read()
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    conn.close()
    """
)


@pytest.fixture(params=["writing", "idle"])
def cursor_holding_the_log(
    home: CursorHome, project: Path, request: pytest.FixtureRequest
) -> Iterator[subprocess.Popen[str]]:
    """Cursor, in another process, its connection open: a committed message in the log
    (not checkpointed), and either a write transaction open ("writing") or none
    ("idle": the log's newest frame has no reader's mark, so a reader that may write the
    ``-shm`` would write one)."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home.global_db), request.param],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "holding"
    yield writer
    writer.communicate("", timeout=30)


def score(project: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["score", "--cli", "cursor", "--project", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert isinstance(report, dict)
    return report


def test_scoring_while_cursor_is_closed_creates_nothing_beside_its_databases(
    home: CursorHome, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not home.global_db.with_name("state.vscdb-wal").exists()
    before = snapshot(*folders(home))
    report = score(project, capsys)
    assert report["session"]["session_id"] == "app-chat"
    assert report["messages"] == 2
    assert snapshot(*folders(home)) == before


def test_scoring_while_cursor_holds_the_log_reads_its_commits_and_leaves_the_folder_as_found(
    home: CursorHome,
    project: Path,
    cursor_holding_the_log: subprocess.Popen[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    wal = home.global_db.with_name("state.vscdb-wal")
    assert wal.stat().st_size > 0  # the committed message is in the log, not the file
    assert open_uri(home.global_db).endswith("?mode=ro&readonly_shm=1")
    before = snapshot(*folders(home))
    report = score(project, capsys)
    assert report["messages"] == 3  # the committed message, not the pending one
    assert snapshot(*folders(home)) == before
    report = score(project, capsys)  # a second read finds no read mark of its own either
    assert report["messages"] == 3
    assert snapshot(*folders(home)) == before


def test_a_log_cursor_left_behind_when_killed_is_read_without_touching_it(
    home: CursorHome, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subprocess.run(
        [sys.executable, "-c", WRITER, str(home.global_db), "killed"], check=True, timeout=30
    )
    assert home.global_db.with_name("state.vscdb-wal").stat().st_size > 0
    assert home.global_db.with_name("state.vscdb-shm").exists()
    before = snapshot(*folders(home))
    assert score(project, capsys)["messages"] == 3
    assert snapshot(*folders(home)) == before


def test_a_log_with_changes_but_no_index_is_refused_rather_than_read_stale_or_completed(
    home: CursorHome, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subprocess.run(
        [sys.executable, "-c", WRITER, str(home.global_db), "killed"], check=True, timeout=30
    )
    home.global_db.with_name("state.vscdb-shm").unlink()
    before = snapshot(*folders(home))
    assert main(["score", "--cli", "cursor", "--project", str(project), "--json"]) == 2
    err = capsys.readouterr().err
    assert "state.vscdb-wal holds changes but no state.vscdb-shm lies beside it" in err
    assert "Start and quit Cursor once" in err
    assert snapshot(*folders(home)) == before


def test_an_empty_log_without_its_index_is_read_as_no_log(
    home: CursorHome, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home.global_db.with_name("state.vscdb-wal").write_bytes(b"")
    before = snapshot(*folders(home))
    assert open_uri(home.global_db).endswith("?mode=ro&immutable=1")
    assert score(project, capsys)["messages"] == 2
    assert snapshot(*folders(home)) == before


def test_a_rollback_journal_database_is_opened_as_an_ordinary_read_only_reader(
    home: CursorHome, project: Path
) -> None:
    [workspace] = folders(home)[1:]
    assert open_uri(workspace / "state.vscdb").endswith("/state.vscdb?mode=ro")
