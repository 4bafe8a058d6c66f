"""Action loops: the agent repeating a tool call, retrying a failing one, or taking turns
between two.

Agent sessions often hold few text replies, so their repetition shows in what the model
*does*. This module reads the remembered messages as **steps** — the tool calls of one
model response (the action) and the tool results that answer them (the observation) — and
looks for a loop **that is still going on**: among the steps since the last prompt the
person typed (a new request starts afresh, as Gemini CLI's detector resets on a new prompt
and OpenHands' looks only after the last user message), at most the last
:data:`ACTION_WINDOW`; a run must end at the latest step, and a retried failing call must
not have passed since (both detectors judge the tail of the history; a loop the agent got
out of no longer counts). Five patterns:

====================================  ===========================  ============================
pattern (ending at the latest step)   points for a run of ``k``    threshold (source)
====================================  ===========================  ============================
same call, same outcome, in a row     ``100·(k−1)/(K_OBS−1)``      ``K_OBS = 4``: OpenHands
same call, each an error, in a row    ``100·(k−1)/(K_ERR−1)``      ``K_ERR = 3``: OpenHands
same call, whatever its outcome       ``100·(k−1)/(K_CALL−1)``     ``K_CALL = 5``: Gemini CLI
same call failing again after other   ``100·(k−1)/(K_OBS−1)``      ``K_OBS = 4`` (below)
steps, not passing since
two calls alternating A-B-A-B…, ``m``  ``100·(m−2)/(M_ALT−2)``     ``M_ALT = 6``: OpenHands
====================================  ===========================  ============================

Sources (read in their code):

- OpenHands ``openhands/controller/stuck.py`` (``StuckDetector``, OpenHands@331a1a43): the
  last 4 actions equal and their 4 observations equal (a command's observation compares
  the command and its exit code only); the last 3 actions equal and their observations
  errors; the last 6 steps alternating between two action–observation pairs.
- Gemini CLI 0.61.0 ``loopDetectionService`` (``TOOL_CALL_LOOP_THRESHOLD = 5``): the same
  tool name and arguments 5 times in a row, reset at each new prompt.

The thresholds are the sources'; scoring shorter runs in proportion is this project's
choice, so that a loop shows as it starts rather than only when a detector would stop the
agent. A failing call retried with other steps in between (fail, edit, fail, edit…) is not
a pattern either source names; it counts like an identical action–observation run (its
observation — failed — is the same each time), so it reaches 100 at the 4th failure.

A step's action is the tuple of its calls' ``(name, args_digest)`` (canonical JSON of the
arguments, so key order does not matter). Its outcome is, for shell commands, whether it
failed (OpenHands compares a command's exit code, not its output, which holds timings),
and otherwise the text of its results. A step **failed** when a result is marked an error
(Claude Code's ``is_error``, Codex's exit code, Gemini's error field, as the adapters read
them) or its text begins with a non-zero exit code the harness wrote:
``<returncode>N</returncode>`` (mini-swe-agent) or ``Exit code: N``.

Pure functions over :class:`~driftguard.model.ParsedMessage` sequences; no I/O.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftguard.model import LoopKind, ParsedMessage, ToolCall
from driftguard.terminal import printable

__all__ = [
    "ACTION_WINDOW",
    "K_CALL",
    "K_ERR",
    "K_OBS",
    "M_ALT",
    "ActionLoop",
    "LoopKind",
    "Step",
    "StepScan",
    "action_loop",
    "describe_loop",
    "loop_in",
    "loop_key",
    "recent_steps",
    "short_loop",
    "steps",
]

ACTION_WINDOW = 20
"""Most steps looked at, the latest last (the seed's longest window, uncertainty's 20
replies; OpenHands keeps no more than its history, Gemini CLI 25 calls)."""
K_OBS = 4
"""Identical action–observation pairs in a row that OpenHands' StuckDetector calls a loop."""
K_ERR = 3
"""Identical actions in a row, each answered by an error, that OpenHands calls a loop."""
K_CALL = 5
"""Identical tool calls in a row that Gemini CLI's LoopDetectionService calls a loop
(``TOOL_CALL_LOOP_THRESHOLD``)."""
M_ALT = 6
"""Steps of A-B-A-B alternation that OpenHands calls a loop (its last 6 steps)."""

