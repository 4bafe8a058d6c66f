"""Where Claude Code compacts: its usable window, read from Claude Code 2.1.197
(the bundled ``cli`` JS inside the npm package's binary).

- the auto-compact window is the model's window, lowered by
  ``$CLAUDE_CODE_AUTO_COMPACT_WINDOW`` (JavaScript ``parseInt``; ≤ 0 or not a number is
  ignored; capped at 1,000,000, then at least 100,000) or else by the settings key
  ``autoCompactWindow`` (an integer from 100,000 to 1,000,000; others are dropped), never
  above the model's window;
- the effective window is that minus the output reserve, ``min(max output tokens,
  20,000)`` — 20,000 for every current model; ``$CLAUDE_CODE_MAX_OUTPUT_TOKENS`` below
  20,000 shrinks it;
- it compacts at ``effective − 13,000`` tokens (167,000 of a 200,000 window, 967,000 of
  1,000,000); ``$CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` (``parseFloat``, 0 < pct ≤ 100) lowers
  it to ``min(floor(effective × pct / 100), effective − 13,000)``;
- with auto-compact off (``$DISABLE_COMPACT`` or ``$DISABLE_AUTO_COMPACT`` set to 1, true,
  yes or on; or the setting ``autoCompactEnabled: false``) nothing compacts, and the
  session stops where Claude Code blocks: ``window − reserve − 3,000``.

(Without a configured window, 2.1.197 may leave the compaction to the API's "prompt is too
long" answer instead of the threshold; ``/context`` still shows the 13,000-token buffer,
and the threshold is where a session is meant to compact.)

Settings are read from ``<config dir>/settings.json``, then the project's
``.claude/settings.json`` and ``.claude/settings.local.json`` (a later file wins);
``autoCompactEnabled: false`` also from the legacy ``~/.claude.json``. The model's window
itself, which the usable window starts from, is :mod:`._window`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from driftguard.adapters._compaction import (
    js_float,
    js_int,
    named,
    read_json,
    truthy,
)
from driftguard.adapters.claude_code._window import WINDOW_SETTINGS
from driftguard.compaction.window import HostSetting, UsableWindow

__all__ = [
    "BLOCKING_MARGIN",
    "COMPACT_BUFFER",
    "OUTPUT_RESERVE",
    "WINDOW_MAX",
    "WINDOW_MIN",
    "compaction_settings",
    "usable_window",
]

OUTPUT_RESERVE = 20_000
"""Tokens Claude Code keeps free for the reply: ``min(max output tokens, 20,000)``."""
COMPACT_BUFFER = 13_000
"""Tokens below the effective window at which Claude Code auto-compacts."""
BLOCKING_MARGIN = 3_000
"""Tokens below the effective window at which Claude Code refuses to send a request."""
WINDOW_MIN = 100_000
WINDOW_MAX = 1_000_000
"""Bounds Claude Code puts on a configured auto-compact window."""

_ENV_SETTINGS = (
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "DISABLE_COMPACT",
    "DISABLE_AUTO_COMPACT",
)


def _compact_window(window: int, settings: Mapping[str, HostSetting]) -> tuple[int, list[str]]:
    """The auto-compact window (environment first, then the settings key) and the
    overrides that moved it."""
    env_window = settings.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
    parsed = js_int(env_window.value) if env_window is not None else None
    file_window = settings.get("autoCompactWindow")
    file_value = file_window.value if file_window is not None else None
    if env_window is not None and parsed is not None and parsed > 0:
        compact_window = min(window, max(WINDOW_MIN, min(WINDOW_MAX, parsed)))
        moved = [named("CLAUDE_CODE_AUTO_COMPACT_WINDOW", env_window)]
        return compact_window, moved if compact_window != window else []
    if (
        file_window is not None
        and isinstance(file_value, int)
        and not isinstance(file_value, bool)
        and WINDOW_MIN <= file_value <= WINDOW_MAX
    ):
        compact_window = min(window, file_value)
        moved = [named("autoCompactWindow", file_window)]
        return compact_window, moved if compact_window != window else []
    return window, []


def usable_window(window: int, settings: Mapping[str, HostSetting]) -> UsableWindow:
    """Where Claude Code compacts a ``window``-token session (module docstring)."""
    compact_window, overrides = _compact_window(window, settings)
    reserve = OUTPUT_RESERVE
    max_output = settings.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")
    output = js_int(max_output.value) if max_output is not None else None
    if max_output is not None and output is not None and 0 < output < OUTPUT_RESERVE:
        reserve = output
        overrides.append(named("CLAUDE_CODE_MAX_OUTPUT_TOKENS", max_output))
    effective = compact_window - reserve
    off = []
    for name in ("DISABLE_COMPACT", "DISABLE_AUTO_COMPACT"):
        switch = settings.get(name)
        if switch is not None and truthy(switch):
            off.append(named(name, switch))
    enabled = settings.get("autoCompactEnabled")
    if enabled is not None and enabled.value is False:
        off.append(named("autoCompactEnabled", enabled))
    if off:
        tokens = window - reserve - BLOCKING_MARGIN
        if tokens <= 0:
            tokens = window
        return UsableWindow(
            tokens,
            f"auto-compact is off: Claude Code stops at {window:,} − {reserve:,} reserved for "
            f"output − {BLOCKING_MARGIN:,} = {tokens:,}",
            tuple(overrides + off),
        )
    threshold = effective - COMPACT_BUFFER
    if threshold <= 0:
        return UsableWindow(
            window,
            f"a {window:,}-token window leaves Claude Code's rule no room ({compact_window:,} − "
            f"{reserve:,} reserved for output − {COMPACT_BUFFER:,} is not positive): "
            "the whole window counts",
            tuple(overrides),
        )
    rule = (
        f"Claude Code auto-compacts at {compact_window:,} − {reserve:,} reserved for output − "
        f"{COMPACT_BUFFER:,} = {threshold:,}"
    )
    pct_setting = settings.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    pct = js_float(pct_setting.value) if pct_setting is not None else None
    if pct_setting is not None and pct is not None and 0 < pct <= 100:
        by_pct = math.floor(effective * pct / 100)
        rule = (
            f"Claude Code auto-compacts at min({pct:g}% of {effective:,}, "
            f"{effective:,} − {COMPACT_BUFFER:,}) = {min(by_pct, threshold):,} "
            f"({compact_window:,} − {reserve:,} reserved for output = {effective:,})"
        )
        threshold = min(by_pct, threshold)
        overrides.append(named("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", pct_setting))
    return UsableWindow(max(1, threshold), rule, tuple(overrides))


def _config_dir(env: Mapping[str, str], home: Path) -> Path:
    configured = [p.strip() for p in env.get("CLAUDE_CONFIG_DIR", "").split(",") if p.strip()]
    return Path(configured[0]).expanduser() if configured else home / ".claude"


def compaction_settings(
    env: Mapping[str, str], home: Path, project: Path | None
) -> dict[str, HostSetting]:
    """The environment variables and settings keys that move Claude Code's compaction
    point (module docstring), and those that choose the model's window
    (:data:`._window.WINDOW_SETTINGS` and the settings key ``model``); only those that
    are set."""
    found: dict[str, HostSetting] = {}
    for name in (*_ENV_SETTINGS, *WINDOW_SETTINGS):
        if env.get(name, "").strip():
            found[name] = HostSetting(env[name], "environment")
    config_dir = _config_dir(env, home)
    files = [config_dir / "settings.json"]
    if project is not None:
        files += [
            project / ".claude" / "settings.json",
            project / ".claude" / "settings.local.json",
        ]
    for path in files:  # lowest first: a later file wins
        data = read_json(path, comments=False)
        for key in ("autoCompactWindow", "autoCompactEnabled", "model"):
            if data is not None and key in data:
                found[key] = HostSetting(data[key], str(path))
    if "autoCompactEnabled" not in found:
        legacy = (
            config_dir / ".claude.json" if env.get("CLAUDE_CONFIG_DIR") else home / ".claude.json"
        )
        data = read_json(legacy, comments=False)
        if data is not None and data.get("autoCompactEnabled") is False:
            found["autoCompactEnabled"] = HostSetting(False, str(legacy))
    return found
