"""`driftguard setup --hooks`: the status line and hooks in Claude Code's settings.json,
with setup's safety rules."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from driftguard.setup_scripts import claude_hooks
from driftguard.setup_scripts._base import SetupRequest
from driftguard.setup_scripts.claude_hooks import HOOK_EVENTS, hook_group, status_line

COMMAND = "/opt/tools/venv/bin/driftguard"
OLD_COMMAND = "/home/dev/old-venv/bin/driftguard"


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    folder = isolated_home / ".claude"
    folder.mkdir()
    return folder


def install(**changes: Any) -> claude_hooks.HostResult:
    return claude_hooks.run(SetupRequest(command=COMMAND, **changes))


def uninstall(**changes: Any) -> claude_hooks.HostResult:
    return claude_hooks.run(SetupRequest(command=COMMAND, action="uninstall", **changes))


def settings(claude_dir: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((claude_dir / "settings.json").read_text("utf-8"))
    return value


def backups(claude_dir: Path) -> list[Path]:
    return sorted(claude_dir.glob("settings.json.driftguard-backup-*"))


USER_SETTINGS = """{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  },
  "statusLine": {"type": "command", "command": "~/bin/my-status.sh"}
}
"""


def test_nothing_is_written_when_claude_code_is_not_installed(isolated_home: Path) -> None:
    result = install()
    assert result.status == "skipped"
    assert result.detail.startswith("not installed")
    assert not (isolated_home / ".claude").exists()


def test_install_creates_the_settings_with_the_three_hooks_and_the_status_line(
    claude_dir: Path,
) -> None:
    result = install()
    assert (result.status, result.ok) == ("added", True)
    value = settings(claude_dir)
    assert value == {
        "hooks": {spec.event: [hook_group(COMMAND, spec)] for spec in HOOK_EVENTS},
        "statusLine": status_line(COMMAND),
    }
    commands = [value["hooks"][spec.event][0]["hooks"][0]["command"] for spec in HOOK_EVENTS]
    assert [shlex.split(c) for c in commands] == [
        [COMMAND, "hook", "session-start"],
        [COMMAND, "hook", "user-prompt-submit"],
        [COMMAND, "hook", "stop"],
    ]
    assert value["statusLine"]["refreshInterval"] == 3  # seconds: current soon after a turn
    assert (claude_dir / "settings.json").stat().st_mode & 0o777 == 0o600


def test_a_path_with_a_space_is_quoted_for_the_shell(claude_dir: Path) -> None:
    claude_hooks.run(SetupRequest(command="/Users/dev/My Tools/bin/driftguard"))
    command = settings(claude_dir)["statusLine"]["command"]
    assert shlex.split(command) == ["/Users/dev/My Tools/bin/driftguard", "statusline"]


def test_install_twice_changes_nothing_the_second_time(claude_dir: Path) -> None:
    install()
    before = (claude_dir / "settings.json").read_bytes()
    again = install()
    assert (again.status, again.ok) == ("already present", True)
    assert (claude_dir / "settings.json").read_bytes() == before
    assert backups(claude_dir) == []  # a created file needs no backup; a keep writes none


def test_the_users_hooks_and_status_line_are_kept_and_the_wrap_line_is_offered(
    claude_dir: Path,
) -> None:
    path = claude_dir / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
    result = install()
    assert result.status == "added"
    value = settings(claude_dir)
    assert value["statusLine"] == {"type": "command", "command": "~/bin/my-status.sh"}
    assert value["hooks"]["Stop"][0] == {
        "hooks": [{"type": "command", "command": "notify-send done"}]
    }
    assert value["hooks"]["Stop"][1] == hook_group(COMMAND, HOOK_EVENTS[2])
    assert value["model"] == "opus"
    (note,) = result.notes
    assert note.startswith("kept your own statusLine (~/bin/my-status.sh)")
    assert note.endswith(f"{COMMAND} statusline --wrap '~/bin/my-status.sh'")
    assert [b.read_text("utf-8") for b in backups(claude_dir)] == [USER_SETTINGS]


def test_uninstall_gives_back_the_users_file_byte_for_byte(claude_dir: Path) -> None:
    path = claude_dir / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
    install()
    result = uninstall()
    assert result.status == "removed"
    assert path.read_text(encoding="utf-8") == USER_SETTINGS
    assert uninstall().status == "not present"


def test_uninstall_of_a_file_install_created_removes_the_file(claude_dir: Path) -> None:
    install()
    assert uninstall().status == "removed"
    assert not (claude_dir / "settings.json").exists()


def test_uninstall_without_the_ledger_removes_only_driftguards_entries(
    claude_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    install()
    monkeypatch.setenv("DRIFTGUARD_HOME", str(tmp_path / "another-state"))  # ledger not here
    assert uninstall().status == "removed"
    assert settings(claude_dir) == {"hooks": {spec.event: [] for spec in HOOK_EVENTS}}


def test_a_wrapped_status_line_is_the_users_and_survives_uninstall(claude_dir: Path) -> None:
    wrapped = {"type": "command", "command": f"{COMMAND} statusline --wrap 'my-status'"}
    (claude_dir / "settings.json").write_text(json.dumps({"statusLine": wrapped}), "utf-8")
    result = install()
    assert settings(claude_dir)["statusLine"] == wrapped
    assert result.notes == ()  # it shows the drift already: no advice to wrap it again
    uninstall()
    assert settings(claude_dir) == {"statusLine": wrapped}


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"model": "opus",}\n', "does not parse as strict JSON"),
        ('{"model": "opus" // mine\n}\n', "does not parse as strict JSON"),
        ("[]\n", "the top level is not a JSON object"),
        ('{"hooks": []}\n', '"hooks" is not an object'),
        ('{"hooks": {"Stop": {"hooks": []}}}\n', '"hooks.Stop" is not a list'),
        ('{"statusLine": {}, "statusLine": {}}\n', '"statusLine" appears more than once'),
    ],
)
def test_a_file_that_cannot_be_edited_safely_is_refused_and_left_alone(
    claude_dir: Path, content: str, why: str
) -> None:
    path = claude_dir / "settings.json"
    path.write_text(content, encoding="utf-8")
    result = install()
    assert (result.status, result.ok) == ("refused", False)
    assert why in result.detail
    assert path.read_text(encoding="utf-8") == content
    assert backups(claude_dir) == []


def test_a_dry_run_shows_the_diff_and_writes_nothing(claude_dir: Path) -> None:
    path = claude_dir / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
    result = install(dry_run=True)
    assert (result.status, result.dry_run) == ("added", True)
    assert f'+            "command": "{COMMAND} hook session-start",' in result.diff
    assert path.read_text(encoding="utf-8") == USER_SETTINGS
    assert backups(claude_dir) == []


def test_an_older_driftguard_entry_is_left_alone_unless_update_is_given(
    claude_dir: Path,
) -> None:
    claude_hooks.run(SetupRequest(command=OLD_COMMAND))
    kept = install()
    assert (kept.status, kept.ok) == ("skipped", False)
    assert "--update replaces them" in kept.detail
    assert settings(claude_dir)["statusLine"] == status_line(OLD_COMMAND)
    updated = install(update=True)
    assert (updated.status, updated.ok) == ("updated", True)
    value = settings(claude_dir)
    assert value["statusLine"] == status_line(COMMAND)
    assert all(value["hooks"][s.event] == [hook_group(COMMAND, s)] for s in HOOK_EVENTS)


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_the_files_permission_bits_are_kept(claude_dir: Path) -> None:
    path = claude_dir / "settings.json"
    path.write_text("{}\n", encoding="utf-8")
    path.chmod(0o640)
    install()
    assert path.stat().st_mode & 0o777 == 0o640
    assert backups(claude_dir)[0].stat().st_mode & 0o777 == 0o640


def test_claude_config_dir_moves_the_settings(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "claude-config"
    moved.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    assert install().status == "added"
    assert (moved / "settings.json").is_file()
    assert not (isolated_home / ".claude").exists()


def test_one_line_and_empty_lists_are_extended_in_their_own_layout_and_given_back(
    claude_dir: Path,
) -> None:
    original = (
        '{\n  "hooks": {\n'
        '    "Stop": [{"hooks": [{"type": "command", "command": "make lint"}]}],\n'
        '    "SessionStart": []\n'
        "  }\n}\n"
    )
    path = claude_dir / "settings.json"
    path.write_text(original, encoding="utf-8")
    install()
    text = path.read_text(encoding="utf-8")
    stop_line = next(line for line in text.splitlines() if '"Stop"' in line)
    assert stop_line.endswith(f'"command": "{COMMAND} hook stop", "timeout": 60}}]}}],')
    assert settings(claude_dir)["hooks"]["SessionStart"] == [hook_group(COMMAND, HOOK_EVENTS[0])]
    uninstall()
    assert path.read_text(encoding="utf-8") == original


def test_cli_setup_hooks_dry_run_reports_the_hooks_and_writes_nothing(
    claude_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    monkeypatch.setattr("shutil.which", lambda _name: None)  # no `claude` on PATH
    assert main(["setup", "--hooks", "--dry-run", "--host", "claude_code"]) == 0
    out = capsys.readouterr().out
    hooks_line = next(line for line in out.splitlines() if "settings.json" in line)
    assert hooks_line.startswith(
        "claude_code hooks: would add (added SessionStart, UserPromptSubmit"
    )
    assert "hook session-start" in out
    assert not (claude_dir / "settings.json").exists()


def test_cli_setup_hooks_for_a_project_leaves_the_user_settings_alone(
    claude_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    project = tmp_path / "app"
    project.mkdir()
    main(["setup", "--hooks", "--project", str(project)])
    assert not (claude_dir / "settings.json").exists()
    assert "claude_code hooks" not in capsys.readouterr().out


# --- what plain `setup --uninstall` says about the hooks ---

STILL_INSTALLED = (
    "claude_code hooks: still installed (SessionStart, UserPromptSubmit, Stop, statusLine "
    "in ~/.claude/settings.json; remove them with: driftguard setup --hooks --uninstall)"
)


@pytest.fixture
def cli(claude_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``driftguard setup`` through the command line, with no ``claude`` on PATH; returns
    the settings file."""
    monkeypatch.setattr("shutil.which", lambda _name: None)
    return claude_dir / "settings.json"


