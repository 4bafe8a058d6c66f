"""``driftguard hook EVENT [--host HOST]``: the hooks of every host (docs/hosts.md).

Each hook reads the JSON the host sends on stdin and returns what goes to stdout — only
what that host expects for that event. The command always exits 0 (exit code 2 would
block the host; docs/design.md §10); problems go to stderr. Every host sends the session's
id and its transcript's path (Cursor: its conversation id), and the hooks take the session
from them, never from a guess (:class:`HookCall`).

Three hooks on every host, under each host's own names (``setup --hooks`` installs them):

- ``session-start`` (Claude Code and Codex ``SessionStart``, Gemini CLI ``SessionStart``,
  Cursor ``sessionStart``): points the project at this session's transcript (and, under
  Claude Code, the host process: :func:`driftguard.sessions.pointers.write_process_pointer`)
  so the MCP server and the command line find it; hands a waiting handoff over — once,
  to a session other than the one that saved it
  (:func:`driftguard.store.handoff_files.take_handoff`).
  Right after a compaction (Claude Code and Codex run it again with source ``compact``) it
  marks the session, and on Codex, whose transcript already holds the compaction, says
  what the compaction dropped at once.
- ``user-prompt-submit`` (Claude Code and Codex ``UserPromptSubmit``, Gemini CLI
  ``BeforeAgent``; Cursor has no hook that can add to the model's context before a
  prompt): tells the model, each once: what the last compaction dropped (the rules the
  user typed, the errors not fixed yet and the files edited before it — never what its
  summary kept; ``reinject: false`` in the config turns this off), that an action loop is
  going on (stop repeating, say what each attempt showed, change approach or ask the
  user), that the host will compact within a turn or two (finish the step and save the
  handoff), and that the score crossed ``warnThreshold``. On Gemini CLI it also hands a
  waiting handoff over (its ``SessionStart`` output would be glued to the first prompt,
  which ``--resume`` then drops). It reads the status cache the stop hook wrote, so it
  never delays a prompt by parsing, except once right after a compaction the cache has not
  seen yet.
- ``stop`` (Claude Code and Codex ``Stop``, Gemini CLI ``AfterAgent``, Cursor ``stop``):
  re-scores the transcript, records it in the session's history (as ``get_drift`` does),
  and refreshes the status cache (:mod:`driftguard.store.livecache`) with what the next
  prompt hook needs, what the last compaction dropped included. The transcript "is written
  asynchronously and may lag" (Claude Code's hooks documentation): when the last reply is
  not in the file yet, it is read again (only its new lines) every 50 ms for up to
  :data:`SETTLE_SECONDS`.

What the model is told goes out as each host wants it: Claude Code and Codex
``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`` (both require the event
name), Gemini CLI the same under ``BeforeAgent`` (its stdout must be JSON, so a hook with
nothing to say prints ``{}``: an empty stdout would make Gemini show stderr to the user),
Cursor ``{"additional_context"}`` at session start.

The project is the one the host names for its hooks (``CLAUDE_PROJECT_DIR``,
``GEMINI_PROJECT_DIR``; Cursor's first workspace root), else the payload's ``cwd``, else
the working directory. Heavy modules (the engine, numpy) are imported inside the hooks
that score, so the prompt hook starts as fast as the status line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from driftguard.compaction.ledger import one_line
from driftguard.errors import HookInputError
from driftguard.format import display_factors
from driftguard.model import CLI_NAMES, CliName
from driftguard.scoring.loops import loop_key, short_loop
from driftguard.store import livecache

if TYPE_CHECKING:
    from driftguard.engine.drift import DriftOutcome
    from driftguard.model import Session
    from driftguard.sessions.incremental import SessionCache

__all__ = [
    "HOOK_EVENTS",
    "SETTLE_SECONDS",
    "HookCall",
    "HookInputError",
    "live_status",
    "loop_notice",
    "near_compaction_warning",
    "parse_payload",
    "prompt_warning",
    "run_hook",
    "session_start",
    "stop",
    "user_prompt_submit",
]

SETTLE_SECONDS: Final = 1.0
"""How long the stop hook waits for the last reply to reach the transcript."""
_SETTLE_STEP: Final = 0.05
_NOTABLE: Final = 10.0
NEAR_TURNS: Final = 2
"""The host compacts within this many turns (at the recent growth per turn): the prompt
hook tells the model once to finish its step and save the handoff."""
_PROMPT_EVENT: Final[Mapping[str, str]] = {
    "claude_code": "UserPromptSubmit",
    "codex_cli": "UserPromptSubmit",
    "gemini_cli": "BeforeAgent",
}
"""The event name a host wants in the output that adds to the context before a prompt."""
_QUIET: Final[Mapping[str, str]] = {"gemini_cli": "{}", "cursor": "{}"}
"""What a hook with nothing to say prints, where empty stdout is not that (default ``""``)."""


@dataclass(frozen=True, slots=True)
class HookCall:
    """One hook call, as every host's payload says it.

    Attributes:
        host: the host that runs the hook (``--host``; Claude Code by default).
        session_id: the host's session id (Cursor: its conversation id), or ``None``.
        transcript: the session's transcript (``transcript_path``), or ``None``.
        project: the project the session belongs to (module doc).
        source: why a session started (``startup``, ``resume``, ``clear``, ``compact``),
            or ``None``.
        last_reply: the reply that ended the turn (the stop hook's
            ``last_assistant_message``; Gemini CLI's ``prompt_response``), or ``None``.
        env: the hook's environment.
    """

    host: CliName
    session_id: str | None
    transcript: Path | None
    project: Path
    source: str | None
    last_reply: str | None
    env: Mapping[str, str]

    @classmethod
    def of(cls, host: CliName, payload: Mapping[str, Any], env: Mapping[str, str]) -> HookCall:
        """The call ``payload`` describes for ``host``."""
        transcript = _text(payload, "transcript_path")
        return cls(
            host=host,
            session_id=_text(payload, "session_id") or _text(payload, "conversation_id"),
            transcript=Path(transcript) if transcript else None,
            project=_project(host, payload, env),
            source=_text(payload, "source"),
            last_reply=_text(payload, "last_assistant_message")
            or _text(payload, "prompt_response"),
            env=env,
        )


def parse_payload(raw: bytes) -> dict[str, Any]:
    """The hook payload in ``raw``.

    Raises:
        HookInputError: empty, not JSON, or not an object.
    """
    if not raw.strip():
        raise HookInputError("no JSON on stdin (the host sends the hook's payload there)")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise HookInputError(f"stdin is not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise HookInputError("stdin is not a JSON object")
    return value


def _text(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _project(host: CliName, payload: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    names = {"gemini_cli": "GEMINI_PROJECT_DIR", "claude_code": "CLAUDE_PROJECT_DIR"}
    root = env.get(names.get(host, ""), "").strip() if host in names else ""
    if root:
        return Path(root)
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0].strip():
        return Path(roots[0])
    cwd = _text(payload, "cwd")
    return Path(cwd) if cwd else Path.cwd()


def _warn(event: str, message: str) -> None:
    print(f"driftguard hook {event}: warning: {message}", file=sys.stderr)


def _context_output(call: HookCall, event: str, text: str) -> str:
    """What adds ``text`` to the model's context on ``call.host`` (module doc)."""
    if call.host == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
        ensure_ascii=False,
    )


