"""Real hosts: the pinned Claude Code, Gemini CLI and Codex start ``driftguard serve`` from
their config in a private HOME, and a real session calls ``get_drift`` about itself.

The model is :mod:`fake_model` on 127.0.0.1; nothing leaves the machine. Each test skips
with the install command when its CLI (at the pinned version) is not installed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session
from e2e_hosts import (
    claude_project_folder,
    driftguard_command,
    gemini_policy,
    host_env,
    read_jsonl,
    register_claude,
    register_codex,
    register_gemini,
    run_cli,
)
from fake_model import SUMMARISED, FakeModel, call_tool, parse_request, say

from driftguard.adapters import parse_session, turn_snapshots
from driftguard.cli import main
from driftguard.sessions.pointers import write_pointer

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
pytest_plugins = ["e2e_fixtures"]

RealCli = Callable[[str], Path]

REPORT_KEYS = {
    "score",
    "state",
    "factors",
    "weights",
    "messages",
    "handoff_suggested",
    "recommendation",
    "session",
}
FACTOR_KEYS = {
    "context_saturation",
    "repetition",
    "length_collapse",
    "goal_distance",
    "uncertainty",
    "confidence_drift",
}
SESSION_KEYS = {
    "cli",
    "path",
    "session_id",
    "context_tokens",
    "context_window",
    "tokens_estimated",
    "compactions",
    "skipped_lines",
    "resolved_by",
}
STATE_BANDS = {"fresh": (0, 29), "warming": (30, 60), "drifting": (61, 80), "polluted": (81, 100)}

FIRST_TURN_TOKENS = 20_000
"""Input tokens the fake reports on the first turn of the Gemini and Codex sessions."""
TURN2_TOKENS = 45_000
"""Input tokens the fake reports on the second (plain) turn."""
TOOL_TOKENS = 60_000
"""Input tokens the fake reports on the turn that calls get_drift."""

CLAUDE_PLAN = [
    say(
        "I read the parser module: it streams the file line by line and keeps a running "
        "offset, so appending a line only costs that line.",
        input_tokens=30_000,
    ),
    say(
        "The retry loop in the uploader sleeps a fixed second between attempts; an "
        "exponential backoff with a cap would suit the flaky network better.",
        input_tokens=TURN2_TOKENS,
    ),
    call_tool("get_drift", {}, input_tokens=TOOL_TOKENS),
]
"""Two plain turns (so there is something to score), then get_drift on the third."""


def _driftguard_env() -> dict[str, str]:
    return {"DRIFTGUARD_HOME": os.environ["DRIFTGUARD_HOME"]}


def _assert_design_report(report: dict[str, Any]) -> None:
    """The docs/design.md §5.5 JSON fields, with their types and value ranges."""
    assert report.keys() >= REPORT_KEYS
    assert report["factors"].keys() == FACTOR_KEYS
    assert report["session"].keys() >= SESSION_KEYS
    score = report["score"]
    assert isinstance(score, int)
    low, high = STATE_BANDS[report["state"]]
    assert low <= score <= high
    for name, value in report["factors"].items():
        if name == "goal_distance" and value is None:
            continue
        assert isinstance(value, int | float)
        assert 0 <= value <= 100
    assert report["weights"].keys() == FACTOR_KEYS
    # each weight is rounded to 4 decimals: the six are off by at most 6 × 0.00005
    assert sum(report["weights"].values()) == pytest.approx(1.0, abs=6 * 0.00005)
    assert isinstance(report["handoff_suggested"], bool)
    assert isinstance(report["recommendation"], str)
    assert report["recommendation"]


def _assert_what_the_model_reads(sent: str) -> None:
    """What Claude Code and Codex put in front of the model: the structured
    content as JSON, recommendation first, weights to 4 decimals, factors to 1, the goal
    and whether the score was recorded, and the text report as a field."""
    report = json.loads(sent)
    assert next(iter(report)) == "recommendation"
    assert sent.lstrip().startswith('{"recommendation":')
    for name, weight in report["weights"].items():
        assert weight == round(weight, 4), (name, weight)
    for name, value in report["factors"].items():
        assert value is None or value == round(value, 1), (name, value)
    assert (report["goal"], report["goal_source"], report["recorded"]) == (None, None, True)
    assert report["text"].startswith(report["recommendation"])


def test_claude_mcp_list_reports_driftguard_connected(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    claude = real_cli("claude")
    command = driftguard_command()
    register_claude(isolated_home, command, _driftguard_env())

    run = run_cli(
        [claude, "mcp", "list"], cwd=host_project, env=host_env(isolated_home, fake_model.url)
    )

    assert run.returncode == 0, run.describe()
    lines = [line for line in run.stdout.splitlines() if line.startswith("driftguard:")]
    assert len(lines) == 1, run.describe()
    assert command in lines[0]
    assert lines[0].rstrip().endswith("Connected"), run.describe()


def test_gemini_mcp_list_reports_driftguard_connected(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    gemini = real_cli("gemini")
    command = driftguard_command()
    register_gemini(isolated_home, command, _driftguard_env(), host_project)

    run = run_cli(
        [gemini, "mcp", "list"], cwd=host_project, env=host_env(isolated_home, fake_model.url)
    )

    # Gemini CLI 0.61.0 prints the list on stderr ("✓ driftguard: <command> serve (stdio) -
    # Connected"), established by running it here.
    assert run.returncode == 0, run.describe()
    output = run.stdout + run.stderr
    lines = [line for line in output.splitlines() if "driftguard:" in line]
    assert len(lines) == 1, run.describe()
    assert f"{command} serve" in lines[0]
    assert lines[0].rstrip().endswith("Connected"), run.describe()


def _claude_turns(claude: Path, project: Path, env: dict[str, str]) -> tuple[str, list[Any]]:
    """Three ``claude -p`` turns in one session; the session id and each JSON result."""
    session_id: str | None = None
    results = []
    prompts = [
        "How does the parser read the session file?",
        "What would make the uploader more robust?",
        "Are we still on track? Check the drift of this session.",
    ]
    for prompt in prompts:
        args: list[str | Path] = [claude, "-p", prompt, "--output-format", "json"]
        args += ["--allowedTools", "mcp__driftguard__get_drift"]
        if session_id is not None:
            args += ["--resume", session_id]
        run = run_cli(args, cwd=project, env=env)
        assert run.returncode == 0, run.describe()
        result = run.json()
        assert result["is_error"] is False, run.describe()
        assert not result.get("permission_denials"), run.describe()
        if session_id is not None:
            assert result["session_id"] == session_id
        session_id = result["session_id"]
        results.append(result)
    assert session_id is not None
    return session_id, results


def _get_drift_result(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The one session-file line holding the result of a get_drift call."""
    call_ids = {
        block["id"]
        for record in records
        if record.get("type") == "assistant"
        for block in record["message"]["content"]
        if block.get("type") == "tool_use" and block["name"] == "mcp__driftguard__get_drift"
    }
    assert len(call_ids) == 1
    results = [
        record
        for record in records
        if record.get("type") == "user"
        and isinstance(record["message"]["content"], list)
        and any(
            block.get("type") == "tool_result" and block.get("tool_use_id") in call_ids
            for block in record["message"]["content"]
        )
    ]
    assert len(results) == 1
    return results[0]


