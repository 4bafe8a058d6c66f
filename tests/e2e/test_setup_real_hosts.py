"""Real hosts judge ``driftguard setup``: in a private HOME holding each host's
config (comments, other servers, unrelated keys: tests/fixtures/setup/home), the
installed ``driftguard setup`` registers the server, and the pinned Claude Code, Gemini
CLI and Codex themselves list it as connected / enabled; ``driftguard setup --uninstall``
takes it out again and gives the files back.

``claude`` is on the PATH ``driftguard setup`` sees, so Claude Code is set up through
``claude mcp add-json`` / ``claude mcp remove`` (which rewrite ``~/.claude.json``
themselves, so that file is compared key by key, not byte by byte). The fake model only
guards against any request leaving the machine; listing servers makes none to it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from e2e_hosts import REPO_ROOT, Run, driftguard_command, host_env, run_cli
from fake_model import FakeModel

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
pytest_plugins = ["e2e_fixtures"]

RealCli = Callable[[str], Path]

FIXTURE_HOME = REPO_ROOT / "tests" / "fixtures" / "setup" / "home"
HOST_FILES = (".gemini/settings.json", ".codex/config.toml", ".cursor/mcp.json")
"""The files setup edits itself (compared byte for byte after uninstall)."""


def _prepare_home(home: Path, project: Path) -> None:
    """The fixture configs, and the project trusted by Gemini CLI (it starts stdio
    servers only in trusted folders; docs/real-clis.md §2)."""
    shutil.copytree(FIXTURE_HOME, home, dirs_exist_ok=True)
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted), encoding="utf-8")


def _env(home: Path, model_url: str, cli_dirs: set[Path]) -> dict[str, str]:
    env = host_env(home, model_url)
    env["PATH"] = os.pathsep.join([*sorted(map(str, cli_dirs)), env.get("PATH", "")])
    return env


def _setup(args: list[str], home: Path, env: dict[str, str]) -> Run:
    return run_cli([driftguard_command(), "setup", *args], cwd=home, env=env)


def _host_lines(run: Run) -> dict[str, str]:
    names = ("claude_code", "gemini_cli", "codex_cli", "cursor")
    return {
        line.split(":", 1)[0]: line.split(":", 1)[1].strip()
        for line in run.stdout.splitlines()
        if line.split(":", 1)[0] in names
    }


def _claude_line(claude: Path, project: Path, env: dict[str, str]) -> str | None:
    run = run_cli([claude, "mcp", "list"], cwd=project, env=env)
    assert run.returncode == 0, run.describe()
    lines = [line for line in run.stdout.splitlines() if line.startswith("driftguard:")]
    assert len(lines) <= 1, run.describe()
    return lines[0] if lines else None


def _gemini_line(gemini: Path, project: Path, env: dict[str, str]) -> str | None:
    run = run_cli([gemini, "mcp", "list"], cwd=project, env=env)
    assert run.returncode == 0, run.describe()
    # Gemini CLI 0.61.0 prints the list on stderr (established by running it here).
    lines = [line for line in (run.stdout + run.stderr).splitlines() if "driftguard:" in line]
    assert len(lines) <= 1, run.describe()
    return lines[0] if lines else None


def _codex_entry(codex: Path, project: Path, env: dict[str, str]) -> dict[str, Any] | None:
    run = run_cli([codex, "mcp", "list", "--json"], cwd=project, env=env)
    assert run.returncode == 0, run.describe()
    entries = [entry for entry in run.json() if entry["name"] == "driftguard"]
    assert len(entries) <= 1, run.describe()
    return entries[0] if entries else None


def test_real_hosts_list_driftguard_after_setup_and_no_longer_after_uninstall(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    claude, gemini, codex = real_cli("claude"), real_cli("gemini"), real_cli("codex")
    _prepare_home(isolated_home, host_project)
    originals = {name: (isolated_home / name).read_bytes() for name in HOST_FILES}
    claude_original = json.loads((isolated_home / ".claude.json").read_text(encoding="utf-8"))
    env = _env(isolated_home, fake_model.url, {claude.parent, gemini.parent, codex.parent})
    command = driftguard_command()

    setup = _setup([], isolated_home, env)

    assert setup.returncode == 0, setup.describe()
    assert _host_lines(setup) == {
        "claude_code": "added (~/.claude.json, through `claude mcp add-json`)",
        "gemini_cli": "added (~/.gemini/settings.json)",
        "codex_cli": "added (~/.codex/config.toml)",
        "cursor": "added (~/.cursor/mcp.json)",
    }, setup.describe()
    claude_line = _claude_line(claude, host_project, env)
    assert claude_line is not None
    assert f"{command} serve" in claude_line
    assert claude_line.rstrip().endswith("Connected")
    gemini_line = _gemini_line(gemini, host_project, env)
    assert gemini_line is not None
    assert f"{command} serve" in gemini_line
    assert gemini_line.rstrip().endswith("Connected")
    codex_entry = _codex_entry(codex, host_project, env)
    assert codex_entry is not None
    assert codex_entry["enabled"] is True
    assert codex_entry["transport"]["command"] == command
    assert os.path.isabs(codex_entry["transport"]["command"])
    assert codex_entry["transport"]["args"] == ["serve"]
    assert codex_entry["transport"]["env"] == {"DRIFTGUARD_HOST": "codex_cli"}

    again = _setup([], isolated_home, env)
    assert again.returncode == 0, again.describe()
    assert set(_host_lines(again).values()) == {
        "already present (~/.claude.json)",
        "already present (~/.gemini/settings.json)",
        "already present (~/.codex/config.toml)",
        "already present (~/.cursor/mcp.json)",
    }

    uninstall = _setup(["--uninstall"], isolated_home, env)

    assert uninstall.returncode == 0, uninstall.describe()
    assert _host_lines(uninstall)["claude_code"] == (
        "removed (~/.claude.json, through `claude mcp remove`)"
    )
    assert _claude_line(claude, host_project, env) is None
    assert _gemini_line(gemini, host_project, env) is None
    assert _codex_entry(codex, host_project, env) is None
    for name, original in originals.items():
        assert (isolated_home / name).read_bytes() == original, name
    # Claude Code rewrote ~/.claude.json itself (key order, keys of its own): every key
    # the test put there is unchanged, and driftguard is gone.
    claude_after = json.loads((isolated_home / ".claude.json").read_text(encoding="utf-8"))
    assert "driftguard" not in claude_after["mcpServers"]
    for key, value in claude_original.items():
        assert claude_after[key] == value, key


def test_real_claude_keeps_a_differing_entry_until_update_replaces_it(
    real_cli: RealCli, fake_model: FakeModel, isolated_home: Path, host_project: Path
) -> None:
    claude = real_cli("claude")
    (isolated_home / ".claude").mkdir()
    env = _env(isolated_home, fake_model.url, {claude.parent})
    # A key of the user's that Claude Code knows (a tool-call timeout in ms, docs/host-configs.md
    # §3.1): --update keeps it.
    stale = {
        "type": "stdio",
        "command": "/gone/venv/bin/driftguard",
        "args": ["serve"],
        "timeout": 20000,
    }
    added = run_cli(
        [claude, "mcp", "add-json", "--scope", "user", "driftguard", json.dumps(stale)],
        cwd=isolated_home,
        env=env,
    )
    assert added.returncode == 0, added.describe()

    kept = _setup(["--host", "claude_code"], isolated_home, env)
    assert kept.returncode == 1, kept.describe()
    assert _host_lines(kept)["claude_code"].startswith("skipped (")
    assert "/gone/venv/bin/driftguard serve" in kept.stdout

    updated = _setup(["--host", "claude_code", "--update"], isolated_home, env)

    assert updated.returncode == 0, updated.describe()
    assert _host_lines(updated)["claude_code"] == (
        "updated (~/.claude.json, through `claude mcp add-json`)"
    )
    line = _claude_line(claude, host_project, env)
    assert line is not None
    assert f"{driftguard_command()} serve" in line
    assert line.rstrip().endswith("Connected")
    config = json.loads((isolated_home / ".claude.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["driftguard"] == {
        "type": "stdio",
        "command": driftguard_command(),
        "args": ["serve"],
        "env": {"DRIFTGUARD_HOST": "claude_code"},
        "timeout": 20000,
    }
