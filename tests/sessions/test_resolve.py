"""Which session a tool call is about: argument → this host process's pointer → env →
the project's pointer → newest (docs/design.md §6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_claude_session

from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.errors import SessionNotFoundError
from driftguard.model import CliName
from driftguard.sessions.hosts import cli_for_host
from driftguard.sessions.pointers import pointer_path, read_pointer, write_pointer
from driftguard.sessions.resolve import choose_project, resolve_on_command_line, resolve_session

CLAUDE_ID = "aaaaaaaa-0000-4000-8000-000000000001"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    root.mkdir(parents=True)
    return root


def claude_session(home: Path, project: Path, session_id: str = CLAUDE_ID) -> Path:
    folder = home / ".claude" / "projects" / claude_project_dir_name(str(project))
    return write_claude_session(
        folder / f"{session_id}.jsonl",
        ["one reply", "two"],
        cwd=str(project),
        session_id=session_id,
    )


def gemini_session(home: Path, slug: str, stem: str, size: int) -> Path:
    chats = home / ".gemini" / "tmp" / slug / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / f"{stem}.jsonl"
    header = {"sessionId": "5a1b2c3d-9999-4000-8000-000000000000", "projectHash": "x"}
    path.write_text(json.dumps(header) + "\n" + " " * size + "\n", encoding="utf-8")
    return path


def test_a_path_argument_is_used_as_is(tmp_path: Path) -> None:
    session = write_claude_session(tmp_path / "s.jsonl", ["a", "b"])
    resolved = resolve_session(str(session), env={})
    assert resolved.path == session
    assert resolved.resolved_by == "argument"


def test_a_missing_path_argument_says_so(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError, match="does not exist"):
        resolve_session(str(tmp_path / "gone.jsonl"), env={})


def test_a_claude_session_id_is_found_in_any_project(isolated_home: Path, project: Path) -> None:
    session = claude_session(isolated_home, project)
    resolved = resolve_session(CLAUDE_ID, env={})
    assert resolved.path == session
    assert resolved.cli == "claude_code"


def test_a_gemini_id_prefers_the_largest_file_over_a_resume_stub(isolated_home: Path) -> None:
    gemini_session(isolated_home, "app", "session-2026-11-30T09-00-5a1b2c3d", size=5000)
    gemini_session(isolated_home, "app", "session-2026-11-30T10-00-5a1b2c3d", size=10)
    resolved = resolve_session("5a1b2c3d-9999-4000-8000-000000000000", env={})
    assert resolved.path.name == "session-2026-11-30T09-00-5a1b2c3d.jsonl"
    assert resolved.cli == "gemini_cli"


def test_a_session_file_name_is_a_valid_argument(isolated_home: Path) -> None:
    path = gemini_session(isolated_home, "app", "session-2026-11-30T09-00-5a1b2c3d", size=5)
    assert resolve_session(path.name, env={}).path == path


def test_an_unknown_id_says_where_it_looked(isolated_home: Path) -> None:
    with pytest.raises(SessionNotFoundError, match=r"\.codex"):
        resolve_session("no-such-session", env={})


def test_the_pointer_is_read_back_and_must_point_at_a_file(tmp_path: Path, project: Path) -> None:
    transcript = write_claude_session(tmp_path / "t.jsonl", ["a", "b"])
    written = write_pointer(project, transcript, "claude_code", "sid")
    assert written == pointer_path(project)
    assert read_pointer(project) == (transcript, "claude_code")
    transcript.unlink()
    assert read_pointer(project) is None


def test_a_pointer_write_that_fails_keeps_the_old_pointer_and_leaves_no_temporary(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = write_claude_session(tmp_path / "old.jsonl", ["a", "b"])
    new = write_claude_session(tmp_path / "new.jsonl", ["c", "d"])
    written = write_pointer(project, old, "claude_code", "sid")

    def full_disk(_fd: int, _data: object) -> int:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "write", full_disk)
        with pytest.raises(OSError, match="No space"):
            write_pointer(project, new, "claude_code", "sid")
    assert read_pointer(project) == (old, "claude_code")
    assert [p.name for p in written.parent.iterdir()] == [written.name]


def test_a_corrupt_pointer_is_ignored(isolated_home: Path, project: Path) -> None:
    session = claude_session(isolated_home, project)
    pointer_path(project).parent.mkdir(parents=True)
    pointer_path(project).write_text("{not json", encoding="utf-8")
    resolved = resolve_session(None, project=project, env={})
    assert resolved.path == session
    assert resolved.resolved_by == "newest_in_project"


def test_the_environment_session_id_needs_its_project_dir(
    isolated_home: Path, project: Path
) -> None:
    session = claude_session(isolated_home, project)
    other = claude_session(isolated_home, project, "bbbbbbbb-0000-4000-8000-000000000002")
    os.utime(other, (2_000_000_000, 2_000_000_000))
    env = {"CLAUDE_CODE_SESSION_ID": CLAUDE_ID}
    assert resolve_session(None, project=project, env=env).path == other  # no project dir
    env["CLAUDE_PROJECT_DIR"] = str(project)
    resolved = resolve_session(None, env=env)
    assert resolved.path == session
    assert resolved.resolved_by == "env_session_id"


def test_only_restricts_every_step_to_one_cli(
    isolated_home: Path, project: Path, tmp_path: Path
) -> None:
    transcript = write_claude_session(tmp_path / "t.jsonl", ["a", "b"])
    write_pointer(project, transcript, "claude_code", None)
    with pytest.raises(SessionNotFoundError) as caught:
        resolve_session(None, project=project, env={}, only="codex_cli")
    assert [detail.split(":")[0] for detail in caught.value.details] == ["Codex CLI"]


def test_a_known_hosts_call_passes_over_another_clis_pointer(
    isolated_home: Path, project: Path, tmp_path: Path
) -> None:
    transcript = write_claude_session(tmp_path / "t.jsonl", ["a", "b"])
    write_pointer(project, transcript, "claude_code", None)
    assert resolve_session(None, project=project, env={}).resolved_by == "pointer"
    with pytest.raises(SessionNotFoundError) as caught:
        resolve_session(None, client_name="codex-mcp-client", project=project, env={})
    assert [detail.split(":")[0] for detail in caught.value.details] == ["Codex CLI"]


@pytest.mark.parametrize(
    ("client", "env", "expected"),
    [
        ("claude-code", {}, "claude_code"),
        ("gemini-cli-mcp-client", {}, "gemini_cli"),
        ("Codex", {}, "codex_cli"),
        ("codex-mcp-client", {}, "codex_cli"),
        ("cursor-vscode", {"CLAUDECODE": "1"}, "cursor"),
        (None, {"DRIFTGUARD_HOST": "gemini_cli"}, "gemini_cli"),
        (None, {"DRIFTGUARD_HOST": "cursor", "CLAUDECODE": "1"}, "cursor"),
        (None, {"CLAUDECODE": "1"}, "claude_code"),
        (None, {"GEMINI_CLI": "1"}, "gemini_cli"),
        ("inspector-cli", {}, None),
    ],
)
def test_the_host_is_told_by_client_name_then_environment(
    client: str | None, env: dict[str, str], expected: str | None
) -> None:
    assert cli_for_host(client, env) == expected


@pytest.mark.parametrize(
    ("env", "roots", "expected"),
    [
        (
            {"DRIFTGUARD_PROJECT_DIR": "/p/a", "CLAUDE_PROJECT_DIR": "/p/b"},
            ["/p/r"],
            ("/p/a", "DRIFTGUARD_PROJECT_DIR"),
        ),
        (
            {"DRIFTGUARD_PROJECT_DIR": "${workspaceFolder}", "CLAUDE_PROJECT_DIR": "/p/b"},
            [],
            ("/p/b", "CLAUDE_PROJECT_DIR"),
        ),
        ({"DRIFTGUARD_PROJECT_DIR": "${workspaceFolder}/app"}, ["/p/r", "/p/s"], ("/p/r", "roots")),
        ({"DRIFTGUARD_PROJECT_DIR": "  "}, [], (None, "cwd")),
    ],
)
def test_the_project_is_the_first_named_of_the_variables_the_roots_and_the_cwd(
    env: dict[str, str],
    roots: list[str],
    expected: tuple[str | None, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    project, source = choose_project(env, [Path(r) for r in roots])
    assert (project, source) == (Path(expected[0]) if expected[0] else Path.cwd(), expected[1])


# --- one Claude Code process, one session -------------------------

FAKE_HOST = r"""
import subprocess, sys
python = sys.executable
for line in sys.stdin:
    command, _, argument = line.rstrip("\n").partition(" ")
    if command == "hook":  # as Claude Code 2.1.197 runs a hook command: through /bin/sh -c
        subprocess.run(
            ["/bin/sh", "-c", f"{python} -m driftguard hook session-start"],
            input=argument.encode(), check=True,
        )
        print("ok", flush=True)
    elif command == "resolve":  # as it starts an MCP server: its own child
        code = (
            "from driftguard.sessions.resolve import resolve_session; "
            "found = resolve_session(None, client_name='claude-code'); "
            "print(found.path, found.resolved_by)"
        )
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
        print(done.stdout.strip(), flush=True)
