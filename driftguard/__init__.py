"""driftguard: tells whether a long AI coding session has degraded, and why.

Parse a session file with :func:`parse_session`, score it with :func:`score_session`,
and render the result with :func:`render_text` or :func:`to_json_dict`::

    from pathlib import Path
    from driftguard import parse_session, score_session, render_text
    from driftguard.presets import load_preset

    session = parse_session(Path("~/.claude/projects/-home-me-app/<id>.jsonl").expanduser())
    print(render_text(score_session(session, weights=load_preset("coding").weights)))
"""

from importlib.metadata import PackageNotFoundError, version

from driftguard.adapters import parse_session
from driftguard.errors import (
    ConfigError,
    DriftguardError,
    SessionFormatError,
    SessionNotFoundError,
    UnknownNameError,
)
from driftguard.model import ParsedMessage, Session, ToolCall
from driftguard.scoring import DriftReport, render_text, score_session, to_json_dict

try:
    __version__ = version("driftguard-mcp")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "unknown"

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
