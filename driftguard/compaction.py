"""Where each host compacts: the *usable* context window (issue #8).

A session does not run until its model's nominal window is full: each CLI compacts (or
compresses) its history earlier. The usable window is that point, in tokens, read from the
pinned CLIs' own code:

**Claude Code 2.1.197** (the bundled ``cli`` JS inside the npm package's binary):

- the auto-compact window is the model's window, lowered by ``$CLAUDE_CODE_AUTO_COMPACT_WINDOW``
  (JavaScript ``parseInt``; ≤ 0 or not a number is ignored; capped at 1,000,000, then at
  least 100,000) or else by the settings key ``autoCompactWindow`` (an integer from 100,000
  to 1,000,000; others are dropped), never above the model's window;
- the effective window is that minus the output reserve, ``min(max output tokens, 20,000)``
  — 20,000 for every current model; ``$CLAUDE_CODE_MAX_OUTPUT_TOKENS`` below 20,000 shrinks it;
- it compacts at ``effective − 13,000`` tokens (167,000 of a 200,000 window, 967,000 of
  1,000,000); ``$CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` (``parseFloat``, 0 < pct ≤ 100) lowers it
  to ``min(floor(effective × pct / 100), effective − 13,000)``;
- with auto-compact off (``$DISABLE_COMPACT`` or ``$DISABLE_AUTO_COMPACT`` set to 1, true,
  yes or on; or the setting ``autoCompactEnabled: false``) nothing compacts, and the session
  stops where Claude Code blocks: ``window − reserve − 3,000``.

(Without a configured window, 2.1.197 may leave the compaction to the API's "prompt is too
long" answer instead of the threshold; ``/context`` still shows the 13,000-token buffer,
and the threshold is where a session is meant to compact.)

**Gemini CLI 0.61.0** (``chatCompressionService``): it compresses when the last prompt holds
``model.compressionThreshold × tokenLimit(model)`` tokens; the setting is a fraction,
default 0.5 (so 524,288 of 1,048,576). Settings merge system defaults < user
(``$GEMINI_CLI_HOME/.gemini/settings.json`` or ``~/.gemini/settings.json``) < the
project's ``.gemini/settings.json`` (trusted folders only) < system
(``/etc/gemini-cli/settings.json`` or ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``). The older key
``chatCompression.contextPercentageThreshold`` is no longer read by 0.61.

**Codex 0.171.0** (``codex-rs`` model info and ``session/context_window.rs``): the window a
rollout reports (``model_context_window``) is already 95 % of the model's; Codex compacts
at ``model_auto_compact_token_limit`` from ``config.toml`` (top level; ``$CODEX_HOME`` or
``~/.codex``) when set — never beyond the 95 % cap, where it compacts anyway — else at 90 %
of the model's window (244,800 of 272,000).

**Cursor** (its composer chats, :mod:`driftguard.adapters.cursor`): Cursor summarises the
older messages when a conversation reaches the model's context window
(docs.cursor.com/agent/chat/summarization; a Cursor staff answer on forum.cursor.com,
"Summarizing chat context - why?", thread 102842). No setting moves that point and no earlier
one is documented, so the usable window is the nominal window itself. (Unconfirmed: a
decompiled Cursor 2.3.41 build prepares *speculative* summaries from 80 % usage, a
server-side setting; that is when a summary is drafted, not when history is replaced.)

Pure rules (:func:`usable_window`) and the reader of the settings they need
(:func:`read_compaction_settings`), which never raises for a missing or broken file.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from driftguard.model import CliName

__all__ = [
    "CLAUDE_BLOCKING_MARGIN",
    "CLAUDE_COMPACT_BUFFER",
    "CLAUDE_OUTPUT_RESERVE",
    "CODEX_AUTO_COMPACT_PERCENT",
    "CODEX_EFFECTIVE_PERCENT",
    "GEMINI_DEFAULT_THRESHOLD",
    "HostSetting",
    "UsableWindow",
    "read_compaction_settings",
    "usable_window",
]

CLAUDE_OUTPUT_RESERVE = 20_000
"""Tokens Claude Code keeps free for the reply: ``min(max output tokens, 20,000)``."""
CLAUDE_COMPACT_BUFFER = 13_000
"""Tokens below the effective window at which Claude Code auto-compacts."""
CLAUDE_BLOCKING_MARGIN = 3_000
"""Tokens below the effective window at which Claude Code refuses to send a request."""
CLAUDE_WINDOW_MIN = 100_000
CLAUDE_WINDOW_MAX = 1_000_000
"""Bounds Claude Code puts on a configured auto-compact window."""
GEMINI_DEFAULT_THRESHOLD = 0.5
"""Gemini CLI's default ``model.compressionThreshold`` (fraction of the token limit)."""
CODEX_EFFECTIVE_PERCENT = 95
"""The share of the model's window a Codex rollout reports as ``model_context_window``."""
CODEX_AUTO_COMPACT_PERCENT = 90
"""Codex's default auto-compact limit, as a share of the model's window."""

