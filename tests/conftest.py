"""Shared fixtures: every test runs with a private HOME, and finds the shared corpus.

Nothing in a test may touch the real ``$HOME``: the autouse fixture below points HOME and
every CLI's home override at a temporary folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
"""The shared corpus of real session files (read in place, never copied)."""

_ENV_TO_CLEAR = (
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "GEMINI_CLI_HOME",
    "CODEX_HOME",
    "DRIFTGUARD_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
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
    return home


def corpus_file(relative: str) -> Path:
    """The corpus file at ``relative``, or skip the test (with the reason) when absent."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"shared corpus not available: {path} is absent")
    return path