def _quiet(call: HookCall) -> str:
    return _QUIET.get(call.host, "")


# --- SessionStart ----------------------------------------------------------------------


def session_start(call: HookCall) -> str:
    """Point the project at the session; hand a waiting handoff over; after a compaction,
    mark the session (and on Codex say what it dropped) (module doc)."""
    from driftguard._process import host_of_hook
    from driftguard.sessions.pointers import write_pointer, write_process_pointer

    if call.transcript is not None:
        # only a hook Claude Code runs points a process at the session: by hand (in tmux,
        # say) the nearest non-shell ancestor is the terminal's, and every shell under it
        # would take this session as its own (Claude Code 2.1.197 gives its hooks
        # CLAUDECODE=1, as it does its MCP servers and shell tool)
        claude = call.host == "claude_code" and call.env.get("CLAUDECODE") == "1"
        host = host_of_hook() if claude else None
        try:
            if host is not None:
                write_process_pointer(
                    host, call.project, call.transcript, call.host, call.session_id
                )
            write_pointer(call.project, call.transcript, call.host, call.session_id)
        except OSError as exc:  # the handoff below must not be lost over the pointer
            name = exc.filename or "pointer"
            _warn("session-start", f"pointer not written: {name}: {exc.strerror or exc}")
    elif call.host != "cursor":
        _warn("session-start", "no transcript_path: pointer not written")
    parts: list[str] = []
    if call.source == "compact":
        try:
            dropped = _compaction_at_start(call)
        except Exception as exc:  # noqa: BLE001 - the handoff below must still be handed over
            _warn("session-start", f"what the compaction dropped was not read: {exc}")
            dropped = None
        if dropped:
            parts.append(dropped)
    if call.host != "gemini_cli":  # Gemini: the prompt hook hands it over (module doc)
        handed = _waiting_handoff(call, "session-start")
        if handed is not None:
            parts.append(handed)
    if not parts or call.host == "gemini_cli":
        return _quiet(call)
    return _context_output(call, "SessionStart", "\n\n".join(parts))


