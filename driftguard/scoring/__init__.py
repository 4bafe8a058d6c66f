"""The drift engine: six factors, composite, states and reports (design.md §5).

Pure functions over :class:`driftguard.model.Session`; nothing here does I/O or imports
the MCP SDK. Start with :func:`score_session`, render with :func:`render_text` or
:func:`to_json_dict`.
"""

from driftguard.scoring.composite import (
    DEFAULT_WARN_THRESHOLD,
    NOT_ENOUGH_MESSAGES,
    DriftReport,
    ResolvedBy,
    State,
    WindowSource,
    score_session,
    state_for,
)
from driftguard.scoring.report import render_text, to_json_dict

__all__ = [
    "DEFAULT_WARN_THRESHOLD",
    "NOT_ENOUGH_MESSAGES",
    "DriftReport",
    "ResolvedBy",
    "State",
    "WindowSource",
    "render_text",
    "score_session",
    "state_for",
    "to_json_dict",
]
