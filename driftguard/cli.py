"""The ``driftguard`` command line: a thin shell over the engine.

It only turns arguments into calls and results into output; every expected failure is a
:class:`~driftguard.errors.DriftguardError`, caught once in :func:`main`, printed as one
line on stderr, and exits 2 (design §10). Reports go to stdout, warnings to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from driftguard import discovery
from driftguard.adapters import parse_session
from driftguard.config import load_config
from driftguard.errors import DriftguardError
from driftguard.model import CLI_NAMES, Session
from driftguard.presets import PRESET_NAMES
from driftguard.scoring import DriftReport, ResolvedBy, render_text, score_session, to_json_dict

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
DEMO_SESSION = "demo-session.jsonl"


def _package_version() -> str:
    try:
        return version("driftguard-mcp")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftguard`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="driftguard",
        description="Tell whether a long AI coding session has degraded, and why.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_package_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    score = commands.add_parser(
        "score",
        help="score a session file (default: the newest session of this project)",
        description=(
            "Score a Claude Code, Gemini CLI or Codex CLI session for drift (0-100). "
            "Without PATH, the newest session of the project directory is scored."
        ),
    )
    score.add_argument("path", nargs="?", metavar="PATH", help="session file to score")
    score.add_argument("--cli", choices=CLI_NAMES, help="which CLI wrote PATH (default: detect)")
    score.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        help="project directory: where to look for sessions and its .driftcli config "
        "(default: the current directory; with PATH, it only selects the config)",
    )
    score.add_argument("--goal", metavar="TEXT", help="the session's goal, for goal distance")
    score.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="factor weights preset (default: from config, else coding)",
    )
    score.add_argument("--json", action="store_true", help="print the report as JSON")
    score.add_argument(
        "--demo", action="store_true", help="score the demo session shipped with driftguard"
    )
    return parser


def _session_line(report: DriftReport) -> str:
    session = report.session
    tokens = f"{session.context_tokens:,} of {report.context_window:,} tokens"
    if session.tokens_estimated:
        tokens += " (estimated)"
    parts = [session.cli, session.path, tokens]
    if session.compactions:
        parts.append(f"{session.compactions} compaction{'s' * (session.compactions != 1)}")
    if session.skipped_lines:
        parts.append(f"{session.skipped_lines} line{'s' * (session.skipped_lines != 1)} skipped")
    return "Session: " + " · ".join(parts)


def _config_project(args: argparse.Namespace, session: Session) -> Path:
    if args.project is not None:
        return Path(args.project)
    if args.path is not None and session.cwd and Path(session.cwd).is_dir():
        return Path(session.cwd)
    return Path.cwd()


def _score(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        resolved_by: ResolvedBy = "path"
        if args.demo:
            if args.path is not None:
                raise DriftguardError("give either PATH or --demo, not both")
            demo = resources.files("driftguard") / "demo" / DEMO_SESSION
            path = stack.enter_context(resources.as_file(demo))
            session = parse_session(path, "claude_code")
        elif args.path is not None:
            session = parse_session(Path(args.path), args.cli)
        else:
            project = args.project if args.project is not None else Path.cwd()
            clis = (args.cli,) if args.cli else CLI_NAMES
            cli, path = discovery.newest_session(Path(project), clis)
            session = parse_session(path, cli)
            resolved_by = "newest_in_project"
        config = load_config(_config_project(args, session), preset=args.preset)
        for warning in config.warnings:
            print(f"driftguard: warning: {warning}", file=sys.stderr)
        report = score_session(
            session,
            weights=config.weights,
            goal=args.goal,
            warn_threshold=config.warn_threshold,
            resolved_by=resolved_by,
        )
    if args.json:
        print(json.dumps(to_json_dict(report), indent=2, ensure_ascii=False))
    else:
        print(render_text(report))
        print(_session_line(report))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``driftguard`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Exit codes (design §10): 0 success; 2 bad input (missing or unreadable path, unknown
    format, bad config, bad flag) with one line on stderr.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return _score(args)
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