_EXIT_CODE = re.compile(r"\A\s*(?:<returncode>\s*(-?\d+)\s*</returncode>|Exit code:?\s*(-?\d+))")
_SUMMARY_CHARS = 60
"""Characters of a command a loop's description shows (after the secret gate)."""
_SHORT_CHARS = 24
"""Characters of a command or target a status line's loop label shows."""
_ORDER: dict[LoopKind, int] = {
    "failing": 0,
    "retried": 1,
    "same_result": 2,
    "same_call": 3,
    "alternating": 4,
}
"""Which pattern names a loop when two give the same points: the most specific first."""


@dataclass(frozen=True, slots=True)
class Step:
    """One action and its observation.

    Attributes:
        calls: the tool calls of one model response, in order (at least one).
        result: the text of the tool results that answer them, joined with ``"\\n"``.
        failed: a result was marked an error or named a non-zero exit code.
    """

    calls: tuple[ToolCall, ...]
    result: str
    failed: bool

    @property
    def action(self) -> tuple[tuple[str, str], ...]:
        """What identifies the action: each call's name and argument digest."""
        return tuple((call.name, call.args_digest) for call in self.calls)

    @property
    def outcome(self) -> object:
        """What "the same observation" compares: for shell commands whether they failed
        (OpenHands compares a command's exit code), else the result text."""
        if all(call.command is not None for call in self.calls):
            return self.failed
        return self.result


@dataclass(frozen=True, slots=True)
class ActionLoop:
    """The strongest loop going on at the latest step.

    Attributes:
        kind: which pattern.
        count: the run's length in steps (``k``; failures for ``retried``; ``m`` for
            alternation).
        points: 0–100, from the table in the module docstring.
        calls: the repeated action's calls (for alternation, the first of the two).
        other: for alternation, the second action's calls; else empty.
        span: the steps from the loop's first to the latest step (``count`` for a run in
            a row; more for ``retried``).
        capped: the loop spans the whole window, so it may be longer than counted.
    """

    kind: LoopKind
    count: int
    points: float
    calls: tuple[ToolCall, ...]
    other: tuple[ToolCall, ...] = ()
    span: int = 0
    capped: bool = False


def _failed(message: ParsedMessage) -> bool:
    if message.is_error:
        return True
    found = _EXIT_CODE.match(message.content)
    if found is None:
        return False
    code = found.group(1) if found.group(1) is not None else found.group(2)
    return int(code) != 0


