"""Registry logins, symbol-rich ``.env`` secrets, Discord bot tokens and Twilio API keys
never reach a person or a file through any surface.

Each kind is planted, in a synthetic Claude Code session written where Claude Code keeps
it, in the prompt the person typed, in a command the agent repeats until it is a loop, and
in the failed result of that command. Then every public entry point that shows or writes
an excerpt is driven as a user or a host would: the MCP tools and prompt over the
in-memory client, ``driftguard score --json`` (the loop's description), every form of
``driftguard handoff``, the SessionStart hook that hands the saved handoff to the next
session, and ``driftguard report`` of the session and of the whole project (the loop's
mark on the timeline). None may show the secret, and each must show the redaction where
the excerpt was — so a surface that silently lost the excerpt does not pass.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.live.hooks import run_hook
from driftguard.server import create_server

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"
DJANGO_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
"""The characters of Django's ``get_random_secret_key()``."""

SESSION_ID = "5ec0e7a1-0000-4000-8000-0000000000a1"
NEXT_SESSION_ID = "5ec0e7a1-0000-4000-8000-0000000000a2"
ATTEMPTS = 4
"""Failed runs of the looping command: enough for each loop pattern to reach 100."""


def fake(alphabet: str, length: int, seed: int) -> str:
    """A deterministic random string: the body of a made-up secret."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


@dataclass(frozen=True, slots=True)
class Planted:
    """One credential kind as a session would carry it: the ``prompt`` the person typed,
    the ``command`` the agent keeps running, the ``error`` it fails with, the ``secrets``
    none of them may show, and the ``rule`` whose marker replaces them."""

    name: str
    prompt: str
    command: str
    error: str
    secrets: tuple[str, ...]
    rule: str


def _planted() -> list[Planted]:
    registry = base64.b64encode(b"ci-bot:" + fake(ALNUM, 22, 1).encode()).decode()
    config = json.dumps({"auths": {"ghcr.io": {"auth": registry}}}, separators=(",", ":"))
    django = "k#8!@" + fake(DJANGO_ALPHABET.replace("$", ""), 45, 2)
    snowflake = "3" + fake(string.digits, 17, 3)
    discord = (
        base64.urlsafe_b64encode(snowflake.encode()).decode().rstrip("=")
        + f".{fake(URLSAFE, 6, 4)}.{fake(URLSAFE, 38, 5)}"
    )
    key_sid, key_secret = "SK" + fake(HEX, 32, 6), fake(ALNUM, 32, 7)
    account = "AC" + fake(HEX, 32, 8)
    twilio = f"https://api.twilio.com/2010-04-01/Accounts/{account}/Messages.json"
    return [
        Planted(
            "a Docker config.json auth",
            f"Pulls fail with this ~/.docker/config.json: {config}",
            f"echo '{config}' > ~/.docker/config.json && docker pull ghcr.io/acme/api",
            f"Error response from daemon: unauthorized; config was {config}",
            (registry,),
            "registry-auth",
        ),
        Planted(
            "a .env SECRET_KEY holding symbols",
            f"The .env file says SECRET_KEY={django} and check --deploy still fails",
            f"SECRET_KEY='{django}' python manage.py check --deploy",
            f"SystemCheckError: SECRET_KEY={django} is too short (security.W009)",
            (django,),
            "secret-assignment",
        ),
        Planted(
            "a Discord bot token",
            f"The bot cannot log in with {discord}, find out why",
            f'curl -sf -H "Authorization: Bot {discord}" https://discord.com/api/v10/users/@me',
            f"curl: (22) 401 Unauthorized for {discord}",
            (discord,),
            "discord-token",
        ),
        Planted(
            "a Twilio API key",
            f"Send the SMS with key {key_sid}:{key_secret} on account {account}",
            f"curl -sf -u {key_sid}:{key_secret} -X POST {twilio} -d To=+15550100",
            f"HTTP 401: credentials {key_sid}:{key_secret} are not valid",
            (key_sid, key_secret, account),
            "twilio-key",
        ),
    ]


PLANTED = _planted()


def _record(
    kind: str, uuid: str, parent: str | None, message: dict[str, Any], minute: int, cwd: Path
) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION_ID,
        "cwd": str(cwd),
        "version": "2.1.114",
        "timestamp": f"2026-11-30T10:{minute:02d}:00.000Z",
        "message": message,
    }


def write_looping_session(planted: Planted, project: Path, home: Path) -> Path:
    """A Claude Code session in the project's folder under ``home/.claude/projects``: the
    prompt, then :data:`ATTEMPTS` runs of the command, each failing with the error, then a
    reply saying it still fails."""
    records = [_record("user", "u0", None, {"role": "user", "content": planted.prompt}, 0, project)]
    parent = "u0"
    for attempt in range(ATTEMPTS):
        call, result = f"a{attempt}", f"r{attempt}"
        tool_use = {"type": "tool_use", "id": f"toolu_{attempt}", "name": "Bash"}
        tool_use["input"] = {"command": planted.command, "description": "Try again"}
        records.append(
            _record(
                "assistant",
                call,
                parent,
                {
                    "id": f"msg_{attempt}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "Trying once more."}, tool_use],
                    "usage": {"input_tokens": 2000 + 500 * attempt, "output_tokens": 40},
                },
                1 + 2 * attempt,
                project,
            )
        )
        answer = {
            "type": "tool_result",
            "tool_use_id": f"toolu_{attempt}",
            "content": f"Exit code 1\n{planted.error}",
            "is_error": True,
        }
        records.append(
            _record(
                "user",
                result,
                call,
                {"role": "user", "content": [answer]},
                2 + 2 * attempt,
                project,
            )
        )
        parent = result
    records.append(
        _record(
            "assistant",
            "end",
            parent,
            {
                "id": "msg_end",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "It still fails the same way."}],
                "usage": {"input_tokens": 4200, "output_tokens": 20},
            },
            2 + 2 * ATTEMPTS,
            project,
        )
    )
    folder = home / ".claude" / "projects" / claude_project_dir_name(str(project))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=PLANTED, ids=[planted.name for planted in PLANTED])
def planted(request: pytest.FixtureRequest) -> Planted:
    value = request.param
    assert isinstance(value, Planted)
    return value


@pytest.fixture
def session(
    planted: Planted, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    project = tmp_path / "app"
    project.mkdir()
    monkeypatch.chdir(project)
    return write_looping_session(planted, project, isolated_home)


def _shows_no_secret(planted: Planted, text: str) -> bool:
    return not any(secret in text for secret in planted.secrets)


def _marker(planted: Planted) -> str:
    return f"[REDACTED:{planted.rule}:"


def test_each_planted_command_is_a_loop_the_score_describes_with_the_secret_redacted(
    planted: Planted, session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--json", str(session)]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    description = report["loop"]["description"]
    assert f"failed {ATTEMPTS} times in a row" in description
    assert _marker(planted) in description
    assert _shows_no_secret(planted, out + err)


def test_the_score_text_names_the_loop_without_the_secret(
    planted: Planted, session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(session)]) == 0
    out, err = capsys.readouterr()
    assert "failed 4 times in a row" in out
    assert _shows_no_secret(planted, out + err)


@pytest.mark.anyio
async def test_the_mcp_handoff_tools_and_prompt_show_the_failure_but_not_the_secret(
    planted: Planted, session: Path
) -> None:
    shown: dict[str, str] = {}
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        for tool in ("get_drift", "get_handoff", "save_handoff"):
            result = await client.call_tool(tool, {})
            assert result.is_error is False, (tool, result.content)
            shown[tool] = json.dumps(
                [result.structured_content, [c.model_dump() for c in result.content]]
            )
        prompt = await client.get_prompt("handoff", {})
        shown["handoff prompt"] = json.dumps([m.model_dump() for m in prompt.messages])
    for surface in ("get_handoff", "save_handoff", "handoff prompt"):
        assert _marker(planted) in shown[surface], surface
    assert [s for s, text in shown.items() if not _shows_no_secret(planted, text)] == []


@pytest.mark.parametrize(
    "flags", [[], ["--json"], ["--write"], ["--write", "--json"]], ids=" ".join
)
def test_every_form_of_driftguard_handoff_redacts_the_secret_in_what_it_prints_and_saves(
    planted: Planted, session: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", *flags, str(session)]) == 0
    out, err = capsys.readouterr()
    assert _marker(planted) in out
    assert _shows_no_secret(planted, out + err)
    saved = Path.cwd() / ".driftguard"
    if "--write" in flags:
        files = [p for p in saved.rglob("*") if p.is_file()]
        assert any(p.name == "handoff.md" for p in files)
        assert any(_marker(planted) in p.read_text(encoding="utf-8") for p in files)
        for path in files:
            assert _shows_no_secret(planted, path.read_text(encoding="utf-8")), path


def test_the_next_session_starts_with_the_saved_handoff_and_not_the_secret(
    planted: Planted, session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", "--write", str(session)]) == 0
    capsys.readouterr()
    payload = {
        "session_id": NEXT_SESSION_ID,
        "transcript_path": str(session.with_name(f"{NEXT_SESSION_ID}.jsonl")),
        "cwd": str(Path.cwd()),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    context = run_hook("session-start", json.dumps(payload).encode())
    assert "## What we accomplished" in context
    assert _marker(planted) in context
    assert _shows_no_secret(planted, context + capsys.readouterr().err)


def _loop_labels(page: str) -> list[str]:
    """The labels of the loop marks on a report page's timeline (its JSON data)."""
    opening = '<script type="application/json" id="data">'
    start = page.index(opening) + len(opening)
    data = json.loads(page[start : page.index("</script>", start)])
    return [str(loop["label"]) for loop in data["loops"]]


