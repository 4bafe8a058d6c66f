"""``driftguard report``: a self-contained HTML page of a session's drift, turn by turn, or
one per session of a project with an index (``--all``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.cli._common import (
    EXIT_OK,
    add_session_arguments,
    check_project,
    config_project,
    session_target,
    warn,
)
from driftguard.errors import DriftguardError
from driftguard.model import CLI_NAMES

if TYPE_CHECKING:
    from driftguard.sessions.discovery import ProjectSession

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Score the session after every turn and write one HTML page that works offline: "
    "the score and each factor over the turns, the context against where the host "
    "compacts, compactions and action loops where they happened, the recorded "
    "scores and the handoff draft (secrets redacted). Without -o the page goes to "
    "~/.driftcli/reports/. --all writes a page per session of the project and an "
    "index of them."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser, json_output=False, verb="report on")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the page: a file in an existing folder, or a folder (with "
        "--all: a folder, made if its parent exists); - prints it to stdout. A file that "
        "exists is replaced only when it is a report driftguard wrote",
    )
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every session of the project (--project, else the current directory), "
        "with an index page listing each one's peak and last score",
    )
    parser.add_argument(
        "--demo", action="store_true", help="report on the demo session shipped with driftguard"
    )


def run(args: argparse.Namespace) -> int:
    from driftguard.engine.timeline import session_timeline
    from driftguard.render.html import IndexRow, render_index_page, render_session_page
    from driftguard.store.history import GuardedHistoryStore

    store = GuardedHistoryStore()
    if not args.all:
        with session_target(args) as found:
            summary = session_timeline(
                found.path,
                found.cli,
                project_for=lambda s: config_project(args, s, found),
                store=store,
            )
        warn(store.notes)
        page = render_session_page(summary.timeline)
        if args.output == "-":
            sys.stdout.write(page)
            return EXIT_OK
        target = _report_file(summary.timeline.path)
        if args.output:
            target = _output_path(Path(args.output), folder=False, name=target.name)
        _check_replaceable(target, args.output)
        _write_page(target, page)
        turns = len(summary.timeline.points)
        print(
            f"Wrote {target}: {turns} turn{'s' * (turns != 1)}, score {summary.last}/100 now, "
            f"peak {summary.peak}."
        )
        return _maybe_open(args, target)
    if args.path is not None or getattr(args, "demo", False):
        raise DriftguardError("give either PATH or --all, not both")
    if args.output == "-":
        raise DriftguardError("--all writes a folder of pages: give -o DIR, not -o -")
    check_project(args)
    project, sessions, warnings = _project_sessions(args)
    warn(warnings)
    folder = _output_path(Path(args.output), folder=True) if args.output else None
    folder = folder or _report_folder(project)
    # every file is checked before the first is written: a refusal leaves the folder as it was
    for name in ("index.html", *(_report_file(str(one.path)).name for one in sessions)):
        _check_replaceable(folder / name, args.output)
    rows: list[IndexRow] = []
    for one in sessions:
        try:
            summary = session_timeline(
                one.path, one.cli, project_for=lambda _: project, store=store
            )
        except DriftguardError as exc:
            warn([f"{one.path}: not reported: {exc}"])
            continue
        name = _report_file(str(one.path)).name
        _write_page(folder / name, render_session_page(summary.timeline))
        rows.append(
            IndexRow(
                title=summary.timeline.title,
                href=name,
                peak=summary.peak,
                last=summary.last,
                turns=len(summary.timeline.points),
                updated=one.time_ns / 1e9,
            )
        )
    warn(store.notes)
    index = folder / "index.html"
    _write_page(index, render_index_page(str(project), rows))
    print(f"Wrote {index}: {len(rows)} session{'s' * (len(rows) != 1)} of {project}.")
    return _maybe_open(args, index)


def _project_sessions(
    args: argparse.Namespace,
) -> tuple[Path, list[ProjectSession], list[str]]:
    """``report --all``'s project and its sessions, newest first (with the warnings of
    :func:`driftguard.sessions.discovery.project_sessions`): ``--project``, else the working
    directory or, when it has none, the nearest folder above it that has some
    (:func:`driftguard.sessions.resolve.nearest_with_session`, as for one session).

    Raises:
        SessionNotFoundError: no folder tried has a session (the working directory's
            message and details).
    """
    from driftguard.sessions import discovery
    from driftguard.sessions.resolve import nearest_with_session

    clis = (args.cli,) if args.cli else CLI_NAMES
    if args.project is not None:
        return (Path(args.project), *discovery.project_sessions(Path(args.project), clis))
    folder, (sessions, warnings) = nearest_with_session(
        Path.cwd(), lambda f: discovery.project_sessions(f, clis)
    )
    return folder, sessions, warnings


def _report_file(session_path: str) -> Path:
    """Where ``driftguard report`` writes a session's page without ``-o``:
    ``<state dir>/reports/<file or chat name>-<hash of the path>.html``."""
    import hashlib
    import re

    from driftguard.paths import reports_dir

    name = Path(session_path.split("#")[-1]).name
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", re.sub(r"\.jsonl?(\.zst)?$", "", name))[:80]
    digest = hashlib.sha256(session_path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return reports_dir() / f"{name}-{digest}.html"


def _report_folder(project: Path) -> Path:
    """Where ``driftguard report --all`` writes a project's pages without ``-o``."""
    return _report_file(str(project.resolve())).with_suffix("")


