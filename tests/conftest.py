"""Shared fixtures: every test runs with a private HOME, and finds the shared corpus.

Nothing in a test may touch the real ``$HOME``: the autouse fixture below points HOME and
every CLI's home override at a temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
"""The shared corpus of real session files (read in place, never copied)."""
FIXTURES = REPO_ROOT / "tests" / "fixtures"
"""Synthetic fixture trees in each CLI's on-disk layout (tests/fixtures/README.md)."""

_ENV_TO_CLEAR = (
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "GEMINI_CLI_HOME",
    "CODEX_HOME",
    "DRIFTGUARD_CURSOR_USER_DIR",
    "APPDATA",
    "DRIFTGUARD_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    # what moves a host's compaction point (driftguard.engine.window)
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "DISABLE_COMPACT",
    "DISABLE_AUTO_COMPACT",
    # what chooses Claude Code's window (200k or 1M) for a model that may run either way
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_DISABLE_1M_CONTEXT",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    # a developer's own OpenTelemetry export never receives a test's scores
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_SERVICE_NAME",
    "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point HOME (and the CLIs' own overrides) at an empty temporary folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in _ENV_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DRIFTGUARD_HOME", str(home / ".driftcli"))
    # the machine's own Gemini CLI system settings never count in a test
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(home / "no-system-settings.json"))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", str(home / "no-system-defaults.json"))
    return home


@pytest.fixture
def fixture_homes(monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Path:
    """Aim each CLI's home variable at its fixture tree (read in place, never written);
    Cursor's at an empty folder of the private home. Returns the fixtures folder."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(FIXTURES / "claude"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(FIXTURES / "gemini"))
    monkeypatch.setenv("CODEX_HOME", str(FIXTURES / "codex"))
    monkeypatch.setenv("DRIFTGUARD_CURSOR_USER_DIR", str(isolated_home / "no-cursor"))
    return FIXTURES


def corpus_file(relative: str) -> Path:
    """The corpus file at ``relative``, or skip the test (with the reason) when absent."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"shared corpus not available: {path} is absent")
    return path


def write_claude_session(
    path: Path,
    replies: list[str],
    *,
    cwd: str = "/home/dev/app",
    session_id: str = "11111111-2222-4333-8444-555555555555",
    model: str = "claude-sonnet-4-5-20250929",
    tokens_per_reply: int = 1000,
) -> Path:
    """A small synthetic Claude Code session: one prompt and one reply per item, by
    ``model``; the context grows by ``tokens_per_reply`` tokens a reply (the ``n``-th
    reply's request holds ``10 + n × tokens_per_reply``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    parent = None
    for index, reply in enumerate(replies):
        prompt_uuid = f"00000000-0000-4000-8000-{index * 2:012d}"
        reply_uuid = f"00000000-0000-4000-8000-{index * 2 + 1:012d}"
        stamp = f"2026-11-30T10:{index:02d}:00.000Z"
        envelope = {
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": "2.1.114",
            "timestamp": stamp,
        }
        lines.append(
            {
                **envelope,
                "type": "user",
                "uuid": prompt_uuid,
                "parentUuid": parent,
                "message": {"role": "user", "content": f"step {index}: please continue"},
            }
        )
        lines.append(
            {
                **envelope,
                "type": "assistant",
                "uuid": reply_uuid,
                "parentUuid": prompt_uuid,
                "requestId": f"req_{index:04d}",
                "message": {
                    "id": f"msg_{index:04d}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": reply}],
                    "usage": {
                        "input_tokens": 10,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": tokens_per_reply * (index + 1),
                        "output_tokens": 50,
                    },
                },
            }
        )
        parent = reply_uuid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def write_project_session(
    home: Path, project: Path, replies: list[str], *, session_id: str
) -> Path:
    """:func:`write_claude_session` for ``project``, where Claude Code keeps it: in the
    project's folder under ``home/.claude/projects`` (a session folder: its scores are
    recorded)."""
    from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name

    folder = home / ".claude" / "projects" / claude_project_dir_name(str(project))
    return write_claude_session(
        folder / f"{session_id}.jsonl", replies, cwd=str(project), session_id=session_id
    )


def write_loop_session(path: Path, *, turns: int, attempts: int) -> Path:
    """A synthetic Claude Code session in an action loop: each of ``turns`` prompts is
    answered by ``attempts`` failing ``npm test`` runs and a short reply."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for turn in range(turns):
        lines.append(
            {
                "type": "user",
                "uuid": f"u{turn}",
                "sessionId": "s",
                "message": {"role": "user", "content": f"please make the tests pass ({turn})"},
            }
        )
        for attempt in range(attempts):
            call_id = f"t{turn}-{attempt}"
            lines.append(
                {
                    "type": "assistant",
                    "uuid": f"a{call_id}",
                    "sessionId": "s",
                    "requestId": f"r{call_id}",
                    "message": {
                        "id": f"m{call_id}",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": call_id,
                                "name": "Bash",
                                "input": {"command": "npm test"},
                            }
                        ],
                    },
                }
            )
            lines.append(
                {
                    "type": "user",
                    "uuid": f"r{call_id}",
                    "sessionId": "s",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": call_id,
                                "content": "1 test failed",
                                "is_error": True,
                            }
                        ],
                    },
                }
            )
        lines.append(
            {
                "type": "assistant",
                "uuid": f"end{turn}",
                "sessionId": "s",
                "requestId": f"end{turn}",
                "message": {
                    "id": f"end{turn}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "The tests still fail."}],
                },
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