def test_the_report_page_marks_the_loop_and_shows_no_secret(
    planted: Planted, session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page_path = tmp_path / "page.html"
    assert main(["report", str(session), "-o", str(page_path)]) == 0
    out, err = capsys.readouterr()
    page = page_path.read_text(encoding="utf-8")
    [label] = _loop_labels(page)
    assert label.endswith(f"×{ATTEMPTS}")
    assert _marker(planted) in page
    assert _shows_no_secret(planted, page + out + err)


def test_report_all_shows_no_secret_in_any_page_or_the_index(
    planted: Planted, session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "pages"
    assert main(["report", "--all", "-o", str(out_dir)]) == 0
    out, err = capsys.readouterr()
    pages = {p.name: p.read_text(encoding="utf-8") for p in out_dir.iterdir()}
    assert "index.html" in pages
    assert len(pages) == 2
    assert any(_marker(planted) in page for page in pages.values())
    assert [name for name, page in pages.items() if not _shows_no_secret(planted, page)] == []
    assert _shows_no_secret(planted, out + err)


def test_nothing_driftguard_wrote_under_home_or_the_project_holds_the_secret(
    planted: Planted,
    session: Path,
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for args in (
        ["score", str(session)],
        ["handoff", "--write", str(session)],
        ["report", str(session)],
    ):
        assert main(args) == 0
    capsys.readouterr()
    written = [
        Path(root) / name
        for folder in (isolated_home, tmp_path / "app")
        for root, _, names in os.walk(folder)
        for name in names
        if Path(root, name) != session
    ]
    assert any(p.suffix == ".html" for p in written)  # the report went under ~/.driftcli
    leaked = [p for p in written if not _shows_no_secret(planted, p.read_text(errors="replace"))]
    assert leaked == []