_TRUE_WORDS = ("1", "true", "yes", "on")
_JS_INT = re.compile(r"\s*([+-]?\d+)")
_JS_FLOAT = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


@dataclass(frozen=True, slots=True)
class HostSetting:
    """One value the host's environment or settings hold.

    Attributes:
        value: the raw value (a string from the environment; JSON or TOML types from a file).
        source: ``"environment"`` or the file it came from.
    """

    value: object
    source: str


@dataclass(frozen=True, slots=True)
class UsableWindow:
    """Where the host compacts.

    Attributes:
        tokens: the usable window in tokens (> 0).
        rule: how it was derived, in words (the arithmetic with the host's constants).
        overrides: the settings that changed it, e.g.
            ``("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=80 (environment)",)``; empty for the default.
    """

    tokens: int
    rule: str
    overrides: tuple[str, ...] = ()


def _js_int(value: object) -> int | None:
    """JavaScript ``parseInt(value, 10)`` for a string, the integer for an int, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        found = _JS_INT.match(value)
        return int(found.group(1)) if found else None
    return None


def _js_float(value: object) -> float | None:
    """JavaScript ``parseFloat`` for a string, the number for a number, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        found = _JS_FLOAT.match(value)
        return float(found.group(1)) if found else None
    return None


def _truthy(setting: HostSetting) -> bool:
    """Claude Code's ``ct()``: 1, true, yes or on, any case, blanks trimmed."""
    return str(setting.value).strip().lower() in _TRUE_WORDS


def _named(name: str, setting: HostSetting) -> str:
    """``NAME=value (source)``, a non-string value spelt as JSON (``false``, not ``False``)."""
    value = setting.value if isinstance(setting.value, str) else json.dumps(setting.value)
    return f"{name}={value} ({setting.source})"


