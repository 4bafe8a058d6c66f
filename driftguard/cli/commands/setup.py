"""``driftguard setup``: register ``driftguard serve`` with every installed host, and with
``--hooks`` the hooks and status line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from driftguard.errors import DriftguardError

__all__ = ["DESCRIPTION", "HOSTS", "add_arguments", "run"]

HOSTS = ("claude_code", "gemini_cli", "codex_cli", "cursor")
"""The hosts setup knows (``driftguard.setup_scripts.HOST_NAMES``, without importing it to
build the parser)."""
DESCRIPTION = (
    "Register `driftguard serve`, by the absolute path of this console script, as "
    "the MCP server 'driftguard' of every installed host (found by its config "
    "folder; a host that is not installed gets no file). Each file is parsed first "
    "(a file that does not parse is refused and left alone), backed up next to "
    "itself, written atomically and read back. One line per host. Exit codes: 0 "
    "all done, 1 a host was refused, failed or kept a differing entry, 2 usage."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        action="extend",
        nargs="+",
        choices=HOSTS,
        metavar="HOST",
        help=f"only these hosts ({', '.join(HOSTS)}); default: every installed one",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print each change as a unified diff, write nothing"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--uninstall", action="store_true", help="remove driftguard's entry, and nothing else"
    )
    mode.add_argument(
        "--update", action="store_true", help="replace a driftguard entry that differs"
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        help="edit DIR's project config files (.mcp.json, .gemini/settings.json, "
        ".codex/config.toml, .cursor/mcp.json) instead of the user's",
    )
    parser.add_argument(
        "--hooks",
        action="store_true",
        help="also install (with --uninstall: remove) driftguard's hooks in every installed "
        "host's user settings (Claude Code with its status line, Codex, Gemini CLI, "
        "Cursor); with --project DIR, Cursor's project rule in DIR/.cursor/rules",
    )


def run(args: argparse.Namespace) -> int:
    import shutil

    from driftguard.setup_scripts import SetupRequest, find_console_script, run_command

    project = None
    if args.project is not None:
        project = Path(args.project).expanduser().absolute()
        if not project.is_dir():
            raise DriftguardError(f"--project {args.project}: not a directory")
    command = find_console_script()
    if command is None and not args.uninstall:
        print(
            f"driftguard: error: no driftguard console script next to {sys.executable} or "
            "on PATH, so there is nothing to register; install driftguard-mcp and rerun",
            file=sys.stderr,
        )
        return 1
    request = SetupRequest(
        command=command or "driftguard",
        action="uninstall" if args.uninstall else "install",
        update=args.update,
        dry_run=args.dry_run,
        project=project,
        claude_cli=shutil.which("claude"),
    )
    return run_command(request, args.host, hooks=args.hooks)
