"""State that cannot be read or written costs a warning, never the score.

History, the stored goal, the status-line cache and the hooks' pointer files live in
``~/.driftcli``; when one of them cannot be read or written — ``history`` is a file, a
folder the user cannot write, a file the user cannot read — ``driftguard score``,
``trend`` and ``handoff`` still print their result and exit 0 with one warning line per
failure on stderr, the MCP tools still answer with a ``notes`` entry, and the hooks still
do the rest of their work.

Root ignores permission bits, and CI runs as root: the permission cases run in a child
process that drops to the unprivileged user ``nobody`` (``setpriv``), and skip, saying
why, where that cannot be arranged. The "history is a file" cases work as root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session, write_project_session
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from driftguard import paths
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.live.hooks import run_hook
from driftguard.server import create_server
from driftguard.sessions.pointers import pointer_path, write_pointer
from driftguard.store.handoff_files import handoff_files

SESSION_ID = "0a1b2c3d-0000-4000-8000-00000000000a"
NEXT_SESSION_ID = "0a1b2c3d-0000-4000-8000-00000000000b"
REPLIES = [
    "The importer now reads the CSV header first.",
    "I added a test for a missing header row.",
    "Both tests pass; the importer skips blank lines.",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "importer"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def transcript(isolated_home: Path, project: Path) -> Path:
    return write_project_session(isolated_home, project, REPLIES, session_id=SESSION_ID)


def _a_file_where_a_folder_belongs(folder: Path) -> Path:
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder\n", encoding="utf-8")
    return folder


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("driftguard: warning: ")]


# --- history is a file (works as root) ----------------------------------------------------


def test_score_with_history_being_a_file_prints_the_score_one_warning_and_exits_0(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = _a_file_where_a_folder_belongs(paths.history_dir())
    assert main(["score", str(transcript)]) == 0
    out, err = capsys.readouterr()
    assert "Score: " in out
    assert "Traceback" not in err
    [warning] = _warnings(err)
    assert "score not recorded in the history" in warning
    assert str(history) in warning
    assert history.read_text(encoding="utf-8") == "not a folder\n"


def test_trend_with_history_being_a_file_prints_the_trend_and_one_warning(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_file_where_a_folder_belongs(paths.history_dir())
    assert main(["trend", str(transcript)]) == 0
    out, err = capsys.readouterr()
    assert out.strip()
    [warning] = _warnings(err)
    assert "history not read" in warning


def test_a_goal_store_that_is_a_file_costs_a_warning_and_the_goal_still_scores(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_file_where_a_folder_belongs(paths.sessions_dir())
    argv = ["score", "--json", "--goal", "import the CSV files", "--keep-goal", str(transcript)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["factors"]["goal_distance"] is not None
    read, stored = _warnings(err)
    assert "stored goal not read" in read
    assert "goal not stored for later calls" in stored


def test_handoff_with_history_and_goal_store_being_files_still_prints_the_handoff(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_file_where_a_folder_belongs(paths.sessions_dir())
    assert main(["handoff", str(transcript)]) == 0
    out, err = capsys.readouterr()
    assert "## What we accomplished" in out
    assert any("stored goal not read" in w for w in _warnings(err))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_mcp_tools_answer_with_a_note_when_the_history_is_a_file(
    mode: str, transcript: Path
) -> None:
    _a_file_where_a_folder_belongs(paths.history_dir())
    async with Client(create_server(), mode=mode) as client:  # type: ignore[arg-type]
        drift = await client.call_tool("get_drift", {})
        trend = await client.call_tool("get_trend", {})
        handoff = await client.call_tool("save_handoff", {})
    for result, expected in ((drift, "score not recorded"), (trend, "history not read")):
        assert result.is_error is False
        assert result.structured_content is not None
        [note] = result.structured_content["notes"]
        assert expected in note
        assert f"Note: {note}." in result.content[0].text  # type: ignore[union-attr]
    assert drift.structured_content is not None
    assert isinstance(drift.structured_content["score"], int)
    assert handoff.is_error is False


# --- hooks ---------------------------------------------------------------------------------


def _hook_payload(event: str, transcript: Path, project: Path, **fields: Any) -> bytes:
    return json.dumps(
        {
            "session_id": fields.pop("session_id", SESSION_ID),
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": event,
            **fields,
        }
    ).encode()


def test_the_stop_hook_with_history_and_cache_being_files_warns_and_carries_on(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_file_where_a_folder_belongs(paths.history_dir())
    _a_file_where_a_folder_belongs(paths.cache_dir())
    payload = _hook_payload("Stop", transcript, project, last_assistant_message=REPLIES[-1])
    assert run_hook("stop", payload) == ""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert any("warning: score not recorded in the history" in line for line in lines)
    assert any("warning: status line not refreshed" in line for line in lines)
    assert "Traceback" not in err


def test_session_start_hands_over_the_handoff_even_when_its_pointer_cannot_be_written(
    transcript: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", "--write", str(transcript)]) == 0
    _a_file_where_a_folder_belongs(paths.pointers_dir())
    capsys.readouterr()
    payload = _hook_payload("SessionStart", transcript, project, session_id=NEXT_SESSION_ID)
    output = run_hook("session-start", payload)
    assert "## What we accomplished" in output
    assert "warning: pointer not written" in capsys.readouterr().err
    assert not handoff_files(project).pending.exists()  # taken


# --- permission bits, as an unprivileged user ---------------------------------------------


@pytest.fixture(scope="module")
def unprivileged() -> tuple[list[str], int, int]:
    """The command prefix that runs a program as an unprivileged user, and that user's uid
    and gid: ``setpriv`` to ``nobody`` when the tests run as root (which ignores
    permission bits), nothing when they already run unprivileged. Skips, saying why, when
    that cannot be arranged."""
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot drop to an unprivileged user")
    try:
        import pwd

        nobody = pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        pytest.skip("running as root and there is no user 'nobody' to drop to")
    prefix = [
        setpriv,
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
    ]
    probe = subprocess.run(
        [*prefix, sys.executable, "-P", "-c", "import driftguard.cli, numpy, mcp"],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"the user nobody cannot run this Python with driftguard: {last}")
    return prefix, nobody.pw_uid, nobody.pw_gid


class Sandbox:
    """A home and a project the unprivileged user owns, in a folder it can reach, with one
    Claude Code session of the project; :meth:`block` takes a path away from that user."""

    def __init__(self, root: Path, prefix: list[str], uid: int, gid: int) -> None:
        self.root, self.prefix, self.uid, self.gid = root, prefix, uid, gid
        self.home = root / "home"
        self.project = root / "importer"
        self.project.mkdir(parents=True)
        folder = self.home / ".claude" / "projects" / claude_project_dir_name(str(self.project))
        self.transcript = write_claude_session(
            folder / f"{SESSION_ID}.jsonl", REPLIES, cwd=str(self.project), session_id=SESSION_ID
        )
        self.state = self.home / ".driftcli"
        for sub in ("history", "sessions", "pointers", "cache"):
            (self.state / sub).mkdir(parents=True)
        self._give(root)

    def _give(self, top: Path) -> None:
        os.chmod(top, 0o755)
        if os.geteuid() != 0:
            return
        for folder, dirs, files in os.walk(top):
            os.chown(folder, self.uid, self.gid)
            for name in [*dirs, *files]:
                os.chown(os.path.join(folder, name), self.uid, self.gid)

    def block(self, path: Path, mode: int) -> Path:
        """``path`` owned by root (when we are root) with permission bits ``mode``."""
        if os.geteuid() == 0:
            os.chown(path, 0, 0)
        os.chmod(path, mode)
        return path

    @property
    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "DRIFTGUARD_HOME": str(self.state),
            "PATH": "/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE": "1",
        }

    def driftguard(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``driftguard ARGS`` run as the unprivileged user in the project folder."""
        return subprocess.run(
            [*self.prefix, sys.executable, "-P", "-m", "driftguard", *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


@pytest.fixture
def sandbox(unprivileged: tuple[list[str], int, int]) -> Iterator[Sandbox]:
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="driftguard-unprivileged-"))
    try:
        yield Sandbox(root, *unprivileged)
    finally:
        for folder, dirs, _ in os.walk(root):
            for name in dirs:
                os.chmod(os.path.join(folder, name), 0o755)
        shutil.rmtree(root, ignore_errors=True)


