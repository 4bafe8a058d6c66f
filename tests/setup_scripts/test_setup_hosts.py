"""`driftguard setup` on each host's config file, through the command line
(docs/design.md §8, §10): only driftguard's entry changes, uninstall gives the file back, dry runs
write nothing, files that do not parse are refused, hosts that are not installed get
nothing.

Claude Code's ``claude`` CLI is kept off PATH here, so its file is edited directly; the
``claude mcp`` route runs against a stand-in ``claude`` in test_setup_claude_cli.py and
against the real one in tests/e2e/test_setup_real_hosts.py.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest
from setup_helpers import HOST_FILES, inserted_chunks, install_fixture_home, snapshot

from driftguard.cli import main
from driftguard.cli.commands.setup import HOSTS as SETUP_HOSTS
from driftguard.jsonc import parse as parse_jsonc
from driftguard.sessions.hosts import HOST_ENV, PROJECT_ENV, cli_for_host
from driftguard.setup_scripts import HOST_NAMES, find_console_script

HOSTS = list(HOST_FILES)


@pytest.fixture(autouse=True)
def no_claude_on_path(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PATH without ``claude`` (the file route) and without ``driftguard`` (the console
    script is found next to the interpreter)."""
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("empty-path")))


def _command() -> str:
    command = find_console_script()
    assert command is not None, "the driftguard console script is not installed"
    return command


def _read(home: Path, host: str) -> Any:
    path = home / HOST_FILES[host]
    text = path.read_text(encoding="utf-8")
    if host == "codex_cli":
        return tomllib.loads(text)
    return parse_jsonc(text, comments=host == "gemini_cli").value


def _servers(home: Path, host: str) -> dict[str, Any]:
    value = _read(home, host)
    servers: dict[str, Any] = value["mcp_servers" if host == "codex_cli" else "mcpServers"]
    return servers


def _expected_entry(host: str) -> dict[str, Any]:
    env = {HOST_ENV: host}
    if host == "cursor":  # Cursor expands it per window: the project the server serves
        env[PROJECT_ENV] = "${workspaceFolder}"
    entry: dict[str, Any] = {"command": _command(), "args": ["serve"], "env": env}
    if host == "claude_code":
        entry = {"type": "stdio", **entry}
    if host == "codex_cli":
        entry["required"] = True  # Codex waits for a required server (codex_cli.DEFAULTS)
    return entry


def _setup(*args: str) -> int:
    return main(["setup", *args])


def _host_lines(out: str) -> dict[str, str]:
    return {
        line.split(":", 1)[0]: line.split(":", 1)[1].strip()
        for line in out.splitlines()
        if line.split(":", 1)[0] in HOST_NAMES
    }