class StepScan:
    """:func:`steps` as a scan that can be resumed and wound back.

    :meth:`feed` takes the messages in order. Of each closed step the scan keeps only where
    it began and which message closed it (two integers); :meth:`window` rebuilds the latest
    steps from the messages on demand (the last few built are kept), so a long session's
    steps cost no memory beyond those integers — a step's result is the text of its tool
    results joined, a copy when there are several. :meth:`rewind` drops exactly the steps a
    change at some message index may alter and says where feeding must start again. A
    fresh scan fed every message gives what :func:`steps` gives. It also notes where the
    person typed a prompt, so that :meth:`window` can give the steps since the last one.
    """

    __slots__ = (
        "_built",
        "_calls",
        "_closed_at",
        "_failed",
        "_prompts",
        "_results",
        "_start",
        "_starts",
    )

    def __init__(self) -> None:
        self._starts = array("q")
        self._closed_at = array("q")
        self._prompts = array("q")  # indices of the prompts the person typed
        self._built: dict[int, Step] = {}  # recently built closed steps, by their start
        self._calls: list[ToolCall] = []
        self._results: list[str] = []
        self._failed = False
        self._start = 0

    @property
    def closed(self) -> int:
        """Steps closed so far."""
        return len(self._starts)

    def _close(self, index: int) -> None:
        if self._calls:
            self._starts.append(self._start)
            self._closed_at.append(index)
        self._calls, self._results, self._failed = [], [], False

    def feed(self, index: int, message: ParsedMessage) -> None:
        """Read ``message``, the ``index``-th of the session (indices must follow on)."""
        if message.tool_calls:
            parallel = (
                self._calls
                and not self._results
                and message.role == "tool"
                and not message.content.strip()
            )
            if not parallel:
                self._close(index)
                self._start = index
            self._calls.extend(message.tool_calls)
        elif message.role == "tool" and self._calls:
            self._results.append(message.content)
            self._failed = self._failed or _failed(message)
        elif message.role != "tool":
            self._close(index)
            if message.role == "user" and not message.is_summary:
                self._prompts.append(index)

    def _open_step(self) -> Step | None:
        if not self._calls:
            return None
        return Step(tuple(self._calls), "\n".join(self._results), self._failed)

    def _closed_step(self, number: int, messages: Sequence[ParsedMessage]) -> Step:
        """The ``number``-th closed step, rebuilt from the messages that made it."""
        start = self._starts[number]
        step = self._built.get(start)
        if step is None:
            scan = StepScan()
            for index in range(start, self._closed_at[number]):
                scan.feed(index, messages[index])
            built = scan._open_step()
            assert built is not None  # a step's first message carries tool calls
            step = self._built[start] = built
        return step

    def window(
        self, size: int, messages: Sequence[ParsedMessage], *, since_prompt: bool = False
    ) -> list[Step]:
        """The last ``size`` steps (``size`` ≥ 1) of the ``messages`` fed, the one still open
        (if any) last; with ``since_prompt``, only those after the last prompt the person
        typed (a prompt closes any open step, so the open one always is)."""
        open_step = self._open_step()
        wanted = size - (open_step is not None)
        first = max(0, self.closed - wanted)
        if since_prompt and self._prompts:
            first = max(first, bisect.bisect_right(self._starts, self._prompts[-1]))
        found = [self._closed_step(number, messages) for number in range(first, self.closed)]
        if self._built and len(self._built) > 2 * size:
            keep = self._starts[first] if first < self.closed else self._start
            self._built = {start: step for start, step in self._built.items() if start >= keep}
        return found if open_step is None else [*found, open_step]

    def rewind(self, index: int) -> int:
        """Forget what the messages from ``index`` on may have changed; return where to
        feed again (at most ``index``).

        A step closed by a message before ``index`` stands: the messages that made it are
        unchanged. The first step that is still open or was closed at ``index`` or later is
        dropped with all after it, and feeding starts again where it began: a step's first
        message always starts a new step, whatever came before it.
        """
        kept = bisect.bisect_left(self._closed_at, index)
        resume = index
        if kept < self.closed:
            resume = min(index, self._starts[kept])
        elif self._calls:
            resume = min(index, self._start)
        del self._starts[kept:], self._closed_at[kept:]
        del self._prompts[bisect.bisect_left(self._prompts, resume) :]
        self._built = {start: step for start, step in self._built.items() if start < resume}
        self._calls, self._results, self._failed = [], [], False
        return resume


def steps(messages: Sequence[ParsedMessage]) -> list[Step]:
    """The steps of ``messages`` in order.

    A message carrying tool calls starts a step; ``tool`` messages without calls that follow
    it are its observation. Consecutive call-only ``tool`` messages (Codex and Gemini write
    parallel calls one item each) before any result are one step. A user or assistant
    message without calls ends the step.
    """
    scan = StepScan()
    for index, message in enumerate(messages):
        scan.feed(index, message)
    return scan.window(scan.closed + 1, messages)


