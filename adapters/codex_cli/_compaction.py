"""Where Codex compacts: its usable window, read from Codex 0.171.0
(``codex-rs`` model info and ``session/context_window.rs``).

The window a rollout reports (``model_context_window``) is already 95 % of the model's;
Codex compacts at ``model_auto_compact_token_limit`` from ``config.toml`` (top level;
``/etc/codex/config.toml``, then ``$CODEX_HOME`` or ``~/.codex``) when set — never beyond
the 95 % cap, where it compacts anyway — else at 90 % of the model's window (244,800 of
272,000).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from driftguard.adapters._compaction import named, read_toml
from driftguard.compaction.window import HostSetting, UsableWindow

__all__ = [
    "AUTO_COMPACT_PERCENT",
    "EFFECTIVE_PERCENT",
    "compaction_settings",
    "usable_window",
]

EFFECTIVE_PERCENT = 95
"""The share of the model's window a Codex rollout reports as ``model_context_window``."""
AUTO_COMPACT_PERCENT = 90
"""Codex's default auto-compact limit, as a share of the model's window."""


def usable_window(
    window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
) -> UsableWindow:
    """Where Codex compacts a session with ``window`` tokens: the rollout's own window
    (``window_from_file``, 95 % of the model's) or the model's (module docstring)."""
    model_window = round(window * 100 / EFFECTIVE_PERCENT) if window_from_file else window
    cap = model_window * EFFECTIVE_PERCENT // 100
    setting = settings.get("model_auto_compact_token_limit")
    limit = setting.value if setting is not None else None
    if setting is not None and isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        tokens = min(limit, cap)
        return UsableWindow(
            tokens,
            f"Codex compacts at model_auto_compact_token_limit {limit:,} "
            f"(at most {EFFECTIVE_PERCENT}% of {model_window:,}) = {tokens:,}",
            (named("model_auto_compact_token_limit", setting),),
        )
    tokens = model_window * AUTO_COMPACT_PERCENT // 100
    return UsableWindow(
        tokens, f"Codex compacts at {AUTO_COMPACT_PERCENT}% of {model_window:,} = {tokens:,}"
    )


def compaction_settings(env: Mapping[str, str], home: Path) -> dict[str, HostSetting]:
    """``model_auto_compact_token_limit`` from the ``config.toml`` files (the user's wins)."""
    codex_home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"
    found: dict[str, HostSetting] = {}
    for path in (Path("/etc/codex/config.toml"), codex_home / "config.toml"):
        data = read_toml(path)
        if data is not None and "model_auto_compact_token_limit" in data:
            found["model_auto_compact_token_limit"] = HostSetting(
                data["model_auto_compact_token_limit"], str(path)
            )
    return found