# --- what a compaction dropped -------------------------------------------------------


def _compaction_at_start(call: HookCall) -> str | None:
    """Right after a compaction (a session start with source ``compact``): what it
    dropped when the transcript holds it already (Codex writes the compaction before the
    hook), else a mark for the next prompt hook (Claude Code writes its boundary after
    its hooks). ``None`` when there is nothing to say now."""
    if call.session_id is None or call.transcript is None:
        return None
    note = livecache.read_compaction_note(call.session_id) or _first_note(call.session_id)
    if call.host != "claude_code":
        count, text = _read_reminder(call)
        if count > note.told:
            livecache.write_compaction_note(call.session_id, livecache.CompactionNote(count))
            return text if _reinject_on(call) else None
    livecache.write_compaction_note(call.session_id, livecache.CompactionNote(note.told, True))
    return None


def _compaction_at_prompt(call: HookCall, status: livecache.LiveStatus | None) -> str | None:
    """Before a prompt: what the latest compaction dropped, once per compaction — from the
    status cache when the stop hook saw it, else from the transcript when the host marked
    a compaction the cache has not seen (:func:`_compaction_at_start`)."""
    if call.session_id is None:
        return None
    note = livecache.read_compaction_note(call.session_id)
    if note is None:  # the first prompt seen of this session: what came before is not news
        livecache.write_compaction_note(call.session_id, _first_note(call.session_id))
        return None
    if status is not None and status.compactions > note.told:
        livecache.write_compaction_note(
            call.session_id, livecache.CompactionNote(status.compactions)
        )
        return status.reinject if _reinject_on(call) else None
    if not note.pending or call.transcript is None:
        return None
    count, text = _read_reminder(call)
    if count <= note.told:
        return None
    livecache.write_compaction_note(call.session_id, livecache.CompactionNote(count))
    return text if _reinject_on(call) else None


def _first_note(session_id: str) -> livecache.CompactionNote:
    """The note of a session seen for the first time: the compactions the cache knows of
    count as told (they happened before driftguard's hooks looked)."""
    status = livecache.read_status(session_id)
    return livecache.CompactionNote(status.compactions if status is not None else 0)


def _read_reminder(call: HookCall) -> tuple[int, str | None]:
    """The session's compaction count and the reminder of its latest compaction, read
    from the transcript now."""
    from driftguard.adapters import parse_session
    from driftguard.render.ledger import ledger_view

    assert call.transcript is not None
    session = parse_session(call.transcript, call.host)
    last = ledger_view(session, limit=1).last
    return session.compactions, last.reminder() if last is not None else None


def _reinject_on(call: HookCall) -> bool:
    """``reinject`` in the project's config (on by default; a config that cannot be read
    leaves it on, and the stop hook says what is wrong with it)."""
    from driftguard.config import load_config
    from driftguard.errors import ConfigError

    try:
        return load_config(call.project).reinject
    except ConfigError:
        return True