def _output_path(output: Path, *, folder: bool, name: str = "") -> Path:
    """``report``'s ``-o``, checked before any page is written: a page goes into an
    existing folder (as ``name`` when ``output`` is that folder); ``--all``'s folder may be
    new, inside an existing one. A typo never creates a tree of folders.

    Raises:
        DriftguardError: the folder it would go in does not exist, or ``--all`` was given a
            file.
    """
    if folder:
        if output.exists() and not output.is_dir():
            raise DriftguardError(f"-o {output}: with --all, -o names a folder; this is a file")
        parent = output.parent
    elif output.is_dir():
        return output / name
    else:
        parent = output.parent
    if not parent.is_dir():
        raise DriftguardError(f"-o {output}: the folder {parent} does not exist")
    return output


def _check_replaceable(target: Path, output: str | None) -> None:
    """``target`` may be written: it does not exist, or it is a page driftguard wrote
    (:func:`driftguard.render.html.is_report_page`; through a symlink, the file it points
    to, though the page then replaces the link itself). Anything else — a file of the
    user's, a device, a folder — is never replaced.

    Raises:
        DriftguardError: it exists and is not such a page, or cannot be read to tell
            (names ``-o`` as given, or the file).
    """
    import os
    import stat

    from driftguard.errors import from_os_error
    from driftguard.render.html import is_report_page

    shown = f"-o {output}" if output and Path(output) == target else str(target)
    try:
        found = os.stat(target)
    except FileNotFoundError:
        if target.is_symlink():  # a dangling link is the user's too
            raise DriftguardError(_not_ours(shown)) from None
        return
    except OSError as exc:
        raise from_os_error(exc, f"{shown}: cannot check what it is") from exc
    head = b""
    if stat.S_ISREG(found.st_mode):
        try:
            with open(target, "rb") as file:
                head = file.read(512)
        except OSError as exc:
            raise from_os_error(exc, f"{shown}: cannot check it is a report") from exc
    if not is_report_page(head):
        raise DriftguardError(_not_ours(shown))


def _not_ours(shown: str) -> str:
    return (
        f"{shown}: the file exists and is not a report driftguard wrote, so it is left as "
        "it is: remove it or give -o another file"
    )


def _write_page(target: Path, page: str) -> None:
    """Write one report page atomically, readable by its owner only (it quotes the
    session, after the secret gate).

    Raises:
        DriftguardError: it cannot be written (names the file).
    """
    from driftguard._fileio import write_atomic
    from driftguard.errors import from_os_error

    try:
        write_atomic(target, page.encode("utf-8"))
    except OSError as exc:
        raise from_os_error(exc, f"cannot write {target}") from exc


def _maybe_open(args: argparse.Namespace, page: Path) -> int:
    """Open ``page`` in the default browser with ``--open`` (a warning when none is)."""
    if args.open:
        import webbrowser

        if not webbrowser.open(page.resolve().as_uri()):
            warn([f"no browser could be started: open {page} yourself"])
    return EXIT_OK