"""
"""A stand-in for one ``claude`` process: it runs ``driftguard hook session-start`` the way
Claude Code runs hooks, and asks which session is current from a child, as its MCP
server would."""


class FakeHost:
    """One running :data:`FAKE_HOST` process, with the environment Claude Code gives its
    hooks and servers."""

    def __init__(self, project: Path, session_id: str) -> None:
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
        env["CLAUDE_CODE_SESSION_ID"] = session_id  # frozen at start, as Claude Code's
        env["CLAUDECODE"] = "1"  # Claude Code 2.1.197 sets it for its hooks and servers
        self.process = subprocess.Popen(
            [sys.executable, "-c", FAKE_HOST],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def session_start(self, transcript: Path, session_id: str, source: str) -> None:
        payload = {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(transcript.parent),
            "hook_event_name": "SessionStart",
            "source": source,
        }
        assert self.ask("hook " + json.dumps(payload)) == "ok"

    def current(self) -> str:
        return self.ask("resolve")

    def close(self) -> None:
        self.process.communicate(timeout=30)  # closes stdin (the host ends) and stdout


@pytest.mark.skipif(sys.platform == "win32", reason="Claude Code runs hooks through /bin/sh")
def test_each_claude_code_process_follows_its_own_session_in_a_shared_project(
    isolated_home: Path, project: Path
) -> None:
    first_id, cleared_id, second_id = (
        f"{n}{n}{n}{n}{n}{n}{n}{n}-0000-4000-8000-000000000000" for n in "abc"
    )
    first = claude_session(isolated_home, project, first_id)
    cleared = claude_session(isolated_home, project, cleared_id)
    second = claude_session(isolated_home, project, second_id)
    one, two = FakeHost(project, first_id), FakeHost(project, second_id)
    try:
        one.session_start(first, first_id, "startup")
        two.session_start(second, second_id, "startup")  # another terminal, same project
        one.session_start(cleared, cleared_id, "clear")  # /clear: env still names the first
        assert one.current() == f"{cleared} process_pointer"
        assert two.current() == f"{second} process_pointer"
    finally:
        one.close()
        two.close()


def test_a_process_pointer_left_by_an_ended_process_whose_pid_came_back_is_passed_over(
    isolated_home: Path, project: Path, tmp_path: Path
) -> None:
    from driftguard import paths

    session = claude_session(isolated_home, project)
    stale = write_claude_session(tmp_path / "stale.jsonl", ["a", "b"])
    pointer = paths.pointers_dir() / f"process-{os.getppid()}.json"
    pointer.parent.mkdir(parents=True)
    record = {"transcript_path": str(stale), "cli": "claude_code", "pid": os.getppid()}
    pointer.write_text(json.dumps({**record, "process_start": "another process"}), "utf-8")
    resolved = resolve_session(None, project=project, env={})
    assert (resolved.path, resolved.resolved_by) == (session, "newest_in_project")


def test_the_environment_session_id_comes_before_the_projects_pointer(
    isolated_home: Path, project: Path
) -> None:
    own = claude_session(isolated_home, project)
    other = claude_session(isolated_home, project, "bbbbbbbb-0000-4000-8000-000000000002")
    write_pointer(project, other, "claude_code", "bbbbbbbb-0000-4000-8000-000000000002")
    env = {"CLAUDE_CODE_SESSION_ID": CLAUDE_ID, "CLAUDE_PROJECT_DIR": str(project)}
    resolved = resolve_session(None, client_name="claude-code", env=env)
    assert (resolved.path, resolved.resolved_by) == (own, "env_session_id")
    assert resolve_session(None, project=project, env={}).path == other  # no id: the pointer


# --- the project's pointer is Claude Code's, not every host's ----

CODEX_THREAD = "019ad000-0000-7000-8000-00000000000a"


def codex_session(home: Path, project: Path, mtime: float) -> Path:
    """A Codex rollout of ``project`` where Codex keeps it, last changed at ``mtime``."""
    path = home / ".codex" / "sessions" / "2026" / "11" / "30"
    path /= f"rollout-2026-11-30T09-15-00-{CODEX_THREAD}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"id": CODEX_THREAD, "cwd": str(project), "originator": "codex_cli_rs"}
    records = [
        {"timestamp": "2026-11-30T09:15:00.000Z", "type": "session_meta", "payload": meta},
        {
            "timestamp": "2026-11-30T09:15:01.000Z",
            "type": "turn_context",
            "payload": {"cwd": str(project), "model": "gpt-5-codex"},
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def stale_claude_pointer(isolated_home: Path, project: Path) -> Path:
    """A Claude Code session of the project, pointed at by its ``SessionStart`` hook long
    ago (its transcript last changed at 1,000,000,000)."""
    session = claude_session(isolated_home, project)
    os.utime(session, (1_000_000_000, 1_000_000_000))
    write_pointer(project, session, "claude_code", CLAUDE_ID)
    return session


@pytest.mark.parametrize(
    ("client", "env"),
    [
        ("codex-mcp-client", {}),
        (None, {"DRIFTGUARD_HOST": "codex_cli"}),
    ],
)
def test_a_codex_hosts_call_gets_its_own_session_whatever_claude_codes_pointer_says(
    isolated_home: Path,
    project: Path,
    stale_claude_pointer: Path,
    client: str | None,
    env: dict[str, str],
) -> None:
    rollout = codex_session(isolated_home, project, mtime=900_000_000)  # older, even
    resolved = resolve_session(None, client_name=client, project=project, env=env)
    assert (resolved.path, resolved.cli) == (rollout, "codex_cli")
    assert resolved.resolved_by == "newest_in_project"


def test_claude_codes_own_call_takes_the_pointer_even_when_another_cli_wrote_since(
    isolated_home: Path, project: Path, stale_claude_pointer: Path
) -> None:
    codex_session(isolated_home, project, mtime=2_000_000_000)
    resolved = resolve_session(None, client_name="claude-code", project=project, env={})
    assert (resolved.path, resolved.resolved_by) == (stale_claude_pointer, "pointer")


def test_an_unknown_caller_takes_the_pointer_only_when_no_other_cli_wrote_since(
    isolated_home: Path, project: Path, stale_claude_pointer: Path
) -> None:
    rollout = codex_session(isolated_home, project, mtime=1_500_000_000)
    resolved = resolve_session(None, project=project, env={})
    assert (resolved.path, resolved.resolved_by) == (rollout, "newest_in_project")
    os.utime(stale_claude_pointer, (1_600_000_000, 1_600_000_000))  # Claude Code wrote since
    resolved = resolve_session(None, project=project, env={})
    assert (resolved.path, resolved.resolved_by) == (stale_claude_pointer, "pointer")


@pytest.mark.parametrize(
    ("only", "env", "expected"),
    [
        (None, {}, "codex"),  # a terminal: the newer session wins
        ("claude_code", {}, "pointer"),  # --cli claude_code: the pointer is the caller's
        (None, {"CLAUDECODE": "1"}, "pointer"),  # run by Claude Code's shell tool
        ("codex_cli", {}, "codex"),
    ],
)
def test_on_the_command_line_the_pointer_is_used_when_the_caller_is_claude_code_or_newest(
    isolated_home: Path,
    project: Path,
    stale_claude_pointer: Path,
    only: CliName | None,
    env: dict[str, str],
    expected: str,
) -> None:
    rollout = codex_session(isolated_home, project, mtime=1_500_000_000)
    resolved = resolve_on_command_line(project, only=only, env=env)
    assert resolved.path == (rollout if expected == "codex" else stale_claude_pointer)


def test_a_pointer_whose_transcript_is_gone_is_passed_over(
    isolated_home: Path, project: Path, tmp_path: Path
) -> None:
    session = claude_session(isolated_home, project)
    gone = write_claude_session(tmp_path / "gone.jsonl", ["a", "b"])
    write_pointer(project, gone, "claude_code", None)
    gone.unlink()
    for resolved in (
        resolve_session(None, client_name="claude-code", project=project, env={}),
        resolve_on_command_line(project, env={}),
    ):
        assert (resolved.path, resolved.resolved_by) == (session, "newest_in_project")


# --- a process's own pointer: only for its project, and never a stand-in -----------------


def write_own_process_pointer(transcript: Path, project: Path) -> Path:
    """The pointer a ``SessionStart`` hook of this test's parent process would write."""
    from driftguard import paths
    from driftguard._process import process_info

    parent = process_info(os.getppid())
    pointer = paths.pointers_dir() / f"process-{os.getppid()}.json"
    pointer.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "transcript_path": str(transcript),
        "cli": "claude_code",
        "project": str(project),
        "pid": os.getppid(),
        "process_start": parent.start if parent is not None else None,
    }
    pointer.write_text(json.dumps(record), "utf-8")
    return pointer


