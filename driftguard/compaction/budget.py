"""How much room is left before the host compacts, in tokens and in turns.

The tokens are the usable window (:mod:`driftguard.engine.window`) minus the context now. The
turns are an estimate from the session's own recent turns: a **turn** is everything from a
prompt the person typed to the next one; its growth is how much the context grew over it.
The estimate divides the tokens left by the median growth of the last
:data:`RECENT_TURNS` turns that grew (a turn that shrank the context — a compaction, a
cleared tool result — says nothing about how fast it fills).

Where the file reports usage, a turn's context is the size of its last request
(``ParsedMessage.token_count``); where it does not (``Session.tokens_estimated``), its
growth is the characters it added ÷ 4, the estimate docs/design.md §5.3 uses for the whole
context.

Pure; reads only the latest turns, so its cost does not grow with the session.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from driftguard.model import ParsedMessage, Session

__all__ = [
    "MIN_GROWN_TURNS",
    "RECENT_TURNS",
    "TURNS_SHOWN_MAX",
    "Budget",
    "budget",
    "turn_growths",
    "turns_phrase",
]

RECENT_TURNS = 5
"""Finished turns whose growth the estimate reads (the latest first)."""

MIN_GROWN_TURNS = 2
"""Finished turns that must have grown the context before turns are estimated: a median of
one is that one turn, however unlike the rest of the session it was."""

TURNS_SHOWN_MAX = 50
"""Above this many turns the text says ``over 50 turns``: so far ahead, the recent turns'
median says little about the turns to come (the JSON keeps the number)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """Room left before the host compacts.

    Attributes:
        tokens_left: tokens between the context now and the usable window (≥ 0).
        growth_per_turn: the median context growth of the recent turns that grew, in
            tokens, or ``None`` when no finished turn grew.
        turns_left: ``tokens_left // growth_per_turn``, or ``None`` without a growth.
    """

    tokens_left: int
    growth_per_turn: int | None
    turns_left: int | None


def _turns(messages: Sequence[ParsedMessage], limit: int) -> list[list[ParsedMessage]]:
    """The last ``limit`` turns (each from a typed prompt to the next), oldest first; the
    messages before the first prompt in reach are not a turn."""
    turns: list[list[ParsedMessage]] = []
    current: list[ParsedMessage] = []
    for message in reversed(messages):
        current.append(message)
        if message.role == "user" and not message.is_summary:
            turns.append(current[::-1])
            current = []
            if len(turns) == limit:
                break
    return turns[::-1]


def _turn_context(turn: Sequence[ParsedMessage]) -> int | None:
    """The size of the turn's last request with usage, or ``None``."""
    for message in reversed(turn):
        if message.token_count:
            return message.token_count
    return None


def turn_growths(session: Session, limit: int = RECENT_TURNS) -> list[int]:
    """How much the context grew over each of the last ``limit`` finished turns, oldest
    first (negative where it shrank), in tokens; the turn of the latest prompt is not
    finished and not counted. With usage, a turn's growth is its last request's size minus
    the previous turn's, so the first turn in the file has none."""
    finished = _turns(session.messages, limit + 2)[:-1]
    if session.tokens_estimated:
        return [sum(len(m.content) for m in turn) // 4 for turn in finished[-limit:]]
    ends = [_turn_context(turn) for turn in finished]
    return [
        after - before
        for before, after in itertools.pairwise(ends)
        if before is not None and after is not None
    ][-limit:]


def budget(session: Session, usable_window: int) -> Budget:
    """The room ``session`` has left before its host compacts at ``usable_window`` tokens;
    turns are estimated once :data:`MIN_GROWN_TURNS` finished turns grew."""
    tokens_left = max(0, usable_window - session.context_tokens)
    grew = [growth for growth in turn_growths(session) if growth > 0]
    if len(grew) < MIN_GROWN_TURNS:
        return Budget(tokens_left, None, None)
    growth = max(1, math.floor(statistics.median(grew)))
    return Budget(tokens_left, growth, tokens_left // growth)


def turns_phrase(turns_left: int | None) -> str | None:
    """How the turns left read beside the tokens left (which the caller shows, or says the
    host compacts next when there are none): ``under a turn`` when fewer tokens are left
    than a turn adds, ``~6 turns``, ``over 50 turns`` past :data:`TURNS_SHOWN_MAX`;
    ``None`` without an estimate."""
    if turns_left is None:
        return None
    if turns_left == 0:
        return "under a turn"
    if turns_left > TURNS_SHOWN_MAX:
        return f"over {TURNS_SHOWN_MAX} turns"
    return f"~{turns_left} turn{'s' * (turns_left != 1)}"
