"""Action loops: the same tool call over and over, or two calls taking turns (issue #8).

Agent sessions often hold few text replies, so their repetition shows in what the model
*does*. This module reads the remembered messages as **steps** — the tool calls of one
model response (the action) and the tool results that answer them (the observation) — and
finds, among the last :data:`ACTION_WINDOW` steps, the longest run of four loop patterns.
Each pattern's threshold is the count at which a published loop detector declares the agent
stuck; a run reaching it scores 100 points, shorter runs score in proportion:

=====================================  =============================  =======================
pattern                                points for a run of ``k``      threshold (source)
=====================================  =============================  =======================
same call, same result, in a row       ``100·(k−1)/(K_OBS−1)``        ``K_OBS = 4``: OpenHands
same call failing, in a row            ``100·(k−1)/(K_ERR−1)``        ``K_ERR = 3``: OpenHands
same call whatever its results         ``100·(k−1)/(K_CALL−1)``       ``K_CALL = 5``: Gemini CLI
two calls alternating A-B-A-B…, ``m``  ``100·(m−2)/(M_ALT−2)``        ``M_ALT = 6``: OpenHands
=====================================  =============================  =======================

Sources (read in their code, not their docs):

- OpenHands ``openhands/controller/stuck.py`` (``StuckDetector.is_stuck``): the last 4
  actions identical with the last 4 observations identical; the last 3 actions identical
  with the last 3 observations errors; the last 6 steps alternating between two
  action–observation pairs.
- Gemini CLI ``packages/core/src/services/loopDetectionService.ts``
  (``TOOL_CALL_LOOP_THRESHOLD = 5``): the same tool name and arguments 5 times in a row.

A step's action is the tuple of its calls' ``(name, args_digest)`` (canonical JSON of the
arguments, so key order does not matter); its observation is the text of the results.
A step failed when a result is marked an error (Claude Code's ``is_error``, Codex's exit
code, Gemini's error field, as the adapters read them) or its text begins with a non-zero
exit code the harness wrote: ``<returncode>N</returncode>`` (mini-swe-agent) or
``Exit code: N``.

Pure functions over :class:`~driftguard.model.ParsedMessage` sequences; no I/O.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from driftguard.model import ParsedMessage, ToolCall

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
    "steps",
]

ACTION_WINDOW = 20
"""Steps looked at, the latest last: the seed's longest window (uncertainty's 20 replies)."""
K_OBS = 4
"""Identical action–observation pairs in a row that OpenHands' StuckDetector calls a loop."""
K_ERR = 3
"""Identical actions in a row, each answered by an error, that OpenHands calls a loop."""
K_CALL = 5
"""Identical tool calls in a row that Gemini CLI's LoopDetectionService calls a loop
(``TOOL_CALL_LOOP_THRESHOLD``)."""
M_ALT = 6
"""Steps of A-B-A-B alternation that OpenHands calls a loop (its last 6 steps)."""

LoopKind = Literal["same_result", "failing", "same_call", "alternating"]

_EXIT_CODE = re.compile(r"\A\s*(?:<returncode>\s*(-?\d+)\s*</returncode>|Exit code:?\s*(-?\d+))")
_SUMMARY_CHARS = 60


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


@dataclass(frozen=True, slots=True)
class ActionLoop:
    """The strongest loop among the recent steps.

    Attributes:
        kind: which pattern.
        count: the run's length in steps (``k``, or ``m`` for alternation).
        points: 0–100, from the table in the module docstring.
        calls: the repeated action's calls (for alternation, the first of the two).
        other: for alternation, the second action's calls; else empty.
    """

    kind: LoopKind
    count: int
    points: float
    calls: tuple[ToolCall, ...]
    other: tuple[ToolCall, ...] = ()


def _failed(message: ParsedMessage) -> bool:
    if message.is_error:
        return True
    found = _EXIT_CODE.match(message.content)
    if found is None:
        return False
    code = found.group(1) if found.group(1) is not None else found.group(2)
    return int(code) != 0


class StepScan:
    """:func:`steps` as a scan that can be resumed and wound back (issue #10).

    :meth:`feed` takes the messages in order. Of each closed step the scan keeps only where
    it began and which message closed it (two integers); :meth:`window` rebuilds the latest
    steps from the messages on demand (the last few built are kept), so a long session's
    steps cost no memory beyond those integers — a step's result is the text of its tool
    results joined, a copy when there are several. :meth:`rewind` drops exactly the steps a
    change at some message index may alter and says where feeding must start again. A
    fresh scan fed every message gives what :func:`steps` gives.
    """

    __slots__ = ("_built", "_calls", "_closed_at", "_failed", "_results", "_start", "_starts")

    def __init__(self) -> None:
        self._starts = array("q")
        self._closed_at = array("q")
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

    def window(self, size: int, messages: Sequence[ParsedMessage]) -> list[Step]:
        """The last ``size`` steps (``size`` ≥ 1) of the ``messages`` fed, the one still open
        (if any) last."""
        open_step = self._open_step()
        wanted = size - (open_step is not None)
        first = max(0, self.closed - wanted)
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
        self._built = {start: step for start, step in self._built.items() if start < resume}
        self._calls, self._results, self._failed = [], [], False
        return resume


