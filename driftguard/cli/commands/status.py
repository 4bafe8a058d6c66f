"""``driftguard status``: one line for a tmux status bar or a shell prompt, for any host's
session."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.cli._common import (
    EXIT_OK,
    add_session_arguments,
    check_project,
    config_project,
    current_session,
    warn,
)

if TYPE_CHECKING:
    from driftguard.model import CliName

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Print e.g. 'drift 41 warming · 38k to compact (~6 turns) · loop: npm test ×3' "
    "for a Claude Code, Gemini CLI or Codex CLI session or a Cursor chat: from the "
    "cached score when the file has not changed since it was scored, else scored now "
    "(not recorded)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_session_arguments(parser)
    parser.add_argument(
        "--format",
        choices=("plain", "tmux"),
        default="plain",
        help="plain text (default) or tmux status-bar colours",
    )


def run(args: argparse.Namespace) -> int:
    """The cached line while nothing it was made with changed, else the session scored
    again (and cached).

    Raises:
        DriftguardError: no session, or it cannot be read; a :class:`ConfigError` when the
            config cannot be used, after the last cached line (or ``drift –``) was printed
            with a ``config error: <file>`` segment.
    """
    from driftguard.adapters import locator_adapter, resolve_cli
    from driftguard.live.status import session_status
    from driftguard.live.statusline import config_warning, render_status, room_left

    check_project(args)
    target = None
    cli: CliName | None
    if args.path is not None:
        path = Path(args.path)
        located = locator_adapter(path, args.cli)
        if located is not None:
            cli = located.name
        else:
            cli = resolve_cli(path, args.cli) if path.is_file() else args.cli
    else:
        target = current_session(args)
        path, cli = target.path, target.cli
    answer = session_status(path, cli, project_for=lambda s: config_project(args, s, target))
    warn(answer.warnings)
    if answer.config_error is not None:
        if not args.json:
            print(
                render_status(
                    answer.status, args.format, warning=config_warning(answer.config_error)
                )
            )
        raise answer.config_error
    status = answer.status
    assert status is not None  # only a config error leaves no status
    if args.json:
        room = room_left(status)
        record = {
            **status.to_record(),
            "tokens_until_compaction": room[0] if room else None,
            "turns_until_compaction": room[1] if room else None,
        }
        print(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        print(render_status(status, args.format))
    return EXIT_OK
