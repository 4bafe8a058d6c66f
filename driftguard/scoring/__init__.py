"""The drift score: six factors, the composite, states and recommendations (docs/design.md §5).

Pure functions over :class:`driftguard.model.Session`; nothing here does I/O or imports
the MCP SDK. Start with :func:`score_session`; :mod:`driftguard.render.text` renders the
report. May import :mod:`driftguard.compaction`, :mod:`driftguard.config`,
:mod:`driftguard.presets` and the ground modules; never ``adapters`` (its sibling on the
same floor), ``sessions``, ``store``, ``render`` or anything above them
(``tests/test_layout.py`` checks it).

Cheap to import: the names below load on first use (PEP 562), so a light submodule —
:mod:`.loops` for the prompt hook — costs only itself; numpy loads only in the factors
that compute with it (:mod:`.factors`, :mod:`.tfidf`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    "score_session",
    "state_for",
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
