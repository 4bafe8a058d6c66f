"""``driftguard setup`` stopped midway: Ctrl-C (SIGINT) prints one line saying which
hosts were done and which not and exits 130; a kill (SIGKILL) leaves the configs whole,
and the temporary file it may leave next to one is removed by the next run — only
driftguard's own, and only when the process that wrote it is gone.

A child process runs ``driftguard setup`` on the four hosts' synthetic configs with a pause
planted at a known point (``PAUSE_AT``: after the n-th ``fsync`` of a file whose name holds
a word, after a rename onto a config, or as a host starts); it says ``PAUSED`` and waits
there for the signal. ``claude`` is not on its PATH, so every config is edited directly.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from setup_helpers import HOST_FILES, install_fixture_home

from driftguard.cli import main

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends POSIX signals to a child")

CHILD = textwrap.dedent(
    """
    import os, sys, time

    kind, word, count = os.environ["PAUSE_AT"].split(":")
    seen = 0


    def hit(what):
        global seen
        if word in what:
            seen += 1
            if seen == int(count):
                print("PAUSED", what, flush=True)
                while True:
                    time.sleep(60)


    names = {}
    real_open, real_fsync, real_replace = os.open, os.fsync, os.replace


    def tracking_open(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        names[fd] = os.path.basename(os.fspath(path))
        return fd


    def fsync(fd):
        real_fsync(fd)
        hit(names.get(fd, ""))


    def replace(source, target, *args, **kwargs):
        real_replace(source, target, *args, **kwargs)
        hit(os.fspath(target))


    os.open = tracking_open
    if kind == "fsync":
        os.fsync = fsync
    if kind == "replaced":
        os.replace = replace
    if kind == "host":
        from driftguard import setup_scripts

        def pausing(host, run):
            def run_host(request):
                hit(host)
                return run(request)
            return run_host

        setup_scripts.HOST_RUNNERS = {
            host: pausing(host, run) for host, run in setup_scripts.HOST_RUNNERS.items()
        }
    from driftguard.cli import main

    sys.exit(main(sys.argv[1:]))
    """
)


def child_env(home: Path, no_path: Path, pause: str) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "PATH": str(no_path), "PAUSE_AT": pause}


def configs(home: Path) -> dict[str, bytes]:
    return {host: (home / name).read_bytes() for host, name in HOST_FILES.items()}


def temporaries(home: Path) -> list[Path]:
    return sorted(path for path in home.rglob("*.tmp"))


@pytest.fixture
def no_path(tmp_path: Path) -> Path:
    folder = tmp_path / "empty-bin"
    folder.mkdir()
    return folder


@pytest.fixture
def completed(tmp_path: Path, no_path: Path) -> dict[str, bytes]:
    """Each host's config as an uninterrupted ``driftguard setup`` leaves it."""
    home = tmp_path / "reference-home"
    install_fixture_home(home)
    env = child_env(home, no_path, "host:never:1")
    env["DRIFTGUARD_HOME"] = str(home / ".driftcli")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "setup"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return configs(home)


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, no_path: Path) -> Path:
    install_fixture_home(isolated_home)
    monkeypatch.setenv("PATH", str(no_path))  # the next run edits the files directly too
    assert shutil.which("claude") is None
    return isolated_home


@pytest.fixture
def paused(home: Path, no_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=30)


