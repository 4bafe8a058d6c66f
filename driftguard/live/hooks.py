"""``driftguard hook EVENT``: the Claude Code hooks (issue #5 item 3; mcp-and-hosts.md §4.2).

Each hook reads the JSON Claude Code sends on stdin (formats.md §A.14: ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and the event's own fields) and returns
what goes to stdout — only what Claude Code expects for that event, here either nothing or
one ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`` object, which
Claude Code adds to the model's context. The command always exits 0 (exit code 2 would
block the host; design §10); problems go to stderr, which Claude Code only logs.

The project is ``$CLAUDE_PROJECT_DIR`` (Claude Code sets it for hooks), else the payload's
``cwd``, else the working directory.

- ``session-start`` (``SessionStart``; ``source`` ``startup|resume|clear|compact|fork``):
  points this Claude Code process at the transcript of this session
  (:func:`driftguard.sessions.resolve.write_process_pointer`, keyed by the process that ran the
  hook: its nearest ancestor that is not a shell, :func:`driftguard._process.host_of_hook`;
  only when Claude Code runs it, with ``CLAUDECODE=1``, never a hook run by hand) and the
  project too (:func:`driftguard.sessions.pointers.write_pointer`), both atomic — the only
  signals that follow ``/clear``. The MCP servers of the same process read the first
  (another session started in the project meanwhile does not take it over); the second
  counts after Claude Code's session id, and for a caller that is not Claude Code only
  while no other CLI has written a newer session (:mod:`driftguard.sessions.resolve`). When a
  handoff saved by another session of this project is waiting
  (:mod:`driftguard.store.handoff_files`), it claims it and adds it to the new session's
  context.
- ``stop`` (``Stop``, after every turn): re-scores the transcript and atomically refreshes
  the status-line cache (:mod:`driftguard.store.livecache`), appending a snapshot to the
  session's history like ``get_drift`` does. A history, goal or cache file that cannot be
  read or written costs a warning line on stderr, not the rest of the hook (issue #9 item
  4); so does a pointer the ``session-start`` hook cannot write. The transcript "is
  written asynchronously and may lag" (hooks docs): when ``last_assistant_message`` is not
  in the file yet, the file is read again (only its new lines,
  :class:`~driftguard.sessions.incremental.SessionCache`) every 50 ms for up to
  :data:`SETTLE_SECONDS`. No parse state is persisted between hook processes: a
  whole-process stop hook on a 45 MB session takes about half a second
  (``benchmarks/bench_statusline.py``), less than a persisted cache would save once
  loading it is counted, and far below the hook's timeout.
- ``user-prompt-submit`` (``UserPromptSubmit``, before each prompt is sent): adds one
  line to the context when the cached score has crossed the warn threshold since the
  last warning — once per crossing, not on every prompt; a score back below the
  threshold re-arms it. It reads only the cache (``<key>.warn.json`` keeps the state), so
  it never delays a prompt by parsing.

Heavy modules (the engine, numpy) are imported inside the hooks that need them, so the
prompt hook starts as fast as the status line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from driftguard.compaction.ledger import one_line
from driftguard.errors import HookInputError
from driftguard.format import display_factors
from driftguard.scoring.loops import loop_key, short_loop
from driftguard.store import livecache

if TYPE_CHECKING:
    from driftguard.engine.drift import DriftOutcome
    from driftguard.model import CliName, Session
    from driftguard.sessions.incremental import SessionCache

__all__ = [
    "HOOK_EVENTS",
    "SETTLE_SECONDS",
    "HookInputError",
    "live_status",
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


def parse_payload(raw: bytes) -> dict[str, Any]:
    """The hook payload in ``raw``.

    Raises:
        HookInputError: empty, not JSON, or not an object.
    """
    if not raw.strip():
        raise HookInputError("no JSON on stdin (Claude Code sends the hook's payload there)")
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


def _project(payload: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    root = env.get("CLAUDE_PROJECT_DIR", "").strip()
    if root:
        return Path(root)
    cwd = _text(payload, "cwd")
    return Path(cwd) if cwd else Path.cwd()


def _host_cli(env: Mapping[str, str]) -> CliName:
    """Gemini CLI runs hooks with the same payload (and ``CLAUDE_PROJECT_DIR`` as an alias),
    but also sets ``GEMINI_PROJECT_DIR``/``GEMINI_SESSION_ID`` (mcp-and-hosts.md §4.2)."""
    if env.get("GEMINI_PROJECT_DIR") or env.get("GEMINI_SESSION_ID"):
        return "gemini_cli"
    return "claude_code"


def _context_output(event: str, text: str) -> str:
    """The JSON object that adds ``text`` to the model's context (hooks docs)."""
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
        ensure_ascii=False,
    )


