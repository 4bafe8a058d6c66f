"""The ``driftguard`` command line: a thin shell over the engine.

It only turns arguments into calls and results into output; every expected failure is a
:class:`~driftguard.errors.DriftguardError`, caught once in :func:`main`, printed as one
line on stderr, and exits 2 (docs/design.md §10). Reports go to stdout, warnings to stderr.

Each command is a module of :mod:`driftguard.cli.commands` with ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args)``; :data:`COMMANDS` names them by module path
with a one-line summary, so only the command being run is imported (``driftguard
statusline`` and ``driftguard hook`` run after every turn of a session). The top shell:
may import every wing (``tests/test_layout.py`` checks that nothing below imports it).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NoReturn

from driftguard.cli._common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK
from driftguard.errors import DriftguardError, UnknownFormatError

__all__ = ["COMMANDS", "Command", "build_parser", "main", "serve_main"]


@dataclass(frozen=True, slots=True)
class Command:
    """One ``driftguard`` command: the module that adds its arguments and runs it, and the
    summary ``driftguard --help`` lists."""

    module: str
    summary: str


COMMANDS: Mapping[str, Command] = MappingProxyType(
    {
        name: Command(f"driftguard.cli.commands.{name}", summary)
        for name, summary in (
            ("score", "score a session for drift (default: the newest session of this project)"),
            ("goal", "show, set or forget the goal remembered for a session"),
            ("calibrate", "learn what is normal for you from your own sessions (no labels)"),
            ("trend", "show how a session's drift score moved over its recorded scores"),
            ("handoff", "print the handoff prompt for a fresh session; --write saves the draft"),
            ("report", "write a self-contained HTML page of a session's drift, turn by turn"),
            ("watch", "live dashboard of a session's drift, redrawn as the session file grows"),
            ("status", "one line for a tmux status bar or a shell prompt (any CLI's session)"),
            ("statusline", "one line for Claude Code's status line (reads its JSON on stdin)"),
            ("hook", "a host's hook: session-start, user-prompt-submit or stop"),
            (
                "setup",
                "register `driftguard serve` with every installed host: Claude Code, Gemini "
                "CLI, Codex CLI, Cursor",
            ),
            ("serve", "run the MCP server over stdio (what hosts start; alias: driftguard-mcp)"),
        )
    }
)
"""Every command, in the order ``driftguard --help`` lists them."""
ALWAYS_EXIT_0 = ("hook", "statusline")
"""Commands the host runs: they exit 0 even on a usage error (docs/design.md §10)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: the error, and which ``--help``
    lists the options; never argparse's whole usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        self.exit(EXIT_BAD_INPUT)


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked (importlib.metadata
    is slow to import, and the status line starts this parser after every turn)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings=option_strings,
            dest=dest,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show the version and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        from driftguard import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``driftguard``: every command listed with its summary, and the
    arguments of ``chosen`` (all commands' when ``None``, for tests and documentation) added
    by its module, which is imported only then."""
    parser = _Parser(
        prog="driftguard",
        description="Tell whether a long AI coding session has degraded, and why.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        sub = commands.add_parser(name, help=command.summary)
        if chosen is None or name == chosen:
            module = importlib.import_module(command.module)
            sub.description = module.DESCRIPTION
            module.add_arguments(sub)
            sub.set_defaults(handler=module.run, parser=sub)
    return parser


def _chosen_command(arguments: Sequence[str]) -> str | None:
    """The command the arguments name: the first one that is not an option."""
    for argument in arguments:
        if not argument.startswith("-"):
            return argument if argument in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``driftguard`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Exit codes (docs/design.md §10): 0 success; 2 bad input (missing or unreadable path, unknown
    format, bad config, bad flag) with one line on stderr; 130 when Ctrl-C stops it, with
    one line (``driftguard: interrupted``), whether it was importing a command's modules,
    reading a session or serving (``setup`` says which hosts it finished itself).
    """
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print("driftguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def serve_main() -> int:
    """``driftguard-mcp``, the alias of ``driftguard serve``: through :func:`main`, so that
    Ctrl-C while the server's modules load is one line too, not a traceback; ``--version``
    is driftguard's."""
    arguments = sys.argv[1:]
    return main(arguments if arguments == ["--version"] else ["serve", *arguments])


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main` but for Ctrl-C."""
    # A console that cannot show the bars (cp1252 on Windows) gets "?" instead of a crash.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_chosen_command(arguments) or "")
    try:
        args, unknown = parser.parse_known_args(arguments)
        if unknown:  # said by the command's own parser, so its --help is the one named
            command_parser: argparse.ArgumentParser = getattr(args, "parser", parser)
            command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:
        if arguments and arguments[0] in ALWAYS_EXIT_0 and exc.code not in (0, None):
            return EXIT_OK  # argparse already said what was wrong on stderr
        raise
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return handler(args)
    except DriftguardError as exc:
        choices = exc.choices if isinstance(exc, UnknownFormatError) else ()
        hint = f"; pass --cli ({', '.join(choices)})" if choices else ""
        print(f"driftguard: error: {exc}{hint}", file=sys.stderr)
        for detail in exc.details:
            print(f"  {detail}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (``| head``) went away: not an error. Point stdout at devnull so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
