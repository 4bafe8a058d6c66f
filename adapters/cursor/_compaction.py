"""Where Cursor summarises a composer chat: its usable window.

Cursor summarises the older messages when a conversation reaches the model's context
window (docs.cursor.com/agent/chat/summarization; a Cursor staff answer on
forum.cursor.com, "Summarizing chat context - why?", thread 102842). No setting moves that
point and no earlier one is documented, so the usable window is the nominal window itself.
(Unconfirmed: a decompiled Cursor 2.3.41 build prepares *speculative* summaries from 80 %
usage, a server-side setting; that is when a summary is drafted, not when history is
replaced.)
"""

from __future__ import annotations

from driftguard.compaction.window import UsableWindow

__all__ = ["usable_window"]


def usable_window(window: int) -> UsableWindow:
    """The whole ``window`` (module docstring)."""
    return UsableWindow(
        window,
        f"Cursor summarises when the conversation reaches the model's window of {window:,}; "
        "no earlier point is documented, so the whole window is usable",
    )
