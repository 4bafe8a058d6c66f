"""Helpers for the real-host tests: find the pinned CLIs, write their configs, run them.

The CLIs are looked for in ``$DRIFTGUARD_E2E_NODE_PREFIX/node_modules/.bin`` (default
``<repo>/.ci/node``, where ``.ci/run`` installs them), then on ``PATH``. A missing CLI, or
one whose ``--version`` is not the pinned version, skips the test with the reason.

Config shapes and environment variables follow ``docs/real-clis.md`` (§1 Claude
Code, §2 Gemini CLI, §3 Codex) and ``docs/host-configs.md`` §3.1–§3.3. Every CLI run has a
timeout and its own process group, so a hung CLI and the MCP servers it started are killed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

PINNED = {"claude": "2.1.197", "gemini": "0.61.0", "codex": "0.171.0"}
"""The CLI versions the e2e tests (and ``.ci/run``) are pinned to."""

NPM_PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "gemini": "@google/gemini-cli",
    "codex": "@openai/codex",
}

CLI_TIMEOUT = 120.0
"""Seconds one CLI invocation may take before it and its children are killed."""

SERVER_NAME = "driftguard"

_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ", "USER", "LOGNAME", "SYSTEMROOT")
"""The only variables of the test process a CLI inherits (no stray API keys or homes)."""


def node_prefix() -> Path:
    """Where ``npm install --prefix`` put the pinned CLIs."""
    configured = os.environ.get("DRIFTGUARD_E2E_NODE_PREFIX", "").strip()
    return Path(configured) if configured else REPO_ROOT / ".ci" / "node"


def install_hint() -> str:
    packages = " ".join(f"{NPM_PACKAGES[name]}@{PINNED[name]}" for name in PINNED)
    return f"run `npm install --prefix .ci/node {packages}`"


@cache
def _located(name: str) -> tuple[Path | None, str]:
    """The binary of ``name`` at the pinned version, or ``None`` and why not."""
    pinned = PINNED[name]
    local = node_prefix() / "node_modules" / ".bin" / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        return None, f"{name} {pinned} not installed: {install_hint()}"
    try:
        with tempfile.TemporaryDirectory(prefix="e2e-version-home-") as home:
            done = subprocess.run(
                [found, "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                env={**base_env(), "HOME": home},
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{name} at {found} does not run ({exc}): {install_hint()}"
    match = re.search(r"\d+\.\d+\.\d+", done.stdout)
    if done.returncode != 0 or match is None:
        return None, f"{name} at {found} gave no version (rc {done.returncode}): {install_hint()}"
    if match.group(0) != pinned:
        return None, (
            f"{name} {match.group(0)} found at {found}, but the e2e tests are pinned to "
            f"{pinned}: {install_hint()}"
        )
    return Path(found), ""


def require_cli(name: str) -> Path:
    """The pinned binary of ``claude``, ``gemini`` or ``codex``; skips the test without it."""
    path, reason = _located(name)
    if path is None:
        pytest.skip(reason)
    return path


def driftguard_command() -> str:
    """Absolute path of the ``driftguard`` console script of the running interpreter's venv."""
    beside = Path(sys.executable).parent / "driftguard"
    if beside.exists():
        return str(beside)
    found = shutil.which("driftguard")
    if found is None:
        pytest.fail("the driftguard console script is not installed (pip install -e .)")
    return str(Path(found).absolute())


def base_env() -> dict[str, str]:
    """The few variables of the test process every CLI run keeps."""
    return {name: os.environ[name] for name in _PASSED_ENV if name in os.environ}


def host_env(home: Path, model_url: str, **extra: str) -> dict[str, str]:
    """Environment for a CLI run: the isolated HOME, and all three CLIs pointed at the fake
    model on loopback with dummy keys, telemetry and update checks off (docs/real-clis.md)."""
    env = base_env()
    env.update(
        HOME=str(home),
        DRIFTGUARD_HOME=os.environ.get("DRIFTGUARD_HOME", str(home / ".driftcli")),
        # Claude Code (docs/real-clis.md §1)
        ANTHROPIC_BASE_URL=model_url,
        ANTHROPIC_API_KEY="dummy",
        DISABLE_TELEMETRY="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_CONNECTION_NONBLOCKING="0",
        # Gemini CLI (§2)
        GEMINI_API_KEY="dummy",
        GOOGLE_GEMINI_BASE_URL=model_url,
        # Codex (§3): the key named by env_key of the fake provider
        FAKE_API_KEY="dummy",
        NO_COLOR="1",
    )
    env.update(extra)
    return env