def _only_warning(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    [warning] = _warnings(done.stderr)
    for needle in needles:
        assert needle in warning
    return warning


def test_score_with_a_history_folder_the_user_cannot_write_prints_the_score(
    sandbox: Sandbox,
) -> None:
    sandbox.block(sandbox.state / "history", 0o555)
    done = sandbox.driftguard("score", str(sandbox.transcript))
    assert "Score: " in done.stdout
    _only_warning(done, "score not recorded in the history", "Permission denied")


def test_trend_with_a_history_file_the_user_cannot_read_prints_the_trend(
    sandbox: Sandbox,
) -> None:
    assert sandbox.driftguard("score", str(sandbox.transcript)).returncode == 0
    [history] = (sandbox.state / "history").iterdir()
    sandbox.block(history, 0o000)
    done = sandbox.driftguard("trend", str(sandbox.transcript))
    assert done.stdout.strip()
    _only_warning(done, "history not read", "Permission denied")


def test_score_with_a_goal_file_the_user_cannot_read_still_scores(sandbox: Sandbox) -> None:
    first = sandbox.driftguard(
        "score", "--goal", "import CSV files", "--keep-goal", str(sandbox.transcript)
    )
    assert first.returncode == 0, first.stderr
    [goal] = (sandbox.state / "sessions").iterdir()
    sandbox.block(goal, 0o000)
    done = sandbox.driftguard("score", "--json", str(sandbox.transcript))
    assert json.loads(done.stdout)["factors"]["goal_distance"] is None
    _only_warning(done, "stored goal not read", "Permission denied")


def test_a_pointer_the_user_cannot_read_costs_a_warning_and_the_session_is_still_found(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTGUARD_HOME", str(sandbox.state))
    pointer = write_pointer(sandbox.project, sandbox.transcript, "claude_code", SESSION_ID)
    assert pointer == pointer_path(sandbox.project)
    sandbox.block(pointer, 0o000)
    done = sandbox.driftguard("score")
    assert "Score: " in done.stdout
    _only_warning(done, "hook pointer not read", "Permission denied")


@pytest.mark.anyio
async def test_a_server_run_by_the_user_starts_and_scores_with_a_history_it_cannot_read(
    sandbox: Sandbox,
) -> None:
    sandbox.block(sandbox.state / "history", 0o000)  # cannot even be listed for pruning
    command: Sequence[str] = [*sandbox.prefix, sys.executable, "-P"]
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "-m", "driftguard", "serve"],
        env={**sandbox.env, "PYTHONWARNINGS": "ignore"},
        cwd=str(sandbox.project),
    )
    with (sandbox.root / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            result = await client.call_tool("get_drift", {})
    assert result.is_error is False
    assert result.structured_content is not None
    assert isinstance(result.structured_content["score"], int)
    [note] = result.structured_content["notes"]
    assert "score not recorded in the history" in note
    assert "Permission denied" in note
    logged = (sandbox.root / "stderr.txt").read_text(encoding="utf-8")
    assert "old history not pruned" in logged