def test_this_processs_session_without_a_transcript_yet_is_not_replaced_by_an_older_one(
    isolated_home: Path, project: Path
) -> None:
    claude_session(isolated_home, project)  # an earlier session of the project
    not_yet = isolated_home / ".claude" / "projects" / "x" / "bbbbbbbb.jsonl"
    write_own_process_pointer(not_yet, project)
    with pytest.raises(
        SessionNotFoundError, match="is not there: its host writes it with the first message"
    ):
        resolve_session(None, client_name="claude-code", project=project, env={})


def test_a_process_pointer_of_another_project_is_passed_over(
    isolated_home: Path, project: Path, tmp_path: Path
) -> None:
    session = claude_session(isolated_home, project)
    elsewhere = write_claude_session(tmp_path / "elsewhere.jsonl", ["a", "b"])
    write_own_process_pointer(elsewhere, tmp_path / "other")
    resolved = resolve_on_command_line(project, env={})
    assert (resolved.path, resolved.resolved_by) == (session, "newest_in_project")
    write_own_process_pointer(elsewhere, project)  # a folder inside it counts too
    inner = project / "src"
    inner.mkdir()
    assert resolve_on_command_line(inner, env={}).resolved_by == "process_pointer"


# --- a subfolder finds its project's session, as git finds its repository ----------


def test_a_subfolder_without_sessions_takes_the_nearest_folder_above_that_has_one(
    isolated_home: Path, project: Path
) -> None:
    session = claude_session(isolated_home, project)
    deeper = project / "src" / "parser"
    deeper.mkdir(parents=True)
    resolved = resolve_on_command_line(deeper, env={})
    assert (resolved.path, resolved.found_in) == (session, project)
    assert resolve_on_command_line(project, env={}).found_in is None  # its own session


def test_a_subfolder_walks_up_only_without_project_and_never_to_home(
    isolated_home: Path, project: Path
) -> None:
    claude_session(isolated_home, project)
    claude_session(isolated_home, isolated_home, "cccccccc-0000-4000-8000-000000000003")
    inner = project / "src"
    inner.mkdir()
    with pytest.raises(SessionNotFoundError, match=str(inner)):
        resolve_on_command_line(inner, env={}, walk_up=False)
    below_home = isolated_home / "notes" / "today"
    below_home.mkdir(parents=True)
    with pytest.raises(SessionNotFoundError, match=str(below_home)):
        resolve_on_command_line(below_home, env={})  # $HOME's own session is not taken
