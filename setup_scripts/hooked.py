"""Which hosts hand a saved handoff to the next session by themselves: those whose settings
run the driftguard hook that hands it over (``setup --hooks`` writes it: the session-start
hook, or on Gemini CLI the prompt hook).

The shells ask this before they save a handoff (``driftguard handoff --write``, the
``save_handoff`` tool), so the prompt tells the model how the next session gets it, and
``driftguard handoff --status`` asks it of every host (the next session may be started in
any of them); the engine is told the answer and never reads a host's settings itself.
Reads only.
"""

from __future__ import annotations

from driftguard.model import CLI_NAMES, CliName

__all__ = ["hooked_hosts", "session_start_hooked"]


def session_start_hooked(cli: CliName) -> bool:
    """Whether the host of a ``cli`` session runs the driftguard hook that hands a waiting
    handoff over (Gemini CLI: its prompt hook; elsewhere the session-start hook); ``False``
    when its settings cannot be read (then no hook of ours runs either). Never raises for
    a missing or broken file."""
    from driftguard.setup_scripts import HOOK_HOSTS
    from driftguard.setup_scripts._hooks_file import installed_events, read_settings

    host = HOOK_HOSTS[cli]
    value = read_settings(host)
    if value is None:
        return False
    wanted = "user-prompt-submit" if cli == "gemini_cli" else "session-start"
    event = next(spec.event for spec in host.specs if spec.name == wanted)
    return event in installed_events(host, value)


def hooked_hosts() -> tuple[CliName, ...]:
    """The hosts that run the driftguard hook that hands a waiting handoff over
    (:func:`session_start_hooked`), in :data:`~driftguard.model.CLI_NAMES` order; empty
    when none does. Never raises for a missing or broken file."""
    return tuple(cli for cli in CLI_NAMES if session_start_hooked(cli))
