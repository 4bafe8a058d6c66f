"""``driftguard calibrate``: learn what is normal for you from your own sessions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from driftguard.cli._common import EXIT_OK, context_window, warn
from driftguard.errors import DriftguardError

__all__ = ["DESCRIPTION", "EXIT_NOTHING_LEARNT", "add_arguments", "run"]

EXIT_NOTHING_LEARNT = 1
"""The exit code when no session gave anything to learn: nothing was written (a
calibration learnt before is kept), and a script should know that the run did nothing."""

DESCRIPTION = (
    "Learn what is normal for you from your recorded sessions (no labels): per host and "
    "model family, each factor's scale and the state lines become percentiles of your own "
    "sessions at the same depth, so Drifting means further out than about 9 in 10 of your "
    "sessions at that point. Without --sessions it reads every session file in the hosts' "
    "session folders and the config's sessionFolders. Scores use it by themselves once a "
    "host and model family has enough sessions (config calibration: auto). A run that "
    "learns from no session writes nothing, so a calibration learnt before stays (exit "
    "code 1); a --sessions PATH that does not exist is an error (exit code 2)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sessions",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="session files, or folders of them, to learn from instead",
    )
    parser.add_argument(
        "--context-window",
        type=context_window,
        metavar="TOKENS",
        help="the model's context window in tokens, for a model driftguard cannot know",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where to write the calibration (default: ~/.driftcli/calibration.json, "
        "which scores read by themselves)",
    )
    parser.add_argument("--json", action="store_true", help="print what was learnt as JSON")


def run(args: argparse.Namespace) -> int:
    from driftguard.config import load_config
    from driftguard.engine.calibration import learn, session_files
    from driftguard.format import plural
    from driftguard.paths import calibration_path
    from driftguard.scoring.personal import MIN_SESSIONS

    # a typo names no session: it is an error before anything is read, as for score
    for given in args.sessions or ():
        if not given.exists():
            raise DriftguardError(f"--sessions {given}: not found")
    config = load_config(None)
    warn(list(config.warnings))
    files = session_files(list(args.sessions or ()), config.session_folders)
    learnt = learn(files, context_window=args.context_window, out=args.out)
    target = args.out if args.out is not None else calibration_path()
    code = EXIT_OK if learnt.path is not None else EXIT_NOTHING_LEARNT
    if args.json:
        print(
            json.dumps(
                {
                    "file": str(target),
                    "written": learnt.path is not None,
                    "read": learnt.read,
                    "skipped": learnt.skipped,
                    "needed": MIN_SESSIONS,
                    "references": [
                        {
                            "host": r.cli,
                            "model": r.family,
                            "sessions": r.sessions,
                            "applies": r.sessions >= MIN_SESSIONS,
                        }
                        for r in learnt.references
                    ],
                },
                indent=2,
            )
        )
        return code
    read = f"Read {plural(learnt.read, 'session file')}" + (
        f" ({learnt.skipped} skipped: unreadable or no reply)" if learnt.skipped else ""
    )
    if learnt.path is None:
        if target.exists():
            print(f"{read}; learnt from none, so nothing was written: {target} is left as it was.")
        else:
            print(f"{read}; learnt from none, so nothing was written: {target} does not exist yet.")
            print(
                f"It takes {MIN_SESSIONS} sessions of one host and model; run it again as "
                "they accumulate."
            )
        return code
    print(f"{read}; wrote {learnt.path}.")
    for reference in learnt.references:
        who = f"{reference.cli} · {reference.family}"
        if reference.sessions >= MIN_SESSIONS:
            print(
                f"{who}: {plural(reference.sessions, 'session')}: your own scales apply "
                "to its scores from now on."
            )
        else:
            print(
                f"{who}: not enough sessions yet ({reference.sessions} of {MIN_SESSIONS}): "
                "its scores keep the default scales."
            )
    if args.out is not None:
        print(f"Scores use it with --calibration {args.out} (or config calibration: FILE).")
    return EXIT_OK