# --- Stop ------------------------------------------------------------------------------


def _has_reply(session: Session, expected: str) -> bool:
    texts = session.assistant_texts
    return bool(texts) and expected in one_line(texts[-1])


def _settled(
    cache: SessionCache,
    path: Path,
    expected: str | None,
    cli: CliName | None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Session, int]:
    """The session once ``expected`` (the last reply) is in it, or after
    :data:`SETTLE_SECONDS`; with the file's size when it was last read (bytes; -1 for a
    session without a file of its own)."""
    size = _size(path)
    session = cache.get(path, cli)
    if expected is None or not one_line(expected):
        return session, size
    wanted = one_line(expected)
    deadline = clock() + SETTLE_SECONDS
    while not _has_reply(session, wanted) and clock() < deadline:
        sleep(_SETTLE_STEP)
        size = _size(path)
        session = cache.get(path, cli)
    return session, size


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


def _transcript(call: HookCall) -> tuple[Path, CliName | None]:
    """The session's transcript: the payload's path, or (Cursor, whose chats live in its
    database) the chat its conversation id names.

    Raises:
        HookInputError: neither is given.
        DriftguardError: the chat cannot be found.
    """
    if call.transcript is not None and call.host != "cursor":
        return call.transcript, call.host
    if call.host == "cursor" and call.session_id is not None:
        from driftguard.sessions.resolve import resolve_session

        found = resolve_session(
            call.session_id, client_name="cursor-vscode", project=call.project, folders=None
        )
        return found.path, found.cli
    raise HookInputError("no transcript_path in the payload")


def stop(call: HookCall, *, sleep: Callable[[float], None] = time.sleep) -> str:
    """Re-score the transcript, record it, refresh the status cache (module doc).

    Raises:
        HookInputError: no transcript.
        DriftguardError: the transcript cannot be read or the config is bad.
    """
    from driftguard.engine.drift import drift
    from driftguard.sessions.incremental import SessionCache
    from driftguard.store.history import GuardedHistoryStore

    path, cli = _transcript(call)
    session, size = _settled(SessionCache(maxsize=1), path, call.last_reply, cli, sleep=sleep)
    session_id = call.session_id or session.session_id
    store = GuardedHistoryStore()
    outcome = drift(session, project=call.project, store=store, record=True)
    for warning in [*outcome.config.warnings, *store.notes]:
        _warn("stop", warning)
    if session_id is None:
        _warn("stop", "no session id: status line not refreshed")
        return _quiet(call)
    status = live_status(outcome, session_id, path, size)
    try:
        livecache.write_status(status)
    except OSError as exc:
        where = livecache.status_path(session_id)
        _warn("stop", f"status line not refreshed: {where}: {exc.strerror or exc}")
    livecache.prune(outcome.config.history_retention_days)
    return _quiet(call)


def live_status(
    outcome: DriftOutcome, session_id: str, path: Path, size: int
) -> livecache.LiveStatus:
    """The status-line record of a scored session: ``outcome`` of the transcript ``path``
    (``size`` bytes when it was read), for the host's ``session_id``."""
    from driftguard.render.ledger import ledger_view
    from driftguard.render.text import offers_handoff

    report = outcome.report
    loop = report.measures.loop if report.measures is not None else None
    last = ledger_view(report.session, limit=1).last if report.session.compactions else None
    return livecache.LiveStatus(
        session_id=session_id,
        cli=report.session.cli,
        transcript_path=str(path),
        transcript_size=size,
        ts=time.time(),
        score=report.score,
        state=report.state,
        factors=display_factors(report.factors),
        messages=report.messages,
        context_tokens=report.session.context_tokens,
        context_window=report.context_window,
        tokens_estimated=report.session.tokens_estimated,
        # the line offers a handoff only where the remedy is a fresh start: a loop is to be
        # stepped back from, and a new session would hit the same wall
        handoff_suggested=offers_handoff(report),
        warn_threshold=report.warn_threshold,
        goal=outcome.goal,
        usable_window=report.usable_window,
        growth_per_turn=report.budget.growth_per_turn if report.budget else None,
        loop=short_loop(loop) if loop is not None else None,
        loop_key=loop_key(loop) if loop is not None else None,
        input_files=outcome.input_files,
        inputs=outcome.inputs,
        compactions=report.session.compactions,
        reinject=last.reminder() if last is not None else None,
    )


