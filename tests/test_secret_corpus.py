"""The secret gate against a corpus of credential kinds and near misses.

Two detectors are measured on :mod:`secret_corpus` — the gate's own rules
(:func:`driftguard.secrets.gate`) and the detect-secrets library (Yelp, the
``SecretsCollection`` scan of a file with its default plugins and filters, each finding's
``secret_value`` replaced) — per kind: *caught* when none of the kind's secret spans is
left, and per near miss: a *false redaction* when the text changed. The table is printed
(``pytest -rP tests/test_secret_corpus.py``, or ``python tests/test_secret_corpus.py``).

The gate is kept because it catches every kind with no false redaction; detect-secrets is
measured, not used (it is a test dependency only). Then every kind goes through every
surface a secret could reach a person or a file by — the MCP tools and prompt, the saved
handoff files, ``driftguard handoff --write`` and ``--json``, the goal store, the history,
the session-start hook, ``driftguard report`` and ``report --all`` — and none may leak.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import write_claude_session
from mcp import Client
from secret_corpus import KINDS, NEAR_MISSES, Kind

from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.live.hooks import run_hook
from driftguard.secrets import gate
from driftguard.server import create_server

Detector = Callable[[str], str]
"""Text in, the text as a detector would show it (its findings replaced)."""


def own_rules(text: str) -> str:
    """The gate: redacted text, or nothing when it withholds the excerpt whole."""
    return gate(text).text or ""


def detect_secrets_findings(text: str) -> list[str]:
    """The ``secret_value`` of every finding detect-secrets' default scan of ``text``
    (written to a ``.txt`` file, as it scans files) reports."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "transcript.txt"
        path.write_text(text + "\n", encoding="utf-8")
        with default_settings():
            found = SecretsCollection()
            found.scan_file(str(path))
            return [s.secret_value for name in found.files for s in found[name] if s.secret_value]


def detect_secrets(text: str) -> str:
    """``text`` with every detect-secrets finding replaced (longest first)."""
    shown = text
    for value in sorted(set(detect_secrets_findings(text)), key=len, reverse=True):
        shown = shown.replace(value, "[REDACTED]")
    return shown


def _detectors() -> dict[str, Detector]:
    detectors: dict[str, Detector] = {"own rules": own_rules}
    try:
        import detect_secrets as _  # noqa: F401
    except ImportError:
        return detectors
    detectors["detect-secrets"] = detect_secrets
    return detectors


def caught(detector: Detector, kind: Kind) -> bool:
    shown = detector(kind.text)
    return all(secret not in shown for secret in kind.secrets)


def comparison() -> tuple[dict[str, dict[str, bool]], dict[str, dict[str, bool]]]:
    """Per detector: each kind → caught, each near miss → falsely redacted."""
    catches: dict[str, dict[str, bool]] = {}
    false: dict[str, dict[str, bool]] = {}
    for name, detector in _detectors().items():
        catches[name] = {kind.name: caught(detector, kind) for kind in KINDS}
        false[name] = {miss.name: detector(miss.text) != miss.text for miss in NEAR_MISSES}
    return catches, false


def comparison_table() -> str:
    """The measurement as a Markdown table: one row per kind and per near miss."""
    catches, false = comparison()
    names = list(catches)
    lines = [
        "| kind | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for kind in KINDS:
        cells = ["caught" if catches[n][kind.name] else "**leaked**" for n in names]
        lines.append(f"| {kind.name} | " + " | ".join(cells) + " |")
    for miss in NEAR_MISSES:
        cells = ["**false redaction**" if false[n][miss.name] else "left alone" for n in names]
        lines.append(f"| near miss: {miss.name} | " + " | ".join(cells) + " |")
    totals = [
        f"{sum(catches[n].values())}/{len(KINDS)} caught, "
        f"{sum(false[n].values())}/{len(NEAR_MISSES)} false"
        for n in names
    ]
    lines.append("| **total** | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def test_the_corpus_holds_at_least_thirty_kinds_and_their_near_misses() -> None:
    assert len(KINDS) >= 30
    assert len({kind.name for kind in KINDS}) == len(KINDS)
    assert len(NEAR_MISSES) >= 15
    for kind in KINDS:
        assert kind.secrets, kind.name
        assert all(len(secret) >= 6 and secret in kind.text for secret in kind.secrets)


def test_the_own_rules_catch_every_kind_with_no_false_redaction_and_the_table_says_so() -> None:
    catches, false = comparison()
    print(comparison_table())  # shown with -rP: the detectors side by side
    leaked = [name for name, hit in catches["own rules"].items() if not hit]
    falsely = [name for name, hit in false["own rules"].items() if hit]
    assert leaked == []
    assert falsely == []
    if "detect-secrets" in catches:
        # what the gate is measured against: it catches at least as much, and only the
        # gate has no false redaction (the reason it is kept, alone)
        assert sum(catches["own rules"].values()) >= sum(catches["detect-secrets"].values())


# --- every surface --------------------------------------------------------------------

SESSION_ID = "5ec0e7a1-0000-4000-8000-000000000001"
NEXT_SESSION_ID = "5ec0e7a1-0000-4000-8000-000000000002"


def _session_with(kind: Kind, folder: Path, project: Path) -> Path:
    """A Claude Code session in which the user pastes the kind's text in the first prompt,
    runs it as a command and gets it back in an error."""
    envelope = {"cwd": str(project), "sessionId": SESSION_ID, "version": "2.1.114"}
    records: list[dict[str, Any]] = []

    def add(kind_: str, uid: str, message: dict[str, Any], parent: str | None) -> None:
        records.append(
            {**envelope, "type": kind_, "uuid": uid, "parentUuid": parent, "message": message}
        )

    add("user", "u1", {"role": "user", "content": f"Set this up for me: {kind.text}"}, None)
    add(
        "assistant",
        "a1",
        {
            "id": "m1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Running the setup now."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": kind.text},
                },
            ],
            "usage": {"input_tokens": 900, "output_tokens": 20},
        },
        "u1",
    )
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": f"error: rejected {kind.text}",
        "is_error": True,
    }
    add("user", "t1", {"role": "user", "content": [result]}, "a1")
    add(
        "assistant",
        "a2",
        {
            "id": "m2",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "The setup failed; the value was refused."}],
            "usage": {"input_tokens": 1000, "output_tokens": 20},
        },
        "t1",
    )
    path = folder / f"{SESSION_ID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _leaks(kind: Kind, where: str, text: str) -> list[str]:
    return [f"{kind.name} leaks into {where}" for s in kind.secrets if s in text]


