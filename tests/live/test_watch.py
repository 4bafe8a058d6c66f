"""`driftguard watch`: the live dashboard, rendered, followed incrementally, and driven
headless under a pseudo-terminal."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_claude_session

from driftguard.adapters import parse_session
from driftguard.engine.drift import score_session
from driftguard.live.watch import Watcher, WatchTarget, render_frame
from driftguard.presets import load_preset
from driftguard.scoring.trend import compute_trend
from driftguard.sessions.pointers import write_pointer
from driftguard.store.history import HistoryStore, history_key

SESSION_ID = "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"
REPLIES = [
    "The cache key now includes the locale, so French pages no longer show English text.",
    "I split the template loader from the renderer; each is tested on its own.",
    "Stale entries expire after ten minutes; a header lets the CDN do the same.",
    "The benchmark shows a warm page in four milliseconds, down from thirty.",
    "Docs for the new cache settings are in the operations guide.",
]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _grow(path: Path, replies: list[str], project: Path, tmp_path: Path) -> None:
    """Append to ``path`` the turns a longer session has after the ones it holds."""
    longer = write_claude_session(
        tmp_path / "longer.jsonl", replies, cwd=str(project), session_id=SESSION_ID
    )
    current = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(longer.read_bytes()[len(current) :])


def test_a_frame_shows_all_six_factors_the_score_and_both_sparklines(tmp_path: Path) -> None:
    session = parse_session(write_claude_session(tmp_path / "s.jsonl", REPLIES))
    report = score_session(session, weights=load_preset("coding").weights)
    lines = render_frame(report, compute_trend([], 60), [10, 40, 90], width=100, now=0)
    text = "\n".join(lines)
    assert lines[0].startswith("driftguard watch · claude_code · updated ")
    assert f"Score {report.score}/100 · {report.state} · 10 messages" in text
    assert "history: 0 recorded · live ▁▄█" in text
    for label in ("context saturation", "repetition", "length collapse", "uncertainty"):
        assert label in text
    assert "goal distance       –" in text
    assert "(no goal)" in text
    assert lines[-1] == "watching with file events · Ctrl-C to quit"
    assert all(len(line) <= 100 for line in lines)


def test_the_watcher_shows_the_remembered_goal_and_counts_in_the_singular(
    tmp_path: Path, isolated_home: Path
) -> None:
    path = write_claude_session(
        isolated_home / ".claude" / "projects" / "-srv-web" / f"{SESSION_ID}.jsonl",
        REPLIES,
        cwd=str(tmp_path),
        session_id=SESSION_ID,
    )
    HistoryStore().save_goal(history_key("claude_code", SESSION_ID), "cache pages per locale")
    watcher = Watcher(WatchTarget(path=path, project=tmp_path), io.StringIO())
    text = "\n".join(watcher.frame(width=200))
    assert "Goal: “cache pages per locale” (remembered from an earlier call (" in text
    assert "goal distance       –" not in text  # the goal is scored
    session = parse_session(write_claude_session(tmp_path / "one.jsonl", REPLIES[:1]))
    report = score_session(session, weights=load_preset("coding").weights)
    one = "\n".join(render_frame(report, compute_trend([], 60), [], width=100, now=0))
    assert " · 2 messages" in one
    assert " · 0 compactions" in one
    assert "Goal: none, so goal distance is left out; `driftguard goal --set" in one
    assert "--keep-goal" not in one  # watch has no --goal to keep


def test_a_narrow_frame_clips_every_line(tmp_path: Path) -> None:
    session = parse_session(write_claude_session(tmp_path / "s.jsonl", REPLIES))
    report = score_session(session, weights=load_preset("coding").weights)
    lines = render_frame(report, compute_trend([], 60), [], width=30, now=0)
    assert all(len(line) <= 30 for line in lines)
    assert lines[1].startswith("…")  # the path keeps its end


def test_a_redraw_after_an_append_reads_the_grown_file_with_the_same_cache(
    tmp_path: Path,
) -> None:
    project = tmp_path / "site"
    project.mkdir()
    path = write_claude_session(
        tmp_path / f"{SESSION_ID}.jsonl", REPLIES[:3], cwd=str(project), session_id=SESSION_ID
    )
    watcher = Watcher(WatchTarget(path=path, project=project), io.StringIO())
    watcher.locate()
    assert any("6 messages" in line for line in watcher.frame(width=80))
    first = watcher.cache.get(path)
    _grow(path, REPLIES, project, tmp_path)
    assert any("10 messages" in line for line in watcher.frame(width=80))
    assert watcher.cache.get(path) is not first
    assert len(watcher.live) == 2


def test_without_a_path_the_watcher_follows_the_projects_pointer(tmp_path: Path) -> None:
    project = tmp_path / "site"
    project.mkdir()
    old = write_claude_session(tmp_path / "old.jsonl", REPLIES[:2], cwd=str(project))
    new = write_claude_session(tmp_path / "new.jsonl", REPLIES, cwd=str(project))
    watcher = Watcher(WatchTarget(path=None, project=project), io.StringIO())
    write_pointer(project, old, "claude_code", None)
    assert watcher.locate() == old
    write_pointer(project, new, "claude_code", None)  # what SessionStart does after /clear
    assert watcher.locate() == new
    assert any("resolved by pointer" in line for line in watcher.frame(width=80))


def test_a_watcher_in_a_subfolder_shows_the_projects_session_and_says_where_it_is(
    tmp_path: Path,
) -> None:
    project = tmp_path / "site"
    inner = project / "templates"
    inner.mkdir(parents=True)
    session = write_claude_session(tmp_path / "s.jsonl", REPLIES, cwd=str(project))
    write_pointer(project, session, "claude_code", None)
    watcher = Watcher(WatchTarget(path=None, project=inner), io.StringIO())
    assert watcher.locate() == session
    frame = watcher.frame(width=200)
    assert any(f"session of {project}, above the working directory" in line for line in frame)
    named = Watcher(WatchTarget(path=None, project=inner, config_project=inner), io.StringIO())
    assert named._first_frame() is None  # --project: that folder only, no walking up


def test_watching_a_missing_file_is_bad_input_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    assert main(["watch", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing.jsonl" in err
    assert len(err.strip().splitlines()) == 1


def test_a_file_truncated_to_empty_keeps_its_cli_and_is_not_enough_to_score(
    tmp_path: Path,
) -> None:
    path = write_claude_session(tmp_path / f"{SESSION_ID}.jsonl", REPLIES[:3])
    watcher = Watcher(WatchTarget(path=path, project=tmp_path), io.StringIO())
    watcher.locate()
    assert any("6 messages" in line for line in watcher.frame(width=80))
    path.write_bytes(b"")
    lines = watcher._safe_frame("file events")
    text = "\n".join(lines)
    assert "cannot tell" not in text
    assert "Not enough messages to score yet." in text
    assert lines[0].startswith("driftguard watch · claude_code · ")


def test_an_error_frame_is_cut_to_the_terminal_width_not_wrapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ("a-rather-long-folder-name-" * 4) / f"{SESSION_ID}.jsonl"
    folder.mkdir(parents=True)  # a directory where the session file should be: an error
    monkeypatch.setenv("COLUMNS", "40")
    watcher = Watcher(WatchTarget(path=folder, project=tmp_path), io.StringIO())
    lines = watcher._safe_frame("file events")
    assert lines[0].startswith("driftguard watch: ")
    assert lines[0].endswith("…")
    assert all(len(line) <= 40 for line in lines)


def test_the_live_sparkline_starts_afresh_when_a_new_session_is_followed(
    tmp_path: Path,
) -> None:
    project = tmp_path / "site"
    project.mkdir()
    old = write_claude_session(
        tmp_path / "old.jsonl", REPLIES[:3], cwd=str(project), session_id=SESSION_ID
    )
    new = write_claude_session(tmp_path / "new.jsonl", REPLIES[:1], cwd=str(project))
    watcher = Watcher(WatchTarget(path=None, project=project), io.StringIO())
    write_pointer(project, old, "claude_code", None)
    watcher.locate()
    watcher.frame(width=80)
    _grow(old, REPLIES, project, tmp_path)
    watcher.frame(width=80)
    assert len(watcher.live) == 2
    write_pointer(project, new, "claude_code", None)  # what SessionStart does after /clear
    watcher.locate()
    assert any("2 messages" in line for line in watcher.frame(width=80))
    assert len(watcher.live) == 1


def test_the_waiting_frame_names_the_project_within_the_width(tmp_path: Path) -> None:
    project = tmp_path / ("deep-folder-" * 8) / "site"
    watcher = Watcher(WatchTarget(path=None, project=project), io.StringIO())
    lines = watcher.waiting_frame(width=40)
    assert lines[0].startswith("waiting for a session in …")
    assert lines[0].endswith("site…")
    assert all(len(line) <= 40 for line in lines)
    wide = watcher.waiting_frame(width=400)
    assert wide[0] == f"waiting for a session in {project}…"


# --- headless, under a pseudo-terminal -------------------------------------------------

_CONTROLLING_TTY = (
    "import fcntl, os, sys, termios\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'driftguard', *sys.argv[1:]])\n"
)
"""Run driftguard with the pty as its controlling terminal, so ^C becomes SIGINT."""


class _Screen:
    """Everything the child wrote to the pty, without ANSI escapes."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.raw = b""

    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def wait_for(self, needle: str, timeout: float = 15.0) -> float:
        """Read until ``needle`` appears; seconds it took (fails after ``timeout``)."""
        start = time.monotonic()
        while needle not in self.text():
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                pytest.fail(f"{needle!r} not on screen after {timeout} s:\n{self.text()[-2000:]}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    self.raw += os.read(self.fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
        return time.monotonic() - start

    def drain(self) -> None:
        """Read what is left once the child has exited."""
        while select.select([self.fd], [], [], 0.5)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the child's side is closed
                return
            if not chunk:
                return
            self.raw += chunk


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_watch_under_a_pty_redraws_when_a_turn_is_appended_and_exits_0_on_ctrl_c(
    tmp_path: Path,
) -> None:
    import fcntl
    import pty
    import struct
    import termios

    project = tmp_path / "site"
    project.mkdir()
    path = write_claude_session(
        tmp_path / f"{SESSION_ID}.jsonl", REPLIES[:3], cwd=str(project), session_id=SESSION_ID
    )
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", _CONTROLLING_TTY, "watch", str(path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        cwd=project,
    )
    os.close(slave)
    screen = _Screen(master)
    try:
        screen.wait_for("6 messages")
        screen.wait_for("Ctrl-C to quit")
        _grow(path, REPLIES, project, tmp_path)
        # The dashboard updates within a second (docs/speed.md); the deadline here is
        # generous so that a loaded machine does not fail the test.
        screen.wait_for("10 messages")
        os.write(master, b"\x03")  # Ctrl-C on the terminal
        code = child.wait(timeout=15)
        screen.drain()
        assert code == 0, screen.text()[-3000:]  # what the terminal showed, to see why
        assert screen.raw.rstrip(b"\r\n").endswith(b"\x1b[?25h")  # the cursor is shown again
        assert "Traceback" not in screen.text()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_watch_under_a_pty_waiting_for_a_session_exits_0_on_ctrl_c(tmp_path: Path) -> None:
    import fcntl
    import pty
    import struct
    import termios

    project = tmp_path / "empty"
    project.mkdir()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 250, 0, 0))
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", _CONTROLLING_TTY, "watch"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        cwd=project,
    )
    os.close(slave)
    screen = _Screen(master)
    try:
        screen.wait_for("Ctrl-C to quit")
        assert f"waiting for a session in {project}…" in screen.text()
        os.write(master, b"\x03")  # Ctrl-C on the terminal
        code = child.wait(timeout=15)
        screen.drain()
        assert code == 0, screen.text()[-3000:]  # what the terminal showed, to see why
        assert screen.raw.rstrip(b"\r\n").endswith(b"\x1b[?25h")  # the cursor is shown again
        assert "Traceback" not in screen.text()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_watch_under_a_pty_waits_for_a_first_session_then_shows_it_and_exits_0_on_ctrl_c(
    tmp_path: Path, isolated_home: Path
) -> None:
    import pty

    from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name

    project = tmp_path / "site"
    project.mkdir()
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", _CONTROLLING_TTY, "watch"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        cwd=project,
    )
    os.close(slave)
    screen = _Screen(master)
    try:
        screen.wait_for("waiting for a session in")
        assert "waiting for a session in" in screen.text()  # not a closed terminal
        assert child.poll() is None  # still watching, not exited
        # Claude Code starts a session in the project: its transcript appears in its folder.
        folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
        write_claude_session(
            folder / f"{SESSION_ID}.jsonl", REPLIES[:3], cwd=str(project), session_id=SESSION_ID
        )
        screen.wait_for("6 messages")
        os.write(master, b"\x03")  # Ctrl-C on the terminal
        code = child.wait(timeout=15)
        screen.drain()
        assert code == 0, screen.text()[-3000:]  # what the terminal showed, to see why
        assert "Traceback" not in screen.text()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)


def test_the_dashboard_shows_the_room_before_the_host_compacts(tmp_path: Path) -> None:
    path = write_claude_session(tmp_path / f"{SESSION_ID}.jsonl", REPLIES)
    watcher = Watcher(WatchTarget(path=path, project=tmp_path), io.StringIO())
    watcher.locate()
    frame = watcher.frame(width=100)
    room = next(line for line in frame if "before the host compacts" in line)
    assert room == "161,990 tokens before the host compacts (over 50 turns)"
