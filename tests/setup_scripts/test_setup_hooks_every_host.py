"""`driftguard setup --hooks` on every host: Codex's hooks.json, Gemini CLI's settings.json
(with comments), Cursor's hooks.json and project rule — each installed with the host's
own shape and units, kept byte for byte outside driftguard's entries, removed exactly, and
reported when a plain uninstall leaves them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, cast

import pytest

from driftguard.cli import main
from driftguard.jsonc import parse as parse_jsonc
from driftguard.setup_scripts import HOOK_HOSTS, codex_hooks, cursor_rule, run_hooks
from driftguard.setup_scripts._base import HostName, SetupRequest
from driftguard.setup_scripts._hooks_file import run

COMMAND = "/opt/tools/venv/bin/driftguard"


@pytest.fixture
def homes(isolated_home: Path) -> Path:
    """Every host installed (its config folder exists), nothing configured yet."""
    for folder in (".claude", ".codex", ".gemini", ".cursor"):
        (isolated_home / folder).mkdir()
    return isolated_home


def install(**changes: Any) -> list[Any]:
    return run_hooks(SetupRequest(command=COMMAND, **changes), hooks=True)


def commands(elements: list[dict[str, Any]]) -> list[list[str]]:
    found = []
    for element in elements:
        handlers = element.get("hooks", [element])
        found += [shlex.split(handler["command"]) for handler in handlers]
    return found


def test_codex_gets_its_three_hooks_in_hooks_json_with_timeouts_in_seconds(homes: Path) -> None:
    install()
    value = json.loads((homes / ".codex" / "hooks.json").read_text("utf-8"))
    assert set(value) == {"hooks"}  # Codex refuses any other top-level key
    hooks = value["hooks"]
    assert hooks["SessionStart"] == [
        {
            "matcher": "startup|resume|clear|compact",
            "hooks": [
                {
                    "type": "command",
                    "command": f"{COMMAND} hook session-start --host codex_cli",
                    "timeout": 10,
                }
            ],
        }
    ]
    assert commands(hooks["UserPromptSubmit"]) == [
        [COMMAND, "hook", "user-prompt-submit", "--host", "codex_cli"]
    ]
    assert hooks["Stop"][0]["hooks"][0]["timeout"] == 60


def test_codexs_report_says_the_hooks_run_once_the_user_trusted_them(homes: Path) -> None:
    results = {r.label: r for r in install()}
    codex = results["codex_cli hooks"]
    assert (codex.status, codex.ok) == ("added", True)
    assert codex_hooks.TRUST_NOTE in codex.notes
    assert "/hooks" in codex_hooks.TRUST_NOTE
    assert "trusted_hash" not in (homes / ".codex" / "hooks.json").read_text("utf-8")
    assert not (homes / ".codex" / "config.toml").exists()  # trust is the user's to give


def test_gemini_gets_named_hooks_in_milliseconds_and_its_comments_stay(homes: Path) -> None:
    settings = homes / ".gemini" / "settings.json"
    original = (
        "{\n"
        "  // the user's own note\n"
        '  "security": {"auth": {"selectedType": "gemini-api-key"}},\n'
        '  "hooks": {\n'
        '    "AfterAgent": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n'
        "  }\n"
        "}\n"
    )
    settings.write_text(original, encoding="utf-8")
    install()
    text = settings.read_text("utf-8")
    assert "// the user's own note" in text
    hooks = parse_jsonc(text, comments=True).value["hooks"]
    assert commands(hooks["BeforeAgent"]) == [
        [COMMAND, "hook", "user-prompt-submit", "--host", "gemini_cli"]
    ]
    assert hooks["BeforeAgent"][0]["hooks"][0]["name"] == "driftguard-user-prompt-submit"
    assert hooks["SessionStart"][0]["hooks"][0]["timeout"] == 10_000
    assert hooks["AfterAgent"][0] == {"hooks": [{"type": "command", "command": "notify-send done"}]}
    assert commands(hooks["AfterAgent"][1:]) == [[COMMAND, "hook", "stop", "--host", "gemini_cli"]]
    run_hooks(SetupRequest(command=COMMAND, action="uninstall"), hooks=True)
    assert settings.read_text("utf-8") == original


def test_cursor_gets_a_versioned_file_whose_events_list_the_handlers(homes: Path) -> None:
    install()
    value = json.loads((homes / ".cursor" / "hooks.json").read_text("utf-8"))
    assert value == {
        "version": 1,
        "hooks": {
            "sessionStart": [
                {
                    "type": "command",
                    "command": f"{COMMAND} hook session-start --host cursor",
                    "timeout": 10,
                }
            ],
            "stop": [
                {"type": "command", "command": f"{COMMAND} hook stop --host cursor", "timeout": 60}
            ],
        },
    }


@pytest.mark.parametrize("host", ["codex_cli", "gemini_cli", "cursor"])
def test_install_twice_changes_nothing_and_uninstall_removes_the_file_it_created(
    homes: Path, host: str
) -> None:
    described = HOOK_HOSTS[cast(HostName, host)]
    first = run(described, SetupRequest(command=COMMAND))
    path = described.settings_file()
    written = path.read_bytes()
    again = run(described, SetupRequest(command=COMMAND))
    assert (first.status, again.status) == ("added", "already present")
    assert path.read_bytes() == written
    gone = run(described, SetupRequest(command=COMMAND, action="uninstall"))
    assert gone.status == "removed"
    assert not path.exists()  # install created the file whole, so uninstall removes it


def test_a_moved_driftguard_differs_until_update_replaces_it(homes: Path) -> None:
    described = HOOK_HOSTS["codex_cli"]
    run(described, SetupRequest(command="/old/venv/bin/driftguard"))
    kept = run(described, SetupRequest(command=COMMAND))
    assert (kept.status, kept.ok) == ("skipped", False)
    assert "--update replaces them" in kept.detail
    updated = run(described, SetupRequest(command=COMMAND, update=True))
    assert updated.status == "updated"
    value = json.loads(described.settings_file().read_text("utf-8"))
    assert commands(value["hooks"]["Stop"]) == [[COMMAND, "hook", "stop", "--host", "codex_cli"]]


def test_a_hooks_file_that_does_not_parse_is_refused_and_left_alone(homes: Path) -> None:
    path = homes / ".codex" / "hooks.json"
    path.write_text('{"hooks": {"Stop": [}', encoding="utf-8")
    result = run(HOOK_HOSTS["codex_cli"], SetupRequest(command=COMMAND))
    assert (result.status, result.ok) == ("refused", False)
    assert path.read_text("utf-8") == '{"hooks": {"Stop": [}'


def test_hosts_that_are_not_installed_get_no_file_and_no_line(isolated_home: Path) -> None:
    (isolated_home / ".codex").mkdir()
    results = install()
    assert [r.label for r in results] == ["codex_cli hooks"]
    assert not (isolated_home / ".gemini").exists()
    assert not (isolated_home / ".cursor").exists()


def test_plain_uninstall_reports_each_hosts_hooks_left_behind(
    homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install()
    main(["setup", "--uninstall"])
    out = capsys.readouterr().out.splitlines()
    for label, where in (
        ("codex_cli hooks", "~/.codex/hooks.json"),
        ("gemini_cli hooks", "~/.gemini/settings.json"),
        ("cursor hooks", "~/.cursor/hooks.json"),
    ):
        line = next(line for line in out if line.startswith(f"{label}: still installed"))
        assert where in line
        assert line.endswith("remove them with: driftguard setup --hooks --uninstall)")


def test_hooks_for_a_project_write_cursors_rule_and_no_users_settings(homes: Path) -> None:
    project = homes / "app"
    project.mkdir()
    results = install(project=project)
    assert [(r.label, r.status) for r in results] == [("cursor rule", "added")]
    rule = cursor_rule.rule_file(project).read_text("utf-8")
    assert rule.startswith("---\ndescription:")
    assert "alwaysApply: true\n" in rule
    assert "get_drift" in rule
    assert "handoff.md" not in rule  # a waiting handoff is the session-start hook's to give
    assert not (homes / ".codex" / "hooks.json").exists()
    assert not (homes / ".claude" / "settings.json").exists()
    gone = run_hooks(SetupRequest(command=COMMAND, action="uninstall", project=project), hooks=True)
    assert [r.status for r in gone] == ["removed"]
    assert not cursor_rule.rule_file(project).exists()


def test_a_rule_file_of_the_users_own_is_never_replaced_without_update(homes: Path) -> None:
    project = homes / "app"
    mine = cursor_rule.rule_file(project)
    mine.parent.mkdir(parents=True)
    mine.write_text("my own rule\n", encoding="utf-8")
    (result,) = install(project=project)
    assert (result.status, result.ok) == ("skipped", False)
    assert mine.read_text("utf-8") == "my own rule\n"
    (removed,) = run_hooks(
        SetupRequest(command=COMMAND, action="uninstall", project=project), hooks=True
    )
    assert removed.status == "not present"
    assert mine.read_text("utf-8") == "my own rule\n"
