"""``driftguard statusline``: one short line for Claude Code's status line.

Claude Code runs the status-line command after each assistant message (debounced 300 ms,
and a still-running command is cancelled), with a JSON payload on stdin
(docs/formats.md §A.13, docs/host-configs.md §4.2). This reads ``session_id`` and
``context_window`` from it, the score the stop hook cached for that session
(:mod:`driftguard.store.livecache`), and prints e.g.::

    drift 47 warming · 38k to compact (~6 turns) · loop: npm test ×3 · rep 31

- ``drift 47 warming``: the cached score (0–100) and state; coloured by state unless
  ``NO_COLOR`` is set. Without a cached score (no turn of this session has ended yet, or
  the hooks are not installed) the transcript named in the payload is scored on the spot
  when that fits in Claude Code's 300 ms (a file of at most :data:`ON_THE_SPOT_BYTES`, no
  remembered goal: see there for the measurement); otherwise the line says
  ``drift – scored when this turn ends`` beside the context figure. Only
  without a transcript at all: ``drift – not scored yet``. The status line never writes
  the score it made: the stop hook stays the one writer of the cache. A cached score made
  with a goal, config or host window that has changed since
  (:func:`driftguard.store.livecache.is_current`) is treated the same way,
  except that when the transcript is too large to score in time the cached score is kept
  until the turn ends; with a config that cannot be used it is kept and marked
  ``config error: .driftcli`` (:func:`config_warning`).
- ``38k to compact (~6 turns)``: the tokens left before the host compacts —
  the cached usable window (:mod:`driftguard.engine.window`) minus the payload's context
  (its ``current_usage`` tokens, else ``total_input_tokens``), else the cached context —
  and the turns they last at the recent turns' median growth (:mod:`driftguard.compaction.budget`);
  ``compacting next`` at or past the point. Without a cached usable window: ``ctx 62%``,
  how full the context window is, from the host's own figures when the payload has them
  — ``used_percentage``, else the tokens over ``context_window_size`` — else from the
  cached score's tokens and window; left out when nothing is known.
- ``loop: npm test ×3``: an action loop going on at the latest tool call
  (:mod:`driftguard.scoring.loops`), the moment the stop hook saw it.
- ``rep 31``: the highest other factor when it reaches 10 points (``rep`` repetition,
  ``len`` length collapse, ``goal`` goal distance, ``unc`` uncertainty, ``hedge``
  confidence drift).
- ``handoff suggested`` when the cached report suggested one (docs/design.md §5.4).
- ``goal “import CSV…”``: the goal the score used, when one is remembered.

The host's ``context_window_size`` overrides driftguard's own window (docs/design.md §5.3): it is
remembered (``<key>.host.json``) and the next stop hook scores with it.

With a cached score it never parses a transcript and imports only the standard library,
:mod:`driftguard.paths` and :mod:`driftguard.store.livecache`; it never raises and always exits
0 (docs/design.md §10): on a bad payload it still prints a line. With ``--wrap COMMAND`` it runs
the user's own status-line command with the same stdin and appends the drift segment to
that command's last line, so an existing status line can be kept (``driftguard setup
--hooks`` never replaces one).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping
from typing import Any, Final

from driftguard.compaction.budget import turns_phrase
from driftguard.labels import ANSI_RESET, FACTOR_SHORT, STATE_ANSI, STATE_TMUX
from driftguard.store import livecache
from driftguard.store.livecache import LiveStatus
from driftguard.terminal import printable, short_markers

__all__ = [
    "NOT_SCORED",
    "ON_THE_SPOT_BYTES",
    "SCORED_AFTER_TURN",
    "WRAP_TIMEOUT",
    "budget_segment",
    "config_warning",
    "context_percent",
    "host_window",
    "payload_tokens",
    "render_line",
    "render_status",
    "room_left",
    "statusline_output",
]

NOT_SCORED: Final = "drift – not scored yet"
SCORED_AFTER_TURN: Final = "drift – scored when this turn ends"
ON_THE_SPOT_BYTES: Final = 15_000_000
"""Largest transcript (bytes) the status line scores itself when nothing is cached.