def _claude(window: int, settings: Mapping[str, HostSetting]) -> UsableWindow:
    overrides: list[str] = []
    compact_window = window
    env_window = settings.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
    parsed = _js_int(env_window.value) if env_window is not None else None
    file_window = settings.get("autoCompactWindow")
    file_value = file_window.value if file_window is not None else None
    if env_window is not None and parsed is not None and parsed > 0:
        compact_window = min(window, max(CLAUDE_WINDOW_MIN, min(CLAUDE_WINDOW_MAX, parsed)))
        if compact_window != window:
            overrides.append(_named("CLAUDE_CODE_AUTO_COMPACT_WINDOW", env_window))
    elif (
        file_window is not None
        and isinstance(file_value, int)
        and not isinstance(file_value, bool)
        and CLAUDE_WINDOW_MIN <= file_value <= CLAUDE_WINDOW_MAX
    ):
        compact_window = min(window, file_value)
        if compact_window != window:
            overrides.append(_named("autoCompactWindow", file_window))
    reserve = CLAUDE_OUTPUT_RESERVE
    max_output = settings.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")
    output = _js_int(max_output.value) if max_output is not None else None
    if max_output is not None and output is not None and 0 < output < CLAUDE_OUTPUT_RESERVE:
        reserve = output
        overrides.append(_named("CLAUDE_CODE_MAX_OUTPUT_TOKENS", max_output))
    effective = compact_window - reserve
    off = []
    for name in ("DISABLE_COMPACT", "DISABLE_AUTO_COMPACT"):
        switch = settings.get(name)
        if switch is not None and _truthy(switch):
            off.append(_named(name, switch))
    enabled = settings.get("autoCompactEnabled")
    if enabled is not None and enabled.value is False:
        off.append(_named("autoCompactEnabled", enabled))
    if off:
        tokens = window - reserve - CLAUDE_BLOCKING_MARGIN
        if tokens <= 0:
            tokens = window
        return UsableWindow(
            tokens,
            f"auto-compact is off: Claude Code stops at {window:,} − {reserve:,} reserved for "
            f"output − {CLAUDE_BLOCKING_MARGIN:,} = {tokens:,}",
            tuple(overrides + off),
        )
    threshold = effective - CLAUDE_COMPACT_BUFFER
    if threshold <= 0:
        return UsableWindow(
            window,
            f"a {window:,}-token window leaves Claude Code's rule no room ({compact_window:,} − "
            f"{reserve:,} reserved for output − {CLAUDE_COMPACT_BUFFER:,} is not positive): "
            "the whole window counts",
            tuple(overrides),
        )
    rule = (
        f"Claude Code auto-compacts at {compact_window:,} − {reserve:,} reserved for output − "
        f"{CLAUDE_COMPACT_BUFFER:,} = {threshold:,}"
    )
    pct_setting = settings.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    pct = _js_float(pct_setting.value) if pct_setting is not None else None
    if pct_setting is not None and pct is not None and 0 < pct <= 100:
        by_pct = math.floor(effective * pct / 100)
        rule = (
            f"Claude Code auto-compacts at min({pct:g}% of {effective:,}, "
            f"{effective:,} − {CLAUDE_COMPACT_BUFFER:,}) = {min(by_pct, threshold):,} "
            f"({compact_window:,} − {reserve:,} reserved for output = {effective:,})"
        )
        threshold = min(by_pct, threshold)
        overrides.append(_named("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", pct_setting))
    return UsableWindow(max(1, threshold), rule, tuple(overrides))


def _gemini(window: int, settings: Mapping[str, HostSetting]) -> UsableWindow:
    setting = settings.get("model.compressionThreshold")
    threshold = GEMINI_DEFAULT_THRESHOLD
    overrides: tuple[str, ...] = ()
    value = setting.value if setting is not None else None
    if setting is not None and isinstance(value, int | float) and not isinstance(value, bool):
        if value > 1:  # e.g. 70 meant as a percentage: Gemini then never compresses
            return UsableWindow(
                window,
                f"Gemini CLI never compresses with a threshold of {value:g} (above 1): "
                f"the whole {window:,} counts",
                (_named("model.compressionThreshold", setting),),
            )
        if value > 0:
            threshold = float(value)
            overrides = (_named("model.compressionThreshold", setting),)
    tokens = max(1, math.floor(threshold * window))
    return UsableWindow(
        tokens,
        f"Gemini CLI compresses at {threshold:g} × {window:,} = {tokens:,}",
        overrides,
    )


def _codex(window: int, from_file: bool, settings: Mapping[str, HostSetting]) -> UsableWindow:
    model_window = round(window * 100 / CODEX_EFFECTIVE_PERCENT) if from_file else window
    cap = model_window * CODEX_EFFECTIVE_PERCENT // 100
    setting = settings.get("model_auto_compact_token_limit")
    limit = setting.value if setting is not None else None
    if setting is not None and isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        tokens = min(limit, cap)
        return UsableWindow(
            tokens,
            f"Codex compacts at model_auto_compact_token_limit {limit:,} "
            f"(at most {CODEX_EFFECTIVE_PERCENT}% of {model_window:,}) = {tokens:,}",
            (_named("model_auto_compact_token_limit", setting),),
        )
    tokens = model_window * CODEX_AUTO_COMPACT_PERCENT // 100
    return UsableWindow(
        tokens, f"Codex compacts at {CODEX_AUTO_COMPACT_PERCENT}% of {model_window:,} = {tokens:,}"
    )