def start(
    paused: list[subprocess.Popen[str]],
    home: Path,
    no_path: Path,
    pause: str,
    *flags: str,
) -> subprocess.Popen[str]:
    """``driftguard setup`` (with ``flags``) in a child, once it has paused at ``pause``."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, "setup", *flags],
        env=child_env(home, no_path, pause),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    paused.append(child)
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.startswith("PAUSED"), line + child.communicate(timeout=30)[1]
    return child


def assert_whole(home: Path, original: dict[str, bytes], completed: dict[str, bytes]) -> None:
    """Every config is as it was or as a whole run leaves it: never anything between."""
    for host, now in configs(home).items():
        assert now in (original[host], completed[host]), host


POINTS = {
    # (where it pauses, the hosts done, the host it stops in, the hosts not started)
    "backing up the first config": ("fsync:.claude.json:1", [], "claude_code"),
    # the first fsync of a settings.json temporary file is its backup's, the second its own
    "writing the second config": ("fsync:settings.json:2", ["claude_code"], "gemini_cli"),
    "between two hosts": ("host:codex_cli:1", ["claude_code", "gemini_cli"], "codex_cli"),
    "after the last config was renamed": (
        "replaced:mcp.json:1",
        ["claude_code", "gemini_cli", "codex_cli"],
        "cursor",
    ),
}


@pytest.mark.parametrize(("pause", "done", "stopped_in"), POINTS.values(), ids=list(POINTS))
def test_ctrl_c_prints_one_line_of_what_was_and_was_not_changed_and_exits_130(
    home: Path,
    no_path: Path,
    paused: list[subprocess.Popen[str]],
    completed: dict[str, bytes],
    pause: str,
    done: list[str],
    stopped_in: str,
) -> None:
    original = configs(home)
    child = start(paused, home, no_path, pause)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130
    assert out == ""  # no report after the PAUSED line
    [line] = err.splitlines()
    assert line.startswith("driftguard setup: interrupted; ")
    assert "Traceback" not in err
    if done:
        assert f"done: {', '.join(f'{host} (added)' for host in done)}" in line
    else:
        assert "done:" not in line
    later = [h for h in HOST_FILES if h not in done and h != stopped_in]
    if later:
        assert f"not started: {', '.join(later)}" in line
    else:
        assert "not started" not in line
    if pause.startswith("replaced:"):
        assert f"stopped in {stopped_in}: ~/.cursor/mcp.json was written but not checked" in line
        assert configs(home)[stopped_in] == completed[stopped_in]
    else:
        assert f"stopped in {stopped_in}, which is unchanged" in line
        assert configs(home)[stopped_in] == original[stopped_in]
    for host in done:
        assert configs(home)[host] == completed[host]
    assert_whole(home, original, completed)
    assert temporaries(home) == []  # an interrupted write removes its temporary file


@pytest.mark.parametrize(
    ("pause", "left_for"),
    [("fsync:.claude.json:1", ".claude.json"), ("fsync:settings.json:2", "settings.json")],
    ids=["while backing up ~/.claude.json", "while writing the gemini settings"],
)
def test_a_killed_setup_leaves_the_configs_whole_and_the_next_run_removes_its_temporary_file(
    home: Path,
    no_path: Path,
    paused: list[subprocess.Popen[str]],
    completed: dict[str, bytes],
    capsys: pytest.CaptureFixture[str],
    pause: str,
    left_for: str,
) -> None:
    original = configs(home)
    child = start(paused, home, no_path, pause)
    child.kill()
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert_whole(home, original, completed)
    [left] = temporaries(home)
    assert left.name.startswith(f".{left_for}.driftguard-{child.pid}-")

    assert main(["setup"]) == 0
    out = capsys.readouterr().out
    shown = "~/" + str(left.relative_to(home))
    assert out.splitlines()[0] == (
        f"driftguard setup: removed 1 temporary file a stopped setup left: {shown}"
    )
    assert temporaries(home) == []
    assert configs(home) == completed


def test_only_driftguards_own_temporary_files_of_stopped_processes_are_removed(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = int(gone.stdout)
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        removed = [
            home / f"..claude.json.driftguard-{dead}-1234567.tmp",
            home / f"..claude.json.{dead}.98765432101.tmp",  # driftguard's former naming
            home / ".gemini" / f".settings.json.driftguard-{dead}-55.tmp",
        ]
        kept = [
            home / f"..claude.json.driftguard-{running.pid}-1234567.tmp",  # still writing
            home / f"..claude.json.tmp.{dead}.1790000000000",  # another program's naming
            home / f".notes.txt.driftguard-{dead}-1.tmp",  # next to no config setup edits
            home / ".gemini" / f".other.json.driftguard-{dead}-1.tmp",
        ]
        for path in removed + kept:
            path.write_text("partial", encoding="utf-8")
        assert main(["setup", "--dry-run"]) == 0
        assert "removed" not in capsys.readouterr().out  # a dry run removes nothing
        assert all(path.exists() for path in removed)
        assert main(["setup"]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith("driftguard setup: removed 3 temporary files a stopped setup ")
        assert [path.exists() for path in removed] == [False] * 3
        assert [path.exists() for path in kept] == [True] * 4
    finally:
        running.kill()
        running.wait()


def test_ctrl_c_before_any_host_says_nothing_changed(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.setup_scripts import _runner

    def interrupted(_files: object) -> list[Path]:
        raise KeyboardInterrupt

    original = configs(home)
    monkeypatch.setattr(_runner, "remove_leftovers", interrupted)
    assert main(["setup", "--host", "cursor"]) == 130
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "driftguard setup: interrupted; not started: cursor; nothing changed. "
        "Rerun `driftguard setup --host cursor` to finish.\n"
    )
    assert configs(home) == original


def test_ctrl_c_tells_the_rerun_with_the_flags_given(
    home: Path, no_path: Path, paused: list[subprocess.Popen[str]]
) -> None:
    child = start(
        paused, home, no_path, "host:codex_cli:1", "--hooks", "--host", "gemini_cli", "codex_cli"
    )
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130
    assert out == ""
    assert err == (
        "driftguard setup: interrupted; done: gemini_cli (added); stopped in codex_cli, which "
        "is unchanged; not started: gemini_cli hooks, codex_cli hooks. "
        "Rerun `driftguard setup --hooks --host gemini_cli codex_cli` to finish.\n"
    )


RERUNS = {
    "hooks on one host": (["--hooks", "--host", "gemini_cli"], "--hooks --host gemini_cli"),
    "uninstall": (["--uninstall", "--hooks"], "--hooks --uninstall"),
    "update twice named": (
        ["--update", "--host", "cursor", "codex_cli", "--host", "cursor"],
        "--host cursor codex_cli --update",
    ),
    "dry run": (["--dry-run", "--host", "gemini_cli"], "--host gemini_cli --dry-run"),
    "nothing": ([], ""),
}


@pytest.mark.parametrize(("flags", "again"), RERUNS.values(), ids=list(RERUNS))
def test_the_rerun_hint_repeats_the_flags_given_in_one_line_without_a_traceback(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    again: str,
) -> None:
    from driftguard import setup_scripts

    def interrupted(_request: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setitem(setup_scripts.HOST_RUNNERS, "gemini_cli", interrupted)
    monkeypatch.setitem(setup_scripts.HOST_RUNNERS, "cursor", interrupted)
    original = configs(home)
    assert main(["setup", *flags]) == 130
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith("driftguard setup: interrupted; ")
    assert line.endswith(f" Rerun `{' '.join(['driftguard', 'setup', again]).strip()}` to finish.")
    if "--dry-run" in flags:
        assert configs(home) == original


def test_the_rerun_hint_names_the_project_as_one_shell_word(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from driftguard.setup_scripts import _runner

    def interrupted(_files: object) -> list[Path]:
        raise KeyboardInterrupt

    project = tmp_path / "my shop"
    project.mkdir()
    monkeypatch.setattr(_runner, "remove_leftovers", interrupted)
    assert main(["setup", "--hooks", "--project", str(project), "--host", "cursor"]) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        f"Rerun `driftguard setup --hooks --host cursor --project '{project}'` to finish.\n"
    )