# --- SessionStart ----------------------------------------------------------------------


def session_start(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Write the project's pointer; hand over a waiting handoff (module doc)."""
    from driftguard._process import host_of_hook
    from driftguard.sessions.pointers import write_pointer, write_process_pointer
    from driftguard.store.handoff_files import handoff_context, take_handoff

    project = _project(payload, env)
    session_id = _text(payload, "session_id")
    transcript = _text(payload, "transcript_path")
    if transcript is not None:
        cli = _host_cli(env)
        # only a hook Claude Code runs points a process at the session: by hand (in tmux,
        # say) the nearest non-shell ancestor is the terminal's, and every shell under it
        # would take this session as its own (Claude Code 2.1.197 gives its hooks
        # CLAUDECODE=1, as it does its MCP servers and shell tool)
        host = host_of_hook() if env.get("CLAUDECODE") == "1" else None
        try:
            if host is not None:
                write_process_pointer(host, project, Path(transcript), cli, session_id)
            write_pointer(project, Path(transcript), cli, session_id)
        except OSError as exc:  # the handoff below must not be lost over the pointer
            print(
                f"driftguard hook session-start: warning: pointer not written: "
                f"{exc.filename or 'pointer'}: {exc.strerror or exc}",
                file=sys.stderr,
            )
    else:
        print(
            "driftguard hook session-start: no transcript_path: pointer not written",
            file=sys.stderr,
        )
    taken = take_handoff(project, session_id)
    if taken is None:
        return ""
    return _context_output("SessionStart", handoff_context(taken, project))


# --- Stop ------------------------------------------------------------------------------


def _has_reply(session: Session, expected: str) -> bool:
    texts = session.assistant_texts
    return bool(texts) and expected in one_line(texts[-1])


def _settled(
    cache: SessionCache,
    path: Path,
    expected: str | None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Session, int]:
    """The session once ``expected`` (the last reply) is in it, or after
    :data:`SETTLE_SECONDS`; with the file's size when it was last read (bytes)."""
    size = os.stat(path).st_size
    session = cache.get(path)
    if expected is None or not one_line(expected):
        return session, size
    wanted = one_line(expected)
    deadline = clock() + SETTLE_SECONDS
    while not _has_reply(session, wanted) and clock() < deadline:
        sleep(_SETTLE_STEP)
        size = os.stat(path).st_size
        session = cache.get(path)
    return session, size


def stop(
    payload: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Re-score the transcript, refresh the status-line cache, record history (module doc).

    Raises:
        HookInputError: no ``transcript_path``.
        DriftguardError: the transcript cannot be read or the config is bad.
    """
    from driftguard.engine import drift as engine
    from driftguard.sessions.incremental import SessionCache
    from driftguard.store.history import GuardedHistoryStore

    transcript = _text(payload, "transcript_path")
    if transcript is None:
        raise HookInputError("no transcript_path in the Stop payload")
    path = Path(transcript)
    project = _project(payload, env)
    session, size = _settled(
        SessionCache(maxsize=1), path, _text(payload, "last_assistant_message"), sleep=sleep
    )
    session_id = _text(payload, "session_id") or session.session_id
    store = GuardedHistoryStore()
    outcome = engine.drift(session, project=project, store=store, record=True)
    for warning in [*outcome.config.warnings, *store.notes]:
        print(f"driftguard hook stop: warning: {warning}", file=sys.stderr)
    if session_id is None:
        print("driftguard hook stop: no session id: status line not refreshed", file=sys.stderr)
        return ""
    status = live_status(outcome, session_id, path, size)
    try:
        livecache.write_status(status)
    except OSError as exc:
        print(
            f"driftguard hook stop: warning: status line not refreshed: "
            f"{livecache.status_path(session_id)}: {exc.strerror or exc}",
            file=sys.stderr,
        )
    livecache.prune(outcome.config.history_retention_days)
    return ""


def live_status(
    outcome: DriftOutcome, session_id: str, path: Path, size: int
) -> livecache.LiveStatus:
    """The status-line record of a scored session: ``outcome`` of the transcript ``path``
    (``size`` bytes when it was read), for the host's ``session_id``."""

    report = outcome.report
    loop = report.measures.loop if report.measures is not None else None
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
        handoff_suggested=report.handoff_suggested,
        warn_threshold=report.warn_threshold,
        goal=outcome.goal,
        usable_window=report.usable_window,
        growth_per_turn=report.budget.growth_per_turn if report.budget else None,
        loop=short_loop(loop) if loop is not None else None,
        loop_key=loop_key(loop) if loop is not None else None,
        input_files=outcome.input_files,
        inputs=outcome.inputs,
    )


# --- UserPromptSubmit ------------------------------------------------------------------


def prompt_warning(status: livecache.LiveStatus) -> str:
    """The one line added to the context when the score crossed the warn threshold."""
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
    return (
        f"driftguard: this session's drift score is {status.score}/100 ({status.state}) "
        f"after the last turn, at or above the warning threshold of {status.warn_threshold}"
        f"{because}. A handoff carries the work into a fresh session: save_handoff "
        "(or `driftguard handoff --write`) saves one in .driftguard/handoff.md, "
        "and the next session started in this project begins with it."
    )


def loop_notice(status: livecache.LiveStatus) -> str:
    """The one line added to the context when an action loop is going on (issue #13)."""
    return (
        f"driftguard: the last tool calls repeat ({status.loop}): this looks like a loop. "
        "Step back before the next call: say what each attempt showed, and try a different "
        "approach or ask the user, rather than the same call again."
    )


def user_prompt_submit(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Warn once when the cached score crossed the warn threshold, and tell the model once
    about each action loop going on (module doc)."""
    session_id = _text(payload, "session_id")
    if session_id is None:
        raise HookInputError("no session_id in the UserPromptSubmit payload")
    status = livecache.read_status(session_id)
    if status is None:
        return ""
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
    return _context_output("UserPromptSubmit", "\n".join(lines)) if lines else ""


# --- dispatch --------------------------------------------------------------------------

HOOK_EVENTS: Final[Mapping[str, Callable[[Mapping[str, Any], Mapping[str, str]], str]]] = {
    "session-start": session_start,
    "stop": stop,
    "user-prompt-submit": user_prompt_submit,
}
"""The hook events ``driftguard hook`` handles, by command-line name."""


def run_hook(event: str, raw: bytes, env: Mapping[str, str] | None = None) -> str:
    """What ``driftguard hook EVENT`` prints for the stdin bytes ``raw`` ('' for nothing).

    Never raises (except ``KeyboardInterrupt``/``SystemExit``): any problem is described on
    stderr and nothing is printed, so the host carries on (design §10).
    """
    environ = os.environ if env is None else env
    handler = HOOK_EVENTS.get(event)
    if handler is None:
        print(
            f"driftguard hook: unknown event {event!r}; choose one of: {', '.join(HOOK_EVENTS)}",
            file=sys.stderr,
        )
        return ""
    try:
        return handler(parse_payload(raw), environ)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail its host
        print(f"driftguard hook {event}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return ""