@pytest.mark.parametrize("host", HOSTS)
def test_setup_adds_only_the_driftguard_entry_to_each_host_config(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    path = isolated_home / HOST_FILES[host]
    before_text = path.read_text(encoding="utf-8")
    before = _read(isolated_home, host)

    assert _setup() == 0

    after_text = path.read_text(encoding="utf-8")
    chunks = inserted_chunks(before_text, after_text)  # every original byte kept, in order
    entry = _expected_entry(host)
    if host == "codex_cli":
        # One block appended: the [mcp_servers.driftguard] table and nothing else.
        assert len(chunks) == 1
        assert tomllib.loads(chunks[0]) == {"mcp_servers": {"driftguard": entry}}
    else:
        # A comma after the last server, and the driftguard member.
        inserted = "".join(chunks)
        assert (
            "".join(inserted.split())
            == "," + json.dumps({"driftguard": entry}, separators=(",", ":"))[1:-1]
        )
    after = _read(isolated_home, host)
    key = "mcp_servers" if host == "codex_cli" else "mcpServers"
    before[key]["driftguard"] = entry
    assert after == before
    assert _host_lines(capsys.readouterr().out)[host] == f"added (~/{HOST_FILES[host]})"


def test_gemini_comments_survive_setup_in_place(isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--host", "gemini_cli") == 0
    text = (isolated_home / ".gemini" / "settings.json").read_text(encoding="utf-8")
    for comment in (
        "// Gemini CLI settings for the dev box.",
        '"vimMode": true // muscle memory',
        "/* API-key auth against the local proxy */",
        "// the issue tracker, read-only",
    ):
        assert comment in text
    # The comment after the last server stays on its line; driftguard comes after it.
    assert '}, // keep this one last for now\n    "driftguard": {' in text


@pytest.mark.parametrize("host", HOSTS)
def test_uninstall_gives_back_each_host_config_byte_for_byte(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    path = isolated_home / HOST_FILES[host]
    original = path.read_bytes()
    assert _setup("--host", host) == 0
    assert path.read_bytes() != original

    assert _setup("--host", host, "--uninstall") == 0

    assert path.read_bytes() == original
    assert _host_lines(capsys.readouterr().out)[host] == f"removed (~/{HOST_FILES[host]})"


def test_dry_run_leaves_every_file_byte_and_mtime_unchanged(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    before = snapshot(isolated_home)

    assert _setup("--dry-run") == 0

    assert snapshot(isolated_home) == before
    out = capsys.readouterr().out
    assert "(dry run: nothing is written)" in out.splitlines()[0]
    lines = _host_lines(out)
    for host in HOSTS:
        assert lines[host] == f"would add (~/{HOST_FILES[host]})"
    # The change is shown as a unified diff of each file.
    assert "    --- ~/.codex/config.toml" in out
    assert "    +[mcp_servers.driftguard]" in out
    assert '    +    "driftguard": {' in out


def test_uninstall_dry_run_shows_the_removal_and_writes_nothing(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup() == 0
    before = snapshot(isolated_home)
    capsys.readouterr()

    assert _setup("--uninstall", "--dry-run") == 0

    assert snapshot(isolated_home) == before
    out = capsys.readouterr().out
    assert _host_lines(out)["cursor"] == "would remove (~/.cursor/mcp.json)"
    assert '    -    "driftguard": {' in out


def test_a_second_setup_changes_nothing_and_reports_already_present(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup() == 0
    before = snapshot(isolated_home)
    capsys.readouterr()

    assert _setup() == 0

    assert snapshot(isolated_home) == before  # not even a backup
    lines = _host_lines(capsys.readouterr().out)
    assert {lines[host] for host in HOSTS} == {
        f"already present (~/{HOST_FILES[host]})" for host in HOSTS
    }


def test_uninstall_of_an_absent_entry_reports_not_present(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    before = snapshot(isolated_home)
    assert _setup("--uninstall") == 0
    assert snapshot(isolated_home) == before
    assert (
        _host_lines(capsys.readouterr().out)["gemini_cli"]
        == "not present (~/.gemini/settings.json)"
    )


MALFORMED = [
    ("gemini_cli", '{\n  "mcpServers": {},\n}\n', "trailing comma"),
    ("gemini_cli", '{\n  /* not closed\n  "mcpServers": {}\n}\n', "never closed"),
    ("gemini_cli", "[1, 2]\n", "top level is not a JSON object"),
    ("claude_code", '{\n  // a comment\n  "numStartups": 1\n}\n', "comments are not allowed"),
    ("cursor", "{'mcpServers': {}}\n", "member name in double quotes"),
    ("cursor", '{"mcpServers": []}\n', "is not a table of servers"),
    ("codex_cli", 'model = "gpt\n[mcp_servers.x]\n', "cannot parse"),
    ("codex_cli", "mcp_servers = 3\n", "is not a table of servers"),
]


@pytest.mark.parametrize(("host", "content", "reason"), MALFORMED)
def test_a_config_that_does_not_parse_is_refused_and_untouched(
    host: str,
    content: str,
    reason: str,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    install_fixture_home(isolated_home)
    path = isolated_home / HOST_FILES[host]
    path.write_text(content, encoding="utf-8")
    before = snapshot(isolated_home)

    assert _setup() == 1

    after = snapshot(isolated_home)
    assert after[HOST_FILES[host]] == before[HOST_FILES[host]]
    assert not list(path.parent.glob(f"{path.name}.driftguard-backup-*"))
    lines = _host_lines(capsys.readouterr().out)
    assert lines[host].startswith("refused (")
    assert reason in lines[host]
    assert lines[host].endswith("nothing changed)")
    # The other hosts are still done.
    for other in HOSTS:
        if other != host:
            assert lines[other].startswith("added ("), lines[other]


def test_a_file_that_is_not_utf8_is_refused(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / ".cursor").mkdir()
    path = isolated_home / ".cursor" / "mcp.json"
    path.write_bytes(b'{"x": "\xff"}')
    assert _setup("--host", "cursor") == 1
    assert path.read_bytes() == b'{"x": "\xff"}'
    assert "is not UTF-8 text" in capsys.readouterr().out


def test_a_host_that_is_not_installed_gets_no_file(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _setup() == 0
    assert [path.name for path in isolated_home.iterdir()] == []
    lines = _host_lines(capsys.readouterr().out)
    assert lines == {
        "claude_code": "skipped (not installed: no ~/.claude folder)",
        "gemini_cli": "skipped (not installed: no ~/.gemini folder)",
        "codex_cli": "skipped (not installed: no ~/.codex folder)",
        "cursor": "skipped (not installed: no ~/.cursor folder)",
    }


def test_an_explicitly_requested_host_that_is_not_installed_exits_1(isolated_home: Path) -> None:
    (isolated_home / ".codex").mkdir()
    assert _setup("--host", "codex_cli") == 0
    assert _setup("--host", "codex_cli", "cursor") == 1
    assert not (isolated_home / ".cursor").exists()


def test_only_the_hosts_named_with_host_are_touched(isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    before = snapshot(isolated_home)
    assert _setup("--host", "cursor", "--host", "codex_cli") == 0
    after = snapshot(isolated_home)
    assert after[HOST_FILES["claude_code"]] == before[HOST_FILES["claude_code"]]
    assert after[HOST_FILES["gemini_cli"]] == before[HOST_FILES["gemini_cli"]]
    assert after[HOST_FILES["cursor"]] != before[HOST_FILES["cursor"]]
    assert after[HOST_FILES["codex_cli"]] != before[HOST_FILES["codex_cli"]]


def _write_gemini(home: Path, entry: dict[str, Any]) -> Path:
    (home / ".gemini").mkdir(exist_ok=True)
    path = home / ".gemini" / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"driftguard": entry}}, indent=2) + "\n", "utf-8")
    return path


def test_a_differing_entry_is_kept_without_update_and_replaced_with_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_gemini(isolated_home, {"command": "/old/venv/bin/driftguard", "args": ["serve"]})
    original = path.read_bytes()

    assert _setup() == 1
    assert path.read_bytes() == original
    line = _host_lines(capsys.readouterr().out)["gemini_cli"]
    assert line.startswith("skipped (~/.gemini/settings.json already has a different driftguard")
    assert "/old/venv/bin/driftguard serve" in line
    assert line.endswith("--update replaces it)")

    assert _setup("--update") == 0
    assert _servers(isolated_home, "gemini_cli") == {"driftguard": _expected_entry("gemini_cli")}
    assert _host_lines(capsys.readouterr().out)["gemini_cli"] == "updated (~/.gemini/settings.json)"


def test_keys_the_user_added_to_the_entry_do_not_make_it_differ(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = _expected_entry("gemini_cli")
    entry["trust"] = True
    entry["env"] = {**entry["env"], "DRIFTGUARD_HOME": "/srv/drift"}
    path = _write_gemini(isolated_home, entry)
    original = path.read_bytes()
    assert _setup("--update") == 0
    assert path.read_bytes() == original
    assert _host_lines(capsys.readouterr().out)["gemini_cli"].startswith("already present")


def test_a_codex_table_is_updated_in_place_of_the_old_one(isolated_home: Path) -> None:
    (isolated_home / ".codex").mkdir()
    path = isolated_home / ".codex" / "config.toml"
    path.write_text(
        '[mcp_servers.driftguard]\ncommand = "driftguard"\nargs = ["serve"]\n\n'
        '[mcp_servers.driftguard.env]\nX = "1"\n\n# profiles\n[profiles.a]\nmodel = "m"\n',
        encoding="utf-8",
    )
    assert _setup("--update") == 0
    config = tomllib.loads(path.read_text(encoding="utf-8"))
    entry = _expected_entry("codex_cli")
    entry["env"] = {"X": "1", **entry["env"]}  # the user's variable stays
    assert config["mcp_servers"] == {"driftguard": entry}
    assert config["profiles"] == {"a": {"model": "m"}}
    assert "# profiles\n[profiles.a]" in path.read_text(encoding="utf-8")


def _write_codex(home: Path, table: str) -> Path:
    (home / ".codex").mkdir(exist_ok=True)
    path = home / ".codex" / "config.toml"
    path.write_text(f'model = "m"\n\n[mcp_servers.driftguard]\n{table}', encoding="utf-8")
    return path


def test_codex_is_told_to_wait_for_driftguard_and_the_report_says_what_that_means(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / ".codex").mkdir()
    assert _setup("--host", "codex_cli") == 0
    assert _servers(isolated_home, "codex_cli")["driftguard"]["required"] is True
    out = capsys.readouterr().out
    assert "+required = true\n" in out
    assert (
        "note: Codex waits for driftguard before a session's first request (required = true) "
        "and does not start a session when driftguard cannot start; set required = false"
    ) in out
    # Uninstall has no such note.
    assert _setup("--host", "codex_cli", "--uninstall") == 0
    assert "note: Codex waits" not in capsys.readouterr().out


def test_a_codex_table_without_required_differs_and_update_adds_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What driftguard setup wrote before it knew that Codex leaves out a server that is
    # not required and not ready after 1 s.
    command = _command()
    path = _write_codex(
        isolated_home,
        f'command = "{command}"\nargs = ["serve"]\nenv = {{DRIFTGUARD_HOST = "codex_cli"}}\n',
    )
    original = path.read_bytes()

    assert _setup("--host", "codex_cli") == 1
    assert path.read_bytes() == original
    assert _host_lines(capsys.readouterr().out)["codex_cli"] == (
        "skipped (~/.codex/config.toml already has a different driftguard entry "
        f"({command} serve, without required); --update replaces it)"
    )

    assert _setup("--host", "codex_cli", "--update") == 0
    assert path.read_text(encoding="utf-8") == original.decode("utf-8") + "required = true\n"
    assert _setup("--host", "codex_cli") == 0
    assert _host_lines(capsys.readouterr().out)["codex_cli"] == (
        "already present (~/.codex/config.toml)"
    )


@pytest.mark.parametrize("command", ["current", "/home/dev/old-venv/bin/driftguard"])
def test_the_users_own_required_false_is_kept_by_setup_and_by_update(
    command: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = _command() if command == "current" else command
    path = _write_codex(
        isolated_home,
        f'command = "{command}"\nargs = ["serve"]\n'
        "required = false  # start Codex even when driftguard cannot start\n\n"
        '[mcp_servers.driftguard.env]\nDRIFTGUARD_HOST = "codex_cli"\n',
    )
    original = path.read_bytes()

    assert _setup("--host", "codex_cli", "--update") == 0

    entry = _servers(isolated_home, "codex_cli")["driftguard"]
    assert entry == {**_expected_entry("codex_cli"), "required": False}
    text = path.read_text(encoding="utf-8")
    assert "required = false  # start Codex even when driftguard cannot start\n" in text
    line = _host_lines(capsys.readouterr().out)["codex_cli"]
    if command == _command():
        assert path.read_bytes() == original  # already as wanted: not even rewritten
        assert line == "already present (~/.codex/config.toml)"
    else:
        assert line == "updated (~/.codex/config.toml)"  # only the command changed


def test_a_required_that_codex_could_not_load_is_replaced_by_update(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_codex(
        isolated_home,
        f'command = "{_command()}"\nargs = ["serve"]\nrequired = "yes"\n'
        'env = {DRIFTGUARD_HOST = "codex_cli"}\n',
    )
    assert _setup("--host", "codex_cli") == 1
    assert "without required" in capsys.readouterr().out
    assert _setup("--host", "codex_cli", "--update") == 0
    assert _servers(isolated_home, "codex_cli")["driftguard"] == _expected_entry("codex_cli")
    assert 'required = "yes"' not in path.read_text(encoding="utf-8")


def test_every_edit_backs_up_the_file_with_its_permission_bits(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    claude = isolated_home / ".claude.json"
    gemini = isolated_home / ".gemini" / "settings.json"
    claude.chmod(0o600)
    gemini.chmod(0o640)
    originals = {claude: claude.read_bytes(), gemini: gemini.read_bytes()}

    assert _setup() == 0

    out = capsys.readouterr().out
    for path, mode in ((claude, 0o600), (gemini, 0o640)):
        assert stat.S_IMODE(path.stat().st_mode) == mode
        backups = list(path.parent.glob(f"{path.name}.driftguard-backup-*"))
        assert len(backups) == 1
        assert backups[0].read_bytes() == originals[path]
        assert stat.S_IMODE(backups[0].stat().st_mode) == mode
        assert f"    backup: ~/{backups[0].relative_to(isolated_home)}" in out
    # No temporary file is left behind.
    assert not list(isolated_home.rglob(".*.tmp"))


def test_a_symlinked_config_is_edited_through_its_link(isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    dotfiles = isolated_home / "dotfiles"
    dotfiles.mkdir()
    link = isolated_home / ".cursor" / "mcp.json"
    target = dotfiles / "cursor-mcp.json"
    target.write_bytes(link.read_bytes())
    link.unlink()
    link.symlink_to(target)

    assert _setup("--host", "cursor") == 0

    assert link.is_symlink()
    assert "driftguard" in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert list(dotfiles.glob("cursor-mcp.json.driftguard-backup-*"))


def test_claude_config_dir_moves_claude_json_into_that_folder(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    (isolated_home / ".claude").mkdir()  # not the folder in use

    assert _setup("--host", "claude_code") == 0

    assert not (isolated_home / ".claude.json").exists()
    written = json.loads((config / ".claude.json").read_text(encoding="utf-8"))
    assert written["mcpServers"]["driftguard"] == _expected_entry("claude_code")


def test_claude_code_is_not_installed_when_claude_config_dir_is_missing(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_home / ".claude").mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "absent"))
    assert _setup() == 0
    assert not (tmp_path / "absent").exists()
    assert not (isolated_home / ".claude.json").exists()


def test_gemini_cli_home_and_codex_home_are_honoured(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gemini-home" / ".gemini").mkdir(parents=True)
    (tmp_path / "codex-home").mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))

    assert _setup() == 0

    assert (tmp_path / "gemini-home" / ".gemini" / "settings.json").is_file()
    assert (tmp_path / "codex-home" / "config.toml").is_file()
    assert [path.name for path in isolated_home.iterdir()] == [".driftcli"]  # only the ledger


def test_setup_creates_the_config_of_an_installed_host_and_uninstall_deletes_it(
    isolated_home: Path,
) -> None:
    for folder in (".claude", ".gemini", ".codex", ".cursor"):
        (isolated_home / folder).mkdir()
    assert _setup() == 0
    for host in HOSTS:
        path = isolated_home / HOST_FILES[host]
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert _servers(isolated_home, host) == {"driftguard": _expected_entry(host)}

    assert _setup("--uninstall") == 0

    for host in HOSTS:
        assert not (isolated_home / HOST_FILES[host]).exists()


def test_a_created_file_the_host_wrote_to_since_is_kept_by_uninstall(isolated_home: Path) -> None:
    (isolated_home / ".gemini").mkdir()
    assert _setup() == 0
    path = isolated_home / ".gemini" / "settings.json"
    value = json.loads(path.read_text(encoding="utf-8"))
    value["ui"] = {"theme": "dark"}
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")

    assert _setup("--uninstall") == 0

    assert json.loads(path.read_text(encoding="utf-8")) == {"ui": {"theme": "dark"}}


@pytest.mark.parametrize(
    "original",
    [
        '{\n  "general": {"vimMode": true}\n}\n',
        '{\n  "general": {"vimMode": true},\n  "mcpServers": {}\n}\n',
    ],
    ids=["no-mcpServers", "empty-mcpServers"],
)
def test_uninstall_drops_an_mcp_servers_object_only_when_setup_created_it(
    original: str, isolated_home: Path
) -> None:
    (isolated_home / ".gemini").mkdir()
    path = isolated_home / ".gemini" / "settings.json"
    path.write_text(original, encoding="utf-8")
    assert _setup() == 0
    assert _setup("--uninstall") == 0
    assert path.read_text(encoding="utf-8") == original


def test_project_scope_writes_each_hosts_project_file_and_uninstall_removes_them(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    user_files = snapshot(isolated_home)
    project = tmp_path / "shop"
    project.mkdir()

    assert _setup("--project", str(project)) == 0

    out = capsys.readouterr().out
    assert f"in project {project}" in out.splitlines()[0]
    assert json.loads((project / ".mcp.json").read_text(encoding="utf-8")) == {
        "mcpServers": {"driftguard": _expected_entry("claude_code")}
    }
    gemini = json.loads((project / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert gemini == {"mcpServers": {"driftguard": _expected_entry("gemini_cli")}}
    codex = tomllib.loads((project / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert codex == {"mcp_servers": {"driftguard": _expected_entry("codex_cli")}}
    cursor = json.loads((project / ".cursor" / "mcp.json").read_text(encoding="utf-8"))
    assert cursor == {"mcpServers": {"driftguard": _expected_entry("cursor")}}
    assert snapshot(isolated_home).keys() == user_files.keys() | {".driftcli/setup-ledger.json"}
    assert all(snapshot(isolated_home)[name] == user_files[name] for name in user_files)
    assert (
        "note: Codex reads a project's .codex/config.toml only when the project is trusted" in out
    )

    assert _setup("--project", str(project), "--uninstall") == 0

    assert sorted(path.name for path in project.iterdir()) == []


def test_a_project_that_is_not_a_directory_is_a_usage_error(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _setup("--project", str(tmp_path / "nowhere")) == 2
    assert "--project" in capsys.readouterr().err


def test_uninstall_and_update_together_are_a_usage_error(isolated_home: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        _setup("--uninstall", "--update")
    assert raised.value.code == 2


def test_an_unknown_host_is_a_usage_error(isolated_home: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        _setup("--host", "vscode")
    assert raised.value.code == 2


def test_without_a_console_script_setup_says_so_and_exits_1(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import driftguard.setup_scripts as setup_scripts

    install_fixture_home(isolated_home)
    before = snapshot(isolated_home)
    monkeypatch.setattr(setup_scripts, "find_console_script", lambda: None)

    assert _setup() == 1

    assert snapshot(isolated_home) == before
    err = capsys.readouterr().err
    assert err.startswith("driftguard: error: no driftguard console script next to ")


def test_find_console_script_prefers_the_script_next_to_the_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "driftguard"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(bin_dir / "python"))
    assert find_console_script() == str(script)


def test_find_console_script_falls_back_to_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-venv" / "python"))
    monkeypatch.setattr("sysconfig.get_path", lambda name: str(tmp_path / "no-scripts"))
    on_path = tmp_path / "bin"
    on_path.mkdir()
    script = on_path / "driftguard"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(on_path))
    assert find_console_script() == str(script)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert find_console_script() is None


@pytest.mark.parametrize("host", HOSTS)
def test_each_entry_tells_the_server_which_host_it_serves(host: str, isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--host", host) == 0
    hint = _servers(isolated_home, host)["driftguard"]["env"][HOST_ENV]
    assert hint == host
    assert cli_for_host(None, {HOST_ENV: hint}) == host


def test_each_entry_names_the_console_script_by_absolute_path(isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    assert _setup() == 0
    for host in HOSTS:
        command = _servers(isolated_home, host)["driftguard"]["command"]
        assert os.path.isabs(command)
        assert os.access(command, os.X_OK)


def test_the_cli_host_choices_are_the_setup_hosts() -> None:
    assert SETUP_HOSTS == HOST_NAMES


# --- read-only files, --update with the user's keys, notes, backups ---


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
@pytest.mark.parametrize("host", HOSTS)
def test_a_read_only_config_is_refused_and_the_other_hosts_are_still_done(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tests run as root here, which os.access lets write anything: the mode bits decide.
    install_fixture_home(isolated_home)
    path = isolated_home / HOST_FILES[host]
    path.chmod(0o444)
    before = snapshot(isolated_home)

    assert _setup() == 1

    assert snapshot(isolated_home)[HOST_FILES[host]] == before[HOST_FILES[host]]
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert not list(path.parent.glob(f"{path.name}.driftguard-backup-*"))
    lines = _host_lines(capsys.readouterr().out)
    assert lines[host] == f"refused (~/{HOST_FILES[host]} is read-only; nothing changed)"
    for other in HOSTS:
        if other != host:
            assert lines[other].startswith("added ("), lines[other]


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_a_read_only_config_is_refused_by_uninstall_and_by_a_dry_run(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--host", "cursor") == 0
    path = isolated_home / HOST_FILES["cursor"]
    path.chmod(0o400)
    installed = path.read_bytes()
    capsys.readouterr()

    assert _setup("--host", "cursor", "--uninstall", "--dry-run") == 1
    assert _setup("--host", "cursor", "--uninstall") == 1

    assert path.read_bytes() == installed
    out = capsys.readouterr().out
    assert out.count("cursor: refused (~/.cursor/mcp.json is read-only; nothing changed)") == 2


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_a_read_only_config_that_needs_no_change_is_fine(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--host", "gemini_cli") == 0
    (isolated_home / HOST_FILES["gemini_cli"]).chmod(0o444)
    capsys.readouterr()
    assert _setup("--host", "gemini_cli") == 0
    assert _host_lines(capsys.readouterr().out)["gemini_cli"].startswith("already present")


OLD = "/home/dev/old-venv/bin/driftguard"

USER_ENTRIES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    # host: (the file with an old driftguard entry the user extended, that entry as the
    # user wrote it, text that must survive --update)
    "claude_code": (
        '{\n  "numStartups": 3,\n  "mcpServers": {\n    "driftguard": {\n'
        f'      "type": "stdio",\n      "command": "{OLD}",\n      "args": ["serve"],\n'
        '      "timeout": 5000,\n      "alwaysLoad": true\n    }\n  }\n}\n',
        {"type": "stdio", "command": OLD, "args": ["serve"], "timeout": 5000, "alwaysLoad": True},
        ('"numStartups": 3',),
    ),
    "gemini_cli": (
        '{\n  "mcpServers": {\n    "driftguard": {\n'
        f'      "command": "{OLD}",\n      "args": ["serve"],\n'
        '      "trust": true, // no confirmations for the drift tools\n'
        '      "env": {"DRIFTGUARD_HOST": "gemini_cli", "DRIFTGUARD_HOME": "/srv/drift"}\n'
        "    }\n  }\n}\n",
        {
            "command": OLD,
            "args": ["serve"],
            "trust": True,
            "env": {"DRIFTGUARD_HOST": "gemini_cli", "DRIFTGUARD_HOME": "/srv/drift"},
        },
        ("// no confirmations for the drift tools",),
    ),
    "codex_cli": (
        '[mcp_servers.driftguard]\n# mine\ncommand = "driftguard"\nargs = ["serve", "-v"]\n'
        "startup_timeout_sec = 30  # slow disk\n\n"
        '[mcp_servers.driftguard.env]\nDRIFTGUARD_HOME = "/srv/drift"\n\n'
        '# profiles\n[profiles.a]\nmodel = "m"\n',
        {
            "command": "driftguard",
            "args": ["serve", "-v"],
            "startup_timeout_sec": 30,
            "env": {"DRIFTGUARD_HOME": "/srv/drift"},
        },
        ("startup_timeout_sec = 30  # slow disk", "# mine\n", "# profiles\n[profiles.a]"),
    ),
    "cursor": (
        json.dumps(
            {
                "mcpServers": {
                    "driftguard": {
                        "command": OLD,
                        "args": ["serve"],
                        "timeout": 5,
                        "env": {"DRIFTGUARD_HOST": "old-name", "PYTHONWARNINGS": "ignore"},
                    }
                }
            },
            indent=2,
        )
        + "\n",
        {
            "command": OLD,
            "args": ["serve"],
            "timeout": 5,
            "env": {"DRIFTGUARD_HOST": "old-name", "PYTHONWARNINGS": "ignore"},
        },
        (),
    ),
}


@pytest.mark.parametrize("host", HOSTS)
def test_update_replaces_only_command_args_and_driftguards_variable_keeping_the_users_keys(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, users_entry, kept = USER_ENTRIES[host]
    path = isolated_home / HOST_FILES[host]
    path.parent.mkdir(exist_ok=True)
    (isolated_home / ".claude").mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")

    assert _setup("--host", host) == 1  # differs: kept until --update
    assert _setup("--host", host, "--update") == 0

    wanted = _expected_entry(host)
    expected = {**users_entry, **{k: v for k, v in wanted.items() if k != "env"}}
    expected["env"] = {**users_entry.get("env", {}), **wanted["env"]}
    assert _servers(isolated_home, host) == {"driftguard": expected}
    after = path.read_text(encoding="utf-8")
    for piece in kept:
        assert piece in after
    assert _host_lines(capsys.readouterr().out)[host] == f"updated (~/{HOST_FILES[host]})"
    # The updated entry is what this install writes: a third run changes nothing.
    assert _setup("--host", host) == 0


def test_update_replaces_an_entry_of_another_transport_as_a_whole(isolated_home: Path) -> None:
    # A URL entry's keys (url, headers) would make a stdio entry invalid next to `command`.
    (isolated_home / ".cursor").mkdir()
    old = {"url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer x"}}
    path = isolated_home / ".cursor" / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"driftguard": old}}), encoding="utf-8")
    assert _setup("--host", "cursor", "--update") == 0
    assert _servers(isolated_home, "cursor") == {"driftguard": _expected_entry("cursor")}


def test_the_gemini_note_says_how_to_trust_a_folder(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / ".gemini").mkdir()
    assert _setup("--host", "gemini_cli", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "gemini trust" not in out
    assert (
        "note: Gemini CLI starts stdio servers only in trusted folders: trust the folder when "
        "Gemini asks, or add it to ~/.gemini/trustedFolders.json as "
        '{"/abs/project/folder": "TRUST_FOLDER"}'
    ) in out

    project = tmp_path / "shop"
    project.mkdir()
    assert _setup("--host", "gemini_cli", "--project", str(project)) == 0
    note = json.dumps({str(project): "TRUST_FOLDER"})
    assert f"add it to ~/.gemini/trustedFolders.json as {note}" in capsys.readouterr().out


def test_the_claude_json_note_checks_without_undoing_an_uninstall(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--host", "claude_code") == 0
    install_note = capsys.readouterr().out
    assert "close running Claude Code sessions first" in install_note
    assert "then check with `driftguard setup --dry-run`" in install_note

    assert _setup("--host", "claude_code", "--uninstall") == 0

    out = capsys.readouterr().out
    assert "rerun `driftguard setup`" not in out
    assert "then check with `driftguard setup --uninstall --dry-run`" in out
    assert "(it should say: not present)" in out


def _backups(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.glob(f"{path.name}.driftguard-backup-*"))


def test_only_the_newest_three_backups_driftguard_made_are_kept(isolated_home: Path) -> None:
    install_fixture_home(isolated_home)
    path = isolated_home / ".cursor" / "mcp.json"
    folder = path.parent
    ours = [f"mcp.json.driftguard-backup-2024010{day}T000000Z" for day in range(1, 6)]
    ours.append("mcp.json.driftguard-backup-20240105T000000Z-2")  # same second, later
    theirs = [
        "mcp.json.driftguard-backup-keep-me",  # not a name driftguard writes
        "mcp.json.driftguard-backup-20240101T000000Z.txt",
        "mcp.json.bak",
        "other.json.driftguard-backup-20240101T000000Z",
    ]
    for name in ours + theirs:
        (folder / name).write_text("{}", encoding="utf-8")
    theirs.append("mcp.json.driftguard-backup-20240101T000001Z")
    (folder / theirs[-1]).mkdir()  # not a file: kept

    assert _setup("--host", "cursor") == 0

    left = sorted(p.name for p in folder.iterdir())
    new = [name for name in _backups(path) if name not in ours + theirs]
    assert len(new) == 1
    kept_ours = [
        "mcp.json.driftguard-backup-20240105T000000Z",
        "mcp.json.driftguard-backup-20240105T000000Z-2",
    ]
    assert left == sorted(["mcp.json", *new, *kept_ours, *theirs])


def test_repeated_setups_never_leave_more_than_three_backups_of_a_file(
    isolated_home: Path,
) -> None:
    install_fixture_home(isolated_home)
    path = isolated_home / HOST_FILES["gemini_cli"]
    for _ in range(4):
        assert _setup("--host", "gemini_cli") == 0
        assert _setup("--host", "gemini_cli", "--uninstall") == 0
    backups = _backups(path)
    assert len(backups) == 3
    # The newest is the file as it was before the last uninstall: with driftguard in it.
    assert "driftguard" in (path.parent / backups[-1]).read_text(encoding="utf-8")


def test_backups_made_within_one_second_keep_the_newest_three_in_the_order_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pruning frees the lowest suffixes of the second; a later backup in the same second
    # must not take one of them, or the newest backup would be pruned as the oldest.
    import driftguard.setup_scripts._safe_edit as safe_edit

    class _Frozen:
        @staticmethod
        def now(tz: object) -> Any:
            from datetime import UTC, datetime

            return datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC)

    monkeypatch.setattr(safe_edit, "datetime", _Frozen)
    path = tmp_path / "settings.json"
    path.write_text("{}", encoding="utf-8")
    for index in range(7):
        safe_edit.write_backup(path, f"version {index}".encode(), 0o600)
    kept = sorted(
        (p for p in tmp_path.iterdir() if ".driftguard-backup-" in p.name),
        key=lambda p: (
            int(p.name.rpartition("-")[2]) if p.name[-2] == "-" or p.name[-3] == "-" else 1
        ),
    )
    assert [p.read_text(encoding="utf-8") for p in kept] == ["version 4", "version 5", "version 6"]


HOOKS_FILES = {
    "claude_code": ".claude/settings.json",
    "gemini_cli": ".gemini/settings.json",  # the same file as its server entry
    "codex_cli": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
}
"""Each host's user hooks file, relative to the home folder."""


@pytest.mark.parametrize("host", HOSTS)
def test_uninstall_with_hooks_gives_back_every_file_byte_for_byte(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    before = snapshot(isolated_home)
    assert _setup("--hooks", "--host", host) == 0
    assert (isolated_home / HOOKS_FILES[host]).is_file()

    assert _setup("--hooks", "--uninstall", "--host", host) == 0

    assert _users_files(isolated_home) == {name: data for name, (data, _) in before.items()}
    capsys.readouterr()


def _users_files(home: Path) -> dict[str, bytes]:
    """Every file under ``home`` but setup's backups and its ledger, with its bytes."""
    return {
        name: data
        for name, (data, _) in snapshot(home).items()
        if ".driftguard-backup-" not in name and not name.startswith(".driftcli/")
    }


@pytest.mark.parametrize("host", HOSTS)
def test_uninstall_with_hooks_removes_every_file_it_created(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = isolated_home / (".gemini" if host == "gemini_cli" else f".{host.split('_')[0]}")
    folder.mkdir()
    assert _setup("--hooks", "--host", host) == 0
    assert (isolated_home / HOOKS_FILES[host]).is_file()

    assert _setup("--hooks", "--uninstall", "--host", host) == 0

    left = sorted(str(p.relative_to(isolated_home)) for p in isolated_home.rglob("*"))
    left = [name for name in left if not name.startswith(".driftcli")]
    assert [name for name in left if ".driftguard-backup-" not in name] == [folder.name]
    assert json.loads((isolated_home / ".driftcli" / "setup-ledger.json").read_text("utf-8")) == {
        "version": 1,
        "created": {},
    }
    capsys.readouterr()


def test_project_hooks_uninstall_removes_every_folder_install_created(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    project.mkdir()
    assert _setup("--hooks", "--project", str(project)) == 0
    assert (project / ".cursor" / "rules" / "driftguard.mdc").is_file()

    assert _setup("--hooks", "--project", str(project), "--uninstall") == 0

    assert sorted(project.rglob("*")) == []
    ledger = json.loads((isolated_home / ".driftcli" / "setup-ledger.json").read_text("utf-8"))
    assert ledger["created"] == {}
    capsys.readouterr()


def test_project_hooks_uninstall_keeps_the_folders_that_were_there(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".gemini").mkdir()
    assert _setup("--hooks", "--project", str(project)) == 0
    assert _setup("--hooks", "--project", str(project), "--uninstall") == 0
    left = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    assert left == [".cursor", ".cursor/rules", ".gemini"]
    capsys.readouterr()


def test_a_folder_install_created_stays_while_it_holds_a_file_of_the_users(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    project.mkdir()
    assert _setup("--hooks", "--project", str(project), "--host", "cursor") == 0
    mine = project / ".cursor" / "rules" / "mine.mdc"
    mine.write_text("my rule\n", encoding="utf-8")
    assert _setup("--hooks", "--project", str(project), "--uninstall", "--host", "cursor") == 0
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*")) == [
        ".cursor",
        ".cursor/rules",
        ".cursor/rules/mine.mdc",
    ]
    mine.unlink()
    # a later uninstall, with nothing of driftguard's left, still removes what it made
    assert _setup("--hooks", "--project", str(project), "--uninstall", "--host", "cursor") == 0
    assert sorted(project.rglob("*")) == []
    capsys.readouterr()


def _tree(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every folder and file under ``root``: its permission bits, and a file's bytes."""
    return {
        str(path.relative_to(root)): (
            stat.S_IMODE(path.lstat().st_mode),
            path.read_bytes() if path.is_file() else None,
        )
        for path in sorted(root.rglob("*"))
    }


def _users_project(project: Path, layout: str) -> None:
    """A project with files of the user's, and ``layout``'s Cursor folders."""
    (project / "src").mkdir(parents=True)
    (project / "README.md").write_bytes(b"# shop\r\n")
    (project / "src" / "app.py").write_bytes(b"print('hi')\n")
    if layout != "no .cursor":
        (project / ".cursor").mkdir()
        (project / ".cursor" / "environment.json").write_bytes(b'{"install": "make"}\n')
    if layout == ".cursor/rules with a rule":
        (project / ".cursor" / "rules").mkdir()
        (project / ".cursor" / "rules" / "style.mdc").write_bytes(b"use tabs\n")


@pytest.mark.parametrize(
    "layout", ["no .cursor", ".cursor with a file", ".cursor/rules with a rule"]
)
def test_project_hooks_install_then_uninstall_leaves_the_project_tree_as_it_was(
    layout: str, isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    _users_project(project, layout)
    before = _tree(project)
    assert _setup("--hooks", "--project", str(project)) == 0
    assert (project / ".cursor" / "rules" / "driftguard.mdc").is_file()
    assert (project / ".cursor" / "mcp.json").is_file()

    assert _setup("--hooks", "--project", str(project), "--uninstall") == 0

    assert _tree(project) == before
    capsys.readouterr()


def test_a_plain_uninstall_first_then_hooks_uninstall_also_leaves_the_tree_as_it_was(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    _users_project(project, "no .cursor")
    before = _tree(project)
    assert _setup("--hooks", "--project", str(project), "--host", "cursor") == 0

    # the server entry's file goes first; .cursor/ still holds the rule, so it stays
    assert _setup("--project", str(project), "--uninstall", "--host", "cursor") == 0
    assert (project / ".cursor" / "rules" / "driftguard.mdc").is_file()
    assert _setup("--hooks", "--project", str(project), "--uninstall", "--host", "cursor") == 0

    assert _tree(project) == before
    ledger = json.loads((isolated_home / ".driftcli" / "setup-ledger.json").read_text("utf-8"))
    assert not [key for key in ledger["created"] if key.startswith(str(tmp_path.resolve()))]
    capsys.readouterr()


def test_a_users_cursor_mcp_json_is_given_back_and_only_setups_backups_are_added(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    _users_project(project, ".cursor with a file")
    (project / ".cursor" / "mcp.json").write_bytes(
        b'{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n'
    )
    before = _tree(project)
    assert _setup("--hooks", "--project", str(project), "--host", "cursor") == 0
    assert _setup("--hooks", "--project", str(project), "--uninstall", "--host", "cursor") == 0

    after = _tree(project)
    backups = [name for name in after if ".driftguard-backup-" in name]
    assert backups
    assert all(name.startswith(".cursor/mcp.json.") for name in backups)
    assert {name: after[name] for name in after if name not in backups} == before
    capsys.readouterr()


def _lines(out: str) -> dict[str, str]:
    """Each report line by what it names (``codex_cli``, ``codex_cli hooks``)."""
    return {
        line.split(": ", 1)[0]: line.split(": ", 1)[1]
        for line in out.splitlines()
        if not line.startswith((" ", "driftguard setup"))
    }


def _hooks_label(host: str) -> str:
    return "cursor hooks" if host == "cursor" else f"{host} hooks"


@pytest.mark.parametrize("host", HOSTS)
def test_hooks_are_not_installed_for_a_host_whose_server_entry_was_refused(
    host: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    config = isolated_home / HOST_FILES[host]
    config.write_bytes(b'model = "x"\n[broken\n' if host == "codex_cli" else b"{ not json")
    before = _tree(isolated_home)

    assert _setup("--hooks", "--host", host) == 1

    assert _tree(isolated_home) == before  # nothing at all written for the host
    lines = _lines(capsys.readouterr().out)
    assert lines[host].startswith("refused (cannot parse ")
    assert lines[_hooks_label(host)] == (
        f"skipped (not written either, so that {host} is not half set up: "
        f"fix ~/{HOST_FILES[host]} as the line above says, then rerun "
        f"`driftguard setup --hooks --host {host}`)"
    )


def test_an_unparseable_codex_config_leaves_the_users_hooks_file_alone_and_the_others_done(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    config = isolated_home / ".codex" / "config.toml"
    config.write_bytes(b'model = "x"\n[broken\n')
    hooks = isolated_home / ".codex" / "hooks.json"
    hooks.write_bytes(b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}\n')
    codex_before = _tree(isolated_home / ".codex")

    assert _setup("--hooks") == 1

    assert _tree(isolated_home / ".codex") == codex_before
    lines = _lines(capsys.readouterr().out)
    assert lines["codex_cli hooks"].startswith("skipped (not written either")
    for other in ("claude_code", "gemini_cli", "cursor"):
        assert lines[other].startswith("added (")
        assert lines[_hooks_label(other)].startswith("added (")


def test_a_dry_run_and_an_update_say_the_same_for_a_refused_codex_config(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    (isolated_home / ".codex" / "config.toml").write_bytes(b"[broken\n")
    before = _tree(isolated_home)

    assert _setup("--hooks", "--host", "codex_cli", "--dry-run") == 1
    assert (
        "rerun `driftguard setup --hooks --host codex_cli --dry-run`)"
        in (_lines(capsys.readouterr().out)["codex_cli hooks"])
    )
    assert _setup("--hooks", "--host", "codex_cli", "--update") == 1
    assert (
        "rerun `driftguard setup --hooks --host codex_cli --update`)"
        in (_lines(capsys.readouterr().out)["codex_cli hooks"])
    )
    assert _tree(isolated_home) == before


def test_uninstall_still_removes_the_hooks_when_the_codex_config_is_refused(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    assert _setup("--hooks", "--host", "codex_cli") == 0
    config = isolated_home / ".codex" / "config.toml"
    config.write_bytes(config.read_bytes() + b"[broken\n")

    assert _setup("--hooks", "--uninstall", "--host", "codex_cli") == 1

    assert not (isolated_home / ".codex" / "hooks.json").exists()
    lines = _lines(capsys.readouterr().out)
    assert lines["codex_cli"].startswith("refused (cannot parse ~/.codex/config.toml")
    assert lines["codex_cli hooks"].startswith("removed (")


def test_the_cursor_project_rule_is_not_written_when_the_projects_mcp_json_is_refused(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_fixture_home(isolated_home)
    project = tmp_path / "shop"
    (project / ".cursor").mkdir(parents=True)
    (project / ".cursor" / "mcp.json").write_bytes(b"{ not json")
    before = _tree(project)

    assert _setup("--hooks", "--project", str(project), "--host", "cursor") == 1

    assert _tree(project) == before
    assert _lines(capsys.readouterr().out)["cursor rule"] == (
        "skipped (not written either, so that cursor is not half set up: fix "
        f"{project}/.cursor/mcp.json as the line above says, then rerun "
        f"`driftguard setup --hooks --host cursor --project {project}`)"
    )
