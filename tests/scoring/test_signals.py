"""The signals nearer to the outcome (``benchmarks/VALIDITY.md`` §7.2),
counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftguard.adapters import parse_session
from driftguard.model import ParsedMessage, ToolCall
from driftguard.scoring.loops import Step
from driftguard.scoring.signals import (
    failing_tests,
    is_test_command,
    read_target,
    refusals,
    reread,
    signals_of,
    since_test,
    undoes_edits,
    undone,
)


def shell(command: str, result: str = "", failed: bool = False) -> Step:
    return Step((ToolCall("Bash", command[:16], command=command, kind="shell"),), result, failed)


def read(path: str) -> Step:
    return Step((ToolCall("Read", path[:16], target_path=path, kind="read"),), "text", False)


def edit(path: str) -> Step:
    return Step((ToolCall("Edit", path[:16], target_path=path, kind="edit"),), "ok", False)


@pytest.mark.parametrize(
    ("command", "runs_tests"),
    [
        ("python -m pytest tests/", True),
        ("cd /repo && pytest -x; echo done", True),
        ("npm run test", True),
        ("yarn test --watch=false", True),
        ("cargo test --all", True),
        ("go test ./...", True),
        ("./gradlew test", True),
        ("mvn -q test", True),
        ("make check", True),
        ("python tests/runtests.py", True),
        ("cat pytest.ini", False),
        ("ls tests", False),
        ("git commit -m 'test fix'", False),
    ],
)
def test_a_test_run_is_a_runners_name_as_a_word_of_the_command(
    command: str, runs_tests: bool
) -> None:
    assert is_test_command(command) is runs_tests


def test_turns_since_the_last_test_run() -> None:
    window = [shell("pytest", "3 passed"), edit("a.py"), read("a.py")]
    assert since_test(window) == 2
    assert since_test([*window, shell("pytest -q", "3 passed")]) == 0
    assert since_test([edit("a.py"), read("b.py"), edit("b.py")]) == 3  # none ran: all


def test_failing_test_runs_in_a_row_up_to_the_latest() -> None:
    failing = shell("pytest", "=== 1 failed, 2 passed ===")
    marked = shell("npm test", "", failed=True)
    maven = shell("mvn test", "[ERROR] BUILD FAILURE")
    passing = shell("pytest", "=== 3 passed ===")
    # the edits between do not break the run of failing test runs
    assert failing_tests([failing, edit("a.py"), marked, edit("a.py"), maven]) == 3
    assert failing_tests([failing, marked, passing]) == 0
    assert failing_tests([passing, failing]) == 1
    assert failing_tests([edit("a.py")]) == 0


@pytest.mark.parametrize(
    ("command", "undoes"),
    [
        ("git checkout -- src/a.py", True),
        ("git checkout src/a.py", True),
        ("git checkout main", False),
        ("git checkout -b fix", False),
        ("git restore .", True),
        ("cd /repo && git reset --hard HEAD", True),
        ("git reset HEAD~1", False),
        ("git stash", True),
        ("git stash list", False),
        ("cp a.py.bak a.py", True),
        ("mv setup.cfg.orig setup.cfg", True),
        ("cp a.py a.py.bak", False),
        (None, False),
    ],
)
def test_commands_that_throw_edits_away(command: str | None, undoes: bool) -> None:
    assert undoes_edits(command) is undoes


def test_undone_counts_each_such_command() -> None:
    window = [edit("a.py"), shell("git checkout -- a.py"), edit("a.py"), shell("git stash")]
    assert undone(window) == 2


def test_the_same_file_read_again_and_again() -> None:
    window = [
        shell("cat src/a.py"),
        read("src/a.py"),
        shell("head -n 40 src/a.py"),
        shell("sed -n 10,20p src/a.py"),
        shell("open src/b.py"),  # SWE-agent's viewer
        shell("cat src/b.py | grep x"),
        edit("src/a.py"),  # an edit is not a read
    ]
    assert reread(window) == 4
    assert read_target(window[3].calls[0]) == "src/a.py"
    assert read_target(window[4].calls[0]) == "src/b.py"
    assert read_target(window[6].calls[0]) is None
    assert reread([]) == 0


def test_refusals_in_a_row_at_the_end_across_the_persons_prompts() -> None:
    ok = ParsedMessage(role="tool", content="done")
    no = ParsedMessage(role="tool", content="The user doesn't want to proceed…", refused=True)
    prompt = ParsedMessage(role="user", content="no, use the other file")
    call = ParsedMessage(role="tool", content="", tool_calls=(ToolCall("Edit", "x"),))
    assert refusals([ok, call, no, prompt, call, no]) == 2
    assert refusals([no, call, ok]) == 0
    assert refusals([]) == 0


def test_signals_of_a_session_gathers_them_all() -> None:
    window = [shell("pytest", "1 failed"), shell("cat a.py"), shell("cat a.py")]
    signals = signals_of(window, [])
    assert (signals.since_test, signals.failing_tests, signals.reread) == (2, 1, 2)
    assert (signals.undone, signals.refusals) == (0, 0)


def test_claude_codes_rejected_and_interrupted_tool_results_are_refused(tmp_path: Path) -> None:
    def line(kind: str, uuid: str, content: object, **message: object) -> dict[str, object]:
        return {
            "type": kind,
            "uuid": uuid,
            "sessionId": "s",
            "message": {"role": kind, "content": content, **message},
        }

    def call(uuid: str, tool_id: str) -> dict[str, object]:
        block = {"type": "tool_use", "id": tool_id, "name": "Edit", "input": {"file_path": "a"}}
        return {**line("assistant", uuid, [block], id=f"m{uuid}"), "requestId": f"r{uuid}"}

    def result(uuid: str, tool_id: str, text: str) -> dict[str, object]:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": text}
        return line("user", uuid, [{**block, "is_error": True}])

    records = [
        line("user", "u0", "fix the parser"),
        call("a1", "t1"),
        result("u1", "t1", "The user doesn't want to proceed with this tool use. The tool use was"),
        call("a2", "t2"),
        result("u2", "t2", "[Request interrupted by user for tool use]"),
        call("a3", "t3"),
        result("u3", "t3", "Error: file not found"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    results = [m for m in parse_session(path, "claude_code").messages if m.role == "tool"]
    results = [m for m in results if not m.tool_calls]
    assert [m.refused for m in results] == [True, True, False]
    assert [m.is_error for m in results] == [True, True, True]