def _main(*args: str) -> int:
    from driftguard.cli import main

    return main(["setup", *args])


def test_plain_uninstall_says_the_hooks_are_still_installed_and_leaves_them(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main("--hooks") == 0
    installed = cli.read_bytes()
    capsys.readouterr()

    assert _main("--uninstall") == 0

    assert cli.read_bytes() == installed  # only what was asked: the server entries
    out = capsys.readouterr().out
    assert STILL_INSTALLED in out.splitlines()
    assert "claude_code: removed (~/.claude.json)" in out


def test_the_suggested_hooks_uninstall_then_removes_them_on_its_own(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main("--hooks") == 0
    assert _main("--uninstall") == 0
    capsys.readouterr()

    assert _main("--hooks", "--uninstall") == 0

    assert not cli.exists()  # install created it
    out = capsys.readouterr().out
    assert "still installed" not in out
    assert "claude_code: not present (~/.claude.json)" in out
    assert (
        "claude_code hooks: removed (removed SessionStart, UserPromptSubmit, Stop, statusLine "
        "in ~/.claude/settings.json)"
    ) in out
    assert _main("--uninstall") == 0
    assert "hooks" not in capsys.readouterr().out


def test_hooks_uninstall_alone_removes_everything_in_one_run(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main("--hooks") == 0
    assert _main("--hooks", "--uninstall") == 0
    assert not cli.exists()
    assert "still installed" not in capsys.readouterr().out


def test_plain_uninstall_reports_hooks_of_another_driftguard_path_too(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude_hooks.run(SetupRequest(command=OLD_COMMAND))
    assert _main("--uninstall", "--dry-run") == 0
    assert STILL_INSTALLED in capsys.readouterr().out.splitlines()


def test_plain_uninstall_of_other_hosts_or_a_project_says_nothing_about_the_hooks(
    cli: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main("--hooks") == 0
    (cli.parent.parent / ".gemini").mkdir()
    capsys.readouterr()
    assert _main("--uninstall", "--host", "gemini_cli") == 0
    assert _main("--uninstall", "--project", str(tmp_path)) == 0
    assert "hooks" not in capsys.readouterr().out


def test_plain_uninstall_without_hooks_says_nothing_about_them(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.write_text(USER_SETTINGS, encoding="utf-8")
    assert _main("--uninstall") == 0
    assert "hooks" not in capsys.readouterr().out


def test_uninstall_points_at_a_status_line_that_still_wraps_driftguard(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrapped = {"type": "command", "command": f"{COMMAND} statusline --wrap '~/bin/mine.sh'"}
    cli.write_text(json.dumps({"statusLine": wrapped}), encoding="utf-8")

    assert _main("--uninstall") == 0
    out = capsys.readouterr().out
    assert (
        "claude_code hooks: still installed (statusLine runs driftguard in "
        "~/.claude/settings.json; set its command back to: ~/bin/mine.sh)"
    ) in out.splitlines()

    assert _main("--hooks", "--uninstall") == 0
    assert settings(cli.parent) == {"statusLine": wrapped}  # the user's edit: theirs to undo
    note = "note: your statusLine still runs driftguard; set its command back to: ~/bin/mine.sh"
    assert note in capsys.readouterr().out


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_a_read_only_settings_file_is_refused(claude_dir: Path) -> None:
    path = claude_dir / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
    path.chmod(0o444)
    result = install()
    assert (result.status, result.ok) == ("refused", False)
    assert result.detail == "~/.claude/settings.json is read-only; nothing changed"
    assert path.read_text(encoding="utf-8") == USER_SETTINGS
    assert backups(claude_dir) == []
