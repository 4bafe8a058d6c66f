"""`driftguard setup` for Claude Code when ``claude`` is on PATH: it registers through
``claude mcp add-json --scope user`` and removes through ``claude mcp remove --scope user``
(docs/host-configs.md §3.1).

The ``claude`` here is a stand-in script: it logs its arguments and edits
``.claude.json`` the way Claude Code 2.1.197 does (whole file rewritten with two-space
indentation, its own keys added, an empty ``mcpServers`` left after a remove: seen with
the real one here), or fails on request. The real CLI runs in
tests/e2e/test_setup_real_hosts.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from setup_helpers import snapshot

from driftguard.cli import main
from driftguard.sessions.hosts import HOST_ENV
from driftguard.setup_scripts import find_console_script

STAND_IN = """\
import json, os, sys
from pathlib import Path

args = sys.argv[1:]
with open(os.environ["FAKE_CLAUDE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_CLAUDE_FAIL") == args[1]:
    print(f"Error: {args[1]} refused by the stand-in", file=sys.stderr)
    sys.exit(1)
folder = Path(os.environ.get("CLAUDE_CONFIG_DIR") or os.environ["HOME"])
path = folder / ".claude.json"
config = json.loads(path.read_text()) if path.exists() else {}
servers = config.setdefault("mcpServers", {})
if os.environ.get("FAKE_CLAUDE_NOOP"):
    pass
elif args[1] == "add-json":
    if args[4] in servers:
        print(f"MCP server {args[4]} already exists in user config", file=sys.stderr)
        sys.exit(1)
    entry = json.loads(args[5])
    for key in os.environ.get("FAKE_CLAUDE_STRIP", "").split(","):
        entry.pop(key, None)  # the real one drops keys it does not know
    servers[args[4]] = entry
elif args[1] == "remove":
    servers.pop(args[4])
config["migrationVersion"] = 13
path.write_text(json.dumps(config, indent=2))
"""

ORIGINAL = {
    "numStartups": 4,
    "mcpServers": {"notes": {"type": "stdio", "command": "/bin/notes", "args": [], "env": {}}},
    "custom": {"keep": [1, "two", None]},
}


@pytest.fixture
def claude_log(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in ``claude`` alone on PATH; returns the file its calls are logged to."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text(f"#!{sys.executable}\n{STAND_IN}", encoding="utf-8")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    log = tmp_path / "claude-calls.jsonl"
    log.touch()
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude.json").write_text(json.dumps(ORIGINAL), encoding="utf-8")
    return log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _entry(command: str | None = None) -> dict[str, Any]:
    return {
        "type": "stdio",
        "command": command or find_console_script(),
        "args": ["serve"],
        "env": {HOST_ENV: "claude_code"},
    }


def _config(home: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    return config


def test_claude_on_path_registers_through_claude_mcp_add_json(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "--host", "claude_code"]) == 0

    [call] = _calls(claude_log)
    assert call[:5] == ["mcp", "add-json", "--scope", "user", "driftguard"]
    assert json.loads(call[5]) == _entry()
    config = _config(isolated_home)
    assert config["mcpServers"]["driftguard"] == _entry()
    assert config["custom"] == ORIGINAL["custom"]
    out = capsys.readouterr().out
    assert "claude_code: added (~/.claude.json, through `claude mcp add-json`)" in out
    backups = list(isolated_home.glob(".claude.json.driftguard-backup-*"))
    assert [json.loads(b.read_text(encoding="utf-8")) for b in backups] == [ORIGINAL]


def test_claude_uninstall_runs_claude_mcp_remove(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "--host", "claude_code"]) == 0
    assert main(["setup", "--host", "claude_code", "--uninstall"]) == 0

    assert _calls(claude_log)[-1] == ["mcp", "remove", "--scope", "user", "driftguard"]
    config = _config(isolated_home)
    assert "driftguard" not in config["mcpServers"]
    assert {key: config[key] for key in ORIGINAL} == ORIGINAL
    assert "removed (~/.claude.json, through `claude mcp remove`)" in capsys.readouterr().out


def test_a_present_entry_runs_no_claude_command(claude_log: Path) -> None:
    assert main(["setup", "--host", "claude_code"]) == 0
    assert main(["setup", "--host", "claude_code"]) == 0
    assert len(_calls(claude_log)) == 1


def test_dry_run_runs_no_claude_command_and_shows_it(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(isolated_home)
    assert main(["setup", "--host", "claude_code", "--dry-run"]) == 0
    assert _calls(claude_log) == []
    assert snapshot(isolated_home) == before
    out = capsys.readouterr().out
    assert "claude_code: would add (~/.claude.json, through `claude mcp add-json`)" in out
    assert "note: would run: " in out
    assert "mcp add-json --scope user driftguard '{" in out


def test_update_removes_then_adds_the_entry(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {**ORIGINAL, "mcpServers": {"driftguard": _entry("/old/bin/driftguard")}}
    (isolated_home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")

    assert main(["setup", "--host", "claude_code"]) == 1
    assert _calls(claude_log) == []
    assert main(["setup", "--host", "claude_code", "--update"]) == 0

    assert [call[1] for call in _calls(claude_log)] == ["remove", "add-json"]
    assert _config(isolated_home)["mcpServers"]["driftguard"] == _entry()
    assert "claude_code: updated (" in capsys.readouterr().out


def test_a_failed_add_after_remove_puts_the_old_entry_back(
    claude_log: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _entry("/old/bin/driftguard")
    config = {**ORIGINAL, "mcpServers": {"driftguard": old}}
    (isolated_home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")
    # The stand-in refuses the first add-json (driftguard's) and accepts the restore.
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "add-json")
    stand_in = Path(claude_log.parent / "bin" / "claude")
    text = stand_in.read_text(encoding="utf-8").replace(
        'if os.environ.get("FAKE_CLAUDE_FAIL") == args[1]:',
        'if os.environ.get("FAKE_CLAUDE_FAIL") == args[1] and "/old/" not in args[-1]:',
    )
    stand_in.write_text(text, encoding="utf-8")

    assert main(["setup", "--host", "claude_code", "--update"]) == 1

    assert [call[1] for call in _calls(claude_log)] == ["remove", "add-json", "add-json"]
    assert _config(isolated_home)["mcpServers"]["driftguard"] == old


def test_a_failing_claude_is_reported_and_exits_1(
    claude_log: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "add-json")
    assert main(["setup", "--host", "claude_code"]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("claude_code:"))
    assert line.startswith("claude_code: failed (~/.claude.json: `")
    assert line.endswith("mcp add-json` exited 1: Error: add-json refused by the stand-in)")


def test_claude_that_reports_success_without_writing_the_entry_is_a_failure(
    claude_log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_NOOP", "1")
    assert main(["setup", "--host", "claude_code"]) == 1
    assert "does not show the change after `claude mcp` reported success" in (
        capsys.readouterr().out
    )


def test_a_claude_json_that_does_not_parse_is_refused_without_running_claude(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = isolated_home / ".claude.json"
    path.write_text('{"numStartups": 4,', encoding="utf-8")
    assert main(["setup", "--host", "claude_code"]) == 1
    assert _calls(claude_log) == []
    assert path.read_text(encoding="utf-8") == '{"numStartups": 4,'
    assert "claude_code: refused (cannot parse ~/.claude.json as JSON" in capsys.readouterr().out


def test_project_scope_edits_mcp_json_without_claude(claude_log: Path, tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    assert main(["setup", "--host", "claude_code", "--project", str(project)]) == 0
    assert _calls(claude_log) == []
    written = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert written == {"mcpServers": {"driftguard": _entry()}}


def test_update_through_claude_keeps_the_users_keys_and_variables(
    claude_log: Path, isolated_home: Path
) -> None:
    old = {
        **_entry("/old/bin/driftguard"),
        "timeout": 20000,
        "env": {HOST_ENV: "claude_code", "DRIFTGUARD_HOME": "/srv/drift"},
    }
    config = {**ORIGINAL, "mcpServers": {"driftguard": old}}
    (isolated_home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")

    assert main(["setup", "--host", "claude_code", "--update"]) == 0

    expected = {**old, "command": find_console_script()}
    assert json.loads(_calls(claude_log)[-1][5]) == expected
    assert _config(isolated_home)["mcpServers"]["driftguard"] == expected


def test_keys_claude_drops_on_update_are_named_in_a_note(
    claude_log: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = {**_entry("/old/bin/driftguard"), "timeout": 20000, "color": "blue"}
    config = {**ORIGINAL, "mcpServers": {"driftguard": old}}
    (isolated_home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("FAKE_CLAUDE_STRIP", "color")

    assert main(["setup", "--host", "claude_code", "--update"]) == 0

    assert _config(isolated_home)["mcpServers"]["driftguard"] == {
        **_entry(),
        "timeout": 20000,
    }
    out = capsys.readouterr().out
    assert (
        "note: `claude mcp add-json` did not keep these keys of your driftguard entry: color "
        "(the backup has them)"
    ) in out


def test_a_read_only_claude_json_is_refused_without_running_claude(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = isolated_home / ".claude.json"
    path.chmod(0o444)
    assert main(["setup", "--host", "claude_code"]) == 1
    assert _calls(claude_log) == []
    assert json.loads(path.read_text(encoding="utf-8")) == ORIGINAL
    assert (
        "claude_code: refused (~/.claude.json is read-only; nothing changed)"
        in capsys.readouterr().out
    )


def test_the_diff_shown_is_driftguards_entry_not_the_keys_claude_adds_of_its_own(
    claude_log: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / ".claude.json").unlink()  # claude creates it, with keys of its own
    assert main(["setup", "--host", "claude_code"]) == 0
    assert _config(isolated_home)["migrationVersion"] == 13
    out = capsys.readouterr().out
    added = [line.strip() for line in out.splitlines() if line.strip().startswith("+")]
    assert '+    "driftguard": {' in added
    assert not any("migrationVersion" in line for line in added)
