"""Which hosts hand a saved handoff to the next session by themselves: those whose settings
run driftguard's session-start hook (:mod:`.claude_hooks` writes it).

The shells ask this before they save a handoff (``driftguard handoff --write``, the
``save_handoff`` tool), so the prompt tells the model how the next session gets it; the
engine is told the answer and never reads a host's settings itself. Reads only.
"""

from __future__ import annotations

from driftguard.model import CliName

__all__ = ["session_start_hooked"]


def session_start_hooked(cli: CliName) -> bool:
    """Whether the host of a ``cli`` session runs driftguard's session-start hook; ``False``
    for a host setup writes no such hook for, and when its settings cannot be read (then
    no hook of ours runs either). Never raises for a missing or broken file."""
    if cli == "claude_code":
        from driftguard.setup_scripts.claude_hooks import session_start_installed

        return session_start_installed()
    return False
