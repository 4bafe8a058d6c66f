"""`driftguard setup` on a full disk: a backup is complete or absent.

The disk is made "full" for a child process with a real file-size limit (RLIMIT_FSIZE,
what ``ulimit -f`` sets): a write past it fails with EFBIG (Python ignores SIGXFSZ), as a
write to a full disk fails with ENOSPC, after part of the data went in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

resource = pytest.importorskip("resource", reason="RLIMIT_FSIZE needs the POSIX resource module")

LIMIT = 200 * 1024
"""The child's file-size limit, in bytes (``ulimit -f 200``)."""

_SETUP_UNDER_A_SIZE_LIMIT = textwrap.dedent(
    f"""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))
    from driftguard.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def _large_claude_json(path: Path) -> bytes:
    """A ``~/.claude.json`` of about 630 KB, three times the child's file-size limit."""
    projects = {
        f"/home/dev/project-{n:04d}": {"allowedTools": [], "history": [{"display": "x" * 200}]}
        for n in range(2400)
    }
    data = json.dumps({"numStartups": 40, "projects": projects}, indent=2).encode()
    assert len(data) > 3 * LIMIT
    path.write_bytes(data)
    return data


def _setup_claude_code_under_the_limit(
    home: Path, empty_path: Path
) -> subprocess.CompletedProcess[str]:
    """``driftguard setup --host claude_code`` in a child process whose file-size limit is
    :data:`LIMIT`, with ``home`` as its home and no ``claude`` on PATH (so setup edits
    ``~/.claude.json`` itself)."""
    env = {
        "HOME": str(home),
        "DRIFTGUARD_HOME": str(home / ".driftcli"),
        "PATH": str(empty_path),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [sys.executable, "-c", _SETUP_UNDER_A_SIZE_LIMIT, "setup", "--host", "claude_code"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_full_disk_leaves_no_file_named_like_a_backup_and_the_config_intact(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = isolated_home / ".claude.json"
    original = _large_claude_json(config)
    done = _setup_claude_code_under_the_limit(isolated_home, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "claude_code: failed" in done.stdout
    assert "it is unchanged" in done.stdout
    assert sorted(p.name for p in isolated_home.iterdir() if p.name.startswith(".claude")) == [
        ".claude.json"
    ]
    assert config.read_bytes() == original


def test_a_backup_written_within_the_limit_is_whole(isolated_home: Path, tmp_path: Path) -> None:
    config = isolated_home / ".claude.json"
    config.write_text(json.dumps({"numStartups": 1, "projects": {}}), encoding="utf-8")
    original = config.read_bytes()
    done = _setup_claude_code_under_the_limit(isolated_home, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    backups = list(isolated_home.glob(".claude.json.driftguard-backup-*"))
    assert [b.read_bytes() for b in backups] == [original]
    assert not list(isolated_home.glob(".*.tmp"))
    assert os.stat(backups[0]).st_nlink == 1  # the temporary name is gone