def _cursor(window: int) -> UsableWindow:
    return UsableWindow(
        window,
        f"Cursor summarises when the conversation reaches the model's window of {window:,}; "
        "no earlier point is documented, so the whole window is usable",
    )


def usable_window(
    cli: CliName,
    window: int,
    *,
    settings: Mapping[str, HostSetting] | None = None,
    window_from_file: bool = True,
) -> UsableWindow:
    """The usable window of a session whose model has ``window`` tokens.

    Args:
        cli: the host that wrote the session.
        window: the nominal context window in tokens (> 0): the session's own (design
            §5.3) or one given by the user or the host's status line.
        settings: what :func:`read_compaction_settings` found; ``None`` or empty: defaults.
        window_from_file: ``window`` is what a Codex rollout reports (already 95 % of the
            model's); ``False`` when the user or a config named the model's window.

    Returns:
        The :class:`UsableWindow`; at least 1 token.
    """
    found = settings or {}
    if window <= 0:
        return UsableWindow(1, "no context window known")
    if cli == "claude_code":
        return _claude(window, found)
    if cli == "gemini_cli":
        return _gemini(window, found)
    if cli == "cursor":
        return _cursor(window)
    return _codex(window, window_from_file, found)


# --------------------------------------------------------------------------------------
# Reading the host's settings


