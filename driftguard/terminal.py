"""Text that is safe to print on a terminal.

Standard library only: the status line imports it on every call.
"""

from __future__ import annotations

import re

__all__ = ["REDACTION_MARKER", "clip", "printable", "short_markers"]

_CONTROL = {
    **{code: 0x2400 + code for code in range(0x20) if chr(code) not in "\n\t"},
    0x7F: 0x2421,
    **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
}
"""C0 controls but newline and tab → their Unicode control pictures (ESC → ␛, BEL → ␇),
DEL → ␡, C1 controls → �: a terminal then shows the character instead of obeying it."""

REDACTION_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
"""A redaction marker of :mod:`driftguard.secrets` (``[REDACTED:<rule>:<8 hex>]``)."""


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (but newline and tab) are
    shown as symbols, so a transcript cannot retitle, clear or recolour the terminal
    through a report (an ``ESC]0;…BEL`` in a command the model ran, say)."""
    return text.translate(_CONTROL)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with "…", never inside a redaction marker (the
    cut moves to the marker's start)."""
    if len(text) <= limit:
        return text
    cut = max(0, limit - 1)
    for found in REDACTION_MARKER.finditer(text, 0, limit + 64):
        if found.start() < cut < found.end():
            cut = found.start()
            break
    return text[:cut].rstrip() + "…"


def short_markers(text: str) -> str:
    """``text`` with each redaction marker shortened to ``[redacted]``, for a line with
    little room (the status line's goal)."""
    return REDACTION_MARKER.sub("[redacted]", text)
