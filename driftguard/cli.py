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
from typing import TYPE_CHECKING, Any, NoReturn

# Keep these imports light: `driftguard statusline` and `driftguard hook` run after every
# turn of a Claude Code session (issue #5), so the engine, the adapters and numpy are
# imported by the handlers that use them, not here.
from driftguard.errors import DriftguardError, UnknownFormatError
from driftguard.model import CLI_NAMES
from driftguard.presets import PRESET_NAMES

if TYPE_CHECKING:
    from driftguard.discovery import ProjectSession
    from driftguard.model import CliName, Session
    from driftguard.resolve import ResolvedSession

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
DEMO_SESSION = "demo-session.jsonl"
SETUP_HOSTS = ("claude_code", "gemini_cli", "codex_cli", "cursor")
"""Hosts `driftguard setup` knows (driftguard.setup_scripts.HOST_NAMES, without importing it)."""
ALWAYS_EXIT_0 = ("hook", "statusline")
"""Commands the host runs: they exit 0 even on a usage error (design §10)."""
HOOK_EVENT_NAMES = ("session-start", "stop", "user-prompt-submit")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (design §10, issue #11): the
    error, and which ``--help`` lists the options; never argparse's whole usage block."""

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


def _add_session_arguments(
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftguard`` and its subcommands."""
    parser = _Parser(
        prog="driftguard",
        description="Tell whether a long AI coding session has degraded, and why.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    score = commands.add_parser(
        "score",
        help="score a session for drift (default: the newest session of this project)",
        description=(
            "Score a Claude Code, Gemini CLI or Codex CLI session, or a Cursor chat, for drift "
            "(0-100). "
            "Without PATH, the current session of the project directory is scored. "
            "Each score of a session file in a session folder is recorded in its history "
            "(see `driftguard trend`), except try-outs with another --preset or a --goal "
            "that is not kept."
        ),
    )
    _add_session_arguments(score)
    score.add_argument(
        "--goal",
        metavar="TEXT",
        help="the session's goal, for goal distance, for this score only (with --keep-goal "
        'also for later scores); --goal "" scores without the remembered goal',
    )
    score.add_argument(
        "--keep-goal",
        action="store_true",
        help="remember --goal for the session (get_drift, the hooks and later scores use it); "
        'with --goal "" forget the remembered one',
    )
    score.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="factor weights preset (default: from config, else coding)",
    )
    score.add_argument(
        "--context-window",
        type=_context_window,
        metavar="TOKENS",
        help=(
            "the model's context window in tokens, for a model driftguard cannot know "
            "(default: config contextWindow, else the host's or the file's)"
        ),
    )
    score.add_argument(
        "--demo", action="store_true", help="score the demo session shipped with driftguard"
    )
    score.set_defaults(handler=_score, parser=score)

    goal = commands.add_parser(
        "goal",
        help="show, set or forget the goal remembered for a session",
        description=(
            "Show the goal remembered for the session (set by get_drift's goal, by "
            "`driftguard score --goal TEXT --keep-goal` or by --set), and when it was set; "
            "--clear forgets it, --set TEXT replaces it. Only session files in a session "
            "folder have one."
        ),
    )
    _add_session_arguments(goal)
    goal_action = goal.add_mutually_exclusive_group()
    goal_action.add_argument(
        "--set", metavar="TEXT", help="remember TEXT as the session's goal (after the secret gate)"
    )
    goal_action.add_argument("--clear", action="store_true", help="forget the remembered goal")
    goal.set_defaults(handler=_goal, parser=goal)

    trend = commands.add_parser(
        "trend",
        help="show how a session's drift score moved over its recorded scores",
        description="Sparkline, peak, average and trajectory of the scores recorded so far.",
    )
    _add_session_arguments(trend)
    trend.set_defaults(handler=_trend, parser=trend)

    handoff = commands.add_parser(
        "handoff",
        help="print the handoff prompt for a fresh session; --write saves the draft",
        description=(
            "Print the instructions that make the current model write handoff.md, "
            "pre-filled with facts from the transcript (secrets redacted); --write also "
            "saves the draft in the project for the next session."
        ),
    )
    _add_session_arguments(handoff)
    handoff.add_argument(
        "--write",
        action="store_true",
        help="also save the pre-filled draft as .driftguard/handoff.md in the project, with "
        "a checkpoint; the next Claude Code session started there begins with it (with "
        "the hooks of setup --hooks), another host's when asked to read it (a handoff.md "
        "someone completed is kept as "
        ".driftguard/handoff-<UTC time>.md)",
    )
    handoff.add_argument(
        "--replace",
        action="store_true",
        help="with --write: also replace a completed handoff.md that still waits for the "
        "next session (it is kept as .driftguard/handoff-<UTC time>.md)",
    )
    handoff.set_defaults(handler=_handoff, parser=handoff)

    report = commands.add_parser(
        "report",
        help="write a self-contained HTML page of a session's drift, turn by turn",
        description=(
            "Score the session after every turn and write one HTML page that works offline: "
            "the score and each factor over the turns, the context against where the host "
            "compacts, compactions and action loops where they happened, the recorded "
            "scores and the handoff draft (secrets redacted). Without -o the page goes to "
            "~/.driftcli/reports/. --all writes a page per session of the project and an "
            "index of them."
        ),
    )
    _add_session_arguments(report, json_output=False, verb="report on")
    report.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the page: a file in an existing folder, or a folder (with "
        "--all: a folder, made if its parent exists); - prints it to stdout",
    )
    report.add_argument("--open", action="store_true", help="open the page in the default browser")
    report.add_argument(
        "--all",
        action="store_true",
        help="every session of the project (--project, else the current directory), "
        "with an index page listing each one's peak and last score",
    )
    report.add_argument(
        "--demo", action="store_true", help="report on the demo session shipped with driftguard"
    )
    report.set_defaults(handler=_report, parser=report)

    watch = commands.add_parser(
        "watch",
        help="live dashboard of a session's drift, redrawn as the session file grows",
        description=(
            "Show the six factors, the score and its trend, redrawn whenever the session "
            "file changes. Without PATH, the current session of the project is shown (and "
            "followed after /clear; until the project has one, it waits for it). Ctrl-C quits."
        ),
    )
    _add_session_arguments(watch, json_output=False, verb="watch")
    watch.set_defaults(handler=_watch, parser=watch)

    status = commands.add_parser(
        "status",
        help="one line for a tmux status bar or a shell prompt (any CLI's session)",
        description=(
            "Print e.g. 'drift 41 warming · 38k to compact (~6 turns) · loop: npm test ×3' "
            "for a Claude Code, Gemini CLI or Codex CLI session or a Cursor chat: from the "
            "cached score when "
            "the file has not changed since it was scored, else scored now (not recorded)."
        ),
    )
    _add_session_arguments(status)
    status.add_argument(
        "--format",
        choices=("plain", "tmux"),
        default="plain",
        help="plain text (default) or tmux status-bar colours",
    )
    status.set_defaults(handler=_status, parser=status)

    statusline = commands.add_parser(
        "statusline",
        help="one line for Claude Code's status line (reads its JSON on stdin)",
        description=(
            "Print e.g. 'drift 47 warming · ctx 62% · rep 31' for the session named in "
            "Claude Code's status-line JSON on stdin, from the score the stop hook cached. "
            "Always exits 0."
        ),
    )
    statusline.add_argument(
        "--wrap",
        metavar="COMMAND",
        help="run your own status-line COMMAND with the same stdin and append the drift "
        "segment to its output",
    )
    statusline.set_defaults(handler=_statusline, parser=statusline)

    hook = commands.add_parser(
        "hook",
        help="a Claude Code hook: session-start, stop or user-prompt-submit",
        description=(
            "Run a Claude Code hook with its JSON payload on stdin: session-start (pointer "
            "and waiting handoff), stop (re-score, status-line cache, history), "
            "user-prompt-submit (one warning when the score crosses warnThreshold). "
            "Always exits 0; problems go to stderr."
        ),
    )
    hook.add_argument("event", metavar="EVENT", help=", ".join(HOOK_EVENT_NAMES))
    hook.set_defaults(handler=_hook, parser=hook)

    setup = commands.add_parser(
        "setup",
        help="register `driftguard serve` with every installed host: Claude Code, Gemini "
        "CLI, Codex CLI, Cursor",
        description=(
            "Register `driftguard serve`, by the absolute path of this console script, as "
            "the MCP server 'driftguard' of every installed host (found by its config "
            "folder; a host that is not installed gets no file). Each file is parsed first "
            "(a file that does not parse is refused and left alone), backed up next to "
            "itself, written atomically and read back. One line per host. Exit codes: 0 "
            "all done, 1 a host was refused, failed or kept a differing entry, 2 usage."
        ),
    )
    setup.add_argument(
        "--host",
        action="extend",
        nargs="+",
        choices=SETUP_HOSTS,
        metavar="HOST",
        help=f"only these hosts ({', '.join(SETUP_HOSTS)}); default: every installed one",
    )
    setup.add_argument(
        "--dry-run", action="store_true", help="print each change as a unified diff, write nothing"
    )
    setup_mode = setup.add_mutually_exclusive_group()
    setup_mode.add_argument(
        "--uninstall", action="store_true", help="remove driftguard's entry, and nothing else"
    )
    setup_mode.add_argument(
        "--update", action="store_true", help="replace a driftguard entry that differs"
    )
    setup.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        help="edit DIR's project config files (.mcp.json, .gemini/settings.json, "
        ".codex/config.toml, .cursor/mcp.json) instead of the user's",
    )
    setup.add_argument(
        "--hooks",
        action="store_true",
        help="also install (with --uninstall: remove) the Claude Code status line and hooks "
        "in ~/.claude/settings.json (driftguard statusline, driftguard hook …)",
    )
    setup.set_defaults(handler=_setup, parser=setup)

    serve = commands.add_parser(
        "serve",
        help="run the MCP server over stdio (what hosts start; alias: driftguard-mcp)",
        description="Run the driftguard MCP server over stdio until the host closes stdin.",
    )
    serve.set_defaults(handler=_serve, parser=serve)
    return parser


@contextmanager
def _session_target(args: argparse.Namespace) -> Iterator[ResolvedSession]:
    """The session the arguments name — --demo, PATH, or the project's current one
    (:func:`_current_session`) — as its path (or locator), its CLI when known, how it was
    chosen and, for one found above the working directory, where."""
    from driftguard.resolve import ResolvedSession

    if getattr(args, "demo", False):
        if args.path is not None:
            raise DriftguardError("give either PATH or --demo, not both")
        demo = resources.files("driftguard") / "demo" / DEMO_SESSION
        with resources.as_file(demo) as path:
            yield ResolvedSession(path, "claude_code", "path")
        return
    _check_project(args)
    if args.path is not None:
        yield ResolvedSession(Path(args.path), args.cli, "path")
        return
    yield _current_session(args)


def _current_session(args: argparse.Namespace) -> ResolvedSession:
    """The current session of ``--project``, else of the working directory or the
    nearest folder above it that has one (:func:`driftguard.resolve.resolve_on_command_line`;
    its warnings printed)."""
    from driftguard.resolve import resolve_on_command_line

    given: Path | None = args.project
    resolved = resolve_on_command_line(
        given if given is not None else Path.cwd(), only=args.cli, walk_up=given is None
    )
    _warn(resolved.warnings)
    return resolved


@contextmanager
def _session_for(args: argparse.Namespace) -> Iterator[tuple[Session, ResolvedSession]]:
    """The session the arguments name (:func:`_session_target`), parsed."""
    from driftguard.adapters import parse_session

    with _session_target(args) as target:
        yield parse_session(target.path, target.cli), target


def _check_project(args: argparse.Namespace) -> None:
    """``--project DIR`` must name an existing folder (issue #11: a typo is named as such,
    not reported as a project without sessions).

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


def _warn(lines: Sequence[str]) -> None:
    """One ``driftguard: warning: …`` line on stderr per line (issue #9 item 4: state that
    could not be read or written costs a warning, never the result)."""
    for line in lines:
        print(f"driftguard: warning: {line}", file=sys.stderr)


def _config_project(
    args: argparse.Namespace, session: Session, target: ResolvedSession | None = None
) -> Path:
    """The folder whose ``.driftcli`` applies (:func:`driftguard.engine.config_project`)."""
    from driftguard.engine import config_project

    return config_project(
        named=Path(args.project) if args.project is not None else None,
        path_given=args.path is not None,
        session=session,
        found_in=target.found_in if target is not None else None,
        default=Path.cwd(),
    )


def _context_window(text: str) -> int:
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


def _score(args: argparse.Namespace) -> int:
    from driftguard import engine
    from driftguard.history import GuardedHistoryStore

    if args.keep_goal and args.goal is None:
        raise DriftguardError('--keep-goal keeps the --goal given with it: add --goal "…"')
    store = GuardedHistoryStore()
    with _session_for(args) as (session, target):
        outcome = engine.drift(
            session,
            project=_config_project(args, session, target),
            store=store,
            goal=args.goal,
            keep_goal=args.keep_goal,
            preset=args.preset,
            resolved_by=target.resolved_by,
            context_window=args.context_window,
            found_in=target.found_in,
        )
    _warn([*outcome.config.warnings, *store.notes])
    if args.json:
        print(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False))
    else:
        print(outcome.to_text("cli"))
    return EXIT_OK


def _goal(args: argparse.Namespace) -> int:
    from driftguard import engine
    from driftguard.config import load_config
    from driftguard.history import GuardedHistoryStore
    from driftguard.scoring.format import iso_utc, when_utc

    store = GuardedHistoryStore()
    with _session_for(args) as (session, target):
        config = load_config(_config_project(args, session, target))
        if not engine.in_session_folder(session, config):
            raise DriftguardError(
                f"{session.path}: not in a session folder, so it has no remembered goal "
                "(add its folder to sessionFolders in the config to give it one)"
            )
        key = engine.history_key(session)
        if args.clear:
            store.clear_goal(key)
        elif args.set is not None:
            gated = engine.gated_goal(args.set)
            if gated is None:
                raise DriftguardError(
                    "--set: no goal left to remember (empty, or withheld whole by the "
                    "secret gate); use --clear to forget the goal"
                )
            store.save_goal(key, gated)
        goal = engine.remembered_goal(session, store)
    _warn([*config.warnings, *store.notes])
    if store.notes:
        raise DriftguardError("the goal store could not be used (see the warning above)")
    where = f"{session.cli} · {session.path}"
    if args.json:
        print(
            json.dumps(
                {
                    "goal": goal.text if goal is not None else None,
                    "goal_set_at": iso_utc(goal.set_at)
                    if goal is not None and goal.set_at is not None
                    else None,
                    "session": {
                        "cli": session.cli,
                        "path": session.path,
                        "session_id": session.session_id,
                    },
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    elif goal is None:
        done = "Forgot the goal. " if args.clear else ""
        print(f"{done}No goal is remembered for this session ({where}).")
    else:
        when = f", set {when_utc(goal.set_at)}" if goal.set_at is not None else ""
        done = "Remembered. " if args.set is not None else ""
        print(f"{done}Goal: “{goal.text}”{when} ({where}).")
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    """``driftguard status``: the cached line while nothing it was made with changed,
    else the session scored again (and cached).

    Raises:
        DriftguardError: no session, or it cannot be read; a :class:`ConfigError` when the
            config cannot be used, after the last cached line (or ``drift –``) was printed
            with a ``config error: <file>`` segment.
    """
    from driftguard import livecache
    from driftguard.adapters import locator_adapter, resolve_cli
    from driftguard.statusline import render_status, room_left

    _check_project(args)
    target: ResolvedSession | None = None
    if args.path is not None:
        path = Path(args.path)
        located = locator_adapter(path, args.cli)
        cli: CliName | None
        if located is not None:
            cli = located.name
        else:
            cli = resolve_cli(path, args.cli) if path.is_file() else args.cli
    else:
        target = _current_session(args)
        path, cli = target.path, target.cli
    key = livecache.status_key(path, cli)
    try:
        size = path.stat().st_size
    except OSError:
        size = -1  # no file of its own (a database's session): never answered from the cache
    cached = livecache.read_status(key) if size >= 0 else None
    if cached is not None and cached.transcript_path != str(path):
        cached = None
    # the cache answers while the transcript, the goal and the config are as they were
    # when it was scored (newcomer's review B5)
    if cached is None or cached.transcript_size != size or not livecache.is_current(cached):
        from driftguard import engine  # the engine loads only when the cache is stale
        from driftguard.adapters import parse_session
        from driftguard.errors import ConfigError
        from driftguard.history import GuardedHistoryStore
        from driftguard.hooks import live_status
        from driftguard.statusline import config_warning

        session = parse_session(path, cli)
        store = GuardedHistoryStore()
        try:
            outcome = engine.drift(
                session, project=_config_project(args, session, target), store=store, record=False
            )
        except ConfigError as exc:
            # a tmux status bar or a prompt drops stderr: the line itself says it (N1)
            if not args.json:
                print(render_status(cached, args.format, warning=config_warning(exc)))
            raise
        _warn(store.notes)
        cached = live_status(outcome, key, path, size)
        try:
            if size >= 0:
                livecache.write_status(cached)
        except OSError as exc:
            _warn([f"status cache not written: {exc.strerror or exc}"])
    if args.json:
        room = room_left(cached)
        record = {
            **cached.to_record(),
            "tokens_until_compaction": room[0] if room else None,
            "turns_until_compaction": room[1] if room else None,
        }
        print(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        print(render_status(cached, args.format))
    return EXIT_OK


def _trend(args: argparse.Namespace) -> int:
    from driftguard import engine
    from driftguard.history import GuardedHistoryStore
    from driftguard.scoring.report import render_session_line
    from driftguard.trend import render_trend_text, trend_json

    store = GuardedHistoryStore()
    with _session_for(args) as (session, target):
        project = _config_project(args, session, target)
        outcome = engine.drift(
            session,
            project=project,
            store=store,
            resolved_by=target.resolved_by,
            record=False,
            found_in=target.found_in,
        )
        trend = engine.trend(session, project=project, store=store)
    _warn(store.notes)
    if args.json:
        result = {**trend_json(trend), "session": outcome.to_json()["session"]}
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render_trend_text(trend, "cli"))
        print(render_session_line(outcome.report))
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from driftguard.history import GuardedHistoryStore
    from driftguard.report_html import IndexRow, render_index_page, render_session_page
    from driftguard.timeline import session_timeline

    store = GuardedHistoryStore()
    if not args.all:
        with _session_target(args) as found:
            summary = session_timeline(
                found.path,
                found.cli,
                project_for=lambda s: _config_project(args, s, found),
                store=store,
            )
        _warn(store.notes)
        page = render_session_page(summary.timeline)
        if args.output == "-":
            sys.stdout.write(page)
            return EXIT_OK
        target = _report_file(summary.timeline.path)
        if args.output:
            target = _output_path(Path(args.output), folder=False, name=target.name)
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
    _check_project(args)
    project, sessions, warnings = _project_sessions(args)
    _warn(warnings)
    folder = _output_path(Path(args.output), folder=True) if args.output else None
    folder = folder or _report_folder(project)
    rows: list[IndexRow] = []
    for one in sessions:
        try:
            summary = session_timeline(
                one.path, one.cli, project_for=lambda _: project, store=store
            )
        except DriftguardError as exc:
            _warn([f"{one.path}: not reported: {exc}"])
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
    _warn(store.notes)
    index = folder / "index.html"
    _write_page(index, render_index_page(str(project), rows))
    print(f"Wrote {index}: {len(rows)} session{'s' * (len(rows) != 1)} of {project}.")
    return _maybe_open(args, index)


def _project_sessions(
    args: argparse.Namespace,
) -> tuple[Path, list[ProjectSession], list[str]]:
    """``report --all``'s project and its sessions, newest first (with the warnings of
    :func:`driftguard.discovery.project_sessions`): ``--project``, else the working
    directory or, when it has none, the nearest folder above it that has some
    (:func:`driftguard.resolve.nearest_with_session`, as for one session).

    Raises:
        SessionNotFoundError: no folder tried has a session (the working directory's
            message and details).
    """
    from driftguard import discovery
    from driftguard.resolve import nearest_with_session

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
            _warn([f"no browser could be started: open {page} yourself"])
    return EXIT_OK


def _write_projects(args: argparse.Namespace, target: ResolvedSession) -> list[Path]:
    """The projects ``handoff --write`` may save in: ``--project``, else the folder above
    the working directory whose session it is (``target.found_in``: the project a command
    run in its subfolder is about) and the ones the command was started for
    (:func:`driftguard.resolve.start_projects`); never a folder the session file names
    (issue #9 item 1)."""
    from driftguard.resolve import start_projects

    if args.project is not None:
        return [Path(args.project)]
    above = [target.found_in] if target.found_in is not None else []
    return [*above, *start_projects()]


def _handoff(args: argparse.Namespace) -> int:
    from driftguard import engine
    from driftguard.handoff import pickup
    from driftguard.history import GuardedHistoryStore
    from driftguard.scoring import to_json_dict

    if args.replace and not args.write:
        raise DriftguardError("--replace replaces a saved handoff: add --write")
    store = GuardedHistoryStore()
    saved = target = None
    with _session_for(args) as (session, found):
        project = _config_project(args, session, found)
        if args.write:
            written = engine.write_handoff(
                session,
                project=project,
                store=store,
                projects=_write_projects(args, found),
                found_for_project=args.path is None,
                replace=args.replace,
                resolved_by=found.resolved_by,
                found_in=found.found_in,
            )
            _warn([written.not_saved] if written.not_saved else [])
            handoff, report, saved = written.handoff, written.report, written.saved
            target = written.project
        else:
            handoff, report = engine.handoff(
                session,
                project=project,
                store=store,
                resolved_by=found.resolved_by,
                found_in=found.found_in,
            )
    _warn(store.notes)
    if args.json:
        result: dict[str, Any] = {**asdict(handoff), "report": to_json_dict(report)}
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
            print(
                f"The handoff.md that was there had been completed: kept as {saved.kept}, not lost."
            )
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


def _watch(args: argparse.Namespace) -> int:
    from driftguard.watch import Watcher, WatchTarget

    _check_project(args)
    target = WatchTarget(
        path=Path(args.path) if args.path is not None else None,
        project=Path(args.project) if args.project is not None else Path.cwd(),
        cli=args.cli,
        config_project=Path(args.project) if args.project is not None else None,
    )
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    try:
        return Watcher(target, sys.stdout, color=color).run()
    except KeyboardInterrupt:
        return EXIT_OK


def _stdin_bytes() -> bytes:
    """All of stdin, or nothing when it is a terminal or closed (a hand-run command)."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return b""
        return stream.buffer.read()
    except (OSError, ValueError, AttributeError):
        return b""


def _statusline(args: argparse.Namespace) -> int:
    from driftguard.statusline import NOT_SCORED, statusline_output

    try:
        line = statusline_output(_stdin_bytes(), wrap=args.wrap)
    except Exception as exc:  # noqa: BLE001 - the status line must always print and exit 0
        print(f"driftguard statusline: {type(exc).__name__}: {exc}", file=sys.stderr)
        line = NOT_SCORED
    print(line)
    return EXIT_OK


def _hook(args: argparse.Namespace) -> int:
    from driftguard.hooks import run_hook

    output = run_hook(args.event, _stdin_bytes())
    if output:
        print(output)
    return EXIT_OK


def _setup(args: argparse.Namespace) -> int:
    import shutil

    from driftguard.setup_scripts import SetupRequest, find_console_script, run_command

    if args.hooks and args.project is not None:
        raise DriftguardError(
            "--hooks edits Claude Code's user settings (~/.claude/settings.json), which have "
            "no project scope: drop --project"
        )
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
    arguments = list(sys.argv[1:] if argv is None else argv)
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


if __name__ == "__main__":
    sys.exit(main())