def _since_last_prompt(messages: Sequence[ParsedMessage]) -> Sequence[ParsedMessage]:
    """The messages after the last prompt the person typed (all of them without one)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and not message.is_summary:
            return messages[index + 1 :]
    return messages


def _tail(window: Sequence[Step], same: Callable[[Step, Step], bool]) -> int:
    """How many steps at the end of ``window`` are all equal to the last under ``same``."""
    count = 1
    while count < len(window) and same(window[-count - 1], window[-1]):
        count += 1
    return count


def _scaled(count: int, threshold: int) -> float:
    return min(100.0, 100.0 * (count - 1) / (threshold - 1)) if count > 1 else 0.0


def _retried(window: Sequence[Step]) -> tuple[int, int, tuple[ToolCall, ...]]:
    """The call failing most often since it last passed: (failures, steps from the first of
    them to the latest step, its calls); (0, 0, ()) without one failing twice."""
    best: tuple[int, int, tuple[ToolCall, ...]] = (0, 0, ())
    seen: set[tuple[tuple[str, str], ...]] = set()
    for index in range(len(window) - 1, -1, -1):
        action = window[index].action
        if action in seen:
            continue
        seen.add(action)
        positions = [i for i, s in enumerate(window) if s.action == action]
        streak: list[int] = []
        for position in reversed(positions):
            if not window[position].failed:
                break
            streak.append(position)
        if len(streak) > best[0]:
            best = (len(streak), len(window) - streak[-1], window[index].calls)
    return best


def recent_steps(messages: Sequence[ParsedMessage]) -> list[Step]:
    """The steps since the last prompt the person typed, at most the last
    :data:`ACTION_WINDOW`, oldest first: what :func:`loop_in` reads."""
    return steps(_since_last_prompt(messages))[-ACTION_WINDOW:]


def action_loop(messages: Sequence[ParsedMessage]) -> ActionLoop | None:
    """The strongest action loop going on at the latest step, or ``None``: :func:`loop_in`
    of :func:`recent_steps`."""
    return loop_in(recent_steps(messages))


def loop_in(window: Sequence[Step]) -> ActionLoop | None:
    """The strongest action loop going on at the last of ``window`` — the steps since the
    last prompt the person typed, at most the last :data:`ACTION_WINDOW` — or ``None``.

    The runs of the same call, of the same outcome, of errors and of alternation must end
    at the latest step; a retried failing call must not have passed since its first
    failure counted. Ties go to the most specific pattern (failing, retried, same result,
    same call, alternating).

    Returns:
        The loop with the most points (> 0), or ``None``.
    """
    if len(window) < 2:
        return None
    last = window[-1]
    found: list[ActionLoop] = []

    def offer(
        kind: LoopKind,
        count: int,
        points: float,
        *,
        calls: tuple[ToolCall, ...] = last.calls,
        other: tuple[ToolCall, ...] = (),
        span: int | None = None,
    ) -> None:
        if points > 0:
            span = count if span is None else span
            capped = len(window) == ACTION_WINDOW and span == len(window)
            found.append(ActionLoop(kind, count, points, calls, other, span, capped))

    same_call = _tail(window, lambda a, b: a.action == b.action)
    offer("same_call", same_call, _scaled(same_call, K_CALL))
    same_result = _tail(window, lambda a, b: a.action == b.action and a.outcome == b.outcome)
    offer("same_result", same_result, _scaled(same_result, K_OBS))
    if last.failed:
        failing = _tail(window, lambda a, b: a.action == b.action and a.failed)
        offer("failing", failing, _scaled(failing, K_ERR))
    failures, span, calls = _retried(window)
    if failures >= 2 and span > failures:  # other steps between: not a run in a row
        offer("retried", failures, _scaled(failures, K_OBS), calls=calls, span=span)
    alternation = _alternation(window)
    if alternation:
        points = min(100.0, 100.0 * (alternation - 2) / (M_ALT - 2))
        offer("alternating", alternation, points, other=window[-2].calls)
    if not found:
        return None
    return max(found, key=lambda loop: (loop.points, -_ORDER[loop.kind]))


def _alternation(window: Sequence[Step]) -> int:
    """Steps in the A-B-A-B… stretch that ends at the latest step (0 below 4; A ≠ B)."""
    if len(window) < 4:
        return 0
    a, b = window[-1].action, window[-2].action
    if a == b:
        return 0
    length = 2
    while length < len(window) and window[-length - 1].action == (a if length % 2 == 0 else b):
        length += 1
    return length if length >= 4 else 0


def _shown(text: str) -> str:
    """A part of a tool call as a report may show it: through the secret gate whole (a
    loop of ``mysql -pSECRET`` must not print the password; a rule may need the original
    line breaks, so blanks are collapsed only after it) and made printable (no terminal
    control characters), its blanks collapsed to single spaces."""
    from driftguard.secrets import gate  # the gate loads only when a loop is described

    gated = gate(text).text
    return " ".join(printable(gated).split()) if gated is not None else "[withheld]"


def _clipped(text: str, limit: int, *, whole_markers: bool) -> str:
    """``text`` cut to ``limit`` characters, ``…`` last, for a label. Only gated text is
    clipped (a secret cut short would no longer match its rule), and never inside a
    redaction marker: a marker the cut would split is kept whole with ``whole_markers``
    (the label runs over ``limit`` by less than a marker's length, and still says a
    secret was there), else left out (a status line has no room for it)."""
    if len(text) <= limit:
        return text
    from driftguard.secrets import MARKER_PATTERN

    cut = limit - 1
    for found in MARKER_PATTERN.finditer(text):
        if found.start() >= cut:
            break
        if cut < found.end():
            cut = found.end() if whole_markers else found.start()
            break
    return text if cut >= len(text) else text[:cut].rstrip() + "…"


def _call_words(calls: Sequence[ToolCall]) -> str:
    """A short name for an action: the command line, else the tool and its target."""
    call = calls[0]
    if call.command:
        label = f"`{_clipped(_shown(call.command), _SUMMARY_CHARS, whole_markers=True)}`"
    elif call.target_path:
        label = f"{_shown(call.name)} on {_shown(call.target_path)}"
    else:
        label = _shown(call.name) if call.name else "a tool call"
    return label + (f" (+{len(calls) - 1} more calls)" if len(calls) > 1 else "")


def describe_loop(loop: ActionLoop) -> str:
    """The loop in words a user can act on, e.g. "`pytest -x` failed 4 times in a row"."""
    what = _call_words(loop.calls)
    times = f"{'at least ' if loop.capped else ''}{loop.count} times"
    if loop.kind == "failing":
        return f"{what} failed {times} in a row"
    if loop.kind == "retried":
        return f"{what} failed {times} in the last {loop.span} steps, never passing in between"
    if loop.kind == "same_result":
        return f"{what} ran {times} in a row with the same result"
    if loop.kind == "same_call":
        return f"{what} ran {times} in a row"
    return f"{what} and {_call_words(loop.other)} alternated for {times[:-6]} steps"


def short_loop(loop: ActionLoop) -> str:
    """The loop in a few words for a status line: ``npm test ×3``, ``Edit a.py ×4``,
    ``ls ⇄ cat src/app.py ×6``."""

    def name(calls: Sequence[ToolCall]) -> str:
        call = calls[0]
        text = _shown(call.command) if call.command and call.command.strip() else ""
        if not text:
            target = _shown(call.target_path).rsplit("/", 1)[-1] if call.target_path else ""
            text = f"{_shown(call.name)} {target}".strip()
        return _clipped(text, _SHORT_CHARS, whole_markers=False)

    if loop.kind == "alternating":
        return f"{name(loop.calls)} ⇄ {name(loop.other)} ×{loop.count}"
    return f"{name(loop.calls)} ×{loop.count}"


def loop_key(loop: ActionLoop) -> str:
    """What identifies a loop across turns (its kind and calls, not its length), so that
    the model is told about it once however long it goes on."""
    calls = ",".join(f"{c.name}:{c.args_digest}" for c in (*loop.calls, *loop.other))
    return f"{loop.kind}|{calls}"
