"""The placeholders of the handoff draft (issue #11).

:mod:`driftguard.engine.handoff` writes them into the draft of ``handoff.md``;
:mod:`driftguard.store.handoff_files` checks whether a saved handoff still holds any before the
``SessionStart`` hook hands it over. Kept apart from both so the hook can check a handoff
without importing the scoring (numpy), and neither of the two imports the other.
Standard library only.
"""

from __future__ import annotations

__all__ = ["PLACEHOLDERS", "placeholders_left"]

PLACEHOLDERS: tuple[str, ...] = (
    "<the request this session set out to do>",
    "<from the compaction summary and your memory>",
    "<what was done and verified, one line each>",
    "<what works now; what is half-done or broken>",
    "<what changed>",
    "<none found in the transcript; list any file you created or changed>",
    "<decisions still open and questions for the user>",
    "<the next concrete step>",
    "<conventions, gotchas, where to look first>",
    "<none edited since the last compaction; list any file you created or changed, "
    "also those the compaction summary names>",
)
"""The placeholders of the draft, for the model to replace; a handoff that still holds one
is unfinished (:func:`placeholders_left`)."""


def placeholders_left(text: str) -> int:
    """How many of the draft's :data:`PLACEHOLDERS` ``text`` still holds (each occurrence
    counts): 0 for a completed handoff."""
    return sum(text.count(placeholder) for placeholder in PLACEHOLDERS)