# --- UserPromptSubmit ------------------------------------------------------------------


def prompt_warning(status: livecache.LiveStatus) -> str:
    """The line added to the context when the score crossed the warn threshold."""
    notable = sorted(
        (
            (value, name)
            for name, value in status.factors.items()
            if value is not None and value >= _NOTABLE
        ),
        key=lambda item: -item[0],
    )[:2]
    reasons = ", ".join(f"{name.replace('_', ' ')} {value:.0f}" for value, name in notable)
    because = f" (highest factors: {reasons})" if reasons else ""
    head = (
        f"driftguard: this session's drift score is {status.score}/100 ({status.state}) "
        f"after the last turn, at or above the warning threshold of {status.warn_threshold}"
        f"{because}."
    )
    if status.loop and not status.handoff_suggested:
        return f"{head} The loop below is what raised it: step back rather than start over."
    return (
        f"{head} Finish the current step, then save a handoff with save_handoff (or "
        "`driftguard handoff --write`): it goes into .driftguard/handoff.md, and the next "
        "session started in this project begins with it."
    )


def loop_notice(status: livecache.LiveStatus) -> str:
    """The line added to the context when an action loop is going on."""
    return (
        f"driftguard: the last tool calls repeat ({status.loop}): this looks like a loop. "
        "Stop repeating the same call. Say what each attempt showed, then change the "
        "approach or ask the user."
    )


def near_compaction_warning(status: livecache.LiveStatus, turns: int) -> str:
    """The line added to the context when the host will compact within ``turns`` turns."""
    left = (status.usable_window or 0) - status.context_tokens
    when = "with the next turn" if turns <= 1 else f"within about {turns} turns"
    return (
        f"driftguard: {left:,} tokens are left before the host compacts this session "
        f"({when}); a compaction keeps only a summary. Finish the current step, then save "
        "a handoff with save_handoff so the rules, decisions and open errors carry over."
    )


