"""The ``driftguard`` command line: a thin shell over the engine.

It only turns arguments into calls and results into output; every expected failure is a
:class:`~driftguard.errors.DriftguardError`, caught once in :func:`main`, printed as one
line on stderr, and exits 2 (design §10). Reports go to stdout, warnings to stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from importlib import resources
from pathlib import Path

from driftguard import __version__, engine
from driftguard.adapters import parse_session
from driftguard.errors import DriftguardError
from driftguard.history import HistoryStore
from driftguard.model import CLI_NAMES, Session
from driftguard.presets import PRESET_NAMES
from driftguard.resolve import resolve_session
from driftguard.scoring import ResolvedBy, render_text, to_json_dict
from driftguard.scoring.report import render_session_line
from driftguard.trend import render_trend_text

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
DEMO_SESSION = "demo-session.jsonl"


def _add_session_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("path", nargs="?", metavar="PATH", help="session file to read")
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
    command.add_argument("--json", action="store_true", help="print the result as JSON")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftguard`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="driftguard",
        description="Tell whether a long AI coding session has degraded, and why.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    score = commands.add_parser(
        "score",
        help="score a session for drift (default: the newest session of this project)",
        description=(
            "Score a Claude Code, Gemini CLI or Codex CLI session for drift (0-100). "
            "Without PATH, the current session of the project directory is scored. "
            "Each score is recorded in the session's history (see `driftguard trend`)."
        ),
    )
    _add_session_arguments(score)
    score.add_argument("--goal", metavar="TEXT", help="the session's goal, for goal distance")
    score.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="factor weights preset (default: from config, else coding)",
    )
    score.add_argument(
        "--demo", action="store_true", help="score the demo session shipped with driftguard"
    )
    score.set_defaults(handler=_score)

    trend = commands.add_parser(
        "trend",
        help="show how a session's drift score moved over its recorded scores",
        description="Sparkline, peak, average and trajectory of the scores recorded so far.",
    )
    _add_session_arguments(trend)
    trend.set_defaults(handler=_trend)

    handoff = commands.add_parser(
        "handoff",
        help="print the handoff prompt for a fresh session",
        description=(
            "Print the instructions that make the current model write handoff.md, "
            "pre-filled with facts from the transcript (secrets redacted)."
        ),
    )
    _add_session_arguments(handoff)
    handoff.set_defaults(handler=_handoff)

    serve = commands.add_parser(
        "serve",
        help="run the MCP server over stdio (what hosts start; alias: driftguard-mcp)",
        description="Run the driftguard MCP server over stdio until the host closes stdin.",
    )
    serve.set_defaults(handler=_serve)
    return parser


@contextmanager
def _session_for(args: argparse.Namespace) -> Iterator[tuple[Session, ResolvedBy]]:
    """The session the arguments name: --demo, PATH, or the project's current one."""
    if getattr(args, "demo", False):
        if args.path is not None:
            raise DriftguardError("give either PATH or --demo, not both")
        demo = resources.files("driftguard") / "demo" / DEMO_SESSION
        with resources.as_file(demo) as path:
            yield parse_session(path, "claude_code"), "path"
        return
    if args.path is not None:
        yield parse_session(Path(args.path), args.cli), "path"
        return
    project = args.project if args.project is not None else Path.cwd()
    resolved = resolve_session(None, project=Path(project), only=args.cli)
    yield parse_session(resolved.path, resolved.cli), resolved.resolved_by


def _config_project(args: argparse.Namespace, session: Session) -> Path:
    """``--project``; with PATH, else the session's own directory; else the cwd."""
    if args.project is not None:
        return Path(args.project)
    if args.path is not None and session.cwd and Path(session.cwd).is_dir():
        return Path(session.cwd)
    return Path.cwd()


def _score(args: argparse.Namespace) -> int:
    with _session_for(args) as (session, resolved_by):
        outcome = engine.drift(
            session,
            project=_config_project(args, session),
            store=HistoryStore(),
            goal=args.goal,
            preset=args.preset,
            resolved_by=resolved_by,
            record=not args.demo,
        )
    for warning in outcome.config.warnings:
        print(f"driftguard: warning: {warning}", file=sys.stderr)
    report = outcome.report
    if args.json:
        print(json.dumps(to_json_dict(report), indent=2, ensure_ascii=False))
    else:
        print(render_text(report))
        print(render_session_line(report))
    return EXIT_OK


def _trend(args: argparse.Namespace) -> int:
    with _session_for(args) as (session, _):
        trend = engine.trend(session, project=_config_project(args, session), store=HistoryStore())
    if args.json:
        print(json.dumps(asdict(trend), indent=2, ensure_ascii=False))
    else:
        print(render_trend_text(trend))
    return EXIT_OK


def _handoff(args: argparse.Namespace) -> int:
    with _session_for(args) as (session, resolved_by):
        handoff, report = engine.handoff(
            session,
            project=_config_project(args, session),
            store=HistoryStore(),
            resolved_by=resolved_by,
        )
    if args.json:
        print(json.dumps({**asdict(handoff), "report": to_json_dict(report)}, indent=2))
    else:
        print(handoff.prompt)
    return EXIT_OK


def _serve(_args: argparse.Namespace) -> int:
    from driftguard.server import main as serve

    serve()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``driftguard`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Exit codes (design §10): 0 success; 2 bad input (missing or unreadable path, unknown
    format, bad config, bad flag) with one line on stderr.
    """
    # A console that cannot show the bars (cp1252 on Windows) gets "?" instead of a crash.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return handler(args)
    except DriftguardError as exc:
        print(f"driftguard: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (``| head``) went away: not an error. Point stdout at devnull so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
