"""driftguard: tells whether a long AI coding session has degraded, and why.

Parse a session file with :func:`parse_session`, score it with :func:`score_session`,
and render the result with :func:`render_text` or :func:`to_json_dict`::

    from pathlib import Path
    from driftguard import parse_session, score_session, render_text
    from driftguard.presets import load_preset

    session = parse_session(Path("~/.claude/projects/-home-me-app/<id>.jsonl").expanduser())
    print(render_text(score_session(session, weights=load_preset("coding").weights)))

The names below are loaded on first use (PEP 562), so importing a light submodule — as the
status line and the prompt hook do after every turn — does not import numpy or the
adapters.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from driftguard.adapters import parse_session
    from driftguard.engine.drift import score_session
    from driftguard.errors import (
        ConfigError,
        DriftguardError,
        SessionFormatError,
        SessionNotFoundError,
        UnknownNameError,
    )
    from driftguard.model import ParsedMessage, Session, ToolCall
    from driftguard.render.text import render_text, to_json_dict
    from driftguard.scoring import DriftReport

    __version__: str

__all__ = [
    "ConfigError",
    "DriftReport",
    "DriftguardError",
    "ParsedMessage",
    "Session",
    "SessionFormatError",
    "SessionNotFoundError",
    "ToolCall",
    "UnknownNameError",
    "__version__",
    "parse_session",
    "render_text",
    "score_session",
    "to_json_dict",
]

_LAZY = {
    "parse_session": "driftguard.adapters",
    "ConfigError": "driftguard.errors",
    "DriftguardError": "driftguard.errors",
    "SessionFormatError": "driftguard.errors",
    "SessionNotFoundError": "driftguard.errors",
    "UnknownNameError": "driftguard.errors",
    "ParsedMessage": "driftguard.model",
    "Session": "driftguard.model",
    "ToolCall": "driftguard.model",
    "DriftReport": "driftguard.scoring",
    "render_text": "driftguard.render.text",
    "score_session": "driftguard.engine.drift",
    "to_json_dict": "driftguard.render.text",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first use and keep it in the module."""
    if name == "__version__":
        from driftguard._version import package_version

        value: Any = package_version()
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'driftguard' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