def _files_under(*folders: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in folders:
        for root, _, names in os.walk(folder):
            for name in names:
                path = Path(root) / name
                if path.suffix in (".jsonl",) and "projects" in path.parts:
                    continue  # the transcript itself holds the secret: it is the input
                found[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    return found


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
async def test_no_kind_leaks_through_any_surface(
    kind: Kind,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    transcript = _session_with(kind, folder, project)
    shown: dict[str, str] = {}

    async with Client(create_server()) as client:  # type: ignore[arg-type]
        for tool, arguments in (
            # (prefixed: the SDK decodes a JSON-looking argument before validating it)
            ("get_drift", {"goal": f"Goal: {kind.text}"}),
            ("get_drift", {}),  # the stored goal, echoed back
            ("get_handoff", {}),
            ("save_handoff", {}),
            ("get_trend", {}),
        ):
            result = await client.call_tool(tool, arguments)
            assert result.is_error is False, (tool, result.content)
            shown[f"MCP {tool}({', '.join(arguments)})"] = json.dumps(
                [result.structured_content, [c.model_dump() for c in result.content]]
            )
        prompt = await client.get_prompt("handoff", {})
        shown["MCP prompt handoff"] = json.dumps([m.model_dump() for m in prompt.messages])

    for args in (
        ["score", "--json", "--goal", kind.text, str(transcript)],
        ["handoff", "--json", str(transcript)],
        ["handoff", "--write", str(transcript)],
        ["handoff", "--write", "--json", str(transcript)],
        ["report", str(transcript)],
        ["report", "--all", "-o", str(tmp_path / "pages")],
    ):
        assert main(args) == 0, args
        out, err = capsys.readouterr()
        shown[f"driftguard {' '.join(args[:2])} (stdout and stderr)"] = out + err

    payload = {
        "session_id": NEXT_SESSION_ID,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    context = run_hook("session-start", json.dumps(payload).encode())
    assert "## What we accomplished" in context  # the saved handoff was handed over
    shown["session-start hook"] = context + capsys.readouterr().err

    for path, text in _files_under(isolated_home, project, tmp_path / "pages").items():
        shown[f"file {path}"] = text
    assert any(".driftguard" in where for where in shown)
    assert any(where.endswith(".html") and "/reports/" in where for where in shown)
    assert any(where.endswith("index.html") for where in shown)
    assert any("/sessions/" in where for where in shown)  # the goal store was written

    leaks = [leak for where, text in shown.items() for leak in _leaks(kind, where, text)]
    assert leaks == []


@pytest.mark.anyio
async def test_a_goal_holding_a_secret_is_echoed_and_stored_redacted_and_still_scores(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [sendgrid] = [kind for kind in KINDS if kind.name == "sendgrid-api-key"]
    [key] = sendgrid.secrets
    project = tmp_path / "app"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    write_claude_session(
        folder / f"{SESSION_ID}.jsonl",
        ["The mailer sends the welcome email.", "The mailer retries on a 429."],
        cwd=str(project),
        session_id=SESSION_ID,
    )
    goal = f"make the mailer send welcome emails with the key {key}"
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        given = await client.call_tool("get_drift", {"goal": goal})
        remembered = await client.call_tool("get_drift", {})
    for result in (given, remembered):
        data = result.structured_content
        assert data is not None
        assert data["goal"].startswith("make the mailer send welcome emails with the key ")
        assert "[REDACTED:sendgrid-key:" in data["goal"]
        assert data["factors"]["goal_distance"] is not None
    [stored] = (isolated_home / ".driftcli" / "sessions").iterdir()
    assert key not in stored.read_text(encoding="utf-8")
    assert "[REDACTED:sendgrid-key:" in json.loads(stored.read_text(encoding="utf-8"))["goal"]


if __name__ == "__main__":  # python tests/test_secret_corpus.py (tests/ is then on sys.path)
    print(comparison_table())
