"""What every adapter's compaction rule is made of: the JavaScript number parsing the
Node-based CLIs apply to their environment, and the readers of their settings files
(the values they hold are :class:`~driftguard.compaction.window.HostSetting`).

A session does not run until its model's nominal window is full: each CLI compacts (or
compresses) its history earlier. The *usable window* is that point, in tokens; each
adapter's ``_compaction`` module derives it from its CLI's own code and settings
(:meth:`driftguard.adapters._base.Adapter.usable_window`). The readers here never raise
for a missing or broken file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from driftguard.compaction.window import HostSetting

__all__ = [
    "dotted",
    "js_float",
    "js_int",
    "named",
    "read_json",
    "read_toml",
    "truthy",
]

_TRUE_WORDS = ("1", "true", "yes", "on")
_JS_INT = re.compile(r"\s*([+-]?\d+)")
_JS_FLOAT = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def js_int(value: object) -> int | None:
    """JavaScript ``parseInt(value, 10)`` for a string, the integer for an int, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        found = _JS_INT.match(value)
        return int(found.group(1)) if found else None
    return None


def js_float(value: object) -> float | None:
    """JavaScript ``parseFloat`` for a string, the number for a number, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        found = _JS_FLOAT.match(value)
        return float(found.group(1)) if found else None
    return None


def truthy(setting: HostSetting) -> bool:
    """Claude Code's ``ct()``: 1, true, yes or on, any case, blanks trimmed."""
    return str(setting.value).strip().lower() in _TRUE_WORDS


def named(name: str, setting: HostSetting) -> str:
    """``NAME=value (source)``, a non-string value spelt as JSON (``false``, not ``False``)."""
    value = setting.value if isinstance(setting.value, str) else json.dumps(setting.value)
    return f"{name}={value} ({setting.source})"


def read_json(path: Path, *, comments: bool) -> Mapping[str, object] | None:
    """A JSON (with ``comments``: JSONC) object from ``path``; ``None`` when missing,
    unreadable or not an object. Never raises."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        if not comments:
            return None
        # The commented-JSON reader setup edits host configs with; loaded only for a
        # settings file that is not strict JSON.
        from driftguard import jsonc as _jsonc

        try:
            value = _jsonc.parse(text, comments=True).value
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def read_toml(path: Path) -> Mapping[str, object] | None:
    """A TOML document from ``path``; ``None`` when missing, unreadable or not TOML."""
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, RecursionError, UnicodeDecodeError):
        return None


def dotted(data: Mapping[str, object], key: str) -> object:
    """The value at the dotted ``key`` (``"model.compressionThreshold"``), else ``None``."""
    value: object = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value