Measured as whole ``driftguard statusline`` processes with nothing cached
(``python benchmarks/bench_statusline.py --spot-sizes 0.1,1,5,10,15,20 --runs 9``, this
project's 2-core machine idle, Python 3.11, with the incremental parser): median 144 ms at
0.1 MB, 150 ms at 1 MB, 172 ms at 5 MB, 200 ms at 10 MB, 228 ms (max 233) at 15 MB, 254 ms
at 20 MB — about 140 ms of start-up and imports plus 5.7 ms per MB. Claude Code re-runs
the status line at most every 300 ms while the session changes and cancels a run still
going when the next one starts (its bundle, 2.1.197: a 300 ms debounce around the runner,
which aborts the previous run); 15 MB leaves a quarter of that for a busier machine. A
remembered goal costs a few milliseconds (goal distance no longer imports scikit-learn),
so it is scored here too."""
GOAL_SHOWN: Final = 24
"""Characters of the goal shown in the status line."""
NOTABLE_POINTS: Final = 10.0
"""A factor is shown from this many points (as in the text report, docs/design.md §5.5)."""
WRAP_TIMEOUT: Final = 1.0
"""Seconds the wrapped status-line command may take before its part is left out and the
drift line printed alone. Claude Code aborts a status-line run after 5 s (the default
timeout of its runner, 2.1.197's bundle) and whenever the next run starts, at most every
300 ms while the session changes; a wrapped command that hangs must cost its own part,
not the whole line, and a second is far above what status-line commands take."""
SEPARATOR: Final = " · "
WRAP_SEPARATOR: Final = " │ "


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _context(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    value = payload.get("context_window")
    return value if isinstance(value, dict) else {}


def host_window(payload: Mapping[str, Any]) -> int | None:
    """``context_window.context_window_size`` (tokens) when the payload has a positive one."""
    size = _number(_context(payload).get("context_window_size"))
    return int(size) if size is not None and size > 0 else None


def payload_tokens(payload: Mapping[str, Any]) -> int | None:
    """Tokens in the context the payload reports (input + cache tokens of the last request,
    else ``total_input_tokens``), or ``None``."""
    context = _context(payload)
    usage = context.get("current_usage")
    if isinstance(usage, dict):
        parts = (
            _number(usage.get(name))
            for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        tokens = sum(part for part in parts if part is not None)
        if tokens > 0:
            return int(tokens)
    total = _number(context.get("total_input_tokens"))
    return int(total) if total is not None and total > 0 else None


def _thousands(tokens: int) -> str:
    if tokens >= 10_000:
        return f"{round(tokens / 1000)}k"
    if tokens >= 1_000:
        return f"{tokens / 1000:.1f}k".replace(".0k", "k")
    return str(tokens)


def room_left(status: LiveStatus, tokens: int | None = None) -> tuple[int, int | None] | None:
    """``(tokens, turns)`` left before the host compacts, with the context at ``tokens``
    (default: the cached context); turns ``None`` without a growth; ``None`` when the cache
    holds no usable window."""
    if status.usable_window is None:
        return None
    left = max(0, status.usable_window - (tokens or status.context_tokens))
    return left, (left // status.growth_per_turn if status.growth_per_turn else None)


def budget_segment(payload: Mapping[str, Any], status: LiveStatus) -> str | None:
    """``38k to compact (~6 turns)``: the tokens left before the host compacts (the
    payload's context when it has one, else the cached) and the turns they last at the
    recent turns' growth; ``None`` when the cache holds no usable window."""
    room = room_left(status, payload_tokens(payload))
    if room is None:
        return None
    left, turns = room
    if left <= 0:
        return "compacting next"
    phrase = turns_phrase(turns)
    return f"{_thousands(left)} to compact" + (f" ({phrase})" if phrase else "")


def render_status(status: LiveStatus | None, fmt: str = "plain", warning: str | None = None) -> str:
    """``driftguard status``'s line for a cached or fresh score: the status
    line's segments without a payload, ``warning`` (:func:`config_warning`) right after
    the score; ``fmt`` ``"tmux"`` colours the drift segment with tmux's ``#[fg=…]`` style
    (``#`` in the rest doubled, as tmux wants). Without a ``status`` (nothing cached, and
    a config that cannot be used) only the warning is shown: ``drift – <warning>``."""
    line = render_line({}, status, warning=warning)
    if fmt != "tmux":
        return line
    if status is None:
        return line.replace("#", "##")
    head = f"drift {status.score} {status.state}"
    rest = line[len(head) :].replace("#", "##")
    colour = STATE_TMUX.get(status.state, "default")
    return f"#[fg={colour}]{head}#[default]{rest}"


def config_warning(error: Exception) -> str:
    """``config error: .driftcli``: the short form of a config error for a status line,
    naming the file a :class:`~driftguard.errors.ConfigError` starts with (``<file>:
    <key>: <problem>``), or just ``config error``. The whole message goes to stderr, which
    a tmux status bar, a shell prompt and Claude Code's status line do not show."""
    source = str(error).partition(": ")[0].strip()
    if source and not source.startswith("preset") and ("/" in source or source.startswith(".")):
        return f"config error: {printable(os.path.basename(source.split(', ')[-1]))}"
    return "config error"


def context_percent(payload: Mapping[str, Any], status: LiveStatus | None) -> float | None:
    """How full the context window is, in percent (see the module doc for the order)."""
    context = _context(payload)
    used = _number(context.get("used_percentage"))
    if used is not None:
        return max(0.0, used)
    window = host_window(payload)
    if window is not None:
        usage = context.get("current_usage")
        if isinstance(usage, dict):
            parts = (
                _number(usage.get(name))
                for name in (
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                )
            )
            tokens = sum(part for part in parts if part is not None)
            if tokens > 0:
                return tokens / window * 100
        total = _number(context.get("total_input_tokens"))
        if total is not None and total > 0:
            return total / window * 100
    if status is not None:
        denominator = window or status.context_window
        if denominator > 0:
            return status.context_tokens / denominator * 100
    return None


def _round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def _top_factor(status: LiveStatus) -> str | None:
    ranked = sorted(
        (
            (value, name)
            for name, value in status.factors.items()
            if name in FACTOR_SHORT and value is not None
        ),
        key=lambda item: -item[0],
    )
    if not ranked or ranked[0][0] < NOTABLE_POINTS:
        return None
    value, name = ranked[0]
    return f"{FACTOR_SHORT[name]} {_round_half_up(value)}"


def render_line(
    payload: Mapping[str, Any],
    status: LiveStatus | None,
    *,
    color: bool = False,
    columns: int | None = None,
    warning: str | None = None,
) -> str:
    """The status line for ``payload`` and the cached ``status`` (module doc).

    Args:
        payload: the host's status-line JSON (any missing field is tolerated).
        status: the cached score of the session, or ``None``.
        color: colour the drift segment by state (ANSI SGR).
        columns: the terminal width; trailing segments are dropped to fit it.
        warning: a problem to show right after the score (:func:`config_warning`); the
            score, if any, is then the last one made before it.
    """
    if status is None:
        head = SCORED_AFTER_TURN if _transcript(payload) is not None else NOT_SCORED
        plain_head = head = f"drift – {warning}" if warning else head
        warning = None  # it is the head
    else:
        plain_head = f"drift {status.score} {status.state}"
        colour = STATE_ANSI.get(status.state, "") if color else ""
        head = f"{colour}{plain_head}{ANSI_RESET}" if colour else plain_head
    tail: list[str] = [warning] if warning else []
    room = budget_segment(payload, status) if status is not None else None
    percent = context_percent(payload, status)
    if room is not None:
        tail.append(room)
    elif percent is not None:
        tail.append(f"ctx {_round_half_up(percent)}%")
    if status is not None:
        if status.loop:
            tail.append(f"loop: {status.loop}")
        top = _top_factor(status)
        if top is not None:
            tail.append(top)
        if status.handoff_suggested:
            tail.append("handoff suggested")
        if status.goal:
            goal = short_markers(printable(" ".join(status.goal.split())))
            if len(goal) > GOAL_SHOWN:
                goal = goal[: GOAL_SHOWN - 1].rstrip() + "…"
            tail.append(f"goal “{goal}”")
    if columns is not None and columns > 0:
        while tail[bool(warning) :] and len(SEPARATOR.join([plain_head, *tail])) > columns:
            tail.pop()
    return SEPARATOR.join([head, *tail])


def _transcript(payload: Mapping[str, Any]) -> str | None:
    value = payload.get("transcript_path")
    return value if isinstance(value, str) and value else None


def _project(payload: Mapping[str, Any]) -> str | None:
    """The project folder the payload names (``workspace.project_dir``, else ``cwd``)."""
    workspace = payload.get("workspace")
    if isinstance(workspace, dict):
        folder = workspace.get("project_dir")
        if isinstance(folder, str) and folder:
            return folder
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else None


def score_on_the_spot(payload: Mapping[str, Any], session_id: str) -> LiveStatus | None:
    """The score of the payload's transcript, made now, when it fits the status line's
    time (module doc): at most :data:`ON_THE_SPOT_BYTES`. ``None`` when it does not fit, or
    there is no transcript. Reads the config of the payload's project; records nothing.

    Raises:
        DriftguardError: the transcript cannot be read or scored, or the config is bad.
        OSError: the transcript vanished while it was read.
    """
    from pathlib import Path

    transcript = _transcript(payload)
    if transcript is None:
        return None
    path = Path(transcript)
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size > ON_THE_SPOT_BYTES:
        return None
    from driftguard.adapters import parse_session
    from driftguard.engine import drift as engine
    from driftguard.live.hooks import live_status
    from driftguard.store.history import GuardedHistoryStore

    project = _project(payload)
    outcome = engine.drift(
        parse_session(path, "claude_code"),
        project=Path(project) if project else None,
        store=GuardedHistoryStore(),
        record=False,
    )
    return live_status(outcome, session_id, path, size)


def _score_again(
    payload: Mapping[str, Any], session_id: str, cached: LiveStatus | None
) -> tuple[LiveStatus | None, str | None]:
    """The score to show when nothing is cached, or the cached score was made with a goal,
    config or host window that has changed since (module doc): the transcript scored on
    the spot when that fits in time, else the cached one (the stop hook refreshes it
    after the turn); with a config that cannot be used, the cached one and a warning
    (:func:`config_warning`). Never raises."""
    from driftguard.errors import ConfigError

    try:
        fresh = score_on_the_spot(payload, session_id)
    except ConfigError as exc:
        print(f"driftguard statusline: not scored: {exc}", file=sys.stderr)
        return cached, config_warning(exc)
    except Exception as exc:  # noqa: BLE001 - the status line must always print
        print(f"driftguard statusline: not scored: {exc}", file=sys.stderr)
        return cached, None
    return (fresh if fresh is not None else cached), None


def _columns(env: Mapping[str, str]) -> int | None:
    try:
        value = int(env.get("COLUMNS", ""))
    except ValueError:
        return None
    return value if value > 0 else None


def _run_wrapped(command: str, raw: bytes) -> str:
    """The wrapped command's stdout without its trailing newlines ('' when it failed)."""
    # Only with --wrap: keeps the plain status line's start-up small.
    import contextlib
    import signal
    import subprocess

    try:
        # A session of its own, so a timeout kills the shell's children too (a child left
        # alive would hold the pipes open, and reading them would wait for it).
        with subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        ) as process:
            try:
                out, err = process.communicate(raw, timeout=WRAP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                print(
                    f"driftguard statusline: --wrap command left out: still running after "
                    f"{WRAP_TIMEOUT:g} s",
                    file=sys.stderr,
                )
                return ""
    except OSError as exc:
        print(f"driftguard statusline: --wrap command failed: {exc}", file=sys.stderr)
        return ""
    if err:
        sys.stderr.write(err.decode("utf-8", "replace"))
    return out.decode("utf-8", "replace").rstrip("\r\n")


def statusline_output(
    raw: bytes, env: Mapping[str, str] | None = None, *, wrap: str | None = None
) -> str:
    """What ``driftguard statusline`` prints for the stdin bytes ``raw`` (no newline).

    Never raises: an unreadable payload or cache gives the line without that part, and a
    problem is described on stderr.
    """
    environ = os.environ if env is None else env
    payload: Mapping[str, Any] = {}
    if raw.strip():
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            print(f"driftguard statusline: stdin is not JSON: {exc}", file=sys.stderr)
        else:
            if isinstance(value, dict):
                payload = value
            else:
                print("driftguard statusline: stdin is not a JSON object", file=sys.stderr)
    status: LiveStatus | None = None
    warning: str | None = None
    session_id = payload.get("session_id")
    if isinstance(session_id, str) and session_id:
        window = host_window(payload)
        if window is not None:
            try:
                livecache.write_host_window(session_id, window)
            except OSError as exc:
                print(f"driftguard statusline: cache not written: {exc}", file=sys.stderr)
        status = livecache.read_status(session_id)
        if status is None or not livecache.is_current(status):
            status, warning = _score_again(payload, session_id, status)
    color = not environ.get("NO_COLOR")
    line = render_line(payload, status, color=color, columns=_columns(environ), warning=warning)
    if wrap is None:
        return line
    theirs = _run_wrapped(wrap, raw)
    if not theirs:
        return line
    return f"{theirs}{WRAP_SEPARATOR}{line}"