def steps(messages: Sequence[ParsedMessage]) -> list[Step]:
    """The session's steps in order.

    A message carrying tool calls starts a step; ``tool`` messages without calls that follow
    it are its observation. Consecutive call-only ``tool`` messages (Codex and Gemini write
    parallel calls one item each) before any result are one step. A user or assistant
    message without calls ends the step.
    """
    scan = StepScan()
    for index, message in enumerate(messages):
        scan.feed(index, message)
    return scan.window(scan.closed + 1, messages)


def _runs(window: Sequence[Step], same: Callable[[Step, Step], bool]) -> list[tuple[int, int]]:
    """(start, length) of each maximal run of consecutive steps equal under ``same``."""
    runs: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(window) + 1):
        if index == len(window) or not same(window[index - 1], window[index]):
            runs.append((start, index - start))
            start = index
    return runs


def _scaled(count: int, threshold: int) -> float:
    return min(100.0, 100.0 * (count - 1) / (threshold - 1)) if count > 1 else 0.0


def action_loop(messages: Sequence[ParsedMessage]) -> ActionLoop | None:
    """The strongest action loop among the last :data:`ACTION_WINDOW` steps, or ``None``
    (:func:`loop_in` of :func:`steps`)."""
    return loop_in(steps(messages)[-ACTION_WINDOW:])


def loop_in(window: Sequence[Step]) -> ActionLoop | None:
    """The strongest action loop among ``window``, the last :data:`ACTION_WINDOW` steps.

    Ties go to the pattern listed first in the module docstring, then to the later run.

    Returns:
        The loop with the most points (> 0), or ``None`` when no two consecutive steps
        repeat or alternate.
    """
    best: ActionLoop | None = None

    def offer(candidate: ActionLoop) -> None:
        nonlocal best
        if candidate.points > 0 and (best is None or candidate.points > best.points):
            best = candidate

    for start, length in _runs(window, lambda a, b: a.action == b.action and a.result == b.result):
        offer(ActionLoop("same_result", length, _scaled(length, K_OBS), window[start].calls))
    for start, length in _runs(window, lambda a, b: a.action == b.action and a.failed and b.failed):
        if window[start].failed:
            offer(ActionLoop("failing", length, _scaled(length, K_ERR), window[start].calls))
    for start, length in _runs(window, lambda a, b: a.action == b.action):
        offer(ActionLoop("same_call", length, _scaled(length, K_CALL), window[start].calls))
    _offer_alternation(window, offer)
    return best


def _offer_alternation(window: Sequence[Step], offer: Callable[[ActionLoop], None]) -> None:
    """Offer each maximal A-B-A-B… stretch of at least 4 steps (A ≠ B) to ``offer``."""
    index = 0
    while index + 3 < len(window):
        a, b = window[index].action, window[index + 1].action
        if a == b:
            index += 1
            continue
        end = index + 2
        while end < len(window) and window[end].action == (a if (end - index) % 2 == 0 else b):
            end += 1
        length = end - index
        if length >= 4:
            points = min(100.0, 100.0 * (length - 2) / (M_ALT - 2))
            offer(
                ActionLoop(
                    "alternating", length, points, window[index].calls, window[index + 1].calls
                )
            )
            index = end - 1
        else:
            index += 1


def _call_words(calls: Sequence[ToolCall]) -> str:
    """A short name for an action: the command line, else the tool and its target."""
    call = calls[0]
    if call.command:
        text = " ".join(call.command.split())
        if len(text) > _SUMMARY_CHARS:
            text = text[: _SUMMARY_CHARS - 1] + "…"
        label = f"`{text}`"
    elif call.target_path:
        label = f"{call.name} on {call.target_path}"
    else:
        label = call.name or "a tool call"
    return label + (f" (+{len(calls) - 1} more calls)" if len(calls) > 1 else "")


def describe_loop(loop: ActionLoop) -> str:
    """The loop in words a user can act on, e.g. "`pytest -x` failed 4 times in a row"."""
    what = _call_words(loop.calls)
    if loop.kind == "failing":
        return f"{what} failed {loop.count} times in a row"
    if loop.kind == "same_result":
        return f"{what} ran {loop.count} times in a row with the same result"
    if loop.kind == "same_call":
        return f"{what} ran {loop.count} times in a row"
    return f"{what} and {_call_words(loop.other)} alternated {loop.count} times"
