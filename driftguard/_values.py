"""Checks shared by the preset loader and the config loader (docs/design.md §5.4).

One rule for what a factor weight is, so a preset file (TOML) and a config file (JSON)
accept exactly the same values, and one way to describe a rejected value in an error
message. Internal: not part of driftguard's public API.
"""

from __future__ import annotations

import json
import math

__all__ = ["describe", "parse_weight"]

_MAX_SHOWN = 40
"""Strings longer than this many characters are cut in error messages."""


def describe(value: object) -> str:
    """A short, JSON-flavoured description of ``value`` for an error message.

    Numbers and booleans are shown as written in JSON (``101``, ``-0.5``, ``NaN``, ``true``),
    strings quoted (cut to 40 characters), ``null`` as is, containers by kind
    (``an array``, ``an object``).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, str):
        shown = value if len(value) <= _MAX_SHOWN else value[:_MAX_SHOWN] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def parse_weight(value: object) -> float:
    """A factor weight as presets and configs accept it: a finite number ≥ 0, as a float.

    Integers are accepted and converted; booleans are not numbers here (JSON ``true`` is not
    ``1``); ``-0.0`` becomes ``0.0``.

    Raises:
        ValueError: the value is not a number, not finite (NaN, ±infinity, an integer too
            large for a float) or negative; the message is the reason only (the caller adds
            the file and the key).
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, got {describe(value)}")
    try:
        weight = float(value)
    except OverflowError:
        raise ValueError("must be a finite number, got an integer too large") from None
    if not math.isfinite(weight):
        raise ValueError(f"must be a finite number, got {describe(value)}")
    if weight < 0:
        raise ValueError(f"must not be negative, got {describe(value)}")
    return weight + 0.0
