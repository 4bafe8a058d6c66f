"""Discovery and every file-based adapter over the fixture trees (tests/fixtures/README.md):
each CLI's home variable aimed at a tree that mirrors its on-disk layout, so these run on
a clean clone without the shared corpus."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from driftguard.adapters import parse_session
from driftguard.cli import main
from driftguard.model import CliName
from driftguard.sessions.discovery import find_sessions, newest_session
from driftguard.sessions.resolve import resolve_session

ALPHA = Path("/home/dev/project-alpha")
BETA = Path("/home/dev/project-beta")
CLAUDE_ALPHA = "claude/projects/-home-dev-project-alpha/11111111-aaaa-4aaa-8aaa-000000000001.jsonl"
CLAUDE_BETA = "claude/projects/-home-dev-project-beta/33333333-bbbb-4bbb-8bbb-000000000003.jsonl"
GEMINI_ALPHA = "gemini/.gemini/tmp/project-alpha/chats/session-2026-11-30T10-00-5a1b2c3d.jsonl"
CODEX_ALPHA = (
    "codex/sessions/2026/11/30/"
    "rollout-2026-11-30T11-00-00-0199aaaa-bbbb-7ccc-8ddd-000000000004.jsonl"
)
CODEX_BETA = (
    "codex/sessions/2026/11/29/"
    "rollout-2026-11-29T08-00-00-0199bbbb-cccc-7ddd-8eee-000000000005.jsonl"
)


@dataclass(frozen=True)
class Facts:
    """What a fixture session parses to (the catalogue in tests/fixtures/README.md)."""

    relative: str
    cli: CliName
    session_id: str
    messages: int
    compactions: int
    context_tokens: int
    context_window: int
    tool_kinds: tuple[tuple[str, str], ...]


FACTS = [
    Facts(
        CLAUDE_ALPHA,
        "claude_code",
        "11111111-aaaa-4aaa-8aaa-000000000001",
        messages=2,
        compactions=1,
        context_tokens=5608,
        context_window=200_000,
        tool_kinds=(("Edit", "edit"), ("Bash", "shell")),
    ),
    Facts(
        GEMINI_ALPHA,
        "gemini_cli",
        "5a1b2c3d-4e5f-4a6b-8c7d-000000000002",
        messages=4,
        compactions=0,
        context_tokens=9300,
        context_window=1_048_576,
        tool_kinds=(("read_file", "read"), ("replace", "edit"), ("run_shell_command", "shell")),
    ),
    Facts(
        CODEX_ALPHA,
        "codex_cli",
        "0199aaaa-bbbb-7ccc-8ddd-000000000004",
        messages=2,
        compactions=0,
        context_tokens=21_700,
        context_window=258_400,
        tool_kinds=(("shell", "edit"), ("shell", "shell")),
    ),
]


@pytest.mark.parametrize("facts", FACTS, ids=lambda f: f.cli)
def test_each_fixture_session_parses_to_its_catalogued_facts(
    fixture_homes: Path, facts: Facts
) -> None:
    session = parse_session(fixture_homes / facts.relative)
    assert (session.cli, session.session_id) == (facts.cli, facts.session_id)
    assert session.message_count == facts.messages
    assert session.compactions == facts.compactions
    assert (session.context_tokens, session.context_window) == (
        facts.context_tokens,
        facts.context_window,
    )
    assert session.tokens_estimated is False
    assert session.skipped_lines == 0
    kinds = tuple((c.name, c.kind) for m in session.messages for c in m.tool_calls)
    assert kinds == facts.tool_kinds


def test_each_cli_finds_alphas_own_session_and_no_subagents(fixture_homes: Path) -> None:
    assert find_sessions(ALPHA) == {
        "claude_code": fixture_homes / CLAUDE_ALPHA,
        "gemini_cli": fixture_homes / GEMINI_ALPHA,
        "codex_cli": fixture_homes / CODEX_ALPHA,
    }


def test_another_project_never_gets_alphas_sessions(fixture_homes: Path) -> None:
    assert find_sessions(BETA) == {
        "claude_code": fixture_homes / CLAUDE_BETA,
        "codex_cli": fixture_homes / CODEX_BETA,
    }
    assert newest_session(BETA, ("claude_code",)) == ("claude_code", fixture_homes / CLAUDE_BETA)


@pytest.mark.parametrize("facts", FACTS, ids=lambda f: f.cli)
def test_each_session_is_found_by_its_id(fixture_homes: Path, facts: Facts) -> None:
    resolved = resolve_session(facts.session_id, env={})
    assert (resolved.path, resolved.cli) == (fixture_homes / facts.relative, facts.cli)


def test_a_fixture_session_scores_from_the_command_line(
    fixture_homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(fixture_homes / CODEX_ALPHA), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["session"]["cli"] == "codex_cli"
    assert report["session"]["context_tokens"] == 21_700
    assert report["recorded"] is True  # a file in a session folder: its history is kept
