"""Where Gemini CLI compresses: its usable window, read from Gemini CLI 0.61.0
(``chatCompressionService``).

It compresses when the last prompt holds ``model.compressionThreshold × tokenLimit(model)``
tokens; the setting is a fraction, default 0.5 (so 524,288 of 1,048,576). A value above 1
(70 meant as a percentage) means it never compresses. Settings merge system defaults <
user (``$GEMINI_CLI_HOME/.gemini/settings.json`` or ``~/.gemini/settings.json``) < the
project's ``.gemini/settings.json`` (trusted folders only) < system
(``/etc/gemini-cli/settings.json`` or ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``). The older key
``chatCompression.contextPercentageThreshold`` is no longer read by 0.61.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

from driftguard.adapters._compaction import (
    dotted,
    named,
    read_json,
)
from driftguard.compaction.window import HostSetting, UsableWindow

__all__ = ["DEFAULT_THRESHOLD", "compaction_settings", "usable_window"]

DEFAULT_THRESHOLD = 0.5
"""Gemini CLI's default ``model.compressionThreshold`` (fraction of the token limit)."""


def usable_window(window: int, settings: Mapping[str, HostSetting]) -> UsableWindow:
    """Where Gemini CLI compresses a ``window``-token session (module docstring)."""
    setting = settings.get("model.compressionThreshold")
    threshold = DEFAULT_THRESHOLD
    overrides: tuple[str, ...] = ()
    value = setting.value if setting is not None else None
    if setting is not None and isinstance(value, int | float) and not isinstance(value, bool):
        if value > 1:  # e.g. 70 meant as a percentage: Gemini then never compresses
            return UsableWindow(
                window,
                f"Gemini CLI never compresses with a threshold of {value:g} (above 1): "
                f"the whole {window:,} counts",
                (named("model.compressionThreshold", setting),),
            )
        if value > 0:
            threshold = float(value)
            overrides = (named("model.compressionThreshold", setting),)
    tokens = max(1, math.floor(threshold * window))
    return UsableWindow(
        tokens,
        f"Gemini CLI compresses at {threshold:g} × {window:,} = {tokens:,}",
        overrides,
    )


def _trusted(
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
    if user is None or dotted(user, "security.folderTrust.enabled") is not True:
        return True
    trusted = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    data = read_json(
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


def compaction_settings(
    env: Mapping[str, str], home: Path, project: Path | None
) -> dict[str, HostSetting]:
    """``model.compressionThreshold`` from the settings files Gemini CLI merges (module
    docstring), the last one that sets it winning; ``{}`` when none does."""
    gemini_home = Path(env["GEMINI_CLI_HOME"]).expanduser() if env.get("GEMINI_CLI_HOME") else home
    gemini_dir = gemini_home / ".gemini"
    system = Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")
    defaults = Path(
        env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or system.with_name("system-defaults.json")
    )
    files = [defaults, gemini_dir / "settings.json"]
    user = read_json(gemini_dir / "settings.json", comments=True)
    if (
        project is not None
        and os.path.normpath(str(project)) != os.path.normpath(str(gemini_home))
        and _trusted(gemini_dir, project, env, user)
    ):
        files.append(project / ".gemini" / "settings.json")
    files.append(system)
    found: dict[str, HostSetting] = {}
    for path in files:  # lowest first: a later file wins
        data = read_json(path, comments=True)
        value = dotted(data, "model.compressionThreshold") if data is not None else None
        if value is not None:
            found["model.compressionThreshold"] = HostSetting(value, str(path))
    return found