def _read_json(path: Path, *, comments: bool) -> Mapping[str, object] | None:
    """A JSON (or JSONC) object from ``path``; ``None`` when missing, unreadable or not
    an object. Never raises."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        if not comments:
            return None
        from driftguard.setup_scripts import _jsonc

        try:
            value = _jsonc.parse(text, comments=True).value
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _read_toml(path: Path) -> Mapping[str, object] | None:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, RecursionError, UnicodeDecodeError):
        return None


def _dotted(data: Mapping[str, object], key: str) -> object:
    value: object = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _claude_config_dir(env: Mapping[str, str], home: Path) -> Path:
    configured = [p.strip() for p in env.get("CLAUDE_CONFIG_DIR", "").split(",") if p.strip()]
    return Path(configured[0]).expanduser() if configured else home / ".claude"


def _claude_settings(
    env: Mapping[str, str], home: Path, project: Path | None
) -> dict[str, HostSetting]:
    found: dict[str, HostSetting] = {}
    for name in (
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        "DISABLE_COMPACT",
        "DISABLE_AUTO_COMPACT",
    ):
        if env.get(name, "").strip():
            found[name] = HostSetting(env[name], "environment")
    config_dir = _claude_config_dir(env, home)
    files = [config_dir / "settings.json"]
    if project is not None:
        files += [
            project / ".claude" / "settings.json",
            project / ".claude" / "settings.local.json",
        ]
    for path in files:  # lowest first: a later file wins
        data = _read_json(path, comments=False)
        for key in ("autoCompactWindow", "autoCompactEnabled"):
            if data is not None and key in data:
                found[key] = HostSetting(data[key], str(path))
    if "autoCompactEnabled" not in found:
        legacy = (
            config_dir / ".claude.json" if env.get("CLAUDE_CONFIG_DIR") else home / ".claude.json"
        )
        data = _read_json(legacy, comments=False)
        if data is not None and data.get("autoCompactEnabled") is False:
            found["autoCompactEnabled"] = HostSetting(False, str(legacy))
    return found


def _gemini_trusted(
    gemini_dir: Path, project: Path, env: Mapping[str, str], user: Mapping[str, object] | None
) -> bool:
    """Whether Gemini CLI 0.61 reads ``project``'s settings (``checkPathTrust``): every
    folder when folder trust is off (the user settings' ``security.folderTrust.enabled``
    not true) or ``$GEMINI_CLI_TRUST_WORKSPACE`` is ``true``; else when
    ``trustedFolders.json`` (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``) trusts it — itself or a
    folder above marked ``TRUST_FOLDER``, or a sibling under a ``TRUST_PARENT`` entry's
    parent."""
    if env.get("GEMINI_CLI_TRUST_WORKSPACE", "").strip().lower() == "true":
        return True
    if user is None or _dotted(user, "security.folderTrust.enabled") is not True:
        return True
    trusted = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    data = _read_json(
        Path(trusted) if trusted else gemini_dir / "trustedFolders.json", comments=True
    )
    if data is None:
        return False
    target = os.path.normpath(str(project))
    for folder, level in data.items():
        base = os.path.normpath(folder)
        if level == "TRUST_FOLDER" and (target == base or target.startswith(base + os.sep)):
            return True
        if level == "TRUST_PARENT" and target.startswith(os.path.dirname(base) + os.sep):
            return True
    return False


def _gemini_settings(
    env: Mapping[str, str], home: Path, project: Path | None
) -> dict[str, HostSetting]:
    gemini_home = Path(env["GEMINI_CLI_HOME"]).expanduser() if env.get("GEMINI_CLI_HOME") else home
    gemini_dir = gemini_home / ".gemini"
    system = Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")
    defaults = Path(
        env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or system.with_name("system-defaults.json")
    )
    files = [defaults, gemini_dir / "settings.json"]
    user = _read_json(gemini_dir / "settings.json", comments=True)
    if (
        project is not None
        and os.path.normpath(str(project)) != os.path.normpath(str(gemini_home))
        and _gemini_trusted(gemini_dir, project, env, user)
    ):
        files.append(project / ".gemini" / "settings.json")
    files.append(system)
    found: dict[str, HostSetting] = {}
    for path in files:  # lowest first: a later file wins
        data = _read_json(path, comments=True)
        value = _dotted(data, "model.compressionThreshold") if data is not None else None
        if value is not None:
            found["model.compressionThreshold"] = HostSetting(value, str(path))
    return found


def _codex_settings(env: Mapping[str, str], home: Path) -> dict[str, HostSetting]:
    codex_home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"
    found: dict[str, HostSetting] = {}
    for path in (Path("/etc/codex/config.toml"), codex_home / "config.toml"):
        data = _read_toml(path)
        if data is not None and "model_auto_compact_token_limit" in data:
            found["model_auto_compact_token_limit"] = HostSetting(
                data["model_auto_compact_token_limit"], str(path)
            )
    return found


def read_compaction_settings(
    cli: CliName,
    *,
    project: Path | None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> dict[str, HostSetting]:
    """The environment variables and settings that move ``cli``'s compaction point.

    Args:
        cli: the host.
        project: the project folder, whose own settings files count where the host reads
            them (Claude Code ``.claude/settings{,.local}.json``; Gemini CLI
            ``.gemini/settings.json`` in a trusted folder); ``None``: user settings only.
        env: the environment to read (default: this process's — under MCP and hooks, the
            one the host started driftguard with).
        home: the home folder (default :meth:`Path.home`).

    Returns:
        Setting name → :class:`HostSetting`, only the ones that are set. A file that is
        missing, unreadable or does not parse is passed over; this never raises.
    """
    environment = os.environ if env is None else env
    home_dir = Path.home() if home is None else home
    if cli == "claude_code":
        return _claude_settings(environment, home_dir, project)
    if cli == "gemini_cli":
        return _gemini_settings(environment, home_dir, project)
    if cli == "cursor":
        return {}  # nothing moves Cursor's summarisation point (module docstring)
    return _codex_settings(environment, home_dir)
