"""The drift engine: six factors, composite, states and reports (design.md §5).

Pure functions over :class:`driftguard.model.Session`; nothing here does I/O or imports
the MCP SDK. Start with :func:`score_session`, render with :func:`render_text` or
:func:`to_json_dict`.

Cheap to import: the names below load on first use (PEP 562), so a light submodule —
:mod:`.loops` for the prompt hook, :mod:`.format` for the history — costs only itself;
numpy loads only in the factors that compute with it (:mod:`.factors`, :mod:`.tfidf`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from driftguard.render.text import render_text, to_json_dict
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

_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "DEFAULT_WARN_THRESHOLD",
            "NOT_ENOUGH_MESSAGES",
            "DriftReport",
            "ResolvedBy",
            "State",
            "WindowSource",
            "score_session",
            "state_for",
        ),
        "driftguard.scoring.composite",
    ),
    "render_text": "driftguard.render.text",
    "to_json_dict": "driftguard.render.text",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first use and keep it in the module."""
    if name not in _LAZY:
        raise AttributeError(f"module 'driftguard.scoring' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