def server_entry(command: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The stdio entry that starts ``driftguard serve``."""
    return {"command": command, "args": ["serve"], "env": dict(env)}


def register_claude(home: Path, command: str, env: Mapping[str, str]) -> Path:
    """Write ``~/.claude.json`` with driftguard as a user-scope server (docs/host-configs.md
    §3.1)."""
    path = home / ".claude.json"
    entry = {"type": "stdio", **server_entry(command, env)}
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2), encoding="utf-8")
    return path


def register_gemini(home: Path, command: str, env: Mapping[str, str], project: Path) -> Path:
    """Write ``~/.gemini/settings.json`` (driftguard, API-key auth, no usage statistics) and
    trust ``project`` in ``trustedFolders.json`` (stdio servers are refused elsewhere)."""
    folder = home / ".gemini"
    folder.mkdir(parents=True, exist_ok=True)
    settings = {
        "mcpServers": {SERVER_NAME: server_entry(command, env)},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
    }
    path = folder / "settings.json"
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    trusted = {str(project): "TRUST_FOLDER"}
    (folder / "trustedFolders.json").write_text(json.dumps(trusted, indent=2), encoding="utf-8")
    return path


def gemini_policy(folder: Path, tools: Sequence[str]) -> Path:
    """A ``--policy`` file that lets driftguard's ``tools`` run in headless mode."""
    rules = [
        f'[[rule]]\nmcpName = "{SERVER_NAME}"\ntoolName = "{tool}"\n'
        'decision = "allow"\npriority = 200\n'
        for tool in tools
    ]
    path = folder / "driftguard-policy.toml"
    path.write_text("\n".join(rules), encoding="utf-8")
    return path


def register_codex(home: Path, command: str, model_url: str) -> Path:
    """Point Codex at the fake model (``~/.codex/config.toml``, docs/real-clis.md §3), then
    register driftguard with the product itself: ``<command> setup --host codex_cli``
    appends its ``[mcp_servers.driftguard]`` table, so the e2e tests run Codex with
    exactly what a user gets (``required = true``: Codex waits for the server before the
    first model request, setup_scripts/codex_cli.py), untouched afterwards. The server
    Codex starts gets no ``DRIFTGUARD_HOME`` (Codex passes it an allow-list of variables
    and the table's ``env``), so it keeps its state in the private HOME's ``.driftcli``,
    where tests/conftest.py points ``DRIFTGUARD_HOME`` too."""
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)

    def toml(value: str) -> str:
        return json.dumps(value)  # a JSON string is a valid TOML basic string

    text = (
        'model = "gpt-5-codex"\n'
        'model_provider = "fake"\n'
        "check_for_update_on_startup = false\n\n"
        "[analytics]\nenabled = false\n\n"
        "[model_providers.fake]\n"
        'name = "Fake model"\n'
        f"base_url = {toml(model_url + '/v1')}\n"
        'env_key = "FAKE_API_KEY"\n'
        'wire_api = "responses"\n'
    )
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    state = os.environ.get("DRIFTGUARD_HOME", str(home / ".driftcli"))
    env = {**base_env(), "HOME": str(home), "DRIFTGUARD_HOME": state}
    setup = run_cli([command, "setup", "--host", "codex_cli"], cwd=home, env=env)
    assert setup.returncode == 0, setup.describe()
    assert "codex_cli: added (~/.codex/config.toml)" in setup.stdout, setup.describe()
    return path


@dataclass(frozen=True, slots=True)
class Run:
    """One finished CLI invocation."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        return (
            f"{' '.join(self.args)} -> rc {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    def json(self) -> Any:
        """stdout parsed as one JSON document."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            pytest.fail(f"not JSON on stdout:\n{self.describe()}")


def run_cli(
    args: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str], timeout: float = CLI_TIMEOUT
) -> Run:
    """Run a CLI in its own process group; on timeout kill the group and fail the test."""
    argv = tuple(str(arg) for arg in args)
    with subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            run = Run(argv, -9, stdout, stderr)
            pytest.fail(f"timed out after {timeout:.0f} s:\n{run.describe()}")
    return Run(argv, process.returncode, stdout, stderr)


def claude_project_folder(project: Path) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character → ``-``
    (docs/real-clis.md's session-file row; short tmp paths stay below the 200-character cap)."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(project))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file (a test reads a small, finished file)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
