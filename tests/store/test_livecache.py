"""The live cache of the hooks and the atomic writes behind it."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

import pytest

from driftguard import paths
from driftguard._fileio import read_json_object, write_atomic, write_json_atomic
from driftguard.store import livecache
from driftguard.store.livecache import LiveStatus


def _status(
    session_id: str = "0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5", score: int = 33
) -> LiveStatus:
    return LiveStatus(
        session_id=session_id,
        cli="claude_code",
        transcript_path="/home/dev/t.jsonl",
        transcript_size=2048,
        ts=1_700_000_000.5,
        score=score,
        state="warming",
        factors={"context_saturation": 20.1, "repetition": 44.0, "goal_distance": None},
        messages=12,
        context_tokens=50_000,
        context_window=200_000,
        tokens_estimated=False,
        handoff_suggested=False,
        warn_threshold=60,
    )


def test_an_atomic_write_replaces_the_file_by_rename_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    target = tmp_path / "deep" / "state.json"
    write_atomic(target, b"old\n")
    first_inode = target.stat().st_ino
    write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_ino != first_inode  # a new file renamed over the old one
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json"]


def test_a_failed_atomic_write_keeps_the_old_content_and_removes_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, b"old\n")

    def full_disk(_fd: int, _data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_cache_files_are_private_to_the_user() -> None:
    written = livecache.write_status(_status())
    assert written.stat().st_mode & 0o777 == 0o600
    assert paths.cache_dir().stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("content", [b"", b"{not json", b"[1]", b"\xff\xfe"])
def test_reading_a_corrupt_json_file_gives_none(tmp_path: Path, content: bytes) -> None:
    target = tmp_path / "bad.json"
    target.write_bytes(content)
    assert read_json_object(target) is None


def test_a_status_round_trips_through_its_cache_file() -> None:
    status = _status()
    path = livecache.write_status(status)
    assert path == paths.cache_dir() / f"{status.session_id}.json"
    assert livecache.read_status(status.session_id) == status


def test_a_status_of_another_version_or_with_a_wrong_field_reads_as_none() -> None:
    status = _status()
    record = status.to_record()
    write_json_atomic(livecache.status_path(status.session_id), {**record, "v": 2})
    assert livecache.read_status(status.session_id) is None
    write_json_atomic(livecache.status_path(status.session_id), {**record, "score": "high"})
    assert livecache.read_status(status.session_id) is None
    write_json_atomic(livecache.status_path(status.session_id), {**record, "score": True})
    assert livecache.read_status(status.session_id) is None


def test_an_unusual_session_id_becomes_one_plain_file_name() -> None:
    key = livecache.session_key("../../etc/passwd")
    assert key.startswith("h-")
    assert len(key) == 34
    assert "/" not in key
    assert livecache.session_key("0f6c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5").startswith("0f6c")
    status = _status(session_id="../../etc/passwd")
    assert livecache.write_status(status).parent == paths.cache_dir()
    assert livecache.read_status("../../etc/passwd") == status


def test_the_warning_state_defaults_to_not_warned_and_round_trips() -> None:
    assert livecache.read_warned("s1") is False
    livecache.write_warned("s1", True, 65)
    assert livecache.read_warned("s1") is True
    livecache.write_warned("s1", False, 40)
    assert livecache.read_warned("s1") is False


def test_the_host_window_is_written_only_when_it_changes() -> None:
    assert livecache.read_host_window("s1") is None
    assert livecache.write_host_window("s1", 1_000_000) is True
    assert livecache.write_host_window("s1", 1_000_000) is False
    assert livecache.write_host_window("s1", 200_000) is True
    assert livecache.read_host_window("s1") == 200_000
    assert livecache.write_host_window("s1", 0) is False
    assert json.loads(livecache.host_path("s1").read_text())["context_window"] == 200_000


def test_prune_removes_only_old_cache_files() -> None:
    old = livecache.write_status(_status("old-session"))
    livecache.write_warned("old-session", True, 70)
    fresh = livecache.write_status(_status("fresh-session"))
    stranger = paths.cache_dir() / "notes.txt"
    stranger.write_text("not ours", encoding="utf-8")
    long_ago = time.time() - 40 * 86_400
    for path in (old, livecache.warn_path("old-session"), stranger):
        os.utime(path, (long_ago, long_ago))
    assert livecache.prune(30) == 2
    assert sorted(p.name for p in paths.cache_dir().iterdir()) == [
        fresh.name,
        "notes.txt",
    ]


def test_a_status_is_current_until_a_file_it_was_scored_with_is_created_edited_or_removed(
    tmp_path: Path,
) -> None:
    config, goal = tmp_path / ".driftcli", tmp_path / "goal.json"
    goal.write_text('{"goal": "a"}', "utf-8")
    files = (str(config), str(goal))
    status = dataclasses.replace(
        _status(), input_files=files, inputs=livecache.inputs_digest(files)
    )
    livecache.write_status(status)
    read = livecache.read_status(status.session_id)
    assert read == status
    assert livecache.is_current(read)
    config.write_text("{}", "utf-8")  # created
    assert not livecache.is_current(status)
    status = dataclasses.replace(status, inputs=livecache.inputs_digest(files))
    goal.write_text('{"goal": "b"}', "utf-8")  # edited, same size
    assert not livecache.is_current(status)
    status = dataclasses.replace(status, inputs=livecache.inputs_digest(files))
    goal.unlink()  # removed
    assert not livecache.is_current(status)
    assert not livecache.is_current(_status())  # a record that lists none
