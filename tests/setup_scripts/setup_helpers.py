"""Helpers of the ``driftguard setup`` tests: the fixture home, the host files, and a
check that an edit only inserted text."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from conftest import REPO_ROOT

FIXTURE_HOME = REPO_ROOT / "tests" / "fixtures" / "setup" / "home"

HOST_FILES = {
    "claude_code": ".claude.json",
    "gemini_cli": ".gemini/settings.json",
    "codex_cli": ".codex/config.toml",
    "cursor": ".cursor/mcp.json",
}
"""Each host's user config file, relative to the home folder."""


def install_fixture_home(home: Path) -> None:
    """Copy the synthetic configs of all four hosts into ``home``."""
    shutil.copytree(FIXTURE_HOME, home, dirs_exist_ok=True)


def inserted_chunks(before: str, after: str) -> list[str]:
    """The pieces of ``after`` that are not in ``before``, asserting that nothing of
    ``before`` was changed or deleted (every byte of it is still there, in order)."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    chunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        assert tag in ("equal", "insert"), f"{tag}: {before[i1:i2]!r} -> {after[j1:j2]!r}"
        if tag == "insert":
            chunks.append(after[j1:j2])
    return chunks


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and its mtime in nanoseconds."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