def test_claude_code_session_calls_get_drift_about_its_own_session_file(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    claude = real_cli("claude")
    register_claude(isolated_home, driftguard_command(), _driftguard_env())
    fake_model.set_plan(CLAUDE_PLAN)

    session_id, results = _claude_turns(
        claude, host_project, host_env(isolated_home, fake_model.url)
    )

    session_file = (
        isolated_home
        / ".claude"
        / "projects"
        / claude_project_folder(host_project)
        / f"{session_id}.jsonl"
    )
    assert session_file.is_file()
    record = _get_drift_result(read_jsonl(session_file))
    tool_result = next(b for b in record["message"]["content"] if b.get("type") == "tool_result")
    assert not tool_result.get("is_error"), tool_result
    report = record["mcpMeta"]["structuredContent"]
    _assert_design_report(report)
    session = report["session"]
    assert Path(session["path"]) == session_file
    assert session["cli"] == "claude_code"
    assert session["session_id"] == session_id
    # Claude Code 2.1.197 gives its MCP servers CLAUDE_CODE_SESSION_ID (the resumed id) and
    # CLAUDE_PROJECT_DIR (the launch dir): established with a stand-in server that echoed
    # its environment. No hook wrote a pointer, so the env id decides.
    assert session["resolved_by"] == "env_session_id"
    # Claude Code buffers its transcript writes for a few milliseconds, and driftguard
    # answers faster: in most runs the file it read still ended with turn 2 (45,000 tokens,
    # 4 messages); when the buffer was flushed first, it held turn 3's tool_use line
    # (60,000). Established with a stand-in server that listed the file's lines when called:
    # all turn-3 lines were there after a 50 ms sleep, none without one.
    assert session["context_tokens"] in {TURN2_TOKENS, TOOL_TOKENS}
    assert session["tokens_estimated"] is False
    assert session["context_window"] > TOOL_TOKENS
    assert session["compactions"] == 0
    assert session["skipped_lines"] == 0
    assert report["messages"] >= 4  # two plain turns, each a prompt and a reply
    assert report["factors"]["goal_distance"] is None  # no goal given or stored

    # Claude Code 2.1.197 sends the model the structured content as JSON (the text content
    # is not sent; a stand-in server returning different text and structured content showed
    # it), so the model too is told the file; the fake quoted it back as the final reply.
    sent = [
        request.tool_result
        for request in (
            parse_request("anthropic", entry.path, entry.body)
            for entry in fake_model.model_requests("anthropic")
        )
        if request.tool_result is not None
    ]
    assert len(sent) == 1
    assert json.loads(sent[0]) == report
    _assert_what_the_model_reads(sent[0])
    assert results[2]["result"].startswith("The tool answered:")

    # get_drift recorded one snapshot of this session, with the score it returned.
    history = list((Path(os.environ["DRIFTGUARD_HOME"]) / "history").glob("*.jsonl"))
    assert len(history) == 1
    assert session_id in history[0].name
    snapshots = read_jsonl(history[0])
    assert [s["score"] for s in snapshots] == [report["score"]]


def _gemini_session_files(home: Path, session_id: str) -> list[Path]:
    chats = sorted((home / ".gemini" / "tmp").glob(f"*/chats/session-*-{session_id[:8]}.jsonl"))
    return chats


def test_gemini_cli_session_calls_get_drift_about_its_own_session_file(
    real_cli: RealCli,
    fake_model: FakeModel,
    isolated_home: Path,
    host_project: Path,
    tmp_path: Path,
) -> None:
    gemini = real_cli("gemini")
    register_gemini(isolated_home, driftguard_command(), _driftguard_env(), host_project)
    policy = gemini_policy(tmp_path, ["get_drift"])
    fake_model.set_plan(
        [
            say("The tests pass on the main branch.", input_tokens=FIRST_TURN_TOKENS),
            call_tool("get_drift", {}, input_tokens=TOOL_TOKENS),
        ]
    )
    env = host_env(isolated_home, fake_model.url)

    first = run_cli(
        [gemini, "-p", "Do the tests pass?", "-o", "json", "--policy", policy],
        cwd=host_project,
        env=env,
    )
    assert first.returncode == 0, first.describe()
    session_id = first.json()["session_id"]
    second = run_cli(
        [
            gemini,
            "-p",
            "Check the drift of this session.",
            "-o",
            "json",
            "--policy",
            policy,
            "--resume",
            session_id,
        ],
        cwd=host_project,
        env=env,
    )
    assert second.returncode == 0, second.describe()

    files = _gemini_session_files(isolated_home, session_id)
    assert files, second.describe()
    # A resume first writes a small stub with the same id; the conversation is the largest.
    conversation = max(files, key=lambda path: path.stat().st_size)
    records = read_jsonl(conversation)
    calls = [
        call
        for record in records
        if record.get("type") == "gemini"
        for call in record.get("toolCalls") or []
        if call.get("name") == "mcp_driftguard_get_drift"
    ]
    assert calls, f"no get_drift call in {conversation}"
    assert calls[-1]["status"] == "success", calls[-1]
    sent = [
        request.tool_result
        for request in (
            parse_request("gemini", entry.path, entry.body)
            for entry in fake_model.model_requests("gemini")
        )
        if request.tool_result is not None
    ]
    assert len(sent) == 1
    # Gemini CLI 0.61.0 gives the model the text content (wrapped in <untrusted_context>),
    # seen in the request bodies: its session line names the file and how it was found.
    # Gemini passes no session id to MCP servers, so it is the newest session of the
    # project written by gemini-cli-mcp-client.
    output = json.loads(sent[0])["output"]
    assert f"gemini_cli · {conversation}" in output
    assert "resolved by newest in project" in output
    # The text the model reads: the recommendation first, the score with its
    # state, the goal line, the session line; no JSON.
    text = output.split("<untrusted_context>\n", 1)[-1]
    assert text.startswith(("Carry on", "Start fresh", "Not enough messages")), text
    assert re.search(r"^Score: \d+/100 \((fresh|warming|drifting|polluted)\) · ", text, re.M)
    assert "\nGoal: none, so goal distance is left out; pass goal=" in text
    assert '"weights"' not in text


def _gemini_run(
    gemini: Path, prompt: str, project: Path, env: dict[str, str], *extra: str | Path
) -> dict[str, Any]:
    """One ``gemini -p`` run that must succeed; its JSON output."""
    run = run_cli([gemini, "-p", prompt, "-o", "json", *extra], cwd=project, env=env)
    assert run.returncode == 0, run.describe()
    result = run.json()
    assert isinstance(result, dict)
    return result


def _gemini_conversation(home: Path, session_id: str) -> Path:
    files = _gemini_session_files(home, session_id)
    assert files
    return max(files, key=lambda path: path.stat().st_size)  # a resume writes a stub too


def test_gemini_cli_records_a_failing_shell_command_as_success_and_driftguard_as_failed(
    real_cli: RealCli,
    fake_model: FakeModel,
    isolated_home: Path,
    host_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gemini = real_cli("gemini")
    register_gemini(isolated_home, driftguard_command(), _driftguard_env(), host_project)
    policy = tmp_path / "shell-policy.toml"
    policy.write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 200\n',
        encoding="utf-8",
    )
    # a plain turn (one prompt and its tool calls are not enough to score), then a model
    # that runs the same failing command until the CLI stops it
    fake_model.set_plan(
        [
            say("The data folder is meant to be /nonexistent."),
            call_tool("run_shell_command", {"command": "ls /nonexistent"}, repeat=True),
        ]
    )
    env = host_env(isolated_home, fake_model.url)
    first = _gemini_run(gemini, "Where is the data folder?", host_project, env)
    session_id = first["session_id"]

    result = _gemini_run(
        gemini, "List it.", host_project, env, "--policy", policy, "--resume", session_id
    )

    # Gemini CLI's loop detector (19-seams §2.7): four calls run, the fifth is refused, a
    # recovery turn, the fake repeats itself, the run stops
    assert result["warnings"] == ["Loop detected, stopping execution"]
    conversation = _gemini_conversation(isolated_home, session_id)
    calls = [
        call
        for record in read_jsonl(conversation)
        if record.get("type") == "gemini"
        for call in record.get("toolCalls") or []
    ]
    assert {call["status"] for call in calls} == {"success"}
    assert all(
        "\nExit Code: 2\nProcess Group PGID: "
        in call["result"][0]["functionResponse"]["response"]["output"]
        for call in calls
    )
    session = parse_session(conversation)
    results = [m for m in session.messages if m.role == "tool" and not m.tool_calls]
    assert [m.is_error for m in results] == [True] * 4
    assert len(list(turn_snapshots(conversation))) == 2  # the recovery turn is the CLI's
    assert main(["score", "--json", str(conversation)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["loop"]["description"] == "`ls /nonexistent` failed 4 times in a row"


def test_gemini_cli_compression_of_the_fake_is_a_compaction_to_driftguard(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    gemini = real_cli("gemini")
    register_gemini(isolated_home, driftguard_command(), _driftguard_env(), host_project)
    settings = isolated_home / ".gemini" / "settings.json"
    config = json.loads(settings.read_text(encoding="utf-8"))
    # 0.16 × 1,048,576 = 167,772 tokens: 185,000 reported on turn 5's tool call compresses
    # the chat before its follow-up (19-seams §2.6)
    config["model"] = {"compressionThreshold": 0.16}
    settings.write_text(json.dumps(config), encoding="utf-8")
    (host_project / "a.txt").write_text("x", encoding="utf-8")
    plan = [
        say(f"Answer {i}: " + " ".join(f"word{i}_{j}" for j in range(150)), input_tokens=20_000)
        for i in range(1, 5)
    ]
    plan += [
        call_tool("list_directory", {"dir_path": "."}, input_tokens=185_000),
        say("Sixth answer.", input_tokens=30_000),
    ]
    fake_model.set_plan(plan)
    env = host_env(isolated_home, fake_model.url)
    session_id: str | None = None
    for turn in range(1, 7):
        resume = ("--resume", session_id) if session_id else ()
        result = _gemini_run(
            gemini, f"Turn {turn}: go on with step {turn}", host_project, env, *resume
        )
        session_id = session_id or result["session_id"]
    assert session_id is not None

    conversation = _gemini_conversation(isolated_home, session_id)
    session = parse_session(conversation)
    assert session.compactions == 1
    summary = session.messages[0]
    assert summary.is_summary
    assert summary.content.startswith("<state_snapshot>")
    # the fake knew after the compression which scripted turn it was on: the sixth reply
    replies = [m.content for m in session.messages if m.role == "assistant"]
    assert replies[-1] == "Sixth answer."
    # how many prompts it covers is the CLI's split (it keeps the latest ~30 % as they were)
    covered = re.search(re.escape(SUMMARISED).replace(r"\{\}", r"(\d+)"), summary.content)
    assert covered is not None
    assert 1 <= int(covered.group(1)) < 5
    # compressed in turn 5, between its tool call and the follow-up
    assert [s.compactions for s in turn_snapshots(conversation)] == [0, 0, 0, 0, 1, 1]


@pytest.mark.parametrize(
    "after_claude_code",
    [False, True],
    ids=["a project only Codex used", "a project where a Claude Code hook pointed"],
)
def test_codex_session_calls_get_drift_about_its_own_rollout_file(
    real_cli: RealCli,
    fake_model: FakeModel,
    isolated_home: Path,
    host_project: Path,
    after_claude_code: bool,
) -> None:
    codex = real_cli("codex")
    register_codex(isolated_home, driftguard_command(), fake_model.url)
    if after_claude_code:
        # A Claude Code session of the project whose SessionStart
        # hook pointed the project at it, its transcript newer than anything Codex writes
        # here; Codex's get_drift must still be about Codex's own session.
        claude_id = "aaaaaaaa-0000-4000-8000-000000000001"
        folder = isolated_home / ".claude" / "projects" / claude_project_folder(host_project)
        transcript = write_claude_session(
            folder / f"{claude_id}.jsonl",
            ["a reply", "another"],
            cwd=str(host_project),
            session_id=claude_id,
        )
        os.utime(transcript, (4_000_000_000, 4_000_000_000))
        write_pointer(host_project, transcript, "claude_code", claude_id)
    fake_model.set_plan(
        [
            say("The build uses setuptools.", input_tokens=FIRST_TURN_TOKENS),
            call_tool("get_drift", {}, input_tokens=TOOL_TOKENS),
        ]
    )
    env = host_env(isolated_home, fake_model.url)
    # --strict-config: Codex refuses a config key it does not know, so the runs also
    # check that setup wrote only keys the pinned Codex accepts.
    base: list[str | Path] = [codex, "exec", "--json", "--strict-config", "--skip-git-repo-check"]

    first = run_cli([*base, "Which build backend do we use?"], cwd=host_project, env=env)
    assert first.returncode == 0, first.describe()
    events = [json.loads(line) for line in first.stdout.splitlines() if line.startswith("{")]
    thread_id = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    second = run_cli(
        [*base, "resume", thread_id, "Check the drift of this session."], cwd=host_project, env=env
    )
    assert second.returncode == 0, second.describe()

    # setup's `required = true` makes Codex wait for driftguard: every model request of
    # both runs, the first of each included, declared its tools.
    requests = [
        parse_request("openai", entry.path, entry.body)
        for entry in fake_model.model_requests("openai")
    ]
    assert all(request.find_tool("get_drift") for request in requests), [
        request.tool_names for request in requests
    ]
    assert len(requests) >= 3
    rollouts = list(
        (isolated_home / ".codex" / "sessions").glob(f"*/*/*/rollout-*-{thread_id}.jsonl")
    )
    assert len(rollouts) == 1
    events = [json.loads(line) for line in second.stdout.splitlines() if line.startswith("{")]
    calls = [
        e["item"]
        for e in events
        if e.get("type") == "item.completed" and e["item"].get("type") == "mcp_tool_call"
    ]
    assert len(calls) == 1, second.describe()
    assert calls[0]["tool"] == "get_drift"
    assert calls[0]["error"] is None, calls[0]
    report = calls[0]["result"]["structured_content"]
    _assert_design_report(report)
    assert Path(report["session"]["path"]) == rollouts[0]
    assert report["session"]["cli"] == "codex_cli"
    assert report["session"]["session_id"] == thread_id
    # Codex passes no session id (docs/host-configs.md §4.1): the newest rollout of this project.
    assert report["session"]["resolved_by"] == "newest_in_project"
    # Codex 0.171.0 writes the tool-calling response's token_count after the
    # function_call_output (seen in the rollout), so the file read holds turn 1's usage.
    assert report["session"]["tokens_estimated"] is False
    assert report["session"]["context_tokens"] >= FIRST_TURN_TOKENS
    # Like Claude Code, Codex sends the model the structured content as JSON, after a
    # "Wall time: … seconds\nOutput:\n" header (seen in the request bodies).
    sent = [
        request.tool_result
        for request in (
            parse_request("openai", entry.path, entry.body)
            for entry in fake_model.model_requests("openai")
        )
        if request.tool_result is not None
    ]
    assert len(sent) == 1
    assert json.loads(sent[0].split("Output:\n", 1)[1]) == report
    _assert_what_the_model_reads(sent[0].split("Output:\n", 1)[1])