def _turns_left(status: livecache.LiveStatus) -> int | None:
    """Turns left before the host compacts, at the recent growth per turn (``None`` when
    the cache knows no usable window or growth)."""
    if status.usable_window is None or not status.growth_per_turn:
        return None
    left = max(0, status.usable_window - status.context_tokens)
    return -(-left // status.growth_per_turn)


def user_prompt_submit(call: HookCall) -> str:
    """Tell the model, once each, what the last compaction dropped, an action loop going
    on, a compaction coming, a crossing of the warn threshold; on Gemini CLI, hand a
    waiting handoff over (module doc)."""
    if call.host == "cursor":
        return _quiet(call)
    session_id = call.session_id
    if session_id is None:
        raise HookInputError("no session_id in the payload")
    lines: list[str] = []
    if call.host == "gemini_cli":
        lines += _gemini_start(call)
    status = livecache.read_status(session_id)
    if call.host == "gemini_cli" and _unscored_turn(call, status):
        stop(call)
        status = livecache.read_status(session_id)
    try:
        dropped = _compaction_at_prompt(call, status)
    except Exception as exc:  # noqa: BLE001 - the other notices must still be given
        _warn("user-prompt-submit", f"what the compaction dropped was not read: {exc}")
        dropped = None
    if dropped:
        lines.append(dropped)
    if status is not None:
        lines += _notices(session_id, status)
    if not lines:
        return _quiet(call)
    return _context_output(
        call, _PROMPT_EVENT.get(call.host, "UserPromptSubmit"), "\n\n".join(lines)
    )


def _unscored_turn(call: HookCall, status: livecache.LiveStatus | None) -> bool:
    """Whether the last turn of a Gemini CLI session ended without its ``AfterAgent`` hook:
    Gemini CLI 0.61 writes a prompt to the transcript only after ``BeforeAgent`` ran, so the
    file is as the stop hook last scored it unless a turn ended without one — its loop
    detector stops a turn so (a loop it stopped is exactly what the model should hear of),
    as do an error and Ctrl-C. (A ``--resume`` rewrites the file too: scored again then.)"""
    if status is None or call.transcript is None:
        return False
    size = _size(call.transcript)
    return size >= 0 and size != status.transcript_size


def _gemini_start(call: HookCall) -> list[str]:
    """Gemini CLI's session start, done before its first prompt: the pointer (its
    ``SessionStart`` of a resumed session names a new, empty file; the prompt's names the
    transcript) and a waiting handoff."""
    from driftguard.sessions.pointers import write_pointer

    if call.transcript is not None:
        try:
            write_pointer(call.project, call.transcript, call.host, call.session_id)
        except OSError as exc:
            _warn("user-prompt-submit", f"pointer not written: {exc.strerror or exc}")
    handed = _waiting_handoff(call, "user-prompt-submit")
    return [handed] if handed is not None else []


def _waiting_handoff(call: HookCall, event: str) -> str | None:
    """The context that hands a waiting handoff over (claimed: once), or ``None``; a
    handoff driftguard did not save on this machine costs one line on stderr and is not
    handed over (:func:`driftguard.store.handoff_files.take_handoff`)."""
    from driftguard.errors import UntrustedHandoffError
    from driftguard.store.handoff_files import handoff_context, take_handoff

    try:
        taken = take_handoff(call.project, call.session_id)
    except UntrustedHandoffError as exc:
        _warn(event, str(exc))
        return None
    return handoff_context(taken, call.project) if taken is not None else None


def _notices(session_id: str, status: livecache.LiveStatus) -> list[str]:
    lines: list[str] = []
    above = status.score >= status.warn_threshold
    warned = livecache.read_warned(session_id)
    if above and not warned:
        livecache.write_warned(session_id, True, status.score)
        lines.append(prompt_warning(status))
    elif warned and not above:
        livecache.write_warned(session_id, False, status.score)
    if status.loop and status.loop_key and livecache.read_told_loop(session_id) != status.loop_key:
        livecache.write_told_loop(session_id, status.loop_key)
        lines.append(loop_notice(status))
    turns = _turns_left(status)
    near = turns is not None and turns <= NEAR_TURNS
    if near and turns is not None and livecache.read_near(session_id) != status.compactions:
        livecache.write_near(session_id, status.compactions)
        lines.append(near_compaction_warning(status, turns))
    return lines


# --- dispatch --------------------------------------------------------------------------


HOOK_EVENTS: Final[Mapping[str, Callable[[HookCall], str]]] = {
    "session-start": session_start,
    "stop": stop,
    "user-prompt-submit": user_prompt_submit,
}
"""The hook events ``driftguard hook`` handles, by command-line name."""


def run_hook(
    event: str, raw: bytes, env: Mapping[str, str] | None = None, host: str = "claude_code"
) -> str:
    """What ``driftguard hook EVENT --host HOST`` prints for the stdin bytes ``raw`` (''
    for nothing).

    Never raises (except ``KeyboardInterrupt``/``SystemExit``): any problem is described on
    stderr, and only what the host takes for "nothing to add" is printed, so the host
    carries on (docs/design.md §10).
    """
    environ = os.environ if env is None else env
    cli: CliName = next((name for name in CLI_NAMES if name == host), "claude_code")
    quiet = _QUIET.get(cli, "")
    handler = HOOK_EVENTS.get(event)
    if handler is None:
        print(
            f"driftguard hook: unknown event {event!r}; choose one of: {', '.join(HOOK_EVENTS)}",
            file=sys.stderr,
        )
        return quiet
    if host not in CLI_NAMES:
        print(f"driftguard hook: unknown host {host!r}", file=sys.stderr)
        return quiet
    try:
        return handler(HookCall.of(cli, parse_payload(raw), environ))
    except Exception as exc:  # noqa: BLE001 - a hook must never fail its host
        print(f"driftguard hook {event}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return quiet
