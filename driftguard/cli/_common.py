"""What several commands share: the session arguments (PATH, ``--cli``, ``--project``,
``--json``), finding and parsing the session they name, the folder whose ``.driftcli``
applies, warnings on stderr, and stdin for the commands a host runs.

Light to import: the adapters, the engine and numpy are imported by the functions that
use them, since ``driftguard statusline`` and ``driftguard hook`` run after every turn.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.errors import DriftguardError
from driftguard.model import CLI_NAMES

if TYPE_CHECKING:
    from driftguard.model import Session
    from driftguard.sessions.resolve import ResolvedSession

__all__ = [
    "DEMO_SESSION",
    "EXIT_BAD_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "add_session_arguments",
    "check_project",
    "config_project",
    "context_window",
    "current_session",
    "session_for",
    "session_target",
    "stdin_bytes",
    "warn",
]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C: 128 + SIGINT (2), the shell's own code for a command it interrupted."""
DEMO_SESSION = "demo-session.jsonl"


def add_session_arguments(
    command: argparse.ArgumentParser, *, json_output: bool = True, verb: str = "read"
) -> None:
    """PATH, --cli and --project (and --json) as every session command takes them."""
    command.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help=f"session file to {verb} (a Cursor chat: the path a report names it by, "
        "<database>#<composer id>)",
    )
    command.add_argument(
        "--cli", choices=CLI_NAMES, help="which CLI wrote PATH, or whose sessions to look for"
    )
    command.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        help="project directory: where to look for sessions and its .driftcli config "
        "(default: the current directory; with PATH, it only selects the config)",
    )
    if json_output:
        command.add_argument("--json", action="store_true", help="print the result as JSON")


@contextmanager
def session_target(args: argparse.Namespace) -> Iterator[ResolvedSession]:
    """The session the arguments name — --demo, PATH, or the project's current one
    (:func:`current_session`) — as its path (or locator), its CLI when known, how it was
    chosen and, for one found above the working directory, where."""
    from driftguard.sessions.resolve import ResolvedSession

    check_project(args)  # --project also picks the config, for --demo too
    if getattr(args, "demo", False):
        if args.path is not None:
            raise DriftguardError("give either PATH or --demo, not both")
        demo = resources.files("driftguard") / "demo" / DEMO_SESSION
        with resources.as_file(demo) as path:
            yield ResolvedSession(path, "claude_code", "path")
        return
    if args.path is not None:
        yield ResolvedSession(Path(args.path), args.cli, "path")
        return
    yield current_session(args)


def current_session(args: argparse.Namespace) -> ResolvedSession:
    """The current session of ``--project``, else of the working directory or the
    nearest folder above it that has one
    (:func:`driftguard.sessions.resolve.resolve_on_command_line`; its warnings printed)."""
    from driftguard.sessions.resolve import resolve_on_command_line

    given: Path | None = args.project
    resolved = resolve_on_command_line(
        given if given is not None else Path.cwd(), only=args.cli, walk_up=given is None
    )
    warn(resolved.warnings)
    return resolved


@contextmanager
def session_for(args: argparse.Namespace) -> Iterator[tuple[Session, ResolvedSession]]:
    """The session the arguments name (:func:`session_target`), parsed."""
    from driftguard.adapters import parse_session

    with session_target(args) as target:
        yield parse_session(target.path, target.cli), target


def check_project(args: argparse.Namespace) -> None:
    """``--project DIR`` must name an existing folder: a typo is named as such, not
    reported as a project without sessions.

    Raises:
        DriftguardError: it does not exist, or is not a folder.
    """
    project: Path | None = getattr(args, "project", None)
    if project is None:
        return
    if not project.exists():
        raise DriftguardError(f"--project {project}: no such folder")
    if not project.is_dir():
        raise DriftguardError(f"--project {project}: not a folder")


def warn(lines: Sequence[str]) -> None:
    """One ``driftguard: warning: …`` line on stderr per line: state that could not be read
    or written costs a warning, never the result."""
    for line in lines:
        print(f"driftguard: warning: {line}", file=sys.stderr)


def config_project(
    args: argparse.Namespace, session: Session, target: ResolvedSession | None = None
) -> Path:
    """The folder whose ``.driftcli`` applies (:func:`driftguard.engine.drift.config_project`)."""
    from driftguard.engine.drift import config_project as choose

    return choose(
        named=Path(args.project) if args.project is not None else None,
        path_given=args.path is not None,
        session=session,
        found_in=target.found_in if target is not None else None,
        default=Path.cwd(),
    )


def context_window(text: str) -> int:
    """``--context-window``: an integer from 1 to 100,000,000 (tokens; ``_`` and ``,``
    allowed as digit separators)."""
    from driftguard.config import MAX_CONTEXT_WINDOW

    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of tokens: {text!r}") from None
    if not 1 <= value <= MAX_CONTEXT_WINDOW:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_CONTEXT_WINDOW:,} tokens")
    return value


def stdin_bytes() -> bytes:
    """All of stdin, or nothing when it is a terminal or closed (a hand-run command)."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return b""
        return stream.buffer.read()
    except (OSError, ValueError, AttributeError):
        return b""
