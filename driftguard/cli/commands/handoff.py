"""``driftguard handoff``: the handoff prompt for a fresh session; ``--write`` saves the draft."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from driftguard.cli._common import (
    EXIT_OK,
    add_session_arguments,
    check_project,
    config_project,
    session_for,
    warn,
)
from driftguard.errors import DriftguardError

if TYPE_CHECKING:
    from driftguard.sessions.resolve import ResolvedSession

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Print the instructions that make the current model write handoff.md, "
    "pre-filled with facts from the transcript (secrets redacted); --write also "
    "saves the draft in the project for the next session."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser)
    parser.add_argument(
        "--write",
        action="store_true",
        help="also save the pre-filled draft as .driftguard/handoff.md in the project, with "
        "a checkpoint; the next session started there begins with it (with the hooks of "
        "setup --hooks), else when asked to read it (a handoff.md someone edited is "
        "kept as .driftguard/handoff-<UTC time>.md)",
    )
    parser.add_argument(
        "--status",
        action="store_true",
        help="say whether a handoff waits in the project (--project, else the current "
        "directory) for the next session, and whether it will be handed over",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="with --write: also replace an edited or completed handoff.md that still waits "
        "for the next session (it is kept as .driftguard/handoff-<UTC time>.md)",
    )


def _write_projects(args: argparse.Namespace, target: ResolvedSession) -> list[Path]:
    """The projects ``handoff --write`` may save in: ``--project``, else the folder above
    the working directory whose session it is (``target.found_in``: the project a command
    run in its subfolder is about) and the ones the command was started for
    (:func:`driftguard.sessions.resolve.start_projects`); never a folder the session file
    names, which a copied transcript could point anywhere."""
    from driftguard.sessions.resolve import start_projects

    if args.project is not None:
        return [Path(args.project)]
    above = [target.found_in] if target.found_in is not None else []
    return [*above, *start_projects()]


NO_HOOK = "driftguard's hooks are installed in no host"
"""``handoff --status --json``'s ``not_handed_over_because`` for a handoff that may be
handed over but that no host's hook will hand over."""


def _status(args: argparse.Namespace) -> int:
    """``handoff --status``: the project's waiting handoff, and whether the next session
    gets it: only a handoff it may be given (not ``untrusted``), in a host that runs
    driftguard's hand-over hook (the hosts' settings, asked as ``--write`` asks them)."""
    from driftguard.engine.handoff import pickup_any
    from driftguard.format import iso_utc, when_utc
    from driftguard.setup_scripts.hooked import hooked_hosts
    from driftguard.store.handoff_files import handoff_status

    if args.write or args.path is not None:
        raise DriftguardError("--status looks at the project's handoff: drop --write and PATH")
    check_project(args)
    project = Path(args.project) if args.project is not None else Path.cwd()
    status = handoff_status(project)
    hooked = hooked_hosts()
    because = status.untrusted
    if because is None and status.waiting and not hooked:
        because = NO_HOOK
    if args.json:
        print(
            json.dumps(
                {
                    "waiting": status.waiting,
                    "path": str(status.path),
                    "saved_at": iso_utc(status.saved_at) if status.saved_at else None,
                    "saved_by": status.saved_by,
                    "placeholders": status.placeholders,
                    "progress": status.progress.state if status.progress is not None else None,
                    "handed_over": status.waiting and because is None,
                    "not_handed_over_because": because,
                    "hooked_hosts": list(hooked),
                },
                indent=2,
            )
        )
        return EXIT_OK
    if not status.waiting:
        print(f"No handoff waits in {project} for the next session.")
        return EXIT_OK
    when = f" on {when_utc(status.saved_at)}" if status.saved_at else ""
    by = f" by {status.saved_by}" if status.saved_by else ""
    progress = status.progress
    print(
        f"A handoff waits in {status.path}: saved{when}{by}; "
        f"{progress.describe() if progress is not None else 'unreadable'}."
    )
    # what a new --write would do with it, in the words of its refusal (store module doc)
    if progress is not None and progress.edited:
        print(
            "handoff --write does not replace it while it waits; --write --replace does, "
            "keeping it as .driftguard/handoff-<UTC time>.md."
        )
    elif progress is not None:
        print("handoff --write replaces it (keeping it as handoff.prev.md).")
    if status.untrusted is not None:
        print(
            f"It will not be handed over: it is a handoff that {status.untrusted}. "
            "Read it yourself if you trust it."
        )
    else:
        print(pickup_any(hooked))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from driftguard.engine.handoff import pickup, prepare_handoff, write_handoff
    from driftguard.format import display_factors
    from driftguard.render.text import to_json_dict
    from driftguard.setup_scripts.hooked import session_start_hooked
    from driftguard.store.history import GuardedHistoryStore

    if args.status:
        return _status(args)
    if args.replace and not args.write:
        raise DriftguardError("--replace replaces a saved handoff: add --write")
    store = GuardedHistoryStore()
    saved = target = None
    with session_for(args) as (session, found):
        project = config_project(args, session, found)
        if args.write:
            written = write_handoff(
                session,
                project=project,
                store=store,
                projects=_write_projects(args, found),
                found_for_project=args.path is None,
                replace=args.replace,
                resolved_by=found.resolved_by,
                hooked=session_start_hooked(session.cli),
                found_in=found.found_in,
            )
            if written.not_saved:
                hint = f" (--project {session.cwd} saves it there)" if session.cwd else ""
                warn([written.not_saved + hint])
            handoff, report, saved = written.handoff, written.report, written.saved
            target = written.project
        else:
            handoff, report = prepare_handoff(
                session,
                project=project,
                store=store,
                resolved_by=found.resolved_by,
                hooked=session_start_hooked(session.cli),
                found_in=found.found_in,
            )
    warn(store.notes)
    if args.json:
        # Factors as every JSON of driftguard shows them (one decimal), not the raw floats.
        result: dict[str, Any] = {
            **asdict(handoff),
            "factors": display_factors(handoff.factors),
            "report": to_json_dict(report),
        }
        if saved is not None:
            result["saved"] = {
                "handoff": str(saved.handoff),
                "checkpoint": str(saved.checkpoint),
                "record": saved.record,
                "kept": str(saved.kept) if saved.kept is not None else None,
                "previous": str(saved.previous) if saved.previous is not None else None,
            }
        print(json.dumps(result, indent=2))
        return EXIT_OK
    if saved is not None:
        if saved.kept is not None:
            how = saved.kept_progress.describe() if saved.kept_progress else "edited"
            print(f"The handoff.md that was there had been {how}: kept as {saved.kept}, not lost.")
        elif saved.previous is not None:
            print(f"The untouched draft that was there is kept as {saved.previous}.")
        print(f"Saved the handoff draft to {saved.handoff} (checkpoint: {saved.checkpoint}).")
        print(
            pickup(handoff.cli, str(target), hooked=handoff.hooked),
            "Complete the draft first, or give the model these instructions:",
        )
        print()
    print(handoff.prompt)
    return EXIT_OK
