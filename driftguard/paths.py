"""Where driftguard keeps its own state (docs/design.md §2).

``~/.driftcli/`` holds ``history/``, ``sessions/``, ``pointers/``, ``cache/``,
``reports/`` and ``calibration.json``;
``DRIFTGUARD_HOME`` relocates all of it (tests set it) and puts the parse cache under it
too. Otherwise large parse caches go to ``platformdirs.user_cache_dir("driftguard")``.
``DRIFTGUARD_HOME`` does not move the global config ``~/.driftclirc``.

Every function reads the environment and ``Path.home()`` at call time and creates nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = [
    "cache_dir",
    "calibration_path",
    "handoffs_dir",
    "history_dir",
    "parse_cache_dir",
    "pointers_dir",
    "reports_dir",
    "sessions_dir",
    "state_dir",
]

STATE_ENV = "DRIFTGUARD_HOME"


def state_dir() -> Path:
    """``$DRIFTGUARD_HOME`` when set and non-empty, else ``~/.driftcli``."""
    override = os.environ.get(STATE_ENV, "").strip()
    return Path(override).expanduser() if override else Path.home() / ".driftcli"


def history_dir() -> Path:
    """One JSONL file of score snapshots per session (docs/design.md §7)."""
    return state_dir() / "history"


def sessions_dir() -> Path:
    """Per-session state such as the stored goal (docs/design.md §7)."""
    return state_dir() / "sessions"


def handoffs_dir() -> Path:
    """The record of each handoff driftguard saved on this machine (its checkpoint's
    digest and project), without which no handoff is handed over."""
    return state_dir() / "handoffs"


def pointers_dir() -> Path:
    """Hook-written pointers to each project's current transcript (docs/design.md §6)."""
    return state_dir() / "pointers"


def reports_dir() -> Path:
    """The pages ``driftguard report`` writes when not told where."""
    return state_dir() / "reports"


def calibration_path() -> Path:
    """What ``driftguard calibrate`` learnt from the user's sessions, read by
    every score while the config's ``calibration`` is ``auto``."""
    return state_dir() / "calibration.json"


def cache_dir() -> Path:
    """The status-line cache (docs/design.md §2)."""
    return state_dir() / "cache"


def parse_cache_dir() -> Path:
    """Large parse caches: under ``$DRIFTGUARD_HOME`` when set, else the user cache dir."""
    if os.environ.get(STATE_ENV, "").strip():
        return state_dir() / "parse-cache"
    return Path(platformdirs.user_cache_dir("driftguard"))
